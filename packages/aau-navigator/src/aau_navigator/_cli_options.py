"""Click settings and options shared by the catalog, gallery and challenge commands."""

from __future__ import annotations

from pathlib import Path

import click
from aau_core import json_option

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

ROOT_OPTION = click.option(
    "--root", type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Folder holding challenge/, gallery/ and the labs (default: the nearest folder at or "
         "above the current one with gallery/ or challenge/).")

JSON_OPTION = json_option("Print JSON on stdout.")
"""``--json`` of the catalog, gallery and challenge commands (``aau_core.json_option``)."""
