#!/usr/bin/env python3
"""Loopback TLS benchmark: guomi.tls against the peers' own stacks over 127.0.0.1.

    python benches/tls.py [--seconds 1.0] [--repeats 5] [--bulk-mib 32]
                          [--only ROW ...] [--json FILE] [--markdown FILE]

Rows (``--only`` takes a substring of a row's key, case-insensitive, and may repeat):

- ``tlcp-ecc-cbc-full``, ``tlcp-ecc-gcm-full``, ``tlcp-ecdhe-gcm-full`` (client
  certificates), ``tlcp-ecc-gcm-resumed`` (session ID), ``tls13-full``,
  ``tls13-resumed`` (ticket, PSK with a curveSM2 share): sequential handshakes per second.
  Each repeat runs one client (a thread of this process for guomi, one peer process
  otherwise) for ``--seconds`` against one server process: every exchange is a new TCP
  connection, the handshake, a 5-byte line and its echo, close. The client's first
  exchange is untimed (it also checks the suite and, for resumed rows, yields the
  session); process start-up is never timed, except for GmSSL's ``tlcp_client``, which
  cannot loop and is run once per handshake (labelled; its bare process start, ``gmssl
  version``, is measured alongside).
- ``bulk-tlcp-gcm``, ``bulk-tlcp-cbc``, ``bulk-tls13-gcm`` (and ``bulk-tcp``: the same
  with plain sockets, the I/O floor of guomi's rows): one connection, 16 KiB writes
  (one full record each); ``--bulk-mib`` MiB client to server (the server counts and
  answers the count) then the same server to client; MB/s (10^6 B/s) per direction. Each
  client run does two rounds and keeps the second.

Stacks: guomi (its server: ``python benches/tls.py _serve ...``, a separate process, one
connection at a time like the peers' servers), tjfoc gmsm v1.4.1 ``gmtls`` (Go), Tongsuo
(BabaSSL 8.3.2 through ctypes) and GmSSL 3.1.1's ``gmssl`` tool, as built by
``tests/interop/tls_peers.py`` (a peer that is not available is left out, with a note).
Within a row, every pairing's servers run at once and the pairings alternate in each
repeat; the table gives medians over the repeats and the range. Every process started is
stopped on exit; every wait has a timeout.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import dataclasses
import json
import os
import platform
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional, Union

ROOT = Path(__file__).resolve().parent.parent
INTEROP = ROOT / "tests" / "interop"
sys.path.insert(0, str(INTEROP))

import tls_peers as tp  # noqa: E402  (tests/interop, not a package on the path)

from guomi import tls  # noqa: E402

HOST = "127.0.0.1"
NAME = "localhost"  # the name in the guomi-made server certificate's subjectAltName
CHUNK = 16384
MESSAGE = "ping"
#: Seconds: a server to listen, a socket operation, a client run beyond its own duration.
START_TIMEOUT = 30.0
IO_TIMEOUT = 30.0
CLIENT_SLACK = 120.0

Context = Union[tls.TLCPContext, tls.TLS13Context]

#: guomi's suite name -> (code point, Tongsuo's name).
SUITES = {
    "ECC_SM4_CBC_SM3": (0xE013, "ECC-SM2-SM4-CBC-SM3"),
    "ECC_SM4_GCM_SM3": (0xE053, "ECC-SM2-SM4-GCM-SM3"),
    "ECDHE_SM4_GCM_SM3": (0xE051, "ECDHE-SM2-SM4-GCM-SM3"),
    "TLS_SM4_GCM_SM3": (0x00C6, "TLS_SM4_GCM_SM3"),
}

GUOMI, GMTLS, TONGSUO, GMSSL = "guomi", "gmtls", "Tongsuo", "GmSSL"


@dataclasses.dataclass(frozen=True)
class Row:
    key: str
    label: str
    protocol: str  # "tlcp" | "tls13"
    suite: str
    kind: str  # "full" | "resumed" | "bulk"
    pairs: tuple[tuple[str, str], ...]  # (client stack, server stack)
    client_auth: bool = False


_TONGSUO_PAIRS = ((GUOMI, GUOMI), (GUOMI, TONGSUO), (TONGSUO, GUOMI), (TONGSUO, TONGSUO))
ROWS = (
    Row(
        "tlcp-ecc-cbc-full",
        "TLCP ECC_SM4_CBC_SM3 full handshake",
        "tlcp",
        "ECC_SM4_CBC_SM3",
        "full",
        (
            (GUOMI, GUOMI),
            (GMTLS, GMTLS),
            (GUOMI, GMTLS),
            (GMTLS, GUOMI),
            (GMSSL, GMSSL),
            (GUOMI, GMSSL),
            (GMSSL, GUOMI),
            (TONGSUO, TONGSUO),
            (GUOMI, TONGSUO),
            (TONGSUO, GUOMI),
        ),
    ),
    Row(
        "tlcp-ecc-gcm-full",
        "TLCP ECC_SM4_GCM_SM3 full handshake",
        "tlcp",
        "ECC_SM4_GCM_SM3",
        "full",
        _TONGSUO_PAIRS,
    ),  # fmt: skip
    Row(
        "tlcp-ecdhe-gcm-full",
        "TLCP ECDHE_SM4_GCM_SM3 full handshake (client certificates)",
        "tlcp",
        "ECDHE_SM4_GCM_SM3",
        "full",
        _TONGSUO_PAIRS,
        client_auth=True,
    ),  # fmt: skip
    Row(
        "tlcp-ecc-gcm-resumed",
        "TLCP ECC_SM4_GCM_SM3 resumed (session ID)",
        "tlcp",
        "ECC_SM4_GCM_SM3",
        "resumed",
        _TONGSUO_PAIRS,
    ),  # fmt: skip
    Row(
        "tls13-full",
        "TLS 1.3 TLS_SM4_GCM_SM3 full handshake",
        "tls13",
        "TLS_SM4_GCM_SM3",
        "full",
        _TONGSUO_PAIRS,
    ),  # fmt: skip
    Row(
        "tls13-resumed",
        "TLS 1.3 TLS_SM4_GCM_SM3 resumed (ticket, PSK-DHE)",
        "tls13",
        "TLS_SM4_GCM_SM3",
        "resumed",
        _TONGSUO_PAIRS,
    ),  # fmt: skip
    Row("bulk-tlcp-gcm", "TLCP ECC_SM4_GCM_SM3 bulk", "tlcp", "ECC_SM4_GCM_SM3", "bulk", _TONGSUO_PAIRS),
    Row(
        "bulk-tlcp-cbc",
        "TLCP ECC_SM4_CBC_SM3 bulk",
        "tlcp",
        "ECC_SM4_CBC_SM3",
        "bulk",
        ((GUOMI, GUOMI), (GMTLS, GMTLS), (GUOMI, GMTLS), (GMTLS, GUOMI), *_TONGSUO_PAIRS[1:]),
    ),
    Row("bulk-tls13-gcm", "TLS 1.3 TLS_SM4_GCM_SM3 bulk", "tls13", "TLS_SM4_GCM_SM3", "bulk", _TONGSUO_PAIRS),
    # The floor under guomi's rows: the same transfer and Python socket calls, no TLS.
    Row(
        "bulk-tcp",
        "plain TCP, no TLS (Python sockets, as guomi's rows)",
        "tcp",
        "-",
        "bulk",
        ((GUOMI, GUOMI),),
    ),
)


# ------------------------------------------------------------------------ processes

_PROCS: list[subprocess.Popen[bytes]] = []


def _stop(p: subprocess.Popen[bytes]) -> None:
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)


@atexit.register
def _stop_all() -> None:
    for p in _PROCS:
        _stop(p)


def _raise_fd_limit() -> None:
    """GmSSL's tlcp_server never closes a connection's socket: let it keep thousands."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


