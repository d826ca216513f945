"""Eval cases, case results and reports, in PraisonAI 1.7.17's shapes (``eval/package.py``).

- ``EvalCase``: one case to evaluate (a name and an input, what is expected, criteria).
- ``EvalResult``: one case's verdict: passed, a score in 0..1, per-criterion scores.
- ``EvalReport``: many results with counts, mean score and pass rate (schema kind
  ``eval-report``). PraisonAI defines it but nothing builds one; ``EvalReport.from_results`` does.

The ``to_dict`` keys and order are 1.7.17's; ``EvalReport.to_dict`` adds ``eval_report_version``
and ``judge_errors`` (how many cases had a judge score that could not be used, apart from gate
failures; version 1.1).
These are attrs models converted by aau-core's document converter (``_files._converter``):
``to_dict``/``to_json``/``from_dict`` are kept as one-line delegations to it because they are
PraisonAI 1.7.17's public API that aau-harness 1.x users call.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import attrs

from .._files._converter import (
    ABSENT,
    OMIT,
    document_converter,
    optional_field,
    structure_document,
    unstructure_document,
)

EVAL_REPORT_VERSION = "aau-eval-report/1.1"
"""What aau writes: version 1.1 counts judge errors (``judge_errors``)."""
EVAL_REPORT_VERSION_1_0 = "aau-eval-report/1.0"
"""A report without ``judge_errors`` (written before judge errors were counted)."""


def judge_error_of(result: Any) -> Any:
    """The judge error a result carries (a ``JudgeError`` or its ``{code, message}``), or
    ``None``: its ``judge_error`` attribute or key, else its ``record``'s (a trace-result)."""
    for holder in (result, _get(result, "record")):
        value = _get(holder, "judge_error")
        if value is not None and value is not ABSENT:
            return value
    return None


def judge_error_text(judge_error: Any) -> str:
    """``"judge error (<code>): <message>"`` for a ``JudgeError`` or its ``{code, message}``."""
    return f"judge error ({_get(judge_error, 'code')}): {_get(judge_error, 'message')}"


def _get(holder: Any, name: str) -> Any:
    if isinstance(holder, Mapping):
        return holder.get(name)
    return getattr(holder, name, None)


@attrs.define
class EvalCase:
    """One case to evaluate (PraisonAI's ``EvalCase``).

    Args:
        name: non-empty case name.
        input: non-empty input (the prompt).
        expected: what a good answer is (any JSON value, kept as given), or ``None``.
        criteria: rubric lines a judge scores against.
        metadata: free-form JSON object.
        timeout_seconds: time allowed for the case, seconds (default 30.0).
        verify: an optional callable checking an output; not serialised.

    Raises:
        ValueError: ``"EvalCase must have a name"`` / ``"EvalCase must have an input"`` when
            the value is empty (1.7.17's messages).
    """

    name: str
    input: Any
    expected: Any = None
    criteria: list[str] = attrs.field(factory=list)
    metadata: dict[str, Any] = attrs.field(factory=dict)
    timeout_seconds: float = 30.0
    verify: Any = attrs.field(default=None, eq=False, repr=False, metadata={OMIT: True})

    def __attrs_post_init__(self) -> None:
        if not self.name:
            raise ValueError("EvalCase must have a name")
        if not self.input:
            raise ValueError("EvalCase must have an input")

    def to_dict(self) -> dict[str, Any]:
        """``{name, input, expected, criteria, metadata, timeout_seconds}`` (no ``verify``), by
        the document converter (kept: PraisonAI's public API)."""
        return unstructure_document(self)  # type: ignore[no-any-return]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalCase:
        """The mirror of ``to_dict`` (missing optional keys take their defaults).

        Written by hand on purpose: PraisonAI 1.7.17's ``EvalCase.from_dict`` is lenient (a
        missing ``name`` or ``input`` becomes ``""``, ``timeout_seconds`` any number-like value)
        and no schema describes a case on its own, so there is no document to validate first;
        the converter would refuse what 1.7.17 accepts.
        """
        return cls(name=data.get("name", ""), input=data.get("input", ""),
                   expected=data.get("expected"), criteria=list(data.get("criteria") or []),
                   metadata=dict(data.get("metadata") or {}),
                   timeout_seconds=float(data.get("timeout_seconds", 30.0)))


