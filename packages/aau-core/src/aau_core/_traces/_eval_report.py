"""Eval cases, case results and reports, in PraisonAI 1.7.17's shapes (``eval/package.py``).

- ``EvalCase``: one case to evaluate (a name and an input, what is expected, criteria).
- ``EvalResult``: one case's verdict: passed, a score in 0..1, per-criterion scores.
- ``EvalReport``: many results with counts, mean score and pass rate (schema kind
  ``eval-report``). PraisonAI defines it but nothing builds one; ``EvalReport.from_results`` does.

The ``to_dict`` keys and order are 1.7.17's; ``EvalReport.to_dict`` adds ``eval_report_version``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

EVAL_REPORT_VERSION = "aau-eval-report/1.0"


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
    verify: Any = attrs.field(default=None, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        if not self.name:
            raise ValueError("EvalCase must have a name")
        if not self.input:
            raise ValueError("EvalCase must have an input")

    def to_dict(self) -> dict[str, Any]:
        """``{name, input, expected, criteria, metadata, timeout_seconds}`` (no ``verify``)."""
        return {"name": self.name, "input": self.input, "expected": self.expected,
                "criteria": list(self.criteria), "metadata": dict(self.metadata),
                "timeout_seconds": self.timeout_seconds}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalCase:
        """The mirror of ``to_dict`` (missing optional keys take their defaults)."""
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
    """

    case_name: str
    passed: bool
    score: float
    actual_output: str | None = None
    error: str | None = None
    latency_ms: float = 0.0
    criteria_scores: dict[str, float] = attrs.field(factory=dict)
    record: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The fields in declaration order (1.7.17's keys)."""
        return {"case_name": self.case_name, "passed": self.passed, "score": self.score,
                "actual_output": self.actual_output, "error": self.error,
                "latency_ms": self.latency_ms, "criteria_scores": dict(self.criteria_scores),
                "record": self.record}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalResult:
        """The mirror of ``to_dict``."""
        return cls(case_name=data["case_name"], passed=data["passed"], score=data["score"],
                   actual_output=data.get("actual_output"), error=data.get("error"),
                   latency_ms=data.get("latency_ms", 0.0),
                   criteria_scores=dict(data.get("criteria_scores") or {}),
                   record=data.get("record"))


@attrs.define
class EvalReport:
    """Results of many cases (PraisonAI's ``EvalReport``; schema kind ``eval-report``).

    Args:
        package_name: what was evaluated (a suite or package name).
        total_cases, passed_cases, failed_cases: counts (``total = passed + failed``).
        average_score: mean of the results' scores (0..1), 0.0 with no results.
        results: the ``EvalResult`` of every case, in order.
        thresholds_met: named bars and whether they were met.
    """

    package_name: str
    total_cases: int
    passed_cases: int
    failed_cases: int
    average_score: float
    results: list[EvalResult] = attrs.field(factory=list)
    thresholds_met: dict[str, bool] = attrs.field(factory=dict)

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
        """Build a report: counts, ``average_score = fsum(scores) / n`` (0.0 for none).

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
                   thresholds_met=dict(thresholds_met or {}))

    def to_dict(self) -> dict[str, Any]:
        """1.7.17's keys (``package_name, total_cases, passed_cases, failed_cases,
        average_score, pass_rate, thresholds_met, results``) after ``eval_report_version``."""
        return {"eval_report_version": EVAL_REPORT_VERSION, "package_name": self.package_name,
                "total_cases": self.total_cases, "passed_cases": self.passed_cases,
                "failed_cases": self.failed_cases, "average_score": self.average_score,
                "pass_rate": self.pass_rate, "thresholds_met": dict(self.thresholds_met),
                "results": [r.to_dict() for r in self.results]}

    def to_json(self) -> str:
        """``to_dict()`` as JSON, ``indent=2``, NaN refused (``ValueError``)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalReport:
        """Read ``to_dict`` output back (``pass_rate`` and the version are derived, not read).

        Raises:
            KeyError: a required key is missing (validate against ``eval-report`` first).
        """
        return cls(package_name=data["package_name"], total_cases=data["total_cases"],
                   passed_cases=data["passed_cases"], failed_cases=data["failed_cases"],
                   average_score=data["average_score"],
                   results=[EvalResult.from_dict(r) for r in data.get("results", [])],
                   thresholds_met=dict(data.get("thresholds_met") or {}))
