"""`guomi pkcs12 create|info|extract` as real subprocesses: round trips in both
encryptions, OpenSSL reading the AES output, wrong passwords, refusals, atomic outputs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from guomi import keys, pkcs12, sm2, x509

VEC = Path(__file__).resolve().parent.parent / "vectors" / "pkcs12"
OPENSSL = shutil.which("openssl")


def g(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "guomi", *args],
        capture_output=True,
        cwd=cwd,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def ok(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    r = g(*args, cwd=cwd)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r


@pytest.fixture()
def d(tmp_path: Path) -> Path:
    for name in ("openssl3-leaf-key.pem", "openssl3-leaf-cert.pem", "openssl3-ca-cert.pem"):
        shutil.copy(VEC / name, tmp_path / name)
    (tmp_path / "pw").write_text("test1234\n")
    (tmp_path / "wrong").write_text("nope\n")
    return tmp_path


@pytest.mark.parametrize("encryption", ["sm", "aes"])
def test_create_info_extract(d: Path, encryption: str) -> None:
    ok(
        "pkcs12", "create", "-k", "openssl3-leaf-key.pem", "-c", "openssl3-leaf-cert.pem",
        "--chain", "openssl3-ca-cert.pem", "--name", "leaf", "--encryption", encryption,
        "--iterations", "1000", "--password-file", "pw", "-o", "out.p12", cwd=d,
    )  # fmt: skip
    key, cert, chain = pkcs12.load((d / "out.p12").read_bytes(), "test1234")
    assert key == sm2.PrivateKey.from_pem((d / "openssl3-leaf-key.pem").read_bytes())
    assert cert == x509.Certificate.from_pem((d / "openssl3-leaf-cert.pem").read_bytes())
    assert chain == [x509.Certificate.from_pem((d / "openssl3-ca-cert.pem").read_bytes())]
    info = ok("pkcs12", "info", "out.p12", "--password-file", "pw", cwd=d).stdout.decode()
    mac = "sm3" if encryption == "sm" else "sha256"
    assert f"MAC: {mac}, 1000 iterations" in info
    assert (
        "friendly name: leaf" in info and "certificate: CN=leaf" in info and "chain: CN=guomi test CA" in info
    )
    ok(
        "pkcs12", "extract", "out.p12", "--password-file", "pw", "--key-out", "k.pem",
        "--cert-out", "c.pem", "--chain-out", "ch.pem", cwd=d,
    )  # fmt: skip
    assert sm2.PrivateKey.from_pem((d / "k.pem").read_bytes()) == key
    assert x509.Certificate.from_pem((d / "c.pem").read_bytes()) == cert
    assert x509.load_pem_certificates((d / "ch.pem").read_bytes()) == chain
    # An encrypted key output.
    ok(
        "pkcs12", "extract", "out.p12", "--password-file", "pw", "--key-out", "ek.pem",
        "--out-password-file", "wrong", "--iterations", "1000", cwd=d,
    )  # fmt: skip
    assert keys.load_pem_private_key((d / "ek.pem").read_bytes(), password=b"nope") == key


def test_wrong_password_and_refusals(d: Path) -> None:
    ok(
        "pkcs12", "create", "-k", "openssl3-leaf-key.pem", "--iterations", "10",
        "--password-file", "pw", "-o", "out.p12", cwd=d,
    )  # fmt: skip
    r = g("pkcs12", "info", "out.p12", "--password-file", "wrong", cwd=d)
    assert r.returncode == 2 and b"wrong password" in r.stderr
    r = g("pkcs12", "extract", "out.p12", "--password-file", "wrong", "--key-out", "k.pem", cwd=d)
    assert r.returncode == 2 and not (d / "k.pem").exists()
    # Existing output is kept without --force.
    before = (d / "out.p12").read_bytes()
    r = g("pkcs12", "create", "-k", "openssl3-leaf-key.pem", "--password-file", "pw", "-o", "out.p12", cwd=d)
    assert r.returncode == 2 and (d / "out.p12").read_bytes() == before
    # Key that does not match the certificate.
    r = g(
        "pkcs12", "create", "-k", "openssl3-leaf-key.pem", "-c", "openssl3-ca-cert.pem",
        "--password-file", "pw", "-o", "bad.p12", cwd=d,
    )  # fmt: skip
    assert r.returncode == 2 and b"does not match" in r.stderr and not (d / "bad.p12").exists()
    r = g("pkcs12", "create", "--password-file", "pw", "-o", "x.p12", cwd=d)
    assert r.returncode == 2 and b"--key" in r.stderr
    r = g(
        "pkcs12",
        "create",
        "-k",
        "openssl3-leaf-key.pem",
        "--iterations",
        "0",
        "--password-file",
        "pw",
        "-o",
        "x.p12",
        cwd=d,
    )
    assert r.returncode == 2 and b"--iterations" in r.stderr
    r = g("pkcs12", "extract", "out.p12", "--password-file", "pw", cwd=d)
    assert r.returncode == 2 and b"--key-out" in r.stderr
    r = g("pkcs12", "extract", "out.p12", "--password-file", "pw", "--cert-out", "c.pem", cwd=d)
    assert r.returncode == 2 and b"no certificate" in r.stderr
    # No password file and no terminal: a usage error, not a hang.
    r = g("pkcs12", "info", "out.p12", cwd=d)
    assert r.returncode == 2 and b"--password-file" in r.stderr
    # Legacy file: named.
    shutil.copy(VEC / "openssl3-legacy-3des-sha1.p12", d / "legacy.p12")
    r = g("pkcs12", "info", "legacy.p12", "--password-file", "pw", cwd=d)
    assert r.returncode == 2 and b"KeyTripleDES" in r.stderr


@pytest.mark.skipif(OPENSSL is None, reason="openssl CLI not installed")
def test_openssl_reads_aes_output(d: Path) -> None:
    ok(
        "pkcs12", "create", "-k", "openssl3-leaf-key.pem", "-c", "openssl3-leaf-cert.pem",
        "--encryption", "aes", "--password-file", "pw", "-o", "out.p12", cwd=d,
    )  # fmt: skip
    r = subprocess.run(
        [str(OPENSSL), "pkcs12", "-in", "out.p12", "-passin", "pass:test1234", "-nodes", "-out", "all.pem"],
        cwd=d,
        capture_output=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    text = (d / "all.pem").read_bytes()
    assert sm2.PrivateKey.from_pem(
        text[text.index(b"-----BEGIN PRIVATE KEY-----") :]
    ) == sm2.PrivateKey.from_pem((d / "openssl3-leaf-key.pem").read_bytes())
