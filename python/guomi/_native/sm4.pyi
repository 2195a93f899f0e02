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
    "mac",
    "CBCMAC",
    "CMAC",
]

BLOCK_SIZE: int
KEY_SIZE: int

@final
class SM4:
    """An SM4 key object (GB/T 32907-2016): the key schedule runs once, here, on the
    backend active now (kept for the object's life; see ``backend`` and ``variant``).

    ECB, CBC, CTR, CFB and OFB through ``encrypt``/``decrypt`` (one shot) or
    ``encryptor``/``decryptor`` (streaming), and single blocks through
    ``encrypt_block``/``decrypt_block``. Immutable and thread-safe; the round keys are
    wiped when the object is freed.

    Args:
        key: the 16-byte key, any bytes-like object.

    Raises:
        InvalidLength: ``key`` is not 16 bytes.
        TypeError: ``key`` is not bytes-like (a ``str`` included).

    Example:
        >>> from guomi.sm4 import SM4
        >>> key = bytes.fromhex("0123456789abcdeffedcba9876543210")
        >>> c = SM4(key)
        >>> c.encrypt_block(key).hex()
        '681edf34d206965e86b3e94f536e4246'
        >>> ct = c.encrypt(b"attack at dawn", mode="cbc", iv=bytes(16))
        >>> len(ct), c.decrypt(ct, mode="cbc", iv=bytes(16))
        (16, b'attack at dawn')
    """
    def __new__(cls, key: BytesLike) -> SM4: ...
    @staticmethod
    def generate_key() -> bytes:
        """A new random 16-byte key from the operating system's CSPRNG.

        Returns:
            bytes: 16 random bytes.

        Raises:
            RandomnessError: the OS random number generator failed (no fallback).

        Example:
            >>> from guomi.sm4 import SM4
            >>> len(SM4.generate_key())
            16
        """
    def encrypt(
        self,
        data: BytesLike,
        *,
        mode: str,
        iv: Optional[BytesLike] = None,
        padding: Optional[str] = None,
    ) -> bytes:
        """Encrypts ``data`` in one call (the GIL is released from 2 KiB on).

        Args:
            data: the plaintext, any bytes-like object. With ``padding="none"``, ECB and
                CBC need a whole number of 16-byte blocks; the other modes take any length.
            mode: ``"ecb"``, ``"cbc"``, ``"ctr"`` (128-bit big-endian counter), ``"cfb"``
                (CFB128; ``"cfb128"`` too) or ``"ofb"``, any case.
            iv: 16 bytes for CBC/CTR/CFB/OFB (the initial counter block for CTR); none for
                ECB.
            padding: ``"pkcs7"`` (the default for ECB/CBC), ``"none"`` (the default, and the
                only choice, for CTR/CFB/OFB), ``"iso7816"`` (0x80 then zeros) or ``"zero"``
                (zeros up to the block boundary; decryption strips every trailing zero byte,
                so data ending in 0x00 does not round-trip); ``None`` = the mode's default.

        Returns:
            bytes: the ciphertext (padded modes: the next multiple of 16 bytes; PKCS #7
            and ISO 7816 always add at least one byte).

        Raises:
            InvalidArgument: unknown ``mode`` or ``padding``; padding other than ``"none"``
                for a stream mode; an ``iv`` for ECB or none for the other modes.
            InvalidLength: ``iv`` is not 16 bytes.
            InvalidLength: (also) ECB/CBC data that is not a whole number of blocks with
                ``padding="none"``.
            TypeError: an argument has the wrong type (a ``str`` where bytes are expected
                included).

        Example:
            >>> from guomi.sm4 import SM4
            >>> c = SM4(bytes(16))
            >>> ct = c.encrypt(b"hello", mode="ctr", iv=bytes(16))
            >>> len(ct), c.decrypt(ct, mode="ctr", iv=bytes(16))
            (5, b'hello')
        """
    def decrypt(
        self,
        data: BytesLike,
        *,
        mode: str,
        iv: Optional[BytesLike] = None,
        padding: Optional[str] = None,
    ) -> bytes:
        """Decrypts ``data`` in one call; the inverse of ``encrypt`` with the same options.

        Args:
            data: the ciphertext, any bytes-like object (ECB/CBC: a whole number of
                16-byte blocks).
            mode: ``"ecb"``, ``"cbc"``, ``"ctr"`` (128-bit big-endian counter), ``"cfb"``
                (CFB128; ``"cfb128"`` too) or ``"ofb"``, any case.
            iv: 16 bytes for CBC/CTR/CFB/OFB (the initial counter block for CTR); none for
                ECB.
            padding: ``"pkcs7"`` (the default for ECB/CBC), ``"none"`` (the default, and the
                only choice, for CTR/CFB/OFB), ``"iso7816"`` (0x80 then zeros) or ``"zero"``
                (zeros up to the block boundary; decryption strips every trailing zero byte,
                so data ending in 0x00 does not round-trip); ``None`` = the mode's default.

        Returns:
            bytes: the plaintext, padding removed.

        Raises:
            InvalidPadding: the padding is malformed; no plaintext is returned.
            InvalidArgument: unknown ``mode`` or ``padding``; padding other than ``"none"``
                for a stream mode; an ``iv`` for ECB or none for the other modes.
            InvalidLength: ``iv`` is not 16 bytes.
            InvalidLength: (also) ECB/CBC ciphertext that is not a whole number of blocks.
            TypeError: an argument has the wrong type (a ``str`` where bytes are expected
                included).

        Example:
            >>> from guomi.sm4 import SM4
            >>> c = SM4(bytes(16))
            >>> c.decrypt(c.encrypt(b"hello", mode="ecb"), mode="ecb")
            b'hello'
        """
    def encrypt_block(self, block: BytesLike) -> bytes:
        """Encrypts one 16-byte block with the raw cipher (no mode, no padding).

        Args:
            block: exactly 16 bytes, any bytes-like object.

        Returns:
            bytes: the 16-byte ciphertext block.

        Raises:
            InvalidLength: ``block`` is not 16 bytes.
            TypeError: ``block`` is not bytes-like.

        Example:
            >>> from guomi.sm4 import SM4
            >>> key = bytes.fromhex("0123456789abcdeffedcba9876543210")
            >>> SM4(key).encrypt_block(key).hex()
            '681edf34d206965e86b3e94f536e4246'
        """
    def decrypt_block(self, block: BytesLike) -> bytes:
        """Decrypts one 16-byte block with the raw cipher (no mode, no padding).

        Args:
            block: exactly 16 bytes, any bytes-like object.

        Returns:
            bytes: the 16-byte plaintext block.

        Raises:
            InvalidLength: ``block`` is not 16 bytes.
            TypeError: ``block`` is not bytes-like.

        Example:
            >>> from guomi.sm4 import SM4
            >>> key = bytes.fromhex("0123456789abcdeffedcba9876543210")
            >>> SM4(key).decrypt_block(bytes.fromhex("681edf34d206965e86b3e94f536e4246")) == key
            True
        """
    def encryptor(
        self, *, mode: str, iv: Optional[BytesLike] = None, padding: Optional[str] = None
    ) -> Encryptor:
        """A streaming encryptor under this key: ``update(data)`` any number of times,
        then ``finalize()``.

        Args:
            mode: ``"ecb"``, ``"cbc"``, ``"ctr"`` (128-bit big-endian counter), ``"cfb"``
                (CFB128; ``"cfb128"`` too) or ``"ofb"``, any case.
            iv: 16 bytes for CBC/CTR/CFB/OFB (the initial counter block for CTR); none for
                ECB.
            padding: ``"pkcs7"`` (the default for ECB/CBC), ``"none"`` (the default, and the
                only choice, for CTR/CFB/OFB), ``"iso7816"`` (0x80 then zeros) or ``"zero"``
                (zeros up to the block boundary; decryption strips every trailing zero byte,
                so data ending in 0x00 does not round-trip); ``None`` = the mode's default.

        Returns:
            Encryptor: the streaming object.

        Raises:
            InvalidArgument: unknown ``mode`` or ``padding``; padding other than ``"none"``
                for a stream mode; an ``iv`` for ECB or none for the other modes.
            InvalidLength: ``iv`` is not 16 bytes.
            TypeError: ``iv`` is not bytes-like or ``mode``/``padding`` not a ``str``.

        Example:
            >>> from guomi.sm4 import SM4
            >>> c = SM4(bytes(16))
            >>> e = c.encryptor(mode="cbc", iv=bytes(16))
            >>> ct = e.update(b"a" * 20) + e.update(b"b" * 20) + e.finalize()
            >>> ct == c.encrypt(b"a" * 20 + b"b" * 20, mode="cbc", iv=bytes(16))
            True
        """
    def decryptor(
        self, *, mode: str, iv: Optional[BytesLike] = None, padding: Optional[str] = None
    ) -> Decryptor:
        """A streaming decryptor under this key: ``update(data)`` any number of times,
        then ``finalize()``, which checks the padding.

        With padding, the last block is held back until ``finalize()``; plaintext
        returned by earlier ``update`` calls has already been released when a bad
        padding is found.

        Args:
            mode: ``"ecb"``, ``"cbc"``, ``"ctr"`` (128-bit big-endian counter), ``"cfb"``
                (CFB128; ``"cfb128"`` too) or ``"ofb"``, any case.
            iv: 16 bytes for CBC/CTR/CFB/OFB (the initial counter block for CTR); none for
                ECB.
            padding: ``"pkcs7"`` (the default for ECB/CBC), ``"none"`` (the default, and the
                only choice, for CTR/CFB/OFB), ``"iso7816"`` (0x80 then zeros) or ``"zero"``
                (zeros up to the block boundary; decryption strips every trailing zero byte,
                so data ending in 0x00 does not round-trip); ``None`` = the mode's default.

        Returns:
            Decryptor: the streaming object.

        Raises:
            InvalidArgument: unknown ``mode`` or ``padding``; padding other than ``"none"``
                for a stream mode; an ``iv`` for ECB or none for the other modes.
            InvalidLength: ``iv`` is not 16 bytes.
            TypeError: ``iv`` is not bytes-like or ``mode``/``padding`` not a ``str``.

        Example:
            >>> from guomi.sm4 import SM4
            >>> c = SM4(bytes(16))
            >>> ct = c.encrypt(b"x" * 40, mode="cbc", iv=bytes(16))
            >>> d = c.decryptor(mode="cbc", iv=bytes(16))
            >>> d.update(ct[:20]) + d.update(ct[20:]) + d.finalize() == b"x" * 40
            True
        """
    @property
    def backend(self) -> str:
        """The backend this key object runs on, fixed when it was built: ``"portable"``,
        ``"avx2"`` or ``"avx512"``.

        Example:
            >>> from guomi.sm4 import SM4
            >>> from guomi.backend import available_backends
            >>> SM4(bytes(16)).backend in available_backends()
            True
        """
    @property
    def variant(self) -> str:
        """The variant this key object runs on, fixed when it was built (e.g.
        ``"avx2-novaes"``; see ``guomi.backend``).

        Example:
            >>> from guomi.sm4 import SM4
            >>> from guomi.backend import available_variants
            >>> SM4(bytes(16)).variant in available_variants()
            True
        """

