#!/usr/bin/env bash
# Where the CPU time goes: the benchmark log cut in two, its App Flip lines
# (instructions.sh's test: `state=`, or a Location URL last on the line) and
# its other lines, each part gzip'd on its own; flipaudit (full audit with
# --csv) and isalscan timed on each part and on the whole log, alternating,
# RUNS rounds. Prints medians of wall and CPU time (user + system) with the
# CPU's spread, and flipaudit's ratios to isalscan.
#   bash Benchmarks/split.sh                  # the 1 GB log, 5 rounds
#   SIZE_MB=200 RUNS=3 bash Benchmarks/split.sh
#   NO_BUILD=1 BIN=path/to/flipaudit bash Benchmarks/split.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-1000}
RUNS=${RUNS:-5}
BIN=${BIN:-.build/release/flipaudit}
DATA=Benchmarks/data
mkdir -p "$DATA"
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; }
dpkg -s libisal-dev >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libisal-dev; }
src="$DATA/one-${SIZE_MB}m.log.gz"
[ -s "$src" ] || { echo "generating $src"; python3 Tools/loggen.py large "$src" --size-mb "$SIZE_MB" --seed 42; }
flip="$DATA/split-${SIZE_MB}m-flip.log.gz"
other="$DATA/split-${SIZE_MB}m-other.log.gz"
pattern=(-e 'state=' -e '"[a-z]*://[^"]*"$')
[ -s "$flip" ] || gzip -dc "$src" | { grep "${pattern[@]}" || true; } | gzip -6 > "$flip"
[ -s "$other" ] || gzip -dc "$src" | { grep -v "${pattern[@]}" || true; } | gzip -6 > "$other"
cc -O2 -o "$DATA/isalscan" Benchmarks/baseline/isalscan.c -lisal
[ -n "${NO_BUILD:-}" ] || swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -q

times=$(mktemp)
out=$(mktemp -d)
trap 'rm -rf "$times" "$out"' EXIT
for _ in $(seq "$RUNS"); do
  for part in flip other whole; do
    case $part in flip) f=$flip ;; other) f=$other ;; whole) f=$src ;; esac
    /usr/bin/time -f "flipaudit $part %e %U %S" "$BIN" "$f" --quiet --csv "$out" > /dev/null 2>> "$times"
    /usr/bin/time -f "isalscan $part %e %U %S" "$DATA/isalscan" "$f" > /dev/null 2>> "$times"
  done
done
lines() { gzip -dc "$1" | wc -l; }
python3 - "$times" "$(lines "$flip")" "$(lines "$other")" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 5 and p[0] in ("flipaudit", "isalscan"):
        runs.setdefault((p[0], p[1]), []).append((float(p[2]), float(p[3]) + float(p[4])))
counts = {"flip": int(sys.argv[2]), "other": int(sys.argv[3])}
counts["whole"] = counts["flip"] + counts["other"]
label = {"flip": "App Flip lines", "other": "other lines", "whole": "the whole log"}
med = lambda xs: statistics.median(xs)
print("| part | lines | flipaudit wall | flipaudit CPU (spread) | isalscan CPU | CPU ratio | wall ratio | flipaudit CPU per line |")
print("|---|---|---|---|---|---|---|---|")
for part in ("flip", "other", "whole"):
    fa, isal = runs[("flipaudit", part)], runs[("isalscan", part)]
    fw, fc = med([r[0] for r in fa]), med([r[1] for r in fa])
    iw, ic = med([r[0] for r in isal]), med([r[1] for r in isal])
    lo, hi = min(r[1] for r in fa), max(r[1] for r in fa)
    print(f"| {label[part]} | {counts[part]:,} | {fw:.2f} s | {fc:.2f} s ({lo:.2f}-{hi:.2f}) | {ic:.2f} s | "
          f"{fc / ic:.2f} | {fw / iw:.2f} | {fc / counts[part] * 1e9:.0f} ns |")
PY
