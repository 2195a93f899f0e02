"""HTTPS over TLCP or TLS 1.3 for ``httpx``: ``HTTPTransport`` and ``AsyncHTTPTransport``.

Give a client ``TLCPContext`` or ``TLS13Context`` to the transport and the transport to
the client; every ``https://`` connection then runs guomi's handshake instead of
``ssl``'s (``http://`` URLs stay plain)::

    import httpx
    from guomi import tls
    from guomi.tls.httpx import HTTPTransport

    ctx = tls.TLCPContext()
    ctx.load_verify_locations(cafile="sm2-ca.pem")
    with httpx.Client(transport=HTTPTransport(context=ctx)) as client:
        r = client.get("https://sm.example.cn/")
        tls_obj = r.extensions["network_stream"].get_extra_info("ssl_object")
        print(r.status_code, tls_obj.version(), tls_obj.cipher())

    # asyncio:
    async with httpx.AsyncClient(transport=AsyncHTTPTransport(context=ctx)) as client:
        r = await client.get("https://sm.example.cn/")

The client's own ``verify``/``cert`` settings are not used: the context decides what is
trusted and which certificate this side presents. HTTP/1.1 only (guomi's TLS negotiates
no ALPN, so ``http2=True`` is refused); no proxies.

Errors follow httpx's treatment of ``ssl``'s. A failed handshake raises
``httpx.ConnectError`` (``httpx.ConnectTimeout`` when it runs out of time) whose message
is the guomi error's, say ``TLCP certificate rejected (bad_certificate): server certificate
... does not match "localhost"``. The guomi error itself -- a
``guomi.exceptions.TLSCertificateError`` for a refused server certificate (host name,
issuer, validity, revocation), a ``TLSAlert`` for an alert from the server -- is one
step down the chain: ``exc.__cause__`` is httpcore's ``ConnectError``, which holds it as
``args[0]`` and ``__context__`` (httpcore's pool re-raises ``from None``, so tracebacks do
not print it). ``tls_error(exc)`` returns it. As with ``ssl``, ``retries`` retries such
failures too. A TLS failure after the handshake is an ``httpx.ReadError`` or
``httpx.WriteError`` built the same way. A connection that ends without close_notify ends
the response as a plain TCP close would (as ``ssl`` does under httpx): HTTP's own framing
(Content-Length, chunked) still detects a truncated body.
"""

from __future__ import annotations

import contextlib
import select
import socket
import ssl
from collections.abc import Iterable, Iterator
from typing import Any, Optional, Union

import anyio
import httpcore
import httpx

from ..exceptions import TLSEOFError, TLSError
from ._bio import TLSObject
from ._common import RECV_CHUNK
from ._context import TLCPContext, TLS13Context
from ._socket import TLSSocket

__all__ = ["HTTPTransport", "AsyncHTTPTransport", "tls_error"]

Context = Union[TLCPContext, TLS13Context]
SocketOption = httpcore.SOCKET_OPTION
ExcMap = dict[type[BaseException], type[Exception]]
#: httpx's default pool limits.
_DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)


def tls_error(exc: BaseException) -> Optional[TLSError]:
    """The guomi ``TLSError`` (``TLSCertificateError``, ``TLSAlert``, ...) behind an
    exception that httpx raised, found along ``__cause__`` and ``__context__``; ``None``
    when TLS was not the cause."""
    seen: set[int] = set()
    cur: Optional[BaseException] = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, TLSError):
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None


@contextlib.contextmanager
def _mapped(mapping: ExcMap) -> Iterator[None]:
    """Re-raises the first matching exception as its image (chained), as httpcore does."""
    try:
        yield
    except Exception as exc:
        for source, target in mapping.items():
            if isinstance(exc, source):
                raise target(exc) from exc
        raise


