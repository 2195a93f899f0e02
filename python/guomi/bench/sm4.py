"""Benchmark operations: SM4 modes (ECB, CBC, CTR, GCM, XTS)."""

from __future__ import annotations

from typing import Any, Callable

import guomi.sm4 as sm4
from guomi.bench import Impl, Op, pattern, size_name, try_import

KEY = bytes.fromhex("0123456789abcdeffedcba9876543210")
IV = bytes(range(16))
NONCE = bytes(range(12))


def _cipher_peers(compare: bool) -> list[tuple[str, Any, Any, Any]]:
    """(name, Cipher, algorithms, modes) for the cryptography-style peers installed."""
    peers: list[tuple[str, Any, Any, Any]] = []
    if not compare:
        return peers
    for name, base in (
        ("cryptography", "cryptography.hazmat.primitives.ciphers"),
        ("tongsuopy", "tongsuopy.crypto.ciphers"),
    ):
        mod = try_import(base)
        if mod is not None and hasattr(mod.algorithms, "SM4"):
            peers.append((name, mod.Cipher, mod.algorithms, mod.modes))
    return peers


def _crypt(cipher: Any, alg: Any, mode: Any) -> Callable[[bytes], bytes]:
    def run(data: bytes) -> bytes:
        enc = cipher(alg, mode).encryptor()
        return bytes(enc.update(data) + enc.finalize())

    return run


def ops(compare: bool) -> list[Op]:
    peers = _cipher_peers(compare)
    gmssl_sm4 = try_import("gmssl.sm4") if compare else None
    gmssl_pyx = try_import("gmssl_pyx") if compare else None
    gmssl_fast_core = try_import("gmssl_fast._core") if compare else None
    gcm = sm4.SM4GCM(KEY)
    result: list[Op] = []

    for size in (1024, 1 << 20):
        data = pattern(size)
        label = size_name(size)

        op = Op("SM4", f"SM4-ECB encrypt {label}", size)
        op.impls.append(Impl("guomi", lambda d=data: sm4.encrypt(KEY, d, mode="ecb", padding="none")))  # type: ignore[misc]
        for name, cipher, alg, modes in peers:
            f = _crypt(cipher, alg.SM4(KEY), modes.ECB())
            op.impls.append(Impl(name, lambda d=data, f=f: f(d)))  # type: ignore[misc]
        if gmssl_fast_core is not None:
            # gmssl-fast always pads: compare the first `size` bytes.
            op.impls.append(
                Impl("gmssl-fast", lambda d=data: gmssl_fast_core.sm4_ecb_encrypt(KEY, d)[: len(d)])  # type: ignore[misc]
            )
        if gmssl_sm4 is not None:
            c = gmssl_sm4.CryptSM4(padding_mode=0)  # no padding
            c.set_key(KEY, gmssl_sm4.SM4_ENCRYPT)
            op.impls.append(Impl("gmssl", lambda d=data, c=c: bytes(c.crypt_ecb(d))))  # type: ignore[misc]
        result.append(op)

        op = Op("SM4", f"SM4-CBC encrypt {label}", size)
        op.impls.append(Impl("guomi", lambda d=data: sm4.encrypt(KEY, d, mode="cbc", iv=IV, padding="none")))  # type: ignore[misc]
        for name, cipher, alg, modes in peers:
            f = _crypt(cipher, alg.SM4(KEY), modes.CBC(IV))
            op.impls.append(Impl(name, lambda d=data, f=f: f(d)))  # type: ignore[misc]
        if gmssl_pyx is not None:
            op.impls.append(
                Impl("gmssl-pyx", lambda d=data: gmssl_pyx.sm4_cbc_padding_encrypt(KEY, IV, d)[: len(d)])  # type: ignore[misc]
            )
        if gmssl_sm4 is not None:
            c = gmssl_sm4.CryptSM4(padding_mode=0)
            c.set_key(KEY, gmssl_sm4.SM4_ENCRYPT)
            op.impls.append(Impl("gmssl", lambda d=data, c=c: bytes(c.crypt_cbc(IV, d))))  # type: ignore[misc]
        result.append(op)

        op = Op("SM4", f"SM4-CTR encrypt {label}", size)
        op.impls.append(Impl("guomi", lambda d=data: sm4.encrypt(KEY, d, mode="ctr", iv=IV)))  # type: ignore[misc]
        for name, cipher, alg, modes in peers:
            f = _crypt(cipher, alg.SM4(KEY), modes.CTR(IV))
            op.impls.append(Impl(name, lambda d=data, f=f: f(d)))  # type: ignore[misc]
        if gmssl_pyx is not None:
            op.impls.append(Impl("gmssl-pyx", lambda d=data: gmssl_pyx.sm4_ctr_encrypt(KEY, IV, d)))  # type: ignore[misc]
        if gmssl_fast_core is not None:
            op.impls.append(Impl("gmssl-fast", lambda d=data: gmssl_fast_core.sm4_ctr_xor(KEY, IV, d)))  # type: ignore[misc]
        result.append(op)

        op = Op("SM4", f"SM4-GCM encrypt {label}", size)
        op.impls.append(Impl("guomi", lambda d=data: gcm.encrypt(NONCE, d, None)))  # type: ignore[misc]
        for name, cipher, alg, modes in peers:

            def gcm_peer(d: bytes, cipher: Any = cipher, alg: Any = alg, modes: Any = modes) -> bytes:
                enc = cipher(alg.SM4(KEY), modes.GCM(NONCE)).encryptor()
                out = enc.update(d) + enc.finalize()
                return bytes(out + enc.tag)

            op.impls.append(Impl(name, lambda d=data, f=gcm_peer: f(d)))  # type: ignore[misc]
        if gmssl_pyx is not None:

            def pyx_gcm(d: bytes) -> bytes:
                ct, tag = gmssl_pyx.sm4_gcm_encrypt(KEY, NONCE, b"", d)
                return bytes(ct + tag)

            op.impls.append(Impl("gmssl-pyx", lambda d=data: pyx_gcm(d)))  # type: ignore[misc]
        if gmssl_fast_core is not None:

            def fast_gcm(d: bytes) -> bytes:
                ct, tag = gmssl_fast_core.sm4_gcm_encrypt(KEY, NONCE, b"", d)
                return bytes(ct + tag)

            op.impls.append(Impl("gmssl-fast", lambda d=data: fast_gcm(d)))  # type: ignore[misc]
        result.append(op)

    data = pattern(1 << 20)
    key32 = bytes(range(32))
    tweak = bytes(16)
    op = Op("SM4", "SM4-XTS encrypt 1 MiB", 1 << 20)
    op.impls.append(Impl("guomi", lambda: sm4.xts_encrypt(key32, tweak, data)))
    result.append(op)
    return result
