"""Running a suite through an adapter: (scenario x repeat) units on the aau-core execution layer."""

from __future__ import annotations

from collections.abc import Callable

from aau_core import (
    package_version,
    platform_string,
    python_version,
    run_units,
    utc_timestamp,
)

from . import _failure_codes as fc
from ._adapter import Adapter, AdapterAnswer
from ._protocol import build_request
from ._receipt import EvaluationRun
from ._scoring import UnitResult, score, score_unit
from ._suite import Case, Suite


def evaluate(
    suite: Suite,
    adapter: Adapter,
    *,
    repeats: int = 1,
    concurrency: int = 1,
    timeout_s: float = 30.0,
    on_unit: Callable[[UnitResult], None] | None = None,
) -> EvaluationRun:
    """Send every case of ``suite`` to ``adapter`` ``repeats`` times and score the answers.

    Units run ``concurrency`` at a time; results are in suite order, then repeat order,
    whatever the concurrency. A unit whose adapter call raises (a harness bug) is recorded
    as ``adapter-internal-error`` and the run goes on.

    Args:
        suite: a loaded suite.
        adapter: the agent connection.
        repeats: runs per scenario (>= 1).
        concurrency: units in flight at once (>= 1).
        timeout_s: per-unit timeout in seconds, recorded in the run (the adapter enforces it).
        on_unit: called in the calling thread as each unit finishes (progress).

    Returns:
        the ``EvaluationRun``.

    Raises:
        ValueError: ``repeats`` or ``concurrency`` below 1.
        aau_core.Interrupted: Ctrl-C; ``.finished`` maps unit index to ``UnitResult``.
    """
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    units: list[tuple[Case, int]] = [(case, r) for case in suite.cases for r in range(repeats)]

    def run_one(unit: tuple[Case, int]) -> UnitResult:
        case, repeat = unit
        answer = adapter.invoke(build_request(suite.suite_id, case), case)
        row, tool_match = score_unit(case, answer)
        row["repeat"] = repeat
        return UnitResult(case=case, repeat=repeat, answer=answer, row=row,
                          tool_match=tool_match)

    def on_error(unit: tuple[Case, int], exc: BaseException) -> UnitResult:
        case, repeat = unit
        answer = AdapterAnswer(None, fc.ADAPTER_INTERNAL_ERROR, 0.0,
                               detail=f"harness error: {type(exc).__name__}: {exc}"[:500])
        row = score(case, answer)
        row["repeat"] = repeat
        return UnitResult(case=case, repeat=repeat, answer=answer, row=row)

    done_cb = None if on_unit is None else (lambda _i, result: on_unit(result))
    started_at = utc_timestamp()
    results = run_units(units, run_one, on_error=on_error, concurrency=concurrency,
                        on_done=done_cb, cancel=adapter.cancel)
    return EvaluationRun(
        suite=suite,
        adapter=adapter.describe(),
        repeats=repeats,
        concurrency=concurrency,
        timeout_s=timeout_s,
        started_at=started_at,
        finished_at=utc_timestamp(),
        units=tuple(results),
        harness_version=package_version("aau-adapters"),
        python=python_version(),
        platform=platform_string(),
    )
