"""Benchmark operations: SM4 modes (ECB, CBC, CTR, GCM, XTS)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
        mod, algorithms, modes = (try_import(base + sub) for sub in ("", ".algorithms", ".modes"))
        if mod is not None and algorithms is not None and hasattr(algorithms, "SM4"):
            peers.append((name, mod.Cipher, algorithms, modes))
    return peers


def _crypt(cipher: Any, alg: Any, mode: Any, data: bytes) -> Callable[[], bytes]:
    def run() -> bytes:
        enc = cipher(alg, mode).encryptor()
        return bytes(enc.update(data) + enc.finalize())

    return run


def _gcm_peer(cipher: Any, algorithms: Any, modes: Any, data: bytes) -> Callable[[], bytes]:
    def run() -> bytes:
        enc = cipher(algorithms.SM4(KEY), modes.GCM(NONCE)).encryptor()
        out = enc.update(data) + enc.finalize()
        return bytes(out + enc.tag)

    return run


def _pair(f: Any, data: bytes) -> Callable[[], bytes]:
    """Peers returning (ciphertext, tag): concatenated for comparison."""

    def run() -> bytes:
        ct, tag = f(KEY, NONCE, b"", data)
        return bytes(ct + tag)

    return run


def _sized(size: int, compare: bool) -> list[Op]:
    peers = _cipher_peers(compare)
    gmssl_sm4 = try_import("gmssl.sm4") if compare else None
    gmssl_pyx = try_import("gmssl_pyx") if compare else None
    fast = try_import("gmssl_fast._core") if compare else None
    data = pattern(size)
    label = size_name(size)
    gcm = sm4.SM4GCM(KEY)

    ecb = Op("SM4", f"SM4-ECB encrypt {label}", size)
    ecb.impls.append(Impl("guomi", lambda: sm4.encrypt(KEY, data, mode="ecb", padding="none")))
    cbc = Op("SM4", f"SM4-CBC encrypt {label}", size)
    cbc.impls.append(Impl("guomi", lambda: sm4.encrypt(KEY, data, mode="cbc", iv=IV, padding="none")))
    ctr = Op("SM4", f"SM4-CTR encrypt {label}", size)
    ctr.impls.append(Impl("guomi", lambda: sm4.encrypt(KEY, data, mode="ctr", iv=IV)))
    gcm_op = Op("SM4", f"SM4-GCM encrypt {label}", size)
    gcm_op.impls.append(Impl("guomi", lambda: gcm.encrypt(NONCE, data, None)))

    for name, cipher, algorithms, modes in peers:
        ecb.impls.append(Impl(name, _crypt(cipher, algorithms.SM4(KEY), modes.ECB(), data)))
        cbc.impls.append(Impl(name, _crypt(cipher, algorithms.SM4(KEY), modes.CBC(IV), data)))
        ctr.impls.append(Impl(name, _crypt(cipher, algorithms.SM4(KEY), modes.CTR(IV), data)))
        gcm_op.impls.append(Impl(name, _gcm_peer(cipher, algorithms, modes, data)))
    if gmssl_pyx is not None:
        # gmssl-pyx always pads CBC: compare the first `size` bytes.
        cbc.impls.append(Impl("gmssl-pyx", lambda: gmssl_pyx.sm4_cbc_padding_encrypt(KEY, IV, data)[:size]))
        ctr.impls.append(Impl("gmssl-pyx", lambda: gmssl_pyx.sm4_ctr_encrypt(KEY, IV, data)))
        gcm_op.impls.append(Impl("gmssl-pyx", _pair(gmssl_pyx.sm4_gcm_encrypt, data)))
    if fast is not None:
        ecb.impls.append(Impl("gmssl-fast", lambda: fast.sm4_ecb_encrypt(KEY, data)[:size]))
        ctr.impls.append(Impl("gmssl-fast", lambda: fast.sm4_ctr_xor(KEY, IV, data)))
        gcm_op.impls.append(Impl("gmssl-fast", _pair(fast.sm4_gcm_encrypt, data)))
    if gmssl_sm4 is not None:
        ecb_c = gmssl_sm4.CryptSM4(padding_mode=-1)  # neither PKCS7 (0) nor ZERO (1): no padding
        ecb_c.set_key(KEY, gmssl_sm4.SM4_ENCRYPT)
        ecb.impls.append(Impl("gmssl", lambda: bytes(ecb_c.crypt_ecb(data))))
        # gmssl always pads CBC: compare the first `size` bytes.
        cbc.impls.append(Impl("gmssl", lambda: bytes(ecb_c.crypt_cbc(IV, data))[:size]))
    return [ecb, cbc, ctr, gcm_op]


def ops(compare: bool) -> list[Op]:
    result = _sized(1024, compare) + _sized(1 << 20, compare)
    data = pattern(1 << 20)
    key32 = bytes(range(32))
    tweak = bytes(16)
    xts = Op("SM4", "SM4-XTS encrypt 1 MiB", 1 << 20)
    xts.impls.append(Impl("guomi", lambda: sm4.xts_encrypt(key32, tweak, data)))
    result.append(xts)
    return result
