"""Benchmark operations: SM3, HMAC-SM3, hash_many, the KDF and PBKDF2."""

from __future__ import annotations

import hashlib
import hmac as std_hmac

import guomi.sm3 as sm3
from guomi.bench import Impl, Op, pattern, size_name, try_import


def _hashlib_has_sm3() -> bool:
    try:
        hashlib.new("sm3")
    except ValueError:
        return False
    return True


def ops(compare: bool) -> list[Op]:
    has_hashlib_sm3 = compare and _hashlib_has_sm3()
    crypto_hashes = try_import("cryptography.hazmat.primitives.hashes") if compare else None
    gmssl_sm3 = try_import("gmssl.sm3") if compare else None
    gmssl_func = try_import("gmssl.func") if compare else None
    gmalglib = try_import("gmalglib") if compare else None
    gmssl_pyx = try_import("gmssl_pyx") if compare else None
    gmssl_fast = try_import("gmssl_fast") if compare else None
    tongsuo_hashes = try_import("tongsuopy.crypto.hashes") if compare else None

    def sized(size: int) -> Op:
        data = pattern(size)
        op = Op("SM3", f"SM3 {size_name(size)}", size, [Impl("guomi", lambda: sm3.hash(data))])
        if has_hashlib_sm3:
            op.impls.append(Impl("hashlib", lambda: hashlib.new("sm3", data).digest()))
        if crypto_hashes is not None:

            def crypto_sm3() -> bytes:
                h = crypto_hashes.Hash(crypto_hashes.SM3())
                h.update(data)
                return bytes(h.finalize())

            op.impls.append(Impl("cryptography", crypto_sm3))
        if tongsuo_hashes is not None:

            def tongsuo_sm3() -> bytes:
                h = tongsuo_hashes.Hash(tongsuo_hashes.SM3())
                h.update(data)
                return bytes(h.finalize())

            op.impls.append(Impl("tongsuopy", tongsuo_sm3))
        if gmssl_pyx is not None:
            op.impls.append(Impl("gmssl-pyx", lambda: gmssl_pyx.sm3_hash(data)))
        if gmssl_fast is not None:
            op.impls.append(Impl("gmssl-fast", lambda: gmssl_fast.sm3(data)))
        if gmalglib is not None:
            op.impls.append(Impl("gmalglib", lambda: gmalglib.sm3_digest(data)))
        if gmssl_sm3 is not None and gmssl_func is not None:
            gmssl_call = lambda: gmssl_sm3.sm3_hash(gmssl_func.bytes_to_list(data))  # noqa: E731
            op.impls.append(Impl("gmssl", gmssl_call, normalize=bytes.fromhex))
        return op

    ops = [sized(size) for size in (32, 1024, 1 << 20)]
    msgs = [pattern(1024)[i:] + bytes([i]) * i for i in range(16)]
    op = Op("SM3", "SM3 hash_many 16 x 1 KiB", sum(map(len, msgs)))
    op.impls.append(Impl("guomi", lambda: sm3.hash_many(msgs)))
    op.impls.append(Impl("guomi loop", lambda: [sm3.hash(m) for m in msgs]))
    if has_hashlib_sm3:
        op.impls.append(Impl("hashlib", lambda: [hashlib.new("sm3", m).digest() for m in msgs]))
    ops.append(op)

    key = b"k" * 32
    data = pattern(1024)
    op = Op("SM3", "HMAC-SM3 1 KiB", 1024, [Impl("guomi", lambda: sm3.hmac(key, data))])
    if has_hashlib_sm3:
        op.impls.append(Impl("hashlib", lambda: std_hmac.new(key, data, "sm3").digest()))
    if gmssl_pyx is not None:
        op.impls.append(Impl("gmssl-pyx", lambda: gmssl_pyx.sm3_hmac(key, data)))
    if gmssl_fast is not None:
        op.impls.append(Impl("gmssl-fast", lambda: gmssl_fast.sm3_hmac(key, data)))
    ops.append(op)

    # The GM/T 0003 KDF (SM2/SM9 encryption's keystream) from a 64-byte Z, as SM2's x2 || y2.
    z = pattern(64)
    op = Op("SM3", "SM3 KDF 1 KiB", 1024, [Impl("guomi", lambda: sm3.kdf(z, 1024))])
    if gmssl_pyx is not None:
        op.impls.append(Impl("gmssl-pyx", lambda: gmssl_pyx.sm3_kdf(z, 1024)))
    if gmalglib is not None:
        op.impls.append(Impl("gmalglib", lambda: gmalglib.sm3_kdf(z, 1024)))
    if gmssl_sm3 is not None:
        # gmssl takes Z as hex text (bytes) and returns hex.
        z_hex = z.hex().encode()
        op.impls.append(Impl("gmssl", lambda: gmssl_sm3.sm3_kdf(z_hex, 1024), normalize=bytes.fromhex))
    ops.append(op)

    op = Op(
        "SM3",
        "PBKDF2-HMAC-SM3 10,000 iterations",
        None,
        [Impl("guomi", lambda: sm3.pbkdf2_hmac(b"password", b"salt", 10_000, 32))],
    )
    if has_hashlib_sm3:
        op.impls.append(Impl("hashlib", lambda: hashlib.pbkdf2_hmac("sm3", b"password", b"salt", 10_000, 32)))
    ops.append(op)
    return ops
