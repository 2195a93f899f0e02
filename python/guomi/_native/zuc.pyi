"""ZUC stream cipher (GB/T 33133), 128-EEA3/128-EIA3 and ZUC-256 (see `guomi.zuc`)."""

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
    """A streaming ZUC keystream generator: ZUC-128 (GM/T 0001-2012) for a 16-byte key,
    ZUC-256 for a 32-byte key.

    ``update(data)`` returns ``data`` XOR the next ``len(data)`` keystream bytes
    (encryption and decryption alike); ``keystream(n)`` returns the next ``n`` bytes.
    Chunking never changes the result. ``finalize()`` wipes the state; every later call
    raises ``AlreadyFinalized``. Never use one (key, iv) for two messages.

    Args:
        key: 16 bytes (ZUC-128) or 32 bytes (ZUC-256).
        iv: 16 bytes for ZUC-128; 25 or 23 (packed) bytes for ZUC-256.

    Raises:
        InvalidLength: ``key`` is not 16 or 32 bytes, or ``iv`` has the wrong length
            for it.
        InvalidArgument: a 25-byte ZUC-256 ``iv`` with a byte 17..24 of 64 or more.
        TypeError: ``key`` or ``iv`` is not bytes-like.

    Example:
        >>> from guomi.zuc import ZUC
        >>> z = ZUC(bytes(16), bytes(16))
        >>> z.keystream(3).hex() + z.keystream(5).hex()
        '27bede74018082da'
    """
    def __new__(cls, key: BytesLike, iv: BytesLike) -> ZUC: ...
    def update(self, data: BytesLike) -> bytes:
        """``data`` XOR the next ``len(data)`` keystream bytes (the GIL is released from
        2 KiB on).

        Args:
            data: any bytes-like object, any length.

        Returns:
            bytes: ``len(data)`` bytes.

        Raises:
            AlreadyFinalized: ``finalize()`` was called.
            TypeError: ``data`` is not bytes-like.

        Example:
            >>> from guomi.zuc import ZUC
            >>> ct = ZUC(bytes(16), bytes(16)).update(b"hello")
            >>> ZUC(bytes(16), bytes(16)).update(ct)
            b'hello'
        """
    def keystream(self, nbytes: int) -> bytes:
        """The next ``nbytes`` keystream bytes.

        Args:
            nbytes: 0 to 2**29 (512 MiB) per call, checked before allocating.

        Returns:
            bytes: ``nbytes`` bytes.

        Raises:
            InvalidArgument: ``nbytes`` is over 2**29.
            OverflowError: ``nbytes`` is negative.
            AlreadyFinalized: ``finalize()`` was called.

        Example:
            >>> from guomi.zuc import ZUC
            >>> ZUC(bytes(16), bytes(16)).keystream(4).hex()
            '27bede74'
        """
    def finalize(self) -> bytes:
        """Ends the stream and wipes the state.

        Returns:
            bytes: always ``b""``.

        Raises:
            AlreadyFinalized: called a second time.

        Example:
            >>> from guomi.zuc import ZUC
            >>> ZUC(bytes(16), bytes(16)).finalize()
            b''
        """

