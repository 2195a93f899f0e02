#!/usr/bin/env bash
# Instructions per byte (SM4, SM3) and per operation (SM2) of guomi's aarch64 or riscv64
# backends and of OpenSSL's code paths for the same architecture, counted under qemu
# user-mode emulation: a measure of the work each code path does, for a machine without
# such a core (docs/performance.md, "Other architectures: instruction counts under
# emulation"). Counts are not cycles.
#
# Method: each number is one process doing one operation, run twice under qemu: once on N
# bytes (or N SM2 operations) and once on zero, with the same setup (key schedule,
# buffers, key pair, library start-up). The difference divided by N is the cost of the
# operation alone.
#   Counter, aarch64: the installed qemu-aarch64 (7.2) with qemu's own counting plugin,
#     tests/plugin/insn.c, built here against that qemu's plugin header:
#       qemu-aarch64 -cpu MODEL -plugin target/cross/insn.so,inline=on -d plugin PROGRAM
#   Counter, riscv64: qemu 7.2 lacks the vector crypto extensions and the riscv_hwprobe
#     call that guomi and OpenSSL detect them with, and the qemu 10 that
#     scripts/cross-setup.sh puts in target/cross/qemu10 is a static build without plugin
#     support; so qemu 10 runs one instruction per translation block, unchained, and logs
#     each block it executes (-one-insn-per-tb -d nochain,exec): one log line per
#     instruction. (On qemu 7.2, where both exist, this log and the plugin give identical
#     totals.) qemu 10 places the guest's mappings at random, and glibc's start-up takes
#     address-dependent branches (baselines 30,000 instructions apart); -R 0x4000000000
#     (a reserved 256 GiB guest address space) makes the layout, and the counts, the same
#     in every run. About 40 times slower than the plugin: the riscv64 defaults are
#     smaller.
#   guomi:   crates/guomi-core/examples/insn_workload.rs (release build for the target),
#            backend forced with GUOMI_BACKEND, on -cpu max.
#   OpenSSL: scripts/insn/openssl_workload.c (the same operations through EVP), against
#            Debian trixie's OpenSSL 3.5 (a root file system unpacked by mmdebstrap into
#            target/cross/trixie-arm64 or trixie-riscv64). OpenSSL chooses its code from
#            the CPU, so each column names what selects it:
#     aarch64  max          SM4E / SM3 instructions (sm4-armv8, sm3-armv8)
#              neoverse-n1  NEON "vpsm4" (OpenSSL uses it on Neoverse N1/V1 only)
#              cortex-a72   plain C (table S-box SM4, C SM3)
#              cortex-a72 + MIDR of a Kunpeng 920: "vpsm4_ex" (S-box through AESE); no
#                           qemu model is a Kunpeng, so a static build of the workload
#                           overwrites libcrypto's recorded MIDR (OPENSSL_WORKLOAD_MIDR).
#              GHASH uses PMULL in every column (all three models have it); SM2 uses
#              OpenSSL's ecp_sm2p256 assembly in every column.
#     riscv64  max          Zvksed SM4 (one block per call), Zvksh SM3, Zvkg GHASH
#              max with OPENSSL_riscvcap=rv64gc: plain C (OpenSSL has no scalar
#                           Zksed/Zksh code)
#   Before counting, a 4 KiB SM4-CTR run of each column is checked for the instructions
#   its path must execute (SM4E, TBL, AESE; sm4ed, vsm4r; the "evidence" lines), so that
#   a column cannot silently measure another path.
#
# Prepares what is missing, then measures (safe to re-run; cached under target/cross/):
#   * aarch64: target/cross/insn.so, qemu's tests/plugin/insn.c from the Debian source
#     package of the installed qemu (apt-get source: adds a deb-src line for bookworm main,
#     signed by the Debian archive keyring, when none is there; root for apt and
#     libglib2.0-dev).
#   * riscv64: needs target/cross/qemu10/bin/qemu-riscv64 (scripts/cross-setup.sh
#     riscv64 fetches it).
#   * target/cross/trixie-ARCH: mmdebstrap --variant=extract of openssl, libssl3t64,
#     libssl-dev and libc6-dev (Debian trixie), and the merged-/usr links.
#   * target/cross/insn/openssl_workload-ARCH (and, aarch64, -static): the C workload,
#     rebuilt when its source is newer.
#   * the guomi example: cargo build (incremental; CARGO_TARGET_DIR is honoured).
#
# Usage: scripts/insn-count.sh [--arch aarch64|riscv64] [--bytes N] [--sm2-ops N]
#                              [--variants "V ..."] [--ops "OP ..."] [--no-openssl]
#                              [--no-build]
#   --arch A         aarch64 (default) or riscv64
#   --bytes N        input length for SM4/SM3, a multiple of 16 (default 1048576 on
#                    aarch64, 65536 on riscv64)
#   --sm2-ops N      SM2 signatures/verifications per run (default 20; 3 on riscv64)
#   --variants "..." guomi backends to count (default "portable neon-nopmull neon armsm",
#                    on riscv64 "portable zk zvk-nozvkg zvk")
#   --ops "..."      operations to count (default: sm4-ecb sm4-cbc-enc sm4-ctr sm4-gcm
#                    sm3 sm2-sign sm2-verify; also sm3-many and eea3-many, batches of
#                    1 KiB messages through hash_many / eea3_many, guomi columns only:
#                    OpenSSL has no such call, its cells read "n/a")
#   --no-openssl     guomi columns only
#   --no-build       count the guomi example binary already built (no cargo run)
# Output: Markdown tables on stdout (instructions per byte, per SM2 operation, ratios);
# progress on stderr; every raw count in target/cross/insn/counts-ARCH.tsv.
# Exit: 0 when every requested count was taken; 1 when a build failed or a column could not
# be measured (its cells read "n/a", the reason on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CROSS=$ROOT/target/cross
WORK=$CROSS/insn
PLUGIN=$CROSS/insn.so
ARCH=aarch64
BYTES=
SM2_OPS=
VARIANTS=
OPS="sm4-ecb sm4-cbc-enc sm4-ctr sm4-gcm sm3 sm2-sign sm2-verify"
OPENSSL=1
BUILD=1
# MIDR_EL1 of a HiSilicon Kunpeng 920 (implementer 0x48, part 0xd01), OpenSSL's test for
# its vpsm4_ex code (include/crypto/sm4_platform.h).
KP920_MIDR=481fd010

