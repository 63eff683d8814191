#!/usr/bin/env bash
# Prints a Python that has duckdb, jsonschema and ocsf_json_schema: python3
# when it has them, else a venv under .build/schema-venv made for them (pip
# install). ocsf-json-schema carries the OCSF schema as schema.ocsf.io
# exports it (1.0.0 to 1.8.0) and makes JSON Schemas from it; it is pinned,
# so a check never changes under CI. Tests/schema/check_follow.py --ocsf
# validates against it.
# usage: python=$(bash Tests/schema/python.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
ocsf=ocsf-json-schema==1.2.0
if python3 -c 'import duckdb, jsonschema, ocsf_json_schema' 2> /dev/null; then echo python3; exit 0; fi
venv=.build/schema-venv
if ! "$venv/bin/python" -c 'import duckdb, jsonschema, ocsf_json_schema' 2> /dev/null; then
  python3 -m venv --system-site-packages "$venv" > /dev/null 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv > /dev/null
    rm -rf "$venv"; python3 -m venv --system-site-packages "$venv"
  }
  missing=()
  "$venv/bin/python" -c 'import duckdb' 2> /dev/null || missing+=(duckdb)
  "$venv/bin/python" -c 'import jsonschema' 2> /dev/null || missing+=(jsonschema)
  "$venv/bin/python" -c 'import ocsf_json_schema' 2> /dev/null || missing+=("$ocsf")
  "$venv/bin/pip" install -q "${missing[@]}" >&2
fi
echo "$(pwd)/$venv/bin/python"
