"""The package skeleton: lazy exports, the `aau baseline` plugin and the `aau-baseline` alias."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import aau_baseline
import click


def test_lazy_exports() -> None:
    assert "baseline_group" in dir(aau_baseline)
    assert isinstance(aau_baseline.baseline_group, click.Group)
    exported = [name for names in aau_baseline._EXPORTS.values() for name in names]
    assert aau_baseline.__all__ == sorted(exported)
    assert len(set(exported)) == len(exported)
    for name in aau_baseline.__all__:
        assert getattr(aau_baseline, name) is not None


def test_plugin_registered_with_aau() -> None:
    from importlib.metadata import entry_points

    names = {ep.name: ep.value for ep in entry_points(group="aau.commands")}
    assert names.get("baseline") == "aau_baseline._cli:baseline_group"


def test_aau_baseline_help() -> None:
    aau = Path(sys.executable).parent / "aau"
    done = subprocess.run([str(aau), "baseline", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "human-baseline" in done.stdout
    alias = Path(sys.executable).parent / "aau-baseline"
    done = subprocess.run([str(alias), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
