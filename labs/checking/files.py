"""Files from outside, handled with care: names shown safely, reads that stop at a limit, writes that cannot
leave half a file.

- :func:`shown` makes a name (a zip entry's, a file's, a key of a JSON table) safe to print in a terminal or
  put in a message: control characters, escape sequences, line ends and lone surrogates appear as escapes,
  and a long name is cut in the middle with an ellipsis.
- :func:`over` says a size for a message that must not contradict its limit ("more than 4 MiB").
- :func:`read_limited` reads at most ``limit + 1`` bytes of a regular file, and refuses devices, pipes and
  sockets before opening them.
- :func:`write_atomic` writes a file's bytes into a temporary file beside it, flushed to disk, and then puts
  it in place with :func:`os.replace`: a crash leaves the old file or the new one, never a part of either.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import unicodedata
from pathlib import Path

NAME_LIMIT = 80  # characters of a name shown in a message
PATH_LIMIT = 200  # characters of a path on this computer shown in a message
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}  # controls, format (bidi) marks, surrogates, unassigned


class ReadRefused(OSError):
    """A file that was not read: not a regular file, or larger than its limit (the message says which)."""


def escaped(text: str) -> str:
    """A text with every invisible or controlling character as an escape (\\n, \\x1b, \\u202e, \\ud800)."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif unicodedata.category(char) in _HIDDEN:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(char)
    return "".join(out)


def shown(name: object, limit: int = NAME_LIMIT) -> str:
    """A name as a message may show it: every invisible or controlling character escaped, at most ``limit``
    characters of it kept (its start and its end, an ellipsis between)."""
    text = str(name)
    if len(text) > limit:
        head = (limit - 1) // 2
        return escaped(text[:head]) + "…" + escaped(text[len(text) - (limit - 1 - head):])
    return escaped(text)


def size_text(count: int) -> str:
    """A number of bytes for a message: '4 MiB', '2.5 KiB', '12 bytes'."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{count} bytes"


def over(count: int, limit: int) -> str:
    """A size above ``limit`` as a message says it: its own size where that reads larger than the limit,
    else 'more than' the limit (never '4 MiB; at most 4 MiB')."""
    text = size_text(count)
    return f"more than {size_text(limit)}" if text == size_text(limit) else text


def _refuse_unless_regular(path: Path, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "Is a directory", str(path))
    if not stat.S_ISREG(mode):
        raise ReadRefused(f"{shown(path, PATH_LIMIT)} is not a regular file (a device, a pipe or a socket): "
                          "give a file saved on disk")


def read_limited(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the regular file at ``path`` (the caller refuses more than ``limit``).

    A folder, a device, a pipe or a socket is refused without being opened (so that no read waits for a pipe's
    writer). OSError (FileNotFoundError, IsADirectoryError, ...) passes to the caller.
    """
    _refuse_unless_regular(path, os.stat(path).st_mode)
    with open(path, "rb", buffering=0) as stream:
        _refuse_unless_regular(path, os.fstat(stream.fileno()).st_mode)  # the same file as the one looked at
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(stream.fileno(), min(left, 1024 * 1024))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)


def read_or_refuse(path: Path, limit: int, name: str, missing: str = "", folder: str | None = None) -> bytes:
    """``read_limited``, every way the read can fail a ReadRefused whose message a learner reads: ``name`` is the
    file as shown, ``missing`` follows "no such file: NAME", ``folder`` is what to say of a folder (else the
    system's words). A file larger than ``limit`` is the caller's to word (its bytes go up to ``limit + 1``)."""
    try:
        return read_limited(path, limit)
    except ReadRefused:
        raise
    except FileNotFoundError:
        raise ReadRefused(f"no such file: {name}{missing}") from None
    except IsADirectoryError as error:
        raise ReadRefused(folder or f"cannot read {name}: {error.strerror}") from None
    except OSError as error:
        raise ReadRefused(f"cannot read {name}: {error.strerror}") from None


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` as the file ``path``: into a new temporary file in the same folder, flushed to disk, then
    moved in place. If anything fails, the file at ``path`` is as it was and no temporary file is left.

    The new file keeps the old one's permissions (a new file gets the usual ones, the umask applied); a link is
    written through, to the file it points to, as a plain write would.
    """
    if path.is_symlink():
        path = path.resolve()
    old_mode = None
    with contextlib.suppress(FileNotFoundError):
        old_mode = stat.S_IMODE(path.stat().st_mode)
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if old_mode is not None:
            os.chmod(temporary, old_mode)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
