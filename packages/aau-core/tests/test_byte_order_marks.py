"""Byte-order marks: every text input is read with a leading U+FEFF dropped (``decode_text``,
``read_text_file``), and a CSV row whose first column name kept the BOM (``csv.DictReader`` over a
file opened as ``utf-8``, as a PraisonAI-style harness CSV saved by Excel arrives) still has its
first column."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from aau_core import InputError, harness_row_to_eval_case
from aau_core._files._strict_json import decode_text, read_json_file, read_text_file, strip_bom
from aau_core._traces._harness_import import read_tool_trace

BOM = b"\xef\xbb\xbf"


def _rows(text: str) -> list[dict[str, str]]:
    # what a user's csv.DictReader(open(path, encoding="utf-8")) yields for a BOM'd file
    return list(csv.DictReader(io.StringIO((BOM + text.encode()).decode("utf-8"))))


def test_a_bom_csv_keeps_its_first_column_harness_rows() -> None:
    rows = _rows("id,prompt,expected\ncase-1,Say hi,hi\n")
    assert list(rows[0]) == ["\ufeffid", "prompt", "expected"]  # the fault: BOM in the key
    case = harness_row_to_eval_case(rows[0])
    assert (case.name, case.input, case.expected) == ("case-1", "Say hi", "hi")


def test_a_bom_csv_keeps_its_first_column_csv_test_runner_rows() -> None:
    rows = _rows("prompts,expected_response,judge_rubric\nCreate hello.py,hello,file created\n")
    case = harness_row_to_eval_case(rows[0])  # without the fix: "EvalCase must have an input"
    assert (case.name, case.input, case.expected, case.criteria) == (
        "harness_case", "Create hello.py", "hello", ["file created"])


def test_decode_text_drops_one_bom_and_stays_strict() -> None:
    assert decode_text(BOM + b"a,b\r\n") == "a,b\r\n"
    assert decode_text(BOM + BOM + b"x") == "\ufeffx"  # only the leading mark
    assert decode_text(b"plain") == "plain"
    with pytest.raises(InputError, match=r"not valid UTF-8 \(byte 3\)"):
        decode_text(BOM + b"\xff", source="f.csv")
    assert decode_text(BOM + b"ok \xff", lenient=True) == "ok \ufffd"
    assert strip_bom("\ufeffid") == "id" and strip_bom("id") == "id"


def test_read_text_and_json_files_with_a_bom(tmp_path: Path) -> None:
    md = tmp_path / "policy.md"
    md.write_bytes(BOM + b"# Policy\n")
    assert read_text_file(md, max_bytes=100) == "# Policy\n"
    doc = tmp_path / "suite.json"
    doc.write_bytes(BOM + b'{"suite_id": "s"}')
    assert read_json_file(doc, max_bytes=100) == {"suite_id": "s"}
    with pytest.raises(InputError, match="over the 5-byte limit"):
        read_text_file(md, max_bytes=5)


def test_a_bom_jsonl_tool_trace(tmp_path: Path) -> None:
    path = tmp_path / "tool_trace.jsonl"
    path.write_bytes(BOM + b'{"tool": "read_file"}\n{"tool": "write_file"}\n')
    assert [c["tool"] for c in read_tool_trace(path)] == ["read_file", "write_file"]


@pytest.mark.parametrize("encoding, name", [
    ("utf-16", "UTF-16 (little-endian: it starts with the byte-order mark FF FE)"),
    ("utf-16-le", "UTF-16 (little-endian: it starts with the byte-order mark FF FE)"),
    ("utf-16-be", "UTF-16 (big-endian: it starts with the byte-order mark FE FF)"),
    ("utf-32", "UTF-32 (little-endian: it starts with the byte-order mark FF FE 00 00)"),
    ("utf-32-be", "UTF-32 (big-endian: it starts with the byte-order mark 00 00 FE FF)"),
])
def test_a_utf16_or_utf32_file_is_named_as_such(tmp_path: Path, encoding: str, name: str) -> None:
    # what Windows PowerShell's `Out-File` / Notepad's "Unicode" save writes: a BOM, then UTF-16
    text = '{"suite_id": "s"}'
    raw = text.encode(encoding) if encoding in ("utf-16", "utf-32") else (
        "\ufeff" + text).encode(encoding)
    assert raw[:2] in (b"\xff\xfe", b"\xfe\xff", b"\x00\x00")
    message = f"not valid UTF-8: the file is {name}; save it as UTF-8"
    with pytest.raises(InputError) as err:
        decode_text(raw, source="s.json")
    assert str(err.value) == f"s.json: $: {message}"
    path = tmp_path / "suite.json"
    path.write_bytes(raw)
    with pytest.raises(InputError) as err:
        read_json_file(path, max_bytes=1000)
    assert err.value.message == message


def test_bytes_that_only_look_like_a_bom_later_keep_the_byte_offset() -> None:
    with pytest.raises(InputError) as err:
        decode_text(b"ab\xff\xfe")
    assert err.value.message == "not valid UTF-8 (byte 2)"