@dataclasses.dataclass
class Server:
    stack: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path


@contextlib.contextmanager
def _server(stack: str, argv: list[str], log: Path, port: Optional[int] = None) -> Iterator[Server]:
    """Starts a server whose output goes to ``log`` (never a pipe nobody reads). With
    ``port`` (GmSSL) waits until it listens there; otherwise reads the port from its first
    JSON line ``{"event": "listening", "port": N}``."""
    with log.open("wb") as out:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             preexec_fn=_raise_fd_limit)  # fmt: skip
    _PROCS.append(p)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if p.poll() is not None:
                raise RuntimeError(f"{stack} server exited: {log.read_text(errors='replace')[-3000:]}")
            if port is not None:
                if tp._listening(port):
                    break
            else:
                first = log.read_bytes().split(b"\n", 1)
                if len(first) == 2:
                    event = json.loads(first[0])
                    if event.get("event") != "listening":
                        raise RuntimeError(f"{stack} server: {first[0]!r}")
                    port = int(event["port"])
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{stack} server did not start: {log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.02)
        yield Server(stack, port, p, log)
    finally:
        _stop(p)
        _PROCS.remove(p)


def _run_client(argv: list[str], timeout: float) -> list[dict[str, Any]]:
    """Runs a peer client to its end; its JSON events (an error event or exit status fails)."""
    try:
        out = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise RuntimeError(f"client timed out after {timeout:.0f} s: {argv}") from e
    events = [json.loads(x) for x in out.stdout.decode().splitlines() if x.startswith("{")]
    if out.returncode != 0 or any(e.get("event") == "error" for e in events):
        raise RuntimeError(f"client failed ({out.returncode}): {out.stdout[-2000:]!r} {out.stderr[-2000:]!r}")
    return events


