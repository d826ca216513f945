"""docs/review.md stays true: its first command block runs from the repository root."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import aau_schemas
from aau_core import run

REPO = Path(__file__).resolve().parents[3]


def test_the_review_docs_commands_run(tmp_path, monkeypatch, capsys):
    text = (REPO / "docs" / "review.md").read_text(encoding="utf-8")
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.startswith("aau review ")]
    assert len(lines) == 4
    for name in ("schemas", "examples"):
        (tmp_path / name).symlink_to(REPO / name)
    monkeypatch.chdir(tmp_path)
    for line in lines:
        assert run(shlex.split(line)[1:]) == 0, line
    err = capsys.readouterr().err
    assert "pack: valid review pack" in err and "report.json: valid review-report" in err
    aau_schemas.validate("review-report", json.loads((tmp_path / "report.json").read_text()))
    assert (tmp_path / "report.md").is_file()


def test_the_documented_labels_example_is_valid():
    text = (REPO / "docs" / "review.md").read_text(encoding="utf-8")
    doc = json.loads(text.split("```json\n", 1)[1].split("```", 1)[0]
                     .replace("<SHA-256 of the pack's tasks.json>", "0" * 64))
    aau_schemas.validate("review-labels", doc)
