"""mkdocs hook of the docs site (mkdocs.yml ``hooks:``): generated pages and repository links.

Adds, in memory (nothing is written into docs/):

- ``schemas/index.md`` and ``schemas/<kind>.md`` for every kind of schemas/index.json, from
  ``tools/gen_schema_docs.py`` (the one schema-docs generator);
- ``cli.md``: the command-line reference, every command of the ``aau`` click group including the
  plugin commands installed packages register under ``aau.commands``, with the help text click
  prints (``cli_reference()``).

And rewrites Markdown links that leave docs/ (``../examples/x.json``, ``../README.md``) into links
to the repository (``extra.source_url`` of mkdocs.yml), so the pages work on GitHub and on the
site alike and ``mkdocs build --strict`` has nothing to flag.

    python tools/docs_site.py cli    # print the CLI reference Markdown (what the site shows)
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path
from typing import Any

import click

TOOLS = Path(__file__).resolve().parent
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))

import gen_schema_docs  # noqa: E402

HELP_WIDTH = 100
_LINK = re.compile(r"(\]\()([^)\s#]+)((?:#[^)\s]*)?\))")


def _commands(group: click.Command, ctx: click.Context, prefix: str) -> list[tuple[str, Any, Any]]:
    out = [(prefix, group, ctx)]
    if isinstance(group, click.Group):
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            sub = click.Context(command, info_name=name, parent=ctx,
                                terminal_width=HELP_WIDTH, max_content_width=HELP_WIDTH)
            out += _commands(command, sub, f"{prefix} {name}")
    return out


def cli_commands() -> list[str]:
    """Every visible command path of ``aau``, depth first (``aau``, ``aau bench``, ...)."""
    from aau_core import cli

    root = click.Context(cli, info_name="aau", terminal_width=HELP_WIDTH,
                         max_content_width=HELP_WIDTH)
    return [path for path, _, _ in _commands(cli, root, "aau")]


def cli_reference() -> str:
    """The command-line reference page: a section per command with its ``--help`` text.

    Returns:
        Markdown; headings nest with the command depth (``## aau lab``, ``### aau lab run``).
    """
    from aau_core import cli

    root = click.Context(cli, info_name="aau", terminal_width=HELP_WIDTH,
                         max_content_width=HELP_WIDTH)
    found = _commands(cli, root, "aau")
    lines = ["# Command-line reference", "",
             "Generated from the `aau` click group and the commands installed packages register "
             "(entry-point group `aau.commands`) by `tools/docs_site.py`; the text is what "
             "`aau ... --help` prints. Exit status: 0 success, 1 a bar not met, 2 usage or input "
             "error.", "", "| command | what it does |", "|---|---|"]
    for path, command, _ in found[1:]:
        anchor = path.replace(" ", "-")
        lines.append(f"| [`{path}`](#{anchor}) | "
                     f"{command.get_short_help_str(limit=90).replace('|', '/')} |")
    lines.append("")
    for path, command, ctx in found:
        depth = min(path.count(" ") + 1, 5)
        lines += [f"{'#' * (depth + 1)} `{path}` {{#{path.replace(' ', '-')}}}", "", "```text",
                  command.get_help(ctx).rstrip(), "```", ""]
    return "\n".join(lines)


def _source_url(config: Any) -> str:
    return str((config.get("extra") or {}).get("source_url", "")).rstrip("/")


def repository_links(markdown: str, page_path: str, source_url: str) -> str:
    """Rewrite links that resolve outside the docs folder to ``source_url/<path>``.

    Args:
        markdown: the page's Markdown.
        page_path: the page's path below docs/ (``schemas/suite.md``).
        source_url: the repository's file base (``https://github.com/o/r/blob/main``).
    """
    if not source_url:
        return markdown

    def fix(match: re.Match[str]) -> str:
        target = match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            return match.group(0)
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page_path), target))
        if not resolved.startswith("../"):
            return match.group(0)
        return f"{match.group(1)}{source_url}/{resolved[3:]}{match.group(3)}"

    return _LINK.sub(fix, markdown)


def on_files(files: Any, config: Any) -> Any:
    """mkdocs event: add the generated schema pages and the CLI reference."""
    from mkdocs.structure.files import File

    pages = gen_schema_docs.kind_pages(repo_url=_source_url(config))
    pages["cli.md"] = cli_reference()
    for path, text in pages.items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """mkdocs event: links out of docs/ point at the repository."""
    return repository_links(markdown, page.file.src_uri, _source_url(config))


if __name__ == "__main__":
    if sys.argv[1:] != ["cli"]:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        sys.exit(2)
    sys.stdout.write(cli_reference())
