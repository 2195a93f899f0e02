"""SM3, HMAC-SM3 and the SM3 KDFs: known answers, cross-checks, bad input."""

from __future__ import annotations

import hashlib
import hmac as std_hmac
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import guomi.sm3 as sm3
from conftest import load_vectors
from guomi import exceptions

VECTORS = load_vectors("sm3")
DIGESTS = [v for v in VECTORS if "digest" in v]
MACS = [v for v in VECTORS if v.get("algorithm") == "HMAC-SM3"]


def _message(v: dict) -> bytes:
    if "message_pattern" in v:
        return bytes(i & 0xFF for i in range(int(v["message_length_bytes"])))
    return bytes.fromhex(v["message"])


def _openssl_has_sm3() -> bool:
    try:
        hashlib.new("sm3")
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("v", DIGESTS, ids=[v["name"] for v in DIGESTS])
def test_digest_vectors(backend: str, v: dict) -> None:
    msg = _message(v)
    assert sm3.hash(msg).hex() == v["digest"]
    h = sm3.new()
    for i in range(0, len(msg), 1000):
        h.update(msg[i : i + 1000])
    assert h.hexdigest() == v["digest"]
    assert sm3.hash_many([msg, msg]) == [bytes.fromhex(v["digest"])] * 2


@pytest.mark.parametrize("v", MACS, ids=[v["name"] for v in MACS])
def test_hmac_wycheproof(v: dict) -> None:
    key, msg, tag = (bytes.fromhex(v[k]) for k in ("key", "message", "tag"))
    full = sm3.hmac(key, msg)
    m = sm3.HMAC(key, msg)
    # The tag size is the test group's (fixed by the verifier), not the tag's length.
    size = v["tag_size_bits"] // 8
    if v["result"] == "valid":
        assert full[: len(tag)] == tag
        assert m.verify(tag, tag_length=size)
        assert m.verify(tag) == (size == 32)  # a truncated tag needs an explicit length
    else:
        assert full[: len(tag)] != tag
        assert not m.verify(tag, tag_length=size)
        assert not m.verify(tag)


def test_hashlib_object_contract() -> None:
    h = sm3.new(b"ab")
    assert (h.name, h.digest_size, h.block_size) == ("sm3", 32, 64)
    c = h.copy()
    h.update(b"c")
    assert h.digest() == sm3.hash(b"abc")
    assert c.digest() == sm3.hash(b"ab")  # the copy is independent
    assert h.digest() == h.digest()  # digest() does not finalize
    assert sm3.SM3 is type(h)
    assert "guomi.sm3.SM3" in repr(h)


def test_works_as_hmac_digestmod() -> None:
    key, msg = b"k" * 100, b"message" * 50
    assert std_hmac.new(key, msg, digestmod=sm3.new).digest() == sm3.hmac(key, msg)
    assert std_hmac.new(key, msg, digestmod=sm3.SM3).hexdigest() == sm3.hmac(key, msg).hex()


@pytest.mark.skipif(not _openssl_has_sm3(), reason="OpenSSL without SM3")
@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000), st.integers(min_value=1, max_value=200))
def test_cross_check_hashlib_and_chunking(data: bytes, chunk: int) -> None:
    want = hashlib.new("sm3", data).digest()
    assert sm3.hash(data) == want
    h = sm3.new()
    for i in range(0, len(data), chunk):
        h.update(data[i : i + chunk])
    assert h.digest() == want


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200), st.binary(max_size=2000))
def test_hmac_cross_check_stdlib(key: bytes, data: bytes) -> None:
    assert sm3.hmac(key, data) == std_hmac.new(key, data, digestmod=sm3.new).digest()
    m = sm3.HMAC(key)
    m.update(data[:7])
    m.update(data[7:])
    assert m.digest() == sm3.hmac(key, data)
    assert m.copy().hexdigest() == m.hexdigest()


def test_cross_check_gmssl() -> None:
    gmssl = pytest.importorskip("gmssl.sm3")
    func = pytest.importorskip("gmssl.func")
    for msg in (b"", b"abc", bytes(range(256)) * 3):
        assert sm3.hash(msg).hex() == gmssl.sm3_hash(func.bytes_to_list(msg))


@pytest.mark.parametrize("threads", [None, 0, 1, 2])
def test_hash_many(backend: str, threads: int | None) -> None:
    msgs = [bytes([i % 251]) * ((i * 37) % 1500) for i in range(300)]
    assert sm3.hash_many(msgs, threads=threads) == [sm3.hash(m) for m in msgs]
    assert sm3.hash_many([]) == []
    assert sm3.hash_many([bytearray(b"abc"), memoryview(b"abc")]) == [sm3.hash(b"abc")] * 2


