#!/usr/bin/env bash
# real-servers.sh — access logs of App Flip flows written by REAL web servers.
#
#   bash Tools/real-servers.sh [OUTDIR]
#
# On Debian, as root. Installs what is missing (nginx, apache2, caddy,
# haproxy, lighttpd, h2o, curl, python3) from Debian's archive, then starts,
# on 127.0.0.1 only and on unprivileged high ports, with configs, pid and
# log files of their own in a temporary directory (never the system
# services, never port 80):
#
#   a tiny OAuth server stub (python3 http.server)      FLIP_BASE_PORT+0
#   nginx     -> nginx-main-location.log, nginx-combined.log           +1
#   apache2   -> apache-flip.log, apache-vhost-combined.log            +2
#   caddy     -> caddy.log (JSON)                                      +3
#   haproxy   -> haproxy-raw.log (stdout), haproxy-syslog.log (UDP)    +4 (+5 udp)
#   lighttpd  -> lighttpd-default.log (+6), lighttpd-location.log (+7)
#   h2o       -> h2o-default.log, h2o-location.log                     +8
#
# Each front reverse-proxies to the stub. The same fixed set of App Flip
# flows goes through every front (curl, no redirect following), each
# front with its own state prefix so sessions never collide across files.
# After the traffic every server is stopped gracefully and waited for, so
# its log is complete, and only then is each access log copied, byte for
# byte as the server wrote it, into OUTDIR (default: a new temp dir,
# printed at the end), with EXPECTED.md (what each file holds and what an
# audit should find) and SOURCE.md (package versions, log formats).
#
# Correctness never depends on timing: ports are waited for with a bounded
# retry loop on /proc/net (no probe connection, so no stray log line);
# requests are sent one at a time, and the next one goes only once the
# previous one's line is in every log of that front (lighttpd, which logs
# from one event loop into a buffer, keeps the order by itself); a server
# that does not stop in time is a failure; and after the stop every log is
# checked: one line per request (HAProxy: plus its stop notice), the
# returns in the Location fields, HAProxy's cut long line. A trap stops
# every process this script started, on success, failure or Ctrl-C.
#
# FLIP_BASE_PORT (default 18400) moves the ports; FLIP_KEEP_WORK=1 keeps
# the temporary directory (configs, error logs) for a look afterwards.
# h2o is optional: if it cannot be installed or started it is skipped with
# a message, and its logs are missing from OUTDIR.

set -euo pipefail
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
export LC_ALL=C

BASE_PORT=${FLIP_BASE_PORT:-18400}
STUB_PORT=$((BASE_PORT + 0))
NGINX_PORT=$((BASE_PORT + 1))
APACHE_PORT=$((BASE_PORT + 2))
CADDY_PORT=$((BASE_PORT + 3))
HAPROXY_PORT=$((BASE_PORT + 4))
SYSLOG_PORT=$((BASE_PORT + 5)) # UDP, HAProxy's rfc3164 log target
LIGHTTPD_PORT=$((BASE_PORT + 6))
LIGHTTPD_LOC_PORT=$((BASE_PORT + 7))
H2O_PORT=$((BASE_PORT + 8))

# Flows: the long state is 700 'a's after "<P>-long-", so that its line
# (request target and Location both carry it) is longer than HAProxy's
# default 1024-byte log line.
LONG_TAIL=$(printf 'a%.0s' $(seq 700))
GOOGLE_REDIRECT='https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA'
LOOKALIKE_REDIRECT='https%3A%2F%2Foauth-redirect.googleusercontent.com.evil.example%2Fa%2Fcom.google.OPA'
FLIP_UA='GoogleApp/1.0'
LINES_PER_LOG=10 # 7 flip requests (a-f) + 3 non-flip requests (g)

WORK=$(mktemp -d /tmp/flip-real-servers.XXXXXX)
chmod 755 "$WORK" # h2o writes its pid file after dropping root (to nobody)
LOGS="$WORK/logs" # where the servers write their access logs
mkdir -p "$LOGS"
if [ -n "${1:-}" ]; then
  OUT=$1
else
  OUT=$(mktemp -d /tmp/flip-server-logs.XXXXXX)
fi

