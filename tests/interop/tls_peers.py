"""TLS peers for tests/interop: GmSSL 3.1.1's command-line tool (``tlcp_server``,
``tlcp_client``, ``tls13_*``, ``tls12_*``) and a Go peer on tjfoc/gmsm v1.4.1's ``gmtls``
(TLCP, GM/T 0024), built like the other peers into ``tests/interop/.build/<peer>/`` and
reused while their inputs are unchanged. See README.md ("TLS peers").

The peers are built on first use only (conftest.py's ``gmssl``, ``gmtls`` and ``tongsuo``
fixtures), never by ``interop_peers.build_all``, so runs that do not select a TLS test pay
nothing for them.

    python tests/interop/tls_peers.py        # just build both (prints the times)
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import selectors
import shutil
import socket
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

if __package__:
    from .interop_peers import (
        BUILD_DIR,
        PEERS_DIR,
        PeerUnavailable,
        _inputs_hash,
        _require,
        _run,
        _stamp_ok,
        _tool_version,
        _write_stamp,
        check_pin,
    )
else:  # run as a script
    from interop_peers import (
        BUILD_DIR,
        PEERS_DIR,
        PeerUnavailable,
        _inputs_hash,
        _require,
        _run,
        _stamp_ok,
        _tool_version,
        _write_stamp,
        check_pin,
    )

#: GmSSL 3.1.1 ships inside the easy-gmssl 2.0.1 sdist on PyPI (easy_gmssl/Core/GmSSL-3.1.1/),
#: pinned by the sdist's SHA-256.
GMSSL_VERSION = "3.1.1"
EASY_GMSSL = "easy-gmssl==2.0.1"
EASY_GMSSL_SDIST = "easy_gmssl-2.0.1.tar.gz"
EASY_GMSSL_SHA256 = "18f74927a4a0a57c46d2912284bc0232a792a0fb8d078c2346b2a05f4b7e9607"
GMSSL_SRC_IN_SDIST = "easy_gmssl-2.0.1/easy_gmssl/Core/GmSSL-3.1.1"
#: tjfoc/gmsm, pinned by peers/go_gmtls/go.mod + go.sum.
GMTLS_VERSION = "v1.4.1"
#: BabaSSL (Tongsuo) inside the tongsuopy 1.0.1 wheel (scripts/test.sh installs it).
TONGSUOPY_VERSION = "1.0.1"
TONGSUO_VERSION = "8.3.2"

#: Cipher suites (IANA / GM/T 0024 code points).
ECC_SM4_CBC_SM3 = 0xE013
ECDHE_SM4_CBC_SM3 = 0xE011
ECC_SM4_GCM_SM3 = 0xE053
ECDHE_SM4_GCM_SM3 = 0xE051
TLS_SM4_GCM_SM3 = 0x00C6

#: The password of every key file the suite writes for GmSSL (its tools read only
#: password-encrypted PKCS#8).
PASSWORD = "1234"
HOST = "127.0.0.1"
#: Seconds: a server to start listening, one client exchange.
START_TIMEOUT = 30.0
CLIENT_TIMEOUT = 30.0


# --------------------------------------------------------------------------- builds


def _cmake_generator() -> list[str]:
    return ["-G", "Ninja"] if shutil.which("ninja") else []


def build_gmssl() -> Path:
    """Fetches the pinned easy-gmssl sdist (``pip download``, SHA-256 checked), unpacks
    GmSSL 3.1.1 from it and builds the static ``gmssl`` tool with cmake; returns its path."""
    _require("cmake", "cc")
    out = BUILD_DIR / "gmssl"
    exe = out / "build" / "bin" / "gmssl"
    gen = _cmake_generator()
    if not gen:
        _require("make")
    digest = _inputs_hash(
        EASY_GMSSL_SHA256,
        GMSSL_SRC_IN_SDIST,
        " ".join(gen),
        _tool_version(["cmake", "--version"]),
        _tool_version(["cc", "--version"]),
    )
    if _stamp_ok(out, digest) and exe.is_file():
        return exe
    out.mkdir(parents=True, exist_ok=True)
    sdist = out / EASY_GMSSL_SDIST
    if sdist.is_file():
        try:
            check_pin(sdist, EASY_GMSSL_SHA256)  # a stale or damaged copy is deleted
        except RuntimeError:
            pass
    if not sdist.is_file():
        _run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
            + ["-d", str(out), EASY_GMSSL],
            out,
            f"pip download {EASY_GMSSL}",
        )
        if not sdist.is_file():
            raise PeerUnavailable(f"pip download {EASY_GMSSL} did not write {EASY_GMSSL_SDIST}")
        check_pin(sdist, EASY_GMSSL_SHA256)  # a wrong download fails, never skips
    src = out / "src"
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(out / "build", ignore_errors=True)
    src.mkdir()
    prefix = GMSSL_SRC_IN_SDIST + "/"
    with tarfile.open(sdist) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(prefix) and (m.isfile() or m.isdir())]
        for m in members:
            m.name = m.name[len(prefix) :]
        kw: dict[str, Any] = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(src, members=members, **kw)  # noqa: S202 (regular files of a pinned sdist)
    jobs = str(min(2, os.cpu_count() or 1))
    _run(
        ["cmake", *gen, "-S", str(src), "-B", str(out / "build"), "-DCMAKE_BUILD_TYPE=Release"]
        + ["-DBUILD_SHARED_LIBS=OFF"],
        out,
        "cmake (GmSSL 3.1.1)",
    )
    _run(
        ["cmake", "--build", str(out / "build"), "--target", "gmssl-bin", "-j", jobs],
        out,
        "build GmSSL 3.1.1 (gmssl-bin)",
    )
    version = _tool_version([str(exe), "version"])
    if f"GmSSL {GMSSL_VERSION}" not in version:
        raise RuntimeError(f"built gmssl reports {version!r}, pinned {GMSSL_VERSION}")
    _write_stamp(out, digest)
    return exe


def build_gmtls() -> Path:
    """Builds the tjfoc/gmsm gmtls peer (peers/go_gmtls: go.mod + go.sum pin v1.4.1)."""
    _require("go")
    src = PEERS_DIR / "go_gmtls"
    out = BUILD_DIR / "go_gmtls"
    exe = out / "gmtls-peer"
    digest = _inputs_hash(src / "go.mod", src / "go.sum", src / "main.go", _tool_version(["go", "version"]))
    if _stamp_ok(out, digest) and exe.is_file():
        return exe
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, GOFLAGS="-mod=readonly", CGO_ENABLED="0")
    _run(["go", "build", "-trimpath", "-o", str(exe), "."], src, "go build (gmtls peer)", env)
    info = json.loads(
        subprocess.run([str(exe), "version"], capture_output=True, text=True, check=True).stdout
    )
    if info["version"] != GMTLS_VERSION:
        raise RuntimeError(f"gmtls peer reports {info['version']}, pinned {GMTLS_VERSION}")
    _write_stamp(out, digest)
    return exe


def build_tongsuo() -> list[str]:
    """The Tongsuo peer (peers/tongsuo_peer.py) needs no build: it drives the libssl that
    tongsuopy 1.0.1's wheel carries, through ctypes. Returns its argv prefix."""
    try:
        import importlib.metadata

        have = importlib.metadata.version("tongsuopy")
    except Exception as e:  # not installed
        raise PeerUnavailable(
            f"tongsuopy is not installed ({e}); pip install tongsuopy=={TONGSUOPY_VERSION}"
        ) from e
    if have != TONGSUOPY_VERSION:
        raise RuntimeError(f"tongsuopy {have} installed, pinned {TONGSUOPY_VERSION}")
    argv = [sys.executable, str(PEERS_DIR / "tongsuo_peer.py")]
    out = subprocess.run([*argv, "version"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise PeerUnavailable(f"the Tongsuo peer does not start: {out.stderr[-2000:]}")
    info = json.loads(out.stdout)
    if info["version"] != TONGSUO_VERSION:
        raise RuntimeError(f"tongsuopy carries BabaSSL {info['version']}, pinned {TONGSUO_VERSION}")
    return argv


# --------------------------------------------------------------------------- certificates


@dataclasses.dataclass(frozen=True)
class CertSet:
    """A CA, a server double certificate (signing + encryption) and a client signing
    certificate, as PEM files in ``dir``. Keys exist twice: ``*_key`` password-encrypted
    PKCS#8 (password :data:`PASSWORD`, PBKDF2-HMAC-SM3 + SM4-CBC, for GmSSL) and
    ``*_key_p8`` plain PKCS#8 (for gmtls). ``double`` is signing cert, then encryption
    cert (GmSSL's ``tlcp_server -cert``)."""

    maker: str
    dir: Path

    def __getattr__(self, name: str) -> Path:
        files = {
            "ca": "ca.pem",
            "double": "double.pem",
        }
        for who in ("sign", "enc", "client"):
            files[f"{who}_cert"] = f"{who}cert.pem"
            files[f"{who}_key"] = f"{who}key.pem"
            files[f"{who}_key_p8"] = f"{who}key.p8.pem"
        if name in files:
            return self.dir / files[name]
        raise AttributeError(name)


def _plain_keys(d: Path) -> None:
    from guomi import keys  # guomi reads GmSSL's encrypted keys and writes the plain ones

    for who in ("sign", "enc", "client"):
        key = keys.load_pem_private_key((d / f"{who}key.pem").read_text(), PASSWORD)
        (d / f"{who}key.p8.pem").write_text(keys.dump_pem_private_key(key))


def make_gmssl_certs(gmssl: Path, d: Path) -> CertSet:
    """Certificates made with GmSSL's own tools (``sm2keygen``, ``certgen``, ``reqgen``,
    ``reqsign``): keyUsage keyCertSign+cRLSign (CA), digitalSignature (signing and client
    certificates), keyEncipherment (encryption certificate); CN=localhost for the server."""
    d.mkdir(parents=True, exist_ok=True)
    g = str(gmssl)

    def run(*args: str) -> None:
        _run([g, *args], d, "gmssl " + " ".join(args))

    key = ["-pass", PASSWORD]
    run("sm2keygen", *key, "-out", "cakey.pem", "-pubout", "capub.pem")
    run("certgen", "-C", "CN", "-O", "guomi interop", "-CN", "GmSSL Test CA", "-serial_len", "12",
        "-days", "3650", "-key", "cakey.pem", *key, "-key_usage", "keyCertSign",
        "-key_usage", "cRLSign", "-ca", "-out", "ca.pem")  # fmt: skip
    usage = {"sign": "digitalSignature", "enc": "keyEncipherment", "client": "digitalSignature"}
    for who, ku in usage.items():
        cn = "guomi interop client" if who == "client" else "localhost"
        run("sm2keygen", *key, "-out", f"{who}key.pem", "-pubout", f"{who}pub.pem")
        run("reqgen", "-C", "CN", "-O", "guomi interop", "-CN", cn, "-key", f"{who}key.pem", *key,
            "-out", f"{who}req.pem")  # fmt: skip
        run("reqsign", "-in", f"{who}req.pem", "-serial_len", "12", "-days", "365", "-cacert", "ca.pem",
            "-key", "cakey.pem", *key, "-key_usage", ku, "-out", f"{who}cert.pem")  # fmt: skip
    (d / "double.pem").write_text((d / "signcert.pem").read_text() + (d / "enccert.pem").read_text())
    _plain_keys(d)
    return CertSet("gmssl", d)


def make_guomi_certs(d: Path) -> CertSet:
    """The same set made with guomi (``guomi.x509.CertificateBuilder``, ``guomi.keys``):
    CA keyUsage keyCertSign+cRLSign, signing and client certificates digitalSignature,
    encryption certificate keyEncipherment+dataEncipherment+keyAgreement; end-entity
    certificates without basicConstraints (the builder's default); the signing certificate
    also names ``localhost`` in subjectAltName (GmSSL's set has the CN only). Keys: plain PKCS#8
    (``*_key_p8``, for gmtls and Tongsuo) and guomi's PBES2 (PBKDF2-HMAC-SM3, SM4-CBC:
    ``*_key``, which GmSSL reads)."""
    from guomi import keys, sm2, x509

    d.mkdir(parents=True, exist_ok=True)
    ca_key = sm2.PrivateKey.generate()
    ca = (
        x509.CertificateBuilder(subject="CN=guomi Test CA,O=guomi interop,C=CN")
        .ca()
        .with_key_usage(["keyCertSign", "cRLSign"])
        .valid_for_days(3650)
        .self_sign(ca_key)
    )
    (d / "ca.pem").write_text(ca.to_pem())
    usage = {
        "sign": ["digitalSignature"],
        "enc": ["keyEncipherment", "dataEncipherment", "keyAgreement"],
        "client": ["digitalSignature"],
    }
    for who, ku in usage.items():
        key = sm2.PrivateKey.generate()
        cn = "guomi interop client" if who == "client" else "localhost"
        builder = (
            x509.CertificateBuilder(subject=f"CN={cn},O=guomi interop,C=CN", public_key=key.public_key())
            .with_key_usage(ku)
            .valid_for_days(365)
        )
        if who == "sign":  # guomi.tls matches server names against subjectAltName only
            builder = builder.with_subject_alternative_names(["dns:localhost"])
        cert = builder.sign(ca, ca_key)
        (d / f"{who}cert.pem").write_text(cert.to_pem())
        (d / f"{who}key.pem").write_text(keys.dump_pem_private_key(key, PASSWORD))
        (d / f"{who}key.p8.pem").write_text(keys.dump_pem_private_key(key))
    (d / "double.pem").write_text((d / "signcert.pem").read_text() + (d / "enccert.pem").read_text())
    return CertSet("guomi", d)


# --------------------------------------------------------------------------- processes


def free_port() -> int:
    """A TCP port free on loopback now (the OS's pick; a server started right after may
    still lose it to another process: the callers retry)."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def _listening(port: int) -> bool:
    """Whether a socket listens on ``port`` (Linux: /proc/net/tcp*, state 0A). Probing with
    connect() is not an option: GmSSL's servers exit after a failed handshake."""
    want = f":{port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if len(f) > 3 and f[1].endswith(want) and f[3] == "0A":
                return True
    return False


class Proc:
    """A peer process with its stdout and stderr collected (non-blocking) as bytes."""

    def __init__(self, argv: list[str], cwd: Optional[Path] = None, stdin: bool = False) -> None:
        self.argv = argv
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.out = b""
        self.err = b""
        self._sel = selectors.DefaultSelector()
        assert self.proc.stdout is not None and self.proc.stderr is not None
        for f in (self.proc.stdout, self.proc.stderr):
            os.set_blocking(f.fileno(), False)
            self._sel.register(f, selectors.EVENT_READ)

    def pump(self, timeout: float) -> bool:
        """Reads what is available within ``timeout`` s; False once both pipes are closed."""
        if not self._sel.get_map():
            return False
        for key, _ in self._sel.select(timeout):
            chunk = os.read(key.fd, 1 << 16)
            if not chunk:
                self._sel.unregister(key.fileobj)
            elif key.fileobj is self.proc.stdout:
                self.out += chunk
            else:
                self.err += chunk
        return True

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass

    def close_stdin(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()

    def finish(self, timeout: float) -> Optional[int]:
        """Waits up to ``timeout`` s for the exit (collecting output), then kills; returns
        the exit code, or None if it had to be killed."""
        self.close_stdin()
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self.pump(0.05)
        code = self.proc.poll()
        if code is None:
            self.proc.kill()
            self.proc.wait()
        while self.pump(0.05):
            pass
        self._sel.close()
        return code

    def text(self) -> str:
        return (self.out + b"\n--- stderr ---\n" + self.err).decode(errors="replace")[-6000:]


@dataclasses.dataclass
class Server:
    """A running server: its ``port`` and process (``proc.out``/``proc.err`` grow while
    it runs and are complete after the context manager exits)."""

    name: str
    port: int
    proc: Proc

    def events(self) -> list[dict[str, Any]]:
        """The gmtls peer's JSON events so far."""
        self.proc.pump(0)
        return [json.loads(x) for x in self.proc.out.decode().splitlines() if x.startswith("{")]


@contextlib.contextmanager
def _gmssl_server(gmssl: Path, argv: list[str], name: str) -> Iterator[Server]:
    for _ in range(3):  # a port taken between free_port() and bind(): another port
        port = free_port()
        p = Proc([str(gmssl), *argv, "-port", str(port)])
        deadline = time.monotonic() + START_TIMEOUT
        while p.proc.poll() is None and not _listening(port) and time.monotonic() < deadline:
            p.pump(0.02)
        if p.proc.poll() is None and _listening(port):
            break
        p.finish(1)
        if b"bind" not in p.err:
            raise RuntimeError(f"{name} did not start listening: {p.text()}")
    else:
        raise RuntimeError(f"{name}: no free port after 3 tries")
    server = Server(name, port, p)
    try:
        yield server
    finally:
        p.proc.terminate()
        p.finish(5)


def gmssl_tlcp_server(gmssl: Path, certs: CertSet, client_auth: bool = False) -> Any:
    """GmSSL's ``tlcp_server`` (ECC_SM4_CBC_SM3 only; an echo server) on a free port:
    ``-cert`` signing + encryption certificate, ``-key``/``-ex_key`` their keys; with
    ``client_auth`` also ``-cacert`` (then a client certificate is required)."""
    argv = ["tlcp_server", "-cert", str(certs.double), "-key", str(certs.sign_key), "-pass", PASSWORD]
    argv += ["-ex_key", str(certs.enc_key), "-ex_pass", PASSWORD]
    if client_auth:
        argv += ["-cacert", str(certs.ca)]
    return _gmssl_server(gmssl, argv, "gmssl tlcp_server")


def gmssl_tls_server(gmssl: Path, certs: CertSet, version: str = "13", client_auth: bool = False) -> Any:
    """GmSSL's ``tls13_server`` (TLS_SM4_GCM_SM3) or ``tls12_server`` (ECDHE_SM4_CBC_SM3)
    with the signing certificate and key."""
    argv = [
        f"tls{version}_server",
        "-cert",
        str(certs.sign_cert),
        "-key",
        str(certs.sign_key),
        "-pass",
        PASSWORD,
    ]
    if client_auth:
        argv += ["-cacert", str(certs.ca)]
    return _gmssl_server(gmssl, argv, f"gmssl tls{version}_server")


def _argv(peer: Any) -> list[str]:
    return [str(x) for x in peer] if isinstance(peer, list) else [str(peer)]


@contextlib.contextmanager
def gmtls_server(
    peer: Any,
    certs: CertSet,
    client_auth: str = "none",
    suites: Optional[list[int]] = None,
    extra: Optional[list[str]] = None,
) -> Iterator[Server]:
    """The gmtls peer's echo server (``server`` mode) on a free loopback port:
    ``client_auth`` none / request / require / verify (verify: against ``certs.ca``).
    Also the Tongsuo peer's (``peer`` its argv prefix; ``extra``: ``-ciphers``, ``-tls13``),
    which takes the same options (client_auth none / verify)."""
    argv = [*_argv(peer), "server", "-host", HOST, "-port", "0"]
    argv += ["-sign-cert", str(certs.sign_cert), "-sign-key", str(certs.sign_key_p8)]
    argv += ["-enc-cert", str(certs.enc_cert), "-enc-key", str(certs.enc_key_p8)]
    argv += ["-client-auth", client_auth, "-ca", str(certs.ca)]
    if suites:
        argv += ["-suites", ",".join(f"{s:04x}" for s in suites)]
    argv += extra or []
    p = Proc(argv)
    deadline = time.monotonic() + START_TIMEOUT
    while b"\n" not in p.out and p.proc.poll() is None and time.monotonic() < deadline:
        p.pump(0.05)
    first = p.out.split(b"\n", 1)[0]
    if b'"listening"' not in first:
        p.finish(1)
        raise RuntimeError(f"gmtls server did not start: {p.text()}")
    server = Server("gmtls server", json.loads(first)["port"], p)
    try:
        yield server
    finally:
        p.proc.terminate()
        p.finish(5)


@dataclasses.dataclass
class ClientResult:
    """What a client printed. ``reply``: the echoed text (GmSSL: stdout; gmtls: its
    ``reply`` event), ``established``: the handshake completed."""

    established: bool
    reply: str
    out: str
    err: str
    events: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def event(self, name: str) -> dict[str, Any]:
        for e in self.events:
            if e.get("event") == name:
                return e
        raise AssertionError(f"no {name!r} event in {self.out!r} / {self.err[-2000:]!r}")


def gmssl_client(
    gmssl: Path,
    kind: str,
    port: int,
    message: str,
    certs: Optional[CertSet] = None,
    client_cert: bool = False,
    verify: bool = True,
) -> ClientResult:
    """Runs GmSSL's ``<kind>_client`` (kind: tlcp, tls13, tls12) against ``port``, sends
    ``message`` as one line and collects the echo.

    GmSSL's clients read one record per line they send, and tjfoc's gmtls splits each
    write 1/n-1 (it treats GM/T 0024's version 0x0101 as older than TLS 1.0) while
    Tongsuo's NTLS sends an empty CBC record before each one: until the whole echo is in,
    an empty line is sent to make the client read the next record. The
    reply then holds ``message`` and a newline (after any debug lines the client prints:
    ``tls13_client`` writes two to stdout)."""
    argv = [str(gmssl), f"{kind}_client", "-host", HOST, "-port", str(port)]
    if certs is not None and verify:
        argv += ["-cacert", str(certs.ca)]
    if certs is not None and client_cert:
        argv += ["-cert", str(certs.client_cert), "-key", str(certs.client_key), "-pass", PASSWORD]
    p = Proc(argv, stdin=True)
    want = message.encode() + b"\n"
    p.write(want)
    deadline = time.monotonic() + CLIENT_TIMEOUT
    idle = time.monotonic()
    while want not in p.out and p.proc.poll() is None and time.monotonic() < deadline:
        before = len(p.out)
        p.pump(0.05)
        if len(p.out) != before:
            idle = time.monotonic()
        elif (p.out or b"stablished" in p.err) and time.monotonic() - idle > 0.3:
            p.write(b"\n")  # read the next record
            idle = time.monotonic()
    p.finish(5)
    err = p.err.decode(errors="replace")
    established = "Connection established" in err or "Connection Established" in err
    return ClientResult(established, p.out.decode(errors="replace"), p.out.decode(errors="replace"), err)


def gmtls_client(
    peer: Any,
    port: int,
    message: str,
    certs: Optional[CertSet] = None,
    client_cert: bool = False,
    suites: Optional[list[int]] = None,
    verify: bool = True,
    extra: Optional[list[str]] = None,
) -> ClientResult:
    """Runs the gmtls peer's ``client`` mode: handshake, one line, its echo. Also the
    Tongsuo peer's (``peer`` its argv prefix, ``extra`` its own options)."""
    argv = [*_argv(peer), "client", "-host", HOST, "-port", str(port), "-message", message]
    if certs is not None and verify:
        argv += ["-ca", str(certs.ca)]
    if certs is not None and client_cert:
        argv += ["-cert", str(certs.client_cert), "-key", str(certs.client_key_p8)]
    if suites:
        argv += ["-suites", ",".join(f"{s:04x}" for s in suites)]
    argv += extra or []
    p = Proc(argv)
    p.finish(CLIENT_TIMEOUT)
    out = p.out.decode(errors="replace")
    events = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    reply = next((e["data"] for e in events if e.get("event") == "reply"), "")
    established = any(e.get("event") == "handshake" for e in events)
    return ClientResult(established, reply, out, p.err.decode(errors="replace"), events)


# --------------------------------------------------------------------------- capture


@contextlib.contextmanager
def recording_relay(target_port: int) -> Iterator[tuple[int, list[tuple[str, bytes]]]]:
    """A loopback TCP relay for one connection to ``target_port``; yields (its port, the
    log), the log being (direction ``"c>s"`` / ``"s>c"``, bytes) in arrival order."""
    import threading

    lsock = socket.socket()
    lsock.bind((HOST, 0))
    lsock.listen(1)
    log: list[tuple[str, bytes]] = []
    lock = threading.Lock()

    def pipe(src: socket.socket, dst: socket.socket, tag: str) -> None:
        try:
            while chunk := src.recv(1 << 16):
                with lock:
                    log.append((tag, chunk))
                dst.sendall(chunk)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)

    def run() -> None:
        try:
            c, _ = lsock.accept()
        except OSError:
            return
        s = socket.create_connection((HOST, target_port))
        t = threading.Thread(target=pipe, args=(s, c, "s>c"), daemon=True)
        t.start()
        pipe(c, s, "c>s")
        t.join(2)  # GmSSL's servers never close their side: don't wait for it
        c.close()
        s.close()

    th = threading.Thread(target=run, daemon=True)
    th.start()
    try:
        yield lsock.getsockname()[1], log
    finally:
        lsock.close()
        th.join(10)


def records(log: list[tuple[str, bytes]], direction: str) -> list[tuple[int, int, bytes]]:
    """The TLS records one direction of a relay log carried: (type, version, fragment)."""
    data = b"".join(chunk for tag, chunk in log if tag == direction)
    out = []
    while len(data) >= 5:
        n = int.from_bytes(data[3:5], "big")
        out.append((data[0], int.from_bytes(data[1:3], "big"), data[5 : 5 + n]))
        data = data[5 + n :]
    return out


DATA_DIR = Path(__file__).resolve().parent / "data"


def record_vectors(out_dir: Path = DATA_DIR) -> list[Path]:
    """Captures three TLCP sessions (GmSSL client <-> gmtls server, ECC_SM4_CBC_SM3;
    Tongsuo <-> Tongsuo, ECC_SM4_CBC_SM3 and ECC_SM4_GCM_SM3) with a fresh GmSSL-made
    certificate set and writes each as JSON: both byte streams in hex plus the server's
    certificates and (test-only) encryption key, enough to decrypt the whole session
    offline (test_interop_tls_peers.test_tlcp_vectors)."""
    import tempfile

    gmssl, gmtls, tongsuo = build_gmssl(), build_gmtls(), build_tongsuo()
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        certs = make_gmssl_certs(gmssl, Path(tmp) / "gmssl")
        runs = [
            ("tlcp-gmssl-client-gmtls-server-ecc-sm4-cbc-sm3", ECC_SM4_CBC_SM3, "gmssl", None),
            ("tlcp-tongsuo-ecc-sm4-cbc-sm3", ECC_SM4_CBC_SM3, "tongsuo", "ECC-SM2-SM4-CBC-SM3"),
            ("tlcp-tongsuo-ecc-sm4-gcm-sm3", ECC_SM4_GCM_SM3, "tongsuo", "ECC-SM2-SM4-GCM-SM3"),
        ]
        for name, suite, who, ciphers in runs:
            msg = f"guomi interop vector {name}"
            if who == "gmssl":
                with gmtls_server(gmtls, certs) as srv, recording_relay(srv.port) as (port, log):
                    res = gmssl_client(gmssl, "tlcp", port, msg, certs)
                desc = f"GmSSL {GMSSL_VERSION} tlcp_client -> tjfoc gmtls {GMTLS_VERSION} echo server"
            else:
                extra = ["-ciphers", str(ciphers)]
                with gmtls_server(tongsuo, certs, extra=extra) as srv:
                    with recording_relay(srv.port) as (port, log):
                        res = gmtls_client(tongsuo, port, msg, certs, extra=extra)
                desc = f"Tongsuo (BabaSSL {TONGSUO_VERSION}) NTLS client -> the same, echo server"
            if msg not in res.reply:
                raise RuntimeError(f"{name}: no echo: {res.out} {res.err}")
            vec = {
                "description": desc + "; one line sent and echoed, no client authentication",
                "suite": f"0x{suite:04x}",
                "message": msg + "\n",
                "client_to_server": b"".join(c for t, c in log if t == "c>s").hex(),
                "server_to_client": b"".join(c for t, c in log if t == "s>c").hex(),
                "ca_cert_pem": certs.ca.read_text(),
                "server_sign_cert_pem": certs.sign_cert.read_text(),
                "server_enc_cert_pem": certs.enc_cert.read_text(),
                "server_enc_key_pem": certs.enc_key_p8.read_text(),
            }
            out_dir.mkdir(parents=True, exist_ok=True)
            path = out_dir / f"{name}.json"
            path.write_text(json.dumps(vec, indent=1) + "\n")
            written.append(path)
    return written


if __name__ == "__main__":  # build all: python tests/interop/tls_peers.py [--vectors]
    for name, build in (("gmssl", build_gmssl), ("gmtls", build_gmtls), ("tongsuo", build_tongsuo)):
        t0 = time.monotonic()
        try:
            print(name, build(), f"{time.monotonic() - t0:.1f} s", file=sys.stderr)
        except Exception as e:
            print(name, "FAILED:", e, file=sys.stderr)
    if "--vectors" in sys.argv:
        for path in record_vectors():
            print("wrote", path, file=sys.stderr)
