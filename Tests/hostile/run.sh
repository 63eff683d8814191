#!/usr/bin/env bash
# The hostile-machine battery (issue 22, docs/hostile-environment.md): the
# built binary run as a real process against real FIFOs, symlinks,
# devices, /dev/full, closed descriptors and signals. One check per row of
# the issue's table. Last line: "N passed, N failed"; non-zero exit on a
# failure.
#
#   bash Tests/hostile/run.sh [path/to/flipaudit]   (default .build/debug/flipaudit)
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
bin=${1:-${FLIPAUDIT:-$root/.build/debug/flipaudit}}
[ -x "$bin" ] || { echo "no binary at $bin (swift build first)"; echo "0 passed, 1 failed"; exit 1; }
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac

# Seconds a run may take where a hang is the failure being looked for.
T=${HOSTILE_TIMEOUT:-60}

work=$(mktemp -d "${TMPDIR:-/tmp}/flipaudit-hostile.XXXXXX")
children=()
cleanup() {
  for p in "${children[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
  for m in small ro; do mountpoint -q "$work/$m" 2>/dev/null && umount "$work/$m"; done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

. "$root/Tests/tally.sh"
# check NAME CONDITION-DESCRIPTION: run with "if ...; then ok; else ko; fi"

# A JSON value from a report: jget FILE 'd["input"]["lines"]'
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }
# No crash: no Swift runtime trap text, no status from a signal we did not send.
crashed() { grep -qE "Fatal error|Stack dump|Illegal instruction|backtrace" "$1"; }

# Fixtures: real gzip'd logs and their lines.
cp "$root/SampleLogs/web1-access.log.gz" victim.log.gz
gzip -dc victim.log.gz > basic.log
basic_lines=$(wc -l < basic.log)
head -c 20000 basic.log | sed '$d' > small.log          # about 20 KB of whole lines
small_lines=$(wc -l < small.log)
for _ in $(seq 60); do cat basic.log; done > big.log  # tens of MB: a run long enough to signal

# 1. An output that is an input: refused before reading, input intact.
"$bin" -q --json victim.log.gz victim.log.gz 2> err.txt; st=$?
if [ $st = 2 ] && cmp -s victim.log.gz "$root/SampleLogs/web1-access.log.gz" && [ "$(wc -l < err.txt)" = 1 ]; then
  ok "json onto its own input: exit 2, input intact"
else ko "json onto its own input" "exit $st, $(head -c 200 err.txt)"; fi
ln -s victim.log.gz current.log.gz
"$bin" -q --json current.log.gz victim.log.gz 2>/dev/null; st=$?
if [ $st = 2 ] && cmp -s victim.log.gz "$root/SampleLogs/web1-access.log.gz" && [ -L current.log.gz ]; then
  ok "json onto a symlink to an input: exit 2"
else ko "json onto a symlink to an input" "exit $st"; fi

for opt in --html --metrics --checkpoint; do
  "$bin" -q $opt victim.log.gz victim.log.gz 2>/dev/null; st=$?
  if [ $st = 2 ] && cmp -s victim.log.gz "$root/SampleLogs/web1-access.log.gz"; then ok "$opt onto its own input: exit 2, input intact"
  else ko "$opt onto its own input" "exit $st"; fi
done

# 2. One output onto another: --csv out --json out/sessions.csv.
mkdir out && echo keep > out/sessions.csv
"$bin" -q --csv out --json out/sessions.csv basic.log 2>/dev/null; st=$?
if [ $st = 2 ] && [ "$(cat out/sessions.csv)" = keep ]; then ok "json onto a CSV output: exit 2, file intact"
else ko "json onto a CSV output" "exit $st"; fi
"$bin" -q --csv out2 --json out2/findings.csv basic.log 2>/dev/null; st=$?
if [ $st = 2 ] && [ ! -e out2/findings.csv ]; then ok "json onto a CSV output not made yet: exit 2"
else ko "json onto a CSV output not made yet" "exit $st"; fi

# 3. Devices, FIFOs and symlinks as outputs stay what they are.
# A device node of our own when we may make one (root): a binary that
# replaced it would not take the machine's /dev/null with it.
if mknod null.dev c 1 3 2>/dev/null; then dev=null.dev; else dev=/dev/null; fi
"$bin" -q --json $dev basic.log 2>/dev/null; st=$?
if [ $st = 0 ] && [ -c $dev ]; then ok "--json onto a device ($dev): written through, still a device"
else ko "--json onto a device ($dev)" "exit $st"; fi
mkfifo out.fifo
cat out.fifo > fifo-got.json & children+=($!); reader=$!
timeout $T "$bin" -q --json out.fifo basic.log 2>/dev/null; st=$?
# The reader ends when the writer closes; a binary that replaced the
# FIFO never opened it, so the reader is stopped after a while.
for _ in $(seq 50); do kill -0 $reader 2>/dev/null || break; sleep 0.1; done
kill $reader 2>/dev/null; wait $reader 2>/dev/null
if [ $st = 0 ] && [ -p out.fifo ] && [ "$(jget fifo-got.json 'd["input"]["lines"]')" = "$basic_lines" ]; then
  ok "--json FIFO: written through, still a FIFO"
