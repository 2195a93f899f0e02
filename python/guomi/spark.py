"""Column helpers for PySpark DataFrames (``pip install guomi[spark]``).

>>> import guomi.spark as gs                                          # doctest: +SKIP
>>> enc = gs.encrypt_column(df, "ssn", key=key, output="ssn_enc")    # doctest: +SKIP

Each helper is an Arrow UDF (``pyspark.sql.functions.arrow_udf``, Spark >= 4.1; on older
Spark a ``DataFrame.mapInArrow``) over :mod:`guomi.arrow`: Spark hands each Python worker
the input columns as Arrow arrays, the column is processed in Rust without a Python object
per value, and the result goes back to the JVM as Arrow. The helpers are stateless, so Spark
scales them out over its executors; partitioning, scheduling, retries and I/O are Spark's.

Spark's Python workers must import guomi: run them in the environment guomi is installed
in (``PYSPARK_PYTHON=/path/to/venv/bin/python``, or ``spark.pyspark.python``), or ship that
environment to the cluster (``--archives`` with venv-pack or conda-pack).

``key``: bytes or a :class:`guomi.arrow.SecretKey` is sent once per executor as a Spark
broadcast of the opaque :class:`~guomi.arrow.SecretKey` (its ``repr`` hides the key, and
the plan string names only the mapping function); a :class:`guomi.arrow.KeyProvider` sends
only its name and fetch function, and each executor process fetches the key itself (from a
KMS, say) on first use. ``threads``: per task, as in :mod:`guomi.arrow` (``None``: one
thread, the usual choice since Spark runs one task per core).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Optional

from guomi import arrow as ga
from guomi.arrow import KeyLike, KeyProvider, SecretKey

__all__ = ["decrypt_column", "encrypt_column", "hash_column", "hmac_column", "verify_column"]


def _pa() -> Any:
    try:
        import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError("guomi.spark needs pyspark and pyarrow: pip install 'guomi[spark]'") from e
    return pa


def _shipped_key(df: Any, key: KeyLike) -> Callable[[], bytes]:
    """A picklable zero-argument function giving the key on an executor."""
    if isinstance(key, KeyProvider):
        return key.reveal
    opaque = key if isinstance(key, SecretKey) else SecretKey(key)
    bc = df.sparkSession.sparkContext.broadcast(opaque)

    def reveal() -> bytes:
        return bc.value.reveal()  # type: ignore[no-any-return]

    return reveal


def _schema_with(df: Any, output: str, spark_type: Any) -> Any:
    from pyspark.sql.types import StructField, StructType

    fields = [f for f in df.schema.fields if f.name != output]
    names = [f.name for f in df.schema.fields]
    new = StructField(output, spark_type, nullable=True)
    if output in names:
        fields.insert(names.index(output), new)
    else:
        fields.append(new)
    return StructType(fields)


def _map(df: Any, output: str, spark_type: Any, inputs: list[str], fn: Callable[..., Any]) -> Any:
    """``df`` with column ``output`` set to ``fn(*arrays)`` (one Arrow array per name in
    ``inputs``). Spark >= 4.1: an Arrow UDF (only the input columns travel to Python);
    older Spark: ``mapInArrow`` over whole record batches."""
    from pyspark.sql import functions as F

    if hasattr(F, "arrow_udf"):

        def guomi_column(*arrays: Any) -> Any:
            return fn(*arrays)

        from pyspark.sql.pandas.functions import ArrowUDFType

        udf = F.arrow_udf(guomi_column, spark_type, ArrowUDFType.SCALAR)
        return df.withColumn(output, udf(*[F.col(c) for c in inputs]))

    schema = _schema_with(df, output, spark_type)
    names = schema.names

    def guomi_columns(batches: Iterator[Any]) -> Iterator[Any]:
        pa = _pa()
        for batch in batches:
            out = fn(*[batch.column(c) for c in inputs])
            cols = {n: batch.column(n) for n in batch.schema.names}
            cols[output] = out
            yield pa.RecordBatch.from_arrays([cols[n] for n in names], names=names)

    return df.mapInArrow(guomi_columns, schema)


def _binary_like(out: Any, like: Any) -> Any:
    """``out`` as Spark's binary layout (large when the input column was large)."""
    pa = _pa()
    large = pa.types.is_large_binary(like.type) or pa.types.is_large_string(like.type)
    return out.cast(pa.large_binary() if large else pa.binary())


