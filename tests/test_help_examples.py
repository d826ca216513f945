"""Every runnable example in the --help of `aau trace`, `aau lab` and `aau report` works.

An example is runnable when every input it names exists (the repository's examples/, or a file
an earlier example of the same help wrote) and it needs no model provider (no --backend). Each
must exit 0: an example that fails (a required artifact the example folder does not have) is a
documentation bug.
"""

from __future__ import annotations

import glob
import shlex
from pathlib import Path

import pytest
from aau_core import run

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = [["trace"], ["lab"], ["trace", "score"], ["trace", "import"], ["lab", "generate"], ["lab", "run"],
            ["report"]]
OUTPUT_FLAGS = {"--out", "--junit", "--markdown", "--html", "--json-out"}


def _examples(capsys, command: list[str]) -> list[list[str]]:
    run([*command, "--help"])
    text = capsys.readouterr().out
    lines, inside = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Example"):
            inside = True
        elif inside and (not stripped or stripped.startswith("Options")):
            inside = False
        elif inside:
            lines.append(stripped)
    joined = " ".join(lines).replace("\\ ", " ")
    parts = [shlex.split(part) for part in joined.split("aau ") if part.strip()]
    return [p for p in parts if p]


def _runnable(args: list[str]) -> bool:
    """No --backend, and every input file it names (a .json/.jsonl or examples/ path) exists."""
    if "--backend" in args:
        return False
    for before, arg in zip(["", *args], args, strict=False):
        if before in OUTPUT_FLAGS or before == "--require-artifact" or arg.startswith("-"):
            continue
        if (arg.endswith((".json", ".jsonl")) or arg.startswith("examples/")) \
                and not glob.glob(arg):
            return False
    return True


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_examples_run(tmp_path, monkeypatch, capsys, command):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AAU_RUN_STORE", str(tmp_path / "runs.sqlite"))
    ran = 0
    for args in _examples(capsys, command):
        if not _runnable(args):
            continue
        expanded = [m for a in args for m in (sorted(glob.glob(a)) if "*" in a else [a])]
        rc = run(expanded)
        err = capsys.readouterr().err
        assert rc == 0, f"aau {' '.join(args)}: exit {rc}\n{err}"
        ran += 1
    if command != ["report"]:  # report's examples name the user's own receipts
        assert ran, f"no runnable example in aau {' '.join(command)} --help"
