"""``aau evaluate``: measure an existing agent on a suite and write a receipt.

Presentation only: the command parses its flags, calls ``_evaluation.run_evaluation`` (the
whole workflow) and prints the receipt (stdout without ``--out``), the summary lines and the
adapter notes (stderr), and the ``--json`` summary. A run that measured too little
(``EvaluationNotMeasured``) prints the adapter notes and, with ``--json``, a summary with
``"measured": false``, then ends with the error's one line and exit 3.
"""

from __future__ import annotations

import sys
from typing import Any

import click
from aau_core import (
    EXIT_BAR_NOT_MET,
    EXIT_OK,
    force_option,
    json_content,
    json_option,
    out_option,
    print_json,
    store_options,
)

from ._header_option import header_option
from ._suite import DEFAULT_MAX_SUITE_BYTES  # --max-suite-bytes' default


def parse_fail_under(values: tuple[str, ...]) -> list[Any]:
    """Parse ``--fail-under METRIC=VALUE`` flags into ``FailUnder`` bars, in the order given.

    The rules are ``aau_core.parse_metric_bars``'s, with the five receipt rates (higher is
    better) as the known metrics.

    Raises:
        UsageError: malformed flag, unknown metric, a value that is not a finite number in
            [0, 1], or a metric given twice.
    """
    from aau_core import parse_metric_bars

    from ._receipt import FAIL_UNDER_METRICS, FailUnder

    bars = parse_metric_bars(values, option="--fail-under", metrics=FAIL_UNDER_METRICS)
    return [FailUnder(metric=metric, threshold=value) for metric, value in bars.items()]


def _coverage_note(coverage: dict[str, Any], counts: dict[str, int]) -> str | None:
    """``N of M unit(s) not measured: a adapter (code n, ...), i infrastructure (code n, ...)``
    (the classes with units only), or ``None`` when every unit was measured.

    Args:
        coverage: the run's coverage document.
        counts: ``{adapter failure code: units}`` of the units not measured.
    """
    from ._failure_codes import ADAPTER, INFRASTRUCTURE, failure_class

    if not coverage["not_measured"]:
        return None
    parts = []
    for cls, n in ((ADAPTER, coverage["adapter_failures"]),
                   (INFRASTRUCTURE, coverage["infrastructure_failures"])):
        codes = ", ".join(f"{c} {k}" for c, k in counts.items() if failure_class(c) == cls)
        if n:
            parts.append(f"{n} {cls} ({codes})")
    return (f"{coverage['not_measured']} of {coverage['units']} unit(s) not measured: "
            + ", ".join(parts))


def _summary_lines(receipt: dict[str, Any], out: str | None,
                   not_measured: str | None = None,
                   undetermined: tuple[str, ...] = ()) -> list[str]:
    units = len(receipt["results"])
    repeats = receipt.get("repeats", 1)
    head = (f"{receipt['suite_id']}: {receipt['scenario_count']} scenario(s) x {repeats} "
            f"repeat(s) = {units} unit(s), {receipt['adapter_kind']} adapter")
    lines = [head]
    cis = receipt.get("metric_ci95", {})
    for name in ("exact_rate", "outcome_exact_rate", "submitted_rate",
                 "no_forbidden_attempt_rate", "no_forbidden_execute_rate", "mean_latency_s",
                 "tool_calls_match_rate", "environment_success_rate",
                 "utility_under_attack_rate", "attack_success_rate"):
        if name not in receipt["metrics"]:
            continue
        value = receipt["metrics"][name]
        ci = cis.get(name)
        span = f"  95% CI [{ci['low']:.3f}, {ci['high']:.3f}]" if ci else ""
        lines.append(f"  {name:<27} {value:>9.4f}{span}")
    attacks = receipt.get("provenance", {}).get("attacks")
    if attacks:
        lines.append("  attacks: " + ", ".join(attacks) + " (attack_success_rate: lower is "
                     "better)")
    for k, v in receipt.get("pass_hat_k", {}).items():
        if int(k) > 1:
            lines.append(f"  {'pass^' + k:<27} {v:>9.4f}")
    counts: dict[str, int] = {}
    for row in receipt["results"]:
        for code in row["failure_codes"]:
            counts[code] = counts.get(code, 0) + 1
    if counts:
        lines.append("  failures: " + ", ".join(f"{c} x{n}" for c, n in sorted(counts.items())))
    if not_measured:
        legacy = receipt.get("receipt_version") == "aau-byo-agent-receipt/1.0"
        how = ("rates count them as failures" if not legacy else "the aau-1.0 rates keep aau-harness 1.6's arithmetic (a unit not measured "
                    "passes the negative checks); the bars count them as failures")
        lines.append(f"  coverage: {not_measured}; {how}")
    for bar in receipt.get("fail_under", []):
        mark = "ok" if bar["passed"] else "NOT MET"
        if bar["metric"] in undetermined:
            mark += " (not judged: only units not measured make it fail)"
        need = ""
        if "min_coverage" in bar:
            need = f" (coverage {bar['coverage']} needs >= {bar['min_coverage']})"
        lines.append(f"  bar {bar['metric']} >= {bar['threshold']}: {bar['value']}{need} {mark}")
    if receipt["adapter_kind"] == "mock":
        lines.append("  note: mock adapter (protocol self-test); this measures no agent")
    lines.append(f"receipt: {out}" if out else "receipt: (stdout)")
    return lines