while [ $# -gt 0 ]; do
    case "$1" in
        --arch) ARCH=$2; shift 2 ;;
        --bytes) BYTES=$2; shift 2 ;;
        --sm2-ops) SM2_OPS=$2; shift 2 ;;
        --variants) VARIANTS=$2; shift 2 ;;
        --ops) OPS=$2; shift 2 ;;
        --no-openssl) OPENSSL=0; shift ;;
        --no-build) BUILD=0; shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "insn-count: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$ARCH" in
    aarch64)
        TRIPLE=aarch64-unknown-linux-gnu DEBARCH=arm64 GNU=aarch64-linux-gnu
        QEMU=qemu-aarch64
        QEMU_FIXED=
        : "${BYTES:=1048576}" "${SM2_OPS:=20}" "${VARIANTS:=portable neon-nopmull neon armsm}"
        ;;
    riscv64)
        TRIPLE=riscv64gc-unknown-linux-gnu DEBARCH=riscv64 GNU=riscv64-linux-gnu
        QEMU=$CROSS/qemu10/bin/qemu-riscv64
        QEMU_FIXED="-R 0x4000000000"
        : "${BYTES:=65536}" "${SM2_OPS:=3}" "${VARIANTS:=portable zk zvk-nozvkg zvk}"
        if [ ! -x "$QEMU" ]; then
            echo "insn-count: $QEMU is missing (scripts/cross-setup.sh riscv64 fetches it)" >&2
            exit 1
        fi
        ;;
    *) echo "insn-count: unknown architecture $ARCH (aarch64 or riscv64)" >&2; exit 2 ;;
esac
if [ $((BYTES % 16)) != 0 ] || [ "$BYTES" -le 0 ] || [ "$SM2_OPS" -le 0 ]; then
    echo "insn-count: --bytes must be a positive multiple of 16, --sm2-ops positive" >&2
    exit 2
fi
byte_ops= sm2_ops=
for op in $OPS; do
    case "$op" in
        sm4-ecb | sm4-cbc-enc | sm4-ctr | sm4-gcm | sm3 | sm3-many | eea3-many) byte_ops+=" $op" ;;
        sm2-sign | sm2-verify) sm2_ops+=" $op" ;;
        *) echo "insn-count: unknown operation $op (see --help)" >&2; exit 2 ;;
    esac
