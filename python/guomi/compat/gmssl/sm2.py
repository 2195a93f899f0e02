"""gmssl's ``sm2`` module on guomi: :class:`CryptSM2` and ``default_ecc_table``.

``CryptSM2(private_key, public_key, ecc_table=default_ecc_table, mode=0, asn1=False)``
takes keys as hex text and gives the same results, in the same types, as gmssl 3.2.x:

* ``encrypt(data: bytes) -> bytes`` and ``decrypt(data: bytes) -> bytes``: ``mode=0``
  (gmssl's real default, whatever its docstring says) is C1C2C3, ``mode=1`` is C1C3C2;
  C1 is 64 bytes ``x || y`` **without** the ``04`` prefix, in and out.
* ``sign(data, K=None) -> str`` signs ``data`` as the already computed digest e (any
  non-empty length, taken modulo n, as gmssl does); ``verify(sign, data) -> bool``
  checks such a signature.
* ``sign_with_sm3(data, random_hex_str=None) -> str`` computes
  e = SM3(Z_A || data) with the default ID ``1234567812345678`` (GB/T 32918.2 §5.5) and
  signs it; ``verify_with_sm3(sign, data) -> bool`` checks it.
* Signatures are 128 hex digits ``r || s``, or DER hex with ``asn1=True``.

The arithmetic is guomi's (constant-time Rust); what differs from gmssl is on purpose:

* Nonces: gmssl drew k with :mod:`random` (Mersenne Twister) or took it from the caller.
  Here k is hedged (private key, digest and 32 bytes from the OS CSPRNG, RFC 6979 §3.6
  style). ``K`` / ``random_hex_str`` are accepted for compatibility, **ignored**, and
  trigger :class:`~guomi.compat.gmssl.InsecureParameterWarning`.
* ``decrypt`` checks C1 (on the curve) and C3 and raises
  :class:`~guomi.compat.gmssl.SM2DecryptionError` (a ``ValueError`` and a
  :class:`~guomi.exceptions.DecryptionError`) on any failure; gmssl returned the XOR of
  whatever it was given.
* Keys are validated when first used: the private key d must be 1 to n-2 (up to 64 hex
  digits; shorter is left-padded, an optional ``0x`` prefix is allowed), the public key a
  point on the curve. A public key written ``04 || x || y`` (130 hex digits) works; gmssl's
  ``lstrip("04")`` corrupted it. Bad keys raise :class:`~guomi.exceptions.InvalidKey`.
* ``public_key`` may be ``None`` or ``""`` when ``private_key`` is given: it is derived.
* ``verify`` and ``verify_with_sm3`` return ``False`` for any malformed signature (bad
  hex, wrong length, bad DER, r or s out of range) where gmssl raised ``ValueError`` or
  read only the first 128 digits; surrounding whitespace is ignored.
* ``mode`` other than 0 or 1, or an ``ecc_table`` other than sm2p256v1's, raises
  :class:`~guomi.exceptions.InvalidArgument` (gmssl: ``AssertionError``; other curves are
  not supported).
* ``encrypt(b"")`` raises :class:`~guomi.exceptions.InvalidLength` (gmssl: ``ValueError``).

gmssl's point arithmetic (``_kg``, ``_double_point``, ``_add_point``,
``_convert_jacb_to_nor``) is not provided. ``_sm3_z(data)`` (e as hex) is, because code
that signs e elsewhere (an HSM) uses it.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from typing import Optional, Union

import guomi.sm2 as _sm2
import guomi.sm3 as _sm3
from guomi._typing import BytesLike as Bytes
from guomi.compat.gmssl._errors import InsecureParameterWarning, SM2DecryptionError
from guomi.exceptions import DecryptionError, InvalidArgument, InvalidKey, InvalidLength

__all__ = ["CryptSM2", "default_ecc_table"]

#: The curve sm2p256v1 (GB/T 32918.5), in gmssl's hex form. It is the only curve supported.
default_ecc_table: dict[str, str] = {
    "n": "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123",
    "p": "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF",
    "g": "32c4ae2c1f1981195f9904466a39c9948fe30bbff2660be1715a4589334c74c7"
    "bc3736a2f4f6779c59bdcee36b692153d0a9877cc62a474002df32e52139f0a0",
    "a": "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFC",
    "b": "28E9FA9E9D9F5E344D5A9E4BCF6509A7F39789F515AB8F92DDBCBD414D940E93",
}

_N = int(default_ecc_table["n"], 16)
_HEX = re.compile(r"[0-9a-fA-F]*")
_ORDER = {0: "c1c2c3", 1: "c1c3c2"}

KeyText = Union[str, bytes, bytearray, None]


def _text(value: object, what: str) -> str:
    """Hex text from a ``str`` or ASCII bytes (gmssl's ``int(x, 16)`` took both)."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return bytes(value).decode("ascii").strip()
        except UnicodeDecodeError:
            raise InvalidKey(f"{what} must be hex text") from None
    raise TypeError(f"{what} must be hex text (str), not {type(value).__name__}")


def _parse_private(value: object) -> _sm2.PrivateKey:
    text = _text(value, "private_key")
    if text[:2] in ("0x", "0X"):
        text = text[2:]
    if not text or not _HEX.fullmatch(text):
        raise InvalidKey("private_key must be 1 to 64 hex digits")
    if len(text) > 64:
        if text[:-64].strip("0"):
            raise InvalidKey("private_key must be 1 to 64 hex digits")
        text = text[-64:]
    return _sm2.PrivateKey.from_bytes(bytes.fromhex(text.rjust(64, "0")))


def _normalize_public(text: str) -> str:
    """gmssl's attribute form: 128 hex digits without ``04`` (only a 130-digit key loses
    its first two digits, unlike gmssl's ``lstrip("04")``)."""
    return text[2:] if len(text) == 130 and text[:2] == "04" else text


def _parse_public(value: object) -> _sm2.PublicKey:
    text = _normalize_public(_text(value, "public_key"))
    if len(text) != 128 or not _HEX.fullmatch(text):
        raise InvalidKey("public_key must be 128 hex digits x || y (or 130 with the 04 prefix)")
    return _sm2.PublicKey.from_bytes(bytes.fromhex(text))


def _bytes_arg(data: object, what: str) -> bytes:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"{what} must be bytes-like, not {type(data).__name__}")


