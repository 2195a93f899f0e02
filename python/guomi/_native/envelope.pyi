"""guomi._native.envelope"""

from typing import final

from guomi._native import sm2, sm9
from guomi._typing import BytesLike

__all__ = [
    "Sealer",
    "Opener",
    "MAGIC",
    "VERSION",
    "MAX_ITERATIONS",
    "MIN_CHUNK_LOG2",
    "MAX_CHUNK_LOG2",
]

MAGIC: bytes
VERSION: int
MAX_ITERATIONS: int
MIN_CHUNK_LOG2: int
MAX_CHUNK_LOG2: int

@final
class Sealer:
    @staticmethod
    def with_key(key: BytesLike, chunk_log2: int) -> Sealer: ...
    @staticmethod
    def with_password(password: BytesLike, iterations: int, chunk_log2: int) -> Sealer: ...
    @staticmethod
    def with_sm2(public_key: sm2.PublicKey, chunk_log2: int) -> Sealer: ...
    @staticmethod
    def with_sm9(
        master_public_key: sm9.EncMasterPublicKey, user_id: BytesLike, chunk_log2: int
    ) -> Sealer: ...
    def update(self, data: BytesLike) -> bytes: ...
    def finalize(self) -> bytes: ...

@final
class Opener:
    @staticmethod
    def with_key(key: BytesLike) -> Opener: ...
    @staticmethod
    def with_password(password: BytesLike) -> Opener: ...
    @staticmethod
    def with_sm2(private_key: sm2.PrivateKey) -> Opener: ...
    @staticmethod
    def with_sm9(user_key: sm9.EncUserKey) -> Opener: ...
    def update(self, data: BytesLike) -> bytes: ...
    def finalize(self) -> bytes: ...
