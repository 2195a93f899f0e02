"""Regression tests for the symmetric-side hardening.

* Every verifier (HMAC-SM3, SM4-GCM one-shot and streaming, SM4-CCM, 128-EIA3, ZUC-256
  MAC, the ``guomi zuc eia3 --check`` CLI) compares against a tag length fixed by the
  caller (the full length by default), never the length of the tag it is handed: the full
  tag verifies, every strict prefix is rejected by default, and an explicit truncated
  length accepts exactly that length and rejects every other.
* Backend variants (``avx2-novaes``, ``avx512-novbmi``, ``*-noadx``) can be listed and
  forced like backends, key objects keep the variant they were built with, and every
  variant computes the same bytes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Optional

import pytest
from test_cli import guomi_cli

import guomi
import guomi.backend as backend_mod
import guomi.sm2 as sm2
import guomi.sm3 as sm3
import guomi.sm4 as sm4
import guomi.zuc as zuc
from guomi.exceptions import InvalidArgument, InvalidLength, InvalidTag, UnsupportedBackend

KEY = bytes(range(16))
NONCE = bytes(range(100, 112))
AAD = b"header"
DATA = bytes(range(256)) * 3 + b"tail"
#: SP 800-38D §5.2.1.2: the GCM tag lengths a caller may ask for.
GCM_LENGTHS = (16, 15, 14, 13, 12, 8, 4)

# --- HMAC-SM3 ----------------------------------------------------------------------------


def test_hmac_verify_full_length_by_default() -> None:
    m = sm3.HMAC(b"key", b"message")
    tag = m.digest()
    assert m.verify(tag)
    for n in range(len(tag)):
        assert not m.verify(tag[:n]), f"{n}-byte prefix accepted"
    assert not m.verify(tag + b"\x00")
    assert not m.verify(bytes(32))


@pytest.mark.parametrize("n", [4, 5, 10, 16, 31, 32])
def test_hmac_verify_explicit_truncation(n: int) -> None:
    m = sm3.HMAC(b"key", b"message")
    tag = m.digest()
    assert m.verify(tag[:n], tag_length=n)
    for other in range(len(tag) + 1):
        if other != n:
            assert not m.verify(tag[:other], tag_length=n), f"{other} bytes with tag_length={n}"
    wrong = bytearray(tag[:n])
    wrong[-1] ^= 1
    assert not m.verify(bytes(wrong), tag_length=n)


@pytest.mark.parametrize("n", [0, 1, 3, 33, 64])
def test_hmac_verify_bad_tag_length(n: int) -> None:
    m = sm3.HMAC(b"key", b"message")
    with pytest.raises(InvalidArgument):
        m.verify(m.digest()[:n], tag_length=n)
    with pytest.raises((OverflowError, TypeError)):
        m.verify(m.digest(), tag_length=-1)


# --- SM4-GCM -----------------------------------------------------------------------------


def _gcm() -> tuple[sm4.SM4GCM, bytes, bytes]:
    g = sm4.SM4GCM(KEY)
    one = g.encrypt(NONCE, DATA, AAD)
    return g, one[: len(DATA)], one[len(DATA) :]


def test_gcm_one_shot_fixed_tag_length() -> None:
    g, ct, tag = _gcm()
    assert g.decrypt(NONCE, ct + tag, AAD) == DATA
    for n in GCM_LENGTHS:
        assert g.decrypt(NONCE, ct + tag[:n], AAD, tag_length=n) == DATA
        if n != 16:
            with pytest.raises(InvalidTag):
                g.decrypt(NONCE, ct + tag[:n], AAD)  # the default is 16
        for other in GCM_LENGTHS:
            if other != n:
                with pytest.raises(InvalidTag):
                    g.decrypt(NONCE, ct + tag[:other], AAD, tag_length=n)
    for bad in (0, 3, 5, 11, 17):
        with pytest.raises(InvalidLength):
            g.decrypt(NONCE, ct + tag, AAD, tag_length=bad)


Maker = Callable[[Optional[bytes]], sm4.GCMDecryptor]


def _stream(make: Maker, up_front: bytes | None, ct: bytes, at_finalize: bytes | None = None) -> bytes:
    """Decrypts with ``make(up_front)``; the tag is given to ``finalize`` when
    ``at_finalize`` is set."""
    d = make(up_front)
    out = d.update(ct[:100]) + d.update(ct[100:])
    return out + (d.finalize() if at_finalize is None else d.finalize(at_finalize))


@pytest.mark.parametrize("buffered", [True, False])
@pytest.mark.parametrize("factory", [False, True])
def test_gcm_streaming_rejects_prefixes_by_default(buffered: bool, factory: bool) -> None:
    g, ct, tag = _gcm()

    def make(t: bytes | None) -> sm4.GCMDecryptor:
        if factory:
            return sm4.decryptor(  # type: ignore[return-value]
                KEY, mode="gcm", iv=NONCE, aad=AAD, tag=t, buffered=buffered
            )
        return g.decryptor(NONCE, t, AAD, buffered=buffered)

    assert _stream(make, tag, ct) == DATA
    assert _stream(make, None, ct, tag) == DATA
    assert make(tag).tag_length == 16
    for n in range(1, 16):
        # Up front: rejected at once; at finalize: rejected there.
        with pytest.raises(InvalidTag):
            _stream(make, tag[:n], ct)
        with pytest.raises(InvalidTag):
            _stream(make, None, ct, tag[:n])
    with pytest.raises(InvalidTag):
        _stream(make, None, ct, tag + b"\x00")


@pytest.mark.parametrize("n", GCM_LENGTHS)
@pytest.mark.parametrize("buffered", [True, False])
@pytest.mark.parametrize("factory", [False, True])
def test_gcm_streaming_explicit_tag_length(n: int, buffered: bool, factory: bool) -> None:
    g, ct, tag = _gcm()

    def make(t: bytes | None) -> sm4.GCMDecryptor:
        if factory:
            return sm4.decryptor(  # type: ignore[return-value]
                KEY, mode="gcm", iv=NONCE, aad=AAD, tag=t, buffered=buffered, tag_length=n
            )
        return g.decryptor(NONCE, t, AAD, buffered=buffered, tag_length=n)

    assert make(None).tag_length == n
    assert _stream(make, tag[:n], ct) == DATA
    assert _stream(make, None, ct, tag[:n]) == DATA
    longer = tag + b"\x00"
    for other in range(1, 18):
        if other == n:
            continue
        with pytest.raises(InvalidTag):
            _stream(make, None, ct, longer[:other])
        with pytest.raises(InvalidTag):
            _stream(make, longer[:other], ct)


def test_gcm_streaming_bad_tag_length_and_non_gcm() -> None:
    g, ct, tag = _gcm()
    for bad in (0, 3, 11, 17):
        with pytest.raises(InvalidLength):
            g.decryptor(NONCE, None, AAD, tag_length=bad)
        with pytest.raises(InvalidLength):
            sm4.decryptor(KEY, mode="gcm", iv=NONCE, tag_length=bad)
    with pytest.raises(InvalidArgument):
        sm4.decryptor(KEY, mode="cbc", iv=NONCE + bytes(4), tag_length=12)
    # No tag anywhere is a usage error, not a silent success.
    d = g.decryptor(NONCE, None, AAD)
    d.update(ct)
    with pytest.raises(InvalidArgument):
        d.finalize()
    assert d.finalize(tag) == DATA


def test_gcm_buffered_failure_releases_nothing() -> None:
    g, ct, tag = _gcm()
    bad = bytearray(ct)
    bad[3] ^= 1
    d = g.decryptor(NONCE, tag, AAD)
    for i in range(0, len(bad), 7):  # many small updates: the buffer grows many times
        assert d.update(bytes(bad[i : i + 7])) == b""
    with pytest.raises(InvalidTag):
        d.finalize()


# --- SM4-CCM -----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [4, 6, 8, 10, 12, 14, 16])
def test_ccm_tag_length_is_the_key_objects(n: int) -> None:
    nonce = bytes(12)
    c = sm4.SM4CCM(KEY, tag_length=n)
    one = c.encrypt(nonce, DATA, AAD)
    assert len(one) == len(DATA) + n
    assert c.decrypt(nonce, one, AAD) == DATA
    for cut in range(1, n):
        with pytest.raises(InvalidTag):
            c.decrypt(nonce, one[:-cut], AAD)
    # The same ciphertext under another fixed tag length does not verify.
    for other in (4, 6, 8, 10, 12, 14, 16):
        if other != n:
            with pytest.raises(InvalidTag):
                sm4.SM4CCM(KEY, tag_length=other).decrypt(nonce, one, AAD)


# --- ZUC ---------------------------------------------------------------------------------


def test_eia3_verify_fixed_four_bytes() -> None:
    key, msg = bytes(range(16)), b"packet" * 10
    mac = zuc.eia3(key, 7, 3, 1, msg)
    assert zuc.eia3_verify(key, 7, 3, 1, msg, mac)
    for n in range(4):
        assert not zuc.eia3_verify(key, 7, 3, 1, msg, mac[:n])
    assert not zuc.eia3_verify(key, 7, 3, 1, msg, mac + b"\x00")


def test_zuc256_mac_verify_takes_the_size_from_the_caller() -> None:
    key, iv, msg = bytes(range(32)), bytes(range(23)), b"message" * 9
    tags = {t: zuc.zuc256_mac(key, iv, msg, tag_bits=t) for t in (32, 64, 128)}
    assert zuc.zuc256_mac_verify(key, iv, msg, tags[32])  # default 32, as zuc256_mac
    for t, tag in tags.items():
        assert zuc.zuc256_mac_verify(key, iv, msg, tag, tag_bits=t)
        for n in range(len(tag)):
            assert not zuc.zuc256_mac_verify(key, iv, msg, tag[:n], tag_bits=t)
        assert not zuc.zuc256_mac_verify(key, iv, msg, tag + b"\x00", tag_bits=t)
        for other in (32, 64, 128):
            if other != t:
                # A valid shorter (or longer) MAC never satisfies a verifier set for `t`.
                assert not zuc.zuc256_mac_verify(key, iv, msg, tags[other], tag_bits=t)
    assert not zuc.zuc256_mac_verify(key, iv, msg, tags[128])
    assert not zuc.zuc256_mac_verify(key, iv, msg, bytes(5))
    for bad in (0, 16, 48, 96, 256):
        with pytest.raises(InvalidArgument):
            zuc.zuc256_mac_verify(key, iv, msg, tags[32], tag_bits=bad)
    with pytest.raises(TypeError):
        zuc.zuc256_mac_verify(key, iv, msg, tags[32], tag_bits="32")  # type: ignore[arg-type]


def test_cli_eia3_check_needs_the_whole_mac(tmp_path: Path) -> None:
    key = bytes(range(16))
    data = b"some packet"
    (tmp_path / "pkt").write_bytes(data)
    mac = zuc.eia3(key, 5, 2, 0, data).hex()
    common = ("--key-hex", key.hex(), "--count", "5", "--bearer", "2", "--direction", "0", "-i", "pkt")
    assert guomi_cli("zuc", "eia3", *common, "--check", mac.upper(), cwd=tmp_path).returncode == 0
    for n in (0, 2, 4, 6):
        assert guomi_cli("zuc", "eia3", *common, "--check", mac[:n], cwd=tmp_path).returncode == 1
    assert guomi_cli("zuc", "eia3", *common, "--check", mac + "00", cwd=tmp_path).returncode == 1
    assert guomi_cli("zuc", "eia3", *common, "--check", "xyz", cwd=tmp_path).returncode == 2


# --- backend variants --------------------------------------------------------------------


def test_variants_listed_and_named() -> None:
    variants = guomi.backend.available_variants()
    assert variants[0] == "portable"
    assert set(guomi.available_backends()) <= set(variants)
    for v in variants:
        base, *off = v.split("-")
        assert base in guomi.available_backends()
        assert all(o in ("novaes", "novbmi", "noadx") for o in off)
    assert guomi.backend.active_variant().split("-")[0] == guomi.active_backend()


def test_force_every_variant_and_objects_keep_it() -> None:
    before = guomi.backend.active_variant()
    try:
        for v in guomi.backend.available_variants():
            guomi.force_backend(v)
            assert guomi.backend.active_variant() == v
            assert guomi.active_backend() == v.split("-")[0]
            objs = [sm4.SM4(KEY), sm4.SM4GCM(KEY), sm4.SM4CCM(KEY), sm4.SM4XTS(bytes(range(32)))]
            guomi.force_backend("portable")
            for o in objs:
                assert o.variant == v, (o, v)
    finally:
        guomi.force_backend(None)
    assert guomi.backend.active_variant() == before


def test_unknown_variants_rejected() -> None:
    for bad in ("avx2-novbmi", "portable-noadx", "avx512-nofoo", "avx2-vaes", "avx2-"):
        with pytest.raises(UnsupportedBackend):
            guomi.force_backend(bad)


def test_every_variant_computes_the_same_bytes() -> None:
    pk = sm2.PrivateKey.generate()
    sig = pk.sign(b"msg")
    results = []
    try:
        for v in guomi.backend.available_variants():
            guomi.force_backend(v)
            g = sm4.SM4GCM(KEY)
            ct = sm4.encrypt(KEY, DATA * 4, mode="ctr", iv=bytes(16))
            results.append(
                (
                    ct,
                    g.encrypt(NONCE, DATA * 4, AAD),
                    zuc.eea3(KEY, 1, 2, 1, DATA * 4),
                    zuc.eia3_many([(KEY, i, 1, 0, DATA) for i in range(20)]),
                    zuc.zuc256_mac(bytes(32), bytes(25), DATA, tag_bits=128),
                    sm3.hash(DATA),
                )
            )
            assert pk.public_key().verify(sig, b"msg"), v
            assert pk.public_key().verify(pk.sign(b"msg"), b"msg"), v
    finally:
        guomi.force_backend(None)
    assert all(r == results[0] for r in results)


@pytest.mark.parametrize("name", ["avx2-novaes", "avx512-novbmi", "avx512-noadx"])
def test_environment_variable_variants(name: str) -> None:
    env = dict(os.environ, GUOMI_BACKEND=name)
    code = "import guomi.backend as b, guomi.sm3; print(b.active_variant(), guomi.sm3.hash(b'abc').hex())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    variant, digest = out.stdout.split()
    assert digest == "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
    if name.split("-")[0] in backend_mod.available_backends():
        assert variant == name
    else:
        assert variant == backend_mod.available_variants()[0] or "-" not in variant
