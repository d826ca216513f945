"""The "Run it" commands of a freshly generated lab's README work, verbatim, on that lab.

`aau new-use-case` and `aau forge` verify the lab when they create it, which writes
evals/scenarios.json and results/eval_mock.json; a README command that refuses to replace them
fails a new user's first step. Only `pip install -e .` is replaced (by an install into a
temporary folder, so the test leaves this environment alone); every other line runs as printed.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from aau_core import run
from aau_navigator._forge import forge

REPO = Path(__file__).resolve().parents[3]
GATE = REPO / "schemas" / "navigator" / "v1" / "examples" / "valid" / \
    "studio-brief-minimal-decision-gate.json"

pytestmark = pytest.mark.skipif(importlib.util.find_spec("hatchling") is None,
                                reason="installing a lab needs hatchling")


def _run_it_block(readme: Path) -> list[str]:
    text = readme.read_text()
    block = re.search(r"## Run it\s+```bash\n(.*?)```", text, re.S)
    assert block, "the README has no Run it block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def _run_readme(lab: Path, site: Path) -> list[str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(site / "bin"), str(Path(sys.executable).parent),
                                   env.get("PATH", "")])
    env["PYTHONPATH"] = str(site)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    ran = []
    for line in _run_it_block(lab / "README.md"):
        if line.strip() == "pip install -e .":
            argv = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--no-index", "--target", str(site), "."]
            proc = subprocess.run(argv, cwd=lab, env=env, capture_output=True, text=True,
                                  timeout=300)
        else:
            proc = subprocess.run(["bash", "-c", line], cwd=lab, env=env, capture_output=True,
                                  text=True, timeout=600)
        assert proc.returncode == 0, (line, proc.stdout[-2000:], proc.stderr[-2000:])
        ran.append(line)
    return ran


def test_new_use_case_readme_commands_run_verbatim(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(["new-use-case", "--industry", "healthcare", "--name", "prior-auth-desk",
                "--seed", "41"]) == 0  # the documented quick start, which verifies the lab
    lab = tmp_path / "healthcare" / "prior-auth-desk"
    assert (lab / "results" / "eval_mock.json").is_file()
    ran = _run_readme(lab, tmp_path / "site")
    assert any(line.startswith("prior-auth-desk eval --backend mock") for line in ran)


def test_forged_lab_readme_commands_run_verbatim(tmp_path: Path) -> None:
    lab = forge(GATE, "renewal-gate", tmp_path / "labs").path
    ran = _run_readme(lab, tmp_path / "site")
    assert any(line.startswith("renewal-gate generate --n 32") for line in ran)
