#!/usr/bin/env bash
# The nightly chain against an unlucky operator (issue 33,
# docs/contract.md §8-§9): the built binary, real processes, real gzip'd
# sample logs. One check per row of the issue's table that concerns one
# process: a stray future line, two runs at once, the end of a night fed
# again, a stale flip line, a signal, a big checkpoint, a forged one.
# Last line: "N passed, N failed"; non-zero exit on a failure.
#
#   bash Tests/hostile/chain.sh [path/to/flipaudit]   (default .build/debug/flipaudit)
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
bin=${1:-${FLIPAUDIT:-$root/.build/debug/flipaudit}}
[ -x "$bin" ] || { echo "no binary at $bin (swift build first)"; echo "0 passed, 1 failed"; exit 1; }
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/flipaudit-chain.XXXXXX")
children=()
cleanup() {
  for p in "${children[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
. "$root/Tests/tally.sh"

jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }
# same_rows DIR1 DIR2 NAME1 NAME2: the CSV rows of two runs are equal once
# the first run's input folder NAME1 is named NAME2 in the source column.
same_rows() {
  for f in sessions findings; do
    sed "s#,$3/#,$4/#" "$1/$f.csv" | cmp -s - "$2/$f.csv" || return 1
  done
}
crashed() { grep -qE "Fatal error|Stack dump|Illegal instruction|backtrace" "$1"; }
# last_250s LOG OUT MARK: the lines of a combined LOG (plain or gzip'd)
# within 250 s of its newest record into OUT, and into MARK that newest
# line with its request made a /healthz (no App Flip request in it).
last_250s() {
  python3 - "$@" <<'EOF'
import gzip, sys, datetime, re
opener = gzip.open if open(sys.argv[1], "rb").read(2) == b"\x1f\x8b" else open
lines = opener(sys.argv[1], "rt").read().splitlines(True)
stamp = re.compile(r"\[(\d\d/\w\w\w/\d{4}:\d\d:\d\d:\d\d [+-]\d{4})\]")
def t(l):
    return datetime.datetime.strptime(stamp.search(l).group(1), "%d/%b/%Y:%H:%M:%S %z")
ok = [l for l in lines if stamp.search(l)]
end = max(t(l) for l in ok)
open(sys.argv[2], "w").writelines(l for l in ok if (end - t(l)).total_seconds() <= 250)
last = max(ok, key=t)
open(sys.argv[3], "w").write(re.sub(r'"(GET|POST) [^"]*"', '"GET /healthz HTTP/1.1"', last, count=1))
EOF
}

