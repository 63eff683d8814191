#!/usr/bin/env bash
# "Nothing shared but the logs": contrib/spark/flipaudit_spark.py, started
# with spark-submit, on a Spark standalone cluster whose workers see
# nothing of the driver but the logs.
#
#   bash Tests/distributed/cluster.sh [path/to/flipaudit]   (default .build/debug/flipaudit)
#
# A master and two workers are started from the PySpark install (bound to
# 127.0.0.1). Each worker runs in a mount namespace of its own
# (`unshare -m`) with a private /tmp (a tmpfs) and an empty tmpfs over
# the driver's work folder, the folder of the driver's flipaudit binary
# and the driver venv's bin/ (its Python): a task can reach the binary,
# the plan and the facts only through Spark. The logs, and Spark's own
# logs, are in folders everyone sees. Then:
#
#   1. the cross-file fixtures named out of order: the reports and the
#      exit status of one process, byte for byte (docs/contract.md §10);
#   2. SampleLogs with one worker killed (SIGKILL to its JVM, its executor
#      and their children) while a flipaudit stage runs on it: the same;
#   3. the fixtures named as file:// URIs, read through Spark's Hadoop
#      file system layer (binaryFiles into `stage read --stdin-name`): the
#      reports of one process but for the `file://` in the source column;
#   4. a URI that no worker can read: exit 3 before the job, no output.
#
# Needs root (unshare -m, mount). Without it, or with SKIP_SPARK=1, the
# test is reported as skipped. SPARK_VENV as in run.sh (the venv and Java
# are set up as run.sh does when missing). Last line: "N passed, N failed
# [, N skipped]".
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
bin=${1:-${FLIPAUDIT:-$root/.build/debug/flipaudit}}
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
. "$root/Tests/tally.sh"
[ -x "$bin" ] || { echo "no binary at $bin (swift build first)"; echo "0 passed, 1 failed"; exit 1; }

finish() {
  if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"; else echo "$passed passed, $failed failed"; fi
  [ "$failed" = 0 ]
  exit
}
if [ "${SKIP_SPARK:-0}" = 1 ]; then skip "cluster" "SKIP_SPARK=1"; finish; fi
if ! unshare -m true 2> /dev/null; then skip "cluster" "unshare -m is not allowed here (needs root)"; finish; fi

venv=${SPARK_VENV:-$root/.build/spark-venv}
# The venv and Java as run.sh makes them (CI runs run.sh first).
if ! "$venv/bin/python" -c 'import pyspark' 2> /dev/null; then
  { python3 -m venv "$venv" && "$venv/bin/pip" install -q pyspark==4.3.0; } > /dev/null 2>&1
fi
if ! command -v java > /dev/null; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless; } > /dev/null 2>&1
fi
"$venv/bin/python" -c 'import pyspark' 2> /dev/null || { ko "cluster: setup" "no pyspark in $venv"; finish; }
spark_home=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')

# Everything of this test lives under .build (not /tmp: the workers have a
# /tmp of their own). logs/ and spark-logs/ are seen by all; driver-bin/
# and driver-work/ by the driver only.
base=$(mktemp -d "$root/.build/cluster-test.XXXXXX")
pids=()
# kill_session PID: SIGKILL to every process of the session PID leads
# (setsid made it; Spark's Python daemon moves its workers to process
# groups of their own, not out of the session).
kill_session() {
  local victims
  victims=$(pgrep -s "$1")
  [ -n "$victims" ] && kill -9 $victims 2> /dev/null
  return 0
}
cleanup() {
  local p
  for p in "${pids[@]}"; do kill_session "$p"; done
  if [ "${KEEP:-0}" = 1 ]; then echo "kept: $base"; else rm -rf "$base"; fi
}
trap cleanup EXIT
mkdir -p "$base/logs" "$base/spark-logs" "$base/driver-bin" "$base/driver-work" "$base/out"
cp "$bin" "$base/driver-bin/flipaudit"
dbin=$base/driver-bin/flipaudit
python3 Tests/distributed/make_fixtures.py "$base/logs/fx" > /dev/null || { ko "cluster: fixtures" "make_fixtures.py failed"; finish; }
cp -r SampleLogs "$base/logs/SampleLogs"
fx=$base/logs/fx

started=$(date +%s)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
export SPARK_HOME=$spark_home SPARK_LOCAL_IP=127.0.0.1 SPARK_LOG_DIR=$base/spark-logs SPARK_NO_DAEMONIZE=1
setsid "$spark_home/bin/spark-class" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$port" \
  --webui-port "$(free_port)" > "$base/spark-logs/master.log" 2>&1 &