# Timeouts first: HandshakeTimeout and socket.timeout are OSErrors too.
_CONNECT: ExcMap = {TimeoutError: httpcore.ConnectTimeout, OSError: httpcore.ConnectError}
_READ: ExcMap = {TimeoutError: httpcore.ReadTimeout, OSError: httpcore.ReadError}
_WRITE: ExcMap = {TimeoutError: httpcore.WriteTimeout, OSError: httpcore.WriteError}


def _check(context: Any, http1: bool, http2: bool) -> None:
    if not isinstance(context, (TLCPContext, TLS13Context)):
        raise TypeError("context must be a guomi.tls.TLCPContext or TLS13Context")
    if context.server_side:
        raise ValueError("context must be a client context (server_side=False)")
    if http2:
        raise ValueError(
            "http2=True is not supported: guomi.tls negotiates no ALPN, so these transports speak HTTP/1.1"
        )
    if not http1:
        raise ValueError("http1 must stay enabled: HTTP/1.1 is the only protocol these transports speak")


def _placeholder_ssl_context() -> ssl.SSLContext:
    # httpcore sets ALPN on the ssl context it hands to start_tls; the streams below
    # ignore it, so an empty one (no CA loading) is enough.
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def _socket_readable(sock: Optional[socket.socket]) -> bool:
    """Whether a read would not block (data, EOF or an error): an idle pooled connection
    that is readable was closed by the server, as httpcore reasons."""
    if sock is None or sock.fileno() < 0:
        return True
    if hasattr(select, "poll"):
        p = select.poll()
        p.register(sock, select.POLLIN)
        return bool(p.poll(0))
    return bool(select.select([sock], [], [], 0)[0])


# ---------------------------------------------------------------- sync


class _TLSStream(httpcore.NetworkStream):
    """A ``TLSSocket`` as httpcore's stream."""

    def __init__(self, sock: TLSSocket, raw: socket.socket) -> None:
        self._sock = sock
        self._raw = raw

    def read(self, max_bytes: int, timeout: Optional[float] = None) -> bytes:
        with _mapped(_READ):
            self._sock.settimeout(timeout)
            return self._sock.recv(max_bytes)

    def write(self, buffer: bytes, timeout: Optional[float] = None) -> None:
        if not buffer:
            return
        with _mapped(_WRITE):
            self._sock.settimeout(timeout)
            self._sock.sendall(buffer)

    def close(self) -> None:
        try:
            self._sock.settimeout(0.5)  # close_notify must not hang on a stalled peer
        except OSError:
            pass
        self._sock.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> httpcore.NetworkStream:
        raise NotImplementedError("TLS inside TLS is not supported")

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._sock
        if info == "is_readable":
            return self._sock.pending() > 0 or _socket_readable(None if self._sock.closed else self._raw)
        if self._sock.closed:
            return None
        if info == "socket":
            return self._raw
        if info == "client_addr":
            return self._raw.getsockname()
        if info == "server_addr":
            return self._raw.getpeername()
        return None


