"""guomi._native.zuc"""

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
    def __new__(cls, key: BytesLike, iv: BytesLike) -> ZUC: ...
    def update(self, data: BytesLike) -> bytes: ...
    def keystream(self, nbytes: int) -> bytes: ...
    def finalize(self) -> bytes: ...

@final
class EEA3:
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
    def is_used(self, count: int, bearer: int, direction: int) -> bool: ...
    @property
    def used_count(self) -> int: ...
    @property
    def allow_keystream_reuse(self) -> bool: ...

def keystream(key: BytesLike, iv: BytesLike, words: int) -> bytes: ...
def zuc256_keystream(key: BytesLike, iv: BytesLike, words: int) -> bytes: ...
def eea3(
    key: BytesLike,
    count: int,
    bearer: int,
    direction: int,
    data: BytesLike,
    *,
    length_bits: int | None = None,
) -> bytes: ...
def eia3(
    key: BytesLike,
    count: int,
    bearer: int,
    direction: int,
    data: BytesLike,
    *,
    length_bits: int | None = None,
) -> bytes: ...
def eia3_verify(
    key: BytesLike,
    count: int,
    bearer: int,
    direction: int,
    data: BytesLike,
    mac: BytesLike,
    *,
    length_bits: int | None = None,
) -> bool: ...
def zuc256_mac(
    key: BytesLike,
    iv: BytesLike,
    data: BytesLike,
    *,
    tag_bits: int | None = None,
    length_bits: int | None = None,
) -> bytes: ...
def zuc256_mac_verify(
    key: BytesLike,
    iv: BytesLike,
    data: BytesLike,
    tag: BytesLike,
    *,
    tag_bits: int | None = None,
    length_bits: int | None = None,
) -> bool: ...
def eea3_many(
    items: Iterable[tuple[BytesLike, int, int, int, BytesLike]], *, threads: int | None = None
) -> list[bytes]: ...
def eia3_many(
    items: Iterable[tuple[BytesLike, int, int, int, BytesLike]], *, threads: int | None = None
) -> list[bytes]: ...
