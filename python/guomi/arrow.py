"""Column operations over Apache Arrow arrays (``pip install guomi[arrow]``).

>>> import pyarrow as pa
>>> from guomi import arrow as ga
>>> ga.sm3(pa.array([b"abc", None])).to_pylist()[1] is None
True

Every function takes columns of binary or string values: pyarrow ``binary``,
``large_binary``, ``string``, ``large_string``, ``binary_view``/``string_view`` and
``fixed_size_binary`` arrays, ``pyarrow.ChunkedArray``, ``polars.Series`` and anything with
the Arrow PyCapsule interface (``__arrow_c_array__`` or ``__arrow_c_stream__``, e.g. a DuckDB
result of one column); strings are read as their UTF-8 bytes. A plain Python list (or a
pandas Series) is first turned into an Arrow array with ``pyarrow.array``. The values are
read in place by the Rust core (no Python object per value) and the result is one
``pyarrow.Array`` with as many rows as the input: a null row gives a null row.

``threads``: ``None`` (default) or ``1`` runs on the calling thread; ``0`` on every core;
``n`` on at most ``n`` threads (clamped to the number of CPUs). The GIL is released while
the rows are processed. The result never depends on the thread count.

Every function agrees row for row with its scalar counterpart (``guomi.sm3.hash``,
``guomi.sm3.HMAC``, ``guomi.sm4.SM4GCM``, ``guomi.sm4.encrypt``, ``PrivateKey.sign``,
``PublicKey.verify``, ``guomi.zuc.eea3``).

Errors: a non-Arrow argument or a column of the wrong type is a ``TypeError``; a key of the
wrong size is :class:`~guomi.exceptions.InvalidLength`; columns of different lengths, bad
mode or padding names and malformed arrays are :class:`~guomi.exceptions.InvalidArgument`.
An error caused by one row says ``row N:`` and carries the index as the exception's
``row`` attribute.
"""

from __future__ import annotations

import os
import pickle
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional, Union

# The native submodule; its stubs are python/guomi/_native/arrow.pyi.
from guomi._native import arrow as _arrow
from guomi._typing import BytesLike
from guomi.exceptions import InvalidArgument

if TYPE_CHECKING:
    import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]

    from guomi.sm2 import PrivateKey, PublicKey

__all__ = [
    "GCM_NONCE_SIZE",
    "GCM_OVERHEAD",
    "KeyProvider",
    "SecretKey",
    "hmac_sm3",
    "sm2_sign",
    "sm2_verify",
    "sm3",
    "sm4_decrypt",
    "sm4_encrypt",
    "sm4_gcm_decrypt",
    "sm4_gcm_encrypt",
    "zuc_eea3",
]

#: Bytes of the random nonce that starts every SM4-GCM row.
GCM_NONCE_SIZE: int = 12
#: Bytes an SM4-GCM row grows by: 12-byte nonce and 16-byte tag.
GCM_OVERHEAD: int = 28

#: Any column argument: a pyarrow array, chunked array, polars Series, an object with the
#: Arrow PyCapsule interface, or a list/pandas Series that ``pyarrow.array`` accepts.
ColumnLike = Any


class SecretKey:
    """An opaque key for engines that ship work to other processes (Dask, Spark).

    ``repr``/``str`` never show the key, so it stays out of logs, task graphs and plan
    strings. It pickles (a broadcast variable or a task needs that), so treat the pickled
    form as secret: it travels inside the engine's task messages. To keep keys off the
    wire altogether, use :class:`KeyProvider`.
    """

    __slots__ = ("_key",)

    def __init__(self, key: BytesLike) -> None:
        self._key = _key_bytes(key)

    def reveal(self) -> bytes:
        """The key bytes (call only where the key is used)."""
        return self._key

    def __repr__(self) -> str:
        return "SecretKey(<hidden>)"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        return (SecretKey, (self._key,))


# The keys fetched by KeyProviders in this process: (pid, name, fetch fingerprint) ->
# (fetch, key, time fetched). Keyed by the fetch function too, so that two providers
# with the same name and different ``fetch`` never share a key.
_PROVIDED: dict[tuple[int, str, bytes], tuple[Callable[[], bytes], bytes, float]] = {}
_PROVIDED_LOCK = threading.Lock()


def _fingerprint(fetch: Callable[[], bytes]) -> bytes:
    """Equal for equal fetch functions, also across processes (an unpickled copy of the
    same ``functools.partial`` is a new object): the SM3 of its pickle. A fetch that does
    not pickle is told apart by identity (the cache keeps it alive, so the id is not
    reused)."""
    try:
        return b"p" + _sm3_hash(pickle.dumps(fetch, protocol=4))
    except Exception:
        return b"i" + id(fetch).to_bytes(8, "little")


