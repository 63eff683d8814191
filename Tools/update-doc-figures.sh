#!/usr/bin/env bash
# Computes the figures of the samples that the docs quote, and writes them
# in place:
#  - README.md, "What it prints": the first 30 lines of
#    `flipaudit SampleLogs --no-color`;
#  - docs/contract.md, between <!-- figure:checkpoint --> and
#    <!-- /figure -->: the samples' checkpoint (open sessions, remembered
#    states and codes, size).
# With --check (CI) it changes nothing and fails when a doc says other
# figures than the samples give now. (docs/report.png has its own script,
# Tools/update-report-png.sh; docs/flipaudit.1 Tools/update-manual.sh.)
#   FLIPAUDIT=path/to/flipaudit to use a given binary (default: swift build's).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${FLIPAUDIT:-$(swift build --show-bin-path)/flipaudit}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" SampleLogs --no-color > "$tmp/summary.txt" 2> /dev/null || true
"$bin" SampleLogs --quiet --checkpoint "$tmp/samples.checkpoint" 2> /dev/null || true
python3 - "$tmp" "${1:-}" << 'PY'
import os, sys
tmp, mode = sys.argv[1], sys.argv[2]
summary = "\n".join(open(os.path.join(tmp, "summary.txt")).read().split("\n")[:30])
path = os.path.join(tmp, "samples.checkpoint")
kinds = {}
for line in open(path, encoding="utf-8", errors="replace"):
    word = line.split(" ", 1)[0].split("\t", 1)[0].strip()
    kinds[word] = kinds.get(word, 0) + 1
size = os.path.getsize(path)
checkpoint = (f"{kinds.get('session', 0)} open sessions, {kinds.get('state', 0):,} states, {kinds.get('code', 0):,} codes, "
              f"{kinds.get('record', 0):,} records, {kinds.get('event', 0):,} waiting records, {kinds.get('audited', 0)} files: {round(size / 1000)} KB")

def replaced(text, start, end, new):
    a = text.index(start) + len(start)
    b = text.index(end, a)
    return text[:a] + new + text[b:]

changes = []
readme = open("README.md").read()
head = readme.index("## What it prints")
block = readme.index("```\n", head) + 4
new_readme = readme[:block] + summary + readme[readme.index("\n```", block):]
changes.append(("README.md", readme, new_readme))
contract = open("docs/contract.md").read()
changes.append(("docs/contract.md", contract, replaced(contract, "<!-- figure:checkpoint -->", "<!-- /figure -->", checkpoint)))
stale = [name for name, old, new in changes if old != new]
if mode == "--check":
    if stale:
        print("figures differ from the samples' in " + ", ".join(stale) + ": run Tools/update-doc-figures.sh and commit")
        sys.exit(1)
    print("the docs' figures are the samples'")
else:
    for name, old, new in changes:
        if old != new:
            open(name, "w").write(new)
    print("updated: " + (", ".join(stale) or "nothing"))
PY