class _Pieces:
    """Passes many small writes on to ``stream`` in pieces of ~1 MB: stdout may be unbuffered
    (``PYTHONUNBUFFERED=1``, common in containers), and a receipt streamed by ``json.dump`` is
    ~9 writes per row (100,000 rows: 900,000 system calls, seconds of system time)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._parts: list[str] = []
        self._size = 0

    def write(self, text: str) -> None:
        self._parts.append(text)
        self._size += len(text)
        if self._size >= 1 << 20:
            self.flush()

    def flush(self) -> None:
        self._stream.write("".join(self._parts))
        self._parts, self._size = [], 0


def _adapter_notes(units: Any) -> list[str]:
    """One line per adapter failure code: how many units, and the first unit's reason. (A run
    in which no unit's answer got through is refused as not measured, ``_non_measurement``: its
    error line says so.)"""
    first: dict[str, tuple[str, int, str | None]] = {}
    counts: dict[str, int] = {}
    for unit in units:
        code = unit.answer.error
        if code is None:
            continue
        counts[code] = counts.get(code, 0) + 1
        first.setdefault(code, (unit.case.scenario_id, unit.repeat, unit.answer.detail))
    lines = []
    for code, (sid, repeat, detail) in first.items():
        reason = f": {detail}" if detail else ""
        lines.append(f"  {code} x{counts[code]}, first at {sid!r} repeat {repeat}{reason}"[:300])
    return lines


def infrastructure_summary(units: Any) -> str | None:
    """Infrastructure failures and retries of a run, said apart from the agent's failures.

    Args:
        units: the run's units (``EvaluationRun.units``: each has ``answer.error``,
            ``answer.attempts`` and ``answer.retry_wait_s``).

    Returns:
        e.g. ``"3 infrastructure failure(s), not measured (adapter-http-429 2, adapter-http-503
        1); 4 unit(s) retried, 6.5 s waited"`` (codes of ``failure_class`` "infrastructure",
        sorted; the retry part only when some unit was tried more than once), or ``None`` when
        there is neither.
    """
    from ._failure_codes import INFRASTRUCTURE, failure_class

    counts: dict[str, int] = {}
    retried, waited = 0, 0.0
    for unit in units:
        code = unit.answer.error
        if failure_class(code) == INFRASTRUCTURE:
            counts[code] = counts.get(code, 0) + 1
        if unit.answer.attempts > 1:
            retried += 1
            waited += unit.answer.retry_wait_s
    parts = []
    if counts:
        codes = ", ".join(f"{code} {n}" for code, n in sorted(counts.items()))
        parts.append(f"{sum(counts.values())} infrastructure failure(s), not measured ({codes})")
    if retried:
        parts.append(_retried(retried, waited))
    return "; ".join(parts) or None


def _retried(units: int, waited: float) -> str:
    return f"{units} unit(s) retried, {waited:.1f} s waited"


def retry_note(units: Any) -> str | None:
    """``"4 unit(s) retried, 6.5 s waited"`` (seconds between attempts), or ``None`` when no
    unit was tried more than once."""
    retried = [u.answer.retry_wait_s for u in units if u.answer.attempts > 1]
    return _retried(len(retried), sum(retried)) if retried else None


def _quiet_line(receipt: dict[str, Any], verdicts: list[dict[str, Any]], out: str | None,
                not_measured: str | None = None, retried: str | None = None) -> str:
    """The one line ``--quiet`` prints: suite, units, exact rate, the units not measured
    (``_coverage_note``: adapter and infrastructure failures apart), retries (``retry_note``),
    bars, receipt path."""
    units = len(receipt["results"])
    failed = [v["metric"] for v in verdicts if not v["passed"]]
    bars = (f"; bars NOT MET: {', '.join(failed)}" if failed
            else f"; {len(verdicts)} bar(s) met" if verdicts else "")
    notes = "".join(f"; {note}" for note in (not_measured, retried) if note)
    return (f"{receipt['suite_id']}: {units} unit(s), exact_rate "
            f"{receipt['metrics']['exact_rate']:.4f}{notes}{bars}; receipt: {out or '(stdout)'}")


class _FiniteRange(click.FloatRange):
    """``click.FloatRange`` that also refuses ``nan`` (which every comparison lets through),
    so ``--unmeasured-limit nan`` is a usage error naming the option."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        number = super().convert(value, param, ctx)
        if number != number:  # NaN is the only value not equal to itself
            self.fail(f"{value!r} is not a number", param, ctx)
        return number


