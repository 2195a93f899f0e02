#!/usr/bin/env bash
# Prepares this machine (Debian 12, x86-64) to build and test guomi for aarch64 and riscv64
# under user-mode emulation (scripts/cross-test.sh, scripts/smoke.py --arch). Safe to re-run:
# every step checks what is there and does only what is missing; the downloads are cached
# under target/cross/.
#
#   * Debian packages (apt, as root): qemu-user (7.2, the distribution's), the aarch64 and
#     riscv64 C cross compilers and C libraries (the linkers of cargo's test binaries),
#     mmdebstrap.
#   * qemu-user 10 from bookworm-backports, unpacked (not installed) into
#     target/cross/qemu10 (its binaries are static): 7.2 lacks the RISC-V vector crypto
#     extensions (Zvksed, Zvksh, Zvkg) and the riscv_hwprobe system call, and its newest
#     aarch64 models. The backports source is added to apt when missing.
#   * rustup targets: aarch64-unknown-linux-gnu, aarch64-unknown-linux-musl,
#     riscv64gc-unknown-linux-gnu; and loongarch64-unknown-linux-gnu for the build-only
#     gate, on the default toolchain when it still ships that standard library, else on
#     Rust 1.93 (the last release that does here; the choice is written to
#     target/cross/loongarch-toolchain).
#   * Debian root file systems with a genuine CPython (mmdebstrap --variant=extract: the
#     packages unpacked, nothing configured or run):
#       target/cross/arm64    bookworm, python3.11 (Debian 12's own)
#       target/cross/riscv64  trixie, python3.13 (bookworm has no riscv64 port)
#     run as  qemu-aarch64 -L target/cross/arm64 target/cross/arm64/usr/bin/python3.11
#   * the test dependencies for those interpreters (pytest, hypothesis, the cross-check
#     peers PyPI has wheels for), wheels for the emulated Python's version and
#     architecture, installed by this machine's pip into target/cross/site-aarch64 and
#     target/cross/site-riscv64.
#
# Usage: scripts/cross-setup.sh [aarch64|riscv64|all]   (default all)
# Env:   PYTHON  the interpreter whose venv runs pip (default python3)
# Exit:  0 when everything is in place and each emulated interpreter imports pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CROSS=$ROOT/target/cross
case "${1:-all}" in
    aarch64 | riscv64) arches=("$1") ;;
    all) arches=(aarch64 riscv64) ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "cross-setup: unknown architecture $1 (aarch64, riscv64 or all)" >&2; exit 2 ;;
esac
mkdir -p "$CROSS"
step() { echo "-- cross-setup ($SECONDS s): $*"; }
apt_updated=0
apt_update() {
    if [ "$apt_updated" = 0 ]; then
        apt-get update -qq
        apt_updated=1
    fi
}

# The test dependencies (their own requirements are resolved by pip for the emulated
# Python's version and architecture): pytest, hypothesis, and the independent
# implementations the selected tests cross-check against where PyPI has a wheel for the
# architecture (gmalg is pure Python; gmssl needs pycryptodomex and cryptography needs
# cffi, both compiled, with aarch64 wheels but no riscv64 ones: those checks skip there).
PY_DEPS=("pytest>=8,<10" "hypothesis>=6.100,<7" "gmalg")
declare -A PY_DEPS_ARCH=([aarch64]="gmssl>=3.2 cryptography>=42" [riscv64]="")
declare -A ROOTFS_SUITE=([aarch64]=bookworm [riscv64]=trixie)
declare -A ROOTFS_ARCH=([aarch64]=arm64 [riscv64]=riscv64)
declare -A ROOTFS_PY=([aarch64]=python3.11 [riscv64]=python3.13)
declare -A PIP_PLATFORM=([aarch64]=manylinux2014_aarch64 [riscv64]=manylinux_2_31_riscv64)

step "Debian packages"
pkgs=(qemu-user mmdebstrap gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-riscv64-linux-gnu
    libc6-dev-riscv64-cross)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "cross-setup: missing ${missing[*]}; run as root (apt-get)" >&2; exit 1; }
    apt_update
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
qemu-aarch64 --version | head -n 1

step "qemu-user 10 (bookworm-backports) in target/cross/qemu10"
QEMU10=$CROSS/qemu10/bin
if ! "$QEMU10/qemu-riscv64" --version 2>/dev/null | grep -q 'version 10\.'; then
    if ! grep -Rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        [ "$(id -u)" = 0 ] || { echo "cross-setup: add bookworm-backports to apt's sources (root)" >&2; exit 1; }
        echo "deb http://deb.debian.org/debian bookworm-backports main" \
            >/etc/apt/sources.list.d/guomi-cross-bookworm-backports.list
        apt_updated=0
    fi
    apt_update
    rm -rf "$CROSS/debs" "$CROSS/qemu10" "$CROSS/qemu10.tmp"
    mkdir -p "$CROSS/debs"
    # apt's sandbox user must be able to write the download folder.
    chmod 777 "$CROSS/debs"
    (cd "$CROSS/debs" && apt-get download -qq qemu-user/bookworm-backports)
    dpkg-deb -x "$CROSS"/debs/qemu-user_*.deb "$CROSS/qemu10.tmp"
    mkdir -p "$QEMU10"
    # Only the emulators used here: the whole package is 360 MB unpacked.
    for a in aarch64 riscv64 loongarch64; do
        cp "$CROSS/qemu10.tmp/usr/bin/qemu-$a" "$QEMU10/"
    done
    rm -rf "$CROSS/qemu10.tmp" "$CROSS/debs"
