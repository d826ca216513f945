"""docs/navigator.md: its commands run as written, and it names every check it describes."""

from __future__ import annotations

import shlex
from pathlib import Path

from aau_core import run
from aau_navigator._gallery import LEVELS

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "navigator.md"


def test_the_commands_of_the_doc_run(monkeypatch, capsys) -> None:
    text = DOC.read_text(encoding="utf-8")
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.startswith("aau ")]
    assert len(lines) == 7
    monkeypatch.chdir(REPO)
    for line in lines:
        assert run(shlex.split(line)[1:]) == 0, line
    out = capsys.readouterr().out
    assert "🎣  River Permit Desk" in out and "Alert Triage" in out


def test_the_doc_names_every_level_and_check(nav_root) -> None:
    from aau_navigator._gallery import build_gallery

    text = DOC.read_text(encoding="utf-8").lower()
    for level in LEVELS:
        assert f"| {level.lower()} |" in text
    item = build_gallery(nav_root)["entries"][0]
    for check in item["trust"]["checks"]:
        words = {"runnable package": "runnable package", "forge provenance": "forge provenance",
                 "contract blueprint": "contract blueprint",
                 "domain placeholders": "todo(domain)", "named review": "named review",
                 "primary-source ledger": "source ledger", "scenario volume": "20 scenarios",
                 "zero-cost reproduction": "a mock result", "real-model evidence": "one real",
                 "repeated runs": "`n_repeats` >= 3", "observed failures": "failure headings",
                 "independent model evidence": "two real model ids",
                 "protected authority": "human boundary", "catalog + ci": "ci workflow"}
        assert words[check["check"].lower()] in text, check["check"]


def test_the_challenge_commands_of_the_doc_run_from_an_empty_folder(tmp_path, monkeypatch,
                                                                    capsys) -> None:
    """The challenge walk-through, verbatim, where a pip-installed user would run it."""
    text = DOC.read_text(encoding="utf-8")
    block = next(b.split("```", 1)[0] for b in text.split("```bash\n")[1:]
                 if "aau challenge receipt" in b)
    lines = [line for line in block.splitlines() if line.startswith("aau ")]
    assert lines[0] == "aau challenge show C01" and len(lines) == 5
    monkeypatch.chdir(tmp_path)
    for line in lines:
        assert run(shlex.split(line)[1:]) == 0, (line, capsys.readouterr().err)
    out = capsys.readouterr().out
    assert "The lab exists at healthcare/prior-auth-triage-agent. Next:" in out
    assert "PASS · my-completion-gap · Reproduce" in out
