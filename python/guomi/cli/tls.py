"""``guomi tls client|server``: TLCP (GB/T 38636-2020) and TLS 1.3 with the SM suites
(RFC 8998) from a shell, for checking a gateway as ``openssl s_client`` / ``s_server`` do.

``client HOST:PORT`` connects, runs the handshake and prints to standard error the
protocol, the cipher suite, whether the session was resumed, the server's certificates
(TLCP: the signing and the encryption certificate, then the chain) and the verification
result; then it copies standard input to the connection and the connection to standard
output, byte for byte (standard output carries the data only). At the end of standard
input it sends close_notify and reads until the server closes.

``server --port N`` accepts connections (``--port 0``: any free port; the line
``listening on HOST:PORT`` on standard error names it) and prints each client's address,
suite and certificate. ``--echo`` sends every byte back, on any number of connections at
once (``--max-connections``: stop after N); without it, one connection is joined to
standard input and output. A client whose handshake fails is reported and the server
goes on.

Trust: the client needs ``--cafile``/``--capath`` (SM2 roots are not in the system
store) or ``--insecure``. Key passwords come from ``--password-file`` or a prompt on a
terminal, never from the command line.

Exit status: 0 success, 1 a TLS failure (handshake refused, alert, certificate that does
not verify, data truncated), 2 usage, input or connection error (refused, unknown host),
130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import errno
import math
import os
import queue
import selectors
import socket
import ssl
import sys
import threading
import time
from typing import BinaryIO, Optional, Union

from guomi import tls, x509
from guomi.cli._io import UsageError, guarded
from guomi.cli.sm2 import load_private_key
from guomi.cli.x509 import load_certificates
from guomi.exceptions import (
    HandshakeTimeout,
    TLSAlert,
    TLSCertificateError,
    TLSConnectionClosed,
    TLSEOFError,
    TLSError,
)

Context = Union[tls.TLCPContext, tls.TLS13Context]

#: Bytes read from the network, or from standard input, per call.
CHUNK = 64 * 1024
#: TLS bytes waiting for the network before standard input is read again.
BACKLOG = 1 << 20
#: The longest wait --timeout allows (one hour).
MAX_TIMEOUT = 3600.0
#: TLCP: how long the connection must be quiet after the end of standard input before
#: close_notify goes out (a TLCP peer answers close_notify at once, dropping unsent data).
LINGER = 1.0
#: After --reconnect's first TLS 1.3 handshake: silence that ends the wait for tickets.
TICKET_QUIET = 0.05

_log_lock = threading.Lock()


def _log(line: str) -> None:
    """One line on standard error, whole even when several threads report at once."""
    with _log_lock:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


# ---------------------------------------------------------------- command-line values


def _port(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0..65535)") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is out of range: a port is 0..65535")
    return value


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT):
        raise argparse.ArgumentTypeError(
            f"{text} is out of range: more than 0 and at most {MAX_TIMEOUT:g} seconds"
        )
    return value


def _count(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= 1_000_000_000:
        raise argparse.ArgumentTypeError(f"{value} is out of range: at least 1 (at most 10^9)")
    return value


def _address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``[IPv6]:PORT``."""
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or not rest.startswith(":"):
            raise argparse.ArgumentTypeError(f"{text!r}: write an IPv6 address as [ADDRESS]:PORT")
        port_text = rest[1:]
    else:
        host, colon, port_text = text.rpartition(":")
        if not colon:
            raise argparse.ArgumentTypeError(f"{text!r} has no port: write HOST:PORT, e.g. {text}:443")
        if ":" in host:
            raise argparse.ArgumentTypeError(f"{text!r}: write an IPv6 address as [ADDRESS]:PORT")
    if not host:
        raise argparse.ArgumentTypeError(f"{text!r} has no host: write HOST:PORT")
    port = _port(port_text)
    if port == 0:
        raise argparse.ArgumentTypeError("port 0 cannot be connected to: a port is 1..65535")
    return host, port


def _hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


# ---------------------------------------------------------------- contexts


