#!/usr/bin/env bash
# Real servers in CI: Debian's nginx, apache2, caddy, haproxy, lighttpd and
# h2o write tonight's App Flip flows (Tools/real-servers.sh, on loopback),
# and flipaudit reads all their logs in one run. Its sessions (state,
# outcome, error, findings) and findings (kind, state) must be exactly
# those of the committed fixtures the same script wrote — whose every
# session and finding the Swift suite "Every server's format" checks by
# name. A server whose log format drifts, or a parser that stops reading
# one, fails here.
#   bash Tests/servers/run.sh path/to/flipaudit
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:?usage: run.sh path/to/flipaudit}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bash Tools/real-servers.sh "$tmp/logs" > "$tmp/real-servers.out" 2>&1 || { cat "$tmp/real-servers.out"; exit 1; }
fresh=("$tmp"/logs/*.log)
[ "${#fresh[@]}" -ge 11 ] || { echo "real-servers.sh wrote ${#fresh[@]} logs, not 11"; ls "$tmp/logs"; exit 1; }

# The fresh logs are tonight's; the fixtures' night is 2026-11-28.
"$bin" "${fresh[@]}" --csv "$tmp/fresh" --quiet
"$bin" Tests/FlipAuditTests/Fixtures/servers/*.log.gz --now 2026-11-28T18:00:00Z --csv "$tmp/fixed" --quiet

. Tests/servers/story.sh
story "$tmp/fresh" > "$tmp/fresh.txt"
story "$tmp/fixed" > "$tmp/fixed.txt"
if ! diff -u "$tmp/fixed.txt" "$tmp/fresh.txt"; then
  echo "real servers: tonight's logs tell another story than the committed fixtures (above: - fixtures, + tonight)"
  exit 1
fi
sessions=$(grep -c '^session' "$tmp/fresh.txt")
findings=$(grep -c '^finding' "$tmp/fresh.txt")
echo "real servers: 11 logs of 6 servers, $sessions sessions and $findings findings, as the fixtures"