@final
class EEA3:
    """A 128-EEA3 encryptor bound to one key that refuses keystream reuse.

    EEA3 is a stream cipher: its keystream depends only on (key, COUNT, BEARER,
    DIRECTION). Encrypting two messages with the same four values gives an attacker
    ``P1 XOR P2``, often enough to recover both. ``encrypt`` remembers every (count,
    bearer, direction) it has encrypted under, for the object's lifetime, and raises
    ``KeystreamReuse`` on a second encryption under the same triple, before producing
    any output; invalid arguments do not use up a triple. ``decrypt`` is never
    restricted. The memory is per object and per process and grows by one entry per
    encrypted packet. Thread-safe.

    Args:
        key: the 16-byte confidentiality key.
        allow_keystream_reuse: ``True`` turns the check off, for callers whose protocol
            already guarantees unique COUNT values (e.g. PDCP with a persisted HFN/SN).
            Dangerous: a single repeated COUNT after a restart, a state rollback or a
            misconfigured bearer silently breaks confidentiality, and this object can
            no longer tell you.

    Raises:
        InvalidLength: ``key`` is not 16 bytes.
        TypeError: ``key`` is not bytes-like.

    Example:
        >>> from guomi.zuc import EEA3
        >>> e = EEA3(bytes(16))
        >>> ct = e.encrypt(1, 0, 0, b"first")
        >>> e.encrypt(1, 0, 0, b"second")
        Traceback (most recent call last):
        ...
        guomi.exceptions.KeystreamReuse: keystream reuse: this key and IV were already used
        >>> e.decrypt(1, 0, 0, ct)
        b'first'
    """
    def __new__(cls, key: BytesLike, *, allow_keystream_reuse: bool = False) -> EEA3: ...
    def encrypt(
        self,
        count: int,
        bearer: int,
        direction: int,
        data: BytesLike,
        *,
        length_bits: int | None = None,
    ) -> bytes:
        """128-EEA3 encryption under a (count, bearer, direction) not used before by this
        object.

        Args:
            count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
            bearer: the 5-bit BEARER, an ``int`` in 0..31.
            direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).
            data: the plaintext, any bytes-like object.
            length_bits: how many bits of ``data`` to process, most significant bit of each
                byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
                (the default) = every bit.

        Returns:
            bytes: ``ceil(length_bits / 8)`` bytes of ciphertext, unused trailing bits
            zero.

        Raises:
            KeystreamReuse: this (count, bearer, direction) was already used for
                encryption (unless ``allow_keystream_reuse``); nothing is returned.
            InvalidArgument: ``count``, ``bearer`` or ``direction`` out of range, or
                ``length_bits`` negative or longer than ``data``.
            TypeError: a framing value or ``length_bits`` is not an ``int``, or ``data``
                is not bytes-like.

        Example:
            >>> from guomi import zuc
            >>> zuc.EEA3(bytes(16)).encrypt(9, 1, 1, b"abc") == zuc.eea3(bytes(16), 9, 1, 1, b"abc")
            True
        """
    def decrypt(
        self,
        count: int,
        bearer: int,
        direction: int,
        data: BytesLike,
        *,
        length_bits: int | None = None,
    ) -> bytes:
        """128-EEA3 decryption; never restricted by the reuse guard.

        Args:
            count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
            bearer: the 5-bit BEARER, an ``int`` in 0..31.
            direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).
            data: the ciphertext, any bytes-like object.
            length_bits: how many bits of ``data`` to process, most significant bit of each
                byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
                (the default) = every bit.

        Returns:
            bytes: ``ceil(length_bits / 8)`` bytes of plaintext, unused trailing bits
            zero.

        Raises:
            InvalidArgument: ``count``, ``bearer`` or ``direction`` out of range, or
                ``length_bits`` negative or longer than ``data``.
            TypeError: a framing value or ``length_bits`` is not an ``int``, or ``data``
                is not bytes-like.

        Example:
            >>> from guomi.zuc import EEA3
            >>> e = EEA3(bytes(16))
            >>> e.decrypt(4, 2, 0, e.encrypt(4, 2, 0, b"abc"))
            b'abc'
        """
    def is_used(self, count: int, bearer: int, direction: int) -> bool:
        """Whether this object has already encrypted under (count, bearer, direction).

        Args:
            count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
            bearer: the 5-bit BEARER, an ``int`` in 0..31.
            direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).

        Returns:
            bool: ``True`` if used (always ``False`` with ``allow_keystream_reuse``).

        Raises:
            InvalidArgument: a value out of its range (BEARER above 31, DIRECTION above 1).
            TypeError: a value is not an ``int``.

        Example:
            >>> from guomi.zuc import EEA3
            >>> e = EEA3(bytes(16))
            >>> _ = e.encrypt(1, 2, 1, b"x")
            >>> e.is_used(1, 2, 1), e.is_used(2, 2, 1)
            (True, False)
        """
    @property
    def used_count(self) -> int:
        """How many (count, bearer, direction) triples this object has encrypted under.

        Example:
            >>> from guomi.zuc import EEA3
            >>> e = EEA3(bytes(16))
            >>> _ = e.encrypt(1, 0, 0, b"x"), e.encrypt(2, 0, 0, b"y")
            >>> e.used_count
            2
        """
    @property
    def allow_keystream_reuse(self) -> bool:
        """Whether the reuse check is off (set when the object was made).

        Example:
            >>> from guomi.zuc import EEA3
            >>> EEA3(bytes(16)).allow_keystream_reuse
            False
        """

