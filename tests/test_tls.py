"""guomi.tls: TLCP and TLS 1.3 through the ssl-like API, guomi on both ends (contexts,
sockets, memory BIOs, asyncio), and every bad-input path of the API. The live peers
(GmSSL, gmtls, Tongsuo) are in tests/interop/test_interop_tls_api.py."""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any, Optional

import pytest

from guomi import exceptions, tls, x509
from guomi.tls import TLCPContext, TLS13Context
from tls_pki import Pki, make_pki

TLCP_SUITES = ["ECC_SM4_GCM_SM3", "ECC_SM4_CBC_SM3", "ECDHE_SM4_GCM_SM3", "ECDHE_SM4_CBC_SM3"]
TLS13_SUITES = ["TLS_SM4_GCM_SM3", "TLS_SM4_CCM_SM3"]


@pytest.fixture(scope="module")
def pki() -> Pki:
    return make_pki()


def tlcp_server_ctx(pki: Pki, **kw: Any) -> TLCPContext:
    ctx = TLCPContext(server_side=True)
    s = pki.server
    ctx.load_cert_chain(s.sign_cert, s.sign_key, enc_cert=s.enc_cert, enc_key=s.enc_key)
    ctx.load_verify_locations(cadata=pki.ca.to_pem())
    for k, v in kw.items():
        setattr(ctx, k, v)
    return ctx


def tlcp_client_ctx(pki: Pki, identity: bool = False) -> TLCPContext:
    ctx = TLCPContext()
    ctx.load_verify_locations(cadata=pki.ca.to_pem())
    if identity:
        c = pki.client
        ctx.load_cert_chain(c.sign_cert, c.sign_key, enc_cert=c.enc_cert, enc_key=c.enc_key)
    return ctx


def tls13_server_ctx(pki: Pki) -> TLS13Context:
    ctx = TLS13Context(server_side=True)
    ctx.load_cert_chain(pki.server.sign_cert, pki.server.sign_key)
    ctx.load_verify_locations(cadata=pki.ca.to_pem())
    return ctx


def tls13_client_ctx(pki: Pki, identity: bool = False) -> TLS13Context:
    ctx = TLS13Context()
    ctx.load_verify_locations(cadata=pki.ca.to_pem())
    if identity:
        ctx.load_cert_chain(pki.client.sign_cert, pki.client.sign_key)
    return ctx


class Served:
    """Runs ``handler(tls_socket)`` for one connection on a thread; keeps its result or
    exception."""

    def __init__(self, ctx: Any, raw: socket.socket, handler: Callable[[Any], Any]) -> None:
        self.result: Any = None
        self.error: Optional[BaseException] = None

        def run() -> None:
            try:
                with ctx.wrap_socket(raw) as s:
                    self.result = handler(s)
            except BaseException as e:  # noqa: BLE001 - reported to the test
                self.error = e
            finally:
                raw.close()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def join(self) -> Any:
        self.thread.join(30)
        assert not self.thread.is_alive()
        return self


def echo(s: Any) -> bytes:
    data = bytearray()
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return bytes(data)
        data += chunk
        s.sendall(chunk)


def pair() -> tuple[socket.socket, socket.socket]:
    a, b = socket.socketpair()
    a.settimeout(30)
    b.settimeout(30)
    return a, b


# ------------------------------------------------------------------ both protocols


@pytest.mark.parametrize("suite", TLCP_SUITES)
def test_tlcp_suites(pki: Pki, suite: str) -> None:
    server = tlcp_server_ctx(pki)
    client = tlcp_client_ctx(pki, identity=suite.startswith("ECDHE"))
    client.set_ciphers(suite)
    a, b = pair()
    srv = Served(server, b, echo)
    with client.wrap_socket(a, server_hostname="localhost") as s:
        assert s.version() == "TLCPv1.1"
        assert s.cipher() == (suite, "TLCPv1.1", 128)
        s.sendall(b"x" * 100_000)
        got = bytearray()
        while len(got) < 100_000:
            got += s.recv(65536)
        assert got == b"x" * 100_000
        peer = s.getpeercerts()
        assert [c.to_der() for c in peer[:2]] == [pki.server.sign_cert.to_der(), pki.server.enc_cert.to_der()]
        d = s.getpeercert()
        assert isinstance(d, dict) and d["subject"][0] == (("commonName", "localhost"),)
        assert ("DNS", "localhost") in d["subjectAltName"]
        assert s.getpeercert(binary_form=True) == pki.server.sign_cert.to_der()
    assert srv.join().error is None and srv.result == b"x" * 100_000