def _identity(ctx: Context, args: argparse.Namespace, *, required: bool) -> None:
    """Loads --cert/--key (and for TLCP --enc-cert/--enc-key) into ``ctx``."""
    tlcp = isinstance(ctx, tls.TLCPContext)
    if args.cert is None:
        if required:
            raise UsageError("--cert and --key are required")
        if args.key or args.enc_cert or args.enc_key:
            raise UsageError("--key, --enc-cert and --enc-key need --cert (this side's signing certificate)")
        return
    if args.key is None:
        raise UsageError("--cert needs --key (its private key)")
    if not tlcp and (args.enc_cert or args.enc_key):
        raise UsageError("--enc-cert and --enc-key are for --protocol tlcp (TLS 1.3 has one certificate)")
    if tlcp and (args.enc_cert is None or args.enc_key is None):
        raise UsageError("TLCP needs the encryption certificate and key too: --enc-cert FILE --enc-key FILE")
    chain = load_certificates(args.cert)
    key = load_private_key(args.key, args)
    try:
        if isinstance(ctx, tls.TLCPContext):
            enc = load_certificates(args.enc_cert)
            enc_key = load_private_key(args.enc_key, args)
            ctx.load_cert_chain(chain, key, enc_cert=enc[0], enc_key=enc_key)
        else:
            ctx.load_cert_chain(chain, key)
    except TLSError as e:  # e.g. a key that does not match its certificate
        raise UsageError(f"--cert/--key: {e}") from e


def _trust(ctx: Context, cafile: Optional[str], capath: Optional[str]) -> None:
    """Loads the trust anchors of --cafile and --capath."""
    pem = "".join(c.to_pem() for c in load_certificates(cafile)) if cafile else ""
    if pem:
        ctx.load_verify_locations(cadata=pem)
    if capath:
        if not os.path.isdir(capath):
            raise UsageError(f"--capath {capath}: not a directory")
        before = len(ctx.get_ca_certs())
        try:
            ctx.load_verify_locations(capath=capath)
        except OSError as e:
            raise UsageError(f"--capath {capath}: {e.strerror or e}") from e
        if len(ctx.get_ca_certs()) == before:
            raise UsageError(f"--capath {capath}: no .pem, .crt or .cer certificate in it")


def _protocol(ctx: Context) -> str:
    return "tlcp" if isinstance(ctx, tls.TLCPContext) else "tls13"


def _new_context(protocol: str, server_side: bool) -> Context:
    if protocol == "tlcp":
        return tls.TLCPContext(server_side=server_side)
    return tls.TLS13Context(server_side=server_side)


def _client_context(args: argparse.Namespace) -> Context:
    ctx = _new_context(args.protocol, False)
    if args.insecure:
        ctx.check_hostname = False
        ctx.verify_mode = tls.CERT_NONE
    elif not (args.cafile or args.capath):
        raise UsageError(
            "give the CA certificates to trust with --cafile FILE or --capath DIR "
            "(SM2 roots are not in the system store), or --insecure to skip verification"
        )
    elif args.no_check_hostname:
        ctx.check_hostname = False
    _trust(ctx, args.cafile, args.capath)
    if args.ciphers is not None:
        ctx.set_ciphers(args.ciphers)
    _identity(ctx, args, required=False)
    return ctx


def _server_context(args: argparse.Namespace) -> Context:
    ctx = _new_context(args.protocol, True)
    if args.protocol == "tlcp" and (args.enc_cert is None or args.enc_key is None):
        raise UsageError(
            "a TLCP server needs its encryption certificate and key: --enc-cert FILE --enc-key FILE"
        )
    _identity(ctx, args, required=True)
    if args.verify != "none" and not args.cafile:
        raise UsageError(f"--verify {args.verify} needs --cafile (the CA that issues client certificates)")
    if args.cafile:
        _trust(ctx, args.cafile, None)
    ctx.verify_mode = {"none": tls.CERT_NONE, "optional": tls.CERT_OPTIONAL, "require": tls.CERT_REQUIRED}[
        args.verify
    ]
    if args.ciphers is not None:
        ctx.set_ciphers(args.ciphers)
    return ctx


# ---------------------------------------------------------------- reports


