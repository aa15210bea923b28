#!/usr/bin/env bash
# `make fuzz` (and, briefly, `make test`): builds stash-fuzz with libFuzzer and runs each fuzz
# target (frames, m3u8, license, headers, paths, activation, subtitles, mpd, cenc; see Sources/StashFuzz) for SECONDS seconds, starting
# from the seeds in fuzz/corpus/TARGET and the corpus earlier runs grew in .build-fuzz/corpus.
#
# usage: scripts/fuzz.sh [SECONDS] (default: $FUZZ_SECONDS, else 60); FUZZ_JOBS targets at once
# (default: one per core)
#
# FUZZ_OPTIMIZE=0 builds without -O, in .build-fuzz/smoke: half the build time for a few
# times fewer executions a second, the trade `make test`'s short smoke run wants. The corpus
# is shared either way.
#
# Prints one line per target (executions, corpus size, crashes) and saves them to
# .build-fuzz/out/summary.txt. A crash stops the run with exit 1; its input is kept in
# fuzz/crashes/ with the command that replays it. Once fixed, move the input to
# fuzz/regressions/TARGET/, where the test suite (FuzzCorpusTests) runs it every time.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
EACH=${1:-${FUZZ_SECONDS:-60}}
SCRATCH=$ROOT/.build-fuzz
OUT=$SCRATCH/out
OPTIMIZE=${FUZZ_OPTIMIZE:-1}
BUILD=$SCRATCH
FLAGS=(-Xswiftc -sanitize=fuzzer -Xswiftc -DSTASH_FUZZ)
if [[ $OPTIMIZE == 0 ]]; then
    BUILD=$SCRATCH/smoke
else
    FLAGS+=(-Xswiftc -O)
fi
CRASHES=$ROOT/fuzz/crashes
SWIFT=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
TARGETS=(frames m3u8 license headers paths activation subtitles mpd cenc)

log() { printf '[fuzz] %s\n' "$*" >&2; }

# Debug configuration, for the @testable imports the targets need (optimised for speed unless
# FUZZ_OPTIMIZE=0); -DSTASH_FUZZ gives stash-fuzz libFuzzer's driver instead of its replay main.
log "building stash-fuzz with libFuzzer (scratch path $BUILD)"
mkdir -p "$SCRATCH"
"$SWIFT" build --scratch-path "$BUILD" --product stash-fuzz "${FLAGS[@]}" >"$BUILD.log" 2>&1 ||
    { tail -30 "$BUILD.log" >&2; log "build failed; the whole log is $BUILD.log"; exit 1; }
BIN=$BUILD/debug/stash-fuzz

mkdir -p "$OUT" "$CRASHES"
: >"$OUT/summary.txt"

# One target per core at once: libFuzzer runs a target on one thread, so on 2 cores two
# targets take the time of one and each still gets a core's executions.
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
run_target() {
    local target=$1 corpus=$SCRATCH/corpus/$1 code=0
    mkdir -p "$corpus"
    STASH_FUZZ_TARGET=$target "$BIN" -max_total_time="$EACH" -print_final_stats=1 -rss_limit_mb=2048 \
        -timeout=10 -artifact_prefix="$CRASHES/$target-" "$corpus" "$ROOT/fuzz/corpus/$target" >"$OUT/$target.log" 2>&1 || code=$?
    echo "$code" >"$OUT/$target.code"
}
for target in "${TARGETS[@]}"; do
    while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
    log "$target: ${EACH} s"
    run_target "$target" &
done
wait

status=0
for target in "${TARGETS[@]}"; do
    code=$(cat "$OUT/$target.code" 2>/dev/null || echo 1)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/$target.log" | tail -1)
    size=$(find "$SCRATCH/corpus/$target" -type f | wc -l)
    crashes=0
    if ((code != 0)); then
        crashes=1
        status=1
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$OUT/$target.log" | tail -1)
        log "$target FAILED (exit $code); log: $OUT/$target.log"
        [[ -n $artifact ]] && log "input: $artifact; replay: swift run stash-fuzz $target $artifact"
    fi
    printf '%s executions %s corpus %s crashes %s seconds %s\n' "$target" "${runs:-0}" "$size" "$crashes" "$EACH" | tee -a "$OUT/summary.txt"
done
exit $status
