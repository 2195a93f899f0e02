#!/usr/bin/env bash
# Builds what a release ships for Linux, into dist/:
#   * the sdist  guomi-VERSION.tar.gz
#   * one abi3 wheel per target (CPython 3.10 and newer; a stock pip accepts it on any
#     distribution with that C library version or newer). By default only Linux x86-64:
#       guomi-VERSION-cp310-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
#
# The wheel is built *from the sdist* (packed, unpacked under target/sdist-build, built
# there), so a wheel only comes out if the sdist is complete. It is linked
# with zig against glibc 2.17 symbol versions (--zig --compatibility manylinux2014), which
# is what makes a build on a newer distribution manylinux-compliant without a container;
# `auditwheel show` (see --check) confirms it. The code is compiled for the baseline x86-64
# (SSE2): the AVX2/AVX-512 kernels are chosen at run time, so no RUSTFLAGS such as
# -C target-cpu=native may reach this build (the script refuses them). The same holds for
# the other targets (baseline ARMv8-A, RV64GC: their NEON/SM/Zk/vector kernels are chosen at
# run time too).
#
# Usage: scripts/build-wheels.sh [--check] [--target TRIPLE]...
#   --check   also run `auditwheel show` on each wheel and fail unless it is consistent with
#             the wheel's platform tag (below) and needs no other library.
#   --target  build for TRIPLE instead of x86-64; repeat for several (each one a separate
#             cargo build in target/TRIPLE/release, cached between runs). Each foreign
#             wheel is cross-linked by zig: no cross compiler is needed, only the rustup
#             target (scripts/cross-setup.sh adds them). Known triples and their tags:
#               x86_64-unknown-linux-gnu     manylinux_2_17_x86_64 (manylinux2014; default)
#               aarch64-unknown-linux-gnu    manylinux_2_17_aarch64 (manylinux2014)
#               aarch64-unknown-linux-musl   musllinux_1_2_aarch64 (Alpine 3.17+ and others)
#               riscv64gc-unknown-linux-gnu  manylinux_2_31_riscv64 (the first glibc
#                                            with a riscv64 manylinux policy)
#             Without --target the x86-64 build is exactly what it was (one build, one
#             wheel); dist/ keeps the wheels of the targets not rebuilt.
# Env:   PYTHON  interpreter used to make the tool environment (default python3)
#        GUOMI_TOOLS_VENV  where the build tools (maturin, ziglang, auditwheel) are
#            installed (default target/tools-venv; created when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
check=0
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --check) check=1; shift ;;
        --target) [ $# -ge 2 ] || { echo "build-wheels: --target needs a triple" >&2; exit 2; }
            targets+=("$2"); shift 2 ;;
        --target=*) targets+=("${1#--target=}"); shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-wheels: unknown option $1" >&2; exit 2 ;;
    esac
done
[ "${#targets[@]}" -gt 0 ] || targets=(x86_64-unknown-linux-gnu)

# Per target: maturin's --compatibility, the wheel's file-name glob (in dist/), and the tag
# auditwheel must report (the most compatible one the wheel's symbol versions allow).
target_info() {
    case "$1" in
        x86_64-unknown-linux-gnu) echo "manylinux2014 manylinux*_x86_64 manylinux_2_17_x86_64|manylinux2014_x86_64" ;;
        aarch64-unknown-linux-gnu) echo "manylinux2014 manylinux*_aarch64 manylinux_2_17_aarch64|manylinux2014_aarch64" ;;
        aarch64-unknown-linux-musl) echo "musllinux_1_2 musllinux*_aarch64 musllinux_1_2_aarch64" ;;
        riscv64gc-unknown-linux-gnu) echo "manylinux_2_31 manylinux*_riscv64 manylinux_2_31_riscv64" ;;
        *) return 1 ;;
    esac
}
for t in "${targets[@]}"; do
    target_info "$t" >/dev/null || { echo "build-wheels: unknown target $t (see --help)" >&2; exit 2; }
done

# The wheel must run on every CPU of its architecture: nothing may raise the target CPU for
# this build (nor swap the linker zig provides).
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_RUSTFLAGS
for t in "${targets[@]}"; do
    T=$(tr 'a-z-' 'A-Z_' <<<"$t")
    unset "CARGO_TARGET_${T}_RUSTFLAGS" "CARGO_TARGET_${T}_LINKER" "CARGO_TARGET_${T}_RUNNER"
