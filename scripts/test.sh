#!/usr/bin/env bash
# The whole test suite on a fresh machine: Rust tests on every backend, then the
# Python package built and tested (pytest) in a local virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."
# Work the same from any shell state: an activated virtual environment (or a conda one)
# must not redirect the build or the tests away from .venv.
unset VIRTUAL_ENV CONDA_PREFIX PYTHONHOME PYTHONPATH
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet "maturin>=1.7,<2" pytest hypothesis
# Independent implementations the tests cross-check against (each test skips if its peer is absent).
.venv/bin/python -m pip install --quiet cryptography gmssl gmalg gmalglib tongsuopy gmssl-pyx
# Column API and engines (guomi.arrow, guomi.dask, guomi.spark; each test skips without its engine).
.venv/bin/python -m pip install --quiet pyarrow polars pandas "dask[dataframe]" distributed pyspark duckdb
cargo test --workspace --quiet
# maturin develop installs into $VIRTUAL_ENV: point it at .venv whatever the caller's shell has active.
VIRTUAL_ENV="$PWD/.venv" .venv/bin/maturin develop --release --quiet
.venv/bin/python -m pytest -q "$@"
