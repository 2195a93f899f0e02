#!/usr/bin/env bash
# Does guomi-core still build without its x86-64 code, as on aarch64, macOS arm64 and every
# other non-x86 target the release workflow builds? This machine has no cross toolchain
# (no other target's standard library), so the check simulates one: a copy of the crates
# in which every `target_arch = "x86_64"` condition names an architecture that does not
# exist, then `cargo check` of guomi-core (library and tests). Every SIMD module and every
# call into one must sit behind that condition, with the portable path always present;
# anything that does not fails to compile here.
#
# Usage: scripts/check-non-x86.sh [--test]
#   --test  also run guomi-core's library tests in the copy (portable backend only).
# Exit: 0 it compiles (warnings are listed, such as code only the x86 kernels use);
#       non-zero otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
mode="check"
case "${1:-}" in
    "") ;;
    --test) mode="test" ;;
    *) echo "check-non-x86: unknown option $1" >&2; exit 2 ;;
esac
SRC=$ROOT/target/non-x86/src
rm -rf "$SRC"
mkdir -p "$SRC"
cp -R Cargo.toml Cargo.lock crates "$SRC"/
# Only guomi-core has architecture-specific code; the other members just need to exist.
grep -rl --include='*.rs' 'target_arch = "x86_64"' "$SRC/crates" |
    xargs sed -i 's/target_arch = "x86_64"/target_arch = "x86_64_simulated_away"/g'
if grep -rn --include='*.rs' -E 'target_arch *= *"x86_64"' "$SRC/crates/guomi-core"; then
    echo "check-non-x86: a target_arch condition escaped the rewrite" >&2
    exit 1
fi
log=$ROOT/target/non-x86/cargo.log
cd "$SRC"
status=0
if [ "$mode" = test ]; then
    CARGO_TARGET_DIR=$ROOT/target/non-x86/target cargo test -p guomi-core --lib --locked 2>"$log" || status=$?
else
    CARGO_TARGET_DIR=$ROOT/target/non-x86/target cargo check -p guomi-core --lib --tests --locked 2>"$log" || status=$?
fi
if [ "$status" != 0 ]; then
    grep -A 12 '^error' "$log" >&2 || tail -n 40 "$log" >&2
    echo "check-non-x86: guomi-core does not build without its x86-64 code" >&2
    exit 1
fi
warnings=$(grep '^warning' "$log" | grep -v 'unexpected `cfg` condition value' | sort | uniq -c || true)
if [ -n "$warnings" ]; then
    echo "check-non-x86: builds; warnings without the x86-64 code (details in $log):"
    echo "$warnings"
else
    echo "check-non-x86: builds, no warnings"
fi
