#!/usr/bin/env bash
# Renders flipaudit's HTML report in a real browser (headless Chromium,
# host resolution disabled) and checks what a reader gets:
#  - the totals shown equal the JSON summary of the same run (SampleLogs);
#  - markup and script carried by a log (state, error, redirect_uri,
#    User-Agent, file name) stay text: no element, no handler, no script;
#  - the browser logs nothing to the console (a CSP violation would show
#    that something tried to load or run);
#  - a blind night (nothing understood) exits 5 and says BLIND, never PASS;
#  - a control page with injected markup is caught by the same checks;
#  - with --checkpoint, the trends of the next night (SampleLogs-next after
#    SampleLogs) mark each finding kind new, gone or same as the two JSON
#    summaries say, and a hostile error value in them stays text.
# Usage: Tests/browser/check-html.sh [--screenshot FILE]
#   FLIPAUDIT=path/to/flipaudit to use a given binary (default: swift build's).
# The last line is "N passed, N failed"; the exit status is 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

shot=""
if [ "${1:-}" = "--screenshot" ]; then shot="$2"; fi
bin="${FLIPAUDIT:-$(swift build --show-bin-path)/flipaudit}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# Counts the PASS/FAIL lines of dom_check.py (and prints the failures).
count() {
  while IFS= read -r line; do
    case "$line" in
      PASS*) passed=$((passed + 1)) ;;
      *) failed=$((failed + 1)); echo "$line" ;;
    esac
  done
}
check() { # name, then a command that succeeds when the check passes
  local name="$1"; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $name"; fi
}
chrome() {
  chromium --headless=new --no-sandbox --disable-gpu --host-resolver-rules="MAP * ~NOTFOUND" \
    --user-data-dir="$tmp/profile" --hide-scrollbars "$@"
}
# Renders an HTML file: its DOM into $2, the browser's log into $3.
render() { chrome --enable-logging=stderr --v=0 --dump-dom "file://$1" > "$2" 2> "$3"; }
# Whether the browser's log holds a console message, an uncaught error or
# a refused load (CSP).
console_clean() { ! grep -E "CONSOLE|Uncaught|Refused|violates" "$1" > /dev/null; }

# 1. The SampleLogs report against the JSON summary of the same run.
"$bin" SampleLogs --quiet --fail-on high --html "$tmp/sample.html" --json "$tmp/sample.json" 2> /dev/null
check "flipaudit exits 1 on the samples with --fail-on high" test $? -eq 1
render "$tmp/sample.html" "$tmp/sample.dom" "$tmp/sample.log"
check "the sample report renders" grep -q 'data-verdict="fail"' "$tmp/sample.dom"
count < <(python3 Tests/browser/dom_check.py totals "$tmp/sample.dom" "$tmp/sample.json")
check "no console message on the sample report" console_clean "$tmp/sample.log"
check "the sample report has no script element" bash -c "! grep -qi '<script' '$tmp/sample.html'"
if [ -n "$shot" ]; then
  chrome --window-size=1000,1800 --screenshot="$shot" "file://$tmp/sample.html" > /dev/null 2>&1
  check "screenshot written" test -s "$shot"
fi

# 1a. Both sample nights in one run with a checkpoint: each server's two
# files drawn as one stream, the quiet ones marked, the records that wait
# for the next run counted, as the JSON summary of the same run says.
"$bin" SampleLogs SampleLogs-next --quiet --checkpoint "$tmp/two.cp" --html "$tmp/two.html" --json "$tmp/two.json" 2> /dev/null
render "$tmp/two.html" "$tmp/two.dom" "$tmp/two.log"
count < <(python3 Tests/browser/dom_check.py totals "$tmp/two.dom" "$tmp/two.json" | grep -E "streams|waiting|total files")
check "the two-night report draws a stream of two files" grep -q 'data-stream-files="2"' "$tmp/two.dom"
check "no console message on the two-night report" console_clean "$tmp/two.log"

