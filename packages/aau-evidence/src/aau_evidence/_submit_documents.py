"""The documents of a community submission: metadata, starter, suite and receipts, checked.

Each ``check_*``/``resolve_*`` function validates against the kind's schema first, then adds
what the schema cannot say (listed in each schema's ``description``). Problems are
``(json_path, message)`` pairs; the ``load_*`` helpers raise ``aau_core.InvalidDocumentError``
naming the file (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import aau_schemas
from aau_core import (
    InputError,
    InvalidDocumentError,
    UsageError,
    check_relative_path,
    read_json_file,
    schema_problems,
)

from ._privacy_scan import json_findings, scan_fields

SUBMISSION_VERSION = "aau-community-evidence/1.0"
SUBMISSION_KIND = "submission"
STARTER_KIND = "starter-manifest"
MAX_FILE_BYTES = 2_000_000
"""Largest file read from a starter, a receipt or a pack (bytes; as aau-harness 1.6)."""
MAX_STARTER_MANIFEST_BYTES = 200_000
MAX_RECEIPTS = 12
ORIGINS = ("community-submission", "maintainer-reference")
RECEIPT_KINDS = {"aau-byo-agent-receipt/1.0": "receipt-v1", "aau-byo-agent-receipt/2.0": "receipt-v2",
                 "aau-byo-agent-receipt/2.1": "receipt-v2"}
SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
GITHUB = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?")
RECEIPT_SELECTOR = re.compile(r"run-([0-9]{2})")
_REVIEW_KEYS = ("reviewer", "reviewer_role", "scope", "reviewed_at", "sources")
_REPRODUCTION_KEYS = ("reproducer_name", "reproducer_github", "scope", "receipt_file")
_TEXT_LIMITS = {"contributor_name": 240, "summary": 240, "why_fork": 240, "beneficiaries": 240,
                "industry": 240, "failure_shape": 240}


def read_document(path: Path, *, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Parse a JSON file (strict, at most ``max_bytes``). Raises InputError."""
    return read_json_file(path, max_bytes=max_bytes)


def today_utc() -> date:
    """Today's date in UTC (what ``reviewed_at`` may not exceed)."""
    return datetime.now(timezone.utc).date()


def reviewed_at_problem(value: Any, today: date) -> str | None:
    """Why ``value`` is not a usable review date, or ``None``.

    Args:
        value: the ``reviewed_at`` string (``YYYY-MM-DD``).
        today: the latest acceptable day (UTC today at validation time).
    """
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        return "must be a date written YYYY-MM-DD"
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return f"{value!r} is not a calendar date"
    if day > today:
        return f"{value} is in the future (today is {today.isoformat()} UTC)"
    return None


def _strip_all(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (v.strip() if isinstance(v, str) else v) for k, v in values.items()}


def normalize_tags(values: Sequence[str]) -> list[str]:
    """Split on commas, strip, lowercase and de-duplicate tags, keeping first-seen order."""
    tags: list[str] = []
    for value in values:
        for item in value.split(","):
            tag = item.strip().lower()
            if tag and tag not in tags:
                tags.append(tag)
    return tags