def _when(cert: x509.Certificate) -> str:
    fmt = "%Y-%m-%d %H:%M:%S UTC"
    return f"{cert.not_valid_before.strftime(fmt)} to {cert.not_valid_after.strftime(fmt)}"


def _chain_lines(certs: list[x509.Certificate], tlcp: bool) -> list[str]:
    if not certs:
        return ["Peer certificates: none sent (a resumed session sends none)"]
    lines = [f"Peer certificates ({len(certs)}):"]
    for i, c in enumerate(certs):
        if tlcp:
            label = "signing certificate" if i == 0 else "encryption certificate" if i == 1 else "chain"
        else:
            label = "certificate" if i == 0 else "chain"
        san = c.subject_alternative_names
        lines += [
            f"  [{i}] {label}",
            f"      subject:  {c.subject}",
            f"      issuer:   {c.issuer}",
            f"      validity: {_when(c)}",
            f"      SAN:      {', '.join(f'{k}:{v}' for k, v in san) if san else '(none)'}",
        ]
    return lines


def _verification(args: argparse.Namespace, name: str) -> str:
    if args.insecure:
        return "Verification: skipped (--insecure): the server is not authenticated"
    if args.no_check_hostname:
        return "Verification: OK, the chain leads to a trusted CA (the host name was not checked)"
    return f"Verification: OK, the chain leads to a trusted CA and {name!r} matches the certificate"


def _failure(e: TLSError, protocol: str, name: Optional[str], during: str = "handshake") -> str:
    """One line naming the alert or the certificate problem (``name``: the server name a
    client checked; ``None`` on the server)."""
    if isinstance(e, TLSCertificateError):
        text = f"certificate verification failed (sent alert {e.alert}): {e}"
        if (
            name is not None
            and e.alert in ("bad_certificate", "certificate_unknown")
            and ("NotValidForName" in str(e) or "does not match" in str(e))
        ):
            text += f"; the server name {name!r} is not in the certificate's subjectAltName (--servername)"
        elif e.alert == "unknown_ca":
            text += "; give the CA that issued it with --cafile"
        return text
    if isinstance(e, TLSAlert):
        hint = ""
        if e.alert == "protocol_version" or "ProtocolVersion" in str(e):
            hint = "; does the peer speak the other protocol? (--protocol tlcp|tls13)"
        elif e.received and e.alert == "handshake_failure":
            hint = "; no common cipher suite (--ciphers)" + (
                ", or a client certificate required (--cert)?" if name is not None else "?"
            )
        elif e.received and e.alert in ("certificate_required", "bad_certificate", "unknown_ca"):
            hint = (
                "; the server wants a client certificate it trusts (--cert, --key)"
                if name is not None
                else "; the client does not accept this server's certificate"
            )
        who = "the peer sent alert" if e.received else "sent alert"
        return f"{during} failed, {who} {e.alert}: {e}{hint}"
    if isinstance(e, TLSEOFError):
        if during != "handshake":
            return str(e)
        wanted = "TLCP" if protocol == "tlcp" else "TLS 1.3"
        return f"the peer closed the connection during the handshake; is it a {wanted} endpoint? (--protocol)"
    if isinstance(e, HandshakeTimeout):
        return f"handshake timed out: {e}"
    return f"TLS failure: {e}"


# ---------------------------------------------------------------- connections


class _Conn:
    """A socket and the sans-I/O TLS object over it (all I/O is this module's)."""

    def __init__(
        self, sock: socket.socket, obj: tls.TLSObject, incoming: ssl.MemoryBIO, outgoing: ssl.MemoryBIO
    ) -> None:
        self.sock, self.obj, self.incoming, self.outgoing = sock, obj, incoming, outgoing

    def send_pending(self) -> None:
        """Sends what the engine has queued (blocking; a peer already gone is ignored)."""
        data = self.outgoing.read()
        if data:
            try:
                self.sock.sendall(data)
            except OSError:
                pass

    def close(self) -> None:
        """close_notify, then the socket."""
        try:
            self.obj.unwrap()
            self.sock.settimeout(1.0)
            self.send_pending()
        except (TLSError, OSError):
            pass
        self.sock.close()


