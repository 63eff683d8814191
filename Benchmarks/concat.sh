#!/usr/bin/env bash
# Four servers' logs of the same hours, as four files and cat'ed into one
# stream (the shape `zcat a b c d | flipaudit -` gives): the stream takes
# the sorting pass. Prints wall time, peak RSS and sessions closed early for
# both, and checks that their rows are the same (the source column aside).
#   bash Benchmarks/concat.sh              # 4 x 250 MB
#   SIZE_MB=100 bash Benchmarks/concat.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-250}
DATA=Benchmarks/data
mkdir -p "$DATA"
files=()
for seed in 11 12 13 14; do
  f="$DATA/server$seed-${SIZE_MB}m.log.gz"
  [ -s "$f" ] || { echo "generating $f"; python3 Tools/loggen.py large "$f" --size-mb "$SIZE_MB" --seed "$seed"; }
  files+=("$f")
done
swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -q
bin=.build/release/flipaudit
out=$(mktemp -d)
run() {  # name, then the command's arguments
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$out/$name.time" "$bin" "$@" --csv "$out/$name" --json "$out/$name.json" --quiet 2>/dev/null || true
  read -r wall rss < "$out/$name.time"
  evicted=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["evicted_sessions"])' "$out/$name.json")
  printf '%-26s %8ss %10.1f MiB %8s closed early\n' "$name" "$wall" "$(echo "$rss / 1024" | bc -l)" "$evicted"
}
run four-files "${files[@]}"
cat "${files[3]}" "${files[1]}" "${files[0]}" "${files[2]}" > "$out/stream.log.gz"
run one-stream-file "$out/stream.log.gz"
run standard-input - < "$out/stream.log.gz"
strip() { tail -n +2 "$1" | sed 's/,[^,]*$//' | sort; }
for name in one-stream-file standard-input; do
  for f in sessions findings; do
    cmp -s <(strip "$out/four-files/$f.csv") <(strip "$out/$name/$f.csv") || echo "DIFFERENT: $name/$f.csv"
  done
  cmp -s "$out/four-files/error_distribution.csv" "$out/$name/error_distribution.csv" || echo "DIFFERENT: $name/error_distribution.csv"
done
rm -rf "$out"
