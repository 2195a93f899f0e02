"""Which implementation (backend) guomi runs on this CPU, and how to force one.

Each architecture has a ladder of backends above ``portable`` (plain Rust, constant
time, any CPU):

* x86-64: ``avx2`` (AVX2 + AES-NI + PCLMULQDQ + BMI2), then ``avx512`` (AVX-512 + GFNI +
  VAES + VPCLMULQDQ);
* aarch64: ``neon`` (Advanced SIMD, every Armv8-A core), then ``armsm`` (the SM3 and SM4
  instructions, FEAT_SM3/FEAT_SM4: ``sm3 sm4`` in ``/proc/cpuinfo``);
* riscv64: ``zk`` (scalar Zksed + Zksh), then ``zvk`` (``zk`` plus V, Zvksed, Zvksh).

The best one the CPU supports is used unless the environment variable
``GUOMI_BACKEND`` (read once, at first use) or :func:`force_backend` says otherwise.
Key objects remember the backend (and variant) that was active when they were created.

Inside a backend, optional CPU features select *variants*; a variant's name is the
backend's followed by ``-no<feature>`` for each feature turned off:

* ``vaes`` (``avx2``): SM4 through 256-bit VAES; ``avx2-novaes`` uses 128-bit AES-NI;
* ``vbmi`` (``avx512``): ZUC's S-box S0 through AVX512-VBMI/VBMI2 register tables;
  ``avx512-novbmi`` uses nibble shuffles;
* ``adx`` (``avx2``, ``avx512``): SM2 field products in MULX/ADCX/ADOX assembly;
  ``avx2-noadx`` / ``avx512-noadx`` use the portable Montgomery code;
* ``pmull`` (``neon``, ``armsm``): GHASH with PMULL; ``neon-nopmull`` uses the portable
  GHASH;
* ``zvkg`` (``zvk``): GHASH with ``vghsh``; ``zvk-nozvkg`` uses the portable GHASH.

:func:`available_variants` lists one variant per code path this CPU can run; each can be
forced with :func:`force_backend` or ``GUOMI_BACKEND`` like a backend.

>>> from guomi import backend
>>> backend.available_backends()[0]
'portable'
>>> backend.detected_backend() in backend.available_backends()
True
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
    """The backend new key objects and one-shot calls use now.

    The order of precedence: :func:`force_backend`, then ``GUOMI_BACKEND`` (read once,
    at first use), then :func:`detected_backend`.

    Returns:
        str: ``"portable"`` or one of this architecture's backends (``"avx2"``,
        ``"avx512"``, ``"neon"``, ``"armsm"``, ``"zk"``, ``"zvk"``).

    Example:
        >>> from guomi import backend
        >>> backend.active_backend() in backend.available_backends()
        True
    """
    return _cpu.active()


def active_variant() -> str:
    """The variant new key objects and one-shot calls use now.

    Returns:
        str: the backend's name, followed by ``-no<feature>`` for each optional feature
        turned off, e.g. ``"avx512"`` or ``"avx2-novaes"``; one of
        :func:`available_variants`.

    Example:
        >>> from guomi import backend
        >>> backend.active_variant() in backend.available_variants()
        True
    """
    return _cpu.active_variant()


def detected_backend() -> str:
    """The best backend this CPU supports, whatever is forced (detected once).

    Returns:
        str: ``"portable"`` or one of this architecture's backends (``"avx2"``,
        ``"avx512"``, ``"neon"``, ``"armsm"``, ``"zk"``, ``"zvk"``).

    Example:
        >>> from guomi import backend
        >>> backend.detected_backend() == backend.available_backends()[-1]
        True
    """
    return _cpu.detected()


def available_backends() -> list[str]:
    """Every backend this CPU can run, lowest first.

    Returns:
        list[str]: starts with ``"portable"`` and ends with :func:`detected_backend`.

    Example:
        >>> from guomi import backend
        >>> backend.available_backends()[0]
        'portable'
    """
    return _cpu.available()


def available_variants() -> list[str]:
    """One variant per code path this CPU can run, lowest backend first.

    Each backend with all its features, then with each optional feature it uses (and the
    CPU has) turned off on its own: on an x86-64 CPU with everything, ``portable``,
    ``avx2``, ``avx2-novaes``, ``avx2-noadx``, ``avx512``, ``avx512-novbmi``,
    ``avx512-noadx``; on an aarch64 CPU with the SM instructions, ``portable``, ``neon``,
    ``neon-nopmull``, ``armsm``, ``armsm-nopmull``.

    Returns:
        list[str]: the variant names; every name can be passed to :func:`force_backend`.

    Example:
        >>> from guomi import backend
        >>> set(backend.available_backends()) <= set(backend.available_variants())
        True
    """
    return _cpu.variants()


def force_backend(name: str | None) -> None:
    """Forces a backend or variant for the whole process.

    Key objects made earlier keep the backend they were made with; new ones and
    one-shot calls use the forced one.

    Args:
        name: a backend (``"portable"``, ``"avx2"``, ``"avx512"``, ``"neon"``,
            ``"armsm"``, ``"zk"``, ``"zvk"``) or a variant (e.g.
            ``"avx2-novaes"``, ``"avx512-novbmi-noadx"``), any case; ``None`` returns to
            automatic selection (``GUOMI_BACKEND``, then detection).

    Raises:
        UnsupportedBackend: the name is unknown, names a feature the backend does not
            use, or this CPU cannot run it; nothing changes then.

    Example:
        >>> from guomi import backend
        >>> backend.force_backend("portable")
        >>> backend.active_backend()
        'portable'
        >>> backend.force_backend(None)
    """
    _cpu.force(name)
