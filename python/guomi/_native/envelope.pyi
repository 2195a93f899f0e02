"""The streaming guomi envelope: SM4-GCM chunks under a key, a password, SM2 or SM9
(see `guomi.envelope`).
"""

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
    """Streaming encryption into a guomi envelope (the engine of `guomi.envelope.Sealer`;
    use that). Made by one of the static constructors; `update` then `finalize` once.

    Example:
        >>> from guomi._native.envelope import Opener, Sealer
        >>> s = Sealer.with_key(bytes(16), 16)
        >>> env = s.update(b"data") + s.finalize()
        >>> o = Opener.with_key(bytes(16))
        >>> o.update(env) + o.finalize()
        b'data'
    """
    @staticmethod
    def with_key(key: BytesLike, chunk_log2: int) -> Sealer:
        """A sealer for a raw SM4 key shared out of band.

        Args:
            key: bytes-like, 16 bytes.
            chunk_log2: log2 of the plaintext chunk size, `MIN_CHUNK_LOG2` (10) to
                `MAX_CHUNK_LOG2` (24).

        Returns:
            Sealer: the sealer.

        Raises:
            InvalidLength: `key` is not 16 bytes.
            InvalidArgument: `chunk_log2` out of range.
            OverflowError: `chunk_log2` is negative or above 255.
            RandomnessError: the OS random generator failed (salt).

        Example:
            >>> from guomi._native.envelope import Sealer
            >>> s = Sealer.with_key(bytes(16), 10)
            >>> (s.update(b"x") + s.finalize())[:8]
            b'GUOMIENV'
        """
    @staticmethod
    def with_password(password: BytesLike, iterations: int, chunk_log2: int) -> Sealer:
        """A sealer for a password: the secret is PBKDF2-HMAC-SM3(password, salt, iterations), the
        iteration count stored in the header. Runs PBKDF2 now, without the GIL.

        Args:
            password: bytes-like, any length.
            iterations: 1 to `MAX_ITERATIONS` (10000000).
            chunk_log2: 10 to 24, as `with_key`.

        Returns:
            Sealer: the sealer.

        Raises:
            InvalidArgument: `iterations` or `chunk_log2` out of range.
            OverflowError: a negative number.
            RandomnessError: the OS random generator failed.

        Example:
            >>> from guomi._native.envelope import Opener, Sealer
            >>> s = Sealer.with_password(b"pw", 1000, 10)
            >>> env = s.update(b"x") + s.finalize()
            >>> o = Opener.with_password(b"pw")
            >>> o.update(env) + o.finalize()
            b'x'
        """
    @staticmethod
    def with_sm2(public_key: sm2.PublicKey, chunk_log2: int) -> Sealer:
        """A sealer to an SM2 public key: SM2 KEM (GB/T 32918.4) of a 32-byte secret, its C1 in
        the header.

        Args:
            public_key: the recipient's `guomi.sm2.PublicKey`.
            chunk_log2: 10 to 24, as `with_key`.

        Returns:
            Sealer: the sealer.

        Raises:
            InvalidArgument: `chunk_log2` out of range.
            RandomnessError: the OS random generator failed.

        Example:
            >>> from guomi import sm2
            >>> from guomi._native.envelope import Opener, Sealer
            >>> key = sm2.PrivateKey.generate()
            >>> s = Sealer.with_sm2(key.public_key(), 10)
            >>> env = s.update(b"x") + s.finalize()
            >>> o = Opener.with_sm2(key)
            >>> o.update(env) + o.finalize()
            b'x'
        """
    @staticmethod
    def with_sm9(master_public_key: sm9.EncMasterPublicKey, user_id: BytesLike, chunk_log2: int) -> Sealer:
        """A sealer to the SM9 identity `user_id`: SM9 KEM (GM/T 0044 part 4) of a 32-byte
        secret, its ciphertext in the header.

        Args:
            master_public_key: the KGC's `guomi.sm9.EncMasterPublicKey`.
            user_id: the recipient's identity, bytes-like.
            chunk_log2: 10 to 24, as `with_key`.

        Returns:
            Sealer: the sealer.

        Raises:
            InvalidArgument: `chunk_log2` out of range.
            RandomnessError: the OS random generator failed.

        Example:
            >>> from guomi import sm9
            >>> from guomi._native.envelope import Opener, Sealer
            >>> master = sm9.EncMasterKey.generate()
            >>> s = Sealer.with_sm9(master.public_key(), b"bob", 10)
            >>> env = s.update(b"x") + s.finalize()
            >>> o = Opener.with_sm9(master.extract(b"bob"))
            >>> o.update(env) + o.finalize()
            b'x'
        """
    def update(self, data: BytesLike) -> bytes:
        """Encrypts the next piece of plaintext.

        Args:
            data: bytes-like, any length.

        Returns:
            bytes: the envelope bytes ready so far (the header first, then whole chunks);
            may be empty.

        Raises:
            AlreadyFinalized: `finalize` was already called.

        Example:
            >>> from guomi._native.envelope import Sealer
            >>> Sealer.with_key(bytes(16), 10).update(b"x")[:8]
            b'GUOMIENV'
        """
    def finalize(self) -> bytes:
        """Writes the last chunk (flagged as last, possibly empty); the sealer cannot be used
        afterwards.

        Returns:
            bytes: the rest of the envelope.

        Raises:
            AlreadyFinalized: called a second time.

        Example:
            >>> from guomi._native.envelope import Sealer
            >>> s = Sealer.with_key(bytes(16), 10)
            >>> len(s.update(b"") + s.finalize()) > 16
            True
        """

