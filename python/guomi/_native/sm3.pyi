"""SM3 hash (GB/T 32905), HMAC-SM3 and the SM3-based KDFs (see `guomi.sm3`)."""

from collections.abc import Sequence
from typing import Optional, final

from guomi._typing import BytesLike

__all__ = [
    "hash",
    "hash_many",
    "hash_path",
    "hmac",
    "kdf",
    "pbkdf2_hmac",
    "hkdf",
    "SM3",
    "HMAC",
]

@final
class SM3:
    """The hashlib-style SM3 object."""
    def __new__(cls, data: Optional[BytesLike] = None) -> SM3: ...
    def update(self, data: BytesLike) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def copy(self) -> SM3: ...
    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...

@final
class HMAC:
    """Streaming HMAC-SM3."""
    def __new__(cls, key: BytesLike, data: Optional[BytesLike] = None) -> HMAC: ...
    def update(self, data: BytesLike) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def verify(self, tag: BytesLike, *, tag_length: Optional[int] = None) -> bool:
        """Constant-time comparison with `tag` against the full 32-byte tag, or against a
        caller-fixed truncated length `tag_length` (4..=32 bytes). A tag of any other
        length is `False`; a `tag_length` outside 4..=32 raises InvalidArgument.
        """
    def copy(self) -> HMAC: ...
    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...

def hash(data: BytesLike) -> bytes:
    """SM3 of `data`."""

def hash_many(messages: Sequence[BytesLike], threads: Optional[int] = None) -> list[bytes]:
    """SM3 of every message, in order; `threads` as in the core's `hash_many`."""

def hash_path(path: str) -> bytes:
    """SM3 of a file read in 1 MiB chunks without the GIL."""

def hmac(key: BytesLike, data: BytesLike) -> bytes:
    """HMAC-SM3 of `data` under `key`."""

def kdf(z: BytesLike, length: int) -> bytes:
    """GM/T 0003 KDF; `length` at most 2^30 bytes per call, checked before allocating."""

def pbkdf2_hmac(password: BytesLike, salt: BytesLike, iterations: int, length: int) -> bytes:
    """PBKDF2-HMAC-SM3; `iterations` 1 to 10,000,000, `length` at most 2^20 bytes, both
    checked before allocating.
    """

def hkdf(ikm: BytesLike, length: int, salt: BytesLike, info: BytesLike) -> bytes:
    """HKDF-SM3 (RFC 5869)."""
