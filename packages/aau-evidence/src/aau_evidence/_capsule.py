"""Impact Capsules (``aau-impact-capsule/1.0`` and ``/1.1``): checking one against its artifacts,
and its derived status.

A capsule binds up to six public artifacts by repository-relative path and SHA-256: a suite, an
aggregate agent receipt and, optionally, a blinded human study, an aggregate human-baseline
report, a public-value observation record, an independent reproduction record and (1.1) a
review report (``aau review summarize``: how far the run's scorers agree with people). Its
``status`` is **derived** from which artifacts are present (``derive_status``) and must equal the
declared one: a contributor cannot select a higher status than the evidence supports.

``check_capsule`` runs, in order: the closed schema (``impact-capsule``), the rules the schema
cannot express (counts, chain prerequisites, label coupling, unique ids, the sensitive-data scan
of every string), and, unless told not to, the artifact files themselves: each must be a regular
file reached without symlinks inside the root, at most ``MAX_ARTIFACT_BYTES``, with the declared
SHA-256, and its content must agree with what the capsule says about it.

Divergences from aau-harness 1.6 (each a fix, tested):

- all problems are reported at once, each ``file: $.json.path: message``; 1.6 stopped at the
  first with a sentence and no path;
- a ``null`` or wrongly typed sub-object is a schema violation, never a crash (1.6 raised
  ``TypeError``/``KeyError`` on e.g. ``"primary_metric": null``);
- artifact paths are checked segment by segment for symlinks (1.6 resolved them, so a symlinked
  folder inside the root could point anywhere inside it), and backslashes are refused;
- ``suite_binding: hash_bound`` must be backed: an ``aau_byo_agent_receipt`` must carry the
  suite's ``suite_sha256`` (1.6 accepted the label unchecked); a domain eval result, which
  records no suite hash, can only be ``scenario_ids_only``;
- the receipt's scenario ids must be the suite's (1.6 only hashed the receipt's ids);
- a private receipt detail file, a mock receipt or a receipt of another suite is refused as the
  agent receipt;
- a study binds the suite by its file SHA-256 *or* by its aau-harness suite hash
  (``legacy_suite_sha256`` of the parsed suite, what ``aau baseline prepare`` records); 1.6
  compared the study's suite hash with the file hash only, so a pretty-printed suite file could
  never be bound to its own study;
- the sensitive-data scan is aau-evidence's validated scan (``_privacy_scan``), run over every
  string value with its JSON path; 1.6's bare ``\\d{3}[- ]?\\d{2}[- ]?\\d{4}`` flagged any
  nine-digit number (a docket number) as an SSN.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from aau_core import (
    InputError,
    InvalidDocumentError,
    check_relative_path,
    loads_strict,
    schema_problems,
)

CAPSULE_KIND = "impact-capsule"
CAPSULE_VERSION = "aau-impact-capsule/1.0"
"""aau-harness 1.6's capsule version; 1.1 adds the optional ``review_report`` artifact."""
CAPSULE_VERSIONS = (CAPSULE_VERSION, "aau-impact-capsule/1.1")
"""Every capsule version aau reads (schema ``evidence/v1.1/``)."""
REVIEW_REPORT_KIND = "review-report"
OBSERVATION_KIND = "public-value-observation"
REPRODUCTION_KIND = "impact-reproduction"
MAX_ARTIFACT_BYTES = 5_000_000
"""Largest artifact file a capsule may bind (bytes), as in aau-harness 1.6."""
MAX_CAPSULE_BYTES = 1_000_000
STATUS_ORDER = ("synthetic_reference", "partner_sought", "study_reviewed", "aggregate_published",
                "independently_reproduced")
"""Capsule statuses, weakest first."""
ARTIFACT_KEYS = ("suite", "agent_receipt", "human_study", "human_baseline",
                 "public_value_observation", "reproduction", "review_report")