def _sm3_hash(data: bytes) -> bytes:
    from guomi import sm3

    return sm3.hash(data)


class KeyProvider:
    """A key fetched on each worker process, on first use, by ``fetch()`` (e.g. a KMS or
    HSM client call) and cached in that process. Only ``name``, ``fetch`` and ``ttl``
    travel to the workers (``fetch`` must pickle: a module-level function or a
    ``functools.partial`` of one); the key itself never leaves the worker.

    The cache is keyed by ``name`` *and* ``fetch`` (by its pickle), so providers that share
    a name but fetch differently (two tenants, a rotated wrapped key) never get each
    other's key. Rotation: a provider for the new key (new wrapped key, new ``fetch``
    arguments, or a new name) is fetched afresh; ``ttl`` (seconds) re-fetches a cached key
    once it is older than that, for a ``fetch`` whose answer changes over time;
    :meth:`forget` drops the cached key in this process now.
    """

    __slots__ = ("_fingerprint", "fetch", "name", "ttl")

    def __init__(self, name: str, fetch: Callable[[], bytes], *, ttl: Optional[float] = None) -> None:
        if not isinstance(name, str):
            raise TypeError(f"KeyProvider name must be a str, got {type(name).__name__}")
        if not callable(fetch):
            raise TypeError("KeyProvider fetch must be callable (a zero-argument function)")
        if ttl is not None:
            if isinstance(ttl, bool) or not isinstance(ttl, (int, float)):
                raise TypeError(f"ttl must be None or a number of seconds, got {type(ttl).__name__}")
            if not (0 < ttl < float("inf")):
                raise InvalidArgument("ttl must be a positive, finite number of seconds")
        self.name = name
        self.fetch = fetch
        self.ttl = ttl
        # Each use looks the key up by the fingerprint of `fetch`: computed once per
        # `fetch` object (recomputed if the attribute is replaced).
        self._fingerprint = (fetch, _fingerprint(fetch))

    def _slot(self) -> tuple[int, str, bytes]:
        fetch, fp = self._fingerprint
        if fetch is not self.fetch:
            fp = _fingerprint(self.fetch)
            self._fingerprint = (self.fetch, fp)
        return (os.getpid(), self.name, fp)

    def reveal(self) -> bytes:
        """The key: fetched once per process (re-fetched after ``fork``, and after ``ttl``
        seconds when set)."""
        slot = self._slot()
        with _PROVIDED_LOCK:
            entry = _PROVIDED.get(slot)
            now = time.monotonic()
            if entry is None or (self.ttl is not None and now - entry[2] >= self.ttl):
                key = self.fetch()
                if isinstance(key, str) or not isinstance(key, (bytes, bytearray, memoryview)):
                    raise TypeError(f"KeyProvider fetch must return bytes, got {type(key).__name__}")
                entry = (self.fetch, bytes(key), now)
                _PROVIDED[slot] = entry
            return entry[1]

    def forget(self) -> None:
        """Drops this provider's cached key in this process (the next use fetches again)."""
        slot = self._slot()
        with _PROVIDED_LOCK:
            _PROVIDED.pop(slot, None)

    def __reduce__(self) -> tuple[Any, tuple[str, Callable[[], bytes], Optional[float]]]:
        return (_key_provider, (self.name, self.fetch, self.ttl))

    def __repr__(self) -> str:
        return f"KeyProvider({self.name!r})"


def _key_provider(name: str, fetch: Callable[[], bytes], ttl: Optional[float]) -> KeyProvider:
    """Unpickles a :class:`KeyProvider` (checked again, as built)."""
    return KeyProvider(name, fetch, ttl=ttl)


#: What the engine helpers accept as a key.
KeyLike = Union[BytesLike, SecretKey, KeyProvider]


def resolve_key(key: KeyLike) -> bytes:
    """The bytes of a key given as bytes, :class:`SecretKey` or :class:`KeyProvider`."""
    if isinstance(key, (SecretKey, KeyProvider)):
        return key.reveal()
    return _key_bytes(key)


def _key_bytes(key: object) -> bytes:
    """A copy of a bytes-like key. Only the buffer protocol is accepted: ``bytes(n)`` of an
    ``int`` would allocate ``n`` zero bytes (a 2**32 "key" cost 4 GiB and 20 s before the
    length check), and ``bytes(iterable)`` would take a list of numbers for a key."""
    if isinstance(key, str):
        raise TypeError("expected a bytes-like key, got str (encode it first)")
    try:
        return memoryview(key).tobytes()  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"expected a bytes-like key, got {type(key).__name__}") from None


