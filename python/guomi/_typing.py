"""Type aliases shared by the facade modules and the stubs of ``guomi._native``."""

from __future__ import annotations

from typing import Union

__all__ = ["BytesLike"]

#: Any bytes-like argument guomi accepts: ``bytes`` (read without a copy), ``bytearray``
#: or ``memoryview`` (copied once). Other buffer objects work at run time too; ``str`` is
#: refused with ``TypeError``.
BytesLike = Union[bytes, bytearray, memoryview]
