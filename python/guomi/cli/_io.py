"""Command-line plumbing: inputs, atomic outputs, secrets from files or prompts, progress."""

from __future__ import annotations

import argparse
import getpass
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import BinaryIO, Optional

from guomi._fileio import Stream, atomic_output, is_stream_target, pump


class UsageError(Exception):
    """A problem with the command line or its inputs: exit status 2."""


class Progress:
    """A one-line progress bar on standard error, shown only on a terminal."""

    def __init__(self, total: Optional[int], enabled: bool) -> None:
        self.total, self.done, self.enabled = total, 0, enabled and sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if not self.enabled or now - self.last < 0.1:
            return
        self.last = now
        if self.total:
            pct = min(100.0, 100.0 * self.done / self.total)
            bar = "#" * int(pct / 4)
            sys.stderr.write(f"\r[{bar:<25}] {pct:5.1f}% {self.done >> 20} MiB")
        else:
            sys.stderr.write(f"\r{self.done >> 20} MiB")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.last:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()


@contextmanager
def open_input(name: str) -> Iterator[BinaryIO]:
    """`-` is standard input; anything else a file opened for reading."""
    if name == "-":
        yield sys.stdin.buffer
        return
    try:
        f = open(name, "rb")
    except OSError as e:
        raise UsageError(f"cannot read {name}: {e.strerror or e}") from e
    with f:
        yield f


@contextmanager
def open_output(name: str, *, force: bool, src: Optional[str] = None) -> Iterator[BinaryIO]:
    """`-` is standard output; anything else is written atomically (see atomic_output):
    a device, FIFO or a symbolic link to one is written directly, a symbolic link to a
    file has its target replaced."""
    if name == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    try:
        with atomic_output(name, force=force, src=None if src == "-" else src) as out:
            yield out
    except FileExistsError as e:
        raise UsageError(str(e)) from e
    except IsADirectoryError as e:
        raise UsageError(f"cannot write {name}: it is a directory") from e
    except ValueError as e:
        raise UsageError(str(e)) from e


def input_size(name: str) -> Optional[int]:
    if name == "-":
        return None
    try:
        return os.path.getsize(name)
    except OSError:
        return None


SPOOL_NOTE = (
    "decrypting to standard output or a device spools the plaintext to an unnamed "
    "temporary file (in $TMPDIR) until the whole envelope has verified"
)


def transform(
    src: str, dst: str, stream: Stream, *, force: bool, quiet: bool, verify_first: bool = False
) -> None:
    """Streams `src` through `stream` into `dst` (atomically), with a progress bar.

    With `verify_first` (decryption), plaintext meant for standard output, a device or a
    FIFO, which cannot be taken back, is spooled to an unnamed temporary file first (mode
    0600, unlinked as it is created, so no exit path leaves it behind) and copied out only
    after `stream.finalize()` succeeds: a failed decryption releases nothing. The spool
    is bounded by the disk, not by memory. A regular output file needs no spool: its
    temporary file is renamed into place only on success.
    """
    progress = Progress(input_size(src), not quiet)
    try:
        with open_input(src) as inp:
            if verify_first and (dst == "-" or is_stream_target(dst)):
                with tempfile.TemporaryFile() as spool:
                    pump(inp, spool, stream, progress)
                    spool.seek(0)
                    with open_output(dst, force=force, src=src) as out:
                        shutil.copyfileobj(spool, out, 1 << 20)
                return
            with open_output(dst, force=force, src=src) as out:
                pump(inp, out, stream, progress)
    finally:
        progress.close()