def keystream(key: BytesLike, iv: BytesLike, words: int) -> bytes:
    """The first ``words`` ZUC-128 keystream words (the binding behind
    ``guomi.zuc.keystream``).

    Args:
        key: 16 bytes.
        iv: 16 bytes.
        words: how many 32-bit words, 0 to 2**27 (512 MiB), checked before allocating.

    Returns:
        bytes: ``4 * words`` bytes, each word big-endian (z1 first).

    Raises:
        InvalidLength: ``key`` or ``iv`` is not 16 bytes.
        InvalidArgument: ``words`` is over 2**27.
        OverflowError: ``words`` is negative.
        TypeError: ``key`` or ``iv`` is not bytes-like.

    Example:
        >>> from guomi._native import zuc
        >>> zuc.keystream(bytes(16), bytes(16), 2).hex()
        '27bede74018082da'
    """

def zuc256_keystream(key: BytesLike, iv: BytesLike, words: int) -> bytes:
    """The first ``words`` ZUC-256 keystream words (the binding behind
    ``guomi.zuc.zuc256_keystream``).

    Args:
        key: 32 bytes.
        iv: 25 bytes (IV0..IV16, then IV17..IV24 as 6-bit values, one per byte) or the
            23-byte packed form of GmSSL and gmsm.
        words: how many 32-bit words, 0 to 2**27, checked before allocating.

    Returns:
        bytes: ``4 * words`` bytes, each word big-endian.

    Raises:
        InvalidLength: ``key`` is not 32 bytes or ``iv`` not 25 or 23 bytes.
        InvalidArgument: a 25-byte ``iv`` with a byte 17..24 of 64 or more, or
            ``words`` over 2**27.
        OverflowError: ``words`` is negative.
        TypeError: ``key`` or ``iv`` is not bytes-like.

    Example:
        >>> from guomi._native import zuc
        >>> len(zuc.zuc256_keystream(bytes(32), bytes(25), 4))
        16
    """

def eea3(
    key: BytesLike,
    count: int,
    bearer: int,
    direction: int,
    data: BytesLike,
    *,
    length_bits: int | None = None,
) -> bytes:
    """128-EEA3 (3GPP confidentiality, ETSI/SAGE specification) encryption or decryption:
    the same operation, ``data`` XOR the keystream of (key, COUNT, BEARER, DIRECTION).

    Never encrypt two messages under the same key, ``count``, ``bearer`` and
    ``direction``: the XOR of the two ciphertexts is the XOR of the plaintexts.
    ``guomi.zuc.EEA3`` refuses such reuse. The GIL is released from 2 KiB on.

    Args:
        key: the 16-byte confidentiality key CK.
        count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
        bearer: the 5-bit BEARER, an ``int`` in 0..31.
        direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).
        data: the message, any bytes-like object.
        length_bits: how many bits of ``data`` to process, most significant bit of each
            byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
            (the default) = every bit.

    Returns:
        bytes: ``ceil(length_bits / 8)`` bytes, the unused trailing bits of the last
        byte set to zero.

    Raises:
        InvalidArgument: ``count``, ``bearer`` or ``direction`` out of range, or
            ``length_bits`` negative or longer than ``data``.
        InvalidLength: ``key`` is not 16 bytes.
        TypeError: ``count``, ``bearer``, ``direction`` or ``length_bits`` is not an
            ``int``, or ``key``/``data`` is not bytes-like.

    Example:
        >>> from guomi import zuc
        >>> ct = zuc.eea3(bytes(16), 7, 3, 1, b"hello")
        >>> zuc.eea3(bytes(16), 7, 3, 1, ct)
        b'hello'
        >>> len(zuc.eea3(bytes(16), 7, 3, 1, b"hello", length_bits=12))
        2
    """

