#!/usr/bin/env python3
"""What a follower's commits cost at a high line rate (docs/performance.md,
"Commits that cost what changed").

RATE lines a second for SECONDS, SHARE of them App Flip flows (a request
answered with a code, each its own state: a state and a code remembered
for --reuse-window), the rest plain lines; one flow in 100 sends its code
to an unlisted host, a finding decided on that record, whose latency
(line written → finding line in --findings) is measured. Lines are
written in batches every 10 ms. Reported: finding latency p50/p99/max,
the bytes the commits wrote a second (flipaudit_follow_commit_bytes_total,
or the checkpoint's size times the commits for a build without a
journal), the snapshot's and journal's sizes, RSS, and the follower's CPU.
Run two builds one after the other on the same machine to pair them.
The work folder (its log is 4 GB after 600 s) is removed at the end.

usage: Benchmarks/commits.py path/to/flipaudit [--rate N] [--seconds N]
       [--share 0.11] [--reuse-window 24h]
"""
import argparse
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request

from follow import EVIL, OPA, percentile, stamp


def flow(ts, state, evil):
    uri = EVIL if evil else OPA
    enc = uri.replace(":", "%3A").replace("/", "%2F")
    return (f'203.0.113.9 - - [{ts}] "GET /oauth/authorize?response_type=code&client_id=G123&redirect_uri={enc}'
            f'&state={state}&scope=devices.read HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "{uri}?code=c{state}&state={state}"\n')


def plain(ts, i):
    return f'198.51.100.{i % 250} - - [{ts}] "GET /static/app.{i}.js HTTP/1.1" 200 5120 "-" "Mozilla/5.0" "-"\n'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--rate", type=int, default=50_000)
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("--share", type=float, default=0.11)
    ap.add_argument("--reuse-window", default="24h")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="flipaudit-commit-bench-")
    log, findings, cp = f"{work}/access.log", f"{work}/findings.ndjson", f"{work}/cp"
    open(log, "w").close()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    follower = subprocess.Popen([a.bin, "follow", log, "--client-id", "G123", "--checkpoint", cp, "--findings", findings,
                                 "--listen", f"127.0.0.1:{port}", "--reuse-window", a.reuse_window], stderr=subprocess.DEVNULL)

    def metrics():
        try:
            text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
        except OSError:
            return {}
        return {line.split()[0]: float(line.split()[1]) for line in text.splitlines() if line and not line.startswith("#")}

    time.sleep(1.0)
    found, stop = {}, threading.Event()

    def watch():
        while not os.path.exists(findings):
            time.sleep(0.01)
        with open(findings, "rb") as f:
            buf = b""
            while not stop.is_set():
                chunk = f.read()
                if not chunk:
                    time.sleep(0.002)
                    continue
                now = time.time()
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    i = line.find(b'"state":"')
                    if i >= 0:
                        found.setdefault(line[i + 9:].split(b'"')[0].decode(), now)
    threading.Thread(target=watch, daemon=True).start()

    written = {}
    sizes = []
    start = time.time()
    m0 = metrics()
    out = open(log, "a")
    i = flows = 0
    every = max(1, round(1 / a.share)) if a.share > 0 else 0
    batch_lines = a.rate // 100
    for b in range(a.seconds * 100):
        due = start + b / 100
        delay = due - time.time()
        if delay > 0:
            time.sleep(delay)
        ts = stamp(time.time())
        chunk = []
        evil = []
        for _ in range(batch_lines):
            if every and i % every == 0:
                state = f"S{flows:010d}"
                bad = flows % 100 == 0
                chunk.append(flow(ts, state, bad))
                if bad:
                    evil.append(state)
                flows += 1
            else:
                chunk.append(plain(ts, i))
            i += 1
        out.write("".join(chunk))
        out.flush()
        now = time.time()
        for s in evil:
            written[s] = now
        if b % 1000 == 0:
            sizes.append((time.time() - start, os.path.getsize(cp) if os.path.exists(cp) else 0,
                          os.path.getsize(cp + ".journal") if os.path.exists(cp + ".journal") else 0))
    elapsed = time.time() - start
    deadline = time.time() + 30
    while len(found) < len(written) and time.time() < deadline:
        time.sleep(0.1)
    m1 = metrics()
    stop.set()
    lat = [(found[s] - w) * 1000 for s, w in written.items() if s in found]
    cpu = sum(int(x) for x in open(f"/proc/{follower.pid}/stat").read().rsplit(")", 1)[1].split()[11:13]) / os.sysconf("SC_CLK_TCK")
    rss = [int(l.split()[1]) / 1024 for l in open(f"/proc/{follower.pid}/status") if l.startswith("VmRSS:")][0]
    commits = m1.get("flipaudit_follow_commits_total", 0) - m0.get("flipaudit_follow_commits_total", 0)
    snapshots = m1.get("flipaudit_follow_snapshots_total")
    cb = m1.get("flipaudit_follow_commit_bytes_total")
    print(f"{a.rate} lines/s, {a.share:.0%} flows ({flows} flows, {i} lines) for {elapsed:.0f} s, reuse window {a.reuse_window}")
    print(f"  findings {len(lat)}/{len(written)}: latency p50 {percentile(lat, 50):.1f} ms, p99 {percentile(lat, 99):.1f} ms, "
          f"max {max(lat, default=float('nan')):.1f} ms")
    if cb is not None:
        print(f"  commits {commits:.0f} ({snapshots:.0f} snapshots): {cb / elapsed / 1e6:.2f} MB written a second, "
              f"{cb / i:.1f} bytes a line")
    else:
        last = sizes[-1][1] if sizes else 0
        print(f"  commits {commits:.0f}, each the whole checkpoint: about {last * commits / elapsed / 1e6:.2f} MB a second at the end's "
              f"size ({last / 1e6:.1f} MB)")
    for t, c, j in sizes:
        print(f"    at {t:5.0f} s: checkpoint {c / 1e6:7.2f} MB, journal {j / 1e6:7.2f} MB")
    print(f"  follower: RSS {rss:.0f} MiB, CPU {cpu:.1f} s ({100 * cpu / elapsed:.0f} % of a core)")
    follower.terminate()
    follower.wait()
    # Its log is gigabytes after ten minutes.
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
