"""ZUC-128, 128-EEA3/EIA3 and ZUC-256: vectors, streaming, reuse guard, batch, bad input."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import guomi.zuc as zuc
from guomi.exceptions import (
    AlreadyFinalized,
    InvalidArgument,
    InvalidLength,
    KeystreamReuse,
)
from tests.conftest import load_vectors

VECTORS = load_vectors("zuc")


def of(alg: str) -> list[dict]:
    found = [v for v in VECTORS if v["algorithm"] == alg]
    assert found, alg
    return found


def framing(v: dict) -> tuple[bytes, int, int, int]:
    return bytes.fromhex(v["key"]), int(v["count"], 16), v["bearer"], v["direction"]


# --- known answers, every backend --------------------------------------------------------


@pytest.mark.parametrize("v", of("ZUC-128"), ids=lambda v: v["name"])
def test_zuc128_keystream(variant: str, v: dict) -> None:
    words = {int(k): w for k, w in v["keystream_words"].items()}  # numbered from 1
    ks = zuc.keystream(bytes.fromhex(v["key"]), bytes.fromhex(v["iv"]), max(words))
    for i, w in words.items():
        assert ks[4 * (i - 1) : 4 * i].hex() == w
    z = zuc.ZUC(bytes.fromhex(v["key"]), bytes.fromhex(v["iv"]))
    assert z.keystream(4 * max(words)) == ks


@pytest.mark.parametrize("v", of("128-EEA3"), ids=lambda v: v["name"])
def test_eea3_vectors(variant: str, v: dict) -> None:
    key, count, bearer, direction = framing(v)
    pt, ct = bytes.fromhex(v["plaintext"]), bytes.fromhex(v["ciphertext"])
    bits = v["length_bits"]
    assert zuc.eea3(key, count, bearer, direction, pt, length_bits=bits) == ct
    assert zuc.eea3(key, count, bearer, direction, ct, length_bits=bits) == pt
    assert zuc.EEA3(key).encrypt(count, bearer, direction, pt, length_bits=bits) == ct
    assert zuc.EEA3(key).decrypt(count, bearer, direction, ct, length_bits=bits) == pt


def test_eea3_set5_both_printings(variant: str) -> None:
    """Set 5 (4019 bits) is printed both as 503 bytes (ceil(4019/8), the JSON entry) and,
    in the ETSI document, as 126 32-bit words (504 bytes, zero padded). Both inputs give
    the same 503-byte ciphertext with the 5 unused bits zero."""
    v = next(v for v in of("128-EEA3") if v["length_bits"] == 4019)
    key, count, bearer, direction = framing(v)
    pt503, ct503 = bytes.fromhex(v["plaintext"]), bytes.fromhex(v["ciphertext"])
    assert len(pt503) == 503
    pt504 = pt503 + b"\x00"
    out = zuc.eea3(key, count, bearer, direction, pt504, length_bits=4019)
    assert out == ct503 == (ct503 + b"\x00")[:503]
    assert out[-1] & 0x1F == 0
    noisy = pt503[:-1] + bytes([pt503[-1] | 0x1F]) + b"\xff"
    assert zuc.eea3(key, count, bearer, direction, noisy, length_bits=4019) == ct503


@pytest.mark.parametrize("v", of("128-EIA3"), ids=lambda v: v["name"])
def test_eia3_vectors(variant: str, v: dict) -> None:
    key, count, bearer, direction = framing(v)
    msg, bits = bytes.fromhex(v["message"]), v["length_bits"]
    mac = bytes.fromhex(v["mac"])
    assert zuc.eia3(key, count, bearer, direction, msg, length_bits=bits) == mac
    assert zuc.eia3_verify(key, count, bearer, direction, msg, mac, length_bits=bits)
    bad = bytes([mac[0] ^ 1]) + mac[1:]
    assert not zuc.eia3_verify(key, count, bearer, direction, msg, bad, length_bits=bits)
    assert not zuc.eia3_verify(key, count, bearer, direction, msg, mac[:3], length_bits=bits)
    # Bits after length_bits are not authenticated.
    assert zuc.eia3(key, count, bearer, direction, msg + b"\xff\xff", length_bits=bits) == mac


def test_zuc256_keystream(variant: str) -> None:
    v = next(v for v in of("ZUC-256") if "keystream_words" in v)
    key = bytes.fromhex(v["key"])
    expect = "".join(v["keystream_words"])
    n = len(v["keystream_words"])
    assert zuc.zuc256_keystream(key, bytes.fromhex(v["iv"]), n).hex() == expect
    assert zuc.zuc256_keystream(key, bytes.fromhex(v["iv_packed_23_bytes"]), n).hex() == expect
    assert zuc.ZUC(key, bytes.fromhex(v["iv"])).keystream(4 * n).hex() == expect


def test_zuc256_encryption_vector(variant: str) -> None:
    v = next(v for v in of("ZUC-256") if "plaintext" in v)
    z = zuc.ZUC(bytes.fromhex(v["key"]), bytes.fromhex(v["iv"]))
    assert z.update(bytes.fromhex(v["plaintext"])).hex() == v["ciphertext"]


@pytest.mark.parametrize("v", of("ZUC-256-MAC"), ids=lambda v: v["name"])
def test_zuc256_mac_vectors(variant: str, v: dict) -> None:
    key, iv, msg = bytes.fromhex(v["key"]), bytes.fromhex(v["iv"]), bytes.fromhex(v["message"])
    tag = zuc.zuc256_mac(key, iv, msg, tag_bits=v["tag_bits"], length_bits=v["length_bits"])
    assert tag.hex() == v["mac"]
    t = v["tag_bits"]
    assert zuc.zuc256_mac_verify(key, iv, msg, tag, tag_bits=t, length_bits=v["length_bits"])
    assert not zuc.zuc256_mac_verify(
        key, iv, msg, bytes([tag[0] ^ 0x80]) + tag[1:], tag_bits=t, length_bits=v["length_bits"]
    )


def test_zuc256_mac_defaults_and_128() -> None:
    key, iv, msg = bytes(32), bytes(25), bytes(50)
    assert zuc.zuc256_mac(key, iv, msg) == zuc.zuc256_mac(key, iv, msg, tag_bits=32, length_bits=400)
    t128 = zuc.zuc256_mac(key, iv, msg, tag_bits=128)
    assert len(t128) == 16
    assert t128[:8] != zuc.zuc256_mac(key, iv, msg, tag_bits=64)  # own d-constants
    assert zuc.zuc256_mac_verify(key, iv, msg, t128, tag_bits=128)
    assert not zuc.zuc256_mac_verify(key, iv, msg, t128)  # the default size is 32 bits


# --- cross-check with another implementation ---------------------------------------------


def test_keystream_matches_gmalglib() -> None:
    gmalglib = pytest.importorskip("gmalglib")
    for i in range(20):
        key = bytes((i * 7 + j * 13) & 0xFF for j in range(16))
        iv = bytes((i * 29 + j * 3) & 0xFF for j in range(16))
        assert zuc.keystream(key, iv, 64) == gmalglib.zuc_generate(key, iv, 256)


def test_eea3_matches_gmalglib_keystream() -> None:
    """EEA3 = data XOR ZUC(key, IV(count, bearer, direction)), IV per Document 1 §3.3."""
    gmalglib = pytest.importorskip("gmalglib")
    key, count, bearer, direction = bytes(range(16)), 0xDEADBEEF, 21, 1
    iv8 = count.to_bytes(4, "big") + bytes([(bearer << 3) | (direction << 2), 0, 0, 0])
    data = bytes(range(256)) * 3
    ks = gmalglib.zuc_generate(key, iv8 + iv8, len(data))
    assert zuc.eea3(key, count, bearer, direction, data) == bytes(
        a ^ b for a, b in zip(data, ks, strict=False)
    )


def test_eia3_matches_reference_on_gmalglib_keystream() -> None:
    """128-EIA3 (Document 1 §4.4, bit by bit) on gmalglib's ZUC keystream."""
    gmalglib = pytest.importorskip("gmalglib")
    for n, length in [(0, 0), (1, 1), (5, 33), (64, 512), (100, 797), (513, 4100)]:
        msg = bytes((i * 151 + n) & 0xFF for i in range(n))
        key, count, bearer, direction = bytes(range(3, 19)), 0x89ABCDEF, 7, 1
        half = count.to_bytes(4, "big") + bytes([bearer << 3, 0, 0, 0])
        iv = bytearray(half + half)
        iv[8] ^= direction << 7
        iv[14] ^= direction << 7
        words = (length + 31) // 32 + 2
        ks = int.from_bytes(gmalglib.zuc_generate(key, bytes(iv), 4 * words), "big")
        total = 32 * words

        def word(i: int, ks: int = ks, total: int = total) -> int:
            return (ks >> (total - 32 - i)) & 0xFFFFFFFF

        t = 0
        for i in range(length):
            if (msg[i // 8] >> (7 - i % 8)) & 1:
                t ^= word(i)
        t ^= word(length) ^ word(32 * (words - 1))
        got = zuc.eia3(key, count, bearer, direction, msg, length_bits=length)
        assert got == t.to_bytes(4, "big"), (n, length)


# --- streaming == one-shot ---------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=1500), cuts=st.lists(st.integers(0, 1500), max_size=12))
def test_streaming_equals_one_shot(data: bytes, cuts: list[int]) -> None:
    key, iv = b"k" * 16, b"v" * 16
    one = bytes(a ^ b for a, b in zip(data, zuc.keystream(key, iv, (len(data) + 3) // 4), strict=False))
    z = zuc.ZUC(key, iv)
    pieces, last = [], 0
    for c in sorted(min(c, len(data)) for c in cuts) + [len(data)]:
        pieces.append(z.update(data[last:c]))
        last = c
    assert b"".join(pieces) == one


@settings(max_examples=30, deadline=None)
@given(sizes=st.lists(st.integers(0, 300), max_size=10))
def test_keystream_chunks_any_backend(sizes: list[int]) -> None:
    key, iv = bytes(32), bytes(23)
    total = sum(sizes)
    whole = zuc.zuc256_keystream(key, iv, (total + 3) // 4)[:total]
    z = zuc.ZUC(key, iv)
    assert b"".join(z.keystream(n) for n in sizes) == whole


def test_streaming_every_backend(variant: str) -> None:
    key, iv = bytes(range(16)), bytes(range(16, 32))
    data = bytes(range(256)) * 20
    one = zuc.ZUC(key, iv).update(data)
    for step in (1, 5, 64, 255, 256, 257, 4096):
        z = zuc.ZUC(key, iv)
        assert b"".join(z.update(data[i : i + step]) for i in range(0, len(data), step)) == one


def test_finalize() -> None:
    z = zuc.ZUC(bytes(16), bytes(16))
    z.update(b"abc")
    assert z.finalize() == b""
    with pytest.raises(AlreadyFinalized):
        z.update(b"x")
    with pytest.raises(AlreadyFinalized):
        z.keystream(4)
    assert "ZUC" in repr(z)


# --- bit lengths ---------------------------------------------------------------------------


def bits_reference_eia3(
    key: bytes, count: int, bearer: int, direction: int, msg: bytes, length: int
) -> bytes:
    """Document 1 §4.4, bit by bit, on the keystream of guomi.zuc.keystream."""
    half = count.to_bytes(4, "big") + bytes([bearer << 3, 0, 0, 0])
    iv = bytearray(half + half)
    iv[8] ^= direction << 7
    iv[14] ^= direction << 7
    n = (length + 31) // 32 + 2
    ks = int.from_bytes(zuc.keystream(key, bytes(iv), n), "big")
    total = 32 * n

    def word(i: int) -> int:
        return (ks >> (total - 32 - i)) & 0xFFFFFFFF

    t = 0
    for i in range(length):
        if (msg[i // 8] >> (7 - i % 8)) & 1:
            t ^= word(i)
    t ^= word(length)
    return (t ^ word(32 * (n - 1))).to_bytes(4, "big")


@settings(max_examples=60, deadline=None)
@given(msg=st.binary(min_size=0, max_size=40), data=st.data())
def test_eia3_bit_lengths(msg: bytes, data: st.DataObject) -> None:
    length = data.draw(st.integers(0, 8 * len(msg)))
    key = bytes(range(16))
    assert zuc.eia3(key, 7, 3, 1, msg, length_bits=length) == bits_reference_eia3(key, 7, 3, 1, msg, length)


@pytest.mark.parametrize("length", [1, 7, 9, 15, 31, 33, 100, 193, 4019])
def test_eea3_bit_lengths(variant: str, length: int) -> None:
    key = bytes(range(16))
    data = bytes((i * 37) & 0xFF for i in range(600))
    out = zuc.eea3(key, 1, 2, 0, data, length_bits=length)
    n = (length + 7) // 8
    assert len(out) == n
    full = zuc.eea3(key, 1, 2, 0, data[:n])
    unused = 8 * n - length
    assert out[:-1] == full[:-1]
    assert out[-1] == full[-1] & (0xFF << unused) & 0xFF
    back = zuc.eea3(key, 1, 2, 0, out, length_bits=length)
    assert back[:-1] == data[: n - 1]
    assert back[-1] == data[n - 1] & (0xFF << unused) & 0xFF


def test_eea3_defaults_and_bytes_like() -> None:
    key = bytes(16)
    data = b"hello world"
    out = zuc.eea3(key, 0, 0, 0, data)
    assert out == zuc.eea3(key, 0, 0, 0, data, length_bits=8 * len(data))
    assert zuc.eea3(bytearray(key), 0, 0, 0, memoryview(data)) == out
    assert zuc.eea3(key, 0, 0, 0, b"") == b""
    assert zuc.eea3(key, 0, 0, 0, data, length_bits=0) == b""
    assert zuc.eea3(key, 2**32 - 1, 31, 1, data) != out


# --- keystream-reuse guard -----------------------------------------------------------------


def test_reuse_guard_refuses_second_encryption() -> None:
    e = zuc.EEA3(bytes(range(16)))
    c1 = e.encrypt(100, 5, 0, b"attack at dawn")
    with pytest.raises(KeystreamReuse):
        e.encrypt(100, 5, 0, b"attack at dusk")
    with pytest.raises(KeystreamReuse):
        e.encrypt(100, 5, 0, b"attack at dawn", length_bits=3)
    # Any change of count, bearer or direction is a new keystream.
    e.encrypt(101, 5, 0, b"x")
    e.encrypt(100, 6, 0, b"x")
    e.encrypt(100, 5, 1, b"x")
    assert e.used_count == 4
    assert e.is_used(100, 5, 0) and not e.is_used(102, 5, 0)
    # Decryption is never restricted, and matches the one-shot function.
    assert e.decrypt(100, 5, 0, c1) == b"attack at dawn"
    assert e.decrypt(100, 5, 0, c1) == b"attack at dawn"
    assert c1 == zuc.eea3(bytes(range(16)), 100, 5, 0, b"attack at dawn")
    # Another object (or key) has its own memory.
    assert zuc.EEA3(bytes(range(16))).encrypt(100, 5, 0, b"attack at dawn") == c1
    assert "EEA3" in repr(e) and "000102" not in repr(e)


def test_reuse_guard_bad_input_does_not_burn_the_slot() -> None:
    e = zuc.EEA3(bytes(16))
    with pytest.raises(InvalidArgument):
        e.encrypt(1, 2, 0, b"ab", length_bits=17)
    with pytest.raises(InvalidArgument):
        e.encrypt(1, 32, 0, b"ab")
    with pytest.raises(TypeError):
        e.encrypt(1, 2, 0, "ab")  # type: ignore[arg-type]
    assert not e.is_used(1, 2, 0)
    e.encrypt(1, 2, 0, b"ab")
    assert e.is_used(1, 2, 0)
    # Out-of-range framing is refused by is_used too (it was a plain False).
    with pytest.raises(InvalidArgument):
        e.is_used(1, 40, 0)
    with pytest.raises(InvalidArgument):
        e.is_used(1, 2, 2)


def test_reuse_guard_opt_out() -> None:
    e = zuc.EEA3(bytes(16), allow_keystream_reuse=True)
    assert e.allow_keystream_reuse
    a = e.encrypt(9, 9, 1, b"same")
    assert e.encrypt(9, 9, 1, b"same") == a
    assert not zuc.EEA3(bytes(16)).allow_keystream_reuse


def test_reuse_guard_threads() -> None:
    """Concurrent encryptions under one triple: exactly one wins."""
    e = zuc.EEA3(bytes(16))
    results: list[str] = []

    def worker() -> None:
        try:
            e.encrypt(77, 1, 0, bytes(4096))
            results.append("ok")
        except KeystreamReuse:
            results.append("reuse")

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["ok"] + ["reuse"] * 7


# --- batch ---------------------------------------------------------------------------------


def items(n: int) -> list[tuple[bytes, int, int, int, bytes]]:
    return [
        (
            bytes([(i * 11) & 0xFF]) * 16,
            i * 1000 + 7,
            i % 32,
            i % 2,
            bytes((i + j) & 0xFF for j in range((i * 97) % 2100)),
        )
        for i in range(n)
    ]


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 16, 17, 40])
def test_many_matches_single(variant: str, n: int) -> None:
    batch = items(n)
    expect_c = [zuc.eea3(*it) for it in batch]
    expect_m = [zuc.eia3(*it) for it in batch]
    for threads in (None, 0, 3):
        assert zuc.eea3_many(batch, threads=threads) == expect_c
        assert zuc.eia3_many(batch, threads=threads) == expect_m
    assert zuc.eea3_many(iter(batch)) == expect_c


def test_many_bad_input() -> None:
    batch = items(5)
    bad = list(batch)
    bad[3] = (bad[3][0], bad[3][1], 40, 0, bad[3][4])
    with pytest.raises(InvalidArgument):
        zuc.eea3_many(bad)
    with pytest.raises(InvalidArgument):
        zuc.eia3_many(bad)
    bad[3] = (bytes(15), 0, 0, 0, b"")
    with pytest.raises(InvalidLength):
        zuc.eea3_many(bad)
    with pytest.raises(TypeError):
        zuc.eea3_many([(bytes(16), 0, 0, 0)])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        zuc.eea3_many([(bytes(16), 0, 0, 0, "text")])  # type: ignore[list-item]
    with pytest.raises(InvalidArgument):
        zuc.eea3_many(batch, threads=-1)
    with pytest.raises(InvalidArgument):
        zuc.keystream(bytes(16), bytes(16), -1)
    with pytest.raises(InvalidArgument):
        zuc.zuc256_keystream(bytes(32), bytes(25), -1)


# --- bad input -----------------------------------------------------------------------------

K = bytes(16)


@pytest.mark.parametrize(
    "call",
    [
        lambda: zuc.keystream(bytes(15), bytes(16), 1),
        lambda: zuc.keystream(bytes(16), bytes(17), 1),
        lambda: zuc.ZUC(bytes(24), bytes(16)),
        lambda: zuc.ZUC(bytes(16), bytes(25)),
        lambda: zuc.ZUC(bytes(32), bytes(16)),
        lambda: zuc.eea3(bytes(17), 0, 0, 0, b"x"),
        lambda: zuc.eia3(b"", 0, 0, 0, b"x"),
        lambda: zuc.EEA3(bytes(8)),
        lambda: zuc.zuc256_keystream(bytes(16), bytes(25), 1),
        lambda: zuc.zuc256_keystream(bytes(32), bytes(24), 1),
        lambda: zuc.zuc256_mac(bytes(32), bytes(16), b""),
        lambda: zuc.zuc256_mac_verify(bytes(32), bytes(16), b"", bytes(4)),
    ],
)
def test_wrong_sizes_raise_invalid_length(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidLength):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: zuc.eea3(K, 0, 32, 0, b"x"),
        lambda: zuc.eia3(K, 0, 32, 0, b"x"),
        lambda: zuc.eea3(K, 0, -1, 0, b"x"),
        lambda: zuc.eea3(K, 0, 0, 2, b"x"),
        lambda: zuc.eia3(K, 0, 0, -1, b"x"),
        lambda: zuc.eea3(K, 2**32, 0, 0, b"x"),
        lambda: zuc.eia3(K, -1, 0, 0, b"x"),
        lambda: zuc.eea3(K, 0, 0, 0, b"x", length_bits=9),
        lambda: zuc.eia3(K, 0, 0, 0, b"x", length_bits=9),
        lambda: zuc.eea3(K, 0, 0, 0, b"x", length_bits=-1),
        lambda: zuc.zuc256_mac(bytes(32), bytes(25), b"", tag_bits=48),
        lambda: zuc.zuc256_mac(bytes(32), bytes(25), b"", tag_bits=0),
        lambda: zuc.zuc256_mac(bytes(32), bytes(25), b"x", length_bits=9),
        lambda: zuc.zuc256_keystream(bytes(32), bytes(17) + b"\x40" + bytes(7), 1),
    ],
)
def test_bad_values_raise_invalid_argument(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidArgument) as info:
        call()
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "call",
    [
        lambda: zuc.eea3("0" * 16, 0, 0, 0, b"x"),
        lambda: zuc.eea3(K, 0, 0, 0, "text"),
        lambda: zuc.eia3(K, 0, 0, 0, "text"),
        lambda: zuc.eea3(K, "0", 0, 0, b"x"),
        lambda: zuc.eea3(K, 0, 1.0, 0, b"x"),
        lambda: zuc.keystream("k" * 16, bytes(16), 1),
        lambda: zuc.ZUC(bytes(16), bytes(16)).update("text"),
        lambda: zuc.zuc256_mac(bytes(32), bytes(25), "text"),
        lambda: zuc.EEA3("k" * 16),
    ],
)
def test_str_or_wrong_type_raises_type_error(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError):
        call()


def test_length_bits_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        zuc.eea3(K, 0, 0, 0, b"x", 8)  # type: ignore[misc]
