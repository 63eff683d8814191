#!/usr/bin/env bash
# The distributed equality test: the `flipaudit stage` pipeline (map,
# shuffle, reduce, merge) must give the bytes and the exit status of one
# process, however the work is cut.
#
#   bash Tests/distributed/run.sh [path/to/flipaudit]   (default .build/debug/flipaudit)
#
# For each case (SampleLogs, with and without audit options, and the
# fixtures of make_fixtures.py: cross-file sessions, code and state reuse,
# flips without state, a late file, Location from mid-file, a truncated
# gzip, a missing input), it runs one process
#     BIN AUDIT-OPTIONS INPUTS --csv … --json … --html … --metrics … --no-color
# and then contrib/hadoop-streaming/local-run.sh (map | sort | reduce in
# the shell) with 1, 3 and 7 reducers, and with the file lines reversed,
# split over 3 mappers and keyed by byte offsets as NLineInputFormat does;
# contrib/hadoop-streaming/madoop-jobs.sh under madoop (pip install
# madoop==1.3.2 in .build/madoop-venv; SKIP_MADOOP=1 leaves it out);
# then contrib/spark/flipaudit_spark.py on local[2] (with a stage process
# killed once, and at every attempt). Each run must match one
# process exactly: the three CSV files, the JSON report, the HTML report and
# the summary on standard output byte for byte, the metrics file but for its
# run-time lines (duration, timestamps), and the exit status.
#
# It also checks the stage contract itself: exit 2 and one line on
# standard error for unsorted or malformed stage input, nothing out for
# nothing in, a private plan file.
#
# Environment:
#   SKIP_SPARK=1        leave out the Spark runs (reported as skipped)
#   SPARK_VENV=DIR      the venv for pyspark (default .build/spark-venv; made
#                       with `python3 -m venv` and `pip install pyspark==4.3.0`
#                       when it has no pyspark; Java 17 is installed with
#                       apt-get when `java` is missing)
#   SPARK_CASES="…"     the cases run on Spark (default: samples options
#                       cross-args broken)
#   SPARK_KILL=0        leave out the two runs with a stage process killed
#   KEEP=1              keep the work directory (its path is printed)
#
# Last line: "N passed, N failed[, N skipped]"; the exit status is non-zero
# when anything failed.
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
bin=${1:-${FLIPAUDIT:-$root/.build/debug/flipaudit}}
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
[ -x "$bin" ] || { echo "no binary at $bin (swift build first)"; echo "0 passed, 1 failed"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/flipaudit-distributed.XXXXXX")
cleanup() { if [ "${KEEP:-0}" = 1 ]; then echo "work directory kept: $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

. "$root/Tests/tally.sh"

started=$(date +%s)
python3 Tests/distributed/make_fixtures.py "$work/fx" || { echo "make_fixtures.py failed"; echo "0 passed, 1 failed"; exit 1; }
fx=$work/fx
tab=$'\t'
# A proxy and its backend, both logging every flow (tiers, docs/contract.md
# §9): the proxy a second ahead under a path prefix, the backend with the
# Location; a double tap through both; one flow the backend alone saw.
mkdir -p "$fx/tiers"
python3 - "$fx/tiers" <<'EOF_TIERS'
import sys, urllib.parse as u
out = sys.argv[1]
opa = "https://oauth-redirect.googleusercontent.com/a/com.google.OPA"
def line(ip, sec, path, state, loc):
    q = "response_type=code&client_id=G123&redirect_uri=" + u.quote(opa, safe="") + "&state=" + state
    t = "22/Nov/2026:10:%02d:%02d +0000" % (sec // 60, sec % 60)
    return f'{ip} - - [{t}] "GET {path}?{q} HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "{loc}"\n'
with open(out + "/haproxy.log", "w") as p, open(out + "/backend.log", "w") as b:
    for n in range(30):
        taps = 2 if n == 7 else 1
        for tap in range(taps):
            loc = f"{opa}?code=c{n}-{tap}&state=s{n}"
            p.write(line(f"203.0.113.{n + 1}", n * 9, "/app/oauth/authorize", f"s{n}", loc))
            b.write(line("198.51.100.1", n * 9 + 1, "/oauth/authorize", f"s{n}", loc))
    b.write(line("198.51.100.1", 400, "/oauth/authorize", "alone", f"{opa}?code=x&state=alone"))
EOF_TIERS

# ---- the cases: NAME -> output options (to merge) and audit arguments ----
CASES="samples options cross cross-args broken missing tiers"
case_args() {
  out_opts=()
  audit=()
  case "$1" in
    samples) out_opts=(--fail-on high) audit=(SampleLogs) ;;
    options)
      audit=(--client-id 1093874651234-flip.apps.googleusercontent.com --project-id smart-lights-4f2a1
        --session-timeout 120 --reuse-window 90m --bucket hour SampleLogs SampleLogs-next) ;;
    cross) out_opts=(--fail-on critical) audit=("$fx/cross") ;;
    # The same files named in another order, one of them three times.
    cross-args) audit=("$fx/cross/c.log" "$fx/cross/midloc.log.gz" "$fx/cross" "$fx/cross/a.log.gz" "$fx/cross/late.log.gz" "$fx/cross/b.log.gz") ;;
    broken) out_opts=(--fail-on never) audit=("$fx/cross" "$fx/broken/trunc.log.gz") ;;
    missing) audit=("$fx/cross/a.log.gz" "$fx/no-such-file.log.gz" "$fx/cross/b.log.gz") ;;
    tiers) audit=(--client-id G123 "$fx/tiers") ;;
  esac
}

