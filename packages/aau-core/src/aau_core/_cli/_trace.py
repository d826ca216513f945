"""``aau trace``: score agent traces on PraisonAI-style gates, and import harness output folders.

- ``aau trace score TRACE...``: each trace file (schema kind ``trace``) through
  ``HarnessEvaluator`` with the same options; an ``EvalReport`` (kind ``eval-report``) with one
  case per file, a table on stderr, optional JUnit XML and Markdown. One trace never stops the
  batch: a judge score that cannot be used is that trace's ``judge_error``, a file that cannot
  be read is that trace's errored case. Exit 1 when any trace failed (a gate, a judge error, an
  unreadable file), 2 when no trace could be read or the options are wrong.
- ``aau trace import DIR``: a PraisonAI ``InteractiveTestHarness`` folder as a trace.

Every input is read and checked before anything is written; outputs are written atomically.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

import click

from .._errors import EXIT_BAR_NOT_MET, EXIT_OK, UsageError
from ._options import force_option, json_option, out_option, print_json

DEFAULT_REPORT_NAME = "aau-trace-score"
_HASH = re.compile(r"[0-9a-f]{16}")


@click.group("trace", context_settings={"help_option_names": ["-h", "--help"]})
def trace_group() -> None:
    """Score agent traces on artifact, tool-call, schema and judge gates.

    \b
    Examples:
      aau examples         # writes ./examples: the traces below (aau-navigator)
      aau trace score examples/traces/refactor-pass.json --require-artifact src/report.py \
          --min-tool-calls 2
      aau trace import examples/traces/praison-harness-run --out trace.json
    """


def _failed_gates(record: dict[str, Any]) -> list[str]:
    from .._traces._harness_eval import GATES

    return [g for g in GATES if not record[g]]


def _detail(record: dict[str, Any]) -> str:
    from .._traces._eval_report import judge_error_text

    parts = [f"tool calls {record['tool_call_count']}"]
    if record["missing_artifacts"]:
        parts.append("missing " + ", ".join(map(str, record["missing_artifacts"])))
    parts.append(f"schema {record['schema_hash'] or 'none'}")
    judge = record["judge_score"]
    if record.get("judge_error"):
        parts.append(judge_error_text(record["judge_error"]))
    else:
        parts.append("judge " + ("none" if judge is None else f"{judge:g}"))
    return "; ".join(parts)


def _result_word(r: Any) -> str:
    """``pass``, ``FAIL``, or ``UNREADABLE`` for a trace that could not be read."""
    return "UNREADABLE" if r.error is not None else "pass" if r.passed else "FAIL"


def _counts(report: Any) -> str:
    """``"2 of 3 trace(s) passed; 1 judge error(s); 0 unreadable; mean score 0.583"``."""
    unreadable = sum(1 for r in report.results if r.error is not None)
    return (f"{report.passed_cases} of {report.total_cases} trace(s) passed; "
            f"{report.judge_errors or 0} judge error(s); {unreadable} unreadable; "
            f"mean score {report.average_score:.3f}")


def junit_text(report: Any) -> str:
    """The report as JUnit XML: one ``<testsuite>`` named after the report, one case per trace;
    a failing trace's ``<failure>`` names its failed gates."""
    from .._reports._junit import JUnitCase, JUnitSuite, render_junit

    cases = []
    for r in report.results:
        record = r.record or {}
        failed = _failed_gates(record) if record else []
        props = (("score", f"{r.score:g}"), ("detail", _detail(record))) if record else ()
        gate_failure = not r.passed and r.error is None
        cases.append(JUnitCase(
            name=r.case_name, classname=report.package_name, time_s=r.latency_ms / 1000.0,
            failure_message="failed gates: " + (", ".join(failed) or "?") if gate_failure
            else None,
            failure_text=_detail(record) if gate_failure and record else None,
            error_message=r.error, properties=props))
    return render_junit([JUnitSuite(name=report.package_name, cases=cases)])


def markdown_text(report: Any) -> str:
    """The report as Markdown: a summary line and one table row per trace."""
    from .._reports._markdown_table import markdown_table

    rows = []
    for r in report.results:
        record = r.record or {}
        rows.append([r.case_name, _result_word(r), f"{r.score:g}",
                     ", ".join(_failed_gates(record)) if record else "",
                     _detail(record) if record else r.error or ""])
    head = f"**{report.package_name}**: {_counts(report)}\n\n"
    return head + markdown_table(["trace", "result", "score", "failed gates", "detail"], rows)


