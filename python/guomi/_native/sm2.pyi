"""SM2 public-key cryptography (GB/T 32918): keys, signatures, encryption, KEM and
key exchange (see `guomi.sm2`).
"""

from collections.abc import Sequence
from typing import Optional, Union, final

from guomi._typing import BytesLike

__all__ = [
    "PublicKey",
    "PrivateKey",
    "Signer",
    "Verifier",
    "KeyExchangeInitiator",
    "KeyExchangeResponder",
    "signature_der_to_raw",
    "signature_raw_to_der",
    "convert_ciphertext",
    "verify_many",
    "DEFAULT_UID",
    "MAX_KEY_LENGTH",
]

DEFAULT_UID: bytes
MAX_KEY_LENGTH: int

@final
class PublicKey:
    """An SM2 public key: a point on the curve sm2p256v1 (immutable, hashable, compared by
    value).

    There is no constructor: make one with `from_bytes`, `from_hex`, `from_pem` or
    `from_der`, or take `PrivateKey.public_key()`. Every reader checks that the point is on
    the curve (and not the point at infinity).

    Example:
        >>> from guomi import sm2
        >>> pk = sm2.PrivateKey.generate().public_key()
        >>> sm2.PublicKey.from_bytes(pk.to_bytes("compressed")) == pk
        True
    """
    @staticmethod
    def from_bytes(data: BytesLike) -> PublicKey:
        """Reads a public key from its point encoding.

        Args:
            data: bytes-like; 65 bytes `04 || x || y` (uncompressed), 64 bytes `x || y`,
                33 bytes `02/03 || x` (compressed) or 65 bytes `06/07 || x || y` (hybrid).

        Returns:
            PublicKey: the key.

        Raises:
            InvalidLength: `data` is not 33, 64 or 65 bytes long.
            UnsupportedFormat: a 33- or 65-byte encoding with an unknown first byte.
            InvalidKey: the point is not on the curve (or a hybrid parity bit is wrong).
            TypeError: `data` is not bytes-like (e.g. `str`).

        Example:
            >>> from guomi import sm2
            >>> pk = sm2.PrivateKey.generate().public_key()
            >>> sm2.PublicKey.from_bytes(pk.to_bytes("raw")) == pk
            True
        """
    @staticmethod
    def from_hex(text: str) -> PublicKey:
        """Reads a public key from hexadecimal text (any encoding `from_bytes` accepts).

        Args:
            text: hex digits, either case; surrounding and inner whitespace and a `0x`
                prefix are allowed.

        Returns:
            PublicKey: the key.

        Raises:
            UnsupportedFormat: `text` is not an even number of hex digits.
            InvalidLength, InvalidKey: as `from_bytes`.

        Example:
            >>> from guomi import sm2
            >>> pk = sm2.PrivateKey.generate().public_key()
            >>> sm2.PublicKey.from_hex(pk.to_hex()) == pk
            True
        """
    @staticmethod
    def from_pem(pem: Union[str, bytes]) -> PublicKey:
        """Reads a SubjectPublicKeyInfo PEM block (`-----BEGIN PUBLIC KEY-----`).

        Args:
            pem: `str` or `bytes` (ASCII); the algorithm may be id-ecPublicKey with the
                sm2p256v1 parameters or the bare SM2 OID 1.2.156.10197.1.301.

        Returns:
            PublicKey: the key.

        Raises:
            UnsupportedFormat: not PEM, not a PUBLIC KEY block, malformed DER, another curve.
            InvalidKey: the point is not on the curve.
            TypeError: `pem` is neither `str` nor bytes.

        Example:
            >>> from guomi import sm2
            >>> pk = sm2.PrivateKey.generate().public_key()
            >>> sm2.PublicKey.from_pem(pk.to_pem()) == pk
            True
        """
    @staticmethod
    def from_der(der: BytesLike) -> PublicKey:
        """Reads a DER SubjectPublicKeyInfo (the body of a PUBLIC KEY PEM block).

        Args:
            der: bytes-like DER; strict: trailing bytes are refused.

        Returns:
            PublicKey: the key.

        Raises:
            UnsupportedFormat: malformed DER, not an SM2 key.
            InvalidKey: the point is not on the curve.

        Example:
            >>> from guomi import sm2
            >>> pk = sm2.PrivateKey.generate().public_key()
            >>> sm2.PublicKey.from_der(pk.to_der()) == pk
            True
        """
    def to_bytes(self, format: str = "uncompressed") -> bytes:
        """The point encoding of this key.

        Args:
            format: `"uncompressed"` (default; 65 bytes `04 || x || y`), `"raw"` (64 bytes
                `x || y`) or `"compressed"` (33 bytes `02/03 || x`); case-insensitive.
                Coordinates are always 32 bytes wide.

        Returns:
            bytes: the encoding.

        Raises:
            InvalidArgument: an unknown `format`.

        Example:
            >>> from guomi import sm2
            >>> pk = sm2.PrivateKey.generate().public_key()
            >>> [len(pk.to_bytes(f)) for f in ("uncompressed", "raw", "compressed")]
            [65, 64, 33]
        """
    def to_hex(self, format: str = "uncompressed") -> str:
        """The point encoding of this key as lowercase hex.

        Args:
            format: as `to_bytes`: `"uncompressed"` (default, 130 digits), `"raw"` (128) or
                `"compressed"` (66).

        Returns:
            str: the hex text.

        Raises:
            InvalidArgument: an unknown `format`.

        Example:
            >>> from guomi import sm2
            >>> len(sm2.PrivateKey.generate().public_key().to_hex())
            130
        """
    def to_pem(self) -> str:
        """The key as SubjectPublicKeyInfo PEM text (`-----BEGIN PUBLIC KEY-----`), as OpenSSL
        and GmSSL write it.

        Returns:
            str: the PEM text, ending with a newline.

        Example:
            >>> from guomi import sm2
            >>> sm2.PrivateKey.generate().public_key().to_pem().splitlines()[0]
            '-----BEGIN PUBLIC KEY-----'
        """
    def to_der(self) -> bytes:
        """The key as DER SubjectPublicKeyInfo.

        Returns:
            bytes: the DER (91 bytes).

        Example:
            >>> from guomi import sm2
            >>> len(sm2.PrivateKey.generate().public_key().to_der())
            91
        """
    def prepare(self) -> None:
        """Builds this key's comb table (about 88 KiB), so that later `verify`, `encrypt` and
        `encapsulate` with this key run faster. Worth it from a few operations per key on;
        idempotent and thread-safe; runs without the GIL. A key object also builds its table
        by itself at its 4th verification or encryption, as long as the automatically built
        tables of the whole process stay within 64 MiB (several hundred keys); `prepare()`
        is not limited by that budget.

        Returns:
            None

        Example:
            >>> from guomi import sm2
            >>> pk = sm2.PrivateKey.generate().public_key()
            >>> pk.prepare()
            >>> pk.is_prepared
            True
        """
    @property
    def is_prepared(self) -> bool:
        """Whether this key's comb table exists: built by `prepare()`, or automatically at the
        key's 4th verification or encryption.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> pk, sig = key.public_key(), key.sign(b"m")
            >>> [pk.verify(sig, b"m") and pk.is_prepared for _ in range(4)]
            [False, False, False, True]
        """
    def compute_z(self, uid: Optional[BytesLike] = None) -> bytes:
        """Z_A = SM3(ENTL || ID || a || b || x_G || y_G || x_A || y_A) (GB/T 32918.2 §5.5),
        the value hashed before the message when signing.

        Args:
            uid: the signer's ID, bytes-like, 0 to 8191 bytes (ENTL is 16 bits); `None`
                means `DEFAULT_UID` (`b"1234567812345678"`).

        Returns:
            bytes: Z_A (32 bytes).

        Raises:
            InvalidArgument: `uid` is longer than 8191 bytes.

        Example:
            >>> from guomi import sm2
            >>> len(sm2.PrivateKey.generate().public_key().compute_z(b""))
            32
        """
    def verify(
        self,
        signature: BytesLike,
        message: BytesLike,
        *,
        uid: Optional[BytesLike] = None,
        format: Optional[str] = None,
    ) -> bool:
        """Verifies an SM2 signature on `message` (GB/T 32918.2 §7), hashing Z_A || message.

        Args:
            signature: bytes-like, DER `SEQUENCE { r, s }` or raw 64-byte `r || s`.
            message: bytes-like, any length.
            uid: the signer's ID (0 to 8191 bytes); `None` means `DEFAULT_UID`.
            format: `"der"`, `"raw"` or `None` (default: detect).

        Returns:
            bool: `True` when the signature is valid. A malformed signature, r or s outside
            [1, n-1], or a `uid` longer than 8191 bytes gives `False`, never an exception.

        Raises:
            InvalidArgument: an unknown `format` name.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> key.public_key().verify(key.sign(b"msg"), b"msg")
            True
            >>> key.public_key().verify(key.sign(b"msg"), b"other")
            False
        """
    def verify_digest(self, signature: BytesLike, digest: BytesLike, *, format: Optional[str] = None) -> bool:
        """Verifies an SM2 signature on a precomputed digest e = SM3(Z_A || M) (for KMS/HSM
        flows; see `compute_z`).

        Args:
            signature: bytes-like, DER or raw 64-byte `r || s`.
            digest: bytes-like, exactly 32 bytes.
            format: `"der"`, `"raw"` or `None` (default: detect).

        Returns:
            bool: whether the signature is valid (malformed signatures give `False`).

        Raises:
            InvalidLength: `digest` is not 32 bytes.
            InvalidArgument: an unknown `format` name.

        Example:
            >>> from guomi import sm2, sm3
            >>> key = sm2.PrivateKey.generate()
            >>> pk = key.public_key()
            >>> e = sm3.hash(pk.compute_z() + b"msg")
            >>> pk.verify_digest(key.sign(b"msg"), e)
            True
        """
    def encrypt(
        self,
        message: BytesLike,
        *,
        format: str = "c1c3c2",
        c1_prefix: bool = True,
        c1_format: str = "uncompressed",
    ) -> bytes:
        """Encrypts `message` to this key (GB/T 32918.4 §6.1).

        Args:
            message: bytes-like, 0 to (2**32 - 2) * 32 bytes.
            format: `"c1c3c2"` (default, the current standard), `"c1c2c3"` (GM/T 0003-2012
                and older peers) or `"der"` (GM/T 0009 ASN.1); case-insensitive.
            c1_prefix: in the raw formats, start C1 with the `04` byte (default `True`);
                `False` writes the bare 64-byte `x || y` some peers expect.
            c1_format: `"uncompressed"` (default) or `"compressed"`: C1 as the 33-byte
                `02/03 || x` (gmsm's `MarshalCompressed`); raw formats only, and not with
                `c1_prefix=False`.

        Returns:
            bytes: the ciphertext; raw formats are 96 bytes longer than `message` (97 with
            the prefix, 65 compressed).

        Raises:
            InvalidArgument: an unknown `format` or `c1_format`, `c1_format="compressed"`
                with `format="der"` or with `c1_prefix=False`.
            InvalidLength: `message` is too long.
            RandomnessError: the OS random generator failed.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> ct = key.public_key().encrypt(b"secret")
            >>> len(ct), key.decrypt(ct)
            (103, b'secret')
            >>> ct = key.public_key().encrypt(b"secret", c1_format="compressed")
            >>> len(ct), ct[0] in (2, 3), key.decrypt(ct)
            (71, True, b'secret')
        """
    def encapsulate(self, key_length: int) -> tuple[bytes, bytes]:
        """SM2 key encapsulation: a fresh random key and C1 to send to the key's owner.

        C1 = [k]G and key = KDF(x2 || y2, key_length) with (x2, y2) = [k]P; the key is never
        all zero.

        Args:
            key_length: bytes of key wanted, 1 to `MAX_KEY_LENGTH` (65536).

        Returns:
            tuple[bytes, bytes]: `(key, c1)`, C1 as 65 bytes `04 || x || y`.

        Raises:
            InvalidLength: `key_length` is outside 1..65536 (checked before any work).
            OverflowError: `key_length` is negative.
            RandomnessError: the OS random generator failed.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> k, c1 = key.public_key().encapsulate(16)
            >>> key.decapsulate(c1, 16) == k
            True
        """
    def __hash__(self) -> int: ...

