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
  (raises :class:`guomi.exceptions.KeystreamReuse`);
* :func:`eea3_many`, :func:`eia3_many`: many packets in one call (SIMD lanes, threads);
* :func:`zuc256_keystream`, :func:`zuc256_mac`, :func:`zuc256_mac_verify`: ZUC-256
  (2018 specification) with 32-, 64- and 128-bit tags.

Bit lengths: ``length_bits`` (default: every bit of ``data``) selects the first
``length_bits`` bits of ``data``, most significant bit of each byte first, as the 3GPP
specifications do. ``data`` must hold at least ``ceil(length_bits / 8)`` bytes; bits
after ``length_bits`` are ignored, and EEA3 returns ``ceil(length_bits / 8)`` bytes with
the unused trailing bits of the last byte set to zero.
"""

from __future__ import annotations

from guomi._native import zuc as _zuc
from guomi._typing import BytesLike

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

#: Streaming ZUC keystream: ``ZUC(key, iv)`` with a 16-byte key and 16-byte IV (ZUC-128)
#: or a 32-byte key and 25- or 23-byte IV (ZUC-256). ``update(data)`` returns ``data``
#: XOR the next ``len(data)`` keystream bytes (encryption and decryption alike);
#: ``keystream(n)`` returns the next ``n`` keystream bytes; ``finalize()`` wipes the
#: state and returns ``b""`` (later calls raise
#: :class:`guomi.exceptions.AlreadyFinalized`). Chunking never changes the result.
ZUC = _zuc.ZUC


def keystream(key: BytesLike, iv: BytesLike, words: int) -> bytes:
    """The first ``words`` (0 to 2**27) ZUC-128 keystream words z1, z2, ... (``4 * words`` bytes,
    each word big-endian). ``key`` and ``iv`` are 16 bytes."""
    if words < 0:
        raise ValueError("words must be >= 0")
    return _zuc.keystream(key, iv, words)


#: ``eea3(key, count, bearer, direction, data, *, length_bits=None) -> bytes``
#:
#: 128-EEA3 encryption or decryption (the same operation). ``key``: 16 bytes; ``count``:
#: 32-bit COUNT; ``bearer``: 0..31; ``direction``: 0 (uplink) or 1 (downlink). Returns
#: ``ceil(length_bits / 8)`` bytes with the unused trailing bits zero. Never encrypt two
#: messages under the same key, count, bearer and direction: see :class:`EEA3`.
#: (The compiled function itself, for the lowest per-call overhead.)
eea3 = _zuc.eea3

#: ``eia3(key, count, bearer, direction, data, *, length_bits=None) -> bytes``
#:
#: 128-EIA3 MAC (4 bytes) of the first ``length_bits`` bits of ``data``.
eia3 = _zuc.eia3

#: ``eia3_verify(key, count, bearer, direction, data, mac, *, length_bits=None) -> bool``
#:
#: Whether ``mac`` is the 128-EIA3 MAC of ``data`` (constant-time comparison). The MAC
#: length is fixed at 4 bytes by the algorithm: a ``mac`` of any other length (a
#: truncated one included) is simply ``False``.
eia3_verify = _zuc.eia3_verify


def zuc256_keystream(key: BytesLike, iv: BytesLike, words: int) -> bytes:
    """The first ``words`` (0 to 2**27) ZUC-256 keystream words (``4 * words`` bytes, big-endian).

    ``key`` is 32 bytes; ``iv`` is 25 bytes (IV0..IV16, then IV17..IV24 as 6-bit values,
    one per byte) or the 23-byte packed form of GmSSL / gmsm.
    """
    if words < 0:
        raise ValueError("words must be >= 0")
    return _zuc.zuc256_keystream(key, iv, words)


def zuc256_mac(
    key: BytesLike,
    iv: BytesLike,
    data: BytesLike,
    *,
    tag_bits: int = 32,
    length_bits: int | None = None,
) -> bytes:
    """ZUC-256 MAC of the first ``length_bits`` bits of ``data``; ``tag_bits`` is 32
    (default), 64 or 128 (each size uses its own d-constants, so a 64-bit tag is not an
    extension of the 32-bit one). Key and IV as in :func:`zuc256_keystream`."""
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

    ``tag_bits`` (32, the default as in :func:`zuc256_mac`, 64 or 128) is fixed by the
    caller, never taken from ``tag``: a ``tag`` that is not ``tag_bits / 8`` bytes long
    is simply ``False`` (so a forged short tag cannot lower the security level). Any
    other ``tag_bits`` raises :class:`~guomi.exceptions.InvalidArgument`.
    """
    return _zuc.zuc256_mac_verify(key, iv, data, tag, tag_bits=tag_bits, length_bits=length_bits)


#: ``eea3_many(items, *, threads=None) -> list[bytes]``
#:
#: 128-EEA3 of many packets in one call: ``items`` are
#: ``(key, count, bearer, direction, data)`` tuples (whole bytes of ``data``); returns
#: the outputs in order. Packets run in 8 (AVX2) or 16 (AVX-512) SIMD lanes.
#: ``threads``: ``None`` or ``1`` = the calling thread, ``0`` = every core, ``n`` = at
#: most ``n`` threads (negative: :class:`~guomi.exceptions.InvalidArgument`). The GIL is
#: released. This function has no reuse guard: the caller owns the counters.
eea3_many = _zuc.eea3_many

#: ``eia3_many(items, *, threads=None) -> list[bytes]``
#:
#: 128-EIA3 MACs (4 bytes each) of many packets in one call (items and ``threads`` as in
#: :func:`eea3_many`).
eia3_many = _zuc.eia3_many


#: ``EEA3(key, *, allow_keystream_reuse=False)``: a 128-EEA3 encryptor bound to one key
#: that refuses keystream reuse.
#:
#: EEA3 is a stream cipher: its keystream depends only on (key, COUNT, BEARER,
#: DIRECTION). Encrypting two messages with the same four values gives an attacker
#: ``P1 XOR P2`` -- often enough to recover both. ``EEA3(key).encrypt(count, bearer,
#: direction, data, *, length_bits=None)`` remembers every (COUNT, BEARER, DIRECTION) it
#: has encrypted under (for the object's lifetime) and raises
#: :class:`guomi.exceptions.KeystreamReuse` on a second encryption under the same triple,
#: before producing any output; invalid arguments do not use up a triple.
#: ``decrypt(...)`` is never restricted. ``is_used(count, bearer, direction)``,
#: ``used_count`` and ``allow_keystream_reuse`` report the state.
#:
#: ``allow_keystream_reuse=True`` turns the check off, for callers whose protocol already
#: guarantees unique COUNT values (e.g. PDCP with a persisted HFN/SN). It is dangerous: a
#: single repeated COUNT after a restart, a state rollback or a misconfigured bearer
#: silently breaks confidentiality, and this object can no longer tell you. The guard's
#: memory lasts only as long as the object, is per process, and grows by one entry per
#: encrypted packet.
EEA3 = _zuc.EEA3