else ko "--json FIFO" "exit $st"; fi
echo old > real.json && ln -s real.json link.json
"$bin" -q --json link.json basic.log 2>/dev/null; st=$?
if [ $st = 0 ] && [ -L link.json ] && [ "$(readlink link.json)" = real.json ] \
   && [ "$(jget real.json 'd["input"]["lines"]')" = "$basic_lines" ]; then
  ok "--json through a symlink: target written, link kept"
else ko "--json through a symlink" "exit $st"; fi
mkdir csvlinks && ln -s ../findings-target.csv csvlinks/findings.csv
"$bin" -q --csv csvlinks basic.log 2>/dev/null; st=$?
if [ $st = 0 ] && [ -L csvlinks/findings.csv ] && head -1 findings-target.csv | grep -q '^time,severity,kind'; then
  ok "--csv with a symlinked findings.csv: target written, link kept"
else ko "--csv with a symlinked findings.csv" "exit $st"; fi

# 4. Streams: <(...) and /dev/stdin lose nothing.
"$bin" --json - <(cat small.log) > s1.json 2>/dev/null; st=$?
if [ $st = 0 ] && [ "$(jget s1.json 'd["input"]["lines"]')" = "$small_lines" ]; then ok "<(cat 20 KB): every line read"
else ko "<(cat 20 KB)" "exit $st, lines $(jget s1.json 'd["input"]["lines"]') of $small_lines"; fi
"$bin" --json - <(cat basic.log) > s1b.json 2>/dev/null; st=$?
if [ $st = 0 ] && [ "$(jget s1b.json 'd["input"]["lines"]')" = "$basic_lines" ]; then ok "<(cat 900 KB): every line read, none of the first 64 KiB lost"
else ko "<(cat 900 KB)" "exit $st, lines $(jget s1b.json 'd["input"]["lines"]') of $basic_lines"; fi
cat small.log | "$bin" --json - /dev/stdin > s2.json 2>/dev/null; st=$?
if [ $st = 0 ] && [ "$(jget s2.json 'd["input"]["lines"]')" = "$small_lines" ]; then ok "cat | flipaudit /dev/stdin: every line read"
else ko "cat | flipaudit /dev/stdin" "exit $st, lines $(jget s2.json 'd["input"]["lines"]')"; fi
gzip -c basic.log | "$bin" --json - - /dev/stdin > s3.json 2>/dev/null; st=$?
if [ $st = 0 ] && [ "$(jget s3.json 'd["input"]["lines"]')" = "$basic_lines" ] && [ "$(jget s3.json 'd["input"]["files"]')" = 1 ]; then
  ok "gzip on stdin named as - and /dev/stdin: one stream, gzip detected, every line"
else ko "gzip stream as - and /dev/stdin" "exit $st"; fi

# 5. A FIFO input: read once, no hang.
mkfifo in.fifo
cat basic.log > in.fifo & children+=($!)
timeout $T "$bin" --json - in.fifo > f.json 2>/dev/null; st=$?
if [ $st = 0 ] && [ "$(jget f.json 'd["input"]["lines"]')" = "$basic_lines" ]; then ok "FIFO input: read once, every line"
else ko "FIFO input" "exit $st (124 = hang)"; fi

# 6. A directory with links to /dev/zero, /dev/urandom and a FIFO: skipped with a note.
mkdir dir6 && cp victim.log.gz dir6/ && ln -s /dev/zero dir6/zero.log && ln -s /dev/urandom dir6/random.log && mkfifo dir6/pipe.log
timeout $T "$bin" --json - dir6 > d6.json 2> d6.err; st=$?
if [ $st = 0 ] && [ "$(jget d6.json 'd["input"]["files"]')" = 1 ] && [ "$(grep -c 'skipped' d6.err)" = 3 ]; then
  ok "directory with /dev/zero, /dev/urandom, FIFO links: skipped with a note"
else ko "directory with special files" "exit $st (124 = hang)"; fi

# 7. A file appended to while read: ends at its size at open.
cp basic.log grow.log
( while :; do cat basic.log >> grow.log; done ) & grower=$!; children+=($grower)
timeout $((2 * T)) "$bin" -q --json g.json grow.log 2>/dev/null; st=$?
kill $grower 2>/dev/null; wait $grower 2>/dev/null
if [ $st = 0 ] && [ -s g.json ]; then ok "file appended while read: the run ends"
else ko "file appended while read" "exit $st (124 = never ended)"; fi
rm -f grow.log

# 8. One file under two names is read once.
"$bin" --json - basic.log > one.json 2>/dev/null
"$bin" --json - basic.log ./basic.log > two.json 2>/dev/null; st=$?
if [ $st = 0 ] && [ "$(jget two.json 'd["input"]["files"]')" = 1 ] \
   && [ "$(jget two.json 'd["findings"]["total"]')" = "$(jget one.json 'd["findings"]["total"]')" ] \
   && [ "$(jget two.json 'd["files"][0]["name"]')" = ./basic.log ]; then
  ok "basic.log ./basic.log: read once, named by the first sorted path"
