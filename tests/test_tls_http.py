"""guomi.tls.httpx (and guomi.tls.requests): HTTPS over TLCP and TLS 1.3 against a small
HTTP/1.1 server on loopback that runs guomi's server side (``http.server`` over
``ctx.wrap_socket``)."""

from __future__ import annotations

import asyncio
import http.server
import json
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Union

import pytest

httpx = pytest.importorskip("httpx")

from guomi import exceptions, tls  # noqa: E402
from guomi.tls import TLCPContext, TLS13Context  # noqa: E402
from guomi.tls.httpx import AsyncHTTPTransport, HTTPTransport, tls_error  # noqa: E402
from tls_pki import Pki, make_pki  # noqa: E402

Context = Union[TLCPContext, TLS13Context]
PROTOCOLS = ["tlcp", "tls13"]


class Handler(http.server.BaseHTTPRequestHandler):
    """Answers every request with JSON: the method, path, body, and the number of the
    connection it came on (to see keep-alive)."""

    protocol_version = "HTTP/1.1"
    server: Server

    def _answer(self) -> None:
        if self.path == "/slow":
            time.sleep(1.0)
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        conn = self.connection
        payload = {
            "method": self.command,
            "path": self.path,
            "body": body.decode("latin-1"),
            "conn": getattr(conn, "conn_id", None),
            "version": conn.version(),  # type: ignore[attr-defined]
        }
        out = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = do_PUT = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


class Server(socketserver.ThreadingTCPServer):
    """A threaded HTTP server on 127.0.0.1 whose connections run guomi's TLS; handshake
    failures are kept in ``errors``."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, ctx: Context) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.ctx = ctx
        self.errors: list[BaseException] = []
        self.connections = 0
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def finish_request(self, request: Any, client_address: Any) -> None:
        request.settimeout(5)
        try:
            s = self.ctx.wrap_socket(request)
        except BaseException as e:  # noqa: BLE001 - kept for the test
            self.errors.append(e)
            return
        with self._lock:
            self.connections += 1
            s.conn_id = self.connections  # type: ignore[attr-defined]
        try:
            Handler(s, client_address, self)
        except (OSError, exceptions.TLSError):
            pass  # the client went away
        finally:
            s.close()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self.thread.join(5)


def server_ctx(pki: Pki, proto: str) -> Context:
    s = pki.server
    if proto == "tlcp":
        c1 = TLCPContext(server_side=True)
        c1.load_cert_chain(s.sign_cert, s.sign_key, enc_cert=s.enc_cert, enc_key=s.enc_key)
        return c1
    c2 = TLS13Context(server_side=True)
    c2.load_cert_chain(s.sign_cert, s.sign_key)
    return c2


def client_ctx(pki: Pki, proto: str) -> Context:
    ctx: Context = TLCPContext() if proto == "tlcp" else TLS13Context()
    ctx.load_verify_locations(cadata=pki.ca.to_pem())
    return ctx


@pytest.fixture(scope="module")
def pki() -> Pki:
    return make_pki()


@pytest.fixture(scope="module", params=PROTOCOLS)
def proto(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def server(pki: Pki, proto: str) -> Iterator[Server]:
    srv = Server(server_ctx(pki, proto))
    yield srv
    srv.stop()


@pytest.fixture
def ctx(pki: Pki, proto: str) -> Context:
    return client_ctx(pki, proto)


VERSION = {"tlcp": "TLCPv1.1", "tls13": "TLSv1.3"}


def url(server: Server, path: str = "/", host: str = "localhost") -> str:
    return f"https://{host}:{server.port}{path}"


# ---- sync


def test_get_and_post(server: Server, ctx: Context, proto: str) -> None:
    with httpx.Client(transport=HTTPTransport(context=ctx), timeout=5) as client:
        r = client.get(url(server, "/hello?x=1"))
        assert r.status_code == 200
        data = r.json()
        assert data["method"] == "GET" and data["path"] == "/hello?x=1"
        assert data["version"] == VERSION[proto]
        tls_obj = r.extensions["network_stream"].get_extra_info("ssl_object")
        assert isinstance(tls_obj, tls.TLSSocket)
        assert tls_obj.version() == VERSION[proto]
        suites = tls.TLCP_SUITES if proto == "tlcp" else tls.TLS13_SUITES
        assert tls_obj.cipher()[0] in {names[0] for names in suites.values()}
        peer = tls_obj.getpeercert()
        assert ("DNS", "localhost") in peer["subjectAltName"]

        body = b"\x00binary body\xff" * 1000
        r = client.post(url(server, "/submit"), content=body)
        assert r.status_code == 200
        assert r.json()["method"] == "POST"
        assert r.json()["body"].encode("latin-1") == body


def test_keep_alive_reuses_the_connection(server: Server, ctx: Context) -> None:
    with httpx.Client(transport=HTTPTransport(context=ctx), timeout=5) as client:
        a = client.get(url(server, "/one")).json()
        b = client.get(url(server, "/two")).json()
        c = client.put(url(server, "/three"), content=b"x").json()
    assert a["conn"] is not None
    assert a["conn"] == b["conn"] == c["conn"]


def test_ip_address_host(server: Server, ctx: Context) -> None:
    with httpx.Client(transport=HTTPTransport(context=ctx), timeout=5) as client:
        assert client.get(url(server, "/ip", host="127.0.0.1")).json()["path"] == "/ip"


def test_plain_http_untouched(ctx: Context) -> None:
    """An http:// URL through the transport is plain TCP (no handshake)."""
    lsock = socket.create_server(("127.0.0.1", 0))
    port = lsock.getsockname()[1]

    def serve() -> None:
        conn, _ = lsock.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(4096)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nplain")

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        with httpx.Client(transport=HTTPTransport(context=ctx), timeout=5) as client:
            assert client.get(f"http://127.0.0.1:{port}/").text == "plain"
    finally:
        t.join(5)
        lsock.close()