@pytest.mark.parametrize("suite", TLS13_SUITES)
def test_tls13_suites(pki: Pki, suite: str) -> None:
    server = tls13_server_ctx(pki)
    client = tls13_client_ctx(pki)
    client.set_ciphers(suite)
    a, b = pair()
    srv = Served(server, b, echo)
    with client.wrap_socket(a, server_hostname="localhost") as s:
        assert (s.version(), s.cipher()) == ("TLSv1.3", (suite, "TLSv1.3", 128))
        s.sendall(b"hello")
        assert s.recv(5) == b"hello"
        assert s.getpeercerts()[0].to_der() == pki.server.sign_cert.to_der()
        assert not s.session_reused and s.session is None
    assert srv.join().error is None and srv.result == b"hello"


def test_tlcp_resumption(pki: Pki) -> None:
    server = tlcp_server_ctx(pki)
    client = tlcp_client_ctx(pki)
    sessions = []
    for i in range(3):
        a, b = pair()
        srv = Served(server, b, echo)
        with client.wrap_socket(
            a, server_hostname="localhost", session=sessions[-1] if sessions else None
        ) as s:
            s.sendall(b"ping")
            assert s.recv(4) == b"ping"
            assert s.session_reused == (i > 0)
            assert s.session is not None
            # A resumed connection reports the original handshake's certificates.
            assert s.getpeercerts()[0].to_der() == pki.server.sign_cert.to_der()
            sessions.append(s.session)
        assert srv.join().error is None
    assert sessions[0].id == sessions[2].id and len(sessions[0].id) == 32
    # A server without a cache gives no session ID: nothing to resume.
    server.session_cache_size = 0
    a, b = pair()
    srv = Served(server, b, echo)
    with client.wrap_socket(a, server_hostname="localhost", session=sessions[0]) as s:
        assert not s.session_reused and s.session is None
    srv.join()


def test_tls13_resumption(pki: Pki) -> None:
    server = tls13_server_ctx(pki)
    client = tls13_client_ctx(pki)
    reused = []
    for _ in range(3):
        a, b = pair()
        srv = Served(server, b, echo)
        with client.wrap_socket(a, server_hostname="localhost") as s:
            s.sendall(b"ping")  # the tickets arrive with the first reply
            assert s.recv(4) == b"ping"
            reused.append(s.session_reused)
        assert srv.join().error is None
    assert reused == [False, True, True]


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_client_auth(pki: Pki, proto: str) -> None:
    server = tlcp_server_ctx(pki) if proto == "tlcp" else tls13_server_ctx(pki)
    server.verify_mode = tls.CERT_REQUIRED
    seen = []

    def handler(s: Any) -> Any:
        seen.append(s.getpeercert()["subject"])
        return echo(s)

    client = tlcp_client_ctx(pki, identity=True) if proto == "tlcp" else tls13_client_ctx(pki, identity=True)
    a, b = pair()
    srv = Served(server, b, handler)
    with client.wrap_socket(a, server_hostname="localhost") as s:
        s.sendall(b"id")
        assert s.recv(2) == b"id"
    assert srv.join().error is None
    assert seen == [((("commonName", "client"),), (("organizationName", "guomi tls tests"),))]

    # Without a certificate: refused, and the client learns why.
    anon = tlcp_client_ctx(pki) if proto == "tlcp" else tls13_client_ctx(pki)
    a, b = pair()
    srv = Served(server, b, echo)
    with pytest.raises(exceptions.TLSAlert) as e:
        with anon.wrap_socket(a, server_hostname="localhost") as s:
            s.sendall(b"x")
            s.recv(1)
    assert e.value.received
    assert e.value.alert in ("handshake_failure", "certificate_required", "bad_certificate")
    assert isinstance(srv.join().error, exceptions.TLSError)


