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
    """The backend new key objects and one-shot calls use now (the binding behind
    ``guomi.backend.active_backend``).

    The order of precedence: :func:`force`, then the ``GUOMI_BACKEND`` environment
    variable (read once, at first use), then the best backend detected.

    Returns:
        str: ``"portable"``, or one of this architecture's backends: ``"avx2"``,
        ``"avx512"`` (x86-64), ``"neon"``, ``"armsm"`` (aarch64), ``"zk"``, ``"zvk"``
        (riscv64).

    Example:
        >>> from guomi._native import cpu
        >>> cpu.active() in cpu.available()
        True
    """

def active_variant() -> str:
    """The variant new key objects and one-shot calls use now (the binding behind
    ``guomi.backend.active_variant``): the backend's name followed by ``-no<feature>``
    for each optional feature turned off, e.g. ``"avx512"`` or ``"avx2-novaes"``.

    Returns:
        str: one of the names in :func:`variants`.

    Example:
        >>> from guomi._native import cpu
        >>> cpu.active_variant() in cpu.variants()
        True
    """

def detected() -> str:
    """The best backend this CPU supports, whatever is forced (the binding behind
    ``guomi.backend.detected_backend``). Detection runs once per process.

    Returns:
        str: ``"portable"``, or one of this architecture's backends: ``"avx2"``,
        ``"avx512"`` (x86-64), ``"neon"``, ``"armsm"`` (aarch64), ``"zk"``, ``"zvk"``
        (riscv64).

    Example:
        >>> from guomi._native import cpu
        >>> cpu.detected() == cpu.available()[-1]
        True
    """

def available() -> list[str]:
    """Every backend this CPU can run, lowest first (the binding behind
    ``guomi.backend.available_backends``).

    Returns:
        list[str]: starts with ``"portable"``, ends with :func:`detected`.

    Example:
        >>> from guomi._native import cpu
        >>> cpu.available()[0]
        'portable'
    """

def variants() -> list[str]:
    """One variant per code path this CPU can run, lowest backend first (the binding
    behind ``guomi.backend.available_variants``): each backend with all its features,
    then with each optional feature it uses (and the CPU has) turned off on its own.

    Returns:
        list[str]: e.g. ``["portable", "avx2", "avx2-novaes", "avx2-noadx"]`` on x86-64,
        ``["portable", "neon", "neon-nopmull", "armsm", "armsm-nopmull"]`` on aarch64.

    Example:
        >>> from guomi._native import cpu
        >>> set(cpu.available()) <= set(cpu.variants())
        True
    """

def force(name: Optional[str] = None) -> None:
    """Forces a backend or variant for the whole process (the binding behind
    ``guomi.backend.force_backend``). Key objects made earlier keep theirs.

    Args:
        name: a backend (``"portable"``, ``"avx2"``, ``"avx512"``, ``"neon"``,
            ``"armsm"``, ``"zk"``, ``"zvk"``) or variant name
            (e.g. ``"avx2-novaes"``, ``"avx512-novbmi-noadx"``), any case; ``None``
            returns to automatic selection (``GUOMI_BACKEND``, then detection).

    Returns:
        None.

    Raises:
        UnsupportedBackend: the name is unknown, names a feature the backend does not
            use, or this CPU cannot run it. Nothing changes then.

    Example:
        >>> from guomi._native import cpu
        >>> cpu.force("portable")
        >>> cpu.active()
        'portable'
        >>> cpu.force(None)
        >>> cpu.active() in cpu.available()
        True
    """

def check_env() -> None:
    """Checks the ``GUOMI_BACKEND`` environment variable: an unusable value is otherwise
    ignored silently (detection is used), so call this to report it.

    Returns:
        None, when ``GUOMI_BACKEND`` is unset or names a backend or variant this CPU
        can run.

    Raises:
        UnsupportedBackend: ``GUOMI_BACKEND`` is not a valid name or names a backend
            this CPU cannot run.

    Example:
        >>> from guomi._native import cpu
        >>> cpu.check_env()  # GUOMI_BACKEND unset or valid
    """
