"""aau-harness 1.x programs run unchanged against the umbrella's `aau_harness` namespace."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "quickstart_1_6.py"


def test_the_1_6_readme_quickstart_runs_unchanged(tmp_path):
    program = tmp_path / "quickstart.py"
    program.write_bytes(FIXTURE.read_bytes())
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # the mock agent applies the gold rule, so both metrics are perfect on every repeat
    for metric in ("accuracy", "submitted"):
        row = next(line for line in out.splitlines() if metric in line)
        assert re.search(r"\b1\.000\b", row), row
    assert "mock" in out


def test_every_exported_name_resolves():
    import aau_harness

    missing = [name for name in aau_harness.__all__ if not hasattr(aau_harness, name)]
    assert missing == []
    with pytest.raises(AttributeError):
        aau_harness.no_such_name  # noqa: B018