# Nights: SampleLogs (night 1), SampleLogs-next (night 2), and night 3:
# night 2's combined log one day later.
mkdir n1 n2 n3
cp "$root"/SampleLogs/*.gz n1/
gzip -dc "$root/SampleLogs-next/web1-access.log.gz" > n2/web1.log
gzip -dc "$root/SampleLogs-next/web2-access.json.gz" > n2/web2.json
sed 's#/Nov/2026:#/Nov/2026:#; s#\[22/Nov/2026#[23/Nov/2026#' n2/web1.log > n3/web1.log
# A non-flip line dated 2099 and a flip request dated 2020, as strays.
future='10.9.9.9 - - [01/Jan/2099:00:00:00 +0000] "GET /healthz HTTP/1.1" 200 2 "-" "probe/1.0" "-"'
stale='10.9.9.8 - - [01/Mar/2020:10:00:00 +0000] "GET /oauth/authorize?response_type=code&client_id=1093874651234-flip.apps.googleusercontent.com&redirect_uri=https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA&state=stale-2020-state&scope=a HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=old-code&state=stale-2020-state"'

# The clean chain: night 1, night 2, night 3.
"$bin" -q n1 --checkpoint clean.cp --json c1.json 2>/dev/null
"$bin" -q n2 --checkpoint clean.cp --json c2.json --csv c2 2>/dev/null
"$bin" -q n3 --checkpoint clean.cp --json c3.json 2>/dev/null; st=$?
if [ $st = 0 ] && [ "$(jget c2.json 'd["carried_in"]')" -gt 0 ]; then ok "the clean chain of three nights runs (exit 0, sessions carried)"
else ko "the clean chain of three nights" "exit $st"; fi

# 1. One ordinary non-flip line dated 2099 in tonight's log.
cp -r n2 n2f && echo "$future" >> n2f/web1.log
"$bin" -q n1 --checkpoint f.cp 2>/dev/null
"$bin" -q n2f --checkpoint f.cp --json f2.json --csv f2 2> f2.err; st=$?
"$bin" -q n3 --checkpoint f.cp --json f3.json 2> f3.err; st3=$?
if [ $st = 0 ] && [ "$(jget f2.json 'd["input"]["malformed_by_reason"]["time in the future"]')" = 1 ] \
  && [ "$(jget f2.json 'd["carried_out"]')" = "$(jget c2.json 'd["carried_out"]')" ] \
  && same_rows f2 c2 n2f n2 \
  && [ $st3 = 0 ] && [ "$(jget f3.json 'd["input"]["late_records"]')" = 0 ]; then
  ok "a line dated 2099: malformed (time in the future), the chain unchanged, the next night accepted"
else ko "a line dated 2099" "exit $st/$st3, $(head -c 300 f2.err f3.err)"; fi

# 2. Two runs on one checkpoint at once: the second exits 2 at once naming
# the first's PID; the first completes and writes the checkpoint.
for _ in $(seq 40); do cat n2/web1.log; done > long.log
"$bin" -q n1 --checkpoint lock.cp 2>/dev/null
"$bin" -q long.log --checkpoint lock.cp 2>/dev/null & first=$!; children+=($first)
for _ in $(seq 100); do [ -s lock.cp.lock ] && [ "$(cat lock.cp.lock 2>/dev/null)" = "$first" ] && break; sleep 0.05; done
start=$(date +%s%N)
"$bin" -q n2/web2.json --checkpoint lock.cp --csv lockout/csv 2> lock2.err; st=$?
took=$(( ($(date +%s%N) - start) / 1000000 ))
wait $first; st1=$?
if [ $st = 2 ] && grep -q "PID $first" lock2.err && [ $took -lt 5000 ] && [ $st1 = 0 ] && [ ! -e lockout ] \
  && "$bin" -q n2/web2.json --checkpoint lock.cp 2>/dev/null; then
  ok "two runs at once: the second exits 2 in ${took} ms naming PID $first, no folder left; the first commits; the next run goes on"
else ko "two runs at once" "second exit $st after ${took} ms ($(head -c 200 lock2.err)), first exit $st1"; fi

# 2b. The same checkpoint through a symbolic link: one lock, one file. A
# lock named after the link would let both runs commit, and the second
# run's rename would replace the link with a file of its own.
for _ in $(seq 41); do cat n2/web1.log; done > long2.log
ln -sf lock.cp alias.cp
"$bin" -q long2.log --checkpoint lock.cp 2>/dev/null & first=$!; children+=($first)
for _ in $(seq 100); do [ -s lock.cp.lock ] && [ "$(cat lock.cp.lock 2>/dev/null)" = "$first" ] && break; sleep 0.05; done
{ cat n2/web2.json; echo; } > web2-again.json  # another file: not refused as audited already
"$bin" -q web2-again.json --checkpoint alias.cp 2> lock3.err; st=$?
wait $first; st1=$?
if [ $st = 2 ] && grep -q "PID $first" lock3.err && [ $st1 = 0 ] && [ -L alias.cp ] && [ ! -e alias.cp.lock ]; then
  ok "two runs at once through a link to the checkpoint: the second exits 2 naming PID $first; the link stays a link"
else ko "two runs through a link" "second exit $st ($(head -c 200 lock3.err)), first exit $st1, $(ls -l alias.cp* | head -c 200)"; fi

# 3. The last 250 s of an audited night fed again: duplicates, and the
# same rows as a night without them (no false code-reuse).
last_250s "$root/SampleLogs/web1-access.log.gz" tail.log mark.log
"$bin" -q n1 --checkpoint dup.cp 2>/dev/null
cp dup.cp mark.cp
"$bin" -q tail.log --checkpoint dup.cp --json dup.json --csv dup 2> dup.err; st=$?
flips=$(grep -c 'state=' tail.log)
# The same night with, in the tail's place, one line at the tail's end: the
# records that waited past night 1's watermark are audited alike, so the
# rows are the same whatever the tail holds.
"$bin" -q mark.log --checkpoint mark.cp --csv mark 2>/dev/null
if [ $st -le 1 ] && [ "$(jget dup.json 'd["input"]["duplicate_records"]')" -ge "$flips" ] && [ "$flips" -gt 0 ] \
  && same_rows dup mark x x; then
  ok "the last 250 s fed again: $flips flip lines counted as duplicates, no finding more (no false code-reuse)"
else ko "the last 250 s fed again" "exit $st, $(jget dup.json 'd["input"]["duplicate_records"]') duplicates of $flips, $(head -c 300 dup.err)"; fi

# 4. One stale flip line (2020) in tonight's log: late, listed, left out.
cp -r n2 n2s && echo "$stale" >> n2s/web1.log
"$bin" -q n1 --checkpoint s.cp 2>/dev/null
"$bin" -q n2s --checkpoint s.cp --json s2.json --csv s2 2> s2.err; st=$?
late_line=$(wc -l < n2s/web1.log)
if [ $st = 0 ] && [ "$(jget s2.json 'd["input"]["late_records"]')" = 1 ] && grep -q "n2s/web1.log:$late_line: late record" s2.err \
  && same_rows s2 c2 n2s n2; then
  ok "a flip line dated 2020: one late record, listed at FILE:LINE, the night audited as without it"
else ko "a flip line dated 2020" "exit $st, $(head -c 300 s2.err)"; fi

# 5. SIGTERM during a run: every previous output and the checkpoint stay
# as they were, and the message says so.
"$bin" -q n1 --checkpoint sig.cp --json sig.json --csv sigcsv --metrics sig.prom 2>/dev/null
for f in sig.cp sig.json sigcsv/sessions.csv sig.prom; do cp "$f" "$f.before"; done
# A FIFO whose writer (this shell, fd 7) stays open and silent keeps the
# run reading until the signal: mid-run however fast the machine is.
mkfifo sig.fifo && exec 7<> sig.fifo
"$bin" -q long.log sig.fifo --checkpoint sig.cp --json sig.json --csv sigcsv --metrics sig.prom 2> sig.err & p=$!; children+=($p)
sleep 1; kill -TERM $p; wait $p; st=$?
exec 7>&-
same=yes
for f in sig.cp sig.json sigcsv/sessions.csv sig.prom; do cmp -s "$f" "$f.before" || same=no; done
left=$(find . -maxdepth 2 -name '.*flipaudit*' -o -maxdepth 2 -name '*.tmp*' | wc -l)
if [ $st = 143 ] && [ $same = yes ] && [ "$left" = 0 ] && grep -q "no output file written, the previous ones (and the checkpoint) are as they were" sig.err; then
  ok "SIGTERM mid-run: exit 143, checkpoint, JSON, CSV and metrics as they were, no temporary file, said so"
else ko "SIGTERM mid-run" "exit $st, same=$same, left=$left, $(head -c 200 sig.err)"; fi

# 6. A checkpoint with many open sessions, a one-line input: --max-sessions
# bounds the carried sessions too; loading scales with what it holds.
python3 - <<'EOF'
with open("open.log", "w") as f:
    for i in range(50000):
        s = i * 240 // 50000
        f.write(f'10.0.{i % 250}.{i % 200} - - [22/Nov/2026:01:{55 + s // 60:02d}:{s % 60:02d} +0000] '
                f'"GET /oauth/authorize?response_type=code&client_id=G1&redirect_uri=https%3A%2F%2Foauth-redirect.googleusercontent.com'
                f'%2Fa%2Fcom.google.OPA&state=st{i:07d}x&scope=a HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "https://auth.example/login"\n')
open("one.log", "w").write('10.0.0.1 - - [22/Nov/2026:02:00:01 +0000] "GET / HTTP/1.1" 200 1 "-" "x" "-"\n')
EOF
"$bin" -q open.log --checkpoint many.cp 2>/dev/null
cp many.cp many2.cp
start=$(date +%s%N)
"$bin" -q one.log --checkpoint many.cp --json many.json 2>/dev/null; st=$?
took=$(( ($(date +%s%N) - start) / 1000000 ))
"$bin" -q one.log --checkpoint many2.cp --json few.json --max-sessions 1000 2>/dev/null; st2=$?
if [ $st = 0 ] && [ "$(jget many.json 'd["carried_in"]')" = 50000 ] && [ "$(jget many.json 'd["carried_out"]')" = 50000 ] \
  && [ $st2 = 0 ] && [ "$(jget few.json 'd["carried_out"]')" = 1000 ] && [ "$(jget few.json 'd["evicted_sessions"]')" = 49000 ]; then
  ok "50,000 carried sessions: loaded and carried in ${took} ms; --max-sessions 1000 carries 1000, 49000 closed early"
else ko "a checkpoint with many sessions" "exit $st/$st2, $(jget few.json 'd["carried_out"]') carried under --max-sessions 1000"; fi

# 7. A forged checkpoint (a valid seal, serial at Int64.max): exit 2
# naming the line, no crash, no temporary file.
python3 - clean.cp forged.cp <<'EOF'
import hashlib, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
body = [b"serial\t9223372036854775807" if l.startswith(b"serial\t") else l for l in lines[:-1]]
content = b"\n".join(body) + b"\n"
open(sys.argv[2], "wb").write(content + b"end\t%d\t%s\n" % (len(body), hashlib.sha256(content).hexdigest().encode()))
EOF
mkdir forged && cp forged.cp forged/
"$bin" -q n3 --checkpoint forged/forged.cp 2> forged.err; st=$?
if [ $st = 2 ] && grep -q "line 4: serial out of range" forged.err && ! crashed forged.err && [ "$(ls -A forged | grep -vc '^forged.cp')" -le 1 ]; then
  ok "a forged serial (Int64.max) with a valid seal: exit 2 naming line 4, no crash"
else ko "a forged serial" "exit $st, $(head -c 300 forged.err)"; fi

# 8. --now: a record 30 minutes after it is audited, one 2 hours after is
# malformed (time in the future).
printf '%s\n' \
  '10.1.1.1 - - [22/Nov/2026:02:30:00 +0000] "GET / HTTP/1.1" 200 1 "-" "x" "-"' \
  '10.1.1.1 - - [22/Nov/2026:04:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "x" "-"' > now.log
"$bin" -q now.log --now 2026-11-22T02:00:00Z --json now.json 2>/dev/null; st=$?
if [ $st = 0 ] && [ "$(jget now.json 'd["input"]["records"]')" = 1 ] \
  && [ "$(jget now.json 'd["input"]["malformed_by_reason"]["time in the future"]')" = 1 ]; then
  ok "--now: 30 minutes after is a record, 2 hours after is malformed (time in the future)"
else ko "--now" "exit $st"; fi

# 8b. The night's --json - read by a consumer that died: exit 4, and the
# checkpoint stays, so the night can be run again (and is).
"$bin" -q n1 --checkpoint pipe.cp 2>/dev/null && cp pipe.cp pipe-before.cp
# flipaudit starts only once the reader has closed its end: the night is
# small, and its JSON would otherwise fit in the pipe before that.
{ sleep 0.5; exec "$bin" -q n2 --checkpoint pipe.cp --json - 2> pipe.err; } | (exec 0<&-; sleep 2); st=${PIPESTATUS[0]}
if [ $st = 4 ] && cmp -s pipe.cp pipe-before.cp && grep -q -- "--json: .*Broken pipe" pipe.err \
  && "$bin" -q n2 --checkpoint pipe.cp --json pipe.json 2>/dev/null && [ -s pipe.json ]; then
  ok "--json - into a pipe whose reader died: exit 4, the checkpoint as it was; the night runs again"
else ko "a broken --json - pipe" "exit $st, $(head -c 300 pipe.err)"; fi

# 9. The same night twice: exit 2 naming the file and the run, nothing
# written; a night whose input failed (exit 3) can be run again.
cp clean.cp twice.cp
"$bin" -q n3 --checkpoint twice.cp --csv twice 2> twice.err; st=$?
if [ $st = 2 ] && grep -q "n3/web1.log was audited already, as n3/web1.log by run 3" twice.err && cmp -s twice.cp clean.cp && [ ! -e twice ]; then
  ok "the same night twice: exit 2 naming the file and run 3, nothing written"
else ko "the same night twice" "exit $st, $(head -c 300 twice.err)"; fi

# 10. A checkpoint kept in the folder that is read: neither it nor its
# lock is read as a log.
mkdir inside
"$bin" -q n1 --checkpoint inside/flip.cp 2>/dev/null
cp n2/web1.log inside/
"$bin" -q inside --checkpoint inside/flip.cp --json inside.json 2> inside.err; st=$?
if [ -e inside/flip.cp.lock ] && [ "$(jget inside.json 'd["input"]["malformed_lines"]')" = 0 ] && [ "$(jget inside.json 'd["input"]["files"]')" = 1 ]; then
  ok "a checkpoint and its lock inside the folder read: skipped, not read as logs"
else ko "a checkpoint inside the folder read" "exit $st, $(head -c 300 inside.err)"; fi

# 11. Servers whose logs are cut at different times (seconds to minutes
# apart, within the session timeout: neither is quiet): the chained runs
# write the rows of one run over all the nights. Records past a run's
# watermark wait for the next run; each server's files of the nights are
# one stream, so one run over all of them holds back only what the last
# night's chained run holds back too, and no extra run is needed: every
# row of either is compared (as multisets, source included).
gzip -dc "$root/SampleLogs-next/web1-access.log.gz" > next-web1.log
gzip -dc "$root/SampleLogs-next/web2-access.json.gz" > next-web2.json
rows() { cat "$@" 2>/dev/null | grep -av '^state,first_seen,\|^time,severity,' | LC_ALL=C sort; }
split_night() { # CUT1 CUT2 DIR: night 2 cut into DIR/a (before) and DIR/b (after), per server
  mkdir -p "$3/a" "$3/b"
  awk -v c="$1" -v dir="$3" '{split($4,x,":"); t=x[2]":"x[3]":"x[4]; print > (dir "/" (t < c ? "a" : "b") "/web1.log")}' next-web1.log
  awk -v c="$2" -v dir="$3" -F'"time":"' '{t=substr($2,12,8); print > (dir "/" (t < c ? "a" : "b") "/web2.json")}' next-web2.json
}
cut_bad=""
# (Night 2 runs from 02:00 to 06:00: every cut leaves each server a file
# in both nights.)
for cuts in "02:17:40 02:17:45" "02:10:00 02:19:50" "03:30:00 03:30:00" "05:00:00 04:52:00" "02:05:00 02:14:30"; do
  set -- $cuts
  d="cut-${1//:/}-${2//:/}"
  cp -r n1 "$d-n1x" && mkdir -p "$d" && mv "$d-n1x" "$d/n1x"
  split_night "$1" "$2" "$d"
  status=$(
    cd "$d"
    "$bin" -q n1x --checkpoint chain.cp --csv r0 2>/dev/null; s0=$?
    "$bin" -q a --checkpoint chain.cp --csv r1 2>/dev/null; s1=$?
    "$bin" -q b --checkpoint chain.cp --csv r2 2>/dev/null; s2=$?
    "$bin" -q n1x a b --checkpoint one.cp --csv o0 2>/dev/null; o0=$?
    echo "$s0$s1$s2$o0")
  same=1
  for f in sessions findings; do
    cmp -s <(rows "$d"/r[0-2]/$f.csv) <(rows "$d"/o0/$f.csv) || same=0
  done
  n=$(rows "$d"/r[0-2]/sessions.csv | wc -l)
  if [ "$status" != 0000 ] || [ $same != 1 ] || [ "$n" -lt 1000 ]; then
    cut_bad="$cut_bad [$cuts: status $status, same $same, $n sessions]"
  fi
done
if [ -z "$cut_bad" ]; then ok "servers cut at five pairs of times, 0 s to 9 min 50 s apart: the chained rows equal one run's, no extra run"
else ko "servers cut at different times" "$cut_bad"; fi
# Cut two hours apart, the server cut first looks quiet: it holds nothing
# back, is named so, and its next file's records from before the
# watermark are late, said as such (docs/contract.md §9); --cut-at 02:30
# does not change that, since the other server logged two hours on.
d=cut-far
mkdir -p "$d" && cp -r n1 "$d/n1x"
split_night 02:30:00 04:30:00 "$d"
(
  cd "$d"
  "$bin" -q n1x --checkpoint chain.cp 2>/dev/null
  "$bin" a --no-color --checkpoint chain.cp > a.out 2>/dev/null
  "$bin" -q b --checkpoint chain.cp --json b.json 2> b.err
)
late=$(jget "$d/b.json" 'd["input"]["late_records"]')
if grep -q "quiet: a/web1.log, last record 2026-11-22T02:29:" "$d/a.out" && [ "${late:-0}" -gt 0 ] \
  && grep -q "late record" "$d/b.err"; then
  ok "a server cut two hours before the other is quiet, named; its next night's early records are late ($late), said"
else ko "a server cut two hours early" "late '$late', $(grep -a quiet "$d/a.out" | head -c 200)"; fi

# 12. An empty log in every night (some shippers write one), and a night
# read with the clock an hour behind: neither is remembered, so neither
# blocks a later night, and the corrected re-run is accepted.
mkdir e1 e2
cp n1/* e1/ && gzip -n < /dev/null > e1/empty.log.gz && : > e1/zero.log
cp n2/* e2/ && gzip -n < /dev/null > e2/empty.log.gz && : > e2/zero.log
"$bin" -q e1 --checkpoint empty.cp 2>/dev/null; st1=$?
"$bin" -q e2 --checkpoint empty.cp --json e2.json 2> e2.err; st2=$?
if [ $st1 = 0 ] && [ $st2 = 0 ] && [ "$(jget e2.json 'd["carried_in"]')" -gt 0 ]; then
  ok "an empty .gz and a zero-byte log in two nights: the second night is audited, not refused"
else ko "empty files in two nights" "exit $st1/$st2, $(head -c 300 e2.err)"; fi
"$bin" -q n1 --checkpoint behind.cp 2>/dev/null
"$bin" -q n2 --checkpoint behind.cp --now 2026-11-22T00:30:00Z --json behind.json 2>/dev/null; stb=$?
"$bin" -q n2 --checkpoint behind.cp --json fixed.json 2> fixed.err; stf=$?
if [ $stf = 0 ] && [ "$(jget behind.json 'd["input"]["records"]')" = 0 ] && [ "$(jget fixed.json 'd["input"]["records"]')" -gt 0 ]; then
  ok "a night read with the clock an hour behind (exit $stb, no record) is not remembered: the corrected re-run is audited"
else ko "a night read with the clock behind" "exit $stb then $stf, $(head -c 300 fixed.err)"; fi

# 13. A reuse window shorter than the reorder window: the records near the
# watermark are still remembered, so the end of a night fed again raises
# no state-reuse.
"$bin" -q n2 --checkpoint short.cp --reuse-window 60s 2>/dev/null
last_250s n2/web1.log tail2.log /dev/null
"$bin" -q tail2.log --checkpoint short.cp --reuse-window 60s --json short.json 2> short.err; st=$?
reuse=$(jget short.json 'sum(k["count"] for k in d["findings"]["by_kind"] if k["kind"]=="state-reuse")')
if [ $st = 0 ] && [ "$reuse" = 0 ] && [ "$(jget short.json 'd["input"]["duplicate_records"]')" -gt 0 ]; then
  ok "--reuse-window 60s, the last 250 s fed again: duplicates, no state-reuse"
else ko "--reuse-window 60s, the last 250 s fed again" "exit $st, state-reuse $reuse, $(head -c 300 short.err)"; fi

# 14. The "audited already" refusal names the stored file escaped: a name
# with ESC and a tab cannot drive the terminal.
odd=$'n-\e[31m\tx.log'
cp n2/web1.log "$odd"
"$bin" -q "$odd" --checkpoint odd.cp 2>/dev/null
"$bin" -q "$odd" --checkpoint odd.cp 2> odd.err; st=$?
if [ $st = 2 ] && grep -q 'audited already' odd.err && ! grep -q $'\e' odd.err && ! grep -q $'\t' odd.err && grep -qF 'n-\x1b[31m\x09x.log' odd.err; then
  ok "the same night twice under a name with ESC and TAB: refused, the name escaped"
else ko "audited already, escaped" "exit $st, $(head -c 300 odd.err | od -c | head -3)"; fi

# 15. A look by hand (--dry-run) with the nightly job's options: the
# summary as the next run will see it, and nothing the chain owns
# written — no CSV, HTML, metrics or JSON file, no checkpoint change, no
# lock file made. The real night that follows is audited, not refused.
"$bin" -q n1 --checkpoint look.cp 2>/dev/null
rm -f look.cp.lock
cp look.cp look.before
"$bin" n2 --checkpoint look.cp --dry-run --quiet --csv look-csv --html look/r.html --metrics look/m.prom --json look/r.json --json - > look.json 2> look.err; st=$?
# What the look left, before the real night moves the checkpoint on.
nolock=1; [ -e look.cp.lock ] && nolock=0
kept=0; cmp -s look.cp look.before && kept=1
"$bin" -q n2 --checkpoint look.cp --json real.json 2> real.err; str=$?
if [ $st = 0 ] && [ $kept = 1 ] && [ $nolock = 1 ] && [ ! -e look-csv ] && [ ! -e look ] \
  && grep -q -- "--dry-run: no file written" look.err && [ $str = 0 ] \
  && [ "$(jget look.json 'd["sessions"]')" = "$(jget real.json 'd["sessions"]')" ] \
  && [ "$(jget look.json 'd["carried_in"]')" = "$(jget real.json 'd["carried_in"]')" ] && [ "$(jget real.json 'd["carried_in"]')" -gt 0 ]; then
  ok "--dry-run: the next night's figures, nothing written, no lock; the real night then audited"
else ko "--dry-run" "exit $st then $str, kept $kept, nolock $nolock, sessions $(jget look.json 'd["sessions"]')/$(jget real.json 'd["sessions"]'), $(head -c 200 look.err)"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
