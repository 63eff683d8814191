#!/usr/bin/env bash
# The three jobs of hadoop-jobs.sh, run by madoop (pip install madoop), a
# MapReduce emulator with Hadoop Streaming's contract: a mapper and a
# reducer are executables that filter lines; map output is partitioned by
# its key (the text before the first tab, by an MD5 hash) and each part is
# sorted by the whole line before its reducer reads it. Then the merge.
#
#   madoop-jobs.sh [-r REDUCERS] BIN WORKDIR [merge options] -- [audit options] INPUTS...
#
#   BIN            the flipaudit binary
#   WORKDIR        made (mode 700); must be empty or missing. Holds job.plan
#                  (the job's key: keep it private), the task executables
#                  and each job's input and output; left in place for a look
#   -r REDUCERS    reducers of each job (default 3)
#   merge options  and audit options as for hadoop-jobs.sh
#
# madoop differs from hadoop-jobs.sh's Hadoop in three ways this script
# follows: a task is an executable run without arguments (so each stage
# command is written into a small script in WORKDIR/bin), every job has a
# reduce (-numReduceTasks 0 is not supported: job 1's reducer is `cat`),
# and madoop reads its input and writes its output on the local file
# system (no HDFS, no -files, no NLineInputFormat: the plan's file lines
# go to one mapper per 10 MB of them).
#
# Exit status: the merge's (0, 1, 3, 4 as one process); the plan's when it
# fails; 5 with a line naming the job when madoop fails.
set -u
reducers=3
usage() {
  echo "usage: madoop-jobs.sh [-r REDUCERS] BIN WORKDIR [merge options] -- [audit options] INPUTS..." >&2
  exit 2
}
while getopts "r:" o; do
  case "$o" in
    r) reducers=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || usage
bin=$1 work=$2
shift 2
case "$reducers" in '' | *[!0-9]* | 0) usage ;; esac
merge_opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do merge_opts+=("$1"); shift; done
[ $# -gt 0 ] || { echo "madoop-jobs.sh: no -- before the audit options and inputs" >&2; usage; }
shift
audit=("$@")
MADOOP=${MADOOP:-madoop}
case "$bin" in */*) bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") ;; *) bin=$(command -v "$bin") ;; esac
[ -x "$bin" ] || { echo "madoop-jobs.sh: $bin is not executable" >&2; exit 2; }

umask 077
mkdir -p "$work" || exit 2
work=$(cd "$work" && pwd)
[ -z "$(ls -A "$work")" ] || { echo "madoop-jobs.sh: $work is not empty" >&2; exit 2; }
tab=$'\t'
die() { echo "madoop-jobs.sh: $1" >&2; exit 5; }

"$bin" stage plan "${audit[@]}" > "$work/job.plan"
st=$?
[ $st = 0 ] || exit $st
mkdir "$work/files" "$work/bin"
grep -a "^file$tab" "$work/job.plan" > "$work/files/part-00000" || : > "$work/files/part-00000"

# task NAME COMMAND...: a bash script that runs COMMAND (madoop gives a
# task no arguments).
task() {
  local name=$1
  shift
  { printf '#!/usr/bin/env bash\nexec'; printf ' %q' "$@"; printf '\n'; } > "$work/bin/$name"
  chmod 700 "$work/bin/$name"
}
task read "$bin" stage read --plan "$work/job.plan"
task identity cat
task events sed "/^facts$tab/d"
task sessions "$bin" stage sessions --plan "$work/job.plan" --facts "$work/facts"
task codes-only sed -n '/^c:/p'
task codes "$bin" stage codes --plan "$work/job.plan"

# job IN OUT MAPPER REDUCER
job() {
  LC_ALL=C.UTF-8 "$MADOOP" -numReduceTasks "$reducers" -input "$work/$1" -output "$work/$2" \
    -mapper "$work/bin/$3" -reducer "$work/bin/$4" > "$work/$2.log" 2>&1 ||
    die "job $2 failed: $(grep -v '^INFO' "$work/$2.log" | tail -3)"
}
# The parts of a job's output (madoop writes none for an empty partition).
parts() { find "$work/$1" -name 'part-*' -type f | LC_ALL=C sort; }

job files mapped read identity
parts mapped | xargs -r cat | grep -a "^facts$tab" > "$work/facts"
job mapped sessions events sessions
job sessions reuse codes-only codes
{
  cat "$work/facts"
  parts sessions | xargs -r cat | sed '/^c:/d'
  parts reuse | xargs -r cat
} > "$work/merge.in" || die "cannot read the outputs of the jobs"
"$bin" stage merge --plan "$work/job.plan" "${merge_opts[@]}" < "$work/merge.in"
