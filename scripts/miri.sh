#!/usr/bin/env bash
# Runs under Miri the tests of the `unsafe` code outside the SIMD backends (beyond `cpu`'s
# CPUID query, which is skipped under Miri): the hand-off of
# a batch call's work to pool threads (guomi_core::parallel, `with_helpers`), with rayon's
# real threads, including helpers that start after the call returned and helper panics.
#
#   scripts/miri.sh
#
# * Needs a nightly toolchain; installs its `miri` and `rust-src` components when missing.
# * Tree Borrows (-Zmiri-tree-borrows): crossbeam-epoch, under rayon, is reported by the
#   older Stacked Borrows model in its own code. Leaks are ignored (-Zmiri-ignore-leaks):
#   the process-wide pool's threads are never joined, by design.
# * Exits non-zero on undefined behaviour, a data race or a failing test.
set -euo pipefail
cd "$(dirname "$0")/.."
installed=$(rustup +nightly component list --installed 2>/dev/null)
if ! grep -q '^miri' <<<"$installed" || ! grep -q '^rust-src' <<<"$installed"; then
    rustup +nightly component add miri rust-src
fi
export MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-tree-borrows -Zmiri-ignore-leaks"
cargo +nightly miri test -q -p guomi-core --lib -- \
    parallel::tests::a_ parallel::tests::pipeline parallel::tests::guided parallel::tests::simd_splits
