"""The use-case catalog: load, filter, search, resolve one name, and the commands to start it.

Two file forms are read (aau-schemas kinds ``catalog`` and ``use-cases``): aau's versioned
``{"catalog_version": "aau-catalog/1.0", "title", "entries"}``, which ships with this package
(``catalog.json``: the example suites and fictional-domain labs of the aau repository), and
aau-harness 1.6's ``docs/use-cases.json``, a bare array of the same entries, read as is.

Matching follows aau-harness 1.6 (``catalog_cli``): a query matches an entry when every
whitespace-separated term, lower-cased, is a substring of its title, path, industry, kind,
question and capabilities joined; ``--industry`` and ``--capability`` are case-insensitive
substrings. A name resolves by exact (case-insensitive) match on the title, its slug, the path,
the path's last segment (and that segment without its file suffix), or the cli, and otherwise by
a unique query match.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import attrs
from aau_core._files._converter import optional_field  # monorepo internal

from ._converter import navigator_converter

CATALOG_KIND = "catalog"
USE_CASES_KIND = "use-cases"
CATALOG_VERSION = "aau-catalog/1.0"
BUNDLED_CATALOG = Path(__file__).with_name("catalog.json")
MAX_CATALOG_BYTES = 5_000_000


@attrs.frozen
class CatalogEntry:
    """One use case: the model of schema kind ``catalog-entry`` (aau-navigator's converter).

    Attributes mirror the JSON keys; ``capabilities`` and ``commands`` are tuples; ``featured``,
    ``docs`` and ``commands`` are ``None`` when the entry leaves them out.
    """

    path: str
    title: str
    icon: str
    industry: str
    capabilities: tuple[str, ...]
    kind: str
    question: str
    cli: str
    featured: bool | None = optional_field()
    docs: str | None = optional_field()
    commands: tuple[str, ...] | None = optional_field()

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> CatalogEntry:
        """Build from a schema-valid entry dict (a one-line delegation to aau-navigator's
        converter)."""
        return navigator_converter().structure(doc, cls)

    def to_dict(self) -> dict[str, Any]:
        """The entry as JSON (keys it left out stay out), a valid ``catalog-entry`` (a one-line
        delegation to aau-navigator's converter)."""
        return navigator_converter().unstructure(self)

    def haystack(self) -> str:
        """The lower-cased text a query searches (1.6's fields, in 1.6's order)."""
        return " ".join([self.title, self.path, self.industry, self.kind, self.question,
                         *self.capabilities]).lower()

    def names(self) -> set[str]:
        """Lower-cased names that resolve to this entry exactly."""
        last = PurePosixPath(self.path).name
        return {self.title.lower(), slugify(self.title), self.path.lower(), last.lower(),
                PurePosixPath(last).stem.lower(), self.cli.lower()}


@attrs.frozen
class Catalog:
    """A loaded catalog.

    Attributes:
        entries: the use cases, in file order.
        source: the file it was read from.
        root: the folder entry paths and commands are relative to.
        title: the catalog's title (1.6 files have none: ``None``).
        kind: ``"catalog"`` or ``"use-cases"`` (the schema kind of the file).
        bundled: the catalog that ships with aau-navigator.
    """

    entries: tuple[CatalogEntry, ...]
    source: Path
    root: Path
    title: str | None
    kind: str
    bundled: bool = False


def slugify(text: str) -> str:
    """Lower-case ``text`` and join its runs of ``[a-z0-9]`` with ``-`` (1.6's title slug)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def default_root(catalog_file: Path) -> Path:
    """The folder a catalog's paths are relative to: ``X`` for ``X/docs/use-cases.json`` (the
    1.6 checkout layout), else the catalog file's own folder."""
    parent = catalog_file.resolve().parent
    return parent.parent if parent.name == "docs" else parent


def load_catalog(path: str | Path | None = None, *, root: str | Path | None = None) -> Catalog:
    """Read a catalog file (``None``: the bundled one) and check it.

    Args:
        path: a ``catalog`` or ``use-cases`` JSON file, or ``None``.
        root: folder the entry paths are relative to; default ``default_root(path)`` (for the
            bundled catalog: the aau repository checkout the commands are run from, the
            current folder).

    Returns:
        the Catalog.

    Raises:
        aau_core.InputError / InvalidDocumentError: unreadable, invalid JSON, not valid against
            its kind (a JSON array is read as ``use-cases``, anything else as ``catalog``), or
            two entries with the same path (``file: $[i].path: ...``).
    """
    from aau_core import InvalidDocumentError, check_document

    from ._documents import read_json

    bundled = path is None
    source = BUNDLED_CATALOG if bundled else Path(path)
    doc = read_json(source, max_bytes=MAX_CATALOG_BYTES)
    if not isinstance(doc, (list, dict)):  # both are catalogs: say so, not "not an object"
        raise InvalidDocumentError([("$", f"{json.dumps(doc)[:40]} is neither an aau-catalog/1.0 "
                                     "object nor a use-cases array (aau-harness 1.6's "
                                     "docs/use-cases.json)")], source=str(source))
    kind = USE_CASES_KIND if isinstance(doc, list) else CATALOG_KIND
    check_document(kind, doc, str(source))
    items = doc if kind == USE_CASES_KIND else doc["entries"]
    prefix = "$" if kind == USE_CASES_KIND else "$.entries"
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        if item["path"] in seen:
            raise InvalidDocumentError(
                [(f"{prefix}[{index}].path",
                  f"{item['path']!r} is also the path of entry {seen[item['path']]}")],
                source=str(source))
        seen[item["path"]] = index
    if root is not None:
        base = Path(root)
    else:
        base = Path.cwd() if bundled else default_root(source)
    return Catalog(entries=tuple(CatalogEntry.from_dict(item) for item in items), source=source,
                   root=base, title=None if kind == USE_CASES_KIND else doc["title"], kind=kind,
                   bundled=bundled)


def matches(entry: CatalogEntry, query: str) -> bool:
    """Every whitespace-separated term of ``query`` (lower-cased) occurs in ``entry.haystack()``."""
    haystack = entry.haystack()
    return all(term in haystack for term in query.lower().split())


def filter_entries(entries: Iterable[CatalogEntry], *, query: str = "", industry: str = "",
                   capability: str = "") -> list[CatalogEntry]:
    """Entries matching ``query`` (``matches``), whose industry contains ``industry`` and one of
    whose capabilities contains ``capability`` (case-insensitive substrings); empty filters
    match everything. Order is kept."""
    out = [e for e in entries if not query or matches(e, query)]
    if industry:
        out = [e for e in out if industry.lower() in e.industry.lower()]
    if capability:
        out = [e for e in out if any(capability.lower() in c.lower() for c in e.capabilities)]
    return out


def resolve_entry(entries: Sequence[CatalogEntry], name: str) -> CatalogEntry:
    """The one entry ``name`` designates (see the module docstring for the rules).

    Raises:
        aau_core.UsageError: nothing matches (the message suggests ``aau find``), or several
            entries match (the message lists up to eight of them by title).
    """
    from aau_core import UsageError

    needle = name.strip().rstrip("/").lower()
    exact = [e for e in entries if needle and needle in e.names()]
    if len(exact) == 1:
        return exact[0]
    candidates = exact or [e for e in entries if needle and matches(e, needle)]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise UsageError(f"no use case matches {name!r}; try: aau find {shlex.quote(name)}")
    listed = ", ".join(repr(e.title) for e in candidates[:8])
    more = f" and {len(candidates) - 8} more" if len(candidates) > 8 else ""
    raise UsageError(f"{name!r} matches {len(candidates)} use cases: {listed}{more}; "
                     "name one by its title or path")
