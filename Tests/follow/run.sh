#!/usr/bin/env bash
# End-to-end test of `flipaudit follow` with real parts, all on loopback:
# Debian's nginx answers App Flip authorize requests itself (no backend),
# a python client sends a few hundred requests a second, Debian's logrotate
# rotates the access log every few seconds (`create` + USR1, then
# `copytruncate`), the follower is SIGKILLed at seeded random moments and
# restarted on its checkpoint, and a real Prometheus scrapes its /metrics.
#
#   bash Tests/follow/run.sh path/to/flipaudit [--short]
#
# --short (CI): both modes, at least two kills and one double rotation
# while stopped and crash-looping (five starts each killed within 50 ms
# after each rotation) each, about 90 s. The
# default runs several minutes with many kills. FOLLOW_SEED (default 1)
# picks the traffic and the kill moments; FOLLOW_RATE (default 200) the
# requests a second; FOLLOW_MODES (default "create copytruncate") the
# logrotate modes run; FOLLOW_KEEP=1 keeps the work directory.
#
# The oracle is the batch audit (same binary, same audit options) of every
# rotated file, oldest first: every batch finding must be in the follower's
# NDJSON exactly once (compared by kind, state and time), none extra, no id
# twice, its source the file's name when the line was read (access.log, or
# access.log.1 once renamed, docs/follow.md) with the batch's line number.
# nginx also
# writes every line to a second, never-rotated log (full.log): in `create`
# mode its audit must equal the rotated files' one (nothing lost by the
# rotation itself); in `copytruncate` mode it is the whole truth, since lines
# written between logrotate's copy and its truncation are in no rotated file
# (the follower may have read them: such a finding, not in the rotated
# files, must be in full.log's audit). Misses are allowed only in
# copytruncate mode and only when the follower said "possible gap".
#
# The end of the input. The batch decides every session still open when its
# input ends (a 500 answered within --session-timeout of the last record is
# written as missing-error-return at once), while the follower, stopped by
# SIGTERM, carries those sessions in its checkpoint and may hold their
# findings until they close. So findings whose session may still be open at
# the end - time >= last flip record - timeout - 1 s (log times have whole
# seconds; a session closes when an event comes MORE than timeout after it)
# - are not required of the follower; for them only "nothing extra" holds
# (a follower finding there must still be a batch finding). Every session of
# this traffic has exactly one record, so a finding's time is its session's
# last event. To leave that band empty, the traffic ends with timeout + 3 s
# of good flips only: the follower's own log clock must then close (and
# report) every session the batch closes at its end.
#
# No verdict depends on timing: every wait is for a condition, with a
# generous deadline. Before each rotation the harness waits until the
# follower has read the previous rotated file and let it go, and committed
# since (flipaudit_follow_files 1, then a new checkpoint), so at most one
# rotation ever lies between the follower's checkpoint and the live file -
# with delaycompress that rotated file is still plain. This is what a
# follower can promise; a second rotation while it is stopped would
# compress the file it still needs.
set -euo pipefail
export LC_ALL=C PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
cd "$(dirname "$0")/../.."
BIN=$(realpath "${1:?usage: run.sh path/to/flipaudit [--short]}")
SHORT=0; [ "${2:-}" = --short ] && SHORT=1
SEED=${FOLLOW_SEED:-1}; RATE=${FOLLOW_RATE:-200}
if [ $SHORT = 1 ]; then DURATION=20; MIN_KILLS=2; KILL_PCT=40; TIMEOUT=5
else DURATION=120; MIN_KILLS=8; KILL_PCT=45; TIMEOUT=15; fi
AUDIT=(--client-id G123 --session-timeout "$TIMEOUT" --reuse-window 1h)