def _handshake(
    ctx: Context, sock: socket.socket, name: Optional[str], session: Optional[tls.Session], limit: float
) -> _Conn:
    """Runs the handshake within ``limit`` seconds; raises ``TLSError`` (after sending the
    alert) on failure."""
    deadline = time.monotonic() + limit
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    if ctx.server_side:
        obj = ctx.wrap_bio(incoming, outgoing)
    else:
        obj = ctx.wrap_bio(incoming, outgoing, server_hostname=name, session=session)
    conn = _Conn(sock, obj, incoming, outgoing)
    while True:
        try:
            obj.do_handshake()
            done = True
        except ssl.SSLWantReadError:
            done = False
        except TLSError:
            sock.settimeout(1.0)
            conn.send_pending()  # the alert
            raise
        try:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            sock.settimeout(left)
            data = outgoing.read()
            if data:
                sock.sendall(data)
            if done:
                sock.settimeout(None)
                return conn
            chunk = sock.recv(CHUNK)
        except TimeoutError:
            raise HandshakeTimeout(f"no complete handshake within {limit:g} s (--timeout)") from None
        except ConnectionError as e:
            raise TLSError(f"the connection failed during the handshake: {e.strerror or e}") from e
        if chunk:
            incoming.write(chunk)
        else:
            incoming.write_eof()


def _connect(host: str, port: int, limit: float) -> socket.socket:
    where = _hostport(host, port)
    try:
        return socket.create_connection((host, port), timeout=limit)
    except socket.gaierror as e:
        raise UsageError(f"cannot resolve {host}: {e.strerror or e}") from e
    except TimeoutError:
        raise UsageError(f"cannot connect to {where}: no answer within {limit:g} s (--timeout)") from None
    except OSError as e:
        raise UsageError(f"cannot connect to {where}: {e.strerror or e}") from e


def _read_stdin(fd: int, chunks: queue.Queue[bytes], wake: socket.socket) -> None:
    """Standard input to ``chunks`` (b"" at its end), waking the pump for each."""
    while True:
        try:
            data = os.read(fd, CHUNK)
        except OSError:
            data = b""
        chunks.put(data)
        try:
            wake.send(b"\0")
        except OSError:
            return
        if not data:
            return


class _OutputClosed(Exception):
    """Standard output's reader went away."""