def _echo_table(report: Any) -> None:
    from .._files._terminal import terminal_text

    for r in report.results:
        if r.error is not None:  # the one-line error of the file (one line per violation)
            for line in r.error.splitlines():
                click.echo(f"aau: error: {terminal_text(line)}", err=True)
            continue
        record = r.record or {}
        verdict = _result_word(r) + ("" if r.passed else " " + ",".join(_failed_gates(record)))
        click.echo(terminal_text(f"{r.case_name}: {verdict}: score {r.score:g}; "
                                 f"{_detail(record)}"), err=True)
    click.echo(_counts(report), err=True)


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
@click.option("--judge-range", type=(float, float), default=(0.0, 10.0), show_default=True,
              metavar="LOW HIGH",
              help="The judge's score range; a judge_score outside it is a judge error.")
@click.option("--require-judge", is_flag=True,
              help="Every trace must have a judge_score (a missing one is a judge error).")
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
                  expected_schema_hash: str | None, judge_threshold: float,
                  judge_range: tuple[float, float], require_judge: bool, report_name: str,
                  junit_file: str | None, markdown_file: str | None, strict: bool,
                  as_json: bool, out_file: str | None, force: bool) -> int:
    """Score each TRACE file on the four gates and report one case per file.

    A trace is a JSON object (schema kind `trace`): tool calls under tool_calls, tool_trace or
    tools; artifacts under artifacts, files or outputs; tool_schema; judge_score (a number, or
    a string holding one: "9", " 8.5 "). A gate that is not configured passes (PraisonAI's
    rule); the score is true gates / 4. Other keys are kept and ignored; one that looks like
    a misspelt known key (tool_call, judge_scor) gets a warning line naming the key it
    resembles (--strict: the trace cannot be read).

    One trace never stops the others. A judge_score that cannot be used ("n/a", "NaN", out of
    --judge-range, missing with --require-judge) fails that trace's judge gate and is recorded
    as its judge error; a file that is missing or not a valid trace is reported (one line
    naming the file and JSON path) and is an errored case of the report.

    Exit 0 when every trace passes every gate; 1 when some trace failed a gate, had a judge
    error or could not be read (the outputs are written); 2 when no trace could be read, a
    trace is given twice, an option is wrong or an output cannot be written (checked before
    any trace is read; nothing is written then, the outputs are written together or not at
    all).

    \b
    Examples:
      aau examples         # writes ./examples: the trace below (aau-navigator)
      aau trace score examples/traces/refactor-pass.json --require-artifact src/report.py \
          --min-tool-calls 2
      aau trace score traces/*.json --judge-threshold 8 --junit junit.xml --markdown table.md
    """
    from .._files._writing import check_outputs, json_content, write_outputs
    from .._traces._eval_report import EvalReport
    from .._traces._trace_files import score_trace_files

    if expected_schema_hash is not None and not _HASH.fullmatch(expected_schema_hash):
        raise UsageError(f"--expected-schema-hash {expected_schema_hash!r}: want 16 lowercase "
                         "hex digits")
    if not math.isfinite(judge_threshold):
        raise UsageError("--judge-threshold must be a finite number")
    low, high = judge_range
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise UsageError(f"--judge-range {low:g} {high:g}: want two finite numbers, LOW < HIGH")
    if not low <= judge_threshold <= high:
        raise UsageError(f"--judge-threshold {judge_threshold:g} is outside --judge-range "
                         f"{low:g} {high:g}: no judge score could pass, or every one would")
    if not report_name:
        raise UsageError("--name must not be empty")
    check_outputs({"--out": out_file, "--junit": junit_file, "--markdown": markdown_file},
                  inputs=traces, force=force)
    _refuse_repeated_inputs(traces)
    results = score_trace_files(
        traces, required_artifacts=list(required), min_tool_calls=min_tool_calls,
        expected_schema_hash=expected_schema_hash, judge_threshold=judge_threshold,
        judge_score_range=judge_range, require_judge=require_judge, strict=strict,
        warn=lambda line: click.echo(line, err=True))
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
      aau examples         # writes ./examples: the harness folder below (aau-navigator)
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