else ko "basic.log ./basic.log" "exit $st, files $(jget two.json 'd["input"]["files"]')"; fi
mkdir rot && cp basic.log rot/access.log.1 && ln -s access.log.1 rot/current
"$bin" --json - rot > rot.json 2>/dev/null; st=$?
if [ $st = 0 ] && [ "$(jget rot.json 'd["input"]["files"]')" = 1 ] \
   && [ "$(jget rot.json 'd["findings"]["total"]')" = "$(jget one.json 'd["findings"]["total"]')" ]; then
  ok "folder with current -> access.log.1: read once, no false reuse findings"
else ko "folder with current -> access.log.1" "exit $st"; fi

# 9. Standard output full, closed or broken.
"$bin" basic.log > /dev/full 2> e9a.txt; st=$?
if [ $st = 4 ] && ! crashed e9a.txt && grep -q "standard output: No space left on device" e9a.txt; then ok "summary to /dev/full: exit 4, one line"
else ko "summary to /dev/full" "exit $st: $(tail -2 e9a.txt)"; fi
"$bin" --generate-completion-script bash > /dev/full 2> e9d.txt; st=$?
if [ $st = 4 ] && [ "$(cat e9d.txt)" = "flipaudit: cannot write standard output: No space left on device" ]; then
  ok "completion script to /dev/full: exit 4, said as the audit's (not a stage's)"
