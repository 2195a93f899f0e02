"""The ``guomi`` command line.

Exit status: 0 success, 1 verification failure (a digest or signature that does not
match), 2 usage or input error. Every subcommand has ``--help``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Optional

from guomi import __version__
from guomi.cli import cms as _cms
from guomi.cli import pkcs12 as _pkcs12
from guomi.cli import sm2 as _sm2
from guomi.cli import sm3 as _sm3
from guomi.cli import sm4 as _sm4
from guomi.cli import sm9 as _sm9
from guomi.cli import x509 as _x509
from guomi.cli import zuc as _zuc
from guomi.cli._io import UsageError

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="guomi",
        description="Chinese commercial cryptography (SM2, SM3, SM4, SM9, ZUC) from the command line.",
    )
    p.add_argument("--version", action="version", version=f"guomi {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    # `guomi bench ...` is handed whole to guomi.bench (see main); listed here for --help.
    sub.add_parser("bench", help="benchmark guomi (--compare: side by side with other SM libraries)")

    _sm3.register(sub)
    _sm4.register(sub)
    _sm2.register(sub)
    _x509.register(sub)
    _cms.register(sub)
    _pkcs12.register(sub)
    _sm9.register(sub)
    _zuc.register(sub)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:
        from guomi import bench

        return bench.main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except UsageError as e:
        print(f"guomi {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
