"""Bad-input sweep over one guomi module (run by tests/test_sweep.py in a subprocess).

Usage: ``python sweep_worker.py MODULE REPORT.json [SEED]``

Every public callable of the module is called with hostile arguments: module functions
and classes from ``__all__``, their class- and static methods, and the methods and
properties of live objects built by ``FACTORIES``. For each callable the worker tries
every hostile value in every parameter position (the others set to a plausible value
chosen by parameter name), then a number of random mixtures.

The only acceptable outcomes of a call are a result or an ordinary ``Exception``
(TypeError, ValueError, OverflowError, ``guomi.exceptions``...). Any other
``BaseException`` (PyO3's PanicException, SystemExit, KeyboardInterrupt), an
``InternalError`` (a Rust panic caught by the bindings' guard: still a bug), and any call
that takes longer than ``SLOW_SECONDS`` is recorded as a failure. A crash of the
interpreter (abort, segfault) is seen by the parent process: the worker writes the call
it is about to make to ``REPORT.json.current`` first.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

SLOW_SECONDS = 2.0
RANDOM_CALLS = 40

HOSTILE: list[Any] = [
    None,
    b"",
    b"\x00",
    bytes(16),
    bytes(31),
    b"\xff" * 33,
    b"\x04" + b"\xff" * 64,
    b"\x30\x82\xff\xff" + bytes(8),
    bytes(200),
    "text",
    "",
    -1,
    0,
    1,
    2**32,
    2**40,
    2**63,
    2**64 - 1,
    2**64,
    2**200,
    -(2**63),
    1.5,
    float("nan"),
    True,
    [],
    [b"x"],
    [(b"x", b"y")],
    {},
    object(),
    bytearray(16),
    memoryview(bytes(32)),
]

# Plausible values by parameter name, so that the hostile value in one position is not
# masked by a wrong value in another.
PLAUSIBLE: dict[str, Any] = {
    "key": bytes(16),
    "iv": bytes(16),
    "tweak": bytes(16),
    "nonce": bytes(12),
    "data": b"some data",
    "message": b"message",
    "msg": b"message",
    "plaintext": b"plaintext",
    "ciphertext": bytes(96),
    "signature": bytes(64),
    "tag": bytes(16),
    "mac": bytes(4),
    "aad": b"",
    "associated_data": b"",
    "uid": b"1234567812345678",
    "user_id": b"alice",
    "peer_id": b"bob",
    "password": b"password",
    "salt": b"salt",
    "info": b"",
    "iterations": 1,
    "length": 16,
    "key_length": 16,
    "words": 4,
    "count": 0,
    "bearer": 0,
    "direction": 0,
    "threads": 1,
    "mode": "cbc",
    "padding": "pkcs7",
    "format": "raw",
    "order": "c1c3c2",
    "z": b"shared",
    "digest": bytes(32),
    "messages": [b"a", b"b"],
    "items": [],
    "chunk_size": 1024,
    "tag_length": 16,
    "tag_bits": 32,
    "algorithm": "sm3",
    "standard": "gb",
    "hid": 3,
}


# Per-module plausible values and extra hostile values (the column modules take Arrow
# columns, column names and data frames where the others take bytes).
MODULE_PLAUSIBLE: dict[str, Any] = {}


def _plausible(name: str, default: Any) -> Any:
    if default is not inspect.Parameter.empty:
        return default
    if name in MODULE_PLAUSIBLE:
        return MODULE_PLAUSIBLE[name]
    return PLAUSIBLE.get(name, b"x" * 16)


def _arrow_values() -> tuple[dict[str, Any], list[Any]]:
    """Plausible arguments of guomi.arrow, and hostile Arrow columns: wrong types,
    dictionaries (plain, in a record batch, in a table), structs of several columns,
    slices, empty and chunked arrays, out-of-range integers."""
    import pyarrow as pa

    from guomi import sm2

    data = pa.array([b"ab", None, b"c" * 40])
    key = sm2.PrivateKey.generate()
    plausible = {
        "column": data,
        "data": data,
        "messages": data,
        "signatures": pa.array([bytes(64)] * 3),
        "iv": pa.array([bytes(16)] * 3, pa.binary(16)),
        "private_key": key,
        "public_key": key.public_key(),
        "mode": "ctr",
        "padding": None,
    }
    ints = pa.array([1, 2, 3])
    hostile = [
        ints,
        pa.array([2**63 - 1, -(2**63), 0], pa.int64()),
        pa.array([2**64 - 1, 0, 1], pa.uint64()),
        pa.array([1.5, 2.5, 0.0]),
        pa.array([True, False, None]),
        pa.array([None, None, None]),
        pa.array([], pa.binary()),
        pa.array(["a", "b", "a"]).dictionary_encode(),
        ints.dictionary_encode(),
        pa.record_batch([ints.dictionary_encode()], names=["d"]),
        pa.table([data.dictionary_encode()], names=["d"]),
        pa.record_batch([data, data], names=["a", "b"]),
        pa.record_batch([data], names=["a"]),
        pa.table([ints], names=["i"]),
        pa.StructArray.from_arrays([data], names=["s"]),
        pa.array([[b"a"], None, []], pa.list_(pa.binary())),
        pa.chunked_array([], pa.binary()),
        pa.chunked_array([data.slice(1), pa.array([b"x", b"yz"]).slice(1)]),
        data.slice(2, 1),
        pa.array([b"x" * 16] * 3, pa.binary(16)).slice(1),
        pa.array([b"a", b"bc", None], pa.binary_view()),
    ]
    return plausible, hostile


def _factories() -> dict[str, Callable[[], list[Any]]]:
    """Live objects whose methods are swept, per module."""

    def sm2() -> list[Any]:
        from guomi import sm2 as m

        k = m.PrivateKey.generate()
        p = k.public_key()
        ini = m.KeyExchangeInitiator(k, p)
        res = m.KeyExchangeResponder(k, p)
        return [k, p, m.Signer(k), m.Verifier(p), ini, res]

    def sm3() -> list[Any]:
        from guomi import sm3 as m

        return [m.new(), m.HMAC(b"key")]

    def sm4() -> list[Any]:
        from guomi import sm4 as m

        key = bytes(16)
        return [
            m.SM4(key),
            m.SM4GCM(key),
            m.SM4CCM(key),
            m.SM4XTS(bytes(range(32))),
            m.encryptor(key, mode="cbc", iv=bytes(16)),
            m.decryptor(key, mode="cbc", iv=bytes(16)),
            m.encryptor(key, mode="gcm", iv=bytes(12)),
            m.decryptor(key, mode="gcm", iv=bytes(12), tag=bytes(16)),
        ]

    def sm9() -> list[Any]:
        from guomi import sm9 as m

        smk = m.SignMasterKey.generate()
        emk = m.EncMasterKey.generate()
        xk = emk.extract(b"alice", hid=m.HID_EXCHANGE)
        return [
            smk,
            smk.public_key(),
            smk.extract(b"alice"),
            emk,
            emk.public_key(),
            emk.extract(b"bob"),
            m.KeyExchange(xk, b"bob", initiator=True),
            m.KeyExchange(xk, b"bob", initiator=False),
        ]

    def zuc() -> list[Any]:
        from guomi import zuc as m

        return [m.ZUC(bytes(16), bytes(16)), m.EEA3(bytes(16))]

    def x509() -> list[Any]:
        from guomi import sm2
        from guomi import x509 as m

        k = sm2.PrivateKey.generate()
        cert = (
            m.CertificateBuilder().subject_name("CN=sweep").with_public_key(k.public_key()).ca().self_sign(k)
        )
        builder = m.CertificateSigningRequestBuilder(subject="CN=sweep")
        csr = builder.sign(k)
        return [cert, csr, m.CertificateBuilder(), builder]

    def envelope() -> list[Any]:
        from guomi import envelope as m

        return [m.Sealer(password=b"pw", iterations=1), m.Opener(password=b"pw")]

    def tls() -> list[Any]:
        import ssl

        from guomi import sm2, x509
        from guomi import tls as m

        ca_key, key = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
        ca = x509.CertificateBuilder(subject="CN=sweep CA").ca().self_sign(ca_key)
        cert = x509.CertificateBuilder(subject="CN=sweep", public_key=key.public_key()).sign(ca, ca_key)
        out: list[Any] = []
        for proto in (m.TLCPContext, m.TLS13Context):
            server, client = proto(server_side=True), proto()
            if proto is m.TLCPContext:
                server.load_cert_chain(cert, key, enc_cert=cert, enc_key=key)
            else:
                server.load_cert_chain(cert, key)
            client.load_verify_locations(cadata=ca.to_pem())
            client.check_hostname = False
            out += [server, client]
            out.append(client.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO()))
            out.append(server.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO()))
        return out

    return {
        "guomi.tls": tls,
        "guomi.sm2": sm2,
        "guomi.sm3": sm3,
        "guomi.sm4": sm4,
        "guomi.sm9": sm9,
        "guomi.zuc": zuc,
        "guomi.x509": x509,
        "guomi.envelope": envelope,
    }


# Callables not swept, each with the reason.
SKIP = {
    # Changes the process-wide backend; swept separately with every name it accepts.
    "force_backend",
    # Coroutine functions (guomi.tls): called, they only return a coroutine; their
    # argument checks run in tests/test_tls.py's asyncio tests.
    "open_connection",
    "start_server",
    # The standard library's ssl.MemoryBIO, re-exported by guomi.tls.
    "MemoryBIO",
}


def _frame_values(module_name: str) -> dict[str, Any]:
    """Plausible arguments of guomi.dask (a small Dask frame; column names) and of
    guomi.spark (no Spark session is started: the calls reach the argument checks)."""
    values: dict[str, Any] = {
        "column": "m",
        "signature": "s",
        "message": "m",
        "key_bytes": "k",
        "output": "out",
        "key": bytes(16),
    }
    if module_name == "guomi.dask":
        import dask.dataframe as dd
        import pandas as pd
        import pyarrow as pa

        binary = pd.ArrowDtype(pa.binary())
        pdf = pd.DataFrame(
            {
                "m": pd.Series([b"ab", None, b"c" * 40], dtype=binary),
                "s": pd.Series([bytes(64)] * 3, dtype=binary),
                "k": pd.Series([bytes(65)] * 3, dtype=binary),
                "cat": pd.Series(["a", "b", "a"], dtype="category"),
                "i": pd.Series([1, 2, 3]),
            }
        )
        values["ddf"] = dd.from_pandas(pdf, npartitions=2)
        values["public_key"] = "k"
    return values


def _computed(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        return out.compute(scheduler="sync") if hasattr(out, "compute") else out

    return run


class Sweep:
    def __init__(self, report: str, seed: int) -> None:
        self.report = report
        self.rng = random.Random(seed)
        self.calls = 0
        self.swept: list[str] = []
        self.failures: list[dict[str, str]] = []
        self.unswept: list[str] = []

    def call(self, label: str, fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> None:
        desc = f"{label}(*{_short(args)}, **{_short(kwargs)})"
        with open(self.report + ".current", "w") as f:
            f.write(desc)
        self.calls += 1
        start = time.perf_counter()
        try:
            fn(*args, **kwargs)
        except Exception as e:  # an ordinary, catchable error: the expected outcome...
            if type(e).__name__ == "InternalError":  # ...except a panic the guard caught
                self.failures.append({"call": desc, "error": f"InternalError: {e}"})
        except BaseException as e:  # noqa: BLE001 - the point of the sweep
            self.failures.append({"call": desc, "error": f"{type(e).__module__}.{type(e).__name__}: {e}"})
        elapsed = time.perf_counter() - start
        if elapsed > SLOW_SECONDS:
            self.failures.append({"call": desc, "error": f"took {elapsed:.1f} s"})

    def sweep_callable(self, label: str, fn: Callable[..., Any]) -> None:
        if label.rsplit(".", 1)[-1] in SKIP:
            return
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            self.unswept.append(label)
            return
        params = [
            p
            for p in sig.parameters.values()
            if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        self.swept.append(label)

        def build(values: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
            args: list[Any] = []
            kwargs: dict[str, Any] = {}
            for p in params:
                v = values.get(p.name, _plausible(p.name, p.default))
                if p.kind == p.KEYWORD_ONLY:
                    kwargs[p.name] = v
                else:
                    args.append(v)
            return args, kwargs

        self.call(label, fn, *build({}))
        for p in params:
            for bad in HOSTILE:
                self.call(label, fn, *build({p.name: bad}))
        if params:
            for _ in range(RANDOM_CALLS):
                values = {p.name: self.rng.choice(HOSTILE) for p in params if self.rng.random() < 0.6}
                self.call(label, fn, *build(values))
        # Wrong arity must be a TypeError too.
        self.call(label, fn, [None] * (len(params) + 1), {})

    def sweep_class(self, label: str, cls: type) -> None:
        try:
            inspect.signature(cls)
        except (TypeError, ValueError):
            # Not constructible from Python (made by a factory function): calling the
            # class must still fail cleanly, whatever the arguments.
            for n in range(4):
                for bad in HOSTILE:
                    self.call(label, cls, [bad] * n, {})
        else:
            self.sweep_callable(label, cls)
        for name, attr in vars(cls).items():
            if name.startswith("_"):
                continue
            if isinstance(attr, (classmethod, staticmethod)) or inspect.isbuiltin(getattr(cls, name, None)):
                target = getattr(cls, name)
                if inspect.ismethod(target) or inspect.isbuiltin(target) or isinstance(attr, staticmethod):
                    self.sweep_callable(f"{label}.{name}", target)

    def sweep_object(self, obj: Any) -> None:
        label = type(obj).__name__
        for name in dir(obj):
            if name.startswith("_"):
                continue
            try:
                attr = getattr(obj, name)  # properties are exercised by this read
            except Exception:
                continue
            except BaseException as e:  # noqa: BLE001
                self.failures.append({"call": f"{label}.{name}", "error": f"{type(e).__name__}: {e}"})
                continue
            if callable(attr) and not isinstance(attr, type):
                self.sweep_callable(f"{label}().{name}", attr)

    def run(self, module_name: str) -> None:
        module = importlib.import_module(module_name)
        if module_name in ("guomi.arrow", "guomi.dask", "guomi.spark"):
            plausible, hostile = _arrow_values()
            HOSTILE.extend(hostile)
            if module_name == "guomi.arrow":
                MODULE_PLAUSIBLE.update(plausible)
            else:
                MODULE_PLAUSIBLE.update(_frame_values(module_name))
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if isinstance(obj, type):
                if issubclass(obj, BaseException):
                    continue
                self.sweep_class(f"{module_name}.{name}", obj)
            elif callable(obj):
                self.sweep_callable(f"{module_name}.{name}", obj)
                if module_name == "guomi.dask":
                    # The work runs when the frame is computed: sweep that too.
                    self.sweep_callable(f"{module_name}.{name}(...).compute", _computed(obj))
        factory = _factories().get(module_name)
        if factory is not None:
            for obj in factory():
                self.sweep_object(obj)

    def write(self) -> None:
        with open(self.report, "w") as f:
            json.dump(
                {
                    "calls": self.calls,
                    "swept": self.swept,
                    "unswept": self.unswept,
                    "failures": self.failures,
                },
                f,
                indent=1,
            )
        os.unlink(self.report + ".current")


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) < 120 else text[:117] + "..."


def main() -> None:
    module_name, report = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    sweep = Sweep(report, seed)
    if module_name == "guomi":
        # The package root: backend helpers, including every name force_backend accepts.
        import guomi

        sweep.run("guomi")
        for bad in HOSTILE + ["portable", "AVX2", "sse9", "auto"]:
            sweep.call("guomi.force_backend", guomi.force_backend, [bad], {})
        guomi.force_backend(None)
    else:
        sweep.run(module_name)
    sweep.write()


if __name__ == "__main__":
    main()
