"""Writing files: the one JSON rendering and the one atomic write every aau package uses."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
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
    Missing parent folders are created. A new file gets the usual mode of a new file (0666
    less the umask, as ``open()`` would give); a replaced file keeps its permission bits.

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
                      force: bool = False, private: bool = False) -> Path:
    """Write ``doc`` as ``render_json`` renders it, streamed to disk, atomically.

    The JSON is encoded piece by piece into the temp file, so a 100,000-row receipt never
    exists as one string in memory. Same guarantees as ``atomic_write_text``.

    Args:
        path: destination file.
        doc: a JSON value (NaN and Infinity are refused).
        ensure_ascii: escape non-ASCII characters.
        force: replace an existing file.
        private: the file holds sensitive data (a private receipt): create it owner-only
            (0600), whatever the umask or the mode of a file it replaces.

    Returns:
        the destination path.

    Raises:
        OutputError: the file exists (and ``force`` is false), the path is a folder, a file
            stands where a parent folder should be, or the write fails (permissions, disk
            full); the message names the file.
    """

    def write(fh: Any) -> None:
        json.dump(doc, fh, indent=2, sort_keys=True, ensure_ascii=ensure_ascii, allow_nan=False)
        fh.write("\n")

    return _atomic_write(path, write, force=force, private=private)


_TEMP_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))


def _create_temp(dest: Path, mode: int = 0o666) -> tuple[int, str]:
    """A new, empty temp file beside ``dest``, created with mode 0666 so the umask applies.

    (``tempfile.mkstemp`` would make it 0600, and the rename would carry that over.)
    """
    for _ in range(100):
        tmp = str(dest.parent / f".{dest.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, _TEMP_FLAGS, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp file name in {dest.parent}")


def _check_destination(dest: Path, *, force: bool) -> os.stat_result | None:
    """Refuse a folder, an existing file without ``force``, and a file where a folder should be.

    Returns:
        the stat of the existing file at ``dest``, or ``None``.
    """
    if dest.is_dir():
        raise OutputError(f"{dest}: is a folder, not a file")
    for parent in dest.parents:  # the nearest existing ancestor must be a folder
        try:
            st = parent.stat()
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            break  # unreadable: let the write report it
        if not stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{parent}: is a file, not a folder (cannot write {dest})")
        break
    try:
        existing = dest.stat()
    except OSError:
        return None
    if not force:
        raise OutputError(f"{dest}: already exists (use --force to replace it)")
    return existing


def _atomic_write(path: str | os.PathLike[str], write: Callable[[Any], object], *,
                  force: bool, private: bool = False) -> Path:
    dest = Path(path)
    existing = _check_destination(dest, force=force)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = _create_temp(dest, 0o600 if private else 0o666)
    except OSError as exc:
        raise OutputError(f"{dest}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            if existing is not None and not private and hasattr(os, "fchmod"):
                # --force keeps the replaced file's mode
                os.fchmod(fh.fileno(), existing.st_mode & 0o777)
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
        OutputError: ``path`` is a folder, exists and ``force`` is false, or a file stands where
            one of its parent folders should be.
    """
    _check_destination(Path(path), force=force)
