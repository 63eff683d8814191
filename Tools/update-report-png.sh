#!/usr/bin/env bash
# Makes docs/report.png, the picture of the HTML report in README.md and
# docs/outputs.md: `flipaudit SampleLogs --fail-on high --html` rendered by
# headless Chromium (1000 px wide, the top 1800 px), with the run date
# fixed. Beside it, docs/report.png.json records the figures the picture
# shows (from the JSON summary of the same run, which
# Tests/browser/check-html.sh proves equal to the page's) and the PNG's
# SHA-256.
#
# With --check (CI) it changes nothing and fails when the samples' figures
# now differ from those recorded with the picture, or when the picture is
# not the one recorded. It compares figures, not pixels: Chromium's fonts
# and anti-aliasing differ between machines and versions by a pixel here
# and there, so a pixel comparison would fail on a right picture and a
# tolerance loose enough for that would miss a changed digit.
#   FLIPAUDIT=path/to/flipaudit to use a given binary (default: swift build's).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${FLIPAUDIT:-$(swift build --show-bin-path)/flipaudit}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" SampleLogs --quiet --fail-on high --html "$tmp/report.html" --json "$tmp/report.json" 2> /dev/null || [ $? = 1 ]

figures() { # the figures the page shows, from a JSON summary
  python3 - "$1" << 'PY'
import json, sys
j = json.load(open(sys.argv[1]))
i, f = j["input"], j["findings"]
out = {k: i[k] for k in ["files", "lines", "records", "malformed_lines", "in_scope_flip_records"]}
out["sessions"] = j["sessions"]
out["findings"] = f["total"]
out["findings_by_severity"] = f["by_severity"]
out["findings_by_kind"] = {k["kind"]: k["count"] for k in f["by_kind"]}
out["outcomes"] = {k: v for k, v in j["outcomes"].items() if v}
out["error_sessions"] = sum(t["count"] for t in j["error_totals"])
print(json.dumps(out, indent=2, sort_keys=True))
PY
}

if [ "${1:-}" = "--check" ]; then
  recorded=$(python3 -c 'import json; print(json.dumps(json.load(open("docs/report.png.json"))["figures"], indent=2, sort_keys=True))')
  if ! diff -u <(echo "$recorded") <(figures "$tmp/report.json"); then
    echo "docs/report.png shows other figures than the samples give now: run Tools/update-report-png.sh and commit both files"
    exit 1
  fi
  want=$(python3 -c 'import json; print(json.load(open("docs/report.png.json"))["png_sha256"])')
  [ "$(sha256sum docs/report.png | cut -d' ' -f1)" = "$want" ] ||
    { echo "docs/report.png is not the picture recorded in docs/report.png.json: run Tools/update-report-png.sh"; exit 1; }
  echo "docs/report.png shows the samples' figures"
  exit 0
fi

# A fixed run date, so that only the samples change the picture.
sed -E 's|run <time>[^<]*</time>|run <time>2026-11-22T06:00:00.000Z</time>|' "$tmp/report.html" > "$tmp/fixed.html"
chromium --headless=new --no-sandbox --disable-gpu --host-resolver-rules="MAP * ~NOTFOUND" \
  --user-data-dir="$tmp/profile" --hide-scrollbars --window-size=1000,1800 \
  --screenshot="$tmp/report.png" "file://$tmp/fixed.html" > /dev/null 2>&1
test -s "$tmp/report.png"
cp "$tmp/report.png" docs/report.png
python3 - "$(figures "$tmp/report.json")" "$(sha256sum docs/report.png | cut -d' ' -f1)" << 'PY' > docs/report.png.json
import json, sys
print(json.dumps({"made_by": "Tools/update-report-png.sh", "png_sha256": sys.argv[2], "figures": json.loads(sys.argv[1])}, indent=2))
PY
echo "wrote docs/report.png and docs/report.png.json"
