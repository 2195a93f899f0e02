"""A drop-in replacement for the PyPI ``gmssl`` package (3.2.x) on guomi's Rust core.

Change one line::

    from gmssl import sm2, sm3, sm4, func                  # before
    from guomi.compat.gmssl import sm2, sm3, sm4, func     # after

The modules keep gmssl's names, argument conventions (hex strings, lists of ints,
bytes) and return types. Every cryptographic operation runs in guomi (:mod:`guomi.sm2`,
:mod:`guomi.sm3`, :mod:`guomi.sm4`); nothing is computed by gmssl or in Python.

Where gmssl is insecure, this shim is not, and says so:

* SM2 nonces come from the OS CSPRNG (hedged with the key and digest); a caller-supplied
  ``K`` / ``random_hex_str`` is ignored with an :class:`InsecureParameterWarning`.
* SM2 ``decrypt`` checks C3 and C1 (on the curve) and raises :class:`SM2DecryptionError`
  instead of returning unauthenticated bytes.
* Public keys written ``04||x||y`` (130 hex digits) work (gmssl's ``lstrip("04")`` corrupts
  them); keys are validated (points on the curve, 1 <= d <= n-2).
* SM4 keys and IVs must be exactly 16 bytes (:class:`LengthError`), never silently
  truncated, and an :class:`~guomi.compat.gmssl.sm4.CryptSM4` without ``set_key`` refuses
  to encrypt instead of using all-zero round keys.

See ``docs/migrate-gmssl.md`` for every difference and for the move to guomi's own API.
"""

from __future__ import annotations

from guomi.compat.gmssl import func, sm2, sm3, sm4
from guomi.compat.gmssl._errors import (
    InsecureParameterWarning,
    LengthError,
    PaddingError,
    SM2DecryptionError,
)

__all__ = [
    "InsecureParameterWarning",
    "LengthError",
    "PaddingError",
    "SM2DecryptionError",
    "func",
    "sm2",
    "sm3",
    "sm4",
]