class _Pump:
    """Copies standard input (when given) to the connection and the connection to
    ``out`` until the peer closes. At the end of the input close_notify is sent and the
    peer's data is still read; with ``linger`` (TLCP, which has no half-close: a peer
    answers close_notify at once and drops what it had not sent yet) close_notify waits
    until the connection has been quiet that long. One thread does all the TLS work (a
    second one only reads standard input), so records go out in order and reading
    never waits on writing."""

    def __init__(self, conn: _Conn, stdin_fd: Optional[int], out: BinaryIO, linger: Optional[float]) -> None:
        self.conn, self.out, self.stdin_fd, self.linger = conn, out, stdin_fd, linger
        self.pending = bytearray()
        self.sent_close = False
        self.close_due: Optional[float] = None  # when close_notify goes out (lingering)
        self.finished = False  # the peer closed (close_notify or, after ours, the socket)
        self.input_done = False  # standard input ended
        self.peer_done = False  # TLS 1.3: the peer's close_notify came while we still send

    def _end_of_input(self) -> None:
        self.input_done = True
        if self.peer_done:  # the peer has closed its side: close ours, and we are done
            self._close_notify()
            self.finished = True
        elif self.linger is None:
            self._close_notify()
        else:
            self.close_due = time.monotonic() + self.linger

    def _close_notify(self) -> None:
        self.close_due = None
        if not self.sent_close:
            self.conn.obj.unwrap()
            self.sent_close = True
            self.pending += self.conn.outgoing.read()

    def _activity(self) -> None:
        if self.close_due is not None and self.linger is not None:
            self.close_due = time.monotonic() + self.linger

    def _drain(self) -> None:
        """Hands the engine's plaintext to ``out``; raises TLSError on a failure."""
        obj = self.conn.obj
        while True:
            try:
                data = obj.read(CHUNK)
            except ssl.SSLWantReadError:
                return
            except TLSEOFError:
                if self.sent_close:  # a peer may close without answering our close_notify
                    self.finished = True
                    return
                raise TLSEOFError(
                    "the peer closed the connection without close_notify: the data may be truncated"
                ) from None
            if not data:
                if self.linger is None and not self.input_done and not self.sent_close:
                    # TLS 1.3 closes each direction on its own: send the rest of our
                    # input, then our close_notify.
                    self.peer_done = True
                    return
                self._close_notify()  # the answer to the peer's (the engine may have queued it)
                self.finished = True
                return
            try:
                self.out.write(data)
                self.out.flush()
            except BrokenPipeError as e:  # standard output, not the connection, was closed
                raise _OutputClosed from e

    def run(self) -> None:
        conn, sock = self.conn, self.conn.sock
        sock.setblocking(False)
        chunks: queue.Queue[bytes] = queue.Queue(maxsize=4)
        wake_r, wake_w = socket.socketpair()
        wake_r.setblocking(False)
        sel = selectors.DefaultSelector()
        try:
            stdin_open = self.stdin_fd is not None
            if self.stdin_fd is not None:
                threading.Thread(
                    target=_read_stdin, args=(self.stdin_fd, chunks, wake_w), daemon=True
                ).start()
                sel.register(wake_r, selectors.EVENT_READ)
            else:
                self._end_of_input()
            watching_stdin = stdin_open
            sel.register(sock, selectors.EVENT_READ)
            try:
                self._drain()  # data that came with the handshake's last flight
            except TLSError:
                self._flush_quietly()
                raise
            while True:
                self.pending += conn.outgoing.read()
                if self.finished and not self.pending:
                    return
                wait: Optional[float] = None
                if self.close_due is not None and not self.pending:
                    wait = self.close_due - time.monotonic()
                    if wait <= 0:
                        self._close_notify()
                        continue
                events = (0 if self.finished or self.peer_done else selectors.EVENT_READ) | (
                    selectors.EVENT_WRITE if self.pending else 0
                )
                sel.modify(sock, events)
                want_stdin = stdin_open and not self.finished and len(self.pending) < BACKLOG
                if want_stdin != watching_stdin:
                    if want_stdin:
                        sel.register(wake_r, selectors.EVENT_READ)
                    else:
                        sel.unregister(wake_r)
                    watching_stdin = want_stdin
                for key, mask in sel.select(wait):
                    if key.fileobj is sock:
                        self._network(mask)
                    elif not self.finished:
                        stdin_open = self._stdin(wake_r, chunks)
        finally:
            sel.close()
            wake_r.close()
            wake_w.close()

    def _flush_quietly(self) -> None:
        self.pending += self.conn.outgoing.read()
        try:
            self.conn.sock.send(self.pending)
        except OSError:
            pass

    def _network(self, mask: int) -> None:
        sock = self.conn.sock
        if mask & selectors.EVENT_WRITE and self.pending:
            try:
                n = sock.send(self.pending)
            except BlockingIOError:
                n = 0
            except OSError:
                if not self.finished:
                    raise
                n = len(self.pending)  # the peer is gone after closing: nothing to deliver
            del self.pending[:n]
            self._activity()
        if mask & selectors.EVENT_READ and not self.finished:
            try:
                chunk = sock.recv(CHUNK)
            except BlockingIOError:
                return
            if chunk:
                self.conn.incoming.write(chunk)
                self._activity()
            else:
                self.conn.incoming.write_eof()
            try:
                self._drain()
            except TLSError:
                self._flush_quietly()  # the alert
                raise

    def _stdin(self, wake: socket.socket, chunks: queue.Queue[bytes]) -> bool:
        """Moves standard input into the engine; returns whether it is still open."""
        try:
            wake.recv(CHUNK)
        except BlockingIOError:
            pass
        while len(self.pending) < BACKLOG:
            try:
                data = chunks.get_nowait()
            except queue.Empty:
                return True
            if not data:
                self._end_of_input()
                return False
            self.conn.obj.write(data)
            self.pending += self.conn.outgoing.read()
        return True


