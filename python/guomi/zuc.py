"""ZUC stream cipher (GM/T 0001-2012), 3GPP 128-EEA3 / 128-EIA3 and ZUC-256.

>>> import guomi.zuc
>>> guomi.zuc.keystream(bytes(16), bytes(16), 2).hex()
'27bede74018082da'

* :func:`keystream`, :class:`ZUC`: the ZUC-128 keystream (words big-endian), one-shot or
  streaming (``ZUC(key, iv).update(data)`` XORs data of any length);
* :func:`eea3`, :func:`eia3`, :func:`eia3_verify`: 128-EEA3 confidentiality and
  128-EIA3 integrity with the 3GPP COUNT / BEARER / DIRECTION framing and bit-granular
  lengths (ETSI/SAGE specification, TS 33.401 / 33.501);
* :class:`EEA3`: an EEA3 encryptor bound to one key that refuses to reuse a keystream
  (raises :class:`guomi.exceptions.KeystreamReuse`) in ``encrypt``. Its ``decrypt`` is
  unguarded and, EEA3 being a stream cipher, is the same XOR as ``encrypt``: calling
  ``decrypt`` on plaintext encrypts it under a (COUNT, BEARER, DIRECTION) that may
  already be used, without the check. Decrypt only what was received; encrypt only with
  ``encrypt``;
* :func:`eea3_many`, :func:`eia3_many`: many packets in one call (SIMD lanes, threads);
* :func:`zuc256_keystream`, :func:`zuc256_mac`, :func:`zuc256_mac_verify`: ZUC-256
  (2018 specification) with 32-, 64- and 128-bit tags.

Bit lengths: ``length_bits`` (default: every bit of ``data``) selects the first
``length_bits`` bits of ``data``, most significant bit of each byte first, as the 3GPP
specifications do. ``data`` must hold at least ``ceil(length_bits / 8)`` bytes; bits
after ``length_bits`` are ignored, and EEA3 returns ``ceil(length_bits / 8)`` bytes with
the unused trailing bits of the last byte set to zero.

COUNT is an ``int`` in 0..2**32-1, BEARER in 0..31 and DIRECTION 0 or 1: a non-``int``
raises ``TypeError``, a value out of range :class:`~guomi.exceptions.InvalidArgument`.
Keys, IVs and data are any bytes-like objects. The classes and :func:`eea3`,
:func:`eia3`, :func:`eia3_verify`, :func:`eea3_many` and :func:`eia3_many` are the
compiled objects themselves; their documentation is their own docstring
(``help(guomi.zuc.EEA3)``).
"""

from __future__ import annotations

from guomi._native import zuc as _zuc
from guomi._typing import BytesLike
from guomi.exceptions import InvalidArgument

__all__ = [
    "EEA3",
    "IV_SIZE",
    "KEY_SIZE",
    "MAC_SIZE",
    "ZUC",
    "ZUC256_IV_SIZE",
    "ZUC256_IV_SIZE_PACKED",
    "ZUC256_KEY_SIZE",
    "eea3",
    "eea3_many",
    "eia3",
    "eia3_many",
    "eia3_verify",
    "keystream",
    "zuc256_keystream",
    "zuc256_mac",
    "zuc256_mac_verify",
]

#: A batch item: ``(key, count, bearer, direction, data)``.
Item = tuple[BytesLike, int, int, int, BytesLike]

#: ZUC-128 / EEA3 / EIA3 key size in bytes.
KEY_SIZE = 16
#: ZUC-128 IV size in bytes.
IV_SIZE = 16
#: 128-EIA3 MAC size in bytes.
MAC_SIZE = 4
#: ZUC-256 key size in bytes.
ZUC256_KEY_SIZE = 32
#: ZUC-256 IV size in the specification's form (IV17..IV24 are 6-bit values, one per byte).
ZUC256_IV_SIZE = 25
#: ZUC-256 IV size in the 23-byte packed form used by GmSSL and gmsm.
ZUC256_IV_SIZE_PACKED = 23

# The compiled class, documented in its own docstring (crates/guomi-python/src/zuc.rs).
ZUC = _zuc.ZUC


def keystream(key: BytesLike, iv: BytesLike, words: int) -> bytes:
    """The first ``words`` ZUC-128 keystream words z1, z2, ...

    Args:
        key: 16 bytes.
        iv: 16 bytes.
        words: how many 32-bit words, 0 to 2**27 (512 MiB), checked before allocating.

    Returns:
        bytes: ``4 * words`` bytes, each word big-endian.

    Raises:
        InvalidLength: ``key`` or ``iv`` is not 16 bytes.
        InvalidArgument: ``words`` is over 2**27.
        InvalidArgument: ``words`` is negative (a ``ValueError``).
        TypeError: ``key`` or ``iv`` is not bytes-like.

    Example:
        >>> from guomi import zuc
        >>> zuc.keystream(bytes(16), bytes(16), 2).hex()
        '27bede74018082da'
    """
    if words < 0:
        raise InvalidArgument("words must be >= 0")
    return _zuc.keystream(key, iv, words)


# The compiled functions themselves (the lowest per-call overhead), documented in their
# own docstrings.
eea3 = _zuc.eea3
eia3 = _zuc.eia3
eia3_verify = _zuc.eia3_verify


