"""Benchmark operations: SM9 pairing, extraction, signatures, encryption, key exchange.

gmssl-pyx (GmSSL 3) is the native peer for encryption: both libraries share one master
key, and each decrypts the other's DER ciphertexts (GmSSL's C3 is HMAC-SM3).
"""

from __future__ import annotations

from typing import Any

import guomi.sm9 as sm9
from guomi.bench import Impl, Op, pattern, try_import

UID = b"bob@example.com"
MSG = pattern(32)


def ops(compare: bool) -> list[Op]:
    sign_master = sm9.SignMasterKey.generate()
    sign_pub = sign_master.public_key()
    signer = sign_master.extract(b"alice@example.com")
    signer.precompute()
    sign_pub.precompute()
    sig = signer.sign(MSG)

    enc_master, pyx_master = _enc_master(compare)
    enc_pub = enc_master.public_key()
    enc_pub.precompute()
    user = enc_master.extract(UID)
    user.precompute()
    ct = enc_pub.encrypt(MSG, UID, format="der", mac="hmac-sm3")

    def exchange() -> bytes:
        xmaster = enc_master
        a = sm9.KeyExchange(xmaster.extract(b"alice", hid=sm9.HID_EXCHANGE), b"bob", initiator=True)
        b = sm9.KeyExchange(xmaster.extract(b"bob", hid=sm9.HID_EXCHANGE), b"alice", initiator=False)
        kb, sb = b.respond(a.ephemeral, 16)
        ka, sa = a.finish(b.ephemeral, 16, sb)
        b.confirm(sa)
        assert ka == kb
        return ka

    result = [
        # sm9.pairing takes encoded points: the row includes parsing both and checking that
        # the second is in G2 (docs/performance.md, "SM9 round 3").
        Op("SM9", "SM9 pairing e(P1, P2)", None, [Impl("guomi", lambda: sm9.pairing(sm9.P1, sm9.P2))]),
        Op("SM9", "SM9 extract user key", None, [Impl("guomi", lambda: sign_master.extract(UID))]),
        Op(
            "SM9",
            "SM9 sign 32 B",
            None,
            [Impl("guomi", lambda: signer.sign(MSG), verify=_verifies(sign_pub))],
        ),
        Op(
            "SM9",
            "SM9 verify 32 B",
            None,
            [Impl("guomi", lambda: sign_pub.verify(sig, MSG, b"alice@example.com"))],
        ),
        Op(
            "SM9",
            "SM9 encrypt 32 B",
            None,
            [
                Impl(
                    "guomi",
                    lambda: enc_pub.encrypt(MSG, UID, format="der", mac="hmac-sm3"),
                    verify=lambda c: user.decrypt(c, format="der", mac="hmac-sm3") == MSG,
                )
            ],
        ),
        Op(
            "SM9",
            "SM9 decrypt 32 B",
            None,
            [Impl("guomi", lambda: user.decrypt(ct, format="der", mac="hmac-sm3"))],
        ),
        Op(
            "SM9",
            "SM9 key exchange (both sides)",
            None,
            [Impl("guomi", exchange, verify=lambda k: len(k) == 16)],
        ),
    ]
    if pyx_master is not None:
        pyx_pub = pyx_master.public_key()
        pyx_user = pyx_master.extract_key(UID)
        result[4].impls.append(
            Impl(
                "gmssl-pyx",
                lambda: pyx_pub.encrypt(UID, MSG),
                verify=lambda c: user.decrypt(c, format="der", mac="hmac-sm3") == MSG,
            )
        )
        result[5].impls.append(Impl("gmssl-pyx", lambda: pyx_user.decrypt(UID, ct)))
    return result


def _verifies(pub: Any) -> Any:
    return lambda s: pub.verify(s, MSG, b"alice@example.com")


def _enc_master(compare: bool) -> tuple[Any, Any]:
    """An encryption master key, shared with gmssl-pyx when it is installed."""
    pyx = try_import("gmssl_pyx") if compare else None
    if pyx is None:
        return sm9.EncMasterKey.generate(), None
    master = pyx.SM9MasterKey.generate()
    der = master.to_der()  # SEQUENCE { INTEGER ke, BIT STRING Ppub-e }
    ke = int.from_bytes(der[4 : 4 + der[3]], "big")
    return sm9.EncMasterKey.from_bytes(ke.to_bytes(32, "big")), master
