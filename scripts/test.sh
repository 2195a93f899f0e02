#!/usr/bin/env bash
# The whole test suite on a fresh machine: Rust tests on every backend, then the
# Python package built and tested (pytest) in a local virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet "maturin>=1.7,<2" pytest hypothesis
# Independent implementations the tests cross-check against (each test skips if its peer is absent).
.venv/bin/python -m pip install --quiet cryptography gmssl gmalg gmalglib tongsuopy gmssl-pyx
cargo test --workspace --quiet
.venv/bin/maturin develop --release --quiet
.venv/bin/python -m pytest -q "$@"
