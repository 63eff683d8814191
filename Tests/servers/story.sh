# story CSV-FOLDER: an audit's sessions (state, outcome, error, findings)
# and findings (kind, state), sorted, without times, latencies, addresses
# or sources: what two runs over the same traffic must share. Sourced by
# run.sh and tiers.sh.
story() {
  python3 - "$1" <<'PY'
import csv, sys
d = sys.argv[1]
rows = [f"session {r['state']} {r['outcome']} {r['error']} {r['findings']}" for r in csv.DictReader(open(d + "/sessions.csv"))]
rows += [f"finding {r['kind']} {r['state']}" for r in csv.DictReader(open(d + "/findings.csv"))]
print("\n".join(sorted(rows)))
PY
}
