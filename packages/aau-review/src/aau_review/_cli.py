"""``aau review``: review labels (``prepare``, ``serve``, ``summarize``, ``judge``,
``validate``; Label Studio's ``export-labelstudio`` and ``import-labelstudio``); presentation
only.

Exit codes: 0 done / valid; 1 ``validate`` found the pack, labels or report invalid; 2 usage or
input error (nothing is written then); 3 ``judge`` could label nothing (``EXIT_NOT_MEASURED``:
every call failed at the provider, or no reply was a label; nothing is written); 130
interrupted (``judge`` writes the labels finished). Problems are printed one a line as
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
    json_on_not_measured,
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
      aau review judge pack/ --backend mock --out judge.json
      aau review summarize pack/ --labels alice.json --labels bob.json --out report.json --md
      aau review validate pack/
    """


@review_group.command("prepare")
@click.argument("private_receipt", type=click.Path(path_type=Path))
@click.option("--receipt", type=click.Path(path_type=Path), default=None,
              help="Required: the public receipt of the same run (suite SHA-256, automatic "
                   "verdicts).")
@click.option("--suite", type=click.Path(path_type=Path), default=None,
              help="Required: the run's suite file. Its suite_sha256 must be the receipt's: "
                   "aau-harness 1.x's hash, SHA-256 of the parsed suite as compact sorted-key "
                   "ASCII JSON plus a newline (not of the file's bytes; "
                   "aau_schemas.legacy_suite_sha256, see docs/review.md).")
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
def prepare_command(private_receipt: Path, receipt: Path | None, suite: Path | None,
                    raters: str, per_unit: int | None, sample: int | None, seed: int,
                    categories: Path | None, show_scores: bool, allow_sensitive: bool, out: Path,
                    as_json: bool) -> int:
    """Prepare a review pack from a run's private receipt.

    Writes tasks.json (each unit's input and the agent's response; blinded unless
    --show-scores), scores.json (the receipt's verdicts, for the organiser), README.md and
    manifest.json (sources' SHA-256, raters and their seeded orders, SHA-256 of every file)
    into a new folder, atomically.

    \b
    Example:
      aau examples         # writes ./examples: the real receipts below (aau-navigator)
      aau review prepare examples/real/private/bfcl-multiple.json \\
          --receipt examples/real/receipts/bfcl-multiple.json \\
          --suite examples/real/suites/bfcl-multiple.json --raters 3 --per-unit 2 --out pack/
    """
    from aau_adapters import load_suite

    from ._prepare import (
        DEFAULT_CATEGORIES,
        build_pack,
        check_private_receipt,
        parse_raters,
        read_categories,
        write_review_pack,
    )

    if receipt is None or suite is None:
        # the argument first: a public receipt given alone gets the line that says what to give
        check_private_receipt(private_receipt)
        raise UsageError("Missing option '--receipt'" if receipt is None
                         else "Missing option '--suite'")
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
    _check_outputs_outside(pack, {"--out": out, "--md": md_path}, inputs=labels, force=force,
                           what="the report")
    run_store = store_choice(store, no_store, reads=[pack])  # never inside the pack
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
               + (f"; recorded as document {stored} in {run_store} (aau runs documents"
                  + ("" if run_store == ".aau/runs.sqlite" else f" --store {run_store}") + ")"
                  if stored else ""),
               err=True)
    if as_json:
        click.echo(render_json(doc), nl=False)
    return EXIT_OK


@review_group.command("judge")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--backend", "backend_kind", required=True,
              help="A backend kind: mock (offline, deterministic), local, openai, anthropic, "
                   "mistral, groq, ...")
@click.option("--model", default=None,
              help="The model id (default: the backend's; mock: 'mock').")
@click.option("--base-url", default=None,
              help="The API root for an OpenAI-compatible or Anthropic backend (e.g. a local "
                   "llama.cpp server's /v1).")
@click.option("--prompt", "prompt_path", type=click.Path(path_type=Path), default=None,
              help="The judge's prompt file (default: the one shipped with aau-review).")
