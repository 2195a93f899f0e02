"""Command-line plumbing: inputs, atomic outputs, secrets from files or prompts, progress."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import BinaryIO, Optional

from guomi._fileio import Stream, atomic_output, pump


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
    """`-` is standard output; anything else is written atomically (see atomic_output)."""
    if name == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    try:
        with atomic_output(name, force=force, src=None if src == "-" else src) as out:
            yield out
    except FileExistsError as e:
        raise UsageError(str(e)) from e
    except ValueError as e:
        raise UsageError(str(e)) from e


def input_size(name: str) -> Optional[int]:
    if name == "-":
        return None
    try:
        return os.path.getsize(name)
    except OSError:
        return None


def transform(src: str, dst: str, stream: Stream, *, force: bool, quiet: bool) -> None:
    """Streams `src` through `stream` into `dst` (atomically), with a progress bar."""
    progress = Progress(input_size(src), not quiet)
    try:
        with open_input(src) as inp, open_output(dst, force=force, src=src) as out:
            pump(inp, out, stream, progress)
    finally:
        progress.close()


def read_secret_file(path: str, what: str) -> bytes:
    """A password or key from a file (one trailing newline removed)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UsageError(f"cannot read {what} file {path}: {e.strerror or e}") from e
    if data.endswith(b"\r\n"):
        data = data[:-2]
    elif data.endswith(b"\n"):
        data = data[:-1]
    if not data:
        raise UsageError(f"{what} file {path} is empty")
    return data


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
