#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for MINUTES minutes each, one
# after the other, at the lowest CPU priority (the machine is shared).
#
#   fuzz/run.sh [MINUTES] [TARGET...]      # default: 5 minutes, all targets
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); runs on stable rustc through
# RUSTC_BOOTSTRAP=1, without a sanitizer (tilemem is safe Rust). Each corpus
# starts from the repository's own examples. Crashes go to
# fuzz/artifacts/TARGET/ and libFuzzer keeps going after one (fork mode), so
# one run reports every distinct failure; logs go to fuzz/logs/TARGET.log.
set -euo pipefail
cd "$(dirname "$0")"
MINUTES="${1:-5}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(pto_reader pto_msgpack mlir_reader csv_reader plan solve)
export RUSTC_BOOTSTRAP=1

# Seeds: the repository's examples and test programs, per input language.
seed() {
    local target="$1"; shift
    mkdir -p "corpus/$target"
    for f in "$@"; do
        [ -f "$f" ] && cp -n "$f" "corpus/$target/$(echo "$f" | tr '/' '_')"
    done
    return 0
}
shopt -s nullglob globstar
PTO=(../examples/pto/*.py ../crates/pto/tests/data/**/*.py)
MLIR=(../examples/mlir/*.mlir ../tests/lit/**/*.mlir)
CSV=(../examples/dsa/*.csv seeds/csv/*.csv)
seed pto_reader "${PTO[@]}"
seed plan "${PTO[@]}"
seed mlir_reader "${MLIR[@]}"
seed csv_reader "${CSV[@]}"
seed solve "${CSV[@]}"
# PyPTO's own documents, when the shared data is beside the checkout.
MSGPACK=(../../shared/data/pto/msgpack/kernels/tile_add*/*/*.msgpack ../../shared/data/pto/msgpack/kernels/rms_norm/*/*.msgpack)
seed pto_msgpack "${MSGPACK[@]}"

nice -n 19 cargo fuzz build --sanitizer none
mkdir -p logs
for t in "${TARGETS[@]}"; do
    echo "== $t: $MINUTES min" >&2
    nice -n 19 cargo fuzz run --sanitizer none "$t" "corpus/$t" -- \
        -max_total_time=$((MINUTES * 60)) -timeout=30 -rss_limit_mb=2048 -max_len=8192 \
        -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        >"logs/$t.log" 2>&1 || echo "$t: libFuzzer exited with $?" >&2
    # The last status line holds the execution count and the crash tally.
    grep -E '^#[0-9]+' "logs/$t.log" | tail -1 >&2 || true
    ls "artifacts/$t" 2>/dev/null | sed "s|^|  artifact: artifacts/$t/|" >&2 || true
done
