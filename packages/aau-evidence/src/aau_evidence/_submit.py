"""Community-evidence submission packs: build one from a starter and receipts, validate one.

A pack is a folder::

    submission.json            kind submission (aau-community-evidence/1.0)
    starter-manifest.json      the starter's aau-starter.json (kind starter-manifest)
    suite.json                 the adapted suite (1.6 rendering: indent 2, sorted keys, ASCII)
    checks.json                kind submission-checks-v2 (aau-community-evidence-checks/2.0);
                               1.6 packs: submission-checks (1.0)
    privacy-scan.json          kind submission-privacy-scan
    SOURCE_LEDGER.md, README.md, CONTRIBUTION_CHECKLIST.md, assets/evidence-card.svg
    receipts/run-01.json ...   1 to 12 public receipts (v1 or v2), re-rendered as 1.6 did
    provenance.intoto.json     in-toto Statement v1 over every file above (aau packs only)
    manifest.json              kind submission-manifest: SHA-256 + bytes of every other file

Text files are rendered from templates in ``aau_evidence/templates/submit`` with every value
escaped (``string.Template``; SVG and Markdown get XML escaping), never from f-strings.
Everything is written by ``aau_core.write_pack``: staged beside the destination, the manifest
last, the staged folder validated by ``validate_pack`` itself, then renamed into place.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from datetime import date
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

import aau_schemas
import attrs
from aau_core import (
    InputError,
    check_pack_output,
    check_relative_path,
    intoto_statement,
    loads_strict,
    schema_problems,
    verify_manifest_dir,
    write_pack,
)

from ._converter import converter
from ._evidence_levels import (
    CHECKS_V1,
    CHECKS_V2,
    LEVEL_RANK,
    PackedReceipt,
    derive_checks,
)
from ._privacy_scan import json_findings, privacy_scan_document, scan_fields
from ._submission_models import (
    SUBMISSION_MANIFEST_VERSION,
    SubmissionClaims,
    SubmissionScore,
    SubmissionVerdict,
)
from ._submit_documents import (
    MAX_RECEIPTS,
    check_metadata,
    check_receipt_for_suite,
    check_starter,
    check_suite,
    read_document,
    read_starter,
    today_utc,
)

MANIFEST_VERSION = SUBMISSION_MANIFEST_VERSION
STATEMENT_NAME = "provenance.intoto.json"
PREDICATE_TYPE = "https://aau.dev/attestations/community-evidence/v1"
CLAIMS = converter.unstructure(SubmissionClaims())
"""The manifest's fixed claims, as written."""
FIXED_FILES = ("submission.json", "starter-manifest.json", "suite.json", "checks.json",
               "privacy-scan.json", "SOURCE_LEDGER.md", "README.md", "CONTRIBUTION_CHECKLIST.md",
               "assets/evidence-card.svg")
CHECKS_KINDS = {CHECKS_V1: ("submission-checks", "1.6"), CHECKS_V2: ("submission-checks-v2", "aau")}
# active content in markup (escaped text never holds "<", so only real tags and attributes match)
_ACTIVE_SVG = re.compile(r"<\s*script\b|<\s*foreignObject\b|<[^>]*\son[a-z]+\s*=|"
                         r"<[^>]*=\s*[\"']?\s*javascript:", re.IGNORECASE)


def render(doc: Any) -> bytes:
    """aau-harness 1.6's file rendering: ``json.dumps(indent=2, sort_keys=True) + "\\n"``, ASCII."""
    return aau_schemas.legacy_render_json(doc).encode("ascii")


def _template(name: str) -> Template:
    text = resources.files("aau_evidence").joinpath("templates", "submit", name).read_text("utf-8")
    return Template(text)


def _fill(name: str, values: Mapping[str, Any]) -> bytes:
    """A template with every value XML-escaped (safe in SVG text and in Markdown)."""
    escaped = {k: html.escape(str(v), quote=True) for k, v in values.items()}
    return _template(name).substitute(escaped).encode("utf-8")


