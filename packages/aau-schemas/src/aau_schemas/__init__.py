"""aau-schemas: the language-neutral JSON Schemas behind every aau artifact.

Public API::

    validate(kind, doc, source=None)     raise SchemaError listing every `$.path: message`
    is_valid(kind, doc) -> bool          fast path (jsonschema-rs)
    prepare(kind)                        compile and keep that fast path's validator now
    iter_violations(kind, doc)           every violation (python-jsonschema, the reference)
    detect_kind(doc) -> str | None       from the document's version field
    kinds(), kind_info(kind), schema(kind), schema_by_id(uri), schema_root()
    canonical_json(doc) -> bytes         RFC 8785
    sha256_hex(bytes) -> str, canonical_digest(doc) -> "sha256:<hex>"
    legacy_* functions                   aau-harness 1.x hashing conventions
    json_path(parts) -> "$.a[0].b"
    has_lone_surrogate(text) -> bool     a str that UTF-8 (and so RFC 8785) cannot encode
    nearest_key(key, known) -> str | None   the known key a misspelt one most resembles

Every public name is listed once, in ``_EXPORTS`` below (module -> names); ``__all__`` is derived
from it. The imports above it are eager (this package is the bottom of the dependency chain and
cannot use ``aau_core``'s lazy loader); ``tests/test_export_tables.py`` checks that every name
of the table is the object of the module it names.
"""

# ruff: noqa: F401 - these imports re-export the names of _EXPORTS

from __future__ import annotations

from ._canonical import canonical_digest, canonical_json, has_lone_surrogate, sha256_hex
from ._errors import CanonicalizationError, SchemaError, UnknownKindError, Violation
from ._json_path import json_path
from ._legacy import (
    legacy_release_digest,
    legacy_release_render,
    legacy_render_json,
    legacy_sha256_json,
    legacy_suite_bytes,
    legacy_suite_sha256,
)
from ._messages import NEAREST_KEY_CUTOFF, nearest_key
from ._registry import (
    SCHEMA_BASE_URI,
    KindInfo,
    all_schema_resources,
    detect_kind,
    iter_schema_files,
    kind_info,
    kind_mismatch,
    kinds,
    schema,
    schema_by_id,
    schema_root,
)
from ._validate import check_all, is_valid, iter_violations, prepare, python_validator, validate

_EXPORTS: dict[str, tuple[str, ...]] = {
    "._validate": ("validate", "is_valid", "iter_violations", "python_validator", "check_all",
                   "prepare"),
    "._registry": (
        "SCHEMA_BASE_URI",
        "KindInfo",
        "all_schema_resources",
        "detect_kind",
        "iter_schema_files",
        "kind_info",
        "kind_mismatch",
        "kinds",
        "schema",
        "schema_by_id",
        "schema_root",
    ),
    "._errors": ("SchemaError", "UnknownKindError", "CanonicalizationError", "Violation"),
    "._canonical": ("canonical_json", "canonical_digest", "sha256_hex", "has_lone_surrogate"),
    "._legacy": (
        "legacy_release_digest",
        "legacy_release_render",
        "legacy_render_json",
        "legacy_sha256_json",
        "legacy_suite_bytes",
        "legacy_suite_sha256",
    ),
    "._json_path": ("json_path",),
    "._messages": ("NEAREST_KEY_CUTOFF", "nearest_key"),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__version__ = "2.0.0.dev0"
