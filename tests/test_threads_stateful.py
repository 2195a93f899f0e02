"""Every stateful object has one concurrency model: a lock, as ``hashlib``'s objects have.

Two threads calling one object are serialised; each call sees the state the previous call
left, whole; a thread waiting for the lock does not hold the GIL. Before the lock, two threads
updating one SM3 object (the GIL is released for inputs of 2 KiB and more) got PyO3's
``RuntimeError: Already borrowed``.

Every update below feeds the same chunk, so the result does not depend on the order in which
the threads got the lock: it must equal the one-shot answer over all the chunks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

import guomi.envelope
import guomi.sm2
import guomi.sm3
import guomi.sm4
import guomi.zuc
from guomi.exceptions import AlreadyFinalized, GuomiError, InternalError

THREADS = 4
ROUNDS = 40
# Above the 2 KiB threshold at which updates release the GIL, so threads really overlap.
CHUNK = bytes(range(256)) * 64  # 16 KiB, a multiple of the SM4 block


def hammer(call: Callable[[], object]) -> list[object]:
    """Runs ``call`` ROUNDS times on each of THREADS threads, started together; returns
    every result and re-raises the first exception any thread met."""
    start = threading.Barrier(THREADS)
    results: list[object] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker() -> None:
        start.wait()
        try:
            for _ in range(ROUNDS):
                r = call()
                with lock:
                    results.append(r)
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            with lock:
                errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


TOTAL = CHUNK * (THREADS * ROUNDS)


def test_sm3_shared_between_threads() -> None:
    h = guomi.sm3.new()
    hammer(lambda: h.update(CHUNK))
    assert h.digest() == guomi.sm3.hash(TOTAL)


def test_sm3_digest_and_copy_while_updating() -> None:
    h = guomi.sm3.new()
    calls = iter(range(10**9))

    def mixed() -> object:
        i = next(calls)
        if i % 3 == 0:
            return h.copy().digest()
        if i % 3 == 1:
            return h.hexdigest()
        return h.update(CHUNK)

    hammer(mixed)
    # Exactly a third of the calls (rounded as the iterator handed them out) updated.
    n = sum(1 for i in range(THREADS * ROUNDS) if i % 3 == 2)
    assert h.digest() == guomi.sm3.hash(CHUNK * n)


def test_hmac_shared_between_threads() -> None:
    m = guomi.sm3.HMAC(b"key")
    hammer(lambda: m.update(CHUNK))
    assert m.verify(guomi.sm3.hmac(b"key", TOTAL))


@pytest.mark.parametrize("make", [lambda k: guomi.sm4.CMAC(k), lambda k: guomi.sm4.CBCMAC(k)])
def test_sm4_macs_shared_between_threads(make: Callable[[bytes], guomi.sm4.CMAC]) -> None:
    key = bytes(range(16))
    m, ref = make(key), make(key)
    hammer(lambda: m.update(CHUNK))
    ref.update(TOTAL)
    assert m.finalize() == ref.finalize()


def test_sm4_ecb_encryptor_shared_between_threads() -> None:
    key = bytes(range(16))
    enc = guomi.sm4.encryptor(key, mode="ecb")
    outs = hammer(lambda: enc.update(CHUNK))
    # ECB of identical whole-block chunks: every output is the same, whatever the order;
    # finalize adds the PKCS#7 block of a block-aligned message.
    expected = guomi.sm4.encrypt(key, CHUNK, mode="ecb")
    assert all(o == expected[: len(CHUNK)] for o in outs)
    assert enc.finalize() == expected[len(CHUNK) :]


def test_sm4_ctr_encryptor_keystream_never_repeats_under_threads() -> None:
    # Each update must consume fresh keystream: the concatenation of all outputs, sorted back
    # into stream order, is the one-shot encryption. Zero plaintext makes each output the
    # keystream itself, so a repeated counter would show as two equal outputs.
    key, iv = bytes(range(16)), bytes(16)
    enc = guomi.sm4.encryptor(key, mode="ctr", iv=iv)
    zero = bytes(len(CHUNK))
    outs = hammer(lambda: enc.update(zero))
    assert len(set(outs)) == len(outs)
    stream = guomi.sm4.encrypt(key, bytes(len(zero) * len(outs)), mode="ctr", iv=iv)
    pieces = {stream[i : i + len(zero)] for i in range(0, len(stream), len(zero))}
    assert set(outs) == pieces


def test_gcm_encryptor_shared_between_threads() -> None:
    key, nonce = bytes(range(16)), bytes(12)
    enc = guomi.sm4.SM4GCM(key).encryptor(nonce)
    hammer(lambda: enc.update(bytes(len(CHUNK))))
    enc.finalize()
    sealed = guomi.sm4.SM4GCM(key).encrypt(nonce, bytes(len(TOTAL)))
    assert enc.tag == sealed[-16:]


def test_zuc_stream_shared_between_threads() -> None:
    key, iv = bytes(16), bytes(16)
    z = guomi.zuc.ZUC(key, iv)
    outs = hammer(lambda: z.keystream(len(CHUNK)))
    stream = guomi.zuc.ZUC(key, iv).keystream(len(CHUNK) * len(outs))
    pieces = {stream[i : i + len(CHUNK)] for i in range(0, len(stream), len(CHUNK))}
    assert set(outs) == pieces and len(set(outs)) == len(outs)


def test_sm2_signer_and_verifier_shared_between_threads() -> None:
    key = guomi.sm2.PrivateKey.generate()
    s = guomi.sm2.Signer(key)
    v = guomi.sm2.Verifier(key.public_key())
    hammer(lambda: (s.update(CHUNK), v.update(CHUNK)))
    sig = s.sign()
    assert key.public_key().verify(sig, TOTAL)
    assert v.verify(sig)


def test_envelope_sealer_shared_between_threads() -> None:
    # The sealer's outputs are appended to `pieces` after its lock is released, so their
    # order may differ from the stream's; their total length may not.
    key = bytes(range(16))
    sealer = guomi.envelope.Sealer(key=key)
    pieces = hammer(lambda: sealer.update(CHUNK))
    threaded = sum(len(p) for p in pieces) + len(sealer.finalize())  # type: ignore[arg-type]
    one = guomi.envelope.Sealer(key=key)
    assert threaded == len(one.update(TOTAL) + one.finalize())


def test_envelope_opener_shared_between_threads() -> None:
    # Threads feeding one opener: each call is whole, so the only errors are the opener's own
    # typed ones (the stream is garbage once the threads interleave), never InternalError or
    # "Already borrowed".
    key = bytes(range(16))
    sealer = guomi.envelope.Sealer(key=key)
    env = sealer.update(TOTAL) + sealer.finalize()
    opener = guomi.envelope.Opener(key=key)
    feed = iter(range(0, len(env), 4096))
    outcomes = hammer(lambda: _try(lambda: opener.update(env[next(feed, 0) :][:4096])))
    bad = [o for o in outcomes if isinstance(o, InternalError)]
    assert not bad


def test_exchange_objects_shared_between_threads() -> None:
    a, b = guomi.sm2.PrivateKey.generate(), guomi.sm2.PrivateKey.generate()
    init = guomi.sm2.KeyExchangeInitiator(a, b.public_key())
    resp = guomi.sm2.KeyExchangeResponder(b, a.public_key())
    rb, kb, sb = resp.respond(init.ephemeral_public_key, 16)
    outcomes = hammer(lambda: _try(lambda: init.finish(rb, 16, peer_confirmation=sb)))
    # Single use: exactly one call succeeds, every other one is AlreadyFinalized.
    wins = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(wins) == 1 and wins[0][0] == kb  # type: ignore[index]
    assert all(isinstance(o, AlreadyFinalized) for o in outcomes if o is not wins[0])


def _try(f: Callable[[], object]) -> object:
    try:
        return f()
    except GuomiError as e:
        if isinstance(e, InternalError):
            raise
        return e
