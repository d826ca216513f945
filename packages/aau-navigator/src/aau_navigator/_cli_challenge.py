"""``aau challenge list|show|validate``: the Reliability Challenge's missions and finishes.

Reads a root folder in aau-harness 1.6's layout (``challenge/challenges.json``,
``challenge/entries/``, ``challenge/receipts/``, ``gallery/entries/`` and the labs; ``--root``,
default: the nearest folder at or above the current one holding ``gallery/`` or
``challenge/``). ``list`` and ``show`` read the catalog aau ships when there is no such root;
``validate`` needs one. See ``_challenge`` for the rules and docs/navigator.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from aau_core import print_json

from ._cli_options import CONTEXT, JSON_OPTION, ROOT_OPTION

# the missions' rules (_challenge) and the gallery (_gallery) load when a command runs, not for
# its --help (tests/test_startup_imports.py)

TRACKS = ("Reproduce", "Break", "Adapt")


@click.group("challenge", context_settings=CONTEXT, invoke_without_command=True)
@click.pass_context
def challenge_group(ctx: click.Context) -> None:
    """Run and validate Reliability Challenge missions (Reproduce, Break, Adapt).

    Without a subcommand: list. Outside a challenge root (no --root, no gallery/ or
    challenge/ at or above the current folder), list and show read the catalog aau ships.

    \b
    Examples:
      aau challenge list --track Break
      aau challenge show completion-is-not-correctness
      aau challenge validate my-completion-gap --root .
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
    from ._challenge import build_challenge
    from ._gallery import nearest_root

    data = build_challenge(root or nearest_root())
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
    return 0


@challenge_group.command("show", context_settings=CONTEXT)
@click.argument("target")
@ROOT_OPTION
@JSON_OPTION
def show_command(target: str, root: Path | None, as_json: bool) -> int:
    """Explain one mission: TARGET is its id or number (C01).

    \b
    Example:
      aau challenge show completion-is-not-correctness --root .

    Exit 0; 2 when TARGET names no mission or the catalog is invalid.
    """
    from ._challenge import load_challenge_catalog, render_challenge, resolve_challenge
    from ._gallery import nearest_root

    base = root or nearest_root()
    mission = resolve_challenge(load_challenge_catalog(base), target)
    if as_json:
        print_json(mission)
    else:
        click.echo(render_challenge(mission, base))
    return 0


def _row_for_file(base: Path, path: Path, challenges: dict[str, dict[str, Any]]
                  ) -> dict[str, Any]:
    from aau_core import UsageError, check_document

    from ._challenge import ENTRY_KIND, check_challenge_entry, gallery_row
    from ._documents import read_json
    from ._gallery import GALLERY_VERSION, GalleryContext, evaluate_entry

    doc = read_json(path)
    try:
        source = path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        source = str(path)
    version = doc.get("schema_version") if isinstance(doc, dict) else None
    if version == GALLERY_VERSION:
        entry = check_document("gallery-entry", doc, str(path))
        item = evaluate_entry(GalleryContext(base), entry, record_path=source)
        if not entry.get("challenge"):
            raise UsageError(f"{path}: this gallery entry claims no challenge")
        return gallery_row(item, challenges)
    receipt = check_document(ENTRY_KIND, doc, str(path))
    committed = path.parent.resolve() == (base / "challenge" / "entries").resolve()
    return check_challenge_entry(base, receipt, source=source, challenges=challenges,
                                 file_name=path.name if committed else None)


@challenge_group.command("validate", context_settings=CONTEXT)
@click.argument("target", required=False)
@ROOT_OPTION
@JSON_OPTION
def validate_command(target: str | None, root: Path | None, as_json: bool) -> int:
    """Check whether TARGET finishes its challenge: a receipt id or a Gallery entry id, or a
    receipt or Gallery entry file (a new submission). Without TARGET: the catalog (every
    starter lab exists) and every community entry.

    \b
    Examples:
      aau challenge validate your-handle-completion-gap --root .
      aau challenge validate challenge/entries/my-receipt.json --json

    Exit 0 finished, 1 not finished yet, 2 for an invalid file or a broken rule.
    """
    from aau_core import InputError, UsageError

    from ._challenge import build_challenge, load_challenge_catalog, missing_starter_labs
    from ._gallery import find_root

    base = root or find_root()
    if target is not None and target.endswith(".json") and Path(target).is_file():
        catalog = load_challenge_catalog(base)
        rows = [_row_for_file(base, Path(target),
                              {c["id"]: c for c in catalog["challenges"]})]
    else:
        data = build_challenge(base)
        if target is None:
            missing = missing_starter_labs(base, data)
            if missing:
                index, lab = missing[0]
                raise InputError(f"starter lab {lab!r} is not a folder under {base}",
                                 source=str(base / "challenge" / "challenges.json"),
                                 path=f"$.challenges[{index}].starter_lab")
        rows = [r for r in data["scoreboard"] if r["type"] == "community"
                and (target is None or r["entry_id"] == target)]
        if target is not None and not rows:
            raise UsageError(f"no community challenge entry has the id {target!r}")
    if as_json:
        print_json(rows[0] if target is not None else rows)
    else:
        click.echo("\n\n".join(
            f"{'PASS' if r['finish'] else 'NEXT'} · {r['entry_id']} · {r['track']}\n"
            f"{r['finish_detail']}"
            + (f"\nAchievements: {', '.join(r['achievements'])}" if r["finish"] else "")
            for r in rows) if rows else "No community challenge entry yet.")
    return 0 if all(r["finish"] for r in rows) else 1
