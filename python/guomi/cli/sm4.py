"""``guomi sm4 encrypt|decrypt``: file encryption with SM4.

The default format is the guomi envelope (docs/envelope.md): SM4-GCM chunks, so any
tampering, truncation or reordering is detected, in constant memory. The key is a raw
16-byte SM4 key (``--key-file``, or ``--key-hex``, which other users can read in the
process list) or a password (``--password-file``, its first line, or a prompt on a
terminal). ``decrypt -o -`` releases nothing until the whole envelope has verified (the
plaintext waits in an unnamed temporary file in $TMPDIR).
"""

from __future__ import annotations

import argparse
import sys

import guomi.envelope as envelope
from guomi.cli._io import (
    UsageError,
    guarded,
    prompt_password,
    read_key_file,
    read_password_file,
    transform,
)
from guomi.exceptions import DecryptionError


def _key(args: argparse.Namespace) -> tuple[bytes | None, bytes | None]:
    """(key, password) from the options; exactly one is set."""
    given = [args.key_hex is not None, args.key_file is not None, args.password_file is not None]
    if sum(given) > 1:
        raise UsageError("give only one of --key-hex, --key-file, --password-file")
    if args.key_hex is not None:
        try:
            key = bytes.fromhex(args.key_hex)
        except ValueError:
            raise UsageError("--key-hex must be 32 hexadecimal digits") from None
    elif args.key_file is not None:
        key = read_key_file(args.key_file, 16)
    elif args.password_file is not None:
        return None, read_password_file(args.password_file)
    else:
        return None, prompt_password(confirm=args.action == "encrypt")
    if len(key) != 16:
        raise UsageError(f"an SM4 key is 16 bytes (32 hex digits), got {len(key)} bytes")
    return key, None


def _run(args: argparse.Namespace) -> int:
    key, password = _key(args)
    if args.action == "encrypt":
        chunk = args.chunk_size
        if chunk < 1024 or chunk > 1 << 24 or chunk & (chunk - 1):
            raise UsageError("--chunk-size must be a power of two from 1024 to 16777216")
        if not 1 <= args.iterations <= envelope.MAX_ITERATIONS:
            raise UsageError(f"--iterations must be 1 to {envelope.MAX_ITERATIONS}")
        stream: envelope.Sealer | envelope.Opener = envelope.Sealer(
            key=key, password=password, iterations=args.iterations, chunk_size=chunk
        )
    else:
        stream = envelope.Opener(key=key, password=password)
    try:
        transform(
            args.input,
            args.output,
            stream,
            force=args.force,
            quiet=args.quiet,
            verify_first=args.action == "decrypt",
        )
    except DecryptionError:
        print(
            "guomi sm4 decrypt: decryption failed: wrong key or password, or the file was "
            "modified or truncated; nothing was written",
            file=sys.stderr,
        )
        return 1
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sm4", help="encrypt or decrypt files with SM4 (streaming envelope)", description=__doc__
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    for action in ("encrypt", "decrypt"):
        a = actions.add_parser(action, help=f"{action} a file", description=__doc__)
        a.add_argument(
            "-i", "--in", dest="input", required=True, metavar="FILE", help="input file ('-': stdin)"
        )
        a.add_argument(
            "-o", "--out", dest="output", required=True, metavar="FILE", help="output file ('-': stdout)"
        )
        a.add_argument(
            "--key-file",
            metavar="FILE",
            help="file holding the key: exactly 16 raw bytes, or 32 hex digits",
        )
        a.add_argument(
            "--key-hex",
            metavar="HEX",
            help="the key as 32 hex digits (visible to other users in the process list: prefer --key-file)",
        )
        a.add_argument("--password-file", metavar="FILE", help="file holding a password (first line)")
        a.add_argument("-f", "--force", action="store_true", help="replace an existing output file")
        a.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
        if action == "encrypt":
            a.add_argument(
                "--chunk-size", type=int, default=envelope.DEFAULT_CHUNK_SIZE, help="bytes per chunk"
            )
            a.add_argument(
                "--iterations",
                type=int,
                default=envelope.DEFAULT_ITERATIONS,
                help=f"PBKDF2 iterations (passwords), 1 to {envelope.MAX_ITERATIONS}",
            )
        a.set_defaults(func=guarded(_run))