def eia3(
    key: BytesLike,
    count: int,
    bearer: int,
    direction: int,
    data: BytesLike,
    *,
    length_bits: int | None = None,
) -> bytes:
    """128-EIA3 (3GPP integrity, ETSI/SAGE specification) MAC of the first
    ``length_bits`` bits of ``data``. The GIL is released from 2 KiB on.

    Args:
        key: the 16-byte integrity key IK.
        count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
        bearer: the 5-bit BEARER, an ``int`` in 0..31.
        direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).
        data: the message, any bytes-like object.
        length_bits: how many bits of ``data`` to process, most significant bit of each
            byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
            (the default) = every bit.

    Returns:
        bytes: the 4-byte MAC-I. Check a received MAC with ``eia3_verify`` (constant
        time), not ``==``.

    Raises:
        InvalidArgument: ``count``, ``bearer`` or ``direction`` out of range, or
            ``length_bits`` negative or longer than ``data``.
        InvalidLength: ``key`` is not 16 bytes.
        TypeError: ``count``, ``bearer``, ``direction`` or ``length_bits`` is not an
            ``int``, or ``key``/``data`` is not bytes-like.

    Example:
        >>> from guomi import zuc
        >>> mac = zuc.eia3(bytes(16), 0, 0, 0, b"message")
        >>> len(mac), zuc.eia3_verify(bytes(16), 0, 0, 0, b"message", mac)
        (4, True)
    """

def eia3_verify(
    key: BytesLike,
    count: int,
    bearer: int,
    direction: int,
    data: BytesLike,
    mac: BytesLike,
    *,
    length_bits: int | None = None,
) -> bool:
    """Whether ``mac`` is the 128-EIA3 MAC of ``data``, compared in constant time.

    The MAC length is fixed at 4 bytes by the algorithm: a ``mac`` of any other length
    (a truncated one included) is simply ``False``.

    Args:
        key: the 16-byte integrity key IK.
        count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
        bearer: the 5-bit BEARER, an ``int`` in 0..31.
        direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).
        data: the message, any bytes-like object.
        mac: the MAC to check, any bytes-like object.
        length_bits: how many bits of ``data`` to process, most significant bit of each
            byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
            (the default) = every bit.

    Returns:
        bool: ``True`` if ``mac`` matches.

    Raises:
        InvalidArgument: ``count``, ``bearer`` or ``direction`` out of range, or
            ``length_bits`` negative or longer than ``data``.
        InvalidLength: ``key`` is not 16 bytes.
        TypeError: ``count``, ``bearer``, ``direction`` or ``length_bits`` is not an
            ``int``, or ``key``/``data`` is not bytes-like.

    Example:
        >>> from guomi import zuc
        >>> mac = zuc.eia3(bytes(16), 1, 2, 0, b"abc")
        >>> zuc.eia3_verify(bytes(16), 1, 2, 0, b"abc", mac)
        True
        >>> zuc.eia3_verify(bytes(16), 1, 2, 0, b"abd", mac), zuc.eia3_verify(
        ...     bytes(16), 1, 2, 0, b"abc", mac[:2])
        (False, False)
    """

def zuc256_mac(
    key: BytesLike,
    iv: BytesLike,
    data: BytesLike,
    *,
    tag_bits: int | None = None,
    length_bits: int | None = None,
) -> bytes:
    """ZUC-256 MAC (2018 specification) of the first ``length_bits`` bits of ``data``
    (the binding behind ``guomi.zuc.zuc256_mac``).

    Args:
        key: 32 bytes.
        iv: 25 bytes (IV17..IV24 as 6-bit values, one per byte) or the 23-byte packed
            form.
        data: the message, any bytes-like object.
        tag_bits: 32 (``None``, the default), 64 or 128. Each size uses its own
            constants, so a 64-bit tag is not an extension of the 32-bit one.
        length_bits: how many bits of ``data`` to process, most significant bit of each
            byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
            (the default) = every bit.

    Returns:
        bytes: the tag, ``tag_bits / 8`` bytes.

    Raises:
        InvalidLength: ``key`` is not 32 bytes or ``iv`` not 25 or 23 bytes.
        InvalidArgument: ``tag_bits`` is not 32, 64 or 128; ``length_bits`` negative or
            longer than ``data``; a 25-byte ``iv`` byte 17..24 of 64 or more.
        TypeError: ``tag_bits`` or ``length_bits`` is not an ``int``, or a bytes
            argument is not bytes-like.

    Example:
        >>> from guomi._native import zuc
        >>> len(zuc.zuc256_mac(bytes(32), bytes(25), b"abc", tag_bits=64))
        8
    """

