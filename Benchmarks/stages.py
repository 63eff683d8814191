#!/usr/bin/env python3
"""Instructions per line by stage, from callgrind runs of flipaudit.

    stages.py EMPTY.cg NAME=RUN.cg:LINES [NAME=RUN.cg:LINES ...]

Each stage is the inclusive cost of the functions that do it, less the
same in the run on an empty input (startup), divided by the sample's
lines. What no stage claims (merge, duplicates, sessions and rules, row
order, CSV, statistics, freeing events) is the rest of the run's total.
"""
import re
import subprocess
import sys

# (stage, [patterns of mangled names], [stages whose cost it includes and
# that are taken off it]). Protocol witnesses (`TW`) are left out: they
# only call the function counted.
STAGES = [
    ("inflate and CRC-32 (`fa_inflate`)", [r"^fa_inflate$", r"^fa_inflate_look$"], []),
    ("cutting pieces and line ends (`PieceCutter`)", [r"PieceCutterC3cut4into"], ["inflate"]),
    ("splitting lines, UTF-8 and NUL check (`LineSplitter`)", [r"LineSplitterV4feed_2to.*(?<!TW)$"], ["scanner"]),
    # `RecordReader.read` holds every parser (the combined one inlined);
    # builds before it called the parsers from the scanner.
    ("parsing records (`RecordReader`: `CombinedLogParser`, `JSONLineParser`, …)",
     [[r"RecordReaderV4read_7escapes.*(?<!TW)$"], [r"CombinedLogParserV5parse_4into", r"JSONLineParserV5parse_4into"]], []),
    # `sift` is inlined into the scanner; `extract(_:sifted:…)` is the call.
    ("classification and flip events (`FlipEventExtractor`)", [r"FlipEventExtractorV7extract_6source4line", r"FlipEventExtractorV7extract_6sifted"], []),
    ("line accounting (`LineScanner`)", [r"LineScannerV4line_6number5plain.*(?<!TW)$"], ["parse", "extract"]),
]
KEYS = ["inflate", "cut", "split", "parse", "extract", "scanner"]


def inclusive(path):
    out = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", path], capture_output=True, text=True, check=True
    ).stdout
    costs = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(?:\S+:)?(\S+?)(?: \[.*\])?$", line)
        if not m:
            continue
        value = int(m.group(1).replace(",", ""))
        if m.group(2) == "PROGRAM":
            continue
        costs[m.group(2)] = max(costs.get(m.group(2), 0), value)
    m = re.search(r"([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", out)
    total = int(m.group(1).replace(",", "")) if m else 0
    return costs, total


def stage_costs(path):
    costs, total = inclusive(path)
    raw = {}
    for key, (_, patterns, _) in zip(KEYS, STAGES):
        # A list of lists: the first that names a function counts (a
        # reader that holds the parsers is not counted twice).
        for group in patterns if isinstance(patterns[0], list) else [patterns]:
            found = [v for name, v in costs.items() if any(re.search(p, name) for p in group)]
            if found:
                break
        raw[key] = sum(found)
    return raw, total


def main():
    empty_raw, empty_total = stage_costs(sys.argv[1])
    runs = []
    for arg in sys.argv[2:]:
        name, rest = arg.split("=", 1)
        path, lines = rest.rsplit(":", 1)
        raw, total = stage_costs(path)
        lines = int(lines)
        net = {k: (raw[k] - empty_raw[k]) / lines for k in KEYS}
        own = {
            "inflate": net["inflate"],
            "cut": net["cut"] - net["inflate"],
            "split": net["split"] - net["scanner"],
            "parse": net["parse"],
            "extract": net["extract"],
            "scanner": net["scanner"] - net["parse"] - net["extract"],
        }
        whole = (total - empty_total) / lines
        runs.append((name, own, whole))
    print("| stage | " + " | ".join(r[0] for r in runs) + " |")
    print("|---|" + "---|" * len(runs))
    for key, (label, _, _) in zip(KEYS, STAGES):
        print(f"| {label} | " + " | ".join(f"{r[1][key]:,.0f}" for r in runs) + " |")
    print("| merge, sessions and rules, row order, CSV, statistics, freeing events | "
          + " | ".join(f"{r[2] - sum(r[1].values()):,.0f}" for r in runs) + " |")
    print("| **total** | " + " | ".join(f"**{r[2]:,.0f}**" for r in runs) + " |")


if __name__ == "__main__":
    main()
