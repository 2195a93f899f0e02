#!/usr/bin/env bash
# The README's two "Set up on a fresh machine" commands, run as a new user would: in a
# fresh clone of the current commit (git clone of this working copy), first with an
# unrelated virtual environment active, then from a plain shell with none.
#
#   install command (README):  pip install . && guomi bench
#       run with `guomi bench --quick` (same operations, 3 repeats of 0.02 s);
#       with no virtual environment, pip installs into a throwaway user site
#       (PIP_USER=1, PYTHONUSERBASE in the temporary folder), never the machine's Python.
#   test command (README):     ./scripts/test.sh
#       run as `./scripts/test.sh --quick` (build/install, environment handling, a few
#       pytest files). Checked: it leaves the active environment alone and tests .venv.
#
# Usage: scripts/readme-check.sh [--wheel FILE]
#   --wheel FILE  let the quick test command install FILE (a wheel that
#                 scripts/build-wheels.sh built) instead of building its own, but only if
#                 the sdist it was built from (beside it) has exactly the content of the
#                 cloned commit's sdist. The install command always builds from source.
# Env:   PYTHON  interpreter for the virtual environments (default python3)
# Exit:  0 when every command succeeds and every check holds; non-zero otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
wheel=
while [ $# -gt 0 ]; do
    case "$1" in
        --wheel) wheel=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "readme-check: unknown option $1" >&2; exit 2 ;;
    esac
done
fail() { echo "readme-check: $*" >&2; exit 1; }
step() { echo "-- readme-check ($SECONDS s): $*"; }

# The two commands, read from the README's "Set up on a fresh machine" section.
mapfile -t blocks < <(awk '
    /^## / { in_setup = ($0 ~ /^## Set up on a fresh machine/) }
    in_setup && /^```/ { if (fence) { fence = 0 } else { fence = 1; next } }
    in_setup && fence { print }
' README.md)
[ "${#blocks[@]}" -eq 2 ] || fail "expected two one-line commands in README's set-up section, found: ${blocks[*]}"
install_cmd=${blocks[0]}
test_cmd=${blocks[1]}
[ "$install_cmd" = "pip install . && guomi bench" ] ||
    fail "README install command is now '$install_cmd': update this check"
[ "$test_cmd" = "./scripts/test.sh" ] || fail "README test command is now '$test_cmd': update this check"
quick_install="pip install . && guomi bench --quick"
quick_test="$test_cmd --quick"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/guomi-readme.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
step "cloning $(git rev-parse --short HEAD) into a temporary folder"
git clone --quiet --no-hardlinks "$ROOT" "$tmp/guomi"
clone=$tmp/guomi
"$PY" -m venv "$tmp/user-venv"

# Reuse FILE only if it provably comes from the cloned source: scripts/build-wheels.sh built
# it from the unpacked sdist beside it, and that sdist must hold exactly what the clone's
# sdist holds (maturin writes sdists reproducibly).
if [ -n "$wheel" ]; then
    version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
    built_sdist=$(dirname "$wheel")/guomi-$version.tar.gz
    maturin=$ROOT/target/tools-venv/bin/maturin
    reuse=0
    if [ -f "$wheel" ] && [ -f "$built_sdist" ] && [ -x "$maturin" ] &&
        (cd "$clone" && "$maturin" sdist --out "$tmp/sdist" >/dev/null 2>&1) &&
        "$PY" - "$built_sdist" "$tmp/sdist/guomi-$version.tar.gz" <<'EOF_PY'
import sys, tarfile

def contents(path):
    with tarfile.open(path, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}

sys.exit(0 if contents(sys.argv[1]) == contents(sys.argv[2]) else 1)
EOF_PY
    then
        reuse=1
    fi
    rm -rf "$clone/target"   # maturin sdist left an empty cargo target folder: clean clone again
    if [ "$reuse" = 1 ]; then
        echo "readme-check: $(basename "$wheel") comes from the cloned source (same sdist): reused"
        quick_test="$quick_test --wheel $wheel"
    else
        echo "readme-check: $(basename "$wheel") does not match the cloned commit's sdist: the clone builds its own"
    fi
fi

# 1. An unrelated virtual environment active (as a user who keeps one for the project).
step "with a virtual environment active: $quick_install"
(
    cd "$clone"
    # shellcheck disable=SC1091
    source "$tmp/user-venv/bin/activate"
    bash -c "$quick_install"
    [ "$(command -v guomi)" = "$tmp/user-venv/bin/guomi" ] || fail "guomi not installed into the active venv"
    step "with a virtual environment active: $quick_test"
    bash -c "$quick_test"
)
# test.sh tested .venv and left the active environment alone.
"$clone/.venv/bin/python" -c "import guomi, pytest" || fail "test.sh did not install into .venv"
if "$tmp/user-venv/bin/python" -c "import pytest" 2>/dev/null; then
    fail "test.sh installed into the active virtual environment"
fi

# 2. A plain shell: no virtual environment, a fresh .venv for the test command.
rm -rf "$clone/.venv"
step "with no virtual environment: $quick_install"
(
    cd "$clone"
    # Leave whatever environment the caller had active (this script may run inside one).
    if [ -n "${VIRTUAL_ENV:-}" ]; then
        PATH=$(tr ':' '\n' <<<"$PATH" | grep -vxF "$VIRTUAL_ENV/bin" | paste -sd: -)
    fi
    unset VIRTUAL_ENV CONDA_PREFIX PYTHONHOME PYTHONPATH
    export PIP_USER=1 PYTHONUSERBASE="$tmp/userbase" PATH="$tmp/userbase/bin:$PATH"
    bash -c "$quick_install"
    [ "$(command -v guomi)" = "$tmp/userbase/bin/guomi" ] || fail "guomi not installed into the user site"
    step "with no virtual environment: $quick_test"
    unset PIP_USER
    bash -c "$quick_test"
)
"$clone/.venv/bin/python" -c "import guomi, pytest" || fail "test.sh did not install into .venv"
step "both README commands passed, with and without a virtual environment"
