"""``TLSObject``: the sans-I/O connection over two ``ssl.MemoryBIO``s, as ``ssl.SSLObject``."""

from __future__ import annotations

import builtins
import ssl
from typing import Any, Optional

from .._typing import BytesLike
from ..exceptions import TLSEOFError
from ._common import SEND_CHUNK, ConnectionInfo, feed
from ._context import _Context


class TLSObject(ConnectionInfo):
    """A TLCP or TLS 1.3 connection that reads network bytes from ``incoming`` and
    writes them to ``outgoing`` (``ssl.MemoryBIO``), for event loops that do their own
    I/O. Methods that need more input raise ``ssl.SSLWantReadError``, as
    ``ssl.SSLObject``'s do; write ``outgoing``'s bytes to the network after every call.
    Made by ``context.wrap_bio``."""

    def __init__(
        self,
        context: _Context,
        conn: Any,
        incoming: ssl.MemoryBIO,
        outgoing: ssl.MemoryBIO,
        server_hostname: Optional[str],
    ) -> None:
        self._context = context
        self._conn = conn
        self._in = incoming
        self._out = outgoing
        self._pending = bytearray()
        self._plain = bytearray()
        self._handshake_done = False
        self.server_hostname = server_hostname

    def _pump(self) -> None:
        self._pending += self._in.read()
        try:
            feed(self._conn, self._pending, self._plain)
        finally:
            self._flush()
        if not self._handshake_done and not self._conn.is_handshaking:
            self._handshake_done = True

    def _flush(self) -> None:
        data = self._conn.write_tls()
        if data:
            self._out.write(data)

    def do_handshake(self) -> None:
        """Runs the handshake as far as the input allows; raises ``ssl.SSLWantReadError``
        until it completes."""
        self._pump()
        if not self._handshake_done:
            if self._in.eof:
                raise TLSEOFError("the transport closed during the handshake")
            raise ssl.SSLWantReadError("the handshake needs more input")

    def read(self, len: int = 1024, buffer: Optional[Any] = None) -> Any:
        """Up to ``len`` bytes of application data (into ``buffer`` when given: returns the
        count). ``b""`` (or 0) after the peer's close_notify; ``TLSEOFError`` when the
        input ended without one; ``ssl.SSLWantReadError`` when more input is needed."""
        if len < 0:
            raise ValueError("negative length")
        if not self._handshake_done:
            self.do_handshake()
        if not self._plain:
            self._pump()
        if not self._plain:
            if self._conn.peer_closed:
                return 0 if buffer is not None else b""
            if self._in.eof:
                raise TLSEOFError("the transport ended without close_notify (truncation?)")
            raise ssl.SSLWantReadError("more input needed")
        if buffer is not None:
            view = memoryview(buffer).cast("B")
            n = min(len or view.nbytes, view.nbytes, builtins.len(self._plain))
            view[:n] = self._plain[:n]
            del self._plain[:n]
            return n
        out = bytes(self._plain[:len])
        del self._plain[:len]
        return out

    def write(self, data: BytesLike) -> int:
        """Encrypts ``data`` into ``outgoing``; returns its length."""
        if not self._handshake_done:
            self.do_handshake()
        view = memoryview(data).cast("B")
        for i in range(0, view.nbytes, SEND_CHUNK):
            self._conn.send(view[i : i + SEND_CHUNK])
            self._flush()
        return view.nbytes

    def pending(self) -> int:
        """Decrypted bytes waiting to be read."""
        return builtins.len(self._plain)

    def unwrap(self) -> None:
        """Sends close_notify (into ``outgoing``). The peer's close_notify, when it comes,
        makes ``read`` return ``b""``."""
        self._conn.close()
        self._flush()
