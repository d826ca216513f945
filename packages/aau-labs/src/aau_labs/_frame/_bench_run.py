"""One run of an aau-driven benchmark, from its flags to its exit code, and its two result files.

``aau lab run`` and ``aau bench agentdojo`` drive a model (or a mock) through aau's agent loop
over a list of scenarios and write a JSON result beside a Markdown report. They do it the same
way, in this order, and ``run_benchmark`` is that order:

1. the outputs are checked writable (and not one of the inputs, and not another backend's or
   model's result whose id maps to the same file name) before anything costs money;
2. ``--store`` / ``--no-store`` are checked (a bad value fails before any run);
3. the command's ``prepare`` loads what it runs (a lab config and scenarios, an AgentDojo suite)
   and returns a ``BenchmarkPlan``;
4. each ``--fail-under`` metric must be one the benchmark reports (``plan.metric_names``; for a
   lab, one free mock run of the first scenario), before a paid run;
5. the runs go, with progress on stderr (``DelayedProgress``: a bar on a terminal, else one line
   per run); ``run_eval`` itself raises ``ProviderUnavailable`` (exit 3) when every run failed
   at the transport layer, mock or not;
6. a run with no headline metric (every unit errored) writes nothing (``NotMeasuredError``,
   exit 3: nothing was measured); the message names the errors inline (``errors_named``), since
   no file holds them;
7. with a real backend, ``check_results_are_measurements`` refuses a run in which half or more
   of the runs failed at the transport layer (``ProviderUnavailable``, exit 3; the two limits
   are ``aau_core._run._guards``' and docs/runner.md's "Non-measurement");
8. the result is written (``plan.write``: both files or neither, ``write_result_files``) and
   recorded in the run store (a store failure only warns);
9. the bars are compared: a metric whose mean is below its ``--fail-under`` value fails the run
   (exit 1); otherwise exit 0 (a benchmark measures; it has no bar of its own).

The commands keep the flags, the summary line and the ``--json`` summary (presentation). The
option checks they share are ``backend_choice`` and ``aau_core.parse_metric_bars``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
from aau_core import EXIT_BAR_NOT_MET, EXIT_OK, EvalAggregate, NotMeasuredError, UsageError


def backend_choice(mock: bool, backend_kind: str | None, *, mock_flag: str, mock_kind: str,
                   backend_only: Mapping[str, object | None]) -> str:
    """The backend kind a command runs: ``mock_kind`` for its mock flag, else ``backend_kind``.

    Args:
        mock: whether the mock flag (``mock_flag``, e.g. ``"--mock"``) was given.
        backend_kind: the ``--backend`` value, ``None`` when not given.
        mock_flag: the mock flag as the user types it (for messages).
        mock_kind: the kind recorded for the mock (``"mock"``, ``"ground-truth"``).
        backend_only: flags that go with ``--backend`` only (``{"--model": model}``), their
            values ``None`` when not given.

    Returns:
        the backend kind (a string).

    Raises:
        UsageError: both or neither of the mock flag and ``--backend``
            (``choose exactly one of --mock and --backend KIND``), or a ``backend_only`` flag
            with the mock (``--model goes with --backend, not --mock``; with several flags the
            message names them all: ``--model and --base-url go with ...``, ``--model, --price-per-mtok
            and --pricing-file go with ...``).
    """
    if mock == (backend_kind is not None):
        raise UsageError(f"choose exactly one of {mock_flag} and --backend KIND")
    if mock and any(value is not None for value in backend_only.values()):
        flags = list(backend_only)
        names = " and ".join([", ".join(flags[:-1]), flags[-1]] if len(flags) > 1 else flags)
        verb = "goes" if len(backend_only) == 1 else "go"
        raise UsageError(f"{names} {verb} with --backend, not {mock_flag}")
    return mock_kind if mock else str(backend_kind)


@attrs.frozen
class BenchmarkPlan:
    """What a command's ``prepare`` hands ``run_benchmark``: one benchmark, ready to run.

    Attributes:
        name: what is measured, for messages (``"lab decision-gate"``).
        label: the progress bar's label (``"decision-gate"``, ``"agentdojo banking"``).
        n_runs: units to run (scenarios x repeats), the progress bar's total.
        headline: the metric the run is summarised by; a run without it wrote nothing.
        evaluate: progress callback (one line per finished run) -> the ``EvalAggregate``.
        write: aggregate -> ``(json_path, md_path)`` written (both or neither).
        metric_names: the metrics a run reports, asked only when ``--fail-under`` bars are
            given (before any paid run); ``None``: the benchmark takes no bars.
        subject: what ``prepare`` loaded (the ``LabSpec``, the ``AgentDojoSuite``), handed back
            in ``BenchmarkOutcome.plan`` for the command's summary.
    """

    name: str
    label: str
    n_runs: int
    headline: str
    evaluate: Callable[[Callable[[str], None]], EvalAggregate]
    write: Callable[[EvalAggregate], tuple[Path, Path]]
    metric_names: Callable[[], set[str]] | None = None
    subject: Any = None


@attrs.frozen
class BenchmarkOutcome:
    """What ``run_benchmark`` measured and wrote.

    Attributes:
        plan: the ``BenchmarkPlan`` that ran.
        aggregate: the ``EvalAggregate`` (USD, seconds).
        json_path, md_path: the result files written.
        headline: the plan's headline metric (present in ``aggregate.metric_means``).
        bars: the ``--fail-under`` bars checked (metric -> value in [0, 1]).
        failed: the bars not met (metric -> value), in the order given.
    """

    plan: BenchmarkPlan
    aggregate: EvalAggregate
    json_path: Path
    md_path: Path
    headline: str
    bars: dict[str, float]
    failed: dict[str, float]

    @property
    def exit_code(self) -> int:
        """``EXIT_BAR_NOT_MET`` (1) when a bar is not met, else ``EXIT_OK`` (0)."""
        return EXIT_BAR_NOT_MET if self.failed else EXIT_OK


def run_benchmark(
    outputs: Mapping[str, str | os.PathLike[str]],
    prepare: Callable[[], BenchmarkPlan],
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
    force: bool,
    store: str | None,
    no_store: bool,
    measured: bool,
    progress: Callable[[str], None],
    bars: Mapping[str, float] | None = None,
    quiet: bool = False,
    owner: tuple[str, str] | None = None,
) -> BenchmarkOutcome:
    """Run one benchmark the way every ``aau lab run`` / ``aau bench`` command does (module
    docstring, steps 1-9).

    Args:
        outputs: option name (``"--out (result)"``) -> each file the run will write, checked
            before any work (``check_outputs``).
        prepare: loads what is run and returns its ``BenchmarkPlan`` (called after the outputs
            and the store are checked); it raises ``InputError`` / ``UsageError`` for bad input.
        inputs: the files the command reads (an output may not be one of them).
        force: whether existing result files may be replaced.
        store, no_store: the ``--store`` / ``--no-store`` values (``store_choice``).
        measured: whether a real backend ran (then ``check_results_are_measurements``); the
            mocks and the ground-truth replay are not checked.
        progress: called with each progress line when there is no terminal bar.
        bars: the ``--fail-under`` bars (``aau_core.parse_metric_bars``); empty or ``None``: none.
        quiet: no progress at all.
        owner: ``(backend, model)`` the result will record; an existing first output that
            records another pair is never replaced (``refuse_other_subject``), checked in step 1.

    Returns:
        the ``BenchmarkOutcome`` (its ``exit_code`` is the command's).

    Raises:
        OutputError: an output exists (without ``force``), is an input, holds another
            ``owner``'s result, or cannot be written.
        UsageError: a bad ``--store``; a bar for a metric the benchmark does not report
            (``--fail-under: unknown metric 'x' for lab decision-gate``), or bars for a plan
            without ``metric_names``.
        NotMeasuredError: every run errored (exit 3; nothing is written).
        ProviderUnavailable: a ``NotMeasuredError``: ``plan.evaluate``'s ``run_eval`` found
            every run failed at the transport layer, or (``measured``) half or more did
            (``check_results_are_measurements``); nothing is written.
        whatever ``prepare``, ``plan.evaluate`` and ``plan.write`` raise.
    """
    from aau_core import (
        DelayedProgress,
        check_outputs,
        check_results_are_measurements,
        store_choice,
    )

    check_outputs(outputs, inputs=inputs, force=force)  # before any paid call
    if owner is not None and outputs:
        refuse_other_subject(Path(next(iter(outputs.values()))), *owner)
    run_store = store_choice(store, no_store)  # a bad --store fails before any run
    plan = prepare()
    checked = dict(bars or {})
    if checked:
        if plan.metric_names is None:
            raise UsageError(f"--fail-under: {plan.name} takes no bars")
        known = plan.metric_names()
        unknown = [metric for metric in checked if metric not in known]
        if unknown:
            raise UsageError(f"--fail-under: unknown metric {unknown[0]!r} for {plan.name}")
    with DelayedProgress(plan.n_runs, plan.label, quiet=quiet) as bar:
        agg = plan.evaluate(bar.lines(progress))
    if plan.headline not in agg.metric_means:
        raise NotMeasuredError(f"every run failed ({errors_named(agg.results)}): nothing to "
                               "score, nothing written", not_measured=agg.n_errors,
                               units=len(agg.results), reason="every-run-errored")
    if measured:
        check_results_are_measurements(agg.results)
    json_path, md_path = plan.write(agg)
    from aau_core._store._recording import record_file_or_warn  # internal to the monorepo

    record_file_or_warn(json_path, store=run_store)  # a failure only warns
    failed = {m: v for m, v in checked.items() if agg.metric_means[m] < v}
    return BenchmarkOutcome(plan=plan, aggregate=agg, json_path=json_path, md_path=md_path,
                            headline=plan.headline, bars=checked, failed=failed)


def errors_named(results: Iterable[Any], shown: int = 2) -> str:
    """The errors of a run that wrote nothing, for its one-line message: the count, then the
    ``shown`` most frequent distinct errors (first seen first on a tie), each with its count.

    Args:
        results: the run's ``ScenarioResult``s (``.error``: ``None`` or ``"<Type>: <message>"``).
        shown: how many distinct errors to name (>= 1).

    Returns:
        e.g. ``"32 errored: 32 x UnknownModelPricingError: no pricing for model 'q'"``, with
        ``"; and N other error(s)"`` when more distinct errors exist; ``"0 errored"``.
    """
    from collections import Counter

    counts = Counter(r.error for r in results if r.error)
    total = sum(counts.values())
    if not total:
        return "0 errored"
    top = counts.most_common(shown)
    text = "; ".join(f"{n} x {error}" for error, n in top)
    rest = len(counts) - len(top)
    return f"{total} errored: {text}" + (f"; and {rest} other error(s)" if rest else "")


def result_file_paths(out_dir: str | os.PathLike[str], stem: str) -> tuple[Path, Path]:
    """``(out_dir/<stem>.json, out_dir/<stem>.md)``: the suffix is appended to the whole stem.

    ``Path.with_suffix`` would take a model id's last ``.`` for a suffix and cut it there
    (``qwen3.6-27b`` -> ``qwen3.json``), so two model ids differing after a dot shared one file;
    appending keeps every character of the stem (1.6's ``f"eval_{tag}.json"``)."""
    base = Path(out_dir)
    return base / f"{stem}.json", base / f"{stem}.md"


def refuse_other_subject(json_path: Path, backend: str, model: str) -> None:
    """Refuse, even with ``--force``, to replace a result of another backend or model.

    Distinct model ids can share a file name (``a/b`` and ``a_b`` both give ``..._a_b.json``,
    1.6's tag rule, kept); ``--force`` means "replace my earlier run", never "replace another
    model's". An existing file that is not a readable result with ``backend`` and ``model`` is
    left to the ordinary ``--force`` rule.

    Raises:
        OutputError: ``json_path`` holds the result of another ``(backend, model)``.
    """
    import json

    from aau_core import OutputError

    try:
        doc = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if not isinstance(doc, dict) or "model" not in doc:
        return
    theirs = (doc.get("backend"), doc.get("model"))
    if theirs != (backend, model):
        raise OutputError(
            f"{json_path}: holds the result of backend {theirs[0]!r} model {theirs[1]!r}, not "
            f"{backend!r} {model!r} (their ids give the same file name); not replaced, even "
            "with --force: choose another --out folder")


def write_result_files(json_path: Path, md_path: Path, *, kind: str,
                       document: Callable[[], dict[str, Any]], report: Callable[[], str],
                       force: bool = False) -> tuple[Path, Path]:
    """Write a benchmark's JSON result (validated as aau-schemas kind ``kind``) and its Markdown
    report: both checked writable before either is built, both written or neither
    (``write_outputs``, each atomically).

    Args:
        json_path, md_path: the two files.
        kind: the aau-schemas kind the document must be (``"lab-result"``,
            ``"eval-aggregate-v2"``).
        document: builds the JSON document (called after the files are checked).
        report: builds the Markdown text (called after the document validated).
        force: replace existing files.

    Returns:
        ``(json_path, md_path)``.

    Raises:
        OutputError: a file exists (without ``force``) or cannot be written.
        InvalidDocumentError (an ``InputError``): the document breaks the schema of ``kind``
            (a bug; nothing is written).
    """
    from aau_core import check_document, check_outputs, render_json, write_outputs

    check_outputs({str(json_path): json_path, str(md_path): md_path}, force=force)
    doc = document()
    check_document(kind, doc, str(json_path))
    write_outputs({json_path: render_json(doc), md_path: report()}, force=force)
    return json_path, md_path


__all__ = [
    "BenchmarkOutcome", "BenchmarkPlan", "backend_choice", "errors_named", "refuse_other_subject",
    "result_file_paths", "run_benchmark", "write_result_files",
]