# -------------------------------------------------------------- certificates refused


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_wrong_hostname_and_unknown_ca(pki: Pki, proto: str) -> None:
    server = tlcp_server_ctx(pki) if proto == "tlcp" else tls13_server_ctx(pki)
    client = tlcp_client_ctx(pki) if proto == "tlcp" else tls13_client_ctx(pki)
    a, b = pair()
    srv = Served(server, b, echo)
    with pytest.raises(exceptions.TLSCertificateError) as e:
        client.wrap_socket(a, server_hostname="example.com")
    assert isinstance(e.value, exceptions.CertificateVerificationError)
    assert not e.value.received and e.value.alert in ("bad_certificate", "certificate_unknown")
    assert isinstance(srv.join().error, exceptions.TLSAlert)
    assert srv.error.received  # type: ignore[union-attr]

    stranger = tlcp_client_ctx(make_pki("another CA")) if proto == "tlcp" else tls13_client_ctx(make_pki("x"))
    a, b = pair()
    srv = Served(server, b, echo)
    with pytest.raises(exceptions.TLSCertificateError) as e:
        stranger.wrap_socket(a, server_hostname="localhost")
    assert e.value.alert == "unknown_ca"
    srv.join()

    # CERT_NONE: encrypted, not authenticated (any CA, any name).
    stranger.check_hostname = False
    stranger.verify_mode = tls.CERT_NONE
    a, b = pair()
    srv = Served(server, b, echo)
    with stranger.wrap_socket(a, server_hostname="anything") as s:
        s.sendall(b"ok")
        assert s.recv(2) == b"ok"
    assert srv.join().error is None


def test_tlcp_revoked_and_expired(pki: Pki) -> None:
    server = tlcp_server_ctx(pki)
    crl = x509.CRLBuilder().revoke(pki.server.sign_cert.serial_number).sign(pki.ca, pki.ca_key)
    client = tlcp_client_ctx(pki)
    client.crls = [crl]
    a, b = pair()
    srv = Served(server, b, echo)
    with pytest.raises(exceptions.TLSCertificateError) as e:
        client.wrap_socket(a, server_hostname="localhost")
    assert e.value.alert == "certificate_revoked"
    srv.join()


def test_tlcp_encryption_certificate_usage(pki: Pki) -> None:
    """An encryption certificate that may only sign is refused (key usage), even by a
    client that does not verify paths."""
    sc, sk = pki.server.sign_cert, pki.server.sign_key
    ec, ek = pki.issue("localhost", ["digitalSignature"])
    server = TLCPContext(server_side=True)
    server.load_cert_chain(sc, sk, enc_cert=ec, enc_key=ek)
    client = tlcp_client_ctx(pki)
    client.check_hostname = False
    client.verify_mode = tls.CERT_NONE
    a, b = pair()
    srv = Served(server, b, echo)
    with pytest.raises(exceptions.TLSCertificateError) as e:
        client.wrap_socket(a)
    assert e.value.alert == "unsupported_certificate"
    srv.join()


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_no_shared_suite(pki: Pki, proto: str) -> None:
    server = tlcp_server_ctx(pki) if proto == "tlcp" else tls13_server_ctx(pki)
    client = tlcp_client_ctx(pki) if proto == "tlcp" else tls13_client_ctx(pki)
    server.set_ciphers("ECC_SM4_CBC_SM3" if proto == "tlcp" else "TLS_SM4_CCM_SM3")
    client.set_ciphers("ECC-SM2-SM4-GCM-SM3" if proto == "tlcp" else "TLS_SM4_GCM_SM3")
    a, b = pair()
    srv = Served(server, b, echo)
    with pytest.raises(exceptions.TLSAlert) as e:
        client.wrap_socket(a, server_hostname="localhost")
    assert e.value.received and e.value.alert == "handshake_failure"
    srv.join()