def zuc256_keystream(key: BytesLike, iv: BytesLike, words: int) -> bytes:
    """The first ``words`` ZUC-256 keystream words (2018 specification).

    Args:
        key: 32 bytes.
        iv: 25 bytes (IV0..IV16, then IV17..IV24 as 6-bit values, one per byte) or the
            23-byte packed form of GmSSL / gmsm.
        words: how many 32-bit words, 0 to 2**27, checked before allocating.

    Returns:
        bytes: ``4 * words`` bytes, each word big-endian.

    Raises:
        InvalidLength: ``key`` is not 32 bytes or ``iv`` not 25 or 23 bytes.
        InvalidArgument: a 25-byte ``iv`` with a byte 17..24 of 64 or more, or ``words``
            over 2**27.
        InvalidArgument: ``words`` is negative (a ``ValueError``).
        TypeError: ``key`` or ``iv`` is not bytes-like.

    Example:
        >>> from guomi import zuc
        >>> len(zuc.zuc256_keystream(bytes(32), bytes(25), 4))
        16
    """
    if words < 0:
        raise InvalidArgument("words must be >= 0")
    return _zuc.zuc256_keystream(key, iv, words)


def zuc256_mac(
    key: BytesLike,
    iv: BytesLike,
    data: BytesLike,
    *,
    tag_bits: int = 32,
    length_bits: int | None = None,
) -> bytes:
    """ZUC-256 MAC (2018 specification) of the first ``length_bits`` bits of ``data``.

    Args:
        key: 32 bytes.
        iv: 25 or 23 bytes, as in :func:`zuc256_keystream`.
        data: the message, any bytes-like object.
        tag_bits: 32 (the default), 64 or 128. Each size uses its own d-constants, so a
            64-bit tag is not an extension of the 32-bit one.
        length_bits: how many bits of ``data`` to authenticate, most significant bit of
            each byte first: 0 to ``8 * len(data)``; ``None`` (the default) = all.

    Returns:
        bytes: the tag, ``tag_bits / 8`` bytes. Check a received tag with
        :func:`zuc256_mac_verify` (constant time), not ``==``.

    Raises:
        InvalidLength: ``key`` is not 32 bytes or ``iv`` not 25 or 23 bytes.
        InvalidArgument: ``tag_bits`` is not 32, 64 or 128; ``length_bits`` negative or
            longer than ``data``; a 25-byte ``iv`` byte 17..24 of 64 or more.
        TypeError: ``tag_bits`` or ``length_bits`` is not an ``int``, or a bytes
            argument is not bytes-like.

    Example:
        >>> from guomi import zuc
        >>> len(zuc.zuc256_mac(bytes(32), bytes(25), b"message", tag_bits=128))
        16
    """
    return _zuc.zuc256_mac(key, iv, data, tag_bits=tag_bits, length_bits=length_bits)


def zuc256_mac_verify(
    key: BytesLike,
    iv: BytesLike,
    data: BytesLike,
    tag: BytesLike,
    *,
    tag_bits: int = 32,
    length_bits: int | None = None,
) -> bool:
    """Whether ``tag`` is the ``tag_bits``-bit ZUC-256 MAC of ``data`` (constant-time
    comparison).

    ``tag_bits`` is fixed by the caller, never taken from ``tag``: a ``tag`` that is not
    ``tag_bits / 8`` bytes long is simply ``False`` (so a forged short tag cannot lower
    the security level).

    Args:
        key: 32 bytes.
        iv: 25 or 23 bytes, as in :func:`zuc256_keystream`.
        data: the message, any bytes-like object.
        tag: the tag to check, any bytes-like object.
        tag_bits: 32 (the default, as in :func:`zuc256_mac`), 64 or 128.
        length_bits: how many bits of ``data`` to authenticate, most significant bit of
            each byte first: 0 to ``8 * len(data)``; ``None`` (the default) = all.

    Returns:
        bool: ``True`` if ``tag`` matches.

    Raises:
        InvalidLength: ``key`` is not 32 bytes or ``iv`` not 25 or 23 bytes.
        InvalidArgument: ``tag_bits`` is not 32, 64 or 128; ``length_bits`` negative or
            longer than ``data``; a 25-byte ``iv`` byte 17..24 of 64 or more.
        TypeError: ``tag_bits`` or ``length_bits`` is not an ``int``, or a bytes
            argument is not bytes-like.

    Example:
        >>> from guomi import zuc
        >>> key, iv = bytes(32), bytes(25)
        >>> tag = zuc.zuc256_mac(key, iv, b"message", tag_bits=64)
        >>> zuc.zuc256_mac_verify(key, iv, b"message", tag, tag_bits=64)
        True
        >>> zuc.zuc256_mac_verify(key, iv, b"message", tag[:4])
        False
    """
    return _zuc.zuc256_mac_verify(key, iv, data, tag, tag_bits=tag_bits, length_bits=length_bits)


# The compiled batch functions, documented in their own docstrings.
eea3_many = _zuc.eea3_many
eia3_many = _zuc.eia3_many


# The compiled class, documented in its own docstring.
EEA3 = _zuc.EEA3
