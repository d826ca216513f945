"""The workspace of ``aau release`` tests: two releases' components and manifests, the policy,
the plan, the approval and the conformance suite from ../shared's aau 1.6 compat files, and how
to run ``aau release assess`` on it (``packages/aau-evidence/tests/test_release_gate.py``'s module
docstring describes the layout)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _helpers import COMMAND_AGENT, SHARED, SHARED_MISSING, aau_script

COMPAT = SHARED / "compat" / "aau-1.6" / "release"
PACK_16 = COMPAT / "generated-pack-ready" / "pack"
COMPONENTS = ("model.json", "system-policy.md", "tools.json", "authority.json", "identity.json",
              "egress.json", "monitoring.json", "rollback.json")


def need_compat() -> None:
    """Skip the calling test when ../shared is absent."""
    if not COMPAT.is_dir():
        pytest.skip(SHARED_MISSING)


def read(path: Path) -> Any:
    """Parse a JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))


def write(path: Path, doc: Any) -> Path:
    """Write ``doc`` as indented JSON; return ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return path


def make_workspace(tmp: Path) -> Path:
    """Lay out the workspace described in the module doc under ``tmp``; return ``tmp``."""
    need_compat()
    for side in ("base", "cand"):
        for name in COMPONENTS:
            target = tmp / side / "components" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps({"component": name, "version": 1}) + "\n")
    (tmp / "cand/components/tools.json").write_text('{"tools": ["lookup", "route"]}\n')
    (tmp / "cand/components/authority.json").write_text('{"authority": "tightened"}\n')
    shutil.copyfile(COMPAT / "generated-pack-ready/baseline-release-manifest.synthetic.json",
                    tmp / "base/manifest.json")
    shutil.copyfile(COMPAT / "real/candidate-release-manifest.json", tmp / "cand/manifest.json")
    for name in ("release-policy.json", "evidence-plan.json", "approval.json"):
        shutil.copyfile(COMPAT / "real" / name, tmp / name)
    shutil.copyfile(COMPAT / "generated-pack-ready/release-conformance-suite.synthetic.json",
                    tmp / "release-conformance-suite.json")
    return tmp


def agent() -> str:
    """``--command`` for the repository's example command agent (answers every case right)."""
    return f"{sys.executable} {COMMAND_AGENT}"


def run_aau(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``aau ARGS`` and capture its output."""
    return subprocess.run([aau_script(), *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def assess_args(ws: Path, out: Path, *adapter: str, approval: bool = True) -> list[str]:
    """The ``aau release assess`` arguments for workspace ``ws``."""
    args = ["release", "assess", str(ws / "base/manifest.json"), str(ws / "cand/manifest.json"),
            str(ws / "release-policy.json"), str(ws / "evidence-plan.json"), *adapter,
            "--out", str(out)]
    if approval:
        args += ["--approval", str(ws / "approval.json")]
    return args
