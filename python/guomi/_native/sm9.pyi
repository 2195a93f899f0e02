"""SM9 identity-based cryptography (GB/T 38635): signatures, encryption, KEM and key
exchange (see `guomi.sm9`).
"""

from typing import Optional, final

from guomi._typing import BytesLike

__all__ = [
    "signature_to_der",
    "signature_from_der",
    "ciphertext_to_der",
    "ciphertext_from_der",
    "SignMasterKey",
    "SignMasterPublicKey",
    "SignUserKey",
    "EncMasterKey",
    "EncMasterPublicKey",
    "EncUserKey",
    "KeyExchange",
    "pairing",
    "P1",
    "P2",
    "HID_SIGN",
    "HID_EXCHANGE",
    "HID_ENCRYPT",
    "MAX_KEY_LENGTH",
]

HID_SIGN: int
HID_EXCHANGE: int
HID_ENCRYPT: int
MAX_KEY_LENGTH: int
P1: bytes
P2: bytes

@final
class SignMasterPublicKey:
    """The SM9 signature master public key Ppub-s (a G2 point)."""
    @staticmethod
    def from_bytes(data: BytesLike) -> SignMasterPublicKey: ...
    def to_bytes(self) -> bytes: ...
    def verify(
        self, signature: BytesLike, message: BytesLike, user_id: BytesLike, *, format: str = "raw"
    ) -> bool: ...
    def precompute(self) -> None: ...

@final
class SignMasterKey:
    """The SM9 signature master key ks (held by the key generation centre)."""
    @staticmethod
    def generate() -> SignMasterKey: ...
    @staticmethod
    def from_bytes(data: BytesLike) -> SignMasterKey: ...
    def to_bytes(self) -> bytes: ...
    def public_key(self) -> SignMasterPublicKey: ...
    def extract(self, user_id: BytesLike) -> SignUserKey: ...

@final
class SignUserKey:
    """A user's SM9 signature private key ds_A (with its ID and master public key)."""
    @staticmethod
    def from_bytes(
        data: BytesLike, user_id: BytesLike, master_public_key: SignMasterPublicKey
    ) -> SignUserKey: ...
    def to_bytes(self) -> bytes: ...
    @property
    def user_id(self) -> bytes: ...
    def master_public_key(self) -> SignMasterPublicKey: ...
    def sign(self, message: BytesLike, *, format: str = "raw") -> bytes: ...
    def precompute(self) -> None: ...

@final
class EncMasterPublicKey:
    """The SM9 encryption master public key Ppub-e (a G1 point)."""
    @staticmethod
    def from_bytes(data: BytesLike) -> EncMasterPublicKey: ...
    def to_bytes(self) -> bytes: ...
    def encrypt(
        self,
        message: BytesLike,
        user_id: BytesLike,
        *,
        cipher: str = "kdf",
        format: str = "raw",
        mac: str = "sm3",
    ) -> bytes: ...
    def encapsulate(self, user_id: BytesLike, key_length: int) -> tuple[bytes, bytes]: ...
    def precompute(self) -> None: ...

@final
class EncMasterKey:
    """The SM9 encryption (and key-exchange) master key ke."""
    @staticmethod
    def generate() -> EncMasterKey: ...
    @staticmethod
    def from_bytes(data: BytesLike) -> EncMasterKey: ...
    def to_bytes(self) -> bytes: ...
    def public_key(self) -> EncMasterPublicKey: ...
    def extract(self, user_id: BytesLike, *, hid: int = 3) -> EncUserKey: ...

@final
class EncUserKey:
    """A user's SM9 encryption or key-exchange private key de_B (with its ID, hid and
    master public key).
    """
    @staticmethod
    def from_bytes(
        data: BytesLike, user_id: BytesLike, master_public_key: EncMasterPublicKey, *, hid: int = 3
    ) -> EncUserKey: ...
    def to_bytes(self) -> bytes: ...
    @property
    def user_id(self) -> bytes: ...
    @property
    def hid(self) -> int: ...
    def master_public_key(self) -> EncMasterPublicKey: ...
    def decrypt(
        self, ciphertext: BytesLike, *, cipher: Optional[str] = None, format: str = "raw", mac: str = "sm3"
    ) -> bytes:
        """`cipher`: for raw ciphertexts the data cipher used (default "kdf"); DER carries
        it as EnType, and a `cipher` that disagrees is a decryption failure.
        """
    def decapsulate(self, c: BytesLike, key_length: int) -> bytes: ...
    def precompute(self) -> None: ...

@final
class KeyExchange:
    """One party of an SM9 key exchange (GM/T 0044 Part 3). Single use: the first
    `respond`/`finish` consumes r (the core enforces it; the lock makes a concurrent second
    call see `AlreadyFinalized` too).
    """
    def __new__(cls, user_key: EncUserKey, peer_id: BytesLike, *, initiator: bool) -> KeyExchange: ...
    @property
    def ephemeral(self) -> bytes: ...
    @property
    def initiator(self) -> bool: ...
    def respond(self, peer_ephemeral: BytesLike, key_length: int) -> tuple[bytes, bytes]: ...
    def finish(
        self, peer_ephemeral: BytesLike, key_length: int, confirmation: Optional[BytesLike] = None
    ) -> tuple[bytes, bytes]: ...
    def confirm(self, confirmation: BytesLike) -> None: ...

def pairing(p: BytesLike, q: BytesLike) -> bytes:
    """The R-ate pairing e(P, Q) (P in G1, Q in G2, encoded points) as 384 bytes."""

def signature_to_der(signature: BytesLike) -> bytes:
    """h || S (97 bytes) to GmSSL's DER SM9Signature."""

def signature_from_der(signature: BytesLike) -> bytes:
    """GmSSL's DER SM9Signature to h || S (97 bytes)."""

def ciphertext_to_der(ciphertext: BytesLike, *, cipher: str = "kdf") -> bytes:
    """C1 || C3 || C2 (made with `cipher`) to GmSSL's DER SM9Cipher."""

def ciphertext_from_der(ciphertext: BytesLike) -> bytes:
    """GmSSL's DER SM9Cipher to C1 || C3 || C2."""
