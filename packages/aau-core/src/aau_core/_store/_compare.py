"""``aau runs compare A B``: per-metric differences between two stored runs, with a paired
bootstrap interval over their shared scenarios, and the scenarios whose verdict flipped.

Per-scenario values are those ``aau report`` computes: a receipt's row fields (``exact``,
``outcome_exact``, ...) as the fraction of repeats where they held and ``mean_latency_s``; an
aggregate's metric means over the scenario's runs. Repeats are thus averaged per scenario first,
and the scenario is the unit that is resampled.

For a metric both runs carry on ``n`` shared scenarios, with per-scenario values ``a_i`` and
``b_i``, the paired differences are ``d_i = b_i - a_i`` and the point estimate is their mean
``mean(d)`` (B minus A). The interval is the percentile bootstrap of that mean (Efron &
Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 13): draw ``RESAMPLES`` samples of
``n`` scenario indices with replacement (numpy ``default_rng(SEED)``, the same index draws for
every metric of the comparison), take each sample's mean of ``d``, and report the 2.5th and
97.5th percentiles (numpy's default linear interpolation). Pairing — resampling scenarios and
keeping both runs' values of a scenario together — removes the between-scenario variance that
two independent intervals would double count. With ``n == 1`` the interval is the single
difference; scenarios present in only one run are listed, not used.

A shared scenario with a repeat not measured in A or in B (its adapter or transport failed: a
receipt 2.1 row with ``measured`` false, an aggregate run with an error) has no like-for-like
value of that run to pair: its run counts that repeat as a failure, so pairing it would read an
outage as a regression (or a recovery as an improvement). It is listed in ``not_measured``
(run-compare 1.1) and left out of the metrics and the flips; ``--resume`` measures such
repeats, and the resumed run compares in full.

A receipt 2.1 row's ``measured`` flag is no metric of the agent, and over scenarios measured in
full it is 1 in both runs: it is not compared.

Two runs that share no scenario id, or none measured in both, have nothing to compare:
``compare_stored`` refuses them (``NotMeasuredError``, exit 3) rather than print a table of
nothing. Two runs are of the same
suite when both carry a suite digest and the digests agree, or, when either has none, when their
suite ids agree (``same_suite``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from .._files._converter import optional_field

RESAMPLES = 2000
SEED = 0
LEVEL = 0.95


@attrs.frozen
class MetricDelta:
    """One metric's paired difference, B minus A, over ``n`` shared scenarios.

    Attributes:
        name: the per-scenario metric name.
        n: shared scenarios carrying it in both runs.
        mean_a, mean_b: the runs' means over those scenarios.
        diff: ``mean_b - mean_a`` (= mean of the paired differences).
        low, high: the 95 % paired percentile-bootstrap interval of ``diff``.
    """

    name: str
    n: int
    mean_a: float
    mean_b: float
    diff: float
    low: float
    high: float


@attrs.frozen
class BootstrapSettings:
    """How a comparison's intervals were drawn (``RunComparison.bootstrap``).

    Attributes:
        method: ``"paired-percentile"``.
        resamples: bootstrap resamples (``RESAMPLES``).
        seed: the numpy ``default_rng`` seed (``SEED``).
        level: the interval's level (``LEVEL``, 0.95).
        unit: what is resampled.
    """

    method: str = "paired-percentile"
    resamples: int = RESAMPLES
    seed: int = SEED
    level: float = LEVEL
    unit: str = "scenario (repeats averaged first)"


@attrs.frozen
class RunComparison:
    """``aau runs compare``'s result; unstructured by the document converter it is the
    ``--json`` output (schema ``run-compare``), with the bootstrap settings under
    ``bootstrap``. ``shared`` counts every scenario both runs have; ``not_measured`` lists
    those of them left out of ``metrics`` and the flips (module docstring; ``None``, not
    written, only in a run-compare 1.0 document: ``compare_runs`` always sets it)."""

    run_a: int
    run_b: int
    shared: int
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    same_suite: bool
    metrics: tuple[MetricDelta, ...]
    pass_to_fail: tuple[str, ...]
    fail_to_pass: tuple[str, ...]
    bootstrap: BootstrapSettings = attrs.field(factory=BootstrapSettings)
    not_measured: tuple[str, ...] | None = optional_field()

    def as_dict(self) -> dict[str, Any]:
        """The ``--json`` output (schema ``run-compare``): the document converter's
        unstructured form (kept: public method of an exported class)."""
        from .._files._converter import unstructure_document

        return unstructure_document(self)  # type: ignore[no-any-return]


def paired_bootstrap(diffs: Sequence[float], indices: Any) -> tuple[float, float]:
    """Percentile interval of the mean of ``diffs`` over resampled ``indices``.

    Args:
        diffs: the paired differences ``d_i``, length ``n``.
        indices: an integer array of shape ``(RESAMPLES, n)`` with values in ``[0, n)``.

    Returns:
        ``(low, high)``: the 2.5th and 97.5th percentiles of the resampled means.
    """
    import numpy as np

    d = np.asarray(diffs, dtype=float)
    if d.size == 1:
        return float(d[0]), float(d[0])
    means = d[indices].mean(axis=1)
    tail = (1.0 - LEVEL) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def same_suite(a: Any, b: Any) -> bool:
    """Whether two stored runs (``RunSummary`` values) ran the same suite.

    Args:
        a, b: the runs' summaries (``suite``, ``suite_digest``).

    Returns:
        with both digests known, whether they are equal (an edited suite with the same id is
        another suite); otherwise whether both suite ids are known and equal.
    """
    if a.suite_digest and b.suite_digest:
        return bool(a.suite_digest == b.suite_digest)
    return a.suite is not None and a.suite == b.suite


def compare_stored(run_store: Any, run_a: str, run_b: str) -> tuple[Any, Any, RunComparison]:
    """Compare two runs of an open run store, B against A.

    Args:
        run_store: an open ``RunStore``.
        run_a, run_b: the runs' ids as given on the command line.

    Returns:
        ``(summary_a, summary_b, comparison)``.

    Raises:
        InputError: a run id that is not in the store (from ``RunStore.get``).
        NotMeasuredError: the runs share no scenario id, or none measured in both, so no
            number compares them.
    """
    from .._errors import NotMeasuredError

    a, _ = run_store.get(run_a)
    b, _ = run_store.get(run_b)
    result = compare_runs(a.id, run_store.scenarios(a.id), b.id, run_store.scenarios(b.id),
                          same_suite=same_suite(a, b))
    if result.shared == 0:
        def named(summary: Any) -> str:
            return f"suite {summary.suite!r}" if summary.suite else "a run of no named suite"

        suites = (f"{named(a)} and {named(b)}" if not result.same_suite else named(a))
        raise NotMeasuredError(
            f"runs {a.id} and {b.id} share no scenario id ({suites}; {len(result.only_a)} and "
            f"{len(result.only_b)} scenario(s)): nothing to compare")
    if len(result.not_measured or ()) == result.shared:
        raise NotMeasuredError(
            f"runs {a.id} and {b.id} share {result.shared} scenario(s), but none was measured in "
            "full in both (a repeat failed in the adapter or transport in one run; --resume "
            "measures it): nothing to compare", not_measured=result.shared,
            units=result.shared)
    return a, b, result


def compare_runs(run_a: int, scenarios_a: Sequence[Any], run_b: int,
                 scenarios_b: Sequence[Any], *, same_suite: bool) -> RunComparison:
    """Compare two runs' per-scenario rows (``StoredScenario`` values).

    Args:
        run_a, run_b: the run ids (recorded in the result).
        scenarios_a, scenarios_b: each run's scenarios (``scenario_id``, ``passed``,
            ``metrics`` {name: per-scenario mean}, ``measured``).
        same_suite: whether the runs' suite digests agree (recorded; a comparison across
            different suites is allowed but flagged).

    Returns:
        the ``RunComparison``: metrics in name order; flipped and not-measured scenarios in
        A's order.
    """
    import numpy as np

    by_b = {s.scenario_id: s for s in scenarios_b}
    ids_a = [s.scenario_id for s in scenarios_a]
    in_both = [s for s in scenarios_a if s.scenario_id in by_b]
    unmeasured = tuple(s.scenario_id for s in in_both
                       if not (s.fully_measured and by_b[s.scenario_id].fully_measured))
    left_out = set(unmeasured)
    shared = [s for s in in_both if s.scenario_id not in left_out]
    names = sorted(({m for s in shared for m in s.metrics}
                    & {m for s in shared for m in by_b[s.scenario_id].metrics}) - {"measured"})
    rng = np.random.default_rng(SEED)
    draws: dict[int, Any] = {}
    deltas = []
    for name in names:
        pairs = [(s.metrics[name], by_b[s.scenario_id].metrics[name]) for s in shared
                 if name in s.metrics and name in by_b[s.scenario_id].metrics]
        n = len(pairs)
        if n not in draws:
            draws[n] = rng.integers(0, n, size=(RESAMPLES, n))
        a = np.array([p[0] for p in pairs])
        b = np.array([p[1] for p in pairs])
        low, high = paired_bootstrap(b - a, draws[n])
        deltas.append(MetricDelta(name, n, float(a.mean()), float(b.mean()),
                                  float((b - a).mean()), low, high))
    return RunComparison(
        run_a=run_a, run_b=run_b, shared=len(in_both), not_measured=unmeasured,
        only_a=tuple(i for i in ids_a if i not in by_b),
        only_b=tuple(s.scenario_id for s in scenarios_b if s.scenario_id not in set(ids_a)),
        same_suite=same_suite, metrics=tuple(deltas),
        pass_to_fail=tuple(s.scenario_id for s in shared
                           if s.passed and not by_b[s.scenario_id].passed),
        fail_to_pass=tuple(s.scenario_id for s in shared
                           if not s.passed and by_b[s.scenario_id].passed))
