"""guomi.arrow against hostile producers of the Arrow C data interface.

The structs are built by hand with ctypes (what any C producer could hand over, and what
pyarrow never builds): a one-column struct whose parent claims more rows than its child
holds, NULL child pointers, offsets near 2^63, dictionaries inside a struct, buffers that
another thread rewrites during the call. Every case must give a typed guomi error (or a
TypeError for a well-formed column of the wrong type), never a read outside the buffers
handed over, a crash or an ``InternalError``; and every struct taken is released once.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow", reason="guomi.arrow needs pyarrow (the 'arrow' extra)")

from guomi import arrow as ga  # noqa: E402
from guomi import sm2, sm3, zuc  # noqa: E402
from guomi.exceptions import GuomiError, InternalError, InvalidArgument  # noqa: E402

KEY = bytes(range(16))


class ArrowSchema(ctypes.Structure):
    pass


class ArrowArray(ctypes.Structure):
    pass


SCHEMA_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
ARRAY_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))

ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", SCHEMA_RELEASE),
    ("private_data", ctypes.c_void_p),
]
ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ARRAY_RELEASE),
    ("private_data", ctypes.c_void_p),
]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class Producer:
    """A C data interface producer built with ctypes: keeps every struct and buffer alive
    and counts the release calls on the top-level schema and array."""

    def __init__(self) -> None:
        self.keep: list[Any] = []
        self.released = {"schema": 0, "array": 0}

        def rel_schema(p: Any) -> None:
            self.released["schema"] += 1
            p.contents.release = SCHEMA_RELEASE()

        def rel_array(p: Any) -> None:
            self.released["array"] += 1
            p.contents.release = ARRAY_RELEASE()

        self._rel_schema = SCHEMA_RELEASE(rel_schema)
        self._rel_array = ARRAY_RELEASE(rel_array)

    def buf(self, data: bytes) -> int:
        b = ctypes.create_string_buffer(data, len(data) + 8)
        self.keep.append(b)
        return ctypes.addressof(b)

    def schema(
        self,
        fmt: bytes,
        children: list[ArrowSchema | None] | None = None,
        n_children: int | None = None,
        dictionary: ArrowSchema | None = None,
    ) -> ArrowSchema:
        s = ArrowSchema()
        s.format = fmt
        s.name = b""
        if children is not None:
            arr = (ctypes.POINTER(ArrowSchema) * max(len(children), 1))()
            for i, c in enumerate(children):
                arr[i] = ctypes.pointer(c) if c is not None else ctypes.POINTER(ArrowSchema)()
            s.children = ctypes.cast(arr, ctypes.POINTER(ctypes.POINTER(ArrowSchema)))
            self.keep.append(arr)
        s.n_children = len(children or []) if n_children is None else n_children
        if dictionary is not None:
            s.dictionary = ctypes.pointer(dictionary)
        s.release = self._rel_schema
        self.keep.append(s)
        return s

    def array(
        self,
        length: int,
        buffers: list[int | None],
        offset: int = 0,
        null_count: int = 0,
        children: list[ArrowArray | None] | None = None,
        n_children: int | None = None,
        dictionary: ArrowArray | None = None,
    ) -> ArrowArray:
        a = ArrowArray()
        a.length, a.offset, a.null_count = length, offset, null_count
        bufs = (ctypes.c_void_p * max(len(buffers), 1))(*buffers)
        self.keep.append(bufs)
        a.n_buffers = len(buffers)
        a.buffers = ctypes.cast(bufs, ctypes.POINTER(ctypes.c_void_p))
        if children is not None:
            arr = (ctypes.POINTER(ArrowArray) * max(len(children), 1))()
            for i, c in enumerate(children):
                arr[i] = ctypes.pointer(c) if c is not None else ctypes.POINTER(ArrowArray)()
            a.children = ctypes.cast(arr, ctypes.POINTER(ctypes.POINTER(ArrowArray)))
            self.keep.append(arr)
        a.n_children = len(children or []) if n_children is None else n_children
        if dictionary is not None:
            a.dictionary = ctypes.pointer(dictionary)
        a.release = self._rel_array
        self.keep.append(a)
        return a

    def column(self, schema: ArrowSchema, array: ArrowArray) -> Any:
        """An object with ``__arrow_c_array__`` handing over (schema, array)."""
        names = (b"arrow_schema", b"arrow_array")
        self.keep.append(names)
        caps = (
            _capsule_new(ctypes.addressof(schema), names[0], None),
            _capsule_new(ctypes.addressof(array), names[1], None),
        )

        class Column:
            def __arrow_c_array__(self, requested_schema: object = None) -> object:
                return caps

        return Column()


def fixed1_struct(
    p: Producer, parent_len: int, child_len: int, parent_offset: int = 0, child_offset: int = 0
) -> Any:
    """A one-column struct over fixed_size_binary(1): the child buffer holds "A" and then
    47 bytes that are not part of any row."""
    data = p.buf(b"A" + b"secret-process-memory-not-in-the-array!!!!!!!!!")
    child_s = p.schema(b"w:1")
    child_a = p.array(child_len, [None, data], offset=child_offset)
    parent_s = p.schema(b"+s", [child_s])
    parent_a = p.array(parent_len, [None], offset=parent_offset, children=[child_a])
    return p.column(parent_s, parent_a)


def expect(
    p: Producer, exc: type[BaseException], call: Callable[[], object], match: str | None = None
) -> None:
    with pytest.raises(exc, match=match) as info:
        call()
    assert not isinstance(info.value, InternalError)
    assert p.released == {"schema": 1, "array": 1}, "every struct taken is released once"


# ---------------------------------------------------------------------------------------
# Finding 1: the struct path.


def test_struct_parent_longer_than_child_is_refused() -> None:
    # Regression: the 47 bytes after the child's one row were hashed (and recoverable).
    p = Producer()
    expect(p, InvalidArgument, lambda: ga.sm3(fixed1_struct(p, 48, 1)), "child shorter")


def test_struct_parent_offset_past_child_is_refused() -> None:
    p = Producer()
    expect(p, InvalidArgument, lambda: ga.sm3(fixed1_struct(p, 1, 1, parent_offset=1)), "child shorter")


def test_struct_within_child_is_read() -> None:
    p = Producer()
    assert ga.sm3(fixed1_struct(p, 1, 1)).to_pylist() == [sm3.hash(b"A")]
    assert p.released == {"schema": 1, "array": 1}
    p = Producer()
    # Parent rows 1..3 of a 4-row child that starts at its row 2: child rows 3..5.
    assert ga.sm3(fixed1_struct(p, 2, 6, parent_offset=1, child_offset=2)).to_pylist() == [
        sm3.hash(b"c"),
        sm3.hash(b"r"),
    ]


@pytest.mark.parametrize(
    ("parent_offset", "child_offset"),
    [(2**63 - 1, 0), (0, 2**63 - 1), (2**62, 2**62), (2**63 - 2, 2**63 - 2), (-1, 0), (0, -1)],
)
def test_struct_offsets_near_i64_max(parent_offset: int, child_offset: int) -> None:
    # Regression: the sums wrapped (a Rust panic surfaced as InternalError).
    p = Producer()
    expect(
        p,
        InvalidArgument,
        lambda: ga.sm3(
            fixed1_struct(p, 1, 2**63 - 1, parent_offset=parent_offset, child_offset=child_offset)
        ),
    )


@pytest.mark.parametrize("where", ["schema", "array"])
def test_struct_null_child_pointer(where: str) -> None:
    # Regression: a NULL entry in `children` segfaulted the interpreter.
    p = Producer()
    data = p.buf(b"A")
    child_s = p.schema(b"w:1")
    child_a = p.array(1, [None, data])
    parent_s = p.schema(b"+s", [None if where == "schema" else child_s])
    parent_a = p.array(1, [None], children=[None if where == "array" else child_a])
    expect(p, InvalidArgument, lambda: ga.sm3(p.column(parent_s, parent_a)), "child")


def test_struct_child_counts_must_match_the_format() -> None:
    p = Producer()
    child_s = p.schema(b"w:1")
    child_a = p.array(1, [None, p.buf(b"A")])
    parent_s = p.schema(b"+s", [child_s])
    parent_a = p.array(1, [None], children=[child_a, child_a])
    expect(p, InvalidArgument, lambda: ga.sm3(p.column(parent_s, parent_a)))
    # A leaf that claims children, and a struct with no buffer.
    p = Producer()
    expect(
        p,
        InvalidArgument,
        lambda: ga.sm3(
            p.column(p.schema(b"w:1"), p.array(1, [None, p.buf(b"A")], children=[], n_children=3))
        ),
    )
    p = Producer()
    child_s = p.schema(b"w:1")
    parent_s = p.schema(b"+s", [child_s])
    parent_a = p.array(1, [], children=[p.array(1, [None, p.buf(b"A")])])
    expect(p, InvalidArgument, lambda: ga.sm3(p.column(parent_s, parent_a)), "buffers")


def test_top_level_hostile_numbers() -> None:
    for length, offset, null_count in [(-1, 0, 0), (1, -1, 0), (2**63 - 1, 2**63 - 1, 0), (1, 0, -2)]:
        p = Producer()
        col = p.column(
            p.schema(b"w:1"), p.array(length, [None, p.buf(b"A")], offset=offset, null_count=null_count)
        )
        expect(p, InvalidArgument, lambda col=col: ga.sm3(col))
    p = Producer()
    # Wrong buffer count for the type.
    expect(p, InvalidArgument, lambda: ga.sm3(p.column(p.schema(b"z"), p.array(1, [None, p.buf(bytes(8))]))))
    p = Producer()
    # A view array whose views buffer would overflow 16 * (offset + length).
    views = p.array(1, [None, p.buf(bytes(16)), p.buf(bytes(8))], offset=2**62)
    expect(p, InvalidArgument, lambda: ga.sm3(p.column(p.schema(b"vz"), views)))


def test_binary_offsets_bounded_by_the_arrays_own_last_offset() -> None:
    # Offsets 0, 100, 5 over a 5-byte values buffer: the array's values end at its own
    # last offset (5); a struct taking only row 0 must not read 100 bytes.
    p = Producer()
    offsets = p.buf(b"".join(o.to_bytes(4, "little", signed=True) for o in (0, 100, 5)))
    child_a = p.array(2, [None, offsets, p.buf(b"abcde")])
    parent = p.column(p.schema(b"+s", [p.schema(b"z")]), p.array(1, [None], children=[child_a]))
    expect(p, InvalidArgument, lambda: ga.sm3(parent), "offsets")


# ---------------------------------------------------------------------------------------
# Finding 2: dictionaries, on every path and for every column parameter.


def test_dictionary_in_record_batch_is_refused_for_counts() -> None:
    # Regression: the indices 0, 1 were used as COUNT whatever the dictionary held, so two
    # different count columns gave the same keystream.
    data = pa.array([bytes(8), bytes(8)])
    for counts in ([100, 101], [200, 201]):
        enc = pa.array(counts).dictionary_encode()
        for wrapped in (pa.record_batch([enc], names=["count"]), pa.table([enc], names=["count"])):
            with pytest.raises(TypeError, match="dictionary"):
                ga.zuc_eea3(KEY, wrapped, 0, 0, data)
    # Decoded, the same columns give the right answer.
    got = ga.zuc_eea3(KEY, pa.array([100, 101]).dictionary_encode().dictionary_decode(), 0, 0, data)
    assert got.to_pylist() == [zuc.eea3(KEY, c, 0, 0, bytes(8)) for c in (100, 101)]


def _dict_cases() -> list[Callable[[Any], object]]:
    data = pa.array([b"abcd", b"efgh"])
    ints = pa.array([1, 0])
    ivs = pa.array([bytes(16), bytes(16)], pa.binary(16))
    priv = sm2.PrivateKey.generate()
    sigs = ga.sm2_sign(priv, data)
    pub = pa.array([priv.public_key().to_bytes()] * 2)
    return [
        lambda d: ga.sm3(d(data)),
        lambda d: ga.hmac_sm3(KEY, d(data)),
        lambda d: ga.sm4_gcm_encrypt(KEY, d(data)),
        lambda d: ga.sm4_gcm_encrypt(KEY, data, aad=d(data)),
        lambda d: ga.sm4_gcm_decrypt(KEY, d(data), on_error="null"),
        lambda d: ga.sm4_encrypt(KEY, d(data), mode="ctr", iv=ivs),
        lambda d: ga.sm4_encrypt(KEY, data, mode="ctr", iv=d(ivs)),
        lambda d: ga.sm4_decrypt(KEY, data, mode="ctr", iv=d(ivs)),
        lambda d: ga.sm2_sign(priv, d(data)),
        lambda d: ga.sm2_verify(d(pub), sigs, data),
        lambda d: ga.sm2_verify(pub, d(sigs), data),
        lambda d: ga.sm2_verify(pub, sigs, d(data)),
        lambda d: ga.zuc_eea3(d(pa.array([KEY, KEY])), 0, 0, 0, data),
        lambda d: ga.zuc_eea3(KEY, d(ints), 0, 0, data),
        lambda d: ga.zuc_eea3(KEY, 0, d(ints), 0, data),
        lambda d: ga.zuc_eea3(KEY, 0, 0, d(ints), data),
        lambda d: ga.zuc_eea3(KEY, 0, 0, 0, d(data)),
        lambda d: ga.zuc_eea3(KEY, 0, 0, 0, data, length_bits=d(pa.array([8, 16]))),
    ]


WRAPS: dict[str, Callable[[Any], Any]] = {
    "array": lambda a: a.dictionary_encode(),
    "chunked": lambda a: pa.chunked_array([a.dictionary_encode()]),
    "record_batch": lambda a: pa.record_batch([a.dictionary_encode()], names=["c"]),
    "table": lambda a: pa.table([a.dictionary_encode()], names=["c"]),
}


@pytest.mark.parametrize("wrap", list(WRAPS))
def test_dictionary_refused_for_every_column_parameter(wrap: str) -> None:
    for i, case in enumerate(_dict_cases()):
        with pytest.raises(TypeError, match="dictionary"):
            case(WRAPS[wrap])
        # The same call with the plain column (or its one-column batch) works.
        plain = {"array": lambda a: a, "chunked": pa.chunked_array}.get(
            wrap, lambda a: pa.record_batch([a], names=["c"])
        )
        try:
            case(plain)
        except Exception as e:  # pragma: no cover - a failure names the case
            raise AssertionError(f"case {i} with a plain {wrap}: {e!r}") from e


def test_dictionary_on_the_array_only_is_refused() -> None:
    # The schema says fixed_size_binary, the array carries a dictionary anyway.
    p = Producer()
    dict_a = p.array(0, [None, None])
    a = p.array(1, [None, p.buf(b"A")], dictionary=dict_a)
    expect(p, TypeError, lambda: ga.sm3(p.column(p.schema(b"w:1"), a)), "dictionary")
    p = Producer()
    child_a = p.array(1, [None, p.buf(b"A")], dictionary=p.array(0, [None, None]))
    col = p.column(p.schema(b"+s", [p.schema(b"w:1")]), p.array(1, [None], children=[child_a]))
    expect(p, TypeError, lambda: ga.sm3(col), "dictionary")


# ---------------------------------------------------------------------------------------
# Finding 3: buffers rewritten by another thread during a call.


def test_offsets_rewritten_during_calls_never_break_the_kernel() -> None:
    # Regression: offsets were checked with the GIL held and read again by the kernel
    # without it; a thread rewriting them in between made a bounds check panic in a worker
    # (InternalError). The checked offsets are now copied before the GIL is released.
    n = 4000
    good = b"".join((8 * i).to_bytes(4, "little") for i in range(n + 1))
    bad = b"".join(((8 * i) if i in (0, n) else 0x7FFFFFF0).to_bytes(4, "little") for i in range(n + 1))
    offsets = bytearray(good)
    data = bytes(8 * n)
    arr = pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    stop = threading.Event()

    def writer() -> None:
        while not stop.is_set():
            offsets[:] = bad
            offsets[:] = good

    t = threading.Thread(target=writer)
    t.start()
    outcomes = {"ok": 0, "refused": 0}
    try:
        for _ in range(300):
            try:
                ga.sm3(arr, threads=2)
                outcomes["ok"] += 1
            except InternalError:
                raise
            except GuomiError:
                outcomes["refused"] += 1
    finally:
        stop.set()
        t.join()
    assert outcomes["ok"] + outcomes["refused"] == 300


@pytest.mark.parametrize(("fmt", "n_buffers"), [(b"z", 3), (b"Z", 3), (b"w:1", 2), (b"i", 2), (b"vz", 3)])
def test_null_buffers_with_an_offset_are_refused(fmt: bytes, n_buffers: int) -> None:
    # Regression (found by fuzz/fuzz_targets/arrow_cdata.rs): a NULL buffer was checked
    # after the array offset was added to it, so NULL + 4 * 248 was read (a segfault).
    p = Producer()
    col = p.column(p.schema(fmt), p.array(249, [None] * n_buffers, offset=248))
    expect(
        p, InvalidArgument, lambda: ga.sm3(col) if fmt != b"i" else ga.zuc_eea3(KEY, col, 0, 0, [b"a"] * 249)
    )


def test_zero_width_column_is_refused() -> None:
    # Regression (found by the arrow_cdata fuzz target): fixed_size_binary(0) needs no
    # buffer, so a length of 2^62 alone set the work.
    p = Producer()
    col = p.column(p.schema(b"w:0"), p.array(2**62, [None, None]))
    expect(p, TypeError, lambda: ga.sm3(col), "fixed_size_binary")