done
dir=$ROOT
while :; do
    for cfg in "$dir/.cargo/config" "$dir/.cargo/config.toml"; do
        if [ -f "$cfg" ] && grep -Eq 'target-cpu|target-feature|rustflags' "$cfg"; then
            echo "build-wheels: $cfg sets rustflags/target-cpu; the wheel must be built for the baseline CPU" >&2
            exit 1
        fi
    done
    [ "$dir" = / ] && break
    dir=$(dirname "$dir")
done
for cfg in "${CARGO_HOME:-$HOME/.cargo}/config" "${CARGO_HOME:-$HOME/.cargo}/config.toml"; do
    if [ -f "$cfg" ] && grep -Eq 'target-cpu|target-feature|rustflags' "$cfg"; then
        echo "build-wheels: $cfg sets rustflags/target-cpu; the wheel must be built for the baseline CPU" >&2
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
rm -f dist/guomi-"$version".tar.gz
for t in "${targets[@]}"; do
    read -r _ glob _ <<<"$(target_info "$t")"
    rm -f dist/guomi-"$version"-cp310-abi3-$glob.whl
done
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

# The sdist holds only the crates the Python package is built from, but the workspace's
# whole Cargo.lock, with the packages that only the other members use (guomi-ct,
# guomi-tlcp, guomi-rustls and their third-party crates); `--locked` refuses such a lock.
# Cargo drops those entries offline (it cannot resolve anything new without the network),
# and the check below proves it only removed packages: every remaining one keeps the
# version and checksum it was pinned to.
cp "$SRC/guomi-$version/Cargo.lock" "$SRC/Cargo.lock.sdist"
(cd "$SRC/guomi-$version" && cargo metadata --offline --format-version 1 >/dev/null)
"$TOOLS/bin/python" - "$SRC/Cargo.lock.sdist" "$SRC/guomi-$version/Cargo.lock" <<'EOF_PY'
import sys, tomllib

def packages(path):
    with open(path, "rb") as f:
        return {tuple(sorted((k, str(v)) for k, v in p.items() if k != "dependencies"))
                for p in tomllib.load(f)["package"]}

shipped, pruned = packages(sys.argv[1]), packages(sys.argv[2])
if not pruned <= shipped:
    sys.exit(f"build-wheels: pruning the sdist's Cargo.lock changed pins: {sorted(pruned - shipped)}")
EOF_PY

# Each wheel is built from the unpacked sdist (so only a complete sdist yields a wheel), with
# cargo's cache in target/ (the third-party crates compile once per target).
echo "built: dist/guomi-$version.tar.gz"
for t in "${targets[@]}"; do
    read -r compat glob tags <<<"$(target_info "$t")"
    (cd "$SRC/guomi-$version" && CARGO_TARGET_DIR=$ROOT/target "$TOOLS/bin/maturin" build --release --locked \
        --zig --compatibility "$compat" --target "$t" --out "$ROOT/dist")
    wheel=$(ls dist/guomi-"$version"-cp310-abi3-$glob.whl)
    echo "built: $wheel"

    if [ "$check" = 1 ]; then
        # A foreign wheel's libraries are looked up in an empty folder: this machine's own
        # (x86-64) libraries are no answer for another architecture.
        ldpaths=()
        if [ "$t" != x86_64-unknown-linux-gnu ]; then
            mkdir -p target/cross/no-libs
            ldpaths=(--ldpaths target/cross/no-libs)
        fi
        "$TOOLS/bin/auditwheel" show "${ldpaths[@]}" "$wheel"
        report=$("$TOOLS/bin/auditwheel" show --json "${ldpaths[@]}" "$wheel")
        "$TOOLS/bin/python" - "$wheel" "$tags" "$report" <<'EOF_PY'
import json, sys

wheel, tags, report = sys.argv[1], sys.argv[2].split("|"), json.loads(sys.argv[3])
libs = sorted(report["external_libs"])
# auditwheel names the most compatible tag that the symbol versions and libraries allow.
if report["overall_tag"] in tags and not libs:
    sys.exit(0)
# zig links a musl wheel against "libc.so" where an Alpine-built one names
# "libc.musl-<arch>.so.1", the one name auditwheel whitelists. musl's dynamic loader takes
# any NEEDED "libc.<anything>" for itself (ldso/dynlink.c, load_library), so the wheel needs
# nothing but musl; its symbols alone decide the tag then.
if "musllinux" in tags[0] and libs == ["libc.so"] and report["sym_tag"] in tags:
    print(f"build-wheels: {wheel}: its one library, libc.so, is musl itself; {report['sym_tag']}")
    sys.exit(0)
sys.exit(f"build-wheels: {wheel} is not {tags[0]} compliant (auditwheel: {report['overall_tag']}, "
         f"external libraries: {libs or 'none'})")
EOF_PY
    fi
done