@final
class PrivateKey:
    """An SM2 private key d in [1, n-2] with its public key (immutable).

    There is no constructor: use `generate`, `from_bytes`, `from_integer_bytes`,
    `from_hex`, `from_pem` or `from_der`. The secret never appears in `repr`, is kept out
    of Python memory and is zeroized when the key is freed. Keys compare by value and hash
    by their public key. Signing nonces are hedged (RFC 6979 §3.6 style: an HMAC-SM3 DRBG
    over d, the digest and 32 fresh OS-random bytes).

    Example:
        >>> from guomi import sm2
        >>> key = sm2.PrivateKey.generate()
        >>> key
        <guomi.sm2.PrivateKey (secret not shown)>
        >>> sm2.PrivateKey.from_bytes(key.to_bytes()) == key
        True
    """
    @staticmethod
    def generate() -> PrivateKey:
        """A new random key: d uniform in [1, n-2] from the OS CSPRNG (rejection sampling).

        Returns:
            PrivateKey: the key.

        Raises:
            RandomnessError: the OS random generator failed (there is no fallback).

        Example:
            >>> from guomi import sm2
            >>> len(sm2.PrivateKey.generate().to_bytes())
            32
        """
    @staticmethod
    def from_bytes(data: BytesLike) -> PrivateKey:
        r"""Reads d from exactly 32 big-endian bytes (what `to_bytes` writes).

        Short input is refused rather than padded, so a truncated buffer never becomes a weak
        key; use `from_integer_bytes` for integers written without fixed width.

        Args:
            data: bytes-like, 32 bytes.

        Returns:
            PrivateKey: the key.

        Raises:
            InvalidLength: `data` is not 32 bytes.
            InvalidKey: d is 0 or not below n - 1.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.from_bytes(bytes(31) + b"\x07")
            >>> key.to_hex()[-2:]
            '07'
        """
    @staticmethod
    def from_integer_bytes(data: BytesLike) -> PrivateKey:
        r"""Reads d from a big-endian integer written without fixed width, as some peers do.

        Args:
            data: bytes-like, 1 to 32 bytes (left-padded with zeros), or 33 bytes whose first
                byte is `00` (the sign byte of Java's `BigInteger.toByteArray`).

        Returns:
            PrivateKey: the key.

        Raises:
            InvalidLength: `data` is empty, longer than 33 bytes, or 33 bytes not starting
                with `00`.
            InvalidKey: d is 0 or not below n - 1.

        Example:
            >>> from guomi import sm2
            >>> sm2.PrivateKey.from_integer_bytes(b"\x07") == sm2.PrivateKey.from_bytes(bytes(31) + b"\x07")
            True
        """
    @staticmethod
    def from_hex(text: str) -> PrivateKey:
        """Reads d from 64 hex digits (what `to_hex` writes).

        Args:
            text: hex digits, either case; whitespace and a `0x` prefix are allowed.

        Returns:
            PrivateKey: the key.

        Raises:
            UnsupportedFormat: `text` is not an even number of hex digits.
            InvalidLength: not 32 bytes (64 digits).
            InvalidKey: d is 0 or not below n - 1.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> sm2.PrivateKey.from_hex(key.to_hex()) == key
            True
        """
    @staticmethod
    def from_pem(pem: Union[str, bytes], *, password: Optional[Union[str, BytesLike]] = None) -> PrivateKey:
        """Reads a PEM private key, optionally password-protected.

        Args:
            pem: `str` or `bytes` (ASCII): `PRIVATE KEY` (PKCS#8), `EC PRIVATE KEY` or
                `SM2 PRIVATE KEY` (SEC1), `ENCRYPTED PRIVATE KEY` (PKCS#8 PBES2 with PBKDF2
                HMAC-SM3 or HMAC-SHA256 and SM4-CBC), or legacy SEC1 with
                `Proc-Type: 4,ENCRYPTED` and `DEK-Info: SM4-CBC,<iv>`.
            password: for encrypted keys only; `str` (UTF-8) or bytes-like, not empty.

        Returns:
            PrivateKey: the key.

        Raises:
            InvalidKey: wrong password or corrupted encrypted key (one opaque error), or d
                out of range.
            InvalidArgument: a password for a plain key, none for an encrypted key, or an
                empty password.
            UnsupportedFormat: malformed PEM or DER (strict: trailing bytes are refused), an
                unknown algorithm, or PBKDF2 iterations outside 1..10000000.
            TypeError: `pem` is neither `str` nor bytes.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> pem = key.to_pem(password="pw", iterations=1000)
            >>> sm2.PrivateKey.from_pem(pem, password="pw") == key
            True
        """
    @staticmethod
    def from_der(der: BytesLike, *, password: Optional[Union[str, BytesLike]] = None) -> PrivateKey:
        """Reads a DER private key: PKCS#8, SEC1, or with `password` a PKCS#8
        EncryptedPrivateKeyInfo.

        Args:
            der: bytes-like DER (strict: trailing bytes are refused).
            password: for encrypted keys only; `str` (UTF-8) or bytes-like, not empty.

        Returns:
            PrivateKey: the key.

        Raises:
            InvalidKey, InvalidArgument, UnsupportedFormat: as `from_pem`.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> sm2.PrivateKey.from_der(key.to_der(format="sec1")) == key
            True
        """
    def to_bytes(self) -> bytes:
        """d as 32 big-endian bytes. The result is a Python `bytes` that cannot be wiped: keep it
        no longer than needed.

        Returns:
            bytes: 32 bytes.

        Example:
            >>> from guomi import sm2
            >>> len(sm2.PrivateKey.generate().to_bytes())
            32
        """
    def to_hex(self) -> str:
        """d as 64 lowercase hex digits.

        Returns:
            str: the hex text.

        Example:
            >>> from guomi import sm2
            >>> len(sm2.PrivateKey.generate().to_hex())
            64
        """
    def to_pem(
        self,
        *,
        format: str = "pkcs8",
        password: Optional[Union[str, BytesLike]] = None,
        prf: str = "hmac-sm3",
        iterations: int = 65536,
    ) -> str:
        """The key as PEM text, plain or password-protected.

        Args:
            format: `"pkcs8"` (default, `PRIVATE KEY`) or `"sec1"` (`EC PRIVATE KEY`);
                with a password only `"pkcs8"`.
            password: `None` (plain), or `str` (UTF-8) / bytes-like, not empty: writes
                `ENCRYPTED PRIVATE KEY` (PKCS#8 PBES2: PBKDF2 and SM4-CBC, random salt and IV).
            prf: the PBKDF2 PRF, `"hmac-sm3"` (default; GmSSL 3 reads it) or `"hmac-sha256"`
                (OpenSSL 3 reads it).
            iterations: PBKDF2 iterations, 1 to 10000000 (default 65536).

        Returns:
            str: the PEM text.

        Raises:
            InvalidArgument: an unknown `format` or `prf`, `format="sec1"` with a password,
                an empty password, or `iterations` out of range.
            OverflowError: `iterations` is negative or above 2**32 - 1.

        Example:
            >>> from guomi import sm2
            >>> sm2.PrivateKey.generate().to_pem().splitlines()[0]
            '-----BEGIN PRIVATE KEY-----'
        """
    def to_der(
        self,
        *,
        format: str = "pkcs8",
        password: Optional[Union[str, BytesLike]] = None,
        prf: str = "hmac-sm3",
        iterations: int = 65536,
    ) -> bytes:
        """The key as DER: PKCS#8 PrivateKeyInfo or SEC1 ECPrivateKey, or with a password a PKCS#8
        EncryptedPrivateKeyInfo.

        Args:
            format, password, prf, iterations: as `to_pem`.

        Returns:
            bytes: the DER.

        Raises:
            InvalidArgument, OverflowError: as `to_pem`.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> der = key.to_der(password=b"pw", iterations=1000)
            >>> sm2.PrivateKey.from_der(der, password=b"pw") == key
            True
        """
    def public_key(self) -> PublicKey:
        """The matching public key (computed once, when the private key was made).

        Returns:
            PublicKey: the public key.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> key.public_key() == key.public_key()
            True
        """
    def sign(self, message: BytesLike, *, uid: Optional[BytesLike] = None, format: str = "der") -> bytes:
        """Signs `message` (GB/T 32918.2 §6): e = SM3(Z_A || message), then (r, s).

        The nonce k is hedged (derived from d, e and fresh OS randomness), so every call gives
        a different valid signature. s is never "low-S normalized".

        Args:
            message: bytes-like, any length.
            uid: the signer's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`
                (`b"1234567812345678"`). OpenSSL 1.1/3.x peers without `distid` use `b""`.
            format: `"der"` (default, `SEQUENCE { r, s }`, at most 72 bytes) or `"raw"` (64
                bytes `r || s`).

        Returns:
            bytes: the signature.

        Raises:
            InvalidArgument: an unknown `format` or a `uid` longer than 8191 bytes.
            RandomnessError: the OS random generator failed.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> sig = key.sign(b"msg", format="raw")
            >>> len(sig), key.public_key().verify(sig, b"msg")
            (64, True)
        """
    def sign_digest(self, digest: BytesLike, *, format: str = "der") -> bytes:
        """Signs a precomputed digest e = SM3(Z_A || M) (see `PublicKey.compute_z`).

        Args:
            digest: bytes-like, exactly 32 bytes.
            format: `"der"` (default) or `"raw"`.

        Returns:
            bytes: the signature.

        Raises:
            InvalidLength: `digest` is not 32 bytes.
            InvalidArgument: an unknown `format`.
            RandomnessError: the OS random generator failed.

        Example:
            >>> from guomi import sm2, sm3
            >>> key = sm2.PrivateKey.generate()
            >>> e = sm3.hash(key.public_key().compute_z() + b"msg")
            >>> key.public_key().verify(key.sign_digest(e), b"msg")
            True
        """
    def decrypt(self, ciphertext: BytesLike, *, format: Optional[str] = None) -> bytes:
        """Decrypts an SM2 ciphertext made for this key (GB/T 32918.4 §7).

        Args:
            ciphertext: bytes-like; C1 may come with or without the `04` prefix.
            format: `None` (default: DER is detected, anything else is read as C1C3C2),
                `"c1c3c2"`, `"c1c2c3"` or `"der"`.

        Returns:
            bytes: the plaintext (released only after C3 is checked).

        Raises:
            DecryptionError: any failure (malformed, C1 not on the curve, wrong key, changed
                bytes, all-zero KDF output); deliberately one opaque error.
            InvalidArgument: an unknown `format` name.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> key.decrypt(key.public_key().encrypt(b"hi", format="der"))
            b'hi'
        """
    def decapsulate(self, c1: BytesLike, key_length: int) -> bytes:
        """The key of SM2 key encapsulation from the sender's C1 (inverse of
        `PublicKey.encapsulate`).

        Args:
            c1: bytes-like point, any encoding `PublicKey.from_bytes` reads.
            key_length: bytes of key, 1 to `MAX_KEY_LENGTH` (65536); must match the sender's.

        Returns:
            bytes: the key.

        Raises:
            InvalidLength: `key_length` is outside 1..65536 (checked first).
            DecryptionError: C1 is not a valid point, or the key would be all zero.
            OverflowError: `key_length` is negative.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> k, c1 = key.public_key().encapsulate(32)
            >>> key.decapsulate(c1, 32) == k
            True
        """
    def ecdh(self, peer: PublicKey) -> bytes:
        """Plain ECDH over sm2p256v1: the x coordinate of [d]P (RFC 8998 TLS 1.3 uses it with
        curveSM2). This is not the GB/T 32918.3 key exchange (see `KeyExchangeInitiator`).

        Args:
            peer: the other side's `PublicKey`.

        Returns:
            bytes: the shared x coordinate (32 bytes); hash it before use as a key.

        Raises:
            InvalidKey: the result is the point at infinity (impossible for valid keys).

        Example:
            >>> from guomi import sm2
            >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
            >>> a.ecdh(b.public_key()) == b.ecdh(a.public_key())
            True
        """
    @staticmethod
    def from_enveloped_key(data: BytesLike, decryption_key: PrivateKey) -> PrivateKey:
        """Opens a GM/T 0009 `SM2EnvelopedKey` (GB/T 35276; the `encryptedPrivateKey` of
        GM/T 0092 certificate responses): the SM4 key is SM2-decrypted with
        `decryption_key`, then SM4-ECB-decrypts d, which must match the enclosed public key.
        Reads what gmsm's `sm2.MarshalEnvelopedPrivateKey` writes.

        Args:
            data: bytes-like DER, at most 1024 bytes.
            decryption_key: the recipient's `PrivateKey`.

        Returns:
            PrivateKey: the enveloped key.

        Raises:
            UnsupportedFormat: malformed DER, more than 1024 bytes, or a symmetric algorithm
                other than SM4-ECB (1.2.156.10197.1.104.1) or SM4.
            DecryptionError: the SM4 key or the private key cannot be decrypted (wrong
                `decryption_key` or corrupted data; one opaque error).
            InvalidKey: the decrypted key does not match the enclosed public key.

        Example:
            >>> from guomi import sm2
            >>> key, recipient = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
            >>> data = key.to_enveloped_key(recipient.public_key())
            >>> sm2.PrivateKey.from_enveloped_key(data, recipient) == key
            True
        """
    def to_enveloped_key(self, recipient_public_key: PublicKey) -> bytes:
        r"""This key as a GM/T 0009 `SM2EnvelopedKey` for `recipient_public_key`: a fresh SM4
        key from the OS encrypts d (SM4-ECB, no padding), and is SM2-encrypted to the
        recipient (GM/T 0009 DER ciphertext); the layout gmsm's
        `sm2.ParseEnvelopedPrivateKey` reads.

        Args:
            recipient_public_key: the `PublicKey` that may open it.

        Returns:
            bytes: DER (about 240 bytes).

        Raises:
            RandomnessError: the OS random generator failed.

        Example:
            >>> from guomi import sm2
            >>> key, recipient = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
            >>> data = key.to_enveloped_key(recipient.public_key())
            >>> data[:2]
            b'0\x81'
        """
    def __hash__(self) -> int: ...

