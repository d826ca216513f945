"""``aau baseline``: blinded human-baseline studies (``prepare``, ``summarize``, ``validate``).

Exit codes: 0 done / valid; 1 ``validate`` found the file invalid; 2 usage or input error
(``summarize`` writes nothing then); 3 ``summarize`` found no answered task (every response
abstained: not a measurement, nothing written). Problems are printed one a line as
``file: $.json.path: message``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from aau_core import (
    EXIT_BAR_NOT_MET,
    EXIT_OK,
    InputError,
    UsageError,
    atomic_write_json,
    check_outputs,
    force_option,
    json_on_not_measured,
    json_option,
    out_option,
    print_json,
)


@click.group("baseline", context_settings={"help_option_names": ["-h", "--help"]})
def baseline_group() -> None:
    """Blinded human-baseline studies: prepare a pack, summarize sessions, validate files.

    \b
    Example:
      aau baseline prepare suite.json --id my-study --title T --purpose P --out pack/
      aau baseline summarize pack/ --session s1.json --session s2.json --out report.json
      aau baseline validate pack/
    """


@baseline_group.command("prepare")
@click.argument("suite", type=click.Path(path_type=Path))
@click.option("--id", "study_id", required=True,
              help="Study id: a slug of lowercase letters, digits and inner hyphens (<= 63).")
@click.option("--title", required=True, help="Study title (<= 120 characters).")
@click.option("--purpose", required=True, help="What the study measures (<= 500 characters).")
@out_option("New folder for the pack (refused if it exists).",
            required=True, kind="path", path_type=Path)
@json_option()
def prepare_command(suite: Path, study_id: str, title: str, purpose: str, out: Path,
                    as_json: bool) -> int:
    """Prepare a blinded human-baseline pack from a suite.

    Writes study.json (inputs in blinded order, no expected answers), session-template.json,
    README.md, answer-key.json (kept apart from participants) and a SHA-256 manifest.json, into
    a new folder, atomically.

    \b
    Example:
      aau baseline prepare suite.json --id routing-baseline --title "Routing baseline" \\
          --purpose "Compare routing accuracy with the human process" --out pack/
    """
    from aau_adapters import load_suite

    from ._prepare import build_study, pack_files, write_study_pack

    if out.exists() or out.is_symlink():
        raise UsageError(f"--out {out}: exists; choose a new folder for the pack")
    study, answer_key = build_study(load_suite(suite), study_id=study_id, title=title,
                                    purpose=purpose)
    write_study_pack(out, pack_files(study, answer_key))
    click.echo(f"{study_id}: {len(study.cases)} case(s) in blinded order, "
               f"{len(study.outcomes)} outcome(s); review_status not_determined", err=True)
    click.echo(f"pack: {out} (keep answer-key.json away from participants)", err=True)
    if as_json:
        print_json({"path": str(out), "study_id": study_id,
                    "case_count": len(study.cases),
                    "outcome_count": len(study.outcomes),
                    "review_status": "not_determined"})
    return EXIT_OK


@baseline_group.command("summarize")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--session", "sessions", multiple=True, required=True, type=click.Path(path_type=Path),
              help="A filled-in session file (repeat; 1 to 250, unique anonymous ids).")
@click.option("--agent-receipt", type=click.Path(path_type=Path), default=None,
              help="An aau-byo-agent-receipt (1.0, or 2.0 with one repeat) of a non-mock "
                   "agent on the study's suite, covering every case: adds a descriptive "
                   "comparison.")
@out_option("Report file to write (refused if it exists, unless --force).",
            required=True, kind="path", path_type=Path)
@force_option("Replace an existing --out file.")
@json_option("Print the report's metrics on stdout (on exit 3, \"measured\": false and why).")
def summarize_command(pack: Path, sessions: tuple[Path, ...], agent_receipt: Path | None,
                      out: Path, force: bool, as_json: bool) -> int:
    """Summarize anonymous sessions of a pack into an aggregate-only report.

    The report holds the exact rate with its Wilson 95 % interval, abstention, median and p90
    task time, mean confidence and calibration gap, per-scenario agreement and Fleiss' kappa
    (null when undefined), and no participant ids, responses or free text. Exit 3, nothing
    written, when every response abstained (no task was answered).

    \b
    Example:
      aau baseline summarize pack/ --session sessions/s1.json --session sessions/s2.json \\
          --agent-receipt receipt.json --out report.json
    """
    from ._converter import converter
    from ._documents import (
        REPORT_KIND,
        SESSION_KIND,
        check_agent_receipt,
        check_baseline_report,
        check_schema,
        check_session,
        load,
        load_receipt,
    )
    from ._pack import read_pack
    from ._protocol import MAX_SESSIONS
    from ._report import build_report

    if len(sessions) > MAX_SESSIONS:
        raise UsageError(f"--session: at most {MAX_SESSIONS} sessions, got {len(sessions)}")
    from aau_core._files._manifest import (  # internal to the monorepo
        check_outputs_outside_pack,
    )

    pack_dir = Path(pack)  # every file of the pack folder is read: --out may name none of them
    check_outputs_outside_pack(pack_dir, {"--out": out}, "the report")
    pack_files = [f for f in pack_dir.iterdir() if f.is_file()] if pack_dir.is_dir() else [pack]
    check_outputs({"--out": out}, inputs=[*pack_files, *sessions,
                                          *([agent_receipt] if agent_receipt else [])],
                  force=force)
    checked = read_pack(pack)
    study = checked.study
    docs = []
    seen: dict[str, Path] = {}
    for path in sessions:
        doc = check_session(load(SESSION_KIND, path), study, str(path))
        sid = doc.anonymous_session_id
        if sid in seen:
            raise InputError(f"same anonymous_session_id as {seen[sid]}", source=str(path),
                             path="$.anonymous_session_id")
        seen[sid] = path
        docs.append(doc)
    receipt = None
    if agent_receipt is not None:
        receipt = check_agent_receipt(load_receipt(agent_receipt), study,
                                      str(agent_receipt))
    with json_on_not_measured(as_json, report=None, study_id=study.study_id):
        model, metrics = build_report(study, checked.answer_key, docs, receipt)
    report = check_schema(REPORT_KIND, converter.unstructure(model), "<report>")
    check_baseline_report(model, "<report>")
    atomic_write_json(out, report, ensure_ascii=True, force=force)
    m = report["metrics"]
    low, high = m["outcome_exact_wilson_95"]
    lines = [
        f"{study.study_id}: {len(docs)} session(s) x {len(study.cases)} case(s) = "
        f"{m['response_count']} response(s)",
        f"  outcome_exact_rate   {m['outcome_exact_rate']:.4f}  95% Wilson [{low:.4f}, {high:.4f}]",
        f"  abstain_rate         {m['abstain_rate']:.4f}",
        f"  task time            median {m['median_task_time_ms']} ms, p90 "
        f"{m['p90_task_time_ms']} ms",
        "  fleiss_kappa         " + (f"{m['fleiss_kappa']:.4f}" if m["fleiss_kappa"] is not None
                                      else f"null ({metrics.fleiss_kappa_note})"),
    ]
    if report["agent_comparison"] is not None:
        c = report["agent_comparison"]
        lines.append(f"  agent exact_rate     {c['agent_exact_rate']:.4f} (human - agent "
                     f"{c['human_minus_agent_exact_rate']:+.4f}; descriptive only)")
    lines.append(f"report: {out}")
    for line in lines:
        click.echo(line, err=True)
    if as_json:
        print_json({"measured": True, "report": str(out), "metrics": m,
                    "fleiss_kappa_note": metrics.fleiss_kappa_note})
    return EXIT_OK


@baseline_group.command("validate")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--study", type=click.Path(path_type=Path), default=None,
              help="The study a session belongs to (needed to validate a session).")
@json_option("Print the verdict as JSON on stdout.")
def validate_command(path: Path, study: Path | None, as_json: bool) -> int:
    """Check a pack folder, a session (with --study) or a report.

    Exit 0 when valid, 1 when invalid (one line per problem), 2 when PATH is not one of those.

    \b
    Example:
      aau baseline validate pack/
      aau baseline validate session.json --study pack/study.json
      aau baseline validate report.json
    """
    kind, problems, facts = _validate(path, study)
    verdict: dict[str, Any] = {"path": str(path), "kind": kind, "valid": not problems,
                               "problems": problems, **facts}
    if problems:
        for line in problems:
            click.echo(line, err=True)
        click.echo(f"{path}: invalid {kind}", err=True)
    else:
        click.echo(f"{path}: valid {kind}", err=True)
    if as_json:
        print_json(verdict)
    return EXIT_BAR_NOT_MET if problems else EXIT_OK


def _validate(path: Path, study_path: Path | None) -> tuple[str, list[str], dict[str, Any]]:
    """(kind, problem lines, facts). Raises UsageError/InputError when PATH cannot be judged."""
    from aau_schemas import detect_kind

    from ._documents import (
        REPORT_KIND,
        SESSION_KIND,
        STUDY_KIND,
        check_baseline_report,
        check_session,
        check_study,
        load,
        load_model,
        read_document,
    )
    from ._pack import read_pack

    if path.is_dir():
        try:
            pack = read_pack(path)
        except InputError as exc:
            return "human-baseline pack", str(exc).splitlines(), {}
        return "human-baseline pack", [], {"study_id": pack.study.study_id,
                                           "case_count": len(pack.study.cases),
                                           "outcome_count": len(pack.study.outcomes)}
    doc = read_document(path)
    kind = detect_kind(doc) if isinstance(doc, dict) else None
    if kind not in (REPORT_KIND, SESSION_KIND):
        raise InputError("not a human-baseline pack folder, session or report", source=str(path))
    if kind == SESSION_KIND and study_path is None:
        raise UsageError(f"{path}: a session is validated against its study: add --study FILE")
    try:
        if kind == REPORT_KIND:
            check_baseline_report(load_model(kind, doc, str(path)), str(path))
        else:
            assert study_path is not None
            study = check_study(load(STUDY_KIND, study_path), str(study_path))
            check_session(load_model(kind, doc, str(path)), study, str(path))
    except InputError as exc:
        return kind, str(exc).splitlines(), {}
    return kind, [], {}


def baseline_main() -> None:
    """Console-script entry point for the ``aau-baseline`` alias."""
    from aau_core import run

    sys.exit(run(command=baseline_group, prog_name="aau-baseline"))
