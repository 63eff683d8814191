#!/usr/bin/env bash
# A deployment two tiers deep, with real servers (Tools/real-servers.sh,
# FLIP_TIERS=1): HAProxy (option httplog, Location captured) and Caddy
# (JSON) in front of Apache (LogFormat with %{Location}o), every one
# logging. One run over the three logs must tell the story of Apache's log
# alone: the same sessions and findings (every injected misbehaviour found
# once, a double tap two requests), none more — no code-reuse or
# state-reuse from reading one request twice — and name both fronts as
# tiers of Apache with the requests they shared.
#   bash Tests/servers/tiers.sh path/to/flipaudit
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:?usage: tiers.sh path/to/flipaudit}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

FLIP_TIERS=1 FLIP_BASE_PORT=${FLIP_BASE_PORT:-18500} bash Tools/real-servers.sh "$tmp/logs" > "$tmp/real-servers.out" 2>&1 ||
  { cat "$tmp/real-servers.out"; exit 1; }
logs=(haproxy-raw.log caddy.log apache-flip.log)
for f in "${logs[@]}"; do [ -s "$tmp/logs/$f" ] || { echo "real-servers.sh wrote no $f"; ls "$tmp/logs"; exit 1; }; done

"$bin" "$tmp/logs/apache-flip.log" --client-id G123 --csv "$tmp/alone" --quiet || true
"$bin" "${logs[@]/#/$tmp/logs/}" --client-id G123 --csv "$tmp/all" --json "$tmp/all.json" --quiet || true

. Tests/servers/story.sh
story "$tmp/alone" > "$tmp/alone.txt"
story "$tmp/all" > "$tmp/all.txt"
failed=0
if diff -u "$tmp/alone.txt" "$tmp/all.txt"; then
  echo "PASS the three logs tell Apache's story alone: $(grep -c '^session' "$tmp/all.txt") sessions, $(grep -c '^finding' "$tmp/all.txt") findings"
else
  echo "FAIL the three logs tell another story than Apache's log alone (above: - Apache alone, + all three)"
  failed=1
fi
# Every injected misbehaviour found once per front: the look-alike code,
# the code handed out twice (c-reuse-P), the double tap.
for want in "finding code-to-unlisted-redirect hap-lookalike" "finding code-to-unlisted-redirect cdy-lookalike" \
  "finding code-reuse reuse-hap-2" "finding code-reuse reuse-cdy-2" "finding state-reuse hap-code"; do
  n=$(grep -cx "$want" "$tmp/all.txt" || true)
  if [ "$n" = 1 ]; then echo "PASS found once: $want"; else echo "FAIL $want: found $n times"; failed=1; fi
done
tiers=$(python3 - "$tmp/all.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted("+".join(sorted(os.path.basename(t[k]) for k in ("first", "second"))) for t in d["deployment"]["tiers"] if t["shared"] > 0)))
PY
)
if [ "$tiers" = "apache-flip.log+caddy.log apache-flip.log+haproxy-raw.log" ]; then
  echo "PASS both fronts read as tiers of Apache: $tiers"
else
  echo "FAIL the tiers read: '$tiers'"
  failed=1
fi
[ $failed = 0 ] && echo "real servers, two tiers: passed" || { echo "real servers, two tiers: failed"; exit 1; }
