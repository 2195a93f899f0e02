"""Batch arguments (round 4): ``sm3.hash_many``, ``zuc.eea3_many`` and ``zuc.eia3_many``
read a list or tuple without a reference per item and borrow exact ``bytes`` in place;
every other kind of item or container still converts as before. These tests pin the
answers and errors for every kind of argument, thread count and error position."""

from __future__ import annotations

import array
import collections
import sys
import threading
from typing import Any, NamedTuple

import pytest

from guomi import sm3, zuc
from guomi._native import sm3 as native_sm3
from guomi._native import zuc as native_zuc
from guomi.exceptions import InvalidArgument, InvalidLength

THREADS = [None, 1, 2, 0]


class SubBytes(bytes):
    pass


class Packet(NamedTuple):  # a tuple subclass: converted the general way
    key: Any
    count: Any
    bearer: Any
    direction: Any
    data: Any


def _msgs() -> list[Any]:
    """Messages of every bytes-like kind, > 64 KiB in total (the threaded path)."""
    out: list[Any] = []
    for i in range(160):
        raw = bytes((i * 7 + j) % 256 for j in range(i * 613 % 1500))
        kind = i % 6
        if kind == 1:
            out.append(bytearray(raw))
        elif kind == 2:
            out.append(memoryview(raw))
        elif kind == 3:
            out.append(SubBytes(raw))
        elif kind == 4:
            out.append(array.array("B", raw))
        else:
            out.append(raw)
    return out


@pytest.mark.parametrize("threads", THREADS)
def test_hash_many_every_kind_of_item_and_container(threads: int | None) -> None:
    msgs = _msgs()
    want = [sm3.hash(bytes(m)) for m in msgs]
    assert sum(len(w) for w in msgs) > 64 * 1024
    assert sm3.hash_many(msgs, threads=threads) == want
    assert sm3.hash_many(tuple(msgs), threads=threads) == want
    assert sm3.hash_many(iter(msgs), threads=threads) == want
    # The binding itself: a list, a tuple, another sequence.
    assert native_sm3.hash_many(msgs, threads) == want
    assert native_sm3.hash_many(tuple(msgs), threads) == want
    assert native_sm3.hash_many(collections.deque(msgs), threads) == want
    got = native_sm3.hash_many(msgs, threads)
    assert type(got) is list and all(type(d) is bytes and len(d) == 32 for d in got)
    assert native_sm3.hash_many([], threads) == [] and native_sm3.hash_many((), threads) == []


@pytest.mark.parametrize("bad_at", [0, 1, 80, 159])
@pytest.mark.parametrize("container", [list, tuple, collections.deque])
def test_hash_many_bad_item_is_a_type_error_naming_the_argument(bad_at: int, container: Any) -> None:
    msgs = _msgs()
    msgs[bad_at] = "text"
    with pytest.raises(TypeError, match="got str") as info:
        native_sm3.hash_many(container(msgs), 0)
    if sys.version_info >= (3, 11):
        assert info.value.__notes__ == ["while processing 'messages'"]
    msgs[bad_at] = 5
    with pytest.raises(TypeError, match="int"):
        native_sm3.hash_many(container(msgs), 0)


def test_hash_many_not_a_sequence() -> None:
    for arg in (5, "abc", b"abc", {b"a": 1}.keys()):
        with pytest.raises(TypeError):
            native_sm3.hash_many(arg, None)


def _items() -> list[Any]:
    """Packets of every accepted form, > 64 KiB in total (the threaded path)."""
    keys = [bytes([k * 37 % 256]) * 16 for k in range(5)]
    out: list[Any] = []
    for i in range(150):
        data = bytes((i + j) % 251 for j in range(i * 211 % 3073))
        key = keys[i % 5]
        kind = i % 7
        if kind == 1:
            out.append((bytearray(key), i, i % 32, i % 2, data))
        elif kind == 2:
            out.append((key, i, i % 32, i % 2, memoryview(data)))
        elif kind == 3:
            out.append(Packet(key, i, i % 32, i % 2, data))
        elif kind == 4:
            out.append((SubBytes(key), i, i % 32, i % 2, SubBytes(data)))
        elif kind == 5:
            out.append((key, i, True, False, bytearray(data)))  # bools are ints
        else:
            out.append((key, i * 7919 % 2**32, i % 32, i % 2, data))
    return out


def _plain(it: Any) -> tuple[bytes, int, int, int, bytes]:
    return (bytes(it[0]), int(it[1]), int(it[2]), int(it[3]), bytes(it[4]))


@pytest.mark.parametrize("threads", THREADS)
def test_eea3_eia3_many_every_kind_of_item_and_container(threads: int | None) -> None:
    items = _items()
    enc = [zuc.eea3(*_plain(it)) for it in items]
    mac = [zuc.eia3(*_plain(it)) for it in items]
    assert sum(len(e) for e in enc) > 64 * 1024
    for container in (list, tuple, iter, collections.deque):
        got = zuc.eea3_many(container(items), threads=threads)
        assert got == enc, container
        assert type(got) is list and all(type(b) is bytes for b in got)
        assert zuc.eia3_many(container(items), threads=threads) == mac, container
    # Every output is its own object (the zero-length one may be the shared b"").
    got = zuc.eea3_many(items, threads=threads)
    assert got[0] == b"" and len({id(b) for b in got[1:]}) == len(items) - 1