pids+=($!)
disown
master=spark://127.0.0.1:$port

# start_worker N: a worker in a mount namespace of its own (its pid, the
# process group of everything it starts, in worker_pid[N]).
declare -A worker_pid
export ROOT=$root
start_worker() {
  setsid unshare -m --propagation private bash -c '
    set -e
    # A checkout under /tmp (a CI clone, say) stays in view: the original
    # /tmp is bound aside, the private tmpfs mounted, the checkout bound
    # back at its place, and the aside mount dropped.
    if [ "${ROOT#/tmp/}" != "$ROOT" ]; then
      aside=$(mktemp -d /dev/shm/flipaudit-aside.XXXXXX)
      mount --bind /tmp "$aside"
      mount -t tmpfs tmpfs /tmp
      mkdir -p "$ROOT"
      mount --bind "$aside/${ROOT#/tmp/}" "$ROOT"
      umount -l "$aside"
      rmdir "$aside"
    else
      mount -t tmpfs tmpfs /tmp
    fi
    for d in "$@"; do mount -t tmpfs -o ro tmpfs "$d"; done
    exec "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 \
      --cores 1 --memory 1g --work-dir "'"$base/spark-logs/worker-$1"'" --webui-port 0 "'"$master"'"
  ' worker "$base/driver-work" "$base/driver-bin" "$venv/bin" > "$base/spark-logs/worker-$1.log" 2>&1 &
  worker_pid[$1]=$!
  pids+=($!)
  disown
}
start_worker 1
start_worker 2
# Both workers registered with the master.
registered() { cat "$base/spark-logs/master.log" 2> /dev/null | grep -c 'Registering worker'; }
for _ in $(seq 1 120); do
  [ "$(registered)" -ge 2 ] && break
  sleep 0.5
done
if [ "$(registered)" -lt 2 ]; then
  ko "cluster: start" "the workers did not register: $(tail -3 "$base/spark-logs/worker-1.log")"
  finish
fi
ok "cluster: a master and two workers in their own mount namespaces ($(($(date +%s) - started)) s)"

# What a worker sees: not the driver's binary nor its work folder.
wpid=$(pgrep -f -P "${worker_pid[1]}" 'deploy.worker.Worker' | head -1)
wpid=${wpid:-${worker_pid[1]}}
if nsenter -t "$wpid" -m test -e "$dbin" || nsenter -t "$wpid" -m test -e "$venv/bin/python"; then
  ko "cluster: a worker cannot see the driver's binary or venv Python" "it can"
else
  ok "cluster: a worker sees neither the driver's binary nor its venv Python"
fi

