"""`guomi sm2 ...` and `guomi x509 ...` run as real subprocesses: round trips, exit codes,
atomic output, big files in flat memory, OpenSSL interop, wrong passwords, corrupt PEM."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from guomi import keys, sm2, x509

OPENSSL = shutil.which("openssl")
needs_openssl = pytest.mark.skipif(OPENSSL is None, reason="openssl CLI not installed")
DISTID = "distid:1234567812345678"


def g(*args: str, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "guomi", *args], input=stdin, capture_output=True, cwd=cwd, timeout=300
    )


def ok(*args: str, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    r = g(*args, cwd=cwd, stdin=stdin)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r


_PEAK = """
import sys
from guomi.cli import main
rc = main(sys.argv[2:])
with open("/proc/self/status") as f:
    hwm = next(line.split()[1] for line in f if line.startswith("VmHWM"))
with open(sys.argv[1], "w") as f:
    f.write(hwm)
sys.exit(rc)
"""


def run_peak_rss(*args: str, cwd: Path) -> int:
    """Runs the CLI entry point in a fresh interpreter; returns its peak RSS in KiB
    (VmHWM of its own address space: a forked parent's pages do not count)."""
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc (Linux) to read the peak RSS")
    r = subprocess.run(
        [sys.executable, "-c", _PEAK, str(cwd / ".hwm"), *args], cwd=cwd, capture_output=True, timeout=300
    )
    assert r.returncode == 0, (args, r.stderr)
    return int((cwd / ".hwm").read_text())


@pytest.fixture()
def keydir(tmp_path: Path) -> Path:
    (tmp_path / "pw").write_text("correct horse\n")
    ok("sm2", "keygen", "--out", "key.pem", "--password-file", "pw", "--iterations", "1000", cwd=tmp_path)
    ok("sm2", "pubkey", "--key", "key.pem", "--password-file", "pw", "--out", "pub.pem", cwd=tmp_path)
    return tmp_path


def test_help_everywhere(tmp_path: Path) -> None:
    for cmd in (
        ["sm2"],
        *[["sm2", a] for a in ("keygen", "pubkey", "sign", "verify", "encrypt", "decrypt", "convert")],
        ["x509"],
        *[["x509", a] for a in ("req", "selfsign", "issue", "verify", "show")],
    ):
        r = g(*cmd, "--help", cwd=tmp_path)
        assert r.returncode == 0 and b"usage:" in r.stdout, cmd
    assert g("sm2", cwd=tmp_path).returncode == 2
    assert g("sm2", "sign", "--key", "k.pem", cwd=tmp_path).returncode == 2  # missing --in/--out


def test_keygen_pubkey_and_protection(keydir: Path) -> None:
    pem = (keydir / "key.pem").read_text()
    assert pem.startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")
    assert (keydir / "key.pem").stat().st_mode & 0o077 == 0  # private to the owner
    key = keys.load_pem_private_key(pem, password=b"correct horse")
    assert sm2.PublicKey.from_pem((keydir / "pub.pem").read_text()) == key.public_key()
    # Plain key, SEC1 and DER forms.
    ok("sm2", "keygen", "--out", "plain.pem", "--format", "sec1", cwd=keydir)
    assert (keydir / "plain.pem").read_text().startswith("-----BEGIN EC PRIVATE KEY-----")
    ok("sm2", "keygen", "--out", "k.der", "--outform", "der", cwd=keydir)
    sm2.PrivateKey.from_der((keydir / "k.der").read_bytes())
    # No overwrite without --force; the file stays as it was.
    r = g("sm2", "keygen", "--out", "key.pem", cwd=keydir)
    assert r.returncode == 2 and b"--force" in r.stderr
    assert (keydir / "key.pem").read_text() == pem
    ok("sm2", "keygen", "--out", "key.pem", "--force", cwd=keydir)
    assert (keydir / "key.pem").read_text() != pem


def test_wrong_password_and_corrupt_pem(keydir: Path) -> None:
    (keydir / "bad").write_text("wrong\n")
    r = g("sm2", "pubkey", "--key", "key.pem", "--password-file", "bad", "--out", "p2.pem", cwd=keydir)
    assert r.returncode == 2 and b"wrong password" in r.stderr and not (keydir / "p2.pem").exists()
    # No password and no terminal: a clear usage error, not a hang.
    r = g("sm2", "pubkey", "--key", "key.pem", "--out", "p2.pem", cwd=keydir)
    assert r.returncode == 2 and b"--password-file" in r.stderr
    lines = (keydir / "key.pem").read_text().splitlines()
    (keydir / "corrupt.pem").write_text("\n".join([lines[0], "@@@@" + lines[1][4:], *lines[2:]]) + "\n")
    r = g("sm2", "pubkey", "--key", "corrupt.pem", "--password-file", "pw", "--out", "p3.pem", cwd=keydir)
    assert r.returncode == 2 and b"corrupt.pem" in r.stderr and not (keydir / "p3.pem").exists()
    r = g("sm2", "pubkey", "--key", "missing.pem", "--out", "p4.pem", cwd=keydir)
    assert r.returncode == 2 and b"missing.pem" in r.stderr


def test_sign_verify(keydir: Path) -> None:
    data = os.urandom(3 << 20)
    (keydir / "f").write_bytes(data)
    ok("sm2", "sign", "--key", "key.pem", "--password-file", "pw", "--in", "f", "--out", "f.sig", cwd=keydir)
    sig = (keydir / "f.sig").read_bytes()
    key = keys.load_pem_private_key((keydir / "key.pem").read_text(), password=b"correct horse")
    assert key.public_key().verify(sig, data)  # default ID, DER
    r = ok("sm2", "verify", "--pubkey", "pub.pem", "--in", "f", "--sig", "f.sig", cwd=keydir)
    assert r.stdout == b"Signature OK\n"
    (keydir / "f").write_bytes(data + b"!")
    r = g("sm2", "verify", "--pubkey", "pub.pem", "--in", "f", "--sig", "f.sig", cwd=keydir)
    assert r.returncode == 1 and b"FAILED" in r.stdout
    # stdin, raw signatures, a custom ID.
    ok(
        "sm2",
        "sign",
        "--key",
        "key.pem",
        "--password-file",
        "pw",
        "--in",
        "-",
        "--out",
        "m.sig",
        "--sig-format",
        "raw",
        "--uid",
        "alice@example.com",
        cwd=keydir,
        stdin=b"message",
    )
    assert len((keydir / "m.sig").read_bytes()) == 64
    (keydir / "m").write_bytes(b"message")
    ok("sm2", "verify", "-p", "pub.pem", "-i", "m", "-s", "m.sig", "--uid", "alice@example.com", cwd=keydir)
    assert g("sm2", "verify", "-p", "pub.pem", "-i", "m", "-s", "m.sig", cwd=keydir).returncode == 1
    # A private key where a public key belongs is a usage error.
    assert g("sm2", "verify", "-p", "key.pem", "-i", "m", "-s", "m.sig", cwd=keydir).returncode == 2


def test_encrypt_decrypt_and_tampering(keydir: Path) -> None:
    data = os.urandom(300_000)
    (keydir / "f").write_bytes(data)
    ok(
        "sm2",
        "encrypt",
        "--pubkey",
        "pub.pem",
        "--in",
        "f",
        "--out",
        "f.gm",
        "--chunk-size",
        "4096",
        cwd=keydir,
    )
    env = (keydir / "f.gm").read_bytes()
    assert env[:8] == b"GUOMIENV" and env[9] == 1
    ok(
        "sm2",
        "decrypt",
        "--key",
        "key.pem",
        "--password-file",
        "pw",
        "--in",
        "f.gm",
        "--out",
        "f.out",
        cwd=keydir,
    )
    assert (keydir / "f.out").read_bytes() == data
    # Pipes.
    r = ok(
        "sm2",
        "decrypt",
        "--key",
        "key.pem",
        "--password-file",
        "pw",
        "--in",
        "-",
        "--out",
        "-",
        cwd=keydir,
        stdin=env,
    )
    assert r.stdout == data
    rec = 4096 + 16
    head = 30 + 65
    cases = {
        "truncated": env[: head + 3 * rec],
        "cut": env[:-1],
        "reordered": env[:head]
        + env[head + rec : head + 2 * rec]
        + env[head : head + rec]
        + env[head + 2 * rec :],
        "tampered": env[:1000] + bytes([env[1000] ^ 1]) + env[1001:],
        "c1": env[:40] + bytes([env[40] ^ 1]) + env[41:],
    }
    for name, bad in cases.items():
        (keydir / f"{name}.gm").write_bytes(bad)
        r = g(
            "sm2",
            "decrypt",
            "--key",
            "key.pem",
            "--password-file",
            "pw",
            "--in",
            f"{name}.gm",
            "--out",
            f"{name}.out",
            cwd=keydir,
        )
        assert r.returncode == 1, name
        assert b"nothing was written" in r.stderr
        assert not (keydir / f"{name}.out").exists(), name
        assert not list(keydir.glob(f".{name}.out.*")), name  # no temporary left behind
    # A failed decryption leaves an existing target untouched, even with --force.
    (keydir / "keep").write_bytes(b"precious")
    r = g(
        "sm2",
        "decrypt",
        "--key",
        "key.pem",
        "--password-file",
        "pw",
        "--in",
        "tampered.gm",
        "--out",
        "keep",
        "--force",
        cwd=keydir,
    )
    assert r.returncode == 1 and (keydir / "keep").read_bytes() == b"precious"
    # Another key cannot open it; the input is never overwritten.
    ok("sm2", "keygen", "--out", "other.pem", cwd=keydir)
    assert g("sm2", "decrypt", "--key", "other.pem", "--in", "f.gm", "--out", "x", cwd=keydir).returncode == 1
    r = g("sm2", "encrypt", "--pubkey", "pub.pem", "--in", "f", "--out", "f", "--force", cwd=keydir)
    assert r.returncode == 2 and (keydir / "f").read_bytes() == data


def test_big_file_flat_memory(keydir: Path) -> None:
    size = 200 << 20
    with open(keydir / "big", "wb") as f:
        block = os.urandom(1 << 20)
        for _ in range(size >> 20):
            f.write(block)
    peaks = [
        run_peak_rss("sm2", "encrypt", "-p", "pub.pem", "-i", "big", "-o", "big.gm", "-q", cwd=keydir),
        run_peak_rss(
            "sm2",
            "decrypt",
            "-k",
            "key.pem",
            "--password-file",
            "pw",
            "-i",
            "big.gm",
            "-o",
            "big.out",
            "-q",
            cwd=keydir,
        ),
    ]
    assert (keydir / "big.out").stat().st_size == size
    with open(keydir / "big", "rb") as a, open(keydir / "big.out", "rb") as b:
        while True:
            x, y = a.read(1 << 22), b.read(1 << 22)
            assert x == y
            if not x:
                break
    # Flat: far below the 200 MiB that buffering the file would take.
    print(f"peak RSS of encrypt, decrypt: {peaks} KiB")
    assert max(peaks) < 64 * 1024, f"peak RSS {peaks} KiB"


def test_killed_mid_write_leaves_no_partial_output(keydir: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "guomi", "sm2", "encrypt", "-p", "pub.pem", "-i", "-", "-o", "out.gm", "-q"],
        cwd=keydir,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    proc.stdin.write(os.urandom(4 << 20))
    proc.stdin.flush()
    deadline = time.time() + 20
    while not list(keydir.glob(".out.gm.*")) and time.time() < deadline:
        time.sleep(0.05)
    assert list(keydir.glob(".out.gm.*")), "the temporary file beside the target exists while writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert not (keydir / "out.gm").exists()


def test_convert(keydir: Path) -> None:
    key = keys.load_pem_private_key((keydir / "key.pem").read_text(), password=b"correct horse")
    ok("sm2", "convert", "--in", "key.pem", "--password-file", "pw", "--out", "plain.pem", cwd=keydir)
    assert sm2.PrivateKey.from_pem((keydir / "plain.pem").read_text()) == key
    ok(
        "sm2",
        "convert",
        "--in",
        "plain.pem",
        "--to",
        "sec1",
        "--outform",
        "der",
        "--out",
        "k.der",
        cwd=keydir,
    )
    assert sm2.PrivateKey.from_der((keydir / "k.der").read_bytes()) == key
    ok("sm2", "convert", "--in", "k.der", "--out", "k8.pem", cwd=keydir)
    assert (keydir / "k8.pem").read_text().startswith("-----BEGIN PRIVATE KEY-----")
    (keydir / "pw2").write_text("new pass\n")
    ok(
        "sm2",
        "convert",
        "--in",
        "k8.pem",
        "--to",
        "encrypted",
        "--out-password-file",
        "pw2",
        "--prf",
        "hmac-sha256",
        "--out",
        "enc.pem",
        cwd=keydir,
    )
    assert keys.load_pem_private_key((keydir / "enc.pem").read_text(), password=b"new pass") == key
    ok(
        "sm2",
        "convert",
        "--in",
        "enc.pem",
        "--password-file",
        "pw2",
        "--to",
        "public",
        "--out",
        "p.der",
        "--outform",
        "der",
        cwd=keydir,
    )
    assert sm2.PublicKey.from_der((keydir / "p.der").read_bytes()) == key.public_key()
    ok("sm2", "convert", "--in", "p.der", "--out", "p.pem", cwd=keydir)
    assert sm2.PublicKey.from_pem((keydir / "p.pem").read_text()) == key.public_key()
    assert g("sm2", "convert", "--in", "p.pem", "--to", "sec1", "--out", "z", cwd=keydir).returncode == 2


def _pki(d: Path) -> None:
    ok("sm2", "keygen", "--out", "ca.key", cwd=d)
    ok(
        "x509",
        "selfsign",
        "--key",
        "ca.key",
        "--subject",
        "CN=Root CA",
        "--ca",
        "--days",
        "3650",
        "--out",
        "ca.pem",
        cwd=d,
    )
    ok("sm2", "keygen", "--out", "int.key", cwd=d)
    ok("x509", "req", "--key", "int.key", "--subject", "CN=Issuing CA", "--out", "int.csr", cwd=d)
    ok(
        "x509",
        "issue",
        "--ca-cert",
        "ca.pem",
        "--ca-key",
        "ca.key",
        "--csr",
        "int.csr",
        "--ca",
        "--path-len",
        "0",
        "--days",
        "1000",
        "--out",
        "int.pem",
        cwd=d,
    )
    ok(
        "x509",
        "req",
        "--key",
        "key.pem",
        "--password-file",
        "pw",
        "--subject",
        "CN=leaf,O=Example",
        "--san",
        "dns:leaf.example",
        "--out",
        "leaf.csr",
        cwd=d,
    )
    ok(
        "x509",
        "issue",
        "--ca-cert",
        "int.pem",
        "--ca-key",
        "int.key",
        "--csr",
        "leaf.csr",
        "--days",
        "365",
        "--eku",
        "serverAuth",
        "--out",
        "leaf.pem",
        cwd=d,
    )


def test_x509_req_selfsign_issue_verify_show(keydir: Path) -> None:
    _pki(keydir)
    root = x509.Certificate.from_pem((keydir / "ca.pem").read_text())
    inter = x509.Certificate.from_pem((keydir / "int.pem").read_text())
    leaf = x509.Certificate.from_pem((keydir / "leaf.pem").read_text())
    assert root.basic_constraints == x509.BasicConstraints(True, None)
    assert (root.not_valid_after - root.not_valid_before).days == 3650
    assert inter.basic_constraints == x509.BasicConstraints(True, 0)
    assert leaf.subject == "CN=leaf,O=Example" and leaf.issuer == "CN=Issuing CA"
    assert leaf.subject_alternative_names == [("dns", "leaf.example")]
    assert x509.verify_chain(leaf, [inter], [root], purpose="serverAuth")
    r = ok("x509", "verify", "--trusted", "ca.pem", "--untrusted", "int.pem", "leaf.pem", cwd=keydir)
    assert r.stdout == b"leaf.pem: OK\n"
    r = g("x509", "verify", "--trusted", "ca.pem", "leaf.pem", cwd=keydir)
    assert r.returncode == 1 and b'certificate "CN=leaf,O=Example"' in r.stdout and b"not found" in r.stdout
    r = g(
        "x509",
        "verify",
        "--trusted",
        "ca.pem",
        "--untrusted",
        "int.pem",
        "--at",
        "2100-01-01T00:00:00Z",
        "leaf.pem",
        cwd=keydir,
    )
    assert r.returncode == 1 and b"expired" in r.stdout
    r = g(
        "x509",
        "verify",
        "--trusted",
        "ca.pem",
        "--untrusted",
        "int.pem",
        "--purpose",
        "codeSigning",
        "leaf.pem",
        cwd=keydir,
    )
    assert r.returncode == 1 and b"codeSigning" in r.stdout
    # A leaf cannot issue: the CLI refuses and says why.
    r = g(
        "x509",
        "issue",
        "--ca-cert",
        "leaf.pem",
        "--ca-key",
        "key.pem",
        "--password-file",
        "pw",
        "--csr",
        "int.csr",
        "--out",
        "x.pem",
        cwd=keydir,
    )
    assert r.returncode == 2 and b"not a CA" in r.stderr and not (keydir / "x.pem").exists()
    # show
    r = ok("x509", "show", "leaf.pem", cwd=keydir)
    out = r.stdout.decode()
    assert "Subject:             CN=leaf,O=Example" in out
    assert "SM2-with-SM3 (1.2.156.10197.1.501)" in out
    assert f"SM3 fingerprint:     {leaf.fingerprint().hex()}" in out
    assert "dns:leaf.example" in out and "serverAuth" in out
    r = ok("x509", "show", "leaf.csr", cwd=keydir)
    assert b"Certificate request:" in r.stdout and b"Signature:           valid" in r.stdout
    (keydir / "junk.pem").write_text("-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n")
    r = g("x509", "show", "junk.pem", cwd=keydir)
    assert r.returncode == 2 and b"junk.pem" in r.stderr
    # A tampered CSR is refused by issue.
    der = bytearray(x509.CertificateSigningRequest.from_pem((keydir / "leaf.csr").read_text()).to_der())
    der[-2] ^= 1
    (keydir / "bad.csr").write_bytes(bytes(der))
    r = g(
        "x509",
        "issue",
        "--ca-cert",
        "int.pem",
        "--ca-key",
        "int.key",
        "--csr",
        "bad.csr",
        "--out",
        "y.pem",
        cwd=keydir,
    )
    assert r.returncode == 2 and b"signature" in r.stderr


@needs_openssl
def test_openssl_interop_cli(keydir: Path) -> None:
    _pki(keydir)

    def osl(*args: str) -> subprocess.CompletedProcess[bytes]:
        assert OPENSSL is not None
        return subprocess.run([OPENSSL, *args], cwd=keydir, capture_output=True, timeout=60)

    # guomi certificates and CSRs in OpenSSL (OpenSSL 3.0 checks one SM2 link per call).
    r = osl("verify", "-vfyopt", DISTID, "-CAfile", "ca.pem", "int.pem")
    assert r.returncode == 0, r.stderr
    r = osl("verify", "-vfyopt", DISTID, "-partial_chain", "-CAfile", "int.pem", "leaf.pem")
    assert r.returncode == 0, r.stderr
    assert osl("req", "-in", "leaf.csr", "-noout", "-verify", "-vfyopt", DISTID).returncode == 0
    # An OpenSSL key, request and self-signed certificate in guomi.
    assert osl("genpkey", "-algorithm", "SM2", "-out", "o.key").returncode == 0
    r = osl(
        "req",
        "-new",
        "-key",
        "o.key",
        "-sm3",
        "-sigopt",
        DISTID,
        "-subj",
        "/CN=from openssl",
        "-out",
        "o.csr",
    )
    assert r.returncode == 0, r.stderr
    ok(
        "x509",
        "issue",
        "--ca-cert",
        "int.pem",
        "--ca-key",
        "int.key",
        "--csr",
        "o.csr",
        "--out",
        "o.pem",
        cwd=keydir,
    )
    ok("x509", "verify", "--trusted", "ca.pem", "--untrusted", "int.pem", "o.pem", cwd=keydir)
    r = osl(
        "req",
        "-x509",
        "-key",
        "o.key",
        "-sm3",
        "-sigopt",
        DISTID,
        "-subj",
        "/CN=O Root",
        "-days",
        "2",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-out",
        "oroot.pem",
    )
    assert r.returncode == 0, r.stderr
    ok("x509", "verify", "--trusted", "oroot.pem", "oroot.pem", cwd=keydir)
    # OpenSSL-protected key into guomi sign; guomi signature verified by OpenSSL.
    r = osl(
        "pkcs8",
        "-topk8",
        "-v2",
        "sm4-cbc",
        "-v2prf",
        "hmacWithSHA256",
        "-in",
        "o.key",
        "-passout",
        "file:pw",
        "-out",
        "oenc.pem",
    )
    assert r.returncode == 0, r.stderr
    (keydir / "msg").write_bytes(b"interop message")
    ok(
        "sm2",
        "sign",
        "--key",
        "oenc.pem",
        "--password-file",
        "pw",
        "--in",
        "msg",
        "--out",
        "msg.sig",
        cwd=keydir,
    )
    assert osl("pkey", "-in", "o.key", "-pubout", "-out", "o.pub").returncode == 0
    r = osl(
        "pkeyutl",
        "-verify",
        "-digest",
        "sm3",
        "-rawin",
        "-pubin",
        "-inkey",
        "o.pub",
        "-pkeyopt",
        DISTID,
        "-in",
        "msg",
        "-sigfile",
        "msg.sig",
    )
    assert r.returncode == 0 and b"Signature Verified Successfully" in r.stdout, r.stdout + r.stderr


def test_encrypt_to_certificate_and_non_envelope_input(keydir: Path) -> None:
    ok(
        "x509",
        "selfsign",
        "--key",
        "key.pem",
        "--password-file",
        "pw",
        "--subject",
        "CN=me",
        "--out",
        "me.pem",
        cwd=keydir,
    )
    (keydir / "f").write_bytes(b"to whoever holds the certificate's key")
    ok("sm2", "encrypt", "--pubkey", "me.pem", "--in", "f", "--out", "f.gm", cwd=keydir)
    r = ok(
        "sm2",
        "decrypt",
        "--key",
        "key.pem",
        "--password-file",
        "pw",
        "--in",
        "f.gm",
        "--out",
        "-",
        cwd=keydir,
    )
    assert r.stdout == (keydir / "f").read_bytes()
    r = g(
        "sm2", "decrypt", "--key", "key.pem", "--password-file", "pw", "--in", "f", "--out", "x", cwd=keydir
    )
    assert r.returncode == 2 and b"not a guomi envelope" in r.stderr and not (keydir / "x").exists()
