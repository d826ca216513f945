"""``EvalSuite``: run several evaluators and aggregate them, honestly.

Compatible with PraisonAI 1.7.17's ``EvalSuite`` (``eval/suite.py``) where that is sound:

- results are keyed ``f"{ClassName}_{index}"`` (``HarnessEvaluator_0``), and ``score_weights``
  uses those keys;
- ``overall_score = Σ(score·w) / Σw`` on the 0-10 scale over the evaluators that returned a
  score (a ``score_scale == "fraction"`` result, like ``HarnessResult``, is multiplied by 10):
  one passing and one 0.75 harness give 8.75, with weight 3 on the second 8.125.

Where 1.7.17 is not (see docs/trace-gates.md, "An honest suite"):

- ``success`` is true only when every evaluator ran **and passed** (1.7.17: no exception was
  raised; failed gates are ignored); ``passed_count``, ``failed_count`` and ``error_count`` say
  how many, and ``judge_error_count`` how many results had a judge score that could not be used
  (counted apart from gate failures; each is also a failed result);
- ``to_dict`` nests each result's ``to_dict()`` (1.7.17 writes ``repr`` strings);
- ``parallel=True`` really runs the evaluators in threads (1.7.17 warns and runs them in turn);
- ``run(print_summary=False)`` by default (1.7.17 prints unless told not to);
- ``to_eval_report()`` gives an ``EvalReport``, which 1.7.17 never builds.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TextIO

import attrs

from .._run._provenance import utc_timestamp
from ._eval_report import EvalReport, EvalResult, judge_error_of, judge_error_text
from ._harness_eval import check_option
from ._trace import TraceError


def result_score(result: Any) -> float | None:
    """A result's score on the 0-10 scale (1.7.17's ``_extract_score``), or ``None``.

    ``score`` (its ``.value`` if it has one), ×10 when ``score_scale == "fraction"``; else
    ``overall_score``, ``avg_score`` or ``safety_score``; for a dict, the keys ``score``,
    ``overall_score``, ``avg_score``, ``final_score``. Non-finite and non-numeric values give
    ``None`` (left out of the average).
    """
    value: Any = None
    if isinstance(result, Mapping):
        value = next((result[k] for k in ("score", "overall_score", "avg_score", "final_score")
                      if result.get(k) is not None), None)
    elif getattr(result, "score", None) is not None:
        raw = result.score
        value = getattr(raw, "value", raw)
        try:
            value = float(value) * (10.0 if getattr(result, "score_scale", None) == "fraction"
                                    else 1.0)
        except (TypeError, ValueError):
            return None
    else:
        value = next((getattr(result, a) for a in ("overall_score", "avg_score", "safety_score")
                      if getattr(result, a, None) is not None), None)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def result_passed(result: Any) -> bool:
    """Whether a result passed: its ``passed`` (or ``success``) attribute or key; a result
    without either passes (it reports no verdict)."""
    for name in ("passed", "success"):
        value = result.get(name) if isinstance(result, Mapping) else getattr(result, name, None)
        if value is not None:
            return bool(value)
    return True


def _as_dict(result: Any) -> Any:
    to_dict = getattr(result, "to_dict", None)
    return to_dict() if callable(to_dict) else result


@attrs.define
class EvalSuiteResult:
    """What ``EvalSuite.run`` returns.

    Args:
        suite_name: the suite.
        start_time, end_time: UTC timestamps (``...Z``).
        evaluator_results: result object per key (``HarnessEvaluator_0``), in run order.
        overall_score: weighted mean score, 0-10 (0.0 when no evaluator gave one).
        success: every evaluator ran and passed.
        errors: ``"<key> failed: <error>"`` per evaluator that raised.
        passed_count, failed_count, error_count: evaluators that passed, did not pass, raised.
        duration_s: wall time, seconds.
        error_keys: the keys of the evaluators that raised, in the order of ``errors``.
        judge_error_count: results whose judge score could not be used (a ``judge_error``:
            unparseable, not finite, out of range, missing); each is also in ``failed_count``.
    """

    suite_name: str
    start_time: str
    end_time: str
    evaluator_results: dict[str, Any]
    overall_score: float
    success: bool
    errors: list[str]
    passed_count: int
    failed_count: int
    error_count: int
    duration_s: float
    error_keys: list[str] = attrs.field(factory=list)
    judge_error_count: int = 0

    @property
    def summary(self) -> dict[str, Any]:
        """``suite_name, duration, overall_score, success, num_evaluators, passed, failed,
        errors, judge_errors`` (counts)."""
        return {"suite_name": self.suite_name, "duration": self.duration_s,
                "overall_score": self.overall_score, "success": self.success,
                "num_evaluators": len(self.evaluator_results) + self.error_count,
                "passed": self.passed_count, "failed": self.failed_count,
                "errors": self.error_count, "judge_errors": self.judge_error_count}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: nested results as their ``to_dict()`` (1.7.17 writes ``repr`` strings).

        Stays a dict built here: PraisonAI 1.7.17's ``EvalSuite`` result shape is no document
        of an aau schema kind (``to_eval_report()`` gives the ``eval-report`` model), and its
        values are whatever objects the evaluators returned."""
        return {"suite_name": self.suite_name, "start_time": self.start_time,
                "end_time": self.end_time, "duration": self.duration_s,
                "evaluator_results": {k: _as_dict(v) for k, v in self.evaluator_results.items()},
                "overall_score": self.overall_score, "success": self.success,
                "errors": list(self.errors), "summary": self.summary}

    def to_eval_report(self, package_name: str | None = None) -> EvalReport:
        """One ``EvalResult`` per evaluator, named by its key, in key order.

        A result with ``to_eval_result`` is converted by it; others get ``score`` = 0-10 score
        / 10. An evaluator that raised is a failed case with score 0.0 and its ``error``.
        """
        cases: list[tuple[int, EvalResult]] = []
        for key, result in self.evaluator_results.items():
            score = result_score(result)
            cases.append((_index(key), EvalResult(
                case_name=key, passed=result_passed(result),
                score=0.0 if score is None else min(max(score / 10.0, 0.0), 1.0),
                criteria_scores=_criteria(result), record=_record(result),
                judge_error=judge_error_of(result))))
        for key, message in zip(self.error_keys, self.errors, strict=True):
            cases.append((_index(key), EvalResult(case_name=key, passed=False, score=0.0,
                                                  error=message)))
        cases.sort(key=lambda item: item[0])
        return EvalReport.from_results(package_name or self.suite_name, [c for _, c in cases])

    def print_summary(self, file: TextIO | None = None) -> None:
        """Print counts, the overall score and one line per evaluator to ``file`` (stdout)."""
        out = file or sys.stdout
        lines = [f"EvalSuite {self.suite_name}: {'PASSED' if self.success else 'FAILED'}",
                 f"  overall score {self.overall_score:.2f}/10; {self.passed_count} passed, "
                 f"{self.failed_count} failed ({self.judge_error_count} with a judge error), "
                 f"{self.error_count} raised; {self.duration_s:.2f}s"]
        for key, result in self.evaluator_results.items():
            score = result_score(result)
            shown = "no score" if score is None else f"{score:.2f}/10"
            line = f"  {key}: {'pass' if result_passed(result) else 'FAIL'} {shown}"
            judge_error = judge_error_of(result)
            if judge_error is not None:
                line += f"; {judge_error_text(judge_error)}"
            lines.append(line)
        lines.extend(f"  {e}" for e in self.errors)
        print("\n".join(lines), file=out)


