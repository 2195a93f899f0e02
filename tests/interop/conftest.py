"""Session fixtures of the live interop suite: each peer is built once (cached in
tests/interop/.build/), started once, and shared by every test of the session.

A missing toolchain or a failed fetch SKIPS the peer's tests with the reason, unless
``GUOMI_INTEROP_REQUIRED=1`` is set (scripts/test.sh sets it), which turns each such skip
into a failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .interop_peers import BUILDERS, VERSIONS, Peer, PeerUnavailable, build_all, unavailable

_builds: dict[str, Any] = {}
_running: dict[str, Peer] = {}


def _peer(name: str) -> Peer:
    if not _builds:
        _builds.update(build_all(list(BUILDERS)))  # all three in parallel, once
    if name in _running:
        return _running[name]
    built = _builds[name]
    if isinstance(built, PeerUnavailable):
        unavailable(f"{name} peer: {built}")
    if isinstance(built, Exception):
        raise built
    peer = Peer(name, built)
    assert peer.version == VERSIONS[name], f"{name} peer runs {peer.version}, pinned {VERSIONS[name]}"
    _running[name] = peer
    return peer


@pytest.fixture(scope="session")
def bc() -> Peer:
    """BouncyCastle bcprov/bcpkix-jdk18on 1.87 (Java)."""
    return _peer("bc")


@pytest.fixture(scope="session")
def gmsm() -> Peer:
    """github.com/emmansun/gmsm v0.44.0 (Go)."""
    return _peer("gmsm")


@pytest.fixture(scope="session")
def smjs() -> Peer:
    """sm-crypto-v2 1.15.1 (Node.js)."""
    return _peer("smjs")


@pytest.fixture
def peer(request: pytest.FixtureRequest) -> Peer:
    return _peer(request.param)


@pytest.fixture(autouse=True)
def _record_peer_versions(request: pytest.FixtureRequest) -> Iterator[None]:
    """Records the peers (library, version, runtime) each test ran against in its
    ``user_properties`` (shown in JUnit XML reports)."""
    yield
    for name in ("bc", "gmsm", "smjs", "peer"):
        if name in request.fixturenames and name in request.node.funcargs:
            p = request.node.funcargs[name]
            if isinstance(p, Peer):
                request.node.user_properties.append(("interop_peer", p.label))


@pytest.fixture(scope="session", autouse=True)
def _close_peers() -> Iterator[None]:
    yield
    for p in _running.values():
        p.close()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _running:
        terminalreporter.write_line(
            "interop peers: " + "; ".join(f"{n}: {p.label}" for n, p in sorted(_running.items()))
        )
