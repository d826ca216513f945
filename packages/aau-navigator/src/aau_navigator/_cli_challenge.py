"""``aau challenge list|show|receipt|validate``: the Reliability Challenge's missions and finishes.

Reads a root folder in aau-harness 1.6's layout (``challenge/challenges.json``,
``challenge/entries/``, ``challenge/receipts/``, ``gallery/entries/`` and the labs; ``--root``,
default: the nearest folder at or above the current one holding ``gallery/`` or
``challenge/``, else the current folder). A root without its own ``challenge/challenges.json``
uses the catalog aau ships. Presentation only: the rules are ``_challenge``'s; see
docs/navigator.md.
"""

from __future__ import annotations

from pathlib import Path

import click
from aau_core import force_option, print_json

from ._cli_options import CONTEXT, JSON_OPTION

# the missions' rules (_challenge) and the gallery (_gallery) load when a command runs, not for
# its --help (tests/test_startup_imports.py)

TRACKS = ("Reproduce", "Break", "Adapt")

ROOT_OPTION = click.option(
    "--root", type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Folder holding the labs, challenge/ and gallery/ (default: the nearest folder at or "
         "above the current one with gallery/ or challenge/, else the current folder).")


def _root(root: Path | None) -> Path:
    from ._challenge import challenge_root

    return root if root is not None else challenge_root()


@click.group("challenge", context_settings=CONTEXT, invoke_without_command=True)
@click.pass_context
def challenge_group(ctx: click.Context) -> None:
    """Run and validate Reliability Challenge missions (Reproduce, Break, Adapt).

    Without a subcommand: list. The root is --root, else the nearest folder at or above the
    current one with gallery/ or challenge/, else the current folder; its own
    challenge/challenges.json is used when it has one, else the catalog aau ships.

    \b
    Examples:
      aau challenge list --track Break
      aau challenge show completion-is-not-correctness
      aau new-use-case --industry healthcare --name prior-auth-triage-agent --seed 41
      aau challenge receipt C01 --id my-completion-gap --github my-handle --scenario prior-auth-triage-agent-003 --claim "Every case submitted, 23 of 30 right"
      aau challenge validate my-completion-gap
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_command)


@challenge_group.command("list", context_settings=CONTEXT)
@ROOT_OPTION
@click.option("--track", type=click.Choice(TRACKS), help="Keep the missions of this track.")
@JSON_OPTION
def list_command(root: Path | None, track: str | None, as_json: bool) -> int:
    """List the missions (with --json: also the scoreboard and its statistics).

    \b
    Example:
      aau challenge list --root . --track Adapt

    Exit 0; 2 for an invalid catalog, receipt or Gallery entry (an entry whose lab is missing
    is listed as Draft, not an error).
    """
    from ._challenge import build_challenge, catalog_label

    base = _root(root)
    data = build_challenge(base)
    missions = [c for c in data["challenges"] if track is None or c["track"] == track]
    if as_json:
        print_json({**data, "challenges": missions})
        return 0
    for mission in missions:
        click.echo(f"{mission['number']}  {mission['track']:<9} {mission['title']} · "
                   f"~{mission['minutes']} min")
        click.echo(f"     {mission['id']}")
    stats = data["stats"]
    click.echo(f"\n{stats['community_finishes']} community finish(es) by "
               f"{stats['community_participants']} participant(s); "
               f"{stats['reference_finishes']} reference lab(s).")
    click.echo(f"Catalog: {catalog_label(base)}")
    return 0


@challenge_group.command("show", context_settings=CONTEXT)
@click.argument("target")
@ROOT_OPTION
@JSON_OPTION
def show_command(target: str, root: Path | None, as_json: bool) -> int:
    """Explain one mission: TARGET is its id or number (C01); say whether its lab is there and
    the next command (make the lab; once it exists, write a receipt and validate it).

    \b
    Example:
      aau challenge show completion-is-not-correctness --root .

    Exit 0; 2 when TARGET names no mission or the catalog is invalid.
    """
    from ._challenge import load_challenge_catalog, render_challenge, resolve_challenge

    base = _root(root)
    mission = resolve_challenge(load_challenge_catalog(base), target)
    if as_json:
        print_json(mission)
    else:
        click.echo(render_challenge(mission, base))
    return 0


@challenge_group.command("receipt", context_settings=CONTEXT)
@click.argument("target")
@click.option("--id", "entry_id", required=True,
              help="Receipt id, a lowercase hyphenated slug (the file challenge/entries/ID.json).")
@click.option("--github", required=True, help="Your GitHub handle.")
@click.option("--scenario", "scenario_ids", multiple=True, required=True,
              help="A scenario id of the lab that your note traces (repeatable, up to ten).")
@click.option("--claim", required=True, help="What you reproduced or broke (<= 240 characters).")
@click.option("--name", help="Your name or organisation (default: the GitHub handle).")
@click.option("--result", help="The result file, relative to the root (default: "
                               "<lab>/results/eval_mock.json, the mock run new-use-case wrote).")
@ROOT_OPTION
@force_option("Replace an existing receipt and note.")
def receipt_command(target: str, entry_id: str, github: str, scenario_ids: tuple[str, ...],
                    claim: str, name: str | None, result: str | None, root: Path | None,
                    force: bool) -> int:
    """Write a receipt for a Reproduce or Break mission (TARGET: its id or number) whose lab
    exists: challenge/entries/ID.json and its note challenge/receipts/ID.md, checked by the
    rules of validate before anything is written. Edit the note to say what you found.

    \b
    Example:
      aau new-use-case --industry healthcare --name prior-auth-triage-agent --seed 41
      aau challenge receipt C01 --id my-completion-gap --github my-handle --scenario prior-auth-triage-agent-003 --claim "Every case submitted, 23 of 30 right"

    Exit 0 written; 2 for an unknown or Adapt mission, a missing lab, a broken rule or a file
    that exists (without --force).
    """
    from ._challenge import shown_path, write_receipt

    receipt, note = write_receipt(_root(root), target, entry_id=entry_id, github=github,
                                  scenario_ids=list(scenario_ids), claim=claim, name=name,
                                  result=result, force=force)
    click.echo(f"wrote {shown_path(receipt)} and {shown_path(note)} (edit the note to say "
               "what you found)")
    click.echo(f"next: aau challenge validate {entry_id}"
               + ("" if root is None else f" --root {root}"))
    return 0


@challenge_group.command("validate", context_settings=CONTEXT)
@click.argument("target", required=False)
@ROOT_OPTION
@JSON_OPTION
def validate_command(target: str | None, root: Path | None, as_json: bool) -> int:
    """Check whether TARGET finishes its challenge: a receipt id or a Gallery entry id, a
    mission's id or number (its entries), or a receipt or Gallery entry file (a new
    submission). Without TARGET: every community entry (and, for a root's own catalog, that
    every starter lab exists).

    \b
    Examples:
      aau new-use-case --industry healthcare --name prior-auth-triage-agent --seed 41
      aau challenge receipt C01 --id your-handle-completion-gap --github your-handle --scenario prior-auth-triage-agent-003 --claim "Every case submitted, 23 of 30 right"
      aau challenge validate your-handle-completion-gap --root .
      aau challenge validate challenge/entries/your-handle-completion-gap.json --json

    Exit 0 finished, 1 not finished yet (or nothing to check yet), 2 for an invalid file or a
    broken rule.
    """
    from ._challenge import render_nothing_to_validate, validate_challenge

    base = _root(root)
    found = validate_challenge(base, target)
    rows = found["rows"]
    single = target is not None and found["challenge"] is None
    if as_json:
        print_json(rows[0] if single else rows)
    elif not rows:
        click.echo(render_nothing_to_validate(base, found["challenge"]))
    else:
        click.echo("\n\n".join(
            f"{'PASS' if r['finish'] else 'NEXT'} · {r['entry_id']} · {r['track']}\n"
            f"{r['finish_detail']}"
            + (f"\nAchievements: {', '.join(r['achievements'])}" if r["finish"] else "")
            for r in rows))
        click.echo(f"\nCatalog: {found['catalog']}")
    return 0 if rows and all(r["finish"] for r in rows) else 1
