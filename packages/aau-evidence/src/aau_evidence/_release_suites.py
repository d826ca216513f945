"""Running the impacted suites of an evidence plan through an ``aau evaluate`` adapter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from aau_core import InputError, check_relative_path
from aau_schemas import sha256_hex

from ._release_models import EvidencePlan


def run_impacted_suites(plan: EvidencePlan, plan_path: str | Path, impacted_tags: set[str],
                        adapter: Any, *, timeout_s: float = 30.0,
                        on_suite: Callable[[str], None] | None = None,
                        progress: Callable[[str, int], Any] | None = None,
                        ) -> dict[str, dict[str, Any]]:
    """Evaluate every impacted suite with ``adapter`` and return its receipt.

    Only the suites whose ``impact_tags`` meet ``impacted_tags`` run: a suite covering no
    changed boundary is skipped (aau-harness 1.6's rule). Each suite file is named relative to the plan's folder (``check_relative_path``: no
    symlink, no ``..``) and loaded with ``aau_adapters.load_suite``; its ``suite_id`` must equal
    the plan's. A v1 suite gives an ``aau-byo-agent-receipt/1.0`` (1.6's release-pack format), a
    v2 suite a ``/2.1`` receipt. Each receipt gains ``release_gate``: the plan's impact tags and
    clean twin count and ``suite_source_sha256`` (SHA-256 of the suite file's bytes). A suite on
    which nothing was measured (every case failed in the adapter or transport, or most at the
    provider: ``aau_adapters.check_measured``) stops the assessment: no release is decided on
    zeros that measure the wiring, not the agent.

    Args:
        plan: a checked evidence plan model.
        plan_path: the plan file (suite paths are relative to its folder).
        impacted_tags: the diff's impacted tags.
        adapter: an ``aau_adapters`` adapter (command, endpoint, mock, python).
        timeout_s: per-case timeout in seconds, recorded in v2 receipts.
        on_suite: called with each suite id before it runs (progress).
        progress: called with each suite id and its number of cases before it runs; returns a
            context manager (``aau_core.DelayedProgress(n, label)``) entered around the run,
            whose ``advance(failed)`` is called per finished case (``failed``: not exact).

    Returns:
        suite_id -> receipt, for the impacted suites only.

    Raises:
        aau_core.InputError: an unsafe or missing suite path, an invalid suite, or a suite whose
            ``suite_id`` differs from the plan's.
        aau_adapters.EvaluationNotMeasured: (exit 3) a suite's run measured nothing.
    """
    from aau_adapters import (
        SUITE_V1,
        build_receipt_v1,
        build_receipt_v2,
        check_measured,
        evaluate,
        load_suite,
    )

    plan_path = Path(plan_path)
    receipts: dict[str, dict[str, Any]] = {}
    for index, item in enumerate(plan.suites):
        if not impacted_tags & set(item.impact_tags):
            continue
        where = f"$.suites[{index}].path"
        suite_path = check_relative_path(item.path, plan_path.parent, source=str(plan_path),
                                         json_path=where)
        suite = load_suite(suite_path)
        if suite.suite_id != item.suite_id:
            raise InputError(f"{item.path!r} holds suite {suite.suite_id!r}, but the plan "
                             f"names {item.suite_id!r}", source=str(plan_path),
                             path=f"$.suites[{index}].suite_id")
        if on_suite is not None:
            on_suite(item.suite_id)
        if progress is None:
            run = evaluate(suite, adapter, timeout_s=timeout_s)
        else:
            with progress(item.suite_id, len(suite.cases)) as bar:
                run = evaluate(suite, adapter, timeout_s=timeout_s,
                               on_unit=lambda unit, bar=bar: bar.advance(not unit.row["exact"]))
        check_measured(run)
        receipt = build_receipt_v1(run) if suite.version == SUITE_V1 else build_receipt_v2(run)
        receipt["release_gate"] = {
            "impact_tags": list(item.impact_tags),
            "clean_twin_count": item.clean_twin_count,
            "suite_source_sha256": sha256_hex(suite_path.read_bytes()),
        }
        receipts[item.suite_id] = receipt
    return receipts
