#!/usr/bin/env python3
"""Times flipaudit against baselines in one run, alternating, and reports ratios.

Each round runs every command once, in turn (so machine noise hits them all
alike); wall time, CPU time (user + system) and peak RSS come from
/usr/bin/time -v. Reported: median wall, MB/s and lines/s of uncompressed
input, median CPU time, peak RSS, and the ratios of wall and CPU time to each
C baseline's in the same round (median, and min–max over rounds): zscan
(zlib) and isalscan (ISA-L's igzip, flipaudit's default engine). A hyperfine
pass over the same commands follows as a cross-check. Instructions per line
come from Benchmarks/instructions.sh (callgrind; this machine has no
hardware counters).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile


def timed(cmd):
    """(wall seconds, CPU seconds, peak RSS KiB) of one run of `cmd` (a shell string)."""
    with tempfile.NamedTemporaryFile("r") as t:
        subprocess.run(["/usr/bin/time", "-v", "-o", t.name, "sh", "-c", cmd], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        text = open(t.name).read()
    m = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", text)
    h, mnt, s = m.group(1), m.group(2), m.group(3)
    wall = (int(h) * 3600 if h else 0) + int(mnt) * 60 + float(s)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    cpu = sum(float(re.search(r"%s time \(seconds\): ([\d.]+)" % kind, text).group(1)) for kind in ("User", "System"))
    return wall, cpu, rss


def size_and_lines(paths):
    out = subprocess.run("gzip -dc " + " ".join(paths) + " | wc -lc", shell=True, capture_output=True, text=True).stdout.split()
    return int(out[1]), int(out[0])


ZSCAN = "C baseline (zlib + memchr + memmem)"
ISALSCAN = "C baseline ISA-L (igzip + memchr + memmem)"


def scenario(name, paths, args):
    outdir = os.path.join(args.out, "csv-" + name)
    os.makedirs(outdir, exist_ok=True)
    files = " ".join(paths)
    cmds = {
        ZSCAN: "%s %s" % (args.baseline, files),
        "C baseline, inflate only": "%s --inflate-only %s" % (args.baseline, files),
        ISALSCAN: "%s %s" % (args.isal_baseline, files),
        "C baseline ISA-L, inflate only": "%s --inflate-only %s" % (args.isal_baseline, files),
        "gzip -dc > /dev/null": "gzip -dc %s > /dev/null" % files,
        "flipaudit --csv (full audit)": "%s %s --quiet --csv %s" % (args.flipaudit, files, outdir),
    }
    if args.against:
        # Another build (say the last commit's) in the same rounds, so a
        # change is measured against it under the same noise.
        cmds["the --against build, --csv"] = "%s %s --quiet --csv %s-against" % (args.against, files, outdir)
    size, lines = size_and_lines(paths)
    results = {k: [] for k in cmds}
    for r in range(args.runs):
        for k, c in cmds.items():
            results[k].append(timed(c))
        print("  round %d/%d done" % (r + 1, args.runs), file=sys.stderr)
    print("\n### %s: %s (%.0f MB uncompressed, %.1f M lines)\n" % (name, ", ".join(os.path.basename(p) for p in paths), size / 1e6, lines / 1e6))
    print("| command | wall (median) | MB/s | M lines/s | CPU (median) | peak RSS "
          "| wall ratio to zscan (median, min–max) | CPU ratio to zscan | wall ratio to isalscan | CPU ratio to isalscan |")
    print("|---|---|---|---|---|---|---|---|---|---|")

    def ratios(values, base):
        # /usr/bin/time counts in hundredths: a tiny input may take "0".
        r = [v / max(b, 0.01) for v, b in zip(values, base)]
        return "%.2f (%.2f–%.2f)" % (statistics.median(r), min(r), max(r))

    for k in cmds:
        walls = [w for w, _, _ in results[k]]
        cpus = [c for _, c, _ in results[k]]
        rss = max(r for _, _, r in results[k])
        med = statistics.median(walls)
        columns = []
        for base in (ZSCAN, ISALSCAN):
            columns += [ratios(walls, [w for w, _, _ in results[base]]), ratios(cpus, [c for _, c, _ in results[base]])]
        print("| %s | %.2f s | %.0f | %.2f | %.2f s | %.1f MiB | %s |" % (
            k, med, size / 1e6 / med, lines / 1e6 / med, statistics.median(cpus), rss / 1024, " | ".join(columns)))
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline", required=True, help="zscan (zlib)")
    ap.add_argument("--isal-baseline", required=True, help="isalscan (ISA-L)")
    ap.add_argument("--flipaudit", required=True)
    ap.add_argument("--against", help="another flipaudit build, timed in the same rounds")
    ap.add_argument("--one", required=True)
    ap.add_argument("--two", nargs=2, required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    print("machine: %s, %d cores" % (os.uname().machine, os.cpu_count()))
    scenario("one file", [args.one], args)
    scenario("two files", list(args.two), args)
    print("\nhyperfine cross-check (one file):", file=sys.stderr)
    subprocess.run(["hyperfine", "-w", "1", "-r", "3", "--style", "basic",
                    "%s %s" % (args.baseline, args.one),
                    "%s %s" % (args.isal_baseline, args.one),
                    "%s %s --quiet --csv %s" % (args.flipaudit, args.one, os.path.join(args.out, "csv-hf"))], check=False)


if __name__ == "__main__":
    main()
