"""Protected SM2 private keys: PKCS#8 PBES2 (PBKDF2 HMAC-SM3 / HMAC-SHA256, SM4-CBC) and
legacy DEK-Info SM4-CBC PEM, with OpenSSL 3 and an independent (pyca/cryptography)
implementation as cross-checks."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

from guomi import keys, sm2
from guomi.exceptions import InvalidKey, UnsupportedFormat

OPENSSL = shutil.which("openssl")
needs_openssl = pytest.mark.skipif(OPENSSL is None, reason="openssl CLI not installed")


def openssl(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    assert OPENSSL is not None
    return subprocess.run([OPENSSL, *args], cwd=cwd, capture_output=True, timeout=60)


# --- DER helpers for an independent encoder (GmSSL 3 layout) ------------------------


def _tlv(tag: int, body: bytes) -> bytes:
    n = len(body)
    if n < 0x80:
        return bytes([tag, n]) + body
    ln = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(ln)]) + ln + body


def _oid(dotted: str) -> bytes:
    parts = [int(p) for p in dotted.split(".")]
    out = bytearray([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        enc = [p & 0x7F]
        p >>= 7
        while p:
            enc.append(0x80 | (p & 0x7F))
            p >>= 7
        out += bytes(reversed(enc))
    return _tlv(0x06, bytes(out))


def _int(v: int) -> bytes:
    b = v.to_bytes((v.bit_length() + 8) // 8, "big")
    return _tlv(0x02, b)


SM2_CURVE = _oid("1.2.156.10197.1.301")


def gmssl_pkcs8(key: sm2.PrivateKey) -> bytes:
    """PrivateKeyInfo as GmSSL 3 writes it inside its encrypted keys (and guomi now too):
    the ECPrivateKey carries [0] sm2p256v1 and [1] publicKey."""
    ec = _tlv(
        0x30,
        _int(1)
        + _tlv(0x04, key.to_bytes())
        + _tlv(0xA0, SM2_CURVE)
        + _tlv(0xA1, _tlv(0x03, b"\x00" + key.public_key().to_bytes())),
    )
    alg = _tlv(0x30, _oid("1.2.840.10045.2.1") + SM2_CURVE)
    return _tlv(0x30, _int(0) + alg + _tlv(0x04, ec))


def gmssl_style_encrypted_key(
    key: sm2.PrivateKey, password: bytes, iterations: int, *, prf_null: bool = False, curve: bool = True
) -> bytes:
    """EncryptedPrivateKeyInfo as GmSSL 3 writes it (PRF AlgorithmIdentifier without
    parameters, keyLength 16, ECPrivateKey with [0]), built with pyca/cryptography's
    PBKDF2-HMAC-SM3 and SM4-CBC (not guomi's). ``prf_null`` / ``curve=False``: the PRF
    with NULL and the ECPrivateKey without [0], as gmsm (and guomi before) writes them."""
    salt, iv = os.urandom(16), os.urandom(16)
    k = PBKDF2HMAC(hashes.SM3(), 16, salt, iterations).derive(password)
    padder = padding.PKCS7(128).padder()
    inner = gmssl_pkcs8(key) if curve else key.to_der(format="pkcs8")
    body = padder.update(inner) + padder.finalize()
    enc = Cipher(algorithms.SM4(k), modes.CBC(iv)).encryptor()
    ct = enc.update(body) + enc.finalize()
    prf = _tlv(0x30, _oid("1.2.156.10197.1.401.2") + (b"\x05\x00" if prf_null else b""))
    params = _tlv(0x04, salt) + _int(iterations) + _int(16) + prf
    kdf = _tlv(0x30, _oid("1.2.840.113549.1.5.12") + _tlv(0x30, params))
    encs = _tlv(0x30, _oid("1.2.156.10197.1.104.2") + _tlv(0x04, iv))
    alg = _tlv(0x30, _oid("1.2.840.113549.1.5.13") + _tlv(0x30, kdf + encs))
    return _tlv(0x30, alg + _tlv(0x04, ct))


def pem(label: str, der: bytes) -> str:
    b = base64.b64encode(der).decode()
    lines = [b[i : i + 64] for i in range(0, len(b), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----\n"


def independent_decrypt(der: bytes, password: bytes) -> bytes:
    """Decrypts guomi's HMAC-SM3 output with pyca/cryptography, reading the fields at the
    fixed offsets of the layout guomi writes (16-byte salt, no keyLength)."""
    salt_at = der.index(bytes([0x04, 0x10])) + 2
    salt = der[salt_at : salt_at + 16]
    it_tag = salt_at + 16
    assert der[it_tag] == 0x02
    n = der[it_tag + 1]
    iterations = int.from_bytes(der[it_tag + 2 : it_tag + 2 + n], "big")
    iv_at = der.index(bytes([0x04, 0x10]), it_tag) + 2
    iv = der[iv_at : iv_at + 16]
    body = der[iv_at + 16 :]
    assert body[0] == 0x04
    hl = 2 if body[1] < 0x80 else 2 + (body[1] & 0x7F)
    ct = body[hl:]
    k = PBKDF2HMAC(hashes.SM3(), 16, salt, iterations).derive(password)
    dec = Cipher(algorithms.SM4(k), modes.CBC(iv)).decryptor()
    pt = dec.update(ct) + dec.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    return unpadder.update(pt) + unpadder.finalize()


# --- round trips ---------------------------------------------------------------------


@pytest.mark.parametrize("prf", ["hmac-sm3", "hmac-sha256"])
def test_round_trip_pem_and_der(prf: str) -> None:
    key = sm2.PrivateKey.generate()
    p = keys.dump_pem_private_key(key, password="pässword", prf=prf, iterations=500)
    assert p.startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----\n")
    assert keys.is_encrypted_pem(p)
    assert keys.load_pem_private_key(p, password="pässword".encode()) == key
    assert keys.load_pem_private_key(p.encode(), password="pässword") == key
    d = keys.dump_der_private_key(key, password=b"x", prf=prf, iterations=10)
    assert keys.load_der_private_key(d, password=b"x") == key
    # Fresh salt and IV every time.
    assert keys.dump_der_private_key(key, password=b"x", prf=prf, iterations=10) != d


def test_plain_keys_pass_through() -> None:
    key = sm2.PrivateKey.generate()
    for fmt in ("pkcs8", "sec1"):
        p = keys.dump_pem_private_key(key, format=fmt)
        assert not keys.is_encrypted_pem(p)
        assert keys.load_pem_private_key(p) == key
        assert keys.load_der_private_key(keys.dump_der_private_key(key, format=fmt)) == key


def test_default_iterations_like_gmssl() -> None:
    assert keys.DEFAULT_ITERATIONS == 65536
    key = sm2.PrivateKey.generate()
    der = keys.dump_der_private_key(key, password=b"pw")
    assert _int(65536) in der


def test_hmac_sm3_output_decrypts_with_an_independent_implementation() -> None:
    key = sm2.PrivateKey.generate()
    der = keys.dump_der_private_key(key, password=b"secret", prf="hmac-sm3", iterations=1000)
    # prf {hmacWithSM3} without parameters: GmSSL 3.1.1 refuses a NULL there.
    assert _tlv(0x30, _oid("1.2.156.10197.1.401.2")) in der
    assert _oid("1.2.156.10197.1.401.2") + b"\x05\x00" not in der
    assert _oid("1.2.156.10197.1.104.2") in der  # SM4-CBC
    # The ECPrivateKey inside carries [0] sm2p256v1 (GmSSL 3.1.1 requires it).
    assert independent_decrypt(der, b"secret") == gmssl_pkcs8(key)


def test_hmac_sha256_prf_keeps_null() -> None:
    key = sm2.PrivateKey.generate()
    der = keys.dump_der_private_key(key, password=b"secret", prf="hmac-sha256", iterations=10)
    assert _tlv(0x30, _oid("1.2.840.113549.2.9") + b"\x05\x00") in der  # as OpenSSL writes it


@pytest.mark.parametrize("prf_null", [False, True], ids=["prf-absent", "prf-null"])
@pytest.mark.parametrize("curve", [True, False], ids=["with-curve", "without-curve"])
def test_gmssl_layout_written_independently_loads(prf_null: bool, curve: bool) -> None:
    key = sm2.PrivateKey.generate()
    der = gmssl_style_encrypted_key(key, b"gmssl-pass", 2048, prf_null=prf_null, curve=curve)
    assert keys.load_der_private_key(der, password=b"gmssl-pass") == key
    assert keys.load_pem_private_key(pem("ENCRYPTED PRIVATE KEY", der), password=b"gmssl-pass") == key
    with pytest.raises(InvalidKey):
        keys.load_der_private_key(der, password=b"gmssl-pasS")


# --- failures ------------------------------------------------------------------------


@pytest.mark.parametrize("prf", ["hmac-sm3", "hmac-sha256"])
def test_wrong_password_is_opaque_invalid_key(prf: str) -> None:
    key = sm2.PrivateKey.generate()
    p = keys.dump_pem_private_key(key, password=b"right", prf=prf, iterations=10)
    messages = set()
    for wrong in (b"wrong", b"Right", b"right ", b"\x00" * 40):
        with pytest.raises(InvalidKey) as e:
            keys.load_pem_private_key(p, password=wrong)
        messages.add(str(e.value))
    assert len(messages) == 1  # no detail that tells failures apart


def test_password_presence_mismatch_is_type_error() -> None:
    key = sm2.PrivateKey.generate()
    enc = keys.dump_pem_private_key(key, password=b"pw", iterations=10)
    with pytest.raises(TypeError, match="password is needed"):
        keys.load_pem_private_key(enc)
    with pytest.raises(TypeError, match="password is needed"):
        keys.load_der_private_key(keys.dump_der_private_key(key, password=b"pw", iterations=10))
    with pytest.raises(TypeError, match="not encrypted"):
        keys.load_pem_private_key(key.to_pem(), password=b"pw")
    with pytest.raises(TypeError, match="not encrypted"):
        keys.load_der_private_key(key.to_der(), password=b"pw")


def test_tampered_ciphertext_never_yields_a_key() -> None:
    key = sm2.PrivateKey.generate()
    der = bytearray(keys.dump_der_private_key(key, password=b"pw", iterations=10))
    for pos in range(len(der) - 140, len(der), 5):
        bad = bytearray(der)
        bad[pos] ^= 0x01
        with pytest.raises((InvalidKey, UnsupportedFormat)):
            keys.load_der_private_key(bytes(bad), password=b"pw")


def test_corrupt_pem_and_bad_arguments() -> None:
    key = sm2.PrivateKey.generate()
    p = keys.dump_pem_private_key(key, password=b"pw", iterations=10)
    lines = p.splitlines()
    broken = "\n".join([lines[0], lines[1][:-3] + "!!!", *lines[2:]])
    with pytest.raises(UnsupportedFormat):
        keys.load_pem_private_key(broken, password=b"pw")
    with pytest.raises(UnsupportedFormat):
        keys.load_pem_private_key("\n".join(lines[:-1]), password=b"pw")  # no END line
    with pytest.raises(UnsupportedFormat):
        keys.load_pem_private_key("no pem here", password=b"pw")
    # A truncated body decodes as base64 but not as DER.
    der = keys.dump_der_private_key(key, password=b"pw", iterations=10)
    with pytest.raises(UnsupportedFormat):
        keys.load_pem_private_key(pem("ENCRYPTED PRIVATE KEY", der[:-20]), password=b"pw")
    with pytest.raises(ValueError):
        keys.dump_pem_private_key(key, password=b"pw", prf="hmac-md5")
    with pytest.raises(ValueError):
        keys.dump_pem_private_key(key, password=b"pw", iterations=0)
    with pytest.raises(ValueError):
        keys.dump_pem_private_key(key, password=b"")
    with pytest.raises(ValueError):
        keys.dump_pem_private_key(key, password=b"pw", format="sec1")


# --- OpenSSL 3 interop ---------------------------------------------------------------


@needs_openssl
def test_openssl_pkcs8_sm4_hmac_sha256_loads(tmp_path: Path) -> None:
    assert openssl("genpkey", "-algorithm", "SM2", "-out", "k.pem", cwd=tmp_path).returncode == 0
    r = openssl(
        "pkcs8", "-topk8", "-v2", "sm4-cbc", "-v2prf", "hmacWithSHA256",
        "-in", "k.pem", "-passout", "pass:open sesame", "-out", "enc.pem", cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    enc = (tmp_path / "enc.pem").read_text()
    plain = sm2.PrivateKey.from_pem((tmp_path / "k.pem").read_text())
    assert keys.load_pem_private_key(enc, password=b"open sesame") == plain
    with pytest.raises(InvalidKey):
        keys.load_pem_private_key(enc, password=b"open sesamE")


@needs_openssl
def test_openssl_reads_guomi_hmac_sha256_key(tmp_path: Path) -> None:
    key = sm2.PrivateKey.generate()
    (tmp_path / "g.pem").write_text(
        keys.dump_pem_private_key(key, password=b"pw123", prf="hmac-sha256", iterations=2048)
    )
    r = openssl(
        "pkey", "-in", "g.pem", "-passin", "pass:pw123", "-outform", "DER", "-out", "plain.der", cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    assert sm2.PrivateKey.from_der((tmp_path / "plain.der").read_bytes()) == key
    bad = openssl("pkey", "-in", "g.pem", "-passin", "pass:nope", "-noout", cwd=tmp_path)
    assert bad.returncode != 0


@needs_openssl
def test_openssl_hmac_sm3_prf_support(tmp_path: Path) -> None:
    """OpenSSL 3.0 does not know the HMAC-SM3 PRF; if this OpenSSL does, it must read
    guomi's (GmSSL-layout) key."""
    key = sm2.PrivateKey.generate()
    (tmp_path / "g.pem").write_text(keys.dump_pem_private_key(key, password=b"pw", iterations=100))
    r = openssl(
        "pkey", "-in", "g.pem", "-passin", "pass:pw", "-outform", "DER", "-out", "plain.der", cwd=tmp_path
    )
    if r.returncode != 0:
        pytest.skip("this openssl cannot read PBKDF2 with the HMAC-SM3 PRF (OpenSSL 3.0 cannot)")
    assert sm2.PrivateKey.from_der((tmp_path / "plain.der").read_bytes()) == key


@needs_openssl
def test_openssl_legacy_dek_info_sm4_cbc(tmp_path: Path) -> None:
    assert openssl("genpkey", "-algorithm", "SM2", "-out", "k.pem", cwd=tmp_path).returncode == 0
    r = openssl("ec", "-in", "k.pem", "-sm4", "-passout", "pass:legacy", "-out", "trad.pem", cwd=tmp_path)
    if r.returncode != 0:
        pytest.skip("this openssl cannot write legacy SM4-CBC PEM")
    text = (tmp_path / "trad.pem").read_text()
    assert "DEK-Info: SM4-CBC," in text and "Proc-Type: 4,ENCRYPTED" in text
    plain = sm2.PrivateKey.from_pem((tmp_path / "k.pem").read_text())
    assert keys.is_encrypted_pem(text)
    assert keys.load_pem_private_key(text, password=b"legacy") == plain
    with pytest.raises(InvalidKey):
        keys.load_pem_private_key(text, password=b"Legacy")
    with pytest.raises(TypeError):
        keys.load_pem_private_key(text)
    # A DEK-Info cipher other than SM4-CBC is refused as unsupported.
    with pytest.raises(UnsupportedFormat):
        keys.load_pem_private_key(text.replace("SM4-CBC", "AES-128-CBC"), password=b"legacy")


@needs_openssl
@pytest.mark.parametrize(
    "args",
    [
        ("-v2", "sm4-cbc", "-v2prf", "hmacWithSHA1"),
        ("-v2", "des-ede3-cbc", "-v2prf", "hmacWithSHA256"),
    ],
)
def test_unsupported_pbes2_choices_are_unsupported_format(tmp_path: Path, args: tuple[str, ...]) -> None:
    assert openssl("genpkey", "-algorithm", "SM2", "-out", "k.pem", cwd=tmp_path).returncode == 0
    r = openssl(
        "pkcs8", "-topk8", *args, "-in", "k.pem", "-passout", "pass:pw", "-out", "e.pem", cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    with pytest.raises(UnsupportedFormat):
        keys.load_pem_private_key((tmp_path / "e.pem").read_text(), password=b"pw")


@needs_openssl
@pytest.mark.parametrize("cipher", ["aes-128-cbc", "aes-192-cbc", "aes-256-cbc"])
def test_openssl_aes_pbes2_keys_are_read(tmp_path: Path, cipher: str) -> None:
    # OpenSSL's default PBES2 cipher (and the only one BouncyCastle 1.87 writes): AES-CBC.
    assert openssl("genpkey", "-algorithm", "SM2", "-out", "k.pem", cwd=tmp_path).returncode == 0
    r = openssl(
        "pkcs8", "-topk8", "-v2", cipher, "-v2prf", "hmacWithSHA256", "-in", "k.pem", "-passout", "pass:pw",
        "-out", "e.pem", cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    key = keys.load_pem_private_key((tmp_path / "e.pem").read_text(), password=b"pw")
    plain = keys.load_pem_private_key((tmp_path / "k.pem").read_text())
    assert key == plain
    with pytest.raises(InvalidKey):
        keys.load_pem_private_key((tmp_path / "e.pem").read_text(), password=b"wrong")


def test_password_options_on_the_key_itself() -> None:
    from guomi import sm2
    from guomi.exceptions import InvalidArgument, InvalidKey

    key = sm2.PrivateKey.generate()
    for prf in ("hmac-sm3", "hmac-sha256"):
        pem = key.to_pem(password="pässword", prf=prf, iterations=1000)
        assert pem.startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")
        assert sm2.PrivateKey.from_pem(pem, password="pässword") == key
        assert sm2.PrivateKey.from_pem(pem.encode(), password="pässword".encode()) == key
        with pytest.raises(InvalidKey):
            sm2.PrivateKey.from_pem(pem, password="wrong")
        der = key.to_der(password=b"pw", prf=prf, iterations=1000)
        assert sm2.PrivateKey.from_der(der, password=b"pw") == key
    with pytest.raises(InvalidArgument):
        key.to_pem(format="sec1", password=b"pw")  # encrypted keys are always PKCS#8
    with pytest.raises(InvalidArgument):
        key.to_pem(password=b"")
    with pytest.raises(InvalidArgument):
        sm2.PrivateKey.from_pem(key.to_pem(), password=b"pw")  # a password for a plain key
    with pytest.raises(TypeError):
        key.to_pem(password=123)  # type: ignore[arg-type]
