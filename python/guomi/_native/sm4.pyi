"""SM4 block cipher (GB/T 32907): ECB, CBC, CTR, CFB, OFB, GCM, CCM and XTS
(see `guomi.sm4`).
"""

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
    def generate_key() -> bytes:
        """A new random 16-byte key from the OS CSPRNG."""
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
    def variant(self) -> str:
        """The variant chosen when the key was built (e.g. `avx2-novaes`)."""

@final
class Encryptor:
    """Streaming encryption (`update`, then `finalize`)."""
    def update(self, data: BytesLike) -> bytes: ...
    def finalize(self) -> bytes: ...

@final
class Decryptor:
    """Streaming decryption (`update`, then `finalize`, which checks the padding)."""
    def update(self, data: BytesLike) -> bytes: ...
    def finalize(self) -> bytes: ...

@final
class SM4GCM:
    """SM4-GCM (SP 800-38D) key object in the style of `cryptography`'s AESGCM."""
    def __new__(cls, key: BytesLike) -> SM4GCM: ...
    @staticmethod
    def generate_key() -> bytes:
        """A new random 16-byte key from the OS CSPRNG."""
    def encrypt(self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None) -> bytes:
        """ciphertext || 16-byte tag."""
    def decrypt(
        self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None, *, tag_length: int = 16
    ) -> bytes:
        """Plaintext, or InvalidTag. `tag_length` < 16 only for truncated-tag interoperability."""
    def encryptor(self, nonce: BytesLike, aad: Optional[BytesLike] = None) -> GCMEncryptor: ...
    def decryptor(
        self,
        nonce: BytesLike,
        tag: Optional[BytesLike] = None,
        aad: Optional[BytesLike] = None,
        *,
        buffered: bool = True,
        tag_length: int = 16,
    ) -> GCMDecryptor:
        """Streaming decryption against a `tag_length`-byte tag (16 by default; 12..15, 8 or
        4 for truncated tags), a length fixed here, never taken from the tag.
        """
    @property
    def backend(self) -> str: ...
    @property
    def variant(self) -> str:
        """The variant chosen when the key was built."""

@final
class GCMEncryptor:
    """Streaming SM4-GCM encryption: `update` -> ciphertext, `finalize` -> b"", then `tag`."""
    def update(self, data: BytesLike) -> bytes: ...
    def finalize(self) -> bytes:
        """Ends the message; returns b"" (the tag is then in `tag`)."""
    @property
    def tag(self) -> bytes:
        """The 16-byte tag (after `finalize`)."""

@final
class GCMDecryptor:
    """Streaming SM4-GCM decryption; the tag is checked at `finalize`."""
    def update(self, data: BytesLike) -> bytes: ...
    def finalize(self, tag: Optional[BytesLike] = None) -> bytes: ...
    @property
    def buffered(self) -> bool: ...
    @property
    def tag_length(self) -> int:
        """The tag length (bytes) this decryptor checks."""

@final
class SM4CCM:
    """SM4-CCM (SP 800-38C) key object in the style of `cryptography`'s AESCCM."""
    def __new__(cls, key: BytesLike, tag_length: int = 16) -> SM4CCM: ...
    @staticmethod
    def generate_key() -> bytes:
        """A new random 16-byte key from the OS CSPRNG."""
    def encrypt(self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None) -> bytes: ...
    def decrypt(self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None) -> bytes: ...
    @property
    def tag_length(self) -> int: ...
    @property
    def variant(self) -> str:
        """The variant chosen when the key was built."""

@final
class SM4XTS:
    """SM4-XTS key pair (32-byte key = key1 || key2)."""
    def __new__(cls, key: BytesLike, *, standard: str = "gb") -> SM4XTS: ...
    def encrypt(self, tweak: BytesLike, data: BytesLike) -> bytes: ...
    def decrypt(self, tweak: BytesLike, data: BytesLike) -> bytes: ...
    @property
    def variant(self) -> str:
        """The variant chosen when the key was built."""

def encrypt(
    key: BytesLike,
    data: BytesLike,
    mode: str,
    iv: Optional[BytesLike] = None,
    padding: Optional[str] = None,
) -> bytes:
    """One-shot encryption with a key given as bytes (key schedule per call)."""

def decrypt(
    key: BytesLike,
    data: BytesLike,
    mode: str,
    iv: Optional[BytesLike] = None,
    padding: Optional[str] = None,
) -> bytes:
    """One-shot decryption with a key given as bytes."""

def xts_encrypt(key: BytesLike, tweak: BytesLike, data: BytesLike, standard: str = "gb") -> bytes:
    """XTS encryption of one data unit."""

def xts_decrypt(key: BytesLike, tweak: BytesLike, data: BytesLike, standard: str = "gb") -> bytes:
    """XTS decryption of one data unit."""
