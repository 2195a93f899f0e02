"""gmssl's ``sm4`` module on guomi: :class:`CryptSM4` with ``set_key``, ``crypt_ecb`` and
``crypt_cbc``, and the constants ``SM4_ENCRYPT``, ``SM4_DECRYPT``, ``PKCS7``, ``ZERO``.

The block cipher is guomi's (:class:`guomi.sm4.SM4`: constant-time, SIMD). Padding
follows gmssl 3.2.x byte for byte, quirks included:

* ``crypt_ecb``: ``padding_mode=PKCS7`` pads with PKCS#7; ``ZERO`` always appends 1 to 16
  zero bytes and its unpadding removes exactly one trailing zero byte; any other
  ``padding_mode`` (e.g. ``-1``) means no padding, and the input must then be a whole
  number of 16-byte blocks.
* ``crypt_cbc`` always uses PKCS#7, whatever ``padding_mode`` says.
* PKCS#7 unpadding is not checked (as in gmssl, whose decryption never rejected it):
  the last byte says how many bytes to drop; 0 or more than the length gives ``b""``.
  CBC and ECB are not authenticated either way; use :class:`guomi.sm4.SM4GCM` to detect
  tampering.

Where gmssl failed by accident or silently, the shim raises a typed error:

* a key or IV that is not exactly 16 bytes, or ECB/CBC input that is not whole blocks
  (when it must be): :class:`~guomi.compat.gmssl.LengthError` (an ``InvalidLength`` and an
  ``IndexError``; gmssl raised ``IndexError`` for short ones and silently used the first 16
  bytes of long ones);
* unpadding with nothing to remove (empty plaintext; ZERO padding not ending in ``00``):
  :class:`~guomi.compat.gmssl.PaddingError` (an ``InvalidPadding``, and the ``IndexError``
  / ``TypeError`` gmssl raised);
* ``crypt_*`` before ``set_key`` (gmssl used all-zero round keys), a ``set_key`` mode other
  than ``SM4_ENCRYPT``/``SM4_DECRYPT``, or ``mode`` changed after ``set_key`` so that the
  round keys and the requested direction disagree:
  :class:`~guomi.exceptions.InvalidKey` / :class:`~guomi.exceptions.InvalidArgument`.

gmssl's internals (``sk`` round keys, ``one_round``, ``_round_key``, ``_f`` and the tables
``SM4_BOXES_TABLE``, ``SM4_FK``, ``SM4_CK``) are not provided: the cipher lives in guomi's
core.
"""

from __future__ import annotations

from typing import Optional, Union

import guomi.sm4 as _sm4
from guomi.compat.gmssl._errors import LengthError, PaddingError
from guomi.exceptions import InvalidArgument, InvalidKey

__all__ = ["PKCS7", "SM4_DECRYPT", "SM4_ENCRYPT", "ZERO", "CryptSM4"]

#: Direction constants (the ``mode`` of :meth:`CryptSM4.set_key`).
SM4_ENCRYPT = 0
SM4_DECRYPT = 1

#: Padding modes of :meth:`CryptSM4.crypt_ecb`; any other value means no padding.
PKCS7 = 0
ZERO = 1

Data = Union[bytes, bytearray, memoryview, list[int], tuple[int, ...]]


def _as_bytes(data: object, what: str) -> bytes | bytearray | memoryview:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return data
    if isinstance(data, (list, tuple)):
        return bytes(data)
    raise TypeError(f"{what} must be bytes-like or a list of byte values, not {type(data).__name__}")


