"""Running a suite through an adapter: (scenario x repeat) units on the aau-core execution layer.

A unit of a case that names an environment runs through ``_environment_unit`` (the environment
served over MCP, scored from what aau observed); every other unit is one request and one answer
scored by ``_scoring``.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

from aau_core import (
    Checkpoint,
    InputError,
    Interrupted,
    ToolCallMatch,
    package_version,
    python_version,
    run_units,
    utc_timestamp,
)
from aau_core._run._provenance import platform_string  # internal to the monorepo

from . import _failure_codes as fc
from ._adapter import Adapter, AdapterAnswer
from ._protocol import build_request
from ._receipt import EvaluationRun, private_row
from ._scoring import UnitResult, score, score_unit
from ._suite import Case, Suite


def _run_unit(suite_id: str, case: Case, repeat: int, adapter: Adapter,
              user_backend: Callable[[], Any] | None = None) -> UnitResult:
    """Run and score one unit: through its environment when the case names one (with its
    simulated user's backend ``user_backend``, ``_environment_unit``)."""
    if case.environment is not None:
        from ._environment_unit import run_environment_unit  # (the MCP server: only if needed)

        return run_environment_unit(suite_id, case, repeat, adapter, user_backend=user_backend)
    answer = adapter.invoke(build_request(suite_id, case), case)
    row, tool_match = score_unit(case, answer)
    row["repeat"] = repeat
    return UnitResult(case=case, repeat=repeat, answer=answer, row=row, tool_match=tool_match)


def _environments(suite: Suite) -> tuple[tuple[str, str], ...]:
    """``_environment_unit.suite_environments``, loaded only for a suite that has them."""
    from ._environment_unit import suite_environments

    return suite_environments(suite.cases)


def _late_requests() -> int:
    # lazy: only suites with environment cases start the server
    from ._mcp._server import tool_server

    return int(tool_server().late_requests())


def evaluate(
    suite: Suite,
    adapter: Adapter,
    *,
    repeats: int = 1,
    concurrency: int = 1,
    timeout_s: float = 30.0,
    on_unit: Callable[[UnitResult], None] | None = None,
    checkpoint: Checkpoint | None = None,
    private: bool = False,
    executor: Callable[..., list[Any]] | None = None,
    adapter_factory: Callable[[], Adapter] | None = None,
    user_backend: Callable[[], Any] | None = None,
) -> EvaluationRun:
    """Send every case of ``suite`` to ``adapter`` ``repeats`` times and score the answers.

    Units run ``concurrency`` at a time; results are in suite order, then repeat order,
    whatever the concurrency. A unit whose adapter call raises (a harness bug) is recorded
    as ``adapter-internal-error`` and the run goes on. A unit of a case that names an
    environment is served over MCP and scored from the calls aau observed
    (``_environment_unit``); an environment that raises makes only that unit
    ``environment-unavailable``.

    Args:
        suite: a loaded suite.
        adapter: the agent connection.
        repeats: runs per scenario (>= 1).
        concurrency: units in flight at once (>= 1).
        timeout_s: per-unit timeout in seconds, recorded in the run (the adapter enforces it).
        on_unit: called in the calling thread as each unit finishes (progress); not called for
            units taken from a resumed checkpoint.
        checkpoint: an open checkpoint (``aau_core.open_checkpoint``, producer
            ``"aau evaluate"``): its finished units are not run again, and every new unit is
            appended to it (``unit_to_checkpoint``) as it finishes; the run's start time is the
            checkpoint's ``created_at``.
        private: record each unit's private receipt row in the checkpoint too (needed to
            write a private receipt from a resumed run).
        executor: a callable with ``aau_core.run_units``' signature (default ``run_units``).
        adapter_factory: with a distributed ``executor`` (``aau_core.ray_executor``), the
            picklable function that builds the adapter: each worker process builds its own
            (``adapter`` stays local and only its ``describe``/``cancel`` are used).
        user_backend: ``() -> (backend, model_or_None)`` for cases with a model user
            (``_simulated_user.make_user``); local units only.

    Returns:
        the ``EvaluationRun``.

    Raises:
        ValueError: ``repeats`` or ``concurrency`` below 1.
        aau_core.Interrupted: Ctrl-C or SIGTERM; ``.finished`` maps unit index to ``UnitResult``.
    """
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    units: list[tuple[Case, int]] = [(case, r) for case in suite.cases for r in range(repeats)]

    def run_one(unit: tuple[Case, int]) -> UnitResult:
        case, repeat = unit
        return _run_unit(suite.suite_id, case, repeat, adapter, user_backend)

    def on_error(unit: tuple[Case, int], exc: BaseException) -> UnitResult:
        case, repeat = unit
        answer = AdapterAnswer(None, fc.ADAPTER_INTERNAL_ERROR, 0.0,
                               detail=f"harness error: {type(exc).__name__}: {exc}"[:500])
        record = None
        if case.environment is not None:
            from ._observed_scoring import EnvironmentRecord, score_observed

            record = EnvironmentRecord(name=case.environment.name)
            row = score_observed(case, answer, (), (), None)[0]
        else:
            row = score(case, answer)
        row["repeat"] = repeat
        return UnitResult(case=case, repeat=repeat, answer=answer, row=row, environment=record)

    started_at = utc_timestamp()
    recorded: dict[int, UnitResult] = {}
    if checkpoint is not None:
        started_at = checkpoint.created_at
        for index, doc in checkpoint.finished.items():
            case, repeat = units[index]
            _check_recorded_unit(doc, case, repeat, index, checkpoint.source_of(index))
            recorded[index] = unit_from_checkpoint(case, repeat, doc)
    todo = [i for i in range(len(units)) if i not in recorded]
    kind = adapter.describe().get("kind", "")

    def done_cb(k: int, result: UnitResult) -> None:
        if checkpoint is not None:
            checkpoint.append(todo[k], unit_to_checkpoint(result, str(kind), private=private))
        if on_unit is not None:
            on_unit(result)

    has_environment = any(case.environment is not None for case in suite.cases)
    late_before = _late_requests() if has_environment and todo else 0
    execute = executor or run_units
    unit_fn: Callable[[tuple[Case, int]], UnitResult] = run_one
    if adapter_factory is not None:
        unit_fn = RemoteUnit(suite.suite_id, adapter_factory)
    try:
        fresh = execute([units[i] for i in todo], unit_fn, on_error=on_error,
                        concurrency=concurrency, on_done=done_cb, cancel=adapter.cancel)
    except Interrupted as exc:
        finished = {todo[k]: r for k, r in (exc.finished or {}).items()}
        raise Interrupted(str(exc), finished={**recorded, **finished}) from None
    recorded.update(zip(todo, fresh, strict=True))
    results = [recorded[i] for i in range(len(units))]
    late = None
    if has_environment:
        # this process's server only: with Ray, the workers' servers count their own
        late = _late_requests() - late_before if todo else 0
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
        environments=_environments(suite) if has_environment else (),
        mcp_late_requests=late,
    )