done
ROOTFS=$CROSS/trixie-$DEBARCH
LIBDIR=$ROOTFS/usr/lib/$GNU
mkdir -p "$WORK"
step() { echo "-- insn-count ($SECONDS s): $*" >&2; }
failed=0

# ---------------------------------------------------------------- the counters
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
            >/etc/apt/sources.list.d/guomi-insn-src.list
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
if [ "$ARCH" = aarch64 ] && [ ! -s "$PLUGIN" ]; then
    step "building qemu's insn plugin into $PLUGIN"
    build_plugin
fi

# The command lines below are "[env VAR=VALUE ...] QEMU ARGS -- PROGRAM ARGS"; split_cmd
# puts the part before "--" into the array `qemu` and the rest into `prog`.
split_cmd() {
    qemu=() prog=()
    while [ "$1" != -- ]; do qemu+=("$1"); shift; done
    shift
    prog=("$@")
}

# Total instructions of one emulated run: count CMD -- PROGRAM ARGS. Prints the count,
# or nothing (and the program's stderr to ours) when the run failed.
count() {
    local qemu prog err n
    split_cmd "$@"
    err=$(mktemp)
    if [ "$ARCH" = aarch64 ]; then
        if "${qemu[@]}" -plugin "$PLUGIN,inline=on" -d plugin "${prog[@]}" 2>"$err" >/dev/null; then
            sed -n 's/^\(total \)\{0,1\}insns: //p' "$err" | tail -1
        else
            sed 's/^/   | /' "$err" >&2
        fi
    else
        # The log goes to descriptor 3, the pipe; the program's own output elsewhere; the
        # exit status follows the log.
        n=$( { "${qemu[@]}" -one-insn-per-tb -d nochain,exec -D /dev/fd/3 "${prog[@]}" \
            3>&1 >/dev/null 2>"$err"; echo "rc=$?"; } |
            awk '/^Trace/ { n++ } /^rc=/ { rc = substr($0, 4) } END { if (rc == 0) print n + 0 }')
        if [ -n "$n" ]; then
            echo "$n"
        else
            sed 's/^/   | /' "$err" >&2
        fi
    fi
    rm -f "$err"
}

# How often the instruction MNEMONIC ran (aarch64: executions at distinct addresses, by
# the plugin's match option; riscv64: translations, by qemu's in_asm log): evidence
# MNEMONIC CMD -- PROGRAM ARGS. qemu 7.2 disassembles the aarch64 SM3/SM4 instructions
# as ".byte".
evidence() {
    local want=$1 qemu prog log
    shift
    split_cmd "$@"
    if [ "$ARCH" = aarch64 ]; then
        "${qemu[@]}" -plugin "$PLUGIN,match=$want" -d plugin "${prog[@]}" 2>&1 >/dev/null |
            grep -c 'match hits' || true
    else
        log=$(mktemp)
        "${qemu[@]}" -d in_asm -D "$log" "${prog[@]}" >/dev/null 2>&1 || true
        grep -c "[[:space:]]$want[[:space:]]" "$log" || true
        rm -f "$log"
    fi
}

# ---------------------------------------------------------------- guomi's workload
GUOMI_BIN=${CARGO_TARGET_DIR:-$ROOT/target}/$TRIPLE/release/examples/insn_workload
if [ "$BUILD" = 1 ]; then
    step "building examples/insn_workload for $TRIPLE (release)"
    export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
    export CARGO_TARGET_RISCV64GC_UNKNOWN_LINUX_GNU_LINKER=riscv64-linux-gnu-gcc
    if ! cargo build -q --release -p guomi-core --target "$TRIPLE" --example insn_workload >&2; then
        echo "insn-count: the guomi example did not build (see above)" >&2
        exit 1
    fi
elif [ ! -x "$GUOMI_BIN" ]; then
    echo "insn-count: --no-build, but $GUOMI_BIN is not there" >&2
    exit 1
fi