"""The artifact slots, in the order they are checked and packed: aau-harness 1.6's six, and the
review report of a 1.1 capsule (optional, absent from 1.0)."""
ROOT_MARKER = Path("docs") / "use-cases.json"
"""A folder holding this file is a repository root (aau-harness 1.6's default for ``--root``)."""

Problems = list[tuple[str, str]]
Locator = Callable[[str, dict[str, Any]], Path]


def read_capsule(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Parse a capsule file (strict JSON, at most 1,000,000 bytes) and check its kind.

    Raises:
        InputError: unreadable, not JSON, not an object, or not an ``aau-impact-capsule/1.0``
            or ``/1.1`` document (``$.capsule_version``).
    """
    from aau_core import read_json_file

    doc = read_json_file(path, max_bytes=MAX_CAPSULE_BYTES)
    if not isinstance(doc, dict):
        raise InputError("an impact capsule is a JSON object", source=str(path), path="$")
    if doc.get("capsule_version") not in CAPSULE_VERSIONS:
        raise InputError("not an impact capsule (capsule_version must be "
                         + " or ".join(map(repr, CAPSULE_VERSIONS)) + ")",
                         source=str(path), path="$.capsule_version")
    return doc


def find_root(capsule_path: str | os.PathLike[str]) -> Path:
    """The default ``--root``: the nearest folder at or above the capsule's holding
    ``docs/use-cases.json`` (aau-harness 1.6's rule).

    Raises:
        InputError: none found (pass ``--root``).
    """
    start = Path(capsule_path).resolve().parent
    for folder in (start, *start.parents):
        if (folder / ROOT_MARKER).is_file():
            return folder
    raise InputError("no repository root (a folder with docs/use-cases.json) at or above the "
                     "capsule; pass --root FOLDER", source=str(capsule_path))


def derive_status(capsule: dict[str, Any]) -> str:
    """The status the capsule's artifacts support (never the declared one).

    independently_reproduced: reproduction + observation + study + observed human baseline;
    aggregate_published: a human baseline with at least one observed human session;
    study_reviewed: a human study; partner_sought: ``partner_call.open``; else
    synthetic_reference. ``capsule`` must have passed the schema.
    """
    art = capsule["artifacts"]
    observed = art["human_baseline"] is not None and art["human_baseline"][
        "observed_human_sessions"] > 0
    if observed and all(art[k] is not None for k in
                        ("reproduction", "public_value_observation", "human_study")):
        return "independently_reproduced"
    if observed:
        return "aggregate_published"
    if art["human_study"] is not None:
        return "study_reviewed"
    if capsule["partner_call"]["open"]:
        return "partner_sought"
    return "synthetic_reference"


def present_artifacts(capsule: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(slot, artifact)`` for each non-null artifact, in ``ARTIFACT_KEYS`` order."""
    return [(k, capsule["artifacts"][k]) for k in ARTIFACT_KEYS
            if capsule["artifacts"].get(k) is not None]


def check_capsule(capsule: Any, root: str | os.PathLike[str], *, source: str,
                  verify_artifacts: bool = True, locate: Locator | None = None) -> dict[str, Any]:
    """Check an impact capsule completely; return it unchanged when it holds.

    Args:
        capsule: the parsed capsule.
        root: the folder artifact paths are relative to.
        source: the capsule's file name, for messages.
        verify_artifacts: also read and cross-check every artifact file.
        locate: ``(slot, artifact) -> file`` to read an artifact from elsewhere (a pack's
            ``artifacts/`` copy); default: the artifact's ``path`` under ``root``, checked by
            ``check_relative_path`` (no traversal, no symlinked segment).

    Returns:
        ``capsule``.

    Raises:
        InvalidDocumentError: one ``source: $.path: message`` line per problem (schema
            violations alone when the schema fails, since later rules need its shape).
    """
    problems = schema_problems(CAPSULE_KIND, capsule)
    if problems:
        raise InvalidDocumentError(problems, source=source)
    problems = rule_problems(capsule)
    if verify_artifacts:
        find = locate or _under_root(Path(root), source)
        from ._capsule_artifacts import artifact_problems

        problems += artifact_problems(capsule, find)
    if problems:
        raise InvalidDocumentError(problems, source=source)
    return capsule


def _under_root(root: Path, source: str) -> Locator:
    def find(slot: str, artifact: dict[str, Any]) -> Path:
        return check_relative_path(artifact["path"], root, source=source,
                                   json_path=f"$.artifacts.{slot}.path")
    return find


def rule_problems(capsule: dict[str, Any]) -> Problems:
    """The capsule rules its schema cannot express (see the module docstring); ``capsule``
    must have passed the schema."""
    p: Problems = []
    art = capsule["artifacts"]
    suite, receipt = art["suite"], art["agent_receipt"]
    metric = receipt["primary_metric"]
    at = "$.artifacts.agent_receipt.primary_metric"
    lo, hi = metric["interval_95"]
    if not lo <= metric["value"] <= hi:
        p.append((f"{at}.interval_95", "must bracket value (lower <= value <= upper)"))
    if metric["scenario_count"] != suite["scenario_count"]:
        p.append((f"{at}.scenario_count", f"must equal the suite's scenario_count "
                  f"({suite['scenario_count']})"))
    if metric["observation_count"] != metric["scenario_count"] * metric["repeats"]:
        p.append((f"{at}.observation_count", "must equal scenario_count x repeats"))
    if receipt["suite_binding"] == "hash_bound" and receipt["receipt_kind"] == "aau_domain_eval":
        p.append(("$.artifacts.agent_receipt.suite_binding", "a domain eval result records no "
                  "suite hash, so it can only be scenario_ids_only"))
    present = present_artifacts(capsule)
    for field in ("artifact_id", "path"):
        p += _unique([(i, a[field]) for i, (_, a) in enumerate(present)],
                     lambda i, f=field: f"$.artifacts.{present[i][0]}.{f}", field)
    p += _chain_problems(capsule)
    plan_ids = [row["metric_id"] for row in capsule["measurement_plan"]]
    p += _unique(list(enumerate(plan_ids)), lambda i: f"$.measurement_plan[{i}].metric_id",
                 "metric_id")
    obs = art["public_value_observation"]
    if obs is not None:
        for i, metric_id in enumerate(obs["metric_ids"]):
            if metric_id not in plan_ids:
                p.append((f"$.artifacts.public_value_observation.metric_ids[{i}]",
                          f"{metric_id!r} is not in the measurement_plan"))
    p += _unique([(i, s["url"]) for i, s in enumerate(capsule["sources"])],
                 lambda i: f"$.sources[{i}].url", "url")
    p += _status_problems(capsule)
    p += sensitive_problems(capsule)
    return p


def _unique(items: list[tuple[int, Any]], where: Callable[[int], str], what: str) -> Problems:
    seen: set[Any] = set()
    out: Problems = []
    for i, value in items:
        if value in seen:
            out.append((where(i), f"{what} {value!r} is used twice"))
        seen.add(value)
    return out


def _chain_problems(capsule: dict[str, Any]) -> Problems:
    art = capsule["artifacts"]
    p: Problems = []
    baseline = art["human_baseline"]
    observed = baseline is not None and baseline["observed_human_sessions"] > 0
    if baseline is not None:
        if art["human_study"] is None:
            p.append(("$.artifacts.human_baseline",
                      "a human-baseline report needs its blinded study (artifacts.human_study)"))
        if baseline["observed_human_sessions"] > baseline["session_count"]:
            p.append(("$.artifacts.human_baseline.observed_human_sessions",
                      "must not exceed session_count"))
    if art["public_value_observation"] is not None and not observed:
        p.append(("$.artifacts.public_value_observation", "a public-value observation needs an "
                  "observed aggregate human baseline (observed_human_sessions > 0)"))
    if art["reproduction"] is not None and not (
            observed and art["human_study"] is not None
            and art["public_value_observation"] is not None):
        p.append(("$.artifacts.reproduction", "an independent reproduction needs the whole chain "
                  "before it: study, observed human baseline and public-value observation"))
    return p


def _status_problems(capsule: dict[str, Any]) -> Problems:
    """Status inflation (or staleness) and the evidence-quality labels each status implies."""
    derived = derive_status(capsule)
    declared = capsule["status"]
    p: Problems = []
    if declared != derived:
        how = ("inflated" if STATUS_ORDER.index(declared) > STATUS_ORDER.index(derived)
               else "stale")
        p.append(("$.status", f"{how}: declared {declared!r}, but the artifacts support "
                  f"{derived!r} (status is derived, never selected)"))
    quality = capsule["evidence_quality"]
    q = "$.evidence_quality"
    if derived in ("aggregate_published", "independently_reproduced"):
        if capsule["artifacts"]["human_baseline"]["institutional_basis_attested"] is not True:
            p.append(("$.artifacts.human_baseline.institutional_basis_attested",
                      "observed human evidence needs an institutional-basis attestation"))
        if quality["rigor"] != "observed_aggregate":
            p.append((f"{q}.rigor", f"must be 'observed_aggregate' for status {derived!r}"))
        if quality["ethics"] != "institutional_basis_attested_not_verified":
            p.append((f"{q}.ethics", "must be 'institutional_basis_attested_not_verified' for "
                      f"status {derived!r}"))
    elif derived == "study_reviewed":
        if quality["rigor"] != "reviewed_protocol":
            p.append((f"{q}.rigor", "must be 'reviewed_protocol' for status 'study_reviewed'"))
        if quality["ethics"] != "institutional_determination_required_before_human_observation":
            p.append((f"{q}.ethics", "must be 'institutional_determination_required_before_"
                      "human_observation' for status 'study_reviewed'"))
    else:  # no human evidence: labels that claim some are inflated
        if quality["rigor"] != "synthetic_scenarios":
            p.append((f"{q}.rigor", f"{quality['rigor']!r} claims human evidence the capsule "
                      "does not bind; must be 'synthetic_scenarios'"))
        if quality["ethics"] == "institutional_basis_attested_not_verified":
            p.append((f"{q}.ethics", "claims an attested institutional basis without an "
                      "observed human baseline"))
    reproduced = derived == "independently_reproduced"
    if reproduced != (quality["independence"] == "independent_reproduction_attested"):
        p.append((f"{q}.independence", "'independent_reproduction_attested' exactly when the "
                  "status is 'independently_reproduced'"))
    return p


def sensitive_problems(capsule: dict[str, Any]) -> Problems:
    """Sensitive-looking text (e-mail, SSN, card, key, credential, classification marking) in any
    string of the capsule, found by aau-evidence's validated scan; the text is never echoed."""
    from ._privacy_scan import scan_text

    return [(path, f"looks like private data ({f.finding} at character {f.offset}); a capsule "
             "is public and aggregate-only")
            for path, text in _strings(capsule, "$") for f in scan_text(text, path)]


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")


def same_number(a: Any, b: Any) -> bool:
    """``a == b`` for JSON numbers only (booleans and NaN never equal anything)."""
    ok = all(type(x) in (int, float) and math.isfinite(x) for x in (a, b))
    return ok and a == b


def parse_json_bytes(data: bytes, source: str) -> Any:
    """Strictly parse an artifact's bytes (raises InputError naming ``source``)."""
    return loads_strict(data, source=source)


def render(value: Any) -> bytes:
    """aau-harness 1.6's evidence rendering (``aau_schemas.legacy_render_json``), as ASCII bytes."""
    import aau_schemas

    return aau_schemas.legacy_render_json(value).encode("ascii")
