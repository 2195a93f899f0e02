"""asyncio: ``open_connection`` and ``start_server`` with TLCP or TLS 1.3, returning the
``(StreamReader, StreamWriter)`` pair of ``asyncio.open_connection``.

The TLS layer sits between the socket's transport and an ``asyncio.StreamReaderProtocol``,
as asyncio's own SSL layer does: ``_TLSProtocol`` receives network bytes and runs the
engine, ``_TLSTransport`` is the transport the streams write to."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Optional, Union

from ..exceptions import HandshakeTimeout, TLSEOFError, TLSError
from ._common import SEND_CHUNK, ConnectionInfo, cert_dict, feed
from ._context import _Context

log = logging.getLogger("guomi.tls")

ClientConnected = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Union[Awaitable[None], None]]


class _TLSTransport(asyncio.Transport, ConnectionInfo):
    """The application's side: writes are encrypted, ``close`` sends close_notify."""

    def __init__(self, proto: _TLSProtocol) -> None:
        super().__init__()
        self._proto = proto
        self._conn = proto._conn
        self._context = proto._context
        self._handshake_done = True
        self._closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        if name == "peercert":
            certs = self._conn.peer_certificates()
            return cert_dict(certs[0]) if certs else None
        if name == "peercerts":
            return self.getpeercerts()
        if name == "cipher":
            return self.cipher()
        if name in ("ssl_object", "tls_object"):
            return self
        if name == "sslcontext":
            return self._context
        raw = self._proto._raw
        return raw.get_extra_info(name, default) if raw is not None else default

    def write(self, data: Any) -> None:
        if self._closing:
            raise RuntimeError("write after close")
        view = memoryview(data).cast("B")
        if not view.nbytes:
            return
        try:
            for i in range(0, view.nbytes, SEND_CHUNK):
                self._conn.send(view[i : i + SEND_CHUNK])
        except TLSError as e:
            self._proto._fail(e)
            return
        self._proto._flush()

    def writelines(self, list_of_data: Any) -> None:
        self.write(b"".join(list_of_data))

    def can_write_eof(self) -> bool:
        return False

    def write_eof(self) -> None:
        raise NotImplementedError("TLS has no half-close; close() sends close_notify")

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        self._proto._close_notify()

    def abort(self) -> None:
        self._closing = True
        if self._proto._raw is not None:
            self._proto._raw.abort()

    def pause_reading(self) -> None:
        if self._proto._raw is not None:
            self._proto._raw.pause_reading()

    def resume_reading(self) -> None:
        if self._proto._raw is not None:
            self._proto._raw.resume_reading()

    def is_reading(self) -> bool:
        return self._proto._raw is not None and self._proto._raw.is_reading()

    def set_write_buffer_limits(self, high: Optional[int] = None, low: Optional[int] = None) -> None:
        if self._proto._raw is not None:
            self._proto._raw.set_write_buffer_limits(high, low)

    def get_write_buffer_size(self) -> int:
        return self._proto._raw.get_write_buffer_size() if self._proto._raw is not None else 0

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._proto._app = protocol  # type: ignore[assignment]

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._proto._app


