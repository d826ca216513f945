"""``aau trace``: score agent traces on PraisonAI-style gates, and import harness output folders.

- ``aau trace score TRACE...``: each trace file (schema kind ``trace``) through
  ``HarnessEvaluator`` with the same options; an ``EvalReport`` (kind ``eval-report``) with one
  case per file, a table on stderr, optional JUnit XML and Markdown. Exit 1 when any gate fails.
- ``aau trace import DIR``: a PraisonAI ``InteractiveTestHarness`` folder as a trace.

Every input is read and checked before anything is written; outputs are written atomically.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

import click

from .._errors import EXIT_BAR_NOT_MET, EXIT_OK, InputError, UsageError
from ._options import force_option, json_option, out_option, print_json

MAX_TRACE_BYTES = 50_000_000
DEFAULT_REPORT_NAME = "aau-trace-score"
_HASH = re.compile(r"[0-9a-f]{16}")


@click.group("trace", context_settings={"help_option_names": ["-h", "--help"]})
def trace_group() -> None:
    """Score agent traces on artifact, tool-call, schema and judge gates.

    \b
    Examples:
      aau trace score examples/traces/refactor-pass.json --require-artifact src/report.py \
          --min-tool-calls 2
      aau trace import examples/traces/praison-harness-run --out trace.json
    """


def load_trace(name: str, *, strict: bool = False) -> dict[str, Any]:
    """Read a trace file strictly and check it against the ``trace`` schema; print a warning
    line on stderr for each key that looks like a misspelt known key
    (``aau_core._traces._trace.trace_key_warnings``).

    Args:
        name: the trace file.
        strict: refuse such a key instead (``--strict``).

    Raises:
        InputError: missing, not JSON, not a valid trace, or (``strict``) a misspelt key
            (file and JSON path named).
    """
    from .._files._document_check import check_document
    from .._files._strict_json import read_json_file
    from .._traces._trace import trace_key_warnings

    doc = check_document("trace", read_json_file(name, max_bytes=MAX_TRACE_BYTES), name)
    for path, message in trace_key_warnings(doc, name, strict=strict):
        click.echo(f"{name}: {path}: {message}", err=True)
    return doc


def _failed_gates(record: dict[str, Any]) -> list[str]:
    from .._traces._harness_eval import GATES

    return [g for g in GATES if not record[g]]


def _detail(record: dict[str, Any]) -> str:
    parts = [f"tool calls {record['tool_call_count']}"]
    if record["missing_artifacts"]:
        parts.append("missing " + ", ".join(map(str, record["missing_artifacts"])))
    parts.append(f"schema {record['schema_hash'] or 'none'}")
    judge = record["judge_score"]
    parts.append("judge " + ("none" if judge is None else f"{judge:g}"))
    return "; ".join(parts)


def junit_text(report: Any) -> str:
    """The report as JUnit XML: one ``<testsuite>`` named after the report, one case per trace;
    a failing trace's ``<failure>`` names its failed gates."""
    from .._reports._junit import JUnitCase, JUnitSuite, render_junit

    cases = []
    for r in report.results:
        record = r.record or {}
        failed = _failed_gates(record) if record else []
        props = (("score", f"{r.score:g}"), ("detail", _detail(record))) if record else ()
        cases.append(JUnitCase(
            name=r.case_name, classname=report.package_name, time_s=r.latency_ms / 1000.0,
            failure_message=None if r.passed else "failed gates: " + (", ".join(failed) or "?"),
            failure_text=None if r.passed else _detail(record) if record else None,
            error_message=r.error, properties=props))
    return render_junit([JUnitSuite(name=report.package_name, cases=cases)])


def markdown_text(report: Any) -> str:
    """The report as Markdown: a summary line and one table row per trace."""
    from .._reports._markdown_table import markdown_table

    rows = []
    for r in report.results:
        record = r.record or {}
        rows.append([r.case_name, "pass" if r.passed else "FAIL", f"{r.score:g}",
                     ", ".join(_failed_gates(record)) if record else "", _detail(record)])
    head = (f"**{report.package_name}**: {report.passed_cases} of {report.total_cases} trace(s) "
            f"passed; mean score {report.average_score:.3f}\n\n")
    return head + markdown_table(["trace", "result", "score", "failed gates", "detail"], rows)


def _echo_table(report: Any) -> None:
    for r in report.results:
        record = r.record or {}
        verdict = "pass" if r.passed else "FAIL " + ",".join(_failed_gates(record))
        click.echo(f"{r.case_name}: {verdict}: score {r.score:g}; {_detail(record)}", err=True)
    click.echo(f"{report.passed_cases} of {report.total_cases} trace(s) passed; mean score "
               f"{report.average_score:.3f}", err=True)


@trace_group.command("score")
@click.argument("traces", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--require-artifact", "required", multiple=True, metavar="NAME",
              help="An artifact every trace must list (exact name; repeatable).")
@click.option("--min-tool-calls", type=click.IntRange(min=0), default=0, show_default=True,
              help="The least number of tool calls (0: no gate).")
@click.option("--expected-schema-hash", metavar="HASH",
              help="The 16-hex-digit hash every trace's tool_schema must have.")
@click.option("--judge-threshold", type=float, default=7.0, show_default=True,
              help="The least passing judge_score (traces without one pass this gate).")
@click.option("--name", "report_name", default=DEFAULT_REPORT_NAME, show_default=True,
              help="The report's package_name (and the JUnit suite name).")
