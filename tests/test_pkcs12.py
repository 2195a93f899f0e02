"""guomi.pkcs12: OpenSSL 3 and BouncyCastle 1.87 files read, round trips in both
encryptions, OpenSSL reading what guomi writes, wrong passwords and every bad input."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from guomi import pkcs12, sm2, x509
from guomi.exceptions import InvalidArgument, InvalidKey, UnsupportedFormat

VEC = Path(__file__).resolve().parent.parent / "vectors" / "pkcs12"
OPENSSL = shutil.which("openssl")
needs_openssl = pytest.mark.skipif(OPENSSL is None, reason="openssl CLI not installed")


def vec(name: str) -> bytes:
    return (VEC / name).read_bytes()


def key(name: str) -> sm2.PrivateKey:
    return sm2.PrivateKey.from_pem(vec(name))


def cert(name: str) -> x509.Certificate:
    return x509.Certificate.from_pem(vec(name))


@pytest.mark.parametrize(
    ("name", "mac", "scheme"),
    [
        ("openssl3-aes256-sha256.p12", "sha256", "PBES2, PBKDF2-HMAC-SHA256, AES-256-CBC, 2048 iterations"),
        ("openssl3-sm4-sm3mac.p12", "sm3", "PBES2, PBKDF2-HMAC-SHA256, SM4-CBC, 2048 iterations"),
    ],
)
def test_reads_openssl3(name: str, mac: str, scheme: str) -> None:
    k, c, chain = pkcs12.load(vec(name), "test1234")
    assert k == key("openssl3-key.pem")
    assert c == cert("openssl3-cert.pem")
    assert chain == []
    d = pkcs12.info(vec(name), b"test1234")
    assert d["mac"] == mac and d["mac_iterations"] == 2048
    assert d["friendly_name"] == "guomi key" and d["has_key"] is True
    assert d["certificate"] == "CN=guomi pkcs12 test" and d["chain"] == []
    assert any(str(line).endswith(scheme) for line in d["contents"])  # type: ignore[attr-defined]
    with pytest.raises(InvalidKey):
        pkcs12.load(vec(name), "test12345")


def test_reads_openssl3_chain() -> None:
    k, c, chain = pkcs12.load(vec("openssl3-chain-sm4.p12"), "test1234")
    assert k == key("openssl3-leaf-key.pem")
    assert c == cert("openssl3-leaf-cert.pem")
    assert chain == [cert("openssl3-ca-cert.pem")]


def test_reads_bouncycastle_builder() -> None:
    k, c, chain = pkcs12.load(vec("bc-1.87-builder-aes256-sha256.p12"), "test1234")
    assert (k, c, chain) == (key("openssl3-key.pem"), cert("openssl3-cert.pem"), [])
    assert pkcs12.info(vec("bc-1.87-builder-aes256-sha256.p12"), "test1234")["friendly_name"] == "bc key"


def test_reads_bouncycastle_pbmac1() -> None:
    # PKCS12PfxPduBuilder with BcPKCS12PBMac1CalculatorBuilder (RFC 9579 PBMAC1:
    # PBKDF2-HMAC-SHA256, keyLength 32, HMAC-SHA256).
    name = "bc-1.87-builder-aes256-pbmac1.p12"
    assert pkcs12.load(vec(name), "test1234") == (key("openssl3-key.pem"), cert("openssl3-cert.pem"), [])
    assert pkcs12.info(vec(name), "test1234")["mac"] == "PBMAC1 (PBKDF2-HMAC-SHA256, HMAC-SHA256)"
    with pytest.raises(InvalidKey):
        pkcs12.load(vec(name), "test12345")


def test_reads_bouncycastle_keystore_ber_sha1_mac() -> None:
    # KeyStore "PKCS12-DEF-AES256-AES128" (BC 1.87): BER, AES with PBKDF2-HMAC-SHA256,
    # SHA-1 MAC.
    name = "bc-1.87-keystore-def-aes256-aes128.p12"
    assert pkcs12.load(vec(name), "test1234") == (key("openssl3-key.pem"), cert("openssl3-cert.pem"), [])
    d = pkcs12.info(vec(name), "test1234")
    assert (d["mac"], d["mac_iterations"], d["friendly_name"]) == ("sha1", 600000, "bc key")
    with pytest.raises(InvalidKey):
        pkcs12.load(vec(name), "test12345")


@pytest.mark.parametrize("name", ["openssl3-legacy-3des-sha1.p12", "bc-1.87-keystore-pkcs12-default.p12"])
def test_legacy_is_named(name: str) -> None:
    with pytest.raises(UnsupportedFormat) as e:
        pkcs12.load(vec(name), "test1234")
    assert "pbeWithSHAAnd3-KeyTripleDES-CBC" in str(e.value) and "re-export" in str(e.value)
    with pytest.raises(InvalidKey):  # the MAC is checked first
        pkcs12.load(vec(name), "test12345")


@pytest.mark.parametrize("encryption", ["sm", "aes"])
def test_round_trip(encryption: str) -> None:
    k, c, ca = key("openssl3-leaf-key.pem"), cert("openssl3-leaf-cert.pem"), cert("openssl3-ca-cert.pem")
    data = pkcs12.dump(k, c, [ca], "pässwört", encryption=encryption, iterations=1000, name="leaf")
    assert pkcs12.load(data, "pässwört".encode()) == (k, c, [ca])
    d = pkcs12.info(data, "pässwört")
    assert d["mac"] == ("sm3" if encryption == "sm" else "sha256")
    assert d["friendly_name"] == "leaf" and d["chain"] == ["CN=guomi test CA"]
    with pytest.raises(InvalidKey):
        pkcs12.load(data, "passwort")
    # Key only and certificate only.
    assert pkcs12.load(pkcs12.dump(k, None, None, "pw", encryption=encryption, iterations=1), "pw") == (
        k,
        None,
        [],
    )
    assert pkcs12.load(pkcs12.dump(None, c, (), "pw", encryption=encryption, iterations=1), "pw") == (
        None,
        c,
        [],
    )


def test_default_iterations_and_encryption() -> None:
    k = sm2.PrivateKey.generate()
    d = pkcs12.info(pkcs12.dump(k, None, None, "pw"), "pw")
    assert d["mac"] == "sm3"
    assert d["mac_iterations"] == pkcs12.DEFAULT_ITERATIONS == 65536
    assert d["contents"] == ["data", "shrouded key bag: PBES2, PBKDF2-HMAC-SM3, SM4-CBC, 65536 iterations"]
    assert pkcs12.MAX_ITERATIONS == 10_000_000 and pkcs12.MAX_BAGS == 64 and pkcs12.MAX_PFX_LEN == 4 << 20


def test_dump_rejects_bad_arguments() -> None:
    k, other = key("openssl3-key.pem"), cert("openssl3-leaf-cert.pem")
    with pytest.raises(InvalidArgument, match="does not match"):
        pkcs12.dump(k, other, (), "pw", iterations=1)
    for it in (0, pkcs12.MAX_ITERATIONS + 1):
        with pytest.raises(InvalidArgument):
            pkcs12.dump(k, None, (), "pw", iterations=it)
    with pytest.raises(OverflowError):
        pkcs12.dump(k, None, (), "pw", iterations=-1)
    with pytest.raises(InvalidArgument):
        pkcs12.dump(k, None, (), "pw", encryption="3des", iterations=1)
    with pytest.raises(InvalidArgument):
        pkcs12.dump(None, None, (), "pw", iterations=1)
    with pytest.raises(InvalidArgument):
        pkcs12.dump(k, None, (), "", iterations=1)
    with pytest.raises(InvalidArgument):
        pkcs12.dump(k, None, (), b"\xff", iterations=1)
    with pytest.raises(InvalidArgument):
        pkcs12.dump(k, None, (), "😀", iterations=1)
    with pytest.raises(InvalidArgument):
        pkcs12.dump(k, None, (), "pw", iterations=1, name="😀")
    with pytest.raises(InvalidArgument):
        pkcs12.dump(None, None, [other] * 63, "pw", iterations=1)


def test_load_rejects_bad_input() -> None:
    good = pkcs12.dump(sm2.PrivateKey.generate(), None, (), "pw", iterations=1)
    with pytest.raises(UnsupportedFormat):
        pkcs12.load(b"", "pw")
    with pytest.raises(UnsupportedFormat):
        pkcs12.load(b"\x00" * (pkcs12.MAX_PFX_LEN + 1), "pw")
    with pytest.raises(InvalidArgument):
        pkcs12.load(good, "")
    with pytest.raises(TypeError):
        pkcs12.load("not bytes", "pw")  # type: ignore[arg-type]
    for cut in range(0, len(good), 7):
        with pytest.raises((UnsupportedFormat, InvalidKey)):
            pkcs12.load(good[:cut], "pw")
    for pos in range(len(good)):
        bad = bytearray(good)
        bad[pos] ^= 0x80
        with pytest.raises((UnsupportedFormat, InvalidKey)):
            pkcs12.load(bytes(bad), "pw")


@needs_openssl
@pytest.mark.parametrize("encryption", ["aes"])
def test_openssl_reads_guomi(tmp_path: Path, encryption: str) -> None:
    k, c, ca = key("openssl3-leaf-key.pem"), cert("openssl3-leaf-cert.pem"), cert("openssl3-ca-cert.pem")
    p = tmp_path / "g.p12"
    p.write_bytes(pkcs12.dump(k, c, [ca], "test1234", encryption=encryption, iterations=2048, name="g"))
    r = subprocess.run(
        [str(OPENSSL), "pkcs12", "-in", str(p), "-passin", "pass:test1234", "-nodes"],
        capture_output=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert out.count("-----BEGIN CERTIFICATE-----") == 2 and "friendlyName: g" in out
    assert sm2.PrivateKey.from_pem(out[out.index("-----BEGIN PRIVATE KEY-----") :]) == k


@needs_openssl
def test_openssl_checks_the_sm3_mac_of_guomi_sm(tmp_path: Path) -> None:
    # OpenSSL 3.0 verifies the SM3 MAC (PKCS#12 KDF over SM3) of encryption="sm" but does
    # not know the HMAC-SM3 PRF of its PBES2 (1.2.156.10197.1.401.2).
    p = tmp_path / "g.p12"
    p.write_bytes(pkcs12.dump(key("openssl3-key.pem"), None, (), "test1234", iterations=2048))
    ok = subprocess.run(
        [str(OPENSSL), "pkcs12", "-in", str(p), "-passin", "pass:test1234", "-info", "-nokeys", "-noout"],
        capture_output=True,
        timeout=60,
    )
    assert b"MAC: sm3, Iteration 2048" in ok.stdout + ok.stderr
    assert b"mac verify error" not in (ok.stdout + ok.stderr).lower()
    bad = subprocess.run(
        [str(OPENSSL), "pkcs12", "-in", str(p), "-passin", "pass:wrong", "-noout"],
        capture_output=True,
        timeout=60,
    )
    assert bad.returncode != 0 and b"mac verify error" in bad.stderr.lower()