@final
class Signer:
    """Streaming SM2 signer: feeds Z_A || M to SM3 piece by piece, for messages too large to
    hold in memory. Single use.

    Args:
        private_key: the signing `PrivateKey`.
        uid: the signer's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.

    Raises:
        InvalidArgument: `uid` is longer than 8191 bytes.

    Example:
        >>> from guomi import sm2
        >>> key = sm2.PrivateKey.generate()
        >>> s = sm2.Signer(key)
        >>> s.update(b"hello, ")
        >>> s.update(b"world")
        >>> key.public_key().verify(s.sign(), b"hello, world")
        True
    """
    def __new__(cls, private_key: PrivateKey, *, uid: Optional[BytesLike] = None) -> Signer: ...
    def update(self, data: BytesLike) -> None:
        """Feeds the next piece of the message.

        Args:
            data: bytes-like, any length (large pieces are hashed without the GIL).

        Raises:
            AlreadyFinalized: `sign()` was already called.

        Example:
            >>> from guomi import sm2
            >>> s = sm2.Signer(sm2.PrivateKey.generate())
            >>> s.update(b"part")
        """
    def sign(self, *, format: str = "der") -> bytes:
        """Signs the message fed so far; the signer cannot be used afterwards.

        Args:
            format: `"der"` (default) or `"raw"` (64 bytes `r || s`).

        Returns:
            bytes: the signature, as `PrivateKey.sign` on the whole message.

        Raises:
            AlreadyFinalized: called a second time.
            InvalidArgument: an unknown `format`.
            RandomnessError: the OS random generator failed.

        Example:
            >>> from guomi import sm2
            >>> s = sm2.Signer(sm2.PrivateKey.generate())
            >>> len(s.sign(format="raw"))
            64
        """