def _pa() -> Any:
    try:
        import pyarrow
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError("guomi.arrow needs pyarrow: pip install 'guomi[arrow]'") from e
    return pyarrow


def _column(obj: Any) -> Any:
    """``obj`` if it speaks the Arrow PyCapsule protocol, else ``pyarrow.array(obj)``."""
    if hasattr(obj, "__arrow_c_array__") or hasattr(obj, "__arrow_c_stream__"):
        return obj
    if isinstance(obj, (bytes, bytearray, memoryview, str)) or obj is None:
        raise TypeError(f"expected an Arrow column, got {type(obj).__name__}")
    pa = _pa()
    try:
        return pa.array(obj)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as e:
        raise TypeError(f"expected an Arrow column, got {type(obj).__name__}: {e}") from None


def _opt_column(obj: Any) -> Any:
    if obj is None or isinstance(obj, (bytes, bytearray, memoryview, int)):
        return obj
    return _column(obj)


def _threads(threads: Optional[int]) -> Optional[int]:
    if threads is None:
        return None
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"threads must be None or an int, got {type(threads).__name__}")
    if threads < 0:
        raise InvalidArgument("threads must be >= 0 (0: every core)")
    return threads


class _Exported:
    """The (schema, array) capsules of a result, for ``pyarrow.array``."""

    __slots__ = ("_capsules",)

    def __init__(self, capsules: tuple[object, object]) -> None:
        self._capsules = capsules

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        return self._capsules


def _out(capsules: tuple[object, object]) -> pa.Array:
    return _pa().array(_Exported(capsules))


def sm3(column: ColumnLike, *, threads: Optional[int] = None) -> pa.Array:
    """SM3 digest of every row: ``fixed_size_binary(32)``; null rows stay null.

    Uses the multi-lane (AVX2/AVX-512) SM3 of ``guomi.sm3.hash_many`` for each batch of rows.
    """
    return _out(_arrow.sm3(_column(column), _threads(threads)))


def hmac_sm3(key: BytesLike, column: ColumnLike, *, threads: Optional[int] = None) -> pa.Array:
    """HMAC-SM3 of every row under ``key`` (any length, as ``guomi.sm3.HMAC``):
    ``fixed_size_binary(32)``. Keyed tokenization: equal values give equal tokens, and
    without the key a token reveals nothing about its value."""
    return _out(_arrow.hmac_sm3(key, _column(column), _threads(threads)))


def sm4_gcm_encrypt(
    key: BytesLike,
    column: ColumnLike,
    *,
    aad: Union[None, BytesLike, ColumnLike] = None,
    threads: Optional[int] = None,
) -> pa.Array:
    """SM4-GCM of every row under the 16-byte ``key``: ``nonce (12) || ciphertext || tag (16)``.

    Each row gets a fresh random 12-byte nonce; the nonces of all rows come from one read
    of the operating system's CSPRNG. ``aad``: ``None`` (empty), one bytes value for every
    row, or a column with one value per row (a null AAD row means empty AAD). Output is
    ``binary`` (``large_binary`` for large inputs or outputs over 2 GiB). Random nonces
    are safe for up to 2^32 rows per key (NIST SP 800-38D §8.3); rotate keys before that.
    """
    return _out(_arrow.sm4_gcm_encrypt(key, _column(column), _opt_column(aad), _threads(threads)))


def sm4_gcm_decrypt(
    key: BytesLike,
    column: ColumnLike,
    *,
    aad: Union[None, BytesLike, ColumnLike] = None,
    on_error: str = "raise",
    threads: Optional[int] = None,
) -> pa.Array:
    """Inverse of :func:`sm4_gcm_encrypt` (full 16-byte tags).

    ``on_error="raise"`` (default): the first row that does not authenticate (or is shorter
    than 28 bytes) raises :class:`~guomi.exceptions.InvalidTag` naming its index, and no
    plaintext is returned. ``on_error="null"``: each such row becomes null; null rows stay
    null.
    """
    return _out(_arrow.sm4_gcm_decrypt(key, _column(column), _opt_column(aad), on_error, _threads(threads)))