def _stdin_fd() -> Optional[int]:
    try:
        return sys.stdin.fileno() if sys.stdin is not None else None
    except (OSError, ValueError):
        return None


def _pipe(conn: _Conn, prog: str, protocol: str, name: Optional[str]) -> int:
    """Joins the connection to standard input and output; the exit status."""
    try:
        _Pump(conn, _stdin_fd(), sys.stdout.buffer, LINGER if protocol == "tlcp" else None).run()
    except TLSError as e:
        _log(f"guomi {prog}: {_failure(e, protocol, name, 'connection')}")
        return 1
    except _OutputClosed:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe") from None  # the command line's one line
    except ConnectionError as e:
        _log(f"guomi {prog}: the connection was lost: {e.strerror or e}")
        return 2
    finally:
        conn.sock.close()
    return 0


# ---------------------------------------------------------------- the client


def _wait_for_tickets(conn: _Conn, first_wait: float) -> None:
    """Reads what a TLS 1.3 server sends after the handshake (its session tickets) until
    ``first_wait`` passes with nothing, or a short silence follows what came."""
    sock, wait = conn.sock, first_wait
    while True:
        sock.settimeout(wait)
        try:
            chunk = sock.recv(CHUNK)
        except TimeoutError:
            return
        if not chunk:
            return
        conn.incoming.write(chunk)
        try:
            while conn.obj.read(CHUNK):
                pass  # application data before the reconnection is not shown
            return  # close_notify
        except ssl.SSLWantReadError:
            pass
        wait = TICKET_QUIET


def _client(args: argparse.Namespace) -> int:
    host, port = args.address
    if args.servername is not None and not args.servername:
        raise UsageError("--servername must not be empty")
    name = args.servername if args.servername is not None else host
    ctx = _client_context(args)
    tlcp = args.protocol == "tlcp"

    def handshake(session: Optional[tls.Session]) -> tuple[_Conn, float]:
        started = time.monotonic()
        sock = _connect(host, port, args.timeout)
        try:
            left = args.timeout - (time.monotonic() - started)
            conn = _handshake(ctx, sock, name, session, max(left, 0.001))
        except BaseException:
            sock.close()
            raise
        return conn, time.monotonic() - started

    try:
        conn, took = handshake(None)
    except TLSError as e:
        _log(f"guomi tls client: {_failure(e, args.protocol, name)}")
        return 1
    obj = conn.obj
    peer = conn.sock.getpeername()
    cipher = obj.cipher()
    lines = [
        f"Connected to {_hostport(host, port)} ({_hostport(peer[0], peer[1])})",
        f"Protocol: {obj.version()}",
        f"Cipher suite: {cipher[0] if cipher else '?'}",
        f"Resumed: {'yes' if obj.session_reused else 'no'}",
    ]
    certs = obj.getpeercerts()
    if args.brief:
        if certs:
            lines.append(f"Peer certificate: {certs[0].subject}")
    else:
        lines += _chain_lines(certs, tlcp)
    lines.append(_verification(args, name))
    if args.reconnect:
        session = obj.session
        try:
            if not tlcp:
                _wait_for_tickets(conn, min(args.timeout, max(0.5, 4 * took)))
            conn.close()
            conn, _ = handshake(session)
        except TLSError as e:
            _log("\n".join(lines))
            _log(f"guomi tls client: reconnecting: {_failure(e, args.protocol, name)}")
            return 1
        lines.append(f"Reconnected: session resumed: {'yes' if conn.obj.session_reused else 'no'}")
    lines.append("---")
    _log("\n".join(lines))
    return _pipe(conn, "tls client", args.protocol, name)


# ---------------------------------------------------------------- the server


def _peer_report(s: Union[tls.TLSSocket, tls.TLSObject]) -> str:
    cipher = s.cipher()
    certs = s.getpeercerts()
    who = f"client certificate {certs[0].subject!r}" if certs else "no client certificate"
    return f"{s.version()} {cipher[0] if cipher else '?'}, {who}"


class _Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.failed = 0

    def fail(self) -> None:
        with self.lock:
            self.failed += 1


