"""Which implementation (backend) guomi runs on this CPU, and how to force one.

Backends form a ladder: ``portable`` (plain Rust, constant time, any CPU), ``avx2``
(x86-64 AVX2 + AES-NI + PCLMULQDQ + BMI2) and ``avx512`` (AVX-512 + GFNI + VAES +
VPCLMULQDQ). The best one the CPU supports is used unless the environment variable
``GUOMI_BACKEND`` (read once, at first use) or :func:`force_backend` says otherwise.
Key objects remember the backend (and variant) that was active when they were created.

Inside a backend, optional CPU features select *variants*; a variant's name is the
backend's followed by ``-no<feature>`` for each feature turned off:

* ``vaes`` (``avx2``): SM4 through 256-bit VAES; ``avx2-novaes`` uses 128-bit AES-NI;
* ``vbmi`` (``avx512``): ZUC's S-box S0 through AVX512-VBMI/VBMI2 register tables;
  ``avx512-novbmi`` uses nibble shuffles;
* ``adx`` (``avx2``, ``avx512``): SM2 field products in MULX/ADCX/ADOX assembly;
  ``avx2-noadx`` / ``avx512-noadx`` use the portable Montgomery code.

:func:`available_variants` lists one variant per code path this CPU can run; each can be
forced with :func:`force_backend` or ``GUOMI_BACKEND`` like a backend.
"""

from __future__ import annotations

from guomi._native import cpu as _cpu

__all__ = [
    "active_backend",
    "active_variant",
    "available_backends",
    "available_variants",
    "detected_backend",
    "force_backend",
]


def active_backend() -> str:
    """The backend new objects use: ``"portable"``, ``"avx2"`` or ``"avx512"``."""
    return _cpu.active()


def active_variant() -> str:
    """The variant new objects use, e.g. ``"avx512"`` or ``"avx2-novaes"``."""
    return _cpu.active_variant()


def detected_backend() -> str:
    """The best backend this CPU supports."""
    return _cpu.detected()


def available_backends() -> list[str]:
    """Every backend this CPU can run, lowest first."""
    return _cpu.available()


def available_variants() -> list[str]:
    """One variant per code path this CPU can run, lowest backend first: each backend
    with all its features, then with each feature it uses turned off on its own."""
    return _cpu.variants()


def force_backend(name: str | None) -> None:
    """Force a backend or variant (e.g. ``"avx2-novaes"``) process-wide; ``None`` returns
    to automatic selection.

    Raises :class:`guomi.exceptions.UnsupportedBackend` if the name is unknown or this CPU
    cannot run it.
    """
    _cpu.force(name)
