#!/usr/bin/env bash
# The documentation site: builds docs/ into target/docs/html with Sphinx (warnings are
# errors), runs every example of the pages and docstrings as a doctest, then opens the
# built index page in headless Chromium (screenshot, rendered DOM) and checks that every
# internal link and anchor of the site resolves. Uses .venv like scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# Work the same from any shell state (see scripts/test.sh).
unset VIRTUAL_ENV CONDA_PREFIX PYTHONHOME PYTHONPATH
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet pytest -r docs/requirements.txt
# autodoc and the doctests import the package: the release wheel of scripts/build-wheels.sh
# (the same build as scripts/test.sh, so after the tests this takes seconds), installed into
# .venv. GUOMI_DOCS_NO_BUILD=1 documents the guomi already installed in .venv instead (e.g. a
# `maturin develop` build).
if [ "${GUOMI_DOCS_NO_BUILD:-0}" != 1 ]; then
  ./scripts/build-wheels.sh
  version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
  wheel=$(ls "$PWD"/dist/guomi-"$version"-cp310-abi3-manylinux*_x86_64.whl)
  .venv/bin/python -m pip install --quiet --force-reinstall --no-deps "$wheel"
fi

OUT=target/docs
# A fresh build every time: a saved environment would hide the warnings of unchanged pages
# and keep docstrings of an older build.
rm -rf "$OUT"
echo "== sphinx-build -b html (warnings are errors)"
.venv/bin/python -m sphinx -W --keep-going -q -b html -d "$OUT/doctrees" docs "$OUT/html"
echo "== sphinx-build -b doctest (the examples of every page and docstring)"
.venv/bin/python -m sphinx -W --keep-going -q -b doctest -d "$OUT/doctrees" docs "$OUT/doctest"
tail -n 4 "$OUT/doctest/output.txt"

echo "== the site in headless Chromium, internal links"
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is not installed (Debian: apt-get install chromium)" >&2
    exit 1
  fi
fi
.venv/bin/python tests/docs/check_site.py "$OUT/html"
.venv/bin/python -m pytest -q -p no:cacheprovider tests/docs
echo "site: $OUT/html/index.html"
