"""SM3, HMAC-SM3 and SM4 (ECB, CBC, CTR, CFB, OFB) against the OpenSSL 3 command line,
byte-exact both ways. (SM2 keys, signatures with the empty and the default ID, DER
ciphertexts and certificates against OpenSSL are in tests/test_sm2.py, test_x509.py and
test_keys_protected.py.)"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from guomi import sm3, sm4

from .interop_peers import messages, rng, unavailable


@pytest.fixture(scope="module")
def openssl() -> str:
    exe = shutil.which("openssl")
    if exe is None:
        unavailable("openssl not on PATH")
    assert exe is not None
    algs = subprocess.run([exe, "list", "-cipher-algorithms"], capture_output=True, text=True).stdout
    if "SM4-CTR" not in algs:
        unavailable("this OpenSSL has no SM4")
    return exe


def _run(exe: str, args: list[str], data: bytes) -> bytes:
    r = subprocess.run([exe, *args], input=data, capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    return r.stdout


@pytest.mark.parametrize("mode", ["ecb", "cbc", "ctr", "cfb", "ofb"])
def test_sm4_openssl_enc(openssl: str, mode: str) -> None:
    r = rng(f"openssl-sm4-{mode}")
    key = r.randbytes(16)
    iv = None if mode == "ecb" else r.randbytes(16)
    args = ["enc", f"-sm4-{mode}", "-K", key.hex()] + ([] if iv is None else ["-iv", iv.hex()])
    for m in messages(f"openssl-sm4-{mode}", [0, 1, 15, 16, 17, 1000]):
        ours = sm4.encrypt(key, m, mode=mode, iv=iv)
        assert _run(openssl, args, m) == ours, len(m)
        assert _run(openssl, [*args, "-d"], ours) == m
        assert sm4.decrypt(key, _run(openssl, args, m), mode=mode, iv=iv) == m


def test_sm3_and_hmac_openssl(openssl: str) -> None:
    r = rng("openssl-hmac")
    for m in messages("openssl-sm3", [0, 1, 64, 1000]):
        assert _run(openssl, ["dgst", "-sm3", "-binary"], m) == sm3.hash(m)
        key = r.randbytes(20)
        mac = _run(openssl, ["mac", "-digest", "SM3", "-macopt", f"hexkey:{key.hex()}", "-binary", "HMAC"], m)
        assert mac == sm3.hmac(key, m), len(m)