# ------------------------------------------------------------------- stream edges


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_truncation_raises(pki: Pki, proto: str) -> None:
    server = tlcp_server_ctx(pki) if proto == "tlcp" else tls13_server_ctx(pki)
    client = tlcp_client_ctx(pki) if proto == "tlcp" else tls13_client_ctx(pki)
    for suppress in (False, True):
        a, b = pair()

        def cut(s: Any) -> None:
            s.sendall(b"partial")
            socket.close(s.detach())  # the TCP stream ends without close_notify

        srv = Served(server, b, cut)
        s = client.wrap_socket(a, server_hostname="localhost", suppress_ragged_eofs=suppress)
        assert s.recv(7) == b"partial"
        srv.join()
        if suppress:
            assert s.recv(10) == b""
        else:
            with pytest.raises(exceptions.TLSEOFError):
                s.recv(10)
        s.close()


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_close_notify_unwrap_and_makefile(pki: Pki, proto: str) -> None:
    server = tlcp_server_ctx(pki) if proto == "tlcp" else tls13_server_ctx(pki)
    client = tlcp_client_ctx(pki) if proto == "tlcp" else tls13_client_ctx(pki)

    def lines(s: Any) -> list[str]:
        f = s.makefile("rw", encoding="utf-8", newline="\n")
        got = [f.readline(), f.readline()]
        f.write("bye\n")
        f.flush()
        f.close()
        return got

    a, b = pair()
    srv = Served(server, b, lines)
    s = client.wrap_socket(a, server_hostname="localhost")
    s.sendall(b"one\ntwo\n")
    assert s.makefile("rb").readline() == b"bye\n"
    assert s.recv(10) == b""  # the server closed with close_notify
    raw = s.unwrap()
    assert isinstance(raw, socket.socket)
    raw.close()
    assert srv.join().result == ["one\n", "two\n"]
    with pytest.raises(exceptions.TLSConnectionClosed):
        s.sendall(b"after unwrap")


def test_handshake_timeout(pki: Pki) -> None:
    """A silent peer: HandshakeTimeout (a TimeoutError) after the socket's timeout, or the
    context's handshake_timeout when the socket has none."""
    client = tls13_client_ctx(pki)
    a, b = socket.socketpair()
    a.settimeout(0.3)
    t = time.monotonic()
    with pytest.raises(exceptions.HandshakeTimeout):
        client.wrap_socket(a, server_hostname="localhost")
    assert time.monotonic() - t < 5
    c, d = socket.socketpair()
    tlcp = tlcp_client_ctx(pki)
    tlcp.handshake_timeout = 0.3
    with pytest.raises(TimeoutError):
        tlcp.wrap_socket(c, server_hostname="localhost")
    for x in (b, c, d):
        x.close()


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_peer_closes_during_handshake(pki: Pki, proto: str) -> None:
    client = tlcp_client_ctx(pki) if proto == "tlcp" else tls13_client_ctx(pki)
    a, b = pair()
    b.close()
    with pytest.raises((exceptions.TLSEOFError, ConnectionError)):
        client.wrap_socket(a, server_hostname="localhost")


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_garbage_from_peer(pki: Pki, proto: str) -> None:
    """Bytes that are not TLS: a fatal alert, never a hang or a crash."""
    server = tlcp_server_ctx(pki) if proto == "tlcp" else tls13_server_ctx(pki)
    a, b = pair()
    a.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    with pytest.raises(exceptions.TLSAlert) as e:
        server.wrap_socket(b)
    assert not e.value.received
    a.close()


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_large_writes(pki: Pki, proto: str) -> None:
    server = tlcp_server_ctx(pki) if proto == "tlcp" else tls13_server_ctx(pki)
    client = tlcp_client_ctx(pki) if proto == "tlcp" else tls13_client_ctx(pki)
    payload = bytes(range(256)) * (4 * 4096)  # 4 MiB

    def sink(s: Any) -> int:
        n = 0
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                return n
            n += len(chunk)

    a, b = pair()
    srv = Served(server, b, sink)
    with client.wrap_socket(a, server_hostname="localhost") as s:
        s.sendall(payload)
        s.sendall(memoryview(bytearray(payload))[1:])
        assert s.send(payload) == 65536
    assert srv.join().result == 2 * len(payload) - 1 + 65536