else ko "completion script to /dev/full" "exit $st: $(tail -2 e9d.txt)"; fi
"$bin" --json - basic.log > /dev/full 2> e9b.txt; st=$?
if [ $st = 4 ] && ! crashed e9b.txt; then ok "--json - to /dev/full: exit 4"
else ko "--json - to /dev/full" "exit $st"; fi
"$bin" basic.log >&- 2> e9c.txt; st=$?
if [ $st = 4 ] && ! crashed e9c.txt && grep -q "Bad file descriptor" e9c.txt; then ok "summary to a closed stdout: exit 4"
else ko "summary to a closed stdout" "exit $st: $(tail -2 e9c.txt)"; fi
"$bin" --csv c9 basic.log >&- 2>/dev/null; st=$?
if [ $st = 4 ] && head -1 c9/sessions.csv | grep -q '^state,' && ! grep -q 'INPUT' c9/*.csv; then
  ok "closed stdout with --csv: CSV files intact (no summary inside), exit 4"
else ko "closed stdout with --csv" "exit $st"; fi
# A reader that is gone before the JSON is written (it closes its end at
# once; flipaudit starts half a second later): the write fails with
# EPIPE, however small the JSON.
{ sleep 0.5; exec "$bin" --json - big.log 2> e9d.txt; } | (exec 0<&-; sleep 2); st=${PIPESTATUS[0]}
if [ $st = 4 ] && grep -q -- "--json: .*Broken pipe" e9d.txt && ! crashed e9d.txt; then
  ok "broken pipe on stdout: a line naming --json, exit 4"
else ko "broken pipe on stdout" "exit $st: $(head -c 300 e9d.txt)"; fi

# 10. Option values that would overflow: usage errors, never a crash.
for args in "--session-timeout 10000000000000000" "--max-line 9223372036854775807" \
            "--session-timeout 99999999999999999999999" "--max-sessions 9223372036854775807" "--max-line -1"; do
  # shellcheck disable=SC2086
  "$bin" -q $args basic.log 2> e10.txt; st=$?
  if [ $st = 2 ] && ! crashed e10.txt; then ok "$args: exit 2"
  else ko "$args" "exit $st: $(head -2 e10.txt)"; fi
done

# 11. Terminating signals during a run with --csv and --json: no temporary left.
for sig in HUP QUIT USR1 USR2 INT TERM; do
  rm -rf sig && mkdir sig
  "$bin" -q --csv sig --json sig/report.json big.log 2>/dev/null & pid=$!
  for _ in $(seq 200); do ls sig/.*.tmp > /dev/null 2>&1 && break; sleep 0.02; done
  sleep 0.2
  kill -"$sig" $pid; wait $pid; st=$?
  want=$((128 + $(kill -l "$sig")))
  left=$(ls -A sig)
  if [ $st = $want ] && [ -z "$left" ]; then ok "SIG$sig: exit $want, no temporary file left"
  else ko "SIG$sig" "exit $st (want $want), left: $left"; fi
done

# 11b. A signal a few milliseconds after start is never lost: 80 runs over
# big.log, each sent SIGINT or SIGTERM 0-80 ms after it was started (far
# less than the run takes; the old dispatch sources armed at about 40 ms
# in a debug build and let 13 of 200 through), from Python so that SIGINT
# is not ignored as in a shell's background job. Whenever it lands,
# before or after the handlers are installed, the run must not complete.
early=$(python3 - "$bin" <<'PY'
import signal, subprocess, sys, time
done = []
for i in range(80):
    sig = signal.SIGINT if i % 2 == 0 else signal.SIGTERM
    # SIGINT at its default in the child, whatever this shell inherited.
    p = subprocess.Popen([sys.argv[1], "-q", "--csv", "early%d" % i, "big.log"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(i * 0.001)
    p.send_signal(sig)
    try:
        code = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill(); p.wait(); code = "hung" 
    if code not in (-sig, 128 + sig):
        done.append("%s at %d ms: exit %s" % (sig.name, i, code))
print(" ".join(done))
PY
)
left=$(ls -d early* 2>/dev/null | while read -r d; do ls -A "$d"; done)
rm -rf early*
if [ -z "$early" ] && [ -z "$left" ]; then ok "SIGINT/SIGTERM 0-80 ms after start, 80 runs: none completes, no file left"
else ko "signals just after start" "$early; left: $left"; fi

# SIGPIPE while writing a file: a FIFO output whose reader leaves early is
# an output error (exit 4) naming it, its temporary file removed.
mkdir pipe11 && mkfifo pipe11/sessions.csv
head -c 100 pipe11/sessions.csv > /dev/null & children+=($!)
timeout $T "$bin" -q --csv pipe11 --json pipe11.json big.log 2> e11.txt; st=$?
if [ $st = 4 ] && grep -q "sessions.csv: Broken pipe" e11.txt && [ -p pipe11/sessions.csv ] \
   && [ -z "$(ls -A pipe11 | grep tmp)" ] && head -1 pipe11/findings.csv | grep -q '^time,' && [ -s pipe11.json ]; then
  ok "CSV FIFO whose reader leaves: exit 4 naming it, no temporary, others written"
else ko "CSV FIFO whose reader leaves" "exit $st: $(grep -v malformed e11.txt | head -2)"; fi

"$bin" -q --metrics /dev/full --html h11.html basic.log 2> e11b.txt; st=$?
if [ $st = 4 ] && grep -q -- "--metrics: cannot write /dev/full: No space left on device" e11b.txt && [ -c /dev/full ] && [ -s h11.html ]; then
  ok "--metrics onto /dev/full: exit 4 naming it, still a device, --html written"
else ko "--metrics onto /dev/full" "exit $st: $(head -2 e11b.txt)"; fi
mkfifo cp.fifo
timeout 20 "$bin" -q --checkpoint cp.fifo basic.log 2>/dev/null; st=$?
if [ $st = 2 ] && [ -p cp.fifo ]; then ok "--checkpoint onto a FIFO: exit 2 before reading"
else ko "--checkpoint onto a FIFO" "exit $st"; fi

# Precedence: 4 over 3 over 1.
"$bin" --fail-on info missing.log basic.log > /dev/full 2>/dev/null; st=$?
"$bin" -q --fail-on info missing.log basic.log 2>/dev/null; st3=$?
if [ $st = 4 ] && [ $st3 = 3 ]; then ok "exit 4 wins over 3 and 1, 3 over 1"
else ko "exit precedence" "got $st and $st3, want 4 and 3"; fi

# 12. A CSV file that cannot be written (full disk) plus --json: the others are written.
mkdir full12 && ln -s /dev/full full12/sessions.csv
"$bin" --csv full12 --json j12.json basic.log > sum12.txt 2> e12.txt; st=$?
if [ $st = 4 ] && grep -q "sessions.csv: No space left on device" e12.txt && [ -s j12.json ] \
   && grep -q '^INPUT' sum12.txt && head -1 full12/findings.csv | grep -q '^time,' && [ -L full12/sessions.csv ]; then
  ok "sessions.csv on a full device: exit 4 naming it; JSON, summary, other CSVs written"
else ko "sessions.csv on a full device" "exit $st: $(grep -v malformed e12.txt | head -2)"; fi
mkdir small
if mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
  "$bin" --csv small --json j12b.json big.log > /dev/null 2> e12b.txt; st=$?
  if [ $st = 4 ] && grep -q "No space left on device" e12b.txt && [ -s j12b.json ] && [ -z "$(ls -A small | grep tmp)" ]; then
    ok "--csv on a full tmpfs plus --json: exit 4, JSON written, no temporary left"
  else ko "--csv on a full tmpfs" "exit $st: $(grep -v malformed e12b.txt | head -2)"; fi
  umount small
else skip "--csv on a full tmpfs" "cannot mount a tmpfs here (not root?)"; fi

# 13. Outputs that cannot work fail before any input is read. The input is
# a FIFO nobody writes to: reading it would hang, so a quick exit 2 shows
# nothing was read.
mkfifo never.fifo
mkdir existing-dir
timeout 20 "$bin" -q --json existing-dir never.fifo 2> e13.txt; st=$?
if [ $st = 2 ] && [ "$(wc -l < e13.txt)" = 1 ]; then ok "--json DIR: exit 2 before reading"
else ko "--json DIR" "exit $st (124 = read the input first)"; fi
long=$(printf 'n%.0s' $(seq 300))
timeout 20 "$bin" -q --json "$long.json" never.fifo 2>/dev/null; st=$?
if [ $st = 2 ]; then ok "300-byte file name: exit 2 before reading"; else ko "300-byte file name" "exit $st"; fi
# A missing folder is made (docs/contract.md §6); one that cannot be made,
# under a regular file, is exit 2 before reading.
timeout 20 "$bin" -q --json "existing-dir/f/r.json" never.fifo 2>/dev/null; st=$?
touch not-a-folder
timeout 20 "$bin" -q --json "not-a-folder/sub/r.json" never.fifo 2>/dev/null; st2=$?
if [ $st = 124 ] && [ -d existing-dir/f ] && [ $st2 = 2 ]; then ok "--json in a missing folder: made; under a file: exit 2 before reading"
else ko "--json in a missing folder" "exit $st / $st2 (124 = read the input, as it should after making the folder)"; fi
mkdir ro && mount -t tmpfs -o ro,size=16k tmpfs ro 2>/dev/null && romounted=1 || romounted=0
if [ $romounted = 1 ]; then
  timeout 20 "$bin" -q --json ro/r.json never.fifo 2>/dev/null; st=$?
  umount ro
  if [ $st = 2 ]; then ok "--json in a read-only folder: exit 2 before reading"; else ko "--json in a read-only folder" "exit $st"; fi
elif [ "$(id -u)" != 0 ]; then
  chmod 555 ro
  timeout 20 "$bin" -q --json ro/r.json never.fifo 2>/dev/null; st=$?
  if [ $st = 2 ]; then ok "--json in an unwritable folder: exit 2 before reading"; else ko "--json in an unwritable folder" "exit $st"; fi
else skip "--json in an unwritable folder" "root and no read-only mount"; fi
name245=$(printf 'a%.0s' $(seq 240)).json
"$bin" -q --json "$name245" basic.log 2>/dev/null; st=$?
if [ $st = 0 ] && [ "$(jget "$name245" 'd["input"]["lines"]')" = "$basic_lines" ]; then ok "245-byte file name: written"
else ko "245-byte file name" "exit $st"; fi
"$bin" -q --json >(wc -c > wc13.txt) basic.log 2>/dev/null; st=$?
sleep 0.5
if [ $st = 0 ] && [ "$(cat wc13.txt 2>/dev/null)" -gt 1000 ] 2>/dev/null; then ok "--json >(wc -c): written through"
else ko "--json >(wc -c)" "exit $st, wc: $(cat wc13.txt 2>/dev/null)"; fi

# 14. --csv d7 d7 run twice: the first run's CSVs and temporaries are not read.
mkdir d7 && cp victim.log.gz d7/
"$bin" -q --json first.json --csv d7 d7 2>/dev/null
touch d7/.sessions.csv.99999.tmp   # a temporary left by a killed run
"$bin" -q --json second.json --csv d7 d7 2> e14.txt; st=$?
if [ $st = 0 ] && [ "$(jget second.json 'd["input"]["files"]')" = 1 ] \
   && [ "$(jget second.json 'd["input"]["malformed_lines"]')" = "$(jget first.json 'd["input"]["malformed_lines"]')" ]; then
  ok "--csv d7 d7 twice: own outputs and temporaries skipped"
else ko "--csv d7 d7 twice" "exit $st, files $(jget second.json 'd["input"]["files"]')"; fi

# An output inside a folder read as input: an earlier report is replaced
# (and skipped by the walk), a log is never.
mkdir w14 && cp basic.log w14/a.log
"$bin" -q --json w14/a.log w14 2>/dev/null; st=$?
if [ $st = 2 ] && cmp -s w14/a.log basic.log; then ok "--json onto a log inside an input folder: exit 2, log intact"
else ko "--json onto a log inside an input folder" "exit $st"; fi

# 15. A file truncated while read: exit 3 naming the file and the offset.
# No race with the clock: a FIFO ranks first, so the run has taken
# shrink.log's size (when it resolved its inputs) before it opens the
# FIFO, and reads no more of shrink.log than its read-ahead holds (16 MiB
# of these 60) until the FIFO's writer closes, after the truncation.
cp big.log shrink.log
mkfifo hold15
"$bin" -q hold15 shrink.log 2> e15.txt & pid=$!
# The writer's open returns once the run has opened the FIFO (a run that
# never does is ended after $T s, and the check fails, not hangs).
timeout "$T" bash -c 'exec 7> hold15 && truncate -s 100000 shrink.log' || kill $pid 2>/dev/null
wait $pid; st=$?
if [ $st = 3 ] && grep -q "shrink.log: file shrank while being read: it ended at byte offset" e15.txt; then
  ok "file truncated while read: exit 3 with the offset"
else ko "file truncated while read" "exit $st: $(grep -v malformed e15.txt | tail -2)"; fi

# 16. Temporaries a SIGKILLed run left beside the outputs: the next run
# that writes those outputs removes the ones of a process that is gone,
# never a live process's.
mkdir d16
# A PID past pid_max: no process has it, now or later.
dead=$(( $(cat /proc/sys/kernel/pid_max) + 1 ))
touch "d16/.sessions.csv.$dead.tmp" "d16/.findings.csv.$dead.tmp" d16/.sessions.csv.1.tmp "d16/.report.json.$dead.tmp"
"$bin" -q --csv d16 --json d16/report.json victim.log.gz 2> e16.txt; st=$?
left=$(ls -A d16 | sort | tr '\n' ' ')
if [ $st = 0 ] && [ "$left" = ".sessions.csv.1.tmp error_distribution.csv findings.csv report.json sessions.csv " ]; then
  ok "temporaries of a run that died: removed by the next run; PID 1's kept"
else ko "stale temporaries" "exit $st, left: $left"; fi

# 18. Impossible dates and years past 9999 are malformed lines.
line=$(grep -m1 'GET /oauth/authorize' basic.log)
when=$(sed -E 's/.*\[([^]]*)\].*/\1/' <<< "$line")
{ echo "$line"
  sed "s|\[$when\]|[30/Feb/2026:10:00:00 +0000]|" <<< "$line"
  sed "s|\[$when\]|[31/Dec/9999:23:59:59 -2359]|" <<< "$line"
} > dates.log
"$bin" --json - --csv d18 dates.log > d18.json 2>/dev/null; st=$?
if [ "$(jget d18.json 'd["input"]["malformed_lines"]')" = 2 ] && ! grep -rq '10000-' d18 d18.json && ! grep -q '2026-03-02' d18/sessions.csv; then
  ok "30/Feb/2026 and 31/Dec/9999 -2359: malformed lines"
