#!/usr/bin/env bash
# Instructions per line, counted by callgrind (this machine has no hardware
# counters, and instruction counts do not depend on the machine's noise):
# flipaudit and the C baselines (zscan: zlib, isalscan: ISA-L) on the first LINES lines of the benchmark
# log, on its lines that are not App Flip traffic and on those that are.
# Startup (an empty input) is taken off. Both threads' instructions count.
#   bash Benchmarks/instructions.sh              # 100,000 lines
#   LINES=20000 bash Benchmarks/instructions.sh
#   NO_BUILD=1 BIN=path/to/flipaudit bash Benchmarks/instructions.sh   # another build (say --traits zlib)
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${LINES:-100000}
DATA=Benchmarks/data
mkdir -p "$DATA"
command -v valgrind >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; }
src="$DATA/one-1000m.log.gz"
[ -s "$src" ] || { echo "generating $src"; python3 Tools/loggen.py large "$src" --size-mb 1000 --seed 42; }
[ -n "${NO_BUILD:-}" ] || swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -q
cc -O2 -o "$DATA/zscan" Benchmarks/baseline/zscan.c -lz
cc -O2 -o "$DATA/isalscan" Benchmarks/baseline/isalscan.c -lisal
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind cannot read the release binary's debug sections; a copy without them runs.
strip --strip-debug -o "$work/flipaudit" "${BIN:-.build/release/flipaudit}"
gzip -dc "$src" | head -n "$LINES" > "$work/all.log" || true
# A flip line: an authorize request (state=) or a Location value that is not "-".
grep -v -e 'state=' -e '"[a-z]*://[^"]*"$' "$work/all.log" > "$work/other.log" || true
grep -e 'state=' -e '"[a-z]*://[^"]*"$' "$work/all.log" > "$work/flip.log" || true
: > "$work/empty.log"
for f in all other flip empty; do gzip -n -c "$work/$f.log" > "$work/$f.log.gz"; done
count() {  # instructions of one run: the callgrind file to keep, the command and its arguments
  local keep=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$work/$keep" "$@" > /dev/null 2> "$work/err" || true
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/err"
}
base_flip=$(count fa-empty.cg "$work/flipaudit" "$work/empty.log.gz" --quiet --csv "$work/out")
base_c=$(count cg "$DATA/zscan" "$work/empty.log.gz")
base_i=$(count cg "$DATA/isalscan" "$work/empty.log.gz")
printf "%-28s %8s %14s %12s %8s %12s %8s\n" "sample" "lines" "flipaudit/line" "zscan/line" "ratio" "isalscan/line" "ratio"
for f in all other flip; do
  n=$(wc -l < "$work/$f.log")
  a=$(count "fa-$f.cg" "$work/flipaudit" "$work/$f.log.gz" --quiet --csv "$work/out")
  c=$(count cg "$DATA/zscan" "$work/$f.log.gz")
  i=$(count cg "$DATA/isalscan" "$work/$f.log.gz")
  python3 - "$f" "$n" "$a" "$base_flip" "$c" "$base_c" "$i" "$base_i" <<'PY'
import sys
name, n, a, a0, c, c0, i, i0 = sys.argv[1], *map(int, sys.argv[2:])
label = {"all": "all lines", "other": "not App Flip", "flip": "App Flip"}[name]
fa, fc, fi = (a - a0) / n, (c - c0) / n, (i - i0) / n
print(f"{label:<28} {n:8d} {fa:14.0f} {fc:12.0f} {fa / fc:8.2f} {fi:12.0f} {fa / fi:8.2f}")
PY
done
echo "startup: flipaudit $base_flip, zscan $base_c, isalscan $base_i instructions"
echo
echo "flipaudit by stage (instructions per line, inclusive, startup taken off):"
python3 Benchmarks/stages.py "$work/fa-empty.cg" "not App Flip=$work/fa-other.cg:$(wc -l < "$work/other.log")" \
  "App Flip=$work/fa-flip.cg:$(wc -l < "$work/flip.log")"
