"""Byte-order marks on the files the navigator reads from a lab or project: a README title, a
JSON result and a pyproject.toml saved with a BOM read as without it."""

from __future__ import annotations

from pathlib import Path

from aau_navigator._lab_evidence import read_text, scenario_ids
from aau_navigator._start import _project

BOM = b"\xef\xbb\xbf"


def test_lab_text_and_json_with_a_bom(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_bytes(BOM + b"# Prior-auth triage\n\xff\n")
    assert read_text(readme) == "# Prior-auth triage\n\ufffd\n"  # lenient, BOM dropped
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "scenarios.jsonl").write_bytes(
        BOM + b'{"scenario_id": "s1"}\n{"scenario_id": "s2"}\n')
    assert scenario_ids(tmp_path) == ["s1", "s2"]  # the first line was lost with the BOM
    (tmp_path / "evals" / "scenarios.jsonl").unlink()
    (tmp_path / "evals" / "scenarios.json").write_bytes(
        BOM + b'{"scenarios": [{"scenario_id": "s3"}]}')
    assert scenario_ids(tmp_path) == ["s3"]


def test_pyproject_with_a_bom(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_bytes(BOM + b'[project]\nname = "lab"\n')
    assert _project(pyproject) == {"name": "lab"}
