"""Writing files: the one JSON rendering and the one atomic write every aau package uses."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._errors import OutputError


def render_json(doc: Any, *, ensure_ascii: bool = False) -> str:
    """Render a document the way aau writes files: ``indent=2``, sorted keys, trailing newline.

    Args:
        doc: a JSON value (NaN and Infinity are refused).
        ensure_ascii: escape non-ASCII characters (aau-harness 1.x compatibility formats).

    Raises:
        ValueError: the value holds NaN or Infinity.
    """
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=ensure_ascii, allow_nan=False) + "\n"


def atomic_write_text(path: str | os.PathLike[str], text: str, *, force: bool = False) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically: temp file in the same folder, fsync, rename.

    A reader never sees a half-written file; an interrupted write leaves no temp file behind.
    Missing parent folders are created.

    Args:
        path: destination file.
        text: the full content.
        force: replace an existing file; without it an existing file is an error.

    Returns:
        the destination path.

    Raises:
        OutputError: as ``atomic_write_json``.
    """
    if not isinstance(text, str):
        raise TypeError("text must be a str")
    return _atomic_write(path, lambda fh: fh.write(text), force=force)


def atomic_write_json(path: str | os.PathLike[str], doc: Any, *, ensure_ascii: bool = False,
                      force: bool = False) -> Path:
    """Write ``doc`` as ``render_json`` renders it, streamed to disk, atomically.

    The JSON is encoded piece by piece into the temp file, so a 100,000-row receipt never
    exists as one string in memory. Same guarantees as ``atomic_write_text``.

    Args:
        path: destination file.
        doc: a JSON value (NaN and Infinity are refused).
        ensure_ascii: escape non-ASCII characters.
        force: replace an existing file.

    Returns:
        the destination path.

    Raises:
        OutputError: the file exists (and ``force`` is false), the path is a folder, or the
            write fails (permissions, disk full); the message names the file.
    """

    def write(fh: Any) -> None:
        json.dump(doc, fh, indent=2, sort_keys=True, ensure_ascii=ensure_ascii, allow_nan=False)
        fh.write("\n")

    return _atomic_write(path, write, force=force)


def _atomic_write(path: str | os.PathLike[str], write: Callable[[Any], object], *,
                  force: bool) -> Path:
    dest = Path(path)
    if dest.is_dir():
        raise OutputError(f"{dest}: is a folder, not a file")
    if dest.exists() and not force:
        raise OutputError(f"{dest}: already exists (use --force to replace it)")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    except OSError as exc:
        raise OutputError(f"{dest}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if force:
            os.replace(tmp, dest)
        else:
            try:
                os.link(tmp, dest)  # fails if dest appeared meanwhile: never clobber
            except FileExistsError:
                raise OutputError(f"{dest}: already exists (use --force to replace it)") from None
            except OSError:
                os.replace(tmp, dest)  # filesystem without hard links
            else:
                os.unlink(tmp)
    except OutputError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(f"{dest}: cannot write: {exc.strerror or exc}") from None
        raise
    return dest


def check_writable(path: str | os.PathLike[str], *, force: bool) -> None:
    """Fail early, before any work, when ``path`` could not be written later.

    Raises:
        OutputError: ``path`` is a folder, or exists and ``force`` is false.
    """
    dest = Path(path)
    if dest.is_dir():
        raise OutputError(f"{dest}: is a folder, not a file")
    if dest.exists() and not force:
        raise OutputError(f"{dest}: already exists (use --force to replace it)")
