"""The reusable GitHub Action .github/actions/aau-evaluate: its interface, SHA-pinned `uses`,
and its shell steps run here, as GitHub would run them, on the example suite."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import aau_schemas
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / ".github/actions/aau-evaluate/action.yml"
SUITE = ROOT / "examples/suites/public-service-routing.json"
AGENT = ROOT / "examples/agents/command_agent.py"
BASH = shutil.which("bash")


def _action() -> dict:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def test_inputs_outputs_and_pinned_uses() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert {"suite", "command", "endpoint", "fail-under", "python-version", "aau-version",
            "aau-source"} <= set(action["inputs"])
    assert action["inputs"]["suite"]["required"] is True
    assert set(action["outputs"]) >= {"receipt", "junit"}
    for name, out in action["outputs"].items():
        assert re.fullmatch(r"\$\{\{ steps\.evaluate\.outputs\.[a-z-]+ \}\}", out["value"]), name
    uses = [step["uses"] for step in action["runs"]["steps"] if "uses" in step]
    assert uses, "the action installs Python with actions/setup-python"
    for ref in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), f"{ref} is not pinned by SHA"
    # inputs reach the shell through env only, never pasted into the script text
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")


def _step(name: str) -> dict:
    return next(s for s in _action()["runs"]["steps"] if s.get("name") == name)


def _env(step: dict, inputs: dict[str, str], github_output: Path) -> dict[str, str]:
    action = _action()
    values = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    values.update(inputs)
    env = dict(os.environ, GITHUB_OUTPUT=str(github_output))
    for var, expr in step.get("env", {}).items():
        match = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", expr)
        assert match, expr
        env[var] = values[match.group(1)]
    return env


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


@pytest.mark.skipif(BASH is None, reason="bash is needed to run the action's shell steps")
def test_evaluate_step_runs_the_example_suite(tmp_path: Path) -> None:
    step = _step("Evaluate")
    env = dict(PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    runs = {
        "met": ({"fail-under": "exact_rate=0.5\nsubmitted_rate=0.9"}, 0),
        "not met": ({"fail-under": "exact_rate=0.99"}, 1),
    }
    for label, (inputs, expected) in runs.items():
        out_dir = tmp_path / label.replace(" ", "-")
        gh = tmp_path / f"{label}.out"
        gh.write_text("")
        inputs = {"suite": str(SUITE), "command": f"{sys.executable} {AGENT}",
                  "out-dir": str(out_dir), **inputs}
        result = subprocess.run([BASH, "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=tmp_path,
                                env={**_env(step, inputs, gh), **env}, capture_output=True,
                                text=True)
        assert result.returncode == expected, (label, result.stderr)
        outputs = _outputs(gh)
        assert outputs["exit-code"] == str(expected)
        receipt = json.loads(Path(outputs["receipt"]).read_text(encoding="utf-8"))
        aau_schemas.validate("receipt-v2", receipt, source=outputs["receipt"])
        assert receipt["scenario_count"] == 8
        assert all(b["passed"] for b in receipt["fail_under"]) == (expected == 0)
        suite = ET.parse(outputs["junit"]).getroot().find("testsuite")
        assert suite is not None and suite.get("tests") == "8"
        lines = result.stderr.strip().splitlines()  # --quiet: one line each from evaluate, report
        assert len(lines) == 2 and lines[0].startswith("public-service-routing-example: 8 unit(s)")
        assert "scenarios passed" in lines[1]
    gh = tmp_path / "neither.out"
    gh.write_text("")
    result = subprocess.run([BASH, "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=tmp_path,
                            env={**_env(step, {"suite": str(SUITE)}, gh), **env},
                            capture_output=True, text=True)
    assert result.returncode == 2 and "give the command input or the endpoint input" in result.stdout


@pytest.mark.skipif(BASH is None, reason="bash is needed to run the action's shell steps")
def test_install_step_installs_what_the_inputs_name(tmp_path: Path) -> None:
    step = _step("Install aau")
    fake = tmp_path / "bin"
    fake.mkdir()
    log = tmp_path / "pip.log"
    (fake / "python").write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    (fake / "aau").write_text("#!/bin/sh\necho aau 0.0\n")
    for f in fake.iterdir():
        f.chmod(0o755)
    expected = {
        "source": ({"aau-source": "/src/aau"}, "/src/aau/packages/aau-adapters"),
        "version": ({"aau-version": "2.0.0"}, "aau-adapters==2.0.0"),
        "newest": ({}, "--quiet aau-adapters"),
    }
    for label, (inputs, wanted) in expected.items():
        log.write_text("")
        env = {**_env(step, {"suite": "s.json", **inputs}, tmp_path / "o"),
               "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
        result = subprocess.run([BASH, "-c", step["run"]], env=env, capture_output=True,
                                text=True)
        assert result.returncode == 0, (label, result.stderr)
        assert wanted in log.read_text().splitlines()[-1], label


def test_docs_example_is_pinned_and_read_only() -> None:
    text = (ROOT / "docs/ci.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert block is not None
    workflow = yaml.safe_load(block.group(1))
    assert workflow["permissions"] == {"contents": "read"}
    steps = workflow["jobs"]["evaluate"]["steps"]
    uses = [step["uses"] for step in steps]
    assert any("/.github/actions/aau-evaluate@" in u for u in uses)
    for ref in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}", ref), ref
    inputs = next(s["with"] for s in steps if "aau-evaluate" in s["uses"])
    assert set(inputs) <= set(_action()["inputs"])
