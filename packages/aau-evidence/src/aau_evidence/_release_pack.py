"""Release evidence packs: what goes in, atomic writing, and full recomputing verification.

A pack (``aau-agent-release-pack/1.0``) is a folder::

    README.md                       what the status does and does not mean
    baseline-snapshot.json          candidate-snapshot.json     release-diff.json
    release-policy.json             evidence-plan.json          release-decision.json
    assessment-results.oscal.json   provenance.intoto.json      [approval.json]
    receipts/<safe_slug(suite_id)>.json                          one per suite run
    [review-reports/<safe_slug(suite_id)>.json]                  a review report (policy 1.1)
    manifest.json                   bytes + SHA-256 of every other file

JSON files use 1.6's release rendering (``release_bytes``); the manifest is written last by
``aau_core.write_pack`` (staged beside the destination, verified, renamed into place: never a
half-written pack, unlike 1.6). ``provenance.intoto.json`` is an in-toto Statement v1 whose one
subject is ``release-decision.json``.

Receipt file names come from ``aau_core.safe_slug(suite_id)``: a ``suite_id`` such as
``../../x`` cannot name a file outside ``receipts/`` (1.6 wrote ``receipts/<suite_id>.json``
as given, a path traversal).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import aau_schemas
from aau_core import (
    InputError,
    intoto_statement,
    loads_strict,
    read_json_file,
    safe_slug,
    verify_manifest_dir,
    write_pack,
)

from ._oscal import oscal_assessment_results
from ._release_decision import decide_release
from ._release_documents import (
    MAX_COMPONENT_BYTES,
    PACK_VERSION,
    PACK_VERSION_REVIEW,
    check_approval,
    check_decision,
    check_diff,
    check_pack_manifest,
    check_plan,
    check_policy,
    check_schema,
    check_snapshot,
    document,
    release_bytes,
)
from ._release_models import (
    EvidencePlan,
    ReleaseApproval,
    ReleaseDecision,
    ReleasePolicy,
    ReleaseSnapshot,
)
from ._release_review import read_review_reports, review_report_name

PREDICATE_TYPE = ("https://immu4989.github.io/awesome-agentic-usecases/"
                  "predicates/agent-release-gate/v1")
"""The in-toto predicate type of a release pack's provenance statement (aau-harness 1.6's)."""

REQUIRED_FILES = (
    "README.md", "baseline-snapshot.json", "candidate-snapshot.json", "release-diff.json",
    "release-policy.json", "evidence-plan.json", "release-decision.json",
    "assessment-results.oscal.json", "provenance.intoto.json",
)
"""Files every release pack holds besides ``manifest.json``, ``approval.json`` and receipts."""

RECEIPT_KINDS = ("receipt-v1", "receipt-v2")


def release_receipt_name(suite_id: str) -> str:
    """The pack path of a suite's receipt: ``receipts/<safe_slug(suite_id)>.json``."""
    return f"receipts/{safe_slug(suite_id)}.json"


INPUT_FILES = ("release-policy.json", "evidence-plan.json", "approval.json")
"""Pack files that copy an input document (``release_pack_files(documents=)``)."""


def _readme(decision: ReleaseDecision) -> bytes:
    text = (
        "# Agent release evidence pack\n\n"
        f"Derived status: **{decision.status}** for release `{decision.release_id}`.\n\n"
        "The status is recomputed by `aau release verify` from the files beside this one: the "
        "two component snapshots, their diff, the policy, the evidence plan, the suite receipts "
        "and the approval record when there is one. It speaks only about the declared public or "
        "synthetic components, the suites mapped to what changed, their thresholds and the shape "
        "of the approval record. It does not authorise a deployment, verify who approved, prove "
        "production safety, or amount to a compliance finding, certification or Authority to "
        "Operate. Check the whole pack (`aau release verify PACK`) before relying on any file "
        "in it.\n"
    )
    return text.encode("utf-8")


def provenance_statement(decision_bytes: bytes, decision: ReleaseDecision) -> dict[str, Any]:
    """The pack's in-toto Statement v1: subject ``release-decision.json`` (SHA-256 of its bytes)
    and a predicate binding the decision's snapshot, diff, policy and plan digests (1.6's
    fields), marked ``unsigned-local-statement``."""
    predicate = {
        "baselineSnapshotSha256": decision.baseline_snapshot_sha256,
        "candidateSnapshotSha256": decision.candidate_snapshot_sha256,
        "diffSha256": decision.diff_sha256,
        "policySha256": decision.policy_sha256,
        "planSha256": decision.plan_sha256,
        "signatureStatus": "unsigned-local-statement",
    }
    return intoto_statement({"release-decision.json": decision_bytes}, PREDICATE_TYPE, predicate)


