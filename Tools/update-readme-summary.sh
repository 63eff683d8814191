#!/usr/bin/env bash
# Refreshes the real summary shown in README.md ("What it prints"): the
# first fenced block after that heading gets the first 22 lines of
# `flipaudit SampleLogs --no-color` (the README stays short; the full
# summary is one command away).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -q
summary=$(.build/debug/flipaudit SampleLogs --no-color 2>/dev/null || true)
python3 - "$summary" <<'PY'
import sys
summary = "\n".join(sys.argv[1].split("\n")[:22])
text = open("README.md").read()
start = text.index("## What it prints")
block_start = text.index("```\n", start) + 4
block_end = text.index("\n```", block_start)
open("README.md", "w").write(text[:block_start] + summary + text[block_end:])
PY
