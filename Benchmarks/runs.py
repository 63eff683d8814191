"""Summary of a benchmark's runs: one "wall cpu rss_kib ..." line per run.

    python3 Benchmarks/runs.py FILE   ->   wall 1.29 s (1.17-1.55), cpu 2.24 s, peak RSS 61.7 MiB (largest of 5)

Medians of wall and CPU time (with the wall's min-max), the largest peak RSS.
Used by reuse.sh and checkpoint.sh.
"""
import statistics
import sys

rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
walls = [r[0] for r in rows]
print(f"wall {statistics.median(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}), "
      f"cpu {statistics.median(r[1] for r in rows):.2f} s, "
      f"peak RSS {max(r[2] for r in rows) / 1024:.1f} MiB (largest of {len(rows)})")