# ---------------------------------------------------------------- OpenSSL's workload
OSSL_DYN=$WORK/openssl_workload-$ARCH
OSSL_STATIC=$WORK/openssl_workload-$ARCH-static
OSSL_SRC=$ROOT/scripts/insn/openssl_workload.c
OSSL_VERSION=
if [ "$OPENSSL" = 1 ]; then
    if [ ! -e "$LIBDIR/libcrypto.so.3" ] || [ ! -e "$LIBDIR/libc.so" ] || [ ! -e "$ROOTFS/usr/include/openssl/evp.h" ]; then
        step "unpacking Debian trixie's OpenSSL for $DEBARCH into $ROOTFS"
        command -v mmdebstrap >/dev/null || apt-get install -y -qq mmdebstrap >&2
        rm -rf "$ROOTFS"
        mmdebstrap --quiet --variant=extract --architectures="$DEBARCH" \
            --include=openssl,libssl3t64,libssl-dev,libc6-dev trixie "$ROOTFS" >&2
    fi
    # The extract variant leaves out the merged-/usr links that the dynamic loader's path
    # and libc.so's linker script go through.
    for d in lib bin sbin; do [ -e "$ROOTFS/$d" ] || [ -L "$ROOTFS/$d" ] || ln -s "usr/$d" "$ROOTFS/$d"; done
    # The root file system's own C library (trixie's glibc, which its libcrypto needs) and
    # start files, not the cross compiler's bookworm ones: --sysroot with -B and -L.
    cc=("$GNU-gcc" --sysroot="$ROOTFS" -B"$LIBDIR" -L"$LIBDIR" -O2 -Wall -Wextra -Werror)
    if [ ! -x "$OSSL_DYN" ] || [ "$OSSL_SRC" -nt "$OSSL_DYN" ]; then
        step "building scripts/insn/openssl_workload.c for $ARCH"
        "${cc[@]}" -o "$OSSL_DYN" "$OSSL_SRC" -lcrypto
    fi
    if [ "$ARCH" = aarch64 ] && { [ ! -x "$OSSL_STATIC" ] || [ "$OSSL_SRC" -nt "$OSSL_STATIC" ]; }; then
        step "building scripts/insn/openssl_workload.c for $ARCH (static libcrypto.a)"
        "${cc[@]}" -DOPENSSL_WORKLOAD_STATIC -o "$OSSL_STATIC" "$OSSL_SRC" \
            "$LIBDIR/libcrypto.a" "$LIBDIR/libz.so.1" "$LIBDIR/libzstd.so.1" -lpthread
    fi
    OSSL_VERSION=$("$QEMU" -L "$ROOTFS" "$OSSL_DYN" sm3 0 2>&1 | head -1)
fi

# ---------------------------------------------------------------- the columns
# Each column: a label, the command line up to "--" (split on spaces), the program, the
# instruction that proves its path ("" for none) and a description.
cols=() col_cmd=() col_prog=() col_want=() col_what=()
add_col() { cols+=("$1"); col_cmd+=("$2"); col_prog+=("$3"); col_want+=("$4"); col_what+=("$5"); }
for v in $VARIANTS; do
    case "$v" in
        armsm*) want=".byte" ;;
        neon*) want="tbl" ;;
        zvk*) want="vsm4r.vs" ;;
        zk*) want="sm4ed" ;;
        *) want="" ;;
    esac
    add_col "guomi $v" "env GUOMI_BACKEND=$v $QEMU $QEMU_FIXED -L /usr/$GNU -cpu max" \
        "$GUOMI_BIN" "$want" "guomi \`$v\`, qemu -cpu max"
done
if [ "$OPENSSL" = 1 ] && [ "$ARCH" = aarch64 ]; then
    add_col "OpenSSL C" "$QEMU -L $ROOTFS -cpu cortex-a72" "$OSSL_DYN" "" \
        "OpenSSL plain C SM4 and SM3 (PMULL GHASH), qemu -cpu cortex-a72"
    add_col "OpenSSL vpsm4" "$QEMU -L $ROOTFS -cpu neoverse-n1" "$OSSL_DYN" "tbl" \
        "OpenSSL vpsm4 (NEON TBL S-box; C SM3), qemu -cpu neoverse-n1"
    add_col "OpenSSL vpsm4_ex" "env OPENSSL_WORKLOAD_MIDR=$KP920_MIDR $QEMU -L $ROOTFS -cpu cortex-a72" \
        "$OSSL_STATIC" "aese" \
        "OpenSSL vpsm4_ex (AESE S-box; C SM3), qemu -cpu cortex-a72, MIDR set to a Kunpeng 920's ($KP920_MIDR) in a static link"
    add_col "OpenSSL SM4E/SM3" "$QEMU -L $ROOTFS -cpu max" "$OSSL_DYN" ".byte" \
        "OpenSSL with the SM4E/SM3 instructions (sm4-armv8, sm3-armv8), qemu -cpu max"
