#!/usr/bin/env bash
# The "add a Location" advice is configuration each server accepts: for a
# log that logs no Location, flipaudit's summary gives the lines to add;
# this puts each into a minimal configuration of the real server (Debian's
# nginx, apache2, lighttpd, haproxy) and runs the server's own check
# (nginx -t, apache2 -t, lighttpd -tt, haproxy -c). A line a server
# refuses fails here. Caddy logs the header itself: its advice has no line.
#   bash Tests/servers/advice.sh path/to/flipaudit
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:?usage: advice.sh path/to/flipaudit}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
ko() { echo "FAIL $1"; fail=1; }

# advice LOG: the example lines of the summary's Location note (indented six spaces).
advice() {
  "$bin" "$1" --no-color --now 2026-11-28T18:00:00Z 2> /dev/null \
    | awk '/logs no Location header/ { on = 1; next } on && /^      / { sub(/^      /, ""); print; next } on && !/^    / { on = 0 }'
}
# block NAME: the lines under "# NAME" in the combined advice, up to the next "# ".
block() { awk -v n="# $1" '$0 == n { on = 1; next } /^# / { on = 0 } on' "$tmp/combined.txt"; }

q='redirect_uri=https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA&state=s1'
printf '203.0.113.9 - - [28/Nov/2026:15:00:01 +0000] "GET /oauth/authorize?response_type=code&client_id=G123&%s HTTP/1.1" 302 0 "-" "G"\n' "$q" > "$tmp/combined.log"
printf '127.0.0.1:47892 [28/Nov/2026:15:01:15.102] flip oauth/stub 0/0/0/0/0 302 230 - - ---- 1/1/0/0/0 0/0 "GET /oauth/authorize?response_type=code&client_id=G123&%s HTTP/1.1"\n' "$q" > "$tmp/haproxy.log"
advice "$tmp/combined.log" > "$tmp/combined.txt"
advice "$tmp/haproxy.log" > "$tmp/haproxy.txt"
for name in nginx Apache lighttpd; do
  [ -n "$(block $name)" ] || ko "the combined advice has a $name block: $(cat "$tmp/combined.txt")"
done
[ -s "$tmp/haproxy.txt" ] || ko "the HAProxy advice has a line"

# nginx: the log_format in http {}, used by an access_log.
mkdir -p "$tmp/nginx"
{
  echo "pid $tmp/nginx/nginx.pid; error_log $tmp/nginx/error.log; events {}"
  echo "http {"
  block nginx
  echo "  access_log $tmp/nginx/access.log flip;"
  echo "  server { listen 127.0.0.1:18481; }"
  echo "}"
} > "$tmp/nginx/nginx.conf"
if out=$(nginx -t -q -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" 2>&1); then ok "nginx -t accepts the advice's log_format"
else ko "nginx -t refuses the advice: $out"; fi

# Apache: the LogFormat, used by a CustomLog (mod_log_config is built in).
mkdir -p "$tmp/apache"
{
  echo "ServerName localhost"
  echo "Listen 127.0.0.1:18482"
  echo "PidFile $tmp/apache/apache.pid"
  echo "ErrorLog $tmp/apache/error.log"
  echo "LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so"
  echo "LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so"
  block Apache
  echo "CustomLog $tmp/apache/access.log flip"
} > "$tmp/apache/apache2.conf"
if out=$(apache2 -t -f "$tmp/apache/apache2.conf" 2>&1); then ok "apache2 -t accepts the advice's LogFormat"
else ko "apache2 -t refuses the advice: $out"; fi

# lighttpd: accesslog.format with mod_accesslog.
mkdir -p "$tmp/lighttpd"
{
  echo "server.document-root = \"$tmp/lighttpd\""
  echo "server.port = 18483"
  echo "server.bind = \"127.0.0.1\""
  echo "server.modules += ( \"mod_accesslog\" )"
  echo "accesslog.filename = \"$tmp/lighttpd/access.log\""
  block lighttpd
} > "$tmp/lighttpd/lighttpd.conf"
if out=$(lighttpd -tt -f "$tmp/lighttpd/lighttpd.conf" 2>&1); then ok "lighttpd -tt accepts the advice's accesslog.format"
else ko "lighttpd -tt refuses the advice: $out"; fi

# HAProxy: the capture in an HTTP frontend with option httplog.
{
  echo "defaults"
  echo "  mode http"
  echo "  timeout connect 1s"
  echo "  timeout client 1s"
  echo "  timeout server 1s"
  echo "frontend flip"
  echo "  bind 127.0.0.1:18484"
  echo "  log stdout len 4096 format raw local0"
  echo "  option httplog"
  sed 's/^/  /' "$tmp/haproxy.txt"
  echo "  default_backend oauth"
  echo "backend oauth"
  echo "  server stub 127.0.0.1:18485"
} > "$tmp/haproxy.cfg"
if out=$(haproxy -c -f "$tmp/haproxy.cfg" 2>&1); then ok "haproxy -c accepts the advice's capture"
else ko "haproxy -c refuses the advice: $out"; fi

[ $fail = 0 ] && echo "Location advice: every server accepts its line" || exit 1