# ---- async


def test_async_client(server: Server, ctx: Context, proto: str) -> None:
    async def main() -> list[Any]:
        async with httpx.AsyncClient(transport=AsyncHTTPTransport(context=ctx), timeout=5) as client:
            r1 = await client.get(url(server, "/a"))
            r2 = await client.post(url(server, "/b"), content=b"async body" * 5000)
            tls_obj = r2.extensions["network_stream"].get_extra_info("ssl_object")
            assert isinstance(tls_obj, tls.TLSObject)
            assert tls_obj.version() == VERSION[proto]
            assert tls_obj.getpeercert()["subject"]
            many = await asyncio.gather(*(client.get(url(server, f"/g{i}")) for i in range(4)))
            return [r1.json(), r2.json()] + [m.json() for m in many]

    a, b, *rest = asyncio.run(main())
    assert a["method"] == "GET" and a["version"] == VERSION[proto]
    assert b["method"] == "POST" and b["body"] == "async body" * 5000
    assert a["conn"] == b["conn"]  # keep-alive
    assert sorted(r["path"] for r in rest) == ["/g0", "/g1", "/g2", "/g3"]


# ---- failures


@pytest.fixture(scope="module")
def wrong_name_server(pki: Pki, proto: str) -> Iterator[Server]:
    """A server whose certificates are for other.example, not localhost."""
    sc, sk = pki.issue("other", ["digitalSignature"], san=["dns:other.example"])
    if proto == "tlcp":
        ec, ek = pki.issue("other", ["keyEncipherment", "keyAgreement"], san=["dns:other.example"])
        c1 = TLCPContext(server_side=True)
        c1.load_cert_chain(sc, sk, enc_cert=ec, enc_key=ek)
        srv = Server(c1)
    else:
        c2 = TLS13Context(server_side=True)
        c2.load_cert_chain(sc, sk)
        srv = Server(c2)
    yield srv
    srv.stop()


def _assert_certificate_failure(exc: BaseException) -> None:
    assert isinstance(exc, httpx.ConnectError)
    err = tls_error(exc)
    assert isinstance(err, exceptions.TLSCertificateError)
    # The documented chain: httpx.ConnectError, whose __cause__ is httpcore's ConnectError,
    # whose __context__ (httpcore's pool re-raises it "from None") and args[0] are guomi's.
    inner = exc.__cause__
    assert inner is not None and inner.__context__ is err and inner.args[0] is err
    assert str(err) in str(exc)


