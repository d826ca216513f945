"""``aau report``'s three outputs from ``DocumentReport`` values: JUnit XML, Markdown and JSON.

JUnit mapping (one ``<testsuite>`` per input document, one ``<testcase>`` per scenario):

- suite ``name`` is the file name as given, ``timestamp`` the run's start (receipt v2) or the
  aggregate's ``generated_at``; its ``<properties>`` hold ``kind``, ``suite``, ``repeats``, the pass
  ``rule``, ``metric.<name>`` values, ``ci95.<name>`` intervals and ``pass^k.<label>.<k>`` values.
- case ``classname`` is the receipt's ``suite_id`` (an aggregate's ``backend/model``), ``name``
  the scenario id, ``time`` the sum of its runs' latencies.
- repeats are folded: the case passes only when every repeat passed; otherwise it has a
  ``<failure>`` whose message says ``k/n repeats passed`` and the failure codes with counts, and
  whose text lists each failed repeat; errored aggregate runs add an ``<error>``.
- per-scenario metric values go to the case's ``<system-out>`` (junit-10.xsd allows no
  ``<properties>`` in a ``<testcase>``).
- a document that measures no agent (a mock adapter's receipt, a mock backend's aggregate or
  lab result: ``DocumentReport.caveat``) has the ``caveat`` property first and the caveat as
  the suite's ``<system-out>``; Markdown, HTML, JSON and ``aau report``'s own lines say it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._junit import JUnitCase, JUnitSuite, render_junit
from ._markdown_table import escape_cell, markdown_table
from ._scenarios import DocumentReport, ScenarioRecord


def fmt(value: float) -> str:
    """Format a metric value for humans: up to six significant digits (``0.666667``, ``1``)."""
    return f"{value:.6g}"


def stored_interval_text(doc: DocumentReport, name: str) -> str:
    """A stored metric's 95 % interval as every report shows it: ``[low, high] method``
    (``fmt`` each end); ``""`` when the metric has none."""
    iv = doc.intervals.get(name)
    if iv is None:
        return ""
    return f"[{fmt(iv.low)}, {fmt(iv.high)}]" + (f" {iv.method}" if iv.method else "")


def _codes_text(scenario: ScenarioRecord) -> str:
    return ", ".join(code if n == 1 else f"{code} ({n})" for code, n in scenario.failure_codes)


def _failure_message(s: ScenarioRecord) -> str:
    head = f"{s.passed_runs}/{s.runs} repeats passed"
    if s.errored_runs:
        head += f" ({s.errored_runs} errored)"
    codes = _codes_text(s)
    return f"{head}: {codes}" if codes else head


def _case(doc: DocumentReport, s: ScenarioRecord) -> JUnitCase:
    failed_judged = s.runs - s.errored_runs - s.passed_runs
    failure = _failure_message(s) if failed_judged else None
    error = None
    if s.errored_runs:
        error = f"{s.errored_runs}/{s.runs} repeats errored: " + "; ".join(s.errors)
    props = [("repeats_passed", f"{s.passed_runs}/{s.runs}")]
    props += [(name, fmt(value)) for name, value in s.metrics]
    return JUnitCase(
        name=s.scenario_id, classname=doc.suite, time_s=s.time_s, failure_message=failure,
        failure_text="".join(f"{note}\n" for note in s.run_notes) if failure else None,
        error_message=error, properties=tuple(props))


def _suite_properties(doc: DocumentReport) -> tuple[tuple[str, str], ...]:
    props = [("caveat", doc.caveat)] if doc.caveat else []
    props += [("kind", doc.kind), ("suite", doc.suite), ("repeats", str(doc.repeats)),
             ("rule", doc.rule)]
    props += [(f"metric.{name}", fmt(value)) for name, value in doc.metrics]
    props += [(f"ci95.{name}", stored_interval_text(doc, name)) for name, _ in doc.metrics
              if name in doc.intervals]
    props += [(f"pass^k.{label}.{k}", fmt(v)) for label, by_k in doc.pass_hat_k
              for k, v in sorted(by_k.items(), key=lambda kv: int(kv[0]))]
    return tuple(props)


def report_junit(docs: Sequence[DocumentReport]) -> str:
    """Render documents as JUnit XML (see the module docstring for the mapping).

    Returns:
        ``render_junit`` output: one ``<testsuite>`` per document, valid under junit-10.xsd.
    """
    return render_junit([
        JUnitSuite(name=doc.source, cases=tuple(_case(doc, s) for s in doc.scenarios),
                   timestamp=doc.timestamp, properties=_suite_properties(doc),
                   system_out=f"NOTE: {doc.caveat}\n" if doc.caveat else None)
        for doc in docs])


def _status(s: ScenarioRecord) -> str:
    if s.passed:
        return "pass"
    return "error" if s.errored_runs and s.errored_runs + s.passed_runs == s.runs else "FAIL"


def _document_markdown(doc: DocumentReport) -> str:
    n = len(doc.scenarios)
    parts = [f"## {escape_cell(doc.source)}\n\n",
             f"{escape_cell(doc.kind)} · {escape_cell(doc.suite)} · {doc.repeats} repeat(s)"
             + (f" · {escape_cell(doc.timestamp)}" if doc.timestamp else "") + "\n\n",
             f"**{doc.passed_count}/{n} scenarios passed.** Rule: {escape_cell(doc.rule)}.\n\n"]
    if doc.caveat:
        parts.insert(1, f"> **Measures no agent.** {escape_cell(doc.caveat)}.\n\n")
    rows = [[name, fmt(value), stored_interval_text(doc, name)] for name, value in doc.metrics]
    parts.append(markdown_table(["metric", "value", "95% interval"], rows) + "\n")
    if doc.pass_hat_k:
        ks = sorted({k for _, by_k in doc.pass_hat_k for k in by_k}, key=int)
        rows = [[label, *(fmt(by_k[k]) if k in by_k else "" for k in ks)]
                for label, by_k in doc.pass_hat_k]
        parts.append(markdown_table(["pass^k", *(f"k={k}" for k in ks)], rows) + "\n")
    names = sorted({m for s in doc.scenarios for m, _ in s.metrics},
                   key=lambda m: (m == "mean_latency_s", m))
    rows = []
    for s in doc.scenarios:
        values = dict(s.metrics)
        rows.append([s.scenario_id, _status(s), f"{s.passed_runs}/{s.runs}",
                     "; ".join([_codes_text(s), *s.errors]).strip("; "),
                     *(fmt(values[m]) if m in values else "" for m in names)])
    parts.append(markdown_table(["scenario", "result", "repeats passed", "failures", *names], rows))
    return "".join(parts)


def report_markdown(docs: Sequence[DocumentReport]) -> str:
    """Render documents as one Markdown page: a summary line, then per document its metrics
    with intervals, pass^k when present, and a per-scenario table.

    Per-scenario metric columns are the fraction of repeats where a receipt row field held
    (``exact`` ...) and the mean latency, or an aggregate metric's mean over the runs.
    """
    total = sum(len(d.scenarios) for d in docs)
    passed = sum(d.passed_count for d in docs)
    verdict = "all passed" if passed == total else f"{total - passed} not passed"
    mocks = [d for d in docs if d.caveat]
    if mocks:
        verdict += (f"; {len(mocks)} of {len(docs)} document(s) measure no agent"
                    if len(mocks) < len(docs) else "; measures no agent")
    head = (f"# aau report\n\n{passed}/{total} scenarios passed ({verdict}) across "
            f"{len(docs)} document(s). A scenario passes only when every repeat passed.\n\n")
    if mocks:
        head += "".join(f"> **Measures no agent:** `{escape_cell(d.source)}`: "
                        f"{escape_cell(d.caveat or '')}.\n>\n" for d in mocks)[:-2] + "\n"
    return head + "\n".join(_document_markdown(d) for d in docs)


def report_json(docs: Sequence[DocumentReport]) -> dict[str, Any]:
    """Return the ``--json`` summary: ``{"passed", "documents": [{file, kind, suite, repeats,
    rule, passed, scenarios_passed, measures_agent, caveat, scenarios: [{scenario_id, passed,
    runs, passed_runs, errored_runs, failure_codes: {code: n}, errors, metrics: {name:
    value}}]}]}`` (``measures_agent`` false and ``caveat`` a sentence for a mock's document,
    else true and null)."""
    return {
        "passed": all(d.passed for d in docs),
        "documents": [{
            "file": d.source, "kind": d.kind, "suite": d.suite, "repeats": d.repeats,
            "rule": d.rule, "passed": d.passed, "scenarios_passed": d.passed_count,
            "measures_agent": d.caveat is None, "caveat": d.caveat,
            "scenarios": [{
                "scenario_id": s.scenario_id, "passed": s.passed, "runs": s.runs,
                "passed_runs": s.passed_runs, "errored_runs": s.errored_runs,
                "failure_codes": dict(s.failure_codes), "errors": list(s.errors),
                "metrics": dict(s.metrics)} for s in d.scenarios]}
            for d in docs]}
