#!/usr/bin/env bash
# What the distributed path costs beside one process, on eight servers' logs
# of the same hours (8 x SIZE_MB, default 250: 2 GB uncompressed):
#   one process           flipaudit FILES --csv
#   read stage alone      the plan's file lines through `stage read` (the map)
#   shell pipeline        contrib/hadoop-streaming/local-run.sh, 2 mappers, 2 reducers
#   Spark local[2]        contrib/spark/flipaudit_spark.py (SKIP_SPARK=1 leaves it out)
# Prints wall and CPU time, peak RSS, the bytes shuffled, and checks that
# every run wrote the CSV files of one process.
#   bash Benchmarks/distributed.sh
#   SIZE_MB=50 bash Benchmarks/distributed.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-250}
DATA=Benchmarks/data
VENV=${SPARK_VENV:-.build/spark-venv}
mkdir -p "$DATA"
files=()
for seed in 11 12 13 14 15 16 17 18; do
  f="$DATA/server$seed-${SIZE_MB}m.log.gz"
  [ -s "$f" ] || { echo "generating $f"; python3 Tools/loggen.py large "$f" --size-mb "$SIZE_MB" --seed "$seed"; }
  files+=("$f")
done
[ -n "${NO_BUILD:-}" ] || swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -q
bin=$(pwd)/.build/release/flipaudit
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
measure() {  # name, then a command; prints wall, CPU (with children), peak RSS
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$out/$name.time" "$@" > "$out/$name.stdout" 2> "$out/$name.stderr" || true
  read -r wall user sys rss < "$out/$name.time"
  printf '%-16s wall %7.2f s   cpu %7.2f s   peak RSS %7.1f MiB\n' "$name" "$wall" "$(echo "$user + $sys" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}
measure one-process "$bin" "${files[@]}" --csv "$out/one" --quiet
(umask 077; "$bin" stage plan "${files[@]}" > "$out/job.plan")
measure read-stage sh -c "grep '^file' '$out/job.plan' | '$bin' stage read --plan '$out/job.plan' > '$out/mapped'"
echo "  map output: $(wc -l < "$out/mapped") lines, $(wc -c < "$out/mapped") bytes"
measure shell-pipeline bash contrib/hadoop-streaming/local-run.sh --mappers 2 "$bin" 2 "$out/shell-work" --csv "$out/shell" --quiet -- "${files[@]}"
if [ "${SKIP_SPARK:-0}" != 1 ] && "$VENV/bin/python" -c 'import pyspark' 2> /dev/null; then
  SPARK_LOCAL_IP=127.0.0.1 measure spark-local2 "$VENV/bin/python" contrib/spark/flipaudit_spark.py --master 'local[2]' \
    --flipaudit "$bin" --partitions 4 --stats --csv "$out/spark" --quiet "${files[@]}"
  grep '^flipaudit_spark.py: ' "$out/spark-local2.stderr" | sed 's/^/  /'
fi
for run in shell spark; do
  [ -d "$out/$run" ] || continue
  for f in sessions findings error_distribution; do
    cmp -s "$out/one/$f.csv" "$out/$run/$f.csv" || echo "DIFFERENT: $run/$f.csv"
  done
done
