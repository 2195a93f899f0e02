"""File plumbing shared by the file helpers and the command line: atomic output and
chunked streaming."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import BinaryIO, Optional, Protocol, Union

PathLike = Union[str, "os.PathLike[str]"]
READ_SIZE = 1 << 20


class Stream(Protocol):
    """What :func:`pump` drives: an object with ``update(data) -> bytes`` and
    ``finalize() -> bytes`` (a sealer, opener, encryptor or decryptor)."""

    def update(self, data: bytes) -> bytes:
        """Processes ``data``; returns the output that is ready."""
        ...

    def finalize(self) -> bytes:
        """Ends the stream; returns the rest of the output."""
        ...


def _file_id(path: str) -> Optional[tuple[int, int]]:
    """(st_dev, st_ino) of the regular file ``path`` names (symbolic links followed), or
    ``None`` when it names nothing or something other than a regular file."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


# Errors that only writing gives: an OSError without a file name and one of these is
# about the output, so it is named after it (a read error of the input is left as is).
_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})


def _name_output(e: OSError, path: str) -> None:
    if e.filename is None and e.errno in _WRITE_ERRNOS:
        e.filename = path


def is_stream_target(dst: PathLike) -> bool:
    """Whether ``dst`` names an existing character device, FIFO or socket (symbolic links
    followed): :func:`atomic_output` writes those directly, so whatever is written reaches
    the reader at once. Block devices count too (they are written in place)."""
    try:
        st = os.stat(os.fspath(dst))
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode)


@contextmanager
def atomic_output(
    dst: PathLike, *, force: bool = False, src: Optional[PathLike] = None
) -> Iterator[BinaryIO]:
    """A file object whose content replaces ``dst`` only if the block completes.

    The data goes to a temporary file (mode 0600) beside ``dst``, is flushed and fsynced,
    then renamed over ``dst``. On any exception the temporary file is removed and ``dst``
    is left as it was.

    Symbolic links are followed, never replaced: a link to a regular file has its target
    replaced (the temporary file sits beside the target); a link to nothing is refused.
    An existing character device, FIFO or socket (``/dev/null``, a named pipe,
    ``/dev/stdout``) cannot be replaced atomically and is written directly, without
    ``force``; a block device needs ``force`` and is written directly too.

    Args:
        dst: the path to write.
        force: replace an existing regular file ``dst`` (default ``False``).
        src: the input file's path, if any: ``dst`` may not be the same file (compared by
            device and inode, so hard and symbolic links to it count).

    Yields:
        BinaryIO: the temporary file (or the device), open for writing.

    Raises:
        FileExistsError: ``dst`` exists and ``force`` is false.
        InvalidArgument: ``dst`` is the file ``src``, or a symbolic link to nothing (also a
            ``ValueError``).
        IsADirectoryError: ``dst`` is a directory.
        FileNotFoundError: the directory of ``dst`` does not exist.
        OSError: creating, writing or renaming failed (``filename`` is ``dst``).

    Example:
        >>> import os, tempfile
        >>> from guomi._fileio import atomic_output
        >>> path = os.path.join(tempfile.mkdtemp(), "out")
        >>> with atomic_output(path) as f:
        ...     _ = f.write(b"all or nothing")
        >>> os.path.getsize(path)
        14
    """
    from guomi.exceptions import InvalidArgument

    path = os.fspath(dst)
    src_id = _file_id(os.fspath(src)) if src is not None else None
    try:
        st: Optional[os.stat_result] = os.stat(path)
    except FileNotFoundError:
        st = None
        if os.path.islink(path):
            raise InvalidArgument(
                f"{path} is a symbolic link to a missing file: refusing to follow it"
            ) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", path)
        if src_id is not None and src_id == (st.st_dev, st.st_ino):
            raise InvalidArgument(f"{path}: output would overwrite the input")
        if not stat.S_ISREG(st.st_mode):
            if stat.S_ISBLK(st.st_mode) and not force:
                raise FileExistsError(f"{path} is a block device (use force/--force to write to it)")
            # A device, FIFO or socket: there is no file to replace, and renaming over it
            # would put a regular file in its place.
            try:
                with open(path, "wb") as direct:
                    yield direct
                    direct.flush()
            except OSError as e:
                _name_output(e, path)
                raise
            return
        if not force:
            raise FileExistsError(f"{path} exists (use force/--force to replace it)")
    target = os.path.realpath(path) if os.path.islink(path) else path
    directory = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(directory):
        raise FileNotFoundError(errno.ENOENT, "no such directory", directory)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    except OSError as e:
        raise OSError(e.errno, e.strerror, path) from None
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError):
            _name_output(e, path)
        raise


def pump(
    src: BinaryIO, dst: BinaryIO, stream: Stream, progress: Optional[Callable[[int], None]] = None
) -> None:
    """Feeds ``src`` through ``stream`` into ``dst`` in 1 MiB reads, in constant memory.

    Args:
        src: a binary file open for reading.
        dst: a binary file open for writing.
        stream: the :class:`Stream` (``update``/``finalize``).
        progress: called with the size of each chunk read, or ``None``.

    Raises:
        Whatever ``stream`` raises (e.g. ``DecryptionError``), and ``OSError``.

    Example:
        >>> import io
        >>> from guomi import envelope
        >>> from guomi._fileio import pump
        >>> out = io.BytesIO()
        >>> pump(io.BytesIO(b"data"), out, envelope.Sealer(key=bytes(16)))
        >>> envelope.open(out.getvalue(), key=bytes(16))
        b'data'
    """
    while True:
        chunk = src.read(READ_SIZE)
        if not chunk:
            break
        dst.write(stream.update(chunk))
        if progress is not None:
            progress(len(chunk))
    dst.write(stream.finalize())


def transform_file(src: PathLike, dst: PathLike, stream: Stream, *, force: bool = False) -> None:
    """Streams file ``src`` through ``stream`` into ``dst``, atomically (see
    :func:`atomic_output`).

    Args:
        src: the input path.
        dst: the output path.
        stream: the :class:`Stream`.
        force: replace an existing ``dst`` (default ``False``).

    Raises:
        FileExistsError: ``dst`` exists and ``force`` is false.
        InvalidArgument: ``dst`` is ``src`` (also a ``ValueError``).
        OSError: reading or writing failed; anything ``stream`` raises.

    Example:
        >>> import os, tempfile
        >>> from guomi import envelope
        >>> from guomi._fileio import transform_file
        >>> d = tempfile.mkdtemp()
        >>> with open(os.path.join(d, "a"), "wb") as f:
        ...     _ = f.write(b"data")
        >>> transform_file(os.path.join(d, "a"), os.path.join(d, "b"), envelope.Sealer(key=bytes(16)))
        >>> os.path.getsize(os.path.join(d, "b")) > 4
        True
    """
    with open(src, "rb") as inp, atomic_output(dst, force=force, src=src) as out:
        pump(inp, out, stream)
