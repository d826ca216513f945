"""The offline schema registry: maps every ``$id`` and kind name to a packaged schema file.

Schemas live in the wheel under ``aau_schemas/schemas``; in a repository checkout (editable install)
they are read from ``<repo>/schemas`` so edits are live. ``schemas/index.json`` lists the kinds::

    {"base_uri": "https://aau.dev/schemas/",
     "kinds": [{"kind": "suite", "path": "suite/v1/suite.schema.json",
                "version_field": "suite_version", "version": "aau-byo-agent-suite/1.0",
                "title": "..."}, ...]}

Nothing here touches the network: a ``$ref`` outside ``base_uri`` raises ``UnknownKindError``.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._errors import UnknownKindError
from ._json_path import json_path

SCHEMA_BASE_URI = "https://aau.dev/schemas/"


@dataclass(frozen=True)
class KindInfo:
    """One document kind the registry knows.

    Attributes:
        kind: short name used on the command line (``"suite"``, ``"receipt-v2"``).
        path: schema file relative to the schema root (``"suite/v1/suite.schema.json"``).
        schema_id: the schema's absolute ``$id``.
        title: one-line description.
        version_field: top-level field that carries the document version, or ``None``.
        version: the value of that field for this kind (the newest), or ``None``.
        versions: every version string a document of this kind may carry: the ``versions`` list
            of its ``index.json`` row (a minor version ``vN.M/`` accepts the strings of every
            earlier minor of its major, schemas/README.md "Versioning"), else ``(version,)``;
            ``()`` for kinds without a version field.
    """

    kind: str
    path: str
    schema_id: str
    title: str
    version_field: str | None
    version: str | None
    versions: tuple[str, ...] = ()


def schema_root() -> Path:
    """Return the folder holding ``index.json`` and every schema file.

    Returns:
        the packaged copy (``site-packages/aau_schemas/schemas``) when present, else the
        repository's ``schemas/`` folder (editable installs).

    Raises:
        FileNotFoundError: neither exists (a broken install).
    """
    packaged = Path(__file__).resolve().parent / "schemas"  # (importlib.resources: ~5 ms more)
    if (packaged / "index.json").is_file():
        return packaged
    dev = Path(__file__).resolve().parents[4] / "schemas"
    if (dev / "index.json").is_file():
        return dev
    raise FileNotFoundError(
        f"aau schemas not found in {packaged} or {dev}; reinstall aau-schemas"
    )


@functools.lru_cache(maxsize=1)
def _index() -> dict[str, Any]:
    return json.loads((schema_root() / "index.json").read_text(encoding="utf-8"))


def _versions(entry: dict[str, Any]) -> tuple[str, ...]:
    """An index row's accepted version strings: its ``versions`` list, else its ``version``."""
    listed = entry.get("versions")
    if listed:
        return tuple(listed)
    version = entry.get("version")
    return (version,) if version is not None else ()


@functools.lru_cache(maxsize=1)
def _kinds() -> dict[str, KindInfo]:
    index = _index()
    base = index["base_uri"]
    out: dict[str, KindInfo] = {}
    for entry in index["kinds"]:
        out[entry["kind"]] = KindInfo(
            kind=entry["kind"],
            path=entry["path"],
            schema_id=base + entry["path"],
            title=entry["title"],
            version_field=entry.get("version_field"),
            version=entry.get("version"),
            versions=_versions(entry),
        )
    return out


def kinds() -> list[KindInfo]:
    """Return every registered kind, in ``index.json`` order."""
    return list(_kinds().values())


def kind_info(kind: str) -> KindInfo:
    """Return the ``KindInfo`` for a kind name.

    Raises:
        UnknownKindError: no such kind (the message lists the known ones).
    """
    try:
        return _kinds()[kind]
    except KeyError:
        known = ", ".join(_kinds())
        raise UnknownKindError(f"unknown schema kind {kind!r} (known: {known})") from None


def iter_schema_files() -> Iterator[tuple[str, Path]]:
    """Yield ``(relative_path, file)`` for every ``*.schema.json`` under the schema root."""
    root = schema_root()
    for path in sorted(root.rglob("*.schema.json")):
        yield path.relative_to(root).as_posix(), path