def release_pack_files(baseline: ReleaseSnapshot, candidate: ReleaseSnapshot,
                       policy: ReleasePolicy, plan: EvidencePlan,
                       receipts: dict[str, dict[str, Any]], adapter_kind: str,
                       approval: ReleaseApproval | None = None, *,
                       documents: Mapping[str, Any] | None = None,
                       review_files: Mapping[str, bytes] | None = None,
                       ) -> tuple[dict[str, bytes], ReleaseDecision]:
    """Decide the release and lay out every pack file but the manifest.

    Args:
        baseline, candidate, policy, plan, approval: checked models (see ``decide_release``).
        receipts: suite_id -> receipt document with ``release_gate``.
        adapter_kind: the adapter every receipt was made with.
        documents: the input documents as read, by pack name (``INPUT_FILES``): each is copied
            in its own key order, as aau-harness 1.6 copies its inputs; a name left out is
            written from its model (fields in the schema's order).
        review_files: review report files (name -> exact bytes) for a 1.1 policy's review
            requirements; each is packed byte for byte as ``review-reports/<slug>.json``.

    Returns:
        ``(files, decision)``: pack path -> exact bytes, and the decision model.

    Raises:
        aau_core.InputError: as ``decide_release``; two suite ids share a receipt file name.
    """
    reviews = read_review_reports(review_files or {})
    decision, diff = decide_release(baseline, candidate, policy, plan, receipts, adapter_kind,
                                    approval, reviews)
    given = dict(documents or {})

    def copy(name: str, model: Any) -> bytes:
        return release_bytes(given[name] if name in given else model)

    decision_bytes = release_bytes(decision)
    files: dict[str, bytes] = {
        "README.md": _readme(decision),
        "baseline-snapshot.json": release_bytes(baseline),
        "candidate-snapshot.json": release_bytes(candidate),
        "release-diff.json": release_bytes(diff),
        "release-policy.json": copy("release-policy.json", policy),
        "evidence-plan.json": copy("evidence-plan.json", plan),
        "release-decision.json": decision_bytes,
        "assessment-results.oscal.json": release_bytes(oscal_assessment_results(
            document(decision))),
        "provenance.intoto.json": release_bytes(provenance_statement(decision_bytes, decision)),
    }
    if approval is not None:
        files["approval.json"] = copy("approval.json", approval)
    for suite_id, receipt in sorted(receipts.items()):
        name = release_receipt_name(suite_id)
        if name in files:
            raise InputError(f"suite ids {suite_id!r} and another share the receipt file {name}")
        files[name] = release_bytes(receipt)
    by_suite = {doc["source"]["suite_id"]: data for data in (review_files or {}).values()
                for doc in [loads_strict(data)]}
    for suite_id, data in sorted(by_suite.items()):
        files[review_report_name(suite_id)] = data
    return files, decision


