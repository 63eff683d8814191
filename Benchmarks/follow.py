#!/usr/bin/env python3
"""flipaudit follow, measured (docs/performance.md, "Following live logs").

Three measures, each beside a baseline run at the same time on the same
machine (machines here are shared and noisy: ratios, not absolutes):

1. Latency at RATE lines a second for SECONDS: from a flip line written to
   the log to its finding line in --findings. Every 100th line is a flip
   request answered with a code sent to an unlisted host (a finding decided
   on that very record), with its own state. Baseline: the same lines seen
   by `tail -F` (the time any reader takes to notice an append).
2. Idle CPU: the follower's CPU time (from /proc) over IDLE seconds with no
   new line, as a share of one core; `tail -F`'s beside it.
3. Memory over LINES lines appended as fast as they are written (1 in 100 a
   flip session, request and return on one line with a unique state): the
   follower's RSS sampled every second, reported at a tenth, half and all
   of the lines.

usage: Benchmarks/follow.py path/to/flipaudit [--rate N] [--seconds N]
       [--idle N] [--lines N] [--reuse-window 10m]
"""
import argparse
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone

EVIL = "https://evil.example/cb"
OPA = "https://oauth-redirect.googleusercontent.com/a/com.google.OPA"


def stamp(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%d/%b/%Y:%H:%M:%S +0000")


def flip_line(t, state, evil):
    uri = EVIL if evil else OPA
    enc = uri.replace(":", "%3A").replace("/", "%2F")
    return (f'203.0.113.9 - - [{stamp(t)}] "GET /oauth/authorize?response_type=code&client_id=G123&redirect_uri={enc}'
            f'&state={state}&scope=devices.read HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "{uri}?code=c{state}&state={state}"\n')


def plain_line(t, i):
    return f'198.51.100.{i % 250} - - [{stamp(t)}] "GET /static/app.{i}.js HTTP/1.1" 200 5120 "-" "Mozilla/5.0" "-"\n'


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


def watch(path, key, seen, stop):
    """Notes when each line holding `key`=STATE first appears in path."""
    while not os.path.exists(path) and not stop.is_set():
        time.sleep(0.01)
    with open(path, "rb") as f:
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
                i = line.find(key)
                if i >= 0:
                    state = line[i + len(key):].split(b'"')[0].split(b"&")[0].split(b" ")[0]
                    seen.setdefault(state.decode(), now)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--rate", type=int, default=1000)
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--idle", type=int, default=20)
    ap.add_argument("--lines", type=int, default=10_000_000)
    # The memory's bound is the open sessions and what the reuse window
    # remembers: with 10 minutes, it must level off after the first 6 %
    # of 10 million lines (a thousand a second of log time).
    ap.add_argument("--reuse-window", default="10m")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="flipaudit-follow-bench-")
    log, findings = f"{work}/access.log", f"{work}/findings.ndjson"
    open(log, "w").close()
    import socket
    import urllib.request
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    follower = subprocess.Popen([a.bin, "follow", log, "--client-id", "G123", "--checkpoint", f"{work}/cp",
                                 "--findings", findings, "--listen", f"127.0.0.1:{port}", "--reuse-window", a.reuse_window], stderr=subprocess.DEVNULL)

    def metric(name):
        try:
            text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
        except OSError:
            return None
        for line in text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return None
    tail = subprocess.Popen(["tail", "-F", "-n", "0", log], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    time.sleep(1.0)

    # 1. Latency.
    written, found, tailed = {}, {}, {}
    stop = threading.Event()
    readers = [threading.Thread(target=watch, args=(findings, b'"state":"', found, stop), daemon=True)]
    readers[0].start()

    def read_tail():
        for line in tail.stdout:
            i = line.find(b"&state=")
            if i >= 0:
                tailed.setdefault(line[i + 7:].split(b"&")[0].decode(), time.time())
    threading.Thread(target=read_tail, daemon=True).start()
    out = open(log, "a", buffering=1)
    start = time.time()
    n = a.rate * a.seconds
    for i in range(n):
        due = start + i / a.rate
        delay = due - time.time()
        if delay > 0:
            time.sleep(delay)
        now = time.time()
        if i % 100 == 0:
            state = f"L{i:09d}"
            out.write(flip_line(now, state, True))
            written[state] = time.time()
        else:
            out.write(plain_line(now, i))
    deadline = time.time() + 30
    while (len(found) < len(written) or len(tailed) < len(written)) and time.time() < deadline:
        time.sleep(0.1)
    lat = [(found[s] - w) * 1000 for s, w in written.items() if s in found]
    base = [(tailed[s] - w) * 1000 for s, w in written.items() if s in tailed]
    print(f"latency at {a.rate} lines/s for {a.seconds} s: {len(lat)}/{len(written)} findings seen; "
          f"p50 {percentile(lat, 50):.1f} ms, p99 {percentile(lat, 99):.1f} ms, max {max(lat, default=float('nan')):.1f} ms")
    print(f"  baseline tail -F: p50 {percentile(base, 50):.1f} ms, p99 {percentile(base, 99):.1f} ms; "
          f"p99 ratio {percentile(lat, 99) / max(percentile(base, 99), 0.001):.1f}")

    # 2. Idle CPU.
    time.sleep(2)
    c0, t0, w0 = cpu_seconds(follower.pid), cpu_seconds(tail.pid), time.time()
    time.sleep(a.idle)
    c1, t1, w1 = cpu_seconds(follower.pid), cpu_seconds(tail.pid), time.time()
    print(f"idle for {a.idle} s: follower {100 * (c1 - c0) / (w1 - w0):.2f} % of a core, tail -F {100 * (t1 - t0) / (w1 - w0):.2f} %")

    follower.send_signal(signal.SIGTERM)
    print(f"follower exit status after SIGTERM: {follower.wait()}")
    tail.kill()
    stop.set()

    # 3. Memory over many lines: a log of LINES lines, a thousand a second
    # of log time ending a minute ago, read by a new follower from its
    # start (no quiet turn, where the wall clock would move the rules'
    # clock past these old records).
    big = f"{work}/big.log"
    base_t = time.time() - 60 - a.lines / 1000
    with open(big, "w") as f:
        batch = []
        for i in range(a.lines):
            t = base_t + i / 1000
            batch.append(flip_line(t, f"M{i:010d}", False) if i % 100 == 0 else plain_line(t, i))
            if len(batch) == 10000:
                f.write("".join(batch))
                batch.clear()
        f.write("".join(batch))
    size = os.path.getsize(big)
    follower = subprocess.Popen([a.bin, "follow", "--from-start", big, "--client-id", "G123", "--checkpoint", f"{work}/cp2",
                                 "--findings", f"{work}/f2.ndjson", "--listen", f"127.0.0.1:{port}",
                                 "--reuse-window", a.reuse_window], stderr=subprocess.DEVNULL)
    # A new process: its CPU time starts at 0.
    c0, w0 = 0.0, time.time()
    samples = []
    while time.time() - w0 < 900:
        read = metric("flipaudit_follow_bytes_read_total")
        if read is not None:
            samples.append((read, rss_mib(follower.pid)))
            if read >= size:
                break
        time.sleep(0.25)
    c1, w1 = cpu_seconds(follower.pid), time.time()
    print(f"{a.lines} lines ({size / 1e6:.0f} MB) read from the start: {w1 - w0:.1f} s wall, {c1 - c0:.1f} s CPU "
          f"({(c1 - c0) / a.lines * 1e6:.2f} µs CPU a line)")
    for share in (0.1, 0.25, 0.5, 0.75, 1.0):
        mark = [r for n, r in samples if n >= share * size]
        if mark:
            print(f"  RSS after {share:.0%} of the bytes: {mark[0]:.1f} MiB")
    print(f"  open sessions at the end: {metric('flipaudit_follow_open_sessions'):.0f}")
    # Baseline: the batch audit of the same file, same options.
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([a.bin, big, "--client-id", "G123", "--reuse-window", a.reuse_window, "--quiet"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    batch = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    print(f"  baseline batch audit of the same file: {batch:.1f} s CPU; follower/batch CPU ratio {(c1 - c0) / max(batch, 0.001):.2f}")
    follower.send_signal(signal.SIGTERM)
    print(f"follower exit status after SIGTERM: {follower.wait()}")
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