def _title(submission_id: str) -> str:
    return submission_id.replace("-", " ").title()


def text_files(metadata: Mapping[str, Any], checks: Mapping[str, Any],
               suite: Mapping[str, Any]) -> dict[str, bytes]:
    """README.md, SOURCE_LEDGER.md, CONTRIBUTION_CHECKLIST.md and the SVG card of a pack."""
    review = metadata["review"]
    missing = "not supplied"
    common = {"title": _title(metadata["id"]), "level": checks["level"],
              "passed": checks["score"]["passed"], "total": checks["score"]["total"],
              "industry": metadata["industry"],
              "accountable_role": suite["human_authority"]["accountable_role"]}
    sources = review.get("sources", [])
    ledger_sources = "\n".join(f"- {html.escape(u, quote=True)}" for u in sources) or (
        "- none supplied (Domain reviewed needs two https:// sources)")
    ledger = _template("SOURCE_LEDGER.md.tmpl").substitute(
        {k: html.escape(str(review.get(k) or missing), quote=True)
         for k in ("reviewer", "reviewer_role", "reviewed_at", "scope")} | {"sources": ledger_sources})
    return {
        "README.md": _fill("README.md.tmpl", common | {
            k: metadata[k] for k in ("summary", "beneficiaries", "why_fork", "failure_shape")}),
        "SOURCE_LEDGER.md": ledger.encode("utf-8"),
        "CONTRIBUTION_CHECKLIST.md": _template("CONTRIBUTION_CHECKLIST.md").template.encode("utf-8"),
        "assets/evidence-card.svg": _fill("evidence-card.svg.tmpl", common),
    }


def pack_files(metadata: Mapping[str, Any], starter_manifest: Mapping[str, Any],
               suite: Mapping[str, Any], receipts: Sequence[Mapping[str, Any]], *,
               package_version: str) -> dict[str, bytes]:
    """Every file of a pack except ``manifest.json``.

    Args:
        metadata: ``resolve_metadata``'s result (``reproduction.receipt_file`` resolved).
        starter_manifest, suite: checked documents.
        receipts: checked receipts, stored as ``receipts/run-01.json`` ... in order.
        package_version: the building package's version (``submission.json``).

    Returns:
        pack path -> bytes, including ``provenance.intoto.json``.
    """
    names = [f"receipts/run-{i:02d}.json" for i in range(1, len(receipts) + 1)]
    packed = [PackedReceipt(n, r, aau_schemas.legacy_sha256_json(r)) for n, r in zip(names, receipts, strict=True)]
    checks = derive_checks(metadata, starter_manifest, suite, packed)
    submission = {**metadata, "package_version": package_version,
                  "starter_version": starter_manifest["starter_version"],
                  "suite_id": suite["suite_id"],
                  "suite_sha256": aau_schemas.legacy_suite_sha256(suite), "receipt_files": names}
    files = {
        "submission.json": render(submission),
        "starter-manifest.json": render(starter_manifest),
        "suite.json": render(suite),
        "checks.json": render(checks),
        "privacy-scan.json": render(privacy_scan_document(names)),
        **text_files(submission, checks, suite),
        **{n: render(r) for n, r in zip(names, receipts, strict=True)},
    }
    files[STATEMENT_NAME] = render(statement(files, submission, checks))
    return files


def statement(files: Mapping[str, bytes], submission: Mapping[str, Any],
              checks: Mapping[str, Any]) -> dict[str, Any]:
    """The pack's in-toto Statement v1: every file but the manifest and itself as a subject
    (sorted by path), predicate ``{submissionId, level, checksVersion, suiteSha256,
    receiptFiles, signatureStatus: "unsigned-local-statement"}``."""
    subjects = {n: files[n] for n in sorted(files) if n not in (STATEMENT_NAME, "manifest.json")}
    return intoto_statement(subjects, PREDICATE_TYPE, {
        "submissionId": submission["id"], "level": checks["level"],
        "checksVersion": checks["checks_version"], "suiteSha256": submission["suite_sha256"],
        "receiptFiles": list(submission["receipt_files"]),
        "signatureStatus": "unsigned-local-statement"})


