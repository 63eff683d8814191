#!/usr/bin/env bash
# A flipaudit audit as three Hadoop Streaming jobs plus a merge on the edge
# node, with the outputs and exit status of one process. README.md beside
# this file explains each job; local-run.sh runs the same steps without
# Hadoop.
#
#   HADOOP_STREAMING_JAR=/path/to/hadoop-streaming-X.Y.Z.jar \
#   hadoop-jobs.sh [-r REDUCERS] [-n FILES_PER_MAP] [-k] BIN HDFS_WORK LOCAL_WORK \
#                  [merge options] -- [audit options] INPUTS...
#
#   BIN          the flipaudit binary (a release build, linked with
#                --static-swift-stdlib: the worker nodes need only libz,
#                libisal2 and libjemalloc); shipped to the tasks with
#                -files, unless FLIPAUDIT_ON_NODES names the path where it
#                is installed on every node
#   HDFS_WORK    a directory in HDFS that does not exist yet: the jobs'
#                input and outputs (made mode 700, removed at the end unless -k)
#   LOCAL_WORK   a local directory on the edge node (made mode 700): the
#                plan (it holds the job's key), the facts, the merge input
#   merge options  to `flipaudit stage merge`: --csv DIR, --json FILE|-,
#                --html FILE, --metrics FILE, --fail-on SEVERITY, --quiet,
#                --no-color
#   audit options and INPUTS: to `flipaudit stage plan`, as to one process.
#                Every input must be readable at the same path on every
#                worker node (a shared mount): the read stage opens the files
#                itself; it does not read HDFS.
#
#   -r REDUCERS       reduce tasks of jobs 2 and 3 (default 8)
#   -n FILES_PER_MAP  plan file lines per map task of job 1 (default 1)
#   -k                keep HDFS_WORK
#
# Environment: HADOOP (default `hadoop`), HADOOP_STREAMING_JAR (required),
# FLIPAUDIT_ON_NODES, TASK_TIMEOUT_MS (mapreduce.task.timeout of the
# read and reduce tasks, default 7200000: a stage may read for long without
# writing a line).
#
# Exit status: the merge's (0 clean, 1 a finding at or above --fail-on,
# 3 an input not read completely, 4 an output not written); `stage plan`'s
# when it fails (2); 2 for a usage error; 5 when a Hadoop job or command
# fails (the failed task's stderr, with the stage's one-line message, is in
# the job's task logs: `yarn logs -applicationId ...`).
#
# This script was written from the Hadoop 3 streaming documentation and
# source and checked against Tests/distributed/fake-hadoop.py, a stand-in
# that runs the same command lines locally; it has not been run on a real
# cluster.
set -uo pipefail

reducers=8
per_map=1
keep=0
usage() {
  echo "usage: hadoop-jobs.sh [-r REDUCERS] [-n FILES_PER_MAP] [-k] BIN HDFS_WORK LOCAL_WORK [merge options] -- [audit options] INPUTS..." >&2
  exit 2
}
while getopts "r:n:k" o; do
  case "$o" in
    r) reducers=$OPTARG ;;
    n) per_map=$OPTARG ;;
    k) keep=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || usage
