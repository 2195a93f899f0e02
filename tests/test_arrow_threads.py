"""guomi.arrow on columns long enough to be split over threads: every thread count gives the
scalar answers, with and without null rows, on chunked and sliced inputs."""

from __future__ import annotations

import os

import pytest

pa = pytest.importorskip("pyarrow", reason="guomi.arrow needs pyarrow (the 'arrow' extra)")

from guomi import arrow as ga  # noqa: E402
from guomi import sm2, sm3  # noqa: E402

THREADS = (None, 1, 2, 0)
# More than two parts' worth of rows for the hashes (a part is at least 512 rows) and more
# than one HMAC batch (1024 rows) per part; lengths 0..130 cross the 55/56-byte padding
# boundary and the 64-byte block boundary.
N = 2 * 1024 + 517


def rows_with(nulls: bool) -> list[bytes | None]:
    rows: list[bytes | None] = [os.urandom(i % 131) for i in range(N)]
    if nulls:
        for i in range(0, N, 7):
            rows[i] = None
        rows[N - 1] = None
    return rows


def layouts(rows: list[bytes | None]) -> list[object]:
    """Plain, in three chunks, and sliced out of a longer array (offset != 0)."""
    third = len(rows) // 3
    return [
        pa.array(rows, pa.binary()),
        pa.chunked_array(
            [
                pa.array(rows[:third], pa.binary()),
                pa.array(rows[third : 2 * third], pa.binary()),
                pa.array(rows[2 * third :], pa.binary()),
            ],
            pa.binary(),
        ),
        pa.array([b"x", None, b"y"] + rows + [None, b"z"], pa.binary()).slice(3, len(rows)),
    ]


@pytest.mark.parametrize("nulls", [False, True], ids=["dense", "nulls"])
def test_sm3_every_thread_count(nulls: bool) -> None:
    rows = rows_with(nulls)
    want = [None if r is None else sm3.hash(r) for r in rows]
    for col in layouts(rows):
        for threads in THREADS:
            got = ga.sm3(col, threads=threads)
            assert got.type == pa.binary(32)
            assert got.to_pylist() == want, (threads, type(col))


@pytest.mark.parametrize("nulls", [False, True], ids=["dense", "nulls"])
def test_hmac_every_thread_count(nulls: bool) -> None:
    rows = rows_with(nulls)
    for key in (b"k", os.urandom(80)):
        want = [None if r is None else sm3.HMAC(key, r).digest() for r in rows]
        for col in layouts(rows):
            for threads in THREADS:
                got = ga.hmac_sm3(key, col, threads=threads)
                assert got.type == pa.binary(32)
                assert got.to_pylist() == want, (threads, type(col))


def test_sm2_verify_every_thread_count() -> None:
    key = sm2.PrivateKey.generate()
    pub = key.public_key()
    # 45 rows (not a multiple of 8): valid, tampered, malformed and null rows, so that
    # every byte of the result bitmaps mixes true, false and null.
    n = 45
    msgs: list[bytes | None] = [b"m%d" % i for i in range(n)]
    sigs: list[bytes | None] = [key.sign(m, format="raw") if m is not None else None for m in msgs]
    want: list[bool | None] = [True] * n
    for i in range(n):
        if i % 5 == 1:
            msgs[i] = b"other"
            want[i] = False
        elif i % 5 == 2:
            sigs[i] = b"junk"
            want[i] = False
        elif i % 5 == 3:
            sigs[i] = None
            want[i] = None
        elif i % 9 == 4:
            msgs[i] = None
            want[i] = None
    sig_col = pa.array([b"s"] + sigs, pa.binary()).slice(1, n)
    for msg_col in (pa.array(msgs, pa.binary()), pa.chunked_array([msgs[:20], msgs[20:]], pa.binary())):
        for threads in THREADS:
            got = ga.sm2_verify(pub, sig_col, msg_col, threads=threads)
            assert got.to_pylist() == want, threads
            assert got.null_count == want.count(None)
