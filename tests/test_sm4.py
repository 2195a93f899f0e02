"""SM4: known-answer vectors on every backend, cross-checks with ``cryptography``,
streaming vs one-shot, boundary lengths and every bad-input path."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import guomi
import guomi.sm4 as sm4
from conftest import load_vectors
from guomi.exceptions import (
    AlreadyFinalized,
    InvalidArgument,
    InvalidKey,
    InvalidLength,
    InvalidPadding,
    InvalidTag,
)

try:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
    from cryptography.hazmat.primitives.ciphers import modes as cmodes

    try:  # CFB and OFB moved to the "decrepit" package in cryptography >= 47
        from cryptography.hazmat.decrepit.ciphers.modes import CFB, OFB
    except ImportError:  # pragma: no cover - older cryptography
        CFB, OFB = cmodes.CFB, cmodes.OFB

    algorithms.SM4(b"\0" * 16)
    HAVE_CRYPTOGRAPHY = True
except Exception:  # pragma: no cover - depends on the environment
    HAVE_CRYPTOGRAPHY = False

needs_cryptography = pytest.mark.skipif(not HAVE_CRYPTOGRAPHY, reason="cryptography with SM4 not installed")

VECTORS = load_vectors("sm4")
KEY = bytes.fromhex("0123456789abcdeffedcba9876543210")


def _h(v: dict, k: str) -> bytes:
    return bytes.fromhex(v[k])


def _ids(vs: list[dict]) -> list[str]:
    return [v["name"][:60] for v in vs]


BASIC = [v for v in VECTORS if v["mode"] in ("ECB", "CBC", "CFB", "OFB", "CTR")]
GCM = [v for v in VECTORS if v["mode"] == "GCM"]
CCM = [v for v in VECTORS if v["mode"] == "CCM"]
XTS = [v for v in VECTORS if v["mode"] == "XTS"]


def test_vector_file_is_covered() -> None:
    handled = {"ECB", "CBC", "CFB", "OFB", "CTR", "GCM", "CCM", "XTS", "ECB-iterated"}
    assert {v["mode"] for v in VECTORS} <= handled
    assert len(GCM) > 50 and len(CCM) > 100 and len(XTS) == 2


@pytest.mark.parametrize("v", BASIC, ids=_ids(BASIC))
def test_basic_modes_vectors(variant: str, v: dict) -> None:
    mode = v["mode"].lower()
    iv = None if mode == "ecb" else _h(v, "iv")
    pt, ct = _h(v, "plaintext"), _h(v, "ciphertext")
    assert sm4.encrypt(_h(v, "key"), pt, mode=mode, iv=iv, padding="none") == ct
    assert sm4.decrypt(_h(v, "key"), ct, mode=mode, iv=iv, padding="none") == pt
    c = sm4.SM4(_h(v, "key"))
    assert c.variant == variant and c.backend == variant.split("-")[0]
    assert c.encrypt(pt, mode=mode, iv=iv, padding="none") == ct


def test_ecb_iterated_vector(variant: str) -> None:
    # GB/T 32907 A.2: the plaintext encrypted 1,000,000 times with the same key.
    v = next(v for v in VECTORS if v["mode"] == "ECB-iterated")
    c = sm4.SM4(_h(v, "key"))
    block = _h(v, "plaintext")
    enc = c.encrypt_block
    for _ in range(v["iterations"]):
        block = enc(block)
    assert block == _h(v, "ciphertext")


@pytest.mark.parametrize("v", GCM, ids=_ids(GCM))
def test_gcm_vectors(variant: str, v: dict) -> None:
    iv, aad, pt, ct, tag = (_h(v, k) for k in ("iv", "aad", "plaintext", "ciphertext", "tag"))
    if v.get("result") == "invalid":
        with pytest.raises((InvalidTag, InvalidLength)):
            g = sm4.SM4GCM(_h(v, "key"))
            g.decrypt(iv, ct + tag, aad)
        return
    g = sm4.SM4GCM(_h(v, "key"))
    assert g.encrypt(iv, pt, aad) == ct + tag
    assert g.decrypt(iv, ct + tag, aad) == pt
    assert g.decrypt(iv, ct + tag, aad or None) == pt


@pytest.mark.parametrize("v", CCM, ids=_ids(CCM))
def test_ccm_vectors(variant: str, v: dict) -> None:
    iv, aad, pt, ct, tag = (_h(v, k) for k in ("iv", "aad", "plaintext", "ciphertext", "tag"))
    if v.get("result") == "invalid":
        with pytest.raises((InvalidTag, InvalidLength)):
            c = sm4.SM4CCM(_h(v, "key"), tag_length=len(tag))
            c.decrypt(iv, ct + tag, aad)
        return
    c = sm4.SM4CCM(_h(v, "key"), tag_length=len(tag))
    assert c.encrypt(iv, pt, aad) == ct + tag
    assert c.decrypt(iv, ct + tag, aad) == pt


@pytest.mark.parametrize("v", XTS, ids=_ids(XTS))
def test_xts_vectors(variant: str, v: dict) -> None:
    std = v["xts_standard"].lower()
    key, iv, pt, ct = _h(v, "key"), _h(v, "iv"), _h(v, "plaintext"), _h(v, "ciphertext")
    assert sm4.xts_encrypt(key, iv, pt, standard=std) == ct
    assert sm4.xts_decrypt(key, iv, ct, standard=std) == pt
    x = sm4.SM4XTS(key, standard=std)
    assert x.encrypt(iv, pt) == ct and x.decrypt(iv, ct) == pt
    # Every length from 16 up (stealing for the partial ones) round-trips.
    for n in range(16, 200):
        data = os.urandom(n)
        assert x.decrypt(iv, x.encrypt(iv, data)) == data


LENGTHS = list(range(0, 600, 1)) + [1023, 1024, 1025, 4096 + 17, 16 * 64 * 3 + 5, 65_539]


def _reference(mode: str, key: bytes, iv: bytes, data: bytes, decrypt: bool = False) -> bytes:
    m = {
        "ecb": cmodes.ECB(),
        "cbc": cmodes.CBC(iv),
        "ctr": cmodes.CTR(iv),
        "cfb": CFB(iv),
        "ofb": OFB(iv),
    }[mode]
    c = Cipher(algorithms.SM4(key), m)
    ctx = c.decryptor() if decrypt else c.encryptor()
    return ctx.update(data) + ctx.finalize()


@needs_cryptography
@pytest.mark.parametrize("mode", ["ecb", "cbc", "ctr", "cfb", "ofb"])
def test_matches_cryptography_on_boundary_lengths(variant: str, mode: str) -> None:
    key, iv = os.urandom(16), os.urandom(16)
    c = sm4.SM4(key)
    ivo = None if mode == "ecb" else iv
    for n in LENGTHS:
        if variant == "portable" and n > 5000:
            continue
        if mode in ("ecb", "cbc") and n % 16:
            continue
        data = os.urandom(n)
        ct = c.encrypt(data, mode=mode, iv=ivo, padding="none")
        assert ct == _reference(mode, key, iv, data), (mode, n)
        assert c.decrypt(ct, mode=mode, iv=ivo, padding="none") == data


@needs_cryptography
def test_gcm_matches_cryptography_on_boundary_lengths(variant: str) -> None:
    key = os.urandom(16)
    g = sm4.SM4GCM(key)
    for n in LENGTHS:
        if variant == "portable" and n > 5000:
            continue
        nonce, data, aad = os.urandom(12), os.urandom(n), os.urandom(n % 50)
        enc = Cipher(algorithms.SM4(key), cmodes.GCM(nonce)).encryptor()
        enc.authenticate_additional_data(aad)
        expect = enc.update(data) + enc.finalize() + enc.tag
        assert g.encrypt(nonce, data, aad) == expect, n
        assert g.decrypt(nonce, expect, aad) == data


@needs_cryptography
@settings(max_examples=60, deadline=None)
@given(
    mode=st.sampled_from(["ecb", "cbc", "ctr", "cfb", "ofb", "gcm"]),
    key=st.binary(min_size=16, max_size=16),
    iv=st.binary(min_size=16, max_size=16),
    data=st.binary(max_size=2000),
    aad=st.binary(max_size=64),
    cut=st.integers(min_value=1, max_value=300),
)
def test_hypothesis_against_cryptography(
    mode: str, key: bytes, iv: bytes, data: bytes, aad: bytes, cut: int
) -> None:
    for b in guomi.available_backends():
        guomi.force_backend(b)
        try:
            if mode == "gcm":
                nonce = iv[:12]
                enc = Cipher(algorithms.SM4(key), cmodes.GCM(nonce)).encryptor()
                enc.authenticate_additional_data(aad)
                expect = enc.update(data) + enc.finalize() + enc.tag
                assert sm4.SM4GCM(key).encrypt(nonce, data, aad) == expect
                e = sm4.encryptor(key, mode="gcm", iv=nonce, aad=aad)
                out = b"".join(e.update(data[i : i + cut]) for i in range(0, len(data), cut)) + e.finalize()
                assert out + e.tag == expect
                continue
            padded = data
            if mode in ("ecb", "cbc"):
                padded = data + bytes([16 - len(data) % 16]) * (16 - len(data) % 16)
            expect = _reference(mode, key, iv, padded)
            ivo = None if mode == "ecb" else iv
            assert sm4.encrypt(key, data, mode=mode, iv=ivo) == expect
            e = sm4.encryptor(key, mode=mode, iv=ivo)
            out = b"".join(e.update(data[i : i + cut]) for i in range(0, len(data), cut)) + e.finalize()
            assert out == expect
            d = sm4.decryptor(key, mode=mode, iv=ivo)
            back = b"".join(d.update(expect[i : i + cut]) for i in range(0, len(expect), cut)) + d.finalize()
            assert back == data
        finally:
            guomi.force_backend(None)


MODE_PADDINGS = [(m, p) for m in ("ecb", "cbc") for p in (None, "iso7816", "zero", "pkcs7", "none")] + [
    (m, p) for m in ("ctr", "cfb", "ofb") for p in (None, "none")
]


@pytest.mark.parametrize(("mode", "padding"), MODE_PADDINGS)
def test_streaming_equals_one_shot(variant: str, mode: str, padding: str | None) -> None:
    key, iv = os.urandom(16), os.urandom(16)
    ivo = None if mode == "ecb" else iv
    for n in (0, 1, 15, 16, 17, 33, 255, 256, 257, 1000):
        data = os.urandom(n)
        if padding == "zero" and data:
            data = data[:-1] + b"\x01"
        if padding == "none" and mode in ("ecb", "cbc"):
            data = data[: n - n % 16]
        one = sm4.encrypt(key, data, mode=mode, iv=ivo, padding=padding)
        for chunk in (1, 7, 16, 100):
            e = sm4.encryptor(key, mode=mode, iv=ivo, padding=padding)
            out = b"".join(e.update(data[i : i + chunk]) for i in range(0, len(data), chunk))
            out += e.finalize()
            assert out == one, (n, chunk)
            with pytest.raises(AlreadyFinalized):
                e.update(b"x")
            with pytest.raises(AlreadyFinalized):
                e.finalize()
            d = sm4.decryptor(key, mode=mode, iv=ivo, padding=padding)
            back = b"".join(d.update(one[i : i + chunk]) for i in range(0, len(one), chunk))
            back += d.finalize()
            assert back == data, (n, chunk)


def test_gcm_streaming_and_tamper(variant: str) -> None:
    key, nonce = os.urandom(16), os.urandom(12)
    g = sm4.SM4GCM(key)
    data, aad = os.urandom(1000), b"header"
    one = g.encrypt(nonce, data, aad)
    e = g.encryptor(nonce, aad)
    out = e.update(data[:333]) + e.update(data[333:]) + e.finalize()
    assert out + e.tag == one
    with pytest.raises(AlreadyFinalized):
        e.update(b"")
    # Buffered decryptor: nothing before the tag verifies.
    d = g.decryptor(nonce, one[-16:], aad)
    assert d.buffered
    assert d.update(one[:500]) == b"" and d.update(one[500:-16]) == b""
    assert d.finalize() == data
    # Tag given at finalize.
    d = sm4.decryptor(key, mode="gcm", iv=nonce, aad=aad)
    d.update(one[:-16])
    assert d.finalize(one[-16:]) == data
    # Tampered ciphertext: InvalidTag, no plaintext.
    bad = bytearray(one)
    bad[10] ^= 1
    with pytest.raises(InvalidTag):
        g.decrypt(nonce, bytes(bad), aad)
    d = g.decryptor(nonce, one[-16:], aad)
    assert d.update(bytes(bad[:-16])) == b""
    with pytest.raises(InvalidTag):
        d.finalize()
    with pytest.raises(AlreadyFinalized):
        d.finalize()
    # Unbuffered: plaintext flows, finalize still catches the forgery.
    d = g.decryptor(nonce, one[-16:], aad, buffered=False)
    assert len(d.update(bytes(bad[:-16]))) == 1000
    with pytest.raises(InvalidTag):
        d.finalize()
    with pytest.raises(InvalidTag):
        g.decrypt(nonce, one, b"other aad")
    with pytest.raises(InvalidTag):
        g.decrypt(nonce, one[:15])
    # Truncated tags for decryption of interoperable data.
    assert g.decrypt(nonce, one[:-4], aad, tag_length=12) == data
    with pytest.raises(InvalidLength, match="tag"):
        g.decrypt(nonce, one[:-5], aad, tag_length=11)
    # A bad tag length is reported as such even when the data is shorter than it.
    with pytest.raises(InvalidLength, match="tag"):
        g.decrypt(nonce, b"abc", aad, tag_length=5)


def test_gcm_nonce_lengths(variant: str) -> None:
    g = sm4.SM4GCM(KEY)
    for n in (1, 8, 12, 16, 17, 64):
        nonce = os.urandom(n)
        assert g.decrypt(nonce, g.encrypt(nonce, b"abc"), None) == b"abc"
    with pytest.raises(InvalidLength, match="at least 1 byte"):
        g.encrypt(b"", b"abc")


def test_ccm_round_trip_and_errors(variant: str) -> None:
    for t in range(4, 17, 2):
        c = sm4.SM4CCM(KEY, tag_length=t)
        assert c.tag_length == t
        for nl in range(7, 14):
            nonce = os.urandom(nl)
            for n in (0, 1, 16, 33):
                data = os.urandom(n)
                ct = c.encrypt(nonce, data, b"a" * n)
                assert len(ct) == n + t
                assert c.decrypt(nonce, ct, b"a" * n) == data
                with pytest.raises(InvalidTag):
                    c.decrypt(nonce, bytes([ct[0] ^ 1]) + ct[1:], b"a" * n)
    c = sm4.SM4CCM(KEY)
    for bad in (6, 14, 16):
        with pytest.raises(InvalidLength, match="7 to 13 bytes"):
            c.encrypt(b"n" * bad, b"data")
    for t in (0, 2, 3, 5, 17, 18):
        with pytest.raises(InvalidLength, match="tag"):
            sm4.SM4CCM(KEY, tag_length=t)
    with pytest.raises(InvalidTag):
        c.decrypt(b"n" * 12, b"short")


def test_padding_behaviour(variant: str) -> None:
    iv = os.urandom(16)
    assert len(sm4.encrypt(KEY, b"", mode="cbc", iv=iv)) == 16
    assert len(sm4.encrypt(KEY, b"x" * 16, mode="ecb")) == 32
    assert len(sm4.encrypt(KEY, b"x" * 16, mode="ecb", padding="zero")) == 16
    assert len(sm4.encrypt(KEY, b"x" * 17, mode="ecb", padding="zero")) == 32
    assert (
        sm4.decrypt(KEY, sm4.encrypt(KEY, b"ab", mode="ecb", padding="zero"), mode="ecb", padding="zero")
        == b"ab"
    )
    iso = sm4.encrypt(KEY, b"abc", mode="cbc", iv=iv, padding="iso7816")
    assert sm4.decrypt(KEY, iso, mode="cbc", iv=iv, padding="none")[3:] == b"\x80" + b"\0" * 12
    assert sm4.decrypt(KEY, iso, mode="cbc", iv=iv, padding="iso7816") == b"abc"
    # Bad padding: InvalidPadding, never partial output.
    junk = sm4.encrypt(KEY, b"\x11" * 32, mode="ecb", padding="none")
    with pytest.raises(InvalidPadding):
        sm4.decrypt(KEY, junk, mode="ecb")
    with pytest.raises(InvalidPadding):
        sm4.decrypt(KEY, junk, mode="ecb", padding="iso7816")
    with pytest.raises(InvalidPadding):
        sm4.decrypt(KEY, b"", mode="cbc", iv=iv)
    d = sm4.decryptor(KEY, mode="ecb")
    assert d.update(junk) == junk[:0] + sm4.decrypt(KEY, junk[:16], mode="ecb", padding="none")
    with pytest.raises(InvalidPadding):
        d.finalize()


def test_bad_input_types_and_lengths() -> None:
    with pytest.raises(TypeError):
        sm4.encrypt("0123456789abcdef", b"x", mode="ctr", iv=b"\0" * 16)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sm4.encrypt(KEY, "text", mode="ctr", iv=b"\0" * 16)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sm4.SM4GCM(KEY).encrypt("nonce-nonce!", b"x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sm4.SM4(KEY).encrypt(b"x", mode="ctr", iv="0" * 16)  # type: ignore[arg-type]
    with pytest.raises(InvalidLength, match="16 bytes") as e:
        sm4.encrypt(b"short", b"x", mode="ecb")
    assert isinstance(e.value, ValueError)
    with pytest.raises(InvalidLength, match="16 bytes"):
        sm4.SM4(b"k" * 17)
    with pytest.raises(InvalidLength, match="16 bytes"):
        sm4.SM4GCM(b"k" * 32)
    with pytest.raises(InvalidLength, match="16 bytes"):
        sm4.SM4CCM(b"k" * 15)
    with pytest.raises(InvalidLength, match="iv must be 16 bytes"):
        sm4.encrypt(KEY, b"x", mode="cbc", iv=b"\0" * 8)
    with pytest.raises(InvalidLength, match="iv must be 16 bytes"):
        sm4.encryptor(KEY, mode="ctr", iv=b"\0" * 17)
    with pytest.raises(InvalidLength, match="multiple of 16"):
        sm4.decrypt(KEY, b"\0" * 17, mode="cbc", iv=b"\0" * 16)
    with pytest.raises(InvalidLength, match="multiple of 16"):
        sm4.decrypt(KEY, b"\0" * 31, mode="ecb", padding="none")
    with pytest.raises(InvalidLength, match="multiple of 16"):
        sm4.encrypt(KEY, b"\0" * 31, mode="ecb", padding="none")
    e2 = sm4.encryptor(KEY, mode="cbc", iv=b"\0" * 16, padding="none")
    e2.update(b"x" * 20)
    with pytest.raises(InvalidLength):
        e2.finalize()
    with pytest.raises(InvalidLength, match="block"):
        sm4.SM4(KEY).encrypt_block(b"x" * 15)
    with pytest.raises(InvalidArgument, match="unknown mode"):
        sm4.encrypt(KEY, b"x", mode="xts")
    with pytest.raises(InvalidArgument, match="unknown padding"):
        sm4.encrypt(KEY, b"x", mode="ecb", padding="ansi923")
    with pytest.raises(InvalidArgument):
        sm4.encrypt(KEY, b"x", mode="ctr", iv=b"\0" * 16, padding="pkcs7")
    with pytest.raises(InvalidArgument, match="requires"):
        sm4.encrypt(KEY, b"x", mode="cbc")
    with pytest.raises(InvalidArgument, match="ecb takes no iv"):
        sm4.encrypt(KEY, b"x", mode="ecb", iv=b"\0" * 16)
    with pytest.raises(InvalidArgument):
        sm4.encryptor(KEY, mode="gcm")
    with pytest.raises(InvalidArgument):
        sm4.encryptor(KEY, mode="ctr", iv=b"\0" * 16, aad=b"x")
    with pytest.raises(InvalidArgument, match="standard"):
        sm4.xts_encrypt(b"k" * 16 + b"j" * 16, b"\0" * 16, b"x" * 16, standard="nist")
    with pytest.raises(InvalidLength, match="32 bytes"):
        sm4.xts_encrypt(b"k" * 16, b"\0" * 16, b"x" * 16)
    with pytest.raises(InvalidLength, match="tweak must be 16 bytes"):
        sm4.xts_encrypt(b"k" * 16 + b"j" * 16, b"\0" * 8, b"x" * 16)
    with pytest.raises(InvalidLength, match="at least 16 bytes"):
        sm4.xts_encrypt(b"k" * 16 + b"j" * 16, b"\0" * 16, b"x" * 15)
    with pytest.raises(InvalidKey):
        sm4.xts_encrypt(b"k" * 32, b"\0" * 16, b"x" * 16)
    with pytest.raises(InvalidArgument):
        _ = sm4.SM4GCM(KEY).encryptor(b"n" * 12).tag


def test_buffer_types_and_key_object() -> None:
    c = sm4.SM4(bytearray(KEY))
    data = memoryview(bytearray(b"z" * 40))
    ct = c.encrypt(data, mode="cbc", iv=bytearray(16))
    assert c.decrypt(ct, mode="cbc", iv=bytes(16)) == b"z" * 40
    assert "SM4" in repr(c) and KEY.hex() not in repr(c)
    assert len(sm4.generate_key()) == 16 and sm4.generate_key() != sm4.generate_key()
    assert len(sm4.SM4GCM.generate_key()) == 16


def test_key_object_keeps_its_backend() -> None:
    backends = guomi.available_backends()
    objs = []
    for b in backends:
        guomi.force_backend(b)
        objs.append((b, sm4.SM4(KEY), sm4.SM4GCM(KEY)))
    guomi.force_backend(None)
    for b, c, g in objs:
        assert c.backend == b and g.backend == b
    data = os.urandom(3000)
    outs = {g.encrypt(b"n" * 12, data) for _, _, g in objs}
    assert len(outs) == 1


def test_large_input_releases_gil_and_round_trips() -> None:
    import threading

    g = sm4.SM4GCM(KEY)
    data = os.urandom(1 << 20)
    results: list[bytes] = []

    def work() -> None:
        results.append(g.decrypt(b"n" * 12, g.encrypt(b"n" * 12, data)))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [data] * 3