# set_outputs DIR: outs=(the output options of a run writing into DIR).
set_outputs() { outs=(--csv "$1/csv" --json "$1/report.json" --html "$1/report.html" --metrics "$1/metrics.prom" --no-color); }

# same REF DIR: what differs between two runs' outputs ("" when nothing).
same() {
  local ref=$1 dir=$2 diffs=""
  [ "$(cat "$ref/status")" = "$(cat "$dir/status")" ] ||
    diffs="$diffs exit $(cat "$ref/status") vs $(cat "$dir/status");"
  for f in csv/sessions.csv csv/findings.csv csv/error_distribution.csv report.json stdout; do
    if [ ! -e "$dir/$f" ] && [ ! -e "$ref/$f" ]; then continue; fi
    cmp -s "$ref/$f" "$dir/$f" || diffs="$diffs $f differs;"
  done
  # The HTML page but for the run's own date (docs/contract.md §10).
  local rundate='s|run <time>[^<]*</time>|run <time></time>|'
  if [ -e "$ref/report.html" ] || [ -e "$dir/report.html" ]; then
    cmp -s <(sed "$rundate" "$ref/report.html" 2>/dev/null) <(sed "$rundate" "$dir/report.html" 2>/dev/null) ||
      diffs="$diffs report.html differs;"
  fi
  # The metrics file but for the lines that depend on when and how long it ran.
  local runtime='^flipaudit_last_(run_duration|run_timestamp|success_timestamp)_seconds '
  if [ -e "$ref/metrics.prom" ] || [ -e "$dir/metrics.prom" ]; then
    cmp -s <(grep -Ev "$runtime" "$ref/metrics.prom" 2>/dev/null) <(grep -Ev "$runtime" "$dir/metrics.prom" 2>/dev/null) ||
      diffs="$diffs metrics.prom differs;"
  fi
  echo "$diffs"
}

# show REF DIR: the first differing lines, for a failure.
show() {
  local f
  for f in csv/sessions.csv csv/findings.csv csv/error_distribution.csv report.json stdout; do
    if ! cmp -s "$1/$f" "$2/$f"; then
      echo "    --- $f (one process) vs (distributed), first lines that differ:"
      diff "$1/$f" "$2/$f" 2>&1 | head -8 | sed 's/^/    /'
    fi
  done
  if [ -s "$2/stderr" ]; then
    echo "    --- standard error of the distributed run:"
    tail -5 "$2/stderr" | sed 's/^/    /'
  fi
}

# verdict NAME REF DIR: PASS when DIR's run matches REF's, else FAIL with
# the differences. The messages on standard error (the `flipaudit: ` lines)
# are compared too, but only noted: the stage contract does not promise them.
verdict() {
  local diffs
  diffs=$(same "$2" "$3")
  if [ -z "$diffs" ]; then
    ok "$1"
  else
    ko "$1" "$diffs"
    show "$2" "$3"
  fi
  if ! cmp -s <(grep -a '^flipaudit: ' "$2/stderr") <(grep -a '^flipaudit: ' "$3/stderr"); then
    echo "NOTE $1: its messages on standard error differ from one process's:"
    diff <(grep -a '^flipaudit: ' "$2/stderr") <(grep -a '^flipaudit: ' "$3/stderr") | head -6 | sed 's/^/    /'
  fi
}

# ---- one process ---------------------------------------------------------
expect_status() {
  case "$1" in broken | missing) echo 3 ;; samples | cross) echo 1 ;; *) echo 0 ;; esac
}
for c in $CASES; do
  case_args "$c"
  d=$work/$c/one
  mkdir -p "$d"
  set_outputs "$d"
  "$bin" "${audit[@]}" "${outs[@]}" "${out_opts[@]}" > "$d/stdout" 2> "$d/stderr"
  echo $? > "$d/status"
  want=$(expect_status "$c")
  st=$(cat "$d/status")
  if [ "$st" != "$want" ]; then
    ko "$c: one process" "exit $st, expected $want ($(head -c 300 "$d/stderr"))"
  elif [ ! -s "$d/csv/sessions.csv" ]; then
    ko "$c: one process" "no sessions.csv"
  else
    ok "$c: one process (exit $st, $(($(wc -l < "$d/csv/sessions.csv") - 1)) sessions)"
  fi
