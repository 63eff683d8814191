#!/usr/bin/env bash
# One command for the performance benchmark (docs/performance.md):
#   bash Benchmarks/run.sh            # 2 GB file and two 1 GB files (first run generates them: minutes)
#   SIZE_MB=200 RUNS=3 bash Benchmarks/run.sh   # a quicker look
#   AGAINST=path/to/old/flipaudit bash Benchmarks/run.sh   # and another build, in the same rounds
# Generates the logs with Tools/loggen.py (seeded, not committed), builds the
# C baselines (zlib and ISA-L) and flipaudit in release mode, then times them alternately.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-2000}
RUNS=${RUNS:-5}
DATA=Benchmarks/data
mkdir -p "$DATA"

need=()
command -v hyperfine >/dev/null 2>&1 || need+=(hyperfine)
[ -x /usr/bin/time ] || need+=(time)
dpkg -s zlib1g-dev >/dev/null 2>&1 || need+=(zlib1g-dev)
dpkg -s libisal-dev >/dev/null 2>&1 || need+=(libisal-dev)
dpkg -s libjemalloc-dev >/dev/null 2>&1 || need+=(libjemalloc-dev)
dpkg -s libsodium-dev >/dev/null 2>&1 || need+=(libsodium-dev)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi

one="$DATA/one-${SIZE_MB}m.log.gz"
half=$((SIZE_MB / 2))
a="$DATA/two-a-${half}m.log.gz"
b="$DATA/two-b-${half}m.log.gz"
[ -s "$one" ] || { echo "generating $one"; python3 Tools/loggen.py large "$one" --size-mb "$SIZE_MB" --seed 42; }
[ -s "$a" ] || { echo "generating $a"; python3 Tools/loggen.py large "$a" --size-mb "$half" --seed 7; }
[ -s "$b" ] || { echo "generating $b"; python3 Tools/loggen.py large "$b" --size-mb "$half" --seed 8; }

cc -O2 -o "$DATA/zscan" Benchmarks/baseline/zscan.c -lz
cc -O2 -o "$DATA/isalscan" Benchmarks/baseline/isalscan.c -lisal
swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -q
python3 Benchmarks/bench.py --runs "$RUNS" --baseline "$DATA/zscan" --isal-baseline "$DATA/isalscan" --flipaudit .build/release/flipaudit \
  --one "$one" --two "$a" "$b" --out "$DATA" ${AGAINST:+--against "$AGAINST"}
