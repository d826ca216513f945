"""``aau runs``: list, show, compare and import the runs in the run store (``_run_store``).

Every command takes ``--store PATH|sqlite:///PATH`` (default ``$AAU_RUN_STORE``, else
``.aau/runs.sqlite`` under the current directory). ``list``, ``show`` and ``compare`` open the
store read-only; ``add`` validates every file first, then records each in its own transaction.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import Any

import click

from .._errors import EXIT_OK, UsageError
from ._options import force_option, json_option, print_json

STORE_HELP = ("The run store: a path or sqlite:///PATH (default: $AAU_RUN_STORE, else "
              ".aau/runs.sqlite here, or beside the pack when here is a pack).")


def store_option(func: Any) -> Any:
    """The ``--store`` option shared by the run-store commands."""
    return click.option("--store", "store", metavar="PATH|URL", default=None,
                        help=STORE_HELP)(func)


def open_store(store: str | None) -> Any:
    """Open the store read-only (``RunStore``); ``none`` is a usage error here.

    Raises:
        UsageError: ``--store none`` or a bad URL; InputError: no store there, or another
            schema version.
    """
    from .._store._run_store import RunStore, resolve_store

    path = resolve_store(store)
    if path is None:
        raise UsageError("--store none: this command reads a run store; name one")
    return RunStore(path, read_only=True)


def parse_since(value: str) -> str:
    """``--since``: an ISO 8601 date or time -> the UTC text ``run_at`` is compared with.

    ``2026-11-30`` stays a date (runs on or after that day, UTC); a time with an offset is
    converted to UTC; a time without one is taken as UTC.

    Raises:
        UsageError: not an ISO 8601 date or time.
    """
    text = value.strip()
    try:
        if len(text) == 10:
            return datetime.strptime(text, "%Y-%m-%d").strftime("%Y-%m-%d")
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        raise UsageError(f"--since {value!r}: expected an ISO 8601 date or time, e.g. "
                         "2026-11-30 or 2026-11-30T12:00:00Z") from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _headline(metrics: Any) -> str:
    for name in ("exact_rate", "tool_calls_match_rate"):
        if name in metrics:
            return f"{name} {metrics[name]:.4g}"
    if metrics:
        name = sorted(metrics)[0]
        return f"{name} {metrics[name]:.4g}"
    return ""


@click.group("runs", context_settings={"help_option_names": ["-h", "--help"]})
def runs_group() -> None:
    """The run store: list, show and compare recorded runs; import result files.

    Every receipt written by `aau evaluate` and every `aau lab run` result is recorded (see
    docs/runs.md); `aau runs add` imports existing files. Documents about a run (review
    reports of `aau review summarize`) are recorded beside the runs: `aau runs documents`.

    \b
    Examples:
      aau runs list --since 2026-11-01
      aau runs show 3 --html run3.html
      aau runs compare 3 4
      aau runs add receipts/*.json
      aau runs documents --kind review-report
    """


@runs_group.command("list")
@click.option("--suite", default=None, help="Only runs of this suite id or suite digest.")
@click.option("--since", default=None, metavar="DATE",
              help="Only runs started on or after this ISO 8601 date or UTC time.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most N runs.")
@json_option("Print a JSON list on stdout.")
@store_option
def list_command(suite: str | None, since: str | None, limit: int | None, as_json: bool,
                 store: str | None) -> int:
    """List stored runs, newest first.

    \b
    Example:
      aau runs list --suite public-service-routing --json
    """
    since_text = parse_since(since) if since else None
    with open_store(store) as run_store:
        runs = run_store.list(suite=suite, since=since_text, limit=limit)
        unmeasured = run_store.units_not_measured([r.id for r in runs]) if not as_json else {}
    if as_json:
        print_json([r.as_dict() for r in runs])
        return EXIT_OK
    if not runs:
        click.echo("no runs", err=True)
        return EXIT_OK
    from .._reports._markdown_table import markdown_table

    rows = [[str(r.id), r.run_at, r.kind, r.suite or "-", r.adapter or "-", r.model or "-",
             f"{r.scenarios_passed}/{r.scenario_count}"
             + (f" ({unmeasured[r.id]} unit(s) not measured)" if r.id in unmeasured else ""),
             _headline(r.metrics)] for r in runs]
    click.echo(markdown_table(["id", "run at (UTC)", "kind", "suite", "adapter", "model",
                               "passed", "headline"], rows))
    return EXIT_OK


@runs_group.command("show")
@click.argument("run_id")
@json_option("Print {run, scenarios, document} as JSON on stdout.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Write the run's self-contained HTML report here.")
@force_option("Replace an existing --html file.")
@store_option
def show_command(run_id: str, as_json: bool, html_path: str | None, force: bool,
                 store: str | None) -> int:
    """Show one stored run: what was run, its metrics and its scenarios.

    \b
    Examples:
      aau runs show 3
      aau runs show 3 --html run3.html
    """
    from .._files._writing import check_outputs, write_outputs

    check_outputs({"--html": html_path}, force=force)
    with open_store(store) as run_store:
        summary, doc = run_store.get(run_id)
        scenarios = run_store.scenarios(summary.id)
        source = str(run_store.path)
    if html_path:
        from .._store._run_views import run_html

        write_outputs({html_path: run_html(summary, doc)}, force=force)
        click.echo(f"wrote {html_path}", err=True)
    if as_json:
        from .._files._converter import unstructure_document
        from .._store._run_views import RunShow

        print_json(unstructure_document(RunShow(summary, list(scenarios), doc)))
        return EXIT_OK
    if html_path:
        return EXIT_OK
    from .._reports._formats import stored_interval_text
    from .._reports._markdown_table import markdown_table
    from .._store._run_store import document_report

    report = document_report(doc, summary.source or f"run {summary.id}")
    click.echo(f"run {summary.id} ({source}): {summary.kind} {summary.suite or '-'} · adapter "
               f"{summary.adapter or '-'} · model {summary.model or '-'} · {summary.run_at}")
    click.echo(f"{summary.scenarios_passed}/{summary.scenario_count} scenarios passed, "
               f"{summary.repeats} repeat(s)")
    click.echo(markdown_table(["metric", "value", "95% interval"],
                              [[k, f"{v:.6g}", stored_interval_text(report, k)]
                               for k, v in sorted(summary.metrics.items())]))
    click.echo(markdown_table(
        ["scenario", "result", "repeats passed", "failure codes"],
        [[s.scenario_id, "pass" if s.passed else "FAIL",
          f"{s.passed_runs}/{s.runs}" + (f" ({s.errored_runs} not measured)"
                                         if s.errored_runs else ""),
          ", ".join([f"{c} ({n})" if n > 1 else c for c, n in s.failure_codes.items()]
                    + [f"{e} (not measured)" for e in s.errors])]
         for s in scenarios]))
    return EXIT_OK


@runs_group.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@json_option("Print the comparison as JSON on stdout.")
@store_option
def compare_command(run_a: str, run_b: str, as_json: bool, store: str | None) -> int:
    """Compare run B with run A over their shared scenarios.

    Per metric: the mean difference B - A with a 95% paired bootstrap interval (scenarios
    resampled, repeats averaged first; 2,000 resamples, seed 0), and the scenarios that flipped
    from pass to fail or fail to pass. A scenario with a repeat not measured in one run (its
    adapter or transport failed) has no like-for-like value to pair: it is listed and left out.

    Exit codes: 0 compared; 2 usage or input error (a run id not in the store); 3 nothing to
    compare (no shared scenario, or none measured in full in both runs).

    \b
    Example:
      aau runs compare 3 4 --json
    """
    from .._store._compare import compare_stored

    with open_store(store) as run_store:
        a, b, result = compare_stored(run_store, run_a, run_b)
    if as_json:
        print_json(result.as_dict())
        return EXIT_OK
    from .._reports._markdown_table import markdown_table

    click.echo(f"run {b.id} vs run {a.id}: {result.shared} shared scenario(s)"
               + ("" if result.same_suite else " (different suites)")
               + (f"; only in {a.id}: {len(result.only_a)}" if result.only_a else "")
               + (f"; only in {b.id}: {len(result.only_b)}" if result.only_b else ""))
    if result.not_measured:
        click.echo(f"not measured in full in run {a.id} or run {b.id} (--resume measures the "
                   f"rest), left out of the differences and the flips "
                   f"({len(result.not_measured)}): {', '.join(result.not_measured)}")
    if result.metrics:
        click.echo(markdown_table(
            ["metric", "n", f"run {a.id}", f"run {b.id}", "difference", "95% paired bootstrap"],
            [[m.name, str(m.n), f"{m.mean_a:.4g}", f"{m.mean_b:.4g}", f"{m.diff:+.4g}",
              f"[{m.low:+.4g}, {m.high:+.4g}]"] for m in result.metrics]))
    else:
        click.echo("no per-scenario metric is carried by both runs (only the verdicts compare)")
    click.echo(f"pass -> fail ({len(result.pass_to_fail)}): "
               + (", ".join(result.pass_to_fail) or "none"))
    click.echo(f"fail -> pass ({len(result.fail_to_pass)}): "
               + (", ".join(result.fail_to_pass) or "none"))
    return EXIT_OK


@runs_group.command("add")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@store_option
def add_command(files: tuple[str, ...], store: str | None) -> int:
    """Import receipts, eval aggregates and lab results into the run store.

    Every file is read and validated first (one line naming the file and JSON path, exit 2,
    nothing stored); then each is recorded in its own transaction. A document already stored
    (same canonical digest) is not stored twice.

    \b
    Example:
      aau runs add receipt.json results/eval_*.json --store team-runs.sqlite
    """
    from .._files._strict_json import read_json_file
    from .._store._recording import check_store_outside_packs
    from .._store._run_store import (
        MAX_DOCUMENT_BYTES,
        STORE_ENV,
        RunStore,
        document_report,
        resolve_store,
    )

    path = resolve_store(store)
    if path is None:
        raise UsageError("--store none: aau runs add records into a run store; name one")
    named = store if store is not None else os.environ.get(STORE_ENV)
    if named is not None:  # the default is never inside a pack (default_store)
        check_store_outside_packs(path, f"--store {named}" if store is not None else
                                  f"{STORE_ENV}={named}")
    docs = []
    for name in files:
        doc = read_json_file(name, max_bytes=MAX_DOCUMENT_BYTES)
        document_report(doc, name)
        docs.append((name, doc))
    with RunStore(path) as run_store:
        for name, doc in docs:
            run_id, created = run_store.add(doc, source=name)
            click.echo(f"{name}: {'recorded as' if created else 'already stored as'} run {run_id}",
                       err=True)
    return EXIT_OK


@runs_group.command("documents")
@click.argument("doc_id", required=False)
@click.option("--kind", default=None, help="Only documents of this schema kind.")
@click.option("--receipt", "receipt_sha256", default=None, metavar="SHA256",
              help="Only documents that bind the receipt with this SHA-256.")
@json_option("Print the list (or, with an ID, the stored document) as JSON on stdout.")
@store_option
def documents_command(doc_id: str | None, kind: str | None, receipt_sha256: str | None,
                      as_json: bool, store: str | None) -> int:
    """List the documents recorded beside the runs (review reports), or show one by ID.

    \b
    Examples:
      aau runs documents --kind review-report
      aau runs documents --receipt 5f0c... --json
      aau runs documents 1 --json > report.json
    """
    from .._store._stored_documents import get_document, list_documents

    with open_store(store) as run_store:
        if doc_id is not None:
            row, doc = get_document(run_store, doc_id)
        else:
            rows = list_documents(run_store, kind=kind, receipt_sha256=receipt_sha256)
    if doc_id is not None:
        if as_json:
            print_json(doc)
            return EXIT_OK
        click.echo(f"document {row.id}: {row.kind} · suite {row.suite or '-'} · receipt "
                   f"{row.receipt_sha256 or '-'} · recorded {row.recorded_at} · "
                   f"{row.source or '-'} · {row.doc_digest}")
        from .._files._writing import render_json

        click.echo(render_json(doc), nl=False)
        return EXIT_OK
    if as_json:
        from .._files._converter import unstructure_document

        print_json([unstructure_document(r) for r in rows])
        return EXIT_OK
    if not rows:
        click.echo("no documents", err=True)
        return EXIT_OK
    from .._reports._markdown_table import markdown_table

    click.echo(markdown_table(
        ["id", "recorded at (UTC)", "kind", "suite", "receipt", "source"],
        [[str(r.id), r.recorded_at, r.kind, r.suite or "-",
          (r.receipt_sha256 or "-")[:12], r.source or "-"] for r in rows]))
    return EXIT_OK
