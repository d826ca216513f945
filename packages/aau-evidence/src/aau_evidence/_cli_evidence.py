"""``aau evidence``: impact capsules and evidence packs (``validate``, ``compare``, ``pack``,
``verify``).

Exit codes: 0 done / valid; 1 bar not met (an invalid document under ``validate``, a failed
``verify``); 2 usage or input error (nothing is written then). Problems are printed one a line as
``file: $.json.path: message``.
"""

from __future__ import annotations

import sys

import click


@click.group("evidence", context_settings={"help_option_names": ["-h", "--help"]})
def evidence_group() -> None:
    """Impact capsules and evidence packs: validate, compare, pack, verify.

    \b
    Example:
      aau evidence validate capsule.json --root .
      aau evidence pack capsule.json --root . --out pack/
      aau evidence verify pack/
    """


def evidence_main() -> None:
    """Console-script entry point for the ``aau-evidence`` alias."""
    from aau_core import run

    sys.exit(run(command=evidence_group, prog_name="aau-evidence"))
