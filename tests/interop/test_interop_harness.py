"""The harness itself: a missing peer skips, or fails under GUOMI_INTEROP_REQUIRED=1, and a
jar whose SHA-256 is not the pinned one is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from .interop_peers import BC_JARS, PeerUnavailable, check_pin, unavailable


def test_unavailable_skips_or_fails() -> None:
    with pytest.raises(pytest.skip.Exception, match="no java"):
        unavailable("no java", required=False)
    with pytest.raises(pytest.fail.Exception, match="GUOMI_INTEROP_REQUIRED=1 .*no java"):
        unavailable("no java", required=True)


def test_jar_pin_is_checked(tmp_path: Path) -> None:
    jar = tmp_path / "bcprov-jdk18on-1.87.jar"
    jar.write_bytes(b"not the real jar")
    with pytest.raises(RuntimeError, match="does not match the pin"):
        check_pin(jar, BC_JARS["org.bouncycastle:bcprov-jdk18on:1.87"])
    assert not jar.exists(), "a jar that fails its pin is deleted"
    jar.write_bytes(b"")
    check_pin(jar, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")  # SHA-256 of b""


def test_missing_toolchain_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    from . import interop_peers

    monkeypatch.setenv("PATH", "")
    for build in interop_peers.BUILDERS.values():
        with pytest.raises(PeerUnavailable, match="toolchain missing"):
            build()
