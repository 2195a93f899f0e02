"""guomi.arrow: column functions against the scalar API, every input layout, bad input."""

from __future__ import annotations

import os

import pytest

pa = pytest.importorskip("pyarrow", reason="guomi.arrow needs pyarrow (the 'arrow' extra)")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from guomi import arrow as ga  # noqa: E402
from guomi import sm2, sm3, sm4, zuc  # noqa: E402
from guomi.exceptions import InvalidArgument, InvalidLength, InvalidPadding, InvalidTag  # noqa: E402

KEY = bytes(range(16))
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

rows_st = st.lists(st.one_of(st.none(), st.binary(max_size=70)), max_size=40)


def layouts(rows: list[bytes | None]) -> list[object]:
    """The same rows as binary, large_binary, binary_view, chunked, sliced (offset != 0)."""
    out: list[object] = [
        pa.array(rows, pa.binary()),
        pa.array(rows, pa.large_binary()),
        pa.chunked_array(
            [pa.array(rows[: len(rows) // 2], pa.binary()), pa.array(rows[len(rows) // 2 :], pa.binary())],
            pa.binary(),
        ),
        pa.array([None, b"x"] + rows + [b"y"], pa.binary()).slice(2, len(rows)),
    ]
    if hasattr(pa, "binary_view"):
        out.append(pa.array(rows, pa.binary_view()))
    return out


def scalar_map(f, rows):  # type: ignore[no-untyped-def]
    return [None if r is None else f(r) for r in rows]


@SETTINGS
@given(rows_st)
def test_sm3_matches_scalar(rows: list[bytes | None]) -> None:
    want = scalar_map(sm3.hash, rows)
    for col in layouts(rows):
        for threads in (None, 0, 3):
            got = ga.sm3(col, threads=threads)
            assert got.type == pa.binary(32)
            assert got.to_pylist() == want


@SETTINGS
@given(st.binary(max_size=80), rows_st)
def test_hmac_matches_scalar(key: bytes, rows: list[bytes | None]) -> None:
    want = scalar_map(lambda r: sm3.HMAC(key, r).digest(), rows)
    for col in layouts(rows):
        assert ga.hmac_sm3(key, col, threads=0).to_pylist() == want


@SETTINGS
@given(rows_st, st.booleans())
def test_gcm_round_trip_and_scalar_decrypt(rows: list[bytes | None], with_aad: bool) -> None:
    aad = pa.array([None if r is None else b"aad" + r[:3] for r in rows], pa.binary()) if with_aad else None
    for col in layouts(rows):
        ct = ga.sm4_gcm_encrypt(KEY, col, aad=aad, threads=0)
        assert ct.type == (pa.large_binary() if col.type == pa.large_binary() else pa.binary())
        cts = ct.to_pylist()
        gcm = sm4.SM4GCM(KEY)
        for i, (r, c) in enumerate(zip(rows, cts, strict=True)):
            if r is None:
                assert c is None
                continue
            assert len(c) == len(r) + 28
            a = aad[i].as_py() if aad is not None else None
            assert gcm.decrypt(c[:12], c[12:], a or None) == r
        assert ga.sm4_gcm_decrypt(KEY, ct, aad=aad, threads=2).to_pylist() == rows


def test_gcm_nonces_are_fresh_per_row() -> None:
    ct = ga.sm4_gcm_encrypt(KEY, pa.array([b"same"] * 500)).to_pylist()
    assert len({c[:12] for c in ct}) == 500


def test_gcm_decrypts_scalar_output_and_constant_aad() -> None:
    gcm = sm4.SM4GCM(KEY)
    rows = [os.urandom(n) for n in range(0, 50)]
    cts = []
    for r in rows:
        nonce = os.urandom(12)
        cts.append(nonce + gcm.encrypt(nonce, r, b"table=t1"))
    assert ga.sm4_gcm_decrypt(KEY, pa.array(cts), aad=b"table=t1").to_pylist() == rows
    with pytest.raises(InvalidTag):
        ga.sm4_gcm_decrypt(KEY, pa.array(cts), aad=b"table=t2")


def test_gcm_on_error() -> None:
    ct = ga.sm4_gcm_encrypt(KEY, pa.array([b"a", b"bb", None, b"cccc"])).to_pylist()
    bad = list(ct)
    bad[1] = bad[1][:-1] + bytes([bad[1][-1] ^ 1])
    bad[3] = b"short"
    with pytest.raises(InvalidTag, match="row 1") as e:
        ga.sm4_gcm_decrypt(KEY, pa.array(bad))
    assert e.value.row == 1  # type: ignore[attr-defined]
    got = ga.sm4_gcm_decrypt(KEY, pa.array(bad), on_error="null", threads=0)
    assert got.to_pylist() == [b"a", None, None, None]
    with pytest.raises(InvalidArgument):
        ga.sm4_gcm_decrypt(KEY, pa.array(bad), on_error="ignore")


# Lengths on both sides of the block size, of the boundaries inside the multi-row GCM
# kernel (2 KiB: fused CTR; 16 KiB: one-row path) and a few odd ones.
BOUNDARY_LENS = [n + d for n in (0, 16, 32, 48, 64, 96, 112, 128, 256, 2048, 4096, 16384) for d in (-1, 0, 1)]


@pytest.mark.parametrize("threads", [None, 0, 3])
def test_gcm_mixed_lengths_around_block_boundaries(threads: int | None) -> None:
    lens = [n for n in BOUNDARY_LENS if n >= 0] + [5, 100, 1000, 3000]
    rows: list[bytes | None] = []
    for i in range(1300):  # several batches of rows per thread
        rows.append(None if i % 11 == 7 else os.urandom(lens[(i * 7) % len(lens)]))
    aads = [None if i % 3 == 0 else os.urandom(lens[(i * 5) % len(lens)] % 40) for i in range(len(rows))]
    aad = pa.array(aads, pa.binary())
    ct = ga.sm4_gcm_encrypt(KEY, pa.array(rows, pa.binary()), aad=aad, threads=threads)
    gcm = sm4.SM4GCM(KEY)
    for r, c, a in zip(rows, ct.to_pylist(), aads, strict=True):
        if r is None:
            assert c is None
            continue
        assert len(c) == len(r) + 28
        assert gcm.decrypt(c[:12], c[12:], a or None) == r
    assert ga.sm4_gcm_decrypt(KEY, ct, aad=aad, threads=threads).to_pylist() == rows
    # And the other way: rows sealed one by one open as a column.
    sealed = []
    for r, a in zip(rows, aads, strict=True):
        nonce = os.urandom(12)
        sealed.append(None if r is None else nonce + gcm.encrypt(nonce, r, a or None))
    assert ga.sm4_gcm_decrypt(KEY, pa.array(sealed), aad=aad, threads=threads).to_pylist() == rows


def test_gcm_on_error_names_the_first_failing_row_across_batches() -> None:
    rows = [os.urandom(i % 70) for i in range(1600)]
    ct = ga.sm4_gcm_encrypt(KEY, pa.array(rows)).to_pylist()

    def tamper(i: int) -> None:
        bad[i] = bad[i][:-1] + bytes([bad[i][-1] ^ 0x40])

    for tampered, short, first in [
        ([700, 1500], [1000], 700),
        ([1500], [1000], 1000),
        ([5], [10], 5),
        ([10], [3], 3),
        ([1599], [], 1599),
    ]:
        bad = list(ct)
        for i in tampered:
            tamper(i)
        for i in short:
            bad[i] = bad[i][:27]
        for threads in (None, 0, 2):
            with pytest.raises(InvalidTag) as e:
                ga.sm4_gcm_decrypt(KEY, pa.array(bad), threads=threads)
            assert e.value.row == first  # type: ignore[attr-defined]
            got = ga.sm4_gcm_decrypt(KEY, pa.array(bad), on_error="null", threads=threads).to_pylist()
            assert got == [None if i in tampered or i in short else r for i, r in enumerate(rows)]


MODES = [("ecb", None), ("cbc", "pkcs7"), ("cbc", "iso7816"), ("ctr", None), ("cfb", None), ("ofb", None)]


@SETTINGS
@given(rows_st, st.sampled_from(MODES))
def test_sm4_modes_match_scalar(rows: list[bytes | None], mp: tuple[str, str | None]) -> None:
    mode, padding = mp
    ivs = None if mode == "ecb" else pa.array([os.urandom(16) for _ in rows], pa.binary(16))
    for col in layouts(rows):
        ct = ga.sm4_encrypt(KEY, col, mode=mode, iv=ivs, padding=padding, threads=0)
        want = [
            None
            if r is None
            else sm4.encrypt(KEY, r, mode=mode, iv=None if ivs is None else ivs[i].as_py(), padding=padding)
            for i, r in enumerate(rows)
        ]
        assert ct.to_pylist() == want
        back = ga.sm4_decrypt(KEY, ct, mode=mode, iv=ivs, padding=padding, threads=2)
        assert back.to_pylist() == rows


def test_sm4_bad_padding_rows() -> None:
    ct = ga.sm4_encrypt(KEY, pa.array([b"x" * 5, b"y" * 16, b"z"]), mode="ecb").to_pylist()
    ct[1] = ct[1][:16]  # a whole block whose padding will not check
    ct[2] = ct[2][:7]  # not a whole block
    with pytest.raises(InvalidPadding, match="row 1"):
        ga.sm4_decrypt(KEY, pa.array(ct), mode="ecb")
    got = ga.sm4_decrypt(KEY, pa.array(ct), mode="ecb", on_error="null").to_pylist()
    assert got == [b"x" * 5, None, None]


def test_sm4_iv_errors() -> None:
    col = pa.array([b"a", b"b"])
    with pytest.raises(InvalidArgument, match="requires an iv"):
        ga.sm4_encrypt(KEY, col, mode="cbc")
    with pytest.raises(TypeError, match="one 16-byte IV per row"):
        ga.sm4_encrypt(KEY, col, mode="cbc", iv=bytes(16))
    with pytest.raises(InvalidLength, match="row 0"):
        ga.sm4_encrypt(KEY, col, mode="cbc", iv=pa.array([bytes(12), bytes(12)], pa.binary(12)))
    with pytest.raises(InvalidArgument, match="as many rows"):
        ga.sm4_encrypt(KEY, col, mode="ctr", iv=pa.array([bytes(16)]))
    with pytest.raises(InvalidArgument, match="row 1"):
        ga.sm4_encrypt(KEY, col, mode="ctr", iv=pa.array([bytes(16), None], pa.binary(16)))
    with pytest.raises(InvalidArgument, match="ecb takes no iv"):
        ga.sm4_encrypt(KEY, col, mode="ecb", iv=pa.array([bytes(16)] * 2))
    with pytest.raises(InvalidArgument, match="padding"):
        ga.sm4_encrypt(KEY, col, mode="ctr", iv=pa.array([bytes(16)] * 2), padding="pkcs7")
    with pytest.raises(InvalidArgument, match="mode"):
        ga.sm4_encrypt(KEY, col, mode="xts")
    with pytest.raises(InvalidLength, match="row 0"):
        ga.sm4_encrypt(KEY, pa.array([b"abc"]), mode="ecb", padding="none")


def test_sm2_sign_verify_columns() -> None:
    key = sm2.PrivateKey.generate()
    pub = key.public_key()
    rows = [b"", None, b"m1", os.urandom(300)]
    raw = ga.sm2_sign(key, pa.array(rows), threads=0)
    assert raw.type == pa.binary(64)
    der = ga.sm2_sign(key, pa.array(rows), format="der", uid=b"")
    assert der.type == pa.binary()
    for i, r in enumerate(rows):
        if r is None:
            assert raw[i].as_py() is None and der[i].as_py() is None
            continue
        assert pub.verify(raw[i].as_py(), r, format="raw")
        assert pub.verify(der[i].as_py(), r, uid=b"")
        assert not pub.verify(der[i].as_py(), r)
    # Either encoding, per row; nulls give null; wrong message or uid gives False.
    mixed = pa.array([raw[0].as_py(), None, der[2].as_py(), b"junk"])
    got = ga.sm2_verify(pub, mixed, pa.array(rows), threads=0).to_pylist()
    assert got == [True, None, False, False]  # row 2 was signed with uid b""
    assert ga.sm2_verify(pub, der, pa.array(rows), uid=b"").to_pylist() == [True, None, True, True]
    assert ga.sm2_verify(pub, raw, pa.array([b"x", b"y", b"m1", None])).to_pylist() == [
        False,
        None,
        True,
        None,
    ]
    # A column of public keys (any encoding), the key's bytes, a null key.
    other = sm2.PrivateKey.generate().public_key()
    keys = pa.array([pub.to_bytes(), pub.to_bytes(format="raw"), other.to_bytes(), None])
    assert ga.sm2_verify(keys, raw, pa.array(rows)).to_pylist() == [True, None, False, None]
    assert ga.sm2_verify(pub.to_bytes(format="compressed"), raw, pa.array(rows)).to_pylist() == [
        True,
        None,
        True,
        True,
    ]
    bad_keys = pa.array([b"\x04" + bytes(64)] * 4)
    assert ga.sm2_verify(bad_keys, raw, pa.array(rows)).to_pylist() == [False, None, False, False]
    with pytest.raises(InvalidArgument, match="differ in length"):
        ga.sm2_verify(pub, raw, pa.array([b"a"]))
    with pytest.raises(InvalidArgument):
        ga.sm2_sign(key, pa.array([b"a"]), format="pem")
    assert "PrivateKey" in repr(key) and key.to_bytes().hex() not in repr(key)


@SETTINGS
@given(
    st.lists(
        st.tuples(st.binary(max_size=40), st.integers(0, 2**32 - 1), st.integers(0, 31), st.integers(0, 1)),
        max_size=30,
    )
)
def test_zuc_eea3_matches_scalar(items: list[tuple[bytes, int, int, int]]) -> None:
    keys = [os.urandom(16) for _ in items]
    data = pa.array([d for d, *_ in items], pa.binary())
    counts = pa.array([c for _, c, _, _ in items], pa.uint32())
    bearers = pa.array([b for *_, b, _ in items], pa.uint8())
    dirs = pa.array([d for *_, d in items], pa.int64())
    got = ga.zuc_eea3(pa.array(keys, pa.binary(16)), counts, bearers, dirs, data, threads=0).to_pylist()
    want = [zuc.eea3(k, c, b, d, m) for k, (m, c, b, d) in zip(keys, items, strict=True)]
    assert got == want
    # Scalars broadcast; bit lengths per row.
    bits = pa.array([8 * len(m) - (i % 8 if m else 0) for i, (m, *_) in enumerate(items)], pa.int32())
    got = ga.zuc_eea3(KEY, 7, 3, 1, data, length_bits=bits).to_pylist()
    want = [zuc.eea3(KEY, 7, 3, 1, m, length_bits=bits[i].as_py()) for i, (m, *_) in enumerate(items)]
    assert got == want


def test_zuc_nulls_and_errors() -> None:
    data = pa.array([b"a", b"b", None, b"d"])
    got = ga.zuc_eea3(KEY, pa.array([1, None, 3, 4]), 0, 0, data).to_pylist()
    assert got[1] is None and got[2] is None and got[0] == zuc.eea3(KEY, 1, 0, 0, b"a")
    with pytest.raises(InvalidArgument, match="row 3"):
        ga.zuc_eea3(KEY, 0, pa.array([0, 1, 2, 32]), 0, data)
    with pytest.raises(InvalidArgument, match="row 0"):
        ga.zuc_eea3(KEY, -1, 0, 0, data)
    with pytest.raises(InvalidArgument, match="as many rows"):
        ga.zuc_eea3(KEY, pa.array([1, 2]), 0, 0, data)
    with pytest.raises(InvalidLength, match="row 0"):
        ga.zuc_eea3(bytes(15), 0, 0, 0, data)
    with pytest.raises(TypeError, match="integers"):
        ga.zuc_eea3(KEY, pa.array([b"x"] * 4), 0, 0, data)
    with pytest.raises(TypeError, match="bool"):
        ga.zuc_eea3(KEY, 0, True, 0, data)


def test_strings_views_and_lists() -> None:
    words = ["abc", None, "汉字", ""]
    want = [None if w is None else sm3.hash(w.encode()) for w in words]
    for t in (pa.string(), pa.large_string()) + ((pa.string_view(),) if hasattr(pa, "string_view") else ()):
        assert ga.sm3(pa.array(words, t)).to_pylist() == want
    assert ga.sm3([b"abc", None]).to_pylist() == want[:2]
    # A one-column table (as DuckDB and Polars frames export) is accepted; wider ones are not.
    table = pa.table({"w": pa.array(words)})
    assert ga.sm3(table).to_pylist() == want
    with pytest.raises(TypeError, match="several columns"):
        ga.sm3(pa.table({"a": [b"x"], "b": [b"y"]}))
    # Long string views live in data buffers, short ones inline.
    long = ["x" * 100, "short", None, "y" * 13]
    if hasattr(pa, "string_view"):
        assert ga.sm3(pa.array(long, pa.string_view())).to_pylist() == [
            None if w is None else sm3.hash(w.encode()) for w in long
        ]


def test_large_input_gives_large_output() -> None:
    ct = ga.sm4_gcm_encrypt(KEY, pa.array([b"x"], pa.large_binary()))
    assert ct.type == pa.large_binary()
    assert ga.sm4_gcm_decrypt(KEY, ct).to_pylist() == [b"x"]


def test_empty_columns() -> None:
    for f in (lambda c: ga.sm3(c), lambda c: ga.sm4_gcm_encrypt(KEY, c), lambda c: ga.hmac_sm3(b"k", c)):
        assert len(f(pa.array([], pa.binary()))) == 0
    assert ga.sm3(pa.chunked_array([], pa.binary())).to_pylist() == []
    assert ga.sm3(pa.array([None, None], pa.binary())).to_pylist() == [None, None]


def test_bad_inputs() -> None:
    col = pa.array([b"a"])
    with pytest.raises(TypeError, match="binary or string"):
        ga.sm3(pa.array([1, 2]))
    with pytest.raises(TypeError, match="dictionary"):
        ga.sm3(pa.array(["a", "a"]).dictionary_encode())
    with pytest.raises(TypeError, match="Arrow column"):
        ga.sm3(b"abc")
    with pytest.raises(TypeError):
        ga.sm3(object())
    with pytest.raises(InvalidLength):
        ga.sm4_gcm_encrypt(bytes(15), col)
    with pytest.raises(InvalidLength):
        ga.sm4_encrypt(bytes(17), col, mode="ecb")
    with pytest.raises(InvalidArgument, match="aad column"):
        ga.sm4_gcm_encrypt(KEY, col, aad=pa.array([b"a", b"b"]))
    with pytest.raises(TypeError, match="aad"):
        ga.sm4_gcm_encrypt(KEY, col, aad=pa.array([1]))
    with pytest.raises(InvalidArgument, match="threads"):
        ga.sm3(col, threads=-1)
    with pytest.raises(TypeError, match="threads"):
        ga.sm3(col, threads=1.5)  # type: ignore[arg-type]
    # Huge thread counts are clamped, as everywhere in guomi.
    assert ga.sm3(col, threads=10**6).to_pylist() == [sm3.hash(b"a")]


class _Capsules:
    """A minimal foreign producer: only the PyCapsule protocol, no pyarrow type."""

    def __init__(self, arr: object) -> None:
        self._arr = arr

    def __arrow_c_array__(self, requested_schema: object = None) -> object:
        return self._arr.__arrow_c_array__()  # type: ignore[attr-defined]


class _Stream:
    def __init__(self, arr: object) -> None:
        self._arr = arr

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self._arr.__arrow_c_stream__()  # type: ignore[attr-defined]


def test_pycapsule_producers() -> None:
    rows = [b"a", None, b"ccc"]
    want = scalar_map(sm3.hash, rows)
    assert ga.sm3(_Capsules(pa.array(rows))).to_pylist() == want
    assert ga.sm3(_Stream(pa.chunked_array([pa.array(rows[:1]), pa.array(rows[1:])]))).to_pylist() == want


def test_polars_series() -> None:
    pl = pytest.importorskip("polars", reason="polars not installed")
    s = pl.Series("v", [b"a", None, b"x" * 40], dtype=pl.Binary)
    assert ga.sm3(s).to_pylist() == scalar_map(sm3.hash, [b"a", None, b"x" * 40])
    ct = ga.sm4_gcm_encrypt(KEY, s, threads=0)
    assert pl.from_arrow(ga.sm4_gcm_decrypt(KEY, pl.from_arrow(ct))).to_list() == [b"a", None, b"x" * 40]
    # The map_batches recipe of docs/scale.md.
    df = pl.DataFrame({"ssn": ["123-45-6789", None, "987-65-4321"]})
    out = df.with_columns(
        pl.col("ssn").map_batches(lambda s: pl.from_arrow(ga.hmac_sm3(b"k", s)), return_dtype=pl.Binary)
    )
    assert out["ssn"].to_list()[0] == sm3.HMAC(b"k", b"123-45-6789").digest()


def test_duckdb_result() -> None:
    duckdb = pytest.importorskip("duckdb", reason="duckdb not installed")
    rel = duckdb.sql("select 'v' || i::varchar as v from range(5) t(i) order by i")
    want = [sm3.hash(f"v{i}".encode()) for i in range(5)]
    # The relation itself (an Arrow stream of one-column record batches) ...
    assert ga.sm3(rel).to_pylist() == want
    # ... and a column of its Arrow table.
    assert ga.sm3(rel.fetch_arrow_table()["v"]).to_pylist() == want


def test_misaligned_buffers_are_read() -> None:
    # Regression: arrays rebuilt from pickle-5 buffers (Dask workers) may have offsets
    # buffers at odd addresses; they were refused as "misaligned buffer".
    rows = [b"a", b"", b"xyz", b"0123456789abcdef"]
    offsets = pa.array([0, 1, 1, 4, 20], pa.int32()).buffers()[1]
    raw = pa.py_buffer(b"\x00" + offsets.to_pybytes())
    odd = raw.slice(1)
    assert odd.address % 4 != 0
    arr = pa.Array.from_buffers(pa.binary(), 4, [None, odd, pa.py_buffer(b"".join(rows))])
    assert ga.sm3(arr).to_pylist() == [sm3.hash(r) for r in rows]
    counts = pa.Array.from_buffers(pa.uint32(), 4, [None, pa.py_buffer(b"\x00" + bytes(16)).slice(1)])
    assert ga.zuc_eea3(KEY, counts, 0, 0, arr).to_pylist() == [zuc.eea3(KEY, 0, 0, 0, r) for r in rows]