@click.option("--rater", default=None,
              help="The judge's pseudonym (default: judge-<model>).")
@click.option("--concurrency", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Most calls at once.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(0, min_open=True), default=None,
              help="Seconds one call to the provider may take (default: the backend's, 120).")
@click.option("--max-attempts", type=click.IntRange(1), default=None,
              help="Tries per call on HTTP 429/5xx, timeouts and lost connections (default: "
                   "the backend's, 6).")
@out_option("Labels file to write (refused if it exists, unless --force).", required=True,
            kind="path", path_type=Path)
@force_option("Replace an existing labels file.")
@json_option("Print a summary as JSON on stdout.")
def judge_command(pack: Path, backend_kind: str, model: str | None, base_url: str | None,
                  prompt_path: Path | None, rater: str | None, concurrency: int,
                  timeout_s: float | None, max_attempts: int | None, out: Path,
                  force: bool, as_json: bool) -> int:
    """Label a pack's units with a model judge (rater kind model).

    Each unit goes to the model once, with the prompt as the system prompt; the reply must be
    one JSON object {"verdict", "categories", "note"} (strictly decoded). A reply that cannot
    be read, and a call the provider failed, are judge errors listed in the labels, never
    labels. Exit 3 when nothing could be labelled (nothing is written). Progress and error
    counts go to stderr as units finish; a failing provider costs at most about --timeout x
    --max-attempts (plus back-off) per unit.

    \b
    Examples:
      aau review judge pack/ --backend mock --out judge-mock.json
      aau review judge pack/ --backend local --base-url http://127.0.0.1:8080/v1 \\
          --model qwen2.5-7b-instruct --concurrency 4 --out judge-qwen.json
      aau review judge pack/ --backend local --base-url http://127.0.0.1:8080/v1 \\
          --model m1 --timeout 30 --max-attempts 2 --out judge-m1.json
    """
    from aau_core import (
        BackendError,
        Interrupted,
        check_document,
        json_content,
        make_backend,
        write_outputs,
    )

    from ._converter import converter
    from ._documents import check_labels
    from ._judge import default_pseudonym, judge_pack
    from ._judge_mock import MockJudgeBackend
    from ._judge_reply import read_prompt
    from ._pack import read_review_pack
    from ._protocol import LABELS_KIND

    _check_outputs_outside(pack, {"--out": out},
                           inputs=(prompt_path,) if prompt_path else (), force=force,
                           what="the labels")
    checked = read_review_pack(pack)
    prompt = read_prompt(prompt_path)
    if backend_kind == "mock" and base_url is not None:
        raise UsageError("--base-url goes with a networked --backend, not mock")
    try:
        backend = make_backend(backend_kind, model, base_url=base_url,
                               mock_factory=lambda: MockJudgeBackend(model),
                               max_attempts=max_attempts, timeout_s=timeout_s)
    except BackendError as exc:
        raise UsageError(f"--backend {backend_kind}: {exc}") from None
    name = rater or default_pseudonym(backend.model)
    if rater is not None and (rater.isdigit() or _names(rater) != [rater]):
        raise UsageError(f"--rater {rater!r}: not a pseudonym (lowercase letters, digits and "
                         "inner hyphens, at most 40; never a real name)")
    humans = {r.rater for r in checked.manifest.raters}
    if name in humans:
        raise UsageError(f"--rater {name}: a human rater of this pack; give the judge "
                         "another pseudonym")
    with json_on_not_measured(as_json, path=None, rater=name):
        outcome = judge_pack(checked, backend, kind=backend_kind, prompt=prompt, rater=name,
                             concurrency=concurrency, on_progress=_judge_progress())
    doc = check_document(LABELS_KIND, converter.unstructure(outcome.labels), "<labels>")
    check_labels(outcome.labels, tasks_sha256=checked.tasks_sha256, manifest=checked.manifest,
                 source="<labels>")
    write_outputs({out: json_content(doc)}, force=force)
    labels = outcome.labels.labels
    said = {v: sum(1 for label in labels if label.verdict == v) for v in ("pass", "fail",
                                                                          "unsure")}
    errors = outcome.errors
    provider = sum(1 for e in errors if e.error == "provider")
    cost = ("cost unknown (no price for model " + repr(backend.model) + ")"
            if outcome.cost_usd is None else f"cost ${outcome.cost_usd:.6f}")
    click.echo(f"{name} ({outcome.labels.rater.model.served}): {len(labels)} of "
               f"{outcome.units} unit(s) labelled (pass {said['pass']}, fail {said['fail']}, "
               f"unsure {said['unsure']}); {len(errors)} not labelled (provider {provider}, "
               f"reply {len(errors) - provider}); {cost}", err=True)
    for e in errors[:5]:
        click.echo(f"  {e.unit_id}: {e.error}: {e.message}", err=True)
    click.echo(f"labels: {out}", err=True)
    if as_json:
        print_json({"measured": True, "path": str(out), "rater": name, "served": outcome.labels.rater.model.served,
                    "units": outcome.units, "labelled": len(labels), "verdicts": said,
                    "not_labelled": {"provider": provider, "reply": len(errors) - provider},
                    "cost_usd": outcome.labels.rater.model.cost_usd,
                    "prompt_sha256": prompt.sha256})
    if outcome.interrupted:
        raise Interrupted(f"interrupted: {len(labels)} label(s) written to {out}")
    return EXIT_OK