# ------------------------------------------------------------------------ stacks


@dataclasses.dataclass
class Peers:
    certs: tp.CertSet
    gmtls: Optional[Path]
    tongsuo: Optional[list[str]]
    gmssl: Optional[Path]
    notes: list[str]

    def has(self, stack: str) -> bool:
        return stack == GUOMI or getattr(self, stack.lower()) is not None


def _server_argv(peers: Peers, stack: str, row: Row, port: int) -> list[str]:
    c = peers.certs
    bulk = row.kind == "bulk"
    if stack == GUOMI:
        argv = [sys.executable, str(Path(__file__).resolve()), "_serve", row.protocol, row.suite, str(c.dir)]
        return argv + (["--client-auth"] if row.client_auth else []) + (["--bulk"] if bulk else [])
    if stack == GMSSL:
        assert peers.gmssl is not None and row.suite == "ECC_SM4_CBC_SM3" and not bulk
        return [str(peers.gmssl), "tlcp_server", "-port", str(port), "-cert", str(c.double),
                "-key", str(c.sign_key), "-pass", tp.PASSWORD, "-ex_key", str(c.enc_key),
                "-ex_pass", tp.PASSWORD]  # fmt: skip
    prefix = [str(peers.gmtls)] if stack == GMTLS else list(peers.tongsuo or [])
    argv = [*prefix, "server", "-host", HOST, "-port", "0", "-sign-cert", str(c.sign_cert),
            "-sign-key", str(c.sign_key_p8), "-enc-cert", str(c.enc_cert), "-enc-key", str(c.enc_key_p8),
            "-ca", str(c.ca)]  # fmt: skip
    code, name = SUITES[row.suite]
    if stack == GMTLS:
        argv += ["-suites", f"{code:04x}"]
    else:
        argv += ["-ciphers", name] + (["-tls13"] if row.protocol == "tls13" else [])
        argv.append("-nodelay")  # as every other socket here but GmSSL's (Go sets it by default)
        if row.client_auth:
            argv += ["-client-auth", "verify"]
    return argv + (["-bulk"] if bulk else [])