def test_hash_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = bytes(range(256)) * 10000
    p = tmp_path / "f.bin"
    p.write_bytes(data)
    assert sm3.hash_file(p) == sm3.hash(data)
    assert sm3.hash_file(str(p)) == sm3.hash(data)
    assert sm3.hash_file(io.BytesIO(data), chunk_size=777) == sm3.hash(data)
    with pytest.raises(FileNotFoundError):
        sm3.hash_file(tmp_path / "missing")


def test_kdf_definition() -> None:
    z = bytes(range(64))
    expect = b"".join(sm3.hash(z + i.to_bytes(4, "big")) for i in range(1, 5))
    assert sm3.kdf(z, 100) == expect[:100]
    assert sm3.kdf(z, 0) == b""


@pytest.mark.parametrize("z_len", [0, 33, 64, 124, 200])
def test_kdf_every_backend(backend: str, z_len: int) -> None:
    # Outputs from one block to several 8- and 16-lane groups with a partial last one (the
    # avx2/avx512 backends hash the counter blocks in SIMD lanes from 96 bytes on), Z with
    # a tail of one padded block or two (124 bytes), checked against the definition.
    z = bytes((7 * i + 3) & 0xFF for i in range(z_len))
    blocks = b"".join(sm3.hash(z + i.to_bytes(4, "big")) for i in range(1, 70))
    for length in (1, 64, 96, 100, 256, 512, 544, 1000, 2200):
        assert sm3.kdf(z, length) == blocks[:length], length


@pytest.mark.skipif(not _openssl_has_sm3(), reason="this OpenSSL has no SM3")
def test_pbkdf2_matches_openssl(backend: str) -> None:
    for password, salt, iterations, length in (
        (b"password", b"salt", 2, 32),
        (b"password", b"salt", 4096, 40),
        (b"k" * 100, b"NaCl", 1000, 64),
    ):
        want = hashlib.pbkdf2_hmac("sm3", password, salt, iterations, length)
        assert sm3.pbkdf2_hmac(password, salt, iterations, length) == want


def test_pbkdf2_and_hkdf_definitions() -> None:
    # PBKDF2 with c = 2: T1 = U1 ^ U2 (RFC 8018 §5.2).
    u1 = sm3.hmac(b"pw", b"salt" + (1).to_bytes(4, "big"))
    u2 = sm3.hmac(b"pw", u1)
    assert sm3.pbkdf2_hmac(b"pw", b"salt", 2, 32) == bytes(a ^ b for a, b in zip(u1, u2, strict=True))
    assert len(sm3.pbkdf2_hmac(b"pw", b"salt", 3, 70)) == 70
    # HKDF (RFC 5869 §2.2-2.3).
    prk = sm3.hmac(b"salt", b"ikm")
    t1 = sm3.hmac(prk, b"info" + b"\x01")
    t2 = sm3.hmac(prk, t1 + b"info" + b"\x02")
    assert sm3.hkdf(b"ikm", 40, salt=b"salt", info=b"info") == (t1 + t2)[:40]
    assert sm3.hkdf(b"ikm", 32) == sm3.hmac(sm3.hmac(bytes(32), b"ikm"), b"\x01")


def test_bad_input() -> None:
    for call in (
        lambda: sm3.hash("abc"),  # type: ignore[arg-type]
        lambda: sm3.new("abc"),  # type: ignore[arg-type]
        lambda: sm3.new().update(123),  # type: ignore[arg-type]
        lambda: sm3.hmac("k", b"m"),  # type: ignore[arg-type]
        lambda: sm3.hash_many([b"a", "b"]),  # type: ignore[list-item]
    ):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(TypeError) as info:
        sm3.hash("abc")  # type: ignore[arg-type]
    assert "str" in str(info.value)
    # Typed errors (each also a ValueError), never a bare ValueError.
    with pytest.raises(exceptions.InvalidArgument):
        sm3.pbkdf2_hmac(b"pw", b"salt", 0, 32)
    with pytest.raises(exceptions.InvalidArgument):
        sm3.pbkdf2_hmac(b"pw", b"salt", 1, -1)
    with pytest.raises(exceptions.InvalidLength):
        sm3.hkdf(b"ikm", 255 * 32 + 1)
    with pytest.raises(exceptions.InvalidArgument):
        sm3.hkdf(b"ikm", -1)
    with pytest.raises(exceptions.InvalidArgument):
        sm3.kdf(b"z", -1)
    with pytest.raises(exceptions.InvalidArgument):
        sm3.hash_many([b""], threads=-1)