else ko "impossible dates" "exit $st, malformed $(jget d18.json 'd["input"]["malformed_lines"]')"; fi

jline=$(gzip -dc "$root/SampleLogs/web2-access.json.gz" | grep -m1 'oauth/authorize')
jtime=$(sed -E 's/^\{"time":"([^"]*)".*/\1/' <<< "$jline")
{ echo "$jline"
  sed "s|\"$jtime\"|\"2026-02-29T10:00:00.000+00:00\"|" <<< "$jline"
  sed "s|\"$jtime\"|\"9999-12-31T23:59:59.000-00:01\"|" <<< "$jline"
} > dates.json.log
"$bin" --json - dates.json.log > d18j.json 2>/dev/null; st=$?
if [ "$(jget d18j.json 'd["input"]["malformed_lines"]')" = 2 ] && [ "$(jget d18j.json 'd["input"]["records"]')" = 1 ]; then
  ok "JSON lines: 2026-02-29 and 9999-12-31T23:59:59-00:01 are malformed"
else ko "JSON-line dates" "exit $st, malformed $(jget d18j.json 'd["input"]["malformed_lines"]')"; fi

# 19. The terminal summary: separators, singular/plural, display width.
"$bin" --no-color big.log > sum19.txt 2>/dev/null
if grep -qE '^  all .* [0-9]{1,3},[0-9]{3}$' sum19.txt && grep -qE 'files +1 \(' sum19.txt; then
  ok "summary: thousands separators in the tables ($(grep -E '^  all ' sum19.txt | awk '{print $NF}') sessions)"
