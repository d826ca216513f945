"""``aau review``: review labels (``prepare``, ``summarize``, ``validate``); presentation only.

Exit codes: 0 done / valid; 1 ``validate`` found the pack, labels or report invalid; 2 usage or
input error (nothing is written then). Problems are printed one a line as
``file: $.json.path: message``. Heavy modules load inside each command, so ``aau --help`` imports
only this module and click.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from aau_core import (
    EXIT_BAR_NOT_MET,
    EXIT_OK,
    InputError,
    UsageError,
    check_outputs,
    force_option,
    json_option,
    out_option,
    print_json,
    store_options,
)


@click.group("review", context_settings={"help_option_names": ["-h", "--help"]})
def review_group() -> None:
    """Review labels: prepare a blinded pack, summarize raters' labels, validate files.

    \b
    Example:
      aau review prepare private.json --receipt receipt.json --suite suite.json \\
          --raters alice,bob --out pack/
      aau review summarize pack/ --labels alice.json --labels bob.json --out report.json --md
      aau review validate pack/
    """


@review_group.command("prepare")
@click.argument("private_receipt", type=click.Path(path_type=Path))
@click.option("--receipt", type=click.Path(path_type=Path), required=True,
              help="The public receipt of the same run (suite SHA-256, automatic verdicts).")
@click.option("--suite", type=click.Path(path_type=Path), required=True,
              help="The run's suite (its SHA-256 must be the receipt's suite_sha256).")
@click.option("--raters", default="2", show_default=True,
              help="A number N (rater-1..rater-N) or comma-separated pseudonyms.")
@click.option("--per-unit", type=int, default=None,
              help="Raters per unit, K (default: every rater).")
@click.option("--sample", type=int, default=None, help="Keep a seeded sample of N units.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the sample, the assignment and each rater's order.")
@click.option("--categories", type=click.Path(path_type=Path), default=None,
              help='JSON array of {"id", "description"} failure categories (default: aau\'s).')
@click.option("--show-scores", is_flag=True,
              help="Unblinded: show each unit's expected answer and automatic verdicts.")
@click.option("--allow-sensitive", is_flag=True,
              help="Accept a suite whose sharing block declares sensitive content.")
@out_option("New folder for the pack (refused if it exists).", required=True, kind="path",
            path_type=Path)
@json_option()
def prepare_command(private_receipt: Path, receipt: Path, suite: Path, raters: str,
                    per_unit: int | None, sample: int | None, seed: int,
                    categories: Path | None, show_scores: bool, allow_sensitive: bool, out: Path,
                    as_json: bool) -> int:
    """Prepare a review pack from a run's private receipt.

    Writes tasks.json (each unit's input and the agent's response; blinded unless
    --show-scores), scores.json (the receipt's verdicts, for the organiser), README.md and
    manifest.json (sources' SHA-256, raters and their seeded orders, SHA-256 of every file)
    into a new folder, atomically.

    \b
    Example:
      aau review prepare examples/real/private/bfcl-multiple.json \\
          --receipt examples/real/receipts/bfcl-multiple.json \\
          --suite examples/real/suites/bfcl-multiple.json --raters 3 --per-unit 2 --out pack/
    """
    from aau_adapters import load_suite

    from ._prepare import (
        DEFAULT_CATEGORIES,
        build_pack,
        parse_raters,
        read_categories,
        write_review_pack,
    )

    if out.exists() or out.is_symlink():
        raise UsageError(f"--out {out}: exists; choose a new folder for the pack")
    names = parse_raters(raters)
    declared = read_categories(categories) if categories is not None else DEFAULT_CATEGORIES
    files = build_pack(private_receipt, receipt=receipt, suite=load_suite(suite), raters=names,
                       per_unit=per_unit, sample=sample, seed=seed, categories=declared,
                       show_scores=show_scores, allow_sensitive=allow_sensitive)
    inputs = [private_receipt, receipt, suite, *([categories] if categories else [])]
    write_review_pack(out, files, inputs=tuple(inputs))
    from ._pack import read_review_pack

    pack = read_review_pack(out)
    m = pack.manifest
    click.echo(f"{m.source.suite_id}: {m.unit_count} unit(s) for {len(m.raters)} rater(s), "
               f"{m.per_unit} per unit; {'blinded' if m.blinded else 'NOT blinded'}"
               + (f"; {m.excluded_not_measured} not-measured unit(s) left out"
                  if m.excluded_not_measured else ""), err=True)
    if m.sensitive_content.declared:
        click.echo("sensitive content declared by the suite: "
                   + ", ".join(m.sensitive_content.declared) + " (recorded in the pack)",
                   err=True)
    click.echo(f"pack: {out} (keep scores.json away from raters)", err=True)
    if as_json:
        print_json({"path": str(out), "unit_count": m.unit_count, "raters": len(m.raters),
                    "per_unit": m.per_unit, "blinded": m.blinded,
                    "tasks_sha256": pack.tasks_sha256})
    return EXIT_OK


@review_group.command("summarize")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--labels", "labels", multiple=True, required=True,
              type=click.Path(path_type=Path), help="A rater's labels file (repeat).")
@click.option("--resamples", type=click.IntRange(1, 100_000), default=2000, show_default=True,
              help="Bootstrap resamples.")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True,
              help="Bootstrap seed.")
@click.option("--md", "markdown", is_flag=True,
              help="Also write a Markdown summary beside the report (REPORT with .md).")
@out_option("Report file to write (refused if it exists, unless --force).", required=True,
            kind="path", path_type=Path)
@force_option("Replace existing output files.")
@store_options("report")
@json_option("Print the report on stdout.")
def summarize_command(pack: Path, labels: tuple[Path, ...], resamples: int, seed: int,
                      markdown: bool, out: Path, force: bool, store: str | None, no_store: bool,
                      as_json: bool) -> int:
    """Summarize raters' labels of a pack into an aggregate-only report.

    Agreement among people (percent agreement, Cohen's κ for two raters, Fleiss' κ, Krippendorff's
    α, each with a bootstrap interval over units), the consensus per unit (ties listed), and each
    automatic scorer and model rater against the consensus (confusion matrix, accuracy,
    precision, recall, F1, Cohen's κ). No notes, inputs or names. The report is recorded in
    the run store (aau runs documents) unless --no-store.

    \b
    Example:
      aau review summarize pack/ --labels alice.json --labels bob.json --out report.json --md
    """
    from aau_core import check_document, json_content, render_json, store_choice, write_outputs
    from aau_core._store._stored_documents import (  # internal to the monorepo
        record_document_or_warn,
    )

    from ._documents import check_review_report
    from ._markdown import report_markdown
    from ._pack import read_review_pack
    from ._protocol import REPORT_KIND
    from ._summary import build_review_report, read_labels, report_document

    md_path = out.with_suffix(".md") if markdown else None
    for option, path in (("--out", out), ("--md", md_path)):
        if path is not None and pack.is_dir() and path.resolve().parent == pack.resolve():
            raise UsageError(f"{option} {path}: inside the pack folder, which holds only the "
                             "pack's four files; write the report elsewhere")
    run_store = store_choice(store, no_store)
    pack_files = [f for f in pack.iterdir() if f.is_file()] if pack.is_dir() else [pack]
    check_outputs({"--out": out, "--md": md_path}, inputs=[*pack_files, *labels], force=force)
    checked = read_review_pack(pack)
    model = build_review_report(checked, read_labels(labels, checked), resamples=resamples,
                                seed=seed)
    doc = check_document(REPORT_KIND, report_document(model), "<report>")
    check_review_report(model, "<report>")
    outputs: dict[Path, Any] = {out: json_content(doc)}
    if md_path is not None:
        outputs[md_path] = report_markdown(model)
    write_outputs(outputs, force=force)
    stored = record_document_or_warn(doc, kind=REPORT_KIND, store=run_store,
                                     suite=model.source.suite_id,
                                     receipt_sha256=model.source.receipt_sha256, source=str(out))
    for line in _summary_lines(model):
        click.echo(line, err=True)
    click.echo(f"report: {out}" + (f" and {md_path}" if md_path else "")
               + (f"; recorded as document {stored} (aau runs documents)" if stored else ""),
               err=True)
    if as_json:
        click.echo(render_json(doc), nl=False)
    return EXIT_OK


def _summary_lines(model: Any) -> list[str]:
    def fmt(e: Any) -> str:
        if e.value is None:
            return "undefined"
        return f"{e.value:.3f}" + ("" if e.ci95 is None else
                                   f" [{e.ci95[0]:.3f}, {e.ci95[1]:.3f}]")

    a, c = model.human_agreement, model.consensus
    lines = [f"{model.source.suite_id}: {model.unit_count} unit(s), {a.raters} human rater(s)",
             f"  percent agreement   {fmt(a.percent_agreement)}",
             f"  Cohen's kappa       {fmt(a.cohen_kappa)}",
             f"  Fleiss' kappa       {fmt(a.fleiss_kappa)}",
             f"  Krippendorff alpha  {fmt(a.krippendorff_alpha)}",
             f"  consensus           pass {c.pass_}, fail {c.fail}, unsure {c.unsure}, "
             f"unlabelled {c.unlabelled}, ties {len(c.ties)}"]
    lines += [f"  {s.scorer:<20}{s.source}: accuracy {fmt(s.accuracy)}, kappa "
              f"{fmt(s.cohen_kappa)} over {s.units} unit(s)" for s in model.scorers]
    return lines


@review_group.command("validate")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--pack", type=click.Path(path_type=Path), default=None,
              help="The pack a labels file belongs to (needed to validate labels).")
@json_option("Print the verdict as JSON on stdout.")
def validate_command(path: Path, pack: Path | None, as_json: bool) -> int:
    """Check a review pack folder, a labels file (with --pack) or a review report.

    Exit 0 when valid, 1 when invalid (one line per problem), 2 when PATH is none of those.

    \b
    Example:
      aau review validate pack/
      aau review validate alice.json --pack pack/
      aau review validate report.json
    """
    kind, problems = _validate(path, pack)
    if problems:
        for line in problems:
            click.echo(line, err=True)
        click.echo(f"{path}: invalid {kind}", err=True)
    else:
        click.echo(f"{path}: valid {kind}", err=True)
    if as_json:
        print_json({"path": str(path), "kind": kind, "valid": not problems,
                    "problems": problems})
    return EXIT_BAR_NOT_MET if problems else EXIT_OK


def _validate(path: Path, pack_path: Path | None) -> tuple[str, list[str]]:
    """(kind, problem lines). Raises UsageError/InputError when PATH cannot be judged."""
    from aau_schemas import detect_kind

    from ._documents import check_labels, check_review_report, load_model, read_document
    from ._pack import read_review_pack
    from ._protocol import LABELS_KIND, REPORT_KIND

    if path.is_dir():
        try:
            read_review_pack(path)
        except InputError as exc:
            return "review pack", str(exc).splitlines()
        return "review pack", []
    doc = read_document(path)
    kind = detect_kind(doc) if isinstance(doc, dict) else None
    if kind not in (REPORT_KIND, LABELS_KIND):
        raise InputError("not a review pack folder, labels file or review report",
                         source=str(path))
    if kind == LABELS_KIND and pack_path is None:
        raise UsageError(f"{path}: labels are validated against their pack: add --pack FOLDER")
    try:
        if kind == REPORT_KIND:
            check_review_report(load_model(kind, doc, str(path)), str(path))
        else:
            assert pack_path is not None
            checked = read_review_pack(pack_path)
            check_labels(load_model(kind, doc, str(path)), tasks_sha256=checked.tasks_sha256,
                         manifest=checked.manifest, source=str(path))
    except InputError as exc:
        return kind, str(exc).splitlines()
    return kind, []