@final
class Opener:
    """Streaming decryption of a guomi envelope (the engine of `guomi.envelope.Opener`; use
    that). Returns only verified plaintext; made by one of the static constructors.

    Example:
        >>> from guomi._native.envelope import Opener, Sealer
        >>> s = Sealer.with_key(bytes(16), 10)
        >>> env = s.update(b"data") + s.finalize()
        >>> o = Opener.with_key(bytes(16))
        >>> o.update(env) + o.finalize()
        b'data'
    """
    @staticmethod
    def with_key(key: BytesLike) -> Opener:
        """An opener for envelopes sealed with a raw 16-byte SM4 key.

        Args:
            key: bytes-like, 16 bytes.

        Returns:
            Opener: the opener (an envelope of another key type fails with
            `DecryptionError`).

        Raises:
            InvalidLength: `key` is not 16 bytes.

        Example:
            >>> from guomi._native.envelope import Opener
            >>> o = Opener.with_key(bytes(16))
        """
    @staticmethod
    def with_password(password: BytesLike) -> Opener:
        """An opener for password envelopes. PBKDF2 runs when the header arrives, with the
        header's iteration count (refused beyond `MAX_ITERATIONS` before any work).

        Args:
            password: bytes-like.

        Returns:
            Opener: the opener.

        Example:
            >>> from guomi._native.envelope import Opener
            >>> o = Opener.with_password(b"pw")
        """
    @staticmethod
    def with_sm2(private_key: sm2.PrivateKey) -> Opener:
        """An opener for envelopes sealed to this SM2 key's public key.

        Args:
            private_key: the recipient's `guomi.sm2.PrivateKey` (d is copied in Rust memory
                only, zeroized when the opener is freed).

        Returns:
            Opener: the opener.

        Example:
            >>> from guomi import sm2
            >>> from guomi._native.envelope import Opener
            >>> o = Opener.with_sm2(sm2.PrivateKey.generate())
        """
    @staticmethod
    def with_sm9(user_key: sm9.EncUserKey) -> Opener:
        """An opener for envelopes sealed to this SM9 user key's identity.

        Args:
            user_key: the recipient's `guomi.sm9.EncUserKey`.

        Returns:
            Opener: the opener.

        Example:
            >>> from guomi import sm9
            >>> from guomi._native.envelope import Opener
            >>> o = Opener.with_sm9(sm9.EncMasterKey.generate().extract(b"bob"))
        """
    def update(self, data: BytesLike) -> bytes:
        """Consumes the next envelope bytes.

        Args:
            data: bytes-like, any length (any split of the envelope works).

        Returns:
            bytes: the plaintext of the chunks verified so far; may be empty.

        Raises:
            UnsupportedFormat: not a guomi envelope, an unknown version or key type, or a
                header number out of range (chunk size, iterations).
            DecryptionError: wrong key or password, or changed bytes.
            AlreadyFinalized: `finalize` was already called.

        Example:
            >>> from guomi._native.envelope import Opener, Sealer
            >>> s = Sealer.with_key(bytes(16), 10)
            >>> env = s.update(b"x" * 3000) + s.finalize()
            >>> len(Opener.with_key(bytes(16)).update(env))
            2048
        """
    def finalize(self) -> bytes:
        """Verifies the last chunk and returns its plaintext; the opener cannot be used
        afterwards.

        Returns:
            bytes: the remaining plaintext.

        Raises:
            DecryptionError: the envelope is truncated (no last chunk), has trailing bytes,
                or its last chunk does not verify (e.g. a wrong key or password: a short
                envelope's only chunk is checked here).
            AlreadyFinalized: called a second time.

        Example:
            >>> from guomi._native.envelope import Opener, Sealer
            >>> s = Sealer.with_key(bytes(16), 10)
            >>> env = s.update(b"data") + s.finalize()
            >>> o = Opener.with_key(bytes(16))
            >>> o.update(env), o.finalize()
            (b'', b'data')
        """
