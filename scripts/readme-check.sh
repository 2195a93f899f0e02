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
#                 scripts/build-wheels.sh built from this working copy) instead of building
#                 its own; used only when the working copy has no uncommitted change to a
#                 tracked file, so FILE was built from exactly the cloned commit. The
#                 install command always builds from source.
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
step() { echo "-- readme-check: $*"; }

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

if [ -n "$wheel" ]; then
    [ -f "$wheel" ] || fail "no wheel $wheel"
    if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
        echo "readme-check: uncommitted changes: not reusing $wheel (the clone builds its own)"
        wheel=
    else
        quick_test="$quick_test --wheel $wheel"
    fi
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/guomi-readme.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
step "cloning $(git rev-parse --short HEAD) into a temporary folder"
git clone --quiet --no-hardlinks "$ROOT" "$tmp/guomi"
clone=$tmp/guomi
"$PY" -m venv "$tmp/user-venv"

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
    unset VIRTUAL_ENV
    export PIP_USER=1 PYTHONUSERBASE="$tmp/userbase" PATH="$tmp/userbase/bin:$PATH"
    bash -c "$quick_install"
    [ "$(command -v guomi)" = "$tmp/userbase/bin/guomi" ] || fail "guomi not installed into the user site"
    step "with no virtual environment: $quick_test"
    unset PIP_USER
    bash -c "$quick_test"
)
"$clone/.venv/bin/python" -c "import guomi, pytest" || fail "test.sh did not install into .venv"
step "both README commands passed, with and without a virtual environment"
