"""Markdown tables: shape, and cells that show hostile text literally."""

from __future__ import annotations

import pytest
from aau_core._reports._markdown_table import escape_cell, markdown_table


def test_table_shape() -> None:
    table = markdown_table(["scenario", "passed", "value"], [["a", True, 0.5], ["b", None, 1]])
    assert table == ("| scenario | passed | value |\n"
                     "| --- | --- | --- |\n"
                     "| a | True | 0.5 |\n"
                     "| b |  | 1 |\n")


def test_empty_rows_leave_header_and_delimiter() -> None:
    assert markdown_table(["x"], []) == "| x |\n| --- |\n"


@pytest.mark.parametrize(("raw", "cell"), [
    ("a|b", r"a\|b"),
    ("back\\slash", r"back\\slash"),
    ("\\|", r"\\\|"),  # an escaped pipe in the input stays a backslash then a pipe
    ("line1\nline2\r\nline3\rline4", "line1<br>line2<br>line3<br>line4"),
    ("<script>&amp;", r"\<script\>\&amp;"),
    ("`code|span`", r"\`code\|span\`"),
    ("😀 plain_text *x*", "😀 plain_text *x*"),
])
def test_cells_are_escaped(raw: str, cell: str) -> None:
    assert escape_cell(raw) == cell


def test_hostile_cell_cannot_add_columns_or_rows() -> None:
    table = markdown_table(["h|1", "h2"], [["x | y\n| z | w |", "ok"]])
    lines = table.splitlines()
    assert len(lines) == 3
    # every unescaped pipe is a column separator: 3 per line for two columns
    for line in lines:
        assert line.replace("\\|", "").count("|") == 3


def test_bad_shapes_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one header"):
        markdown_table([], [])
    with pytest.raises(ValueError, match="row 1 has 1 cells, expected 2"):
        markdown_table(["a", "b"], [["1", "2"], ["1"]])
