"""``aau gallery list|validate``: adapted labs and their evidence-derived trust levels.

Reads a root folder in aau-harness 1.6's layout (``gallery/entries/*.json`` beside the labs;
``--root``, default: the nearest folder at or above the current one holding ``gallery/`` or
``challenge/``). See ``_gallery`` for the fourteen checks and docs/navigator.md.
"""

from __future__ import annotations

from pathlib import Path

import click
from aau_core import print_json
from aau_evidence import DRAFT, LEVELS  # --trust's choices: the community evidence levels

from ._cli_options import CONTEXT, JSON_OPTION, ROOT_OPTION

# the gallery's checks (_gallery) load when a command runs, not for its --help
# (tests/test_startup_imports.py)


@click.group("gallery", context_settings=CONTEXT, invoke_without_command=True)
@click.pass_context
def gallery_group(ctx: click.Context) -> None:
    """Inspect adapted labs and the trust levels their committed evidence earns.

    Levels: Generated < Domain reviewed < Reproduced < Verified (Draft below Generated).
    Without a subcommand: list.

    \b
    Examples:
      aau gallery list --root . --trust Reproduced
      aau gallery validate medicaid-renewal-reference --root .
      aau gallery validate gallery/entries/my-adaptation.json --json
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_command)


@gallery_group.command("list", context_settings=CONTEXT)
@ROOT_OPTION
@click.option("--trust", type=click.Choice([*LEVELS, DRAFT]),
              help="Keep the entries at exactly this level.")
@JSON_OPTION
def list_command(root: Path | None, trust: str | None, as_json: bool) -> int:
    """List the gallery's entries, highest level first.

    \b
    Example:
      aau gallery list --root . --trust Verified --json

    Exit 0; 2 for an invalid entry, no root or no gallery/ under it (an entry whose lab folder is missing is listed
    as Draft, with the reason in its "runnable package" check).
    """
    from ._gallery import build_gallery, find_root, require_gallery

    gallery = build_gallery(require_gallery(root or find_root()))
    items = [i for i in gallery["entries"] if trust is None or i["trust"]["level"] == trust]
    if as_json:
        print_json({**gallery, "entries": items})
        return 0
    if not items:
        click.echo("No gallery entry" + (f" at level {trust}." if trust else "."))
    for index, item in enumerate(items):
        score = item["trust"]["score"]
        if index:
            click.echo("")
        click.echo(f"{item['icon']} {item['title']} · {item['trust']['level']} · "
                   f"{score['passed']}/{score['total']}")
        click.echo(f"   {item['industry']} · @{item['contributor']['github'].lstrip('@')} · "
                   f"{item['lab_path']}")
    return 0


@gallery_group.command("validate", context_settings=CONTEXT)
@click.argument("target", required=False)
@ROOT_OPTION
@JSON_OPTION
def validate_command(target: str | None, root: Path | None, as_json: bool) -> int:
    """Derive the trust level of TARGET: an entry id, a lab path, or an entry file (a new
    submission); without TARGET, of every committed entry.

    \b
    Examples:
      aau gallery validate medicaid-renewal-reference --root .
      aau gallery validate gallery/entries/my-adaptation.json

    Exit 0 when every entry checked clears Generated, 1 when one is still Draft (aau-harness
    1.6 refused to build a gallery with a Draft entry), 2 for bad input.
    """
    from ._gallery import (
        GalleryContext,
        build_gallery,
        evaluate_entry,
        find_root,
        load_entry,
        render_item,
        require_gallery,
        resolve_item,
    )

    base = root or find_root()
    if target is None or not target.endswith(".json") or not Path(target).is_file():
        require_gallery(base)  # an entry file (a new submission) needs no gallery/ yet
    if target is not None and target.endswith(".json") and Path(target).is_file():
        path = Path(target)
        try:
            record = path.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            record = str(path)
        items = [evaluate_entry(GalleryContext(base), load_entry(path), record_path=record)]
    else:
        entries = build_gallery(base)["entries"]
        items = [resolve_item(entries, target)] if target is not None else entries
    if as_json:
        print_json(items[0] if target is not None else items)
    else:
        click.echo("\n\n".join(render_item(i) for i in items) if items
                   else "No gallery entry to validate.")
    drafts = [i["id"] for i in items if i["trust"]["level"] == DRAFT]
    if drafts:
        click.echo(f"aau gallery: still Draft (below Generated): {', '.join(drafts)}", err=True)
        return 1
    return 0