outs() { echo --csv "$1/csv" --json "$1/report.json" --html "$1/report.html" --no-color; }
# one NAME AUDIT...: one process's run into $base/out/NAME/one.
one() {
  local d=$base/out/$1/one
  shift
  mkdir -p "$d"
  # shellcheck disable=SC2046
  "$bin" "$@" $(outs "$d") > "$d/stdout" 2> "$d/stderr"
  echo $? > "$d/status"
}
# submit NAME AUDIT...: the driver through spark-submit into $base/out/NAME/spark.
submit() {
  local d=$base/out/$1/spark
  shift
  mkdir -p "$d"
  # shellcheck disable=SC2046
  timeout 300 "$spark_home/bin/spark-submit" --master "$master" --conf spark.ui.enabled=false \
    --conf spark.shuffle.readHostLocalDisk=false --conf spark.pyspark.python=python3 --conf spark.pyspark.driver.python="$venv/bin/python" \
    contrib/spark/flipaudit_spark.py --flipaudit "$dbin" --work "$base/driver-work" --partitions 3 --stats \
    $(outs "$d") "$@" > "$d/stdout" 2> "$d/stderr"
  echo $? > "$d/status"
}
# same NAME [SED]: the Spark run's reports and status against one process's.
same() {
  local a=$base/out/$1/one b=$base/out/$1/spark f diffs=""
  [ "$(cat "$a/status")" = "$(cat "$b/status")" ] || diffs="$diffs exit $(cat "$a/status") vs $(cat "$b/status");"
  for f in csv/sessions.csv csv/findings.csv csv/error_distribution.csv report.json report.html stdout; do
    # spark-submit runs a Python driver with its standard error on its
    # standard output: the summary is what is left without the messages.
    if [ "$f" = stdout ]; then
      cmp -s "$a/$f" <(grep -av -e '^flipaudit: ' -e '^flipaudit_spark.py: ' -e '^\[flipaudit stage ' "$b/$f" | sed "${2:-}") ||
        diffs="$diffs $f differs;"
    elif [ "$f" = report.html ]; then
      # The page but for the run's own date (docs/contract.md §10).
      local rundate='s|run <time>[^<]*</time>|run <time></time>|'
      cmp -s <(sed "$rundate" "$a/$f") <(sed "${2:-}" "$b/$f" | sed "$rundate") || diffs="$diffs $f differs;"
    else
      cmp -s "$a/$f" <(sed "${2:-}" "$b/$f") || diffs="$diffs $f differs;"
    fi
  done
  echo "$diffs"
}
verdict() {
  local diffs
  diffs=$(same "$2" "${3:-}")
  if [ -z "$diffs" ]; then ok "$1"; else
    ko "$1" "$diffs"
    tail -5 "$base/out/$2/spark/stderr" | sed 's/^/    /'
  fi
  grep -a '^flipaudit_spark.py: ' "$base/out/$2/spark/stdout" | sed 's/^/    /'
}
# PARTS: the numbered checks below to run (all by default).
part() { case " ${PARTS:-1 2 3 4} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# 1. Out of order, two workers.
if part 1; then
one cross "$fx/cross"
t0=$(date +%s)
submit cross "$fx/cross/c.log" "$fx/cross/midloc.log.gz" "$fx/cross" "$fx/cross/a.log.gz" "$fx/cross/late.log.gz" "$fx/cross/b.log.gz"
verdict "cluster: cross-file fixtures out of order, two workers ($(($(date +%s) - t0)) s)" cross
fi

# 2. A worker killed while a stage runs on it.
if part 2; then
one samples SampleLogs
t0=$(date +%s)
submit samples SampleLogs &
job=$!
killed=""
for _ in $(seq 1 1200); do
  # A flipaudit stage among worker 1's processes (its process group).
  if pgrep -s "${worker_pid[1]}" -x flipaudit > /dev/null; then
    kill_session "${worker_pid[1]}"
    killed=yes
    break
  fi
  kill -0 "$job" 2> /dev/null || break
  sleep 0.05
done
wait "$job"
if [ -z "$killed" ]; then
  ko "cluster: a worker killed mid-job" "no flipaudit stage was seen running on worker 1"
else
  # The driver ran from SampleLogs named relative to the repository.
  verdict "cluster: SampleLogs, worker 1 killed (SIGKILL) while a stage ran on it ($(($(date +%s) - t0)) s)" samples
fi
start_worker 3 # the cluster has two workers again for what follows
fi

# 3. file:// URIs through Spark's file system layer; the source column names the URI.
if part 3; then
# One process reads the fixtures through a folder whose path is as long as
# "file://$fx": the summary's lines are cut and wrapped at 120 columns,
# so the names compared must take the same room.
alias=$base/$(printf '%*s' $((${#fx} + 7 - ${#base} - 1)) '' | tr ' ' u)
ln -sfn "$fx" "$alias"
one uris "$alias/cross/a.log.gz" "$alias/cross/b.log.gz" "$alias/broken"
t0=$(date +%s)
submit uris "file://$fx/cross/a.log.gz" "file://$fx/cross/b.log.gz" "file://$fx/broken"
verdict "cluster: file:// URIs read by binaryFiles: one process's reports with the URI as source ($(($(date +%s) - t0)) s)" uris "s#file://$fx#$alias#g"
fi

# 4. A URI no one can read: exit 3 before the job, nothing written.
if part 4; then
d=$base/out/nouri/spark
mkdir -p "$d"
t0=$(date +%s)
timeout 300 "$spark_home/bin/spark-submit" --master "$master" --conf spark.pyspark.python=python3 \
  contrib/spark/flipaudit_spark.py --flipaudit "$dbin" --csv "$d/csv" --json "$d/report.json" \
  "$fx/cross/a.log.gz" "file://$fx/no-such-dir" > "$d/stdout" 2> "$d/stderr"
st=$?
if [ "$st" = 3 ] && [ ! -e "$d/csv" ] && [ ! -e "$d/report.json" ] && grep -q "^flipaudit_spark.py: file://$fx/no-such-dir: .*does not exist" "$d/stdout"; then
  ok "cluster: an unreadable URI: exit 3 before the job, nothing written ($(($(date +%s) - t0)) s)"
else
  ko "cluster: an unreadable URI" "exit $st; $(ls "$d"); $(grep -a '^flipaudit_spark.py' "$d/stdout" | head -3)"
fi
fi

echo "total: $(($(date +%s) - started)) s"
finish
