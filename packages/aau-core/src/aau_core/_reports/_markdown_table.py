"""Markdown: GitHub-flavoured tables whose cells show their text literally.

Cells are plain text, not Markdown. A cell's ``|`` would end the cell and a newline the row, and
``<``, ``>``, ``&`` and a backtick would start raw HTML, an entity or a code span (a scenario
named ``<script>`` must render as that text), so ``markdown_table`` escapes them; see
``escape_cell``. Other Markdown punctuation (``*``, ``_``, ``[``) is left as is: at worst it
changes how a cell is styled, never the table's shape.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_SPECIAL = re.compile(r"([\\|<>&`])")
_NEWLINE = re.compile(r"\r\n|\r|\n")


def escape_cell(value: object) -> str:
    """Render one table cell: ``str(value)`` (``""`` for ``None``) with Markdown escaped.

    A backslash, ``|``, ``<``, ``>``, ``&`` and a backtick get a backslash before them (CommonMark
    backslash escapes; GFM tables honour ``\\|``); each newline (``\\n``, ``\\r\\n`` or ``\\r``)
    becomes ``<br>``, the line break a GFM cell can hold.

    Args:
        value: any object; ``None`` renders as an empty cell.

    Returns:
        the escaped cell text, on one line.
    """
    text = "" if value is None else str(value)
    return _NEWLINE.sub("<br>", _SPECIAL.sub(r"\\\1", text))


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Render a GitHub-flavoured Markdown table.

    Args:
        headers: the column titles (at least one), escaped like cells.
        rows: one sequence of cell values per row, each as long as ``headers``; cells go through
            ``escape_cell``.

    Returns:
        the table: a header line, a ``| --- |`` delimiter line and one line per row, each line
        ending in a newline.

    Raises:
        ValueError: no headers, or a row whose length differs from the headers'.
    """
    if not headers:
        raise ValueError("a Markdown table needs at least one header")
    width = len(headers)

    def line(cells: Sequence[object]) -> str:
        return "| " + " | ".join(escape_cell(c) for c in cells) + " |\n"

    out = [line(headers), "|" + " --- |" * width + "\n"]
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"row {i} has {len(row)} cells, expected {width}")
        out.append(line(row))
    return "".join(out)