def _echo_one(ctx: Context, raw: socket.socket, peer: str, limit: float, tally: _Tally) -> None:
    try:
        raw.settimeout(limit)  # bounds the handshake (TLSSocket takes it as its limit)
        s = ctx.wrap_socket(raw)
    except TLSError as e:
        _log(f"{peer}: {_failure(e, _protocol(ctx), None)}")
        tally.fail()
        raw.close()
        return
    except OSError as e:
        _log(f"{peer}: the connection failed during the handshake: {e.strerror or e}")
        tally.fail()
        raw.close()
        return
    total = 0
    try:
        s.settimeout(None)
        _log(f"{peer}: {_peer_report(s)}")
        while True:
            data = s.recv(CHUNK)
            if not data:
                break
            s.sendall(data)
            total += len(data)
        _log(f"{peer}: closed ({total} bytes echoed)")
    except TLSConnectionClosed:  # TLCP: close_notify came with data not yet echoed
        _log(f"{peer}: closed by the client before everything was echoed ({total} bytes echoed)")
    except TLSError as e:
        _log(f"{peer}: {_failure(e, _protocol(ctx), None, 'connection')} ({total} bytes echoed)")
        tally.fail()
    except OSError as e:
        _log(f"{peer}: the connection was lost after {total} bytes echoed: {e.strerror or e}")
        tally.fail()
    finally:
        s.close()


def _accept(listener: socket.socket) -> tuple[socket.socket, str]:
    while True:
        try:
            raw, addr = listener.accept()
        except (ConnectionAbortedError, InterruptedError):
            continue
        except OSError as e:  # out of file descriptors, say: report and go on
            _log(f"accept failed: {e.strerror or e}")
            time.sleep(0.1)
            continue
        return raw, _hostport(addr[0], addr[1])


def _serve_echo(ctx: Context, listener: socket.socket, args: argparse.Namespace) -> int:
    tally = _Tally()
    threads: list[threading.Thread] = []
    accepted = 0
    while args.max_connections is None or accepted < args.max_connections:
        raw, peer = _accept(listener)
        accepted += 1
        _log(f"{peer}: connected")
        t = threading.Thread(target=_echo_one, args=(ctx, raw, peer, args.timeout, tally), daemon=True)
        t.start()
        threads = [x for x in threads if x.is_alive()] + [t]
    listener.close()
    for t in threads:
        t.join()
    return 1 if tally.failed else 0


def _serve_one(ctx: Context, listener: socket.socket, args: argparse.Namespace) -> int:
    while True:
        raw, peer = _accept(listener)
        _log(f"{peer}: connected")
        try:
            conn = _handshake(ctx, raw, None, None, args.timeout)
        except TLSError as e:
            _log(f"{peer}: {_failure(e, args.protocol, None)}")
            raw.close()
            continue
        except OSError as e:
            _log(f"{peer}: the connection failed during the handshake: {e.strerror or e}")
            raw.close()
            continue
        listener.close()  # one connection: later clients are refused
        _log(f"{peer}: {_peer_report(conn.obj)}")
        status = _pipe(conn, "tls server", args.protocol, None)
        _log(f"{peer}: closed")
        return status


def _server(args: argparse.Namespace) -> int:
    if args.max_connections is not None and not args.echo:
        raise UsageError("--max-connections is for --echo (without it, one connection is served)")
    ctx = _server_context(args)
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    try:
        listener = socket.create_server((args.host, args.port), family=family)
    except socket.gaierror as e:
        raise UsageError(f"cannot resolve {args.host}: {e.strerror or e}") from e
    except OSError as e:
        raise UsageError(f"cannot listen on {_hostport(args.host, args.port)}: {e.strerror or e}") from e
    with listener:
        host, port = listener.getsockname()[:2]
        _log(f"listening on {_hostport(host, port)}")
        if args.echo:
            return _serve_echo(ctx, listener, args)
        return _serve_one(ctx, listener, args)


# ---------------------------------------------------------------- the parser