# ------------------------------------------------------------------- memory BIOs


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_wrap_bio(pki: Pki, proto: str) -> None:
    server = tlcp_server_ctx(pki) if proto == "tlcp" else tls13_server_ctx(pki)
    client = tlcp_client_ctx(pki) if proto == "tlcp" else tls13_client_ctx(pki)
    ci, co, si, so = ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO()
    c = client.wrap_bio(ci, co, server_hostname="localhost")
    s = server.wrap_bio(si, so)
    assert c.cipher() is None and c.version() is None
    with pytest.raises(ValueError):
        c.getpeercert()
    for _ in range(10):
        for obj in (c, s):
            try:
                obj.do_handshake()
            except ssl.SSLWantReadError:
                pass
        si.write(co.read())
        ci.write(so.read())
    assert c.version() == s.version() and c.cipher() == s.cipher()
    assert c.write(b"over the bio") == 12
    si.write(co.read())
    assert s.read(100) == b"over the bio"
    with pytest.raises(ssl.SSLWantReadError):
        s.read(1)
    buf = bytearray(4)
    s.write(b"back")
    ci.write(so.read())
    assert c.read(4, buf) == 4 and buf == b"back"
    c.unwrap()
    si.write(co.read())
    assert s.read(1) == b""
    # Input that ends without close_notify is truncation.
    ci.write_eof()
    with pytest.raises(exceptions.TLSEOFError):
        c.read(1)


# ------------------------------------------------------------------------- asyncio


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_asyncio_echo_and_stalled_client(pki: Pki, proto: str) -> None:
    server = tlcp_server_ctx(pki) if proto == "tlcp" else tls13_server_ctx(pki)
    client = tlcp_client_ctx(pki) if proto == "tlcp" else tls13_client_ctx(pki)
    server.handshake_timeout = 1.0

    async def handle(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        assert w.get_extra_info("cipher")[1] in ("TLCPv1.1", "TLSv1.3")
        while line := await r.readline():
            w.write(line.upper())
            await w.drain()
        w.close()

    async def main() -> None:
        srv = await tls.start_server(handle, "127.0.0.1", 0, context=server)
        port = srv.sockets[0].getsockname()[1]
        # A client that connects and says nothing must not hold up the others.
        stalled_r, stalled_w = await asyncio.open_connection("127.0.0.1", port)

        async def one(i: int) -> bytes:
            r, w = await tls.open_connection("127.0.0.1", port, context=client, server_hostname="localhost")
            assert w.get_extra_info("peercert")["subject"][0] == (("commonName", "localhost"),)
            w.write(b"line %d\n" % i)
            await w.drain()
            got = await r.readline()
            w.close()
            await w.wait_closed()
            return got

        got = await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(8))), 30)
        assert got == [b"LINE %d\n" % i for i in range(8)]
        # The stalled client is dropped after the handshake timeout.
        assert await asyncio.wait_for(stalled_r.read(), 10) == b""
        stalled_w.close()
        srv.close()
        await srv.wait_closed()

    asyncio.run(main())


def test_asyncio_errors(pki: Pki) -> None:
    async def main() -> None:
        srv = await tls.start_server(lambda r, w: None, "127.0.0.1", 0, context=tls13_server_ctx(pki))
        port = srv.sockets[0].getsockname()[1]
        with pytest.raises(exceptions.TLSCertificateError):
            await tls.open_connection(
                "127.0.0.1", port, context=tls13_client_ctx(pki), server_hostname="nope"
            )
        with pytest.raises(exceptions.TLSError):
            await tls.open_connection("127.0.0.1", port, context=tls13_server_ctx(pki))
        with pytest.raises(exceptions.TLSError):
            await tls.start_server(lambda r, w: None, context=tls13_client_ctx(pki))
        # A plain TCP server that hangs up: the handshake fails with an EOF error.
        plain = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        with pytest.raises((exceptions.TLSEOFError, ConnectionError)):
            await tls.open_connection(
                "127.0.0.1",
                plain.sockets[0].getsockname()[1],
                context=tls13_client_ctx(pki),
                server_hostname="localhost",
            )
        for x in (srv, plain):
            x.close()
            await x.wait_closed()

    asyncio.run(main())


# ------------------------------------------------------------------- bad input