@final
class Verifier:
    """Streaming SM2 verifier: the counterpart of `Signer`. Single use.

    Args:
        public_key: the signer's `PublicKey`.
        uid: the signer's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.

    Raises:
        InvalidArgument: `uid` is longer than 8191 bytes.

    Example:
        >>> from guomi import sm2
        >>> key = sm2.PrivateKey.generate()
        >>> v = sm2.Verifier(key.public_key())
        >>> v.update(b"hello")
        >>> v.verify(key.sign(b"hello"))
        True
    """
    def __new__(cls, public_key: PublicKey, *, uid: Optional[BytesLike] = None) -> Verifier: ...
    def update(self, data: BytesLike) -> None:
        """Feeds the next piece of the message.

        Args:
            data: bytes-like, any length.

        Raises:
            AlreadyFinalized: `verify()` was already called.

        Example:
            >>> from guomi import sm2
            >>> v = sm2.Verifier(sm2.PrivateKey.generate().public_key())
            >>> v.update(b"part")
        """
    def verify(self, signature: BytesLike, *, format: Optional[str] = None) -> bool:
        """Checks `signature` on the message fed so far; the verifier cannot be used afterwards.

        Args:
            signature: bytes-like, DER or raw 64-byte `r || s`.
            format: `"der"`, `"raw"` or `None` (default: detect).

        Returns:
            bool: whether the signature is valid (malformed signatures give `False`).

        Raises:
            AlreadyFinalized: called a second time.
            InvalidArgument: an unknown `format` name.

        Example:
            >>> from guomi import sm2
            >>> key = sm2.PrivateKey.generate()
            >>> v = sm2.Verifier(key.public_key())
            >>> v.verify(key.sign(b""))
            True
        """

