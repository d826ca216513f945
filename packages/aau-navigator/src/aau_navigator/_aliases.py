"""aau-harness 1.6's compatibility scripts (``aau-challenge``, ``aau-gallery``, ``aau-forge``,
``aau-new-use-case``): each runs one ``aau`` subcommand through ``aau_core.run``, so errors and
exit codes are the same as ``aau <command>``."""

from __future__ import annotations

import importlib
import sys


def _alias(module: str, name: str, prog_name: str) -> None:
    from aau_core import run

    command = getattr(importlib.import_module(module, __package__), name)
    sys.exit(run(command=command, prog_name=prog_name))


def challenge_main() -> None:
    """Console-script entry point for ``aau-challenge`` (= ``aau challenge``)."""
    _alias("._cli_challenge", "challenge_group", "aau-challenge")


def gallery_main() -> None:
    """Console-script entry point for ``aau-gallery`` (= ``aau gallery``)."""
    _alias("._cli_gallery", "gallery_group", "aau-gallery")


def forge_main() -> None:
    """Console-script entry point for ``aau-forge`` (= ``aau forge``)."""
    _alias("._cli_forge", "forge_command", "aau-forge")


def new_use_case_main() -> None:
    """Console-script entry point for ``aau-new-use-case`` (= ``aau new-use-case``)."""
    _alias("._cli_forge", "new_use_case_command", "aau-new-use-case")