def test_context_bad_input(pki: Pki, tmp_path: Any) -> None:
    ctx = TLCPContext()
    with pytest.raises(exceptions.InvalidArgument):
        ctx.verify_mode = tls.CERT_NONE  # check_hostname is on
    with pytest.raises(ValueError):
        ctx.verify_mode = 7  # type: ignore[assignment]
    with pytest.raises(exceptions.InvalidArgument):
        ctx.set_ciphers("AES128-SHA")
    with pytest.raises(exceptions.InvalidArgument):
        ctx.set_ciphers("TLS_SM4_GCM_SM3")  # a TLS 1.3 suite in a TLCP context
    with pytest.raises(exceptions.InvalidArgument):
        ctx.set_ciphers(" : ")
    with pytest.raises(TypeError):
        ctx.set_ciphers(b"ECC_SM4_GCM_SM3")  # type: ignore[arg-type]
    for bad in (-1, tls.MAX_SESSION_CACHE + 1):
        with pytest.raises(exceptions.InvalidArgument):
            ctx.session_cache_size = bad
    with pytest.raises(TypeError):
        ctx.session_cache_size = "10"  # type: ignore[assignment]
    with pytest.raises(TypeError):
        ctx.crls = ["not a crl"]  # type: ignore[list-item]
    for bad_t in (0, -1, float("nan"), 1e9):
        with pytest.raises(exceptions.InvalidArgument):
            ctx.handshake_timeout = bad_t
    with pytest.raises(TypeError):
        ctx.handshake_timeout = "5"  # type: ignore[assignment]
    ctx.handshake_timeout = None
    ctx.handshake_timeout = 2
    with pytest.raises(TypeError):
        ctx.load_verify_locations()
    with pytest.raises(FileNotFoundError):
        ctx.load_verify_locations(cafile=tmp_path / "missing.pem")
    with pytest.raises(exceptions.GuomiError):
        ctx.load_verify_locations(cadata=b"not DER")
    with pytest.raises(TypeError):  # not bytes(2**32): a 4 GiB allocation
        ctx.load_verify_locations(cadata=2**32)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        TLCPContext(server_side="yes")  # type: ignore[arg-type]
    # Keys that do not match their certificates are refused at load time.
    s = pki.server
    with pytest.raises(exceptions.InvalidArgument):
        ctx.load_cert_chain(s.sign_cert, s.enc_key, enc_cert=s.enc_cert, enc_key=s.enc_key)
    with pytest.raises(exceptions.InvalidArgument):
        TLS13Context().load_cert_chain(s.sign_cert, s.enc_key)
    with pytest.raises(TypeError):
        ctx.load_cert_chain(12, s.sign_key, enc_cert=s.enc_cert, enc_key=s.enc_key)  # type: ignore[arg-type]
    # Servers need an identity; sides must match; clients checking names need one.
    a, b = pair()
    with pytest.raises(exceptions.InvalidArgument):
        TLCPContext(server_side=True).wrap_socket(b)
    with pytest.raises(exceptions.InvalidArgument):
        ctx.wrap_socket(a, server_side=True)
    with pytest.raises(exceptions.InvalidArgument):
        ctx.wrap_socket(a)
    with pytest.raises(exceptions.InvalidArgument):
        TLS13Context().wrap_socket(a, server_hostname="localhost", session=object())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ctx.wrap_socket(a, server_hostname=b"localhost")  # type: ignore[arg-type]
    with pytest.raises(exceptions.InvalidArgument):
        tlcp_server_ctx(pki).wrap_socket(b, server_hostname="x")
    # A client without trust roots cannot verify anyone.
    with pytest.raises(exceptions.InvalidArgument):
        TLS13Context().wrap_socket(a, server_hostname="localhost")
    a.close()
    b.close()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with pytest.raises(exceptions.TLSError):
        tls13_client_ctx(pki).wrap_socket(udp, server_hostname="localhost")
    udp.close()
    nb = socket.socket()
    nb.setblocking(False)
    with pytest.raises(exceptions.TLSError):
        tls13_client_ctx(pki).wrap_socket(nb, server_hostname="localhost")
    nb.close()


