"""Compatibility layers: guomi behind the API of another SM library, so code written for
that library runs on guomi's Rust core by changing one import.

* :mod:`guomi.compat.gmssl`: the PyPI ``gmssl`` package (3.2.x): ``sm2``, ``sm3``,
  ``sm4`` and ``func`` with the same names, arguments and return types, minus gmssl's
  security flaws (see ``docs/migrate-gmssl.md``).

A compatibility layer is a bridge for existing code. New code should use guomi's own API
(:mod:`guomi.sm2`, :mod:`guomi.sm3`, :mod:`guomi.sm4`): bytes in and out, standard
defaults, typed errors.
"""

from __future__ import annotations

__all__: list[str] = []
