"""Checks flipaudit's shipped schemas against real outputs (run by
Tests/schema/run.sh, which makes the outputs):

* every JSON report validates against docs/schema/flipaudit-report.schema.json;
* every CSV folder loads with docs/schema/duckdb.sql, header-only ones
  included, with the column types the recipe declares, the same in every
  folder, and the row counts the files and the JSON report give;
* the BigQuery schemas name the CSV header's columns, in order, with types
  that match the DuckDB recipe's;
* hour periods load as timestamps; a state guarded with ' joins again.

usage: check.py WORK   (WORK holds *.json reports and csv-* folders)
"""

import csv
import glob
import json
import os
import sys

import duckdb
import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.path.join(ROOT, "docs", "schema")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def load(folder, timezone=None):
    con = duckdb.connect()
    if timezone:
        con.execute(f"SET TimeZone = '{timezone}'")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        con.execute(open(os.path.join(SCHEMA, "duckdb.sql")).read())
    finally:
        os.chdir(cwd)
    return con


def types(con, table):
    return [(r[0], r[1]) for r in con.execute(f"DESCRIBE {table}").fetchall()]


def rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


work = sys.argv[1]

# JSON reports against the JSON Schema.
schema = json.load(open(os.path.join(SCHEMA, "flipaudit-report.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
reports = {}
for path in sorted(glob.glob(os.path.join(work, "*.json"))):
    doc = json.load(open(path))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    check(not errors, f"{os.path.basename(path)} follows the JSON Schema" + (f": {errors[0].message} at {list(errors[0].path)}" if errors else ""))
    reports[os.path.splitext(os.path.basename(path))[0]] = doc

# BigQuery schemas: the CSV header's columns, in order, typed as in DuckDB.
duck_of_bq = {"STRING": "VARCHAR", "TIMESTAMP": "TIMESTAMP WITH TIME ZONE", "INT64": "BIGINT", "NUMERIC": "DECIMAL(5,4)"}
samples = os.path.join(work, "csv-samples")
reference = load(samples)
for name in ["sessions", "findings", "error_distribution"]:
    bq = json.load(open(os.path.join(SCHEMA, "bigquery", name + ".json")))
    header = rows(os.path.join(samples, name + ".csv"))[0]
    check([f["name"] for f in bq] == header, f"bigquery/{name}.json names the columns of {name}.csv in order")
    table = name if name != "error_distribution" else "flipaudit_raw"
    if name == "error_distribution":
        reference.execute(
            "CREATE TEMP TABLE flipaudit_raw AS SELECT * FROM read_csv('"
            + os.path.join(samples, "error_distribution.csv")
            + "', header = true, auto_detect = false, columns = {'period': 'VARCHAR', 'flow': 'VARCHAR', 'app': 'VARCHAR', "
            + "'environment': 'VARCHAR', 'error': 'VARCHAR', 'count': 'BIGINT', 'share': 'DECIMAL(5,4)'})"
        )
    duck = dict(types(reference, table))
    check(
        all(duck.get(f["name"]) == duck_of_bq[f["type"]] for f in bq),
        f"bigquery/{name}.json types match the DuckDB recipe's",
    )

# Every folder loads with the recipe's types, header-only ones included.
expected = {t: types(reference, t) for t in ["sessions", "findings", "error_distribution", "error_totals"]}
check(dict(expected["sessions"])["first_seen"] == "TIMESTAMP WITH TIME ZONE", "first_seen is a timestamp")
check(dict(expected["sessions"])["latency_ms"] == "BIGINT", "latency_ms is an integer")
check(dict(expected["error_distribution"])["share"] == "DECIMAL(5,4)", "share is a decimal")
for folder in sorted(glob.glob(os.path.join(work, "csv-*"))):
    name = os.path.basename(folder)[4:]
    con = load(folder)
    for table, columns in expected.items():
        check(types(con, table) == columns, f"{name}: {table} has the recipe's column types")
    lines = {f: len(rows(os.path.join(folder, f + ".csv"))) - 1 for f in ["sessions", "findings", "error_distribution"]}
    count = lambda t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
    check(count("sessions") == lines["sessions"], f"{name}: every sessions.csv row loaded ({lines['sessions']})")
    check(count("findings") == lines["findings"], f"{name}: every findings.csv row loaded ({lines['findings']})")
    check(
        count("error_distribution") + count("error_totals") == lines["error_distribution"],
        f"{name}: every error_distribution.csv row loaded, totals apart ({lines['error_distribution']})",
    )
    check(con.execute("SELECT count(*) FROM error_distribution WHERE error = '*'").fetchone()[0] == 0, f"{name}: no * row among the values")
    values, totals = (con.execute(f"SELECT coalesce(sum(count), 0) FROM {t}").fetchone()[0] for t in ["error_distribution", "error_totals"])
    check(values == totals, f"{name}: the values' counts add up to the totals ({values} of {totals}), an empty value too")
    report = reports.get(name)
    if report:
        check(count("findings") == report["findings"]["total"], f"{name}: findings match the JSON report's total")
        errors = con.execute("SELECT coalesce(sum(count), 0) FROM error_totals").fetchone()[0]
        check(errors == report["outcomes"]["error"], f"{name}: error totals add up to the JSON report's error outcomes ({errors})")
    if lines["sessions"] == 0:
        check(all(count(t) == 0 for t in expected), f"{name}: header-only files load as empty tables")
    else:
        # Each error session's bucket holds its first_seen.
        bad = con.execute(
            "SELECT count(*) FROM error_totals t WHERE t.period_start IS NOT NULL AND NOT EXISTS ("
            "SELECT 1 FROM sessions s WHERE s.outcome = 'error' AND s.first_seen >= t.period_start "
            "AND s.first_seen < t.period_start + (CASE WHEN length(t.period) = 10 THEN INTERVAL 1 DAY ELSE INTERVAL 1 HOUR END))"
        ).fetchone()[0]
        check(bad == 0, f"{name}: every period_start is a timestamp its sessions fall in")

# A day's bucket starts at 00:00 UTC whatever the session's time zone.
east = load(samples, timezone="America/New_York")
check(
    east.execute(
        "SELECT count(*) FROM error_totals WHERE period_start <> CAST(period || 'T00:00:00Z' AS TIMESTAMPTZ)"
    ).fetchone()[0] == 0,
    "day periods load as 00:00 UTC under TimeZone America/New_York",
)
empty = load(os.path.join(work, "csv-emptyerror"))
check(
    empty.execute("SELECT count FROM error_distribution WHERE error = ''").fetchall() == [(1,)],
    "an empty error value loads as '' with its count, not NULL",
)

star = load(os.path.join(work, "star-csv"))
check(
    star.execute("SELECT error, count FROM error_distribution ORDER BY error").fetchall() == [("*", 1), ("cancelled", 1)]
    and star.execute("SELECT count FROM error_totals").fetchall() == [(2,)],
    "an error value * from the logs loads as a value, and the group has one total",
)

hour = load(os.path.join(work, "csv-hour"))
check(
    hour.execute("SELECT count(*) FROM error_totals WHERE period_start IS NULL OR period NOT LIKE '____-__-__T__:00:00Z'").fetchone()[0] == 0,
    "hour periods are 2026-11-22T10:00:00Z and load as timestamps",
)
guarded = load(os.path.join(work, "csv-guarded"))
raw = [r[0] for r in rows(os.path.join(work, "csv-guarded", "sessions.csv"))[1:]]
check(raw and all(s.startswith("'-") for s in raw), "the guarded sample's states are written with a leading '")
joined = guarded.execute("SELECT count(*) FROM sessions s JOIN findings f USING (state) WHERE s.state LIKE '-%'").fetchone()[0]
check(joined > 0, "a state beginning with - loads without its ' and joins sessions to findings")

# --csv .../{date}/run-{run}: one folder per night, named by the night
# audited; the recipe run above them loads every night, and the nights'
# counts sum to one run over the three.
nights = os.path.join(work, "nights")
folders = sorted(os.path.relpath(os.path.dirname(p), nights) for p in glob.glob(os.path.join(nights, "*", "*", "sessions.csv")))
# (The samples' first night runs to 02:00 on the 22nd, as the second
# night starts: two nights can share a day, never run back.)
by_run = sorted(folders, key=lambda f: f.split("/")[1])
check(
    [f.split("/")[1] for f in by_run] == ["run-1", "run-2", "run-3", "run-4"]
    and [f.split("/")[0] for f in by_run] == sorted(f.split("/")[0] for f in by_run)
    and by_run[0].startswith("2026-11-22/") and folders[-1] == "2026-11-24/run-4",
    f"a folder per night, by its watermark's day and the chain's run: {folders}",
)
chained = load(nights)
one = load(os.path.join(work, "one-run"))
for query in [
    "SELECT outcome, count(*) FROM sessions GROUP BY ALL ORDER BY ALL",
    "SELECT kind, count(*) FROM findings GROUP BY ALL ORDER BY ALL",
    "SELECT period, error, sum(count) FROM error_distribution GROUP BY ALL ORDER BY ALL",
    "SELECT sum(count) FROM error_totals",
]:
    check(chained.execute(query).fetchall() == one.execute(query).fetchall(), f"three nights under one glob equal one run: {query}")
check(chained.execute("SELECT count(*) FROM sessions").fetchone()[0] > 1000, "the nights' sessions all loaded")

if failures:
    print(f"{len(failures)} schema checks failed")
    sys.exit(1)
print("schema checks: all passed")
