#!/usr/bin/env bash
# Makes docs/flipaudit.1 with Tools/make-manual.py from the command's own
# description (`flipaudit --experimental-dump-help`: ArgumentParser's
# command configuration and help texts). With --check it changes nothing
# and fails when the committed page is not what the script makes now, or
# when mandoc/groff warn about it (CI runs that).
# The date is fixed so that the same options give the same bytes.
#   FLIPAUDIT=path/to/flipaudit to use a given binary (default: swift build's).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${FLIPAUDIT:-$(swift build --show-bin-path)/flipaudit}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" --experimental-dump-help > "$tmp/main.json"
"$bin" stage --experimental-dump-help > "$tmp/stage.json"
"$bin" explain --experimental-dump-help > "$tmp/explain.json"
"$bin" follow --experimental-dump-help > "$tmp/follow.json"
python3 Tools/make-manual.py "$tmp/main.json" "$tmp/stage.json" "$tmp/explain.json" "$tmp/follow.json" "November 22, 2026" > "$tmp/flipaudit.1"
warnings=$(LC_ALL=C.UTF-8 groff -mandoc -ww -z "$tmp/flipaudit.1" 2>&1 || true)
if [ -n "$warnings" ]; then
  echo "groff warns about the man page: $warnings"
  exit 1
fi
if [ "${1:-}" = "--check" ]; then
  if ! diff -u docs/flipaudit.1 "$tmp/flipaudit.1"; then
    echo "docs/flipaudit.1 is not current: run Tools/update-manual.sh and commit it"
    exit 1
  fi
  echo "docs/flipaudit.1 is current"
else
  cp "$tmp/flipaudit.1" docs/flipaudit.1
  echo "wrote docs/flipaudit.1"
fi
