"""SM3 cryptographic hash (GB/T 32905-2016) and what is built on it.

>>> import guomi.sm3
>>> guomi.sm3.hash(b"abc").hex()
'66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0'

* :func:`hash`, :func:`new` (a :mod:`hashlib`-style object, usable as
  ``hmac.new(key, msg, digestmod=guomi.sm3.new)``), :func:`hash_many`, :func:`hash_file`;
* :func:`hmac` and :class:`HMAC` (HMAC-SM3, RFC 2104);
* :func:`kdf` (the GM/T 0003 KDF used by SM2 and SM9), :func:`pbkdf2_hmac`, :func:`hkdf`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, Optional, Union

from guomi._native import sm3 as _sm3
from guomi._typing import BytesLike

__all__ = [
    "BLOCK_SIZE",
    "DIGEST_SIZE",
    "HMAC",
    "SM3",
    "hash",
    "hash_file",
    "hash_many",
    "hkdf",
    "hmac",
    "kdf",
    "new",
    "pbkdf2_hmac",
]

DIGEST_SIZE = 32
BLOCK_SIZE = 64

#: The hashlib-style SM3 object: ``update``, ``digest``, ``hexdigest``, ``copy``,
#: ``name == "sm3"``, ``digest_size == 32``, ``block_size == 64``.
SM3 = _sm3.SM3
#: Streaming HMAC-SM3: ``HMAC(key, data=None)`` with ``update``, ``digest``,
#: ``hexdigest``, ``copy`` and a constant-time ``verify(tag, *, tag_length=None)``.
#:
#: ``verify`` compares against the full 32-byte tag by default; the length is fixed by
#: the caller, never taken from ``tag``, so a truncated tag (any other length) is simply
#: ``False``. For protocols that truncate, pass ``tag_length`` (bytes, 4 to 32; 4 is the
#: 32-bit floor of NIST SP 800-107 Rev. 1 §5.3.3, RFC 2104 §5 recommends at least 16):
#: then ``tag`` must be exactly that long. A ``tag_length`` outside 4..32 raises
#: :class:`~guomi.exceptions.InvalidArgument`.
HMAC = _sm3.HMAC

#: ``hash(data) -> bytes``: the SM3 digest (32 bytes) of ``data``. (The native function
#: itself: no Python frame in between.)
hash = _sm3.hash
#: ``new(data=None) -> SM3``: a new :mod:`hashlib`-style SM3 object, optionally fed ``data``.
new = _sm3.SM3


def hash_many(messages: Sequence[BytesLike], *, threads: Optional[int] = None) -> list[bytes]:
    """SM3 of each message, in order, in one call.

    Uses 8-lane (AVX2) or 16-lane (AVX-512) multi-buffer SIMD where available.
    ``threads``: ``None`` or ``1`` = the calling thread only, ``0`` = every core,
    ``n`` = at most ``n`` threads. The GIL is released for large batches.
    """
    if threads is not None and threads < 0:
        raise ValueError("threads must be >= 0")
    return _sm3.hash_many(list(messages), threads)


def hash_file(file: Union[str, os.PathLike[str], IO[bytes]], *, chunk_size: int = 1 << 20) -> bytes:
    """SM3 of a file, in constant memory.

    ``file`` is a path (read by the Rust core without the GIL) or a binary file object
    (read in ``chunk_size`` pieces).
    """
    if isinstance(file, (str, bytes, os.PathLike)):
        return _sm3.hash_path(os.fsdecode(file))
    h = _sm3.SM3()
    while True:
        chunk = file.read(chunk_size)
        if not chunk:
            return h.digest()
        h.update(chunk)


#: ``hmac(key, data) -> bytes``: the HMAC-SM3 tag (32 bytes) of ``data`` under ``key``.
hmac = _sm3.hmac


def kdf(z: BytesLike, length: int) -> bytes:
    """The key derivation function of GM/T 0003-2012 (SM2) and GM/T 0044 (SM9):
    ``SM3(z || 1) || SM3(z || 2) || ...`` truncated to ``length`` bytes.

    ``length`` is 0 to 2**30 (1 GiB) per call; more raises ``InvalidLength``."""
    if length < 0:
        raise ValueError("length must be >= 0")
    return _sm3.kdf(z, length)


def pbkdf2_hmac(password: BytesLike, salt: BytesLike, iterations: int, length: int = 32) -> bytes:
    """PBKDF2 (RFC 8018) with HMAC-SM3.

    ``iterations`` is 1 to 10,000,000 (``InvalidArgument`` otherwise) and ``length``
    0 to 2**20 bytes (``InvalidLength`` otherwise)."""
    if length < 0 or iterations < 1:
        raise ValueError("length must be >= 0 and iterations >= 1")
    return _sm3.pbkdf2_hmac(password, salt, iterations, length)


def hkdf(ikm: BytesLike, length: int, *, salt: BytesLike = b"", info: BytesLike = b"") -> bytes:
    """HKDF (RFC 5869) with HMAC-SM3; ``length`` <= 8160."""
    if length < 0:
        raise ValueError("length must be >= 0")
    return _sm3.hkdf(ikm, length, salt, info)
