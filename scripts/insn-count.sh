#!/usr/bin/env bash
# Instructions per byte (SM4, SM3) and per operation (SM2) of guomi's aarch64 backends and
# of OpenSSL's aarch64 code paths, counted under qemu user-mode emulation: a measure of the
# work each code path does, for a machine without an Arm core (docs/performance.md, "Other
# architectures: instruction counts under emulation"). Counts are not cycles.
#
# Method: each number is one process doing one operation, run twice under
#   qemu-aarch64 -cpu MODEL -plugin target/cross/insn.so,inline=on -d plugin
# (qemu's own instruction-counting plugin, tests/plugin/insn.c, built here against the
# installed qemu-user's plugin header): once on N bytes (or N SM2 operations) and once on
# zero, with the same setup (key schedule, buffers, key pair, library start-up). The
# difference divided by N is the cost of the operation alone.
#   guomi:   crates/guomi-core/examples/insn_workload.rs (release build for
#            aarch64-unknown-linux-gnu), backend forced with GUOMI_BACKEND, on -cpu max.
#   OpenSSL: scripts/insn/openssl_workload.c (the same operations through EVP), against
#            Debian trixie's OpenSSL 3.5 for arm64 (a root file system unpacked by
#            mmdebstrap into target/cross/trixie-arm64). OpenSSL chooses its code from the
#            CPU, so each column names the qemu model that selects it:
#              max          SM4E / SM3 instructions (sm4-armv8, sm3-armv8)
#              neoverse-n1  NEON "vpsm4" (OpenSSL uses it on Neoverse N1/V1 only)
#              cortex-a72   plain C (table S-box SM4, C SM3)
#              cortex-a72 + MIDR of a Kunpeng 920: "vpsm4_ex" (S-box through AESE); no
#                           qemu model is a Kunpeng, so a static build of the workload
#                           overwrites libcrypto's recorded MIDR (OPENSSL_WORKLOAD_MIDR).
#            GHASH uses PMULL in every column (all three models have it); SM2 uses
#            OpenSSL's ecp_sm2p256 assembly in every column.
#   Before counting, a 4 KiB SM4-CTR run of each column is checked for the instructions its
#   path must execute (SM4E, TBL, AESE; the table's "evidence" lines), so that a column
#   cannot silently measure another path.
#
# Prepares what is missing, then measures (safe to re-run; cached under target/cross/):
#   * target/cross/insn.so: qemu's tests/plugin/insn.c from the Debian source package of
#     the installed qemu (apt-get source: adds a deb-src line for bookworm main, signed by
#     the Debian archive keyring, when none is there; needs root for apt and
#     libglib2.0-dev).
#   * target/cross/trixie-arm64: mmdebstrap --variant=extract of openssl, libssl3t64,
#     libssl-dev and libc6-dev (trixie, arm64), and the merged-/usr links.
#   * target/cross/insn/openssl_workload{,_static}: the C workload, dynamic (against
#     libcrypto.so.3) and static (libcrypto.a), rebuilt when the source is newer.
#   * the guomi example: cargo build (incremental; CARGO_TARGET_DIR is honoured).
#
# Usage: scripts/insn-count.sh [--bytes N] [--sm2-ops N] [--variants "V ..."] [--no-openssl]
#   --bytes N        input length for SM4/SM3 (default 1048576; a multiple of 16)
#   --sm2-ops N      SM2 signatures/verifications per run (default 20)
#   --variants "..." guomi backends to count (default "portable neon-nopmull neon armsm")
#   --no-openssl     guomi columns only
#   --no-build       count the guomi example binary already built (no cargo run)
# Output: Markdown tables on stdout (instructions per byte, per SM2 operation, ratios);
# progress on stderr; every raw count in target/cross/insn/counts.tsv.
# Exit: 0 when every requested count was taken; 1 when a build failed or a column could not
# be measured (its cells read "n/a", the reason on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CROSS=$ROOT/target/cross
WORK=$CROSS/insn
PLUGIN=$CROSS/insn.so
ROOTFS=$CROSS/trixie-arm64
LIBDIR=$ROOTFS/usr/lib/aarch64-linux-gnu
TRIPLE=aarch64-unknown-linux-gnu
BYTES=1048576
SM2_OPS=20
VARIANTS="portable neon-nopmull neon armsm"
OPENSSL=1
BUILD=1
# MIDR_EL1 of a HiSilicon Kunpeng 920 (implementer 0x48, part 0xd01), OpenSSL's test for
# its vpsm4_ex code (include/crypto/sm4_platform.h).
KP920_MIDR=481fd010

