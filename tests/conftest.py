"""Shared pytest fixtures: known-answer vectors and every backend (or variant) of this CPU."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import guomi
import guomi.backend

VECTORS = Path(__file__).resolve().parent.parent / "vectors"


def load_vectors(name: str) -> list[dict[str, Any]]:
    """The ``vectors`` list of ``vectors/<name>.json``."""
    with open(VECTORS / f"{name}.json", encoding="utf-8") as f:
        return list(json.load(f)["vectors"])


@pytest.fixture(params=guomi.available_backends())
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Runs the test once per backend this CPU supports, with that backend forced."""
    guomi.force_backend(request.param)
    try:
        yield request.param
    finally:
        guomi.force_backend(None)


@pytest.fixture(params=guomi.backend.available_variants())
def variant(request: pytest.FixtureRequest) -> Iterator[str]:
    """Runs the test once per variant this CPU supports (every backend, and each with one
    optional feature such as VAES or VBMI turned off), with that variant forced."""
    guomi.force_backend(request.param)
    try:
        yield request.param
    finally:
        guomi.force_backend(None)
