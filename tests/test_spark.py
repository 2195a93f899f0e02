"""guomi.spark in a real local[2] Spark session (PYSPARK_PYTHON set to this interpreter)."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

pytest.importorskip("pyarrow", reason="guomi.spark needs pyarrow")
pytest.importorskip("pyspark", reason="pyspark not installed")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs a Java runtime (java not found)", allow_module_level=True)

import guomi.spark as gs  # noqa: E402
from guomi import sm2, sm3  # noqa: E402
from guomi.arrow import SecretKey  # noqa: E402

KEY = bytes(range(16))
N = 100_000


@pytest.fixture(scope="module")
def spark():  # type: ignore[no-untyped-def]
    # Spark's Python workers must run where guomi is installed.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    s = (
        SparkSession.builder.master("local[2]")
        .appName("guomi-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    yield s
    s.stop()


def test_parquet_encrypt_write_read_decrypt(spark, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pyspark.sql import functions as F

    df = spark.range(N).withColumn(
        "ssn", F.when(F.col("id") % 97 == 0, F.lit(None)).otherwise(F.format_string("%09d", F.col("id")))
    )
    src = tmp_path / "src"
    df.write.parquet(str(src))
    enc = gs.encrypt_column(spark.read.parquet(str(src)), "ssn", key=SecretKey(KEY), output="ssn_enc")
    plan = enc._jdf.queryExecution().toString()
    assert KEY.hex() not in plan and "SecretKey" not in plan
    out = tmp_path / "enc"
    enc.drop("ssn").write.parquet(str(out))
    back = spark.read.parquet(str(out))
    assert dict(back.dtypes)["ssn_enc"] == "binary"
    dec = gs.decrypt_column(back, "ssn_enc", key=KEY, output="ssn")
    rows = dec.orderBy("id").select("id", "ssn", "ssn_enc").collect()
    assert len(rows) == N
    for r in rows[:2000] + rows[-2000:]:
        want = None if r["id"] % 97 == 0 else f"{r['id']:09d}".encode()
        assert (None if r["ssn"] is None else bytes(r["ssn"])) == want
        assert (r["ssn_enc"] is None) == (want is None)
    # Every row round-trips: count mismatches in Spark itself.
    expected = F.when(F.col("id") % 97 == 0, F.lit(None)).otherwise(F.format_string("%09d", F.col("id")))
    bad = dec.where(~F.col("ssn").cast("string").eqNullSafe(expected)).count()
    assert bad == 0


def test_hash_hmac_verify(spark) -> None:  # type: ignore[no-untyped-def]
    key = sm2.PrivateKey.generate()
    msgs = [os.urandom(20) for _ in range(30)]
    sigs = [key.sign(m, format="raw") for m in msgs]
    sigs[5] = bytes(64)
    df = spark.createDataFrame(
        [(i, bytearray(m), bytearray(s)) for i, (m, s) in enumerate(zip(msgs, sigs, strict=True))],
        "i long, m binary, s binary",
    )
    out = gs.hash_column(df, "m", output="h")
    out = gs.hmac_column(out, "m", key=b"token-key", output="t")
    out = gs.verify_column(out, "s", "m", public_key=key.public_key())
    rows = out.orderBy("i").collect()
    assert [bytes(r["h"]) for r in rows] == [sm3.hash(m) for m in msgs]
    assert [bytes(r["t"]) for r in rows] == [sm3.HMAC(b"token-key", m).digest() for m in msgs]
    assert [r["valid"] for r in rows] == [i != 5 for i in range(30)]