else ko "summary separators" "$(grep -E '^  all ' sum19.txt | head -1)"; fi
grep 'GET /oauth/authorize' basic.log | head -2 > two-open.log
"$bin" --no-color --max-sessions 1 two-open.log > sum19b.txt 2>/dev/null
if grep -q '1 session was closed early' sum19b.txt; then ok "summary: \"1 session was\" (singular)"
else ko "summary singular" "$(grep -E 'closed early' sum19b.txt | head -1)"; fi
err=$(grep -m1 'error=access_denied' basic.log)
{ echo "$err"; sed 's/error=access_denied/error=%E5%85%A8%E8%A7%92%E6%96%87%E5%AD%97/; s/state=/state=w/g' <<< "$err"; } > wide.log
"$bin" --no-color wide.log > sum19c.txt 2>/dev/null
python3 - sum19c.txt <<'PY' && ok "summary: full-width error text aligned by display columns" || ko "summary display width" "$(grep -A4 'ERROR TYPES' sum19c.txt)"
import sys, unicodedata
def width(s): return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in s)
text = open(sys.argv[1], encoding="utf-8").read().split("\n")
i = next(i for i, l in enumerate(text) if l.startswith("ERROR TYPES"))
rows = []
for l in text[i + 1:]:
    if not l.startswith("  ") or l.startswith("  by period") or l.startswith("  most frequent"): break
    rows.append(l)
assert any("全角" in r for r in rows), rows
ends = {width(r) for r in rows}          # right-aligned last column: same end
sys.exit(0 if len(ends) == 1 and len(rows) >= 3 else 1)
PY

# 20. A nightly chain you can trust (issue 33): config paths, long option
# lists, few descriptors, --checkpoint -.
# A config file with relative paths, run by cron from /: they are taken
# from the file's folder (docs/contract.md §9), not from /.
mkdir -p cron/state
cp small.log cron/night1.log
printf 'checkpoint = "state/flip.cp"\ncsv = "out"\ninputs = ["night1.log"]\nquiet = true\n' > cron/flip.toml
(cd / && "$bin" --config "$work/cron/flip.toml") > /dev/null 2> e20a.txt; st=$?
if [ $st = 0 ] && [ -s cron/state/flip.cp ] && [ -s cron/out/sessions.csv ] && [ ! -e /state/flip.cp ] && [ ! -e /out/sessions.csv ]; then
  ok "--config from /: checkpoint, csv and inputs relative to the file's folder"
