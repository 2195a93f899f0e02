"""CPU feature detection and backend selection (see `guomi.backend`)."""

from typing import Optional

__all__ = [
    "active",
    "active_variant",
    "detected",
    "available",
    "variants",
    "force",
    "check_env",
]

def active() -> str:
    """The backend in use."""

def active_variant() -> str:
    """The variant in use (backend plus the optional features turned off, e.g. `avx2-novaes`)."""

def detected() -> str:
    """The best backend this CPU supports."""

def available() -> list[str]:
    """Backends this CPU supports, lowest first."""

def variants() -> list[str]:
    """One variant per code path this CPU can run, lowest backend first."""

def force(name: Optional[str] = None) -> None:
    """Forces a backend or variant process-wide (`None` restores automatic selection)."""

def check_env() -> None:
    """Raises if `GUOMI_BACKEND` names a backend this CPU cannot run."""
