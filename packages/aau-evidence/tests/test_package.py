"""The package skeleton: lazy exports, the `aau evidence` plugin and the `aau-evidence` alias."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import aau_evidence
import click


def test_lazy_exports() -> None:
    assert "evidence_group" in dir(aau_evidence)
    assert isinstance(aau_evidence.evidence_group, click.Group)
    exported = [name for names in aau_evidence._EXPORTS.values() for name in names]
    assert aau_evidence.__all__ == sorted(exported)
    assert len(set(exported)) == len(exported)
    for name in aau_evidence.__all__:
        assert getattr(aau_evidence, name) is not None


def test_plugins_registered_with_aau() -> None:
    from importlib.metadata import entry_points

    names = {ep.name: ep.value for ep in entry_points(group="aau.commands")}
    assert names.get("evidence") == "aau_evidence._cli_evidence:evidence_group"
    assert names.get("submit") == "aau_evidence._cli_submit:submit_group"
    assert names.get("release") == "aau_evidence._cli_release:release_group"


def test_aau_evidence_help() -> None:
    aau = Path(sys.executable).parent / "aau"
    done = subprocess.run([str(aau), "evidence", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Impact capsules" in done.stdout
    alias = Path(sys.executable).parent / "aau-evidence"
    done = subprocess.run([str(alias), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Usage: aau-evidence" in done.stdout
