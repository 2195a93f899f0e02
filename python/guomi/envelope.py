"""The guomi envelope: encrypt data of any size, streaming, in constant memory.

An envelope is a header (magic ``GUOMIENV``, format version, key type, chunk size, a
random salt and the key-encapsulation data) followed by SM4-GCM chunks (64 KiB of
plaintext each by default). The content key is HKDF-SM3 of the encapsulated secret,
bound to the whole header; each chunk's nonce carries its index and a last-chunk flag, so
truncation, reordering, splicing and tampering are all detected, and only verified
plaintext is ever returned. The byte layout is specified in docs/envelope.md.

Recipients: a raw 16-byte SM4 ``key`` shared out of band, a ``password``
(PBKDF2-HMAC-SM3, ``iterations`` stored in the header: 1 to :data:`MAX_ITERATIONS`, also
when reading, so a hostile header cannot stall the opener), an SM2 public key
(``recipient=sm2_public_key``; opened with ``private_key=sm2_private_key``: SM2 KEM per
GB/T 32918.4) or an SM9 identity (``recipient=sm9_enc_master_public_key,
user_id=b"bob"``; opened with ``private_key=bob_sm9_enc_user_key``: SM9 KEM per GM/T 0044
Part 4). The KEM ciphertext goes in the header and its 32-byte key is the secret.

>>> import guomi.envelope as env
>>> sealed = env.seal(b"attack at dawn", key=bytes(16))
>>> env.open(sealed, key=bytes(16))
b'attack at dawn'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

from guomi._fileio import PathLike, transform_file
from guomi._native import envelope as _env
from guomi._typing import BytesLike
from guomi.exceptions import AlreadyFinalized, InvalidArgument

if TYPE_CHECKING:
    from guomi import sm2, sm9

    Recipient = Union[sm2.PublicKey, sm9.EncMasterPublicKey]
    PrivateKey = Union[sm2.PrivateKey, sm9.EncUserKey]

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_ITERATIONS",
    "MAGIC",
    "MAX_CHUNK_SIZE",
    "MAX_ITERATIONS",
    "MIN_CHUNK_SIZE",
    "Opener",
    "Sealer",
    "open",
    "open_file",
    "seal",
    "seal_file",
]

#: The 8 bytes every envelope starts with: ``b"GUOMIENV"``.
MAGIC: bytes = _env.MAGIC
#: Plaintext bytes per chunk unless told otherwise (a power of two, 1 KiB to 16 MiB).
DEFAULT_CHUNK_SIZE = 1 << 16
#: Smallest and largest chunk sizes (1 KiB and 16 MiB).
MIN_CHUNK_SIZE: int = 1 << _env.MIN_CHUNK_LOG2
MAX_CHUNK_SIZE: int = 1 << _env.MAX_CHUNK_LOG2
#: PBKDF2-HMAC-SM3 iterations for password envelopes unless told otherwise.
DEFAULT_ITERATIONS = 100_000
#: Largest PBKDF2 iteration count written or read (10 000 000; the bound shared with
#: encrypted PKCS#8 keys and :func:`guomi.sm3.pbkdf2_hmac`).
MAX_ITERATIONS: int = _env.MAX_ITERATIONS


def _chunk_log2(chunk_size: int) -> int:
    if not MIN_CHUNK_SIZE <= chunk_size <= MAX_CHUNK_SIZE or chunk_size & (chunk_size - 1):
        raise InvalidArgument("chunk_size must be a power of two (1 KiB to 16 MiB)")
    return chunk_size.bit_length() - 1


def _iterations(iterations: int) -> int:
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise InvalidArgument(f"iterations must be 1 to {MAX_ITERATIONS}")
    return iterations


class Sealer:
    """Streaming encryption into an envelope: ``update(data) -> bytes`` any number of
    times, then ``finalize() -> bytes`` once; the concatenated outputs are the envelope.

    Args:
        key: a raw SM4 key shared out of band, bytes-like, 16 bytes.
        password: a password, bytes-like (PBKDF2-HMAC-SM3 with ``iterations``).
        recipient: an :class:`guomi.sm2.PublicKey`, or an
            :class:`guomi.sm9.EncMasterPublicKey` together with ``user_id``.
        user_id: the SM9 recipient's identity, bytes-like (SM9 recipients only).
        iterations: PBKDF2 iterations for ``password``, 1 to :data:`MAX_ITERATIONS`
            (default :data:`DEFAULT_ITERATIONS`).
        chunk_size: plaintext bytes per chunk, a power of two from
            :data:`MIN_CHUNK_SIZE` to :data:`MAX_CHUNK_SIZE` (default 64 KiB).

    Give exactly one of ``key``, ``password`` and ``recipient``.

    Raises:
        TypeError: not exactly one of ``key``/``password``/``recipient``, a recipient of
            another type, or ``user_id`` missing for SM9 (or given otherwise).
        InvalidArgument: ``iterations`` or ``chunk_size`` out of range.
        InvalidLength: ``key`` is not 16 bytes.
        RandomnessError: the OS random generator failed.

    Example:
        >>> from guomi import envelope
        >>> s = envelope.Sealer(key=bytes(16))
        >>> sealed = s.update(b"part 1, ") + s.update(b"part 2") + s.finalize()
        >>> envelope.open(sealed, key=bytes(16))
        b'part 1, part 2'
    """

    def __init__(
        self,
        *,
        key: Optional[BytesLike] = None,
        password: Optional[BytesLike] = None,
        recipient: Optional[Recipient] = None,
        user_id: Optional[BytesLike] = None,
        iterations: int = DEFAULT_ITERATIONS,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ) -> None:
        log2 = _chunk_log2(chunk_size)
        if sum(x is not None for x in (key, password, recipient)) != 1:
            raise TypeError("give exactly one of key=, password= or recipient=")
        from guomi import sm2, sm9

        if isinstance(recipient, sm9.EncMasterPublicKey):
            if user_id is None:
                raise TypeError("an SM9 recipient needs user_id=")
            self._native = _env.Sealer.with_sm9(recipient, user_id, log2)
            user_id = None
        elif isinstance(recipient, sm2.PublicKey):
            self._native = _env.Sealer.with_sm2(recipient, log2)
        elif recipient is not None:
            raise TypeError("recipient must be a guomi.sm2.PublicKey or guomi.sm9.EncMasterPublicKey")
        elif key is not None:
            self._native = _env.Sealer.with_key(key, log2)
        else:
            assert password is not None
            self._native = _env.Sealer.with_password(password, _iterations(iterations), log2)
        if user_id is not None:
            raise TypeError("user_id= goes with an SM9 recipient only")
        self._done = False

    def update(self, data: BytesLike) -> bytes:
        """Encrypts the next piece of plaintext.

        Args:
            data: bytes-like, any length.

        Returns:
            bytes: the envelope bytes ready so far (the header first, then whole
            chunks); may be empty.

        Raises:
            AlreadyFinalized: :meth:`finalize` was already called.

        Example:
            >>> from guomi import envelope
            >>> envelope.Sealer(key=bytes(16)).update(b"x")[:8]
            b'GUOMIENV'
        """
        if self._done:
            raise AlreadyFinalized("sealer already finalized")
        return self._native.update(data)

    def finalize(self) -> bytes:
        """Writes the last chunk; the sealer cannot be used afterwards.

        Returns:
            bytes: the rest of the envelope.

        Raises:
            AlreadyFinalized: called a second time.

        Example:
            >>> from guomi import envelope
            >>> s = envelope.Sealer(key=bytes(16))
            >>> len(s.update(b"x") + s.finalize()) > 16
            True
        """
        if self._done:
            raise AlreadyFinalized("sealer already finalized")
        self._done = True
        return self._native.finalize()


class Opener:
    """Streaming decryption of an envelope: ``update(data) -> bytes`` (verified
    plaintext only) any number of times, then ``finalize() -> bytes`` once.

    A header whose numbers are out of range (a chunk size outside 1 KiB to 16 MiB, a
    password iteration count outside 1 to :data:`MAX_ITERATIONS`) raises
    :class:`~guomi.exceptions.UnsupportedFormat` before any key derivation.

    Args:
        key: the 16-byte SM4 key, bytes-like.
        password: the password, bytes-like.
        private_key: an :class:`guomi.sm2.PrivateKey` or :class:`guomi.sm9.EncUserKey`.

    Give exactly one of them.

    Raises:
        TypeError: not exactly one of ``key``/``password``/``private_key``, or a
            private key of another type.
        InvalidLength: ``key`` is not 16 bytes.

    Example:
        >>> from guomi import envelope
        >>> sealed = envelope.seal(b"data", password=b"pw", iterations=1000)
        >>> o = envelope.Opener(password=b"pw")
        >>> o.update(sealed[:10]) + o.update(sealed[10:]) + o.finalize()
        b'data'
    """

    def __init__(
        self,
        *,
        key: Optional[BytesLike] = None,
        password: Optional[BytesLike] = None,
        private_key: Optional[PrivateKey] = None,
    ) -> None:
        if sum(x is not None for x in (key, password, private_key)) != 1:
            raise TypeError("give exactly one of key=, password= or private_key=")
        from guomi import sm2, sm9

        if isinstance(private_key, sm9.EncUserKey):
            self._native = _env.Opener.with_sm9(private_key)
        elif isinstance(private_key, sm2.PrivateKey):
            self._native = _env.Opener.with_sm2(private_key)
        elif private_key is not None:
            raise TypeError("private_key must be a guomi.sm2.PrivateKey or guomi.sm9.EncUserKey")
        elif key is not None:
            self._native = _env.Opener.with_key(key)
        else:
            assert password is not None
            self._native = _env.Opener.with_password(password)
        self._done = False

    def update(self, data: BytesLike) -> bytes:
        """Consumes the next envelope bytes (any split works).

        Args:
            data: bytes-like, any length.

        Returns:
            bytes: the plaintext of the chunks verified so far; may be empty.

        Raises:
            UnsupportedFormat: not a guomi envelope, or a header number out of range.
            DecryptionError: wrong key, password or private key, or changed bytes.
            AlreadyFinalized: :meth:`finalize` was already called.

        Example:
            >>> from guomi import envelope
            >>> sealed = envelope.seal(b"data", key=bytes(16))
            >>> envelope.Opener(key=bytes(16)).update(sealed)
            b''
        """
        if self._done:
            raise AlreadyFinalized("opener already finalized")
        return self._native.update(data)

    def finalize(self) -> bytes:
        """Verifies the last chunk and returns its plaintext; the opener cannot be used
        afterwards.

        Returns:
            bytes: the remaining plaintext.

        Raises:
            DecryptionError: the envelope is truncated or its last chunk does not verify
                (also a wrong key or password when the envelope has a single chunk).
            AlreadyFinalized: called a second time.

        Example:
            >>> from guomi import envelope
            >>> sealed = envelope.seal(b"data", key=bytes(16))
            >>> o = envelope.Opener(key=bytes(16))
            >>> o.update(sealed[:-1]) + o.finalize()
            Traceback (most recent call last):
            ...
            guomi.exceptions.DecryptionError: decryption failed
        """
        if self._done:
            raise AlreadyFinalized("opener already finalized")
        self._done = True
        return self._native.finalize()


def seal(
    data: BytesLike,
    *,
    key: Optional[BytesLike] = None,
    password: Optional[BytesLike] = None,
    recipient: Optional[Recipient] = None,
    user_id: Optional[BytesLike] = None,
    iterations: int = DEFAULT_ITERATIONS,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> bytes:
    """The envelope of ``data``, in one call.

    Args:
        data: bytes-like plaintext.
        key, password, recipient, user_id, iterations, chunk_size: as :class:`Sealer`.

    Returns:
        bytes: the envelope.

    Raises:
        TypeError, InvalidArgument, InvalidLength, RandomnessError: as :class:`Sealer`.

    Example:
        >>> from guomi import envelope, sm2
        >>> key = sm2.PrivateKey.generate()
        >>> sealed = envelope.seal(b"hi", recipient=key.public_key())
        >>> envelope.open(sealed, private_key=key)
        b'hi'
    """
    s = Sealer(
        key=key,
        password=password,
        recipient=recipient,
        user_id=user_id,
        iterations=iterations,
        chunk_size=chunk_size,
    )
    return s.update(data) + s.finalize()


def open(  # noqa: A001 - the natural name in this namespace
    envelope: BytesLike,
    *,
    key: Optional[BytesLike] = None,
    password: Optional[BytesLike] = None,
    private_key: Optional[PrivateKey] = None,
) -> bytes:
    """The plaintext of ``envelope``, in one call.

    Args:
        envelope: bytes-like, a whole envelope.
        key, password, private_key: as :class:`Opener`.

    Returns:
        bytes: the plaintext (nothing is returned unless every chunk verifies).

    Raises:
        DecryptionError: tampering, truncation, or a wrong key or password.
        UnsupportedFormat: not a guomi envelope, or a header number out of range.
        TypeError, InvalidLength: as :class:`Opener`.

    Example:
        >>> from guomi import envelope
        >>> envelope.open(envelope.seal(b"hi", key=bytes(16)), key=bytes(16))
        b'hi'
    """
    o = Opener(key=key, password=password, private_key=private_key)
    return o.update(envelope) + o.finalize()


def seal_file(
    src: PathLike,
    dst: PathLike,
    *,
    key: Optional[BytesLike] = None,
    password: Optional[BytesLike] = None,
    recipient: Optional[Recipient] = None,
    user_id: Optional[BytesLike] = None,
    iterations: int = DEFAULT_ITERATIONS,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    force: bool = False,
) -> None:
    """Encrypts file ``src`` into the envelope file ``dst``, in constant memory.

    ``dst`` is written atomically: a temporary file beside it is renamed over it only
    when everything succeeded.

    Args:
        src: path of the plaintext file.
        dst: path of the envelope to write.
        key, password, recipient, user_id, iterations, chunk_size: as :class:`Sealer`.
        force: replace an existing ``dst`` (default ``False``).

    Raises:
        FileExistsError: ``dst`` exists and ``force`` is false.
        ValueError: ``dst`` is ``src``.
        OSError: reading or writing failed.
        TypeError, InvalidArgument, InvalidLength: as :class:`Sealer`.

    Example:
        >>> import os, tempfile
        >>> from guomi import envelope
        >>> d = tempfile.mkdtemp()
        >>> src, dst = os.path.join(d, "a"), os.path.join(d, "a.env")
        >>> with open(src, "wb") as f:
        ...     _ = f.write(b"file data")
        >>> envelope.seal_file(src, dst, key=bytes(16))
        >>> with open(dst, "rb") as f:
        ...     envelope.open(f.read(), key=bytes(16))
        b'file data'
    """
    stream = Sealer(
        key=key,
        password=password,
        recipient=recipient,
        user_id=user_id,
        iterations=iterations,
        chunk_size=chunk_size,
    )
    transform_file(src, dst, stream, force=force)


def open_file(
    src: PathLike,
    dst: PathLike,
    *,
    key: Optional[BytesLike] = None,
    password: Optional[BytesLike] = None,
    private_key: Optional[PrivateKey] = None,
    force: bool = False,
) -> None:
    """Decrypts the envelope file ``src`` into ``dst``, in constant memory.

    Atomic: on any failure (tampering, truncation, wrong key) ``dst`` is not created, or
    left as it was.

    Args:
        src: path of the envelope.
        dst: path of the plaintext file to write.
        key, password, private_key: as :class:`Opener`.
        force: replace an existing ``dst`` (default ``False``).

    Raises:
        DecryptionError: tampering, truncation, or a wrong key or password.
        UnsupportedFormat: not a guomi envelope.
        FileExistsError: ``dst`` exists and ``force`` is false.
        ValueError: ``dst`` is ``src``.
        OSError: reading or writing failed.

    Example:
        >>> import os, tempfile
        >>> from guomi import envelope
        >>> d = tempfile.mkdtemp()
        >>> src, dst = os.path.join(d, "a.env"), os.path.join(d, "a")
        >>> with open(src, "wb") as f:
        ...     _ = f.write(envelope.seal(b"file data", key=bytes(16)))
        >>> envelope.open_file(src, dst, key=bytes(16))
        >>> with open(dst, "rb") as f:
        ...     f.read()
        b'file data'
    """
    transform_file(src, dst, Opener(key=key, password=password, private_key=private_key), force=force)
