"""`aau bench agentdojo` without the optional extra: one line naming the pip install, exit 2.

Runs whether or not AgentDojo is installed (the import is made to fail)."""

from __future__ import annotations

import sys

from aau_core import run


def test_missing_extra_says_what_to_install(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "agentdojo", None)  # import agentdojo -> ImportError
    rc = run(["bench", "agentdojo", "--suite", "slack", "--mock-ground-truth",
              "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.strip().splitlines() == [
        "aau: error: the 'agentdojo' package is not installed: pip install "
        "'aau-labs[agentdojo]'"]
    assert not (tmp_path / "out").exists()


def test_bench_help_has_examples(capsys):
    for args in (["bench", "--help"], ["bench", "agentdojo", "--help"]):
        assert run(args) == 0
        out = capsys.readouterr().out
        assert "Example" in out and "aau bench agentdojo --suite banking" in out