@final
class Encryptor:
    """A streaming SM4 encryptor for ECB/CBC/CTR/CFB/OFB, made by ``SM4.encryptor`` or
    ``guomi.sm4.encryptor`` (it has no constructor of its own).

    ``update(data)`` returns the ciphertext ready so far (block modes hold back a
    partial block), ``finalize()`` the rest, padding included. Chunking never changes
    the result. After ``finalize()`` every call raises ``AlreadyFinalized``.

    Example:
        >>> from guomi import sm4
        >>> e = sm4.encryptor(bytes(16), mode="ecb")
        >>> e.update(b"abc"), len(e.finalize())
        (b'', 16)
    """
    def update(self, data: BytesLike) -> bytes:
        """Encrypts the next piece of the message.

        Args:
            data: any bytes-like object, any length.

        Returns:
            bytes: the ciphertext ready so far (ECB/CBC: whole blocks only, the rest is
            kept for the next call; stream modes: ``len(data)`` bytes).

        Raises:
            AlreadyFinalized: ``finalize()`` was called.
            TypeError: ``data`` is not bytes-like.

        Example:
            >>> from guomi import sm4
            >>> e = sm4.encryptor(bytes(16), mode="ctr", iv=bytes(16))
            >>> len(e.update(b"hello"))
            5
        """
    def finalize(self) -> bytes:
        """Ends the message.

        Returns:
            bytes: the last block(s) with the padding (ECB/CBC), or ``b""``.

        Raises:
            InvalidLength: ECB/CBC with ``padding="none"`` and the data was not a whole
                number of blocks.
            AlreadyFinalized: called a second time.

        Example:
            >>> from guomi import sm4
            >>> e = sm4.encryptor(bytes(16), mode="cbc", iv=bytes(16))
            >>> e.update(b"x" * 16) + e.finalize() == sm4.encrypt(
            ...     bytes(16), b"x" * 16, mode="cbc", iv=bytes(16))
            True
        """

