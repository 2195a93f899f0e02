"""gmssl's ``sm3`` module on guomi: :func:`sm3_hash` and :func:`sm3_kdf`.

Same arguments and the same hex-string results as gmssl 3.2.x, computed by
:func:`guomi.sm3.hash` and :func:`guomi.sm3.kdf`. Differences, all deliberate:

* :func:`sm3_hash` also accepts ``bytes`` and ``memoryview`` (gmssl needs a ``list`` or a
  ``bytearray``) and does not modify its argument (gmssl appends the SM3 padding to the
  caller's list, so hashing the same list twice gave two different digests).
* :func:`sm3_kdf` raises :class:`~guomi.exceptions.InvalidArgument` for a negative
  ``klen`` (gmssl returned ``""``) and :class:`~guomi.exceptions.InvalidLength` above
  2**30 bytes (1 GiB) per call.
* gmssl's internal round functions and tables (``sm3_cf``, ``sm3_ff_j``, ``sm3_gg_j``,
  ``sm3_p_0``, ``sm3_p_1``, ``IV``, ``T_j``) are not provided: they are pieces of the
  hash, which lives in guomi's core.
"""

from __future__ import annotations

import math
from typing import Union

import guomi.sm3 as _sm3
from guomi.exceptions import InvalidArgument

__all__ = ["sm3_hash", "sm3_kdf"]

Message = Union[bytes, bytearray, memoryview, list[int], tuple[int, ...]]


def _as_bytes(msg: object, what: str) -> bytes | bytearray | memoryview:
    if isinstance(msg, (bytes, bytearray, memoryview)):
        return msg
    if isinstance(msg, (list, tuple)):
        # bytes() raises ValueError for a value outside 0..255 and TypeError for a non-int.
        return bytes(msg)
    raise TypeError(f"{what} must be a list of byte values or a bytes-like object, not {type(msg).__name__}")


def sm3_hash(msg: Message) -> str:
    """SM3 (GB/T 32905-2016) of ``msg``, as 64 lowercase hex digits.

    ``msg``: a list (or tuple) of byte values 0..255, or any bytes-like object. A ``str``
    raises ``TypeError``; a value outside 0..255 raises ``ValueError``. ``msg`` is not
    modified."""
    return _sm3.hash(_as_bytes(msg, "msg")).hex()


def sm3_kdf(z: Union[bytes, bytearray, str], klen: Union[int, float]) -> str:
    """The GM/T 0003 KDF: ``klen`` bytes of ``SM3(Z || 1) || SM3(Z || 2) || ...`` as
    ``2 * klen`` lowercase hex digits.

    ``z``: the shared secret **as hex text** (gmssl's convention: ASCII ``bytes`` such as
    ``b"09f9..."``; a ``str`` is accepted too). Non-hex text raises ``ValueError``.
    ``klen``: an int (a float is truncated, as gmssl does); 0 gives ``""``; a negative
    value raises :class:`~guomi.exceptions.InvalidArgument`; more than 2**30 raises
    :class:`~guomi.exceptions.InvalidLength`."""
    if isinstance(z, (bytes, bytearray)):
        text = z.decode("ascii")
    elif isinstance(z, str):
        text = z
    else:
        raise TypeError(f"z must be hex text (bytes or str), not {type(z).__name__}")
    if isinstance(klen, float) and not math.isfinite(klen):
        raise InvalidArgument("klen must be a finite number of bytes")
    n = int(klen)
    if n < 0:
        raise InvalidArgument(f"klen must be >= 0, not {n}")
    secret = bytes.fromhex(text)
    if n == 0:
        return ""
    return _sm3.kdf(secret, n).hex()