@attrs.define
class EvalResult:
    """One case's verdict (PraisonAI's ``EvalResult``).

    Args:
        case_name: the case.
        passed: the verdict.
        score: a fraction 0..1 (trace gates: true gates / 4).
        actual_output: the agent's output, or ``None``.
        error: why the case could not be evaluated, or ``None``.
        latency_ms: time taken, milliseconds.
        criteria_scores: per-criterion scores (trace gates: 1.0/0.0 per gate).
        record: the evaluator's full result as a JSON object (a trace-result), or ``None``.
        judge_error: the trace's judge error (``_trace.JudgeError``) when its judge score could
            not be used, else ``None``; not part of the document (1.7.17's keys), it lets
            ``EvalReport.from_results`` count judge errors when there is no ``record``.
    """

    case_name: str
    passed: bool
    score: float
    actual_output: str | None = None
    error: str | None = None
    latency_ms: float = 0.0
    criteria_scores: dict[str, float] = attrs.field(factory=dict)
    record: dict[str, Any] | None = None
    judge_error: Any = attrs.field(default=None, eq=False, metadata={OMIT: True})

    def to_dict(self) -> dict[str, Any]:
        """The fields in declaration order (1.7.17's keys), by the document converter (kept:
        PraisonAI's public API)."""
        return unstructure_document(self)  # type: ignore[no-any-return]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalResult:
        """The mirror of ``to_dict``, by the document converter (missing optional keys take
        their defaults).

        Raises:
            cattrs.ClassValidationError: a required key is missing (check the document against
                ``eval-report`` first, as ``EvalReport.from_dict`` does).
        """
        return document_converter().structure(data, cls)  # type: ignore[no-any-return]


@attrs.define
class EvalReport:
    """Results of many cases (PraisonAI's ``EvalReport``; schema kind ``eval-report``).

    The document (``to_dict``) also has ``eval_report_version`` and ``pass_rate``, both derived.

    Args:
        package_name: what was evaluated (a suite or package name).
        total_cases, passed_cases, failed_cases: counts (``total = passed + failed``).
        average_score: mean of the results' scores (0..1), 0.0 with no results.
        results: the ``EvalResult`` of every case, in order.
        thresholds_met: named bars and whether they were met.
        judge_errors: cases whose judge score could not be used (each is also a failed case:
            its judge gate failed); ``None`` for a report read from a version 1.0 document,
            which did not count them (``from_results`` always counts).
    """

    package_name: str
    total_cases: int
    passed_cases: int
    failed_cases: int
    average_score: float
    results: list[EvalResult] = attrs.field(factory=list)
    thresholds_met: dict[str, bool] = attrs.field(factory=dict)
    judge_errors: int | None = optional_field()

    __aau_document_keys__: ClassVar[tuple[str, ...]] = (
        "eval_report_version", "package_name", "total_cases", "passed_cases", "failed_cases",
        "judge_errors", "average_score", "pass_rate", "thresholds_met", "results")

    @property
    def eval_report_version(self) -> str:
        """The document's version string: ``"aau-eval-report/1.1"`` when judge errors are
        counted (every report aau builds), ``"aau-eval-report/1.0"`` for one read from a 1.0
        document, which is written back as it was."""
        return EVAL_REPORT_VERSION_1_0 if self.judge_errors is None else EVAL_REPORT_VERSION

    @property
    def pass_rate(self) -> float:
        """``passed_cases / total_cases``, 0.0 when there are no cases."""
        return self.passed_cases / self.total_cases if self.total_cases else 0.0

    @property
    def all_passed(self) -> bool:
        """``failed_cases == 0`` (1.7.17: true for an empty report too)."""
        return self.failed_cases == 0

    @classmethod
    def from_results(cls, package_name: str, results: Iterable[EvalResult],
                     thresholds_met: Mapping[str, bool] | None = None) -> EvalReport:
        """Build a report: counts, ``average_score = fsum(scores) / n`` (0.0 for none), and
        ``judge_errors``: the results with a judge error (``judge_error_of``).

        Raises:
            ValueError: a score is not a finite number.
        """
        items = list(results)
        for r in items:
            if isinstance(r.score, bool) or not isinstance(r.score, (int, float)) \
                    or not math.isfinite(r.score):
                raise ValueError(f"case {r.case_name!r}: score {r.score!r} is not a finite number")
        passed = sum(1 for r in items if r.passed)
        mean = math.fsum(r.score for r in items) / len(items) if items else 0.0
        return cls(package_name=package_name, total_cases=len(items), passed_cases=passed,
                   failed_cases=len(items) - passed, average_score=mean, results=items,
                   thresholds_met=dict(thresholds_met or {}),
                   judge_errors=sum(1 for r in items if judge_error_of(r) is not None))

    def to_dict(self) -> dict[str, Any]:
        """1.7.17's keys (``package_name, total_cases, passed_cases, failed_cases,
        average_score, pass_rate, thresholds_met, results``) after ``eval_report_version``, with
        ``judge_errors`` after ``failed_cases``, by the document converter (kept: PraisonAI's
        public API)."""
        return unstructure_document(self)  # type: ignore[no-any-return]

    def to_json(self) -> str:
        """``to_dict()`` as JSON, ``indent=2``, NaN refused (``ValueError``)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalReport:
        """Read ``to_dict`` output back: checked against schema ``eval-report``, then structured
        by the document converter (``pass_rate`` and the version are derived, not read; kept:
        PraisonAI's public API).

        Raises:
            InvalidDocumentError: ``data`` breaks the ``eval-report`` schema (a missing key
                included), one ``$.path: message`` line each.
        """
        return structure_document("eval-report", data, cls)