def _judge_progress(every_s: float = 1.0) -> Any:
    """``judge_pack``'s ``on_progress``: one stderr line ``judge: 2 of 5 units done; 1 not
    labelled (HTTP 500 x1)`` for the first unit, the last, and at most one a second between."""
    import time

    from ._judge import format_causes

    last = [float("-inf")]

    def show(finished: int, units: int, causes: dict[str, int]) -> None:
        now = time.monotonic()
        if finished not in (1, units) and now - last[0] < every_s:
            return
        last[0] = now
        failed = sum(causes.values())
        click.echo(f"judge: {finished} of {units} units done"
                   + (f"; {failed} not labelled ({format_causes(causes)})" if failed else ""),
                   err=True)

    return show


def _names(value: str) -> list[str]:
    """``value`` read as ``prepare --raters`` reads pseudonyms (``[]`` when it refuses them)."""
    from ._prepare import parse_raters

    try:
        return parse_raters(value)
    except UsageError:
        return []


def _check_outputs_outside(pack: Path, outputs: dict[str, Path | None], *,
                           inputs: tuple[Path, ...], force: bool, what: str) -> None:
    """``check_outputs`` for a command reading PACK: no output inside the pack folder (it holds
    only the pack's files), none an input. Raises UsageError / OutputError."""
    from aau_core._files._manifest import (  # internal to the monorepo
        check_outputs_outside_pack,
    )

    check_outputs_outside_pack(pack, outputs, what)
    pack_files = [f for f in pack.iterdir() if f.is_file()] if pack.is_dir() else [pack]
    check_outputs(outputs, inputs=[*pack_files, *inputs], force=force)


def _summary_lines(model: Any) -> list[str]:
    from ._markdown import format_estimate as fmt

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


@review_group.command("serve")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--rater", required=True, help="Your pseudonym: one of the pack's raters.")
@click.option("--labels", "labels", type=click.Path(path_type=Path), default=None,
              help="Your labels file, outside the pack (default: PACK.labels-RATER.json beside "
                   "the pack); resumed when it exists.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: a free one).")
def serve_command(pack: Path, rater: str, labels: Path | None, port: int) -> int:
    """Label a pack's units in a local web page.

    One unit at a time. Serves on 127.0.0.1 at a URL with a random token (printed on stderr; any other request is
    refused). The page shows only your assigned units and your own labels; each label is saved
    atomically to your labels file the moment you choose it, so stopping the server (even
    killing it) loses nothing. Run it again to resume.

    \b
    Example:
      aau review serve pack/ --rater alice
    """
    from ._labelling import default_labels_path, open_session
    from ._pack import read_review_pack
    from ._serve import serve_labelling

    checked = read_review_pack(pack)
    path = labels if labels is not None else default_labels_path(pack, rater)
    serve_labelling(open_session(checked, rater, path), port)
    return EXIT_OK