log() { printf '[real-servers] %s\n' "$*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

# ---------------------------------------------------------------------------
# Process bookkeeping: every background process is started through
# start_bg, recorded in PIDS, stopped by stop_server or, at the latest, by
# the EXIT trap.

declare -A PIDS=()      # name -> pid
declare -A STOP_SIG=()  # name -> graceful stop signal
SKIPPED=()              # servers that could not run, with the reason
RAN=()                  # servers whose logs were copied

# True while $1 is a live process (a zombie, exited but not yet reaped by
# `wait`, counts as gone).
is_running() {
  local stat state
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  state=${stat##*) }
  state=${state%% *}
  [ "$state" != Z ]
}

# start_bg NAME STOP_SIGNAL STDOUT_FILE CMD...: run CMD in the background,
# stdout to STDOUT_FILE, stderr to $WORK/NAME.stderr.
start_bg() {
  local name=$1 sig=$2 out=$3
  shift 3
  "$@" >"$out" 2>"$WORK/$name.stderr" </dev/null &
  PIDS[$name]=$!
  STOP_SIG[$name]=$sig
}

# stop_server NAME: graceful stop, then wait (bounded) for the pid to exit,
# so that everything it logged is on disk. A server that does not exit in
# 15 s is killed and the run fails: its log may be incomplete.
stop_server() {
  local name=$1 pid=${PIDS[$1]:-} i
  [ -n "$pid" ] || return 0
  kill "-${STOP_SIG[$name]}" "$pid" 2>/dev/null || true
  for ((i = 0; i < 300; i++)); do
    is_running "$pid" || break
    sleep 0.05
  done
  if is_running "$pid"; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    unset "PIDS[$name]"
    die "$name (pid $pid) did not stop within 15 s after SIG${STOP_SIG[$name]}: its log may be incomplete"
  fi
  wait "$pid" 2>/dev/null || true
  unset "PIDS[$name]"
}

cleanup() {
  local rc=$? name pid
  trap - EXIT INT TERM
  for name in "${!PIDS[@]}"; do
    pid=${PIDS[$name]}
    is_running "$pid" && kill -TERM "$pid" 2>/dev/null
  done
  for name in "${!PIDS[@]}"; do
    pid=${PIDS[$name]}
    for ((i = 0; i < 100; i++)); do
      is_running "$pid" || break
      sleep 0.05
    done
    is_running "$pid" && kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null || true
  done
  if [ "$rc" -ne 0 ] || [ "${FLIP_KEEP_WORK:-0}" = 1 ]; then
    log "work directory kept for a look: $WORK"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------
# Ports, read from /proc/net/{tcp,udp}[6]: nothing connects to a server
# before the flows, so no probe shows up in a log.

# listening PROTO PORT: is anything bound to PORT (any address)?
# TCP counts only LISTEN sockets (state 0A), UDP any bound socket (07).
listening() {
  local proto=$1 hex state
  hex=$(printf '%04X' "$2")
  if [ "$proto" = tcp ]; then state=0A; else state=07; fi
  cat "/proc/net/$proto" "/proc/net/${proto}6" 2>/dev/null |
    awk -v p=":$hex" -v s="$state" '$2 ~ p"$" && $4 == s { found = 1 } END { exit !found }'
}

require_free() {
  local proto=$1 port=$2
  if listening "$proto" "$port"; then
    die "port $port/$proto is already in use: set FLIP_BASE_PORT to another base (now $BASE_PORT)"
  fi
}

# wait_port NAME PROTO PORT: bounded wait (15 s) for NAME to bind PORT;
# fails at once when the process has exited.
wait_port() {
  local name=$1 proto=$2 port=$3 i pid=${PIDS[$1]}
  for ((i = 0; i < 300; i++)); do
    listening "$proto" "$port" && return 0
    if ! is_running "$pid"; then
      wait "$pid" 2>/dev/null || true
      unset "PIDS[$name]"
      log "$name exited before listening on $port/$proto; its stderr:"
      sed 's/^/    /' "$WORK/$name.stderr" >&2 || true
      return 1
    fi
    sleep 0.05
  done
  log "$name did not listen on $port/$proto within 15 s"
  return 1
}

# ---------------------------------------------------------------------------
# Packages

ensure_packages() {
  local need=() created_policy=0
  command -v nginx >/dev/null || need+=(nginx)
  command -v apache2 >/dev/null || need+=(apache2)
  [ -e /usr/lib/apache2/modules/mod_proxy_http.so ] || need+=(apache2)
  command -v caddy >/dev/null || need+=(caddy)
  command -v haproxy >/dev/null || need+=(haproxy)
  command -v lighttpd >/dev/null || need+=(lighttpd)
  [ -e /usr/lib/lighttpd/mod_proxy.so ] || need+=(lighttpd)
  command -v curl >/dev/null || need+=(curl)
  command -v python3 >/dev/null || need+=(python3)
  local want_h2o=0
  command -v h2o >/dev/null || want_h2o=1
  [ ${#need[@]} -gt 0 ] || [ $want_h2o = 1 ] || return 0
  [ "$(id -u)" = 0 ] || die "missing packages (${need[*]} h2o?) and not root: install them first"

  # The packages' maintainer scripts would start the SYSTEM services (port
  # 80 and others). policy-rc.d exit 101 forbids that while we install;
  # one we create is removed again right after.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    created_policy=1
  fi
  log "apt-get update, then install: ${need[*]} $([ $want_h2o = 1 ] && echo h2o)"
  apt-get update -qq
  if [ ${#need[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2 ||
      { [ $created_policy = 1 ] && rm -f /usr/sbin/policy-rc.d; die "apt-get install ${need[*]} failed"; }
  fi
  # h2o is optional: a failure here only means no h2o logs.
  if [ $want_h2o = 1 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends h2o >&2 ||
      log "h2o could not be installed: it will be skipped"
  fi
  [ $created_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
  return 0
}

# ---------------------------------------------------------------------------
# The OAuth server stub every front proxies to.

start_stub() {
  cat >"$WORK/stub.py" <<'PY'
# OAuth authorization endpoint stub for App Flip fixtures.
#   GET /oauth/authorize?...          302 to {redirect_uri}?code=c-{state}&state={state}
#                                     (state "reuse-P-N" -> the code c-reuse-P, one per server)
#   ... &deny=1                       302 to {redirect_uri}?error=access_denied&state={state}
#   ... &fail=1                       500, no Location
# It redirects wherever redirect_uri says, look-alike hosts included: that
# mistake is what the fixtures must show. /, /static/app.css, /healthz: 200.
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGES = {
    "/": ("text/html", b"<!doctype html><title>partner</title>\n"),
    "/static/app.css": ("text/css", b"body { margin: 0 }\n"),
    "/healthz": ("text/plain", b"ok\n"),
}


class Stub(BaseHTTPRequestHandler):
    server_version = "flip-oauth-stub/1"
    sys_version = ""

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/oauth/authorize":
            q = urllib.parse.parse_qs(url.query, keep_blank_values=True)
            one = lambda k: q.get(k, [""])[0]
            state, redirect = one("state"), one("redirect_uri")
            if one("fail") == "1":
                return self.reply(500, "text/plain", b"internal error\n")
            if one("deny") == "1":
                params = [("error", "access_denied"), ("state", state)]
            else:
                code = "c-" + state.rsplit("-", 1)[0] if state.startswith("reuse") else "c-" + state
                params = [("code", code), ("state", state)]
            sep = "&" if "?" in redirect else "?"
            return self.reply(302, location=redirect + sep + urllib.parse.urlencode(params))
        if url.path in PAGES:
            return self.reply(200, *PAGES[url.path])
        return self.reply(404, "text/plain", b"not found\n")

    def reply(self, status, ctype="text/plain", body=b"", location=None):
        self.send_response(status)
        if location is not None:
            self.send_header("Location", location)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if body:  # a proxy may close right after an empty body's headers
            self.wfile.write(body)

    def log_message(self, fmt, *args):  # the stub's own log, for debugging only
        sys.stderr.write("%s %s\n" % (self.log_date_time_string(), fmt % args))
        sys.stderr.flush()


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Stub).serve_forever()
PY
  start_bg stub TERM "$WORK/stub.stdout" python3 -u "$WORK/stub.py" "$STUB_PORT"
  wait_port stub tcp "$STUB_PORT" || die "the OAuth stub did not start"
}

# ---------------------------------------------------------------------------
# Fronts: one function per server. Each writes its config (heredoc) under
# $WORK/NAME/, starts the server in the foreground as a background job,
# and waits for its port. They return non-zero if the server cannot start.

# nginx: the stock 'main' format of nginx.org's nginx.conf plus the
# Location header (what flipaudit's README asks for), and the same
# requests in plain 'combined' (no Location: returns unobservable).
start_nginx() {
  local d="$WORK/nginx"
  mkdir -p "$d/tmp"
  cat >"$d/nginx.conf" <<EOF
daemon off;              # foreground: the pid we hold is the master's
master_process on;
worker_processes 1;      # one worker: requests are logged in the order served
pid $d/nginx.pid;
error_log $d/error.log notice;
events { worker_connections 64; }
http {
    log_format main '\$remote_addr - \$remote_user [\$time_local] "\$request" \$status \$body_bytes_sent "\$http_referer" "\$http_user_agent" "\$http_x_forwarded_for" "\$sent_http_location"';
    access_log $LOGS/nginx-main-location.log main;
    access_log $LOGS/nginx-combined.log combined;
    client_body_temp_path $d/tmp/body;
    proxy_temp_path $d/tmp/proxy;
    fastcgi_temp_path $d/tmp/fastcgi;
    uwsgi_temp_path $d/tmp/uwsgi;
    scgi_temp_path $d/tmp/scgi;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        server_name localhost;
        location / {
            proxy_pass http://127.0.0.1:$STUB_PORT;
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
        }
    }
}
EOF
  # -p: prefix (no /var/lib/nginx), -e: startup error log (no /var/log/nginx)
  start_bg nginx QUIT "$WORK/nginx.stdout" nginx -p "$d" -e "$d/error.log" -c "$d/nginx.conf"
  wait_port nginx tcp "$NGINX_PORT"
}

# apache2: mod_proxy + mod_proxy_http; a 'flip' format with %D and the
# Location response header, and Debian's vhost_combined. Its own
# ServerRoot and config, run with -X (one process, one request at a time,
# in the foreground: its pid is the server's, and lines come in order).
start_apache() {
  local d="$WORK/apache" m=/usr/lib/apache2/modules
  mkdir -p "$d/run"
  cat >"$d/apache2.conf" <<EOF
ServerRoot "$d"
DefaultRuntimeDir "$d/run"
PidFile "$d/run/apache2.pid"
Mutex file:$d/run default
LoadModule mpm_prefork_module $m/mod_mpm_prefork.so
LoadModule authz_core_module $m/mod_authz_core.so
LoadModule proxy_module $m/mod_proxy.so
LoadModule proxy_http_module $m/mod_proxy_http.so
User www-data
Group www-data
ServerName localhost:$APACHE_PORT
Listen 127.0.0.1:$APACHE_PORT
ErrorLog "$d/error.log"
LogLevel warn
# Debian's apache2.conf vhost_combined, and a format with Location.
LogFormat "%v:%p %h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\"" vhost_combined
LogFormat "%h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\" %D \"%{Location}o\"" flip
CustomLog "$LOGS/apache-flip.log" flip
CustomLog "$LOGS/apache-vhost-combined.log" vhost_combined
ProxyRequests Off
ProxyPass "/" "http://127.0.0.1:$STUB_PORT/"
${APACHE_EXTRA:-}
EOF
  # -X: SIGTERM stops it; mod_log_config writes each line as it is logged.
  start_bg apache TERM "$WORK/apache.stdout" apache2 -f "$d/apache2.conf" -X
  wait_port apache tcp "$APACHE_PORT"
}

# caddy: reverse_proxy with a JSON access log. No admin endpoint, no
# automatic HTTPS, no trust-store changes; its data and config dirs in $WORK.
start_caddy() {
  local d="$WORK/caddy"
  mkdir -p "$d/data" "$d/config"
  cat >"$d/Caddyfile" <<EOF
{
	admin off
	auto_https off
	skip_install_trust
}

http://127.0.0.1:$CADDY_PORT {
	bind 127.0.0.1
	reverse_proxy 127.0.0.1:${UPSTREAM_PORT:-$STUB_PORT}
	log {
		output file $LOGS/caddy.log
		format json
	}
}
EOF
  # SIGINT: graceful shutdown (SIGTERM too; SIGQUIT would not be)
  XDG_DATA_HOME="$d/data" XDG_CONFIG_HOME="$d/config" HOME="$d" \
    start_bg caddy INT "$WORK/caddy.stdout" caddy run --config "$d/Caddyfile" --adapter caddyfile
  wait_port caddy tcp "$CADDY_PORT"
}

# haproxy: mode http with option httplog, the Host request header and the
# Location response header captured. Two log targets for the same
# requests: stdout in raw format (haproxy's stdout IS haproxy-raw.log) and
# rfc3164 syslog over UDP to a tiny receiver that appends each datagram as
# a line (haproxy-syslog.log). Log lines are cut at the default 1024 bytes.
start_haproxy() {
  local d="$WORK/haproxy"
  mkdir -p "$d"
  cat >"$d/syslog_rx.py" <<'PY'
# Minimal syslog receiver: one UDP datagram -> one line, bytes untouched
# (a newline is added only when the datagram has none). Stops, after
# writing everything received before it, on the datagram STOP.
import socket, sys
STOP = b"__flip_syslog_rx_stop__"
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", int(sys.argv[1])))
with open(sys.argv[2], "ab", buffering=0) as out:
    while True:
        data = sock.recv(65535)
        if data == STOP:
            break
        out.write(data if data.endswith(b"\n") else data + b"\n")
PY
  start_bg syslog_rx TERM "$WORK/syslog_rx.stdout" python3 -u "$d/syslog_rx.py" "$SYSLOG_PORT" "$LOGS/haproxy-syslog.log"
  wait_port syslog_rx udp "$SYSLOG_PORT" || return 1
  cat >"$d/haproxy.cfg" <<EOF
global
    # no 'daemon': run in the foreground (-db), its pid is ours to stop
    maxconn 64

defaults
    mode http
    option httplog
    # a connection that sends nothing is not logged (as in Debian's haproxy.cfg)
    option dontlognull
    timeout connect 5s
    timeout client 30s
    timeout server 30s

frontend flip
    bind 127.0.0.1:$HAPROXY_PORT
    log stdout format raw local0
    log 127.0.0.1:$SYSLOG_PORT format rfc3164 local0
    capture request header Host len 64
    capture response header Location len 2048
    default_backend oauth

backend oauth
    server stub 127.0.0.1:${UPSTREAM_PORT:-$STUB_PORT}
EOF
  haproxy -c -q -f "$d/haproxy.cfg" >&2 || return 1
  # -db: foreground; SIGUSR1: soft stop (finish, log, exit).
  start_bg haproxy USR1 "$LOGS/haproxy-raw.log" haproxy -db -f "$d/haproxy.cfg"
  wait_port haproxy tcp "$HAPROXY_PORT"
}

# Stop HAProxy, then the receiver: the STOP datagram queues behind every
# datagram haproxy sent before it exited, so nothing is lost.
stop_haproxy() {
  stop_server haproxy
  if [ -n "${PIDS[syslog_rx]:-}" ]; then
    python3 -c 'import socket,sys; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"__flip_syslog_rx_stop__", ("127.0.0.1", int(sys.argv[1])))' "$SYSLOG_PORT"
    stop_server syslog_rx # STOP_SIG TERM only if the datagram was not enough
  fi
}

# lighttpd: mod_proxy and mod_accesslog. One access log per condition, so
# two sockets: the default format (Host as 2nd field, no Location) on
# LIGHTTPD_PORT, and a format with Location on LIGHTTPD_LOC_PORT. Each
# port gets the flows with its own state prefix.
start_lighttpd() {
  local d="$WORK/lighttpd"
  mkdir -p "$d/htdocs"
  cat >"$d/lighttpd.conf" <<EOF
server.modules = ("mod_proxy", "mod_accesslog")
server.document-root = "$d/htdocs"
server.bind = "127.0.0.1"
server.port = $LIGHTTPD_PORT
server.pid-file = "$d/lighttpd.pid"
server.errorlog = "$d/error.log"
proxy.server = ("" => (("host" => "127.0.0.1", "port" => $STUB_PORT)))
# default accesslog.format: %h %V %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i"
accesslog.filename = "$LOGS/lighttpd-default.log"
\$SERVER["socket"] == "127.0.0.1:$LIGHTTPD_LOC_PORT" {
    accesslog.filename = "$LOGS/lighttpd-location.log"
    accesslog.format = "%h %V %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" \"%{Location}o\""
}
EOF
  lighttpd -tt -f "$d/lighttpd.conf" >&2 || return 1
  # -D: foreground; SIGINT: graceful shutdown.
  start_bg lighttpd INT "$WORK/lighttpd.stdout" lighttpd -D -f "$d/lighttpd.conf"
  wait_port lighttpd tcp "$LIGHTTPD_PORT" && wait_port lighttpd tcp "$LIGHTTPD_LOC_PORT"
}

# h2o: proxy.reverse.url. The global access-log (default format) and the
# host's access-log (with Location) are both applied to the host's
# requests: one set of flows, two logs.
start_h2o() {
  local d="$WORK/h2o"
  command -v h2o >/dev/null || return 1
  mkdir -p "$d"
  chown nobody "$d" # its pid file is written as 'nobody'
  cat >"$d/h2o.conf" <<EOF
pid-file: $d/h2o.pid
error-log: $d/error.log
user: nobody          # as root h2o switches to a user; logs are opened before that
access-log: $LOGS/h2o-default.log
hosts:
  "127.0.0.1:$H2O_PORT":
    listen:
      host: 127.0.0.1
      port: $H2O_PORT
    access-log:
      path: $LOGS/h2o-location.log
      format: '%h %l %u %t "%r" %s %b "%{Referer}i" "%{User-agent}i" "%{location}o"'
    paths:
      "/":
        proxy.reverse.url: "http://127.0.0.1:$STUB_PORT/"
EOF
  h2o -t -c "$d/h2o.conf" >&2 || return 1
  # SIGTERM: h2o stops accepting, finishes, exits.
  start_bg h2o TERM "$WORK/h2o.stdout" h2o -c "$d/h2o.conf"
  wait_port h2o tcp "$H2O_PORT"
}

# ---------------------------------------------------------------------------
# Traffic

# request PORT EXPECTED_STATUS UA PATH LOGS...: one GET through a front,
# no redirect following (each curl is its own connection: one request, one
# line); then a bounded wait until every log in LOGS holds this request's
# line. That wait keeps the lines in the order sent where a server logs
# from several threads (caddy, h2o) or processes; a server that
# logs from one event loop (lighttpd, which also buffers its access log
# until a periodic flush or its stop) is given no LOGS: its order is the
# order served, and its lines are checked after the stop.
SENT=0
request() {
  local port=$1 want=$2 ua=$3 path=$4 got f i
  shift 4
  got=$(curl --silent --show-error --noproxy '*' --max-time 10 --output /dev/null \
    --write-out '%{http_code}' --user-agent "$ua" "http://127.0.0.1:$port$path") ||
    die "curl failed on port $port: $path"
  [ "$got" = "$want" ] || die "port $port: $path answered $got, expected $want"
  SENT=$((SENT + 1))
  for f in "$@"; do
    for ((i = 0; i < 200; i++)); do
      [ -f "$f" ] && [ "$(wc -l <"$f")" -ge "$SENT" ] && break
      sleep 0.025
    done
    [ -f "$f" ] && [ "$(wc -l <"$f")" -ge "$SENT" ] ||
      die "$(basename "$f") does not show request $SENT after 5 s"
  done
}

# send_flows PREFIX PORT LOGS...: the fixed set of App Flip flows a-g
# (LOGS: the logs to wait on, see request).
send_flows() {
  local p=$1 port=$2
  shift 2
  local authz="/oauth/authorize?response_type=code&client_id=G123"
  SENT=0
  # a. code flow
  request "$port" 302 "$FLIP_UA" "$authz&redirect_uri=$GOOGLE_REDIRECT&state=$p-code&scope=a+b" "$@"
  # b. error flow (the user refuses)
  request "$port" 302 "$FLIP_UA" "$authz&redirect_uri=$GOOGLE_REDIRECT&state=$p-deny&scope=a+b&deny=1" "$@"
  # c. look-alike redirect host: the stub still sends a code there
  request "$port" 302 "$FLIP_UA" "$authz&redirect_uri=$LOOKALIKE_REDIRECT&state=$p-lookalike&scope=a+b" "$@"
  # d. server error, no redirect back
  request "$port" 500 "$FLIP_UA" "$authz&redirect_uri=$GOOGLE_REDIRECT&state=$p-fail&scope=a+b&fail=1" "$@"
  # e. long state (HAProxy cuts this line at 1024 bytes)
  request "$port" 302 "$FLIP_UA" "$authz&redirect_uri=$GOOGLE_REDIRECT&state=$p-long-$LONG_TAIL&scope=a+b" "$@"
  # f. code reuse: two sessions, one code (c-reuse-P)
  request "$port" 302 "$FLIP_UA" "$authz&redirect_uri=$GOOGLE_REDIRECT&state=reuse-$p-1&scope=a+b" "$@"
  request "$port" 302 "$FLIP_UA" "$authz&redirect_uri=$GOOGLE_REDIRECT&state=reuse-$p-2&scope=a+b" "$@"
  # g. ordinary traffic (curl's own User-Agent)
  local curl_ua
  curl_ua="curl/$(curl --version | awk 'NR == 1 { print $2 }')"
  request "$port" 200 "$curl_ua" "/" "$@"
  request "$port" 200 "$curl_ua" "/static/app.css" "$@"
  request "$port" 200 "$curl_ua" "/healthz" "$@"
}

# ---------------------------------------------------------------------------
# After the stop: every log must hold exactly its lines (one per request,
# HAProxy one more), and the files with a Location field exactly 6
# returns (a, b, c, e, f twice).

check_log() { # FILE RETURNS_IN_LOCATION [LINES]
  local f=$1 want_loc=$2 want_lines=${3:-$LINES_PER_LOG} n loc
  [ -f "$LOGS/$f" ] || die "$f was not written"
  n=$(wc -l <"$LOGS/$f")
  [ "$n" -eq "$want_lines" ] || die "$f holds $n lines, expected $want_lines"
  loc=$(grep -c -E 'https:(\\?/){2}oauth-redirect\.googleusercontent\.com[^" ]*\?(code|error)=' "$LOGS/$f" || true)
  [ "$loc" -eq "$want_loc" ] || die "$f shows $loc returns in a Location, expected $want_loc"
}

# HAProxy's line 5 must be the long-state line cut at 1024 bytes: within
# the Location capture, after the whole code, before the request line.
check_haproxy_cut() {
  local f=$1 line
  line=$(sed -n 5p "$LOGS/$f")
  [ "$(sed -n 5p "$LOGS/$f" | wc -c)" -le 1025 ] || die "$f line 5 is longer than 1024 bytes"
  case $line in
    *"code=c-hap-long-$LONG_TAIL&state=hap-long-"*) ;;
    *) die "$f line 5 does not hold the whole long code" ;;
  esac
  case $line in
    *'HTTP/1.1"'* | *"state=hap-long-$LONG_TAIL"*) die "$f line 5 was not cut as expected" ;;
  esac
}

copy_logs() {
  local f
  mkdir -p "$OUT"
  for f in "$@"; do
    cp -- "$LOGS/$f" "$OUT/$f"
  done
}

# ---------------------------------------------------------------------------
# EXPECTED.md and SOURCE.md

# The sessions table of one file. MODE: loc (Location logged), json (the
# same, as a JSON key), noloc (no Location field), hap (Location logged,
# line 5 cut by HAProxy, and a stop notice as line 11).
expected_flip_sessions() { # PREFIX MODE
  local p=$1 mode=$2
  echo '| line | state | outcome | expected findings |'
  echo '|---|---|---|---|'
  if [ "$mode" = noloc ]; then
    cat <<EOF
| 1 | \`$p-code\` | unobservable (302, Location not logged) | none |
| 2 | \`$p-deny\` | unobservable | none |
| 3 | \`$p-lookalike\` | unobservable | medium \`redirect-not-allowlisted\` (suffix-domain look-alike); the code sent there cannot be seen |
| 4 | \`$p-fail\` | failed (500, allowlisted redirect_uri) | high \`missing-error-return\` (answered 500 without returning an error to Google) |
| 5 | \`$p-long-\` + 700 \`a\` | unobservable | none |
| 6 | \`reuse-$p-1\` | unobservable | none |
| 7 | \`reuse-$p-2\` | unobservable | none (the reused code is not in this log) |
EOF
  else
    cat <<EOF
| 1 | \`$p-code\` | code (\`c-$p-code\`) | none |
| 2 | \`$p-deny\` | error (\`access_denied\`) | none |
| 3 | \`$p-lookalike\` | code (\`c-$p-lookalike\`, sent to \`https://oauth-redirect.googleusercontent.com.evil.example/a/com.google.OPA\`) | critical \`code-to-unlisted-redirect\` (a code went to a look-alike host); medium \`redirect-not-allowlisted\` (the request's redirect_uri is a suffix-domain look-alike) |
| 4 | \`$p-fail\` | failed (500, no Location, allowlisted redirect_uri) | high \`missing-error-return\` (answered 500 without returning an error to Google) |
EOF
    if [ "$mode" = hap ]; then
      cat <<EOF
| 5 | (\`$p-long-\` + 700 \`a\`) | none: the line is truncated | a truncated (malformed) line, not a session: see above |
EOF
    else
      cat <<EOF
| 5 | \`$p-long-\` + 700 \`a\` | code (\`c-\` + the state) | none |
EOF
    fi
    cat <<EOF
| 6 | \`reuse-$p-1\` | code (\`c-reuse-$p\`) | none |
| 7 | \`reuse-$p-2\` | code (\`c-reuse-$p\`) | critical \`code-reuse\` (the code of \`reuse-$p-1\` returned again) |
EOF
  fi
  echo
  echo 'Lines 8-10 (`GET /`, `GET /static/app.css`, `GET /healthz`, 200) are not flip traffic.'
  if [ "$mode" = hap ]; then
    echo "Line 11 is HAProxy's own notice at its soft stop (\`Proxy flip stopped (cumulated conns: FE: 10, BE: 0).\`): not a request."
  fi
}

write_expected() {
  local e="$OUT/EXPECTED.md"
  cat >"$e" <<EOF
# What the real-server logs hold

Written by \`Tools/real-servers.sh\`. Every file below is one server's
access log, byte for byte as the server wrote it, for the same fixed set of
requests sent with curl (no redirect following) through that server acting
as a reverse proxy in front of an OAuth stub. Each file holds one line per
request, $LINES_PER_LOG lines in this order (HAProxy's logs one more: its stop notice):

1. a. code flow, state \`<P>-code\`: 302 to Google's
   \`https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=c-<P>-code&state=<P>-code\`
2. b. error flow, state \`<P>-deny\`, \`&deny=1\`: 302 to the same URI with \`?error=access_denied&state=<P>-deny\`
3. c. look-alike redirect_uri \`https://oauth-redirect.googleusercontent.com.evil.example/a/com.google.OPA\`,
   state \`<P>-lookalike\`: 302 WITH A CODE to the look-alike host
4. d. state \`<P>-fail\`, \`&fail=1\`: 500, no Location
5. e. state \`<P>-long-\` + 700 \`a\`: 302 with a code (a Location of about 1,480 bytes)
6. f. state \`reuse-<P>-1\`: 302, code \`c-reuse-<P>\`
7. f. state \`reuse-<P>-2\`: 302, the same code \`c-reuse-<P>\`
8. g. \`GET /\` 200; 9. \`GET /static/app.css\` 200; 10. \`GET /healthz\` 200

Flip requests are \`GET /oauth/authorize?response_type=code&client_id=G123&redirect_uri=…&state=…&scope=a+b\`
with User-Agent \`GoogleApp/1.0\`, from 127.0.0.1, no Referer; lines 8-10 have
curl's own User-Agent. Codes are \`c-\` + state, except \`c-reuse-<P>\`.
"A Location logged" means the line has a field for the response's Location
header: the 302's target on lines 1-3 and 5-7, an empty value (\`"-"\`, \`{}\`,
or no key in JSON) on lines 4 and 8-10.

Audit each file on its own (with no \`--client-id\`: \`G123\` is no real
Google client ID). Across files: the two logs of one server (nginx,
apache, haproxy, h2o) hold the same requests, so together they repeat every
state (and HAProxy's two logs, which both log the Location, every code).
Each server's reuse code is its own: no code crosses servers.

| file | lines | Location logged | prefix |
|---|---|---|---|
EOF
  local f
  for f in "${EXPECTED_ORDER[@]}"; do
    [ -f "$OUT/$f" ] || continue
    printf '| %s | %s | %s | `%s` |\n' "$f" "$(wc -l <"$OUT/$f")" "${EXPECTED_LOC[$f]}" "${EXPECTED_PREFIX[$f]}" >>"$e"
  done
  for f in "${EXPECTED_ORDER[@]}"; do
    [ -f "$OUT/$f" ] || continue
    printf '\n## %s\n\n%s\n' "$f" "${EXPECTED_TEXT[$f]}" >>"$e"
  done
  if [ ${#SKIPPED[@]} -gt 0 ]; then
    printf '\n## Not produced\n\n' >>"$e"
    printf -- '* %s\n' "${SKIPPED[@]}" >>"$e"
  fi
}

declare -A EXPECTED_TEXT=() EXPECTED_LOC=() EXPECTED_PREFIX=()
EXPECTED_ORDER=()
describe() { # FILE PREFIX MODE TEXT
  EXPECTED_ORDER+=("$1")
  EXPECTED_PREFIX[$1]=$2
  case $3 in
    noloc) EXPECTED_LOC[$1]="no (no such field)" ;;
    hap) EXPECTED_LOC[$1]="yes, on lines 1-10 (line 5 cut)" ;;
    json) EXPECTED_LOC[$1]="yes, on lines 1-3 and 5-7 (no Location key on the others)" ;;
    *) EXPECTED_LOC[$1]="yes, on lines 1-10" ;;
  esac
  EXPECTED_TEXT[$1]="$4

$(expected_flip_sessions "$2" "$3")"
}

describe_all() {
  describe nginx-main-location.log ngx loc "nginx $(pkg_version nginx): nginx.org's stock \`main\` format plus \`\"\$sent_http_location\"\`;
\`\$http_x_forwarded_for\` is \`\"-\"\` (no proxy in front of nginx). An empty Location is \`\"-\"\`."
  describe nginx-combined.log ngx noloc "nginx: the same requests as nginx-main-location.log in the built-in \`combined\`
format. No Location field: every session without a 4xx/5xx is unobservable."
  describe apache-flip.log apa loc "apache2 $(pkg_version apache2):
\`LogFormat \"%h %l %u %t \\\"%r\\\" %>s %O \\\"%{Referer}i\\\" \\\"%{User-Agent}i\\\" %D \\\"%{Location}o\\\"\" flip\`.
Between the User-Agent and the Location is \`%D\`, the time taken in microseconds (unquoted). An empty
Location is \`\"-\"\`."
  describe apache-vhost-combined.log apa noloc "apache2: the same requests as apache-flip.log in Debian's \`vhost_combined\`:
\`%v:%p\` (\`localhost:$APACHE_PORT\`) before the combined fields. No Location field."
  describe caddy.log cdy json "caddy $(pkg_version caddy), \`log { output file …; format json }\`: one JSON object per line
(\`ts\` in Unix seconds with a fraction, \`request.uri\`, \`request.headers\`, \`status\`,
\`resp_headers.Location\` as a list of one string; the 500 is logged at \`\"level\":\"error\"\`). Lines 4
and 8-10 have no \`Location\` key: caddy logs only the headers that were sent."
  describe haproxy-raw.log hap hap "haproxy $(pkg_version haproxy): \`option httplog\` on \`log stdout format raw local0\`,
with \`capture request header Host len 64\` and \`capture response header Location len 2048\`. The captures
come as \`{Host} {Location}\` BEFORE the quoted request line; an empty Location is \`{}\`.
Line 5 (the long state) is cut at HAProxy's default 1024-byte log line (1023 bytes and the newline): it
ends inside the captured Location, after the complete code \`c-hap-long-a…a\` and partway through
\`&state=hap-long-a…\`, so the quoted request line (method, target, state) is missing. A reader should
count it as one truncated/malformed line and form no session from it; taking its Location as a return
would give a cut state (a false \`unknown-state\` or \`state-mismatch\`)."
  describe haproxy-syslog.log hap hap "haproxy: the same requests as haproxy-raw.log as rfc3164 syslog over UDP
(\`log 127.0.0.1:$SYSLOG_PORT format rfc3164 local0\`), one datagram per line as received:
\`<134>Mon DD HH:MM:SS HOST haproxy[PID]: \` then the same text as in haproxy-raw.log (the stop notice at
\`<132>\`, warning). Line 5 is cut at 1024 bytes, syslog header included, so its state is cut even
shorter than in haproxy-raw.log."
  describe lighttpd-default.log lgd noloc "lighttpd $(pkg_version lighttpd): mod_accesslog's default format
\`%h %V %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\"\`: the Host (\`127.0.0.1:$LIGHTTPD_PORT\`) is the 2nd
field, where combined has \`-\`. No Location field."
  describe lighttpd-location.log lgl loc "lighttpd: another socket of the same server, with
\`accesslog.format = \"%h %V %u %t \\\"%r\\\" %>s %b \\\"%{Referer}i\\\" \\\"%{User-Agent}i\\\" \\\"%{Location}o\\\"\"\`
(lighttpd has one access log per condition, so these are other requests than lighttpd-default.log's,
with their own prefix). An empty Location is \`\"-\"\`."
  describe h2o-default.log h2o noloc "h2o $(pkg_version h2o): the default access-log format
\`%h %l %u %t \"%r\" %s %b \"%{Referer}i\" \"%{User-agent}i\"\` (combined). No Location field."
  describe h2o-location.log h2o loc "h2o: the same requests as h2o-default.log (a host-level access-log beside
the global one), with \`format: '%h %l %u %t \"%r\" %s %b \"%{Referer}i\" \"%{User-agent}i\" \"%{location}o\"'\`.
An empty Location is \`\"-\"\`."
}

pkg_version() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || echo '(unknown)'; }

write_source() {
  local s="$OUT/SOURCE.md"
  {
    cat <<EOF
# Where these logs come from

Real servers from Debian's archive, run on 127.0.0.1 by
\`Tools/real-servers.sh\`, each as a reverse proxy in front of a python3
OAuth stub; the requests are sent with curl. See EXPECTED.md for what
each file holds.

Regenerate (Debian, as root; installs what is missing; a few seconds
once installed):

    bash Tools/real-servers.sh DIR
    # the fixtures: each log gzip'd, EXPECTED.md and SOURCE.md plain
    for f in DIR/*.log; do gzip -n -9 -c "\$f" > Tests/FlipAuditTests/Fixtures/servers/\$(basename "\$f").gz; done
    cp DIR/EXPECTED.md DIR/SOURCE.md Tests/FlipAuditTests/Fixtures/servers/

Times, pids, client ports and latencies differ from run to run; the
requests, statuses, Locations and line counts do not. In the log
formats below, LOGDIR is the script's temporary log directory.

## Package versions (\`dpkg-query -W\`)

\`\`\`
EOF
    dpkg-query -W nginx nginx-common apache2 apache2-bin caddy haproxy lighttpd h2o curl python3 2>/dev/null || true
    echo "(OS: $(. /etc/os-release && echo "$PRETTY_NAME"))"
    cat <<'EOF'
```

## Log formats, as configured

```
EOF
    # The log lines of the configs the script ran (one per log).
    grep -h -E 'log_format|access_log' "$WORK/nginx/nginx.conf" 2>/dev/null | sed 's/^ *//; s/^/nginx:    /'
    grep -h -E '^(LogFormat|CustomLog)' "$WORK/apache/apache2.conf" 2>/dev/null | sed 's/^/apache2:  /'
    awk '/log \{/,/\}/' "$WORK/caddy/Caddyfile" 2>/dev/null | sed 's/^\t*//; s/^/caddy:    /'
    grep -h -E 'option httplog|log |capture' "$WORK/haproxy/haproxy.cfg" 2>/dev/null | sed 's/^ *//; s/^/haproxy:  /'
    grep -h -E 'accesslog|SERVER' "$WORK/lighttpd/lighttpd.conf" 2>/dev/null | sed 's/^ *//; s/^/lighttpd: /'
    [ -f "$WORK/h2o/h2o.conf" ] && grep -h -E 'access-log|path:|format:' "$WORK/h2o/h2o.conf" | sed 's/^ *//; s/^/h2o:      /'
    echo '```'
    echo
    echo 'Servers started (ports from FLIP_BASE_PORT, default 18400):'
    echo
    echo "* OAuth stub: python3 http.server on 127.0.0.1:$STUB_PORT"
    echo "* nginx 127.0.0.1:$NGINX_PORT, apache2 :$APACHE_PORT (-X, prefork), caddy :$CADDY_PORT,"
    echo "  haproxy :$HAPROXY_PORT (-db, syslog to udp :$SYSLOG_PORT), lighttpd :$LIGHTTPD_PORT and :$LIGHTTPD_LOC_PORT (-D),"
    echo "  h2o :$H2O_PORT"
    if [ ${#SKIPPED[@]} -gt 0 ]; then
      printf '\n## Not produced\n\n'
      printf -- '* %s\n' "${SKIPPED[@]}"
    fi
  } | sed "s|$LOGS/|LOGDIR/|g" >"$s"
}

# ---------------------------------------------------------------------------
# Main

main() {
  [ "$(uname -s)" = Linux ] || die "Linux (Debian) only"
  ensure_packages
  { command -v python3 && command -v curl; } >/dev/null || die "python3 and curl are needed"
  if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
    log "note: $OUT is not empty; files of the same names are replaced"
  fi
  mkdir -p "$OUT"

  local port
  for port in "$STUB_PORT" "$NGINX_PORT" "$APACHE_PORT" "$CADDY_PORT" "$HAPROXY_PORT" \
    "$LIGHTTPD_PORT" "$LIGHTTPD_LOC_PORT" "$H2O_PORT"; do
    require_free tcp "$port"
  done
  require_free udp "$SYSLOG_PORT"

  start_stub
  log "OAuth stub on 127.0.0.1:$STUB_PORT"

  # The five required fronts: any failure to start fails the run.
  start_nginx || die "nginx did not start"
  start_apache || die "apache2 did not start"
  start_caddy || die "caddy did not start"
  start_haproxy || die "haproxy did not start"
  start_lighttpd || die "lighttpd did not start"
  local h2o_ok=1
  if ! command -v h2o >/dev/null; then
    h2o_ok=0
    SKIPPED+=("h2o: not installed (apt-get install h2o failed); h2o-default.log and h2o-location.log skipped")
  elif ! start_h2o; then
    h2o_ok=0
    SKIPPED+=("h2o: installed but did not start on this machine; h2o-default.log and h2o-location.log skipped")
  fi
  [ $h2o_ok = 1 ] || log "SKIPPING h2o: ${SKIPPED[-1]}"

  log "sending the flows"
  send_flows ngx "$NGINX_PORT" "$LOGS/nginx-main-location.log" "$LOGS/nginx-combined.log"
  send_flows apa "$APACHE_PORT" "$LOGS/apache-flip.log" "$LOGS/apache-vhost-combined.log"
  send_flows cdy "$CADDY_PORT" "$LOGS/caddy.log"
  send_flows hap "$HAPROXY_PORT" "$LOGS/haproxy-raw.log" "$LOGS/haproxy-syslog.log"
  send_flows lgd "$LIGHTTPD_PORT" # buffered, one event loop: no wait
  send_flows lgl "$LIGHTTPD_LOC_PORT"
  [ $h2o_ok = 1 ] && send_flows h2o "$H2O_PORT" "$LOGS/h2o-default.log" "$LOGS/h2o-location.log"

  # Graceful stops, each waited for: only then are the logs complete.
  log "stopping the servers"
  stop_server nginx
  stop_server apache
  stop_server caddy
  stop_haproxy
  stop_server lighttpd
  [ $h2o_ok = 1 ] && stop_server h2o
  stop_server stub

  check_log nginx-main-location.log 6
  check_log nginx-combined.log 0
  check_log apache-flip.log 6
  check_log apache-vhost-combined.log 0
  check_log caddy.log 6
  # HAProxy also logs its soft stop ("Proxy flip stopped ..."): one more line
  check_log haproxy-raw.log 6 $((LINES_PER_LOG + 1))
  check_log haproxy-syslog.log 6 $((LINES_PER_LOG + 1))
  check_haproxy_cut haproxy-raw.log
  check_haproxy_cut haproxy-syslog.log
  check_log lighttpd-default.log 0
  check_log lighttpd-location.log 6
  local files=(nginx-main-location.log nginx-combined.log apache-flip.log apache-vhost-combined.log
    caddy.log haproxy-raw.log haproxy-syslog.log lighttpd-default.log lighttpd-location.log)
  RAN=(nginx apache2 caddy haproxy lighttpd)
  if [ $h2o_ok = 1 ]; then
    check_log h2o-default.log 0
    check_log h2o-location.log 6
    files+=(h2o-default.log h2o-location.log)
    RAN+=(h2o)
  fi

  copy_logs "${files[@]}"
  describe_all
  write_expected
  write_source

  log "servers run: ${RAN[*]}"
  [ ${#SKIPPED[@]} -eq 0 ] || log "skipped: ${SKIPPED[*]}"
  log "logs written to: $OUT"
  echo "$OUT"
}

# FLIP_TIERS=1: a deployment two tiers deep instead. HAProxy and Caddy in
# front of Apache, Apache in front of the stub, every one logging: the
# same flows (a-f, and a double tap of a) through HAProxy and through
# Caddy, each request logged by its front and by Apache. OUTDIR gets
# haproxy-raw.log, caddy.log and apache-flip.log (Tests/servers/tiers.sh).
main_tiers() {
  [ "$(uname -s)" = Linux ] || die "Linux (Debian) only"
  ensure_packages
  mkdir -p "$OUT"
  local port
  for port in "$STUB_PORT" "$APACHE_PORT" "$CADDY_PORT" "$HAPROXY_PORT"; do require_free tcp "$port"; done
  require_free udp "$SYSLOG_PORT"
  start_stub
  # One process (-X) serves one connection at a time: a front's idle
  # keep-alive connection would hold the next request for 5 s, which no
  # multi-process backend does.
  APACHE_EXTRA="KeepAlive Off"
  start_apache || die "apache2 did not start"
  UPSTREAM_PORT=$APACHE_PORT
  start_caddy || die "caddy did not start"
  start_haproxy || die "haproxy did not start"
  log "sending the flows through haproxy and caddy to apache"
  local authz="/oauth/authorize?response_type=code&client_id=G123"
  send_flows hap "$HAPROXY_PORT" "$LOGS/haproxy-raw.log"
  # A double tap: the code flow's request once more, through the front.
  request "$HAPROXY_PORT" 302 "$FLIP_UA" "$authz&redirect_uri=$GOOGLE_REDIRECT&state=hap-code&scope=a+b" "$LOGS/haproxy-raw.log"
  send_flows cdy "$CADDY_PORT" "$LOGS/caddy.log"
  log "stopping the servers"
  stop_haproxy
  stop_server caddy
  stop_server apache
  stop_server stub
  copy_logs haproxy-raw.log caddy.log apache-flip.log
  log "logs written to: $OUT"
  echo "$OUT"
}

if [ "${FLIP_TIERS:-0}" = 1 ]; then main_tiers "$@"; else main "$@"; fi