done

# The tiers case: read as tiers by themselves, 31 requests shared (the
# double tap is two), the findings and sessions of the backend's log alone.
"$bin" --client-id G123 "$fx/tiers/backend.log" --json "$work/tiers/backend-alone.json" > /dev/null 2>&1
tiers_read=$(python3 -c '
import json, sys
d, alone = (json.load(open(p)) for p in sys.argv[1:3])
kinds = lambda j: sorted((k["kind"], k["count"]) for k in j["findings"]["by_kind"])
print([t["shared"] for t in d["deployment"]["tiers"]], kinds(d) == kinds(alone), d["sessions"] == alone["sessions"], d["sessions"])
' "$work/tiers/one/report.json" "$work/tiers/backend-alone.json" 2>&1)
if [ "$tiers_read" = "[31] True True 32" ]; then
  ok "tiers: a proxy and its backend read as tiers, 31 requests shared, the findings and 32 sessions of the backend alone"
else ko "tiers: one process" "$tiers_read"; fi

# ---- the shell pipeline (contrib/hadoop-streaming/local-run.sh) ------------
local_run="contrib/hadoop-streaming/local-run.sh"
# Every case with 1, 3 and 7 reducers and reversed; "options" (SampleLogs
# twice over, the slowest with a debug build) reversed only.
case_variants() { case "$1" in options) echo "r3-reversed" ;; *) echo "r1 r3 r7 r3-reversed" ;; esac; }
variant_flags() {
  case "$1" in
    r1) flags=() reducers=1 ;;
    r3) flags=() reducers=3 ;;
    r7) flags=() reducers=7 ;;
    r3-reversed) flags=(--reverse --mappers 3 --offset-keys --hash crc32) reducers=3 ;;
  esac
}
# The variants of one case run at the same time (they share nothing but
# the inputs), then are judged in order.
for c in $CASES; do
  case_args "$c"
  for v in $(case_variants "$c"); do
    variant_flags "$v"
    d=$work/$c/$v
    mkdir -p "$d"
    set_outputs "$d"
    (
      bash "$local_run" "${flags[@]}" "$bin" "$reducers" "$d/work" "${outs[@]}" "${out_opts[@]}" -- "${audit[@]}" \
        > "$d/stdout" 2> "$d/stderr"
      echo $? > "$d/status"
    ) &
  done
  wait
  for v in $(case_variants "$c"); do
    verdict "$c: shell pipeline $v" "$work/$c/one" "$work/$c/$v"
  done
done

# ---- hadoop-jobs.sh, its command lines run by a stand-in for `hadoop` -------
# (fake-hadoop.py does what Hadoop Streaming's classes do with those
# options, on this machine: a check of the script, not of Hadoop.)
for c in cross broken; do
  case_args "$c"
  d=$work/$c/fake-hadoop
  mkdir -p "$d/hdfs"
  set_outputs "$d"
  FAKE_HDFS="$d/hdfs" HADOOP="$root/Tests/distributed/fake-hadoop.py" HADOOP_STREAMING_JAR=/fake/hadoop-streaming.jar \
    bash contrib/hadoop-streaming/hadoop-jobs.sh -r 3 -n 2 "$bin" /user/ci/flipaudit "$d/local" \
    "${outs[@]}" "${out_opts[@]}" -- "${audit[@]}" > "$d/stdout" 2> "$d/stderr"
  echo $? > "$d/status"
  verdict "$c: hadoop-jobs.sh (fake hadoop, 3 reducers)" "$work/$c/one" "$d"
  if [ -e "$d/hdfs/user/ci/flipaudit" ]; then ko "$c: hadoop-jobs.sh removes its HDFS work directory" "still there"; fi
done

# ---- the same jobs under madoop (a MapReduce emulator from PyPI) -------------
# contrib/hadoop-streaming/madoop-jobs.sh: madoop partitions by an MD5 of
# the key and sorts each part by the whole line, as Hadoop Streaming does.
madoop_venv=${MADOOP_VENV:-$root/.build/madoop-venv}
if [ "${SKIP_MADOOP:-0}" = 1 ]; then
  skip "madoop" "SKIP_MADOOP=1"