@review_group.command("validate")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--pack", type=click.Path(path_type=Path), default=None,
              help="The pack a labels file belongs to (needed to validate labels); for a "
                   "report, the pack it was built from (with --labels: recompute it).")
@click.option("--labels", "labels", multiple=True, type=click.Path(path_type=Path),
              help="With a report and --pack: every labels file the report binds (repeat); "
                   "the whole report is recomputed from them.")
@json_option("Print the verdict as JSON on stdout.")
def validate_command(path: Path, pack: Path | None, labels: tuple[Path, ...],
                     as_json: bool) -> int:
    """Check a review pack folder, a labels file (with --pack) or a review report.

    A report's numbers that follow from the report itself (each scorer's, from its confusion
    matrix) are recomputed; with --pack and --labels every number is recomputed from the pack
    and labels. Exit 0 when valid, 1 when invalid (one line per problem), 2 when PATH is none
    of those or the --labels given are not exactly the files the report binds.

    \b
    Example:
      aau review validate pack/
      aau review validate alice.json --pack pack/
      aau review validate report.json
      aau review validate report.json --pack pack/ --labels alice.json --labels bob.json
    """
    kind, problems = _validate(path, pack, labels)
    if problems:
        for line in problems:
            click.echo(line, err=True)
        click.echo(f"{path}: invalid {kind}", err=True)
    else:
        partial = kind == "review-report" and pack is None
        click.echo(f"{path}: valid {kind}" + (
            " (each scorer's numbers recomputed from the report; the agreement among people "
            "and the consensus need --pack and --labels)" if partial else ""), err=True)
    if as_json:
        print_json({"path": str(path), "kind": kind, "valid": not problems,
                    "problems": problems})
    return EXIT_BAR_NOT_MET if problems else EXIT_OK


def _validate(path: Path, pack_path: Path | None,
              labels: tuple[Path, ...] = ()) -> tuple[str, list[str]]:
    """(kind, problem lines). Raises UsageError/InputError when PATH cannot be judged."""
    from aau_schemas import detect_kind

    from ._documents import check_labels, check_review_report, load_model, read_document
    from ._pack import read_review_pack
    from ._protocol import LABELS_KIND, REPORT_KIND
    from ._recompute import recheck_review_report

    if labels and (pack_path is None or path.is_dir()):
        raise UsageError(f"{path}: --labels recomputes a report: give the report and its "
                         "--pack as well")
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
    if kind == LABELS_KIND and labels:
        raise UsageError(f"{path}: --labels is for a report; a labels file is checked alone")
    if kind == REPORT_KIND and pack_path is not None and not labels:
        raise UsageError(f"{path}: a report is recomputed from its pack and labels: add --labels "
                         "FILE for every labels file it binds")
    try:
        if kind == REPORT_KIND:
            report = check_review_report(load_model(kind, doc, str(path)), str(path))
            if pack_path is not None:
                recheck_review_report(report, pack=pack_path, labels=labels, source=str(path))
        else:
            assert pack_path is not None
            checked = read_review_pack(pack_path)
            check_labels(load_model(kind, doc, str(path)), tasks_sha256=checked.tasks_sha256,
                         manifest=checked.manifest, source=str(path))
    except InputError as exc:
        return kind, str(exc).splitlines()
    return kind, []


@review_group.command("export-labelstudio")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--rater", required=True, help="The pack rater whose units to export.")
@click.option("--config", "config", type=click.Path(path_type=Path), default=None,
              help="Also write the Label Studio labelling config (XML) for these tasks.")
@out_option("Label Studio tasks file (JSON) to write (refused if it exists, unless --force).",
            required=True, kind="path", path_type=Path)
