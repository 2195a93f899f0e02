"""guomi: the Chinese commercial cryptography algorithms for Python.

SM2, SM3, SM4, SM9 and ZUC with a constant-time Rust core, runtime-selected SIMD
backends and a bytes-first, typed API. guomi implements the algorithms; it is not a
certified cryptographic module.

Each algorithm family is a submodule: :mod:`guomi.sm2`, :mod:`guomi.sm3`,
:mod:`guomi.sm4`, :mod:`guomi.sm9`, :mod:`guomi.zuc`; the formats are
:mod:`guomi.x509` (certificates, CRLs), :mod:`guomi.keys`, :mod:`guomi.cms`,
:mod:`guomi.pkcs12` and :mod:`guomi.envelope`; every error is a
:class:`guomi.exceptions.GuomiError`. ``help()`` on any object shows its arguments,
accepted formats, errors and an example.

Example:
    >>> import guomi
    >>> from guomi import sm2
    >>> guomi.active_backend() in guomi.available_backends()
    True
    >>> key = sm2.PrivateKey.generate()
    >>> key.public_key().verify(key.sign(b"hello"), b"hello")
    True
"""

from __future__ import annotations

from guomi import exceptions
from guomi._native import __version__
from guomi.backend import active_backend, available_backends, force_backend

__all__ = [
    "__version__",
    "active_backend",
    "available_backends",
    "exceptions",
    "force_backend",
]
