#!/usr/bin/env bash
# Memory is flat in the input size: peak RSS of the full audit (--csv) over a
# 1 GB and a 4 GB log (generated on first use, seeded; ~10 minutes for 4 GB).
#   bash Benchmarks/memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=Benchmarks/data
mkdir -p "$DATA"
small="$DATA/two-a-1000m.log.gz"
big="$DATA/four-4000m.log.gz"
[ -s "$small" ] || python3 Tools/loggen.py large "$small" --size-mb 1000 --seed 7
[ -s "$big" ] || python3 Tools/loggen.py large "$big" --size-mb 4000 --seed 44
swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -q
printf '%-24s %12s %10s %12s\n' input uncompressed wall "peak RSS"
for f in "$small" "$big"; do
  out=$(mktemp -d)
  /usr/bin/time -f "%e %M" -o "$DATA/memory.time" .build/release/flipaudit "$f" --csv "$out" --quiet || true
  read -r wall rss < "$DATA/memory.time"
  size=$(gzip -l "$f" | awk 'NR==2 {print $2}')
  printf '%-24s %9.0f MB %9ss %8.1f MiB\n' "$(basename "$f")" "$(echo "$size / 1000000" | bc -l)" "$wall" "$(echo "$rss / 1024" | bc -l)"
  rm -rf "$out"
done
