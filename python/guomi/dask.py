"""Column helpers for Dask DataFrames (``pip install guomi[dask]``).

>>> import guomi.dask as gd                                          # doctest: +SKIP
>>> enc = gd.encrypt_column(ddf, "ssn", key=key, output="ssn_enc")  # doctest: +SKIP

Each helper is a ``map_partitions`` over :mod:`guomi.arrow`: a partition's column goes to
Arrow without a Python object per value, the rows are processed in Rust, and the result
column comes back as ``pd.ArrowDtype(pa.binary())`` (``pa.bool_()`` for
:func:`verify_column`), so binary stays binary whatever Dask's string conversion setting
(``dataframe.convert-string``) does to object columns. The helpers are stateless: Dask
scales them out over its workers; guomi adds nothing to the scheduler.

``key``: bytes, a :class:`guomi.arrow.SecretKey` (pickled into the task graph, never
shown by ``repr``) or a :class:`guomi.arrow.KeyProvider` (fetched once per worker process,
e.g. from a KMS; the key never travels). ``output``: the column to write (default: replace
``column``). ``threads``: per partition, as in :mod:`guomi.arrow` (``None``: the worker
thread only, the usual choice since Dask already runs one task per core).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from guomi import arrow as ga
from guomi.arrow import KeyLike, SecretKey

__all__ = ["decrypt_column", "encrypt_column", "hash_column", "hmac_column", "verify_column"]


def _deps() -> tuple[Any, Any]:
    try:
        import pandas as pd  # type: ignore[import-untyped,unused-ignore]
        import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError("guomi.dask needs dask[dataframe] and pyarrow: pip install 'guomi[dask]'") from e
    return pd, pa


def _opaque(key: KeyLike) -> KeyLike:
    return key if isinstance(key, (SecretKey, ga.KeyProvider)) else SecretKey(key)


def _series_to_arrow(s: Any) -> Any:
    pd, pa = _deps()
    if isinstance(s.dtype, pd.ArrowDtype):
        arr = pa.chunked_array(s.array._pa_array)
    else:
        arr = pa.array(s, from_pandas=True)
    # A categorical column (e.g. read back from Parquet) arrives dictionary-encoded, which
    # guomi.arrow refuses: decode it to its values, never read it as its indices.
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(arr.type.value_type)
    return arr


def _apply(ddf: Any, output: str, fn: Callable[[Any], Any], out_type: Any) -> Any:
    """``ddf`` with column ``output`` set to ``fn(partition)`` (an Arrow array)."""
    pd, pa = _deps()

    def part(pdf: Any) -> Any:
        out = fn(pdf)
        pdf = pdf.copy()
        pdf[output] = pd.Series(pd.arrays.ArrowExtensionArray(out), index=pdf.index)
        return pdf

    meta = ddf._meta.copy()
    meta[output] = pd.Series([], dtype=pd.ArrowDtype(out_type), index=meta.index)
    return ddf.map_partitions(part, meta=meta)


def encrypt_column(
    ddf: Any,
    column: str,
    *,
    key: KeyLike,
    output: Optional[str] = None,
    aad: Optional[str] = None,
    threads: Optional[int] = None,
) -> Any:
    """SM4-GCM of every row of ``column`` (:func:`guomi.arrow.sm4_gcm_encrypt`: a fresh
    random nonce per row, ``nonce || ciphertext || tag``); ``aad``: optional name of a
    column whose values are bound to each row as associated data."""
    _, pa = _deps()
    k = _opaque(key)

    def fn(pdf: Any) -> Any:
        a = None if aad is None else _series_to_arrow(pdf[aad])
        return ga.sm4_gcm_encrypt(ga.resolve_key(k), _series_to_arrow(pdf[column]), aad=a, threads=threads)

    return _apply(ddf, output or column, fn, pa.binary())


def decrypt_column(
    ddf: Any,
    column: str,
    *,
    key: KeyLike,
    output: Optional[str] = None,
    aad: Optional[str] = None,
    on_error: str = "raise",
    threads: Optional[int] = None,
) -> Any:
    """Inverse of :func:`encrypt_column`; ``on_error`` as :func:`guomi.arrow.sm4_gcm_decrypt`."""
    _, pa = _deps()
    k = _opaque(key)

    def fn(pdf: Any) -> Any:
        a = None if aad is None else _series_to_arrow(pdf[aad])
        return ga.sm4_gcm_decrypt(
            ga.resolve_key(k), _series_to_arrow(pdf[column]), aad=a, on_error=on_error, threads=threads
        ).cast(pa.binary())

    return _apply(ddf, output or column, fn, pa.binary())


def hash_column(ddf: Any, column: str, *, output: Optional[str] = None, threads: Optional[int] = None) -> Any:
    """SM3 of every row (32-byte binary values)."""
    _, pa = _deps()

    def fn(pdf: Any) -> Any:
        return ga.sm3(_series_to_arrow(pdf[column]), threads=threads).cast(pa.binary())

    return _apply(ddf, output or column, fn, pa.binary())


def hmac_column(
    ddf: Any, column: str, *, key: KeyLike, output: Optional[str] = None, threads: Optional[int] = None
) -> Any:
    """HMAC-SM3 of every row under ``key`` (keyed tokenization, 32-byte binary values)."""
    _, pa = _deps()
    k = _opaque(key)

    def fn(pdf: Any) -> Any:
        return ga.hmac_sm3(ga.resolve_key(k), _series_to_arrow(pdf[column]), threads=threads).cast(
            pa.binary()
        )

    return _apply(ddf, output or column, fn, pa.binary())


def verify_column(
    ddf: Any,
    signature: str,
    message: str,
    *,
    public_key: Any,
    output: str = "valid",
    uid: Optional[bytes] = None,
    threads: Optional[int] = None,
) -> Any:
    """SM2 verification of each row's ``signature`` (raw or DER) on its ``message``: a
    boolean column ``output`` (null where either is null). ``public_key``: a
    :class:`guomi.sm2.PublicKey`, its encoded bytes, or the name of a column of encoded
    public keys."""
    _, pa = _deps()
    key_bytes = public_key.to_bytes() if hasattr(public_key, "to_bytes") else public_key

    def fn(pdf: Any) -> Any:
        pk = _series_to_arrow(pdf[key_bytes]) if isinstance(key_bytes, str) else key_bytes
        return ga.sm2_verify(
            pk, _series_to_arrow(pdf[signature]), _series_to_arrow(pdf[message]), uid=uid, threads=threads
        )

    return _apply(ddf, output, fn, pa.bool_())
