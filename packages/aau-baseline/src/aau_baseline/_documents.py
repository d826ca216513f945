"""Reading and checking human-baseline documents: schema first, then the model, then what the
schema cannot say.

Every check raises ``aau_core.InvalidDocumentError`` naming the file and the JSON path of each
problem (exit 2). A document is validated against its schema before it is structured into its
model (``load``/``load_model``); each ``check_*`` function takes the model (the agent receipt,
aau-adapters' format, stays a checked dict) and adds the rules listed in each schema's
``description`` and in ``schemas/README.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aau_schemas
from aau_core import InputError, InvalidDocumentError, check_document, read_json_file

from ._converter import converter
from ._models import MODELS, AnswerKey, Report, Session, Study
from ._protocol import ABSTAIN, MAX_SESSIONS

MAX_FILE_BYTES = 2_000_000
"""Largest document read, in bytes (as aau-harness 1.6)."""

STUDY_KIND = "human-baseline-study"
ANSWER_KEY_KIND = "human-baseline-answer-key"
SESSION_KIND = "human-baseline-session"
MANIFEST_KIND = "human-baseline-manifest"
REPORT_KIND = "human-baseline-report"
RECEIPT_KIND = "receipt-v1"
RECEIPT_V2_KIND = "receipt-v2"

_STRIPPED_LIMITS = {"suite_id": 120, "title": 120, "purpose": 500}
_FIELD_LIMIT = 120  # scenario ids and outcomes, stripped


def read_document(path: str | Path) -> Any:
    """Parse a JSON file of at most ``MAX_FILE_BYTES``. Raises InputError (unreadable, too big,
    invalid JSON)."""
    return read_json_file(path, max_bytes=MAX_FILE_BYTES)


def check_schema(kind: str, doc: Any, source: str) -> dict[str, Any]:
    """Validate ``doc`` against ``kind``'s schema; return it. Raises InvalidDocumentError with
    every violation."""
    return check_document(kind, doc, source)


def load_model(kind: str, doc: Any, source: str) -> Any:
    """Validate ``doc`` against ``kind``'s schema, then structure it into ``MODELS[kind]``.

    Raises:
        InvalidDocumentError: every schema violation (nothing is structured then).
    """
    return converter.structure(check_schema(kind, doc, source), MODELS[kind])


def load(kind: str, path: str | Path) -> Any:
    """``read_document`` then ``load_model``: the file as its checked model."""
    return load_model(kind, read_document(path), str(path))


def load_receipt(path: str | Path) -> dict[str, Any]:
    """Read an agent receipt: ``aau-byo-agent-receipt/1.0`` (aau-harness 1.x, ``--format
    aau-1.0``) or ``/2.0`` (``aau evaluate``'s default), each checked against its schema."""
    doc = read_document(path)
    kind = aau_schemas.detect_kind(doc)
    if kind not in (RECEIPT_KIND, RECEIPT_V2_KIND):
        raise InvalidDocumentError([("$.receipt_version", "not an aau-byo-agent-receipt/1.0 or "
                                     "/2.0 receipt")], source=str(path))
    return check_schema(kind, doc, str(path))


def _raise(problems: list[tuple[str, str]], source: str) -> None:
    if problems:
        raise InvalidDocumentError(problems, source=source)


def study_sha256(study: Study) -> str:
    """The study's evidence hash (1.6 ``sha256_json`` of its document: indent 2, sorted keys,
    newline)."""
    return aau_schemas.legacy_sha256_json(converter.unstructure(study))


def _walk_keys(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, f"{path}.{key}" if key.isidentifier() else f"{path}[{key!r}]"
            yield from _walk_keys(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk_keys(item, f"{path}[{i}]")


def leaked_answers(value: Any, path: str) -> list[tuple[str, str]]:
    """``(json_path, message)`` for every key named ``expected`` (any case) inside ``value``."""
    return [(p, "a participant file must not carry an expected answer")
            for key, p in _walk_keys(value, path) if key.lower() == "expected"]


def check_outcome_suite(suite: Any) -> None:
    """Refuse a suite a human baseline cannot measure: the study compares outcomes only.

    A suite v1 always qualifies. A suite v2 or v3 (``aau-byo-agent-suite/2.0``, ``/3.0``)
    qualifies when every case has ``expected.outcome`` and none has ``expected.tool_calls``:
    participants choose an outcome, so a case scored on tool calls could not be compared with
    them.

    Args:
        suite: a loaded ``aau_adapters.Suite``.

    Raises:
        InputError: the first case without an expected outcome (path
            ``$.cases[i].expected``), else the first case that checks tool calls (path
            ``$.cases[i].expected.tool_calls``); names the suite file; exit 2.
    """
    for case in suite.cases:
        if case.expected_outcome is None:
            raise InputError(f"case {case.scenario_id!r} has no expected outcome; a human "
                             "baseline compares outcomes, so every case needs expected.outcome",
                             source=suite.source, path=f"$.cases[{case.index}].expected")
    for case in suite.cases:
        if case.expected_tool_calls is not None:
            raise InputError(f"case {case.scenario_id!r} checks tool calls; a human baseline "
                             "compares outcomes only: use a suite without expected.tool_calls",
                             source=suite.source,
                             path=f"$.cases[{case.index}].expected.tool_calls")


def check_study(study: Study, source: str) -> Study:
    """Rules beyond the study schema: stripped lengths, unique scenario ids, and blinding (no
    key named ``expected`` anywhere in a case input, where a suite keeps its answers)."""
    problems = []
    for field, limit in _STRIPPED_LIMITS.items():
        if len(getattr(study, field).strip()) > limit:
            problems.append((f"$.{field}", f"longer than {limit} characters"))
    for i, outcome in enumerate(study.outcomes):
        if len(outcome.strip()) > _FIELD_LIMIT:
            problems.append((f"$.outcomes[{i}]", f"longer than {_FIELD_LIMIT} characters"))
    seen: set[str] = set()
    for i, case in enumerate(study.cases):
        sid = case.scenario_id
        if len(sid.strip()) > _FIELD_LIMIT:
            problems.append((f"$.cases[{i}].scenario_id", f"longer than {_FIELD_LIMIT} characters"))
        if sid in seen:
            problems.append((f"$.cases[{i}].scenario_id", f"duplicate scenario id {sid!r}"))
        seen.add(sid)
        problems += leaked_answers(case.input, f"$.cases[{i}].input")
    _raise(problems, source)
    return study


def check_answer_key(key: AnswerKey, study: Study, source: str) -> AnswerKey:
    """The key belongs to the study (id, hash), covers exactly its cases, with its outcomes."""
    problems = []
    if key.study_id != study.study_id:
        problems.append(("$.study_id", "does not match the study"))
    if key.study_sha256 != study_sha256(study):
        problems.append(("$.study_sha256", "is not the hash of the study"))
    ids = {c.scenario_id for c in study.cases}
    for sid in sorted(ids - set(key.answers)):
        problems.append(("$.answers", f"no answer for scenario {sid!r}"))
    for sid, outcome in key.answers.items():
        if sid not in ids:
            problems.append((f"$.answers[{sid!r}]", "not a scenario of the study"))
        elif outcome not in study.outcomes:
            problems.append((f"$.answers[{sid!r}]", f"{outcome!r} is not an outcome of the study"))
    _raise(problems, source)
    return key


def check_session(session: Session, study: Study, source: str) -> Session:
    """The session belongs to the study, uses its role and outcomes, answers every case once,
    with whole-number confidence and times (``1.0`` is refused, as 1.6 did)."""
    problems = []
    if session.study_id != study.study_id:
        problems.append(("$.study_id", "does not match the study"))
    if session.study_sha256 != study_sha256(study):
        problems.append(("$.study_sha256", "is not the hash of the study"))
    if session.participant_role not in study.participant_roles:
        problems.append(("$.participant_role", "not a role of the study"))
    allowed = {*study.outcomes, ABSTAIN}
    ids = [c.scenario_id for c in study.cases]
    seen: set[str] = set()
    for i, response in enumerate(session.responses):
        sid = response.scenario_id
        if sid not in ids:
            problems.append((f"$.responses[{i}].scenario_id", f"{sid!r} is not a study case"))
        elif sid in seen:
            problems.append((f"$.responses[{i}].scenario_id", f"{sid!r} answered twice"))
        seen.add(sid)
        if response.outcome not in allowed:
            problems.append((f"$.responses[{i}].outcome",
                             f"{response.outcome!r} is not an outcome of the study"))
        for field in ("confidence", "elapsed_ms"):
            if not isinstance(getattr(response, field), int):
                problems.append((f"$.responses[{i}].{field}", "must be a whole number"))
    for sid in ids:
        if sid not in seen:
            problems.append(("$.responses", f"no response for scenario {sid!r}"))
    _raise(problems, source)
    return session


def check_agent_receipt(receipt: dict[str, Any], study: Study,
                        source: str) -> dict[str, Any]:
    """A receipt fit for a comparison: not a mock, same suite (id and legacy hash), every
    study case covered exactly once, and an exact_rate that derives from its rows."""
    problems = []
    if receipt.get("repeats", 1) != 1:
        problems.append(("$.repeats", f"a comparison needs one run per case, this receipt has "
                         f"{receipt['repeats']} repeats (run aau evaluate with --repeats 1)"))
        _raise(problems, source)
    if receipt["adapter_kind"] == "mock":
        problems.append(("$.adapter_kind", "a mock receipt cannot support a human comparison"))
    if receipt["suite_id"] != study.suite_id:
        problems.append(("$.suite_id", "not the study's suite"))
    if receipt["suite_sha256"] != study.suite_sha256:
        problems.append(("$.suite_sha256", "not the study's suite"))
    rows = receipt["results"]
    ids = [r["scenario_id"] for r in rows]
    if sorted(ids) != sorted(c.scenario_id for c in study.cases):
        problems.append(("$.results", "does not cover exactly the study's cases"))
    if receipt["scenario_count"] != len(rows):
        problems.append(("$.scenario_count", "differs from the number of results"))
    if not math.isclose(receipt["metrics"]["exact_rate"],
                        sum(r["exact"] is True for r in rows) / len(rows), abs_tol=1e-6):
        problems.append(("$.metrics.exact_rate", "does not derive from the results"))
    _raise(problems, source)
    return receipt


def check_baseline_report(report: Report, source: str) -> Report:
    """Check a human-baseline report's internal arithmetic (what can be checked without the
    sessions). Not ``aau_labs.check_report``, which scores an agent's report for fidelity.

    Args:
        report: a schema-valid ``human-baseline-report`` document, structured (``Report``).
        source: its file name, for error lines.

    Returns:
        ``report`` itself.

    Raises:
        aau_core.InvalidDocumentError: every rule broken, as ``source: $.path: message``.
    """
    problems = []
    m, src, rows = report.metrics, report.source, report.per_scenario
    low, high = m.outcome_exact_wilson_95
    if not low <= m.outcome_exact_rate <= high:
        problems.append(("$.metrics.outcome_exact_wilson_95", "does not contain outcome_exact_rate"))
    if m.median_task_time_ms > m.p90_task_time_ms:
        problems.append(("$.metrics.p90_task_time_ms", "below median_task_time_ms"))
    for field in ("response_count", "median_task_time_ms", "p90_task_time_ms"):
        if not isinstance(getattr(m, field), int):
            problems.append((f"$.metrics.{field}", "must be a whole number"))
    kinds = src.session_kinds
    if kinds.synthetic_reference + kinds.human_observed != src.session_count:
        problems.append(("$.source.session_kinds", "do not add up to session_count"))
    if len(src.session_sha256) != src.session_count:
        problems.append(("$.source.session_sha256", "not one hash per session"))
    if src.session_count > MAX_SESSIONS:
        problems.append(("$.source.session_count", f"more than {MAX_SESSIONS}"))
    seen: set[str] = set()
    for i, row in enumerate(rows):
        if row.responses != src.session_count:
            problems.append((f"$.per_scenario[{i}].responses", "differs from session_count"))
        if row.scenario_id in seen:
            problems.append((f"$.per_scenario[{i}].scenario_id", "duplicate scenario id"))
        seen.add(row.scenario_id)
    if sum(r.responses for r in rows) != m.response_count:
        problems.append(("$.metrics.response_count", "differs from the per-scenario responses"))
    summary = report.human_protection_summary
    if (summary.observed_human_sessions, summary.synthetic_reference_sessions) != (
            kinds.human_observed, kinds.synthetic_reference):
        problems.append(("$.human_protection_summary", "differs from source.session_kinds"))
    comparison = report.agent_comparison
    if comparison is not None:
        if comparison.scenario_count != len(rows):
            problems.append(("$.agent_comparison.scenario_count",
                             "differs from the per-scenario rows"))
        if comparison.human_exact_rate != m.outcome_exact_rate:
            problems.append(("$.agent_comparison.human_exact_rate",
                             "differs from metrics.outcome_exact_rate"))
        if not math.isclose(comparison.human_minus_agent_exact_rate,
                            comparison.human_exact_rate - comparison.agent_exact_rate,
                            abs_tol=1e-4):
            problems.append(("$.agent_comparison.human_minus_agent_exact_rate",
                             "is not human_exact_rate - agent_exact_rate"))
    _raise(problems, source)
    return report