def resolve_metadata(*, submission_id: str, contributor_name: str, github: str, summary: str,
                     why_fork: str, beneficiaries: str, industry: str, failure_shape: str,
                     tags: Sequence[str], review: Mapping[str, Any] | None = None,
                     reproduction: Mapping[str, Any] | None = None,
                     origin: str = "community-submission",
                     today: date | None = None) -> dict[str, Any]:
    """The normalised submission metadata from command-line values.

    Strings are stripped, the GitHub handles lose a leading ``@``, tags are split on commas,
    lowercased and de-duplicated; empty review/reproduction values are dropped.

    Args:
        submission_id .. failure_shape: the flag values (``--id`` ...).
        tags: ``--tag`` values (2 to 6 tags after normalisation).
        review: ``{reviewer, reviewer_role, scope, reviewed_at, sources}`` (any subset).
        reproduction: ``{reproducer_name, reproducer_github, scope, receipt_file}`` (any subset;
            ``receipt_file`` already a ``receipts/run-NN.json`` path).
        origin: ``community-submission`` or ``maintainer-reference``.
        today: the latest acceptable ``reviewed_at`` (default: UTC today).

    Returns:
        ``{schema_version, id, origin, contributor{name, github}, summary, why_fork,
        beneficiaries, industry, failure_shape, tags, review, reproduction}``.

    Raises:
        UsageError: a value breaks a rule (the message names the flag), or the metadata trips
            the sensitive-data scan.
    """
    texts = _strip_all({"contributor_name": contributor_name, "summary": summary,
                        "why_fork": why_fork, "beneficiaries": beneficiaries,
                        "industry": industry, "failure_shape": failure_shape})
    for name, limit in _TEXT_LIMITS.items():
        if not texts[name] or len(texts[name]) > limit:
            raise UsageError(f"--{name.replace('_', '-')}: give 1 to {limit} characters")
    if not SLUG.fullmatch(submission_id):
        raise UsageError("--id: a slug of 1 to 63 lowercase letters, digits and inner hyphens")
    if origin not in ORIGINS:
        raise UsageError(f"--origin: one of {', '.join(ORIGINS)}")
    handle = github.strip().lstrip("@")
    if not GITHUB.fullmatch(handle):
        raise UsageError(f"--github: {github!r} is not a GitHub handle")
    norm_tags = normalize_tags(tags)
    if not 2 <= len(norm_tags) <= 6 or any(len(t) > 40 for t in norm_tags):
        raise UsageError("--tag: give two to six distinct tags of at most 40 characters")
    rev = {k: v for k, v in _strip_all(dict(review or {})).items() if v not in (None, "", [])}
    rev.pop("sources", None)
    sources = [s.strip() for s in (review or {}).get("sources", []) if s.strip()]
    if sources:
        rev["sources"] = sources
    rep = {k: v for k, v in _strip_all(dict(reproduction or {})).items() if v not in (None, "")}
    if "reproducer_github" in rep:
        rep["reproducer_github"] = rep["reproducer_github"].lstrip("@")
    if "reviewed_at" in rev:
        problem = reviewed_at_problem(rev["reviewed_at"], today or today_utc())
        if problem:
            raise UsageError(f"--reviewed-at: {problem}")
    metadata = {
        "schema_version": SUBMISSION_VERSION, "id": submission_id, "origin": origin,
        "contributor": {"name": texts["contributor_name"], "github": handle},
        "summary": texts["summary"], "why_fork": texts["why_fork"],
        "beneficiaries": texts["beneficiaries"], "industry": texts["industry"],
        "failure_shape": texts["failure_shape"], "tags": norm_tags,
        "review": {k: rev[k] for k in _REVIEW_KEYS if k in rev},
        "reproduction": {k: rep[k] for k in _REPRODUCTION_KEYS if k in rep},
    }
    problems = schema_problems(SUBMISSION_KIND, {**metadata, **_binding_placeholder()})
    if problems:
        path, message = problems[0]
        raise UsageError(f"submission metadata: {path}: {message}")
    findings = metadata_findings(metadata)
    if findings:
        raise UsageError("submission metadata failed the sensitive-data scan: "
                         + "; ".join(f.line() for f in findings))
    return metadata


def _binding_placeholder() -> dict[str, Any]:
    """Valid stand-ins for the pack-binding fields, to schema-check metadata alone."""
    return {"package_version": "0", "starter_version": "aau-agent-evidence-starter/1.0",
            "suite_id": "x", "suite_sha256": "0" * 64, "receipt_files": ["receipts/run-01.json"]}


def metadata_findings(metadata: Mapping[str, Any]) -> list[Any]:
    """Sensitive-data findings in the human-written metadata fields."""
    return scan_fields({
        "contributor.name": metadata["contributor"]["name"],
        "summary": metadata["summary"], "why_fork": metadata["why_fork"],
        "beneficiaries": metadata["beneficiaries"], "industry": metadata["industry"],
        "failure_shape": metadata["failure_shape"],
        "review": aau_schemas.legacy_render_json(metadata["review"]),
        "reproduction": aau_schemas.legacy_render_json(metadata["reproduction"]),
    })


def check_metadata(doc: Any, today: date) -> list[tuple[str, str]]:
    """Problems of a packed ``submission.json`` (schema, normalisation, review date)."""
    problems = schema_problems(SUBMISSION_KIND, doc)
    if problems:
        return problems
    if normalize_tags(doc["tags"]) != doc["tags"]:
        problems.append(("$.tags", "not normalised (lowercase, no repeats)"))
    when = doc["review"].get("reviewed_at")
    if when is not None and (problem := reviewed_at_problem(when, today)):
        problems.append(("$.review.reviewed_at", problem))
    expected = [f"receipts/run-{i:02d}.json" for i in range(1, len(doc["receipt_files"]) + 1)]
    if doc["receipt_files"] != expected:
        problems.append(("$.receipt_files", "must be receipts/run-01.json, run-02.json, ... in order"))
    linked = doc["reproduction"].get("receipt_file")
    if linked is not None and linked not in doc["receipt_files"]:
        problems.append(("$.reproduction.receipt_file", f"{linked} is not one of receipt_files"))
    problems.extend(("$", f.line()) for f in metadata_findings(doc))
    return problems


def check_starter(manifest: Any, suite_doc: Any) -> list[tuple[str, str]]:
    """Problems of a starter manifest next to its suite document (both already parsed).

    The manifest must validate as kind ``starter-manifest`` (it accepts ``primary_adapter``
    ``http``, which aau-harness 1.6's ``init`` wrote and its ``submit`` refused), and its
    ``human_authority`` must equal the suite's.
    """
    problems = schema_problems(STARTER_KIND, manifest)
    if problems:
        return problems
    if not isinstance(suite_doc, dict) or suite_doc.get("human_authority") != manifest[
            "human_authority"]:
        problems.append(("$.human_authority", "differs from the suite's human_authority"))
    scanned = {k: v for k, v in manifest.items() if k != "generated_file_sha256"}
    problems.extend(json_findings(scanned, aau_schemas.legacy_render_json(scanned),
                                  "starter-manifest.json"))
    return problems


