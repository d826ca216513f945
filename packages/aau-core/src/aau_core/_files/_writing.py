"""Writing files: the one JSON rendering and the one atomic write every aau package uses.

The rules every aau writer follows (``check_outputs`` / ``write_outputs``, and the one-file
``atomic_write_text`` / ``atomic_write_json`` built on them):

- An existing destination is replaced only with ``force`` (``--force``), and only when it is a
  regular file. A folder, a device (``/dev/null``), a FIFO, a socket or a symbolic link is
  refused even with ``force``: ``<path>: is not a regular file (a device, pipe or link); name a
  regular file``. (Replacing a link would not write its target; replacing a device or a pipe
  with a regular file would break whatever else uses it.)
- Missing parent folders are created only below the current working directory (``--out
  results/run1/receipt.json``) or below the system temp folder (``tempfile.gettempdir()``,
  ``$TMPDIR``). Anywhere else the parent folder must exist: ``--junit /nonexist/x.xml`` is
  refused with ``<path>: folder <parent> does not exist; create it first (aau creates missing
  folders only below the current directory or the temp folder)``.
- A command with several outputs checks them all before any work (``check_outputs``: no two
  outputs are the same file, no output is one of the command's inputs — even with ``force`` —
  and each destination passes the rules above), then writes them together (``write_outputs``):
  every temp file is written and fsync'ed first, and only when all are staged are they renamed
  into place. An error while staging removes every temp file and leaves no output.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeAlias

from .._errors import OutputError

PathLike: TypeAlias = "str | os.PathLike[str]"
#: What ``write_outputs`` writes to one file: the full text, or a function given the open
#: text file (UTF-8, ``\n`` newlines) that writes the content into it.
Content: TypeAlias = "str | Callable[[Any], object]"


def render_json(doc: Any, *, ensure_ascii: bool = False) -> str:
    """Render a document the way aau writes files: ``indent=2``, sorted keys, trailing newline.

    Args:
        doc: a JSON value (NaN and Infinity are refused).
        ensure_ascii: escape non-ASCII characters (aau-harness 1.x compatibility formats).

    Raises:
        ValueError: the value holds NaN or Infinity.
    """
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=ensure_ascii, allow_nan=False) + "\n"


def json_content(doc: Any, *, ensure_ascii: bool = False) -> Callable[[Any], object]:
    """A ``write_outputs`` content that streams ``doc`` as ``render_json`` renders it.

    The JSON is encoded piece by piece into the temp file, so a 100,000-row receipt never
    exists as one string in memory.
    """

    def write(fh: Any) -> None:
        json.dump(doc, fh, indent=2, sort_keys=True, ensure_ascii=ensure_ascii, allow_nan=False)
        fh.write("\n")

    return write


def atomic_write_text(path: PathLike, text: str, *, force: bool = False) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically: temp file in the same folder, fsync, rename.

    A reader never sees a half-written file; an interrupted write leaves no temp file behind.
    A new file gets the usual mode of a new file (0666 less the umask, as ``open()`` would
    give); a replaced file keeps its permission bits. The destination rules are the module's
    (see its docstring): only a regular file is replaced, and only with ``force``; missing
    parent folders are created only below the current directory or the temp folder.

    Args:
        path: destination file.
        text: the full content.
        force: replace an existing regular file; without it an existing file is an error.

    Returns:
        the destination path.

    Raises:
        OutputError: as ``atomic_write_json``.
    """
    if not isinstance(text, str):
        raise TypeError("text must be a str")
    return write_outputs({path: text}, force=force)[0]