else ko "--config relative paths from /" "exit $st, $(ls cron cron/state 2>&1 | tr '\n' ' ') $(head -c 200 e20a.txt)"; fi
sed -n '2,$p' basic.log | tail -n 2000 > night2.log
(cd / && "$bin" --config "$work/cron/flip.toml" "$work/night2.log") > /dev/null 2> e20b.txt; st=$?
if [ $st = 0 ] && ! grep -q "starting fresh" e20b.txt; then ok "--config from /: the next night finds the chain's checkpoint"
else ko "--config from /: the next night" "exit $st, $(head -c 300 e20b.txt)"; fi

# 20,000 --client-id values, on the command line and in a config file:
# linear, not a minute before reading. One of them is the real one, so the
# findings are those of --client-id REAL alone.
real_id=1093874651234-flip.apps.googleusercontent.com
ids=()
for i in $(seq 19999); do ids+=(--client-id "$i-x.apps.googleusercontent.com"); done
ids+=(--client-id "$real_id")
"$bin" -q --client-id "$real_id" --json c20-one.json basic.log 2>/dev/null
t0=$(date +%s%N)
"$bin" -q "${ids[@]}" --json c20-many.json basic.log 2>/dev/null; st=$?
ms=$((($(date +%s%N) - t0) / 1000000))
mismatch='sum(k["count"] for k in d["findings"]["by_kind"] if k["kind"] == "client-id-mismatch")'
if [ $st = 0 ] && [ $ms -lt 5000 ] && [ "$(jget c20-many.json "$mismatch")" = "$(jget c20-one.json "$mismatch")" ]; then
  ok "20,000 --client-id values: ${ms} ms for the whole run, same findings"
else ko "20,000 --client-id values" "exit $st, ${ms} ms, mismatches $(jget c20-many.json "$mismatch") vs $(jget c20-one.json "$mismatch")"; fi
{ printf 'client-id = ['; for i in $(seq 19999); do printf '"%s-x.apps.googleusercontent.com", ' "$i"; done; printf '"%s"]\n' "$real_id"; } > ids.toml
t0=$(date +%s%N)
"$bin" -q --config ids.toml --json c20-toml.json basic.log 2>/dev/null; st=$?
ms=$((($(date +%s%N) - t0) / 1000000))
if [ $st = 0 ] && [ $ms -lt 5000 ] && [ "$(jget c20-toml.json "$mismatch")" = "$(jget c20-one.json "$mismatch")" ]; then
  ok "20,000 client-id values in a config file: ${ms} ms, same findings"
else ko "20,000 client-id values in a config file" "exit $st, ${ms} ms"; fi

# Too few descriptors: one line, exit 2 or 3, never a crash (dispatch used
# to trap with SIGILL under ulimit -n 4).
for n in 4 5 6 7 8; do
  (ulimit -n $n; "$bin" -q --csv "fd$n" basic.log > "fd$n.out" 2> "fd$n.err"); st=$?
  if { [ $st = 2 ] || [ $st = 3 ]; } && [ "$(wc -l < "fd$n.err")" = 1 ] && ! crashed "fd$n.err"; then
    ok "ulimit -n $n: exit $st, one line ($(head -c 60 "fd$n.err")…)"
  else ko "ulimit -n $n" "exit $st: $(head -c 300 "fd$n.err")"; fi
done
(ulimit -n 4; "$bin" stage merge --plan nothing.plan < /dev/null > fdm.out 2> fdm.err); st=$?
if [ $st = 2 ] && [ "$(wc -l < fdm.err)" = 1 ]; then ok "ulimit -n 4, stage merge: exit 2, one line"
else ko "ulimit -n 4, stage merge" "exit $st: $(head -c 300 fdm.err)"; fi

# --checkpoint - is not a file the next run can read: a usage error.
mkdir -p c20dash && (cd c20dash && "$bin" -q --checkpoint - ../small.log > /dev/null 2> ../e20c.txt); st=$?
if [ $st = 2 ] && [ ! -e c20dash/- ] && grep -q -- "--checkpoint -" e20c.txt; then ok "--checkpoint -: exit 2, no file named -"
else ko "--checkpoint -" "exit $st, $(ls c20dash) $(head -c 200 e20c.txt)"; fi
# Only --json takes - for standard output: --html, --metrics and --csv
# named - are usage errors, not a file or folder named -.
for opt in --html --metrics --csv; do
  (cd c20dash && "$bin" -q $opt - ../small.log > /dev/null 2> ../e20d.txt); st=$?
  if [ $st = 2 ] && [ ! -e c20dash/- ] && grep -q -- "$opt -: only --json" e20d.txt; then ok "$opt -: exit 2, nothing named -"
  else ko "$opt -" "exit $st, $(ls c20dash) $(head -c 200 e20d.txt)"; rm -rf c20dash/-; fi
done