@final
class KeyExchangeInitiator:
    """The initiator (A) of the SM2 key exchange (GB/T 32918.3 §6.1). Single use.

    Creating it draws the ephemeral r_A; send `ephemeral_public_key` (R_A) to B, then call
    `finish` with B's reply.

    Args:
        private_key: A's `PrivateKey`.
        peer_public_key: B's `PublicKey`.
        uid: A's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.
        peer_uid: B's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.

    Raises:
        InvalidArgument: an ID longer than 8191 bytes.
        RandomnessError: the OS random generator failed.

    Example:
        >>> from guomi import sm2
        >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
        >>> init = sm2.KeyExchangeInitiator(a, b.public_key())
        >>> resp = sm2.KeyExchangeResponder(b, a.public_key())
        >>> rb, kb, sb = resp.respond(init.ephemeral_public_key, 16)
        >>> ka, sa = init.finish(rb, 16, peer_confirmation=sb)
        >>> resp.confirm(sa)
        >>> ka == kb
        True
    """
    def __new__(
        cls,
        private_key: PrivateKey,
        peer_public_key: PublicKey,
        *,
        uid: Optional[BytesLike] = None,
        peer_uid: Optional[BytesLike] = None,
    ) -> KeyExchangeInitiator: ...
    @property
    def ephemeral_public_key(self) -> bytes:
        """R_A = [r_A]G, 65 bytes `04 || x || y`: send it to the responder.

        Example:
            >>> from guomi import sm2
            >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
            >>> len(sm2.KeyExchangeInitiator(a, b.public_key()).ephemeral_public_key)
            65
        """
    def finish(
        self,
        peer_ephemeral_public_key: BytesLike,
        key_length: int,
        *,
        peer_confirmation: Optional[BytesLike] = None,
    ) -> tuple[bytes, bytes]:
        """Completes the exchange with B's R_B (steps A4-A10): returns the key and S_A.

        Single use: the first call consumes and wipes r_A whatever happens (success, wrong
        S_B, bad R_B, bad `key_length`).

        Args:
            peer_ephemeral_public_key: R_B from the responder (any point encoding).
            key_length: bytes of key, 1 to `MAX_KEY_LENGTH` (65536).
            peer_confirmation: S_B from the responder (32 bytes), checked in constant time
                when given; `None` skips key confirmation.

        Returns:
            tuple[bytes, bytes]: `(K, S_A)`; send S_A to B for its `confirm`.

        Raises:
            InvalidTag: `peer_confirmation` does not match.
            InvalidLength: `key_length` is outside 1..65536.
            InvalidLength, UnsupportedFormat, InvalidKey: R_B is not a valid point (as
                `PublicKey.from_bytes`), or the shared point is infinity.
            AlreadyFinalized: `finish` was already called.

        Example:
            >>> from guomi import sm2
            >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
            >>> init = sm2.KeyExchangeInitiator(a, b.public_key())
            >>> resp = sm2.KeyExchangeResponder(b, a.public_key())
            >>> rb, kb, sb = resp.respond(init.ephemeral_public_key, 32)
            >>> ka, sa = init.finish(rb, 32, peer_confirmation=sb)
            >>> ka == kb, len(sa)
            (True, 32)
        """

