"""``aau report``: JUnit XML, Markdown and JSON reports of receipts and eval aggregates.

Every input is read and validated before any output is written; outputs are written atomically
and an existing file is refused unless ``--force`` (checked before reading the inputs). The exit
code follows ``pytest --junitxml``: the report is written either way, and the code says whether
every scenario passed.
"""

from __future__ import annotations

import click

from .._errors import EXIT_BAR_NOT_MET, EXIT_OK, UsageError
from ._options import force_option, json_option, print_json


@click.command("report", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False),
              help="Write JUnit XML here (one testsuite per file, one testcase per scenario).")
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False),
              help="Write a Markdown summary here (metrics, intervals, pass^k, scenario table).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Write one self-contained offline HTML page here (metrics, intervals, "
                   "pass^k, latency, cost, scenario table, provenance).")
@json_option()
@click.option("--pass-metric", "pass_metrics", multiple=True, metavar="NAME=MIN",
              help="Eval aggregates and lab results: a run passes when metric NAME >= MIN "
                   "(repeatable; MIN in [0, 1]; refused with a receipt). Default: every "
                   "binary (0/1) metric must be 1.")
@force_option("Replace existing --junit/--markdown/--html files.")
def report_command(files: tuple[str, ...], junit_path: str | None, markdown_path: str | None,
                   html_path: str | None, as_json: bool, pass_metrics: tuple[str, ...], force: bool) -> int:
    """Report each scenario of receipts and eval aggregates as a test case.

    FILES are public receipts (aau evaluate --out; aau-byo-agent-receipt/1.0 or 2.x), eval
    aggregates (run_eval; aau-harness 1.x or aau-eval-aggregate/2.x) or lab results (aau lab
    run's eval_<tag>.json), in any mix. Each is validated against its schema first; a receipt
    must also agree with its own rows (rows per scenario, scenario_count, metrics, pass^k).

    A scenario passes only when every one of its repeats passed: a receipt row passes when it
    is exact; an aggregate run when it has no detail.error and reaches every --pass-metric bar
    (by default: every binary metric is 1). JUnit gets one testsuite per file and one testcase
    per scenario, with "k/n repeats passed" and the failure codes in the failure message.

    Exit 0 when every scenario passed, 1 when any failed or errored (the reports are written
    either way, as with pytest --junitxml), 2 on a usage or input error (one line naming the
    file and the JSON path; nothing is written). An output that is an input, a device, a pipe
    or a link is refused even with --force; --junit, --markdown and --html are written
    together. The HTML page needs no network: inline CSS, SVG charts, no script.

    \b
    Examples:
      aau report receipt.json --junit junit.xml
      aau report r1.json r2.json --markdown report.md --json
      aau report receipt.json --html report.html
      aau report eval_results.json --pass-metric route_correct=1 --junit junit.xml --force
    """
    from .._files._writing import check_outputs, write_outputs
    from .._reports._formats import report_json, report_junit, report_markdown
    from .._reports._scenarios import load_report_document
    from ._metric_bars import parse_metric_bars

    if not (junit_path or markdown_path or html_path or as_json):
        raise UsageError("nothing to do: give --junit FILE, --markdown FILE or --json (or "
                         "--html FILE)")
    bars = parse_metric_bars(pass_metrics, option="--pass-metric", metavar="NAME=MIN",
                             example="route_correct=1")
    check_outputs({"--junit": junit_path, "--markdown": markdown_path, "--html": html_path},
                  inputs=files, force=force)
    docs = [load_report_document(name, bars) for name in files]
    outputs: dict[str, str] = {}
    if junit_path:
        outputs[junit_path] = report_junit(docs)
    if markdown_path:
        outputs[markdown_path] = report_markdown(docs)
    if html_path:
        from .._reports._html import render_html_files

        outputs[html_path] = render_html_files(docs)
    write_outputs(outputs, force=force)
    for doc in docs:
        failed = len(doc.scenarios) - doc.passed_count
        tail = f", {failed} not passed" if failed else ""
        click.echo(f"{doc.source}: {doc.kind} {doc.suite}: {doc.passed_count}/"
                   f"{len(doc.scenarios)} scenarios passed{tail}", err=True)
        if doc.caveat:
            click.echo(f"  note: {doc.caveat}", err=True)
    if as_json:
        print_json(report_json(docs))
    return EXIT_OK if all(doc.passed for doc in docs) else EXIT_BAR_NOT_MET