else
  if ! "$madoop_venv/bin/madoop" --version > /dev/null 2>&1; then
    { python3 -m venv "$madoop_venv" && "$madoop_venv/bin/pip" install -q madoop==1.3.2; } > "$work/madoop-venv.log" 2>&1
  fi
  if ! "$madoop_venv/bin/madoop" --version > /dev/null 2>&1; then
    ko "madoop: setup" "$(tail -3 "$work/madoop-venv.log")"
  else
    for c in cross broken; do
      case_args "$c"
      d=$work/$c/madoop
      mkdir -p "$d"
      set_outputs "$d"
      t0=$(date +%s)
      MADOOP="$madoop_venv/bin/madoop" bash contrib/hadoop-streaming/madoop-jobs.sh -r 3 "$bin" "$d/work" \
        "${outs[@]}" "${out_opts[@]}" -- "${audit[@]}" > "$d/stdout" 2> "$d/stderr"
      echo $? > "$d/status"
      verdict "$c: madoop-jobs.sh (madoop 1.3.2, 3 reducers, $(($(date +%s) - t0)) s)" "$work/$c/one" "$d"
    done
  fi
fi

# ---- the stage contract ----------------------------------------------------
w=$work/cross/r1/work
plan=$w/job.plan
mode=$(stat -c %a "$plan" 2>/dev/null)
if [ "$mode" = 600 ]; then ok "contract: the plan file is private (mode 600)"; else ko "contract: the plan file is private" "mode $mode"; fi