@final
class KeyExchangeResponder:
    """The responder (B) of the SM2 key exchange (GB/T 32918.3 §6.1). Single use.

    Call `respond` with A's R_A, send R_B and S_B back, then `confirm` A's S_A.

    Args:
        private_key: B's `PrivateKey`.
        peer_public_key: A's `PublicKey`.
        uid: B's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.
        peer_uid: A's ID, 0 to 8191 bytes; `None` means `DEFAULT_UID`.

    Raises:
        InvalidArgument: an ID longer than 8191 bytes.

    Example:
        >>> from guomi import sm2
        >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
        >>> init = sm2.KeyExchangeInitiator(a, b.public_key())
        >>> resp = sm2.KeyExchangeResponder(b, a.public_key())
        >>> rb, kb, sb = resp.respond(init.ephemeral_public_key, 16)
        >>> init.finish(rb, 16, peer_confirmation=sb)[0] == kb
        True
    """
    def __new__(
        cls,
        private_key: PrivateKey,
        peer_public_key: PublicKey,
        *,
        uid: Optional[BytesLike] = None,
        peer_uid: Optional[BytesLike] = None,
    ) -> KeyExchangeResponder: ...
    def respond(self, peer_ephemeral_public_key: BytesLike, key_length: int) -> tuple[bytes, bytes, bytes]:
        """Answers A's R_A (steps B1-B9): draws r_B, computes the key and S_B.

        Single use: r_B exists only inside this call; a second call, even after a failed one,
        raises `AlreadyFinalized`.

        Args:
            peer_ephemeral_public_key: R_A from the initiator (any point encoding).
            key_length: bytes of key, 1 to `MAX_KEY_LENGTH` (65536).

        Returns:
            tuple[bytes, bytes, bytes]: `(R_B, K, S_B)`; send R_B and S_B to A.

        Raises:
            InvalidLength: `key_length` is outside 1..65536.
            InvalidLength, UnsupportedFormat, InvalidKey: R_A is not a valid point (as
                `PublicKey.from_bytes`), or the shared point is infinity.
            AlreadyFinalized: `respond` was already called.
            RandomnessError: the OS random generator failed.

        Example:
            >>> from guomi import sm2
            >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
            >>> init = sm2.KeyExchangeInitiator(a, b.public_key())
            >>> resp = sm2.KeyExchangeResponder(b, a.public_key())
            >>> rb, kb, sb = resp.respond(init.ephemeral_public_key, 32)
            >>> len(rb), len(kb), len(sb)
            (65, 32, 32)
        """
    def confirm(self, peer_confirmation: BytesLike) -> None:
        """Checks A's confirmation S_A (step B10, constant time).

        Args:
            peer_confirmation: S_A from the initiator's `finish`.

        Raises:
            InvalidTag: S_A does not match.
            InvalidArgument: `respond` has not succeeded yet.

        Example:
            >>> from guomi import sm2
            >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
            >>> init = sm2.KeyExchangeInitiator(a, b.public_key())
            >>> resp = sm2.KeyExchangeResponder(b, a.public_key())
            >>> rb, kb, sb = resp.respond(init.ephemeral_public_key, 16)
            >>> resp.confirm(init.finish(rb, 16)[1])
        """

