"""A TLCP (NTLS) and TLS 1.3 echo peer on Tongsuo (BabaSSL 8.3.2), through ctypes.

tongsuopy 1.0.1's wheel (PyPI) links BabaSSL 8.3.2 statically into
``tongsuopy/backends/_tongsuo.abi3.so`` and exports its whole libssl (``NTLS_method``,
``SSL_CTX_use_sign_certificate_file``, ...), though tongsuopy's Python API has no TLS.
This script drives that libssl directly, with the same command line and JSON events as
peers/go_gmtls (see its main.go):

    python tongsuo_peer.py version
    python tongsuo_peer.py server -port N -sign-cert F -sign-key F -enc-cert F -enc-key F
        [-host H] [-ca F] [-client-auth none|verify] [-ciphers LIST] [-tls13] [-once] [-bulk] [-nodelay]
    python tongsuo_peer.py client -port N [-host H] [-ca F] [-cert F -key F]
        [-enc-cert F -enc-key F] [-ciphers LIST] [-tls13] [-message TEXT]
        [-count N [-duration S] [-resume] [-bulk B]]

``-ciphers`` is an OpenSSL cipher list (NTLS: ``ECC-SM2-SM4-CBC-SM3``,
``ECC-SM2-SM4-GCM-SM3``, ``ECDHE-SM2-SM4-CBC-SM3``, ``ECDHE-SM2-SM4-GCM-SM3``; with
``-tls13``: TLS 1.3 suites, ``TLS_SM4_GCM_SM3`` / ``TLS_SM4_CCM_SM3``). Keys are PEM (plain
PKCS#8).

For benches/tls.py (the loopback benchmark), as in the gmtls peer; without these options
nothing changes:

- ``client -count N``: after one untimed exchange, N sequential exchanges (a new
  connection each: handshake, the line, its echo, close), stopping early after
  ``-duration`` seconds; ``-resume`` offers the previous connection's session each time.
  One event ``{"event": "loop", "count", "seconds", "cpu_seconds", "resumed", "suite"}``
  (``cpu_seconds``: this process's CPU time in the loop).
- ``client -count N -bulk B``: one connection; N rounds of B bytes sent (16 KiB writes, the
  last byte a newline; the server answers its count) and B bytes fetched (``g<B>\\n``);
  events ``{"event": "bulk", "dir": "up"|"down", "bytes", "seconds"}``.
- ``server -bulk``: counts the bytes received up to a newline and answers ``<count>\\n``;
  answers a line ``g<B>`` with B bytes.
- ``server -nodelay``: TCP_NODELAY on accepted connections (the loops and bulk transfers
  set it on theirs; Go's net package sets it by default). Without it, flights written in
  several records wait for delayed ACKs (about 40 ms a handshake).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import socket
import sys
import time
from typing import Any


def emit(**fields: Any) -> None:
    sys.stdout.write(json.dumps(fields, sort_keys=True) + "\n")
    sys.stdout.flush()


def load() -> ctypes.CDLL:
    from pathlib import Path

    import tongsuopy.backends as b  # the wheel's extension module is the library

    so = next(Path(b.__file__).parent.glob("_tongsuo*.so"))
    lib = ctypes.CDLL(str(so))
    vp, cp, ci = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
    sig = {
        "NTLS_method": ([], vp),
        "TLS_method": ([], vp),
        "SSL_CTX_new": ([vp], vp),
        "SSL_CTX_enable_ntls": ([vp], None),
        "SSL_CTX_set_cipher_list": ([vp, cp], ci),
        "SSL_CTX_set_ciphersuites": ([vp, cp], ci),
        "SSL_CTX_use_sign_certificate_file": ([vp, cp, ci], ci),
        "SSL_CTX_use_sign_PrivateKey_file": ([vp, cp, ci], ci),
        "SSL_CTX_use_enc_certificate_file": ([vp, cp, ci], ci),
        "SSL_CTX_use_enc_PrivateKey_file": ([vp, cp, ci], ci),
        "SSL_CTX_use_certificate_chain_file": ([vp, cp], ci),
        "SSL_CTX_use_PrivateKey_file": ([vp, cp, ci], ci),
        "SSL_CTX_load_verify_locations": ([vp, cp, cp], ci),
        "SSL_CTX_set_verify": ([vp, ci, vp], None),
        "SSL_load_client_CA_file": ([cp], vp),
        "SSL_CTX_set_client_CA_list": ([vp, vp], None),
        "SSL_CTX_ctrl": ([vp, ci, ctypes.c_long, vp], ctypes.c_long),
        "SSL_CTX_set_session_id_context": ([vp, cp, ctypes.c_uint], ci),
        "SSL_new": ([vp], vp),
        "SSL_set_fd": ([vp, ci], ci),
        "SSL_accept": ([vp], ci),
        "SSL_connect": ([vp], ci),
        "SSL_read": ([vp, vp, ci], ci),
        "SSL_write": ([vp, cp, ci], ci),
        "SSL_shutdown": ([vp], ci),
        "SSL_free": ([vp], None),
        "SSL_get_error": ([vp, ci], ci),
        "SSL_get_version": ([vp], cp),
        "SSL_get_current_cipher": ([vp], vp),
        "SSL_CIPHER_get_name": ([vp], cp),
        "SSL_CIPHER_get_protocol_id": ([vp], ctypes.c_uint16),
        "SSL_get_peer_certificate": ([vp], vp),
        "SSL_get1_session": ([vp], vp),
        "SSL_set_session": ([vp, vp], ci),
        "SSL_SESSION_free": ([vp], None),
        "SSL_session_reused": ([vp], ci),
        "X509_free": ([vp], None),
        "ERR_get_error": ([], ctypes.c_ulong),
        "ERR_error_string_n": ([ctypes.c_ulong, cp, ctypes.c_size_t], None),
        "OpenSSL_version": ([ci], cp),
    }
    for name, (args, res) in sig.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = args, res
    return lib


LIB: Any = None
PEM = 1
SSL_CTRL_SET_GROUPS_LIST = 92
SSL_CTRL_SET_SIGALGS_LIST = 98


def errors() -> str:
    out = []
    buf = ctypes.create_string_buffer(256)
    while e := LIB.ERR_get_error():
        LIB.ERR_error_string_n(e, buf, 256)
        out.append(buf.value.decode())
    return "; ".join(out)


def check(ok: int, what: str) -> None:
    if ok != 1:
        raise RuntimeError(f"{what}: {errors()}")


def make_ctx(a: argparse.Namespace, server: bool) -> Any:
    if a.tls13:
        ctx = LIB.SSL_CTX_new(LIB.TLS_method())
        check(LIB.SSL_CTX_set_ciphersuites(ctx, (a.ciphers or "TLS_SM4_GCM_SM3").encode()), "ciphersuites")
        LIB.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_GROUPS_LIST, 0, ctypes.c_char_p(b"SM2"))
        LIB.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_SIGALGS_LIST, 0, ctypes.c_char_p(b"sm2sig_sm3"))
        LIB.SSL_CTX_ctrl(ctx, 124, 0x0304, None)  # SSL_CTRL_SET_MIN_PROTO_VERSION: TLS 1.3
        cert, key = (a.sign_cert, a.sign_key) if server else (a.cert, a.key)
        if cert:
            check(LIB.SSL_CTX_use_certificate_chain_file(ctx, cert.encode()), "certificate")
            check(LIB.SSL_CTX_use_PrivateKey_file(ctx, key.encode(), PEM), "key")
    else:
        ctx = LIB.SSL_CTX_new(LIB.NTLS_method())
        LIB.SSL_CTX_enable_ntls(ctx)
        check(LIB.SSL_CTX_set_cipher_list(ctx, (a.ciphers or "ECC-SM2-SM4-CBC-SM3").encode()), "ciphers")
        sign = (a.sign_cert, a.sign_key) if server else (a.cert, a.key)
        pairs = [("sign", *sign), ("enc", a.enc_cert, a.enc_key)]
        for kind, cert, key in pairs:
            if cert:
                use_cert = getattr(LIB, f"SSL_CTX_use_{kind}_certificate_file")
                use_key = getattr(LIB, f"SSL_CTX_use_{kind}_PrivateKey_file")
                check(use_cert(ctx, cert.encode(), PEM), f"{kind} certificate")
                check(use_key(ctx, key.encode(), PEM), f"{kind} key")
    if a.ca:
        check(LIB.SSL_CTX_load_verify_locations(ctx, a.ca.encode(), None), "CA file")
    # SSL_CTRL_MODE, SSL_MODE_NO_AUTO_CHAIN: without it the CA file's certificates are
    # appended to the Certificate message, and gmtls then picks the wrong certificates.
    LIB.SSL_CTX_ctrl(ctx, 33, 0x8, None)
    if server:
        # OpenSSL resumes no session under SSL_VERIFY_PEER without a session id context
        # ("session id context uninitialized"); the clients of guomi's tests resume.
        check(LIB.SSL_CTX_set_session_id_context(ctx, b"tongsuo-peer", 12), "session id context")
        if a.client_auth == "verify":
            LIB.SSL_CTX_set_verify(ctx, 1 | 2, None)  # SSL_VERIFY_PEER | FAIL_IF_NO_PEER_CERT
            # name the CAs in CertificateRequest: GmSSL's client sends no certificate
            # unless its issuer is listed there
            LIB.SSL_CTX_set_client_CA_list(ctx, LIB.SSL_load_client_CA_file(a.ca.encode()))
    elif a.ca:
        LIB.SSL_CTX_set_verify(ctx, 1, None)
    return ctx


def handshake_event(ssl: Any) -> None:
    c = LIB.SSL_get_current_cipher(ssl)
    peer = LIB.SSL_get_peer_certificate(ssl)
    if peer:
        LIB.X509_free(peer)
    emit(
        event="handshake",
        version=LIB.SSL_get_version(ssl).decode(),
        suite=f"0x{LIB.SSL_CIPHER_get_protocol_id(c):04x}",
        cipher=LIB.SSL_CIPHER_get_name(c).decode(),
        peer_cert=bool(peer),
    )


def read_line(ssl: Any) -> bytes:
    buf = ctypes.create_string_buffer(16384)
    data = b""
    while not data.endswith(b"\n"):
        n = LIB.SSL_read(ssl, buf, len(buf))
        if n <= 0:
            break
        data += buf.raw[:n]
    return data


def serve_http(ssl: Any) -> None:
    """A minimal HTTP/1.1 origin (``-http``): each request, with its Content-Length body,
    is answered 200 with ``tongsuo <METHOD> <path> <suite name> <body length>`` as a
    text/plain body; keep-alive until the client closes."""
    buf = ctypes.create_string_buffer(16384)
    data = b""
    c = LIB.SSL_get_current_cipher(ssl)
    suite = LIB.SSL_CIPHER_get_name(c).decode()
    while True:
        while b"\r\n\r\n" not in data:
            n = LIB.SSL_read(ssl, buf, len(buf))
            if n <= 0:
                return
            data += buf.raw[:n]
        head, data = data.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        method, path = lines[0].split(" ")[:2]
        length = 0
        for line in lines[1:]:
            k, _, v = line.partition(":")
            if k.strip().lower() == "content-length":
                length = int(v.strip())
        while len(data) < length:
            n = LIB.SSL_read(ssl, buf, len(buf))
            if n <= 0:
                return
            data += buf.raw[:n]
        data = data[length:]
        body = f"tongsuo {method} {path} {suite} {length}".encode()
        out = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s" % (
            len(body),
            body,
        )
        LIB.SSL_write(ssl, out, len(out))
        emit(event="http", method=method, path=path, body=length)


def server(a: argparse.Namespace) -> None:
    ctx = make_ctx(a, True)
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.host, a.port))
    ls.listen(4)
    emit(event="listening", port=ls.getsockname()[1])
    while True:
        conn, _ = ls.accept()
        if a.nodelay:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        ssl = LIB.SSL_new(ctx)
        LIB.SSL_set_fd(ssl, conn.fileno())
        if LIB.SSL_accept(ssl) != 1:
            emit(event="error", error="handshake: " + errors())
        elif a.bulk:
            serve_bulk(ssl)
            LIB.SSL_shutdown(ssl)
        elif a.http:
            serve_http(ssl)
            LIB.SSL_shutdown(ssl)
        else:
            handshake_event(ssl)
            while line := read_line(ssl):
                LIB.SSL_write(ssl, line, len(line))
                emit(event="echo", bytes=len(line))
            LIB.SSL_shutdown(ssl)
        LIB.SSL_free(ssl)
        conn.close()
        if a.once:
            return


#: The benchmark's record size: writes of 16 KiB fill one record each.
CHUNK = 16384


def send_bytes(ssl: Any, n: int) -> None:
    """n bytes ('x', the last a newline) in 16 KiB writes."""
    block = b"x" * CHUNK
    while n > 0:
        m = min(n, CHUNK)
        out = block[:m] if n > m else block[: m - 1] + b"\n"
        if LIB.SSL_write(ssl, out, m) != m:
            raise RuntimeError("SSL_write: " + errors())
        n -= m


def serve_bulk(ssl: Any) -> None:
    buf = ctypes.create_string_buffer(1 << 16)
    count, cmd = 0, b""
    while (n := LIB.SSL_read(ssl, buf, len(buf))) > 0:
        if count == 0 and (cmd or buf[0] == b"g"):
            cmd += buf.raw[:n]
            if cmd.endswith(b"\n"):
                send_bytes(ssl, int(cmd[1:]))
                cmd = b""
        else:
            count += n
            if buf[n - 1] == b"\n":
                reply = b"%d\n" % count
                LIB.SSL_write(ssl, reply, len(reply))
                count = 0


def read_until_newline(ssl: Any, buf: Any) -> tuple[int, bytes]:
    """Reads until a read ends with a newline: (bytes read, the last 32 bytes read)."""
    total, tail = 0, b""
    while True:
        n = LIB.SSL_read(ssl, buf, len(buf))
        if n <= 0:
            raise RuntimeError("SSL_read: " + errors())
        total += n
        tail = (tail + buf.raw[max(0, n - 32) : n])[-32:]
        if buf[n - 1] == b"\n":
            return total, tail


def exchange(ctx: Any, a: argparse.Namespace, msg: bytes, session: Any) -> tuple[Any, bool, str]:
    """One connection of the -count loop: handshake (offering ``session``), the line, its
    echo, close. Returns (the session to offer next, resumed?, the suite)."""
    with socket.create_connection((a.host, a.port)) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        ssl = LIB.SSL_new(ctx)
        try:
            LIB.SSL_set_fd(ssl, s.fileno())
            if session:
                LIB.SSL_set_session(ssl, session)
            if LIB.SSL_connect(ssl) != 1:
                raise RuntimeError("handshake: " + errors())
            LIB.SSL_write(ssl, msg, len(msg))
            if (got := read_line(ssl)) != msg:
                raise RuntimeError(f"echo {got!r}, sent {msg!r}")
            resumed = LIB.SSL_session_reused(ssl) == 1
            suite = f"0x{LIB.SSL_CIPHER_get_protocol_id(LIB.SSL_get_current_cipher(ssl)):04x}"
            new = LIB.SSL_get1_session(ssl) if a.resume else None
            LIB.SSL_shutdown(ssl)
        finally:
            LIB.SSL_free(ssl)
    if session and new:
        LIB.SSL_SESSION_free(session)
    return (new or session), resumed, suite


def loop(a: argparse.Namespace) -> None:
    ctx = make_ctx(a, False)
    msg = a.message.encode() + b"\n"
    session, _, suite = exchange(ctx, a, msg, None)  # untimed: warms up, gets a session
    n = resumed = 0
    cpu = time.process_time()
    start = time.perf_counter()
    while n < a.count and (a.duration <= 0 or time.perf_counter() - start < a.duration):
        session, reused, suite = exchange(ctx, a, msg, session)
        n += 1
        resumed += reused
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    emit(event="loop", count=n, seconds=seconds, cpu_seconds=cpu, resumed=resumed, suite=suite)


def bulk(a: argparse.Namespace) -> None:
    ctx = make_ctx(a, False)
    s = socket.create_connection((a.host, a.port))  # blocking: the caller has the timeout
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    ssl = LIB.SSL_new(ctx)
    LIB.SSL_set_fd(ssl, s.fileno())
    if LIB.SSL_connect(ssl) != 1:
        raise RuntimeError("handshake: " + errors())
    handshake_event(ssl)
    buf = ctypes.create_string_buffer(1 << 16)
    for _ in range(a.count):
        start = time.perf_counter()
        send_bytes(ssl, a.bulk)
        _, last = read_until_newline(ssl, buf)
        if int(last.rsplit(b"x", 1)[-1]) != a.bulk:
            raise RuntimeError(f"the server counted {last!r} bytes, sent {a.bulk}")
        emit(event="bulk", dir="up", bytes=a.bulk, seconds=time.perf_counter() - start)
        start = time.perf_counter()
        req = b"g%d\n" % a.bulk
        LIB.SSL_write(ssl, req, len(req))
        got, _ = read_until_newline(ssl, buf)
        if got != a.bulk:
            raise RuntimeError(f"received {got} bytes, asked for {a.bulk}")
        emit(event="bulk", dir="down", bytes=a.bulk, seconds=time.perf_counter() - start)
    LIB.SSL_shutdown(ssl)
    LIB.SSL_free(ssl)
    s.close()


def client(a: argparse.Namespace) -> None:
    if a.count > 0:
        (bulk if a.bulk else loop)(a)
        return
    ctx = make_ctx(a, False)
    s = socket.create_connection((a.host, a.port))
    ssl = LIB.SSL_new(ctx)
    LIB.SSL_set_fd(ssl, s.fileno())
    if LIB.SSL_connect(ssl) != 1:
        emit(event="error", error="handshake: " + errors())
        sys.exit(1)
    handshake_event(ssl)
    msg = a.message.encode() + b"\n"
    LIB.SSL_write(ssl, msg, len(msg))
    emit(event="reply", data=read_line(ssl).decode(errors="replace").rstrip("\n"))
    LIB.SSL_shutdown(ssl)
    LIB.SSL_free(ssl)
    s.close()


def main() -> None:
    global LIB
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["version", "server", "client"])
    for opt in ("host", "sign-cert", "sign-key", "enc-cert", "enc-key", "ca", "cert", "key", "ciphers"):
        p.add_argument("-" + opt, default="127.0.0.1" if opt == "host" else None)
    p.add_argument("-port", type=int, default=0)
    p.add_argument("-client-auth", default="none", choices=["none", "verify"])
    p.add_argument("-message", default="hello from tongsuo")
    p.add_argument("-tls13", action="store_true")
    p.add_argument("-once", action="store_true")
    # benches/tls.py: loops and bulk transfers (see the module's docstring)
    p.add_argument("-count", type=int, default=0)
    p.add_argument("-duration", type=float, default=0.0)
    p.add_argument("-resume", action="store_true")
    p.add_argument("-bulk", nargs="?", type=int, const=1, default=0)
    p.add_argument("-nodelay", action="store_true")
    p.add_argument("-http", action="store_true", help="server: answer HTTP/1.1 requests")
    a = p.parse_args()
    LIB = load()
    if a.mode == "version":
        import importlib.metadata
        import re
        from pathlib import Path

        import tongsuopy.backends as b

        so = next(Path(b.__file__).parent.glob("_tongsuo*.so")).read_bytes()
        m = re.search(rb"BabaSSL (\d+\.\d+\.\d+)", so)
        emit(
            library="BabaSSL/Tongsuo in tongsuopy " + importlib.metadata.version("tongsuopy"),
            version=m.group(1).decode() if m else "?",
            openssl=LIB.OpenSSL_version(0).decode(),
            runtime="Python " + sys.version.split()[0],
        )
    else:
        try:
            (server if a.mode == "server" else client)(a)
        except RuntimeError as e:
            emit(event="error", error=str(e))
            sys.exit(1)


if __name__ == "__main__":
    main()
