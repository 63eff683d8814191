#!/usr/bin/env bash
# Session flood: N distinct states inside one session timeout (an attacker
# replaying the flip link with random states). Shows the memory ceiling that
# --max-sessions sets: peak RSS and evictions for several caps.
#   bash Benchmarks/flood.sh              # 2,000,000 requests in 10 minutes
#   FLOOD=500000 bash Benchmarks/flood.sh
set -euo pipefail
cd "$(dirname "$0")/.."
FLOOD=${FLOOD:-2000000}
DATA=Benchmarks/data
mkdir -p "$DATA"
log="$DATA/flood-$FLOOD.log.gz"
if [ ! -s "$log" ]; then
  echo "generating $log"
  python3 - "$FLOOD" <<'PY' | gzip -1 > "$log"
import sys
n = int(sys.argv[1])
out = sys.stdout
uri = "https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA"
for i in range(n):
    s = i * 600 // n  # all inside 600 s: one default timeout
    out.write(f'198.51.{i % 250}.{i % 199} - - [22/Nov/2026:10:{s // 60:02d}:{s % 60:02d} +0000] '
              f'"GET /oauth/authorize?client_id=G123&redirect_uri={uri}&state=flood{i:09d}x{(i * 7919) % 1000003:07d}&scope=a HTTP/1.1" '
              f'200 512 "-" "python-requests/2.31" "-"\n')
PY
fi
swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -q
bin=.build/release/flipaudit
printf '%-22s %10s %14s %12s\n' "--max-sessions" "wall" "peak RSS" "evicted"
for cap in 10000 100000 1000000 "$FLOOD"; do
  json=$(mktemp)
  /usr/bin/time -f "%e %M" -o "$DATA/flood.time" "$bin" "$log" --max-sessions "$cap" --json "$json" --quiet || true
  read -r wall rss < "$DATA/flood.time"
  evicted=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["evicted_sessions"])' "$json")
  printf '%-22s %9ss %10.1f MiB %12s\n' "$cap" "$wall" "$(echo "$rss / 1024" | bc -l)" "$evicted"
  rm -f "$json"
done
