"""guomi: the Chinese commercial cryptography algorithms for Python.

SM2, SM3, SM4, SM9 and ZUC with a constant-time Rust core, runtime-selected SIMD
backends and a bytes-first, typed API. guomi implements the algorithms; it is not a
certified cryptographic module.
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
