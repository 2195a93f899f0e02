"""`guomi cms sign|verify|encrypt|decrypt` run as real subprocesses: round trips, exit
codes, detached signatures, trust roots, PEM/DER, protected keys, refusing to clobber."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from guomi import cms, sm2, x509

VEC = Path(__file__).resolve().parent.parent / "vectors" / "cms"


def g(*args: str, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "guomi", *args], input=stdin, capture_output=True, cwd=cwd, timeout=300
    )


def ok(*args: str, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    r = g(*args, cwd=cwd, stdin=stdin)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r


@pytest.fixture()
def pki(tmp_path: Path) -> Path:
    ca_key = sm2.PrivateKey.generate()
    root = x509.CertificateBuilder(subject="CN=CLI Root").ca().self_sign(ca_key)
    key = sm2.PrivateKey.generate()
    cert = x509.CertificateBuilder(subject="CN=CLI Signer", public_key=key.public_key()).sign(root, ca_key)
    other = x509.CertificateBuilder(subject="CN=Other").ca().self_sign(sm2.PrivateKey.generate())
    (tmp_path / "root.pem").write_text(root.to_pem())
    (tmp_path / "other.pem").write_text(other.to_pem())
    (tmp_path / "cert.pem").write_text(cert.to_pem())
    (tmp_path / "key.pem").write_text(key.to_pem())
    (tmp_path / "pw").write_text("secret\n")
    (tmp_path / "key.enc.pem").write_text(key.to_pem(password=b"secret", iterations=1000))
    (tmp_path / "msg.txt").write_bytes(b"hello from the cli\n" * 100)
    return tmp_path


def test_sign_verify_attached(pki: Path) -> None:
    ok("cms", "sign", "-i", "msg.txt", "-o", "msg.p7s", "-k", "key.pem", "-c", "cert.pem", cwd=pki)
    r = ok("cms", "verify", "-i", "msg.p7s", "--trusted", "root.pem", "-o", "out.txt", cwd=pki)
    assert b"CN=CLI Signer" in r.stderr
    assert (pki / "out.txt").read_bytes() == (pki / "msg.txt").read_bytes()
    r = g("cms", "verify", "-i", "msg.p7s", "--trusted", "other.pem", cwd=pki)
    assert r.returncode == 1, r.stderr
    data = bytearray((pki / "msg.p7s").read_bytes())
    data[data.find(b"hello")] ^= 1
    (pki / "bad.p7s").write_bytes(bytes(data))
    assert g("cms", "verify", "-i", "bad.p7s", cwd=pki).returncode == 1


def test_sign_detached_pem_gm_protected_key(pki: Path) -> None:
    ok(
        "cms", "sign", "-i", "msg.txt", "-o", "d.pem", "-k", "key.enc.pem", "--password-file", "pw",
        "-c", "cert.pem", "--detached", "--outform", "pem", "--oid-style", "gm",
        "--signature-algorithm", "sm2", "--certfile", "root.pem", cwd=pki,
    )  # fmt: skip
    assert (pki / "d.pem").read_bytes().startswith(b"-----BEGIN CMS-----")
    ok("cms", "verify", "-i", "d.pem", "--content", "msg.txt", "--trusted", "root.pem", "-q", cwd=pki)
    (pki / "other.txt").write_bytes(b"something else")
    assert g("cms", "verify", "-i", "d.pem", "--content", "other.txt", cwd=pki).returncode == 1
    # detached without --content: a usage error
    assert g("cms", "verify", "-i", "d.pem", cwd=pki).returncode == 2


@pytest.mark.parametrize("cipher", ["sm4-cbc", "sm4-gcm"])
def test_encrypt_decrypt(pki: Path, cipher: str) -> None:
    ok("cms", "encrypt", "-i", "msg.txt", "-o", "msg.p7m", "-r", "cert.pem", "--cipher", cipher, cwd=pki)
    ok("cms", "decrypt", "-i", "msg.p7m", "-o", "back.txt", "-k", "key.pem", "-c", "cert.pem", cwd=pki)
    assert (pki / "back.txt").read_bytes() == (pki / "msg.txt").read_bytes()
    wrong = sm2.PrivateKey.generate()
    (pki / "wrong.pem").write_text(wrong.to_pem())
    r = g("cms", "decrypt", "-i", "msg.p7m", "-o", "x.txt", "-k", "wrong.pem", cwd=pki)
    assert r.returncode == 1 and not (pki / "x.txt").exists()


def test_refuses_to_clobber_and_bad_input(pki: Path) -> None:
    (pki / "exists").write_bytes(b"keep")
    r = g("cms", "sign", "-i", "msg.txt", "-o", "exists", "-k", "key.pem", "-c", "cert.pem", cwd=pki)
    assert r.returncode == 2 and (pki / "exists").read_bytes() == b"keep"
    ok("cms", "sign", "-i", "msg.txt", "-o", "exists", "-k", "key.pem", "-c", "cert.pem", "-f", cwd=pki)
    assert cms.verify((pki / "exists").read_bytes()).content == (pki / "msg.txt").read_bytes()
    (pki / "garbage").write_bytes(b"\x30\x80garbage")
    assert g("cms", "verify", "-i", "garbage", cwd=pki).returncode == 2
    assert g("cms", "decrypt", "-i", "garbage", "-o", "-", "-k", "key.pem", cwd=pki).returncode == 2
    assert (
        g("cms", "sign", "-i", "missing", "-o", "-", "-k", "key.pem", "-c", "cert.pem", cwd=pki).returncode
        == 2
    )


def test_stdin_stdout(pki: Path) -> None:
    r = ok("cms", "sign", "-i", "-", "-o", "-", "-k", "key.pem", "-c", "cert.pem", cwd=pki, stdin=b"piped")
    r = ok("cms", "verify", "-i", "-", "-o", "-", "-q", cwd=pki, stdin=r.stdout)
    assert r.stdout == b"piped"


def test_peer_vectors(tmp_path: Path) -> None:
    ok(
        "cms",
        "verify",
        "-i",
        str(VEC / "bc-signed-ber.p7s"),
        "--trusted",
        str(VEC / "root.pem"),
        cwd=tmp_path,
    )
    ok(
        "cms", "decrypt", "-i", str(VEC / "gmsm-enveloped-gm-gcm.p7m"), "-o", "pt",
        "-k", str(VEC / "signer.key"), cwd=tmp_path,
    )  # fmt: skip
    assert (tmp_path / "pt").read_bytes() == (VEC / "content.txt").read_bytes()


def test_help() -> None:
    for action in ("sign", "verify", "encrypt", "decrypt"):
        r = subprocess.run([sys.executable, "-m", "guomi", "cms", action, "--help"], capture_output=True)
        assert r.returncode == 0 and b"usage" in r.stdout


def test_verify_purpose(tmp_path: Path) -> None:
    # A signer certificate whose extKeyUsage is serverAuth: not an S/MIME signer (the default
    # purpose), accepted with --purpose any; unknown purposes are a usage error.
    ca_key = sm2.PrivateKey.generate()
    root = x509.CertificateBuilder(subject="CN=CLI Root").ca().self_sign(ca_key)
    key = sm2.PrivateKey.generate()
    cert = (
        x509.CertificateBuilder(subject="CN=Server", public_key=key.public_key())
        .with_extended_key_usage(["serverAuth"])
        .sign(root, ca_key)
    )
    (tmp_path / "root.pem").write_text(root.to_pem())
    (tmp_path / "m.p7s").write_bytes(cms.sign(b"m", key, cert))
    r = g("cms", "verify", "-i", "m.p7s", "--trusted", "root.pem", cwd=tmp_path)
    assert r.returncode == 1 and b"emailProtection" in r.stderr, r.stderr
    r = ok("cms", "verify", "-i", "m.p7s", "--trusted", "root.pem", "--purpose", "any", cwd=tmp_path)
    assert b"verified" in r.stderr
    r = g("cms", "verify", "-i", "m.p7s", "--purpose", "bogus", cwd=tmp_path)
    assert r.returncode == 2
