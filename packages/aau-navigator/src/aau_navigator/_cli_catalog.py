"""``aau list``, ``aau find``, ``aau show``, ``aau start``: browse the use-case catalog.

All four read the catalog that ships with aau-navigator unless ``--catalog FILE`` names another
(aau's ``aau-catalog/1.0`` document or aau-harness 1.6's ``docs/use-cases.json``, as is).
Nothing is installed or run: ``start`` only prints commands. Listings go to stdout
(``--json``: the matching entries as a JSON array, itself a valid ``use-cases`` document).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from aau_core import json_option, print_json

from ._cli_options import CONTEXT

if TYPE_CHECKING:  # the catalog loads when a command runs, not for its --help
    from ._catalog import Catalog, CatalogEntry


def _catalog_options(function):  # type: ignore[no-untyped-def]
    function = click.option(
        "--root", type=click.Path(file_okay=False, path_type=Path),
        help="Folder the entries' paths and commands are relative to (default: for "
             "X/docs/use-cases.json, X; else the catalog's folder; for the bundled catalog, "
             "the current folder).")(function)
    return click.option(
        "--catalog", "catalog_file", type=click.Path(dir_okay=False, path_type=Path),
        help="Catalog file: aau-catalog/1.0 or aau-harness 1.6's use-cases.json "
             "(default: the catalog bundled with aau-navigator).")(function)


def _load(catalog_file: Path | None, root: Path | None) -> Catalog:
    from ._catalog import load_catalog

    return load_catalog(catalog_file, root=root)


def _render_list(entries: list[CatalogEntry]) -> str:
    if not entries:
        return "No use case matched. Run 'aau list' to see them all."
    width = max(len(e.title) for e in entries)
    lines = []
    for e in entries:
        lines.append(f"{e.icon}  {e.title:<{width}}  {e.industry}")
        lines.append(f"    {' · '.join(e.capabilities)}  |  {e.cli}  |  {e.path}")
    return "\n".join(lines)


def _emit(entries: list[CatalogEntry], as_json: bool) -> None:
    if as_json:
        print_json([e.to_dict() for e in entries])
    else:
        click.echo(_render_list(entries))


def render_show(entry: CatalogEntry) -> str:
    """The text ``aau show`` prints for ``entry``: title, industry, shape, question, files."""
    lines = [
        f"{entry.icon}  {entry.title}",
        f"Industry: {entry.industry}",
        f"Shape:    {entry.kind} | {' · '.join(entry.capabilities)}",
        "",
        entry.question,
        "",
    ]
    if entry.commands is None:  # a 1.6 lab package
        lines += [f"README:   {entry.path}/README.md", f"Failures: {entry.path}/FAILURE_MODES.md"]
    else:
        lines.append(f"Path:     {entry.path}")
        if entry.docs:
            lines.append(f"Docs:     {entry.docs}")
    return "\n".join(lines)


def render_start(entry: CatalogEntry, catalog: Catalog) -> str:
    """The text ``aau start`` prints: ``render_show`` and the exact commands, from the root."""
    from ._start import start_commands

    commands = start_commands(entry, catalog.root, bundled=catalog.bundled)
    lines = [render_show(entry), "", f"Run it offline (no API key, no cost), from {catalog.root}:"]
    lines += [f"  {command}" for command in commands]
    if not catalog.bundled and not (catalog.root / entry.path).exists():
        lines += ["", f"Note: {entry.path} is not under {catalog.root}; run the commands from "
                      "the folder that holds it."]
    if entry.commands is None:
        lines += ["", "Then read the README and replace --backend mock with a real provider."]
    return "\n".join(lines)


@click.command("list", context_settings=CONTEXT)
@click.option("--industry", default="", help="Keep entries whose industry contains this text.")
@click.option("--capability", default="",
              help="Keep entries with a capability tag containing this text.")
@json_option("Print the entries as a JSON array.")
@_catalog_options
def list_command(industry: str, capability: str, as_json: bool, catalog_file: Path | None,
                 root: Path | None) -> int:
    """List the use cases of the catalog.

    \b
    Examples:
      aau list
      aau list --capability "decision gate"
      aau list --json > catalog.json
      aau list --catalog catalog.json --industry public --json

    Exit 0 (also when nothing matches); 2 for an unreadable or invalid catalog.
    """
    from ._catalog import filter_entries

    catalog = _load(catalog_file, root)
    _emit(filter_entries(catalog.entries, industry=industry, capability=capability), as_json)
    return 0


@click.command("find", context_settings=CONTEXT)
@click.argument("query", nargs=-1, required=True)
@json_option("Print the matches as a JSON array.")
@_catalog_options
def find_command(query: tuple[str, ...], as_json: bool, catalog_file: Path | None,
                 root: Path | None) -> int:
    """Find use cases whose title, path, industry, kind, question or capabilities contain
    every term of QUERY (case-insensitive).

    \b
    Examples:
      aau find permit
      aau find "rights continuity" transit

    Exit 0 when something matches, 1 when nothing does, 2 for a bad catalog.
    """
    from ._catalog import filter_entries

    catalog = _load(catalog_file, root)
    found = filter_entries(catalog.entries, query=" ".join(query))
    _emit(found, as_json)
    return 0 if found else 1


@click.command("show", context_settings=CONTEXT)
@click.argument("name")
@_catalog_options
def show_command(name: str, catalog_file: Path | None, root: Path | None) -> int:
    """Explain one use case: NAME is its title, path, file or folder name, or cli.

    \b
    Example:
      aau show river-permit-desk

    Exit 0; 2 when NAME matches no use case or several.
    """
    from ._catalog import resolve_entry

    catalog = _load(catalog_file, root)
    click.echo(render_show(resolve_entry(catalog.entries, name)))
    return 0


@click.command("start", context_settings=CONTEXT)
@click.argument("name")
@_catalog_options
def start_command(name: str, catalog_file: Path | None, root: Path | None) -> int:
    """Print the exact commands that run one use case offline; changes nothing.

    \b
    Examples:
      aau start "Heritage Tree Permit"
      aau list --json > catalog.json
      aau start public-service-routing --catalog catalog.json

    Exit 0; 2 when NAME matches no use case or several.
    """
    from ._catalog import resolve_entry

    catalog = _load(catalog_file, root)
    click.echo(render_start(resolve_entry(catalog.entries, name), catalog))
    return 0
