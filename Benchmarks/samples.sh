#!/usr/bin/env bash
# Where two builds' CPU time differs, by function: perf's cpu-clock samples
# (no hardware counters needed) of ROUNDS alternating runs of each build on
# one log, summed per symbol, and the symbols whose counts differ most;
# then each build's startup (task-clock of a run on an empty input, the
# median of ROUNDS). What instructions.sh cannot show: time per
# instruction, the kernel's share, cache misses that land on a retain.
#   AGAINST=path/to/other/flipaudit bash Benchmarks/samples.sh
#   BIN=… AGAINST=… LOG=Benchmarks/data/one-1000m.log.gz ARGS="--csv" ROUNDS=3 bash Benchmarks/samples.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release/flipaudit}
AGAINST=${AGAINST:?AGAINST=path/to/the/other/flipaudit}
LOG=${LOG:-Benchmarks/data/edge-1000m.log.gz}
ROUNDS=${ROUNDS:-5}
TOP=${TOP:-25}
[ -s "$LOG" ] || { echo "no $LOG: run Benchmarks/paired.sh first, which makes it" >&2; exit 2; }
command -v perf > /dev/null || { echo "perf is needed (linux-perf)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gzip -c < /dev/null > "$work/empty.gz"
# The log in the page cache first: the first run would pay for the disk.
cat "$LOG" > /dev/null
for r in $(seq "$ROUNDS"); do
  for side in against this; do
    bin=$AGAINST; [ "$side" = this ] && bin=$BIN
    rm -rf "$work/out"
    # shellcheck disable=SC2086
    perf record -q -e cpu-clock -F 20000 -o "$work/perf.data" "$bin" "$LOG" --quiet ${ARGS:-} ${ARGS:+"$work/out"} > /dev/null 2>&1 || true
    perf report -i "$work/perf.data" --stdio --sort sym -n 2> /dev/null | grep -v '^#' >> "$work/$side.txt" || true
    perf stat -x, -e task-clock -o "$work/stat" "$bin" "$work/empty.gz" --quiet > /dev/null 2>&1 || true
    awk -F, '/task-clock/ {print $1}' "$work/stat" >> "$work/$side.startup"
  done
done
python3 - "$work" "$TOP" <<'PY'
import collections, re, statistics, sys
work, top = sys.argv[1], int(sys.argv[2])
def samples(side):
    counts = collections.Counter()
    for line in open(f"{work}/{side}.txt"):
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+\[.\]\s+(.*)", line)
        if m:
            counts[re.sub(r"Tf4.*", "", m.group(2).strip())] += int(m.group(1))
    return counts
a, b = samples("against"), samples("this")
ta, tb = sum(a.values()), sum(b.values())
print(f"samples: against {ta}, this build {tb} ({100 * (tb / ta - 1):+.2f}%)")
print(f"{'against':>8} {'this':>8} {'diff':>7}  symbol")
for k in sorted(set(a) | set(b), key=lambda k: -abs(b[k] - a[k]))[:top]:
    print(f"{a[k]:8d} {b[k]:8d} {b[k] - a[k]:+7d}  {k[:110]}")
for side, name in (("against", "against"), ("this", "this build")):
    ms = [float(x) for x in open(f"{work}/{side}.startup") if x.strip()]
    print(f"startup, {name}: {statistics.median(ms):.2f} ms (median of {len(ms)} empty runs)")
PY