fi
"$QEMU10/qemu-riscv64" --version | head -n 1

step "rustup targets"
rustup target add aarch64-unknown-linux-gnu aarch64-unknown-linux-musl riscv64gc-unknown-linux-gnu >/dev/null
# LoongArch (build-only gate): the default toolchain's std if it is still published, else 1.93.
if rustup target add loongarch64-unknown-linux-gnu >/dev/null 2>&1; then
    echo "" >"$CROSS/loongarch-toolchain"
    echo "loongarch64-unknown-linux-gnu: default toolchain ($(rustc --version))"
else
    rustup toolchain install 1.93 --profile minimal --component clippy \
        --target loongarch64-unknown-linux-gnu >/dev/null 2>&1 ||
        rustup toolchain install 1.93 --profile minimal --component clippy \
            --target loongarch64-unknown-linux-gnu
    echo "+1.93" >"$CROSS/loongarch-toolchain"
    echo "loongarch64-unknown-linux-gnu: Rust 1.93 ($(rustc +1.93 --version)); the default toolchain ships no std for it"
fi

# A file system made by --variant=extract lacks what a merged-/usr system gets from its
# maintainer scripts (trixie's /bin, /lib are links into /usr); the interpreter's dynamic
# loader must exist at the path written in its ELF header.
fix_rootfs() {
    local fs=$1 d interp found
    for d in bin sbin lib; do
        if [ ! -e "$fs/$d" ] && [ ! -L "$fs/$d" ]; then
            ln -s "usr/$d" "$fs/$d"
        fi
    done
    interp=$(readelf -l "$fs/usr/bin/$2" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
    if [ ! -e "$fs$interp" ]; then
        found=$(find "$fs/usr/lib" -maxdepth 2 -name "$(basename "$interp")" | head -n 1)
        [ -n "$found" ] || { echo "cross-setup: no $(basename "$interp") in $fs" >&2; exit 1; }
        mkdir -p "$fs$(dirname "$interp")"
        ln -sf "${found#"$fs"}" "$fs$interp"
    fi
}

# qemu -L looks a path up in the root file system first and, when it is not there, on this
# machine: the interpreter would find this machine's /usr/lib/python3/dist-packages (x86-64
# modules) on its sys.path. Empty folders in the root file system keep those out.
isolate_site_dirs() {
    local fs=$1 py=$2
    mkdir -p "$fs/usr/lib/python3/dist-packages" "$fs/usr/local/lib/$py/dist-packages" \
        "$fs/usr/lib/$py/dist-packages"
}

for arch in "${arches[@]}"; do
    deb=${ROOTFS_ARCH[$arch]}
    py=${ROOTFS_PY[$arch]}
    suite=${ROOTFS_SUITE[$arch]}
    fs=$CROSS/$deb
    qemu=qemu-$arch
    [ "$arch" = riscv64 ] && qemu=$QEMU10/qemu-riscv64   # 7.2 runs it too; 10 is the reference
    step "$arch: Debian $suite root file system with $py in target/cross/$deb"
    if ! "$qemu" -L "$fs" -0 "/usr/bin/$py" "$fs/usr/bin/$py" -c 'import json, hashlib, subprocess' 2>/dev/null; then
        rm -rf "$fs" "$fs.tmp"
        mmdebstrap --quiet --variant=extract --architectures="$deb" \
            --include="$py-minimal,lib$py-stdlib" "$suite" "$fs.tmp"
        fix_rootfs "$fs.tmp" "$py"
        mv "$fs.tmp" "$fs"
    fi
    isolate_site_dirs "$fs" "$py"
    "$qemu" -L "$fs" -0 "/usr/bin/$py" "$fs/usr/bin/$py" -c 'import platform, sys; print(platform.machine(), sys.version.split()[0])'

    step "$arch: pytest, hypothesis and cross-check peers for $py in target/cross/site-$arch"
    site=$CROSS/site-$arch
    read -r -a deps <<<"${PY_DEPS[*]} ${PY_DEPS_ARCH[$arch]}"
    stamp="${deps[*]} ${PIP_PLATFORM[$arch]}"
    if [ "$(cat "$site/.guomi-deps" 2>/dev/null)" != "$stamp" ]; then
        if [ ! -x "$CROSS/pip-venv/bin/python" ]; then
            "${PYTHON:-python3}" -m venv "$CROSS/pip-venv"
            "$CROSS/pip-venv/bin/python" -m pip install --quiet --upgrade pip
        fi
        rm -rf "$site"
        # Wheels only, for the emulated interpreter's version and architecture (pip resolves
        # the dependencies for it; hypothesis ships a compiled helper for each).
        "$CROSS/pip-venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            --target "$site" --only-binary=:all: --platform "${PIP_PLATFORM[$arch]}" \
            --python-version "${py#python}" --implementation cp "${deps[@]}"
        echo "$stamp" >"$site/.guomi-deps"
    fi
    # Byte code goes to target/cross/pycache-ARCH (the extracted file system has none, and
    # compiling the standard library under emulation costs seconds at every start), whatever
    # PYTHONDONTWRITEBYTECODE says: this first import fills it.
    env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$site" PYTHONPYCACHEPREFIX="$CROSS/pycache-$arch" "$qemu" -L "$fs" -0 "/usr/bin/$py" "$fs/usr/bin/$py" -c \
        'import pytest, hypothesis; print("pytest", pytest.__version__, "hypothesis", hypothesis.__version__)'
done
step "done"