@final
class Decryptor:
    """A streaming SM4 decryptor for ECB/CBC/CTR/CFB/OFB, made by ``SM4.decryptor`` or
    ``guomi.sm4.decryptor`` (it has no constructor of its own).

    ``update(data)`` returns the plaintext ready so far; with padding the last block is
    held back until ``finalize()``, which checks and removes the padding. Plaintext
    returned by earlier ``update`` calls has already been released when ``finalize``
    finds a bad padding. After ``finalize()`` every call raises ``AlreadyFinalized``.

    Example:
        >>> from guomi import sm4
        >>> ct = sm4.encrypt(bytes(16), b"hello", mode="ecb")
        >>> d = sm4.decryptor(bytes(16), mode="ecb")
        >>> d.update(ct), d.finalize()
        (b'', b'hello')
    """
    def update(self, data: BytesLike) -> bytes:
        """Decrypts the next piece of the ciphertext.

        Args:
            data: any bytes-like object, any length.

        Returns:
            bytes: the plaintext ready so far (ECB/CBC: whole blocks only, and with
            padding the last whole block is kept for ``finalize``).

        Raises:
            AlreadyFinalized: ``finalize()`` was called.
            TypeError: ``data`` is not bytes-like.

        Example:
            >>> from guomi import sm4
            >>> ct = sm4.encrypt(bytes(16), b"y" * 32, mode="ecb", padding="none")
            >>> d = sm4.decryptor(bytes(16), mode="ecb", padding="none")
            >>> d.update(ct)
            b'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'
        """
    def finalize(self) -> bytes:
        """Ends the message and checks the padding.

        Returns:
            bytes: the last plaintext bytes, padding removed (``b""`` for stream modes).

        Raises:
            InvalidPadding: the padding is malformed.
            InvalidLength: ECB/CBC ciphertext that was not a whole number of blocks.
            AlreadyFinalized: called a second time.

        Example:
            >>> from guomi import sm4
            >>> d = sm4.decryptor(bytes(16), mode="cbc", iv=bytes(16))
            >>> d.update(bytes(16))
            b''
            >>> d.finalize()
            Traceback (most recent call last):
            ...
            guomi.exceptions.InvalidPadding: invalid padding
        """

@final
class SM4GCM:
    """An SM4-GCM key object (NIST SP 800-38D, RFC 8998) in the style of
    ``cryptography``'s ``AESGCM``: authenticated encryption with associated data.

    ``encrypt(nonce, data, aad=None)`` returns ciphertext || 16-byte tag;
    ``decrypt(nonce, data, aad=None, *, tag_length=16)`` raises ``InvalidTag`` and
    releases no plaintext when the tag does not verify. ``encryptor``/``decryptor``
    stream. Nonces: any length from 1 byte; 12 bytes is the recommended (and fastest)
    length. Never reuse a nonce with the same key: it reveals the XOR of the plaintexts
    and lets an attacker forge tags. Immutable and thread-safe; the key schedule runs
    once, on the backend active now.

    Args:
        key: the 16-byte key, any bytes-like object.

    Raises:
        InvalidLength: ``key`` is not 16 bytes.
        TypeError: ``key`` is not bytes-like.

    Example:
        >>> from guomi.sm4 import SM4GCM
        >>> gcm = SM4GCM(bytes(16))
        >>> nonce = bytes(12)
        >>> ct = gcm.encrypt(nonce, b"secret", b"header")
        >>> len(ct), gcm.decrypt(nonce, ct, b"header")
        (22, b'secret')
    """
    def __new__(cls, key: BytesLike) -> SM4GCM: ...
    @staticmethod
    def generate_key() -> bytes:
        """A new random 16-byte key from the operating system's CSPRNG.

        Returns:
            bytes: 16 random bytes.

        Raises:
            RandomnessError: the OS random number generator failed (no fallback).

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> len(SM4GCM.generate_key())
            16
        """
    def encrypt(self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None) -> bytes:
        """Encrypts and authenticates ``data`` (and authenticates ``aad``).

        Args:
            nonce: at least 1 byte; 12 recommended. Unique per message under this key.
            data: the plaintext, any bytes-like object, at most 2**36 - 32 bytes.
            aad: associated data, authenticated but not encrypted (``None`` = empty).

        Returns:
            bytes: ciphertext || 16-byte tag (``len(data) + 16`` bytes).

        Raises:
            InvalidLength: an empty ``nonce``, or ``data`` over 2**36 - 32 bytes.
            TypeError: an argument is not bytes-like.

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> len(SM4GCM(bytes(16)).encrypt(bytes(12), b"abc"))
            19
        """
    def decrypt(
        self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None, *, tag_length: int = 16
    ) -> bytes:
        """Verifies and decrypts ciphertext || tag; no plaintext is released unless the
        tag verifies.

        Args:
            nonce: the nonce used for encryption.
            data: ciphertext || tag, any bytes-like object.
            aad: the associated data used for encryption (``None`` = empty).
            tag_length: the tag length in bytes, fixed by the caller, never taken from
                the data: 16 (the default), or 15, 14, 13, 12, 8 or 4 for truncated tags
                (NIST SP 800-38D §5.2.1.2; only for interoperability).

        Returns:
            bytes: the plaintext (``len(data) - tag_length`` bytes).

        Raises:
            InvalidTag: the tag does not verify (wrong key, nonce, aad or tag, any
                tampering), or ``data`` is shorter than ``tag_length``.
            InvalidLength: unsupported ``tag_length``, or an empty ``nonce``.
            TypeError: an argument is not bytes-like.

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> gcm = SM4GCM(bytes(16))
            >>> ct = gcm.encrypt(bytes(12), b"abc")
            >>> gcm.decrypt(bytes(12), ct)
            b'abc'
            >>> gcm.decrypt(bytes(12), ct[:-1] + bytes([ct[-1] ^ 1]))
            Traceback (most recent call last):
            ...
            guomi.exceptions.InvalidTag: authentication tag does not match
        """
    def encryptor(self, nonce: BytesLike, aad: Optional[BytesLike] = None) -> GCMEncryptor:
        """A streaming encryptor: ``update(data)`` returns ciphertext at once,
        ``finalize()`` returns ``b""``, and the 16-byte tag is then in ``tag``.

        Args:
            nonce: at least 1 byte; 12 recommended. Unique per message under this key.
            aad: associated data (``None`` = empty), given up front.

        Returns:
            GCMEncryptor: the streaming object.

        Raises:
            InvalidLength: an empty ``nonce``.
            TypeError: an argument is not bytes-like.

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> gcm = SM4GCM(bytes(16))
            >>> e = gcm.encryptor(bytes(12), b"hdr")
            >>> ct = e.update(b"ab") + e.update(b"c") + e.finalize()
            >>> ct + e.tag == gcm.encrypt(bytes(12), b"abc", b"hdr")
            True
        """
    def decryptor(
        self,
        nonce: BytesLike,
        tag: Optional[BytesLike] = None,
        aad: Optional[BytesLike] = None,
        *,
        buffered: bool = True,
        tag_length: int = 16,
    ) -> GCMDecryptor:
        """A streaming decryptor; the tag is checked at ``finalize``.

        Args:
            nonce: the nonce used for encryption.
            tag: the tag, here or later as ``finalize(tag)`` (``None`` = later).
            aad: the associated data (``None`` = empty).
            buffered: ``True`` (the default): ``update`` returns ``b""`` and
                ``finalize`` returns the whole plaintext only after the tag verified, so
                no unauthenticated plaintext escapes (memory grows with the message).
                ``False``: ``update`` returns plaintext at once and ``finalize`` only
                verifies; the caller must discard everything if it raises.
            tag_length: the tag length in bytes, fixed here, never taken from the tag:
                16 (the default), or 15, 14, 13, 12, 8 or 4 for truncated tags.

        Returns:
            GCMDecryptor: the streaming object.

        Raises:
            InvalidLength: unsupported ``tag_length``, or an empty ``nonce``.
            InvalidTag: a ``tag`` whose length is not ``tag_length``.
            TypeError: an argument has the wrong type.

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> gcm = SM4GCM(bytes(16))
            >>> ct = gcm.encrypt(bytes(12), b"hello")
            >>> d = gcm.decryptor(bytes(12), ct[-16:])
            >>> d.update(ct[:-16]), d.finalize()
            (b'', b'hello')
        """
    @property
    def backend(self) -> str:
        """The backend this key object runs on, fixed when it was built: ``"portable"``,
        ``"avx2"`` or ``"avx512"``.

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> from guomi.backend import available_backends
            >>> SM4GCM(bytes(16)).backend in available_backends()
            True
        """
    @property
    def variant(self) -> str:
        """The variant this key object runs on, fixed when it was built (e.g.
        ``"avx2-novaes"``).

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> from guomi.backend import available_variants
            >>> SM4GCM(bytes(16)).variant in available_variants()
            True
        """

