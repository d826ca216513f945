"""``store_options``: the ``--store`` / ``--no-store`` click options of the commands that record
their run in the run store. Kept apart from ``_run_store`` (sqlite3) so that declaring the
options imports nothing heavy at ``aau`` start-up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def store_options(what: str = "result") -> Callable[[Any], Any]:
    """The ``--store PATH|URL`` and ``--no-store`` click options of a command that records its
    run (``aau evaluate``, ``aau lab run``, ``aau bench agentdojo``); pass their values to
    ``store_choice``. ``what`` names the recorded thing in the help (``"run"``, ``"result"``)."""
    import click

    def decorate(command: Any) -> Any:
        command = click.option("--no-store", is_flag=True,
                               help=f"Do not record the {what} in the run store.")(command)
        return click.option("--store", "store", metavar="PATH|URL",
                            help=f"Record the {what} in this run store (default: "
                                 "$AAU_RUN_STORE, else .aau/runs.sqlite here, never inside "
                                 "a pack; see aau runs)."
                            )(command)

    return decorate


__all__ = ["store_options"]