def encrypt_column(
    df: Any,
    column: str,
    *,
    key: KeyLike,
    output: Optional[str] = None,
    aad: Optional[str] = None,
    threads: Optional[int] = None,
) -> Any:
    """SM4-GCM of every row of ``column`` (:func:`guomi.arrow.sm4_gcm_encrypt`: a fresh
    random nonce per row, ``nonce || ciphertext || tag``) into ``output`` (default: replace
    ``column``), a ``BinaryType`` column; ``aad``: optional name of a column bound to each row
    as associated data."""
    from pyspark.sql.types import BinaryType

    reveal = _shipped_key(df, key)

    def fn(col: Any, a: Any = None) -> Any:
        return _binary_like(ga.sm4_gcm_encrypt(reveal(), col, aad=a, threads=threads), col)

    return _map(df, output or column, BinaryType(), [column] + ([aad] if aad else []), fn)


def decrypt_column(
    df: Any,
    column: str,
    *,
    key: KeyLike,
    output: Optional[str] = None,
    aad: Optional[str] = None,
    on_error: str = "raise",
    threads: Optional[int] = None,
) -> Any:
    """Inverse of :func:`encrypt_column` (``BinaryType``); ``on_error`` as
    :func:`guomi.arrow.sm4_gcm_decrypt`."""
    from pyspark.sql.types import BinaryType

    reveal = _shipped_key(df, key)

    def fn(col: Any, a: Any = None) -> Any:
        out = ga.sm4_gcm_decrypt(reveal(), col, aad=a, on_error=on_error, threads=threads)
        return _binary_like(out, col)

    return _map(df, output or column, BinaryType(), [column] + ([aad] if aad else []), fn)


def hash_column(df: Any, column: str, *, output: Optional[str] = None, threads: Optional[int] = None) -> Any:
    """SM3 of every row (32-byte ``BinaryType`` values)."""
    from pyspark.sql.types import BinaryType

    def fn(col: Any) -> Any:
        return _binary_like(ga.sm3(col, threads=threads), col)

    return _map(df, output or column, BinaryType(), [column], fn)


def hmac_column(
    df: Any, column: str, *, key: KeyLike, output: Optional[str] = None, threads: Optional[int] = None
) -> Any:
    """HMAC-SM3 of every row under ``key`` (keyed tokenization, 32-byte ``BinaryType``)."""
    from pyspark.sql.types import BinaryType

    reveal = _shipped_key(df, key)

    def fn(col: Any) -> Any:
        return _binary_like(ga.hmac_sm3(reveal(), col, threads=threads), col)

    return _map(df, output or column, BinaryType(), [column], fn)


def verify_column(
    df: Any,
    signature: str,
    message: str,
    *,
    public_key: Any,
    output: str = "valid",
    uid: Optional[bytes] = None,
    threads: Optional[int] = None,
) -> Any:
    """SM2 verification of each row's ``signature`` (raw or DER) on its ``message``: a
    ``BooleanType`` column ``output`` (null where either is null). ``public_key``: a
    :class:`guomi.sm2.PublicKey`, its encoded bytes, or the name of a column of encoded
    public keys."""
    from pyspark.sql.types import BooleanType

    key_bytes = public_key.to_bytes() if hasattr(public_key, "to_bytes") else public_key

    key_col = [key_bytes] if isinstance(key_bytes, str) else []

    def fn(sig: Any, msg: Any, pk: Any = None) -> Any:
        return ga.sm2_verify(key_bytes if pk is None else pk, sig, msg, uid=uid, threads=threads)

    return _map(df, output, BooleanType(), [signature, message] + key_col, fn)
