#!/bin/sh
# flipaudit's nightly job (docs/outputs.md "The nightly job"), as cron or a
# systemd timer runs it: audit last night's log with the settings of the
# config file, and when the run is not clean (exit status not 0) mail the
# summary itself, not an empty "exit 1". Cron's PATH has no /usr/local/bin:
# the paths here are whole. CI runs this script over the two sample nights
# (Tests/nightly/run.sh).
#
#   30 2 * * *  /usr/local/share/flipaudit/nightly.sh
#
# Environment (all optional):
#   FLIPAUDIT  the binary            (/usr/local/bin/flipaudit)
#   CONFIG     the settings          (/etc/flipaudit.toml)
#   MAILTO     who gets the summary  (none: it goes to standard output,
#              which cron mails to the crontab's owner)
#   MAILER     the mail command      (mail, from bsd-mailx or mailutils)
# Arguments: the logs to audit, instead of the config file's inputs.
set -u
flipaudit=${FLIPAUDIT:-/usr/local/bin/flipaudit}
config=${CONFIG:-/etc/flipaudit.toml}
summary=$(mktemp "${TMPDIR:-/tmp}/flipaudit-nightly.XXXXXX") || exit 2
trap 'rm -f "$summary"' EXIT

# The summary (and its warnings) kept for the mail; the outputs the config
# names (CSV per night, JSON, HTML, metrics, checkpoint) are written as
# always.
"$flipaudit" --config "$config" --no-quiet --no-color "$@" > "$summary" 2>&1
status=$?
if [ "$status" -ne 0 ]; then
  # The summary's last line: the verdict and the findings by severity.
  subject="flipaudit: exit $status: $(tail -n 1 "$summary")"
  if [ -n "${MAILTO:-}" ]; then
    ${MAILER:-mail} -s "$subject" "$MAILTO" < "$summary"
  else
    echo "$subject"
    cat "$summary"
  fi
fi
exit "$status"
