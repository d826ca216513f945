"""``aau examples``: write aau's bundled examples into the current folder (presentation only;
the work is ``_examples.copy_examples``)."""

from __future__ import annotations

from pathlib import Path

import click
from aau_core import force_option, print_json

from ._cli_options import CONTEXT, JSON_OPTION


@click.command("examples", context_settings=CONTEXT)
@click.option("--out", "out", type=click.Path(path_type=Path), default=Path("examples"),
              show_default=True, help="Folder to write.")
@force_option("Replace an --out folder that exists and is not aau's examples.")
@JSON_OPTION
def examples_command(out: Path, force: bool, as_json: bool) -> int:
    """Write aau's examples (suites, agents, labs, traces, real receipts) into ./examples.

    Every `examples/...` path that aau's help, `aau list` and `aau start` show then exists, so
    their commands run verbatim from this folder. A folder that already holds the same files
    is left as it is.

    \b
    Examples:
      aau examples
      aau evaluate examples/suites/public-service-routing.json \\
          --command "python examples/agents/command_agent.py" --out receipt.json

    Exit 0; 2 when --out exists with other content (without --force) or cannot be written.
    """
    from ._examples import copy_examples

    folder, count, written = copy_examples(out, force=force)
    if as_json:
        print_json({"folder": str(folder), "files": count, "written": written})
    elif written:
        click.echo(f"Wrote {count} example files to {folder}/", err=True)
    else:
        click.echo(f"{folder}/ already holds aau's {count} example files; nothing changed.",
                   err=True)
    return 0