# 1c. A proxy and its backend, both logging: the pair drawn as tiers with
# the requests they shared, as the JSON says.
python3 - "$tmp/tiers" <<'EOF_TIERS'
import os, sys, urllib.parse as u
d = sys.argv[1]; os.makedirs(d)
opa = "https://oauth-redirect.googleusercontent.com/a/com.google.OPA"
with open(d + "/proxy.log", "w") as p, open(d + "/backend.log", "w") as b:
    for n in range(12):
        q = "response_type=code&client_id=G123&redirect_uri=" + u.quote(opa, safe="") + f"&state=s{n}"
        for f, ip, sec, path in ((p, "203.0.113.7", n * 5, "/app/oauth/authorize"), (b, "198.51.100.1", n * 5 + 1, "/oauth/authorize")):
            f.write(f'{ip} - - [22/Nov/2026:10:{sec // 60:02d}:{sec % 60:02d} +0000] "GET {path}?{q} HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "{opa}?code=c{n}&state=s{n}"\n')
EOF_TIERS
"$bin" "$tmp/tiers" --quiet --html "$tmp/tiers.html" --json "$tmp/tiers.json" 2> /dev/null
render "$tmp/tiers.html" "$tmp/tiers.dom" "$tmp/tiers.log"
count < <(python3 Tests/browser/dom_check.py totals "$tmp/tiers.dom" "$tmp/tiers.json" | grep -E "streams|tiers")
check "the proxy-and-backend report draws one pair of tiers sharing 12 requests" grep -q 'data-tier-shared="12"' "$tmp/tiers.dom"

# 1b. A blind night (every line unreadable, --fail-on high): exit 5, and the
# rendered page says BLIND and never PASS, anywhere.
printf '%s\n' 'Nov 22 10:00:01 web app[1]: started' '<html>not a log</html>' 'GET / 200' > "$tmp/blind.log"
"$bin" "$tmp/blind.log" --quiet --fail-on high --html "$tmp/blind.html" 2> /dev/null
check "flipaudit exits 5 on a blind night with --fail-on high" test $? -eq 5
render "$tmp/blind.html" "$tmp/blind.dom" "$tmp/blind.log.txt"
check "the blind report's verdict is blind" grep -q 'data-verdict="blind"' "$tmp/blind.dom"
check "the blind report says BLIND" grep -q 'BLIND: the input was not understood' "$tmp/blind.dom"
check "the blind report says PASS nowhere" bash -c "! grep -q 'PASS' '$tmp/blind.dom'"
check "the blind report's coverage section names the input" grep -q 'blind.log: 100% of its 3 lines not understood' "$tmp/blind.dom"
check "no console message on the blind report" console_clean "$tmp/blind.log.txt"

# 2. A log whose fields carry markup and script.
mkdir -p "$tmp/hostile"
hostile_log="$tmp/hostile/<svg onload=alert(1)>.log"
python3 - "$hostile_log" <<'EOF'
import sys, urllib.parse as u
img = '"><img src=x onerror=alert(1)>'
script = '<script>alert(1)</script>'
svg = '<svg onload=alert(1)>'
opa = 'https://oauth-redirect.googleusercontent.com/a/com.google.OPA'
def q(s): return u.quote(s, safe='')
def line(sec, target, status, location, ua='GoogleApp/1.0'):
    return (f'203.0.113.9 - - [22/Nov/2026:10:00:{sec:02d} +0000] "GET {target} HTTP/1.1" {status} 0 "-" '
            f'"{ua}" "{location}"\n')
def authorize(state, redirect=opa):
    return f'/oauth/authorize?response_type=code&client_id=G123&redirect_uri={q(redirect)}&state={q(state)}'
lines = [
    # state and error carry markup; the error is not a standard one.
    line(1, authorize(img), 302, f'{opa}?error={q(script)}&state={q(img)}', ua=script),
    # the return's state differs from the request's (state-mismatch shows both).
    line(2, authorize(svg), 302, f'{opa}?code=abcdefghijklmnop&state={q(script)}', ua=svg),
    # a return with a state no session has.
    line(4, '/landing', 302, f'{opa}?code=qrstuvwxyzabcdef&state={q(svg)}'),
]
# look-alike redirect_uris carrying markup (redirect-not-allowlisted shows them).
for i, payload in enumerate([img, script, svg]):
    lines.append(line(10 + i, authorize(f's{i}', redirect='https://oauth-redirect.googleusercontent.com@e.x/' + payload), 400, '-', ua=img))