@final
class GCMEncryptor:
    """A streaming SM4-GCM encryptor, made by ``SM4GCM.encryptor`` or
    ``guomi.sm4.encryptor(key, mode="gcm", ...)`` (no constructor of its own).

    ``update(data)`` returns the ciphertext of ``data`` at once; ``finalize()`` returns
    ``b""``; the 16-byte tag is then in ``tag``. After ``finalize()``, ``update`` and
    ``finalize`` raise ``AlreadyFinalized``. An ``update`` that fails (past GCM's
    2**36 - 32 byte limit) ends the stream: every later call raises ``InvalidArgument``,
    so no tag ever covers bytes that were not encrypted.

    Example:
        >>> from guomi import sm4
        >>> e = sm4.encryptor(bytes(16), mode="gcm", iv=bytes(12))
        >>> ct = e.update(b"abc") + e.finalize()
        >>> ct + e.tag == sm4.SM4GCM(bytes(16)).encrypt(bytes(12), b"abc")
        True
    """
    def update(self, data: BytesLike) -> bytes:
        """Encrypts the next piece of the message.

        Args:
            data: any bytes-like object, any length (the whole message at most
                2**36 - 32 bytes).

        Returns:
            bytes: ``len(data)`` bytes of ciphertext.

        Raises:
            AlreadyFinalized: ``finalize()`` was called.
            InvalidLength: the message grew over 2**36 - 32 bytes.
            TypeError: ``data`` is not bytes-like.

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> len(SM4GCM(bytes(16)).encryptor(bytes(12)).update(b"abc"))
            3
        """
    def finalize(self) -> bytes:
        """Ends the message and computes the tag (then available as ``tag``).

        Returns:
            bytes: always ``b""`` (GCM produces all ciphertext in ``update``).

        Raises:
            AlreadyFinalized: called a second time.

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> e = SM4GCM(bytes(16)).encryptor(bytes(12))
            >>> e.finalize(), len(e.tag)
            (b'', 16)
        """
    @property
    def tag(self) -> bytes:
        """The 16-byte tag, once ``finalize()`` has run.

        Raises:
            InvalidArgument: read before ``finalize()``.

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> e = SM4GCM(bytes(16)).encryptor(bytes(12))
            >>> _ = e.finalize()
            >>> e.tag.hex()
            '232f0cfe308b49ea6fc88229b5dc858d'
        """

