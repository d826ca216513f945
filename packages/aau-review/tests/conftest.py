"""Shared paths and helpers of aau-review's tests: the committed real-model run in
``examples/real/`` (bfcl-live_simple: 5 units, 3 exact) and the review examples in ``schemas/``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aau_core import run

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
REAL = REPO / "examples" / "real"
EXAMPLES = REPO / "schemas" / "review" / "v1" / "examples" / "valid"
ROUTING = REPO / "examples" / "suites" / "public-service-routing.json"


def _real_run(name: str = "bfcl-live_simple") -> tuple[Path, Path, Path]:
    """(private receipt, public receipt, suite) of one committed real-model run."""
    return (REAL / "private" / f"{name}.json", REAL / "receipts" / f"{name}.json",
            REAL / "suites" / f"{name}.json")


def _prepare(out: Path, *extra: str, name: str = "bfcl-live_simple") -> int:
    """``aau review prepare`` on a real run; returns the exit code."""
    private, receipt, suite = _real_run(name)
    return run(["review", "prepare", str(private), "--receipt", str(receipt), "--suite",
                str(suite), "--out", str(out), *extra])


@pytest.fixture
def examples() -> Path:
    """The valid examples of ``schemas/review/v1``."""
    return EXAMPLES


@pytest.fixture
def real_run():
    """``real_run(name)``: (private receipt, public receipt, suite) of a committed real run."""
    return _real_run


@pytest.fixture
def prepare():
    """``prepare(out, *options, name=...)``: ``aau review prepare`` on a real run -> exit code."""
    return _prepare


@pytest.fixture
def error_line(capsys):
    """``error_line()``: the one ``aau: ...`` line the last command printed on stderr (asserts
    there is exactly one)."""

    def one() -> str:
        lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("aau: ")]
        assert len(lines) == 1, lines
        return lines[0]

    return one


@pytest.fixture
def example_pack(tmp_path: Path) -> Path:
    """The pack whose files are the valid examples manifest-/tasks-/scores-live-simple.json."""
    out = tmp_path / "pack"
    assert _prepare(out, "--raters", "alice,bob", "--seed", "7") == 0
    return out


@pytest.fixture
def sensitive_run(tmp_path, monkeypatch):
    """A mock run of a v1 suite whose (open) sharing block adds a true contains_* flag:
    (private receipt, public receipt, suite)."""
    monkeypatch.setenv("AAU_RUN_STORE", "none")
    suite = json.loads(ROUTING.read_text(encoding="utf-8"))
    suite["sharing"]["contains_health_records"] = True
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite), encoding="utf-8")
    receipt, private = tmp_path / "r.json", tmp_path / "p.json"
    assert run(["evaluate", str(path), "--mock", "--out", str(receipt), "--private-out",
                str(private)]) == 0
    return private, receipt, path