while [ $# -gt 0 ]; do
    case "$1" in
        --bytes) BYTES=$2; shift 2 ;;
        --sm2-ops) SM2_OPS=$2; shift 2 ;;
        --variants) VARIANTS=$2; shift 2 ;;
        --no-openssl) OPENSSL=0; shift ;;
        --no-build) BUILD=0; shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "insn-count: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ $((BYTES % 16)) != 0 ] || [ "$BYTES" -le 0 ] || [ "$SM2_OPS" -le 0 ]; then
    echo "insn-count: --bytes must be a positive multiple of 16, --sm2-ops positive" >&2
    exit 2
fi
mkdir -p "$WORK"
step() { echo "-- insn-count ($SECONDS s): $*" >&2; }
failed=0

# ---------------------------------------------------------------- the counting plugin
build_plugin() {
    # The plugin must be built against the plugin API of the qemu that loads it: the
    # header of the installed qemu-user's own source package.
    local ver src tmp
    ver=$(dpkg-query -W -f '${Version}' qemu-user)
    if ! command -v pkg-config >/dev/null || ! pkg-config --exists glib-2.0; then
        apt-get install -y -qq pkg-config libglib2.0-dev >&2
    fi
    if ! grep -rqs '^deb-src .*debian.org/debian bookworm main' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        echo 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main' \
            > /etc/apt/sources.list.d/guomi-insn-src.list
    fi
    apt-get update -qq >&2
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get source --download-only "qemu=${ver%+b*}" >&2) ||
        (cd "$tmp" && apt-get source --download-only qemu >&2)
    tar -C "$tmp" -xJf "$tmp"/qemu_*.orig.tar.xz --wildcards '*/tests/plugin/insn.c' '*/include/qemu/qemu-plugin.h'
    src=$(echo "$tmp"/qemu-*/)
    # shellcheck disable=SC2046 # pkg-config prints several flags
    gcc -O2 -shared -fPIC -I "$src/include/qemu" $(pkg-config --cflags glib-2.0) \
        -o "$PLUGIN" "$src/tests/plugin/insn.c" $(pkg-config --libs glib-2.0)
    rm -rf "$tmp"
}
if [ ! -s "$PLUGIN" ]; then
    step "building qemu's insn plugin into $PLUGIN"
    build_plugin
fi

# Total instructions of one emulated run: count QEMU [ENV=VALUE ...] -- PROGRAM ARGS.
# Prints the count, or nothing (and the program's stderr to ours) when the run failed.
count() {
    local qemu=("$1") out
    shift
    while [ "$1" != -- ]; do qemu+=("$1"); shift; done
    shift
    if ! out=$("${qemu[@]}" -plugin "$PLUGIN,inline=on" -d plugin "$@" 2>&1 >/dev/null); then
        echo "$out" | grep -v '^insns: ' | sed 's/^/   | /' >&2
        return 0
    fi
    echo "$out" | sed -n 's/^\(total \)\{0,1\}insns: //p' | tail -1
}

# Executed instructions whose disassembly starts with PREFIX: match QEMU ... -- PROGRAM
# ARGS, with PREFIX in $MATCH (qemu 7.2 disassembles SM3/SM4 instructions as ".byte").
matches() {
    local qemu=("$1") n
    shift
    while [ "$1" != -- ]; do qemu+=("$1"); shift; done
    shift
    n=$("${qemu[@]}" -plugin "$PLUGIN,match=$MATCH" -d plugin "$@" 2>&1 >/dev/null |
        grep -c 'match hits' || true)
    echo "$n"
}

# ---------------------------------------------------------------- guomi's workload
GUOMI_BIN=${CARGO_TARGET_DIR:-$ROOT/target}/$TRIPLE/release/examples/insn_workload
if [ "$BUILD" = 1 ]; then
    step "building examples/insn_workload for $TRIPLE (release)"
    export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
    if ! cargo build -q --release -p guomi-core --target "$TRIPLE" --example insn_workload >&2; then
        echo "insn-count: the guomi example did not build (see above)" >&2
        exit 1
    fi
elif [ ! -x "$GUOMI_BIN" ]; then
    echo "insn-count: --no-build, but $GUOMI_BIN is not there" >&2
    exit 1
fi