@final
class GCMDecryptor:
    """A streaming SM4-GCM decryptor, made by ``SM4GCM.decryptor`` or
    ``guomi.sm4.decryptor(key, mode="gcm", ...)`` (no constructor of its own); the tag
    is checked at ``finalize``.

    Buffered (the default): ``update`` returns ``b""`` and ``finalize`` returns the
    whole plaintext once the tag verified. Unbuffered: ``update`` returns plaintext at
    once, ``finalize`` returns ``b""`` or raises ``InvalidTag``, and the caller must
    then discard everything. After ``finalize()`` every call raises
    ``AlreadyFinalized``. An ``update`` that fails (past GCM's 2**36 - 32 byte limit)
    ends the stream: every later call raises ``InvalidArgument``.

    Example:
        >>> from guomi import sm4
        >>> ct = sm4.SM4GCM(bytes(16)).encrypt(bytes(12), b"hello")
        >>> d = sm4.decryptor(bytes(16), mode="gcm", iv=bytes(12))
        >>> d.update(ct[:-16]), d.finalize(ct[-16:])
        (b'', b'hello')
    """
    def update(self, data: BytesLike) -> bytes:
        """Decrypts the next piece of the ciphertext (without the tag).

        Args:
            data: any bytes-like object, any length (the whole message at most
                2**36 - 32 bytes).

        Returns:
            bytes: ``b""`` when buffered (the plaintext is kept until ``finalize``);
            otherwise ``len(data)`` bytes of not yet authenticated plaintext.

        Raises:
            AlreadyFinalized: ``finalize()`` was called.
            InvalidLength: the message grew over 2**36 - 32 bytes.
            TypeError: ``data`` is not bytes-like.

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> gcm = SM4GCM(bytes(16))
            >>> ct = gcm.encrypt(bytes(12), b"abc")
            >>> gcm.decryptor(bytes(12), buffered=False).update(ct[:-16])
            b'abc'
        """
    def finalize(self, tag: Optional[BytesLike] = None) -> bytes:
        """Verifies the tag (in constant time) and ends the message.

        Args:
            tag: the tag, unless it was given to the decryptor; exactly ``tag_length``
                bytes.

        Returns:
            bytes: buffered: the whole plaintext; unbuffered: ``b""``.

        Raises:
            InvalidTag: the tag does not verify or is not ``tag_length`` bytes
                (buffered plaintext is wiped, nothing is returned).
            InvalidArgument: no tag was given, here or to the decryptor.
            AlreadyFinalized: called a second time.

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> gcm = SM4GCM(bytes(16))
            >>> ct = gcm.encrypt(bytes(12), b"abc")
            >>> d = gcm.decryptor(bytes(12))
            >>> d.update(ct[:-16])
            b''
            >>> d.finalize(ct[-16:])
            b'abc'
        """
    @property
    def buffered(self) -> bool:
        """Whether plaintext is held back until ``finalize`` verifies the tag.

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> SM4GCM(bytes(16)).decryptor(bytes(12)).buffered
            True
        """
    @property
    def tag_length(self) -> int:
        """The tag length in bytes this decryptor checks (fixed when it was made).

        Example:
            >>> from guomi.sm4 import SM4GCM
            >>> SM4GCM(bytes(16)).decryptor(bytes(12), tag_length=12).tag_length
            12
        """

@final
class SM4CCM:
    """An SM4-CCM key object (NIST SP 800-38C, RFC 3610) in the style of
    ``cryptography``'s ``AESCCM``: authenticated encryption with associated data.

    The tag length is fixed when the object is made, and ``decrypt`` checks exactly
    that many bytes. Nonces are 7 to 13 bytes; with an n-byte nonce a message is less
    than 2**(8 * (15 - n)) bytes long. Never reuse a nonce with the same key. Immutable
    and thread-safe.

    Args:
        key: the 16-byte key, any bytes-like object.
        tag_length: the tag length in bytes: 4, 6, 8, 10, 12, 14 or 16 (the default).

    Raises:
        InvalidLength: ``key`` is not 16 bytes or ``tag_length`` is not allowed.
        TypeError: ``key`` is not bytes-like.

    Example:
        >>> from guomi.sm4 import SM4CCM
        >>> ccm = SM4CCM(bytes(16), tag_length=8)
        >>> ct = ccm.encrypt(bytes(12), b"secret", b"header")
        >>> len(ct), ccm.decrypt(bytes(12), ct, b"header")
        (14, b'secret')
    """
    def __new__(cls, key: BytesLike, tag_length: int = 16) -> SM4CCM: ...
    @staticmethod
    def generate_key() -> bytes:
        """A new random 16-byte key from the operating system's CSPRNG.

        Returns:
            bytes: 16 random bytes.

        Raises:
            RandomnessError: the OS random number generator failed (no fallback).

        Example:
            >>> from guomi.sm4 import SM4CCM
            >>> len(SM4CCM.generate_key())
            16
        """
    def encrypt(self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None) -> bytes:
        """Encrypts and authenticates ``data`` (and authenticates ``aad``).

        Args:
            nonce: 7 to 13 bytes, unique per message under this key.
            data: the plaintext, less than 2**(8 * (15 - len(nonce))) bytes.
            aad: associated data, authenticated but not encrypted (``None`` = empty).

        Returns:
            bytes: ciphertext || tag (``len(data) + tag_length`` bytes).

        Raises:
            InvalidLength: ``nonce`` is not 7 to 13 bytes, or ``data`` is too long for it.
            TypeError: an argument is not bytes-like.

        Example:
            >>> from guomi.sm4 import SM4CCM
            >>> len(SM4CCM(bytes(16)).encrypt(bytes(13), b"abc"))
            19
        """
    def decrypt(self, nonce: BytesLike, data: BytesLike, aad: Optional[BytesLike] = None) -> bytes:
        """Verifies and decrypts ciphertext || tag; no plaintext is released unless the
        tag (``tag_length`` bytes, fixed by the key object) verifies.

        Args:
            nonce: the nonce used for encryption (7 to 13 bytes).
            data: ciphertext || tag, any bytes-like object.
            aad: the associated data used for encryption (``None`` = empty).

        Returns:
            bytes: the plaintext (``len(data) - tag_length`` bytes).

        Raises:
            InvalidTag: the tag does not verify, or ``data`` is shorter than the tag.
            InvalidLength: ``nonce`` is not 7 to 13 bytes.
            TypeError: an argument is not bytes-like.

        Example:
            >>> from guomi.sm4 import SM4CCM
            >>> ccm = SM4CCM(bytes(16))
            >>> ccm.decrypt(bytes(13), ccm.encrypt(bytes(13), b"abc"))
            b'abc'
        """
    @property
    def tag_length(self) -> int:
        """The tag length in bytes, fixed when the key object was made.

        Example:
            >>> from guomi.sm4 import SM4CCM
            >>> SM4CCM(bytes(16), tag_length=12).tag_length
            12
        """
    @property
    def variant(self) -> str:
        """The variant this key object runs on, fixed when it was built.

        Example:
            >>> from guomi.sm4 import SM4CCM
            >>> from guomi.backend import available_variants
            >>> SM4CCM(bytes(16)).variant in available_variants()
            True
        """