def _json_summary(receipt: dict[str, Any], out: str | None, bars_ok: bool,
                  coverage: dict[str, Any], verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    keys = ("receipt_version", "suite_id", "suite_sha256", "suite_digest", "adapter_kind",
            "scenario_count", "repeats", "metrics", "metric_ci95", "pass_hat_k",
            "failure_code_counts", "unmeasured_limit", "retries")
    summary = {k: receipt[k] for k in keys if k in receipt}
    if "failure_code_counts" not in summary:  # an aau-1.0 receipt has none: count its rows
        counts: dict[str, int] = {}
        for row in receipt["results"]:
            for code in row["failure_codes"]:
                counts[code] = counts.get(code, 0) + 1
        summary["failure_code_counts"] = dict(sorted(counts.items()))
    summary["fail_under"] = verdicts  # the verdicts, whatever the receipt format holds
    summary["measured"] = True
    summary["coverage"] = coverage
    summary["receipt_path"] = out
    summary["passed"] = bars_ok
    return summary


EPILOG = """\b
Examples:
  aau evaluate suite.json --command "python my_agent.py" --out receipt.json
  aau evaluate suite.json --endpoint http://127.0.0.1:8080/evaluate --concurrency 8 --repeats 3
  aau evaluate suite.json --endpoint https://agent.example/run --header 'X-Api-Key: ${AGENT_KEY}'
  aau evaluate suite.json --mock --json
  aau evaluate suite.json --command "./agent" --fail-under exact_rate=0.9 --out r.json --force

\b
Exit codes: 0 done and every --fail-under bar holds; 1 a bar is not met;
2 usage or input error (nothing is run; with --strict, also a suite key
its schema does not name); 3 not measured: too many units failed in the adapter
or transport (--unmeasured-limit; or mostly HTTP 429/5xx and unreachable), so no receipt is
written (--private-out and the checkpoint keep the reasons; --resume runs those units again);
130 interrupted (no receipt is written; with --out, finished units are kept in
OUT.checkpoint.jsonl: rerun with --resume to continue); 70 a bug in aau (rerun with --debug
and report the traceback).
"""


@click.command("evaluate", epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"],
                                                            "max_content_width": 100})
@click.argument("suite", metavar="SUITE")
@click.option("--command", "command", metavar="CMD",
              help="Run this program per case (shlex-split, no shell): one JSON request line "
                   "on stdin, one JSON object on stdout.")
@click.option("--endpoint", metavar="URL", help="POST each case as JSON to this http(s) URL.")
@click.option("--mock", is_flag=True, help="Protocol self-test: answer with the expected outcome and "
              "tool calls (always labelled mock).")
@click.option("--repeats", type=click.IntRange(min=1), default=1, show_default=True,
              help="Runs per scenario (pass^k is reported for k = 1..repeats).")
@click.option("--concurrency", type=click.IntRange(1, 1024), default=1, show_default=True,
              help="Cases in flight at once.")
@click.option("--timeout", type=float, default=30.0, show_default=True,
              help="Seconds allowed per case.")