@force_option("Replace existing output files.")
@json_option("Print what was written as JSON on stdout.")
def export_labelstudio_command(pack: Path, rater: str, config: Path | None, out: Path,
                               force: bool, as_json: bool) -> int:
    """Export a rater's units as Label Studio tasks.

    Writes Label Studio's task import format, a JSON list of {"data": {...}} (one task per
    unit assigned to the rater, in the rater's order; data keeps unit_id, the pack's tasks.json
    SHA-256 and the rater, for the import), and with --config the labelling config XML: the
    verdict and the pack's failure categories as Choices, a note as TextArea.

    \b
    Example:
      aau review export-labelstudio pack/ --rater alice --out alice-tasks.json \\
          --config label-config.xml
    """
    from aau_core import json_content, write_outputs

    from ._labelstudio_export import labelstudio_config, labelstudio_tasks
    from ._pack import read_review_pack

    _check_outputs_outside(pack, {"--out": out, "--config": config}, inputs=(), force=force,
                           what="the export")
    checked = read_review_pack(pack)
    tasks = labelstudio_tasks(checked, rater)
    outputs: dict[Path, Any] = {out: json_content(tasks)}
    if config is not None:
        outputs[config] = labelstudio_config(checked)
    write_outputs(outputs, force=force)
    click.echo(f"{rater}: {len(tasks)} task(s) for Label Studio: {out}"
               + (f"; labelling config: {config}" if config else ""), err=True)
    if checked.manifest.sensitive_content.declared:
        click.echo("sensitive content declared by the suite: "
                   + ", ".join(checked.manifest.sensitive_content.declared)
                   + " (the tasks carry it to Label Studio: keep that server as private as the "
                     "pack)", err=True)
    if as_json:
        print_json({"path": str(out), "config": None if config is None else str(config),
                    "rater": rater, "tasks": len(tasks), "tasks_sha256": checked.tasks_sha256})
    return EXIT_OK


@review_group.command("import-labelstudio")
@click.argument("pack", type=click.Path(path_type=Path))
@click.argument("export", type=click.Path(path_type=Path))
@click.option("--rater", required=True, help="The pack rater the tasks were exported for.")
@click.option("--annotator", default=None,
              help="The Label Studio user (id or e-mail) whose annotations to take, when "
                   "several users annotated.")
@out_option("Labels file to write (refused if it exists, unless --force).", required=True,
            kind="path", path_type=Path)
@force_option("Replace an existing labels file.")
@json_option("Print the counts as JSON on stdout.")
def import_labelstudio_command(pack: Path, export: Path, rater: str, annotator: str | None,
                               out: Path, force: bool, as_json: bool) -> int:
    """Import a Label Studio JSON export as a rater's labels.

    Reads the tasks of export-labelstudio with their annotations (verdict, categories, note,
    lead_time as time spent, created_at as when); cancelled (skipped) annotations are no label
    and are counted. The labels name no Label Studio user, only the rater's pseudonym.

    \b
    Example:
      aau review import-labelstudio pack/ project-1-at-2026-12-01.json --rater alice \\
          --out alice.json
    """
    from aau_core import json_content, write_outputs

    from ._converter import converter
    from ._labelstudio_import import labels_from_labelstudio
    from ._pack import read_review_pack

    _check_outputs_outside(pack, {"--out": out}, inputs=(export,), force=force,
                           what="the labels")
    checked = read_review_pack(pack)
    result = labels_from_labelstudio(export, checked, rater, annotator=annotator)
    write_outputs({out: json_content(converter.unstructure(result.labels))}, force=force)
    counts = {"tasks": result.tasks, "labels": result.labelled, "cancelled": result.cancelled,
              "other_annotators": result.other_annotators,
              "without_lead_time": result.no_lead_time, "unlabelled": result.unlabelled}
    click.echo(f"{rater}: {result.labelled} label(s) from {result.tasks} task(s); "
               f"{result.cancelled} cancelled annotation(s) skipped"
               + (f"; {result.other_annotators} other users' annotation(s) left out"
                  if result.other_annotators else "")
               + (f"; {result.no_lead_time} without lead_time (time spent 0)"
                  if result.no_lead_time else "")
               + f"; {result.unlabelled} of the rater's unit(s) unlabelled", err=True)
    click.echo(f"labels: {out}", err=True)
    if as_json:
        print_json({"path": str(out), "rater": rater, **counts})
    return EXIT_OK