def atomic_write_json(path: PathLike, doc: Any, *, ensure_ascii: bool = False,
                      force: bool = False, private: bool = False) -> Path:
    """Write ``doc`` as ``render_json`` renders it, streamed to disk, atomically.

    Same guarantees and destination rules as ``atomic_write_text``; the JSON is streamed
    (``json_content``).

    Args:
        path: destination file.
        doc: a JSON value (NaN and Infinity are refused).
        ensure_ascii: escape non-ASCII characters.
        force: replace an existing regular file.
        private: the file holds sensitive data (a private receipt): create it owner-only
            (0600), whatever the umask or the mode of a file it replaces.

    Returns:
        the destination path.

    Raises:
        OutputError: the file exists (and ``force`` is false); it is a folder, a device, a
            pipe or a link (even with ``force``); a file stands where a parent folder should
            be; a parent folder is missing outside the current directory and the temp
            folder; or the write fails (permissions, disk full). The message names the file.
    """
    return write_outputs({path: json_content(doc, ensure_ascii=ensure_ascii)}, force=force,
                         private=[path] if private else ())[0]


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


def _missing_parent(dest: Path) -> Path | None:
    """The topmost missing folder above ``dest`` when one may not be created, else ``None``.

    Raises OutputError when a file stands where a parent folder should be.
    """
    missing: Path | None = None
    for parent in dest.parents:  # the nearest existing ancestor must be a folder
        try:
            st = parent.stat()
        except (FileNotFoundError, NotADirectoryError):
            missing = parent
            continue
        except OSError:
            return None  # unreadable: let the write report it
        if not stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{parent}: is a file, not a folder (cannot write {dest})")
        break
    if missing is None:
        return None
    top = Path(os.path.abspath(missing)).resolve()
    for base in (Path.cwd(), Path(tempfile.gettempdir())):
        base = base.resolve()
        if top == base or base in top.parents:
            return None
    return missing


def check_parent(dest: PathLike) -> None:
    """Refuse a destination whose parent folder may not be created (see the module docstring).

    Missing parent folders may be created (by the writer, later) only below the current
    working directory or the system temp folder; a file standing where a parent folder
    should be is refused.

    Raises:
        OutputError: naming the destination and the missing folder.
    """
    dest = Path(dest)
    missing = _missing_parent(dest)
    if missing is not None:
        raise OutputError(f"{dest}: folder {missing} does not exist; create it first (aau "
                          "creates missing folders only below the current directory or the "
                          "temp folder)")


def _check_destination(dest: Path, *, force: bool) -> os.stat_result | None:
    """Apply the destination rules of the module docstring to ``dest``.

    Returns:
        the stat of the existing regular file at ``dest``, or ``None``.

    Raises:
        OutputError: one line naming ``dest``.
    """
    try:
        existing = os.lstat(dest)
    except (FileNotFoundError, NotADirectoryError):
        existing = None
    except OSError:
        existing = None  # unreadable: let the write report it
    if existing is not None:
        if stat.S_ISDIR(existing.st_mode):
            raise OutputError(f"{dest}: is a folder, not a file")
        if not stat.S_ISREG(existing.st_mode):
            raise OutputError(f"{dest}: is not a regular file (a device, pipe or link); "
                              "name a regular file")
    check_parent(dest)
    if existing is None:
        return None
    if not force:
        raise OutputError(f"{dest}: already exists (use --force to replace it)")
    return existing


def check_writable(path: PathLike, *, force: bool) -> None:
    """Fail early, before any work, when ``path`` could not be written later.

    Raises:
        OutputError: ``path`` exists and ``force`` is false; it is a folder, a device, a pipe
            or a link (even with ``force``); a file stands where one of its parent folders
            should be; or a parent folder is missing outside the current directory and the
            temp folder.
    """
    _check_destination(Path(path), force=force)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def check_outputs(outputs: Mapping[str, PathLike | None], *, inputs: Iterable[PathLike] = (),
                  force: bool) -> dict[str, Path]:
    """Check every output of a command before it does any work.

    Args:
        outputs: option name (as the user typed it, e.g. ``"--junit"``) -> destination, or
            ``None`` for an output not asked for (skipped).
        inputs: the files the command reads; an output may not be one of them, even with
            ``force`` (``aau report receipt.json --junit receipt.json --force`` would replace
            the receipt it reports on).
        force: whether existing regular files may be replaced.

    Returns:
        option name -> ``Path`` for the outputs given, in order.

    Raises:
        OutputError: two outputs name the same file (``--out and --junit name the same file
            (r.json)``); an output is an input (``--junit r.json: is also an input of this
            command; name another file``); or a destination breaks the rules of
            ``check_writable``.
    """
    given = {name: Path(p) for name, p in outputs.items() if p is not None and str(p) != ""}
    seen: list[tuple[str, Path]] = []
    for name, path in given.items():
        for other, other_path in seen:
            if _same_file(path, other_path):
                raise OutputError(f"{other} and {name} name the same file ({path})")
        seen.append((name, path))
    input_paths = [Path(p) for p in inputs]
    for name, path in given.items():
        for source in input_paths:
            if _same_file(path, source):
                raise OutputError(f"{name} {path}: is also an input of this command; "
                                  "name another file")
    for path in given.values():
        _check_destination(path, force=force)
    return given


