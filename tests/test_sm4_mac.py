"""SM4 MACs: GB/T 15852.1-2020 algorithms and CMAC against the vectors in
``vectors/sm4_mac.json`` (standard annex, gmsm and BouncyCastle), on every backend;
streaming vs one shot, constant-time verify at a caller-fixed length, and every
bad-input path."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import guomi.sm4 as sm4
from conftest import load_vectors
from guomi.exceptions import AlreadyFinalized, InvalidArgument, InvalidLength

VECTORS = load_vectors("sm4_mac")
KEY = bytes.fromhex("0123456789abcdeffedcba9876543210")
KEY2 = KEY + bytes.fromhex("4149d2aded9456681ec8b511d9e7ee04")
VARIANTS = ["cbc-mac", "emac", "ansi-retail", "mac-des", "lmac", "tr-cbc-mac", "cbcr-mac", "cmac"]
TWO_KEY = {"emac", "ansi-retail", "mac-des"}
FIXED_PADDING = {"tr-cbc-mac", "cbcr-mac", "cmac"}
PADDINGS = ["iso9797-m1", "iso9797-m2", "iso9797-m3"]

try:
    from cryptography.hazmat.primitives import cmac as ccmac
    from cryptography.hazmat.primitives.ciphers import algorithms

    _c = ccmac.CMAC(algorithms.SM4(bytes(16)))
    _c.update(b"x")
    _c.finalize()
    HAVE_CRYPTOGRAPHY_CMAC = True
except Exception:  # pragma: no cover - depends on the environment
    HAVE_CRYPTOGRAPHY_CMAC = False


def _key_for(variant: str) -> bytes:
    return KEY2 if variant in TWO_KEY else KEY


def _paddings(variant: str) -> list[str | None]:
    return [None] if variant in FIXED_PADDING else list(PADDINGS)


def _ids(vs: list[dict]) -> list[str]:
    return [v["name"] for v in vs]


def test_vector_file_is_sourced_and_covers_every_variant() -> None:
    assert {v["variant"] for v in VECTORS} == set(VARIANTS)
    assert all(v["source"] for v in VECTORS)
    annex = [v for v in VECTORS if "Annex B" in v["source"]]
    bc = [v for v in VECTORS if "BouncyCastle" in v.get("cross_checked_with", "") + v["source"]]
    assert len(annex) >= 30 and len(bc) >= 30


@pytest.mark.parametrize("v", VECTORS, ids=_ids(VECTORS))
def test_vectors(variant: str, v: dict) -> None:
    key, msg, tag = (bytes.fromhex(v[k]) for k in ("key", "message", "tag"))
    n = v["tag_length"]
    if v["variant"] == "cmac":
        assert sm4.cmac(key, msg, tag_length=n) == tag
        m = sm4.CMAC(key, tag_length=n)
    else:
        assert sm4.cbc_mac(key, msg, variant=v["variant"], padding=v["padding"], tag_length=n) == tag
        m = sm4.CBCMAC(key, variant=v["variant"], padding=v["padding"], tag_length=n, length=len(msg))
    for i in range(0, len(msg), 7):
        m.update(msg[i : i + 7])
    good = m.copy()
    assert m.finalize() == tag
    assert good.copy().verify(tag)
    bad = bytearray(tag)
    bad[-1] ^= 1
    assert not good.verify(bytes(bad))


def test_m1_empty_message_is_one_zero_block() -> None:
    # ISO/IEC 9797-1:2011 padding method 1 on the empty string: one zero block, so the
    # tag is E_K(0) -- as BouncyCastle's CBCBlockCipherMac computes it.
    zero_block = sm4.encrypt(KEY, bytes(16), mode="ecb", padding="none")
    assert sm4.cbc_mac(KEY, b"", padding="iso9797-m1") == zero_block
    assert sm4.cbc_mac(KEY, bytes(16), padding="iso9797-m1") == zero_block


@pytest.mark.skipif(not HAVE_CRYPTOGRAPHY_CMAC, reason="cryptography without SM4 CMAC")
@settings(max_examples=50, deadline=None)
@given(key=st.binary(min_size=16, max_size=16), data=st.binary(max_size=200))
def test_cmac_matches_cryptography(key: bytes, data: bytes) -> None:
    c = ccmac.CMAC(algorithms.SM4(key))
    c.update(data)
    assert sm4.cmac(key, data) == c.finalize()


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    pad=st.integers(0, 2),
    data=st.binary(max_size=100),
    cuts=st.lists(st.integers(0, 100), max_size=5),
    tag_length=st.integers(8, 16),
)
def test_streaming_equals_one_shot(
    variant: str, pad: int, data: bytes, cuts: list[int], tag_length: int
) -> None:
    padding = _paddings(variant)[pad % len(_paddings(variant))]
    key = _key_for(variant)
    want = sm4.cbc_mac(key, data, variant=variant, padding=padding, tag_length=tag_length)
    m = sm4.CBCMAC(key, variant=variant, padding=padding, tag_length=tag_length, length=len(data))
    prev = 0
    for c in sorted(min(c, len(data)) for c in cuts):
        m.update(data[prev:c])
        prev = c
    m.update(memoryview(data[prev:]))
    assert m.finalize() == want


def test_large_input_releases_gil_path_matches() -> None:
    data = bytes(range(256)) * 64  # 16 KiB, over the GIL-release threshold
    m = sm4.CMAC(KEY)
    m.update(data[:5000])
    m.update(data[5000:])
    assert m.finalize() == sm4.cmac(KEY, data)


def test_truncation() -> None:
    msg = b"This is the test message "  # padded: TrCBC keeps the rightmost bytes
    full = sm4.cbc_mac(KEY, msg, variant="tr-cbc-mac")
    assert sm4.cbc_mac(KEY, msg, variant="tr-cbc-mac", tag_length=8) == full[8:]
    assert sm4.cbc_mac(KEY, msg, variant="cbc-mac", tag_length=8) == sm4.cbc_mac(KEY, msg)[:8]
    assert sm4.cmac(KEY, msg, tag_length=12) == sm4.cmac(KEY, msg)[:12]


def test_verify_is_at_the_fixed_length_only() -> None:
    tag = sm4.cmac(KEY, b"msg")
    m = sm4.CMAC(KEY)
    m.update(b"msg")
    assert not m.copy().verify(tag[:8])  # a correct prefix is not accepted
    assert not m.copy().verify(b"")
    assert not m.copy().verify(tag + b"\0")
    assert m.verify(tag)
    m8 = sm4.CMAC(KEY, tag_length=8)
    m8.update(b"msg")
    assert not m8.copy().verify(tag)  # nor the full tag at a truncated length
    assert m8.verify(tag[:8])


def test_finalized_objects_refuse_everything() -> None:
    for m in (sm4.CMAC(KEY), sm4.CBCMAC(KEY, variant="lmac")):
        m.finalize()
        with pytest.raises(AlreadyFinalized):
            m.update(b"x")
        with pytest.raises(AlreadyFinalized):
            m.finalize()
        with pytest.raises(AlreadyFinalized):
            m.verify(bytes(16))
    m = sm4.CMAC(KEY)
    assert not m.verify(bytes(16))
    with pytest.raises(AlreadyFinalized):
        m.finalize()


def test_copy_is_independent() -> None:
    a = sm4.CBCMAC(KEY2, variant="ansi-retail")
    a.update(b"common prefix ")
    b = a.copy()
    a.update(b"one")
    b.update(b"two")
    assert a.finalize() == sm4.cbc_mac(KEY2, b"common prefix one", variant="ansi-retail")
    assert b.finalize() == sm4.cbc_mac(KEY2, b"common prefix two", variant="ansi-retail")


def test_attributes() -> None:
    m = sm4.CBCMAC(KEY2, variant="MAC-DES", tag_length=10)
    assert (m.variant, m.tag_length) == ("mac-des", 10)
    assert sm4.CMAC(KEY).tag_length == 16
    assert "CBCMAC" in repr(m) and "CMAC" in repr(sm4.CMAC(KEY))


# Every bad-input path.


def test_bad_variant_and_padding() -> None:
    with pytest.raises(InvalidArgument, match="variant"):
        sm4.cbc_mac(KEY, b"", variant="hmac")
    with pytest.raises(InvalidArgument, match="variant"):
        sm4.CBCMAC(KEY, variant="")
    with pytest.raises(InvalidArgument, match="padding"):
        sm4.cbc_mac(KEY, b"", padding="pkcs7")
    with pytest.raises(InvalidArgument, match="padding"):
        sm4.CBCMAC(KEY, padding="iso9797-m4")


@pytest.mark.parametrize("variant", sorted(FIXED_PADDING))
@pytest.mark.parametrize("padding", PADDINGS)
def test_padding_given_for_a_fixed_padding_variant(variant: str, padding: str) -> None:
    with pytest.raises(InvalidArgument, match="fixed padding"):
        sm4.cbc_mac(KEY, b"data", variant=variant, padding=padding)
    with pytest.raises(InvalidArgument, match="fixed padding"):
        sm4.CBCMAC(KEY, variant=variant, padding=padding)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", [0, 15, 17, 31, 33])
def test_wrong_key_length(variant: str, n: int) -> None:
    with pytest.raises(InvalidLength, match="key"):
        sm4.cbc_mac(bytes(n), b"data", variant=variant)
    with pytest.raises(InvalidLength, match="key"):
        sm4.CBCMAC(bytes(n), variant=variant)
    other = KEY if variant in TWO_KEY else KEY2  # the other valid length is wrong here
    with pytest.raises(InvalidLength, match="key"):
        sm4.cbc_mac(other, b"data", variant=variant)
    if variant == "cmac":
        with pytest.raises(InvalidLength):
            sm4.cmac(bytes(n), b"data")
        with pytest.raises(InvalidLength):
            sm4.CMAC(KEY2)


@pytest.mark.parametrize("n", [0, 1, 7, 17, 32])
def test_bad_tag_length(n: int) -> None:
    with pytest.raises(InvalidArgument, match="tag_length"):
        sm4.cbc_mac(KEY, b"", tag_length=n)
    with pytest.raises(InvalidArgument, match="tag_length"):
        sm4.cmac(KEY, b"", tag_length=n)
    with pytest.raises(InvalidArgument, match="tag_length"):
        sm4.CMAC(KEY, tag_length=n)
    with pytest.raises(InvalidArgument, match="tag_length"):
        sm4.CBCMAC(KEY, tag_length=n)
    with pytest.raises(OverflowError):
        sm4.cmac(KEY, b"", tag_length=-1)


def test_m3_streaming_needs_the_length_and_checks_it() -> None:
    with pytest.raises(InvalidArgument, match="length"):
        sm4.CBCMAC(KEY, padding="iso9797-m3")
    m = sm4.CBCMAC(KEY, padding="iso9797-m3", length=5)
    m.update(b"1234")
    with pytest.raises(InvalidArgument, match="declared length"):
        m.finalize()
    with pytest.raises(OverflowError):
        sm4.CBCMAC(KEY, padding="iso9797-m3", length=-1)
    with pytest.raises(OverflowError):
        sm4.CBCMAC(KEY, padding="iso9797-m3", length=1 << 64)
    m = sm4.CBCMAC(KEY, length=3)  # checked whenever given
    m.update(b"abcd")
    with pytest.raises(InvalidArgument, match="declared length"):
        m.verify(bytes(16))


def test_type_errors() -> None:
    with pytest.raises(TypeError):
        sm4.cmac("0123456789abcdef", b"")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sm4.cbc_mac(KEY, "text")  # type: ignore[arg-type]
    m = sm4.CMAC(KEY)
    with pytest.raises(TypeError):
        m.update("text")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        m.verify("tag")  # type: ignore[arg-type]
