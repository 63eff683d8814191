-- flipaudit's CSV files as DuckDB tables, with their column types
-- (docs/outputs.md "Loading the CSV files"). Run it in the --csv folder,
-- or in the folder above the nights a --csv .../{date} job keeps: every
-- file under it loads (the ** glob matches no folder or several), and
-- counts sum over nights (a session is written by the night it closes).
--
--   cd /srv/flipaudit/csv && duckdb audit.duckdb < /path/to/flipaudit/docs/schema/duckdb.sql
--
-- Nothing is guessed (auto_detect = false): a clean night's header-only
-- files load as empty tables of the same types. CI loads the samples'
-- files, and header-only ones, with this file (Tests/schema/check.py).
--
-- * Times are UTC instants (TIMESTAMPTZ).
-- * A text cell that begins with =, +, -, @, tab or carriage return was
--   written with a leading ' (CSV formula injection); flipaudit_text()
--   takes it off again, so a state such as -x3 joins across tables.
-- * error_distribution.csv's per-group total rows (error = '*') go to
--   their own table, error_totals; error_distribution keeps the values.
--   A value from the logs that is * or begins with \ was written with a
--   \ in front; it is taken off.
-- * period is text as written (2026-11-22, 2026-11-22T10:00:00Z or all);
--   period_start is the bucket's start as a timestamp (NULL for all), a
--   day's at 00:00 UTC whatever the session's TimeZone.
-- * An error value that is empty (error= in the log) stays '' in
--   error_distribution, not NULL: its count is part of the total.

CREATE OR REPLACE MACRO flipaudit_text(v) AS
    CASE WHEN length(v) >= 2 AND v[1] = '''' AND v[2] IN ('=', '+', '-', '@', chr(9), chr(13)) THEN v[2:] ELSE v END;

CREATE OR REPLACE MACRO flipaudit_period(p) AS
    CASE WHEN p = 'all' THEN NULL WHEN length(p) = 10 THEN CAST(p || 'T00:00:00Z' AS TIMESTAMPTZ) ELSE CAST(p AS TIMESTAMPTZ) END;

CREATE OR REPLACE TABLE sessions AS
SELECT
    flipaudit_text(state) AS state,
    first_seen, last_seen, flow, app, environment, variant,
    flipaudit_text(client_id) AS client_id,
    flipaudit_text(redirect_uri) AS redirect_uri,
    outcome,
    flipaudit_text(error) AS error,
    flipaudit_text(error_description) AS error_description,
    latency_ms,
    findings,
    client_ip,
    flipaudit_text(source) AS source
FROM read_csv('**/sessions.csv', header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
    nullstr = '', columns = {
        'state': 'VARCHAR', 'first_seen': 'TIMESTAMPTZ', 'last_seen': 'TIMESTAMPTZ',
        'flow': 'VARCHAR', 'app': 'VARCHAR', 'environment': 'VARCHAR', 'variant': 'VARCHAR',
        'client_id': 'VARCHAR', 'redirect_uri': 'VARCHAR', 'outcome': 'VARCHAR',
        'error': 'VARCHAR', 'error_description': 'VARCHAR', 'latency_ms': 'BIGINT',
        'findings': 'VARCHAR', 'client_ip': 'VARCHAR', 'source': 'VARCHAR'});

CREATE OR REPLACE TABLE findings AS
SELECT
    time, severity, kind,
    flipaudit_text(state) AS state,
    flipaudit_text(client_id) AS client_id,
    flipaudit_text(redirect_uri) AS redirect_uri,
    flipaudit_text(detail) AS detail,
    flipaudit_text(source) AS source
FROM read_csv('**/findings.csv', header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
    nullstr = '', columns = {
        'time': 'TIMESTAMPTZ', 'severity': 'VARCHAR', 'kind': 'VARCHAR', 'state': 'VARCHAR',
        'client_id': 'VARCHAR', 'redirect_uri': 'VARCHAR', 'detail': 'VARCHAR', 'source': 'VARCHAR'});

CREATE OR REPLACE TEMP TABLE flipaudit_error_rows AS
SELECT * FROM read_csv('**/error_distribution.csv', header = true, auto_detect = false, delim = ',', quote = '"',
    escape = '"', nullstr = '', force_not_null = ['error'], columns = {
        'period': 'VARCHAR', 'flow': 'VARCHAR', 'app': 'VARCHAR', 'environment': 'VARCHAR',
        'error': 'VARCHAR', 'count': 'BIGINT', 'share': 'DECIMAL(5,4)'});

CREATE OR REPLACE TABLE error_distribution AS
SELECT period, flipaudit_period(period) AS period_start, flow, app, environment,
    CASE WHEN error[1] = '\' THEN error[2:] ELSE flipaudit_text(error) END AS error, count, share
FROM flipaudit_error_rows WHERE error <> '*';

CREATE OR REPLACE TABLE error_totals AS
SELECT period, flipaudit_period(period) AS period_start, flow, app, environment, count
FROM flipaudit_error_rows WHERE error = '*';

DROP TABLE flipaudit_error_rows;
