"""Builds and runs the interop peers (BouncyCastle, gmsm, sm-crypto-v2) for tests/interop.

Each peer is one long-lived process speaking a line protocol: a JSON request per line on
its stdin (``{"op": "...", ...}``, bytes as hex strings), a JSON reply per line on its
stdout (``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``). See README.md.

Builds go to ``tests/interop/.build/<peer>/`` (git-ignored) and are reused while the hash
of their inputs (sources, pins, toolchain version) is unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import selectors
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Optional, TypeVar

import pytest

HERE = Path(__file__).resolve().parent
PEERS_DIR = HERE / "peers"
BUILD_DIR = HERE / ".build"

#: The pinned peer versions (what each peer must report on its "version" op).
VERSIONS = {"bc": "1.87", "gmsm": "v0.44.0", "smjs": "1.15.1"}

#: Maven Central artifacts of the BouncyCastle peer, pinned by version and SHA-256.
BC_VERSION = "1.87"
BC_SHA256 = {
    "bcprov-jdk18on": "12d2d3dd82a9ec15e92ec7c7943ee64f6097c6dc12c07e984f1693b77565b9aa",
    "bcpkix-jdk18on": "a44be2660d72ed88673372b8cc2d53a25a5aaf27122fb803ed93f07147536aa1",
    "bcutil-jdk18on": "af46dd381553fdc466cd0c18f8bf2144c7dbcb7337eee3e16cab15e96613ddf0",
}
BC_JARS = {f"org.bouncycastle:{a}:{BC_VERSION}": h for a, h in BC_SHA256.items()}

#: Time limits (seconds): a fetch or compile step, and one request to a running peer.
BUILD_TIMEOUT = 600
CALL_TIMEOUT = 120


class PeerUnavailable(Exception):
    """A toolchain is missing or a build/fetch step failed: the peer cannot run here."""


class PeerError(Exception):
    """The peer answered a request with ``ok: false`` (its library rejected the input)."""


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def _inputs_hash(*parts: Any) -> str:
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, Path):
            h.update(p.name.encode() + b"\0" + p.read_bytes())
        else:
            h.update(str(p).encode())
        h.update(b"\0")
    return h.hexdigest()


def _tool_version(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise PeerUnavailable(f"{argv[0]} does not run: {e}") from e
    return (out.stdout + out.stderr).strip()


def _run(argv: list[str], cwd: Path, what: str, env: Optional[dict[str, str]] = None) -> None:
    try:
        out = subprocess.run(
            argv,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as e:
        raise PeerUnavailable(f"{what}: timed out after {BUILD_TIMEOUT} s") from e
    except OSError as e:
        raise PeerUnavailable(f"{what}: {e}") from e
    if out.returncode != 0:
        tail = (out.stdout + out.stderr).strip()[-3000:]
        raise PeerUnavailable(f"{what} failed (exit {out.returncode}):\n{tail}")


def _require(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        raise PeerUnavailable(f"toolchain missing: {', '.join(missing)} not on PATH")


def check_pin(path: Path, sha256: str) -> None:
    """Raises (and deletes ``path``) unless the file's SHA-256 is the pinned one. A wrong
    download is an error, never a skip: it is not used."""
    got = _sha256_file(path)
    if got != sha256:
        path.unlink()
        raise RuntimeError(f"{path.name}: SHA-256 {got} does not match the pin {sha256}")


REQUIRED = os.environ.get("GUOMI_INTEROP_REQUIRED") == "1"


def unavailable(reason: str, required: bool = REQUIRED) -> None:
    """Skips the current test, or with ``GUOMI_INTEROP_REQUIRED=1`` fails it."""
    if required:
        pytest.fail(f"GUOMI_INTEROP_REQUIRED=1 and an interop peer is unavailable: {reason}", pytrace=False)
    pytest.skip(reason)


def _stamp_ok(out: Path, digest: str) -> bool:
    stamp = out / "stamp"
    return stamp.is_file() and stamp.read_text() == digest


def _write_stamp(out: Path, digest: str) -> None:
    (out / "stamp").write_text(digest)


def build_java() -> list[str]:
    """Fetches the pinned BouncyCastle jars (Maven, SHA-256 checked) and compiles Peer.java."""
    _require("java", "javac")
    src = PEERS_DIR / "java" / "Peer.java"
    out = BUILD_DIR / "java"
    lib, classes = out / "lib", out / "classes"
    digest = _inputs_hash(src, json.dumps(BC_JARS, sort_keys=True), _tool_version(["javac", "-version"]))
    jars = [lib / ("{1}-{2}.jar".format(*coord.split(":"))) for coord in BC_JARS]
    classpath = os.pathsep.join([str(classes)] + [str(j) for j in jars])
    # BouncyCastle's SM9 key-usage guard refuses one user key for both decryption and KEM in
    # one JVM; the tests reuse keys across ops on purpose.
    argv = ["java", "-Dorg.bouncycastle.sm9.allow_multi_use=true", "-cp", classpath, "Peer"]
    if _stamp_ok(out, digest) and all(j.is_file() for j in jars):
        return argv
    lib.mkdir(parents=True, exist_ok=True)
    todo = [
        c for c, j in zip(BC_JARS, jars, strict=True) if not (j.is_file() and _sha256_file(j) == BC_JARS[c])
    ]
    if todo:
        _require("mvn")

        def fetch(coord: str) -> None:
            _run(
                ["mvn", "-q", "-B", "dependency:copy", f"-Dartifact={coord}", f"-DoutputDirectory={lib}"],
                out,
                f"fetching {coord} with Maven",
            )

        with ThreadPoolExecutor(len(todo)) as pool:
            list(pool.map(fetch, todo))
    for coord, jar in zip(BC_JARS, jars, strict=True):
        if not jar.is_file():
            raise PeerUnavailable(f"{coord}: {jar.name} was not fetched")
        check_pin(jar, BC_JARS[coord])
    shutil.rmtree(classes, ignore_errors=True)
    classes.mkdir()
    cp = os.pathsep.join(str(j) for j in jars)
    _run(
        ["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(classes), "-cp", cp, str(src)],
        out,
        "javac Peer.java",
    )
    _write_stamp(out, digest)
    return argv


def build_go() -> list[str]:
    """Builds the gmsm peer (go.mod/go.sum pin gmsm v0.44.0; the module proxy fetches it)."""
    _require("go")
    src = PEERS_DIR / "go"
    out = BUILD_DIR / "go"
    exe = out / "gmsm-peer"
    digest = _inputs_hash(src / "go.mod", src / "go.sum", src / "main.go", _tool_version(["go", "version"]))
    if _stamp_ok(out, digest) and exe.is_file():
        return [str(exe)]
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, GOFLAGS="-mod=readonly", CGO_ENABLED="0")
    _run(["go", "build", "-trimpath", "-o", str(exe), "."], src, "go build (gmsm peer)", env)
    _write_stamp(out, digest)
    return [str(exe)]


def build_node() -> list[str]:
    """Installs the locked sm-crypto-v2 (npm ci) next to a copy of peer.mjs."""
    _require("node", "npm")
    src = PEERS_DIR / "node"
    out = BUILD_DIR / "node"
    files = [src / "package.json", src / "package-lock.json", src / "peer.mjs"]
    digest = _inputs_hash(*files, _tool_version(["node", "--version"]))
    argv = ["node", str(out / "peer.mjs")]
    if _stamp_ok(out, digest) and (out / "node_modules" / "sm-crypto-v2").is_dir():
        return argv
    out.mkdir(parents=True, exist_ok=True)
    for f in files:
        shutil.copyfile(f, out / f.name)
    _run(
        ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
        out,
        "npm ci (sm-crypto-v2)",
    )
    _write_stamp(out, digest)
    return argv


BUILDERS = {"bc": build_java, "gmsm": build_go, "smjs": build_node}


class Peer:
    """A running peer process. ``call(op, **fields)`` sends one request and returns the
    reply; bytes-like field values are sent as hex, lists of them as lists of hex."""

    def __init__(self, name: str, argv: list[str]) -> None:
        self.name = name
        self.argv = argv
        self._stderr = open(BUILD_DIR / f"{name}.stderr.log", "w+b")  # noqa: SIM115 (kept open while it runs)
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, bufsize=0
        )
        self._buf = b""
        self._sel = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)
        info = self.call("version")
        self.version: str = info["version"]
        self.runtime: str = info.get("runtime", "")
        self.label = f"{info['library']} {self.version} ({self.runtime})"

    @staticmethod
    def _encode(v: Any) -> Any:
        if isinstance(v, (bytes, bytearray, memoryview)):
            return bytes(v).hex()
        if isinstance(v, (list, tuple)):
            return [Peer._encode(x) for x in v]
        return v

    def _readline(self) -> bytes:
        deadline = time.monotonic() + CALL_TIMEOUT
        assert self.proc.stdout is not None
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not self._sel.select(left):
                raise TimeoutError(f"{self.name} peer did not answer within {CALL_TIMEOUT} s")
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                self._stderr.seek(0)
                err = self._stderr.read().decode(errors="replace")[-2000:]
                raise RuntimeError(f"{self.name} peer exited (code {self.proc.poll()}): {err}")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        req = {"op": op, **{k: self._encode(v) for k, v in fields.items() if v is not None}}
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(req).encode() + b"\n")
        reply: dict[str, Any] = json.loads(self._readline())
        if not reply.pop("ok", False):
            raise PeerError(f"{self.name} {op}: {reply.get('error')}")
        return reply

    def get(self, op: str, field: str, **fields: Any) -> bytes:
        """``call`` and return one hex field of the reply as bytes."""
        return bytes.fromhex(self.call(op, **fields)[field])

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._sel.close()
        self._stderr.close()


def build_all(names: list[str]) -> dict[str, Any]:
    """Builds the peers in parallel; returns name -> argv, or name -> the exception
    (``PeerUnavailable``: skip; any other, e.g. a jar failing its pin: fail)."""
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}

    def one(name: str) -> tuple[str, Any]:
        try:
            return name, BUILDERS[name]()
        except Exception as e:  # PeerUnavailable skips; anything else (a pin mismatch) fails
            return name, e

    with ThreadPoolExecutor(len(names)) as pool:
        for name, res in pool.map(one, names):
            results[name] = res
    return results


def peer_param(*names: str) -> Any:
    """``@peer_param("bc", "gmsm")``: runs the test once per peer, ids carry the pinned
    version (e.g. ``gmsm-v0.44.0``); the test takes a ``peer`` argument."""
    return pytest.mark.parametrize(
        "peer", list(names), ids=[f"{n}-{VERSIONS[n]}" for n in names], indirect=True
    )


def rng(seed: str) -> random.Random:
    """A deterministic generator for a test's inputs (seeded by a string)."""
    return random.Random(seed)


