#!/usr/bin/env bash
# Two builds paired on the same logs (docs/performance.md, "The common
# line against the previous landing"): the edge log (0.15% App Flip,
# edge.sh's) and the 11% mix (Tools/loggen.py large), each with and
# without --csv. Every round runs both builds on each case, in an order
# that alternates between rounds; per case: median CPU (user + system) of
# each (perf's task-clock, else GNU time's user + system), the paired
# ratio BIN/AGAINST within a round (median, min-max), and user-space
# instructions per line (perf stat, when the machine counts them).
#   AGAINST=path/to/old/flipaudit bash Benchmarks/paired.sh
#   BIN=path/to/new AGAINST=path/to/old RUNS=11 SIZE_MB=1000 bash Benchmarks/paired.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-1000}
RUNS=${RUNS:-11}
BIN=${BIN:-.build/release/flipaudit}
AGAINST=${AGAINST:?AGAINST=path/to/the/other/flipaudit}
DATA=Benchmarks/data
mkdir -p "$DATA"
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; }
mix="$DATA/one-${SIZE_MB}m.log.gz"
[ -s "$mix" ] || { echo "generating $mix"; python3 Tools/loggen.py large "$mix" --size-mb "$SIZE_MB" --seed 42; }
edge="$DATA/edge-${SIZE_MB}m.log.gz"
[ -s "$edge" ] || gzip -dc "$mix" | awk '/state=/ || /"[a-z]*:\/\/[^"]*"$/ { if (n++ % 82) next } { print }' | gzip -6 > "$edge"
counts=""
if perf stat -x, -e instructions:u true 2>&1 | grep -q '^[0-9]'; then counts=1; fi
# CPU time from perf's task-clock when it counts (GNU time rounds to 10 ms).
clock=""
if perf stat -x, -e task-clock true 2>&1 | grep -q '^[0-9]'; then clock=1; fi

times=$(mktemp)
out=$(mktemp -d)
trap 'rm -rf "$times" "$out"' EXIT
one() { # one NAME BINARY CASE LOG ARGS...
  local name=$1 bin=$2 case=$3 log=$4; shift 4
  local t
  if [ -n "$clock" ]; then
    # task-clock: the CPU time of every thread, to the microsecond (as "user 0").
    t="$(perf stat -x, -e task-clock -o "$out/time" "$bin" "$log" --quiet "$@" > /dev/null 2> /dev/null; awk -F, '/task-clock/ {printf "%.6f", $1 / 1000}' "$out/time") 0"
  else
    /usr/bin/time -o "$out/time" -f "%U %S" "$bin" "$log" --quiet "$@" > /dev/null 2> /dev/null || true
    t=$(tail -1 "$out/time")
  fi
  local ins=0
  if [ -n "$counts" ]; then
    ins=$(perf stat -x, -e instructions:u "$bin" "$log" --quiet "$@" 2>&1 >/dev/null | awk -F, '/instructions/ {print $1}' | tail -1)
  fi
  echo "$case $name $t $ins" >> "$times"
}
for round in $(seq "$RUNS"); do
  for c in edge edge-csv mix mix-csv; do
    log=$edge; [[ $c == mix* ]] && log=$mix
    args=(); [[ $c == *-csv ]] && args=(--csv "$out/csv")
    if (( round % 2 )); then
      one new "$BIN" "$c" "$log" "${args[@]}"; one old "$AGAINST" "$c" "$log" "${args[@]}"
    else
      one old "$AGAINST" "$c" "$log" "${args[@]}"; one new "$BIN" "$c" "$log" "${args[@]}"
    fi
  done
  echo "round" >> "$times"
done
lines_edge=$(gzip -dc "$edge" | wc -l)
lines_mix=$(gzip -dc "$mix" | wc -l)
python3 - "$times" "$lines_edge" "$lines_mix" <<'PY'
import statistics, sys
rounds, cur = [], {}
for line in open(sys.argv[1]):
    p = line.split()
    if p == ["round"]:
        rounds.append(cur); cur = {}
    elif len(p) == 5:
        cur[(p[0], p[1])] = (float(p[2]) + float(p[3]), int(p[4] or 0))
lines = {"edge": int(sys.argv[2]), "mix": int(sys.argv[3])}
med = statistics.median
print(f"{len(rounds)} rounds; edge log {lines['edge']:,} lines, 11% mix {lines['mix']:,} lines")
print("| case | CPU, against | CPU, this build | paired CPU ratio (median, min–max) | instructions a line, against | this build |")
print("|---|---|---|---|---|---|")
for case in ("edge", "edge-csv", "mix", "mix-csv"):
    old = [r[(case, "old")] for r in rounds]; new = [r[(case, "new")] for r in rounds]
    ratios = [n[0] / o[0] for n, o in zip(new, old) if o[0] > 0]
    n = lines[case.split("-")[0]]
    ins = lambda xs: f"{med([x[1] for x in xs]) / n:,.0f}" if any(x[1] for x in xs) else "—"
    name = case.replace("-csv", ", --csv")
    print(f"| {name} | {med([o[0] for o in old]):.2f} s | {med([x[0] for x in new]):.2f} s | "
          f"{med(ratios):.3f} ({min(ratios):.3f}–{max(ratios):.3f}) | {ins(old)} | {ins(new)} |")
PY