def _digest(data: object) -> bytes:
    """e for ``sign``/``verify``: gmssl used ``int(data.hex(), 16)``; any non-empty length
    works, reduced modulo n (which leaves the signature equation unchanged)."""
    e = _bytes_arg(data, "data (the digest e)")
    if not e:
        raise InvalidLength("data (the digest e) must not be empty")
    if len(e) == 32:
        return e
    return (int.from_bytes(e, "big") % _N).to_bytes(32, "big")


def _signature(sign: object, asn1: bool) -> Optional[bytes]:
    """The signature's bytes, or ``None`` when it is not well-formed hex of the right size."""
    if isinstance(sign, str):
        text = sign.strip()
    elif isinstance(sign, (bytes, bytearray, memoryview)):
        try:
            text = bytes(sign).decode("ascii").strip()
        except UnicodeDecodeError:
            return None
    else:
        return None
    if not _HEX.fullmatch(text) or len(text) % 2:
        return None
    if not asn1 and len(text) != 128:
        return None
    if asn1 and not 16 <= len(text) <= 4096:
        return None
    return bytes.fromhex(text)


def _check_table(ecc_table: Mapping[str, str]) -> None:
    try:
        same = all(str(ecc_table[k]).lower() == v.lower() for k, v in default_ecc_table.items())
    except (KeyError, TypeError):
        same = False
    if not same:
        raise InvalidArgument("only the curve sm2p256v1 (gmssl's default_ecc_table) is supported")