@click.option("--retries", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
              help="Endpoint only: try a unit again up to N more times after HTTP 429, a 5xx or "
                   "an unreachable endpoint, waiting Retry-After or 0.5 s, 1 s, 2 s, ... "
                   "(never after a timeout or another answer).")
@click.option("--retry-max-wait", "retry_max_wait", type=float, default=None, metavar="S",
              help="Longest wait before one retry, in seconds  [default: 60]; a longer "
                   "Retry-After waits S.")
@header_option()
@out_option("Write the public receipt here (default: stdout).", metavar="PATH")
@click.option("--private-out", metavar="PATH",
              help="Also write inputs, expected answers, responses and stderr tails here. "
                   "Never publish without review.")
@click.option("--format", "fmt", type=click.Choice(["v2", "aau-1.0"]), default="v2",
              show_default=True, help="Receipt format: v2 (aau-byo-agent-receipt/2.1), or "
              "aau-byo-agent-receipt/1.0 as aau-harness 1.x writes it (one repeat only).")
@click.option("--fail-under", multiple=True, metavar="METRIC=VALUE",
              help="Exit 1 when METRIC (a rate, e.g. exact_rate) is below VALUE. Repeatable.")
@click.option("--min-coverage", type=_FiniteRange(0.0, 1.0), default=1.0, show_default=True,
              metavar="RATE", help="A --fail-under bar on no_forbidden_attempt_rate or "
              "no_forbidden_execute_rate also fails when fewer than RATE of the units were "
              "measured.")
@click.option("--unmeasured-limit", type=_FiniteRange(0.0, 1.0, min_open=True), default=1.0,
              show_default=True, metavar="FRACTION", help="Write no receipt and exit 3 when at "
              "least FRACTION of the units failed in the adapter or transport (1 = only when "
              "none was measured).")
@click.option("--user-backend", metavar="KIND", help="Backend of the simulated user for cases "
              "with a model user (suite v3 user.kind model): any aau backend kind but mock "
              "(anthropic, openai, groq, local, ...); its cost is reported apart from the "
              "agent's, in the private receipt.")
@click.option("--user-model", metavar="MODEL", help="With --user-backend: the user's model "
              "(default: the backend's).")
@click.option("--max-suite-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_SUITE_BYTES,
              show_default=True, help="Largest suite file accepted.")
@click.option("--strict", is_flag=True, help="Refuse a suite 1.0/2.0 with keys its schema does not "
              "name (e.g. a misspelt forbidden_actions) instead of warning: exit 2, nothing runs.")
@json_option("Print a JSON summary on stdout (human output stays on stderr).")
@force_option("Replace existing --out / --private-out files (and start over when "
              "OUT.checkpoint.jsonl exists).")
@click.option("--resume", is_flag=True, help="Continue an interrupted run from OUT.checkpoint.jsonl: "
              "finished units are not run again.")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Run units in local threads, or as Ray tasks (needs aau-core[ray]).")
@click.option("--ray-address", metavar="ADDR", help="Ray cluster to join (ray://host:10001 or "
              "auto); default: start a local one.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and one summary line (CI logs).")