@attrs.frozen
class SubmissionReport:
    """The verdict of ``validate_pack``.

    Attributes:
        path: the pack folder.
        problems: one ``"<file>: <json path>: <message>"`` line per problem (empty: valid).
        submission_id: ``submission.json``'s id, or ``None`` if unread.
        level: the level aau derives from the artifacts (aau rules), or ``None`` if not derived.
        declared_level: the level written in ``checks.json``, or ``None``.
        checks_version: ``checks.json``'s version, or ``None``.
        score: ``{"passed", "total"}`` of aau's checks, or ``None``.
        receipt_count, file_count: receipts, and files including the manifest.
    """

    path: str
    problems: tuple[str, ...]
    submission_id: str | None = None
    level: str | None = None
    declared_level: str | None = None
    checks_version: str | None = None
    score: dict[str, int] | None = None
    receipt_count: int = 0
    file_count: int = 0

    @property
    def ready(self) -> bool:
        """True when the pack has no problem and its level was derived."""
        return not self.problems and self.level is not None

    def verdict(self) -> SubmissionVerdict:
        """The ``--json`` verdict as its model (``aau-community-evidence-validation/1.0``;
        unstructure it for the document)."""
        return SubmissionVerdict(
            ready=self.ready, path=self.path, submission_id=self.submission_id,
            level=self.level, declared_level=self.declared_level,
            declared_checks_version=self.checks_version,
            score=None if self.score is None else SubmissionScore(
                passed=self.score["passed"], total=self.score["total"]),
            receipt_count=self.receipt_count, file_count=self.file_count,
            problems=list(self.problems))


_UNREAD = object()
"""What ``_Collector.read`` returns for a file it could not read (JSON ``null`` is ``None``)."""


class _Collector:
    """Gathers ``file: path: message`` lines while reading a pack."""

    def __init__(self, root: Path):
        self.root = root
        self.lines: list[str] = []

    def add(self, name: str, problems: Sequence[tuple[str, str]]) -> bool:
        self.lines.extend(f"{self.root / name}: {p}: {m}" for p, m in problems)
        return not problems

    def read(self, name: str) -> Any:
        try:
            return read_document(check_relative_path(name, self.root))
        except InputError as exc:
            self.lines.append(f"{self.root / name}: {exc.message}")
            return _UNREAD


