#!/usr/bin/env bash
# A nightly run: the audit of one log that starts a chain (a fresh
# --checkpoint, so every state, code and flip line is fingerprinted under
# the chain's key, and the checkpoint is written). Prints the medians of
# RUNS runs (default 3): wall time, CPU time and peak RSS; with AGAINST,
# another build in the same alternating rounds, and whether the CSV files
# are the same.
#   bash Benchmarks/checkpoint.sh                                  # the 1 GB benchmark log
#   LOG=Benchmarks/data/reuse-1000000.log.gz bash Benchmarks/checkpoint.sh   # a day of 1,000,000 sessions (Benchmarks/reuse.sh makes it)
#   RUNS=5 AGAINST=path/to/old/flipaudit NO_BUILD=1 BIN=path/to/flipaudit bash Benchmarks/checkpoint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
BIN=${BIN:-.build/release/flipaudit}
LOG=${LOG:-Benchmarks/data/one-1000m.log.gz}
if [ ! -s "$LOG" ]; then
  [ "$LOG" = Benchmarks/data/one-1000m.log.gz ] || { echo "no $LOG"; exit 2; }
  mkdir -p Benchmarks/data
  echo "generating $LOG"
  python3 Tools/loggen.py large "$LOG" --size-mb 1000 --seed 42
fi
[ -n "${NO_BUILD:-}" ] || swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -q
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # binary, name; appends "wall cpu rss_kib" to $out/$name.runs
  rm -rf "$out/$2" "$out/$2.checkpoint" "$out/$2.checkpoint.lock"
  # --now: the benchmark logs are dated in November 2026, never "in the future".
  /usr/bin/time -f "%e %U %S %M" -o "$out/t" "$1" "$LOG" --csv "$out/$2" --quiet \
    --checkpoint "$out/$2.checkpoint" --now 2026-11-30T00:00:00Z 2> /dev/null || true
  read -r wall user sys rss < "$out/t"
  echo "$wall $(echo "$user + $sys" | bc -l) $rss $(wc -c < "$out/$2.checkpoint")" >> "$out/$2.runs"
}
for _ in $(seq "$RUNS"); do
  run "$BIN" this
  [ -z "${AGAINST:-}" ] || run "$AGAINST" against
done
report() {  # binary, name
  echo "$1: $LOG with a fresh --checkpoint: $(python3 Benchmarks/runs.py "$out/$2.runs"), checkpoint $(tail -n 1 "$out/$2.runs" | awk '{printf "%.1f", $4 / 1e6}') MB"
}
report "$BIN" this
if [ -n "${AGAINST:-}" ]; then
  report "$AGAINST" against
  diff -rq "$out/this" "$out/against" > /dev/null || echo "DIFFERENT from AGAINST: the CSV files"
fi
