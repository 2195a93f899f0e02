"""``guomi sm3`` (like sha256sum) and ``guomi hmac``."""

from __future__ import annotations

import argparse
import sys
from typing import BinaryIO

import guomi.sm3

CHUNK = 1 << 20
MAX_HMAC_KEY_FILE = 1 << 16


def _digest_stream(f: BinaryIO) -> bytes:
    h = guomi.sm3.new()
    while True:
        chunk = f.read(CHUNK)
        if not chunk:
            return h.digest()
        h.update(chunk)


def _digest_name(name: str) -> bytes:
    if name == "-":
        return _digest_stream(sys.stdin.buffer)
    return guomi.sm3.hash_file(name)


def _run_sm3(args: argparse.Namespace) -> int:
    if args.check:
        return _check(args.files or ["-"])
    status = 0
    for name in args.files or ["-"]:
        try:
            digest = _digest_name(name)
        except OSError as e:
            print(f"guomi sm3: {name}: {e.strerror or e}", file=sys.stderr)
            status = 2
            continue
        print(f"{digest.hex()}  {name}")
    return status


def _check(lists: list[str]) -> int:
    failed = unreadable = malformed = 0
    for list_name in lists:
        try:
            if list_name == "-":
                text = sys.stdin.read()
            else:
                with open(list_name, encoding="utf-8") as f:
                    text = f.read()
        except OSError as e:
            print(f"guomi sm3: {list_name}: {e.strerror or e}", file=sys.stderr)
            return 2
        for line in text.splitlines():
            if not line.strip():
                continue
            hexdigest, sep, name = line.partition("  ")
            if not sep or len(hexdigest) != 64:
                malformed += 1
                continue
            try:
                ok = _digest_name(name).hex() == hexdigest.lower()
            except OSError:
                print(f"{name}: FAILED open or read")
                unreadable += 1
                continue
            print(f"{name}: {'OK' if ok else 'FAILED'}")
            failed += not ok
    if malformed:
        print(f"guomi sm3: WARNING: {malformed} line(s) improperly formatted", file=sys.stderr)
    if failed:
        print(f"guomi sm3: WARNING: {failed} computed checksum(s) did NOT match", file=sys.stderr)
    if unreadable:
        print(f"guomi sm3: WARNING: {unreadable} listed file(s) could not be read", file=sys.stderr)
    if unreadable:
        return 2
    return 1 if failed or malformed else 0


def _feed(m: guomi.sm3.HMAC, f: BinaryIO) -> None:
    while chunk := f.read(CHUNK):
        m.update(chunk)


def _run_hmac(args: argparse.Namespace) -> int:
    if (args.key_hex is None) == (args.key_file is None):
        print("guomi hmac: give one of --key-file, --key-hex", file=sys.stderr)
        return 2
    if args.key_file is not None:
        try:
            with open(args.key_file, "rb") as f:
                key = f.read(MAX_HMAC_KEY_FILE + 1)
        except OSError as e:
            print(f"guomi hmac: cannot read key file {args.key_file}: {e.strerror or e}", file=sys.stderr)
            return 2
        if len(key) > MAX_HMAC_KEY_FILE:
            print(f"guomi hmac: key file {args.key_file} is larger than 64 KiB", file=sys.stderr)
            return 2
    else:
        try:
            key = bytes.fromhex(args.key_hex)
        except ValueError:
            print("guomi hmac: --key-hex must be hexadecimal", file=sys.stderr)
            return 2
    status = 0
    for name in args.files or ["-"]:
        m = guomi.sm3.HMAC(key)
        try:
            if name == "-":
                _feed(m, sys.stdin.buffer)
            else:
                with open(name, "rb") as f:
                    _feed(m, f)
        except OSError as e:
            print(f"guomi hmac: {name}: {e.strerror or e}", file=sys.stderr)
            status = 2
            continue
        print(f"{m.hexdigest()}  {name}")
    return status


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sm3", help="SM3 digests of files, like sha256sum", description="Print or check SM3 digests."
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="files to hash ('-' or none: standard input)")
    p.add_argument(
        "-c", "--check", action="store_true", help="read '<hex>  FILE' lines from the FILEs and check them"
    )
    p.set_defaults(func=_run_sm3)

    h = sub.add_parser("hmac", help="HMAC-SM3 of files", description="Print HMAC-SM3 tags of files.")
    h.add_argument(
        "--key-file", metavar="FILE", help="file whose bytes, all of them, are the key (up to 64 KiB)"
    )
    h.add_argument(
        "--key-hex",
        metavar="HEX",
        help="the key in hexadecimal (visible to other users in the process list: prefer --key-file)",
    )
    h.add_argument("files", nargs="*", metavar="FILE", help="files ('-' or none: standard input)")
    h.set_defaults(func=_run_hmac)
