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

python=python3
if ! python3 -c 'import duckdb, jsonschema' 2> /dev/null; then
  venv=.build/schema-venv
  if ! "$venv/bin/python" -c 'import duckdb, jsonschema' 2> /dev/null; then
    python3 -m venv --system-site-packages "$venv" > /dev/null 2>&1 || {
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv > /dev/null
      rm -rf "$venv"; python3 -m venv --system-site-packages "$venv"
    }
    missing=()
    "$venv/bin/python" -c 'import duckdb' 2> /dev/null || missing+=(duckdb)
    "$venv/bin/python" -c 'import jsonschema' 2> /dev/null || missing+=(jsonschema)
    "$venv/bin/pip" install -q "${missing[@]}"
  fi
  python=$venv/bin/python
fi

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
"$python" Tests/schema/check.py "$work"
