"""guomi._native.sm4"""

from typing import Optional, final

from guomi._typing import BytesLike

__all__ = [
    "BLOCK_SIZE",
    "KEY_SIZE",
    "encrypt",
    "decrypt",
    "xts_encrypt",
    "xts_decrypt",
    "SM4",
    "Encryptor",
    "Decryptor",
    "SM4GCM",
    "GCMEncryptor",
    "GCMDecryptor",
    "SM4CCM",
    "SM4XTS",
]

BLOCK_SIZE: int
KEY_SIZE: int

@final
class SM4:
    def __new__(cls, key: BytesLike) -> SM4: ...
    @staticmethod
    def generate_key() -> bytes: ...
    def encrypt(
        self,
        data: BytesLike,
        *,
        mode: str,
        iv: Optional[BytesLike] = None,
        padding: Optional[str] = None,
    ) -> bytes: ...
    def decrypt(
        self,
        data: BytesLike,
        *,
        mode: str,
        iv: Optional[BytesLike] = None,
        padding: Optional[str] = None,
    ) -> bytes: ...
    def encrypt_block(self, block: BytesLike) -> bytes: ...
    def decrypt_block(self, block: BytesLike) -> bytes: ...
    def encryptor(
        self, *, mode: str, iv: Optional[BytesLike] = None, padding: Optional[str] = None
    ) -> Encryptor: ...
    def decryptor(
        self, *, mode: str, iv: Optional[BytesLike] = None, padding: Optional[str] = None
    ) -> Decryptor: ...
    @property
    def backend(self) -> str: ...
    @property
    def variant(self) -> str: ...

@final
class Encryptor:
    def update(self, data: BytesLike) -> bytes: ...
    def finalize(self) -> bytes: ...

@final
class Decryptor:
    def update(self, data: BytesLike) -> bytes: ...
    def finalize(self) -> bytes: ...

@final
class SM4GCM:
    def __new__(cls, key: BytesLike) -> SM4GCM: ...
    @staticmethod
    def generate_key() -> bytes: ...
    def encrypt(self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None) -> bytes: ...
    def decrypt(
        self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None, *, tag_length: int = 16
    ) -> bytes: ...
    def encryptor(self, nonce: BytesLike, aad: Optional[BytesLike] = None) -> GCMEncryptor: ...
    def decryptor(
        self,
        nonce: BytesLike,
        tag: Optional[BytesLike] = None,
        aad: Optional[BytesLike] = None,
        *,
        buffered: bool = True,
        tag_length: int = 16,
    ) -> GCMDecryptor: ...
    @property
    def backend(self) -> str: ...
    @property
    def variant(self) -> str: ...

@final
class GCMEncryptor:
    def update(self, data: BytesLike) -> bytes: ...
    def finalize(self) -> bytes: ...
    @property
    def tag(self) -> bytes: ...

@final
class GCMDecryptor:
    def update(self, data: BytesLike) -> bytes: ...
    def finalize(self, tag: Optional[BytesLike] = None) -> bytes: ...
    @property
    def buffered(self) -> bool: ...
    @property
    def tag_length(self) -> int: ...

@final
class SM4CCM:
    def __new__(cls, key: BytesLike, tag_length: int = 16) -> SM4CCM: ...
    @staticmethod
    def generate_key() -> bytes: ...
    def encrypt(self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None) -> bytes: ...
    def decrypt(self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None) -> bytes: ...
    @property
    def tag_length(self) -> int: ...
    @property
    def variant(self) -> str: ...

@final
class SM4XTS:
    def __new__(cls, key: BytesLike, *, standard: str = "gb") -> SM4XTS: ...
    def encrypt(self, tweak: BytesLike, data: BytesLike) -> bytes: ...
    def decrypt(self, tweak: BytesLike, data: BytesLike) -> bytes: ...
    @property
    def variant(self) -> str: ...

def encrypt(
    key: BytesLike,
    data: BytesLike,
    mode: str,
    iv: Optional[BytesLike] = None,
    padding: Optional[str] = None,
) -> bytes: ...
def decrypt(
    key: BytesLike,
    data: BytesLike,
    mode: str,
    iv: Optional[BytesLike] = None,
    padding: Optional[str] = None,
) -> bytes: ...
def xts_encrypt(key: BytesLike, tweak: BytesLike, data: BytesLike, standard: str = "gb") -> bytes: ...
def xts_decrypt(key: BytesLike, tweak: BytesLike, data: BytesLike, standard: str = "gb") -> bytes: ...