def test_hostname_mismatch(wrong_name_server: Server, ctx: Context) -> None:
    with httpx.Client(transport=HTTPTransport(context=ctx, retries=1), timeout=5) as client:
        with pytest.raises(httpx.ConnectError) as info:
            client.get(url(wrong_name_server))
    _assert_certificate_failure(info.value)


def test_hostname_mismatch_async(wrong_name_server: Server, ctx: Context) -> None:
    async def main() -> None:
        async with httpx.AsyncClient(transport=AsyncHTTPTransport(context=ctx), timeout=5) as client:
            await client.get(url(wrong_name_server))

    with pytest.raises(httpx.ConnectError) as info:
        asyncio.run(main())
    _assert_certificate_failure(info.value)


def test_unknown_issuer(server: Server, proto: str) -> None:
    other = client_ctx(make_pki("another CA"), proto)
    with httpx.Client(transport=HTTPTransport(context=other), timeout=5) as client:
        with pytest.raises(httpx.ConnectError) as info:
            client.get(url(server))
    _assert_certificate_failure(info.value)


def test_sni_hostname_extension(server: Server, ctx: Context) -> None:
    """httpx's ``sni_hostname`` extension is the name checked."""
    with httpx.Client(transport=HTTPTransport(context=ctx), timeout=5) as client:
        with pytest.raises(httpx.ConnectError) as info:
            client.get(url(server, host="127.0.0.1"), extensions={"sni_hostname": "nope.example"})
    assert isinstance(tls_error(info.value), exceptions.TLSCertificateError)


def test_handshake_timeout_is_connect_timeout(ctx: Context) -> None:
    """A server that accepts but never answers the hello: httpx.ConnectTimeout."""
    lsock = socket.create_server(("127.0.0.1", 0))
    port = lsock.getsockname()[1]
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        lsock.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(lsock.accept()[0])
            except OSError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        timeout = httpx.Timeout(5, connect=0.3)
        with httpx.Client(transport=HTTPTransport(context=ctx), timeout=timeout) as client:
            with pytest.raises(httpx.ConnectTimeout):
                client.get(f"https://localhost:{port}/")

        async def main() -> None:
            async with httpx.AsyncClient(transport=AsyncHTTPTransport(context=ctx), timeout=timeout) as c:
                await c.get(f"https://127.0.0.1:{port}/")

        with pytest.raises(httpx.ConnectTimeout):
            asyncio.run(main())
    finally:
        stop.set()
        t.join(5)
        for s in held:
            s.close()
        lsock.close()


def test_read_timeout(server: Server, ctx: Context) -> None:
    timeout = httpx.Timeout(5, read=0.2)
    with httpx.Client(transport=HTTPTransport(context=ctx), timeout=timeout) as client:
        with pytest.raises(httpx.ReadTimeout):
            client.get(url(server, "/slow"))
        assert client.get(url(server, "/after")).json()["path"] == "/after"

    async def main() -> None:
        async with httpx.AsyncClient(transport=AsyncHTTPTransport(context=ctx), timeout=timeout) as c:
            with pytest.raises(httpx.ReadTimeout):
                await c.get(url(server, "/slow"))
            assert (await c.get(url(server, "/after"))).json()["path"] == "/after"

    asyncio.run(main())


@pytest.mark.parametrize("cls", [HTTPTransport, AsyncHTTPTransport])
def test_bad_arguments(cls: Callable[..., Any], pki: Pki) -> None:
    ctx = client_ctx(pki, "tls13")
    with pytest.raises(ValueError, match="http2"):
        cls(context=ctx, http2=True)
    with pytest.raises(ValueError, match="http1"):
        cls(context=ctx, http1=False)
    with pytest.raises(ValueError, match="client context"):
        cls(context=server_ctx(pki, "tls13"))
    with pytest.raises(TypeError):
        cls(context=object())


def test_tls_error_none_for_other_errors() -> None:
    assert tls_error(ValueError("x")) is None
    try:
        try:
            raise exceptions.TLSAlert("handshake_failure")
        except exceptions.TLSError as e:
            raise httpx.ConnectError("wrapped") from e
    except httpx.ConnectError as outer:
        assert isinstance(tls_error(outer), exceptions.TLSAlert)
