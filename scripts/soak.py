#!/usr/bin/env python3
"""Soak test: many threads running mixed guomi operations, every result checked, then
resident memory measured over a long run of operations.

    python scripts/soak.py [--seconds 600] [--threads 32] [--rss-ops 1000000]

Part 1 runs ``--threads`` Python threads for ``--seconds``; each thread picks operations
at random (SM2 sign/verify/encrypt/decrypt/key exchange, SM3 and HMAC, SM4 modes and
GCM, ZUC, SM9 sign/verify/encrypt/decrypt, and the batch APIs with varying ``threads=``)
and checks every result against a known answer or a round trip. Part 2 performs
``--rss-ops`` operations in one thread (objects created and dropped, buffers returned)
and compares the resident set size after a warm-up with the size at the end.

Exit status 0 when every result was right and memory stayed flat; 1 otherwise, with the
first failures printed. ``tests/test_soak.py`` runs a short version in the test suite.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
from collections.abc import Callable

from guomi import sm2, sm3, sm4, sm9, zuc

SM3_ABC = bytes.fromhex("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0")
# GB/T 32907-2016 Appendix A.1: one block under one key.
SM4_KEY = bytes.fromhex("0123456789abcdeffedcba9876543210")
SM4_CT = bytes.fromhex("681edf34d206965e86b3e94f536e4246")
# 128-EEA3 test set 1 (ETSI/SAGE 128-EEA3 & 128-EIA3 Document 3, section 4.3; vectors/zuc.json): 193 bits.
EEA3_KEY = bytes.fromhex("173d14ba5003731d7a60049470f00a29")
EEA3_PT = bytes.fromhex("6cf65340735552ab0c9752fa6f9025fe0bd675d9005875b200")
EEA3_CT = bytes.fromhex("a6c85fc66afb8533aafc2518dfe784940ee1e4b030238cc800")


class Fixtures:
    """Keys built once and shared by every thread (the objects are immutable)."""

    def __init__(self) -> None:
        self.sm2_key = sm2.PrivateKey.generate()
        self.sm2_pub = self.sm2_key.public_key()
        self.sm2_peer = sm2.PrivateKey.generate()
        self.sm9_master = sm9.SignMasterKey.generate()
        self.sm9_mpk = self.sm9_master.public_key()
        self.sm9_user = self.sm9_master.extract(b"alice")
        self.sm9_emaster = sm9.EncMasterKey.generate()
        self.sm9_empk = self.sm9_emaster.public_key()
        self.sm9_euser = self.sm9_emaster.extract(b"bob")
        self.gcm = sm4.SM4GCM(SM4_KEY)


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def operations(fx: Fixtures, rng: random.Random) -> list[tuple[str, Callable[[], None]]]:
    def sm2_sign_verify() -> None:
        msg = rng.randbytes(rng.randrange(0, 200))
        sig = fx.sm2_key.sign(msg)
        _check(fx.sm2_pub.verify(sig, msg), "SM2 signature does not verify")
        _check(not fx.sm2_pub.verify(sig, msg + b"x"), "SM2 verifies a changed message")

    def sm2_encrypt_decrypt() -> None:
        msg = rng.randbytes(rng.randrange(1, 300))
        _check(fx.sm2_key.decrypt(fx.sm2_pub.encrypt(msg)) == msg, "SM2 round trip")

    def sm2_key_exchange() -> None:
        a = sm2.KeyExchangeInitiator(fx.sm2_key, fx.sm2_peer.public_key())
        b = sm2.KeyExchangeResponder(fx.sm2_peer, fx.sm2_pub)
        rb, kb, sb = b.respond(a.ephemeral_public_key, 16)
        ka, sa = a.finish(rb, 16, peer_confirmation=sb)
        b.confirm(sa)
        _check(ka == kb, "SM2 key exchange keys differ")

    def sm2_verify_many() -> None:
        n = rng.randrange(0, 24)
        msgs = [rng.randbytes(8) for _ in range(n)]
        items = [(fx.sm2_pub, fx.sm2_key.sign(m), m) for m in msgs]
        bad = rng.randrange(n) if n else -1
        if n:
            items[bad] = (fx.sm2_pub, items[bad][1], b"changed")
        out = sm2.verify_many(items, threads=rng.choice([None, 0, 1, 2, 3, 5, 8, 64]))
        _check(out == [i != bad for i in range(n)], "verify_many results")

    def sm3_ops() -> None:
        _check(sm3.hash(b"abc") == SM3_ABC, "SM3 known answer")
        msgs = [rng.randbytes(rng.randrange(0, 300)) for _ in range(rng.randrange(0, 40))]
        out = sm3.hash_many(msgs, threads=rng.choice([None, 0, 1, 2, 7, 64]))
        _check(out == [sm3.hash(m) for m in msgs], "hash_many")
        h = sm3.HMAC(b"key")
        h.update(b"message")
        _check(h.verify(sm3.hmac(b"key", b"message")), "HMAC verify")

    def sm4_ops() -> None:
        _check(sm4.encrypt(SM4_KEY, SM4_KEY, mode="ecb", padding="none") == SM4_CT, "SM4 known answer")
        msg = rng.randbytes(rng.randrange(0, 5000))
        iv = rng.randbytes(16)
        for mode in ("cbc", "ctr", "cfb", "ofb"):
            ct = sm4.encrypt(SM4_KEY, msg, mode=mode, iv=iv)
            _check(sm4.decrypt(SM4_KEY, ct, mode=mode, iv=iv) == msg, f"SM4-{mode} round trip")
        nonce = rng.randbytes(12)
        sealed = fx.gcm.encrypt(nonce, msg, b"aad")
        _check(fx.gcm.decrypt(nonce, sealed, b"aad") == msg, "SM4-GCM round trip")

    def zuc_ops() -> None:
        ct = zuc.eea3(EEA3_KEY, 0x66035492, 0xF, 0, EEA3_PT, length_bits=193)
        _check(ct == EEA3_CT, "EEA3 known answer")
        n = rng.randrange(0, 30)
        items = [
            (rng.randbytes(16), rng.randrange(2**32), rng.randrange(32), rng.randrange(2), rng.randbytes(64))
            for _ in range(n)
        ]
        out = zuc.eea3_many(items, threads=rng.choice([None, 0, 1, 2, 9, 64]))
        _check(out == [zuc.eea3(k, c, b, d, m) for k, c, b, d, m in items], "eea3_many")

    def sm9_ops() -> None:
        msg = rng.randbytes(rng.randrange(0, 100))
        sig = fx.sm9_user.sign(msg)
        _check(fx.sm9_mpk.verify(sig, msg, b"alice"), "SM9 signature does not verify")
        ct = fx.sm9_empk.encrypt(msg, b"bob")
        _check(fx.sm9_euser.decrypt(ct) == msg, "SM9 round trip")

    return [
        ("sm2_sign_verify", sm2_sign_verify),
        ("sm2_encrypt_decrypt", sm2_encrypt_decrypt),
        ("sm2_key_exchange", sm2_key_exchange),
        ("sm2_verify_many", sm2_verify_many),
        ("sm3", sm3_ops),
        ("sm4", sm4_ops),
        ("zuc", zuc_ops),
        ("sm9", sm9_ops),
    ]


def run_threads(fx: Fixtures, seconds: float, threads: int, seed: int) -> tuple[dict[str, int], list[str]]:
    counts: dict[str, int] = {}
    failures: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def worker(i: int) -> None:
        rng = random.Random(seed * 1000 + i)
        ops = operations(fx, rng)
        local: dict[str, int] = {}
        while time.monotonic() < deadline:
            name, op = rng.choice(ops)
            try:
                op()
            except BaseException as e:  # noqa: BLE001 - every outcome is recorded
                with lock:
                    failures.append(f"thread {i} {name}: {type(e).__name__}: {e}")
                return
            local[name] = local.get(name, 0) + 1
        with lock:
            for k, v in local.items():
                counts[k] = counts.get(k, 0) + v

    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return counts, failures


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def run_rss(fx: Fixtures, ops: int) -> tuple[int, int]:
    """RSS after 10% of ``ops`` (warm-up) and at the end."""
    gcm = fx.gcm
    nonce = bytes(12)
    warm = max(ops // 10, 1)
    before = 0
    for i in range(ops):
        if i == warm:
            before = rss_bytes()
        r = i % 8
        if r == 0:
            _check(sm3.hash(b"abc") == SM3_ABC, "SM3")
        elif r == 1:
            gcm.decrypt(nonce, gcm.encrypt(nonce, b"payload", None), None)
        elif r == 2:
            h = sm3.new()
            h.update(b"x" * 100)
            h.digest()
        elif r == 3:
            sm3.hmac(b"key", b"data")
        elif r == 4:
            zuc.eea3(EEA3_KEY, i, 1, 0, b"packet")
        elif r == 5:
            _check(sm4.SM4(SM4_KEY).encrypt_block(SM4_KEY) == SM4_CT, "SM4 block")
        elif r == 6:
            try:
                gcm.decrypt(nonce, b"tampered" * 3, None)
            except Exception:
                pass
        elif i % 400 == 7:
            k = sm2.PrivateKey.generate()
            k.public_key().verify(k.sign(b"m"), b"m")
    return before, rss_bytes()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--threads", type=int, default=32)
    ap.add_argument("--rss-ops", type=int, default=1_000_000)
    ap.add_argument("--rss-slack-mib", type=float, default=8.0, help="allowed RSS growth after warm-up")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    fx = Fixtures()
    start = time.monotonic()
    counts, failures = run_threads(fx, args.seconds, args.threads, args.seed)
    total = sum(counts.values())
    print(f"threads: {args.threads} threads, {time.monotonic() - start:.1f} s, {total} operations checked")
    for name in sorted(counts):
        print(f"  {name:22} {counts[name]}")
    for f in failures[:20]:
        print("FAIL", f)

    ok = not failures and total > 0
    if args.rss_ops:
        start = time.monotonic()
        before, after = run_rss(fx, args.rss_ops)
        growth = (after - before) / 2**20
        print(
            f"rss: {args.rss_ops} operations in {time.monotonic() - start:.1f} s; "
            f"{before / 2**20:.1f} MiB after warm-up, {after / 2**20:.1f} MiB at the end ({growth:+.1f} MiB)"
        )
        if growth > args.rss_slack_mib:
            print(f"FAIL resident memory grew by {growth:.1f} MiB (allowed {args.rss_slack_mib} MiB)")
            ok = False
    print("soak:", "passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