#: Message lengths every byte-exact check covers.
LENGTHS = [0, 1, 15, 16, 17, 31, 32, 33, 64, 255, 1000]


def messages(seed: str, lengths: list[int] = LENGTHS) -> list[bytes]:
    r = rng(seed)
    return [r.randbytes(n) for n in lengths]


T = TypeVar("T")


def peer_valid(make: Callable[[], T], valid: Callable[[T], bool], tries: int = 3) -> T:
    """What ``make()`` returns (a peer's ciphertext or envelope), drawn again while the peer
    itself does not accept it (``valid``, for example the peer's own decryption): an output
    that its own maker rejects is the peer's bug, not a case for guomi, which must then
    handle whatever the peer accepts. At most ``tries`` draws; the last one is returned
    whatever ``valid`` says, so a peer that never accepts its output still fails the test.

    Needed for gmsm v0.44.0: about 1 in 3,000 of ``sm2.Encrypt``'s ciphertexts (and so of
    its PKCS #7 envelopes, whose key is SM2-encrypted) decrypts in neither gmsm,
    BouncyCastle nor sm-crypto (C3 matches no [d]C1), measured over 3,000 encryptions."""
    for _ in range(tries - 1):
        out = make()
        if valid(out):
            return out
    return make()


def peer_sm2_decrypts(peer: Peer, priv: bytes, ct: bytes, fmt: str) -> bool:
    """Whether ``peer`` decrypts the SM2 ciphertext ``ct`` (``fmt``: c1c3c2, c1c2c3, der)."""
    try:
        peer.call("sm2_decrypt", priv=priv, ct=ct, format=fmt)
    except PeerError:
        return False
    return True


def peer_pkcs7_decrypts(
    peer: Peer, der: bytes, cert: bytes, priv: bytes, flavour: Optional[str] = None
) -> bool:
    """Whether ``peer`` (gmsm) opens its own PKCS #7 envelope ``der`` with ``cert``/``priv``."""
    try:
        peer.call("pkcs7_decrypt", der=der, cert=cert, priv=priv, flavour=flavour)
    except PeerError:
        return False
    return True


if __name__ == "__main__":  # build every peer: python tests/interop/interop_peers.py
    t0 = time.monotonic()
    for n, r in build_all(list(BUILDERS)).items():
        print(n, r if isinstance(r, Exception) else "ok", file=sys.stderr)
    print(f"{time.monotonic() - t0:.1f} s", file=sys.stderr)
