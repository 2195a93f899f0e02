"""Benchmark operations: SM2 key generation, signatures, encryption, key exchange.

Signatures and ciphertexts are randomized, so peers are checked by cross-verification:
a peer's signature must verify in guomi and guomi's in the peer; a peer's ciphertext must
decrypt in guomi and guomi's in the peer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import guomi.sm2 as sm2
from guomi.bench import Impl, Op, pattern, size_name, try_import

#: The signing key of GB/T 32918.5 Appendix A (so every library sees the same key).
D = bytes.fromhex("3945208f7b2144b13f36e38ac6d39f95889393692860b51a42fb81ef4df7c5b8")
MSG = pattern(64)
KIB = pattern(1024)


def ops(compare: bool) -> list[Op]:
    priv = sm2.PrivateKey.from_bytes(D)
    pub = priv.public_key()
    pub.prepare()
    raw_pub = pub.to_bytes(format="raw")  # x || y
    full_pub = pub.to_bytes()  # 04 || x || y

    keygen = Op(
        "SM2", "SM2 key generation", None, [Impl("guomi", lambda: sm2.PrivateKey.generate().public_key())]
    )
    sign = Op("SM2", "SM2 sign 64 B", None)
    sign.impls.append(Impl("guomi", lambda: priv.sign(MSG), verify=lambda s: pub.verify(s, MSG)))
    sig_der = priv.sign(MSG)
    sig_raw = sm2.signature_der_to_raw(sig_der)
    verify = Op("SM2", "SM2 verify 64 B", None, [Impl("guomi", lambda: pub.verify(sig_der, MSG))])
    # The first verify to a new peer (a certificate chain): a new key object per call, so
    # neither prepare() nor the automatic preparation at a key object's 4th use applies.
    verify_fresh = Op("SM2", "SM2 verify 64 B (key not prepared)", None)
    verify_fresh.impls.append(Impl("guomi", lambda: sm2.PublicKey.from_bytes(full_pub).verify(sig_der, MSG)))
    encrypt, decrypt, ct = _crypt_ops(priv, pub, MSG)
    # A longer message: the KDF keystream and the C3 hash grow with it (MB/s column).
    encrypt_kib, decrypt_kib, ct_kib = _crypt_ops(priv, pub, KIB, size=len(KIB))

    def exchange() -> bytes:
        a, b = sm2.PrivateKey.generate(), priv
        ini = sm2.KeyExchangeInitiator(a, pub, uid=b"alice", peer_uid=b"bob")
        rb, kb, sb = sm2.KeyExchangeResponder(b, a.public_key(), uid=b"bob", peer_uid=b"alice").respond(
            ini.ephemeral_public_key, 16
        )
        ka, _sa = ini.finish(rb, 16, peer_confirmation=sb)
        assert ka == kb
        return ka

    kex = Op(
        "SM2", "SM2 key exchange (both sides)", None, [Impl("guomi", exchange, verify=lambda k: len(k) == 16)]
    )

    items = [(pub, sig_der, MSG)] * 64
    many = Op("SM2", "SM2 verify_many 64 (all cores)", None)
    many.impls.append(Impl("guomi", lambda: sm2.verify_many(items, threads=0)))
    many.impls.append(Impl("guomi 1 thread", lambda: sm2.verify_many(items, threads=1)))
    many.impls.append(Impl("guomi loop", lambda: [pub.verify(s, m) for _, s, m in items]))

    if compare:
        _add_peers(priv, pub, raw_pub, full_pub, sig_der, sig_raw, sign, verify, keygen)
        _add_crypt_peers(priv, full_pub, raw_pub, MSG, ct, encrypt, decrypt)
        _add_crypt_peers(priv, full_pub, raw_pub, KIB, ct_kib, encrypt_kib, decrypt_kib)
        _add_p256_peer(verify_fresh)
    return [keygen, sign, verify, verify_fresh, encrypt, decrypt, encrypt_kib, decrypt_kib, kex, many]


def _crypt_ops(priv: Any, pub: Any, msg: bytes, size: int | None = None) -> tuple[Op, Op, bytes]:
    """guomi's encrypt and decrypt rows for ``msg`` (C1C3C2), and the ciphertext decrypted."""
    name = size_name(len(msg))
    encrypt = Op("SM2", f"SM2 encrypt {name}", size)
    encrypt.impls.append(Impl("guomi", lambda: pub.encrypt(msg), verify=lambda c: priv.decrypt(c) == msg))
    ct = pub.encrypt(msg)
    decrypt = Op("SM2", f"SM2 decrypt {name}", size, [Impl("guomi", lambda: priv.decrypt(ct))])
    return encrypt, decrypt, ct


def _add_p256_peer(verify_fresh: Op) -> None:
    """A reference point, not an SM2 peer: ECDSA P-256 / SHA-256 verification through
    ``cryptography`` (OpenSSL), with a new public-key object per call like guomi's row."""
    ec = try_import("cryptography.hazmat.primitives.asymmetric.ec")
    hashes = try_import("cryptography.hazmat.primitives.hashes")
    if ec is None or hashes is None:
        return
    key = ec.derive_private_key(int.from_bytes(D, "big"), ec.SECP256R1())
    point = key.public_key().public_numbers()
    encoded = b"\x04" + point.x.to_bytes(32, "big") + point.y.to_bytes(32, "big")
    algo = ec.ECDSA(hashes.SHA256())
    sig = key.sign(MSG, algo)

    def p256_verify() -> bool:
        pk = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), encoded)
        try:
            pk.verify(sig, MSG, algo)
        except Exception:  # noqa: BLE001 - cryptography raises InvalidSignature
            return False
        return True

    verify_fresh.impls.append(Impl("cryptography P-256", p256_verify))


