"""`guomi tls client|server` run as real subprocesses: echo round trips over TLCP and
TLS 1.3, resumption, client certificates, certificate failures (exit 1), usage and
connection errors (exit 2)."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from guomi import keys, tls
from tls_pki import Pki, make_pki

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="select() on the server's stderr pipe")

GUOMI = [sys.executable, "-m", "guomi", "tls"]
TIMEOUT = 60


@pytest.fixture(scope="module")
def pki() -> Pki:
    return make_pki()


@pytest.fixture(scope="module")
def d(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The PKI as PEM files: ca.pem, {server,client}-{sign,enc}.{pem,key}; the client's
    keys are password-protected (password file ``pw``)."""
    d = tmp_path_factory.mktemp("tls-cli")
    (d / "ca.pem").write_text(pki.ca.to_pem())
    (d / "other-ca.pem").write_text(make_pki("another CA").ca.to_pem())
    (d / "pw").write_text("s3cret\n")
    for who, password in (("server", None), ("client", b"s3cret")):
        ident = getattr(pki, who)
        for kind, cert, key in (
            ("sign", ident.sign_cert, ident.sign_key),
            ("enc", ident.enc_cert, ident.enc_key),
        ):
            (d / f"{who}-{kind}.pem").write_text(cert.to_pem())
            (d / f"{who}-{kind}.key").write_text(keys.dump_pem_private_key(key, password))
    return d


def server_args(proto: str) -> list[str]:
    args = ["--protocol", proto, "--cert", "server-sign.pem", "--key", "server-sign.key"]
    if proto == "tlcp":
        args += ["--enc-cert", "server-enc.pem", "--enc-key", "server-enc.key"]
    return args


def client_identity(proto: str) -> list[str]:
    args = ["--cert", "client-sign.pem", "--key", "client-sign.key", "--password-file", "pw"]
    if proto == "tlcp":
        args += ["--enc-cert", "client-enc.pem", "--enc-key", "client-enc.key"]
    return args


def client(*args: str, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*GUOMI, "client", *args], input=stdin, capture_output=True, cwd=cwd, timeout=TIMEOUT
    )


class Server:
    """A `guomi tls server` subprocess; ``port`` from its "listening on" line."""

    def __init__(self, proc: subprocess.Popen[bytes], port: int, first: bytes) -> None:
        self.proc, self.port, self.first = proc, port, first
        self.stdout = b""
        self.stderr = b""

    def finish(self) -> int:
        """Waits for the server to exit; keeps its output."""
        out, err = self.proc.communicate(timeout=TIMEOUT)
        self.stdout, self.stderr = out, self.first + err
        return self.proc.returncode