def test_files_and_pem(pki: Pki, tmp_path: Any) -> None:
    """Paths, PEM text with the key inside the certificate file, encrypted keys."""
    from guomi import keys

    s = pki.server
    (tmp_path / "sign.pem").write_text(s.sign_cert.to_pem() + keys.dump_pem_private_key(s.sign_key, "pw"))
    (tmp_path / "enc.pem").write_text(s.enc_cert.to_pem())
    (tmp_path / "enc.key").write_bytes(keys.dump_der_private_key(s.enc_key))
    (tmp_path / "ca").mkdir()
    (tmp_path / "ca" / "root.crt").write_text(pki.ca.to_pem())
    server = TLCPContext(server_side=True)
    server.load_cert_chain(
        tmp_path / "sign.pem", password="pw", enc_cert=str(tmp_path / "enc.pem"), enc_key=tmp_path / "enc.key"
    )
    with pytest.raises(exceptions.GuomiError):
        TLCPContext(server_side=True).load_cert_chain(
            tmp_path / "sign.pem",
            password="wrong",
            enc_cert=tmp_path / "enc.pem",
            enc_key=tmp_path / "enc.key",
        )
    with pytest.raises(exceptions.InvalidArgument):
        TLCPContext().load_cert_chain(
            tmp_path / "enc.pem", enc_cert=tmp_path / "enc.pem", enc_key=tmp_path / "enc.key"
        )
    client = TLCPContext()
    client.load_verify_locations(capath=tmp_path / "ca")
    client.load_verify_locations(cadata=pki.ca.to_der())
    assert len(client.get_ca_certs()) == 2
    a, b = pair()
    srv = Served(server, b, echo)
    with client.wrap_socket(a, server_hostname="127.0.0.1") as c:  # the IP SAN
        c.sendall(b"files")
        assert c.recv(5) == b"files"
    assert srv.join().error is None


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_socket_bad_input(pki: Pki, proto: str) -> None:
    server = tlcp_server_ctx(pki) if proto == "tlcp" else tls13_server_ctx(pki)
    client = tlcp_client_ctx(pki) if proto == "tlcp" else tls13_client_ctx(pki)
    a, b = pair()
    srv = Served(server, b, echo)
    s = client.wrap_socket(a, server_hostname="localhost")
    with pytest.raises(TypeError):
        s.sendall("text, not bytes")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        s.recv(-1)
    with pytest.raises(ValueError):
        s.send(b"x", socket.MSG_OOB)
    with pytest.raises(ValueError):
        s.makefile("rx")
    s.close()
    with pytest.raises(exceptions.TLSConnectionClosed):
        s.sendall(b"after close")
    assert s.fileno() == -1
    srv.join()


def test_exceptions_pickle_and_names() -> None:
    import pickle

    e = pickle.loads(pickle.dumps(exceptions.TLSAlert("m", 20, True)))
    assert (str(e), e.alert, e.alert_code, e.received) == ("m", "bad_record_mac", 20, True)
    c = exceptions.TLSCertificateError("bad", 48)
    assert (
        c.alert == "unknown_ca"
        and isinstance(c, OSError)
        and isinstance(c, exceptions.CertificateVerificationError)
    )
    assert exceptions.TLSAlert("x", 250).alert == "alert_250"


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_full_duplex_threads(pki: Pki, proto: str) -> None:
    """One thread reads while another writes (the server echoes 2 MiB back as it comes):
    records from both threads' flushes must not interleave on the wire."""
    server = tlcp_server_ctx(pki) if proto == "tlcp" else tls13_server_ctx(pki)
    client = tlcp_client_ctx(pki) if proto == "tlcp" else tls13_client_ctx(pki)
    payload = bytes(range(251)) * (2 * 4177)
    a, b = pair()
    srv = Served(server, b, echo)
    got = bytearray()
    with client.wrap_socket(a, server_hostname="localhost") as s:

        def reader() -> None:
            while len(got) < len(payload):
                got.extend(s.recv(65536))

        t = threading.Thread(target=reader)
        t.start()
        view = memoryview(payload)
        for i in range(0, len(payload), 1000):
            s.sendall(view[i : i + 1000])
        t.join(30)
        assert not t.is_alive()
    assert bytes(got) == payload
    assert srv.join().error is None


def test_tcp_nodelay(pki: Pki) -> None:
    """TCP sockets get TCP_NODELAY (Nagle would add a delayed ACK to every flight)."""
    ls = socket.create_server(("127.0.0.1", 0))
    server = tls13_server_ctx(pki)
    accepted: list[socket.socket] = []
    t = threading.Thread(target=lambda: accepted.append(ls.accept()[0]))
    t.start()
    raw = socket.create_connection(ls.getsockname(), timeout=30)
    t.join()
    srv = Served(server, accepted[0], echo)
    with tls13_client_ctx(pki).wrap_socket(raw, server_hostname="localhost") as s:
        assert s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        s.sendall(b"x")
        assert s.recv(1) == b"x"
    srv.join()
    ls.close()