@final
class SM4XTS:
    """An SM4-XTS key object for storage encryption (sector-style data units, with
    ciphertext stealing, so the ciphertext is exactly as long as the data).

    ``encrypt(tweak, data)`` / ``decrypt(tweak, data)``: one data unit of at least 16
    bytes under a 16-byte tweak (e.g. the sector number). XTS is not authenticated.

    Args:
        key: 32 bytes, key1 (data) || key2 (tweak); the halves must differ.
        standard: ``"gb"`` (GB/T 17964-2021, OpenSSL's SM4-XTS; the default) or
            ``"ieee"`` (IEEE Std 1619), any case. They differ in how the tweak is
            multiplied by alpha between blocks.

    Raises:
        InvalidLength: ``key`` is not 32 bytes.
        InvalidKey: the two key halves are equal (refused as FIPS 140-3 IG C.I requires).
        InvalidArgument: unknown ``standard``.
        TypeError: ``key`` is not bytes-like.

    Example:
        >>> from guomi.sm4 import SM4XTS
        >>> xts = SM4XTS(bytes(range(32)))
        >>> ct = xts.encrypt(bytes(16), b"seventeen bytes!!")
        >>> len(ct), xts.decrypt(bytes(16), ct)
        (17, b'seventeen bytes!!')
    """
    def __new__(cls, key: BytesLike, *, standard: str = "gb") -> SM4XTS: ...
    def encrypt(self, tweak: BytesLike, data: BytesLike) -> bytes:
        """Encrypts one data unit.

        Args:
            tweak: 16 bytes (e.g. the sector number), unique per data unit.
            data: at least 16 bytes, any bytes-like object.

        Returns:
            bytes: the ciphertext, ``len(data)`` bytes.

        Raises:
            InvalidLength: ``tweak`` is not 16 bytes or ``data`` is shorter than 16.
            TypeError: an argument is not bytes-like.

        Example:
            >>> from guomi.sm4 import SM4XTS
            >>> len(SM4XTS(bytes(range(32))).encrypt(bytes(16), bytes(512)))
            512
        """
    def decrypt(self, tweak: BytesLike, data: BytesLike) -> bytes:
        """Decrypts one data unit.

        Args:
            tweak: the 16-byte tweak used for encryption.
            data: the ciphertext, at least 16 bytes.

        Returns:
            bytes: the plaintext, ``len(data)`` bytes.

        Raises:
            InvalidLength: ``tweak`` is not 16 bytes or ``data`` is shorter than 16.
            TypeError: an argument is not bytes-like.

        Example:
            >>> from guomi.sm4 import SM4XTS
            >>> xts = SM4XTS(bytes(range(32)), standard="ieee")
            >>> xts.decrypt(bytes(16), xts.encrypt(bytes(16), b"0123456789abcdef"))
            b'0123456789abcdef'
        """
    @property
    def variant(self) -> str:
        """The variant this key object runs on, fixed when it was built.

        Example:
            >>> from guomi.sm4 import SM4XTS
            >>> from guomi.backend import available_variants
            >>> SM4XTS(bytes(range(32))).variant in available_variants()
            True
        """

def encrypt(
    key: BytesLike,
    data: BytesLike,
    mode: str,
    iv: Optional[BytesLike] = None,
    padding: Optional[str] = None,
) -> bytes:
    """One-shot SM4 encryption with the key as bytes (the binding behind
    ``guomi.sm4.encrypt``, which makes ``mode``, ``iv`` and ``padding`` keyword-only).
    The key schedule runs on every call; ``SM4(key)`` keeps it.

    Args:
        key: the 16-byte key.
        data: the plaintext (ECB/CBC with ``padding="none"``: whole 16-byte blocks).
        mode: ``"ecb"``, ``"cbc"``, ``"ctr"`` (128-bit big-endian counter), ``"cfb"``
            (CFB128; ``"cfb128"`` too) or ``"ofb"``, any case.
        iv: 16 bytes for CBC/CTR/CFB/OFB (the initial counter block for CTR); none for
            ECB.
        padding: ``"pkcs7"`` (the default for ECB/CBC), ``"none"`` (the default, and the
            only choice, for CTR/CFB/OFB), ``"iso7816"`` (0x80 then zeros) or ``"zero"``
            (zeros up to the block boundary; decryption strips every trailing zero byte,
            so data ending in 0x00 does not round-trip); ``None`` = the mode's default.

    Returns:
        bytes: the ciphertext.

    Raises:
        InvalidLength: ``key`` or ``iv`` is not 16 bytes, or ECB/CBC data is not whole
            blocks with ``padding="none"``.
        InvalidArgument: unknown ``mode`` or ``padding``; padding for a stream mode; an
            ``iv`` for ECB or none for the other modes.
        TypeError: an argument has the wrong type (a ``str`` where bytes are expected
            included).

    Example:
        >>> from guomi._native import sm4
        >>> key = bytes.fromhex("0123456789abcdeffedcba9876543210")
        >>> sm4.encrypt(key, key, "ecb", None, "none").hex()
        '681edf34d206965e86b3e94f536e4246'
    """

def decrypt(
    key: BytesLike,
    data: BytesLike,
    mode: str,
    iv: Optional[BytesLike] = None,
    padding: Optional[str] = None,
) -> bytes:
    """One-shot SM4 decryption with the key as bytes (the binding behind
    ``guomi.sm4.decrypt``); the inverse of ``encrypt`` with the same options.

    Args:
        key: the 16-byte key.
        data: the ciphertext (ECB/CBC: whole 16-byte blocks).
        mode: ``"ecb"``, ``"cbc"``, ``"ctr"`` (128-bit big-endian counter), ``"cfb"``
            (CFB128; ``"cfb128"`` too) or ``"ofb"``, any case.
        iv: 16 bytes for CBC/CTR/CFB/OFB (the initial counter block for CTR); none for
            ECB.
        padding: ``"pkcs7"`` (the default for ECB/CBC), ``"none"`` (the default, and the
            only choice, for CTR/CFB/OFB), ``"iso7816"`` (0x80 then zeros) or ``"zero"``
            (zeros up to the block boundary; decryption strips every trailing zero byte,
            so data ending in 0x00 does not round-trip); ``None`` = the mode's default.

    Returns:
        bytes: the plaintext, padding removed.

    Raises:
        InvalidPadding: the padding is malformed; no plaintext is returned.
        InvalidLength: ``key`` or ``iv`` is not 16 bytes, or ECB/CBC ciphertext is not
            whole blocks.
        InvalidArgument: unknown ``mode`` or ``padding``; padding for a stream mode; an
            ``iv`` for ECB or none for the other modes.
        TypeError: an argument has the wrong type (a ``str`` where bytes are expected
            included).

    Example:
        >>> from guomi._native import sm4
        >>> ct = sm4.encrypt(bytes(16), b"hi", "cbc", bytes(16), None)
        >>> sm4.decrypt(bytes(16), ct, "cbc", bytes(16), None)
        b'hi'
    """

