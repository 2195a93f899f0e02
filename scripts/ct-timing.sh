#!/usr/bin/env bash
# dudect-style timing test of guomi-core's kernels (crates/guomi-ct, `guomi-ct timing`):
# fixed-vs-random secret inputs, interleaved at random, cycle counts with rdtsc, cropped
# at percentiles, Welch's t-test; a target leaks if max |t| > 4.5. It covers what
# valgrind cannot run: by default the best backend of this CPU (AVX-512 + GFNI + VAES
# where present); pass --backend to choose another.
#
# Usage: scripts/ct-timing.sh [--short] [--backend B] [--target NAME] [-n N]
#   --short   a tenth of the measurements (about a minute; for CI)
# Not part of CI by default: timing on a shared, busy machine gives false alarms; re-run
# on a quiet machine before reading a failure as a leak.
# Exit: 0 no target over the threshold; 1 some target over it; 2 build or usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
# The timing build: the same optimised, non-LTO profile as scripts/ct-check.sh.
cargo build -q -p guomi-ct --profile ct \
    --config 'profile.ct.inherits="release"' \
    --config 'profile.ct.lto=false' \
    --config 'profile.ct.codegen-units=16' \
    --config 'profile.ct.debug="line-tables-only"' \
    --config 'profile.ct.incremental=false' || exit 2
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
exec "$TARGET_DIR/ct/guomi-ct" timing "$@"
