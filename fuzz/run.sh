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
# cores; SMOKE_PERCENT scales the counts); it fails (exit 1, naming the
# reproducer) at the first broken promise. It tries the same inputs in the
# same order on every machine and every run: the seeds are handed over as
# a sorted list (a corpus folder is read in the file system's order), the
# corpus is not reloaded on a timer, the target runs with a fixed
# getrandom (fixed_random.c), so that HashMap orders, and the coverage
# that decides which inputs libFuzzer keeps, are the same every time, and
# libFuzzer does not take its mutations from the operands of comparisons
# (-use_cmp=0: some are addresses, which differ by machine and by run).
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
# hivm_plan runs in the long runs only: its optimal planner keeps a time
# limit, so the smoke could not try the same inputs on every machine.
if [ ${#TARGETS[@]} -eq 0 ]; then
    TARGETS=(pto_reader pto_msgpack mlir_reader csv_reader plan solve)
    [ "$MODE" = smoke ] || TARGETS+=(hivm_plan)
fi
export RUSTC_BOOTSTRAP=1

# Seeds: the repository's examples and test programs, per input language,
# into CORPUS/TARGET (fuzz/corpus, or a fresh folder for a smoke run).
CORPUS=corpus
if [ "$MODE" = smoke ]; then
    CORPUS="$(mktemp -d)"
    trap 'rm -rf "$CORPUS"' EXIT
fi
# A smoke run lists them (CORPUS/TARGET.seeds) instead, for -seed_inputs.
seed() {
    local target="$1"; shift
    mkdir -p "$CORPUS/$target"
    for f in "$@"; do
        [ -f "$f" ] || continue
        if [ "$MODE" = smoke ]; then
            echo "$f" >>"$CORPUS/$target.seeds"
        else
            cp -n "$f" "$CORPUS/$target/$(echo "$f" | tr '/' '_')"
        fi
    done
    return 0
}
shopt -s nullglob globstar
PTO=(../examples/pto/*.py ../crates/pto/tests/data/**/*.py ../tests/lit/pto/*.py)
MLIR=(../examples/mlir/*.mlir ../tests/lit/**/*.mlir)
CSV=(../examples/dsa/*.csv seeds/csv/*.csv)
MSGPACK=(../crates/pto/tests/data/msgpack/**/*.msgpack)
seed pto_reader "${PTO[@]}" findings/fixed/pto_reader-*
seed plan "${PTO[@]}" findings/fixed/plan-*
seed mlir_reader "${MLIR[@]}" findings/fixed/mlir_reader-*
seed csv_reader "${CSV[@]}" findings/fixed/csv_reader-*
seed solve "${CSV[@]}" findings/fixed/solve-*
seed pto_msgpack "${MSGPACK[@]}" findings/fixed/pto_msgpack-*
# Its input is a recipe of a kernel (see src/lib.rs), not a text: no seeds
# but the fixed findings.
seed hivm_plan findings/fixed/hivm_plan-*
# PyPTO's own documents, when the shared data is beside the checkout (long
# runs only: a smoke run checks the same inputs with or without it).
if [ "$MODE" != smoke ]; then
    seed pto_msgpack ../../shared/data/pto/msgpack/kernels/tile_add*/*/*.msgpack \
        ../../shared/data/pto/msgpack/kernels/rms_norm/*/*.msgpack
fi

nice -n 19 cargo fuzz build --sanitizer none
mkdir -p logs
# Options of every run: inputs past 8 KiB are skipped by the targets anyway.
COMMON=(-timeout=30 -rss_limit_mb=2048 -max_len=8192)

if [ "$MODE" = smoke ]; then
    # Runs per target: about 20 s each on two idle cores.
    declare -A RUNS=([pto_reader]=100000 [mlir_reader]=20000 [csv_reader]=300000 [plan]=15000 [solve]=15000)
    BIN="${CARGO_TARGET_DIR:-target}/$(rustc -vV | sed -n 's/^host: //p')/release"
    "${CC:-cc}" -shared -fPIC -O2 -o "$CORPUS/fixed_random.so" fixed_random.c
    failed=0
    for t in "${TARGETS[@]}"; do
        runs=$(( ${RUNS[$t]:-10000} * ${SMOKE_PERCENT:-100} / 100 ))
        # The seeds in one order on every machine (libFuzzer shuffles them
        # with its seed, then sorts them by size, stably).
        # (-seed_inputs=@FILE: names joined by commas, no newline.)
        seeds=()
        if [ -s "$CORPUS/$t.seeds" ]; then
            LC_ALL=C sort -u "$CORPUS/$t.seeds" | paste -sd, | tr -d '\n' >"$CORPUS/$t.list"
            seeds=(-seed_inputs="@$CORPUS/$t.list")
        fi
        mkdir -p "$CORPUS/$t" "artifacts/$t"
        start=$(date +%s)
        # No fork mode: the first failure ends the run with its reproducer.
        if nice -n 19 env LD_PRELOAD="$CORPUS/fixed_random.so" TILEMEM_FUZZ_SMOKE=1 "$BIN/$t" \
            -artifact_prefix="artifacts/$t/" "${seeds[@]}" "$CORPUS/$t" \
            -seed=1 -runs="$runs" -reload=0 -use_cmp=0 "${COMMON[@]}" >"logs/$t.smoke.log" 2>&1; then
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
