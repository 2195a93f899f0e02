"""Benchmark operations: ZUC-128 keystream, 128-EEA3/EIA3, batch EEA3, ZUC-256."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import guomi.zuc as zuc
from guomi.bench import Impl, Op, pattern, try_import

KEY = bytes(range(16))
IV = bytes(range(16, 32))


def _gmalglib_xor(gmalglib: Any, data: bytes) -> Callable[[], bytes]:
    """gmalglib yields one 32-bit keystream word per call: XOR them in."""

    def run() -> bytes:
        z = gmalglib.zuc.ZUC(KEY, IV)
        stream = b"".join(z.generate() for _ in range((len(data) + 3) // 4))
        return bytes(a ^ b for a, b in zip(data, stream, strict=False))

    return run


def ops(compare: bool) -> list[Op]:
    gmalglib = try_import("gmalglib") if compare else None
    data64 = pattern(64)
    data1k = pattern(1024)
    data8k = pattern(8192)

    ks = Op(
        "ZUC", "ZUC-128 keystream XOR 1 KiB", 1024, [Impl("guomi", lambda: zuc.ZUC(KEY, IV).update(data1k))]
    )
    if gmalglib is not None:
        ks.impls.append(Impl("gmalglib", _gmalglib_xor(gmalglib, data1k)))

    result = [ks]
    for label, data in (("64 B", data64), ("1 KiB", data1k), ("8 KiB", data8k)):
        op = Op("ZUC", f"128-EEA3 {label}", len(data))
        op.impls.append(Impl("guomi", lambda data=data: zuc.eea3(KEY, 0x12345678, 5, 1, data)))  # type: ignore[misc]
        result.append(op)
    result.append(
        Op("ZUC", "128-EIA3 8 KiB", 8192, [Impl("guomi", lambda: zuc.eia3(KEY, 0x12345678, 5, 1, data8k))])
    )
    items = [(KEY, i, 3, 0, data1k) for i in range(16)]
    many = Op("ZUC", "eea3_many 16 x 1 KiB", 16 * 1024)
    many.impls.append(Impl("guomi", lambda: zuc.eea3_many(items)))
    many.impls.append(Impl("guomi loop", lambda: [zuc.eea3(*item) for item in items]))
    result.append(many)
    key256, iv256 = bytes(range(32)), bytes(25)
    result.append(
        Op(
            "ZUC",
            "ZUC-256 keystream 1 KiB",
            1024,
            [Impl("guomi", lambda: zuc.zuc256_keystream(key256, iv256, 256))],
        )
    )
    return result
