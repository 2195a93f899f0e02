"""gmssl's ``func`` helpers: the same names and the same results.

These are data-shuffling helpers (lists of byte values, 32-bit words, padding), not
cryptography, so they are plain Python written to give exactly gmssl 3.2.x's results,
quirks included (``zero_padding`` always appends 1 to 16 zero bytes; ``zero_unpadding``
removes one trailing zero byte, and returns the integer ``2`` when the last byte is not
zero; ``pkcs7_unpadding`` does not check the padding). The one difference:
:func:`random_hex` draws from the operating system's CSPRNG (:mod:`secrets`), where gmssl
used :func:`random.choice` (Mersenne Twister, predictable).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = [
    "bytes_to_list",
    "get_uint32_be",
    "list_to_bytes",
    "pkcs7_padding",
    "pkcs7_unpadding",
    "put_uint32_be",
    "random_hex",
    "rotl",
    "xor",
    "zero_padding",
    "zero_unpadding",
]


def xor(a: Iterable[int], b: Iterable[int]) -> list[int]:
    """Element-wise XOR of two sequences of ints, as long as the shorter one."""
    return [x ^ y for x, y in zip(a, b, strict=False)]


def rotl(x: int, n: int) -> int:
    """Rotates the 32-bit word ``x`` left by ``n`` bits (0 < n < 32)."""
    return ((x << n) & 0xFFFFFFFF) | ((x >> (32 - n)) & 0xFFFFFFFF)


def get_uint32_be(key_data: Sequence[int]) -> int:
    """The big-endian 32-bit word of the first four byte values."""
    return (key_data[0] << 24) | (key_data[1] << 16) | (key_data[2] << 8) | key_data[3]


def put_uint32_be(n: int) -> list[int]:
    """The four big-endian byte values of the 32-bit word ``n``."""
    return [(n >> 24) & 0xFF, (n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF]


def pkcs7_padding(data: list[int], block: int = 16) -> list[int]:
    """``data`` plus PKCS#7 padding (gmssl's formula: ``16 - len(data) % block`` copies of
    that count, so ``block`` other than 16 gives what gmssl gives)."""
    count = 16 - len(data) % block
    return data + [count] * count


def zero_padding(data: list[int], block: int = 16) -> list[int]:
    """``data`` plus ``16 - len(data) % block`` zero values (1 to 16: a whole block of zeros
    when ``data`` is already aligned, as gmssl does)."""
    return data + [0] * (16 - len(data) % block)


def pkcs7_unpadding(data: Any) -> Any:
    """``data`` without its last ``data[-1]`` items. The padding is not checked (as in
    gmssl): a last value of 0 or above ``len(data)`` gives an empty result. Raises
    ``IndexError`` on empty ``data``."""
    return data[: -data[-1]]


def zero_unpadding(data: Any, i: int = 1) -> Any:
    """gmssl's zero unpadding, unchanged: ``data[:-i]`` when ``data[-i] == 0``, else the
    integer ``i + 1``."""
    return data[:-i] if data[-i] == 0 else i + 1


def list_to_bytes(data: Iterable[int]) -> bytes:
    """A list of byte values (0..255) as ``bytes``."""
    return b"".join(bytes((i,)) for i in data)


def bytes_to_list(data: Iterable[Any]) -> list[Any]:
    """The items of ``data`` as a list (for ``bytes``: the byte values)."""
    return list(data)


def random_hex(x: int) -> str:
    """``x`` random lowercase hex digits from the OS CSPRNG (``""`` when ``x <= 0``).

    Unlike gmssl (``random.choice``, a Mersenne Twister), the output is unpredictable.
    ``x`` is bounded only by memory, as in gmssl."""
    if x <= 0:
        return ""
    return secrets.token_hex((x + 1) // 2)[:x]
