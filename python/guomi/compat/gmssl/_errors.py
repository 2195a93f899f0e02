"""The warning and the exceptions of :mod:`guomi.compat.gmssl`.

Each exception is a guomi exception (so ``except guomi.exceptions.GuomiError`` catches
it) and also the built-in exception gmssl itself happened to raise in the same
situation (so an ``except IndexError`` written for gmssl still catches it).
"""

from __future__ import annotations

from guomi.exceptions import DecryptionError, InvalidLength, InvalidPadding

__all__ = ["InsecureParameterWarning", "LengthError", "PaddingError", "SM2DecryptionError"]


class InsecureParameterWarning(UserWarning):
    """A caller passed a parameter that gmssl honours insecurely and this shim ignores:
    the SM2 nonce ``K`` of ``CryptSM2.sign`` and ``random_hex_str`` of
    ``CryptSM2.sign_with_sm3``. guomi draws its own hedged nonce from the OS CSPRNG."""


class LengthError(InvalidLength, IndexError):
    """An SM4 key, IV or ECB/CBC input has the wrong length. gmssl raised ``IndexError``
    for short ones and silently used the first 16 bytes of a long key or IV."""


class PaddingError(InvalidPadding, IndexError, TypeError):
    """SM4 unpadding found nothing it can remove: an empty plaintext with PKCS7 or ZERO
    padding (gmssl raised ``IndexError``), or ZERO padding whose last byte is not ``00``
    (gmssl raised ``TypeError``). No plaintext is returned."""


class SM2DecryptionError(DecryptionError, ValueError):
    """SM2 decryption failed: the ciphertext is too short, C1 is not a point on the curve,
    or C3 does not match (gmssl never checked C3 and returned whatever the XOR gave).
    Deliberately opaque: every cause gives this one error. It is also a ``ValueError``,
    which gmssl raised for ciphertexts too short to parse."""
