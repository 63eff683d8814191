#!/usr/bin/env bash
# The documented nightly job, run as documented: docs/nightly.sh with
# docs/flipaudit.example.toml (its paths moved under a temporary root) over
# the two sample nights, then the DuckDB recipe over the CSV history. What
# the docs promise must hold: a folder per night, the chain carried, the
# mail holding the summary, metrics promtool accepts, and the history's
# counts equal to the nights' own.
#   bash Tests/nightly/run.sh path/to/flipaudit
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
bin=$(realpath "${1:?usage: run.sh path/to/flipaudit}")
. "$root/Tests/tally.sh"
python=$(bash Tests/schema/python.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The example's paths, under $work.
sed -e "s#/srv/flipaudit#$work/srv/flipaudit#g" -e "s#/var/lib/flipaudit#$work/lib/flipaudit#g" \
  -e "s#/var/lib/prometheus/node-exporter#$work/node-exporter#g" -e "s#/var/log/nginx#$work/log#g" \
  docs/flipaudit.example.toml > "$work/flipaudit.toml"
mkdir -p "$work/node-exporter" "$work/log"
# A mailer that keeps what it is given.
cat > "$work/mail" <<'SH'
#!/bin/sh
# mail -s SUBJECT TO < BODY
printf '%s\n' "$2" > "$MAILBOX.subject"; cat > "$MAILBOX.body"
SH
chmod +x "$work/mail"
night() { # N: yesterday's log is night N's samples, as logrotate leaves it (plain)
  case $1 in
    1) cat SampleLogs/*.gz ;;
    2) cat SampleLogs-next/*.gz ;;
  esac | gzip -dc > "$work/log/access.log.1"
  # The job runs at 02:30 after the night it audits (the example's cut-at
  # 00:00 is that night's midnight, as on the machine that wrote the logs).
  case $1 in
    1) now=2026-11-22T02:30:00Z ;;
    2) now=2026-11-22T08:30:00Z ;;
  esac
  sed -i -e '/^now = /d' "$work/flipaudit.toml" && echo "now = \"$now\"" >> "$work/flipaudit.toml"
  env -i PATH=/usr/bin:/bin FLIPAUDIT="$bin" CONFIG="$work/flipaudit.toml" MAILTO=oncall@example.com \
    MAILER="$work/mail" MAILBOX="$work/mail$1" sh docs/nightly.sh
}

night 1; s1=$?
cp "$work/srv/flipaudit/summary.json" "$work/night1.json"
night 2; s2=$?
cp "$work/srv/flipaudit/summary.json" "$work/night2.json"
if [ $s1 = 1 ] && [ $s2 = 1 ]; then ok "both nights ran: exit 1 (findings at or above fail-on high)"
else ko "both nights ran" "exit $s1, $s2"; fi

subject=$(cat "$work/mail2.subject" 2>/dev/null)
if [ -s "$work/mail1.body" ] && grep -q '^FINDINGS' "$work/mail2.body" && case $subject in "flipaudit: exit 1: "*"FINDINGS "*) true ;; *) false ;; esac; then
  ok "the mail's subject is the verdict line and its body the summary"
else ko "the mail" "subject '$subject'"; fi

folders=$(cd "$work/srv/flipaudit/csv" && ls -d */ 2>/dev/null | tr -d / | tr '\n' ' ')
if [ "$(echo $folders | wc -w)" = 2 ] && [ -s "$work/srv/flipaudit/csv/$(echo $folders | cut -d' ' -f1)/sessions.csv" ]; then
  ok "a CSV folder per night: $folders"
else ko "a CSV folder per night" "got '$folders'"; fi

carried=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["carried_in"])' "$work/night2.json")
mode=$(stat -c %a "$work/lib/flipaudit/flip.checkpoint" 2>/dev/null)
if [ "${carried:-0}" -gt 0 ] && [ "$mode" = 600 ]; then ok "the nights are chained: $carried sessions carried in, checkpoint mode 600"
else ko "the chain" "carried '$carried', mode '$mode'"; fi

if command -v promtool > /dev/null; then
  lint=$(promtool check metrics < "$work/node-exporter/flipaudit.prom" 2>&1)
  if [ $? = 0 ] && [ -z "$lint" ]; then ok "promtool accepts the metrics in node exporter's Debian folder"
  else ko "promtool" "$lint"; fi
fi

# The recipe in the CSV root: every night loaded, counts as the nights'.
history=$("$python" - "$work" "$root" <<'PY'
import duckdb, json, os, sys
work = sys.argv[1]
con = duckdb.connect()
os.chdir(os.path.join(work, "srv/flipaudit/csv"))
con.execute(open(os.path.join(sys.argv[2], "docs/schema/duckdb.sql")).read())
sessions = con.execute("SELECT count(*) FROM sessions").fetchone()[0]
findings = con.execute("SELECT count(*) FROM findings").fetchone()[0]
nights = [json.load(open(os.path.join(work, f"night{n}.json"))) for n in (1, 2)]
want_sessions = sum(n["sessions"] for n in nights)
want_findings = sum(sum(k["count"] for k in n["findings"]["by_kind"]) for n in nights)
print(f"{sessions} {want_sessions} {findings} {want_findings}")
PY
)
set -- $history
if [ "$#" = 4 ] && [ "$1" = "$2" ] && [ "$3" = "$4" ] && [ "$1" -gt 0 ]; then
  ok "the DuckDB recipe loads the history: $1 sessions and $3 findings, the nights' own"
else ko "the DuckDB history" "got '$history' (sessions, want, findings, want)"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
