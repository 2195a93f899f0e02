"""Session fixtures of the live interop suite: each peer is built once (cached in
tests/interop/.build/), started once, and shared by every test of the session. The TLS
peers (``gmssl``, ``gmtls``, ``tongsuo``) and the ``certs`` sets are built on the first
test that asks for them, never by ``build_all``, so a run without TLS tests pays nothing.

A missing toolchain or a failed fetch SKIPS the peer's tests with the reason, unless
``GUOMI_INTEROP_REQUIRED=1`` is set (scripts/test.sh sets it), which turns each such skip
into a failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from . import tls_peers as tp
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


# ----------------------------------------------------------------------------- TLS peers

_tls_built: dict[str, Any] = {}


def _build(name: str, build: Any) -> Any:
    """A TLS peer, built once per session (its failure too, re-raised for each test)."""
    if name not in _tls_built:
        try:
            _tls_built[name] = build()
        except Exception as e:  # PeerUnavailable skips (or fails when required); others fail
            _tls_built[name] = e
    got = _tls_built[name]
    if isinstance(got, PeerUnavailable):
        unavailable(f"{name} peer: {got}")
    if isinstance(got, Exception):
        raise got
    return got


@pytest.fixture(scope="module")
def gmssl() -> Path:
    """GmSSL 3.1.1's ``gmssl`` tool."""
    got: Path = _build("gmssl", tp.build_gmssl)
    return got


@pytest.fixture(scope="module")
def gmtls() -> Path:
    """The gmtls peer (tjfoc/gmsm v1.4.1)."""
    got: Path = _build("gmtls", tp.build_gmtls)
    return got


@pytest.fixture(scope="module")
def tongsuo() -> list[str]:
    """The Tongsuo peer (BabaSSL 8.3.2 inside tongsuopy 1.0.1, through ctypes)."""
    got: list[str] = _build("tongsuo", tp.build_tongsuo)
    return got


@pytest.fixture(scope="module", params=["gmssl", "guomi"], ids=["certs-gmssl", "certs-guomi"])
def certs(
    request: pytest.FixtureRequest, gmssl: Path, tmp_path_factory: pytest.TempPathFactory
) -> tp.CertSet:
    """A CA + server double certificate + client certificate, made by GmSSL's tools or guomi."""
    d = tmp_path_factory.mktemp(f"certs-{request.param}")
    if request.param == "gmssl":
        return tp.make_gmssl_certs(gmssl, d)
    return tp.make_guomi_certs(d)


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
