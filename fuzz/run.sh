#!/usr/bin/env bash
# Runs the fuzz targets at the lowest CPU priority (the machine is shared).
#
#   fuzz/run.sh [MINUTES] [TARGET...]            # each MINUTES (default 5), one after the other
#   fuzz/run.sh --parallel [MINUTES] [TARGET...] # all at once, each MINUTES
#   fuzz/run.sh --smoke [TARGET...]              # a fixed number of runs each: .ci/run's check
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); runs on stable rustc through
# RUSTC_BOOTSTRAP=1, without a sanitizer (tilemem is safe Rust). Each corpus
# starts from the repository's own examples and test programs.
#
# A long run keeps going after a failure (fork mode), so one run reports
# every distinct failure: crashes go to fuzz/artifacts/TARGET/, logs to
# fuzz/logs/TARGET.log, and the exit code is 0. A smoke run starts from
# the repository's seeds alone (a fresh corpus), replays them, then runs a
# fixed number of mutations with a fixed seed (about 20 s a target on two
# cores; SMOKE_PERCENT scales the counts), so that it checks the same
# inputs on every machine; it fails (exit 1, naming the reproducer) at the
# first broken promise.
set -euo pipefail
cd "$(dirname "$0")"
MODE=serial
case "${1:-}" in
    --parallel) MODE=parallel; shift ;;
    --smoke) MODE=smoke; shift ;;
esac
MINUTES=5
if [ "$MODE" != smoke ] && [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
    MINUTES="$1"
    shift
fi
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(pto_reader pto_msgpack mlir_reader csv_reader plan solve)
export RUSTC_BOOTSTRAP=1

# Seeds: the repository's examples and test programs, per input language,
# into CORPUS/TARGET (fuzz/corpus, or a fresh folder for a smoke run).
CORPUS=corpus
if [ "$MODE" = smoke ]; then
    CORPUS="$(mktemp -d)"
    trap 'rm -rf "$CORPUS"' EXIT
fi
seed() {
    local target="$1"; shift
    mkdir -p "$CORPUS/$target"
    for f in "$@"; do
        [ -f "$f" ] && cp -n "$f" "$CORPUS/$target/$(echo "$f" | tr '/' '_')"
    done
    return 0
}
shopt -s nullglob globstar
PTO=(../examples/pto/*.py ../crates/pto/tests/data/**/*.py ../tests/lit/pto/*.py)
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
# Options of every run: inputs past 8 KiB are skipped by the targets anyway.
COMMON=(-timeout=30 -rss_limit_mb=2048 -max_len=8192)

if [ "$MODE" = smoke ]; then
    # Runs per target: about 20 s each on two idle cores.
    declare -A RUNS=([pto_reader]=100000 [mlir_reader]=20000 [csv_reader]=300000 [plan]=15000 [solve]=15000)
    failed=0
    for t in "${TARGETS[@]}"; do
        runs=$(( ${RUNS[$t]:-10000} * ${SMOKE_PERCENT:-100} / 100 ))
        start=$(date +%s)
        # No fork mode: the first failure ends the run with its reproducer.
        if nice -n 19 cargo fuzz run --sanitizer none "$t" "$CORPUS/$t" -- \
            -seed=1 -runs="$runs" "${COMMON[@]}" >"logs/$t.smoke.log" 2>&1; then
            echo "fuzz smoke: $t ok ($runs runs after the seeds, $(( $(date +%s) - start )) s)"
        else
            echo "fuzz smoke: $t FAILED (fuzz/logs/$t.smoke.log):" >&2
            grep -E "panicked|Test unit written|SUMMARY" "logs/$t.smoke.log" | head -5 >&2 || true
            failed=1
        fi
    done
    exit "$failed"
fi

run_long() {
    local t="$1"
    nice -n 19 cargo fuzz run --sanitizer none "$t" "$CORPUS/$t" -- \
        -max_total_time=$((MINUTES * 60)) "${COMMON[@]}" \
        -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        >"logs/$t.log" 2>&1 || echo "$t: libFuzzer exited with $?" >&2
    # The last status line holds the execution count and the crash tally.
    echo "== $t: $(grep -E '^#[0-9]+' "logs/$t.log" | tail -1)" >&2
    ls "artifacts/$t" 2>/dev/null | sed "s|^|  artifact: artifacts/$t/|" >&2 || true
}

if [ "$MODE" = parallel ]; then
    for t in "${TARGETS[@]}"; do
        echo "== $t: $MINUTES min (in parallel)" >&2
        run_long "$t" &
    done
    wait
else
    for t in "${TARGETS[@]}"; do
        echo "== $t: $MINUTES min" >&2
        run_long "$t"
    done
fi