@contextmanager
def server(*args: str, cwd: Path, stdin: bytes = b"") -> Iterator[Server]:
    with tempfile.TemporaryFile() as f:
        f.write(stdin)
        f.seek(0)
        proc = subprocess.Popen(
            [*GUOMI, "server", "--port", "0", *args],
            cwd=cwd,
            stdin=f,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    try:
        assert proc.stderr is not None
        line = b""
        deadline = time.monotonic() + TIMEOUT
        while not line.endswith(b"\n"):
            ready, _, _ = select.select([proc.stderr], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, "the server did not say where it listens"
            byte = os.read(proc.stderr.fileno(), 1)
            assert byte, f"the server exited: {line!r}"
            line += byte
        assert line.startswith(b"listening on 127.0.0.1:"), line
        yield Server(proc, int(line.rsplit(b":", 1)[1]), line)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=TIMEOUT)


def one_line(r: subprocess.CompletedProcess[bytes]) -> str:
    """The error of a failed command: one line, no traceback."""
    err = r.stderr.decode()
    assert "Traceback" not in err, err
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_echo_round_trip(d: Path, pki: Pki, proto: str) -> None:
    data = os.urandom(300_000) + bytes(range(256))  # binary, several records
    with server(*server_args(proto), "--echo", "--max-connections", "1", cwd=d) as srv:
        r = client(f"localhost:{srv.port}", "--protocol", proto, "--cafile", "ca.pem", cwd=d, stdin=data)
        assert r.returncode == 0, r.stderr
        assert r.stdout == data  # byte-exact, and nothing else on standard output
        assert srv.finish() == 0, srv.stderr
    err = r.stderr.decode()
    suite = "ECC_SM4_GCM_SM3" if proto == "tlcp" else "TLS_SM4_GCM_SM3"
    assert f"Cipher suite: {suite}" in err
    assert ("Protocol: TLCPv1.1" if proto == "tlcp" else "Protocol: TLSv1.3") in err
    assert "Resumed: no" in err
    assert "subject:  CN=localhost,O=guomi tls tests" in err and "issuer:   CN=guomi TLS test CA" in err
    assert "SAN:      dns:localhost, ip:127.0.0.1" in err
    if proto == "tlcp":
        assert "[0] signing certificate" in err and "[1] encryption certificate" in err
    assert "Verification: OK" in err and "'localhost' matches" in err
    log = srv.stderr.decode()
    assert f"TLCPv1.1 {suite}" in log if proto == "tlcp" else f"TLSv1.3 {suite}" in log
    assert f"closed ({len(data)} bytes echoed)" in log


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_reconnect_resumes(d: Path, proto: str) -> None:
    with server(*server_args(proto), "--echo", "--max-connections", "2", cwd=d) as srv:
        r = client(
            f"127.0.0.1:{srv.port}", "--protocol", proto, "--cafile", "ca.pem", "--servername", "localhost",
            "--reconnect", "--brief", cwd=d, stdin=b"ping",
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        assert r.stdout == b"ping"
        assert srv.finish() == 0, srv.stderr
    err = r.stderr.decode()
    assert "Reconnected: session resumed: yes" in err
    assert "Peer certificate: CN=localhost,O=guomi tls tests" in err and "issuer:" not in err  # --brief
    assert srv.stderr.count(b"bytes echoed") == 2


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_wrong_servername_is_a_certificate_failure(d: Path, pki: Pki, proto: str) -> None:
    """Against an in-process guomi.tls server: exit 1, the message names the problem."""
    ctx: Any = tls.TLCPContext(server_side=True) if proto == "tlcp" else tls.TLS13Context(server_side=True)
    if proto == "tlcp":
        s = pki.server
        ctx.load_cert_chain(s.sign_cert, s.sign_key, enc_cert=s.enc_cert, enc_key=s.enc_key)
    else:
        ctx.load_cert_chain(pki.server.sign_cert, pki.server.sign_key)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(TIMEOUT)
    seen: list[BaseException] = []

    def serve() -> None:
        raw, _ = listener.accept()
        raw.settimeout(TIMEOUT)
        try:
            ctx.wrap_socket(raw).close()
        except Exception as e:  # noqa: BLE001 - checked below
            seen.append(e)

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        port = listener.getsockname()[1]
        r = client(
            f"localhost:{port}",
            "--protocol",
            proto,
            "--cafile",
            "ca.pem",
            "--servername",
            "example.com",
            cwd=d,
        )
        t.join(TIMEOUT)
    finally:
        listener.close()
    assert r.returncode == 1, r.stderr
    assert r.stdout == b""
    msg = one_line(r)
    assert msg.startswith("guomi tls client: certificate verification failed (sent alert bad_certificate)")
    assert "'example.com' is not in the certificate's subjectAltName" in msg
    assert len(seen) == 1 and isinstance(seen[0], tls.TLSAlert) and seen[0].received


def test_failed_handshake_is_reported_and_the_server_goes_on(d: Path) -> None:
    with server(*server_args("tls13"), "--echo", "--max-connections", "2", cwd=d) as srv:
        bad = client(f"localhost:{srv.port}", "--protocol", "tls13", "--cafile", "other-ca.pem", cwd=d)
        assert bad.returncode == 1
        assert "sent alert unknown_ca" in one_line(bad) and "--cafile" in one_line(bad)
        good = client(
            f"localhost:{srv.port}", "--protocol", "tls13", "--insecure", cwd=d, stdin=b"still here"
        )
        assert good.returncode == 0 and good.stdout == b"still here"
        assert "Verification: skipped (--insecure)" in good.stderr.decode()
        assert srv.finish() == 1  # one of the connections failed
    assert b"the peer sent alert unknown_ca" in srv.stderr
    assert b"closed (10 bytes echoed)" in srv.stderr


@pytest.mark.parametrize("proto", ["tlcp", "tls13"])
def test_client_certificate_and_piped_server(d: Path, proto: str) -> None:
    """Without --echo the server joins one connection to its standard input and output;
    --verify require asks for the client's certificate."""
    with server(
        *server_args(proto), "--cafile", "ca.pem", "--verify", "require", cwd=d, stdin=b"from the server\n"
    ) as srv:
        anon = client(f"localhost:{srv.port}", "--protocol", proto, "--cafile", "ca.pem", cwd=d)
        assert anon.returncode == 1
        assert "client certificate" in one_line(anon)
        r = client(
            f"localhost:{srv.port}", "--protocol", proto, "--cafile", "ca.pem", *client_identity(proto),
            cwd=d, stdin=b"from the client\n",
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        assert r.stdout == b"from the server\n"
        assert srv.finish() == 0, srv.stderr
    assert srv.stdout == b"from the client\n"
    assert b"client certificate 'CN=client,O=guomi tls tests'" in srv.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (["server", "--port", "0", *server_args("tlcp")[2:6]], "--enc-cert"),  # TLCP server without enc pair
        (["server", "--port", "70000", *server_args("tls13")], "0..65535"),
        (["server", "--port", "http", *server_args("tls13")], "port"),
        (["server", "--port", "0", "--echo", "--max-connections", "0", *server_args("tls13")], "at least 1"),
        (["server", "--port", "0", "--verify", "require", *server_args("tls13")], "--cafile"),
        (["client", "localhost", "--cafile", "ca.pem"], "has no port"),
        (["client", "localhost:0", "--cafile", "ca.pem"], "1..65535"),
        (["client", "::1:443", "--cafile", "ca.pem"], "[ADDRESS]:PORT"),
        (["client", "localhost:443", "--cafile", "ca.pem", "--timeout", "0"], "more than 0"),
        (["client", "localhost:443", "--cafile", "ca.pem", "--timeout", "3601"], "at most 3600"),
        (["client", "localhost:443"], "--insecure"),  # no trust anchors
        (["client", "localhost:443", "--cafile", "missing.pem"], "missing.pem"),
        (["client", "localhost:443", "--protocol", "tls13", "--insecure", "--ciphers", "NOPE"], "NOPE"),
        (["client", "localhost:443", "--insecure", "--cert", "client-sign.pem"], "--key"),
    ],
)
def test_usage_errors_exit_2(d: Path, args: list[str], words: str) -> None:
    r = subprocess.run([*GUOMI, *args], capture_output=True, cwd=d, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert r.returncode == 2, r.stderr
    assert words in one_line(r)


def test_connection_refused_exits_2(d: Path) -> None:
    with socket.socket() as s:  # a port that was free a moment ago and has no listener
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = client(f"127.0.0.1:{port}", "--cafile", "ca.pem", cwd=d)
    assert r.returncode == 2
    assert one_line(r) == f"guomi tls client: cannot connect to 127.0.0.1:{port}: Connection refused"


def test_ctrl_c_stops_an_echo_server(d: Path) -> None:
    with server(*server_args("tls13"), "--echo", cwd=d) as srv:
        srv.proc.send_signal(signal.SIGINT)
        assert srv.finish() == 130
        assert b"Traceback" not in srv.stderr
