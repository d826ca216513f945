"""What is installed (entry points, distribution versions), cached while nothing installed changed.

Importing ``importlib.metadata`` and scanning every distribution costs ~40 ms of every ``aau``
run on a 2-core machine (issue 17, row c of ``benchmarks/README.md``), more than a thousand
kept-alive endpoint exchanges; a receipt's ``harness_version`` costs that import again. The groups
the ``aau`` command needs and the versions a run asks for are therefore kept in small JSON files
under the user's cache directory (``$AAU_CACHE_DIR``, else ``$XDG_CACHE_HOME/aau``, else
``~/.cache/aau``), named by a fingerprint of what is installed: for every ``sys.path`` folder,
the name, size and modification time (ns) of each ``*.dist-info`` / ``*.egg-info`` entry and
of its ``entry_points.txt``. Installing, removing or upgrading a package changes the
fingerprint (taken once per process and ``sys.path``), so a stale list is never used; ``AAU_CACHE_DIR=off`` turns the cache off. A cache
that cannot be read or written (read-only home, a corrupt file) only means the scan runs.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Iterable
from importlib import import_module
from typing import Any

_FORMAT = 1
_SUFFIXES = (".dist-info", ".egg-info")


class CachedEntryPoint:
    """One entry point as ``importlib.metadata.EntryPoint`` names it: ``name``, ``group`` and
    ``value`` (``"module:attr.path"``); ``module`` and ``load()`` behave as the stdlib's."""

    __slots__ = ("group", "name", "value")

    def __init__(self, name: str, value: str, group: str) -> None:
        self.name, self.value, self.group = name, value, group

    @property
    def module(self) -> str:
        """The module part of ``value`` (before ``:``, extras removed)."""
        return self.value.split(":", 1)[0].split("[", 1)[0].strip()

    def load(self) -> Any:
        """Import the module and return the object the value names.

        Raises whatever the import raises (ImportError, or any error of the module's code) and
        AttributeError when the attribute path does not exist."""
        head, _, attr = self.value.split("[", 1)[0].partition(":")
        target: Any = import_module(head.strip())
        for part in filter(None, attr.strip().split(".")):
            target = getattr(target, part)
        return target

    def __repr__(self) -> str:
        return f"CachedEntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def _cache_dir() -> str | None:
    explicit = os.environ.get("AAU_CACHE_DIR")
    if explicit:
        return None if explicit.lower() == "off" else explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "aau")


@functools.lru_cache(maxsize=4)
def _fingerprint_of(paths: tuple[str, ...]) -> str:
    return _fingerprint(paths)


def _fingerprint(paths: Iterable[str]) -> str:
    """SHA-256 over every path folder's distribution entries (name, size, mtime_ns) and their
    ``entry_points.txt``; a folder that cannot be listed counts as empty."""
    digest = hashlib.sha256(f"{_FORMAT}\0{sys.version}\0".encode())
    for folder in paths:
        digest.update(f"P\0{folder}\0".encode())
        try:
            entries = sorted((e.name, e.path) for e in os.scandir(folder or ".")
                             if e.name.endswith(_SUFFIXES))
        except OSError:
            continue
        for name, path in entries:
            for item in (path, os.path.join(path, "entry_points.txt")):
                try:
                    st = os.stat(item)
                except OSError:
                    digest.update(b"-\0")
                    continue
                digest.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:32]


def _scan(groups: tuple[str, ...]) -> list[list[str]]:
    from importlib.metadata import entry_points

    found = entry_points()
    return [[ep.name, ep.value, group] for group in groups for ep in found.select(group=group)]


def entry_points_of(groups: tuple[str, ...]) -> dict[str, list[CachedEntryPoint]]:
    """Group -> its installed entry points, in ``importlib.metadata`` order, for each group.

    Args: groups, the entry-point group names wanted (every one is scanned and cached together).
    Returns: a dict with a (possibly empty) list for every group. Never raises for the cache:
    a cache that cannot be used falls back to the scan."""
    folder = _cache_dir()
    rows: list[list[str]] | None = None
    path = None
    if folder is not None:
        key = _fingerprint_of(tuple(sys.path)) + hashlib.sha256("\0".join(groups).encode()).hexdigest()[:8]
        path = os.path.join(folder, f"entry-points-{key}.json")
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
            if (isinstance(data, list)
                    and all(isinstance(r, list) and len(r) == 3
                            and all(isinstance(x, str) for x in r) for r in data)):
                rows = data
        except (OSError, ValueError):
            rows = None
    if rows is None:
        rows = _scan(groups)
        if path is not None:
            _write(path, rows)
    out: dict[str, list[CachedEntryPoint]] = {group: [] for group in groups}
    for name, value, group in rows:
        if group in out:
            out[group].append(CachedEntryPoint(name, value, group))
    return out


KEEP_FILES = 8
"""Cache files kept per kind (``entry-points-*``, ``versions-*``): writing a new one removes the
oldest beyond this many (each installed set has its own file; old sets are never read again)."""


def _write(path: str, rows: object) -> None:
    """Write the cache atomically (a temporary file renamed over), then prune its kind to
    ``KEEP_FILES`` files, oldest first; any OSError is ignored."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(rows, handle)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return
    _prune(os.path.dirname(path), os.path.basename(path).split("-")[0] + "-")


def _prune(folder: str, prefix: str) -> None:
    """Remove the oldest ``prefix*.json`` files of ``folder`` beyond ``KEEP_FILES``."""
    try:
        files = [e for e in os.scandir(folder)
                 if e.name.startswith(prefix) and e.name.endswith(".json")]
        if len(files) <= KEEP_FILES:
            return
        files.sort(key=lambda e: e.stat().st_mtime_ns, reverse=True)
        for stale in files[KEEP_FILES:]:
            os.unlink(stale.path)
    except OSError:
        pass


_NOT_INSTALLED = "0+unknown"


def distribution_version(distribution: str) -> str:
    """An installed distribution's version (``importlib.metadata.version``), or ``"0+unknown"``
    when it is not installed; cached like the entry points (the fingerprint covers every
    distribution's folder, so an upgrade is never answered with the old version).

    Args: distribution, a distribution name as pip spells it (``"aau-adapters"``).
    Returns: its version string. Never raises for the cache."""
    folder = _cache_dir()
    path = None
    if folder is not None:
        path = os.path.join(folder, f"versions-{_fingerprint_of(tuple(sys.path))}.json")
        known = _read_versions(path)
        if isinstance(known.get(distribution), str):
            return known[distribution]
    from importlib import metadata

    try:
        version = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        version = _NOT_INSTALLED
    if path is not None:
        known = _read_versions(path)
        known[distribution] = version
        _write(path, known)
    return version


def _read_versions(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
