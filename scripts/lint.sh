#!/usr/bin/env bash
# The lint gates, in order. Every gate runs even when an earlier one fails; the exit
# status is non-zero if any failed. `.ci/run` and .pre-commit-config.yaml run the same
# commands.
#
#   ./scripts/lint.sh            every gate
#   ./scripts/lint.sh --rust     rustfmt, clippy (workspace and fuzz/), the aarch64 and riscv64 builds
#   ./scripts/lint.sh --python   ruff check, ruff format, mypy --strict, stubtest
#
# The Python gates run in .venv (the one scripts/test.sh uses), which is created and given
# ruff and mypy if it lacks them; stubtest needs guomi._native, built into .venv as
# scripts/test.sh builds it when it is missing or older than the Rust sources.
set -uo pipefail
cd "$(dirname "$0")/.."
# Work the same from any shell state: an activated virtual environment (or a conda one)
# must not redirect the tools or the build away from .venv.
unset VIRTUAL_ENV CONDA_PREFIX PYTHONHOME PYTHONPATH

# Pinned so that a new release of a linter cannot fail an unchanged tree.
RUFF_VERSION=0.17.6
MYPY_VERSION=2.4.1

rust=1
python=1
case "${1:-}" in
    "") ;;
    --rust) python=0 ;;
    --python) rust=0 ;;
    -h | --help)
        sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "usage: $0 [--rust | --python]" >&2
        exit 2
        ;;
esac

failed=()
# gate NAME COMMAND...: runs COMMAND, prints its name, result and time.
gate() {
    local name=$1 t0 rc
    shift
    echo "== $name"
    t0=$(date +%s)
    "$@"
    rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "== $name: ok ($(($(date +%s) - t0)) s)"
    else
        echo "== $name: FAILED, exit $rc ($(($(date +%s) - t0)) s)"
        failed+=("$name")
    fi
}

# clippy of guomi-core for another architecture's backends (a download of the target's
# standard library, no linker needed): every kernel and dispatch path of that
# architecture, and nothing left unused without the x86 modules.
cross_clippy() {
    local target=$1
    if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
        echo "skipped: the $target target is not installed (rustup target add $target)"
        return 0
    fi
    cargo clippy -p guomi-core --all-targets --target "$target" -- -D warnings
}

if [ "$rust" = 1 ]; then
    gate "rustfmt: cargo fmt --all --check" cargo fmt --all --check
    gate "rustfmt (fuzz/): cargo fmt --check" cargo fmt --manifest-path fuzz/Cargo.toml --check
    gate "clippy: cargo clippy --workspace --all-targets -- -D warnings" \
        cargo clippy --workspace --all-targets -- -D warnings
    # fuzz/ is its own workspace (its build needs nightly, linting it does not); it shares
    # target/ so the dependencies are checked once.
    gate "clippy (fuzz/): cargo clippy --all-targets -- -D warnings" \
        cargo clippy --manifest-path fuzz/Cargo.toml --all-targets --target-dir target -- -D warnings
    gate "aarch64 backends: cargo clippy -p guomi-core --target aarch64-unknown-linux-gnu" \
        cross_clippy aarch64-unknown-linux-gnu
    gate "riscv64 backends: cargo clippy -p guomi-core --target riscv64gc-unknown-linux-gnu" \
        cross_clippy riscv64gc-unknown-linux-gnu
fi

python_setup() {
    if [ ! -x .venv/bin/python ]; then
        "${PYTHON:-python3}" -m venv .venv || return 1
    fi
    local have
    have=$(.venv/bin/python -m pip list --format=freeze 2>/dev/null)
    if ! grep -qx "ruff==$RUFF_VERSION" <<<"$have" || ! grep -qx "mypy==$MYPY_VERSION" <<<"$have"; then
        .venv/bin/python -m pip install --quiet "ruff==$RUFF_VERSION" "mypy==$MYPY_VERSION" || return 1
    fi
    # mypy reads httpx's types for guomi.tls.httpx.
    if ! grep -q "^httpx==" <<<"$have"; then
        .venv/bin/python -m pip install --quiet "httpx>=0.27" || return 1
    fi
}

native_fresh() {
    local so
    so=$(.venv/bin/python -c 'import guomi._native as m; print(m.__file__)' 2>/dev/null) || return 1
    [ -n "$so" ] && [ -f "$so" ] || return 1
    # Stale when any Rust source or manifest of the module is newer than the built file.
    [ -z "$(find crates/guomi-core crates/guomi-formats crates/guomi-python crates/guomi-python-macros Cargo.toml Cargo.lock \
        -newer "$so" \( -name '*.rs' -o -name 'Cargo.toml' -o -name 'Cargo.lock' \) -print -quit)" ]
}

stubtest() {
    if ! native_fresh; then
        echo "building the wheel and installing it into .venv (as scripts/test.sh does)"
        ./scripts/build-wheels.sh || return 1
        local version wheel
        version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
        wheel=$(ls "$PWD"/dist/guomi-"$version"-cp310-abi3-manylinux*_x86_64.whl) || return 1
        .venv/bin/python -m pip install --quiet --force-reinstall --no-deps "$wheel" || return 1
    fi
    # The stubs checked are the tree's (python/), whatever copy an install may hold.
    MYPYPATH="$PWD/python" .venv/bin/python -m mypy.stubtest guomi._native
}

if [ "$python" = 1 ]; then
    gate "python tools: ruff $RUFF_VERSION and mypy $MYPY_VERSION in .venv" python_setup
    gate "ruff: ruff check ." .venv/bin/python -m ruff check .
    gate "ruff format: ruff format --check ." .venv/bin/python -m ruff format --check .
    gate "mypy: mypy --strict (files from pyproject.toml)" .venv/bin/python -m mypy --strict
    gate "stubtest: python -m mypy.stubtest guomi._native" stubtest
fi

if [ "${#failed[@]}" -ne 0 ]; then
    echo "lint: ${#failed[@]} gate(s) failed:"
    printf '  %s\n' "${failed[@]}"
    exit 1
fi
echo "lint: all gates passed"