def xts_encrypt(key: BytesLike, tweak: BytesLike, data: BytesLike, standard: str = "gb") -> bytes:
    """SM4-XTS encryption of one data unit with the key as bytes (the binding behind
    ``guomi.sm4.xts_encrypt``; ``SM4XTS`` keeps the key schedule).

    Args:
        key: 32 bytes, key1 || key2; the halves must differ.
        tweak: 16 bytes.
        data: at least 16 bytes.
        standard: ``"gb"`` (GB/T 17964-2021, OpenSSL's SM4-XTS; the default) or
            ``"ieee"`` (IEEE Std 1619), any case. They differ in how the tweak is
            multiplied by alpha between blocks.

    Returns:
        bytes: the ciphertext, ``len(data)`` bytes.

    Raises:
        InvalidLength: ``key`` is not 32 bytes, ``tweak`` not 16, or ``data`` shorter
            than 16.
        InvalidKey: the two key halves are equal.
        InvalidArgument: unknown ``standard``.
        TypeError: an argument has the wrong type.

    Example:
        >>> from guomi._native import sm4
        >>> len(sm4.xts_encrypt(bytes(range(32)), bytes(16), bytes(20), "gb"))
        20
    """

def xts_decrypt(key: BytesLike, tweak: BytesLike, data: BytesLike, standard: str = "gb") -> bytes:
    """SM4-XTS decryption of one data unit with the key as bytes (the binding behind
    ``guomi.sm4.xts_decrypt``).

    Args:
        key: 32 bytes, key1 || key2; the halves must differ.
        tweak: the 16-byte tweak used for encryption.
        data: the ciphertext, at least 16 bytes.
        standard: ``"gb"`` (GB/T 17964-2021, OpenSSL's SM4-XTS; the default) or
            ``"ieee"`` (IEEE Std 1619), any case. They differ in how the tweak is
            multiplied by alpha between blocks.

    Returns:
        bytes: the plaintext, ``len(data)`` bytes.

    Raises:
        InvalidLength: ``key`` is not 32 bytes, ``tweak`` not 16, or ``data`` shorter
            than 16.
        InvalidKey: the two key halves are equal.
        InvalidArgument: unknown ``standard``.
        TypeError: an argument has the wrong type.

    Example:
        >>> from guomi._native import sm4
        >>> k, t = bytes(range(32)), bytes(16)
        >>> sm4.xts_decrypt(k, t, sm4.xts_encrypt(k, t, b"x" * 20, "gb"), "gb")
        b'xxxxxxxxxxxxxxxxxxxx'
    """

def mac(key: BytesLike, data: BytesLike, variant: str, padding: Optional[str], tag_length: int) -> bytes:
    """One-shot SM4 MAC (the GIL is released from 2 KiB on); the facade's ``cbc_mac`` and
    ``cmac`` call it.

    Args:
        key: 16 bytes, or 32 bytes (K || K') for ``emac``, ``ansi-retail``, ``mac-des``.
        data: the message, any bytes-like object.
        variant: ``"cbc-mac"``, ``"emac"``, ``"ansi-retail"``, ``"mac-des"``, ``"lmac"``,
            ``"tr-cbc-mac"``, ``"cbcr-mac"`` or ``"cmac"``.
        padding: ``"iso9797-m1"``, ``"iso9797-m2"`` (default) or ``"iso9797-m3"``; must
            be ``None`` for ``tr-cbc-mac``, ``cbcr-mac`` and ``cmac``.
        tag_length: the tag length in bytes, 8 to 16 (default 16).

    Returns:
        bytes: the ``tag_length``-byte tag.

    Raises:
        InvalidLength: ``key`` has the wrong length for ``variant``.
        InvalidArgument: unknown ``variant``/``padding``, a padding for a fixed-padding
            variant, or ``tag_length`` outside 8..16.
        OverflowError: ``tag_length`` is negative.
        TypeError: ``key`` or ``data`` is not bytes-like.

    Example:
        >>> from guomi._native import sm4
        >>> sm4.mac(bytes(16), b"abc", "cmac", None, 16).hex()
        'f0f66a587bd5d260be760d355bfd3197'
    """

