#!/usr/bin/env bash
# Runs flipaudit's libFuzzer targets (address sanitizer on).
#   bash Fuzz/run.sh                       # every target, 60 s each
#   bash Fuzz/run.sh FuzzRecords 600       # one target, 10 minutes
#   bash Fuzz/run.sh FuzzInflate 60        # the two inflate engines against each other (C, no Swift build)
#   SECONDS_EACH=600 bash Fuzz/run.sh      # every target, 10 minutes each
#   FUZZ_SEED=1 ...                        # a fixed random seed (CI), 0 = new each run
# The committed seeds are in Fuzz/Corpus/<target>; what the fuzzer adds goes
# to Fuzz/.work (ignored). A crash or broken invariant stops the run with
# exit 1 and leaves the input in Fuzz/crashes/: turn it into a regression
# test before fixing.
set -euo pipefail
cd "$(dirname "$0")"
targets=(FuzzRecords FuzzQuery FuzzGzip FuzzReadBack FuzzOptions FuzzInflate)
if [ $# -ge 1 ]; then targets=("$1"); fi
seconds=${2:-${SECONDS_EACH:-60}}

# SwiftPM links with gold by default, which cannot link the sanitizer
# runtime here; lld ships with the toolchain.
lld="$(dirname "$(readlink -f "$(command -v swift)")")/ld.lld"
mkdir -p .build
printf '{"schemaVersion": "1.0", "linker": {"path": "%s"}}\n' "$lld" > .build/toolset.json
bin=.build/none
if [ "${targets[*]}" != FuzzInflate ]; then
  swift build -q --toolset .build/toolset.json \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library 2>&1 | grep -v "Cannot export local symbol" || true
  bin=$(swift build --show-bin-path --toolset .build/toolset.json)
fi
# FuzzInflate is C: both inflate engines of Sources/CInflate in one program
# (inflate/diff.c), built with the toolchain's clang (a few seconds).
"$(dirname "$lld")/clang" -g -O1 -fsanitize=fuzzer,address -fuse-ld=lld -DFLIPAUDIT_ISAL -DFLIPAUDIT_ZLIB \
  -I../Sources/CInflate -I../Sources/CInflate/include inflate/diff.c \
  ../Sources/CInflate/engine_isal.c ../Sources/CInflate/engine_zlib.c -lisal -lz -o .build/FuzzInflate

mkdir -p crashes
# The Swift runtime's backtracer and the address sanitizer do not mix.
export SWIFT_BACKTRACE=enable=no
for t in "${targets[@]}"; do
  exe="$bin/$t"
  [ "$t" != FuzzInflate ] || exe=.build/FuzzInflate
  [ -x "$exe" ] || { echo "fuzz: $t was not built" >&2; exit 2; }
  work=".work/$t"
  mkdir -p "$work"
  echo "fuzz: $t for ${seconds}s"
  "$exe" "$work" "Corpus/$t" -max_total_time="$seconds" -seed="${FUZZ_SEED:-0}" -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="crashes/$t-" 2>&1 | tail -n 12
done