class _TLSProtocol(asyncio.Protocol):
    """The network's side: feeds the engine, runs the handshake under a deadline, then
    passes plaintext to the application protocol."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        context: _Context,
        conn: Any,
        app: asyncio.Protocol,
        waiter: Optional[asyncio.Future[None]],
        handshake_timeout: Optional[float],
    ) -> None:
        self._loop = loop
        self._context = context
        self._conn = conn
        self._app = app
        self._waiter = waiter
        self._timeout = handshake_timeout
        self._timer: Optional[asyncio.TimerHandle] = None
        self._raw: Optional[asyncio.Transport] = None
        self._transport: Optional[_TLSTransport] = None
        self._pending = bytearray()
        self._app_connected = False
        self._done = False

    # network events

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._raw = transport  # type: ignore[assignment]
        if self._timeout is not None:
            self._timer = self._loop.call_later(self._timeout, self._handshake_timed_out)
        self._flush()  # a client's hello

    def data_received(self, data: bytes) -> None:
        if self._done:
            return
        self._pending += data
        plain = bytearray()
        try:
            feed(self._conn, self._pending, plain)
        except TLSError as e:
            self._fail(e)
            return
        self._flush()
        if self._transport is None and not self._conn.is_handshaking:
            self._handshake_complete()
        if self._transport is not None:
            if plain:
                self._app.data_received(bytes(plain))
            if self._conn.peer_closed and not self._done:
                self._done = True
                keep_open = self._app.eof_received()
                if not keep_open:
                    self._close_notify()

    def eof_received(self) -> bool:
        if not self._done:
            if self._transport is None:
                self._fail(TLSEOFError("the peer closed the connection during the handshake"))
            else:
                self._fail(TLSEOFError("the connection ended without close_notify (truncation?)"))
        return False

    def connection_lost(self, exc: Optional[Exception]) -> None:
        self._raw = None
        if self._timer is not None:
            self._timer.cancel()
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(exc or TLSEOFError("the connection closed during the handshake"))
        if self._app_connected:
            self._app_connected = False
            self._app.connection_lost(exc)

    def pause_writing(self) -> None:
        if self._app_connected:
            self._app.pause_writing()

    def resume_writing(self) -> None:
        if self._app_connected:
            self._app.resume_writing()

    # internals

    def _flush(self) -> None:
        data = self._conn.write_tls()
        if data and self._raw is not None and not self._raw.is_closing():
            self._raw.write(data)

    def _handshake_complete(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._transport = _TLSTransport(self)
        self._app_connected = True
        self._app.connection_made(self._transport)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _handshake_timed_out(self) -> None:
        self._timer = None
        if self._transport is None:
            self._fail(HandshakeTimeout(f"the handshake took more than {self._timeout} s"))

    def _fail(self, exc: BaseException) -> None:
        self._done = True
        try:
            self._flush()  # the alert, if the engine queued one
        except Exception:  # noqa: BLE001 - the transport may already be gone
            pass
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(exc)
        if self._app_connected:
            self._app_connected = False
            self._app.connection_lost(exc)  # type: ignore[arg-type]
        if self._raw is not None:
            self._raw.close()

    def _close_notify(self) -> None:
        if self._raw is None:
            return
        if not self._conn.failed:
            self._conn.close()
            self._flush()
        self._raw.close()


async def open_connection(
    host: Optional[str] = None,
    port: Optional[int] = None,
    *,
    context: _Context,
    server_hostname: Optional[str] = None,
    session: Any = None,
    handshake_timeout: Optional[float] = None,
    limit: int = 2**16,
    **kwds: Any,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connects to ``host:port`` and runs the handshake; returns ``(reader, writer)`` as
    ``asyncio.open_connection``. ``server_hostname`` defaults to ``host``;
    ``handshake_timeout`` to the context's. Other keywords go to
    ``loop.create_connection``."""
    if context.server_side:
        raise TLSError("open_connection needs a client context")
    loop = asyncio.get_running_loop()
    name = server_hostname if server_hostname is not None else host
    conn = context._connection(context._server_hostname(name), session)
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    app = asyncio.StreamReaderProtocol(reader, loop=loop)
    waiter: asyncio.Future[None] = loop.create_future()
    timeout = context.handshake_timeout if handshake_timeout is None else handshake_timeout

    def factory() -> _TLSProtocol:
        return _TLSProtocol(loop, context, conn, app, waiter, timeout)

    # host and port may be None with sock=... (as for asyncio.open_connection).
    transport, proto = await loop.create_connection(factory, host, port, **kwds)  # type: ignore[arg-type]
    try:
        await waiter
    except BaseException:
        transport.close()
        raise
    assert proto._transport is not None
    writer = asyncio.StreamWriter(proto._transport, app, reader, loop)
    return reader, writer


async def start_server(
    client_connected_cb: ClientConnected,
    host: Optional[str] = None,
    port: Optional[int] = None,
    *,
    context: _Context,
    handshake_timeout: Optional[float] = None,
    limit: int = 2**16,
    **kwds: Any,
) -> asyncio.Server:
    """Serves TLCP or TLS 1.3 on ``host:port``, as ``asyncio.start_server``:
    ``client_connected_cb(reader, writer)`` runs for each client once its handshake
    completes. A client whose handshake fails or exceeds ``handshake_timeout`` (default:
    the context's) is dropped and logged (logger ``guomi.tls``) without affecting the
    others. Other keywords go to ``loop.create_server``."""
    if not context.server_side:
        raise TLSError("start_server needs a server context (server_side=True)")
    context._config()  # configuration errors now, not per client
    loop = asyncio.get_running_loop()
    timeout = context.handshake_timeout if handshake_timeout is None else handshake_timeout

    def factory() -> _TLSProtocol:
        reader = asyncio.StreamReader(limit=limit, loop=loop)
        app = asyncio.StreamReaderProtocol(reader, client_connected_cb, loop=loop)
        waiter: asyncio.Future[None] = loop.create_future()
        waiter.add_done_callback(_log_handshake_failure)
        return _TLSProtocol(loop, context, context._connection(None, None), app, waiter, timeout)

    return await loop.create_server(factory, host, port, **kwds)


def _log_handshake_failure(fut: asyncio.Future[None]) -> None:
    if not fut.cancelled() and fut.exception() is not None:
        log.info("TLS handshake failed: %s", fut.exception())