def check_suite(doc: Any, source: str) -> list[tuple[str, str]]:
    """Problems of a suite for submission: a valid suite (v1 or v2) that names its accountable
    human and protected action and passes the sensitive-data scan."""
    from aau_adapters import suite_from_document

    try:
        suite_from_document(doc, source=source)
    except InvalidDocumentError as exc:
        return list(exc.violations)
    problems = []
    authority = doc.get("human_authority")
    if not isinstance(authority, dict) or not all(
            isinstance(authority.get(k), str) and authority[k].strip()
            for k in ("accountable_role", "protected_action")):
        problems.append(("$.human_authority", "a submission needs accountable_role and "
                         "protected_action (the human who keeps the protected decision)"))
    findings = scan_fields({"suite.description": str(doc.get("description", ""))})
    problems.extend(("$.description", f"{f.finding} at character {f.offset}") for f in findings)
    problems.extend(json_findings(doc["cases"], aau_schemas.legacy_render_json(doc["cases"]),
                                  "suite.cases", ["cases"]))
    return problems


def check_receipt_for_suite(receipt: Any, suite_doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Problems of a public receipt (v1 or v2) offered as evidence for ``suite_doc``.

    Checked: its schema; not a mock run and no ``release_gate`` block; ``suite_id`` and the
    1.x ``suite_sha256`` (and, v2, the RFC 8785 ``suite_digest``) are the suite's; one row per
    case (per repeat) in suite order; every metric recomputed from the rows
    (``aau_adapters.check_receipt``: rates, pass^k, failure-code counts, intervals, verdicts);
    and the sensitive-data scan of the whole receipt.
    """
    from aau_adapters import check_receipt

    version = receipt.get("receipt_version") if isinstance(receipt, dict) else None
    kind = RECEIPT_KINDS.get(version) if isinstance(version, str) else None
    if kind is None:
        return [("$.receipt_version", "not an aau-byo-agent-receipt/1.0, /2.0 or /2.1 receipt")]
    problems = schema_problems(kind, receipt)
    if problems:
        return problems
    if receipt["adapter_kind"] == "mock":
        problems.append(("$.adapter_kind", "a mock receipt is not evidence of an agent"))
    if "release_gate" in receipt:
        problems.append(("$.release_gate", "a release-gate receipt belongs to a release pack"))
    if receipt["suite_id"] != suite_doc["suite_id"]:
        problems.append(("$.suite_id", f"{receipt['suite_id']!r} is not the suite's "
                         f"{suite_doc['suite_id']!r}"))
    if receipt["suite_sha256"] != aau_schemas.legacy_suite_sha256(suite_doc):
        problems.append(("$.suite_sha256", "not the hash of the submitted suite"))
    if kind == "receipt-v2" and receipt["suite_digest"] != aau_schemas.canonical_digest(suite_doc):
        problems.append(("$.suite_digest", "not the digest of the submitted suite"))
    ids = [c["scenario_id"] for c in suite_doc["cases"]]
    seen = list(dict.fromkeys(r["scenario_id"] for r in receipt["results"]))
    if seen != ids:
        problems.append(("$.results", "rows do not cover the suite's cases in suite order"))
    if problems:
        return problems
    problems.extend(check_receipt(receipt))
    problems.extend(json_findings(receipt, aau_schemas.legacy_render_json(receipt), "receipt"))
    return problems


def raise_problems(problems: list[tuple[str, str]], source: str) -> None:
    """Raise ``InvalidDocumentError`` for ``problems`` (if any), naming ``source``."""
    if problems:
        raise InvalidDocumentError(problems, source=source)


def read_starter(starter: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read and check a starter folder's ``aau-starter.json`` and ``suite.json``.

    Returns:
        ``(starter_manifest, suite_doc)``.

    Raises:
        InputError: not a folder, a file missing, a symlink, unreadable or invalid JSON, or a
            rule of ``check_starter``/``check_suite`` broken (file and JSON path named).
    """
    if not starter.is_dir():
        raise InputError("not a starter folder (aau init makes one)", source=str(starter))
    manifest_path = check_relative_path("aau-starter.json", starter, source=str(starter))
    suite_path = check_relative_path("suite.json", starter, source=str(starter))
    manifest = read_document(manifest_path, max_bytes=MAX_STARTER_MANIFEST_BYTES)
    suite_doc = read_document(suite_path)
    raise_problems(check_suite(suite_doc, str(suite_path)), str(suite_path))
    raise_problems(check_starter(manifest, suite_doc), str(manifest_path))
    return manifest, suite_doc


def receipt_selector(value: str, count: int) -> str:
    """``run-NN`` (1 <= NN <= count) -> ``receipts/run-NN.json``. Raises UsageError."""
    m = RECEIPT_SELECTOR.fullmatch(value.strip())
    if not m or not 1 <= int(m.group(1)) <= count:
        raise UsageError(f"--reproduction-receipt: {value!r}: give run-01 .. "
                         f"run-{count:02d} (one of the --receipt files, in order)")
    return f"receipts/{m.group(0)}.json"
