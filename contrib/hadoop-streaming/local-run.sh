#!/usr/bin/env bash
# The Hadoop Streaming jobs of hadoop-jobs.sh, run on this machine with
# shell tools: map | partition | LC_ALL=C sort | reduce, twice, then the
# merge. No Hadoop needed; used by Tests/distributed/run.sh to show that
# the stage pipeline gives the bytes of one process.
#
#   local-run.sh [--mappers K] [--reverse] [--offset-keys] [--hash hadoop|crc32]
#                BIN REDUCERS WORKDIR [merge options] -- [audit options] INPUTS...
#
#   BIN            the flipaudit binary
#   REDUCERS       parts of each shuffle (reducer processes per reduce stage)
#   WORKDIR        made (mode 700) if missing; holds job.plan (which holds
#                  the job's key: keep it private), the map, shuffle and
#                  reduce files; left in place for a look
#   merge options  what `flipaudit stage merge` takes: --csv DIR, --json
#                  FILE|-, --html FILE, --metrics FILE, --fail-on SEVERITY,
#                  --quiet, --no-color
#   audit options  and INPUTS go to `flipaudit stage plan` only, exactly as
#                  to one process
#
#   --mappers K    split the plan's file lines over K read processes
#                  (round-robin; run at the same time), as K map tasks
#                  (default 1; env FLIPAUDIT_MAPPERS)
#   --reverse      hand the file lines to the mappers last first
#                  (env FLIPAUDIT_REVERSE=1)
#   --offset-keys  put "BYTEOFFSET<tab>" before each file line, as Hadoop's
#                  NLineInputFormat does when stream.map.input.ignoreKey is
#                  not set (env FLIPAUDIT_OFFSET_KEYS=1)
#   --hash H       how a key picks its part: hadoop (KeyFieldBasedPartitioner's
#                  hash, the default) or crc32 (the Spark driver's)
#
# Exit status: the merge's (0, 1, 3, 4 as one process), or the status of
# the first stage that failed (2 for malformed or unsorted stage input),
# with a line on standard error naming it.
set -u
here=$(cd "$(dirname "$0")" && pwd)

mappers=${FLIPAUDIT_MAPPERS:-1}
reverse=${FLIPAUDIT_REVERSE:-0}
offset_keys=${FLIPAUDIT_OFFSET_KEYS:-0}
hash=hadoop
usage() {
  echo "usage: local-run.sh [--mappers K] [--reverse] [--offset-keys] [--hash hadoop|crc32] BIN REDUCERS WORKDIR [merge options] -- [audit options] INPUTS..." >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --mappers) [ $# -ge 2 ] || usage; mappers=$2; shift 2 ;;
    --reverse) reverse=1; shift ;;
    --offset-keys) offset_keys=1; shift ;;
    --hash) [ $# -ge 2 ] || usage; hash=$2; shift 2 ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 3 ] || usage
bin=$1 reducers=$2 work=$3
shift 3
case "$reducers" in '' | *[!0-9]* | 0) usage ;; esac
case "$mappers" in '' | *[!0-9]* | 0) usage ;; esac
merge_opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do merge_opts+=("$1"); shift; done
[ $# -gt 0 ] || { echo "local-run.sh: no -- before the audit options and inputs" >&2; usage; }
shift
audit=("$@")

case "$bin" in */*) bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") ;; *) bin=$(command -v "$bin") ;; esac
[ -x "$bin" ] || { echo "local-run.sh: $bin is not executable" >&2; exit 2; }

umask 077
mkdir -p "$work" || exit 2
export LC_ALL=C
tab=$'\t'
export TMPDIR=${TMPDIR:-/tmp}

# fail STAGE STATUS [STDERR-FILE]: report the first failed stage (and what
# it said) and stop with its status.
fail() {
  echo "local-run.sh: $1 exited with status $2" >&2
  if [ -n "${3:-}" ] && [ -s "$3" ]; then tail -5 "$3" >&2; fi
  exit "$2"
}

# 1. The plan, on the "edge node".
"$bin" stage plan "${audit[@]}" > "$work/job.plan"
st=$?
[ $st = 0 ] || fail "stage plan" $st
plan=$work/job.plan

# 2. Map: the file lines, in K parts, each through one read process.
grep -a "^file$tab" "$plan" > "$work/files" || : > "$work/files"
if [ "$reverse" = 1 ]; then tac "$work/files" > "$work/files.r" && mv "$work/files.r" "$work/files"; fi
if [ "$offset_keys" = 1 ]; then
  # NLineInputFormat's key: the byte offset of the line in the input file.
  awk 'BEGIN { o = 0 } { printf "%d\t%s\n", o, $0; o += length($0) + 1 }' "$work/files" > "$work/files.k" &&
    mv "$work/files.k" "$work/files"
fi
rm -rf "$work"/map.* "$work"/events.* "$work"/codes.* "$work/logs"
mkdir -p "$work/logs" || exit 2
awk -v k="$mappers" -v p="$work/map" '{ print > (p "." ((NR - 1) % k) ".in") }' "$work/files"
pids=()
names=()
for ((i = 0; i < mappers; i++)); do
  [ -e "$work/map.$i.in" ] || continue
  # A task's standard error goes to its log, as on a cluster: the merge
  # reports the inputs' problems (from the facts) as one process does.
  "$bin" stage read --plan "$plan" < "$work/map.$i.in" > "$work/map.$i.out" 2> "$work/logs/map.$i" &
  pids+=($!)
  names+=("$i")
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}"
  st=$?
  [ $st = 0 ] || fail "stage read (mapper ${names[$i]})" $st "$work/logs/map.${names[$i]}"
done

# The facts of every file: a side file that every reducer gets whole.
cat /dev/null "$work"/map.*.out 2>/dev/null | grep -a "^facts$tab" > "$work/facts"
# 3. Shuffle 1: event lines by their first field; sort each part as bytes.
cat /dev/null "$work"/map.*.out 2>/dev/null | sed "/^facts$tab/d" |
  python3 "$here/partition.py" --hash "$hash" "$reducers" "$work/events" || fail "the event shuffle" 2
rm -f "$work"/sessions.[0-9]*
pids=()
for ((i = 0; i < reducers; i++)); do
  (set -o pipefail; sort "$work/events.$i" |
    "$bin" stage sessions --plan "$plan" --facts "$work/facts" > "$work/sessions.$i" 2> "$work/logs/sessions.$i") &
  pids+=($!)
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}"
  st=$?
  [ $st = 0 ] || fail "stage sessions (reducer $i)" $st "$work/logs/sessions.$i"
done

# 4. Shuffle 2: the code lines of every session reducer, by code.
cat "$work"/sessions.[0-9]* | grep -a '^c:' |
  python3 "$here/partition.py" --hash "$hash" "$reducers" "$work/codes" || fail "the code shuffle" 2
rm -f "$work"/reuse.[0-9]*
pids=()
for ((i = 0; i < reducers; i++)); do
  (set -o pipefail; sort "$work/codes.$i" | "$bin" stage codes --plan "$plan" > "$work/reuse.$i" 2> "$work/logs/codes.$i") &
  pids+=($!)
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}"
  st=$?
  [ $st = 0 ] || fail "stage codes (reducer $i)" $st "$work/logs/codes.$i"
done

# 5. Merge on the "edge node": facts, the session reducers' own lines, reuse.
{
  cat "$work/facts"
  cat "$work"/sessions.[0-9]* | sed '/^c:/d'
  cat "$work"/reuse.[0-9]*
} | "$bin" stage merge --plan "$plan" "${merge_opts[@]}"
exit $?