def validate_pack(path: str | Path, *, today: date | None = None) -> SubmissionReport:
    """Validate a submission pack folder from its bytes up; never trusts a declared value.

    Order: the manifest (``verify_manifest_dir``: hash drift, added, removed, symlinked or
    irregular files) and its schema; ``submission.json`` (schema, normalisation, review date not
    in the future, pack binding); the starter manifest and the suite; the exact file set; each
    receipt (``check_receipt_for_suite``); ``checks.json`` recomputed under the rules of its
    version; ``privacy-scan.json``; the sensitive-data scan of every file (UTF-8 required); the
    SVG card is passive; the in-toto statement (required with checks 2.0) recomputes. The level
    reported is always aau's (``derive_checks(rules="aau")``), whatever ``checks.json`` declares.

    Args:
        path: the pack folder.
        today: latest acceptable ``reviewed_at`` (default: UTC today).

    Returns:
        a ``SubmissionReport``; ``problems`` empty when the pack is valid.

    Raises:
        InputError: ``path`` is not a folder (exit 2; a broken pack is a report, exit 1).
    """
    root = Path(path)
    if root.is_symlink() or not root.is_dir():
        raise InputError("not a submission pack folder", source=str(root))
    out = _Collector(root)
    out.lines.extend(verify_manifest_dir(root, version=MANIFEST_VERSION))
    if out.lines:
        return SubmissionReport(str(root), tuple(out.lines))
    manifest = out.read("manifest.json")
    if not isinstance(manifest, dict):  # verify_manifest_dir has vetted it; never trust twice
        return SubmissionReport(str(root), (*out.lines, f"{root / 'manifest.json'}: unreadable"))
    declared = [row["path"] for row in manifest["files"]]
    out.add("manifest.json", schema_problems("submission-manifest", manifest))
    meta = out.read("submission.json")
    if meta is _UNREAD or not out.add("submission.json", check_metadata(meta, today or today_utc())):
        return SubmissionReport(str(root), tuple(out.lines), file_count=len(declared) + 1)
    base = {"submission_id": meta["id"], "file_count": len(declared) + 1,
            "receipt_count": len(meta["receipt_files"])}
    if manifest.get("submission_id") != meta["id"]:
        out.add("manifest.json", [("$.submission_id", "differs from submission.json's id")])
    starter, suite = out.read("starter-manifest.json"), out.read("suite.json")
    if starter is _UNREAD or suite is _UNREAD:
        return SubmissionReport(str(root), tuple(out.lines), **base)
    if not out.add("suite.json", check_suite(suite, str(root / "suite.json"))):
        return SubmissionReport(str(root), tuple(out.lines), **base)
    if not out.add("starter-manifest.json", check_starter(starter, suite)):
        return SubmissionReport(str(root), tuple(out.lines), **base)
    binding = [(f"$.{k}", f"differs from {src}") for k, want, src in (
        ("suite_id", suite["suite_id"], "suite.json"),
        ("suite_sha256", aau_schemas.legacy_suite_sha256(suite), "suite.json"),
        ("starter_version", starter.get("starter_version"), "starter-manifest.json"))
        if meta[k] != want]
    out.add("submission.json", binding)
    checks = out.read("checks.json")
    version = checks.get("checks_version") if isinstance(checks, dict) else None
    expected_files = {*FIXED_FILES, *meta["receipt_files"]}
    if version == CHECKS_V2 or STATEMENT_NAME in declared:
        expected_files.add(STATEMENT_NAME)
    if set(declared) != expected_files:
        out.add("manifest.json", [("$.files", "files differ from a pack's: missing "
                                   f"{sorted(expected_files - set(declared))}, unexpected "
                                   f"{sorted(set(declared) - expected_files)}")])
        return SubmissionReport(str(root), tuple(out.lines), **base)
    receipts = []
    for name in meta["receipt_files"]:
        doc = out.read(name)
        if doc is not _UNREAD and out.add(name, check_receipt_for_suite(doc, suite)):
            receipts.append(PackedReceipt(name, doc, aau_schemas.legacy_sha256_json(doc)))
    if len(receipts) != len(meta["receipt_files"]) or out.lines:
        return SubmissionReport(str(root), tuple(out.lines), **base)
    ours = derive_checks(meta, starter, suite, receipts)
    result = {**base, "level": ours["level"], "score": ours["score"]}
    if version not in CHECKS_KINDS:
        out.add("checks.json", [("$.checks_version", f"one of {sorted(CHECKS_KINDS)}")])
    elif out.add("checks.json", schema_problems(CHECKS_KINDS[version][0], checks)):
        result |= {"declared_level": checks["level"], "checks_version": version}
        want = derive_checks(meta, starter, suite, receipts, rules=CHECKS_KINDS[version][1])
        if checks != want:
            out.add("checks.json", [("$", f"stale or edited: the artifacts give level "
                                     f"{want['level']!r} ({want['score']['passed']}/"
                                     f"{want['score']['total']}) under its rules")])
    read_scan = out.read("privacy-scan.json")
    if read_scan is not _UNREAD:
        out.add("privacy-scan.json", schema_problems("submission-privacy-scan", read_scan) or (
            [] if read_scan == privacy_scan_document(meta["receipt_files"])
            else [("$.scanned", "must list submission metadata, suite.json and the receipts")]))
    _scan_files(root, declared, out)
    if STATEMENT_NAME in declared and not out.lines:
        files = {n: (root / n).read_bytes() for n in declared}
        if out.read(STATEMENT_NAME) != statement(files, meta, checks):
            out.add(STATEMENT_NAME, [("$", "does not match the pack's files and checks")])
    return SubmissionReport(str(root), tuple(out.lines), **result)