def _peer_client_argv(peers: Peers, stack: str, row: Row, port: int) -> list[str]:
    c = peers.certs
    prefix = [str(peers.gmtls)] if stack == GMTLS else list(peers.tongsuo or [])
    argv = [*prefix, "client", "-host", HOST, "-port", str(port), "-ca", str(c.ca), "-message", MESSAGE]
    code, name = SUITES[row.suite]
    if stack == GMTLS:
        return argv + ["-suites", f"{code:04x}"]
    argv += ["-ciphers", name] + (["-tls13"] if row.protocol == "tls13" else [])
    if row.client_auth:  # as tests/interop: the server's encryption pair stands in as the client's
        argv += ["-cert", str(c.client_cert), "-key", str(c.client_key_p8)]
        argv += ["-enc-cert", str(c.enc_cert), "-enc-key", str(c.enc_key_p8)]
    return argv + (["-resume"] if row.kind == "resumed" else [])


def _guomi_client_context(certs: tp.CertSet, row: Row) -> Context:
    ctx: Context = tls.TLCPContext() if row.protocol == "tlcp" else tls.TLS13Context()
    ctx.load_verify_locations(cafile=str(certs.ca))
    ctx.set_ciphers(row.suite)
    if row.client_auth:
        assert isinstance(ctx, tls.TLCPContext)
        ctx.load_cert_chain(str(certs.client_cert), str(certs.client_key_p8),
                            enc_cert=str(certs.enc_cert), enc_key=str(certs.enc_key_p8))  # fmt: skip
    if row.protocol == "tls13" and row.kind != "resumed":
        ctx.session_cache_size = 0  # no tickets kept: every handshake is a full one
    return ctx


def _guomi_exchange(
    ctx: Context, port: int, session: Optional[tls.Session]
) -> tuple[Optional[str], Optional[tls.Session], bool]:
    """One connection: handshake, the line, its echo, close. Returns (suite, session,
    resumed?)."""
    raw = socket.create_connection((HOST, port), timeout=IO_TIMEOUT)
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        s = ctx.wrap_socket(raw, server_hostname=NAME, session=session)
    except BaseException:
        raw.close()
        raise
    with s:
        msg = MESSAGE.encode() + b"\n"
        s.sendall(msg)
        got = b""
        while not got.endswith(b"\n"):
            chunk = s.recv(64)
            if not chunk:
                break
            got += chunk
        if got != msg:
            raise RuntimeError(f"echo {got!r}, sent {msg!r}")
        cipher = s.cipher()
        return (cipher[0] if cipher else None), s.session, bool(s.session_reused)


def guomi_loop(certs: tp.CertSet, row: Row, port: int, seconds: float) -> tuple[int, float, float]:
    """Sequential exchanges for ``seconds`` after one untimed one; (count, elapsed, CPU
    seconds of this process in the loop)."""
    ctx = _guomi_client_context(certs, row)
    suite, session, _ = _guomi_exchange(ctx, port, None)
    if suite != row.suite:
        raise RuntimeError(f"negotiated {suite}, wanted {row.suite}")
    if not (row.protocol == "tlcp" and row.kind == "resumed"):
        session = None  # TLS 1.3 resumes from the context's tickets
    want_reused = row.kind == "resumed"
    n = 0
    cpu = time.process_time()
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, reused = _guomi_exchange(ctx, port, session)
        if reused != want_reused:
            raise RuntimeError(f"session_reused {reused} in a {row.kind} row")
        n += 1
    return n, time.perf_counter() - start, time.process_time() - cpu


def peer_loop(peers: Peers, stack: str, row: Row, port: int, seconds: float) -> tuple[int, float, float]:
    argv = _peer_client_argv(peers, stack, row, port) + ["-count", "100000000", "-duration", str(seconds)]
    events = _run_client(argv, seconds + CLIENT_SLACK)
    loop = next(e for e in events if e.get("event") == "loop")
    if int(loop["suite"], 16) != SUITES[row.suite][0]:
        raise RuntimeError(f"{stack} negotiated {loop['suite']}, wanted {row.suite}")
    if "resumed" in loop and loop["resumed"] != (loop["count"] if row.kind == "resumed" else 0):
        raise RuntimeError(f"{stack}: {loop['resumed']} of {loop['count']} resumed in a {row.kind} row")
    return int(loop["count"]), float(loop["seconds"]), float(loop["cpu_seconds"])


