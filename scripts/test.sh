#!/usr/bin/env bash
# The whole test suite on a fresh machine: Rust tests on every backend, then the release
# wheel built (scripts/build-wheels.sh: from the sdist, manylinux2014, checked with
# auditwheel), installed into a local virtual environment (.venv) and tested there (pytest).
#
# Usage: scripts/test.sh [--quick] [--wheel FILE] [PYTEST_ARGS...]
#   --quick       skip the Rust tests and the cross-check peers; build and install the wheel,
#                 then run a few pytest files (tests/test_readme.py tests/test_backend.py
#                 tests/test_cli.py) unless PYTEST_ARGS name others. A fast proof that the
#                 build and the environment handling work.
#   --wheel FILE  install FILE (a wheel built by scripts/build-wheels.sh from this same
#                 source) instead of building one.
#   PYTEST_ARGS   passed to pytest (e.g. tests/test_sm4.py -k gcm).
# Works the same from any shell state: a plain shell, another virtual environment (or a
# conda one) active, or a fresh clone (it installs what it needs into .venv).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
wheel=
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1; shift ;;
        --wheel) wheel=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
        --wheel=*) wheel=$(cd "$(dirname "${1#--wheel=}")" && pwd)/$(basename "${1#--wheel=}"); shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
# An activated virtual environment (or a conda one) must not redirect the build or the
# tests away from .venv.
unset VIRTUAL_ENV CONDA_PREFIX PYTHONHOME PYTHONPATH
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet pytest hypothesis
# guomi.tls.httpx's transports (tests/test_tls_http.py).
.venv/bin/python -m pip install --quiet "httpx>=0.27"
if [ "$quick" = 0 ]; then
    # Independent implementations the tests cross-check against (each test skips if its peer is absent).
    .venv/bin/python -m pip install --quiet cryptography gmssl gmalg gmalglib tongsuopy gmssl-pyx
    # Column API and engines (guomi.arrow, guomi.dask, guomi.spark; each test skips without its engine).
    # The lower bounds are pyproject.toml's extras: unbounded, pip met a dask release newer
    # than every distributed release by pairing it with distributed 2021.4 (which fails to
    # import with it) instead of taking the dask that the newest distributed pins.
    .venv/bin/python -m pip install --quiet "pyarrow>=14" "polars>=1.0" "pandas>=2.1" \
        "dask[dataframe]>=2024.1" "distributed>=2024.1" "pyspark>=4.0" "duckdb>=1.1"
    cargo test --workspace --quiet
    # The live interop suite (tests/interop: BouncyCastle, gmsm, sm-crypto-v2 peers, built into
    # tests/interop/.build with java/javac + mvn, go, node + npm): a missing toolchain or a failed
    # fetch fails the run here instead of skipping, so a green run proves the suite ran.
    export GUOMI_INTEROP_REQUIRED=1
fi
if [ -z "$wheel" ]; then
    ./scripts/build-wheels.sh --check
    version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
    wheel=$(ls "$PWD"/dist/guomi-"$version"-cp310-abi3-manylinux*_x86_64.whl)
fi
# The tests import the installed wheel from .venv's site-packages (tests/ does not put the
# source tree on sys.path, and a left-over python/guomi/_native*.so is never imported).
.venv/bin/python -m pip install --quiet --force-reinstall --no-deps "$wheel"
.venv/bin/python -c 'import guomi, sysconfig; from pathlib import Path
where, site = Path(guomi.__file__).resolve(), Path(sysconfig.get_paths()["purelib"]).resolve()
assert site in where.parents, f"guomi imports from {where}, not from {site}"'
if [ "$quick" = 1 ] && [ $# -eq 0 ]; then
    set -- tests/test_readme.py tests/test_backend.py tests/test_cli.py
fi
.venv/bin/python -m pytest -q "$@"