@final
class CBCMAC:
    """A streaming GB/T 15852.1-2020 (ISO/IEC 9797-1:2011) block-cipher MAC with SM4.

    ``update(data)`` any number of times, then ``finalize()`` (the tag) or
    ``verify(tag)``; either ends the object (later calls raise ``AlreadyFinalized``).
    ``copy()`` first to MAC a common prefix once. Chunking never changes the tag.

    Args:
        key: 16 bytes, or 32 bytes (K || K') for ``emac``, ``ansi-retail``, ``mac-des``.
        variant: ``"cbc-mac"`` (algorithm 1, default), ``"emac"`` (2), ``"ansi-retail"``
            (3), ``"mac-des"`` (4), ``"lmac"`` (6), ``"tr-cbc-mac"`` (7), ``"cbcr-mac"``
            (8) or ``"cmac"`` (5, as ``CMAC``).
        padding: ``"iso9797-m1"``, ``"iso9797-m2"`` (default) or ``"iso9797-m3"``; must
            be ``None`` for ``tr-cbc-mac``, ``cbcr-mac`` and ``cmac`` (fixed padding).
        tag_length: the tag length in bytes, 8 to 16 (default 16), fixed here for both
            ``finalize`` and ``verify``.
        length: the total message length in bytes, 0 to 2**64 - 1; required for
            ``iso9797-m3`` (its first block holds the length) and then checked by
            ``finalize``/``verify``; optional otherwise (checked when given).

    Raises:
        InvalidLength: ``key`` has the wrong length for ``variant``.
        InvalidArgument: unknown ``variant``/``padding``, a padding for a fixed-padding
            variant, ``iso9797-m3`` without ``length``, or ``tag_length`` outside 8..16.
        OverflowError: ``tag_length`` or ``length`` is negative (or ``length`` is
            2**64 or more).
        TypeError: ``key`` is not bytes-like.

    Example:
        >>> from guomi import sm4
        >>> m = sm4.CBCMAC(bytes(16), variant="cbc-mac", padding="iso9797-m2")
        >>> m.update(b"ab")
        >>> m.update(b"c")
        >>> m.finalize() == sm4.cbc_mac(bytes(16), b"abc")
        True
    """
    def __new__(
        cls,
        key: BytesLike,
        *,
        variant: str = "cbc-mac",
        padding: Optional[str] = None,
        tag_length: int = 16,
        length: Optional[int] = None,
    ) -> CBCMAC: ...
    def update(self, data: BytesLike) -> None:
        """Feeds ``data`` to the MAC (the GIL is released from 2 KiB on).

        Args:
            data: any bytes-like object, any length.

        Returns:
            None.

        Raises:
            AlreadyFinalized: ``finalize()`` or ``verify()`` was called.
            TypeError: ``data`` is not bytes-like.

        Example:
            >>> from guomi import sm4
            >>> m = sm4.CBCMAC(bytes(16))
            >>> m.update(b"message")
        """
    def finalize(self) -> bytes:
        """Ends the message and returns the tag.

        Returns:
            bytes: the ``tag_length``-byte tag.

        Raises:
            AlreadyFinalized: called a second time (or after ``verify``).
            InvalidArgument: a declared ``length`` differs from the data fed.

        Example:
            >>> from guomi import sm4
            >>> m = sm4.CBCMAC(bytes(32), variant="emac", tag_length=8)
            >>> m.update(b"message")
            >>> len(m.finalize())
            8
        """
    def verify(self, tag: BytesLike) -> bool:
        """Ends the message and compares ``tag`` with the tag in constant time.

        The length compared is the ``tag_length`` fixed at construction, never taken
        from ``tag``: a shorter ``tag`` (even a correct prefix) is ``False``.

        Args:
            tag: the tag to check, any bytes-like object.

        Returns:
            bool: ``True`` if ``tag`` matches, ``False`` otherwise (any other length too).

        Raises:
            AlreadyFinalized: ``finalize()`` or ``verify()`` was called.
            InvalidArgument: a declared ``length`` differs from the data fed.
            TypeError: ``tag`` is not bytes-like.

        Example:
            >>> from guomi import sm4
            >>> tag = sm4.cbc_mac(bytes(16), b"message", variant="lmac")
            >>> m = sm4.CBCMAC(bytes(16), variant="lmac")
            >>> m.update(b"message")
            >>> m.copy().verify(tag[:8]), m.verify(tag)
            (False, True)
        """
    def copy(self) -> CBCMAC:
        """An independent copy of the current state (to MAC a common prefix once).

        Returns:
            CBCMAC: the copy; updating one does not affect the other.

        Example:
            >>> from guomi import sm4
            >>> a = sm4.CBCMAC(bytes(16))
            >>> a.update(b"mess")
            >>> b = a.copy()
            >>> b.update(b"age")
            >>> b.finalize() == sm4.cbc_mac(bytes(16), b"message")
            True
        """
    @property
    def variant(self) -> str:
        """The variant name, e.g. ``"cbc-mac"``.

        Example:
            >>> from guomi import sm4
            >>> sm4.CBCMAC(bytes(32), variant="mac-des").variant
            'mac-des'
        """
    @property
    def tag_length(self) -> int:
        """The tag length in bytes fixed at construction.

        Example:
            >>> from guomi import sm4
            >>> sm4.CBCMAC(bytes(16), tag_length=12).tag_length
            12
        """

@final
class CMAC:
    """A streaming CMAC (NIST SP 800-38B; GB/T 15852.1-2020 algorithm 5) with SM4.

    ``update(data)`` any number of times, then ``finalize()`` (the tag) or
    ``verify(tag)``; either ends the object (later calls raise ``AlreadyFinalized``).
    ``copy()`` first to MAC a common prefix once.

    Args:
        key: the 16-byte key.
        tag_length: the tag length in bytes, 8 to 16 (default 16), fixed here for both
            ``finalize`` and ``verify``.

    Raises:
        InvalidLength: ``key`` is not 16 bytes.
        InvalidArgument: ``tag_length`` is outside 8..16.
        OverflowError: ``tag_length`` is negative.
        TypeError: ``key`` is not bytes-like.

    Example:
        >>> from guomi import sm4
        >>> m = sm4.CMAC(bytes(16))
        >>> m.update(b"abc")
        >>> m.finalize().hex()
        'f0f66a587bd5d260be760d355bfd3197'
    """
    def __new__(cls, key: BytesLike, *, tag_length: int = 16) -> CMAC: ...
    def update(self, data: BytesLike) -> None:
        """Feeds ``data`` to the MAC (the GIL is released from 2 KiB on).

        Args:
            data: any bytes-like object, any length.

        Returns:
            None.

        Raises:
            AlreadyFinalized: ``finalize()`` or ``verify()`` was called.
            TypeError: ``data`` is not bytes-like.

        Example:
            >>> from guomi import sm4
            >>> m = sm4.CMAC(bytes(16))
            >>> m.update(b"message")
        """
    def finalize(self) -> bytes:
        """Ends the message and returns the tag.

        Returns:
            bytes: the ``tag_length``-byte tag.

        Raises:
            AlreadyFinalized: called a second time (or after ``verify``).

        Example:
            >>> from guomi import sm4
            >>> m = sm4.CMAC(bytes(16), tag_length=8)
            >>> m.update(b"message")
            >>> m.finalize() == sm4.cmac(bytes(16), b"message")[:8]
            True
        """
    def verify(self, tag: BytesLike) -> bool:
        """Ends the message and compares ``tag`` with the tag in constant time.

        The length compared is the ``tag_length`` fixed at construction, never taken
        from ``tag``: a shorter ``tag`` (even a correct prefix) is ``False``.

        Args:
            tag: the tag to check, any bytes-like object.

        Returns:
            bool: ``True`` if ``tag`` matches, ``False`` otherwise (any other length too).

        Raises:
            AlreadyFinalized: ``finalize()`` or ``verify()`` was called.
            TypeError: ``tag`` is not bytes-like.

        Example:
            >>> from guomi import sm4
            >>> tag = sm4.cmac(bytes(16), b"message")
            >>> m = sm4.CMAC(bytes(16))
            >>> m.update(b"message")
            >>> m.copy().verify(tag[:8]), m.verify(tag)
            (False, True)
        """
    def copy(self) -> CMAC:
        """An independent copy of the current state (to MAC a common prefix once).

        Returns:
            CMAC: the copy; updating one does not affect the other.

        Example:
            >>> from guomi import sm4
            >>> a = sm4.CMAC(bytes(16))
            >>> a.update(b"mess")
            >>> b = a.copy()
            >>> b.update(b"age")
            >>> b.finalize() == sm4.cmac(bytes(16), b"message")
            True
        """
    @property
    def tag_length(self) -> int:
        """The tag length in bytes fixed at construction.

        Example:
            >>> from guomi import sm4
            >>> sm4.CMAC(bytes(16), tag_length=12).tag_length
            12
        """