class _PlainStream(httpcore.NetworkStream):
    """httpcore's TCP stream, whose ``start_tls`` runs guomi's handshake."""

    def __init__(self, inner: httpcore.NetworkStream, context: Context) -> None:
        self._inner = inner
        self._context = context

    def read(self, max_bytes: int, timeout: Optional[float] = None) -> bytes:
        return self._inner.read(max_bytes, timeout)

    def write(self, buffer: bytes, timeout: Optional[float] = None) -> None:
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> httpcore.NetworkStream:
        del ssl_context  # the guomi context decides
        raw = self._inner.get_extra_info("socket")
        if not isinstance(raw, socket.socket):
            raise httpcore.ConnectError("the connection has no socket to run TLS over")
        try:
            with _mapped(_CONNECT):
                # The connect timeout bounds the handshake (without one, the context's
                # handshake_timeout does).
                raw.settimeout(timeout)
                sock = self._context.wrap_socket(
                    raw, server_hostname=server_hostname, suppress_ragged_eofs=True
                )
        except BaseException:
            self._inner.close()
            raise
        return _TLSStream(sock, raw)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    """httpcore's blocking backend, with guomi's TLS."""

    def __init__(self, context: Context) -> None:
        self._context = context
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: Optional[float] = None,
        local_address: Optional[str] = None,
        socket_options: Optional[Iterable[SocketOption]] = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return _PlainStream(stream, self._context)

    def connect_unix_socket(
        self,
        path: str,
        timeout: Optional[float] = None,
        socket_options: Optional[Iterable[SocketOption]] = None,
    ) -> httpcore.NetworkStream:
        return _PlainStream(self._inner.connect_unix_socket(path, timeout, socket_options), self._context)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class HTTPTransport(httpx.HTTPTransport):
    """An ``httpx`` transport whose HTTPS runs over TLCP or TLS 1.3:
    ``httpx.Client(transport=HTTPTransport(context=ctx))``.

    ``context`` is a client ``TLCPContext`` or ``TLS13Context``; it alone decides the
    trust anchors, host name checking and this side's certificates. The other keywords
    are ``httpx.HTTPTransport``'s: ``limits`` (the connection pool), ``retries``
    (connection attempts that fail before or during the handshake), ``local_address``,
    ``uds`` and ``socket_options``. HTTP/1.1 only: ``http2=True`` raises ``ValueError``.
    The ``ssl_object`` of a response's ``extensions["network_stream"]`` is the
    connection's ``TLSSocket`` (``version()``, ``cipher()``, ``getpeercert()``).
    """

    def __init__(
        self,
        context: Context,
        *,
        http1: bool = True,
        http2: bool = False,
        limits: httpx.Limits = _DEFAULT_LIMITS,
        retries: int = 0,
        local_address: Optional[str] = None,
        uds: Optional[str] = None,
        socket_options: Optional[Iterable[SocketOption]] = None,
    ) -> None:
        _check(context, http1, http2)
        self.context = context
        self._pool = httpcore.ConnectionPool(
            network_backend=_Backend(context),
            **_pool_options(limits, retries, local_address, uds, socket_options),
        )


def _pool_options(
    limits: httpx.Limits,
    retries: int,
    local_address: Optional[str],
    uds: Optional[str],
    socket_options: Optional[Iterable[SocketOption]],
) -> dict[str, Any]:
    """The connection pool's keywords both transports pass (HTTP/1.1 only)."""
    return {
        "ssl_context": _placeholder_ssl_context(),
        "max_connections": limits.max_connections,
        "max_keepalive_connections": limits.max_keepalive_connections,
        "keepalive_expiry": limits.keepalive_expiry,
        "http1": True,
        "http2": False,
        "uds": uds,
        "local_address": local_address,
        "retries": retries,
        "socket_options": socket_options,
    }


# ---------------------------------------------------------------- async


