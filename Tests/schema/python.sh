#!/usr/bin/env bash
# Prints a Python that has duckdb and jsonschema: python3 when it has them,
# else a venv under .build/schema-venv made for them (pip install).
# usage: python=$(bash Tests/schema/python.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
if python3 -c 'import duckdb, jsonschema' 2> /dev/null; then echo python3; exit 0; fi
venv=.build/schema-venv
if ! "$venv/bin/python" -c 'import duckdb, jsonschema' 2> /dev/null; then
  python3 -m venv --system-site-packages "$venv" > /dev/null 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv > /dev/null
    rm -rf "$venv"; python3 -m venv --system-site-packages "$venv"
  }
  missing=()
  "$venv/bin/python" -c 'import duckdb' 2> /dev/null || missing+=(duckdb)
  "$venv/bin/python" -c 'import jsonschema' 2> /dev/null || missing+=(jsonschema)
  "$venv/bin/pip" install -q "${missing[@]}" >&2
fi
echo "$(pwd)/$venv/bin/python"
