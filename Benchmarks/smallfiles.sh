#!/usr/bin/env bash
# The same lines as one gzip file and as many small ones (a logs/ folder of
# hourly files from many servers): wall time, CPU time, peak RSS and minor
# page faults of each, in alternating rounds, and a check that the rows are
# the same (the source column aside).
#   bash Benchmarks/smallfiles.sh                   # 3,000 files of 1,000 lines, 5 rounds
#   FILES=300 LINES=1000 RUNS=3 bash Benchmarks/smallfiles.sh
#   AGAINST=path/to/old/flipaudit bash Benchmarks/smallfiles.sh   # and another build, in the same rounds
set -euo pipefail
cd "$(dirname "$0")/.."
FILES=${FILES:-3000}
LINES=${LINES:-1000}
RUNS=${RUNS:-5}
BIN=${BIN:-.build/release/flipaudit}
DATA=Benchmarks/data
mkdir -p "$DATA"
src="$DATA/one-1000m.log.gz"
[ -s "$src" ] || { echo "generating $src"; python3 Tools/loggen.py large "$src" --size-mb 1000 --seed 42; }
one="$DATA/small-one-$FILES-$LINES.log.gz"
dir="$DATA/small-$FILES-$LINES"
if [ ! -s "$one" ] || [ ! -d "$dir" ]; then
  echo "cutting $((FILES * LINES)) lines of $src into $FILES files"
  rm -rf "$dir" && mkdir -p "$dir"
  gzip -dc "$src" | head -n $((FILES * LINES)) > "$dir.plain" || true
  gzip -c "$dir.plain" > "$one"
  split -l "$LINES" -a 5 -d "$dir.plain" "$dir/part-"
  rm "$dir.plain"
  for f in "$dir"/part-*; do gzip "$f"; done
fi
[ -n "${NO_BUILD:-}" ] || swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -q
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # binary, name, then the inputs; appends "wall cpu rss_kib faults" to $out/$name.runs
  local bin=$1 name=$2; shift 2
  /usr/bin/time -f "%e %U %S %M %R" -o "$out/t" "$bin" "$@" --csv "$out/$name" --quiet 2>/dev/null || true
  read -r wall user sys rss faults < "$out/t"
  echo "$wall $(echo "$user + $sys" | bc -l) $rss $faults" >> "$out/$name.runs"
}
for _ in $(seq "$RUNS"); do
  run "$BIN" one-file "$one"
  run "$BIN" small-files "$dir"
  if [ -n "${AGAINST:-}" ]; then
    run "$AGAINST" against-one-file "$one"
    run "$AGAINST" against-small-files "$dir"
  fi
done
report() {
  python3 - "$1" "$out/$1.runs" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[2])]
med = lambda i: statistics.median(r[i] for r in rows)
print(f"{sys.argv[1]:<12} wall {med(0):6.2f} s  cpu {med(1):6.2f} s  rss {med(2)/1024:7.1f} MiB  faults {med(3):9.0f}")
PY
}
ratio() {  # prefix of the two runs' names
  python3 - "$1" "$out/${1}one-file.runs" "$out/${1}small-files.runs" <<'PY'
import statistics, sys
a = [float(l.split()[0]) for l in open(sys.argv[2])]
b = [float(l.split()[0]) for l in open(sys.argv[3])]
print(f"{sys.argv[1]}small files / one file, wall: {statistics.median(y / x for x, y in zip(a, b)):.2f} (median of rounds)")
PY
}
report one-file
report small-files
ratio ""
if [ -n "${AGAINST:-}" ]; then
  report against-one-file
  report against-small-files
  ratio against-
  cmp -s "$out/one-file/sessions.csv" "$out/against-one-file/sessions.csv" || echo "DIFFERENT from AGAINST: sessions.csv"
fi
strip() { tail -n +2 "$1" | sed 's/,[^,]*$//' | sort; }
for f in sessions findings; do
  cmp -s <(strip "$out/one-file/$f.csv") <(strip "$out/small-files/$f.csv") || echo "DIFFERENT: $f.csv"
done
cmp -s "$out/one-file/error_distribution.csv" "$out/small-files/error_distribution.csv" || echo "DIFFERENT: error_distribution.csv"