_WORKER_ADAPTERS: dict[str, Adapter] = {}
_WORKER_LOCK = threading.Lock()


class RemoteUnit:
    """A picklable unit function for distributed executors: builds the adapter once per worker
    process from ``factory`` (keyed by a random token), then invokes and scores one unit.

    Args:
        suite_id: the suite's id (sent in every request).
        factory: a picklable function returning the adapter.
    """

    def __init__(self, suite_id: str, factory: Callable[[], Adapter]) -> None:
        self.suite_id = suite_id
        self.factory = factory
        self.token = uuid.uuid4().hex

    def __call__(self, unit: tuple[Case, int]) -> UnitResult:
        """Run one ``(case, repeat)`` unit on this worker's adapter."""
        case, repeat = unit
        with _WORKER_LOCK:
            adapter = _WORKER_ADAPTERS.get(self.token)
            if adapter is None:
                adapter = _WORKER_ADAPTERS[self.token] = self.factory()
        return _run_unit(self.suite_id, case, repeat, adapter)  # the worker's own tool_server


def unit_to_checkpoint(unit: UnitResult, adapter_kind: str, *, private: bool) -> dict[str, Any]:
    """A finished unit as a checkpoint unit result (schema ``checkpoint``, ``evaluate_unit``):
    ``{"row", "adapter_error"[, "private"]}``: the row as a receipt 2.0 holds it (2.1's
    ``measured`` follows from ``adapter_error``); ``private`` adds the private receipt 2.1 row
    (inputs, response, stderr tail, error detail, attempts, retry wait), so keep it only when
    the run writes one."""
    doc: dict[str, Any] = {"row": unit.row, "adapter_error": unit.answer.error}
    if private:
        doc["private"] = private_row(unit, adapter_kind, legacy=False)
    return doc