def sm4_encrypt(
    key: BytesLike,
    column: ColumnLike,
    *,
    mode: str,
    iv: Optional[ColumnLike] = None,
    padding: Optional[str] = None,
    threads: Optional[int] = None,
) -> pa.Array:
    """SM4 in ``mode`` ``"ecb"``, ``"cbc"``, ``"ctr"``, ``"cfb"`` or ``"ofb"`` over every row,
    as ``guomi.sm4.encrypt``.

    ``iv``: a column of 16-byte IVs, one per row (required for every mode but ECB; a single
    bytes IV is refused since it would repeat across rows). A row whose data is not null
    needs a non-null 16-byte IV (else :class:`~guomi.exceptions.InvalidLength` or
    :class:`~guomi.exceptions.InvalidArgument` naming the row). ``padding``: as
    ``guomi.sm4.encrypt`` (PKCS #7 by default for ECB/CBC).
    """
    return _out(_arrow.sm4_encrypt(key, _column(column), mode, _opt_column(iv), padding, _threads(threads)))


def sm4_decrypt(
    key: BytesLike,
    column: ColumnLike,
    *,
    mode: str,
    iv: Optional[ColumnLike] = None,
    padding: Optional[str] = None,
    on_error: str = "raise",
    threads: Optional[int] = None,
) -> pa.Array:
    """Inverse of :func:`sm4_encrypt`. Rows with bad padding or a length that is not a
    whole number of blocks raise (``on_error="raise"``, naming the first such row) or
    become null (``on_error="null"``)."""
    return _out(
        _arrow.sm4_decrypt(key, _column(column), mode, _opt_column(iv), padding, on_error, _threads(threads))
    )


def sm2_sign(
    private_key: PrivateKey,
    column: ColumnLike,
    *,
    uid: Optional[BytesLike] = None,
    format: str = "raw",
    threads: Optional[int] = None,
) -> pa.Array:
    """SM2 signature of every row (GB/T 32918.2, user ID ``uid``, default
    ``1234567812345678``; Z_A is computed once). ``format="raw"`` (default): 64-byte r || s
    as ``fixed_size_binary(64)``; ``"der"``: DER ``binary``. Nonces are hedged as for
    ``PrivateKey.sign``."""
    return _out(_arrow.sm2_sign(private_key, _column(column), uid, format, _threads(threads)))


def sm2_verify(
    public_key: Union[PublicKey, BytesLike, ColumnLike],
    signatures: ColumnLike,
    messages: ColumnLike,
    *,
    uid: Optional[BytesLike] = None,
    threads: Optional[int] = None,
) -> pa.Array:
    """Verifies row i of ``signatures`` (raw r || s or DER, detected per row) on row i of
    ``messages``: a ``bool`` column. A null message or signature (or key) gives null; a
    malformed signature or key gives ``False``, as ``PublicKey.verify``.

    ``public_key``: a :class:`guomi.sm2.PublicKey`, its encoded bytes, or a column of
    encoded public keys (65-byte ``04||x||y``, 64-byte ``x||y`` or 33-byte compressed),
    one per row.
    """
    return _out(
        _arrow.sm2_verify(
            _opt_column(public_key) if not _is_public_key(public_key) else public_key,
            _column(signatures),
            _column(messages),
            uid,
            _threads(threads),
        )
    )


def _is_public_key(obj: object) -> bool:
    from guomi.sm2 import PublicKey

    return isinstance(obj, PublicKey)


def zuc_eea3(
    key: Union[BytesLike, ColumnLike],
    count: Union[int, ColumnLike],
    bearer: Union[int, ColumnLike],
    direction: Union[int, ColumnLike],
    data: ColumnLike,
    *,
    length_bits: Union[None, int, ColumnLike] = None,
    threads: Optional[int] = None,
) -> pa.Array:
    """128-EEA3 (3GPP confidentiality) of every row of ``data``, as ``guomi.zuc.eea3``.

    ``key`` (16 bytes), ``count`` (0..2^32-1), ``bearer`` (0..31) and ``direction`` (0 or
    1) are each one value for every row or a column (integer columns of any width) with one
    value per row, as in a telecom capture. ``length_bits``: optional bit length per row
    (the output has ceil(length_bits / 8) bytes, unused trailing bits zero). A null in any
    argument column makes that output row null; an out-of-range value raises
    :class:`~guomi.exceptions.InvalidArgument` naming the row. Encryption and decryption are
    the same operation. Never reuse (key, count, bearer, direction).
    """
    return _out(
        _arrow.zuc_eea3(
            _opt_column(key),
            _opt_column(count),
            _opt_column(bearer),
            _opt_column(direction),
            _column(data),
            _opt_column(length_bits),
            _threads(threads),
        )
    )