bin=$1 hdfs=$2 local=$3
shift 3
case "$reducers" in '' | *[!0-9]* | 0) usage ;; esac
case "$per_map" in '' | *[!0-9]* | 0) usage ;; esac
merge_opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do merge_opts+=("$1"); shift; done
[ $# -gt 0 ] || { echo "hadoop-jobs.sh: no -- before the audit options and inputs" >&2; usage; }
shift
audit=("$@")

HADOOP=${HADOOP:-hadoop}
jar=${HADOOP_STREAMING_JAR:-}
[ -n "$jar" ] || { echo "hadoop-jobs.sh: set HADOOP_STREAMING_JAR (e.g. \$HADOOP_HOME/share/hadoop/tools/lib/hadoop-streaming-*.jar)" >&2; exit 2; }
timeout_ms=${TASK_TIMEOUT_MS:-7200000}
case "$bin" in */*) bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") ;; *) bin=$(command -v "$bin") ;; esac
[ -x "$bin" ] || { echo "hadoop-jobs.sh: $bin is not executable" >&2; exit 2; }
# What the tasks run: the shipped copy (a symlink in the task's directory,
# which streaming finds before PATH), or the one installed on every node.
if [ -n "${FLIPAUDIT_ON_NODES:-}" ]; then
  task_bin=$FLIPAUDIT_ON_NODES
  ship_bin=""
else
  task_bin=$(basename "$bin")
  ship_bin="$bin,"
fi
case "$task_bin$local" in *" "* | *,*) echo "hadoop-jobs.sh: no spaces or commas in BIN and LOCAL_WORK (streaming splits commands at spaces, -files at commas)" >&2; exit 2 ;; esac

umask 077
mkdir -p "$local" || exit 2
tab=$'\t'
die() { echo "hadoop-jobs.sh: $1" >&2; exit 5; }

# 0. The plan, on the edge node. Later stages take every audit option from it.
"$bin" stage plan "${audit[@]}" > "$local/job.plan"
st=$?
[ $st = 0 ] || exit $st
grep -a "^file$tab" "$local/job.plan" > "$local/files" || : > "$local/files"

"$HADOOP" fs -test -e "$hdfs" && die "$hdfs exists already (give a new HDFS_WORK)"
"$HADOOP" fs -mkdir -p "$hdfs" || die "cannot make $hdfs"
"$HADOOP" fs -chmod 700 "$hdfs" || die "cannot make $hdfs private"
cleanup() { [ "$keep" = 1 ] || "$HADOOP" fs -rm -r -f -skipTrash "$hdfs" > /dev/null 2>&1; }
trap cleanup EXIT
"$HADOOP" fs -put "$local/files" "$hdfs/files" || die "cannot put the file list into $hdfs"

# 1. Map only: each map task gets FILES_PER_MAP `file` lines
#    (NLineInputFormat) and runs the read stage over them. Without
#    stream.map.input.ignoreKey=true, streaming would put NLineInputFormat's
#    key (the line's byte offset) and a tab before each line, which the read
#    stage also accepts. keyonlytext: each output line is the whole key, with
#    no tab added.
"$HADOOP" jar "$jar" \
  -D mapreduce.job.name="flipaudit 1/3: read" \
  -D mapreduce.input.lineinputformat.linespermap="$per_map" \
  -D stream.map.input.ignoreKey=true \
  -D stream.map.output=keyonlytext \
  -D mapreduce.map.speculative=false \
  -D mapreduce.task.timeout="$timeout_ms" \
  -files "$ship_bin$local/job.plan" \
  -inputformat org.apache.hadoop.mapred.lib.NLineInputFormat \
  -cmdenv LC_ALL=C \
  -input "$hdfs/files" \
  -output "$hdfs/mapped" \
  -mapper "$task_bin stage read --plan job.plan" \
  -numReduceTasks 0 ||
  die "job 1 (read) failed"

# The facts of every file: a side file that every reducer of job 2 reads whole.
"$HADOOP" fs -cat "$hdfs/mapped/part-*" | grep -a "^facts$tab" > "$local/facts"
[ "${PIPESTATUS[0]}" = 0 ] || die "cannot read $hdfs/mapped"

# 2. The session stage. The map output key is the whole line (keyonlytext),
#    so the shuffle sorts whole lines as bytes (Text's comparator); the
#    partitioner hashes only the key's first tab-separated field (-k1,1),
#    so every line of one state, or of one stateless record, reaches the
#    same reducer, sorted. The reducer gets each line as it was (keyonlytext
#    input: the key and a newline, no tab) and writes lines with no tab
#    added (keyonlytext output).
"$HADOOP" jar "$jar" \
  -D mapreduce.job.name="flipaudit 2/3: sessions" \
  -D stream.map.output=keyonlytext \
  -D stream.reduce.input=keyonlytext \
  -D stream.reduce.output=keyonlytext \
  -D mapreduce.partition.keypartitioner.options=-k1,1 \
  -D mapreduce.reduce.speculative=false \
  -D mapreduce.task.timeout="$timeout_ms" \
  -files "$ship_bin$local/job.plan,$local/facts" \
  -partitioner org.apache.hadoop.mapred.lib.KeyFieldBasedPartitioner \
  -cmdenv LC_ALL=C \
  -input "$hdfs/mapped" \
  -output "$hdfs/sessions" \
  -mapper "sed /^facts/d" \
  -reducer "$task_bin stage sessions --plan job.plan --facts facts" \
  -numReduceTasks "$reducers" ||
  die "job 2 (sessions) failed"

# 3. The code stage: the `c:` lines of job 2, shuffled the same way by code.
"$HADOOP" jar "$jar" \
  -D mapreduce.job.name="flipaudit 3/3: codes" \
  -D stream.map.output=keyonlytext \
  -D stream.reduce.input=keyonlytext \
  -D stream.reduce.output=keyonlytext \
  -D mapreduce.partition.keypartitioner.options=-k1,1 \
  -D mapreduce.reduce.speculative=false \
  -D mapreduce.task.timeout="$timeout_ms" \
  -files "$ship_bin$local/job.plan" \
  -partitioner org.apache.hadoop.mapred.lib.KeyFieldBasedPartitioner \
  -cmdenv LC_ALL=C \
  -input "$hdfs/sessions" \
  -output "$hdfs/codes" \
  -mapper "sed -n /^c:/p" \
  -reducer "$task_bin stage codes --plan job.plan" \
  -numReduceTasks "$reducers" ||
  die "job 3 (codes) failed"

# 4. The merge, on the edge node: the facts, job 2's lines but its code
#    lines, and job 3's reuse lines, in any order.
{
  cat "$local/facts" &&
    "$HADOOP" fs -cat "$hdfs/sessions/part-*" | sed '/^c:/d' &&
    "$HADOOP" fs -cat "$hdfs/codes/part-*"
} > "$local/merge.in" || die "cannot read the outputs of jobs 2 and 3"
"$bin" stage merge --plan "$local/job.plan" "${merge_opts[@]}" < "$local/merge.in"
exit $?
