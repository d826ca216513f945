"""``aau baseline``: the command group for blinded human-baseline studies."""

from __future__ import annotations

import sys

import click


@click.group("baseline")
def baseline_group() -> None:
    """Blinded human-baseline studies: prepare a pack, summarize sessions, validate files.

    \b
    Example:
      aau baseline --help
    """


def baseline_main() -> None:
    """Console-script entry point for the ``aau-baseline`` alias."""
    from aau_core import run

    sys.exit(run(command=baseline_group, prog_name="aau-baseline"))