class _AsyncTLSStream(httpcore.AsyncNetworkStream):
    """A ``TLSObject`` driven over httpcore's anyio TCP stream."""

    def __init__(
        self,
        inner: httpcore.AsyncNetworkStream,
        obj: TLSObject,
        incoming: ssl.MemoryBIO,
        outgoing: ssl.MemoryBIO,
    ) -> None:
        self._inner = inner
        self._obj = obj
        self._in = incoming
        self._out = outgoing

    @classmethod
    async def handshake(
        cls,
        inner: httpcore.AsyncNetworkStream,
        context: Context,
        server_hostname: Optional[str],
        timeout: Optional[float],
    ) -> _AsyncTLSStream:
        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        with _mapped(_CONNECT):
            obj = context.wrap_bio(incoming, outgoing, server_hostname=server_hostname)
        self = cls(inner, obj, incoming, outgoing)
        limit = timeout if timeout is not None else context.handshake_timeout
        mapping: ExcMap = {
            TimeoutError: httpcore.ConnectTimeout,
            httpcore.TimeoutException: httpcore.ConnectTimeout,
            OSError: httpcore.ConnectError,
            httpcore.NetworkError: httpcore.ConnectError,
        }
        with _mapped(mapping), anyio.fail_after(limit):
            while True:
                try:
                    obj.do_handshake()
                    break
                except ssl.SSLWantReadError:
                    pass
                finally:
                    await self._flush()
                await self._fill()
            await self._flush()
        return self

    async def _flush(self) -> None:
        data = self._out.read()
        if data:
            await self._inner.write(data)

    async def _fill(self) -> None:
        data = await self._inner.read(RECV_CHUNK)
        if data:
            self._in.write(data)
        else:
            self._in.write_eof()

    async def read(self, max_bytes: int, timeout: Optional[float] = None) -> bytes:
        with _mapped(_READ), anyio.fail_after(timeout):
            while True:
                try:
                    data: bytes = self._obj.read(max_bytes)
                    return data
                except ssl.SSLWantReadError:
                    pass
                except TLSEOFError:
                    return b""  # no close_notify: HTTP's framing judges, as with ssl
                finally:
                    await self._flush()  # alerts, key updates
                await self._fill()

    async def write(self, buffer: bytes, timeout: Optional[float] = None) -> None:
        if not buffer:
            return
        with _mapped(_WRITE), anyio.fail_after(timeout):
            self._obj.write(buffer)
            await self._flush()

    async def aclose(self) -> None:
        try:
            with anyio.move_on_after(0.5, shield=True):
                self._obj.unwrap()
                await self._flush()
        except Exception:  # noqa: BLE001 - close_notify is a courtesy: the peer may be gone
            pass
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> httpcore.AsyncNetworkStream:
        raise NotImplementedError("TLS inside TLS is not supported")

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._obj
        if info == "is_readable":
            return self._obj.pending() > 0 or bool(self._inner.get_extra_info("is_readable"))
        return self._inner.get_extra_info(info)


class _AsyncPlainStream(httpcore.AsyncNetworkStream):
    """httpcore's async TCP stream, whose ``start_tls`` runs guomi's handshake."""

    def __init__(self, inner: httpcore.AsyncNetworkStream, context: Context) -> None:
        self._inner = inner
        self._context = context

    async def read(self, max_bytes: int, timeout: Optional[float] = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: Optional[float] = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> httpcore.AsyncNetworkStream:
        del ssl_context  # the guomi context decides
        try:
            return await _AsyncTLSStream.handshake(self._inner, self._context, server_hostname, timeout)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self._inner.aclose()
            raise

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _AsyncBackend(httpcore.AsyncNetworkBackend):
    """httpcore's anyio backend, with guomi's TLS."""

    def __init__(self, context: Context) -> None:
        self._context = context
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: Optional[float] = None,
        local_address: Optional[str] = None,
        socket_options: Optional[Iterable[SocketOption]] = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return _AsyncPlainStream(stream, self._context)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: Optional[float] = None,
        socket_options: Optional[Iterable[SocketOption]] = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._inner.connect_unix_socket(path, timeout, socket_options)
        return _AsyncPlainStream(stream, self._context)

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class AsyncHTTPTransport(httpx.AsyncHTTPTransport):
    """The async ``HTTPTransport``, for ``httpx.AsyncClient`` (I/O through anyio, as
    httpx's own; tested under asyncio):
    ``httpx.AsyncClient(transport=AsyncHTTPTransport(context=ctx))``.
    Same keywords and errors as ``HTTPTransport``; the ``ssl_object`` of a response's
    ``extensions["network_stream"]`` is the connection's ``TLSObject``.
    """

    def __init__(
        self,
        context: Context,
        *,
        http1: bool = True,
        http2: bool = False,
        limits: httpx.Limits = _DEFAULT_LIMITS,
        retries: int = 0,
        local_address: Optional[str] = None,
        uds: Optional[str] = None,
        socket_options: Optional[Iterable[SocketOption]] = None,
    ) -> None:
        _check(context, http1, http2)
        self.context = context
        self._pool = httpcore.AsyncConnectionPool(
            network_backend=_AsyncBackend(context),
            **_pool_options(limits, retries, local_address, uds, socket_options),
        )
