"""Batch calls whose threads write their results in place (round 3): the same answers
for every thread count, with mixed keys, lengths (0 included) and invalid items."""

from __future__ import annotations

import pytest

from guomi import sm2, sm3, zuc
from guomi.exceptions import InvalidArgument, InvalidLength

THREADS = [None, 1, 2, 0, 64]


def _items() -> list[tuple[bytes, int, int, int, bytes]]:
    keys = [bytes([k * 37 % 256]) * 16 for k in range(5)]
    # 0 to ~3 KiB, not multiples of 4; > 64 KiB in total so the threaded path is taken.
    return [
        (keys[i % 5], i * 7919 % 2**32, i % 32, i % 2, bytes((i + j) % 251 for j in range(i * 211 % 3073)))
        for i in range(150)
    ]


@pytest.mark.parametrize("threads", THREADS)
def test_eea3_many_in_place_matches_one_by_one(threads: int | None) -> None:
    items = _items()
    want = [zuc.eea3(*it) for it in items]
    got = zuc.eea3_many(items, threads=threads)
    assert got == want
    assert all(type(b) is bytes for b in got)
    assert got[0] == b""  # a zero-length packet
    assert zuc.eia3_many(items, threads=threads) == [zuc.eia3(*it) for it in items]


@pytest.mark.parametrize("threads", THREADS)
def test_eea3_many_invalid_item_is_the_first_error(threads: int | None) -> None:
    items = _items()
    items[97] = (items[97][0], items[97][1], 32, 0, items[97][4])  # bearer out of range
    items[120] = (b"short", 1, 1, 0, b"data")  # a later error, not the one reported
    with pytest.raises(InvalidArgument, match="bearer"):
        zuc.eea3_many(items, threads=threads)
    with pytest.raises(InvalidLength):
        zuc.eea3_many(items[100:], threads=threads)


@pytest.mark.parametrize("threads", THREADS)
def test_hash_many_and_verify_many_every_thread_count(threads: int | None) -> None:
    msgs = [bytes([i % 256]) * (i * 97 % 2049) for i in range(300)]
    assert sm3.hash_many(msgs, threads=threads) == [sm3.hash(m) for m in msgs]
    privs = [sm2.PrivateKey.generate() for _ in range(3)]
    objects = [privs[k % 3].public_key() for k in range(12)]  # fresh objects
    items = []
    for i in range(24):
        key = objects[i % 3] if i % 3 != 2 else objects[3 + i % 9]
        m = b"message %d" % i
        items.append((key, privs[i % 3].sign(m), m))
    items[4] = (items[4][0], items[4][1], b"tampered")
    items[10] = (items[10][0], b"\x30\x00", items[10][2])
    want = [i not in (4, 10) for i in range(24)]
    assert sm2.verify_many(items, threads=threads) == want


def test_sm3_hash_argument_types() -> None:
    d = b"abc"
    want = sm3.hash(d)
    assert sm3.hash(bytearray(d)) == sm3.hash(memoryview(d)) == sm3.hash(data=d) == want
    assert sm3.hash(b"x" * 5000) == sm3.hash(bytearray(b"x" * 5000))
    with pytest.raises(TypeError, match="argument 'data'"):
        sm3.hash("abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sm3.hash(12)  # type: ignore[arg-type]
