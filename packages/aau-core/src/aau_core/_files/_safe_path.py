"""Safe names and paths inside a pack or a repository root.

Two rules shared by every pack writer and reader (baseline, evidence, submit, release):

- ``safe_slug`` turns any string (a suite id, an artifact id) into one file-name component that
  cannot climb out of its folder;
- ``check_relative_path`` accepts a POSIX relative path only when every segment is a plain name
  and no segment on the way is a symlink, so the file it names really lies inside ``root``.
"""

from __future__ import annotations

import os
from pathlib import Path

from aau_schemas import sha256_hex

from .._errors import InputError

_SLUG_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
SLUG_MAX = 100
"""Longest slug ``safe_slug`` returns (characters)."""
FORBIDDEN_SEGMENTS = frozenset({"", ".", "..", ".git"})
"""Path segments ``check_relative_path`` refuses (empty comes from ``a//b`` or a trailing ``/``)."""


def safe_slug(value: str) -> str:
    """A file-name-safe form of ``value``: one path component, never ``.``, ``..`` or hidden.

    Characters outside ``[A-Za-z0-9._-]`` become ``-``, runs of ``-`` collapse, leading dots
    and hyphens are dropped and the result is cut to ``SLUG_MAX`` characters. When that changes
    ``value`` at all, ``-`` and the first 10 hex digits of SHA-256(``value`` as UTF-8) are
    appended, so two different values cannot share a slug by sanitising alike (``../x`` and
    ``x`` give different names); a value that is already safe is returned unchanged.

    Args:
        value: any string.

    Returns:
        A non-empty string of ``[A-Za-z0-9._-]`` not starting with ``.`` or ``-``, at most
        ``SLUG_MAX + 11`` characters.

    Raises:
        TypeError: ``value`` is not a string.
    """
    if not isinstance(value, str):
        raise TypeError(f"safe_slug needs a string, not {type(value).__name__}")
    out: list[str] = []
    for ch in value:
        ch = ch if ch in _SLUG_OK else "-"
        if ch == "-" and out and out[-1] == "-":
            continue
        out.append(ch)
    slug = "".join(out).lstrip(".-")[:SLUG_MAX]
    if slug and slug == value:
        return slug
    digest = sha256_hex(value.encode("utf-8", "surrogatepass"))[:10]
    return f"{slug}-{digest}" if slug else f"x-{digest}"


def check_relative_path(path: str, root: str | os.PathLike[str], *, source: str | None = None,
                        json_path: str | None = None) -> Path:
    """Check that ``path`` is a plain POSIX relative path inside ``root`` and return it joined.

    Refused: a non-string or empty path, an absolute path, a backslash or control character
    (U+0000..U+001F), a segment that is empty, ``.``, ``..`` or ``.git``, a symlink at any segment that exists
    (checked with ``lstat``, segment by segment from ``root``), and a path whose resolved form
    leaves ``root``. Segments that do not exist yet are fine (a pack being staged).

    Args:
        path: the relative path as written in a document (``"artifacts/suite.jsonl"``).
        root: the folder the path is relative to.
        source: the file name to report (default: ``path`` itself).
        json_path: the JSON path of the value in ``source`` (``"$.artifacts.suite.path"``).

    Returns:
        ``Path(root) / path``.

    Raises:
        InputError: ``"<source>: <json_path>: <message>"`` naming the path and the rule broken.
    """
    where = {"source": source if source is not None else str(path), "path": json_path}
    check_relative_name(path, source=source, json_path=json_path)
    shown = path if source is None else repr(path)
    base = Path(root)
    here = base
    for segment in path.split("/"):
        here = here / segment
        if here.is_symlink():
            raise InputError(f"{shown}: {segment!r} is a symlink; symlinks are not followed",
                             **where)
        if not here.exists():
            break
    try:
        inside = (base / path).resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError) as exc:  # a symlink loop under root, or an unreadable folder
        raise InputError(f"{shown}: cannot resolve: {exc}", **where) from None
    if not inside:
        raise InputError(f"{shown}: leaves the root folder", **where)
    return base / path


def check_relative_name(path: str, *, source: str | None = None,
                        json_path: str | None = None) -> str:
    """The syntactic half of ``check_relative_path``, without touching the file system.

    Refused: a non-string or empty path, an absolute path (``/x``, ``C:/x``), a backslash or
    control character (U+0000..U+001F), and a segment that is empty, ``.``, ``..`` or ``.git``.

    Returns:
        ``path`` unchanged.

    Raises:
        InputError: as ``check_relative_path``.
    """
    where = {"source": source if source is not None else str(path), "path": json_path}
    if not isinstance(path, str) or not path:
        raise InputError("a path must be a non-empty string", **where)
    shown = path if source is None else repr(path)
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise InputError(f"{shown}: must be relative, not absolute", **where)
    if "\\" in path or any(ord(ch) < 0x20 for ch in path):
        raise InputError(f"{shown}: backslashes and control characters are not allowed",
                         **where)
    segments = path.split("/")
    bad = [s for s in segments if s in FORBIDDEN_SEGMENTS]
    if bad:
        label = "an empty segment" if bad[0] == "" else f"segment {bad[0]!r}"
        raise InputError(f"{shown}: {label} is not allowed", **where)
    return path