def _add_peers(
    priv: Any,
    pub: Any,
    raw_pub: bytes,
    full_pub: bytes,
    sig_der: bytes,
    sig_raw: bytes,
    sign: Op,
    verify: Op,
    keygen: Op,
) -> None:
    def agrees_der(s: bytes) -> bool:
        return bool(pub.verify(s, MSG, format="der"))

    def agrees_raw(s: bytes) -> bool:
        return bool(pub.verify(s, MSG, format="raw"))

    gmalglib = try_import("gmalglib.core")
    if gmalglib is not None:
        signer = gmalglib.SM2(sk=D)
        verifier = gmalglib.SM2(pk=full_pub)
        keygen.impls.append(
            Impl(
                "gmalglib",
                lambda: try_import("gmalglib").sm2_generate_keypair(),
                verify=lambda k: len(k[0]) == 32,
            )
        )
        sign.impls.append(Impl("gmalglib", lambda: signer.sign(MSG), verify=agrees_raw))
        verify.impls.append(Impl("gmalglib", lambda: verifier.verify(MSG, sig_raw)))

    pyx = try_import("gmssl_pyx")
    if pyx is not None:
        keygen.impls.append(Impl("gmssl-pyx", pyx.sm2_key_generate, verify=lambda k: len(k[1]) == 32))
        sign.impls.append(Impl("gmssl-pyx", lambda: pyx.sm2_sign(D, raw_pub, MSG), verify=agrees_der))
        verify.impls.append(Impl("gmssl-pyx", lambda: pyx.sm2_verify(raw_pub, MSG, sig_der)))

    ec = try_import("tongsuopy.crypto.asymciphers.ec")
    hashes = try_import("tongsuopy.crypto.hashes")
    if ec is not None and hashes is not None:
        tkey = ec.derive_private_key(int.from_bytes(D, "big"), ec.SM2())
        tpub = tkey.public_key()
        algo = ec.ECDSA(hashes.SM3())

        def tverify() -> bool:
            try:
                tpub.verify(sig_der, MSG, algo)
            except Exception:  # noqa: BLE001 - tongsuopy raises InvalidSignature
                return False
            return True

        keygen.impls.append(
            Impl("tongsuopy", lambda: ec.generate_private_key(ec.SM2()), verify=lambda k: True)
        )
        sign.impls.append(Impl("tongsuopy", lambda: tkey.sign(MSG, algo), verify=agrees_der))
        verify.impls.append(Impl("tongsuopy", tverify))

    gmssl = try_import("gmssl.sm2")
    func = try_import("gmssl.func")
    if gmssl is not None and func is not None:
        # gmssl wants hex, public keys without 04, C1C3C2 (mode=1) without 04.
        crypt = gmssl.CryptSM2(private_key=D.hex(), public_key=raw_pub.hex(), mode=1)
        sign.impls.append(
            Impl(
                "gmssl",
                lambda: crypt.sign_with_sm3(MSG, func.random_hex(crypt.para_len)),
                verify=lambda s: agrees_raw(bytes.fromhex(s)),
            )
        )
        verify.impls.append(Impl("gmssl", lambda: crypt.verify_with_sm3(sig_raw.hex(), MSG)))


def _add_crypt_peers(
    priv: Any, full_pub: bytes, raw_pub: bytes, msg: bytes, ct: bytes, encrypt: Op, decrypt: Op
) -> None:
    """Peers' encryption of ``msg`` (checked by decrypting it in guomi) and decryption of
    guomi's C1C3C2 ciphertext ``ct``."""

    def decrypts(fmt: str | None) -> Callable[[bytes], bool]:
        return lambda c: priv.decrypt(c, format=fmt) == msg

    gmalglib = try_import("gmalglib.core")
    if gmalglib is not None:
        signer, verifier = gmalglib.SM2(sk=D), gmalglib.SM2(pk=full_pub)
        encrypt.impls.append(Impl("gmalglib", lambda: verifier.encrypt(msg), verify=decrypts("c1c3c2")))
        decrypt.impls.append(Impl("gmalglib", lambda: signer.decrypt(ct)))

    pyx = try_import("gmssl_pyx")
    # GmSSL 3 encrypts at most 255 bytes with SM2 (a longer plaintext is an error).
    if pyx is not None and len(msg) <= 255:
        ct_der = sm2.convert_ciphertext(ct, to="der")
        encrypt.impls.append(Impl("gmssl-pyx", lambda: pyx.sm2_encrypt(raw_pub, msg), verify=decrypts(None)))
        decrypt.impls.append(Impl("gmssl-pyx", lambda: pyx.sm2_decrypt(D, ct_der)))

    gmssl = try_import("gmssl.sm2")
    if gmssl is not None:
        # gmssl wants hex keys, the public key without 04, C1C3C2 (mode=1) without 04.
        crypt = gmssl.CryptSM2(private_key=D.hex(), public_key=raw_pub.hex(), mode=1)
        encrypt.impls.append(Impl("gmssl", lambda: crypt.encrypt(msg), verify=decrypts("c1c3c2")))
        decrypt.impls.append(Impl("gmssl", lambda: crypt.decrypt(ct[1:])))
