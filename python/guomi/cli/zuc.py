"""``guomi zuc eea3|eia3``: 3GPP 128-EEA3 encryption and 128-EIA3 MACs of files.

The key is 16 bytes: ``--key-file`` (16 raw bytes or 32 hex digits) or ``--key-hex``
(visible to other users in the process list); COUNT is a 32-bit number (decimal or 0x-hex), BEARER 0..31,
DIRECTION 0 (uplink) or 1 (downlink). EEA3 is a stream cipher: never encrypt two files
with the same key, COUNT, BEARER and DIRECTION. Files are read whole (3GPP packets are
small); exit status 0 success, 1 MAC mismatch (``eia3 --check``), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import sys

import guomi.zuc as zuc
from guomi.cli._io import UsageError, guarded, open_output, read_key_file
from guomi.exceptions import GuomiError


def _read(path: str) -> bytes:
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from e


def _params(args: argparse.Namespace) -> tuple[bytes, int, int, int]:
    if (args.key_hex is None) == (args.key_file is None):
        raise UsageError("give one of --key-file, --key-hex")
    if args.key_file is not None:
        key = read_key_file(args.key_file, 16)
    else:
        try:
            key = bytes.fromhex(args.key_hex)
        except ValueError:
            raise UsageError("--key-hex must be 32 hexadecimal digits") from None
    try:
        count = int(args.count, 0)
    except ValueError:
        raise UsageError("--count must be a number (decimal or 0x-hex)") from None
    return key, count, args.bearer, args.direction


def _eea3(args: argparse.Namespace) -> int:
    key, count, bearer, direction = _params(args)
    try:
        out = zuc.eea3(key, count, bearer, direction, _read(args.input), length_bits=args.length_bits)
    except (GuomiError, ValueError) as e:
        raise UsageError(str(e)) from e
    with open_output(args.output, force=args.force, src=args.input) as f:
        f.write(out)
    return 0


def _eia3(args: argparse.Namespace) -> int:
    key, count, bearer, direction = _params(args)
    expected = None
    if args.check is not None:
        try:
            expected = bytes.fromhex(args.check)
        except ValueError:
            raise UsageError("--check must be hexadecimal (the 4-byte MAC, 8 hex digits)") from None
    data = _read(args.input)
    try:
        if expected is None:
            print(zuc.eia3(key, count, bearer, direction, data, length_bits=args.length_bits).hex())
            return 0
        # Constant-time check against the full 4-byte MAC: a shorter or longer --check
        # value is a mismatch, never a prefix match.
        ok = zuc.eia3_verify(key, count, bearer, direction, data, expected, length_bits=args.length_bits)
    except (GuomiError, ValueError) as e:
        raise UsageError(str(e)) from e
    print("MAC OK" if ok else "MAC MISMATCH", file=sys.stderr)
    return 0 if ok else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("zuc", help="ZUC 128-EEA3 encryption and 128-EIA3 MACs", description=__doc__)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    for name, func in (("eea3", _eea3), ("eia3", _eia3)):
        a = actions.add_parser(name, help=f"128-{name.upper()} of a file", description=__doc__)
        a.add_argument(
            "--key-file", metavar="FILE", help="file holding the key: 16 raw bytes, or 32 hex digits"
        )
        a.add_argument(
            "--key-hex",
            metavar="HEX",
            help="the key as 32 hex digits (visible to other users in the process list: prefer --key-file)",
        )
        a.add_argument("--count", required=True, help="32-bit COUNT")
        a.add_argument("--bearer", required=True, type=int, help="BEARER, 0..31")
        a.add_argument("--direction", required=True, type=int, help="DIRECTION, 0 or 1")
        a.add_argument("--length-bits", type=int, help="message length in bits (default: whole bytes)")
        a.add_argument("-i", "--in", dest="input", required=True, metavar="FILE", help="input ('-': stdin)")
        if name == "eea3":
            a.add_argument("-o", "--out", dest="output", required=True, metavar="FILE", help="output")
            a.add_argument("-f", "--force", action="store_true", help="replace an existing output file")
        else:
            a.add_argument(
                "--check", metavar="HEX", help="compare with this 4-byte MAC (exit 1 if different)"
            )
        a.set_defaults(func=guarded(func))
