"""No Rust panic reaches Python as PanicException (a BaseException that ``except
Exception`` misses): the bindings turn one into guomi.exceptions.InternalError."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import guomi._native as native
from guomi.exceptions import GuomiError, InternalError

BINDINGS = Path(__file__).resolve().parent.parent / "crates" / "guomi-python" / "src"


def test_panic_becomes_internal_error() -> None:
    with pytest.raises(InternalError, match="deliberate panic"):
        native._panic_selftest()
    # An ordinary exception: `except Exception` catches it.
    assert issubclass(InternalError, GuomiError) and issubclass(InternalError, Exception)


def test_every_binding_is_guarded() -> None:
    """Every #[pymethods] block and #[pyfunction] carries #[guard_panics]."""
    unguarded = []
    for path in sorted(BINDINGS.glob("*.rs")):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if re.fullmatch(r"\s*#\[(pymethods|pyfunction)(\(.*\))?\]", line):
                if i == 0 or lines[i - 1].strip() != "#[guard_panics]":
                    unguarded.append(f"{path.name}:{i + 1}")
    assert not unguarded, f"bindings without #[guard_panics]: {unguarded}"
