#!/usr/bin/env bash
# Retains and releases by caller (callgrind's call counts), per flip event:
# what a copy of an event costs shows here, not in instruction counts (a
# retain and a release are two atomic operations, a few instructions).
# Both builds on the first LINES lines of the 11% mix with --csv, and
# again with --checkpoint (the nightly path); the callers whose counts
# differ, as calls per flip event (an event is freed once: the calls of
# EventStorage's deallocating deinit count them).
#   AGAINST=path/to/other/flipaudit bash Benchmarks/retains.sh
#   BIN=… AGAINST=… LINES=50000 bash Benchmarks/retains.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release/flipaudit}
AGAINST=${AGAINST:?AGAINST=path/to/the/other/flipaudit}
LINES=${LINES:-50000}
src=Benchmarks/data/one-1000m.log.gz
[ -s "$src" ] || { echo "no $src: run Benchmarks/paired.sh first, which makes it" >&2; exit 2; }
command -v valgrind > /dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gzip -dc "$src" | head -n "$LINES" > "$work/all.log" || true
gzip -n -c "$work/all.log" > "$work/all.log.gz"
# valgrind cannot read the release binary's debug sections; a copy without them runs.
strip --strip-debug -o "$work/against" "$AGAINST"
strip --strip-debug -o "$work/this" "$BIN"
for side in against this; do
  for mode in plain nightly; do
    rm -rf "$work/out" "$work/ck" "$work/ck.lock"
    args=(--quiet --csv "$work/out"); [ $mode = nightly ] && args+=(--checkpoint "$work/ck")
    valgrind --tool=callgrind --callgrind-out-file="$work/$side.$mode.cg" "$work/$side" "$work/all.log.gz" "${args[@]}" > /dev/null 2>&1 || true
    callgrind_annotate --tree=caller --inclusive=yes --threshold=100 "$work/$side.$mode.cg" > "$work/$side.$mode.tree" 2> /dev/null
  done
done
python3 - "$work" <<'PY'
import collections, re, sys
work = sys.argv[1]
def calls(tree, target):
    counts = collections.Counter()
    for block in open(tree).read().split("\n\n"):
        lines = block.strip("\n").split("\n")
        star = [l for l in lines if "*  " in l]
        if not star or not re.search(r"\*\s+\S*:" + target + r" ", star[0]):
            continue
        for l in lines:
            m = re.match(r"\s*[\d,]+ \(.*?\)\s+<\s+\S*?:(\S+) \(([\d,]+)x\)", l)
            if m: counts[m[1]] += int(m[2].replace(",", ""))
    return counts
flips = sum(calls(f"{work}/this.plain.tree", r"\$s5Rules12EventStorageCfD").values())
print(f"{flips:,} flip events; calls per flip event, by caller, where the builds differ")
for mode in ("plain", "nightly"):
    for target in ("swift_retain", "swift_release"):
        a = calls(f"{work}/against.{mode}.tree", target)
        b = calls(f"{work}/this.{mode}.tree", target)
        print(f"\n{mode}, {target}: {sum(a.values()) / flips:.2f} → {sum(b.values()) / flips:.2f}")
        for k in sorted(set(a) | set(b), key=lambda k: -abs(b[k] - a[k])):
            if abs(b[k] - a[k]) >= flips / 4:
                print(f"  {a[k] / flips:5.2f} {b[k] / flips:5.2f}  {k[:110]}")
PY
