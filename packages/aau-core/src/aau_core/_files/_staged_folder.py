"""Writing a new folder all or nothing: stage it beside the destination, then rename it into place.

``write_folder`` is the one way aau publishes a folder of files (a pack, a generated lab, a
starter project). Its steps:

1. a new hidden folder ``.<name>-XXXX`` is made beside the destination (same file system, so the
   final rename is atomic; missing parent folders are created);
2. every file is written there in the given order, each with ``open(..., "xb")`` and fsync'ed;
3. modes come from the umask, as ``mkdir`` and ``open`` would give them: folders ``0777``, plain
   files ``0666``, the files named ``executable`` ``0777``, each less the umask (``mkdtemp`` makes
   its folder ``0700``, which would otherwise be carried into place);
4. every staged folder is fsync'ed (deepest first), so the entries themselves are on disk;
5. the caller's ``check(stage)`` runs (a verification, a doctor, a last look at the destination);
6. the stage is renamed to the destination and the parent folder fsync'ed; with ``replace`` an
   existing destination is first moved aside and put back if the rename fails.

On any failure (an exception from ``check``, an ``OSError``, an interrupt) the staged folder is
removed and nothing appears at the destination. The destination rules themselves (may it exist,
may it be replaced, may its parent be created) are the caller's, checked before and in ``check``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from .._errors import OutputError


def current_umask() -> int:
    """The process umask (read by setting it and putting it back), e.g. ``0o022``."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def fsync_folder(folder: str | os.PathLike[str]) -> None:
    """fsync a folder so the entries made in it (new files, renames) are on disk.

    Best effort: a platform or file system that cannot open or fsync a folder is ignored.
    """
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_folder(destination: str | os.PathLike[str], files: Mapping[str, bytes | str], *,
                 executable: Iterable[str] = (), check: Callable[[Path], Any] | None = None,
                 replace: bool = False) -> Path:
    """Write ``files`` as the new folder ``destination``, all or nothing (module docstring).

    Args:
        destination: the folder to create.
        files: relative POSIX path -> content, written in this order (bytes as given, ``str``
            as UTF-8 without newline translation); sub-folders are created.
        executable: paths of ``files`` to make executable (``0777`` less the umask).
        check: called with the staged folder once every file is written; whatever it raises
            propagates (and nothing is published); its return value is ignored.
        replace: an existing destination is swapped out (moved aside, then removed once the
            new folder is in place). Without it, a destination that exists when the stage is
            complete is an error.

    Returns:
        ``Path(destination)``.

    Raises:
        OutputError: ``<destination>: cannot create: <reason>`` (the stage cannot be made),
            ``<destination>: cannot write: <reason>`` (a file, a mode or the rename failed), or
            ``<destination>: appeared while writing; not overwritten`` (without ``replace``).
        whatever ``check`` raises.
    """
    dest = Path(destination)
    parent = dest.parent if str(dest.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=parent))
    except OSError as exc:
        raise OutputError(f"{dest}: cannot create: {exc.strerror or exc}") from None
    old: Path | None = None
    try:
        _write_stage(stage, files, set(executable))
        if check is not None:
            check(stage)
        if os.path.lexists(dest):
            if not replace:
                raise OutputError(f"{dest}: appeared while writing; not overwritten")
            old = Path(tempfile.mkdtemp(prefix=f".{dest.name}-old-", dir=parent))
            os.rename(dest, old / "previous")
        os.rename(stage, dest)
        fsync_folder(parent)
    except OSError as exc:
        if old is not None and not os.path.lexists(dest):
            os.rename(old / "previous", dest)  # put the previous folder back
        raise OutputError(f"{dest}: cannot write: {exc.strerror or exc}") from None
    finally:
        if stage.exists():
            shutil.rmtree(stage, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    return dest


def _write_stage(stage: Path, files: Mapping[str, bytes | str], executable: set[str]) -> None:
    mask = current_umask()
    for name, content in files.items():
        target = stage / name
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        with open(target, "xb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if name in executable:
            os.chmod(target, 0o777 & ~mask)
    folders = sorted((p for p in stage.rglob("*") if p.is_dir() and not p.is_symlink()),
                     key=lambda p: len(p.parts), reverse=True)
    for folder in [*folders, stage]:
        os.chmod(folder, 0o777 & ~mask)
        fsync_folder(folder)
