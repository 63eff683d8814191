# The pass/fail/skip tally of the shell test batteries (hostile/run.sh,
# distributed/run.sh): source it, then report each check with ok, ko or
# skip; the battery prints "$passed passed, $failed failed" last.
passed=0
failed=0
skipped=0
ok() { passed=$((passed + 1)); echo "PASS $1"; }
ko() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1: $2"; }
