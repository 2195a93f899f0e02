"""Which implementation (backend) guomi runs on this CPU, and how to force one.

Backends form a ladder: ``portable`` (plain Rust, constant time, any CPU), ``avx2``
(x86-64 AVX2 + AES-NI + PCLMULQDQ + BMI2) and ``avx512`` (AVX-512 + GFNI + VAES +
VPCLMULQDQ). The best one the CPU supports is used unless the environment variable
``GUOMI_BACKEND`` (read once, at first use) or :func:`force_backend` says otherwise.
Key objects remember the backend that was active when they were created.
"""

from __future__ import annotations

from guomi._native import cpu as _cpu

__all__ = ["active_backend", "available_backends", "detected_backend", "force_backend"]


def active_backend() -> str:
    """The backend new objects use: ``"portable"``, ``"avx2"`` or ``"avx512"``."""
    return _cpu.active()


def detected_backend() -> str:
    """The best backend this CPU supports."""
    return _cpu.detected()


def available_backends() -> list[str]:
    """Every backend this CPU can run, lowest first."""
    return _cpu.available()


def force_backend(name: str | None) -> None:
    """Force ``name`` process-wide; ``None`` returns to automatic selection.

    Raises :class:`guomi.exceptions.UnsupportedBackend` if this CPU cannot run it.
    """
    _cpu.force(name)
