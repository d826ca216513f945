"""Release-gate documents: their versions, how they are read, rendered and hashed.

The seven release documents (manifest, snapshot, diff, policy, evidence plan, approval,
decision) and the pack manifest keep aau-harness 1.6's formats and hashing conventions
(reference §2.9, §2.11), so that 1.6 packs still verify:

- a release *digest* (``snapshot_sha256``, ``diff_sha256``, ``policy_sha256``, ...) is the
  SHA-256 of ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
  as UTF-8, no newline (``aau_schemas.legacy_release_digest``);
- a release *file* is ``json.dumps(value, indent=2, ensure_ascii=False) + "\\n"`` in insertion
  order (``aau_schemas.legacy_release_render``), unlike every other aau file.

Every reader validates against the kind's schema first (``schemas/release/v1``), then checks
what the schema cannot say (listed in each schema's ``description``); both raise
``aau_core.InvalidDocumentError`` (exit 2) naming the file and the JSON path of each problem.
Only then is the document structured as its model (``_release_models``) and returned.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

import aau_schemas
import attrs
from aau_core import InputError, InvalidDocumentError, read_json_file, schema_problems

from ._converter import converter
from ._release_models import (
    EvidencePlan,
    ReleaseApproval,
    ReleaseDecision,
    ReleaseDiff,
    ReleaseManifest,
    ReleasePackManifest,
    ReleasePolicy,
    ReleaseSnapshot,
)

MAX_JSON_BYTES = 2_000_000
"""Largest release document read, in bytes (as aau-harness 1.6)."""

MAX_COMPONENT_BYTES = 5_000_000
"""Largest component file hashed by ``capture``, in bytes (as aau-harness 1.6)."""

MANIFEST_VERSION = "aau-agent-release-manifest/1.0"
SNAPSHOT_VERSION = "aau-agent-release-snapshot/1.0"
DIFF_VERSION = "aau-agent-release-diff/1.0"
POLICY_VERSION = "aau-agent-release-policy/1.0"
PLAN_VERSION = "aau-agent-release-evidence-plan/1.0"
APPROVAL_VERSION = "aau-agent-release-approval/1.0"
DECISION_VERSION = "aau-agent-release-decision/1.0"
DECISION_VERSION_REVIEW = "aau-agent-release-decision/1.1"
"""What a decision under a 1.1 policy with review requirements is written as; every other
decision stays 1.0, byte for byte aau-harness 1.6's."""
PACK_VERSION = "aau-agent-release-pack/1.0"
PACK_VERSION_REVIEW = "aau-agent-release-pack/1.1"
"""A pack holding a review report (``review-reports/``); every other pack stays 1.0."""

MANIFEST_KIND = "release-manifest"
SNAPSHOT_KIND = "release-snapshot"
DIFF_KIND = "release-diff"
POLICY_KIND = "release-policy"
PLAN_KIND = "release-evidence-plan"
APPROVAL_KIND = "release-approval"
DECISION_KIND = "release-decision"
PACK_MANIFEST_KIND = "release-pack-manifest"

def document(value: Any) -> Any:
    """``value`` as plain JSON values: a release model (``_release_models``) unstructured by the
    package converter, in its fields' order; any other value as it is."""
    return converter.unstructure(value) if attrs.has(type(value)) else value


def release_digest(value: Any) -> str:
    """The 1.6 release digest of ``value`` (a JSON value or a release model): 64 lowercase hex
    characters (see module doc)."""
    return aau_schemas.legacy_release_digest(document(value))


def release_bytes(value: Any) -> bytes:
    """The 1.6 release file bytes of ``value`` (a JSON value or a release model): indent 2,
    insertion (field) order, UTF-8, newline."""
    return aau_schemas.legacy_release_render(document(value)).encode("utf-8")


def without(doc: dict[str, Any], key: str) -> dict[str, Any]:
    """``doc`` without ``key`` (the object an embedded digest is computed over)."""
    return {k: v for k, v in doc.items() if k != key}


def digest_without(value: Any, key: str) -> str:
    """The release digest of ``value`` (a release model or a JSON object) without ``key``: how
    ``snapshot_sha256``, ``diff_sha256`` and ``decision_sha256`` bind their documents."""
    return release_digest(without(document(value), key))