def _check_recorded_unit(doc: dict[str, Any], case: Case, repeat: int, index: int,
                         source: str) -> None:
    """Refuse a checkpoint unit line whose rows name another unit than its index does (an
    edited or corrupted line): the receipt would hold a row twice and lose another.

    Raises:
        InputError: ``PATH:LINE: $.result.row.scenario_id: unit 0 is (c0, repeat 0), but its
            row names (c7, repeat 0); start over with --force``.
    """
    for part in ("row", "private"):
        row = doc.get(part)
        if not isinstance(row, dict):
            continue
        got = (row.get("scenario_id"), row.get("repeat", 0))
        if got != (case.scenario_id, repeat):
            field = "scenario_id" if got[0] != case.scenario_id else "repeat"
            raise InputError(
                f"unit {index} is ({case.scenario_id}, repeat {repeat}), but its "
                f"{'row' if part == 'row' else 'private row'} names "
                f"({got[0]}, repeat {got[1]}); start over with --force", source=source,
                path=f"$.result.{part}.{field}")


def unit_from_checkpoint(case: Case, repeat: int, doc: dict[str, Any]) -> UnitResult:
    """Rebuild a ``UnitResult`` from its checkpoint unit result (``unit_to_checkpoint``).

    For an environment case, the ``EnvironmentRecord`` (trajectory, rejected requests, final
    state, verdict) comes from the private row when one was recorded, else it is empty (only a
    private receipt needs it; the public row keeps the environment fields as recorded).
    The answer's response, stderr tail, detail, attempts and retry wait come from the private
    row when one was recorded (a 2.0 row, from an older checkpoint, has no attempts: 1 and 0.0),
    else they are ``None``, 1 and 0.0; the tool-call verdict keeps only ``matched`` and the
    mismatch reasons (what receipts hold). The public row is taken as recorded.
    """
    row = doc["row"]
    priv = doc.get("private")
    error = doc["adapter_error"]
    response = priv["response"] if priv is not None and error is None else None
    answer = AdapterAnswer(response, error, float(row["latency_s"]),
                           stderr_tail=priv["stderr_tail"] if priv else None,
                           detail=priv["error_detail"] if priv else None,
                           attempts=int(priv.get("attempts", 1)) if priv else 1,
                           retry_wait_s=float(priv.get("retry_wait_s", 0.0)) if priv else 0.0)
    tool_match = None
    if "tool_calls_match" in row and error is None:
        reasons = tuple(priv.get("tool_call_mismatches", ())) if priv else ()
        tool_match = ToolCallMatch(matched=bool(row["tool_calls_match"]), mode="", expected_count=0,
                                   actual_count=0, pairs=(), reasons=reasons)
    record = None
    if case.environment is not None:
        from ._observed_scoring import EnvironmentRecord

        record = (EnvironmentRecord.from_private(case.environment.name, priv)
                  if priv is not None and "trajectory" in priv
                  else EnvironmentRecord(name=case.environment.name))
    return UnitResult(case=case, repeat=repeat, answer=answer, row=row, tool_match=tool_match,
                      environment=record)
