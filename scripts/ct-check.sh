#!/usr/bin/env bash
# Constant-time check of guomi-core under valgrind memcheck (the method of BoringSSL's
# constant-time validation): the harness (crates/guomi-ct) marks secrets undefined, runs
# each operation and declassifies only public results; memcheck then reports every branch
# ("Conditional jump or move depends on uninitialised value(s)") and every memory address
# ("Use of uninitialised value of size N") that depends on a secret.
#
# No suppressions file: the few branches inside guomi-core whose secret-derived outcome is
# public by design (a tag check's result, an error the API returns, a rejection-sampling
# retry) are declassified in the code itself, right before the branch and with the reason
# beside it, by `guomi_core::ct::declassify` / `declassify_choice`. guomi-ct builds the core
# with the `ct-declassify` feature, which turns them into memcheck's MAKE_MEM_DEFINED
# client request (BoringSSL's CONSTTIME_DECLASSIFY); shipped builds compile them to
# nothing. So a declassification moves with its code, and any other report is a finding.
#
# Every check runs on every backend valgrind's virtual CPU offers (it hides AVX-512, so
# `portable` and `avx2`); the AVX-512 kernels are covered by scripts/ct-timing.sh. The
# planted-leak self-test must be flagged, or the script fails.
#
# Usage: scripts/ct-check.sh [CHECK...]     (default: every check)
# Env:   CT_JOBS       parallel valgrind processes (default: number of CPUs, at most 4)
#        CT_LOG_DIR    where the per-check valgrind logs go (default: target/ct-logs)
#        CT_SKIP_BUILD set to 1 to reuse an existing build
# Exit:  0 all clean and the planted leak caught; 1 a report (or the self-test failed);
#        2 setup problem (no valgrind, build failure).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD

if ! command -v valgrind >/dev/null 2>&1; then
    echo "ct-check: valgrind is not installed" >&2
    exit 2
fi

# An optimised, non-LTO build with line tables (readable reports); release semantics
# otherwise: no debug assertions or overflow checks, whose extra branches on secret
# values would be noise. It lives in the workspace target dir under target/ct/.
PROFILE=(--config 'profile.ct.inherits="release"'
         --config 'profile.ct.lto=false'
         --config 'profile.ct.codegen-units=16'
         --config 'profile.ct.debug="line-tables-only"'
         --config 'profile.ct.incremental=false')
if [[ "${CT_SKIP_BUILD:-0}" != 1 ]]; then
    cargo build -q -p guomi-ct --profile ct "${PROFILE[@]}" || exit 2
fi
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
BIN="$TARGET_DIR/ct/guomi-ct"
[[ -x "$BIN" ]] || { echo "ct-check: $BIN not built" >&2; exit 2; }

LOG_DIR=${CT_LOG_DIR:-$TARGET_DIR/ct-logs}
rm -rf "$LOG_DIR"
mkdir -p "$LOG_DIR"
JOBS=${CT_JOBS:-$(nproc 2>/dev/null || echo 2)}
(( JOBS > 4 )) && JOBS=4

VG=(valgrind --tool=memcheck --error-exitcode=99 --track-origins=yes
    --num-callers=30 --leak-check=no --show-leak-kinds=none)

# Backends as valgrind's CPU reports them (never avx512: valgrind hides AVX-512).
BACKENDS=$("${VG[@]}" -q "$BIN" backends)
if [[ $# -gt 0 ]]; then CHECKS=("$@"); else mapfile -t CHECKS < <("$BIN" list | grep -v '^ '); fi
echo "ct-check: ${#CHECKS[@]} checks x backends [$BACKENDS], $JOBS at a time; logs in $LOG_DIR"

# One valgrind process per (check, backend): a report is attributed to one check.
run_one() {
    local check=$1 backend=$2 log="$LOG_DIR/$1.$2.log"
    if "${VG[@]}" --log-file="$log" "$BIN" check "$check" --backend "$backend" \
            >"$log.out" 2>&1; then
        echo "ok    $check [$backend]"
    else
        local rc=$? n
        n=$(grep -c 'depends on uninitialised\|Use of uninitialised' "$log" || true)
        echo "FAIL  $check [$backend]: exit $rc, $n memcheck report(s), see $log"
    fi
}
export -f run_one
export LOG_DIR BIN ROOT
export VG_STR="${VG[*]}"

start=$SECONDS
for c in "${CHECKS[@]}"; do for b in $BACKENDS; do echo "$c $b"; done; done |
    xargs -P "$JOBS" -L 1 bash -c 'VG=($VG_STR); run_one "$0" "$1"' |
    sort -k2 | tee "$LOG_DIR/summary.txt"
set +e +o pipefail   # from here on: report everything, decide at the end
status=0
grep -q '^FAIL' "$LOG_DIR/summary.txt" && status=1

# Print the reports of failing checks (first lines of each, with the source location).
for f in $(grep '^FAIL' "$LOG_DIR/summary.txt" | sed 's/.*see //'); do
    echo "---- $f"
    grep -A12 'depends on uninitialised\|Use of uninitialised' "$f" | head -60
done

# Self-test: both planted leaks must be reported, at the planted function.
selftest=0
for kind in branch table; do
    log="$LOG_DIR/planted-$kind.log"
    "${VG[@]}" --log-file="$log" "$BIN" planted "$kind" >/dev/null 2>&1 && rc=0 || rc=$?
    if [[ $rc -eq 99 ]] && grep -q "planted::$kind" "$log" &&
        grep -q 'depends on uninitialised\|Use of uninitialised' "$log"; then
        echo "ok    self-test: planted $kind leak detected"
    else
        echo "FAIL  self-test: planted $kind leak NOT detected (exit $rc, see $log)"
        selftest=1
    fi
done
(( selftest )) && status=1

echo "ct-check: $(grep -c '^ok' "$LOG_DIR/summary.txt") passed," \
     "$(grep -c '^FAIL' "$LOG_DIR/summary.txt" || true) failed," \
     "$((SECONDS - start)) s"
exit $status
