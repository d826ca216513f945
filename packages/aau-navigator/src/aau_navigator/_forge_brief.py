"""AAU Studio briefs (kind ``studio-brief``, ``aau-studio/1.0``): reading, the seed rule, families.

A brief names the workflow, the closest catalogued lab and its reusable contract, and a
verification plan (schema ``schemas/navigator/v1/studio-brief.schema.json``). ``load_brief``
reads and validates one; ``brief_seed`` derives aau-harness 1.6's deterministic seed from it;
``contract_family`` maps its contract to one of aau-core's contract lab families.
"""

from __future__ import annotations

import json
import os
from typing import Any

from aau_schemas import sha256_hex

BRIEF_KIND = "studio-brief"
BRIEF_VERSION = "aau-studio/1.0"
MAX_BRIEF_BYTES = 1_000_000
"""Largest brief file read, in bytes."""

SEED_KEYS = ("contract_version", "workflow", "recommended_case", "verification_plan")
"""The brief fields the seed depends on (``created_at`` and ``commands`` do not change it)."""

FAMILIES = ("Decision Gate", "Rights Continuity", "Critical Event Fan-Out")
"""aau-core's contract lab families, in the order a contract name is matched against them."""


def load_brief(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and validate a Studio brief.

    Returns:
        the parsed brief.

    Raises:
        InputError: unreadable, larger than ``MAX_BRIEF_BYTES`` or not strict JSON.
        InvalidDocumentError: the brief breaks the ``studio-brief`` schema; one line
            ``file: $.path: message`` per violation.
    """
    from aau_core import check_document

    from ._documents import read_json

    return check_document(BRIEF_KIND, read_json(path, max_bytes=MAX_BRIEF_BYTES), str(path))


def brief_seed(brief: dict[str, Any]) -> int:
    """aau-harness 1.6's forge seed of a brief, in ``[1000, 9998]``.

    Formula (1.6's ``deterministic_seed``): ``stable`` = the brief restricted to ``SEED_KEYS``;
    ``1000 + int(sha256(json.dumps(stable, sort_keys=True, separators=(",", ":")))[:8], 16)
    % 8999`` over the ASCII-escaped UTF-8 bytes, so the same workflow always gives the same
    world and a download timestamp does not.

    Raises:
        KeyError: a ``SEED_KEYS`` field is missing (validate the brief first).
    """
    stable = {key: brief[key] for key in SEED_KEYS}
    canonical = json.dumps(stable, sort_keys=True, separators=(",", ":")).encode()
    return 1000 + int(sha256_hex(canonical)[:8], 16) % 8999


def _normal(text: str) -> str:
    return " ".join(text.lower().replace("-", " ").split())


def contract_family(contract: str) -> str | None:
    """The contract lab family a brief's contract names, or ``None`` (the generic scaffold).

    Case, hyphens and spacing are ignored and the family may be part of a longer name
    (``"Critical event fan-out contract"`` -> ``"Critical Event Fan-Out"``), as in 1.6; the
    first family of ``FAMILIES`` that occurs wins.
    """
    normal = _normal(contract)
    for family in FAMILIES:
        if _normal(family) in normal:
            return family
    return None
