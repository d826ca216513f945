"""Formatting of JSON paths (RFC 9535 normalized-path style) used in every error message."""

from __future__ import annotations

import re
from collections.abc import Iterable

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def json_path(parts: Iterable[str | int]) -> str:
    """Render a sequence of object keys and array indexes as a JSON path.

    Args:
        parts: keys (str) and indexes (int), outermost first.

    Returns:
        ``"$"`` for the root, ``"$.cases[0].input"`` for identifier keys, and the bracket form
        ``"$['odd key']"`` for keys that are not identifiers (quotes and backslashes escaped).
    """
    out = ["$"]
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            out.append(f"[{part}]")
        elif _IDENT.match(part):
            out.append(f".{part}")
        else:
            escaped = part.replace("\\", "\\\\").replace("'", "\\'")
            out.append(f"['{escaped}']")
    return "".join(out)