@functools.cache
def _load_by_id(uri: str) -> dict[str, Any]:
    """Parse (once) the schema file behind an ``$id``; shared, never handed out."""
    uri = uri.split("#", 1)[0]
    if not uri.startswith(SCHEMA_BASE_URI):
        raise UnknownKindError(f"refusing to resolve {uri!r}: not an aau schema $id")
    rel = uri[len(SCHEMA_BASE_URI):]
    path = schema_root().joinpath(*rel.split("/"))
    if ".." in rel.split("/") or not path.is_file():
        raise UnknownKindError(f"no packaged schema for {uri!r}")
    return json.loads(path.read_text(encoding="utf-8"))


def schema_by_id(uri: str) -> dict[str, Any]:
    """Return the parsed schema file whose ``$id`` is ``uri`` (a ``#fragment`` is ignored here;
    validation honours it). The caller gets its own copy: the registry cache cannot be altered.

    Raises:
        UnknownKindError: ``uri`` is outside ``SCHEMA_BASE_URI`` or names no packaged file.
    """
    return copy.deepcopy(_load_by_id(uri))


def schema(kind: str) -> dict[str, Any]:
    """Return the parsed schema document for a kind name (``"suite"``) or an ``$id``."""
    if kind.startswith(SCHEMA_BASE_URI):
        return schema_by_id(kind)
    return schema_by_id(kind_info(kind).schema_id)


def all_schema_resources() -> list[tuple[str, dict[str, Any]]]:
    """Return ``[($id, schema), ...]`` for every packaged schema file (for validator registries)."""
    out = []
    for _rel, path in iter_schema_files():
        doc = json.loads(path.read_text(encoding="utf-8"))
        out.append((doc["$id"], doc))
    return out


def detect_kind(doc: Any) -> str | None:
    """Guess a document's kind from its version field.

    Args:
        doc: a parsed JSON value.

    Returns:
        the kind name whose ``version_field`` holds exactly one of that kind's ``versions`` (its
        ``version``, or any string its ``index.json`` row lists in ``versions``), or ``None``
        when the document carries no known version (adapter responses carry none).
    """
    if not isinstance(doc, dict):
        return None
    for info in _kinds().values():
        if info.version_field and info.version_field in doc:
            value = doc[info.version_field]
            if isinstance(value, str) and value in info.versions:
                return info.kind
    return None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def kind_mismatch(doc: Any, expected: str | Sequence[str]) -> tuple[str, str] | None:
    """Why ``doc`` is not a document of the ``expected`` kind(s), judged by its version field.

    The one check every reader makes before its schema's violations, so that a document of
    another kind, or an unknown version of the right kind, is named in one line instead of
    being reported as every property the expected schema misses.

    Args:
        doc: a parsed JSON value.
        expected: a kind name, or the kind names a reader accepts (``["suite", "suite-v2"]``).

    Returns:
        ``(json path, message)``, or ``None`` when the version field gives no reason to refuse
        (a document without any known version field is left to the schema):

        - another known kind: ``this is a gate-config document ("gate_config_version":
          "aau-gate-config/1.0"), not a gate-scenarios document``;
        - an unknown version of an expected kind's field: ``"aau-gate-config/2.0" is not a
          supported version; gate-config documents carry "aau-gate-config/1.0"``;
        - another known kind's field with an unknown version: the same sentence naming that field.
    """
    wanted = [expected] if isinstance(expected, str) else list(expected)
    if not isinstance(doc, dict):
        return None
    detected = detect_kind(doc)
    if detected in wanted:
        return None
    want = " or ".join(f"{k}" for k in wanted)
    infos = [kind_info(k) for k in wanted]
    if detected is not None:
        info = kind_info(detected)
        return (json_path([info.version_field or ""]) if info.version_field else "$",
                f"this is a {detected} document ({_json(info.version_field)}: "
                f"{_json(doc[info.version_field])}), not a {want} document")
    fields = [i.version_field for i in infos if i.version_field]
    fields += [i.version_field for i in _kinds().values()
               if i.version_field and i.version_field not in fields]
    for field in fields:
        if field in doc:
            mine = [i for i in infos if i.version_field == field]
            owners = mine or [i for i in _kinds().values() if i.version_field == field]
            versions = ", ".join(_json(v) for i in owners for v in i.versions)
            kinds_text = " or ".join(i.kind for i in owners)
            tail = "" if mine else f"; expected a {want} document"
            return (json_path([field]), f"{_json(doc[field])} is not a supported version; {kinds_text} documents "
                    f"carry {versions}{tail}")
    return None
