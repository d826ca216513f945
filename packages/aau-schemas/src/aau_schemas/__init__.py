"""aau-schemas: the language-neutral JSON Schemas behind every aau artifact.

Public API::

    validate(kind, doc, source=None)     raise SchemaError listing every `$.path: message`
    is_valid(kind, doc) -> bool          fast path (jsonschema-rs)
    iter_violations(kind, doc)           every violation (python-jsonschema, the reference)
    detect_kind(doc) -> str | None       from the document's version field
    kinds(), kind_info(kind), schema(kind), schema_by_id(uri), schema_root()
    canonical_json(doc) -> bytes         RFC 8785
    sha256_hex(bytes) -> str, canonical_digest(doc) -> "sha256:<hex>"
    legacy_* functions                   aau-harness 1.x hashing conventions
    json_path(parts) -> "$.a[0].b"
"""

from __future__ import annotations

from ._canonical import canonical_digest, canonical_json, sha256_hex
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
from ._validate import check_all, is_valid, iter_violations, python_validator, validate

__version__ = "2.0.0.dev0"

__all__ = [
    "SCHEMA_BASE_URI",
    "CanonicalizationError",
    "KindInfo",
    "SchemaError",
    "UnknownKindError",
    "Violation",
    "all_schema_resources",
    "canonical_digest",
    "canonical_json",
    "check_all",
    "detect_kind",
    "is_valid",
    "iter_schema_files",
    "iter_violations",
    "json_path",
    "kind_info",
    "kind_mismatch",
    "kinds",
    "legacy_release_digest",
    "legacy_release_render",
    "legacy_render_json",
    "legacy_sha256_json",
    "legacy_suite_bytes",
    "legacy_suite_sha256",
    "python_validator",
    "schema",
    "schema_by_id",
    "schema_root",
    "sha256_hex",
    "validate",
]
