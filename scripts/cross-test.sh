#!/usr/bin/env bash
# guomi on aarch64 and riscv64, tested under user-mode emulation on this x86-64 machine
# (after scripts/cross-setup.sh), plus a build-only gate for LoongArch:
#
#   1. the wheels (scripts/build-wheels.sh --check: built from the sdist, cross-linked by
#      zig, auditwheel-checked): aarch64 manylinux2014 and musllinux_1_2, riscv64
#      manylinux_2_31; built once, the cargo cache in target/ reused;
#   2. for each architecture and each emulated CPU model:
#        Rust: guomi-core's library and integration tests (cargo test --target T, the
#              test profile: opt-level 3 with debug assertions) with qemu as the runner;
#        Python: pytest under a genuine Debian CPython (target/cross/ROOTFS) with the wheel
#              unzipped onto PYTHONPATH: the algorithm and backend modules and the interop
#              vector files, i.e. every test that needs no peer program. The backend
#              fixtures iterate every backend and variant the emulated CPU offers
#              (guomi.backend.available_variants()).
#   3. LoongArch64: cargo check and clippy of guomi-core (no emulated CPython to test a
#      wheel with).
#
# The CPU models (the emulator in brackets):
#   aarch64 max         [qemu 7.2]  FEAT_SM3/SM4, AES/PMULL, SVE ...: every aarch64 backend
#   aarch64 cortex-a72  [qemu 7.2]  ARMv8.0 NEON + AES/PMULL, no SM3/SM4: the fallback
#   riscv64 max,ztso=false  [qemu 10]  V, Zvksed/Zvksh/Zvkg, Zksed/Zksh: every riscv64
#                       backend (without Ztso, which guomi does not use and which costs a
#                       barrier at every memory access: 5.6 times slower under qemu)
#   riscv64 rv64        [qemu 7.2]  RV64GC baseline: portable only
# aarch64 runs on 7.2, not 10: qemu 10.0.2 (bookworm-backports) miscomputes BIT after a
# MOVI of all ones (TCG constant folding; guomi-core's parallel::tests::split_* fails on
# it, passes on 7.2 and on hardware), and 7.2 implements every instruction the aarch64
# backends use. riscv64 max needs 10 (7.2 has no vector crypto, nor riscv_hwprobe).
#
# Usage: scripts/cross-test.sh [aarch64|riscv64|loongarch64|all] [--no-build] [--rust|--python]
#   --no-build  test the wheels already in dist/ (built by an earlier run from this source)
#   --rust, --python  only that half of step 2
# Env:   CROSS_PYTEST_ARGS  extra pytest arguments (e.g. "-x" or "--durations=20")
# Exit:  0 when every selected check passes. What is skipped, and why, is printed first.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CROSS=$ROOT/target/cross
QEMU10=$CROSS/qemu10/bin
start=$SECONDS
arches=()
build=1
halves="rust python"
while [ $# -gt 0 ]; do
    case "$1" in
        aarch64 | riscv64 | loongarch64) arches+=("$1") ;;
        all) arches+=(aarch64 riscv64 loongarch64) ;;
        --no-build) build=0 ;;
        --rust) halves=rust ;;
        --python) halves=python ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "cross-test: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ "${#arches[@]}" -gt 0 ] || arches=(aarch64 riscv64 loongarch64)
step() { echo "== cross-test ($((SECONDS - start)) s): $*"; }
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
has() { local a; for a in "${arches[@]}"; do [ "$a" = "$1" ] && return 0; done; return 1; }

# Per architecture: the Rust target, the C cross toolchain's prefix (linker; its sysroot is
# qemu's -L for the Rust test binaries), the wheel, the Debian root file system and Python.
declare -A TRIPLE=([aarch64]=aarch64-unknown-linux-gnu [riscv64]=riscv64gc-unknown-linux-gnu)
declare -A GNU=([aarch64]=aarch64-linux-gnu [riscv64]=riscv64-linux-gnu)
declare -A WHEEL_GLOB=([aarch64]="manylinux*_aarch64" [riscv64]="manylinux*_riscv64")
declare -A ROOTFS=([aarch64]=arm64 [riscv64]=riscv64)
declare -A PY=([aarch64]=python3.11 [riscv64]=python3.13)
# The CPU models, each "model:emulator".
declare -A MODELS=(
    [aarch64]="max:qemu-aarch64 cortex-a72:qemu-aarch64"
    [riscv64]="max,ztso=false:$QEMU10/qemu-riscv64 rv64:qemu-riscv64"
)
# The backend each model must be detected as (cpu::tests::detected_backend_is_the_expected_one
# checks it through GUOMI_EXPECT_BACKEND): the detection ladder, not only the kernels.
declare -A EXPECT=(
    ["aarch64 max"]=armsm ["aarch64 cortex-a72"]=neon
    ["riscv64 max,ztso=false"]=zvk ["riscv64 rv64"]=portable
)

# ---- What is left out under emulation, and why (measured with qemu 7.2 on 2 cores). ----
# Whole Rust test files (crates/guomi-core/tests/NAME.rs):
SKIP_RUST_FILES=(parallel)
# Single Rust tests (cargo test -- --skip NAME):
SKIP_RUST_TESTS=(randomized_round_trips)
# The pytest modules run (peerless: no Java, Go, Node, OpenSSL or PyPI peer needed).
PYTEST_MODULES=(
    tests/test_backend.py
    tests/test_sm2.py tests/test_sm2_enveloped.py
    tests/test_sm3.py
    tests/test_sm4.py tests/test_sm4_mac.py
    tests/test_sm9.py
    tests/test_zuc.py
    tests/test_batch_args.py tests/test_batch_inplace.py
    tests/test_compat_gmssl.py tests/test_sm9_gmssl.py
    tests/docs/test_interop_vectors.py
)
# Single pytest tests left out (--deselect), each for the reason in skip_report.
PYTEST_DESELECT=(
    tests/test_sm9.py::test_cross_gmalg_sign
    tests/test_sm9.py::test_cross_gmalg_encrypt
    tests/test_batch_args.py::test_batch_inputs_changed_by_another_thread
)
skip_report() {
    echo "Skipped under emulation (each runs natively on x86-64 in scripts/test.sh):"
    echo "  Rust crates/guomi-core/tests/parallel.rs: the thread-count sweeps (0..=64 threads"
    echo "    for n in 0..=300 items) take 4 min of CPU per model under qemu; they test the"
    echo "    work splitter, which is architecture-independent; the kernels they call are"
    echo "    covered by the library and KAT tests."
    echo "  Rust sm2_kat randomized_round_trips: 40 s of CPU per model (random SM2 keys and"
    echo "    messages through the portable field code, the same on every architecture);"
    echo "    the SM2 known answers and the RustCrypto cross-check still run."
    echo "  pytest test_sm9.py::test_cross_gmalg_sign, ::test_cross_gmalg_encrypt: 15 to 50 s"
    echo "    each under qemu, nearly all of it in gmalg's pure-Python SM9 (the peer, not guomi;"
    echo "    guomi's SM9 is the portable code on every architecture, its known answers run)."
    echo "  pytest test_batch_args.py::test_batch_inputs_changed_by_another_thread: 12 to 36 s"
    echo "    under qemu; a race between Python threads over the argument list, the same code"
    echo "    on every architecture."
    echo "  pytest: every module not listed below: the CLI, x509/CMS/PKCS#12 formats, Arrow/"
    echo "    Dask/Spark engines, docs, stubs, threads and soak tests (architecture-"
    echo "    independent Python and format code, minutes of interpreter start-ups under qemu),"
    echo "    and tests/interop (needs Java, Go and Node peers)."
    echo "  pytest cross-checks against PyPI peers without a wheel for the architecture skip"
    echo "    (they say which): gmalglib and tongsuopy everywhere, gmssl (pycryptodomex) and"
    echo "    cryptography on riscv64. Installed: gmalg; on aarch64 also gmssl, cryptography."
    echo "  musllinux_1_2 aarch64 wheel: built and auditwheel-checked, not run (no musl"
    echo "    CPython here: Alpine's packages are not reachable, Debian has none)."
    echo "pytest modules run: ${PYTEST_MODULES[*]}"
}

if has aarch64 || has riscv64; then
    step "what is skipped under emulation"
    skip_report
fi

# ---- 1. Wheels ----
if has aarch64 || has riscv64; then
    targets=()
    has aarch64 && targets+=(--target aarch64-unknown-linux-gnu --target aarch64-unknown-linux-musl)
    has riscv64 && targets+=(--target riscv64gc-unknown-linux-gnu)
    if [ "$build" = 1 ] && [[ " $halves " == *" python "* ]]; then
        step "wheels: scripts/build-wheels.sh --check ${targets[*]}"
        ./scripts/build-wheels.sh --check "${targets[@]}"
    fi
fi

failures=()
run() {   # run NAME COMMAND...: records a failure instead of stopping
    local name=$1 t0=$SECONDS
    shift
    if "$@"; then
        echo "-- passed ($((SECONDS - t0)) s): $name"
    else
        echo "-- FAILED ($((SECONDS - t0)) s): $name" >&2
        failures+=("$name")
    fi
}

rust_tests() {   # rust_tests ARCH: build once, run under every model
    local arch=$1 triple=${TRIPLE[$1]} gnu=${GNU[$1]} T files=() f name skip=() m model qemu
    T=$(tr 'a-z-' 'A-Z_' <<<"$triple")
    export "CARGO_TARGET_${T}_LINKER=$gnu-gcc"
    for f in crates/guomi-core/tests/*.rs; do
        name=$(basename "$f" .rs)
        [[ " ${SKIP_RUST_FILES[*]} " == *" $name "* ]] || files+=(--test "$name")
    done
    for name in "${SKIP_RUST_TESTS[@]}"; do skip+=(--skip "$name"); done
    step "$arch: building guomi-core's tests for $triple"
    # RUSTFLAGS as the developers' own cross builds have them (none), so the cache is shared.
    env -u RUSTFLAGS cargo test -p guomi-core --lib "${files[@]}" --target "$triple" --locked --no-run -q
    for m in ${MODELS[$arch]}; do
        model=${m%%:*}
        qemu=${m#*:}
        step "$arch: Rust tests under $("$qemu" --version | head -n 1 | cut -d' ' -f1,3) -cpu $model"
        run "rust $arch -cpu $model" env -u RUSTFLAGS "CARGO_TARGET_${T}_RUNNER=$qemu -L /usr/$gnu -cpu $model" \
            GUOMI_EXPECT_BACKEND="${EXPECT["$arch $model"]}" \
            cargo test -p guomi-core --lib "${files[@]}" --target "$triple" --locked -q --no-fail-fast -- "${skip[@]}"
    done
}

python_tests() {   # python_tests ARCH: the wheel unzipped once, pytest under every model
    local arch=$1 fs=$CROSS/${ROOTFS[$1]} py=${PY[$1]} wheel site m model qemu launcher
    [ -x "$fs/usr/bin/$py" ] || { echo "cross-test: no $fs/usr/bin/$py: run scripts/cross-setup.sh" >&2; exit 1; }
    wheel=$(ls dist/guomi-"$version"-cp310-abi3-${WHEEL_GLOB[$arch]}.whl)
    site=$CROSS/wheel-$arch
    rm -rf "$site"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$site"
    mkdir -p "$CROSS/bin"
    local deselect=()
    for name in "${PYTEST_DESELECT[@]}"; do deselect+=(--deselect "$name"); done
    for m in ${MODELS[$arch]}; do
        model=${m%%:*}
        qemu=$(command -v "${m#*:}")
        # The interpreter as a command: sys.executable is this launcher (qemu's -0 sets the
        # guest's argv[0]), so the tests' subprocesses run the same emulator and CPU model.
        launcher=$CROSS/bin/python-$arch-${model//[,=]/_}
        printf '#!/bin/sh\nexec "%s" -L "%s" -cpu "%s" -0 "$0" "%s" "$@"\n' \
            "$qemu" "$fs" "$model" "$fs/usr/bin/$py" >"$launcher"
        chmod +x "$launcher"
        step "$arch: pytest, $py under $("$qemu" --version | head -n 1 | cut -d' ' -f1,3) -cpu $model, $(basename "$wheel")"
        # What the tests will iterate on this model (the backend fixtures take every variant).
        run "variants $arch -cpu $model" env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$site" \
            PYTHONPYCACHEPREFIX="$CROSS/pycache-$arch" "$launcher" -c \
            'import guomi.backend as b; print("detected:", b.detected_backend(), "variants:", " ".join(b.available_variants()))'
        # shellcheck disable=SC2086  # CROSS_PYTEST_ARGS is a list of words
        # Byte code is written (whatever PYTHONDONTWRITEBYTECODE says) to a cache of its own:
        # compiling the standard library under emulation costs seconds at every start.
        run "pytest $arch -cpu $model" env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$site:$CROSS/site-$arch" \
            PYTHONPYCACHEPREFIX="$CROSS/pycache-$arch" \
            "$launcher" -m pytest -q -p no:cacheprovider "${PYTEST_MODULES[@]}" "${deselect[@]}" \
            ${CROSS_PYTEST_ARGS:-}
    done
}

loongarch_gate() {
    local tc
    tc=$(cat "$CROSS/loongarch-toolchain" 2>/dev/null) ||
        { echo "cross-test: no LoongArch toolchain recorded: run scripts/cross-setup.sh" >&2; exit 1; }
    step "loongarch64: cargo ${tc:+$tc }check and clippy of guomi-core (build only)"
    # shellcheck disable=SC2086  # $tc is empty or one +toolchain word
    run "loongarch64 check" env -u RUSTFLAGS cargo $tc check -p guomi-core --all-targets \
        --target loongarch64-unknown-linux-gnu --locked -q
    # shellcheck disable=SC2086
    run "loongarch64 clippy" env -u RUSTFLAGS cargo $tc clippy -p guomi-core --all-targets \
        --target loongarch64-unknown-linux-gnu --locked -q -- -D warnings
}

for arch in "${arches[@]}"; do
    case "$arch" in
        loongarch64) loongarch_gate ;;
        *)
            [[ " $halves " == *" rust "* ]] && rust_tests "$arch"
            [[ " $halves " == *" python "* ]] && python_tests "$arch"
            ;;
    esac
done

step "summary"
if [ "${#failures[@]}" -gt 0 ]; then
    printf 'cross-test: FAILED: %s\n' "${failures[@]}" >&2
    exit 1
fi
echo "cross-test: all passed (${arches[*]}) in $((SECONDS - start)) s"
