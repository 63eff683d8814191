#!/usr/bin/env bash
# Makes docs/flipaudit.1 with Swift Argument Parser's generate-manual
# plugin, from the command's own options and help texts. With --check it
# changes nothing and fails when the committed page is not what the
# plugin makes now (CI runs that).
# The date is fixed so that the same options give the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/plugins/GenerateManual/outputs/flipaudit
rm -rf "$out"
swift package plugin generate-manual --configuration debug --date 2026-11-22 > /dev/null
if [ "${1:-}" = "--check" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cp "$out/flipaudit.1" "$tmp/flipaudit.1"
  if ! diff -u docs/flipaudit.1 "$tmp/flipaudit.1"; then
    echo "docs/flipaudit.1 is not current: run Tools/update-manual.sh and commit it"
    exit 1
  fi
  echo "docs/flipaudit.1 is current"
else
  cp "$out/flipaudit.1" docs/flipaudit.1
  echo "wrote docs/flipaudit.1"
fi
