"""guomi.dask on a real distributed.LocalCluster (2 worker processes)."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("pyarrow", reason="guomi.dask needs pyarrow")
dd = pytest.importorskip("dask.dataframe", reason="dask[dataframe] not installed")
distributed = pytest.importorskip("distributed", reason="distributed not installed")

import dask  # noqa: E402
import pandas as pd  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import guomi.dask as gd  # noqa: E402
from guomi import sm2, sm3  # noqa: E402
from guomi.arrow import KeyProvider, SecretKey  # noqa: E402

KEY = bytes(range(16))
N = 100_000


def provided_key() -> bytes:
    """Stands in for a KMS call made on each worker process."""
    return KEY


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_parquet_encrypt_write_read_decrypt(client, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ssn = [None if i % 97 == 0 else f"{i:09d}".encode() for i in range(N)]
    src = tmp_path / "src.parquet"
    pq.write_table(pa.table({"id": pa.array(range(N), pa.int64()), "ssn": pa.array(ssn, pa.binary())}), src)

    ddf = dd.read_parquet(str(src)).repartition(npartitions=4)
    enc = gd.encrypt_column(ddf, "ssn", key=SecretKey(KEY), output="ssn_enc").drop(columns=["ssn"])
    assert "SecretKey(<hidden>)" in repr(SecretKey(KEY)) and KEY.hex() not in repr(SecretKey(KEY))
    out = tmp_path / "enc"
    enc.to_parquet(str(out))

    # The stored column is binary (not text) and holds nonce || ciphertext || tag.
    stored = pq.read_table(str(out))
    assert pa.types.is_binary(stored.schema.field("ssn_enc").type) or pa.types.is_large_binary(
        stored.schema.field("ssn_enc").type
    )
    back = dd.read_parquet(str(out))
    dec = gd.decrypt_column(back, "ssn_enc", key=KeyProvider("test-key", provided_key), output="ssn")
    got = dec.compute().sort_values("id")
    vals = [None if v is None or v is pd.NA else bytes(v) for v in got["ssn"].tolist()]
    assert vals == ssn
    enc_vals = got["ssn_enc"].tolist()
    assert all(
        (e is None or e is pd.NA) if s is None else len(e) == len(s) + 28
        for e, s in zip(enc_vals, ssn, strict=True)
    )


def test_hash_hmac_verify(client) -> None:  # type: ignore[no-untyped-def]
    key = sm2.PrivateKey.generate()
    msgs = [os.urandom(20) for _ in range(40)]
    sigs = [key.sign(m, format="raw") for m in msgs]
    sigs[3] = bytes(64)
    binary = pd.ArrowDtype(pa.binary())
    pdf = pd.DataFrame({"m": pd.Series(msgs, dtype=binary), "s": pd.Series(sigs, dtype=binary)})
    ddf = dd.from_pandas(pdf, npartitions=3)
    h = gd.hash_column(ddf, "m", output="h").compute()
    assert [bytes(v) for v in h["h"]] == [sm3.hash(m) for m in msgs]
    t = gd.hmac_column(ddf, "m", key=b"token-key", output="t").compute()
    assert [bytes(v) for v in t["t"]] == [sm3.HMAC(b"token-key", m).digest() for m in msgs]
    v = gd.verify_column(ddf, "s", "m", public_key=key.public_key()).compute()
    assert v["valid"].tolist() == [i != 3 for i in range(40)]
    # Object columns of bytes work too, once dask is told not to turn them into strings.
    with dask.config.set({"dataframe.convert-string": False}):
        odf = dd.from_pandas(pd.DataFrame({"m": pd.Series(msgs, dtype=object)}), npartitions=2)
        h = gd.hash_column(odf, "m", output="h").compute()
    assert [bytes(v) for v in h["h"]] == [sm3.hash(m) for m in msgs]