def read_document(path: str | Path) -> Any:
    """Parse a JSON file of at most ``MAX_JSON_BYTES``.

    Raises:
        aau_core.InputError: missing, not a regular file, too large, not UTF-8 or not JSON.
    """
    return read_json_file(path, max_bytes=MAX_JSON_BYTES)


def check_schema(kind: str, doc: Any, source: str) -> dict[str, Any]:
    """Validate ``doc`` against ``kind``'s schema and return it.

    The violations are ``aau_core.schema_problems``' (the one document check); only the
    another-kind line is worded as aau-harness 1.6's release commands word it.

    Raises:
        aau_core.InputError: ``doc`` is another kind of aau document (one line naming both).
        aau_core.InvalidDocumentError: every violation, one ``source: $.path: message`` line each
            (a ``null`` or wrongly-typed sub-object is one of them, never a crash).
    """
    other = aau_schemas.detect_kind(doc) if isinstance(doc, dict) else None
    if other is not None and other != kind:
        raise InputError(f"this is a {other} document, not a {kind}", source=source, path="$")
    problems = schema_problems(kind, doc)
    if problems:
        raise InvalidDocumentError(problems, source=source)
    return doc


def _fail(problems: list[tuple[str, str]], source: str) -> None:
    if problems:
        raise InvalidDocumentError(problems, source=source)


def _date_problems(doc: dict[str, Any], keys: tuple[str, ...]) -> list[tuple[str, str]]:
    problems = []
    for key in keys:
        try:
            _dt.datetime.fromisoformat(doc[key].replace("Z", "+00:00"))
        except ValueError:
            problems.append((f"$.{key}", f"{doc[key]!r} is not a real date and time"))
    return problems


def _sorted_problems(values: list[Any], where: str) -> list[tuple[str, str]]:
    if values != sorted(values):
        return [(where, f"must be sorted: {json.dumps(sorted(values))}")]
    return []


def check_manifest(doc: Any, source: str) -> ReleaseManifest:
    """A release manifest: schema, real ``effective_at``, unique component ids.

    Returns:
        the manifest model. Raises InvalidDocumentError.
    """
    check_schema(MANIFEST_KIND, doc, source)
    problems = _date_problems(doc, ("effective_at",))
    seen: set[str] = set()
    for i, component in enumerate(doc["components"]):
        if component["component_id"] in seen:
            problems.append((f"$.components[{i}].component_id",
                             f"{component['component_id']!r} is declared twice"))
        seen.add(component["component_id"])
    _fail(problems, source)
    return converter.structure(doc, ReleaseManifest)


def check_snapshot(doc: Any, source: str) -> ReleaseSnapshot:
    """A release snapshot: schema, real date, ids unique and sorted, tags sorted, and the
    embedded ``snapshot_sha256`` recomputes. Returns the snapshot model; raises
    InvalidDocumentError."""
    check_schema(SNAPSHOT_KIND, doc, source)
    problems = _date_problems(doc, ("effective_at",))
    ids = [c["component_id"] for c in doc["components"]]
    if len(set(ids)) != len(ids):
        problems.append(("$.components", "component ids must be unique"))
    problems += _sorted_problems(ids, "$.components")
    for i, component in enumerate(doc["components"]):
        problems += _sorted_problems(component["impact_tags"], f"$.components[{i}].impact_tags")
    want = release_digest(without(doc, "snapshot_sha256"))
    if doc["snapshot_sha256"] != want:
        problems.append(("$.snapshot_sha256", f"does not match the snapshot (recomputed {want})"))
    _fail(problems, source)
    return converter.structure(doc, ReleaseSnapshot)


