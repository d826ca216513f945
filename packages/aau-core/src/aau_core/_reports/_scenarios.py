"""Per-scenario verdicts from receipts and eval aggregates: what ``aau report`` renders.

``load_report_document`` reads one file, works out its kind, validates it against its schema and
turns it into a ``DocumentReport``: the document's headline numbers and one ``ScenarioRecord`` per
scenario, its repeats folded together. Kinds, told apart by their version field or shape:

- ``receipt-v1`` / ``receipt-v2``: ``receipt_version`` is ``aau-byo-agent-receipt/1.0`` /
  ``2.0`` or ``2.1``; a run (one row of ``results``) passes when its ``exact`` is true. In a 2.1
  receipt a row with ``measured`` false (its adapter or the transport failed) is an *errored*
  run, its error the adapter failure code: it measured nothing, so it is neither a pass nor the
  agent's failure.
- ``eval-aggregate-v2``: ``aggregate_version`` is ``aau-eval-aggregate/2.0`` or ``/2.1``;
  ``eval-aggregate-v1`` (aau-harness 1.x): no version field, but ``metric_means`` and ``results``.
  A run passes when it has no ``detail.error`` and every judged metric it carries reaches its bar.
  Each interval is reported with its method: a 2.1 file's ``metric_ci_method`` (``wilson`` for a
  0/1 metric), a 2.0 file's ``ci.method``, ``aau-compat`` for a 1.x file.
- ``lab-result``: ``lab_result_version`` is ``aau-lab-result/1.0`` or ``/1.1`` (``aau lab run``'s
  ``eval_<tag>.json``): validated as a lab result, then its ``aggregate`` (an eval-aggregate-v2)
  is reported.

Receipts must also be consistent with their own rows (``check_receipt_consistency``: rows per
scenario, duplicate rows, ``scenario_count``, metrics, pass^k, failure-code counts); the first
problem is an input error. ``--pass-metric`` bars (each in [0, 1]) judge aggregate runs only; they
are refused for a receipt, whose rows pass when ``exact``.

A scenario passes only when every one of its runs (repeats) passed. For aggregates the judged
metrics are the ``--pass-metric NAME=MIN`` bars given, or by default every *binary* metric (0 or 1 in
every run that has it; the metrics aau's pass^k is computed on), each with bar 1. Continuous metrics
are reported but not judged unless named; a run lacking a named metric fails. A run with a non-empty ``detail.error`` errored: it could
not be scored (aau's run_eval counts it as a failure of every 0/1 metric in a 2.1 file's means, and
leaves it out of a 2.0 or 1.x file's), so its scenario is an error rather than a failure.
Receipts 1.0 and 2.0 carry no such distinction: an adapter failure code is a failed run, as it
counts against ``exact_rate``; 2.1 rows say it (``measured``).

Any boolean field of a receipt row (``exact``, ``outcome_exact``, ... and fields added later, such
as ``tool_calls_match``) is reported per scenario as the fraction of its repeats where it held.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from .._errors import InputError, UsageError

MAX_DOCUMENT_BYTES = 200_000_000
RECEIPT_KINDS = {"aau-byo-agent-receipt/1.0": "receipt-v1", "aau-byo-agent-receipt/2.0": "receipt-v2",
                 "aau-byo-agent-receipt/2.1": "receipt-v2"}
AGGREGATE_V2 = ("aau-eval-aggregate/2.0", "aau-eval-aggregate/2.1")
LAB_RESULT = ("aau-lab-result/1.0", "aau-lab-result/1.1")
KINDS = ("receipt-v1", "receipt-v2", "eval-aggregate-v1", "eval-aggregate-v2", "lab-result")
#: what each known document kind is, for messages naming a document given to the wrong command
@attrs.frozen
class ScenarioRecord:
    """One scenario of one document, its repeats folded together.

    Attributes:
        scenario_id: the scenario id.
        runs: how many result rows (repeats) it has, >= 1.
        passed_runs: how many of them passed (see the module docstring).
        errored_runs: how many errored (aggregates: a run with an error; receipts 2.1: a row
            with ``measured`` false; receipts 1.0 and 2.0: always 0).
        failure_codes: ``(code, count)`` over its runs, in first-seen order (receipts; aggregates:
            ``"<metric> < <bar>"`` per judged metric a run missed, ``"<metric> missing"``).
        errors: the distinct ``detail.error`` texts of its errored runs.
        run_notes: one line per run that did not pass: ``"repeat 2: outcome-mismatch"``.
        metrics: ``(name, value)``: receipts, each boolean row field as the fraction of runs
            where it held, then ``mean_latency_s`` over the repeats that measured the agent
            (none when no repeat did); aggregates, each metric's mean over the runs
            that carry it (errored runs included, as stored).
        time_s: the sum of the runs' ``latency_s`` (seconds).
    """

    scenario_id: str
    runs: int
    passed_runs: int
    errored_runs: int
    failure_codes: tuple[tuple[str, int], ...]
    errors: tuple[str, ...]
    run_notes: tuple[str, ...]
    metrics: tuple[tuple[str, float], ...]
    time_s: float

    @property
    def passed(self) -> bool:
        """True when every run passed."""
        return self.passed_runs == self.runs


@attrs.frozen
class Interval:
    """A stored 95% interval: ``low``/``high`` ends and how it was made (``method``, may be "")."""

    low: float
    high: float
    method: str


MOCK_ADAPTER_CAVEAT = ("mock adapter: a protocol self-test that measures no agent; its passes "
                       "say nothing about any agent")
"""The caveat of a receipt whose ``adapter_kind`` is ``mock``."""
MOCK_BACKEND_CAVEAT = ("mock backend: scripted replies that measure no model; its passes say "
                       "nothing about any agent")
"""The caveat of an aggregate or lab result whose ``backend`` is ``mock``."""


@attrs.frozen
class DocumentReport:
    """One input document, ready to render.

    Attributes:
        source: the file name as given.
        kind: one of ``KINDS``.
        suite: the JUnit classname: a receipt's ``suite_id``; an aggregate's ``backend/model``;
            a lab result's ``lab/backend/model``.
        repeats: repeats requested (receipt ``repeats``, 1 for v1; aggregate ``n_repeats``).
        timestamp: when the run started or the file was made (receipt v2 ``started_at``,
            aggregate ``provenance.generated_at``), or ``None``.
        rule: the pass rule applied, in words (shown in every report).
        metrics: ``(name, value)`` headline numbers (receipt ``metrics``, aggregate ``metric_means``).
        intervals: ``name -> Interval`` for the metrics that have one.
        pass_hat_k: ``(label, {k: value})``: receipts one entry labelled ``exact``; aggregates one
            per binary metric; empty when the file has none.
        scenarios: one record per scenario, in the file's order of first appearance.
        caveat: what every report of the document must say first, or ``None``: a receipt of
            the mock adapter (``MOCK_ADAPTER_CAVEAT``) or an aggregate or lab result of the
            mock backend (``MOCK_BACKEND_CAVEAT``) measures no agent, whatever it passed.
    """

    source: str
    kind: str
    suite: str
    repeats: int
    timestamp: str | None
    rule: str
    metrics: tuple[tuple[str, float], ...]
    intervals: Mapping[str, Interval]
    pass_hat_k: tuple[tuple[str, Mapping[str, float]], ...]
    scenarios: tuple[ScenarioRecord, ...]
    caveat: str | None = None

    @property
    def passed(self) -> bool:
        """True when every scenario passed."""
        return all(s.passed for s in self.scenarios)

    @property
    def passed_count(self) -> int:
        """How many scenarios passed."""
        return sum(s.passed for s in self.scenarios)


def detect_document_kind(doc: Any, source: str) -> str:
    """Return the kind of a parsed document (see the module docstring).

    Raises:
        InputError: not a JSON object, a private receipt, an unknown version, or no recognisable shape.
    """
    if not isinstance(doc, dict):
        raise InputError("not a receipt or eval aggregate: expected a JSON object", source=source,
                         path="$")
    if "private_receipt_version" in doc:
        raise InputError("a private receipt; aau report reads the public receipt (--out of aau "
                         "evaluate)", source=source, path="$.private_receipt_version")
    if "receipt_version" in doc:
        kind = RECEIPT_KINDS.get(doc["receipt_version"]) if isinstance(doc["receipt_version"],
                                                                       str) else None
        if kind is None:
            raise InputError(f"unsupported receipt_version {doc['receipt_version']!r}; one of "
                             f"{', '.join(sorted(RECEIPT_KINDS))}", source=source,
                             path="$.receipt_version")
        return kind
    if "aggregate_version" in doc:
        if doc["aggregate_version"] not in AGGREGATE_V2:
            raise InputError(f"unsupported aggregate_version {doc['aggregate_version']!r}; "
                             f"one of {', '.join(AGGREGATE_V2)}", source=source,
                             path="$.aggregate_version")
        return "eval-aggregate-v2"
    if "lab_result_version" in doc:
        if doc["lab_result_version"] not in LAB_RESULT:
            raise InputError(f"unsupported lab_result_version {doc['lab_result_version']!r}; "
                             f"one of {', '.join(LAB_RESULT)}", source=source,
                             path="$.lab_result_version")
        return "lab-result"
    if "metric_means" in doc and "results" in doc:
        return "eval-aggregate-v1"
    from .._files._document_check import describe_kind

    other = describe_kind(doc)
    raise InputError(f"not a receipt, eval aggregate or lab result: {other}" if other else
                     "not a receipt, eval aggregate or lab result: no receipt_version, "
                     "aggregate_version or lab_result_version, and not an aau-harness 1.x "
                     "aggregate (metric_means and results)", source=source, path="$")


def load_report_document(source: str, pass_metrics: Mapping[str, float] | None = None
                         ) -> DocumentReport:
    """Read, detect, validate and summarise one receipt or eval aggregate file.

    Args:
        source: the file path.
        pass_metrics: ``{metric: min}`` bars judging aggregate runs (``--pass-metric``); ``None``
            or empty for the default (every binary metric must be 1). Refused for receipts.

    Returns:
        the ``DocumentReport``.

    Raises:
        InputError: unreadable, not JSON, not a supported document, invalid under its schema
            (``source: $.path: message [kind]``), a receipt inconsistent with its own rows, or
            a ``--pass-metric`` naming a metric that no run of this aggregate carries.
        UsageError: ``pass_metrics`` given for a receipt.
    """
    from .._files._strict_json import read_json_file

    doc = read_json_file(source, max_bytes=MAX_DOCUMENT_BYTES)
    return document_report(doc, source, pass_metrics)


def document_report(doc: Any, source: str, pass_metrics: Mapping[str, float] | None = None,
                    *, checked_kind: str | None = None) -> DocumentReport:
    """``load_report_document`` for a document already parsed (the run store's ``aau runs add``
    and its recording hook): detect, validate and summarise ``doc``, read from ``source``.

    ``checked_kind``: the kind this very process built ``doc`` as and validated it against
    (``aau evaluate``'s own receipt: ``aau_adapters.run_evaluation`` validates it, and its
    numbers come from the arithmetic ``check_receipt_consistency`` shares); when it is the
    detected kind, the schema and consistency checks are not run again (~30 MB at the peak and
    ~0.5 s for a 100,000-row receipt). Never pass it for a document read from a file.
    Raises as ``load_report_document``."""
    from .._files._document_check import check_document

    kind = detect_document_kind(doc, source)
    trusted = checked_kind is not None and checked_kind == kind
    if not trusted:
        check_document(kind, doc, source)
    if kind.startswith("receipt"):
        if pass_metrics:
            raise UsageError(f"--pass-metric judges eval aggregates and lab results only; "
                             f"{source} is a {kind}, whose rows pass when exact (drop "
                             "--pass-metric, or report the receipt separately)")
        if not trusted:
            check_consistent_receipt(doc, source, kind)
        return _receipt_report(source, kind, doc)
    if kind == "lab-result":
        return lab_result_report(source, doc, dict(pass_metrics or {}))
    return _aggregate_report(source, kind, doc, dict(pass_metrics or {}))


def lab_result_report(source: str, doc: Mapping[str, Any],
                      pass_metrics: dict[str, float]) -> DocumentReport:
    """The report of a validated lab result: its ``aggregate``'s, with kind ``lab-result`` and
    the suite named ``<lab>/<backend>/<model>`` (the lab first: two labs run on the same model
    must not look alike)."""
    report = _aggregate_report(source, "eval-aggregate-v2", doc["aggregate"], pass_metrics)
    return attrs.evolve(report, kind="lab-result", suite=f"{doc['lab']}/{report.suite}")


def check_consistent_receipt(doc: Mapping[str, Any], source: str, kind: str) -> None:
    """Raise the first ``check_receipt_consistency`` problem of a schema-valid receipt.

    Raises:
        InputError: ``source: $.path: message (and N more problems) [kind]``.
    """
    from ._receipt_consistency import check_receipt_consistency

    problems = check_receipt_consistency(dict(doc))
    if problems:
        path, _, message = problems[0].partition(": ")
        more = len(problems) - 1
        suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        raise InputError(f"{message}{suffix} [{kind}: inconsistent with its own rows]",
                         source=source, path=path)


def _group(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["scenario_id"], []).append(row)
    return groups


def _counted(codes: Iterable[str]) -> tuple[tuple[str, int], ...]:
    counts: dict[str, int] = {}
    for code in codes:
        counts[code] = counts.get(code, 0) + 1
    return tuple(counts.items())


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _receipt_report(source: str, kind: str, doc: Mapping[str, Any]) -> DocumentReport:
    scenarios = []
    shared: dict[Any, Any] = {}  # equal metric pairs and tuples held once (100,000 scenarios)
    for sid, rows in _group(doc["results"]).items():
        flags = sorted({k for r in rows for k, v in r.items() if isinstance(v, bool)})
        metrics = [(k, _mean([1.0 if r.get(k) is True else 0.0 for r in rows])) for k in flags]
        timed = [r for r in rows if r.get("measured") is not False]  # the agent's latencies
        if timed:
            metrics.append(("mean_latency_s", _mean([r["latency_s"] for r in timed])))
        metrics = [shared.setdefault(pair, pair) for pair in metrics]
        errored = [r for r in rows if r.get("measured") is False]
        failed = [r for r in rows if not r["exact"] and r.get("measured") is not False]
        notes = tuple(f"repeat {r.get('repeat', 0)}: error: {r['failure_codes'][0]} (not "
                      "measured)" if r.get("measured") is False else
                      f"repeat {r.get('repeat', 0)}: {', '.join(r['failure_codes']) or 'not exact'}"
                      for r in rows if not r["exact"])
        errors = tuple(dict.fromkeys(r["failure_codes"][0] for r in errored))
        scenarios.append(ScenarioRecord(
            scenario_id=sid, runs=len(rows), passed_runs=len(rows) - len(failed) - len(errored),
            errored_runs=len(errored),
            failure_codes=_counted(c for r in failed for c in r["failure_codes"]), errors=errors,
            run_notes=notes, metrics=shared.setdefault(tuple(metrics), tuple(metrics)),
            time_s=math.fsum(r["latency_s"] for r in rows)))
    intervals = {name: Interval(iv["low"], iv["high"], iv["method"])
                 for name, iv in doc.get("metric_ci95", {}).items()}
    phk = doc.get("pass_hat_k")
    return DocumentReport(
        source=source, kind=kind, suite=doc["suite_id"], repeats=doc.get("repeats", 1),
        timestamp=doc.get("started_at"),
        rule="a scenario passes when every repeat is exact (submitted, right outcome, no "
             "forbidden action)",
        metrics=tuple(sorted(doc["metrics"].items())), intervals=intervals,
        pass_hat_k=(("exact", dict(phk)),) if phk else (), scenarios=tuple(scenarios),
        caveat=MOCK_ADAPTER_CAVEAT if doc.get("adapter_kind") == "mock" else None)


def _binary_metrics(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    names = sorted({m for r in rows for m in r["metrics"]})
    return [m for m in names
            if all(r["metrics"][m] in (0, 1) for r in rows if m in r["metrics"])]


def _run_error(row: Mapping[str, Any]) -> str | None:
    detail = row.get("detail")
    error = detail.get("error") if isinstance(detail, dict) else None
    if error is None or error == "" or error is False:
        return None
    return error if isinstance(error, str) else repr(error)


def _aggregate_report(source: str, kind: str, doc: Mapping[str, Any],
                      bars: dict[str, float]) -> DocumentReport:
    rows = doc["results"]
    known = {m for r in rows for m in r["metrics"]}
    for name in bars:
        if name not in known:
            raise InputError(f"--pass-metric {name}: no run carries this metric; metrics: "
                             f"{', '.join(sorted(known)) or 'none'}", source=source, path="$.results")
    explicit = bool(bars)
    if not explicit:
        bars = {m: 1.0 for m in _binary_metrics(rows)}
    scenarios = []
    for sid, runs in _group(rows).items():
        codes: list[str] = []
        notes: list[str] = []
        errors: list[str] = []
        passed = errored = 0
        for r in runs:
            error = _run_error(r)
            if error is not None:
                errored += 1
                if error not in errors:
                    errors.append(error)
                notes.append(f"repeat {r['repeat']}: error: {error}")
                continue
            missed = [f"{m} missing" for m in bars if explicit and m not in r["metrics"]]
            missed += [f"{m} < {bars[m]:g}" for m in bars
                       if m in r["metrics"] and r["metrics"][m] < bars[m]]
            if missed:
                codes.extend(missed)
                notes.append(f"repeat {r['repeat']}: {', '.join(missed)}")
            else:
                passed += 1
        names = sorted({m for r in runs for m in r["metrics"]})
        metrics = tuple((m, _mean([r["metrics"][m] for r in runs if m in r["metrics"]]))
                        for m in names)
        scenarios.append(ScenarioRecord(
            scenario_id=sid, runs=len(runs), passed_runs=passed, errored_runs=errored,
            failure_codes=_counted(codes), errors=tuple(errors), run_notes=tuple(notes),
            metrics=metrics, time_s=math.fsum(r["latency_s"] for r in runs)))
    method = doc["ci"]["method"] if kind == "eval-aggregate-v2" else "aau-compat"
    methods = doc.get("metric_ci_method") or {}
    intervals = {name: Interval(ends[0], ends[1], methods.get(name, method))
                 for name, ends in doc["metric_ci95"].items()}
    if not bars:
        rule = ("no metric is binary and no --pass-metric was given: a scenario passes when "
                "none of its runs errored")
    else:
        judged = ", ".join(f"{m} >= {b:g}" for m, b in bars.items())
        source_of_bars = "--pass-metric" if explicit else "every binary metric"
        rule = (f"a scenario passes when every run has no detail.error and {judged} "
                f"({source_of_bars})")
    phk = doc.get("pass_hat_k") or {}
    provenance = doc.get("provenance") or {}
    return DocumentReport(
        source=source, kind=kind, suite=f"{doc.get('backend', '?')}/{doc.get('model', '?')}",
        repeats=doc["n_repeats"], timestamp=provenance.get("generated_at"), rule=rule,
        metrics=tuple(sorted(doc["metric_means"].items())), intervals=intervals,
        pass_hat_k=tuple((m, dict(v)) for m, v in sorted(phk.items())),
        scenarios=tuple(scenarios),
        caveat=MOCK_BACKEND_CAVEAT if doc.get("backend") == "mock" else None)
