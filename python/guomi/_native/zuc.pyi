"""ZUC stream cipher (GB/T 33133), 128-EEA3/128-EIA3 and ZUC-256 (see `guomi.zuc`)."""

from collections.abc import Iterable
from typing import final

from guomi._typing import BytesLike

__all__ = [
    "keystream",
    "zuc256_keystream",
    "eea3",
    "eia3",
    "eia3_verify",
    "zuc256_mac",
    "zuc256_mac_verify",
    "eea3_many",
    "eia3_many",
    "ZUC",
    "EEA3",
]

@final
class ZUC:
    """Streaming ZUC keystream (ZUC-128 for a 16-byte key, ZUC-256 for a 32-byte key)."""
    def __new__(cls, key: BytesLike, iv: BytesLike) -> ZUC: ...
    def update(self, data: BytesLike) -> bytes:
        """`data` XOR the next len(data) keystream bytes."""
    def keystream(self, nbytes: int) -> bytes:
        """The next `nbytes` keystream bytes (at most 2^29 per call)."""
    def finalize(self) -> bytes:
        """Ends the stream (wipes the state); returns b""."""

@final
class EEA3:
    """EEA3(key, *, allow_keystream_reuse=False)

    A 128-EEA3 encryptor bound to one key that refuses keystream reuse: encrypt() raises
    guomi.exceptions.KeystreamReuse on a second encryption under the same (count, bearer,
    direction), before producing output. decrypt() is never restricted.
    allow_keystream_reuse=True turns the check off (dangerous: a repeated COUNT silently
    breaks confidentiality; see docs/zuc.md).
    """
    def __new__(cls, key: BytesLike, *, allow_keystream_reuse: bool = False) -> EEA3: ...
    def encrypt(
        self,
        count: int,
        bearer: int,
        direction: int,
        data: BytesLike,
        *,
        length_bits: int | None = None,
    ) -> bytes: ...
    def decrypt(
        self,
        count: int,
        bearer: int,
        direction: int,
        data: BytesLike,
        *,
        length_bits: int | None = None,
    ) -> bytes: ...
    def is_used(self, count: int, bearer: int, direction: int) -> bool:
        """Whether (count, bearer, direction) was already used for encryption."""
    @property
    def used_count(self) -> int: ...
    @property
    def allow_keystream_reuse(self) -> bool: ...

def keystream(key: BytesLike, iv: BytesLike, words: int) -> bytes:
    """The first `words` ZUC-128 keystream words (4·words bytes, big-endian words)."""

def zuc256_keystream(key: BytesLike, iv: BytesLike, words: int) -> bytes:
    """The first `words` ZUC-256 keystream words."""

def eea3(
    key: BytesLike,
    count: int,
    bearer: int,
    direction: int,
    data: BytesLike,
    *,
    length_bits: int | None = None,
) -> bytes:
    """eea3(key, count, bearer, direction, data, *, length_bits=None) -> bytes

    128-EEA3 (3GPP confidentiality) encryption or decryption of the first `length_bits`
    bits of `data` (all of it by default). key: 16 bytes; count: 32-bit COUNT; bearer:
    0..31; direction: 0 or 1. Returns ceil(length_bits / 8) bytes, unused trailing bits
    zero. Never encrypt twice under the same (key, count, bearer, direction).
    """

def eia3(
    key: BytesLike,
    count: int,
    bearer: int,
    direction: int,
    data: BytesLike,
    *,
    length_bits: int | None = None,
) -> bytes:
    """eia3(key, count, bearer, direction, data, *, length_bits=None) -> bytes

    128-EIA3 (3GPP integrity) MAC, 4 bytes, of the first `length_bits` bits of `data`.
    """

def eia3_verify(
    key: BytesLike,
    count: int,
    bearer: int,
    direction: int,
    data: BytesLike,
    mac: BytesLike,
    *,
    length_bits: int | None = None,
) -> bool:
    """eia3_verify(key, count, bearer, direction, data, mac, *, length_bits=None) -> bool

    Whether `mac` is the 128-EIA3 MAC of `data` (constant-time comparison; a `mac` that
    is not 4 bytes is False).
    """

def zuc256_mac(
    key: BytesLike,
    iv: BytesLike,
    data: BytesLike,
    *,
    tag_bits: int | None = None,
    length_bits: int | None = None,
) -> bytes:
    """ZUC-256 MAC with a 32-, 64- or 128-bit tag."""

def zuc256_mac_verify(
    key: BytesLike,
    iv: BytesLike,
    data: BytesLike,
    tag: BytesLike,
    *,
    tag_bits: int | None = None,
    length_bits: int | None = None,
) -> bool:
    """Constant-time check of a ZUC-256 MAC against a caller-fixed `tag_bits` (32, 64 or
    128; default 32 as in `zuc256_mac`): a tag of another length is `False`.
    """

def eea3_many(
    items: Iterable[tuple[BytesLike, int, int, int, BytesLike]], *, threads: int | None = None
) -> list[bytes]:
    """eea3_many(items, *, threads=None) -> list[bytes]

    128-EEA3 of many packets in one call: items are (key, count, bearer, direction, data)
    tuples (whole bytes of data); the outputs in order. Packets run in 8 (AVX2) or 16
    (AVX-512) SIMD lanes; threads: None or 1 = the calling thread, 0 = every core, n = at
    most n threads. The GIL is released. No reuse guard: the caller owns the counters.
    """

def eia3_many(
    items: Iterable[tuple[BytesLike, int, int, int, BytesLike]], *, threads: int | None = None
) -> list[bytes]:
    """eia3_many(items, *, threads=None) -> list[bytes]

    128-EIA3 MACs (4 bytes each) of many packets in one call (items and threads as in
    eea3_many).
    """