def check_policy(doc: Any, source: str) -> ReleasePolicy:
    """A release policy: schema, unique (impact_tag, suite_id) requirements, sorted
    ``protected_review_tags`` and ``required_component_kinds``. Returns the policy model;
    raises InvalidDocumentError."""
    check_schema(POLICY_KIND, doc, source)
    problems = []
    seen: set[tuple[str, str]] = set()
    for i, requirement in enumerate(doc["requirements"]):
        key = (requirement["impact_tag"], requirement["suite_id"])
        if key in seen:
            problems.append((f"$.requirements[{i}]", f"requirement {key} is repeated"))
        seen.add(key)
    problems += _sorted_problems(doc["protected_review_tags"], "$.protected_review_tags")
    problems += _sorted_problems(doc["required_component_kinds"], "$.required_component_kinds")
    suites = {requirement["suite_id"] for requirement in doc["requirements"]}
    reviewed: set[tuple[str, str]] = set()
    for i, review in enumerate(doc.get("review_requirements", ())):
        key = (review["suite_id"], review["scorer"])
        if key in reviewed:
            problems.append((f"$.review_requirements[{i}]", f"review requirement {key} is "
                                                            "repeated"))
        reviewed.add(key)
        if review["suite_id"] not in suites:
            problems.append((f"$.review_requirements[{i}].suite_id", f"{review['suite_id']!r} "
                             "is the suite of no requirement"))
    _fail(problems, source)
    return converter.structure(doc, ReleasePolicy)


def check_plan(doc: Any, source: str) -> EvidencePlan:
    """An evidence plan: schema, unique suite ids, sorted impact tags, syntactically safe suite
    paths (the file system is checked when a suite is loaded). Returns the plan model; raises
    InvalidDocumentError."""
    from aau_core import InputError, check_relative_name

    check_schema(PLAN_KIND, doc, source)
    problems = []
    seen: set[str] = set()
    for i, suite in enumerate(doc["suites"]):
        if suite["suite_id"] in seen:
            problems.append((f"$.suites[{i}].suite_id", f"{suite['suite_id']!r} is planned twice"))
        seen.add(suite["suite_id"])
        problems += _sorted_problems(suite["impact_tags"], f"$.suites[{i}].impact_tags")
        try:
            check_relative_name(suite["path"])
        except InputError as exc:
            problems.append((f"$.suites[{i}].path", exc.message))
    _fail(problems, source)
    return converter.structure(doc, EvidencePlan)


def check_approval(doc: Any, source: str, release_id: str | None = None) -> ReleaseApproval:
    """An approval record: schema, real ``recorded_at`` and, when ``release_id`` is given, that
    it approves exactly that candidate release. Returns the approval model; raises
    InvalidDocumentError."""
    check_schema(APPROVAL_KIND, doc, source)
    problems = _date_problems(doc, ("recorded_at",))
    if release_id is not None and doc["release_id"] != release_id:
        problems.append(("$.release_id", f"approves {doc['release_id']!r}, but the candidate "
                         f"release is {release_id!r}"))
    _fail(problems, source)
    return converter.structure(doc, ReleaseApproval)


def check_decision(doc: Any, source: str) -> ReleaseDecision:
    """A release decision on its own: schema, real date, and the embedded ``decision_sha256``
    recomputes (the full recomputation from inputs is ``verify_release_pack``). Returns the
    decision model; raises InvalidDocumentError."""
    check_schema(DECISION_KIND, doc, source)
    problems = _date_problems(doc, ("effective_at",))
    want = release_digest(without(doc, "decision_sha256"))
    if doc["decision_sha256"] != want:
        problems.append(("$.decision_sha256", f"does not match the decision (recomputed {want})"))
    _fail(problems, source)
    return converter.structure(doc, ReleaseDecision)


def check_diff(doc: Any, source: str) -> ReleaseDiff:
    """A stored release diff: its schema only (``verify_release_pack`` recomputes it from the
    snapshots). Returns the diff model; raises InputError / InvalidDocumentError."""
    return converter.structure(check_schema(DIFF_KIND, doc, source), ReleaseDiff)


def check_pack_manifest(doc: Any, source: str) -> ReleasePackManifest:
    """A release pack's ``manifest.json``: its schema only (``aau_core.verify_manifest_dir``
    checks it against the folder). Returns the manifest model; raises InputError /
    InvalidDocumentError."""
    return converter.structure(check_schema(PACK_MANIFEST_KIND, doc, source), ReleasePackManifest)


def load(checker: Any, path: str | Path, **kwargs: Any) -> Any:
    """``read_document(path)`` then ``checker(doc, str(path), **kwargs)``."""
    return checker(read_document(path), str(path), **kwargs)