# stage_check NAME EXPECTED-STATUS INPUT-FILE STAGE-ARGS...: one line on stderr when it fails.
stage_check() {
  local name=$1 want=$2 input=$3
  shift 3
  "$bin" stage "$@" < "$input" > "$work/check.out" 2> "$work/check.err"
  local st=$? lines
  lines=$(wc -l < "$work/check.err")
  if [ "$st" = "$want" ] && { [ "$want" = 0 ] || [ "$lines" = 1 ]; }; then
    ok "contract: $name (exit $st)"
  else
    ko "contract: $name" "exit $st (expected $want), $lines lines on stderr: $(head -c 300 "$work/check.err")"
  fi
}
if [ -s "$w/events.0" ]; then
  LC_ALL=C sort -r "$w/events.0" > "$work/unsorted"
  stage_check "sessions refuses unsorted input" 2 "$work/unsorted" sessions --plan "$plan" --facts "$w/facts"
  { LC_ALL=C sort "$w/events.0" | head -3; printf 's:x\tnot an event\n'; } > "$work/malformed"
  stage_check "sessions refuses a malformed line" 2 "$work/malformed" sessions --plan "$plan" --facts "$w/facts"
  : > "$work/empty"
  # An empty partition (a reducer that got no key) is normal with many reducers.
  stage_check "sessions: no input" 0 "$work/empty" sessions --plan "$plan" --facts "$w/facts"
  if grep -qaEv "^(tracker|tally)$(printf '\t')" "$work/check.out"; then
    ko "contract: sessions with no input writes no session, finding or code" "$(head -c 200 "$work/check.out")"
  fi
  stage_check "codes: no input" 0 "$work/empty" codes --plan "$plan"
  if [ -s "$work/check.out" ]; then ko "contract: codes with no input writes nothing" "$(head -c 200 "$work/check.out")"; fi
  if [ -s "$w/codes.0" ]; then
    LC_ALL=C sort -r "$w/codes.0" > "$work/unsorted-codes"
    if cmp -s "$work/unsorted-codes" <(LC_ALL=C sort "$w/codes.0"); then :; else
      stage_check "codes refuses unsorted input" 2 "$work/unsorted-codes" codes --plan "$plan"
    fi
  fi
  printf 'c:zz\tnot a code line\n' > "$work/bad-code"
  stage_check "codes refuses a malformed line" 2 "$work/bad-code" codes --plan "$plan"
  printf 'file\t0\tnot/the/plans.log\t/nowhere/at/all.log\n' > "$work/bad-file"
  stage_check "read refuses a file line not in the plan" 2 "$work/bad-file" read --plan "$plan"
  printf 'session\tgarbage\n' > "$work/bad-merge"
  stage_check "merge refuses a malformed line" 2 "$work/bad-merge" merge --plan "$plan" --quiet
  # stage read --stdin-name: a file's bytes on standard input (as Spark's
  # binaryFiles hands them over) give the lines of its file line.
  fl=$(grep -a "^file$(printf '\t')" "$plan" | sed -n 2p)
  fname=$(printf '%s' "$fl" | cut -f3)
  fpath=$(printf '%s' "$fl" | cut -f4)
  printf '%s\n' "$fl" | "$bin" stage read --plan "$plan" > "$work/by-line" 2> /dev/null
  "$bin" stage read --plan "$plan" --stdin-name "$fname" < "$fpath" > "$work/by-stdin" 2> /dev/null
  if [ -s "$work/by-line" ] && cmp -s "$work/by-line" "$work/by-stdin"; then
    ok "contract: read --stdin-name gives the lines of the file line ($fname)"
  else
    ko "contract: read --stdin-name" "its lines differ from the file line's"
  fi
  stage_check "read --stdin-name refuses a name not in the plan" 2 "$fpath" read --plan "$plan" --stdin-name "hdfs:///not/in/the/plan"
  # stage plan --uri: a URI the driver cannot look into before the job (a
  # directory, a file it does not see, hdfs://) ranks first (by name), as
  # one process ranks an input whose first record it cannot see; the paths
  # follow in their own rank (first record time).
  "$bin" stage plan --uri=file:///zz/last.log --uri="file://$fx/cross" "$fx/cross" > "$work/uri.plan" 2> /dev/null
  names=$(grep -a "^file$(printf '\t')" "$work/uri.plan" | cut -f3)
  want=$(printf '%s\n' "file://$fx/cross" file:///zz/last.log | LC_ALL=C sort; grep -a "^file$(printf '\t')" "$plan" | cut -f3)
  if [ "$names" = "$want" ]; then
    ok "contract: plan --uri ranks URIs first by name, then the paths by first record time"
  else
    ko "contract: plan --uri" "file names: $(printf '%s' "$names" | tr '\n' ' ')"
  fi
  # A file:// URI of a regular file the driver sees ranks as its path does
  # (by first record time): the samples' names and first records disagree.
  "$bin" stage plan "$root/SampleLogs" > "$work/paths.plan" 2> /dev/null
  "$bin" stage plan $(for f in "$root"/SampleLogs/*; do printf -- '--uri=file://%s ' "$f"; done) > "$work/uris.plan" 2> /dev/null
  by_path=$(grep -a "^file$(printf '\t')" "$work/paths.plan" | cut -f3)
  by_uri=$(grep -a "^file$(printf '\t')" "$work/uris.plan" | cut -f3 | sed 's#^file://##')
  if [ -n "$by_path" ] && [ "$by_path" = "$by_uri" ] && [ "$by_path" != "$(printf '%s\n' "$by_path" | LC_ALL=C sort)" ]; then
    ok "contract: file:// URIs of regular files rank by first record time, as their paths"
  else
    ko "contract: file:// URIs ranked" "by path: $(printf '%s' "$by_path" | tr '\n' ' ') by URI: $(printf '%s' "$by_uri" | tr '\n' ' ')"
  fi
  head -c 200 "$plan" > "$work/cut.plan"
  stage_check "a cut plan is refused" 2 "$work/empty" codes --plan "$work/cut.plan"
else
  ko "contract" "no event lines in $w/events.0 to check with"
fi

# ---- lines between steps: missing, repeated, foreign (issue 33) -----------
# Every facts and tally line carries the plan's job id; each reduce task
# ends with a tally of what it read and wrote; the merge adds them up
# (docs/distributed.md, "What the merge checks"). Each check feeds one
# step a broken set of lines and expects the error to name the step, with
# exit 3 and no output written, never a wrong total. Job A is the cross
# fixtures cut over 3 reducers; job B is another job (SampleLogs).
neg=$work/neg
mkdir -p "$neg"
case_args cross
bash "$local_run" "$bin" 3 "$neg/a" --quiet -- "${audit[@]}" > /dev/null 2> "$neg/a.err"
st_a=$?
bash "$local_run" "$bin" 3 "$neg/b" --quiet -- SampleLogs > /dev/null 2> "$neg/b.err"
st_b=$?
A=$neg/a
# merge_lines DIR: what local-run.sh hands the merge (facts, the session
# tasks' own lines, the code tasks' lines).
merge_lines() { cat "$1/facts"; cat "$1"/sessions.[0-9]* | sed '/^c:/d'; cat "$1"/reuse.[0-9]*; }
# merge_refuses NAME WANT-STATUS TEXT FILE [PLAN]: the merge of FILE exits
# WANT-STATUS with one line on standard error that contains TEXT, and
# writes no output: not even the --csv folder.
merge_refuses() {
  local name=$1 want=$2 text=$3 input=$4 p=${5:-$A/job.plan} out=$neg/out.$RANDOM
  "$bin" stage merge --plan "$p" --csv "$out" --json "$out.json" --quiet < "$input" > /dev/null 2> "$neg/err"
  local st=$?
  if [ "$st" = "$want" ] && [ "$(wc -l < "$neg/err")" = 1 ] && grep -qF -- "$text" "$neg/err" &&
    [ ! -e "$out.json" ] && [ ! -e "$out" ]; then
    ok "lines between steps: $name (exit $st, no output)"
  else
    ko "lines between steps: $name" "exit $st (expected $want), $(wc -l < "$neg/err") lines: $(head -c 300 "$neg/err")"
  fi
}
if [ "$st_a" != 0 ] || [ "$st_b" != 0 ] || [ ! -s "$A/facts" ]; then
  ko "lines between steps" "the two jobs did not run: $st_a $st_b $(head -c 300 "$neg/a.err" "$neg/b.err")"
else
  merge_lines "$A" > "$neg/good"
  "$bin" stage merge --plan "$A/job.plan" --quiet < "$neg/good" > /dev/null 2> "$neg/err"
  st=$?
  if [ $st = 0 ]; then ok "lines between steps: the whole set merges (exit $st)"
  else ko "lines between steps: the whole set merges" "exit $st: $(head -c 300 "$neg/err")"; fi

  # A session line twice (one process had 747 sessions, this would be 748).
  { cat "$neg/good"; grep -am1 "^session$tab" "$neg/good"; } > "$neg/repeated"
  merge_refuses "a repeated session line" 3 "stage merge: " "$neg/repeated"
  # Half the session lines.
  awk -v t="session$tab" 'index($0, t) != 1 || NR % 2' "$neg/good" > "$neg/half"
  merge_refuses "half the session lines" 3 "stage merge: " "$neg/half"
  # No reuse lines (the code tasks' tallies still say what they wrote).
  grep -av "^reuse$tab" "$neg/good" > "$neg/noreuse"
  if grep -qa "^reuse$tab" "$neg/good"; then
    merge_refuses "no reuse lines" 3 "reuse lines" "$neg/noreuse"
  else
    ko "lines between steps: no reuse lines" "the fixture has no code-reuse to drop"
  fi
  # A code task's whole output gone: its tally too.
  { cat "$A/facts"; cat "$A"/sessions.[0-9]* | sed '/^c:/d'; cat "$A/reuse.0" "$A/reuse.1"; } > "$neg/nocodetask"
  merge_refuses "a code task's output missing" 3 "stage codes: " "$neg/nocodetask"
  # A session task's whole output gone, or given twice.
  { cat "$A/facts"; cat "$A/sessions.0" "$A/sessions.1" | sed '/^c:/d'; cat "$A"/reuse.[0-9]*; } > "$neg/nosessiontask"
  merge_refuses "a session task's output missing" 3 "stage sessions: " "$neg/nosessiontask"
  { cat "$neg/good"; sed '/^c:/d' "$A/sessions.2"; } > "$neg/twice"
  merge_refuses "a session task's output twice" 3 "stage sessions: a task's output is given twice" "$neg/twice"
  # The plan of another job.
  merge_refuses "a plan of another job" 3 "another job" "$neg/good" "$neg/b/job.plan"
  # Lines of another job added.
  { cat "$neg/good"; grep -a "^tally$tab" "$neg/b"/sessions.0; } > "$neg/foreign"
  merge_refuses "a tally line of another job" 3 "another job" "$neg/foreign"

  # stage sessions fed the events of two jobs: it cannot tell them apart
  # (the event lines carry no job id), the merge can: it names the step.
  LC_ALL=C sort "$A/events.0" "$neg/b"/events.[0-9]* > "$neg/two-jobs.events"
  "$bin" stage sessions --plan "$A/job.plan" --facts "$A/facts" < "$neg/two-jobs.events" > "$neg/two-jobs.out" 2> "$neg/err"
  st=$?
  if [ $st = 0 ]; then
    { cat "$A/facts"; cat "$neg/two-jobs.out" "$A/sessions.1" "$A/sessions.2" | sed '/^c:/d'; cat "$A"/reuse.[0-9]*; } > "$neg/two-jobs"
    merge_refuses "stage sessions fed events of two jobs" 3 "stage sessions: " "$neg/two-jobs"
  elif [ $st = 2 ] && [ "$(wc -l < "$neg/err")" = 1 ]; then
    ok "lines between steps: stage sessions fed events of two jobs (refused by the stage itself, exit 2)"
  else
    ko "lines between steps: stage sessions fed events of two jobs" "exit $st: $(head -c 300 "$neg/err")"
  fi
  # The session stage takes no facts of another job.
  stage_check "sessions refuses the facts of another job" 2 "$A/events.0" sessions --plan "$A/job.plan" --facts "$neg/b/facts"

  # stage codes: a rank the plan lacks is refused; a changed time is not
  # the line the session stage wrote, which the merge finds.
  LC_ALL=C sort "$A/codes.0" > "$neg/codes.sorted"
  awk -F'\t' -v OFS='\t' 'NR == 1 { $3 = "0000000099" } { print }' "$neg/codes.sorted" > "$neg/codes.rank"
  stage_check "codes refuses a rank the plan lacks" 2 "$neg/codes.rank" codes --plan "$A/job.plan"
  awk -F'\t' -v OFS='\t' 'NR == 1 { $2 = substr($2, 1, 19) (substr($2, 20, 1) == "9" ? "8" : "9") } { print }' "$neg/codes.sorted" |
    LC_ALL=C sort > "$neg/codes.time"
  "$bin" stage codes --plan "$A/job.plan" < "$neg/codes.time" > "$neg/reuse.time" 2> "$neg/err"
  st=$?
  if [ $st = 0 ]; then
    { cat "$A/facts"; cat "$A"/sessions.[0-9]* | sed '/^c:/d'; cat "$neg/reuse.time" "$A/reuse.1" "$A/reuse.2"; } > "$neg/timed"
    merge_refuses "a code line whose time was changed" 3 "stage codes: " "$neg/timed"
  else
    ko "lines between steps: a code line whose time was changed" "stage codes exit $st: $(head -c 300 "$neg/err")"
  fi

  # stage merge checks its outputs against its plan and inputs first.
  cp "$A/job.plan" "$neg/plan.copy"
  "$bin" stage merge --plan "$neg/plan.copy" --json "$neg/plan.copy" < "$neg/good" > /dev/null 2> "$neg/err"
  st=$?
  if [ $st = 2 ] && cmp -s "$neg/plan.copy" "$A/job.plan" && [ "$(wc -l < "$neg/err")" = 1 ]; then
    ok "merge --json onto its own plan: exit 2, plan intact"
  else ko "merge --json onto its own plan" "exit $st: $(head -c 300 "$neg/err")"; fi
  cp "$neg/good" "$neg/good.copy"
  "$bin" stage merge --plan "$A/job.plan" --json "$neg/good.copy" "$neg/good.copy" > /dev/null 2> "$neg/err"
  st=$?
  if [ $st = 2 ] && cmp -s "$neg/good.copy" "$neg/good"; then ok "merge --json onto its input file: exit 2, input intact"
  else ko "merge --json onto its input file" "exit $st: $(head -c 300 "$neg/err")"; fi
  "$bin" stage merge --plan "$A/job.plan" --csv "$neg/csvin" --json "$neg/good.copy" < "$neg/good.copy" > /dev/null 2> "$neg/err"
  st=$?
  if [ $st = 2 ] && cmp -s "$neg/good.copy" "$neg/good"; then ok "merge --json onto the file on its standard input: exit 2, input intact"
  else ko "merge --json onto the file on its standard input" "exit $st: $(head -c 300 "$neg/err")"; fi

  # stage plan takes regular files and folders only: a stream, a FIFO or
  # a device would be read by one task (or hang it), not shared out.
  mkfifo "$neg/fifo"
  for input in - /dev/stdin "$neg/fifo" /dev/null; do
    timeout 30 "$bin" stage plan "$input" < "$A/facts" > "$neg/plan.out" 2> "$neg/err"
    st=$?
    if [ $st = 2 ] && [ "$(wc -l < "$neg/err")" = 1 ] && grep -qF -- "$input" "$neg/err" && [ ! -s "$neg/plan.out" ]; then
      ok "stage plan refuses $(basename "$input") (exit 2, named)"
    else ko "stage plan refuses $input" "exit $st: $(head -c 300 "$neg/err")"; fi
  done
fi
echo "shell part: $(($(date +%s) - started)) s"

# ---- Spark (contrib/spark/flipaudit_spark.py on local[2]) ------------------
venv=${SPARK_VENV:-$root/.build/spark-venv}
spark_setup() {
  if ! "$venv/bin/python" -c 'import pyspark' 2> /dev/null; then
    local t0
    t0=$(date +%s)
    if ! python3 -m venv "$venv" > "$work/venv.log" 2>&1; then
      # Debian's python3 keeps ensurepip in python3-venv.
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv; } >> "$work/venv.log" 2>&1
      rm -rf "$venv"
      python3 -m venv "$venv" >> "$work/venv.log" 2>&1 || { echo "python3 -m venv failed: $(tail -3 "$work/venv.log")"; return 1; }
    fi
    "$venv/bin/pip" install -q pyspark==4.3.0 >> "$work/venv.log" 2>&1 ||
      { echo "pip install pyspark==4.3.0 failed: $(tail -3 "$work/venv.log")"; return 1; }
    echo "made $venv with pyspark 4.3.0 in $(($(date +%s) - t0)) s"
  fi
  if ! command -v java > /dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless; } > "$work/java.log" 2>&1 ||
      { echo "apt-get install openjdk-17-jre-headless failed: $(tail -3 "$work/java.log")"; return 1; }
  fi
  return 0
}
spark_partitions() { case "$1" in samples) echo 2 ;; options) echo 3 ;; *) echo 7 ;; esac; }
if [ "${SKIP_SPARK:-0}" = 1 ]; then
  skip "spark" "SKIP_SPARK=1"
elif ! msg=$(spark_setup); then
  ko "spark: setup" "$msg"
else
  [ -n "$msg" ] && echo "$msg"
  export SPARK_LOCAL_IP=127.0.0.1
  for c in ${SPARK_CASES:-samples options cross-args broken tiers}; do
    case_args "$c"
    d=$work/$c/spark
    mkdir -p "$d"
    t0=$(date +%s)
    set_outputs "$d"
    timeout 600 "$venv/bin/python" contrib/spark/flipaudit_spark.py --master 'local[2]' --flipaudit "$bin" \
      --partitions "$(spark_partitions "$c")" --files-per-task 2 --stats \
      "${outs[@]}" "${out_opts[@]}" "${audit[@]}" > "$d/stdout" 2> "$d/stderr"
    echo $? > "$d/status"
    verdict "$c: spark local[2] ($(($(date +%s) - t0)) s)" "$work/$c/one" "$d"
    grep '^flipaudit_spark.py: ' "$d/stderr" | sed 's/^/    /'
    # The outputs' modes are one process's (the caller's umask), not the
    # private work folder's.
    modes() { (cd "$1" && stat -c '%a %n' csv csv/*.csv report.json report.html 2> /dev/null); }
    if [ "$(modes "$work/$c/one")" = "$(modes "$d")" ]; then
      ok "$c: spark local[2] outputs have one process's modes ($(modes "$d" | head -2 | cut -d' ' -f1 | tr '\n' ' '))"
    else
      ko "$c: spark local[2] output modes" "$(modes "$d" | tr '\n' ' ') vs one process $(modes "$work/$c/one" | tr '\n' ' ')"
    fi
  done
  # A stage process killed (SIGKILL): a local master gets task attempts
  # (local[2] runs as local[2,4]), so a stage killed once is retried and
  # the reports are one process's; a stage killed at every attempt is one
  # line naming it, and exit 70. The binary is a wrapper that kills its
  # `stage sessions` (once, or always) and runs the real one otherwise.
  if [ "${SPARK_KILL:-1}" = 1 ]; then
    for mode in once always; do
      c=cross
      case_args "$c"
      d=$work/$c/spark-kill-$mode
      mkdir -p "$d"
      if [ $mode = once ]; then
        printf '#!/bin/sh\nif [ "$2" = sessions ] && mkdir %s 2>/dev/null; then kill -9 $$; fi\nexec %s "$@"\n' "$d/killed" "$bin" > "$d/flipaudit"
      else
        printf '#!/bin/sh\nif [ "$2" = sessions ]; then kill -9 $$; fi\nexec %s "$@"\n' "$bin" > "$d/flipaudit"
      fi
      chmod 755 "$d/flipaudit"
      t0=$(date +%s)
      set_outputs "$d"
      timeout 600 "$venv/bin/python" contrib/spark/flipaudit_spark.py --master 'local[2]' --flipaudit "$d/flipaudit" \
        --partitions 2 "${outs[@]}" "${out_opts[@]}" "${audit[@]}" > "$d/stdout" 2> "$d/stderr"
      echo $? > "$d/status"
      if [ $mode = once ]; then
        if [ -d "$d/killed" ]; then
          verdict "$c: spark local[2], a stage sessions process killed once: retried ($(($(date +%s) - t0)) s)" "$work/$c/one" "$d"
        else
          ko "$c: spark local[2], a stage killed once" "the wrapper never killed a stage"
        fi
      else
        st=$(cat "$d/status")
        msg=$(grep -a '^flipaudit_spark.py: ' "$d/stderr" | grep -v ' wall \| shuffled ')
        if [ "$st" = 70 ] && [ "$(printf '%s\n' "$msg" | wc -l)" = 1 ] && [ ! -e "$d/csv" ] &&
          printf '%s' "$msg" | grep -q 'flipaudit stage sessions failed (exit 70): killed by signal 9'; then
          ok "$c: spark local[2], stage sessions killed at every attempt: exit 70, one line ($(($(date +%s) - t0)) s)"
        else
          ko "$c: spark local[2], stage sessions killed at every attempt" "exit $st, $(ls "$d" | tr '\n' ' '): $msg"
        fi
      fi
    done
  fi
fi

echo "total: $(($(date +%s) - started)) s"
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