def _common(a: argparse.ArgumentParser, *, server: bool) -> None:
    a.add_argument(
        "--protocol",
        choices=["tlcp", "tls13"],
        default="tlcp",
        help="TLCP 1.1 (GB/T 38636, double certificates) or TLS 1.3 with the SM suites (default tlcp)",
    )
    a.add_argument(
        "--cert",
        required=server,
        metavar="FILE",
        help="the signing certificate, then its chain (PEM)"
        + ("" if server else "; sent when the server asks for a client certificate"),
    )
    a.add_argument("--key", required=server, metavar="FILE", help="the private key of --cert (PEM or DER)")
    a.add_argument(
        "--password-file",
        "--pass-file",
        dest="password_file",
        metavar="FILE",
        help="file whose first line is the keys' password (else a prompt on a terminal when a key is "
        "encrypted; never on the command line)",
    )
    a.add_argument(
        "--enc-cert",
        metavar="FILE",
        help="TLCP: the encryption certificate" + (" (required)" if server else ""),
    )
    a.add_argument("--enc-key", metavar="FILE", help="TLCP: the encryption certificate's private key")
    a.add_argument(
        "--ciphers",
        metavar="LIST",
        help="allowed suites in order, ':'-separated, e.g. ECC_SM4_GCM_SM3:ECDHE_SM4_GCM_SM3 or "
        "TLS_SM4_GCM_SM3",
    )
    a.add_argument(
        "--timeout",
        type=_timeout,
        default=30.0,
        metavar="SECONDS",
        help=("connect and handshake" if not server else "handshake")
        + f" time limit (default 30, at most {MAX_TIMEOUT:g})",
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "tls",
        help="TLCP / TLS 1.3 test client and server (like openssl s_client, s_server)",
        description=__doc__,
    )
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    a = actions.add_parser(
        "client",
        help="connect, show the handshake and certificates, then pipe stdin/stdout",
        description="Connect to HOST:PORT, print the protocol, suite, resumption, the server's certificates "
        "and the verification result to standard error, then copy standard input to the connection and "
        "the connection to standard output. Exit 1 when the handshake fails (the message names the "
        "alert or the certificate problem), 2 on a usage or connection error.",
    )
    a.add_argument("address", type=_address, metavar="HOST:PORT", help="the server ([ADDRESS]:PORT for IPv6)")
    _common(a, server=False)
    a.add_argument("--cafile", metavar="FILE", help="CA certificates to trust (PEM bundle or one DER)")
    a.add_argument("--capath", metavar="DIR", help="a directory of CA certificates (.pem, .crt, .cer)")
    a.add_argument(
        "--insecure", action="store_true", help="do not verify the server (encrypted, not authenticated)"
    )
    a.add_argument(
        "--servername",
        metavar="NAME",
        help="the name sent and checked against the subjectAltName (default HOST)",
    )
    a.add_argument("--no-check-hostname", action="store_true", help="verify the chain but not the name")
    a.add_argument("--brief", action="store_true", help="show only the peer's subject, not the whole chain")
    a.add_argument(
        "--reconnect",
        action="store_true",
        help="connect a second time resuming the session and say whether it was resumed",
    )
    a.set_defaults(func=guarded(_client))

    a = actions.add_parser(
        "server",
        help="accept connections: --echo, or one connection piped to stdin/stdout",
        description="Listen on HOST:PORT (the line 'listening on HOST:PORT' on standard error gives the real "
        "port for --port 0) and report each client's address, suite and certificate. --echo sends every "
        "byte back, one thread per connection; without it the first connection whose handshake succeeds "
        "is joined to standard input and output. A failed handshake is reported and the server goes on.",
    )
    a.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 or :: for all)"
    )
    a.add_argument("--port", type=_port, required=True, help="port to listen on (0..65535; 0: any free port)")
    _common(a, server=True)
    a.add_argument("--cafile", metavar="FILE", help="CA certificates that issue client certificates")
    a.add_argument(
        "--verify",
        choices=["none", "optional", "require"],
        default="none",
        help="ask for a client certificate: none (default), optional, require (needs --cafile)",
    )
    a.add_argument("--echo", action="store_true", help="echo every byte back, on any number of connections")
    a.add_argument(
        "--max-connections",
        type=_count,
        metavar="N",
        help="with --echo: stop after N connections (default: until Ctrl-C); exit 1 if one of them failed",
    )
    a.set_defaults(func=guarded(_server))
