#!/usr/bin/env bash
# The shipped schemas against real outputs: the JSON Schema, the DuckDB
# recipe and the BigQuery schemas in docs/schema (Tests/schema/check.py).
# usage: Tests/schema/run.sh path/to/flipaudit
# Needs Python's duckdb and jsonschema: used when installed, else put in a
# venv under .build/schema-venv (pip install duckdb jsonschema).
set -euo pipefail
bin=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

python=$(bash Tests/schema/python.sh)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The samples, by day and by hour.
"$bin" SampleLogs --quiet --json "$work/samples.json" --csv "$work/csv-samples" 2> /dev/null
"$bin" SampleLogs --quiet --bucket hour --json "$work/hour.json" --csv "$work/csv-hour" 2> /dev/null
# A clean night: header-only CSV files.
: > "$work/empty.log"
"$bin" "$work/empty.log" --quiet --json "$work/empty.json" --csv "$work/csv-empty" 2> /dev/null
# States that begin with - are written with the ' guard.
cat > "$work/guarded.log" << 'LOG'
203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET /oauth/authorize?response_type=code&client_id=G123&redirect_uri=https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA&state=-x1&scope=a+b HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=c1&state=-x2"
LOG
"$bin" "$work/guarded.log" --quiet --json "$work/guarded.json" --csv "$work/csv-guarded" 2> /dev/null
# An empty error value (error= in the log) beside a named one.
cat > "$work/emptyerror.log" << 'LOG'
203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET /oauth/authorize?response_type=code&client_id=G123&redirect_uri=https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA&state=e1&scope=a+b HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "https://oauth-redirect.googleusercontent.com/a/com.google.OPA?error=&state=e1"
203.0.113.9 - - [22/Nov/2026:10:00:02 +0000] "GET /oauth/authorize?response_type=code&client_id=G123&redirect_uri=https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA&state=e2&scope=a+b HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "https://oauth-redirect.googleusercontent.com/a/com.google.OPA?error=cancelled&state=e2"
LOG
"$bin" "$work/emptyerror.log" --quiet --json "$work/emptyerror.json" --csv "$work/csv-emptyerror" 2> /dev/null
# An error value * from the logs, written \*, beside a named one.
sed -e 's/error=&state=e1/error=*\&state=e1/' "$work/emptyerror.log" > "$work/star.log"
"$bin" "$work/star.log" --quiet --csv "$work/star-csv" 2> /dev/null
# Three nights chained, each CSV in its own folder (--csv .../{date}/run-{run}),
# then a fourth night that closes what is still open; and the same nights
# in one run (then the fourth): loaded under one glob, the nights' counts
# must sum to the one run's.
mkdir "$work/n1" "$work/n2" "$work/n3" "$work/n4"
cp SampleLogs/*.gz "$work/n1/"
gzip -dc SampleLogs-next/web1-access.log.gz > "$work/n2/web1.log"
gzip -dc SampleLogs-next/web2-access.json.gz > "$work/n2/web2.json"
sed 's#\[22/Nov/2026#[23/Nov/2026#' "$work/n2/web1.log" > "$work/n3/web1.log"
echo '10.9.9.9 - - [24/Nov/2026:12:00:00 +0000] "GET /healthz HTTP/1.1" 200 2 "-" "probe/1.0" "-"' > "$work/n4/web1.log"
for n in 1 2 3 4; do
  "$bin" "$work/n$n" --quiet --checkpoint "$work/nights.cp" --csv "$work/nights/{date}/run-{run}" --now 2026-11-25T00:00:00Z 2> /dev/null || true
done
"$bin" "$work/n1" "$work/n2" "$work/n3" --quiet --checkpoint "$work/one.cp" --csv "$work/one-run/{run}" --now 2026-11-25T00:00:00Z 2> /dev/null || true
"$bin" "$work/n4" --quiet --checkpoint "$work/one.cp" --csv "$work/one-run/{run}" --now 2026-11-25T00:00:00Z 2> /dev/null || true
"$python" Tests/schema/check.py "$work"

# A follower's findings, NDJSON and OCSF, against their schemas
# (docs/schema/flipaudit-finding.schema.json; the OCSF Detection Finding of
# the pinned ocsf-json-schema): the samples' first log read from its start,
# as many findings as the batch audit of the same file finds (the follower's
# clock moves past these old records while the log is quiet, so every
# session closes), then SIGTERM, which must exit 0.
gzip -dc SampleLogs/web1-access.log.gz > "$work/live.log"
"$bin" "$work/live.log" --quiet --csv "$work/live-csv" 2> /dev/null || true
want=$(($(wc -l < "$work/live-csv/findings.csv") - 1))
for format in ndjson ocsf; do
  out="$work/follow.$format"
  "$bin" follow --from-start --findings "$out" --findings-format "$format" "$work/live.log" 2> "$work/follow-$format.err" &
  pid=$!
  for _ in $(seq 1 600); do
    [ -f "$out" ] && [ "$(wc -l < "$out")" -ge "$want" ] && break
    sleep 0.1
  done
  kill -TERM "$pid"
  status=0; wait "$pid" || status=$?
  [ "$status" = 0 ] || { cat "$work/follow-$format.err"; echo "follow exited $status after SIGTERM, not 0"; exit 1; }
  got=$(wc -l < "$out")
  [ "$got" -ge "$want" ] || { echo "follow wrote $got findings in 60 s, the batch audit $want"; exit 1; }
  if [ "$format" = ocsf ]; then "$python" Tests/schema/check_follow.py "$out" --ocsf; else "$python" Tests/schema/check_follow.py "$out"; fi
done
echo "follow: $want findings as NDJSON and as OCSF Detection Findings, each line valid"