# ---------------------------------------------------------------- OpenSSL's workload
OSSL_DYN=$WORK/openssl_workload
OSSL_STATIC=$WORK/openssl_workload_static
OSSL_SRC=$ROOT/scripts/insn/openssl_workload.c
if [ "$OPENSSL" = 1 ]; then
    if [ ! -e "$LIBDIR/libcrypto.so.3" ] || [ ! -e "$LIBDIR/libc.so" ] || [ ! -e "$ROOTFS/usr/include/openssl/evp.h" ]; then
        step "unpacking Debian trixie's OpenSSL for arm64 into $ROOTFS"
        command -v mmdebstrap >/dev/null || apt-get install -y -qq mmdebstrap >&2
        rm -rf "$ROOTFS"
        mmdebstrap --quiet --variant=extract --architectures=arm64 \
            --include=openssl,libssl3t64,libssl-dev,libc6-dev trixie "$ROOTFS" >&2
    fi
    # The extract variant leaves out the merged-/usr links that the dynamic loader's path
    # (/lib/ld-linux-aarch64.so.1) and libc.so's linker script go through.
    for d in lib bin sbin; do [ -e "$ROOTFS/$d" ] || [ -L "$ROOTFS/$d" ] || ln -s "usr/$d" "$ROOTFS/$d"; done
    # The root file system's own C library (trixie's glibc, which its libcrypto needs) and
    # start files, not the cross compiler's bookworm ones: --sysroot with -B and -L.
    cc=(aarch64-linux-gnu-gcc --sysroot="$ROOTFS" -B"$LIBDIR" -L"$LIBDIR" -O2 -Wall -Wextra)
    if [ ! -x "$OSSL_DYN" ] || [ "$OSSL_SRC" -nt "$OSSL_DYN" ]; then
        step "building scripts/insn/openssl_workload.c (dynamic)"
        "${cc[@]}" -Werror -o "$OSSL_DYN" "$OSSL_SRC" -lcrypto
    fi
    if [ ! -x "$OSSL_STATIC" ] || [ "$OSSL_SRC" -nt "$OSSL_STATIC" ]; then
        step "building scripts/insn/openssl_workload.c (static libcrypto.a)"
        "${cc[@]}" -Werror -DOPENSSL_WORKLOAD_STATIC -o "$OSSL_STATIC" "$OSSL_SRC" \
            "$LIBDIR/libcrypto.a" "$LIBDIR/libz.so.1" "$LIBDIR/libzstd.so.1" -lpthread
    fi
    OSSL_VERSION=$(qemu-aarch64 -L "$ROOTFS" "$OSSL_DYN" sm3 0 2>&1 | head -1)
fi

# ---------------------------------------------------------------- the columns
# Each column: a label, a qemu command line (up to the program) and the program; the
# OpenSSL ones also name the path they are meant to run and the instruction that proves it.
cols=() col_cmd=() col_prog=() col_want=() col_what=()
add_col() { cols+=("$1"); col_cmd+=("$2"); col_prog+=("$3"); col_want+=("$4"); col_what+=("$5"); }
for v in $VARIANTS; do
    case "$v" in
        armsm*) want=".byte" ;;
        neon*) want="tbl" ;;
        *) want="" ;;
    esac
    add_col "guomi $v" "env GUOMI_BACKEND=$v qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max" \
        "$GUOMI_BIN" "$want" "guomi $v, qemu -cpu max"
done
if [ "$OPENSSL" = 1 ]; then
    add_col "OpenSSL C" "qemu-aarch64 -L $ROOTFS -cpu cortex-a72" "$OSSL_DYN" "" \
        "OpenSSL plain C SM4/SM3 (PMULL GHASH), qemu -cpu cortex-a72"
    add_col "OpenSSL vpsm4" "qemu-aarch64 -L $ROOTFS -cpu neoverse-n1" "$OSSL_DYN" "tbl" \
        "OpenSSL vpsm4 (NEON TBL S-box; C SM3), qemu -cpu neoverse-n1"
    add_col "OpenSSL vpsm4_ex" "env OPENSSL_WORKLOAD_MIDR=$KP920_MIDR qemu-aarch64 -L $ROOTFS -cpu cortex-a72" \
        "$OSSL_STATIC" "aese" \
        "OpenSSL vpsm4_ex (AESE S-box; C SM3), qemu -cpu cortex-a72, MIDR forced to Kunpeng 920 ($KP920_MIDR), static libcrypto.a"
    add_col "OpenSSL SM4E/SM3" "qemu-aarch64 -L $ROOTFS -cpu max" "$OSSL_DYN" ".byte" \
        "OpenSSL SM4E/SM3 instructions (sm4-armv8, sm3-armv8), qemu -cpu max"
fi

# The evidence: how many times the path's telltale instruction ran in 4 KiB of SM4-CTR.
step "checking that each column runs the code path it is labelled with"
declare -A ok
for i in "${!cols[@]}"; do
    # shellcheck disable=SC2086 # the command line is split on purpose
    if [ -z "$(count ${col_cmd[$i]} -- "${col_prog[$i]}" sm4-ctr 0)" ]; then
        echo "insn-count: ${cols[$i]} does not run (see above)" >&2
        ok[$i]=0
        failed=1
        continue
    fi
    ok[$i]=1
    if [ -n "${col_want[$i]}" ]; then
        # shellcheck disable=SC2086
        n=$(MATCH=${col_want[$i]} matches ${col_cmd[$i]} -- "${col_prog[$i]}" sm4-ctr 4096)
        echo "evidence: ${cols[$i]}: '${col_want[$i]}' executed at $n addresses in 4 KiB of SM4-CTR" >&2
        if [ "$n" = 0 ]; then
            echo "insn-count: ${cols[$i]} does not run its path; left out" >&2
            ok[$i]=0
            failed=1
        fi
    fi
