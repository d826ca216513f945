"""Click settings and options shared by the catalog, gallery and challenge commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

ROOT_OPTION = click.option(
    "--root", type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Folder holding challenge/, gallery/ and the labs (default: the nearest folder at or "
         "above the current one with gallery/ or challenge/).")

JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")


def echo_json(doc: Any) -> None:
    """Print ``doc`` on stdout as indented JSON (UTF-8 kept as is)."""
    click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