def write_outputs(files: Mapping[PathLike, Content], *, force: bool,
                  private: Iterable[PathLike] = ()) -> list[Path]:
    """Write several files as one step: stage every temp file, then rename them all.

    Each destination is checked (``check_writable``'s rules; duplicates refused), its missing
    parent folders created (below the current directory or the temp folder only), and its
    content written to a temp file beside it and fsync'ed. Only when every file is staged are the temp files renamed
    into place, one ``os.replace`` (with ``force``) or ``os.link`` (without: never clobbers a
    file that appeared meanwhile) each. An error while staging removes every temp file and
    leaves no output; an error while renaming (a file appeared meanwhile, or stopped being a
    regular file) removes the files this call had created new and every remaining temp file.

    Args:
        files: destination -> content: the full text, or a function that writes into the open
            text file (e.g. ``json_content(doc)``).
        force: replace existing regular files.
        private: destinations holding sensitive data, created owner-only (0600). Other new
            files get 0666 less the umask; a replaced file keeps its permission bits.

    Returns:
        the destination paths, in order.

    Raises:
        OutputError: one line naming the file (see ``check_writable``), or the write failed.
    """
    dests = [Path(p) for p in files]
    contents = list(files.values())
    secret = [Path(p) for p in private]
    for i, a in enumerate(dests):
        for b in dests[:i]:
            if _same_file(a, b):
                raise OutputError(f"{a}: named twice among the outputs")
    existing = [_check_destination(d, force=force) for d in dests]
    staged: list[str] = []
    try:
        for dest, content, old in zip(dests, contents, existing, strict=True):
            is_private = any(_same_file(dest, s) or dest == s for s in secret)
            try:
                dest.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = _create_temp(dest, 0o600 if is_private else 0o666)
            except OSError as exc:
                raise OutputError(f"{dest}: cannot write: {exc.strerror or exc}") from None
            staged.append(tmp)
            try:
                with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                    if old is not None and not is_private and hasattr(os, "fchmod"):
                        os.fchmod(fh.fileno(), old.st_mode & 0o777)  # --force keeps the mode
                    if isinstance(content, str):
                        fh.write(content)
                    else:
                        content(fh)
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as exc:
                raise OutputError(f"{dest}: cannot write: {exc.strerror or exc}") from None
        _commit(dests, staged, force=force)
    finally:
        for tmp in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return dests


def _commit(dests: list[Path], staged: list[str], *, force: bool) -> None:
    created: list[Path] = []
    try:
        for dest, tmp in zip(dests, staged, strict=False):
            _check_destination(dest, force=force)  # it may have changed since the check
            if force:
                existed = os.path.lexists(dest)
                os.replace(tmp, dest)
                if not existed:
                    created.append(dest)
                continue
            try:
                os.link(tmp, dest)  # fails if dest appeared meanwhile: never clobber
            except FileExistsError:
                raise OutputError(f"{dest}: already exists (use --force to replace it)") from None
            except OSError:
                os.replace(tmp, dest)  # filesystem without hard links
            created.append(dest)
    except BaseException as exc:
        for dest in created:
            with contextlib.suppress(OSError):
                os.unlink(dest)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise OutputError(f"{dest}: cannot write: {exc.strerror or exc}") from None
        raise