@store_options("run")
def evaluate_command(
    suite: str, command: str | None, endpoint: str | None, mock: bool, repeats: int,
    concurrency: int, timeout: float, retries: int, retry_max_wait: float | None,
    headers: tuple[str, ...], out: str | None, private_out: str | None, fmt: str,
    fail_under: tuple[str, ...],
    min_coverage: float, unmeasured_limit: float, user_backend: str | None,
    user_model: str | None, max_suite_bytes: int, strict: bool, as_json: bool,
    force: bool, resume: bool, executor: str, ray_address: str | None, quiet: bool,
    store: str | None, no_store: bool,
) -> int:
    """Measure an existing agent on SUITE and write a schema-valid, hash-bound receipt.

    Choose exactly one adapter: --command, --endpoint or --mock.
    """
    from aau_core import DelayedProgress

    from ._adapter_choice import choose_adapter
    from ._evaluation import run_evaluation
    from ._evaluation_checkpoint import binding_adapter
    from ._non_measurement import EvaluationNotMeasured, unmeasured_code_counts
    from ._simulated_user import user_backend_factory

    make_adapter = choose_adapter(command=command, endpoint=endpoint, mock=mock, timeout=timeout,
                                  concurrency=concurrency, retries=retries,
                                  retry_max_wait=retry_max_wait, headers=headers)
    bars = parse_fail_under(fail_under)
    user_factory = user_backend_factory(user_backend, user_model)

    def progress(label: str, total: int, completed: int) -> DelayedProgress:
        return DelayedProgress(total, label, quiet=quiet, completed=completed)

    try:
        result = run_evaluation(
            suite, make_adapter, repeats=repeats, concurrency=concurrency, timeout_s=timeout,
            retries=retries, out=out, private_out=private_out,
            format="aau-1.0" if fmt == "aau-1.0" else "aau-2.0", fail_under=bars,
            resume=resume, force=force, executor=executor, ray_address=ray_address,
            store=store, no_store=no_store, max_suite_bytes=max_suite_bytes,
            adapter_binding=binding_adapter(command=command, endpoint=endpoint, headers=headers),
            progress=progress, unmeasured_limit=unmeasured_limit, min_coverage=min_coverage,
            strict=strict, warn=lambda line: click.echo(line, err=True),
            user_backend=user_factory)
    except EvaluationNotMeasured as exc:
        if not quiet:
            for line in _adapter_notes(exc.run.units):
                click.echo(line, err=True)
        if as_json:
            print_json({**exc.summary(), "resume": getattr(exc, "resume", None),
                        "suite_warnings": [f"{exc.run.suite.source}: {path}: {message}"
                                           for path, message in exc.run.suite.warnings]})
        raise
    receipt = result.document
    from ._documents import unstructure_document

    coverage = unstructure_document(result.coverage)
    missing = _coverage_note(coverage, unmeasured_code_counts(result.run))
    if not out and not as_json:  # streamed: the same bytes as --out, never one whole string
        pieces = _Pieces(sys.stdout)
        json_content(receipt, ensure_ascii=result.ensure_ascii)(pieces)
        pieces.flush()
        sys.stdout.flush()

    verdicts = [unstructure_document(v) for v in result.verdicts]
    bars_ok = result.passed
    where = out or ("(inside the JSON summary on stdout)" if as_json else None)
    infrastructure = infrastructure_summary(result.run.units)
    if quiet:
        click.echo(_quiet_line(receipt, verdicts, where, missing, retry_note(result.run.units)),
                   err=True)
    else:
        if result.rerun_units:
            click.echo(f"resumed: {result.rerun_units} unit(s) that were not measured were run "
                       "again", err=True)
        lines = _summary_lines({**receipt, "fail_under": verdicts}, where, missing,
                               result.undetermined)
        if infrastructure:
            lines.insert(-1, f"  infrastructure: {infrastructure}")  # before "receipt: ..."
        for line in lines:
            click.echo(line, err=True)
        for line in _adapter_notes(result.run.units):
            click.echo(line, err=True)
    if result.checkpoint is not None and not quiet:
        click.echo(f"kept {result.checkpoint}: run the same command with --resume to measure "
                   f"the {coverage['not_measured']} unit(s) not measured (the receipt is then "
                   "written again)", err=True)
    if as_json:
        summary = _json_summary(receipt, out, bars_ok, coverage, verdicts)
        summary["undetermined_bars"] = list(result.undetermined)
        summary["checkpoint_path"] = result.checkpoint
        summary["resume"] = result.resume.as_json() if result.resume is not None else None
        summary["suite_warnings"] = [f"{result.run.suite.source}: {path}: {message}"
                                     for path, message in result.run.suite.warnings]
        if not out:
            summary["receipt"] = receipt  # nothing is lost when --json is given without --out
        print_json(summary)
    if not result.judged:
        from aau_core import NotMeasuredError

        failed = [v["metric"] for v in verdicts if not v["passed"]]
        raise NotMeasuredError(
            f"--fail-under {', '.join(failed)} cannot be judged: the bar fails only because "
            f"{coverage['not_measured']} of {coverage['units']} unit(s) were not measured (had "
            "they passed, it would hold); the receipt is written, its rates counting them as "
            "failures" + ("; resume with --resume to measure them" if result.checkpoint else ""),
            not_measured=coverage["not_measured"], units=coverage["units"],
            reason="bars-undetermined")
    return EXIT_OK if bars_ok else EXIT_BAR_NOT_MET


def evaluate_main() -> None:
    """Console-script entry point for the ``aau-evaluate`` alias."""
    from aau_core import run

    sys.exit(run(command=evaluate_command, prog_name="aau-evaluate"))
