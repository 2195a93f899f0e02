"""``TLSSocket``: a blocking TLCP or TLS 1.3 socket with ``ssl.SSLSocket``'s methods."""

from __future__ import annotations

import io
import socket
import threading
import time
from typing import Any, Optional

from .._typing import BytesLike
from ..exceptions import HandshakeTimeout, TLSConnectionClosed, TLSEOFError, TLSError
from ._common import RECV_CHUNK, SEND_CHUNK, ConnectionInfo, feed
from ._context import _Context


class TLSSocket(ConnectionInfo):
    """A connected stream socket carrying TLCP or TLS 1.3; made by
    ``context.wrap_socket``. It has ``ssl.SSLSocket``'s methods (``sendall``, ``recv``,
    ``recv_into``, ``makefile``, ``unwrap``, ``getpeercert``, ``cipher``, ``version``,
    ``session``, ``session_reused``) and forwards the rest (``fileno``, ``settimeout``,
    ``getpeername``, ...) to the socket it wraps. Closing it sends close_notify. One
    thread may read while another writes, as with ``ssl.SSLSocket``. Not
    for non-blocking sockets: event loops use ``wrap_bio`` or ``guomi.tls``'s asyncio
    functions."""

    def __init__(
        self,
        context: _Context,
        sock: socket.socket,
        conn: Any,
        server_hostname: Optional[str],
        do_handshake_on_connect: bool,
        suppress_ragged_eofs: bool,
    ) -> None:
        if not isinstance(sock, socket.socket):
            raise TypeError("wrap_socket needs a socket.socket")
        if sock.type != socket.SOCK_STREAM:
            raise TLSError("only stream sockets can carry TLS")
        if sock.gettimeout() == 0.0:
            raise TLSError(
                "non-blocking sockets are not supported; use wrap_bio or guomi.tls.open_connection"
            )
        self._context = context
        self._sock: Optional[socket.socket] = sock
        self._conn = conn
        self.server_hostname = server_hostname
        self.suppress_ragged_eofs = suppress_ragged_eofs
        self._pending = bytearray()
        self._plain = bytearray()
        self._handshake_done = False
        self._eof = False
        self._closed_notify = False
        self._io_refs = 0
        self._closed = False
        self._write_lock = threading.Lock()
        self._read_lock = threading.Lock()
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            # TLS writes whole records and flights; Nagle's algorithm would hold the next
            # one for the peer's delayed ACK (~40 ms per resumed handshake). asyncio and
            # Go turn it off too.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if do_handshake_on_connect:
            try:
                self.do_handshake()
            except BaseException:
                self._close_socket()
                raise

    # ---- plumbing ----

    def _raw(self) -> socket.socket:
        if self._sock is None:
            raise TLSConnectionClosed("the socket is closed")
        return self._sock

    def _flush(self, blocking: bool = True) -> None:
        """Sends what the engine has queued. One sender at a time, so that records from a
        reader thread (the engine's answers) and a writer thread never interleave. A
        reader does not wait for a writer blocked in ``sendall`` (the writer may be waiting
        for the peer, which may be waiting for the reader): it leaves its bytes queued and
        the writer, which looks again after each send and after releasing the lock, sends
        them."""
        while True:
            if not self._write_lock.acquire(blocking=blocking):
                return
            try:
                data = self._conn.write_tls()
                if data:
                    try:
                        self._raw().sendall(data)
                    except (BrokenPipeError, ConnectionResetError) as e:
                        self._raise_peer_alert(e)
                        raise
            finally:
                self._write_lock.release()
            if not data and not self._conn.wants_write:
                return

    def _raise_peer_alert(self, cause: OSError) -> None:
        """The peer hung up while we wrote: if it said why (an alert already received,
        say certificate_required after our last handshake flight), raise that instead."""
        sock = self._sock
        # Only when no other thread is reading (it owns the input buffers).
        if sock is None or not self._read_lock.acquire(blocking=False):
            return
        try:
            self._read_alert(sock, cause)
        finally:
            self._read_lock.release()

    def _read_alert(self, sock: socket.socket, cause: OSError) -> None:
        saved = sock.gettimeout()
        try:
            sock.setblocking(False)
            while chunk := sock.recv(RECV_CHUNK):
                self._pending += chunk
        except OSError:
            pass
        finally:
            sock.settimeout(saved)
        try:
            feed(self._conn, self._pending, self._plain)
        except TLSError as e:
            raise e from cause

    def _fill(self) -> None:
        """Reads once from the network and runs the engine (alerts it sends go out first)."""
        with self._read_lock:
            self._fill_locked()

    def _fill_locked(self) -> None:
        chunk = self._raw().recv(RECV_CHUNK)
        if not chunk:
            self._eof = True
        self._pending += chunk
        try:
            feed(self._conn, self._pending, self._plain)
        except TLSError:
            try:
                self._flush(blocking=False)  # the alert
            except OSError:
                pass
            raise
        try:
            self._flush(blocking=False)
        except OSError:
            # The answer to the peer's close_notify may find the peer gone: harmless.
            if not self._conn.peer_closed:
                raise

    # ---- the handshake ----

    def do_handshake(self, block: bool = False) -> None:
        """Runs the handshake. On a socket without a timeout the context's
        ``handshake_timeout`` bounds it; a timeout raises ``HandshakeTimeout``."""
        del block
        sock = self._raw()
        limit = sock.gettimeout()
        if limit is None:
            limit = self._context.handshake_timeout
        deadline = None if limit is None else time.monotonic() + limit
        saved = sock.gettimeout()
        try:
            while True:
                self._flush()
                if not self._conn.is_handshaking:
                    break
                if self._eof:
                    raise TLSEOFError("the peer closed the connection during the handshake")
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise HandshakeTimeout(f"the handshake took more than {limit} s")
                    sock.settimeout(left)
                try:
                    self._fill()
                except TimeoutError:
                    raise HandshakeTimeout(f"the handshake took more than {limit} s") from None
        finally:
            if self._sock is not None:
                self._sock.settimeout(saved)
        self._handshake_done = True

    def _ensure_handshake(self) -> None:
        if not self._handshake_done:
            self.do_handshake()

    # ---- data ----

    def recv(self, bufsize: int = 1024, flags: int = 0) -> bytes:
        """Up to ``bufsize`` bytes; ``b""`` once the peer sent close_notify."""
        if flags:
            raise ValueError("flags are not supported on TLS sockets")
        if bufsize < 0:
            raise ValueError("negative buffer size")
        self._ensure_handshake()
        while not self._plain:
            if self._conn.peer_closed:
                return b""
            if self._eof:
                if self.suppress_ragged_eofs:
                    return b""
                raise TLSEOFError("the connection ended without close_notify (truncation?)")
            self._fill()
        out = bytes(self._plain[:bufsize])
        del self._plain[:bufsize]
        return out

    read = recv

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        """As ``recv``, into ``buffer``; returns the count."""
        view = memoryview(buffer).cast("B")
        n = min(nbytes or view.nbytes, view.nbytes)
        if not self._plain:
            data = self.recv(n, flags)  # waits for data, or b"" at the end
            view[: len(data)] = data
            return len(data)
        n = min(n, len(self._plain))
        with memoryview(self._plain) as src:
            view[:n] = src[:n]
        del self._plain[:n]
        return n

    def send(self, data: BytesLike, flags: int = 0) -> int:
        """Sends up to 64 KiB of ``data``; returns how many bytes were sent."""
        if flags:
            raise ValueError("flags are not supported on TLS sockets")
        self._ensure_handshake()
        view = memoryview(data).cast("B")
        part = view[:SEND_CHUNK]
        self._conn.send(part)
        self._flush()
        return part.nbytes

    write = send

    def sendall(self, data: BytesLike, flags: int = 0) -> None:
        """Sends all of ``data``."""
        if flags:
            raise ValueError("flags are not supported on TLS sockets")
        self._ensure_handshake()
        view = memoryview(data).cast("B")
        for i in range(0, view.nbytes, SEND_CHUNK):
            self._conn.send(view[i : i + SEND_CHUNK])
            self._flush()

    def pending(self) -> int:
        """Decrypted bytes waiting to be read."""
        return len(self._plain)

    def makefile(
        self,
        mode: str = "r",
        buffering: Optional[int] = None,
        *,
        encoding: Optional[str] = None,
        errors: Optional[str] = None,
        newline: Optional[str] = None,
    ) -> Any:
        """A file object over the connection, as ``socket.makefile``."""
        if not set(mode) <= {"r", "w", "b"}:
            raise ValueError(f"invalid mode {mode!r} (only r, w, b allowed)")
        writing, reading, binary = "w" in mode, "r" in mode or "w" not in mode, "b" in mode
        rawmode = ("r" if reading else "") + ("w" if writing else "")
        raw = socket.SocketIO(self, rawmode)  # type: ignore[arg-type]
        self._io_refs += 1
        if buffering is None:
            buffering = -1
        if buffering < 0:
            buffering = io.DEFAULT_BUFFER_SIZE
        if buffering == 0:
            if not binary:
                raise ValueError("unbuffered streams must be binary")
            return raw
        buffer: Any
        if reading and writing:
            buffer = io.BufferedRWPair(raw, raw, buffering)
        elif reading:
            buffer = io.BufferedReader(raw, buffering)
        else:
            buffer = io.BufferedWriter(raw, buffering)
        if binary:
            return buffer
        text = io.TextIOWrapper(buffer, encoding, errors, newline)
        text.mode = mode  # type: ignore[misc]
        return text

    def _decref_socketios(self) -> None:
        if self._io_refs > 0:
            self._io_refs -= 1
        if self._closed:
            self.close()

    # ---- closing ----

    def unwrap(self) -> socket.socket:
        """Sends close_notify, waits for the peer's, and returns the plain socket."""
        self._ensure_handshake()
        self._closed_notify = True
        self._conn.close()
        try:
            self._flush()
        except OSError:
            if not self._conn.peer_closed:  # a peer that closed first may be gone
                raise
        while not self._conn.peer_closed and not self._eof:
            self._fill()
        sock = self._raw()
        self._sock = None
        return sock

    def shutdown(self, how: int) -> None:
        """Sends close_notify (for ``SHUT_WR``/``SHUT_RDWR``), then shuts the socket down."""
        if how in (socket.SHUT_WR, socket.SHUT_RDWR):
            self._notify()
        self._raw().shutdown(how)

    def _notify(self) -> None:
        if self._handshake_done and not self._closed_notify and not self._conn.failed:
            self._closed_notify = True
            self._conn.close()
            try:
                self._flush()
            except OSError:
                pass

    def _close_socket(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def close(self) -> None:
        """Sends close_notify (after a completed handshake) and closes the socket; file
        objects from ``makefile`` keep it open until they are closed too."""
        self._closed = True
        if self._io_refs <= 0:
            self._notify()
            self._drain()
            self._close_socket()

    def _drain(self) -> None:
        """Discards what already arrived (a TLS 1.3 server's session tickets, say): a
        socket closed with unread input resets the connection, and the peer could lose
        data it has not read yet."""
        sock = self._sock
        if sock is None:
            return
        try:
            sock.setblocking(False)
            for _ in range(16):
                if not sock.recv(RECV_CHUNK):
                    break
        except OSError:
            pass

    def detach(self) -> int:
        """Detaches the socket without close_notify; returns its file descriptor."""
        return self._raw().detach()

    def __enter__(self) -> TLSSocket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_sock", None) is not None and self._io_refs <= 0:
            self._close_socket()

    @property
    def closed(self) -> bool:
        return self._sock is None

    # ---- the rest is the socket's ----

    def fileno(self) -> int:
        return self._raw().fileno() if self._sock is not None else -1

    def __getattr__(self, name: str) -> Any:
        if name in (
            "settimeout",
            "gettimeout",
            "getpeername",
            "getsockname",
            "setsockopt",
            "getsockopt",
            "setblocking",
            "family",
            "type",
            "proto",
        ):
            return getattr(self._raw(), name)
        raise AttributeError(name)

    def __repr__(self) -> str:
        state = "closed" if self._sock is None else ("connected" if self._handshake_done else "handshaking")
        return f"<guomi.tls.TLSSocket {self._context.protocol} {state}>"