def write_release_pack(destination: str | os.PathLike[str], files: dict[str, bytes], *,
                       force: bool = False, inputs: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """Write ``files`` and their manifest as a pack, atomically, verified before it appears.

    ``inputs`` are the files the command read: the destination may not be or contain one.

    Raises:
        aau_core.OutputError: the destination exists (without ``force``), is or contains an
            input, or cannot be written, or the staged pack failed ``verify_release_pack`` (a writer bug; nothing written).
    """
    reviewed = any(name.startswith("review-reports/") for name in files)
    return write_pack(destination, files,
                      manifest_version=PACK_VERSION_REVIEW if reviewed else PACK_VERSION,
                      render=release_bytes,
                      verify=lambda stage: verify_release_pack(stage)[1], force=force,
                      inputs=inputs)


def _read(pack: Path, name: str) -> Any:
    return read_json_file(pack / name, max_bytes=MAX_COMPONENT_BYTES)


def _load_receipts(pack: Path, names: list[str], problems: list[str]) -> dict[str, dict[str, Any]]:
    from aau_adapters import check_receipt

    receipts: dict[str, dict[str, Any]] = {}
    for name in names:
        source = str(pack / name)
        try:
            doc = _read(pack, name)
            kind = aau_schemas.detect_kind(doc) if isinstance(doc, dict) else None
            if kind not in RECEIPT_KINDS:
                raise InputError("not an aau-byo-agent-receipt/1.0 or /2.0 receipt",
                                 source=source, path="$.receipt_version")
            check_schema(kind, doc, source)
        except InputError as exc:
            problems.extend(str(exc).splitlines())
            continue
        problems.extend(f"{source}: {path}: {message}" for path, message in check_receipt(doc))
        if "release_gate" not in doc:
            problems.append(f"{source}: $: a release-pack receipt carries release_gate")
            continue
        if name != release_receipt_name(doc["suite_id"]):
            problems.append(f"{source}: $.suite_id: a receipt for {doc['suite_id']!r} belongs "
                            f"in {release_receipt_name(doc['suite_id'])}")
            continue
        receipts[doc["suite_id"]] = doc
    return receipts


def _load_reviews(pack: Path, names: list[str], problems: list[str],
                  ) -> dict[str, tuple[str, dict[str, Any]]]:
    """The packed review reports, checked and keyed by suite; each must sit at its suite's
    ``review-reports/<slug>.json``."""
    try:
        reviews = read_review_reports({str(pack / n): (pack / n).read_bytes() for n in names})
    except InputError as exc:
        problems.extend(str(exc).splitlines())
        return {}
    for suite_id in reviews:
        name = review_report_name(suite_id)
        if name not in names:
            problems.append(f"{pack / name}: $.source.suite_id: the review report for "
                            f"{suite_id!r} belongs in {name}")
    return reviews


def verify_release_pack(pack: str | os.PathLike[str],
                        ) -> tuple[ReleaseDecision | None, list[str]]:
    """Verify a release pack completely; return ``(decision, problems)``.

    Checks, in order (stopping when a step cannot go on): the folder against its manifest
    (``aau_core.verify_manifest_dir``: hash drift, a file added or removed, a symlink, a
    non-regular file) and the manifest's schema; the required files; every document against its
    schema and rules; each receipt against its schema, its ``release_gate`` and its own rows
    (``aau_adapters.check_receipt``: metrics recomputed from the result rows, which 1.6 did not
    do) and its file name (``receipts/<safe_slug(suite_id)>.json``); then recomputes the
    decision and diff from the packed inputs (with the decision's ``adapter_kind``, which must
    match every receipt's) and the OSCAL document and in-toto statement from the decision, and
    compares each with the stored file.

    Args:
        pack: the pack folder.

    Returns:
        ``(decision, [])`` when the pack verifies (the recomputed decision model); otherwise
        ``(None or the stored decision model, problem lines)``, each ``file: $.path: message``.

    Raises:
        aau_core.InputError: ``pack`` is not a folder (nothing to verify).
    """
    root = Path(pack)
    if root.is_symlink() or not root.is_dir():
        raise InputError("not a release pack folder", source=str(root))
    problems = verify_manifest_dir(root)  # 1.0 or 1.1: the manifest's schema says which
    if problems:
        return None, problems
    try:
        manifest = check_pack_manifest(_read(root, "manifest.json"), str(root / "manifest.json"))
    except InputError as exc:
        return None, str(exc).splitlines()
    listed = [row.path for row in manifest.files]
    missing = [name for name in REQUIRED_FILES if name not in listed]
    if missing:
        return None, [f"{root / 'manifest.json'}: $.files: missing {', '.join(missing)}"]
    try:
        baseline = check_snapshot(_read(root, "baseline-snapshot.json"),
                                  str(root / "baseline-snapshot.json"))
        candidate = check_snapshot(_read(root, "candidate-snapshot.json"),
                                   str(root / "candidate-snapshot.json"))
        policy = check_policy(_read(root, "release-policy.json"), str(root / "release-policy.json"))
        plan = check_plan(_read(root, "evidence-plan.json"), str(root / "evidence-plan.json"))
        approval = None
        if "approval.json" in listed:
            approval = check_approval(_read(root, "approval.json"), str(root / "approval.json"),
                                      release_id=candidate.release_id)
        stored = check_decision(_read(root, "release-decision.json"),
                                str(root / "release-decision.json"))
        stored_diff = check_diff(_read(root, "release-diff.json"), str(root / "release-diff.json"))
        stored_oscal = _read(root, "assessment-results.oscal.json")
        stored_statement = _read(root, "provenance.intoto.json")
    except InputError as exc:
        return None, str(exc).splitlines()
    receipts = _load_receipts(root, sorted(n for n in listed if n.startswith("receipts/")),
                              problems)
    reviews = _load_reviews(root, sorted(n for n in listed if n.startswith("review-reports/")),
                            problems)
    if problems:
        return stored, problems
    source = str(root / "release-decision.json")
    try:
        decision, diff = decide_release(baseline, candidate, policy, plan, receipts,
                                        stored.adapter_kind, approval, reviews)
    except InputError as exc:
        return stored, [f"{source}: {exc.path or '$'}: {exc.message}"]
    if stored != decision:
        want, have = document(decision), document(stored)
        changed = sorted(k for k in want if have.get(k) != want[k])
        problems.append(f"{source}: $: does not recompute from the packed inputs (differs in "
                        f"{', '.join(changed)}; recomputed status {decision.status})")
    if stored_diff != diff:
        problems.append(f"{root / 'release-diff.json'}: $: does not recompute from the snapshots")
    if stored_oscal != oscal_assessment_results(document(decision)):
        problems.append(f"{root / 'assessment-results.oscal.json'}: $: does not recompute from "
                        "the decision")
    decision_bytes = (root / "release-decision.json").read_bytes()
    if stored_statement != provenance_statement(decision_bytes, decision):
        problems.append(f"{root / 'provenance.intoto.json'}: $: does not bind the decision's "
                        "bytes and input digests")
    return (decision, []) if not problems else (stored, problems)

