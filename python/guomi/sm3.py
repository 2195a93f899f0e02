"""SM3 cryptographic hash (GB/T 32905-2016) and what is built on it.

>>> import guomi.sm3
>>> guomi.sm3.hash(b"abc").hex()
'66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0'

* :func:`hash`, :func:`new` (a :mod:`hashlib`-style object, usable as
  ``hmac.new(key, msg, digestmod=guomi.sm3.new)``), :func:`hash_many`, :func:`hash_file`;
* :func:`hmac` and :class:`HMAC` (HMAC-SM3, RFC 2104);
* :func:`kdf` (the GM/T 0003 KDF used by SM2 and SM9), :func:`pbkdf2_hmac`, :func:`hkdf`.

Every function accepts ``bytes``, ``bytearray``, ``memoryview`` or any buffer object; a
``str`` raises ``TypeError``. Work on 2 KiB or more releases the GIL. Errors are the
classes of :mod:`guomi.exceptions`. :class:`SM3`, :class:`HMAC`, :func:`hash` and
:func:`hmac` are the compiled objects themselves; their documentation is their own
docstring (``help(guomi.sm3.HMAC.verify)``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, Optional, Union

from guomi._native import sm3 as _sm3
from guomi._typing import BytesLike
from guomi.exceptions import InvalidArgument

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

# The compiled classes, documented in their own docstrings (crates/guomi-python/src/sm3.rs).
SM3 = _sm3.SM3
HMAC = _sm3.HMAC

# The compiled function itself (no Python frame in between), documented in its docstring.
hash = _sm3.hash
# ``new(data=None) -> SM3``, as hashlib names it: the SM3 class itself.
new = _sm3.SM3


def hash_many(messages: Sequence[BytesLike], *, threads: Optional[int] = None) -> list[bytes]:
    """SM3 digests of many messages in one call.

    Uses 8-lane (AVX2) or 16-lane (AVX-512) multi-buffer SIMD where available; the GIL
    is released from 2 KiB in total.

    Args:
        messages: a sequence (or any iterable) of bytes-like messages.
        threads: ``None`` or ``1`` = the calling thread only, ``0`` = every core,
            ``n`` = at most ``n`` threads (clamped to the number of CPUs; batches under
            64 KiB run on the calling thread whatever the value).

    Returns:
        list[bytes]: the 32-byte digests, in the order of ``messages``.

    Raises:
        InvalidArgument: ``threads`` is negative (a ``ValueError``).
        TypeError: a message is not bytes-like (a ``str`` included).

    Example:
        >>> from guomi import sm3
        >>> digests = sm3.hash_many([b"abc", b"", b"abc"], threads=0)
        >>> digests[0] == digests[2] == sm3.hash(b"abc"), len(digests)
        (True, 3)
    """
    if threads is not None and threads < 0:
        raise InvalidArgument("threads must be >= 0")
    return _sm3.hash_many(list(messages), threads)


def hash_file(file: Union[str, os.PathLike[str], IO[bytes]], *, chunk_size: int = 1 << 20) -> bytes:
    """SM3 digest of a file, in constant memory.

    Args:
        file: a path (``str``, ``bytes`` or ``os.PathLike``; read by the Rust core in
            1 MiB chunks without the GIL) or a binary file object (read from its
            current position to the end in ``chunk_size`` pieces; it is not closed).
        chunk_size: bytes per ``read`` for file objects (default 1 MiB).

    Returns:
        bytes: the 32-byte digest.

    Raises:
        OSError: the path cannot be opened or read (``FileNotFoundError``, ...).
        TypeError: the file object returns ``str`` (opened in text mode).

    Example:
        >>> import io
        >>> from guomi import sm3
        >>> sm3.hash_file(io.BytesIO(b"abc")) == sm3.hash(b"abc")
        True
    """
    if isinstance(file, (str, bytes, os.PathLike)):
        return _sm3.hash_path(os.fsdecode(file))
    h = _sm3.SM3()
    while True:
        chunk = file.read(chunk_size)
        if not chunk:
            return h.digest()
        h.update(chunk)


# The compiled function itself, documented in its docstring.
hmac = _sm3.hmac


def kdf(z: BytesLike, length: int) -> bytes:
    """The key derivation function of GM/T 0003-2012 (SM2) and GM/T 0044 (SM9).

    ``SM3(z || 1) || SM3(z || 2) || ...`` (a 32-bit big-endian counter from 1),
    truncated to ``length`` bytes.

    Args:
        z: the shared secret input, any bytes-like object.
        length: the output length in bytes, 0 to 2**30 (1 GiB) per call, checked
            before anything is allocated.

    Returns:
        bytes: ``length`` bytes.

    Raises:
        InvalidLength: ``length`` is over 2**30.
        InvalidArgument: ``length`` is negative (a ``ValueError``).
        TypeError: ``z`` is not bytes-like.

    Example:
        >>> from guomi import sm3
        >>> out = sm3.kdf(b"shared secret", 48)
        >>> len(out), out[:32] == sm3.hash(b"shared secret" + (1).to_bytes(4, "big"))
        (48, True)
    """
    if length < 0:
        raise InvalidArgument("length must be >= 0")
    return _sm3.kdf(z, length)


def pbkdf2_hmac(password: BytesLike, salt: BytesLike, iterations: int, length: int = 32) -> bytes:
    """PBKDF2 (RFC 8018 §5.2) with HMAC-SM3. Always runs without the GIL.

    Args:
        password: the password, any bytes-like object (encode a ``str`` first).
        salt: the salt, any bytes-like object (16 random bytes or more).
        iterations: 1 to 10,000,000, checked before any work.
        length: the output length in bytes, 0 to 2**20 (1 MiB); 32 by default.

    Returns:
        bytes: the ``length``-byte derived key.

    Raises:
        InvalidArgument: ``iterations`` is over 10,000,000.
        InvalidLength: ``length`` is over 2**20.
        InvalidArgument: ``length`` is negative or ``iterations`` below 1 (a ``ValueError``).
        TypeError: ``password`` or ``salt`` is not bytes-like.

    Example:
        >>> from guomi import sm3
        >>> key = sm3.pbkdf2_hmac(b"password", b"salt", 1000)
        >>> len(key), key == sm3.pbkdf2_hmac(b"password", b"salt", 1000, 64)[:32]
        (32, True)
    """
    if length < 0 or iterations < 1:
        raise InvalidArgument("length must be >= 0 and iterations >= 1")
    return _sm3.pbkdf2_hmac(password, salt, iterations, length)


def hkdf(ikm: BytesLike, length: int, *, salt: BytesLike = b"", info: BytesLike = b"") -> bytes:
    """HKDF (RFC 5869) with HMAC-SM3: extract, then expand.

    Args:
        ikm: the input keying material, any bytes-like object.
        length: the output length in bytes, 0 to 8160 (255 * 32, RFC 5869 §2.3).
        salt: the salt; ``b""`` (the default) means 32 zero bytes, as RFC 5869 says.
        info: context and application specific information (may be empty).

    Returns:
        bytes: ``length`` bytes of output keying material.

    Raises:
        InvalidLength: ``length`` is over 8160.
        InvalidArgument: ``length`` is negative (a ``ValueError``).
        TypeError: an argument is not bytes-like.

    Example:
        >>> from guomi import sm3
        >>> okm = sm3.hkdf(b"input key", 42, salt=b"salt", info=b"context")
        >>> len(okm), okm == sm3.hkdf(b"input key", 42, salt=b"salt", info=b"other")
        (42, False)
    """
    if length < 0:
        raise InvalidArgument("length must be >= 0")
    return _sm3.hkdf(ikm, length, salt, info)
