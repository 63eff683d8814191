#!/usr/bin/env bash
# An edge server's log: most lines are not App Flip traffic. The benchmark
# log (Tools/loggen.py large) with all its other lines kept, in order, and
# only one App Flip line in 82 (instructions.sh's test: `state=`, or a
# Location URL last on the line), so that App Flip lines are about 0.15%.
# flipaudit (full audit with --csv), isalscan and, with AGAINST, another
# flipaudit build are timed on it alternately, RUNS rounds: medians of wall
# and CPU time (user + system) and the ratios to isalscan within each round.
# What per-record format detection costs the common line shows here.
#   bash Benchmarks/edge.sh                   # from the 1 GB log, 7 rounds
#   SIZE_MB=400 RUNS=5 AGAINST=path/to/old/flipaudit bash Benchmarks/edge.sh
#   NO_BUILD=1 BIN=path/to/flipaudit bash Benchmarks/edge.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-1000}
RUNS=${RUNS:-7}
BIN=${BIN:-.build/release/flipaudit}
DATA=Benchmarks/data
mkdir -p "$DATA"
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; }
dpkg -s libisal-dev >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libisal-dev; }
src="$DATA/one-${SIZE_MB}m.log.gz"
[ -s "$src" ] || { echo "generating $src"; python3 Tools/loggen.py large "$src" --size-mb "$SIZE_MB" --seed 42; }
edge="$DATA/edge-${SIZE_MB}m.log.gz"
[ -s "$edge" ] || gzip -dc "$src" | awk '/state=/ || /"[a-z]*:\/\/[^"]*"$/ { if (n++ % 82) next } { print }' | gzip -6 > "$edge"
cc -O2 -o "$DATA/isalscan" Benchmarks/baseline/isalscan.c -lisal
[ -n "${NO_BUILD:-}" ] || swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -q

times=$(mktemp)
out=$(mktemp -d)
trap 'rm -rf "$times" "$out"' EXIT
for _ in $(seq "$RUNS"); do
  /usr/bin/time -f "flipaudit %e %U %S" "$BIN" "$edge" --quiet --csv "$out" > /dev/null 2>> "$times"
  /usr/bin/time -f "isalscan %e %U %S" "$DATA/isalscan" "$edge" > /dev/null 2>> "$times"
  if [ -n "${AGAINST:-}" ]; then
    /usr/bin/time -f "against %e %U %S" "$AGAINST" "$edge" --quiet --csv "$out" > /dev/null 2>> "$times"
  fi
  echo "round" >> "$times"
done
total=$(gzip -dc "$edge" | wc -l)
flip=$(gzip -dc "$edge" | { grep -c -e 'state=' -e '"[a-z]*://[^"]*"$' || true; })
python3 - "$times" "$total" "$flip" <<'PY'
import statistics, sys
rounds, cur = [], {}
for line in open(sys.argv[1]):
    p = line.split()
    if p == ["round"]:
        rounds.append(cur); cur = {}
    elif len(p) == 4 and p[0] in ("flipaudit", "isalscan", "against"):
        cur[p[0]] = (float(p[1]), float(p[2]) + float(p[3]))
total, flip = int(sys.argv[2]), int(sys.argv[3])
med = statistics.median
print(f"edge log: {total:,} lines, {flip:,} App Flip lines ({100 * flip / total:.2f}%), {len(rounds)} rounds")
print("| command | wall | CPU | wall / isalscan | CPU / isalscan | CPU per line |")
print("|---|---|---|---|---|---|")
for name in ("isalscan", "flipaudit", "against"):
    if name not in rounds[0]:
        continue
    w = med([r[name][0] for r in rounds]); c = med([r[name][1] for r in rounds])
    rw = med([r[name][0] / r["isalscan"][0] for r in rounds]); rc = med([r[name][1] / r["isalscan"][1] for r in rounds])
    lo = min(r[name][1] / r["isalscan"][1] for r in rounds); hi = max(r[name][1] / r["isalscan"][1] for r in rounds)
    print(f"| {name} | {w:.2f} s | {c:.2f} s | {rw:.2f} | {rc:.2f} ({lo:.2f}-{hi:.2f}) | {c / total * 1e9:.0f} ns |")
PY