elif [ "$OPENSSL" = 1 ]; then
    add_col "OpenSSL C" "env OPENSSL_riscvcap=rv64gc $QEMU $QEMU_FIXED -L $ROOTFS -cpu max" "$OSSL_DYN" "" \
        "OpenSSL plain C (OPENSSL_riscvcap=rv64gc), qemu -cpu max"
    add_col "OpenSSL Zvk" "$QEMU $QEMU_FIXED -L $ROOTFS -cpu max" "$OSSL_DYN" "vsm4r.vs" \
        "OpenSSL Zvksed SM4 (one block per call), Zvksh SM3, Zvkg GHASH, qemu -cpu max"
fi

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
        n=$(evidence "${col_want[$i]}" ${col_cmd[$i]} -- "${col_prog[$i]}" sm4-ctr 4096)
        echo "evidence: ${cols[$i]}: '${col_want[$i]}' found $n times in 4 KiB of SM4-CTR" >&2
        if [ "$n" = 0 ]; then
            echo "insn-count: ${cols[$i]} does not run its path; left out" >&2
            ok[$i]=0
            failed=1
        fi
    fi
done

# ---------------------------------------------------------------- counting
TSV=$WORK/counts-$ARCH.tsv
printf 'column\top\tn\tinsns_n\tinsns_0\tper_unit\n' >"$TSV"
declare -A result
for i in "${!cols[@]}"; do
    [ "${ok[$i]}" = 1 ] || continue
    step "counting: ${cols[$i]}"
    for op in $byte_ops $sm2_ops; do
        case "$op" in sm2-*) n=$SM2_OPS ;; *) n=$BYTES ;; esac
        # The batch calls are guomi's own (OpenSSL has none).
        case "$op:${cols[$i]}" in *-many:OpenSSL*) continue ;; esac
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
table() {
    local title=$1 op i line sep
    shift
    echo "$title"
    echo
    line="| operation |" sep="|---|"
    for i in "${!cols[@]}"; do line+=" ${cols[$i]} |"; sep+="---:|"; done
    echo "$line"
    echo "$sep"
    for op in "$@"; do
        line="| $op |"
        for i in "${!cols[@]}"; do line+=" $(cell "$i" "$op") |"; done
        echo "$line"
    done
    echo
}
if [ "$ARCH" = aarch64 ]; then
    qemu_desc="$($QEMU --version | head -1), plugin tests/plugin/insn.c (inline)"
    pairs=("guomi portable:guomi neon" "guomi neon:OpenSSL vpsm4" "guomi neon:OpenSSL vpsm4_ex"
        "guomi armsm:OpenSSL SM4E/SM3" "guomi armsm:OpenSSL C")
else
    qemu_desc="$($QEMU --version | head -1), -one-insn-per-tb -d nochain,exec $QEMU_FIXED"
    pairs=("guomi portable:guomi zk" "guomi portable:guomi zvk" "guomi zk:OpenSSL C"
        "guomi zvk:OpenSSL Zvk")
fi
echo "$ARCH: $qemu_desc; ${BYTES} bytes / ${SM2_OPS} SM2 operations minus a zero-length run${OSSL_VERSION:+; $OSSL_VERSION}"
echo
echo "Columns:"
for i in "${!cols[@]}"; do echo "- ${cols[$i]}: ${col_what[$i]}"; done
echo
[ -z "$byte_ops" ] || table "Instructions per byte:" $byte_ops
[ -z "$sm2_ops" ] || table "Instructions per SM2 operation (64-byte message, Z_A and SM3 included):" $sm2_ops
echo "Ratios (instructions of the first over the second; below 1: the first does less work):"
echo
line="| operation |" sep="|---|"
for p in "${pairs[@]}"; do line+=" ${p%%:*} / ${p#*:} |"; sep+="---:|"; done
echo "$line"
echo "$sep"
for op in $byte_ops $sm2_ops; do
    line="| $op |"
    for p in "${pairs[@]}"; do line+=" $(ratio "${p%%:*}" "${p#*:}" "$op") |"; done
    echo "$line"
done
step "done; raw counts in ${TSV#"$ROOT"/}"
exit "$failed"