def _scan_files(root: Path, names: Sequence[str], out: _Collector) -> None:
    """UTF-8 text, no sensitive-data finding, passive SVG."""
    for name in names:
        try:
            text = (root / name).read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            out.add(name, [("$", "not UTF-8 text")])
            continue
        try:
            doc = loads_strict(text) if name.endswith(".json") else None
        except InputError:
            doc = None  # reported by the document's own check
        out.add(name, json_findings(doc, text, name) if doc is not None
                else [("$", f.line()) for f in scan_fields({name: text})])
        if name.endswith(".svg") and (not text.lstrip().startswith("<svg")
                                      or _ACTIVE_SVG.search(text)):
            out.add(name, [("$", "the card must be a passive SVG (no script, handlers or "
                            "foreign objects)")])


def build_submission(starter: Path, receipt_paths: Sequence[Path], out: Path,
                     metadata: Mapping[str, Any], *, package_version: str,
                     force: bool = False, today: date | None = None) -> SubmissionReport:
    """Build a pack from a starter folder and receipt files; write it atomically.

    Args:
        starter: the starter folder (``aau-starter.json`` and ``suite.json``).
        receipt_paths: 1 to 12 public receipt files (v1 or v2), stored in this order.
        out: the new pack folder.
        metadata: ``resolve_metadata``'s result.
        package_version: written to ``submission.json``.
        force: replace an existing pack folder.
        today: latest acceptable ``reviewed_at`` (default: UTC today).

    Returns:
        ``validate_pack``'s report of the written pack.

    Raises:
        InputError: the starter, the suite or a receipt is invalid (file and JSON path named).
        UsageError: not 1 to 12 receipts.
        OutputError: ``out`` exists (without ``force``), is or contains the starter folder or
            a receipt, or cannot be written.
    """
    from aau_core import InvalidDocumentError, UsageError

    if not 1 <= len(receipt_paths) <= MAX_RECEIPTS:
        raise UsageError(f"--receipt: give 1 to {MAX_RECEIPTS} receipt files, "
                         f"got {len(receipt_paths)}")
    inputs = [starter, *receipt_paths]
    check_pack_output(out, inputs=inputs, force=force, kind="submission-manifest")
    starter_manifest, suite = read_starter(starter)
    receipts = []
    for path in receipt_paths:
        doc = read_document(path)
        problems = check_receipt_for_suite(doc, suite)
        if problems:
            raise InvalidDocumentError(problems, source=str(path))
        receipts.append(doc)
    files = pack_files(metadata, starter_manifest, suite, receipts,
                       package_version=package_version)

    def verify(stage: Path) -> list[str]:
        return list(validate_pack(stage, today=today).problems)

    write_pack(out, files, manifest_version=MANIFEST_VERSION,
               manifest_extra={"submission_id": metadata["id"], "hash_algorithm": "sha256",
                               "claims": converter.unstructure(SubmissionClaims())},
               render=render, verify=verify, force=force, inputs=inputs,
               kind="submission-manifest")
    return validate_pack(out, today=today)


def level_at_least(level: str | None, minimum: str) -> bool:
    """True when ``level`` ranks at or above ``minimum`` (``Draft`` < ``Generated`` < ...)."""
    return level is not None and LEVEL_RANK[level] >= LEVEL_RANK[minimum]
