#!/usr/bin/env bash
# Reuse memory: one day of 1,000,000 distinct flip sessions, each answered
# with a code on its own record, audited with the default 24 h
# --reuse-window (every ended state and returned code is remembered the
# whole run). Prints the medians of RUNS runs (default 1): wall time, CPU
# time and peak RSS; the target is 128 MiB.
#   bash Benchmarks/reuse.sh
#   SESSIONS=200000 bash Benchmarks/reuse.sh
#   RUNS=5 AGAINST=path/to/old/flipaudit bash Benchmarks/reuse.sh   # and another build, in the same rounds
#   NO_BUILD=1 BIN=path/to/flipaudit bash Benchmarks/reuse.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SESSIONS=${SESSIONS:-1000000}
RUNS=${RUNS:-1}
BIN=${BIN:-.build/release/flipaudit}
DATA=Benchmarks/data
mkdir -p "$DATA"
log="$DATA/reuse-$SESSIONS.log.gz"
if [ ! -s "$log" ]; then
  echo "generating $log"
  python3 - "$SESSIONS" <<'PY' | gzip -1 > "$log"
import sys
n = int(sys.argv[1])
out = sys.stdout
uri = "https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA"
ret = "https://oauth-redirect.googleusercontent.com/a/com.google.OPA"
for i in range(n):
    s = i * 86400 // n  # spread over one day
    t = f"22/Nov/2026:{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d} +0000"
    state = f"st{i:09d}x{(i * 7919) % 1000003:07d}abcdef"
    code = f"4/0Ad{(i * 104729) % 1000000007:010d}{i:09d}"
    out.write(f'198.51.{i % 250}.{i % 199} - - [{t}] '
              f'"GET /oauth/authorize?client_id=G123&redirect_uri={uri}&state={state}&scope=a HTTP/1.1" '
              f'302 0 "-" "GoogleApp/1.0" "{ret}?code={code}&state={state}"\n')
PY
fi
[ -n "${NO_BUILD:-}" ] || swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -q
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # binary, name; appends "wall cpu rss_kib" to $out/$name.runs
  /usr/bin/time -f "%e %U %S %M" -o "$out/t" "$1" "$log" --csv "$out/$2" --quiet || true
  read -r wall user sys rss < "$out/t"
  echo "$wall $(echo "$user + $sys" | bc -l) $rss" >> "$out/$2.runs"
}
for _ in $(seq "$RUNS"); do
  run "$BIN" this
  [ -z "${AGAINST:-}" ] || run "$AGAINST" against
done
report() {  # binary, name
  echo "$1: $SESSIONS sessions over one day, --reuse-window 24h: $(python3 Benchmarks/runs.py "$out/$2.runs")"
}
report "$BIN" this
if [ -n "${AGAINST:-}" ]; then
  report "$AGAINST" against
  cmp -s "$out/this/sessions.csv" "$out/against/sessions.csv" || echo "DIFFERENT from AGAINST: sessions.csv"
fi