def _index(key: str) -> int:
    return int(key.rsplit("_", 1)[1])


def _criteria(result: Any) -> dict[str, float]:
    gates = getattr(result, "gates", None)
    return {k: 1.0 if v else 0.0 for k, v in gates().items()} if callable(gates) else {}


def _record(result: Any) -> dict[str, Any] | None:
    value = _as_dict(result)
    return value if isinstance(value, dict) else None


class EvalSuite:
    """Run evaluators (anything with ``run(print_summary=False)``) and aggregate their results.

    Args:
        evaluators: at least one evaluator.
        name: the suite name; default ``eval_suite_<unix seconds>``.
        parallel: run the evaluators in threads (results keep their order).
        fail_fast: stop at the first evaluator that raises (``RuntimeError``).
        score_weights: weight per result key (``{"HarnessEvaluator_1": 3.0}``); default 1.0.
        save_results_path: write ``to_dict()`` JSON there after the run (``{name}`` and
            ``{timestamp}`` filled in), atomically.

    Raises:
        TraceError: (a ``ValueError``) an option of the wrong type, no evaluators, an
            evaluator without ``run``, a weight for a key no evaluator has, or a weight that is
            not a finite number >= 0; ``str(err)`` starts with the option's name.
    """

    def __init__(self, evaluators: Sequence[Any], name: str | None = None, parallel: bool = False,
                 fail_fast: bool = False, score_weights: Mapping[str, float] | None = None,
                 save_results_path: str | None = None) -> None:
        check_option(isinstance(evaluators, (list, tuple)), "evaluators", "a list of evaluators",
                     evaluators)
        if not evaluators:
            raise TraceError("At least one evaluator must be provided", "evaluators")
        for i, evaluator in enumerate(evaluators):
            check_option(callable(getattr(evaluator, "run", None)), f"evaluators[{i}]",
                         "an evaluator (an object with run())", evaluator)
        check_option(score_weights is None or isinstance(score_weights, Mapping),
                     "score_weights", "an object of weights by result key", score_weights)
        weights = dict(score_weights or {})
        keys = [f"{type(e).__name__}_{i}" for i, e in enumerate(evaluators)]
        for key, w in weights.items():
            if key not in keys:
                raise TraceError(f"{key!r} is not a result key; the keys are "
                                 f"{', '.join(keys)}", "score_weights")
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) \
                    or w < 0:
                raise TraceError(f"{w!r} is not a finite number >= 0", f"score_weights[{key!r}]")
        check_option(name is None or isinstance(name, str), "name", "a string or None", name)
        for option, value in (("parallel", parallel), ("fail_fast", fail_fast)):
            check_option(isinstance(value, bool), option, "true or false", value)
        check_option(save_results_path is None or isinstance(save_results_path, str),
                     "save_results_path", "a string or None", save_results_path)
        self.evaluators = list(evaluators)
        self.name = name or f"eval_suite_{int(time.time())}"
        self.parallel = parallel
        self.fail_fast = fail_fast
        self.score_weights = weights
        self.save_results_path = save_results_path

    def keys(self) -> list[str]:
        """The result keys, ``f"{type(e).__name__}_{i}"``, in evaluator order."""
        return [f"{type(e).__name__}_{i}" for i, e in enumerate(self.evaluators)]

    def run(self, print_summary: bool = False) -> EvalSuiteResult:
        """Run every evaluator and aggregate.

        Returns:
            the ``EvalSuiteResult``.

        Raises:
            RuntimeError: ``fail_fast`` and an evaluator raised
                (``"EvalSuite stopped due to fail_fast: <key> failed: <error>"``).
        """
        start, t0 = utc_timestamp(), time.perf_counter()
        outcomes: list[tuple[str, Any, BaseException | None]] = []

        def one(key: str, evaluator: Any) -> tuple[str, Any, BaseException | None]:
            try:
                return key, evaluator.run(print_summary=False), None
            except Exception as exc:  # noqa: BLE001 - an evaluator's crash is its own failure
                return key, None, exc

        pairs = list(zip(self.keys(), self.evaluators, strict=True))
        if self.parallel and not self.fail_fast:
            with ThreadPoolExecutor(max_workers=min(8, len(pairs))) as pool:
                outcomes = list(pool.map(lambda p: one(*p), pairs))
        else:
            for key, evaluator in pairs:
                outcome = one(key, evaluator)
                if outcome[2] is not None and self.fail_fast:
                    raise RuntimeError(f"EvalSuite stopped due to fail_fast: {key} failed: "
                                       f"{outcome[2]}") from outcome[2]
                outcomes.append(outcome)
        results = {k: r for k, r, e in outcomes if e is None}
        errors = [f"{k} failed: {e}" for k, _, e in outcomes if e is not None]
        weighted = [(s, self.score_weights.get(k, 1.0)) for k, r in results.items()
                    if (s := result_score(r)) is not None]
        total_w = math.fsum(w for _, w in weighted)
        overall = math.fsum(s * w for s, w in weighted) / total_w if total_w else 0.0
        passed = sum(1 for r in results.values() if result_passed(r))
        suite = EvalSuiteResult(
            suite_name=self.name, start_time=start, end_time=utc_timestamp(),
            evaluator_results=results, overall_score=overall,
            success=not errors and passed == len(results), errors=errors,
            passed_count=passed, failed_count=len(results) - passed, error_count=len(errors),
            duration_s=time.perf_counter() - t0,
            error_keys=[k for k, _, e in outcomes if e is not None],
            judge_error_count=sum(1 for r in results.values() if judge_error_of(r) is not None))
        if self.save_results_path:
            from .._files._writing import atomic_write_json

            stamp = start.replace(":", "").replace("-", "")
            target = Path(self.save_results_path.format(name=self.name, timestamp=stamp))
            atomic_write_json(target, suite.to_dict(), force=True)
        if print_summary:
            suite.print_summary()
        return suite