def zuc256_mac_verify(
    key: BytesLike,
    iv: BytesLike,
    data: BytesLike,
    tag: BytesLike,
    *,
    tag_bits: int | None = None,
    length_bits: int | None = None,
) -> bool:
    """Whether ``tag`` is the ``tag_bits``-bit ZUC-256 MAC of ``data``, compared in
    constant time (the binding behind ``guomi.zuc.zuc256_mac_verify``).

    ``tag_bits`` is fixed by the caller, never taken from ``tag``: a ``tag`` that is
    not ``tag_bits / 8`` bytes long is simply ``False``.

    Args:
        key: 32 bytes.
        iv: 25 bytes (IV17..IV24 as 6-bit values, one per byte) or the 23-byte packed
            form.
        data: the message, any bytes-like object.
        tag: the tag to check, any bytes-like object.
        tag_bits: 32 (``None``, the default, as in ``zuc256_mac``), 64 or 128.
        length_bits: how many bits of ``data`` to process, most significant bit of each
            byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
            (the default) = every bit.

    Returns:
        bool: ``True`` if ``tag`` matches.

    Raises:
        InvalidLength: ``key`` is not 32 bytes or ``iv`` not 25 or 23 bytes.
        InvalidArgument: ``tag_bits`` is not 32, 64 or 128; ``length_bits`` negative or
            longer than ``data``; a 25-byte ``iv`` byte 17..24 of 64 or more.
        TypeError: ``tag_bits`` or ``length_bits`` is not an ``int``, or a bytes
            argument is not bytes-like.

    Example:
        >>> from guomi._native import zuc
        >>> tag = zuc.zuc256_mac(bytes(32), bytes(25), b"abc")
        >>> zuc.zuc256_mac_verify(bytes(32), bytes(25), b"abc", tag)
        True
    """

def eea3_many(
    items: Iterable[tuple[BytesLike, int, int, int, BytesLike]], *, threads: int | None = None
) -> list[bytes]:
    """128-EEA3 of many packets in one call, in 8 (AVX2) or 16 (AVX-512) SIMD lanes and
    optionally several threads; the GIL is released from 2 KiB in total.

    This function has no keystream-reuse guard: the caller owns the counters.

    Args:
        items: an iterable of ``(key, count, bearer, direction, data)`` tuples, each as
            in ``eea3`` (whole bytes of ``data``; no ``length_bits``).
        threads: ``threads``: ``None`` or ``1`` = the calling thread, ``0`` = every core, ``n`` = at
            most ``n`` threads (clamped to the number of CPUs; small batches run on the
            calling thread whatever the value). Negative: ``InvalidArgument``.

    Returns:
        list[bytes]: the outputs, in the order of ``items``.

    Raises:
        TypeError: an item is not a 5-tuple, or has a value of the wrong type.
        InvalidArgument: a ``count``, ``bearer`` or ``direction`` out of range, or a
            negative ``threads``.
        InvalidLength: a key that is not 16 bytes.

    Example:
        >>> from guomi import zuc
        >>> items = [(bytes(16), n, 1, 0, b"packet %d" % n) for n in range(3)]
        >>> out = zuc.eea3_many(items, threads=1)
        >>> out[2] == zuc.eea3(bytes(16), 2, 1, 0, b"packet 2")
        True
    """

def eia3_many(
    items: Iterable[tuple[BytesLike, int, int, int, BytesLike]], *, threads: int | None = None
) -> list[bytes]:
    """128-EIA3 MACs of many packets in one call, in SIMD lanes and optionally several
    threads; the GIL is released from 2 KiB in total.

    Args:
        items: an iterable of ``(key, count, bearer, direction, data)`` tuples, each as
            in ``eia3`` (whole bytes of ``data``; no ``length_bits``).
        threads: ``threads``: ``None`` or ``1`` = the calling thread, ``0`` = every core, ``n`` = at
            most ``n`` threads (clamped to the number of CPUs; small batches run on the
            calling thread whatever the value). Negative: ``InvalidArgument``.

    Returns:
        list[bytes]: the 4-byte MACs, in the order of ``items``.

    Raises:
        TypeError: an item is not a 5-tuple, or has a value of the wrong type.
        InvalidArgument: a ``count``, ``bearer`` or ``direction`` out of range, or a
            negative ``threads``.
        InvalidLength: a key that is not 16 bytes.

    Example:
        >>> from guomi import zuc
        >>> macs = zuc.eia3_many([(bytes(16), 5, 0, 1, b"abc")])
        >>> macs == [zuc.eia3(bytes(16), 5, 0, 1, b"abc")]
        True
    """