class CryptSM4:
    """gmssl's SM4 object: ``CryptSM4(mode=SM4_ENCRYPT, padding_mode=PKCS7)``, then
    ``set_key(key, mode)`` and ``crypt_ecb(data)`` / ``crypt_cbc(iv, data)``.

    Keys, IVs and data: ``bytes``, ``bytearray``, ``memoryview`` or a list of byte values.
    Results are ``bytes``."""

    def __init__(self, mode: int = SM4_ENCRYPT, padding_mode: int = PKCS7) -> None:
        self.mode = mode
        self.padding_mode = padding_mode
        self._cipher: Optional[_sm4.SM4] = None
        self._decrypting = False

    def __repr__(self) -> str:
        state = "no key" if self._cipher is None else "key set"
        return f"CryptSM4(mode={self.mode!r}, padding_mode={self.padding_mode!r}, {state})"

    def set_key(self, key: Data, mode: int) -> None:
        """Schedules the 16-byte ``key`` for ``mode`` (``SM4_ENCRYPT`` or ``SM4_DECRYPT``)
        and sets ``self.mode``. Another key length raises
        :class:`~guomi.compat.gmssl.LengthError`; another mode raises
        :class:`~guomi.exceptions.InvalidArgument`."""
        raw = _as_bytes(key, "key")
        if len(raw) != 16:
            raise LengthError(f"SM4 key must be 16 bytes, not {len(raw)}")
        if mode not in (SM4_ENCRYPT, SM4_DECRYPT):
            raise InvalidArgument(f"mode must be SM4_ENCRYPT (0) or SM4_DECRYPT (1), not {mode!r}")
        self._cipher = _sm4.SM4(raw)
        self._decrypting = mode == SM4_DECRYPT
        self.mode = mode

    def _ready(self) -> _sm4.SM4:
        if self._cipher is None:
            raise InvalidKey("no SM4 key: call set_key(key, mode) first")
        if self.mode != (SM4_DECRYPT if self._decrypting else SM4_ENCRYPT):
            raise InvalidArgument("mode was changed after set_key(); call set_key(key, mode) again")
        return self._cipher

    def crypt_ecb(self, input_data: Data) -> bytes:
        """SM4-ECB in the direction given to ``set_key``, with ``padding_mode``'s padding
        (see the module documentation). Decryption input must be whole 16-byte blocks."""
        cipher = self._ready()
        data = _as_bytes(input_data, "input_data")
        if not self._decrypting:
            if self.padding_mode == PKCS7:
                return cipher.encrypt(data, mode="ecb", padding="pkcs7")
            if self.padding_mode == ZERO:
                data = bytes(data) + bytes(16 - len(data) % 16)
            _check_blocks(data)
            return cipher.encrypt(data, mode="ecb", padding="none")
        _check_blocks(data)
        out = cipher.decrypt(data, mode="ecb", padding="none")
        if self.padding_mode == PKCS7:
            return _pkcs7_unpad(out)
        if self.padding_mode == ZERO:
            return _zero_unpad(out)
        return out

    def crypt_cbc(self, iv: Data, input_data: Data) -> bytes:
        """SM4-CBC with a 16-byte ``iv``, always with PKCS#7 padding (as gmssl), in the
        direction given to ``set_key``. Decryption input must be whole 16-byte blocks."""
        cipher = self._ready()
        iv_b = _as_bytes(iv, "iv")
        if len(iv_b) != 16:
            raise LengthError(f"SM4-CBC IV must be 16 bytes, not {len(iv_b)}")
        data = _as_bytes(input_data, "input_data")
        if not self._decrypting:
            return cipher.encrypt(data, mode="cbc", iv=iv_b, padding="pkcs7")
        _check_blocks(data)
        return _pkcs7_unpad(cipher.decrypt(data, mode="cbc", iv=iv_b, padding="none"))


def _check_blocks(data: bytes | bytearray | memoryview) -> None:
    if len(data) % 16:
        raise LengthError(f"SM4-ECB/CBC data must be a multiple of 16 bytes, not {len(data)}")


def _pkcs7_unpad(out: bytes) -> bytes:
    # gmssl's pkcs7_unpadding: out[:-out[-1]], unchecked.
    if not out:
        raise PaddingError("nothing to unpad: the decrypted data is empty")
    return out[: -out[-1]]


def _zero_unpad(out: bytes) -> bytes:
    # gmssl's zero_unpadding: drops one trailing zero byte (and failed otherwise).
    if not out:
        raise PaddingError("nothing to unpad: the decrypted data is empty")
    if out[-1] != 0:
        raise PaddingError("ZERO padding: the last decrypted byte is not 00")
    return out[:-1]