@click.option("--junit", "junit_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write JUnit XML (one test case per trace).")
@click.option("--markdown", "markdown_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write a Markdown table.")
@click.option("--strict", is_flag=True, help="Refuse a trace with a key that looks like a "
              "misspelt known key (tool_call for tool_calls) instead of warning.")
@json_option("Print the eval report JSON on stdout.")
@out_option("Write the eval report JSON to FILE.", name="out_file", kind="file", metavar="FILE")
@force_option()
def score_command(traces: tuple[str, ...], required: tuple[str, ...], min_tool_calls: int,
                  expected_schema_hash: str | None, judge_threshold: float, report_name: str,
                  junit_file: str | None, markdown_file: str | None, strict: bool,
                  as_json: bool, out_file: str | None, force: bool) -> int:
    """Score each TRACE file on the four gates and report one case per file.

    A trace is a JSON object (schema kind `trace`): tool calls under tool_calls, tool_trace or
    tools; artifacts under artifacts, files or outputs; tool_schema; judge_score. A gate that
    is not configured passes (PraisonAI's rule); the score is true gates / 4. Other keys are
    kept and ignored; one that looks like a misspelt known key (tool_call, judge_scor) gets a
    warning line naming the key it resembles (--strict: an error).

    Exit 0 when every trace passes every gate, 1 when any gate fails, 2 when a file is
    missing or not a valid trace (one line naming the file and JSON path; with --strict, also
    a misspelt key), a trace is given
    twice, or an output cannot be written (checked before any trace is read; the outputs are
    then written together or not at all).

    \b
    Examples:
      aau trace score examples/traces/refactor-pass.json --require-artifact src/report.py \
          --min-tool-calls 2
      aau trace score traces/*.json --judge-threshold 8 --junit junit.xml --markdown table.md
    """
    from .._files._writing import check_outputs, json_content, write_outputs
    from .._traces._eval_report import EvalReport
    from .._traces._harness_eval import HarnessEvaluator
    from .._traces._trace import TraceError

    if expected_schema_hash is not None and not _HASH.fullmatch(expected_schema_hash):
        raise UsageError(f"--expected-schema-hash {expected_schema_hash!r}: want 16 lowercase "
                         "hex digits")
    if not math.isfinite(judge_threshold):
        raise UsageError("--judge-threshold must be a finite number")
    if not report_name:
        raise UsageError("--name must not be empty")
    check_outputs({"--out": out_file, "--junit": junit_file, "--markdown": markdown_file},
                  inputs=traces, force=force)
    _refuse_repeated_inputs(traces)
    results = []
    for name in traces:
        trace = load_trace(name, strict=strict)
        evaluator = HarnessEvaluator(trace, required_artifacts=list(required),
                                     min_tool_calls=min_tool_calls,
                                     expected_schema_hash=expected_schema_hash,
                                     judge_threshold=judge_threshold, name=name)
        try:
            evaluator.run()
        except TraceError as exc:
            raise InputError(exc.message, source=name, path=exc.path) from None
        results.append(evaluator.to_eval_result(include_record=True))
    report = EvalReport.from_results(report_name, results)
    doc = report.to_dict()
    outputs: dict[str, Any] = {}
    if out_file:
        outputs[out_file] = json_content(doc)
    if junit_file:
        outputs[junit_file] = junit_text(report)
    if markdown_file:
        outputs[markdown_file] = markdown_text(report)
    write_outputs(outputs, force=force)
    _echo_table(report)
    if as_json:
        print_json(doc)
    return EXIT_OK if report.all_passed else EXIT_BAR_NOT_MET


def _refuse_repeated_inputs(traces: tuple[str, ...]) -> None:
    """A trace given twice (by any name) would be scored twice, and its JUnit case and
    Markdown row would repeat under one name: refuse it."""
    seen: dict[str, str] = {}
    for name in traces:
        key = os.path.realpath(name)
        if key in seen:
            raise UsageError(f"{name}: the same trace as {seen[key]} is given twice; name each "
                             "trace once")
        seen[key] = name


@trace_group.command("import")
@click.argument("folder", type=click.Path(file_okay=False))
@out_option("Write the trace to FILE (default: stdout).",
            name="out_file", kind="file", metavar="FILE")
@force_option("Replace an existing --out file.")
def import_command(folder: str, out_file: str | None, force: bool) -> int:
    """Turn a PraisonAI InteractiveTestHarness output FOLDER into a trace.

    Reads transcript.txt, tool_trace.jsonl (one JSON object per tool call), result.json,
    judge_result.json ({"score", "passed", "reasoning", "threshold", "model"}) and the files
    under workspace/; tool_calls come from the JSONL, artifacts are the workspace files as
    relative paths, judge_score is the judge's score.

    Exit 0 on success, 2 when the folder is missing, an entry has the wrong type
    (tool_trace.jsonl a folder, workspace a file) or a file is malformed (one line naming
    the file and the line or JSON path).

    \b
    Example:
      aau trace import examples/traces/praison-harness-run --out trace.json
      aau trace score trace.json --require-artifact src/greet.py
    """
    from .._files._writing import atomic_write_json, check_writable
    from .._traces._harness_import import import_harness_dir

    if out_file:
        check_writable(out_file, force=force)
    trace = import_harness_dir(folder)
    if out_file:
        atomic_write_json(out_file, trace, force=force)
        click.echo(f"{out_file}: trace with {len(trace['tool_calls'])} tool call(s), "
                   f"{len(trace['artifacts'])} artifact(s)", err=True)
    else:
        print_json(trace)
    return EXIT_OK
