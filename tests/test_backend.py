"""Backend selection: detection, forcing, and the GUOMI_BACKEND variable."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import guomi
from guomi.exceptions import UnsupportedBackend


def test_ladder() -> None:
    available = guomi.available_backends()
    assert available[0] == "portable"
    ladders = [{"portable", "avx2", "avx512"}, {"portable", "neon", "armsm"}, {"portable", "zk", "zvk"}]
    assert any(set(available) <= ladder for ladder in ladders)
    assert guomi.active_backend() in available


def test_force_and_restore() -> None:
    before = guomi.active_backend()
    for name in guomi.available_backends():
        guomi.force_backend(name)
        assert guomi.active_backend() == name
    guomi.force_backend(None)
    assert guomi.active_backend() == before


def test_force_unknown_or_unsupported() -> None:
    with pytest.raises(UnsupportedBackend):
        guomi.force_backend("sse9")
    every = ("avx2", "avx512", "neon", "armsm", "zk", "zvk")
    unsupported = [b for b in every if b not in guomi.available_backends()]
    for name in unsupported:
        with pytest.raises(UnsupportedBackend):
            guomi.force_backend(name)


@pytest.mark.parametrize("name", ["portable", "avx2", "avx512", "neon", "armsm", "zk", "zvk"])
def test_environment_variable(name: str) -> None:
    env = dict(os.environ, GUOMI_BACKEND=name)
    code = "import guomi, guomi.sm3; print(guomi.active_backend(), guomi.sm3.hash(b'abc').hex())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    backend, digest = out.stdout.split()
    assert digest == "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
    if name in guomi.available_backends():
        assert backend == name
    else:  # an unusable request falls back to detection; check_env reports it
        assert backend == guomi.available_backends()[-1]
