#!/usr/bin/env python3
"""Side-by-side benchmark of guomi and every other installed SM library, written into
docs/performance.md (between the `bench:begin` / `bench:end` markers).

    python benches/compare.py [--quick] [--select TEXT] [--no-write] [--json FILE]

Equivalent to `guomi bench --compare`, plus the rewrite of docs/performance.md. The
peers it knows (cryptography, hashlib/OpenSSL, gmssl, gmssl-pyx, gmssl-fast, tongsuopy,
gmalglib, snowland-smx) are used when importable; install them with pip to include them.

When gmssl is installed it then times guomi.compat.gmssl (the drop-in shim) against gmssl
with the same calls, and writes that table into docs/migrate-gmssl.md (between the
`shim-bench:begin` / `shim-bench:end` markers). `--shim-only` runs just that part.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from guomi import bench

DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
SHIM_DOC = DOC.with_name("migrate-gmssl.md")
SHIM_BEGIN, SHIM_END = "<!-- shim-bench:begin -->", "<!-- shim-bench:end -->"


def write_json(path: Path, results: list[bench.Result], env: dict[str, str], *, quick: bool) -> None:
    """The run as JSON: ``{"environment": {...}, "quick": bool, "results": [{"op", "group",
    "size", "median_s": {lib: s}, "worst_s": {lib: s}, "mismatch": [lib]}]}``, the same
    fields as ``guomi bench --json`` plus the group and the run length."""
    data = {
        "environment": env,
        "quick": quick,
        "results": [
            {
                "op": r.op.name,
                "group": r.op.group,
                "size": r.op.size,
                "median_s": r.median,
                "worst_s": r.worst,
                "mismatch": r.mismatch,
            }
            for r in results
        ],
    }
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--select")
    p.add_argument("--no-write", action="store_true", help="print only; leave the docs alone")
    p.add_argument("--shim-only", action="store_true", help="only guomi.compat.gmssl vs gmssl")
    p.add_argument(
        "--json",
        metavar="FILE",
        help="also write the environment and every median / worst time (seconds) as JSON to FILE "
        "(what scripts/perf-chart.py draws)",
    )
    args = p.parse_args()
    repeats, target = (3, 0.02) if args.quick else (7, 0.05)
    env = bench.environment()
    print("guomi bench --compare: " + ", ".join(f"{k} {v}" for k, v in env.items()))
    if not args.shim_only:
        results = bench.run(compare=True, select=args.select, repeats=repeats, target=target)
        table = bench.to_markdown(results, env)
        print()
        print(table)
        if args.json:
            write_json(Path(args.json), results, env, quick=args.quick)
            print(f"wrote {args.json}")
        if not args.no_write and not _write_block(DOC, BEGIN, END, table):
            return 2
    shim_ops = gmssl_shim_ops()
    if shim_ops:
        shim_results = []
        print()
        for op in shim_ops:
            if args.select and args.select.lower() not in op.name.lower():
                continue
            r = bench.measure(op, repeats, target)
            cells = "  ".join(f"{lib}: {bench._fmt_time(t)}" for lib, t in r.median.items())
            note = f"  (output differs: {', '.join(r.mismatch)})" if r.mismatch else ""
            print(f"{op.name:<34} {cells}{note}")
            shim_results.append(r)
        table = shim_markdown(shim_results, env)
        print()
        print(table)
        if not args.no_write and not args.select and not _write_block(SHIM_DOC, SHIM_BEGIN, SHIM_END, table):
            return 2
    return 0


def _write_block(doc: Path, begin: str, end: str, table: str) -> bool:
    text = doc.read_text(encoding="utf-8")
    block = f"{begin}\n{table}{end}"
    text, n = re.subn(re.escape(begin) + r".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    if n != 1:
        print(f"{doc} has no {begin} ... {end} block", file=sys.stderr)
        return False
    doc.write_text(text, encoding="utf-8")
    print(f"wrote {doc}")
    return True


# -- guomi.compat.gmssl (the drop-in shim) vs gmssl ----------------------------------------

SHIM, GMSSL, NATIVE = "guomi.compat.gmssl", "gmssl", "guomi (native API)"
#: The signing key of GB/T 32918.5 Appendix A (hex, as gmssl takes it).
SHIM_D = "3945208f7b2144b13f36e38ac6d39f95889393692860b51a42fb81ef4df7c5b8"
SHIM_P = (
    "09f9df311e5421a150dd7d161e4bc5c672179fad1833fc076bb08ff356f35020"
    "ccea490ce26775a52dc6ea718cc1aa600aed05fbf35e084a6632f6072da9ad13"
)


def gmssl_shim_ops() -> list[bench.Op]:
    """The same gmssl-style calls through the shim (reference) and gmssl, with guomi's
    native API for comparison. Empty when gmssl is not installed."""
    g_sm2, g_sm3, g_sm4 = (bench.try_import(f"gmssl.{m}") for m in ("sm2", "sm3", "sm4"))
    if g_sm2 is None or g_sm3 is None or g_sm4 is None:
        return []
    import guomi.sm2
    import guomi.sm3
    import guomi.sm4
    from guomi.compat.gmssl import sm2, sm3, sm4

    msg, kib = bench.pattern(64), bench.pattern(1024)
    key, iv = bytes.fromhex("0123456789abcdeffedcba9876543210"), bytes(range(16))
    ours, theirs = sm2.CryptSM2(SHIM_D, SHIM_P), g_sm2.CryptSM2(SHIM_D, SHIM_P)
    priv = guomi.sm2.PrivateKey.from_hex(SHIM_D)
    pub = priv.public_key()
    pub.prepare()
    # Randomized outputs must cross-verify both ways before anything is timed.
    assert theirs.verify_with_sm3(ours.sign_with_sm3(msg), msg)
    assert ours.verify_with_sm3(theirs.sign_with_sm3(msg), msg)
    assert theirs.decrypt(ours.encrypt(msg)) == msg and ours.decrypt(theirs.encrypt(msg)) == msg
    sig, ct = theirs.sign_with_sm3(msg), theirs.encrypt(msg)
    sig_der = guomi.sm2.signature_raw_to_der(bytes.fromhex(sig))

    def hexsig(s: Any) -> bool:
        return bool(ours.verify_with_sm3(s, msg))

    def native_sig(s: bytes) -> bool:
        return bool(pub.verify(s, msg))

    ops = [
        bench.Op(
            "gmssl shim",
            "SM2 sign_with_sm3 64 B",
            None,
            [
                bench.Impl(SHIM, lambda: ours.sign_with_sm3(msg)),
                bench.Impl(GMSSL, lambda: theirs.sign_with_sm3(msg), verify=hexsig),
                bench.Impl(NATIVE, lambda: priv.sign(msg), verify=native_sig),
            ],
        ),
        bench.Op(
            "gmssl shim",
            "SM2 verify_with_sm3 64 B",
            None,
            [
                bench.Impl(SHIM, lambda: ours.verify_with_sm3(sig, msg)),
                bench.Impl(GMSSL, lambda: theirs.verify_with_sm3(sig, msg)),
                bench.Impl(NATIVE, lambda: pub.verify(sig_der, msg)),
            ],
        ),
        bench.Op(
            "gmssl shim",
            "SM2 encrypt 64 B",
            None,
            [
                bench.Impl(SHIM, lambda: ours.encrypt(msg)),
                bench.Impl(GMSSL, lambda: theirs.encrypt(msg), verify=lambda c: ours.decrypt(c) == msg),
                bench.Impl(NATIVE, lambda: pub.encrypt(msg), verify=lambda c: priv.decrypt(c) == msg),
            ],
        ),
        bench.Op(
            "gmssl shim",
            "SM2 decrypt 64 B",
            None,
            [
                bench.Impl(SHIM, lambda: ours.decrypt(ct)),
                bench.Impl(GMSSL, lambda: theirs.decrypt(ct)),
                bench.Impl(NATIVE, lambda: priv.decrypt(b"\x04" + ct, format="c1c2c3")),
            ],
        ),
        # gmssl's sm3_hash takes (and extends) a list: both get a fresh one per call.
        bench.Op(
            "gmssl shim",
            "SM3 sm3_hash 1 KiB",
            1024,
            [
                bench.Impl(SHIM, lambda: sm3.sm3_hash(list(kib))),
                bench.Impl(GMSSL, lambda: g_sm3.sm3_hash(list(kib))),
                bench.Impl(NATIVE, lambda: guomi.sm3.hash(kib), normalize=bytes.hex),
            ],
        ),
    ]
    for name, padding in (("ECB", g_sm4.PKCS7), ("CBC", g_sm4.PKCS7)):
        c, g = sm4.CryptSM4(padding_mode=padding), g_sm4.CryptSM4(padding_mode=padding)
        c.set_key(key, sm4.SM4_ENCRYPT)
        g.set_key(key, g_sm4.SM4_ENCRYPT)
        native = guomi.sm4.SM4(key)
        if name == "ECB":
            impls = [
                bench.Impl(SHIM, lambda c=c: c.crypt_ecb(kib)),
                bench.Impl(GMSSL, lambda g=g: g.crypt_ecb(kib)),
                bench.Impl(NATIVE, lambda n=native: n.encrypt(kib, mode="ecb")),
            ]
        else:
            impls = [
                bench.Impl(SHIM, lambda c=c: c.crypt_cbc(iv, kib)),
                bench.Impl(GMSSL, lambda g=g: g.crypt_cbc(iv, kib)),
                bench.Impl(NATIVE, lambda n=native: n.encrypt(kib, mode="cbc", iv=iv)),
            ]
        ops.append(bench.Op("gmssl shim", f"SM4-{name} encrypt 1 KiB (PKCS7)", 1024, impls))
    return ops


def shim_markdown(results: list[Any], env: dict[str, str]) -> str:
    lines = [
        f"| operation | {GMSSL} | {SHIM} | {NATIVE} | shim speed-up over gmssl | shim, slowest loop |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        cells = []
        for lib in (GMSSL, SHIM, NATIVE):
            if lib in r.median:
                cells.append(bench._fmt_cell(r.median[lib], r.op.size))
            else:
                cells.append("✗ differs" if lib in r.mismatch else "—")
        if GMSSL in r.median:
            cells.append(f"{r.median[GMSSL] / r.median[SHIM]:,.0f}x")
        else:
            cells.append("—")
        cells.append(bench._fmt_time(r.worst[SHIM]))
        lines.append(f"| {r.op.name} | " + " | ".join(cells) + " |")
    env_line = ", ".join(f"{k} {v}" for k, v in env.items())
    return (
        "\n".join(lines)
        + "\n\nMedian time per call over alternating timed loops in one process (last column: the"
        + f" shim's slowest loop). Environment: {env_line}.\n"
    )


if __name__ == "__main__":
    sys.exit(main())