done

# ---------------------------------------------------------------- counting
TSV=$WORK/counts.tsv
printf 'column\top\tn\tinsns_n\tinsns_0\tper_unit\n' >"$TSV"
byte_ops="sm4-ecb sm4-cbc-enc sm4-ctr sm4-gcm sm3"
sm2_ops="sm2-sign sm2-verify"
declare -A result
for i in "${!cols[@]}"; do
    [ "${ok[$i]}" = 1 ] || continue
    step "counting: ${cols[$i]}"
    for op in $byte_ops $sm2_ops; do
        case "$op" in sm2-*) n=$SM2_OPS ;; *) n=$BYTES ;; esac
        # shellcheck disable=SC2086
        a=$(count ${col_cmd[$i]} -- "${col_prog[$i]}" "$op" "$n")
        # shellcheck disable=SC2086
        b=$(count ${col_cmd[$i]} -- "${col_prog[$i]}" "$op" 0)
        if [ -z "$a" ] || [ -z "$b" ]; then
            echo "insn-count: ${cols[$i]} $op failed" >&2
            failed=1
            continue
        fi
        case "$op" in
            sm2-*) per=$(awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "%.0f", (a - b) / n }') ;;
            *) per=$(awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "%.2f", (a - b) / n }') ;;
        esac
        result[$i,$op]=$per
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${cols[$i]}" "$op" "$n" "$a" "$b" "$per" >>"$TSV"
    done
done

# ---------------------------------------------------------------- tables
cell() { echo "${result[$1,$2]:-n/a}"; }
col_index() {
    local j
    for j in "${!cols[@]}"; do [ "${cols[$j]}" = "$1" ] && echo "$j" && return; done
    echo -1
}
# ratio A B OP: A's count over B's, two decimals ("n/a" when either is missing).
ratio() {
    local a b
    a=$(cell "$(col_index "$1")" "$3")
    b=$(cell "$(col_index "$2")" "$3")
    if [ "$a" = n/a ] || [ "$b" = n/a ]; then echo n/a; return; fi
    awk -v a="$a" -v b="$b" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'
}
header() {
    local line="| $1 |" sep="|---|" i
    for i in "${!cols[@]}"; do line+=" ${cols[$i]} |"; sep+="---:|"; done
    echo "$line"
    echo "$sep"
}
echo "qemu: $(qemu-aarch64 --version | head -1); plugin: tests/plugin/insn.c (inline);" \
    "${BYTES} bytes / ${SM2_OPS} SM2 operations minus a zero-length run${OSSL_VERSION:+; $OSSL_VERSION}"
echo
echo "Columns:"
for i in "${!cols[@]}"; do echo "- ${cols[$i]}: ${col_what[$i]}"; done
echo
echo "Instructions per byte:"
echo
header "operation"
for op in $byte_ops; do
    line="| $op |"
    for i in "${!cols[@]}"; do line+=" $(cell "$i" "$op") |"; done
    echo "$line"
done
echo
echo "Instructions per SM2 operation (64-byte message, Z_A and SM3 included):"
echo
header "operation"
for op in $sm2_ops; do
    line="| $op |"
    for i in "${!cols[@]}"; do line+=" $(cell "$i" "$op") |"; done
    echo "$line"
done
echo
echo "Ratios (instructions of the first over the second; below 1: the first does less work):"
echo
echo "| operation | portable / neon | neon / OpenSSL vpsm4 | neon / OpenSSL vpsm4_ex | armsm / OpenSSL SM4E/SM3 | armsm / OpenSSL C |"
echo "|---|---:|---:|---:|---:|---:|"
for op in $byte_ops $sm2_ops; do
    echo "| $op | $(ratio "guomi portable" "guomi neon" "$op") |" \
        "$(ratio "guomi neon" "OpenSSL vpsm4" "$op") |" \
        "$(ratio "guomi neon" "OpenSSL vpsm4_ex" "$op") |" \
        "$(ratio "guomi armsm" "OpenSSL SM4E/SM3" "$op") |" \
        "$(ratio "guomi armsm" "OpenSSL C" "$op") |"
done
step "done; raw counts in ${TSV#"$ROOT"/}"
exit "$failed"