open(sys.argv[1], 'w').write(''.join(lines))
EOF
"$bin" "$hostile_log" --quiet --html "$tmp/hostile.html" --csv "$tmp/hostile" 2> /dev/null
check "flipaudit audits the hostile log" test -s "$tmp/hostile.html"
render "$tmp/hostile.html" "$tmp/hostile.dom" "$tmp/hostile.log"
count < <(python3 Tests/browser/dom_check.py hostile "$tmp/hostile.dom" \
  '<img src=x onerror=alert(1)>' '<script>alert(1)</script>' '<svg onload=alert(1)>')
check "no console message on the hostile report" console_clean "$tmp/hostile.log"
# The payloads did reach the page (escaped): the state, the error value,
# the redirect_uri and the file name.
for needle in 'request state &quot;&lt;svg onload=alert(1)&gt;&quot; came back as &quot;&lt;script&gt;alert(1)&lt;/script&gt;' \
    '&lt;script&gt;alert(1)&lt;/script&gt;&quot; is not an App Flip error value' \
    'e.x/&lt;svg onload=alert(1)&gt;&quot; is not allowlisted' '&lt;svg onload=alert(1)&gt;.log'; do
  check "the report shows: $needle" grep -qF "$needle" "$tmp/hostile.html"
done

# 3. Control: the same checks see markup that was injected.
sed 's|<footer>|<img src=x onerror=alert(1)><script>alert(1)</script><svg onload=alert(1)></svg><footer>|' \
  "$tmp/sample.html" > "$tmp/control.html"
render "$tmp/control.html" "$tmp/control.dom" "$tmp/control.log"
count < <(python3 Tests/browser/dom_check.py injected "$tmp/control.dom")
check "control page: the console check sees the blocked script" grep -qE "CONSOLE|Refused|violates" "$tmp/control.log"

# 4. Trends: SampleLogs, then SampleLogs-next, then the hostile log, chained.
"$bin" SampleLogs --quiet --checkpoint "$tmp/chain.cp" --json "$tmp/night1.json" 2> /dev/null
check "night 1 of the chain" test $? -eq 0
"$bin" SampleLogs-next --quiet --checkpoint "$tmp/chain.cp" --json "$tmp/night2.json" --html "$tmp/night2.html" 2> /dev/null
check "night 2 of the chain" test $? -eq 0
render "$tmp/night2.html" "$tmp/night2.dom" "$tmp/night2.log"
check "the trends render" grep -q 'id="trends"' "$tmp/night2.dom"
count < <(python3 Tests/browser/dom_check.py trends "$tmp/night2.dom" "$tmp/night1.json" "$tmp/night2.json")
check "no console message on the trends report" console_clean "$tmp/night2.log"
# The hostile night's sessions are carried; a later night closes them.
"$bin" "$hostile_log" --quiet --checkpoint "$tmp/chain.cp" 2> /dev/null
printf '%s\n' '203.0.113.9 - - [22/Nov/2026:11:30:00 +0000] "GET /oauth/authorize?response_type=code&client_id=G123&state=later HTTP/1.1" 200 0 "-" "UA" "-"' > "$tmp/later.log"
"$bin" "$tmp/later.log" --quiet --checkpoint "$tmp/chain.cp" --html "$tmp/night3.html" 2> /dev/null
render "$tmp/night3.html" "$tmp/night3.dom" "$tmp/night3.log"
check "a hostile error value reaches the trends" grep -q 'data-trend-error="&lt;script&gt;alert(1)&lt;/script&gt;" data-trend="new"' "$tmp/night3.html"
count < <(python3 Tests/browser/dom_check.py hostile "$tmp/night3.dom" '<script>alert(1)</script>')
check "no console message on the hostile trends report" console_clean "$tmp/night3.log"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
