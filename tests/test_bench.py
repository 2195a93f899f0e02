"""The benchmark harness: outputs are checked before timing, and ratios are honest."""

from __future__ import annotations

from guomi import bench


def test_mismatching_peer_is_excluded() -> None:
    op = bench.Op("T", "toy", 1024)
    op.impls.append(bench.Impl("guomi", lambda: b"abc"))
    op.impls.append(bench.Impl("same", lambda: b"abc"))
    op.impls.append(bench.Impl("hex", lambda: "616263", normalize=bytes.fromhex))
    op.impls.append(bench.Impl("wrong", lambda: b"abd"))
    op.impls.append(bench.Impl("broken", lambda: 1 / 0))
    op.impls.append(bench.Impl("verified", lambda: b"xyz", verify=lambda out: out == b"xyz"))
    r = bench.measure(op, repeats=2, target=0.001)
    assert set(r.median) == {"guomi", "same", "hex", "verified"}
    assert r.mismatch == ["wrong", "broken"]
    assert all(t > 0 for t in r.median.values())
    table = bench.to_markdown([r], {"backend": "x"})
    assert "✗ differs" in table and "| toy |" in table and "Speed-up of guomi" in table


def test_every_family_registers_operations() -> None:
    ops = bench.collect_ops(compare=False)
    groups = {op.group for op in ops}
    assert {"SM3", "SM4", "ZUC"} <= groups
    for op in ops:
        assert op.impls[0].lib == "guomi"
        op.impls[0].call()  # every guomi operation runs
