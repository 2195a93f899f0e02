#!/usr/bin/env bash
# Builds what a release ships for Linux x86-64, into dist/:
#   * the sdist  guomi-VERSION.tar.gz
#   * one abi3 wheel  guomi-VERSION-cp310-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
#     (CPython 3.10 and newer; a stock pip accepts it on any glibc 2.17+ distribution).
#
# The wheel is built *from the sdist* (packed, unpacked under target/sdist-build, built
# there), so a wheel only comes out if the sdist is complete. It is linked
# with zig against glibc 2.17 symbol versions (--zig --compatibility manylinux2014), which
# is what makes a build on a newer distribution manylinux-compliant without a container;
# `auditwheel show` (see --check) confirms it. The code is compiled for the baseline x86-64
# (SSE2): the AVX2/AVX-512 kernels are chosen at run time, so no RUSTFLAGS such as
# -C target-cpu=native may reach this build (the script refuses them).
#
# Usage: scripts/build-wheels.sh [--check]
#   --check  also run `auditwheel show` on the wheel and fail unless it is consistent with
#            manylinux_2_17 (manylinux2014) x86_64 and needs no other library.
# Env:   PYTHON  interpreter used to make the tool environment (default python3)
#        GUOMI_TOOLS_VENV  where the build tools (maturin, ziglang, auditwheel) are
#            installed (default target/tools-venv; created when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
check=0
for arg in "$@"; do
    case "$arg" in
        --check) check=1 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-wheels: unknown option $arg" >&2; exit 2 ;;
    esac
done

# The wheel must run on every x86-64: nothing may raise the target CPU for this build.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS
dir=$ROOT
while :; do
    for cfg in "$dir/.cargo/config" "$dir/.cargo/config.toml"; do
        if [ -f "$cfg" ] && grep -Eq 'target-cpu|target-feature|rustflags' "$cfg"; then
            echo "build-wheels: $cfg sets rustflags/target-cpu; the wheel must be built for baseline x86-64" >&2
            exit 1
        fi
    done
    [ "$dir" = / ] && break
    dir=$(dirname "$dir")
done
for cfg in "${CARGO_HOME:-$HOME/.cargo}/config" "${CARGO_HOME:-$HOME/.cargo}/config.toml"; do
    if [ -f "$cfg" ] && grep -Eq 'target-cpu|target-feature|rustflags' "$cfg"; then
        echo "build-wheels: $cfg sets rustflags/target-cpu; the wheel must be built for baseline x86-64" >&2
        exit 1
    fi
done

# Build tools in their own environment, whatever virtual environment the caller has active.
unset VIRTUAL_ENV CONDA_PREFIX PYTHONHOME PYTHONPATH
TOOLS=${GUOMI_TOOLS_VENV:-$ROOT/target/tools-venv}
if [ ! -x "$TOOLS/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$TOOLS"
fi
# Versions as tested (maturin drives zig's linker wrapper, so a new zig can break it).
"$TOOLS/bin/python" -m pip install --quiet "maturin>=1.16,<2" "ziglang==0.17.1" "auditwheel>=6.8,<7"
# maturin finds zig through `python -m ziglang` of the first python on PATH.
export PATH="$TOOLS/bin:$PATH"

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
rm -f dist/guomi-"$version".tar.gz dist/guomi-"$version"-*.whl
mkdir -p dist
"$TOOLS/bin/maturin" sdist --out dist
sdist=dist/guomi-$version.tar.gz

# Unpack the sdist into a fixed folder, rewriting only the files whose content changed (and
# removing those gone): the sdist stores one fixed timestamp, and cargo decides what to
# rebuild from file times, so this keeps incremental builds both correct and fast.
SRC=$ROOT/target/sdist-build
"$TOOLS/bin/python" - "$sdist" "$SRC" <<'EOF_PY'
import os, sys, tarfile
from pathlib import Path

archive, dest = sys.argv[1], Path(sys.argv[2])
dest.mkdir(parents=True, exist_ok=True)
wanted = set()
with tarfile.open(archive, "r:gz") as tar:
    for m in tar.getmembers():
        parts = Path(m.name).parts
        if m.name.startswith("/") or ".." in parts:
            sys.exit(f"build-wheels: unsafe path in sdist: {m.name}")
        if not m.isfile():
            continue
        out = dest.joinpath(*parts)
        wanted.add(out)
        data = tar.extractfile(m).read()
        if out.is_file() and out.read_bytes() == data:
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
for root, _dirs, files in os.walk(dest):
    for name in files:
        if Path(root, name) not in wanted:
            os.remove(Path(root, name))
EOF_PY

# The wheel is built from the unpacked sdist (so only a complete sdist yields a wheel), with
# cargo's cache in target/ (the third-party crates compile once).
(cd "$SRC/guomi-$version" && CARGO_TARGET_DIR=$ROOT/target "$TOOLS/bin/maturin" build --release --locked \
    --zig --compatibility manylinux2014 --target x86_64-unknown-linux-gnu --out "$ROOT/dist")

wheel=$(ls dist/guomi-"$version"-cp310-abi3-manylinux*_x86_64.whl)
echo "built: dist/guomi-$version.tar.gz"
echo "built: $wheel"

if [ "$check" = 1 ]; then
    report=$("$TOOLS/bin/auditwheel" show "$wheel")
    echo "$report"
    # auditwheel names the most compatible tag the wheel's symbol versions allow.
    if ! grep -q 'consistent with the following platform tag:' <<<"$report" ||
        ! grep -Eq '"manylinux_2_17_x86_64"|"manylinux2014_x86_64"' <<<"$report"; then
        echo "build-wheels: $wheel is not manylinux_2_17 (manylinux2014) compliant" >&2
        exit 1
    fi
    if grep -q 'external shared libraries' <<<"$report"; then
        echo "build-wheels: $wheel needs external shared libraries" >&2
        exit 1
    fi
fi