def gmssl_loop(peers: Peers, port: Optional[int], seconds: float) -> tuple[int, float, float]:
    """``gmssl tlcp_client`` once per handshake (it cannot loop): the process start is in
    the time and in the CPU time (its children's, from the kernel). With ``port`` None,
    ``gmssl version`` alone (the start-up cost)."""
    assert peers.gmssl is not None
    if port is None:
        argv = [str(peers.gmssl), "version"]
    else:
        argv = [
            str(peers.gmssl),
            "tlcp_client",
            "-host",
            HOST,
            "-port",
            str(port),
            "-cacert",
            str(peers.certs.ca),
        ]
    n = 0
    cpu = _children_cpu()
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        out = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=IO_TIMEOUT)
        if out.returncode != 0 or (port is not None and b"stablished" not in out.stderr):
            raise RuntimeError(f"gmssl tlcp_client failed: {out.stdout[-1000:]!r} {out.stderr[-1000:]!r}")
        n += 1
    return n, time.perf_counter() - start, _children_cpu() - cpu


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def proc_cpu(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux /proc; 0.0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def guomi_bulk(certs: tp.CertSet, row: Row, port: int, size: int, rounds: int) -> list[tuple[str, float]]:
    ctx = None if row.protocol == "tcp" else _guomi_client_context(certs, row)
    raw = socket.create_connection((HOST, port), timeout=IO_TIMEOUT)
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    out: list[tuple[str, float]] = []
    s: Any = raw if ctx is None else ctx.wrap_socket(raw, server_hostname=NAME)
    with s:
        cipher = None if ctx is None else s.cipher()
        if ctx is not None and (not cipher or cipher[0] != row.suite):
            raise RuntimeError(f"negotiated {cipher}, wanted {row.suite}")
        block = memoryview(b"x" * CHUNK)
        last = memoryview(b"x" * (CHUNK - 1) + b"\n")
        buf = bytearray(1 << 16)
        for _ in range(rounds):
            start = time.perf_counter()
            left = size
            while left > 0:
                m = min(left, CHUNK)
                s.sendall(block[:m] if left > m else last[CHUNK - m :])
                left -= m
            got, tail = _read_until_newline(s, buf)
            if int(tail.rsplit(b"x", 1)[-1]) != size:
                raise RuntimeError(f"the server counted {tail!r} bytes, sent {size}")
            out.append(("up", time.perf_counter() - start))
            start = time.perf_counter()
            s.sendall(b"g%d\n" % size)
            got, _ = _read_until_newline(s, buf)
            if got != size:
                raise RuntimeError(f"received {got} bytes, asked for {size}")
            out.append(("down", time.perf_counter() - start))
    return out


def _read_until_newline(s: Union[tls.TLSSocket, socket.socket], buf: bytearray) -> tuple[int, bytes]:
    """Reads until a read ends with a newline: (bytes read, the last 32 bytes read)."""
    total, tail = 0, b""
    while True:
        n = s.recv_into(buf)
        if n == 0:
            raise RuntimeError("connection closed mid-transfer")
        total += n
        tail = (tail + bytes(buf[max(0, n - 32) : n]))[-32:]
        if buf[n - 1] == 0x0A:
            return total, tail


def peer_bulk(
    peers: Peers, stack: str, row: Row, port: int, size: int, rounds: int
) -> list[tuple[str, float]]:
    argv = _peer_client_argv(peers, stack, row, port) + ["-count", str(rounds), "-bulk", str(size)]
    events = _run_client(argv, CLIENT_SLACK + size / 1e6)
    hs = next(e for e in events if e.get("event") == "handshake")
    if int(hs["suite"], 16) != SUITES[row.suite][0]:
        raise RuntimeError(f"{stack} negotiated {hs['suite']}, wanted {row.suite}")
    return [(e["dir"], float(e["seconds"])) for e in events if e.get("event") == "bulk"]


# ------------------------------------------------------------------------ the guomi server


def serve(argv: list[str]) -> None:
    """``_serve PROTOCOL SUITE CERTDIR [--client-auth] [--bulk]``: guomi's server, one
    connection at a time (echo, or the bulk protocol of the peers' ``-bulk``)."""
    p = argparse.ArgumentParser(prog="tls.py _serve")
    p.add_argument("protocol", choices=["tlcp", "tls13", "tcp"])
    p.add_argument("suite")
    p.add_argument("certs", type=Path)
    p.add_argument("--client-auth", action="store_true")
    p.add_argument("--bulk", action="store_true")
    a = p.parse_args(argv)
    c = tp.CertSet("guomi", a.certs)
    ctx: Optional[Context] = None
    if a.protocol == "tlcp":
        ctx = tls.TLCPContext(server_side=True)
        ctx.load_cert_chain(
            str(c.sign_cert), str(c.sign_key_p8), enc_cert=str(c.enc_cert), enc_key=str(c.enc_key_p8)
        )
        if a.client_auth:
            ctx.load_verify_locations(cafile=str(c.ca))
            ctx.verify_mode = tls.CERT_REQUIRED
    elif a.protocol == "tls13":
        ctx = tls.TLS13Context(server_side=True)
        ctx.load_cert_chain(str(c.sign_cert), str(c.sign_key_p8))
    if ctx is not None:
        ctx.set_ciphers(a.suite)
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((HOST, 0))
    ls.listen(16)
    print(json.dumps({"event": "listening", "port": ls.getsockname()[1]}), flush=True)
    buf = bytearray(1 << 16)
    while True:
        raw, _ = ls.accept()
        raw.settimeout(IO_TIMEOUT)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            s: Any = raw if ctx is None else ctx.wrap_socket(raw, server_side=True)
            with s:
                if a.bulk:
                    _serve_bulk(s, buf)
                else:
                    while n := s.recv_into(buf):
                        s.sendall(memoryview(buf)[:n])
        except OSError as e:  # TLSError is one; a client's failure must not stop the server
            print(json.dumps({"event": "error", "error": repr(e)}), flush=True)
        finally:
            raw.close()


def _serve_bulk(s: Union[tls.TLSSocket, socket.socket], buf: bytearray) -> None:
    count, cmd = 0, b""
    block = memoryview(b"x" * CHUNK)
    last = memoryview(b"x" * (CHUNK - 1) + b"\n")
    while n := s.recv_into(buf):
        if count == 0 and (cmd or buf[0] == ord("g")):
            cmd += bytes(buf[:n])
            if cmd.endswith(b"\n"):
                left = int(cmd[1:])
                cmd = b""
                while left > 0:
                    m = min(left, CHUNK)
                    s.sendall(block[:m] if left > m else last[CHUNK - m :])
                    left -= m
        else:
            count += n
            if buf[n - 1] == 0x0A:
                s.sendall(b"%d\n" % count)
                count = 0


# ------------------------------------------------------------------------ running


def cpu() -> dict[str, str]:
    info: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            k, _, v = (x.strip() for x in line.partition(":"))
            if k in ("model name", "cpu family", "model", "stepping", "cpu MHz") and k not in info:
                info[k] = v
    info["cpus"] = str(os.cpu_count())
    return info


def load_peers(tmp: Path) -> Peers:
    notes: list[str] = []
    got: dict[str, Any] = {}
    for name, build in (("gmtls", tp.build_gmtls), ("tongsuo", tp.build_tongsuo), ("gmssl", tp.build_gmssl)):
        try:
            got[name] = build()
        except Exception as e:  # a missing peer leaves its columns out, with a note
            got[name] = None
            notes.append(f"{name} unavailable: {e}")
    certs = tp.make_guomi_certs(tmp / "certs")
    return Peers(certs, got["gmtls"], got["tongsuo"], got["gmssl"], notes)


def run_row(peers: Peers, row: Row, args: argparse.Namespace, tmp: Path) -> list[dict[str, Any]]:
    pairs = [pr for pr in row.pairs if peers.has(pr[0]) and peers.has(pr[1])]
    servers: dict[str, Server] = {}
    samples: dict[tuple[str, str], list[Any]] = {pr: [] for pr in pairs}
    size = args.bulk_mib << 20
    with contextlib.ExitStack() as stack:
        for name in dict.fromkeys(s for _, s in pairs):
            port = tp.free_port() if name == GMSSL else 0
            argv = _server_argv(peers, name, row, port)
            log = tmp / f"{row.key}-{name}.log"
            servers[name] = stack.enter_context(_server(name, argv, log, port if name == GMSSL else None))
        for rep in range(args.repeats):
            for client, server in pairs:
                port = servers[server].port
                if row.kind == "bulk":
                    if client == GUOMI:
                        r = guomi_bulk(peers.certs, row, port, size, 2)
                    else:
                        r = peer_bulk(peers, client, row, port, size, 2)
                    up = [t for d, t in r if d == "up"][-1]
                    down = [t for d, t in r if d == "down"][-1]
                    samples[(client, server)].append((size / up / 1e6, size / down / 1e6))
                    shown = f"up {size / up / 1e6:7.1f} MB/s  down {size / down / 1e6:7.1f} MB/s"
                else:
                    server_cpu = proc_cpu(servers[server].proc.pid)
                    if client == GUOMI:
                        n, t, cpu = guomi_loop(peers.certs, row, port, args.seconds)
                    elif client == GMSSL:
                        n, t, cpu = gmssl_loop(peers, port, args.seconds)
                    else:
                        n, t, cpu = peer_loop(peers, client, row, port, args.seconds)
                    # the server also served the client's untimed first exchange (not GmSSL's)
                    served = n if client == GMSSL else n + 1
                    server_cpu = (proc_cpu(servers[server].proc.pid) - server_cpu) / served
                    samples[(client, server)].append((n / t, cpu / n * 1000, server_cpu * 1000))
                    shown = (
                        f"{n / t:8.1f} /s ({n} in {t:.2f} s), CPU ms each: client {cpu / n * 1000:.2f}, "
                        f"server {server_cpu * 1000:.2f}"
                    )
                print(f"  [{rep + 1}/{args.repeats}] {client:>7} -> {server:<7} {shown}", file=sys.stderr)
    results = []
    for (client, server), xs in samples.items():
        res: dict[str, Any] = {"row": row.key, "label": row.label, "kind": row.kind, "client": client,
                               "server": server}  # fmt: skip
        if row.kind == "bulk":
            res["up_mb_s"] = [x[0] for x in xs]
            res["down_mb_s"] = [x[1] for x in xs]
        else:
            res["per_s"] = [x[0] for x in xs]
            res["client_cpu_ms"] = [x[1] for x in xs]
            res["server_cpu_ms"] = [x[2] for x in xs]
            res["client_process_start_timed"] = client == GMSSL
        results.append(res)
    return results


def markdown(results: list[dict[str, Any]], env: dict[str, Any]) -> str:
    out = [
        "| handshake | client → server | handshakes/s | ms each | CPU ms client | CPU ms server "
        "| range (/s) |",
        "|---|---|---|---|---|---|---|",
    ]
    last = ""
    for r in results:
        if r["kind"] == "bulk":
            continue
        med = statistics.median(r["per_s"])
        who = f"{r['client']} → {r['server']}"
        if r["client_process_start_timed"]:
            who += " (a process per handshake, start included)"
        label = r["label"] if r["label"] != last else ""
        last = r["label"]
        rng = f"{min(r['per_s']):,.0f}–{max(r['per_s']):,.0f}"
        cc, sc = statistics.median(r["client_cpu_ms"]), statistics.median(r["server_cpu_ms"])
        out.append(f"| {label} | {who} | {med:,.0f} | {1000 / med:.2f} | {cc:.2f} | {sc:.2f} | {rng} |")
    bulk = [r for r in results if r["kind"] == "bulk"]
    if bulk:
        out += [
            "",
            "| bulk, 16 KiB records | client → server | up MB/s (client seals) | down MB/s (server seals) |",
            "|---|---|---|---|",
        ]
        last = ""
        for r in bulk:
            label = r["label"] if r["label"] != last else ""
            last = r["label"]
            up, down = r["up_mb_s"], r["down_mb_s"]
            out.append(
                f"| {label} | {r['client']} → {r['server']} | {statistics.median(up):,.0f} "
                f"({min(up):,.0f}–{max(up):,.0f}) | {statistics.median(down):,.0f} "
                f"({min(down):,.0f}–{max(down):,.0f}) |"
            )
    c = env["cpu"]
    out += [
        "",
        f"CPU: {c.get('model name', '?')} (family {c.get('cpu family', '?')}, model {c.get('model', '?')}, "
        f"stepping {c.get('stepping', '?')}), {c.get('cpus')} CPUs; load average {env['load_before']} "
        f"before, {env['load_after']} after. {env['versions']}. Medians of {env['repeats']} repeats of "
        f"{env['seconds']} s (handshakes) or {env['bulk_mib']} MiB per direction (bulk; range in brackets), "
        "pairings alternated within each repeat.",
    ]
    if "gmssl_start_per_s" in env:
        out.append(
            f"GmSSL's client runs once per handshake: `gmssl version` alone runs "
            f"{env['gmssl_start_per_s']:,.0f} times/s ({1000 / env['gmssl_start_per_s']:.2f} ms a process)."
        )
    out += [f"Note: {n}" for n in env["notes"]]
    return "\n".join(out) + "\n"


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "_serve":
        serve(sys.argv[2:])
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=1.0, help="length of one handshake repeat (default 1.0)")
    p.add_argument("--repeats", type=int, default=5, help="repeats per pairing (default 5)")
    p.add_argument("--bulk-mib", type=int, default=32, help="MiB per direction per bulk measurement")
    p.add_argument("--only", action="append", metavar="ROW", help="rows whose key contains ROW (repeatable)")
    p.add_argument("--json", metavar="FILE", help="also write the environment and every sample as JSON")
    p.add_argument("--markdown", metavar="FILE", help="also write the table to FILE")
    args = p.parse_args()
    rows = [r for r in ROWS if not args.only or any(o.lower() in r.key for o in args.only)]
    if not rows:
        p.error(f"no row matches {args.only}; rows: {', '.join(r.key for r in ROWS)}")
    env: dict[str, Any] = {
        "cpu": cpu(),
        "load_before": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "seconds": args.seconds,
        "repeats": args.repeats,
        "bulk_mib": args.bulk_mib,
        "python": platform.python_version(),
    }
    with tempfile.TemporaryDirectory(prefix="guomi-tls-bench-") as tmpdir:
        tmp = Path(tmpdir)
        peers = load_peers(tmp)
        env["notes"] = peers.notes
        env["versions"] = (
            f"guomi {_guomi_version()} (Python {env['python']}), tjfoc gmsm {tp.GMTLS_VERSION} gmtls "
            f"({_go_runtime(peers)}), Tongsuo (BabaSSL {tp.TONGSUO_VERSION}, via ctypes from Python), "
            f"GmSSL {tp.GMSSL_VERSION}"
        )
        if peers.gmssl is not None:
            n, t, _ = gmssl_loop(peers, None, min(args.seconds, 1.0))
            env["gmssl_start_per_s"] = n / t
        results: list[dict[str, Any]] = []
        for row in rows:
            print(f"{row.key}: {row.label}", file=sys.stderr)
            try:
                results += run_row(peers, row, args, tmp)
            except Exception as e:  # a row that fails is reported; the others still run
                print(f"{row.key} FAILED: {e!r}", file=sys.stderr)
                env["notes"].append(f"{row.key} failed: {e!r}"[:500])
    env["load_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    table = markdown(results, env)
    print(table)
    if args.json:
        Path(args.json).write_text(json.dumps({"environment": env, "results": results}, indent=1) + "\n")
    if args.markdown:
        Path(args.markdown).write_text(table)
    return 0


def _guomi_version() -> str:
    import guomi

    return str(guomi.__version__)


def _go_runtime(peers: Peers) -> str:
    if peers.gmtls is None:
        return "?"
    out = subprocess.run([str(peers.gmtls), "version"], capture_output=True, text=True, timeout=30)
    return str(json.loads(out.stdout).get("runtime", "?"))


if __name__ == "__main__":
    sys.exit(main())