def signature_der_to_raw(signature: BytesLike) -> bytes:
    """Converts a DER signature `SEQUENCE { r, s }` to the 64-byte `r || s` form.

    Args:
        signature: bytes-like DER (strict).

    Returns:
        bytes: 64 bytes, r and s 32 bytes each.

    Raises:
        UnsupportedFormat: malformed DER, or r or s wider than 32 bytes.

    Example:
        >>> from guomi import sm2
        >>> der = sm2.PrivateKey.generate().sign(b"m")
        >>> sm2.signature_raw_to_der(sm2.signature_der_to_raw(der)) == der
        True
    """

def signature_raw_to_der(signature: BytesLike) -> bytes:
    r"""Converts a 64-byte `r || s` signature to DER `SEQUENCE { r, s }` (minimal integers).

    Args:
        signature: bytes-like, 64 bytes.

    Returns:
        bytes: the DER (8 to 72 bytes).

    Raises:
        InvalidLength: `signature` is not 64 bytes.

    Example:
        >>> from guomi import sm2
        >>> sm2.signature_raw_to_der(bytes(31) + b"\x01" + bytes(31) + b"\x02").hex()
        '3006020101020102'
    """

def convert_ciphertext(
    ciphertext: BytesLike,
    from_format: Optional[str],
    to_format: str,
    *,
    c1_prefix: bool = True,
    c1_format: str = "uncompressed",
) -> bytes:
    """Re-encodes an SM2 ciphertext between C1C3C2, C1C2C3 and GM/T 0009 DER. No key is
    needed and nothing is decrypted.

    Args:
        ciphertext: bytes-like; raw C1 as `04 || x || y`, bare `x || y`, compressed
            `02/03 || x` or hybrid `06/07 || x || y` (told apart by which reading puts
            C1 on the curve).
        from_format: `"c1c3c2"`, `"c1c2c3"`, `"der"`, or `None` (DER detected, anything
            else read as C1C3C2).
        to_format: `"c1c3c2"`, `"c1c2c3"` or `"der"`.
        c1_prefix: write `04` before C1 in raw output (default `True`).
        c1_format: `"uncompressed"` (default) or `"compressed"` (C1 as `02/03 || x`;
            raw output only, not with `c1_prefix=False`).

    Returns:
        bytes: the ciphertext in `to_format`.

    Raises:
        UnsupportedFormat: `ciphertext` is malformed for `from_format`, or
            `c1_format="compressed"` and C1 is not a point on the curve.
        InvalidArgument: an unknown format name or `c1_format`, or
            `c1_format="compressed"` with `to_format="der"` or `c1_prefix=False`.

    Example:
        >>> from guomi import sm2
        >>> from guomi._native.sm2 import convert_ciphertext
        >>> key = sm2.PrivateKey.generate()
        >>> der = convert_ciphertext(key.public_key().encrypt(b"x"), None, "der")
        >>> key.decrypt(der)
        b'x'
    """

def verify_many(
    items: Sequence[tuple[PublicKey, BytesLike, BytesLike, BytesLike]], threads: Optional[int] = None
) -> list[bool]:
    """Verifies many SM2 signatures without the GIL, optionally on several cores.

    Args:
        items: a list of `(public_key, signature, message, uid)` tuples: a `PublicKey`
            and three bytes-like values (signature DER or raw; `uid` 0 to 8191 bytes).
        threads: `None` or `1` (default: the calling thread), `0` (every core), or `n`
            (at most `n` threads, capped at the number of cores).

    Returns:
        list[bool]: one result per item, in order; malformed signatures are `False`.

    Raises:
        OverflowError: `threads` is negative.
        TypeError: an item has the wrong shape or types.

    Example:
        >>> from guomi import sm2
        >>> key = sm2.PrivateKey.generate()
        >>> pk, uid = key.public_key(), sm2.DEFAULT_UID
        >>> sm2.verify_many([(pk, key.sign(b"a"), b"a", uid), (pk, b"", b"b", uid)])
        [True, False]
    """
