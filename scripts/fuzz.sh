#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ for SECONDS each (default 60), one after another.
#
#   scripts/fuzz.sh [SECONDS] [--jobs N] [--only a,b] [--replay-only]
#
# * Installs cargo-fuzz when missing; needs a nightly toolchain (`rustup toolchain
#   install nightly`). FUZZ_SANITIZER=address|none (default address).
# * First replays the saved crash inputs in fuzz/regressions/TARGET/ (each must pass).
# * Fuzzes with the committed seeds fuzz/corpus/TARGET/ (read only) and a working corpus
#   fuzz/work/TARGET/ (git-ignored, kept between runs); crash inputs land in
#   fuzz/artifacts/TARGET/ and are copied to fuzz/regressions/TARGET/.
# * --jobs N runs N libFuzzer workers per target (default 1).
# * Prints executions, time, corpus size and the result per target; exits non-zero on
#   any crash, timeout, out-of-memory or failing regression input.
set -uo pipefail

SECONDS_PER=60
JOBS=1
ONLY=""
REPLAY_ONLY=0
while [ $# -gt 0 ]; do
    case "$1" in
        --jobs) JOBS="$2"; shift 2 ;;
        --only) ONLY="$2"; shift 2 ;;
        --replay-only) REPLAY_ONLY=1; shift ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        [0-9]*) SECONDS_PER="$1"; shift ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FUZZ="$ROOT/fuzz"
cd "$FUZZ" || exit 2

CARGO=(cargo)
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    CARGO=(cargo +nightly)
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz" >&2
    cargo install --locked cargo-fuzz || exit 2
fi

TARGETS=$("${CARGO[@]}" fuzz list)
if [ -n "$ONLY" ]; then
    TARGETS=$(echo "$ONLY" | tr ',' '\n')
fi

SAN="${FUZZ_SANITIZER:-address}"
start=$(date +%s)
build() {
    if [ -z "$ONLY" ]; then
        "${CARGO[@]}" fuzz build --sanitizer "$SAN"
    else
        for t in $TARGETS; do
            "${CARGO[@]}" fuzz build --sanitizer "$SAN" "$t" || return 1
        done
    fi
}
if ! build >&2; then
    echo "fuzz build failed" >&2
    exit 2
fi
echo "fuzz build: $(( $(date +%s) - start )) s" >&2

TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
BIN="$FUZZ/target/$TRIPLE/release"
COMMON=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1)

fail=0
declare -a ROWS

for t in $TARGETS; do
    # Replay saved crash inputs.
    reg="$FUZZ/regressions/$t"
    if [ -d "$reg" ] && [ -n "$(ls -A "$reg" 2>/dev/null)" ]; then
        if "$BIN/$t" "${COMMON[@]}" -runs=1 "$reg"/* >"/tmp/guomi-fuzz-$t-replay.log" 2>&1; then
            echo "$t: $(ls "$reg" | wc -l) regression input(s) pass" >&2
        else
            echo "$t: REGRESSION INPUT FAILS (log: /tmp/guomi-fuzz-$t-replay.log)" >&2
            grep -m3 -E "panicked|ERROR|SUMMARY" "/tmp/guomi-fuzz-$t-replay.log" >&2
            fail=1
            ROWS+=("$t|-|-|-|regression fails")
            continue
        fi
    fi
    [ "$REPLAY_ONLY" = 1 ] && continue

    work="$FUZZ/work/$t"
    art="$FUZZ/artifacts/$t"
    mkdir -p "$work" "$art"
    log="/tmp/guomi-fuzz-$t.log"
    extra=()
    if [ "$JOBS" -gt 1 ]; then
        extra=(-jobs="$JOBS" -workers="$JOBS")
    fi
    before=$(ls "$art" | wc -l)
    t0=$(date +%s)
    "$BIN/$t" "${COMMON[@]}" "${extra[@]}" -max_total_time="$SECONDS_PER" \
        -artifact_prefix="$art/" "$work" "$FUZZ/corpus/$t" >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - t0 ))
    if [ "$JOBS" -gt 1 ]; then
        cat fuzz-*.log >>"$log" 2>/dev/null
        rm -f fuzz-*.log
    fi
    execs=$(grep -h 'stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
    corpus=$(ls "$work" | wc -l)
    status=ok
    after=$(ls "$art" | wc -l)
    if [ "$rc" -ne 0 ] || [ "$after" -gt "$before" ]; then
        status="CRASH (log: $log)"
        fail=1
        mkdir -p "$reg"
        for a in $(ls -t "$art" | head -n $(( after - before > 0 ? after - before : 1 ))); do
            cp "$art/$a" "$reg/$a"
            echo "$t: crash input kept as fuzz/regressions/$t/$a" >&2
        done
        grep -m3 -E "panicked|ERROR: libFuzzer|SUMMARY" "$log" >&2
    fi
    ROWS+=("$t|$execs|$secs|$corpus|$status")
    echo "$t: $execs executions in $secs s, corpus $corpus, $status" >&2
done

if [ "$REPLAY_ONLY" = 0 ] || [ ${#ROWS[@]} -gt 0 ]; then
    printf '%-14s %12s %8s %8s  %s\n' target executions seconds corpus result
    for r in "${ROWS[@]}"; do
        IFS='|' read -r a b c d e <<<"$r"
        printf '%-14s %12s %8s %8s  %s\n' "$a" "$b" "$c" "$d" "$e"
    done
fi
exit $fail
