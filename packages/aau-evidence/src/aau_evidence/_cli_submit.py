"""``aau submit``: build a community-evidence pack from a starter, or validate one.

Exit codes: 0 built / valid; 1 ``--validate`` found the pack invalid (tampered, stale checks, a
receipt whose metrics do not derive from its rows, a sensitive-data finding); 2 usage or input
error (nothing is written then). Problems are printed one a line as ``file: $.json.path: message``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from aau_core import (
    EXIT_BAR_NOT_MET,
    EXIT_OK,
    UsageError,
    force_option,
    json_option,
    out_option,
    print_json,
)

if TYPE_CHECKING:
    from ._submit import SubmissionReport

_BUILD_REQUIRED = ("id", "contributor_name", "github", "summary", "why_fork", "beneficiaries",
                   "industry", "failure_shape")


@click.command("submit", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("starter", required=False, type=click.Path(path_type=Path))
@click.option("--validate", "pack", type=click.Path(path_type=Path), default=None,
              help="Validate an existing pack folder instead of building one.")
@click.option("--receipt", "receipts", multiple=True, type=click.Path(path_type=Path),
              help="A public receipt (aau evaluate; v1 or v2) of the starter's suite; repeat, "
                   "1 to 12, stored as receipts/run-01.json ... in this order.")
@out_option("New pack folder (default <id>-aau-submission; refused if it exists).",
            kind="path", path_type=Path)
@force_option("Replace an existing --out pack folder.")
@click.option("--id", "submission_id", help="Submission id: lowercase slug, <= 63 characters.")
@click.option("--contributor-name", help="Your name as you want it shown (<= 240).")
@click.option("--github", help="Your GitHub handle (not verified).")
@click.option("--summary", help="What the adapted starter evaluates (<= 240).")
@click.option("--why-fork", help="Why someone would fork it (<= 240).")
@click.option("--beneficiaries", help="Who benefits (<= 240).")
@click.option("--industry", help="Industry or sector (<= 240).")
@click.option("--failure-shape", help="The failure the suite probes (<= 240).")
@click.option("--tag", "tags", multiple=True, help="A tag (repeat or comma-separate; 2 to 6).")
@click.option("--origin", type=click.Choice(["community-submission", "maintainer-reference"]),
              default="community-submission", hidden=True)
@click.option("--reviewer", help="Domain reviewer's name.")
@click.option("--reviewer-role", help="Domain reviewer's role.")
@click.option("--review-scope", help="What the review covered.")
@click.option("--reviewed-at", help="Day of the review, YYYY-MM-DD (not in the future).")
@click.option("--source", "sources", multiple=True, help="An https:// source the review used "
              "(repeat, <= 8).")
@click.option("--reproducer-name", help="Name of the person who reproduced the result.")
@click.option("--reproducer-github", help="Reproducer's GitHub handle.")
@click.option("--reproduction-scope", help="What the reproduction covered.")
@click.option("--reproduction-receipt", help="Which --receipt the reproducer made: run-NN.")
@json_option("Print the verdict as JSON on stdout.")
def submit_command(starter: Path | None, pack: Path | None, receipts: tuple[Path, ...],
                   out: Path | None, force: bool, as_json: bool, **values: str | None) -> int:
    """Build a community-evidence pack from a starter and its receipts, or --validate one.

    The evidence level (Generated < Domain reviewed < Reproduced < Verified; Draft below) is
    derived from the artifacts, never chosen: Reproduced needs three receipt v2 runs that do not
    overlap in time and are not copies of each other (same latencies), from two environments
    (spellings of one interpreter, python/python3/env python, count once); Verified needs a
    named reproducer whose receipt comes from an environment that differs from every other
    receipt's in more than the adapter invocation. Provenance is self-reported: see the limits
    in docs/submit.md.

    \b
    Example:
      aau submit my-starter --receipt r1.json --receipt r2.json --receipt r3.json \\
          --id my-agent-evidence --contributor-name "Ada L" --github ada \\
          --summary "Routes questions" --why-fork "Reusable routing boundary" \\
          --beneficiaries Residents --industry "Public sector" \\
          --failure-shape "stale source" --tag routing --tag human-authority
      aau submit --validate my-agent-evidence-aau-submission
    """
    from ._submit import validate_pack

    if pack is not None:
        if starter is not None or receipts:
            raise UsageError("--validate takes a pack folder alone (no STARTER, no --receipt)")
        report = validate_pack(pack)
    else:
        report = _build(starter, receipts, out, force, values)
    _print(report, as_json)
    return EXIT_OK if report.ready else EXIT_BAR_NOT_MET


def _build(starter: Path | None, receipts: tuple[Path, ...], out: Path | None, force: bool,
           values: dict[str, str | None]) -> SubmissionReport:
    from aau_evidence import __version__

    from ._submit import build_submission
    from ._submit_documents import receipt_selector, resolve_metadata

    missing = (["STARTER"] if starter is None else []) + [
        "--" + k.replace("_", "-") for k in _BUILD_REQUIRED
        if values.get(k if k != "id" else "submission_id") is None]
    if missing:
        raise UsageError("missing build arguments: " + ", ".join(missing)
                         + " (or --validate PACK)")
    assert starter is not None
    reproduction = {"reproducer_name": values["reproducer_name"],
                    "reproducer_github": values["reproducer_github"],
                    "scope": values["reproduction_scope"]}
    if values["reproduction_receipt"] is not None:
        reproduction["receipt_file"] = receipt_selector(values["reproduction_receipt"],
                                                        len(receipts))
    metadata = resolve_metadata(
        submission_id=str(values["submission_id"]), contributor_name=str(values["contributor_name"]),
        github=str(values["github"]), summary=str(values["summary"]),
        why_fork=str(values["why_fork"]), beneficiaries=str(values["beneficiaries"]),
        industry=str(values["industry"]), failure_shape=str(values["failure_shape"]),
        tags=list(values["tags"] or ()), origin=str(values["origin"]),
        review={"reviewer": values["reviewer"], "reviewer_role": values["reviewer_role"],
                "scope": values["review_scope"], "reviewed_at": values["reviewed_at"],
                "sources": list(values["sources"] or ())},
        reproduction=reproduction)
    target = out if out is not None else Path(f"{metadata['id']}-aau-submission")
    return build_submission(starter, receipts, target, metadata,
                            package_version=__version__, force=force)


def _print(report: SubmissionReport, as_json: bool) -> None:
    for line in report.problems:
        click.echo(line, err=True)
    if report.ready:
        declared = (f" (checks.json declares {report.declared_level} under "
                    f"{report.checks_version})"
                    if report.declared_level not in (None, report.level) else "")
        click.echo(f"{report.path}: valid submission {report.submission_id}: level "
                   f"{report.level}{declared}; {report.score['passed']}/{report.score['total']} "
                   f"checks, {report.receipt_count} receipt(s), {report.file_count} files",
                   err=True)
    else:
        click.echo(f"{report.path}: invalid submission pack ({len(report.problems)} problem(s))",
                   err=True)
    if as_json:
        from ._converter import converter

        print_json(converter.unstructure(report.verdict()))


submit_group = submit_command
"""The entry point ``aau.commands: submit`` names (a single command, not a group)."""