class CryptSM2:
    """gmssl's SM2 object. See the module documentation for the conventions.

    ``private_key``: hex text of d (``None`` or ``""`` for a public-key-only object).
    ``public_key``: hex ``x || y`` (128 digits) or ``04 || x || y`` (130); ``None`` or
    ``""`` to derive it from ``private_key``. ``mode``: 0 = C1C2C3 (default), 1 = C1C3C2.
    ``asn1``: signatures as DER hex instead of 128-digit ``r || s``.

    Attributes as in gmssl: ``private_key``, ``public_key`` (without ``04``), ``mode``,
    ``asn1``, ``ecc_table``, ``para_len`` (64), ``ecc_a3``. Keys are parsed on first use
    and re-parsed if an attribute is reassigned.
    """

    def __init__(
        self,
        private_key: KeyText,
        public_key: KeyText,
        ecc_table: Mapping[str, str] = default_ecc_table,
        mode: int = 0,
        asn1: bool = False,
    ) -> None:
        _check_table(ecc_table)
        for name, value in (("private_key", private_key), ("public_key", public_key)):
            if value is not None and not isinstance(value, (str, bytes, bytearray)):
                raise TypeError(f"{name} must be hex text (str), not {type(value).__name__}")
        if mode not in (0, 1):
            raise InvalidArgument("mode must be one of (0, 1)")
        self.private_key = private_key
        self.ecc_table = ecc_table
        self.para_len = len(default_ecc_table["n"])
        self.ecc_a3 = (int(default_ecc_table["a"], 16) + 3) % int(default_ecc_table["p"], 16)
        self.mode = mode
        self.asn1 = asn1
        self._priv: Optional[tuple[object, _sm2.PrivateKey]] = None
        self._pub: Optional[tuple[object, _sm2.PublicKey]] = None
        self._pair: Optional[tuple[object, object, bool]] = None
        self._uses = 0
        if public_key is None or public_key == "" or public_key == b"":
            if private_key is None or private_key == "" or private_key == b"":
                raise InvalidKey("give a private key, a public key or both")
            public_key = self._private().public_key().to_hex(format="raw")
        elif isinstance(public_key, str):
            public_key = _normalize_public(public_key)
        self.public_key = public_key

    def __repr__(self) -> str:
        return f"CryptSM2(public_key={self.public_key!r}, mode={self.mode!r}, asn1={self.asn1!r})"

    # -- keys ------------------------------------------------------------------------

    def _private(self) -> _sm2.PrivateKey:
        value = self.private_key
        cached = self._priv
        if cached is not None and cached[0] == value:
            return cached[1]
        if value is None or value == "" or value == b"":
            raise InvalidKey("this CryptSM2 has no private key")
        key = _parse_private(value)
        self._priv = (value, key)
        return key

    def _public(self) -> _sm2.PublicKey:
        value = self.public_key
        cached = self._pub
        if cached is not None and cached[0] == value:
            return cached[1]
        key = _parse_public(value)
        self._pub = (value, key)
        self._uses = 0
        return key

    def _public_hot(self) -> _sm2.PublicKey:
        """The public key for verify/encrypt: from its second such use on, with guomi's
        per-key table (``PublicKey.prepare()``, about 88 KiB), which makes them ~3x faster."""
        key = self._public()
        if self._uses < 2:
            self._uses += 1
            if self._uses == 2:
                key.prepare()
        return key

    def _matching_pair(self) -> bool:
        """Whether ``public_key`` belongs to ``private_key`` (then guomi signs with Z of
        its own public key in one call; otherwise Z comes from ``public_key``, as gmssl)."""
        priv_value, pub_value = self.private_key, self.public_key
        cached = self._pair
        if cached is not None and cached[0] == priv_value and cached[1] == pub_value:
            return cached[2]
        same = bool(self._private().public_key() == self._public())
        self._pair = (priv_value, pub_value, same)
        return same

    def _order(self) -> str:
        try:
            return _ORDER[self.mode]
        except (KeyError, TypeError):
            raise InvalidArgument("mode must be one of (0, 1)") from None

    def _format(self) -> str:
        return "der" if self.asn1 else "raw"

    # -- signatures ------------------------------------------------------------------

    def sign(self, data: Bytes, K: Optional[str] = None) -> str:  # noqa: N803 - gmssl's name
        """Signs ``data`` taken as the digest e (bytes, any non-empty length, reduced
        modulo n). Returns 128 hex digits ``r || s``, or DER hex with ``asn1=True``.

        ``K`` is ignored (with :class:`~guomi.compat.gmssl.InsecureParameterWarning`):
        the nonce is hedged from the key, e and the OS CSPRNG. ``data`` must be bytes-like
        (``TypeError``) and not empty (:class:`~guomi.exceptions.InvalidLength`)."""
        if K is not None:
            warnings.warn(
                "CryptSM2.sign: the caller-supplied nonce K is ignored; guomi draws a hedged "
                "nonce from the OS CSPRNG",
                InsecureParameterWarning,
                stacklevel=2,
            )
        e = _digest(data)
        return self._private().sign_digest(e, format=self._format()).hex()

    def verify(self, Sign: Union[str, Bytes], data: Bytes) -> bool:  # noqa: N803 - gmssl's name
        """Checks a signature made by :meth:`sign` over the digest ``data``. Any malformed
        signature gives ``False``; a digest that is not bytes-like or is empty raises."""
        e = _digest(data)
        sig = _signature(Sign, self.asn1)
        if sig is None:
            return False
        return bool(self._public_hot().verify_digest(sig, e, format=self._format()))

    def sign_with_sm3(self, data: Bytes, random_hex_str: Optional[str] = None) -> str:
        """Signs the message ``data`` (bytes): e = SM3(Z_A || data), Z_A with the ID
        ``1234567812345678`` and ``public_key``. Returns hex as :meth:`sign`.

        ``random_hex_str`` is ignored (with
        :class:`~guomi.compat.gmssl.InsecureParameterWarning`)."""
        if random_hex_str is not None:
            warnings.warn(
                "CryptSM2.sign_with_sm3: the caller-supplied nonce random_hex_str is ignored; "
                "guomi draws a hedged nonce from the OS CSPRNG",
                InsecureParameterWarning,
                stacklevel=2,
            )
        msg = _bytes_arg(data, "data")
        key = self._private()
        if self._matching_pair():
            return key.sign(msg, format=self._format()).hex()
        return key.sign_digest(self._e(msg), format=self._format()).hex()

    def verify_with_sm3(self, sign: Union[str, Bytes], data: Bytes) -> bool:
        """Checks a :meth:`sign_with_sm3` signature over the message ``data``. Any malformed
        signature gives ``False``."""
        msg = _bytes_arg(data, "data")
        sig = _signature(sign, self.asn1)
        if sig is None:
            return False
        return bool(self._public_hot().verify(sig, msg, format=self._format()))

    def _e(self, msg: bytes) -> bytes:
        return _sm3.hash(self._public().compute_z() + msg)

    def _sm3_z(self, data: Bytes) -> str:
        """e = SM3(Z_A || data) as 64 hex digits (gmssl's helper of the same name)."""
        return self._e(_bytes_arg(data, "data")).hex()

    # -- encryption ------------------------------------------------------------------

    def encrypt(self, data: Bytes) -> bytes:
        """Encrypts ``data`` (bytes, at least 1 byte) to ``public_key``: C1 (64 bytes,
        no ``04``) then C2 C3 (``mode=0``) or C3 C2 (``mode=1``)."""
        msg = _bytes_arg(data, "data")
        if not msg:
            raise InvalidLength("SM2 cannot encrypt an empty message")
        return self._public_hot().encrypt(msg, format=self._order(), c1_prefix=False)

    def decrypt(self, data: Bytes) -> bytes:
        """Decrypts a ciphertext in this object's ``mode`` (C1 without ``04``). Any failure
        (too short, C1 not on the curve, C3 mismatch) raises
        :class:`~guomi.compat.gmssl.SM2DecryptionError`; no plaintext is released."""
        ct = _bytes_arg(data, "data")
        order = self._order()
        key = self._private()
        try:
            return key.decrypt(b"\x04" + ct, format=order)
        except DecryptionError:
            raise SM2DecryptionError("SM2 decryption failed") from None