def read_small(path: str, what: str, limit: int = 1 << 16) -> bytes:
    """The bytes of a small file (a key, a password): at most ``limit`` bytes are read, and a
    longer file is a usage error."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise UsageError(f"cannot read {what} file {path}: {e.strerror or e}") from e
    if len(data) > limit:
        raise UsageError(f"{what} file {path} is larger than {limit} bytes")
    return data


def read_password_file(path: str) -> bytes:
    """A password: the first line of the file (without its line ending; at most 64 KiB
    read). An empty first line is refused."""
    data = read_small(path, "password")
    line = data.split(b"\n", 1)[0]
    if line.endswith(b"\r"):
        line = line[:-1]
    if not line:
        raise UsageError(f"password file {path}: the first line is empty")
    return line


def read_key_file(path: str, size: int) -> bytes:
    """A raw key: a file of exactly `size` bytes is the key itself (whatever its last
    byte); otherwise the file is the key in hex (2 * `size` digits, one line ending
    allowed after them)."""
    data = read_small(path, "key")
    if len(data) == size:
        return data
    text = data[:-2] if data.endswith(b"\r\n") else data[:-1] if data.endswith(b"\n") else data
    try:
        key = bytes.fromhex(text.decode("ascii")) if len(text) == 2 * size else b""
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) != size:
        raise UsageError(
            f"key file {path}: a key is {size} raw bytes or {2 * size} hex digits, got {len(data)} bytes"
        )
    return key


def prompt_password(confirm: bool) -> bytes:
    """Asks on the terminal (never echoes); `confirm` asks twice."""
    if not sys.stdin.isatty():
        raise UsageError("no password given: use --password-file (standard input is not a terminal)")
    first = getpass.getpass("Password: ")
    if confirm and getpass.getpass("Repeat password: ") != first:
        raise UsageError("the passwords do not match")
    if not first:
        raise UsageError("empty password")
    return first.encode()


def guarded(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A subcommand whose library errors (``GuomiError``, ``ValueError``) become usage
    errors: one line on standard error and exit status 2, never a traceback."""
    from guomi.exceptions import GuomiError

    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except UsageError:
            raise
        except (GuomiError, ValueError) as e:
            raise UsageError(str(e)) from e

    return run


# Options naming files the command writes; every other option with metavar FILE names a
# file it reads (a test checks that the parser follows this convention).
OUTPUT_DESTS = frozenset({"output", "pubout", "pub_out", "key_out", "cert_out", "chain_out"})


def file_dests(parser: argparse.ArgumentParser) -> set[str]:
    """The `dest` of every option, in every subcommand, whose metavar is FILE."""
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= file_dests(sub)
        elif action.metavar == "FILE":
            found.add(action.dest)
    return found


def _identity(path: str) -> Optional[tuple[int, int]]:
    """(st_dev, st_ino) of the regular file `path` names ('-': standard input when it is
    redirected from a regular file), symbolic links followed; else None."""
    try:
        st = os.fstat(sys.stdin.fileno()) if path == "-" else os.stat(path)
    except (OSError, ValueError, AttributeError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def check_distinct(inputs: Iterable[str], outputs: Iterable[str]) -> None:
    """Refuses a command whose output is one of its inputs, or whose two outputs are one
    file, before anything is read or written: same path, same file through a hard or
    symbolic link (compared by device and inode), or the regular file behind
    redirected standard input or output."""
    ins = [(p, _identity(p)) for p in inputs]
    seen: list[tuple[str, str, Optional[tuple[int, int]]]] = []
    for out in outputs:
        if out == "-":
            try:
                st = os.fstat(sys.stdout.fileno())
                ident = (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None
            except (OSError, ValueError, AttributeError):
                ident = None
            real = "-"
        else:
            ident = _identity(out)
            real = os.path.realpath(out)
        if ident is not None:
            for name, other in ins:
                if other == ident:
                    where = "standard input" if name == "-" else name
                    shown = "standard output" if out == "-" else out
                    raise UsageError(f"{shown} is the input file {where}: refusing to overwrite it")
        if out != "-":
            for prev, prev_real, prev_ident in seen:
                if real == prev_real or (ident is not None and ident == prev_ident):
                    raise UsageError(f"{out} and {prev} are the same file: give two different outputs")
            seen.append((out, real, ident))


def check_namespace(args: argparse.Namespace, dests: set[str]) -> None:
    """`check_distinct` over the FILE options of a parsed command line."""
    inputs: list[str] = []
    outputs: list[str] = []
    for dest in sorted(dests):
        value = getattr(args, dest, None)
        values = value if isinstance(value, list) else [value]
        for v in values:
            if isinstance(v, str):
                (outputs if dest in OUTPUT_DESTS else inputs).append(v)
    check_distinct(inputs, outputs)