@pytest.mark.parametrize("threads", THREADS)
def test_eea3_many_outputs_are_fully_written(threads: int | None) -> None:
    # Packets of every length mod 4 and mod 64 under a zero key: each output XORs with
    # its data back to the keystream, which must match the single call's, byte for byte.
    items = [(bytes(16), i, 0, 0, bytes(i)) for i in range(300)]
    got = zuc.eea3_many(items, threads=threads)
    assert [len(g) for g in got] == list(range(300))
    assert got == [zuc.eea3(*it) for it in items]


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("container", [list, tuple, iter])
def test_eea3_many_first_bad_item_is_the_error(threads: int | None, container: Any) -> None:
    items = _items()
    # A conversion error (any item) comes before a check error (key length, bearer),
    # and among conversion errors the first item's.
    bad = list(items)
    bad[10] = (bytes(15), 1, 1, 0, b"x")  # InvalidLength (checked later)
    bad[50] = (bytes(16), 1, 1, 0, "text")  # TypeError while converting
    bad[90] = (bytes(16), 2**32, 1, 0, b"x")  # InvalidArgument while converting
    with pytest.raises(TypeError, match="got str"):
        zuc.eea3_many(container(bad), threads=threads)
    bad[50] = Packet(bytes(16), -1, 1, 0, b"x")  # now item 50: count out of range
    with pytest.raises(InvalidArgument, match="count"):
        zuc.eea3_many(container(bad), threads=threads)
    bad[50] = items[50]
    with pytest.raises(InvalidArgument, match="count"):  # item 90
        zuc.eea3_many(container(bad), threads=threads)
    bad[90] = items[90]
    with pytest.raises(InvalidLength):  # item 10, after every item converted
        zuc.eea3_many(container(bad), threads=threads)
    with pytest.raises(InvalidLength):
        zuc.eia3_many(container(bad), threads=threads)
    bad[5] = (bytes(16), 0, 32, 0, b"x")  # bearer out of range: before item 10
    with pytest.raises(InvalidArgument, match="bearer"):
        zuc.eea3_many(container(bad), threads=threads)
    for shape in [(bytes(16), 0, 0, 0), [bytes(16), 0, 0, 0, b""], b"x" * 5, None]:
        bad = list(items)
        bad[7] = shape
        with pytest.raises(TypeError, match="tuple"):
            zuc.eea3_many(container(bad), threads=threads)
    bad = list(items)
    bad[7] = (bytes(16), 1.0, 0, 0, b"")
    with pytest.raises(TypeError, match="count"):
        zuc.eea3_many(container(bad), threads=threads)


@pytest.mark.parametrize("threads", THREADS)
def test_eea3_many_large_batches_errors_by_position(threads: int | None) -> None:
    # 1000 packets of 1 KiB: with more than one thread the items are converted batch by
    # batch while earlier batches are already being encrypted (the pipelined path); the
    # answers and the error chosen must not depend on how far the work had got.
    items: list[Any] = [(bytes([i % 7]) * 16, i, i % 32, i % 2, bytes([i % 251]) * 1024) for i in range(1000)]
    want = [zuc.eea3(*it) for it in items]
    assert zuc.eea3_many(items, threads=threads) == want
    assert zuc.eea3_many(tuple(items), threads=threads) == want
    # A slow-path item in a late batch (converted the general way, owned by its batch).
    mixed = list(items)
    mixed[950] = Packet(*items[950][:4], bytearray(items[950][4]))
    assert zuc.eea3_many(mixed, threads=threads) == want
    # Check errors in two late batches: the first one's is raised.
    bad = list(items)
    bad[700] = (bytes(15), 0, 0, 0, b"x")
    bad[900] = (bytes(17), 0, 0, 0, b"x")
    with pytest.raises(InvalidLength, match="got 15 bytes"):
        zuc.eea3_many(bad, threads=threads)
    # A conversion error in the last batch wins over check errors in earlier ones.
    bad[999] = (bytes(16), 0, 0, 0, "text")
    with pytest.raises(TypeError, match="got str"):
        zuc.eea3_many(bad, threads=threads)
    # A conversion error in the first batch stops everything early.
    bad[0] = (bytes(16), -1, 0, 0, b"x")
    with pytest.raises(InvalidArgument, match="count"):
        zuc.eea3_many(bad, threads=threads)


def test_batch_inputs_changed_by_another_thread() -> None:
    # The caller's list may change while the GIL is released: the call works on the
    # items it was given (a snapshot), and nothing is freed under it.
    msgs = [bytes([i]) * 4096 for i in range(256)]
    items = [(bytes(16), i, 0, 0, m) for i, m in enumerate(msgs)]
    want_h = [sm3.hash(m) for m in msgs]
    want_e = [zuc.eea3(*it) for it in items]
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            for lst in (hm, ez):
                lst.reverse()
                lst.append(lst.pop(0))

    hm, ez = list(msgs), list(items)
    t = threading.Thread(target=churn)
    t.start()
    try:
        for _ in range(30):
            # The live lists (255 or 256 items, in some order): every answer is right.
            got_h = native_sm3.hash_many(hm, 0)
            got_e = native_zuc.eea3_many(ez, threads=0)
            assert len(got_h) in (255, 256) and len(got_e) in (255, 256)
            assert set(got_h) <= set(want_h) and set(got_e) <= set(want_e)
            got_h = sm3.hash_many(hm, threads=0)
            assert len(got_h) in (255, 256) and set(got_h) <= set(want_h)
    finally:
        stop.set()
        t.join()