WORK=$(mktemp -d /tmp/flip-follow.XXXXXX)
declare -A PIDS=()   # name -> pid of every background process we started
FPID=""              # the follower now running
log() { printf '[follow] %s\n' "$*" >&2; }
die() {
  log "FAIL: $*"
  if [ -n "$FPID" ]; then # what the follower says of itself then
    curl -s -m 5 "http://127.0.0.1:$FPORT/metrics" | grep '^flipaudit_follow' | sed 's/^/    /' >&2 || true
    ls -l "$LOGS" | sed 's/^/    /' >&2
    find "/proc/$FPID/fd" -lname "$LOGS/*" -printf '    fd %f -> %l\n' >&2 2>/dev/null || true
  fi
  exit 1
}
alive() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1; s=${s##*) }; [ "${s%% *}" != Z ]; }
cleanup() {
  local rc=$? n
  trap - EXIT; set +e
  [ -n "$FPID" ] && PIDS[follower]=$FPID
  for n in "${!PIDS[@]}"; do alive "${PIDS[$n]}" && kill -TERM "${PIDS[$n]}" 2>/dev/null; done
  sleep 0.5
  for n in "${!PIDS[@]}"; do alive "${PIDS[$n]}" && kill -KILL "${PIDS[$n]}" 2>/dev/null; wait "${PIDS[$n]}" 2>/dev/null; done
  if [ $rc -ne 0 ] || [ "${FOLLOW_KEEP:-0}" = 1 ]; then log "work directory kept: $WORK"; else rm -rf "$WORK"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT; trap 'exit 143' TERM

# Packages: install what is missing from Debian's archive.
need=()
for c in nginx:nginx logrotate:logrotate prometheus:prometheus promtool:prometheus curl:curl; do
  command -v "${c%%:*}" >/dev/null || need+=("${c#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2 ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2; }
fi
"$BIN" follow --help >/dev/null 2>&1 || die "$BIN has no 'follow' subcommand"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# listening PORT: a LISTEN socket on PORT (read from /proc: no probe request in any log)
listening() { awk -v p=":$(printf '%04X' "$1")" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }' /proc/net/tcp; }
# wait_for SECONDS WHAT CMD...: poll CMD until it succeeds; fail after SECONDS, or at once if the follower died
wait_for() {
  local secs=$1 what=$2; local end=$((SECONDS + secs)); shift 2
  until "$@"; do
    if [ -n "$FPID" ] && ! alive "$FPID"; then
      tail -n 20 "$D/follower.stderr" >&2 || true; die "the follower died while waiting for $what"
    fi
    [ $SECONDS -lt $end ] || die "timed out after $secs s waiting for $what"
    sleep 0.2
  done
}
rsleep() { local ms=$((RANDOM % $1)); sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"; } # 0..$1 ms, seeded
FPORT=$(free_port); PPORT=$(free_port)
RANDOM=$SEED

# ---- the traffic client: keep-alive, paced, seeded --------------------------------
cat >"$WORK/traffic.py" <<'PY'
import collections, http.client, random, signal, sys, time
port, seed, rate, tail = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
rnd, end = random.Random(seed), []
# SIGTERM: TAIL more seconds of good flips only (no finding), then exit
signal.signal(signal.SIGTERM, lambda *_: end or end.append(time.monotonic() + tail))
GOOGLE = "https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA"
LOOKALIKE = "https%3A%2F%2Foauth-redirect.googleusercontent.com.evil.example%2Fa%2Fcom.google.OPA"
returned = collections.deque(maxlen=1000)   # states whose flip came back: reusing one is state-reuse
conn, sent, next_t = None, 0, time.monotonic()
while not end or time.monotonic() < end[0]:
    r, state, client, redirect, extra, ua = rnd.random(), "%022x" % rnd.getrandbits(88), "G123", GOOGLE, "", "GoogleApp/1.0"
    if end: r = 0.5                                                    # the quiet tail
    if r < 0.04 and returned: state = rnd.choice(returned)           # state-reuse
    elif r < 0.09: redirect = LOOKALIKE                                # redirect-not-allowlisted, code-to-unlisted-redirect
    elif r < 0.14: extra = "&fail=1"                                   # 500: missing-error-return
    elif r < 0.17: client = "X9"                                       # client-id-mismatch, code-despite-client-mismatch
    path = f"/oauth/authorize?response_type=code&client_id={client}&redirect_uri={redirect}&state={state}&scope=a+b{extra}"
    if 0.17 <= r < 0.20: path, ua = rnd.choice(["/", "/static/app.css"]), "Mozilla/5.0"   # not App Flip
    try:
        conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", path, headers={"User-Agent": ua})
        resp = conn.getresponse(); resp.read(); sent += 1
        if resp.status == 302 and redirect == GOOGLE and client == "G123": returned.append(state)
    except (OSError, http.client.HTTPException):
        conn = None; time.sleep(0.05)
    next_t = max(next_t + 1 / rate, time.monotonic() - 1)
    time.sleep(max(0.0, next_t - time.monotonic()))
print(sent)
PY

# ---- the verdict: batch oracle vs the follower's NDJSON -------------------------
cat >"$WORK/check.py" <<'PY'
import collections, csv, datetime, json, re, sys
mode, rot_dir, full_dir, ndjson, followed, full_log, stderr_file, timeout, kills, rots = sys.argv[1:]
timeout = int(timeout)
def ms(iso): return round(datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)
def batch(d):   # (kind, state, time ms) -> [rows]
    out = collections.defaultdict(list)
    for r in csv.DictReader(open(d + "/findings.csv", newline="")):
        out[(r["kind"], r["state"], ms(r["time"]))].append(r)
    return out
fails, bad = [], collections.defaultdict(list)   # bad: per-line problem -> the NDJSON lines that have it
def fail(msg, items=()):
    fails.append(msg); [fails.append("    " + str(i)) for i in list(items)[:10]]
# The end: the newest flip record of the log (nginx time_local, whole seconds).
t_re = re.compile(r"\[(\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4})\]")
last = max(datetime.datetime.strptime(t_re.search(l).group(1), "%d/%b/%Y:%H:%M:%S %z").timestamp()
           for l in open(full_log, errors="replace") if "/oauth/authorize" in l and t_re.search(l))
band = (last - timeout - 1) * 1000   # findings at or after this: their session may still be open at the end
# The follower's findings: every line one JSON object, keys and formats as in the contract.
fol, ids = collections.defaultdict(list), collections.Counter()
keys = {"id", "time", "severity", "kind", "state", "client_id", "redirect_uri", "detail", "source"}
# source: the name the file had when the line was read - access.log, or access.log.1 for a line read
# after the rename or from copytruncate's copy (docs/follow.md) - never a later name such as .2.gz
src_re = re.compile(re.escape(followed) + r"(\.1)?:(\d+)$")
for n, line in enumerate(open(ndjson, errors="replace"), 1):
    try: o = json.loads(line)
    except ValueError: bad["not a JSON object"].append(f"{n}: {line[:100]!r}"); continue
    if not keys <= o.keys(): bad[f"keys {sorted(keys - o.keys())} missing"].append(n); continue
    if not re.fullmatch(r"[0-9a-f]{16}", o["id"]): bad["id not 16 lowercase hex"].append(f"{n}: {o['id']!r}")
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", o["time"]): bad["time not like 2026-11-21T22:01:58.000Z"].append(f"{n}: {o['time']!r}")
    if not src_re.match(o["source"]): bad[f"source not {followed}[.1]:LINE"].append(f"{n}: {o['source']!r}")
    ids[o["id"]] += 1
    fol[(o["kind"], o["state"], ms(o["time"]))].append(o)
for what, lines in bad.items(): fail(f"{len(lines)} lines of {ndjson}: {what}", lines)
dup_ids = [i for i, c in ids.items() if c > 1]
if dup_ids: fail(f"{len(dup_ids)} ids appear more than once in {ndjson}", dup_ids)
rot, full = batch(rot_dir), batch(full_dir)
def diff(a, b, in_band):   # keys (with multiplicity) in a more often than in b
    return [(k, len(a[k]) - len(b.get(k, []))) for k in sorted(a) if (k[2] >= band) == in_band and len(a[k]) > len(b.get(k, []))]
def show(d, rows):
    return [f"{k[0]} state={k[1]} time={datetime.datetime.fromtimestamp(k[2] / 1000, datetime.timezone.utc):%H:%M:%S} x{c} "
            + " ".join(r.get("source", "") for r in rows.get(k, []))[:200] for k, c in d]
gaps = [l.rstrip() for l in open(stderr_file, errors="replace") if "possible gap" in l]
checked = sum(len(v) for k, v in rot.items() if k[2] < band)
missed, extra = diff(rot, fol, False), diff(fol, rot, False)
if mode == "create":
    if diff(rot, full, False) or diff(full, rot, False): fail("harness: the rotated files and full.log audit differently (the rotation lost lines)")
    if gaps: fail(f"{len(gaps)} 'possible gap' lines in create mode, where nothing may be lost", gaps)
    if missed: fail(f"{sum(c for _, c in missed)} batch findings missing from the follower", show(missed, rot))
    if extra: fail(f"{sum(c for _, c in extra)} follower findings extra or repeated", show(extra, fol))
else:
    true_extra = diff(fol, full, False)       # in no audit at all: invented or repeated
    if true_extra: fail(f"{sum(c for _, c in true_extra)} follower findings extra or repeated (not in full.log's audit either)", show(true_extra, fol))
    lost = diff(full, fol, False)
    if (missed or lost) and not gaps:
        fail(f"{sum(c for _, c in missed)} rotated-file and {sum(c for _, c in lost)} full.log findings missing, with no 'possible gap' reported",
             show(missed, rot) + show(lost, full))
# Inside the end band only "nothing extra" holds.
band_extra = diff(fol, full, True)
if band_extra: fail(f"{sum(c for _, c in band_extra)} follower findings near the end that the batch does not have", show(band_extra, fol))
# Matched findings: same severity, and the follower's line number is the batch's (the rotated file keeps the numbering).
for k, rows in rot.items():
    f = fol.get(k, [])
    if k[2] < band and len(f) == len(rows):
        if sorted(r["source"].rsplit(":", 1)[1] for r in rows) != sorted(o["source"].rsplit(":", 1)[1] for o in f):
            fail(f"line numbers differ for {k[0]} {k[1]}: batch {[r['source'] for r in rows]} follower {[o['source'] for o in f]}")
        if {r["severity"] for r in rows} != {o["severity"] for o in f}: fail(f"severity differs for {k}")
in_band = sum(len(v) for k, v in rot.items() if k[2] >= band)
print(f"  {mode}: batch {checked} findings checked + {in_band} left open by the end of the input "
      f"(kinds: {dict(collections.Counter(k[0] for k in rot for _ in rot[k]))})")
if mode == "copytruncate":
    print(f"  copytruncate: {len(gaps)} 'possible gap' reports; {sum(c for _, c in missed)} rotated-file findings and "
          f"{sum(c for _, c in diff(full, fol, False))} full.log findings missed; "
          f"{sum(c for _, c in extra)} follower findings on lines no rotated file kept")
    for g in gaps[:10]: print("    " + g)
if fails:
    print("\n".join(f"FAIL follow ({mode}): " + l if not l.startswith("    ") else l for l in fails)); sys.exit(1)
ok = "all exactly once" if not missed else f"all exactly once but {sum(c for _, c in missed)} lost in reported gaps"
print(f"follow ({mode}): {checked} batch findings, {ok}, {kills} kills, {rots} rotations")
PY

# ---- Prometheus: scrapes the follower (same port in both modes) every second -------
mkdir -p "$WORK/prom"
cat >"$WORK/prom/prometheus.yml" <<YML
global: { scrape_interval: 1s, scrape_timeout: 1s }
scrape_configs:
  - job_name: flipaudit
    static_configs: [ { targets: ["127.0.0.1:$FPORT"] } ]
YML
prometheus --config.file="$WORK/prom/prometheus.yml" --storage.tsdb.path="$WORK/prom/data" \
  --web.listen-address="127.0.0.1:$PPORT" >"$WORK/prom/out" 2>&1 </dev/null &
PIDS[prometheus]=$!
prom_ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PPORT/-/ready" || true)" = 200 ]; }
wait_for 120 "Prometheus ready on :$PPORT" prom_ready
# prom_value EXPR: the first sample of an instant query through the HTTP API ("" when none)
prom_value() {
  curl -s -m 5 -G --data-urlencode "query=$1" "http://127.0.0.1:$PPORT/api/v1/query" | python3 -c '
import json, sys
try: r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")
except Exception: print("")' || true
}
prom_scraped() {
  [ "$(prom_value 'up{job="flipaudit"}')" = 1 ] &&
    awk -v v="$(prom_value 'flipaudit_follow_lines_read_total{job="flipaudit"}')" 'BEGIN { exit !(v + 0 > 0) }'
}

# ---- the follower and what it tells --------------------------------------------------
# metric NAME: sum of NAME's series in the follower's /metrics ("" when unreachable or absent)
metric() {
  curl -s -m 5 "http://127.0.0.1:$FPORT/metrics" |
    awk -v n="$1" '$1 == n || index($1, n "{") == 1 { s += $2; f = 1 } END { if (f) printf "%.0f\n", s }' || true
}
healthy() { [ "$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$FPORT/healthz" || true)" = 200 ]; }
start_follower() {
  "$BIN" follow --from-start --checkpoint "$D/checkpoint" --findings "$D/findings.ndjson" --commit-interval 1 \
    --listen "127.0.0.1:$FPORT" "${AUDIT[@]}" "$LOGS/access.log" >>"$D/follower.stdout" 2>>"$D/follower.stderr" </dev/null &
  FPID=$!
  echo "--- start $FPID" >>"$D/follower.stderr"
  wait_for 120 "/healthz 200 after the follower's start" healthy
}
kill_follower() { kill -KILL "$FPID"; wait "$FPID" 2>/dev/null || true; FPID=""; KILLS=$((KILLS + 1)); }
# crash_loop: five starts, each killed 0-50 ms in (before, during or after its first commit),
# as systemd's Restart=always restarts a follower that dies at once
crash_loop() {
  local i p
  for i in 1 2 3 4 5; do
    "$BIN" follow --from-start --checkpoint "$D/checkpoint" --findings "$D/findings.ndjson" --commit-interval 1 \
      --listen "127.0.0.1:$FPORT" "${AUDIT[@]}" "$LOGS/access.log" >>"$D/follower.stdout" 2>>"$D/follower.stderr" </dev/null &
    p=$!
    echo "--- start $p (crash loop)" >>"$D/follower.stderr"
    rsleep 50; kill -KILL "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true
    KILLS=$((KILLS + 1)); CRASHES=$((CRASHES + 1))
  done
}
# double: issue 67's loss. The follower stopped with its file read and committed (the traffic
# paused for that, so the file that goes to access.log.2.gz at the second rotation holds nothing
# unread: delaycompress compresses it), the log rotated, crash loops while the traffic goes on into
# the new file, rotated again: that file in the middle, now access.log.1, must be read whole.
double() {
  local s
  barrier
  kill -STOP "${PIDS[traffic]}"
  wait_for 60 "the follower to catch up (flipaudit_follow_bytes_unread 0)" caught_up
  s=$(cp_stamp); wait_for 60 "a commit after catching up" committed_since "$s"
  kill_follower; rotate
  kill -CONT "${PIDS[traffic]}"
  crash_loop; rsleep 1000; sleep 1
  rotate; crash_loop
  DOUBLES=$((DOUBLES + 1))
}
# A commit writes the snapshot anew or appends to its journal (docs/follow.md, "Commits").
cp_stamp() { stat -c '%i %.9Y %s' "$D/checkpoint" "$D/checkpoint.journal" 2>/dev/null || echo none; }
# committed_since STAMP: the checkpoint or its journal was written again
committed_since() { [ "$(cp_stamp)" != "$1" ]; }
# one_file: the follower holds the live file only: the last rotated one is read and let go
# (docs/follow.md: flipaudit_follow_files counts "rotated ones still being read")
one_file() { [ "$(metric flipaudit_follow_files)" = 1 ]; }
caught_up() { [ "$(metric flipaudit_follow_bytes_unread)" = 0 ]; }
# barrier: the follower has let the last rotated file go AND committed since (see the header)
barrier() {
  wait_for 90 "the follower to let the rotated file go (flipaudit_follow_files 1; docs/follow.md: it lets a rotated file go once read to its end; below: its files, metrics, descriptors)" one_file
  local s; s=$(cp_stamp)
  wait_for 120 "a checkpoint commit (--commit-interval 1)" committed_since "$s"
}
rotate() {
  logrotate -f -s "$D/logrotate.state" "$D/logrotate.conf" 2>>"$D/logrotate.err" || { cat "$D/logrotate.err" >&2; die "logrotate failed"; }
  ROTS=$((ROTS + 1))
}

# ---- one scenario: nginx + traffic + logrotate MODE + a follower killed at random -----
scenario() {
  MODE=$1 D="$WORK/$1" LOGS="$WORK/$1/logs" KILLS=0 ROTS=0 CRASHES=0 DOUBLES=0
  local port; port=$(free_port)
  mkdir -p "$LOGS" "$D/nginx/tmp"
  # nginx answers authorize itself: the redirect_uri comes URL-encoded (as Google sends it) and the
  # map decodes the https://HOST/a/BUNDLE shape into the Location; the code is nginx's $request_id.
  cat >"$D/nginx/nginx.conf" <<NGX
daemon off;                 # foreground: the pid we hold is the master's
$([ "$(id -u)" = 0 ] && echo 'user root;              # workers reopen the logs (USR1) in our 0700 directory')
worker_processes 1;         # one worker: lines are logged in time order
pid $D/nginx/nginx.pid;
error_log $D/nginx/error.log notice;
events { worker_connections 64; }
http {
    log_format flip '\$remote_addr - \$remote_user [\$time_local] "\$request" \$status \$body_bytes_sent "\$http_referer" "\$http_user_agent" "\$sent_http_location"';
    access_log $LOGS/access.log flip;   # followed and rotated
    access_log $D/full.log flip;        # never rotated: every line, for the oracle
    keepalive_requests 10000000;
    client_body_temp_path $D/nginx/tmp/body; proxy_temp_path $D/nginx/tmp/proxy;
    fastcgi_temp_path $D/nginx/tmp/fastcgi; uwsgi_temp_path $D/nginx/tmp/uwsgi; scgi_temp_path $D/nginx/tmp/scgi;
    map \$arg_redirect_uri \$flip_return {
        "~^https%3A%2F%2F(?<rhost>[^%/&]+)%2Fa%2F(?<rbundle>[^%/&]+)\$" "https://\$rhost/a/\$rbundle";
        default "";
    }
    server {
        listen 127.0.0.1:$port;
        location /oauth/authorize {
            if (\$arg_fail) { return 500; }
            if (\$flip_return = "") { return 400; }
            return 302 "\$flip_return?code=\$request_id&state=\$arg_state";
        }
        location / { return 200 "ok\n"; }
    }
}
NGX
  nginx -p "$D/nginx" -e "$D/nginx/error.log" -c "$D/nginx/nginx.conf" >"$D/nginx/out" 2>&1 </dev/null &
  PIDS[nginx]=$!
  wait_for 30 "nginx listening on :$port" listening "$port"
  # logrotate: delaycompress keeps access.log.1 plain; rotate is far above the rotations of a run
  if [ "$MODE" = create ]; then
    how="create
    postrotate
        kill -USR1 \$(cat $D/nginx/nginx.pid)
    endscript"
  else how="copytruncate"; fi
  printf '%s {\n    rotate 10000\n    compress\n    delaycompress\n    missingok\n    %s\n}\n' "$LOGS/access.log" "$how" >"$D/logrotate.conf"

  python3 "$WORK/traffic.py" "$port" "$((SEED * 7 + ${#MODE}))" "$RATE" "$((TIMEOUT + 3))" >"$D/traffic.out" 2>&1 </dev/null &
  PIDS[traffic]=$!
  wait_for 30 "the first access log lines" test -s "$LOGS/access.log"
  start_follower
  # SIGHUP: commit and go on
  local s; s=$(cp_stamp); kill -HUP "$FPID"
  wait_for 60 "a commit after SIGHUP" committed_since "$s"

  local end=$((SECONDS + DURATION)) kind m
  while [ $SECONDS -lt $end ] || [ $KILLS -lt $MIN_KILLS ] || [ $DOUBLES = 0 ]; do
    rsleep 3000; sleep 1
    if [ $((RANDOM % 100)) -ge $KILL_PCT ] && [ $SECONDS -lt $end ]; then barrier; rotate; continue; fi
    kind=$((RANDOM % 4)); [ $KILLS = 0 ] && kind=0
    [ $KILLS -gt 0 ] && [ $DOUBLES = 0 ] && kind=4   # one in every run, --short too
    case $kind in
      0) barrier; rsleep 1000; kill_follower; rotate ;;  # stopped across a rotation
      1) rsleep 1500; kill_follower ;;                   # anywhere
      2) barrier; rotate; rsleep 300; kill_follower ;;   # probably still reading access.log.1
      3) barrier; rsleep 1000; kill_follower; rotate; crash_loop ;;  # Restart=always across a rotation
      4) double ;;
    esac
    rsleep 1000
    start_follower
  done

  # The end: traffic stops (after its quiet tail), the follower catches up, Prometheus saw it, SIGTERM exits 0.
  kill -TERM "${PIDS[traffic]}"; wait "${PIDS[traffic]}" || die "the traffic client failed: $(cat "$D/traffic.out")"
  unset "PIDS[traffic]"
  wait_for 600 "flipaudit_follow_bytes_unread 0 after the traffic stopped" caught_up
  s=$(cp_stamp); wait_for 60 "a commit after catching up" committed_since "$s"
  wait_for 120 "Prometheus to scrape the follower (up == 1, flipaudit_follow_lines_read_total > 0)" prom_scraped
  curl -s -m 10 "http://127.0.0.1:$FPORT/metrics" >"$D/metrics.txt"
  promtool check metrics <"$D/metrics.txt" >"$D/promtool.out" 2>&1 || { cat "$D/promtool.out" >&2; die "promtool check metrics rejects /metrics"; }
  for m in flipaudit_follow_lines_read_total flipaudit_follow_bytes_read_total flipaudit_follow_bytes_unread \
    flipaudit_follow_files flipaudit_follow_rotations_total flipaudit_follow_gap_bytes_total \
    flipaudit_follow_newest_record_age_seconds flipaudit_findings_total; do
    grep -q "^$m[{ ]" "$D/metrics.txt" || die "/metrics has no $m"
  done
  kill -TERM "$FPID"
  local pid=$FPID; FPID=""
  wait_for 60 "the follower to exit after SIGTERM" eval '! alive '"$pid"
  local rc=0; wait "$pid" || rc=$?
  [ $rc = 0 ] || { tail -n 20 "$D/follower.stderr" >&2; die "follow exited $rc after SIGTERM, not 0"; }
  kill -QUIT "${PIDS[nginx]}"; wait "${PIDS[nginx]}" || true; unset "PIDS[nginx]"

  # The oracle: the rotated files oldest first (access.log.N.gz ... access.log.1, access.log), and full.log.
  local files=() n
  for ((n = ROTS + 1; n >= 1; n--)); do
    for f in "$LOGS/access.log.$n.gz" "$LOGS/access.log.$n"; do [ -e "$f" ] && files+=("$f"); done
  done
  files+=("$LOGS/access.log")
  "$BIN" "${files[@]}" "${AUDIT[@]}" --csv "$D/batch-rotated" --quiet || die "batch run over the rotated files failed"
  "$BIN" "$D/full.log" "${AUDIT[@]}" --csv "$D/batch-full" --quiet || die "batch run over full.log failed"
  log "$MODE: $(wc -l <"$D/full.log") lines, ${#files[@]} files, $(grep -c . "$D/findings.ndjson" || true) follower findings, $(grep -c -- '^--- start' "$D/follower.stderr") starts ($CRASHES killed within 50 ms), $DOUBLES double rotations while stopped"
  python3 "$WORK/check.py" "$MODE" "$D/batch-rotated" "$D/batch-full" "$D/findings.ndjson" "$LOGS/access.log" \
    "$D/full.log" "$D/follower.stderr" "$TIMEOUT" "$KILLS" "$ROTS" || die "follow ($MODE): the follower's findings are not the batch's (above)"
}

for mode in ${FOLLOW_MODES:-create copytruncate}; do scenario "$mode"; done
log "Prometheus scraped the follower in every mode; promtool accepted its /metrics"
