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
# then contrib/spark/flipaudit_spark.py on local[2]. Each run must match one
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

# ---- the cases: NAME -> output options (to merge) and audit arguments ----
CASES="samples options cross cross-args broken missing"
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
  esac
}

# set_outputs DIR: outs=(the output options of a run writing into DIR).
set_outputs() { outs=(--csv "$1/csv" --json "$1/report.json" --html "$1/report.html" --metrics "$1/metrics.prom" --no-color); }

# same REF DIR: what differs between two runs' outputs ("" when nothing).
same() {
  local ref=$1 dir=$2 diffs=""
  [ "$(cat "$ref/status")" = "$(cat "$dir/status")" ] ||
    diffs="$diffs exit $(cat "$ref/status") vs $(cat "$dir/status");"
  for f in csv/sessions.csv csv/findings.csv csv/error_distribution.csv report.json report.html stdout; do
    if [ ! -e "$dir/$f" ] && [ ! -e "$ref/$f" ]; then continue; fi
    cmp -s "$ref/$f" "$dir/$f" || diffs="$diffs $f differs;"
  done
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
  head -c 200 "$plan" > "$work/cut.plan"
  stage_check "a cut plan is refused" 2 "$work/empty" codes --plan "$work/cut.plan"
else
  ko "contract" "no event lines in $w/events.0 to check with"
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
  for c in ${SPARK_CASES:-samples options cross-args broken}; do
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
  done
fi

echo "total: $(($(date +%s) - started)) s"
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
