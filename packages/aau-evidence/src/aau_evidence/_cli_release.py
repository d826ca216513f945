"""``aau release``: change-aware release evidence (``capture``, ``diff``, ``assess``, ``verify``,
``export-oscal``).

Exit codes: 0 done (``assess``: not blocked; ``verify``: the pack verifies); 1 bar not met
(``assess``: the release is ``release_blocked``; ``verify``: the pack fails); 2 usage or input
error (nothing is written then). aau-harness 1.6 exited 0 for a blocked release and 2 for every
handled error. Problems print one a line as ``file: $.json.path: message`` on stderr; ``--json``
prints a summary object on stdout.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from aau_adapters import header_option
from aau_core import (
    EXIT_BAR_NOT_MET,
    EXIT_OK,
    UsageError,
    check_outputs,
    force_option,
    json_on_not_measured,
    json_option,
    out_option,
    print_json,
    write_outputs,
)

_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
_OUT_HELP = "Write the result here (refuses to replace a file without --force)."


def _emit(summary: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(summary)


@click.group("release", context_settings=_SETTINGS)
def release_group() -> None:
    """Change-aware agent release evidence: capture, diff, assess, verify, export-oscal.

    \b
    Example:
      aau release capture candidate-manifest.json --out candidate-snapshot.json
      aau release diff baseline-snapshot.json candidate-snapshot.json --out diff.json
      aau release assess baseline.json candidate.json policy.json plan.json \\
          --command "python agent.py" --approval approval.json --out pack/
      aau release verify pack/
      aau release export-oscal pack/release-decision.json --out results.oscal.json
    """


@release_group.command("capture", context_settings=_SETTINGS)
@click.argument("manifest", type=click.Path(path_type=Path))
@out_option(_OUT_HELP, required=True, kind="path", path_type=Path)
@force_option("Replace an existing --out file.")
@json_option()
def capture_command(manifest: Path, out: Path, force: bool, as_json: bool) -> int:
    """Hash every component a release MANIFEST declares into a snapshot.

    Component paths are relative to the manifest's folder; symlinks, '..' and files over
    5,000,000 bytes are refused.

    \b
    Example:
      aau release capture candidate-manifest.json --out candidate-snapshot.json
    """
    from ._release_documents import release_bytes
    from ._release_snapshot import capture_snapshot

    check_outputs({"--out": out}, inputs=[manifest], force=force)
    snapshot = capture_snapshot(manifest)
    write_outputs({out: release_bytes(snapshot).decode("utf-8")}, force=force)
    click.echo(f"{out}: captured {len(snapshot.components)} components of release "
               f"{snapshot.release_id}", err=True)
    _emit({"path": str(out), "release_id": snapshot.release_id,
           "component_count": len(snapshot.components),
           "snapshot_sha256": snapshot.snapshot_sha256}, as_json)
    return EXIT_OK


@release_group.command("diff", context_settings=_SETTINGS)
@click.argument("baseline", type=click.Path(path_type=Path))
@click.argument("candidate", type=click.Path(path_type=Path))
@out_option(_OUT_HELP, required=True, kind="path", path_type=Path)
@force_option("Replace an existing --out file.")
@json_option()
def diff_command(baseline: Path, candidate: Path, out: Path, force: bool, as_json: bool) -> int:
    """Compare two snapshots of one agent: which components changed, which tags they touch.

    \b
    Example:
      aau release diff baseline-snapshot.json candidate-snapshot.json --out diff.json
    """
    from ._release_diff import diff_snapshots
    from ._release_documents import check_snapshot, load, release_bytes

    check_outputs({"--out": out}, inputs=[baseline, candidate], force=force)
    before = load(check_snapshot, baseline)
    after = load(check_snapshot, candidate)
    diff = diff_snapshots(before, after)
    write_outputs({out: release_bytes(diff).decode("utf-8")}, force=force)
    click.echo(f"{out}: {len(diff.changes)} changed component(s), touching "
               f"{len(diff.impacted_tags)} impact tag(s)", err=True)
    _emit({"path": str(out), "change_count": len(diff.changes),
           "impacted_tags": list(diff.impacted_tags), "diff_sha256": diff.diff_sha256}, as_json)
    return EXIT_OK


@release_group.command("assess", context_settings=_SETTINGS)
@click.argument("baseline_manifest", type=click.Path(path_type=Path))
@click.argument("candidate_manifest", type=click.Path(path_type=Path))
@click.argument("policy", type=click.Path(path_type=Path))
@click.argument("plan", type=click.Path(path_type=Path))
@click.option("--command", "command", metavar="CMD",
              help="Run this program per case (shlex-split, no shell), as `aau evaluate`.")
@click.option("--endpoint", metavar="URL", help="POST each case as JSON to this http(s) URL.")
@click.option("--mock", is_flag=True,
              help="Protocol self-test; never yields release_ready.")
@click.option("--timeout", type=float, default=30.0, show_default=True,
              help="Seconds allowed per case.")
@header_option()
@click.option("--approval", type=click.Path(path_type=Path), default=None,
              help="A human approval record for the candidate release.")
@click.option("--review-report", "review_reports", multiple=True,
              type=click.Path(path_type=Path),
              help="A review report (aau review summarize) of a suite, for the policy's "
                   "review_requirements (repeat, one per suite).")
@out_option("The pack folder to create (refuses an existing one without --force).",
            required=True, kind="path", path_type=Path)
@force_option("Replace an existing --out folder.")
@click.option("--quiet", "-q", is_flag=True,
              help="No per-suite lines and no progress bar on stderr (one summary line).")
@json_option()
def assess_command(baseline_manifest: Path, candidate_manifest: Path, policy: Path, plan: Path,
                   command: str | None, endpoint: str | None, mock: bool, timeout: float,
                   headers: tuple[str, ...], approval: Path | None, review_reports: tuple[Path, ...], out: Path,
                   force: bool, quiet: bool, as_json: bool) -> int:
    """Capture both releases, run only the suites mapped to what changed, decide, and write a
    verified evidence pack.

    A 1.1 policy's review_requirements need a --review-report per suite: the scorer's Cohen's
    kappa against people must clear the bar on its interval's low bound (docs/release.md).

    Exit 0 when the release is release_ready or human_review_required, 1 when it is
    release_blocked, 2 on a usage or input error, 3 when a suite measured nothing (every case
    failed in the adapter or transport; no pack is written on 2 or 3).

    \b
    Example:
      aau release assess baseline.json candidate.json policy.json plan.json \\
          --command "python agent.py" --approval approval.json --out pack/
    """
    from aau_adapters import choose_adapter
    from aau_core import DelayedProgress, check_pack_output

    from ._capsule_artifacts import read_artifact_bytes
    from ._release_diff import diff_snapshots
    from ._release_documents import check_approval, check_plan, check_policy, read_document
    from ._release_pack import release_pack_files, write_release_pack
    from ._release_review import read_review_reports, review_reason_lines
    from ._release_snapshot import capture_snapshot
    from ._release_suites import run_impacted_suites

    make_adapter = choose_adapter(command=command, endpoint=endpoint, mock=mock, timeout=timeout,
                                  headers=headers)
    inputs = [baseline_manifest, candidate_manifest, policy, plan,
              *([approval] if approval is not None else []), *review_reports]
    check_pack_output(out, inputs=inputs, force=force, kind="release-pack-manifest")
    baseline = capture_snapshot(baseline_manifest)
    candidate = capture_snapshot(candidate_manifest)
    documents = {"release-policy.json": read_document(policy),
                 "evidence-plan.json": read_document(plan)}
    policy_model = check_policy(documents["release-policy.json"], str(policy))
    plan_model = check_plan(documents["evidence-plan.json"], str(plan))
    approval_model = None
    if approval is not None:
        documents["approval.json"] = read_document(approval)
        approval_model = check_approval(documents["approval.json"], str(approval),
                                        release_id=candidate.release_id)
    if review_reports and policy_model.review_requirements is None:
        raise UsageError(f"--review-report: {policy} has no review_requirements (a 1.1 "
                         "policy names the suites and scorers a review report must cover)")
    review_files = {str(path): read_artifact_bytes(path) for path in review_reports}
    read_review_reports(review_files)  # every report checked before any suite runs
    impacted = set(diff_snapshots(baseline, candidate).impacted_tags)
    adapter = make_adapter()
    try:
        with json_on_not_measured(as_json, path=None, status=None):
            receipts = run_impacted_suites(
                plan_model, plan, impacted, adapter, timeout_s=timeout,
                on_suite=None if quiet else lambda sid: click.echo(f"running suite {sid}",
                                                                   err=True),
                progress=lambda sid, n: DelayedProgress(n, sid, quiet=quiet))
    finally:
        adapter.close()
    kind = adapter.describe()["kind"]
    files, decision = release_pack_files(baseline, candidate, policy_model, plan_model, receipts,
                                         kind, approval_model, documents=documents,
                                         review_files=review_files)
    write_release_pack(out, files, force=force, inputs=inputs)
    for line in review_reason_lines(decision.review_evidence or (), decision.reason_codes):
        click.echo(line, err=True)
    click.echo(f"{out}: {decision.status} ({len(receipts)} suite(s) run"
               + (f"; {', '.join(decision.reason_codes)}" if decision.reason_codes else "")
               + ")", err=True)
    _emit({"measured": True, "path": str(out), "status": decision.status, "adapter_kind": kind,
           "suites_run": sorted(receipts), "reason_codes": list(decision.reason_codes),
           "decision_sha256": decision.decision_sha256}, as_json)
    return EXIT_BAR_NOT_MET if decision.status == "release_blocked" else EXIT_OK


@release_group.command("verify", context_settings=_SETTINGS)
@click.argument("pack", type=click.Path(path_type=Path))
@json_option("Print the verdict as JSON on stdout.")
def verify_command(pack: Path, as_json: bool) -> int:
    """Verify a release pack: every hash, every document, every receipt's rows against its
    metrics, and the decision, diff, OSCAL document and provenance recomputed from the inputs.

    Exit 0 when it verifies, 1 when it does not (one line per problem), 2 when PACK is not a
    folder.

    \b
    Example:
      aau release verify pack/
    """
    from ._release_pack import verify_release_pack

    decision, problems = verify_release_pack(pack)
    for line in problems:
        click.echo(line, err=True)
    status = decision.status if decision else None
    click.echo(f"{pack}: " + (f"verified, status {status}" if not problems
                              else f"does not verify ({len(problems)} problems)"), err=True)
    _emit({"path": str(pack), "verified": not problems, "status": status,
           "problems": problems}, as_json)
    return EXIT_BAR_NOT_MET if problems else EXIT_OK


@release_group.command("export-oscal", context_settings=_SETTINGS)
@click.argument("decision", type=click.Path(path_type=Path))
@click.option("--assessment-plan", default=None, metavar="HREF",
              help="import-ap href, https: or urn: (default: a placeholder "
                   "https://example.invalid/aau/assessment-plan.json).")
@out_option(_OUT_HELP, required=True, kind="path", path_type=Path)
@force_option("Replace an existing --out file.")
@json_option()
def export_oscal_command(decision: Path, assessment_plan: str | None, out: Path, force: bool,
                         as_json: bool) -> int:
    """Map a release DECISION to a non-certifying OSCAL Assessment Results document.

    \b
    Example:
      aau release export-oscal pack/release-decision.json --out results.oscal.json
    """
    from ._oscal import (
        DEFAULT_ASSESSMENT_PLAN,
        check_assessment_plan_href,
        oscal_assessment_results,
    )
    from ._release_documents import check_decision, document, load, release_bytes

    href = check_assessment_plan_href(assessment_plan or DEFAULT_ASSESSMENT_PLAN)
    check_outputs({"--out": out}, inputs=[decision], force=force)
    doc = load(check_decision, decision)
    oscal = oscal_assessment_results(document(doc), href)
    write_outputs({out: release_bytes(oscal).decode("utf-8")}, force=force)
    result = oscal["assessment-results"]["results"][0]
    click.echo(f"{out}: OSCAL assessment results for {doc.release_id} "
               f"(status {doc.status}); not a certification or compliance finding", err=True)
    _emit({"path": str(out), "decision_sha256": doc.decision_sha256,
           "observation_count": len(result.get("observations", [])),
           "finding_count": len(result.get("findings", []))}, as_json)
    return EXIT_OK


def release_main() -> None:
    """Console-script entry point for the ``aau-release`` alias."""
    from aau_core import run

    sys.exit(run(command=release_group, prog_name="aau-release"))