# flipaudit follow on a full disk (/dev/full for --findings): the write
# fails, it is said once, nothing more is read or committed, and SIGTERM
# exits 4 with the checkpoint still at the start (positions never pass a
# finding not written). A followed name that is a directory: said once.
mkdir -p fdisk && cp basic.log fdisk/a.log && mkdir -p fdisk/dir.log
(cd fdisk && exec "$bin" follow --from-start --checkpoint cp --findings /dev/full a.log dir.log 2> ../fdisk.err) &
fpid=$!
for _ in $(seq 1 300); do grep -q "cannot write a finding" fdisk.err 2> /dev/null && break; sleep 0.1; done
kill -TERM $fpid 2> /dev/null; st=0; wait $fpid || st=$?
if [ $st = 4 ] && [ "$(grep -c 'cannot write a finding to /dev/full: No space left' fdisk.err)" = 1 ] \
  && grep -q $'^position\t.*\t0\t0\ta.log$' fdisk/cp && [ "$(grep -c '^flipaudit: follow: dir.log is a directory' fdisk.err)" = 1 ] \
  && grep -q '^flipaudit: follow: coverage partial: dir.log is a directory, not a log file' fdisk.err && ! crashed fdisk.err; then
  ok "follow --findings /dev/full: said once, exit 4 on SIGTERM, checkpoint still at byte 0; the directory in the coverage"
else ko "follow --findings /dev/full" "exit $st: $(head -c 400 fdisk.err) $(grep position fdisk/cp)"; fi

# A short write (the disk fills mid-line, here a file size limit of
# 1 KiB that prlimit then lifts): the rest of the line follows its first
# bytes, never the whole line again after a fragment. Every line of the
# findings file is whole JSON.
if command -v prlimit > /dev/null; then
  mkdir -p tdisk && cp basic.log tdisk/a.log
  for _ in $(seq 1 6); do cat basic.log >> tdisk/a.log; done
  (cd tdisk && trap '' XFSZ && exec prlimit --fsize=1024:unlimited "$bin" follow --from-start --findings found.ndjson a.log 2> ../tdisk.err) &
  tpid=$!
  for _ in $(seq 1 300); do grep -q "cannot write a finding" tdisk.err 2> /dev/null && break; sleep 0.1; done
  prlimit --pid "$tpid" --fsize=unlimited:unlimited
  for _ in $(seq 1 300); do grep -q "findings are written again" tdisk.err 2> /dev/null && break; sleep 0.1; done
  kill -TERM $tpid 2> /dev/null; st=0; wait $tpid || st=$?
  torn=$(python3 -c '
import json, sys
bad = 0
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try: json.loads(line)
    except ValueError: bad += 1
print(bad)' tdisk/found.ndjson 2> /dev/null)
  lines=$(wc -l < tdisk/found.ndjson 2> /dev/null)
  if [ $st = 0 ] && grep -q "findings are written again" tdisk.err && [ "$torn" = 0 ] && [ "${lines:-0}" -gt 3 ] && ! crashed tdisk.err; then
    ok "follow --findings on a disk that fills mid-line, then frees: $lines whole lines, none torn"
  else ko "follow --findings, a short write" "exit $st, $torn torn of ${lines:-0}: $(head -c 300 tdisk.err)"; fi
else
  skip "follow --findings, a short write" "no prlimit"
fi

# libmicrohttpd missing (hidden by a bind mount of /dev/null in a mount
# namespace of its own): it is loaded only when --listen starts, so an
# audit runs as before, and a follower with --listen says what to install
# and exits 2.
lib=$(ldconfig -p 2> /dev/null | awk '/libmicrohttpd\.so\.12 / { print $NF; exit }')
if [ -n "$lib" ] && command -v unshare > /dev/null && unshare --mount true 2> /dev/null; then
  : > nolib.log
  hide="mount --bind /dev/null '$lib' && { [ -e '${lib%.12}' ] && mount --bind /dev/null '${lib%.12}' || true; }"
  unshare --mount sh -c "$hide && exec '$bin' victim.log.gz --quiet" > nolib.audit.out 2> nolib.audit.err
  ast=$?
  "$bin" victim.log.gz --quiet > lib.audit.out 2> lib.audit.err
  lst=$?
  timeout "$T" unshare --mount sh -c "$hide && exec '$bin' follow --listen 127.0.0.1:0 nolib.log" > nolib.out 2> nolib.err
  st=$?
  if [ $ast = $lst ] && cmp -s nolib.audit.out lib.audit.out && cmp -s nolib.audit.err lib.audit.err && [ $st = 2 ] \
    && grep -q "^flipaudit: follow: --listen 127.0.0.1:0: libmicrohttpd could not be loaded (.*); install libmicrohttpd12$" nolib.err \
    && ! crashed nolib.err; then
    ok "libmicrohttpd missing: an audit runs as with it (exit $ast), follow --listen says to install libmicrohttpd12 (exit 2)"
  else ko "libmicrohttpd missing" "audit exit $ast ($(head -c 200 nolib.audit.err)), follow exit $st: $(head -c 300 nolib.err)"; fi
else
  skip "libmicrohttpd missing" "no mount namespace here"
fi

echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
[ $failed = 0 ]
