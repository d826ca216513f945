"""``aau view``: the run store in a web browser (presentation only; the server is ``_store/_view``)."""

from __future__ import annotations

import click

from .._errors import EXIT_OK, UsageError


@click.command("view", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--store", "store", metavar="PATH|URL", default=None,
              help="The run store (default: $AAU_RUN_STORE, else .aau/runs.sqlite here, or "
                   "beside the pack when here is a pack).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="TCP port on 127.0.0.1 (0: any free port).")
def view_command(store: str | None, port: int) -> int:
    """Browse the run store's runs in a web browser (127.0.0.1 only, read-only).

    Pages: the run list, each run's HTML report, and a comparison of two runs. Ctrl-C stops.

    \b
    Example:
      aau view --port 8765      # then open http://127.0.0.1:8765/
    """
    from .._store._view import HOST, serve
    from ._runs import open_store

    with open_store(store) as run_store:  # fail now (exit 2) if there is no store
        path = run_store.path
    try:
        serve(path, port)
    except OSError as exc:
        raise UsageError(f"--port {port}: cannot listen on {HOST}: "
                         f"{exc.strerror or exc}") from None
    return EXIT_OK
