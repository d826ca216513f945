"""Verify a generated lab end to end: install, generate, test, mock evaluation.

Four steps, each a subprocess of the current interpreter, stopping at the first failure:

1. ``install`` — the lab's package is laid out in a throw-away folder as its wheel holds it
   (each folder of ``[tool.hatch.build.targets.wheel] packages``, default ``src/<pkg>``, copied
   with its data files), then a subprocess imports the package and every ``[project.scripts]``
   target. No build backend and no pip are used: aau does not depend on hatchling (the lab's
   declared backend), and an environment made by uv has no pip, so building the lab would fail
   in environments aau installs into; what the install step has to prove (the declared
   package exists, imports, and its console scripts resolve) does not need a build. Nothing
   reaches the network and the caller's environment is left as it was (aau-harness 1.6
   installed every scaffold into it with ``pip install -e``). The lab's dependencies
   (aau-core, aau-schemas, click) and pytest are dependencies of aau-navigator.
2. ``generate`` — ``python -m <pkg>.cli generate --n N --seed S --out LAB/evals/scenarios.json``.
3. ``tests`` — ``python -m pytest -q -p no:cacheprovider LAB/tests`` (the lab's own tests, with
   its ``pyproject.toml`` as the only pytest configuration).
4. ``mock_eval`` — ``python -m <pkg>.cli eval --backend mock --repeats R --out LAB/results``.

Steps 1–4 see the laid-out lab through ``PYTHONPATH``. The committed scenarios and mock
result are what ``aau forge doctor`` later counts.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

STEPS = ("install", "generate", "tests", "mock_eval")
STEP_TIMEOUT_S = 600.0
"""Longest a step may run, in seconds, before it counts as failed."""
TAIL_CHARS = 1500
"""Characters of a failed step's output kept for the message."""


@attrs.frozen
class StepResult:
    """One verification step.

    Attributes:
        step: one of ``STEPS``.
        passed: the step exited 0 within ``STEP_TIMEOUT_S``.
        output: the tail (``TAIL_CHARS``) of its stdout and stderr.
    """

    step: str
    passed: bool
    output: str = ""

    @property
    def summary(self) -> str:
        """The last non-empty output line (``"exit status N"`` when there is none)."""
        lines = [line for line in self.output.splitlines() if line.strip()]
        return lines[-1].strip() if lines else "no output"

    def record(self) -> dict[str, str]:
        """The manifest's ``{"step", "status"}`` item."""
        return {"step": self.step, "status": "passed" if self.passed else "failed"}


def _run(step: str, argv: list[str], cwd: Path, env: dict[str, str]) -> StepResult:
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=STEP_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return StepResult(step, False, f"timed out after {STEP_TIMEOUT_S:g} s")
    except OSError as exc:
        return StepResult(step, False, f"cannot run {argv[0]}: {exc.strerror}")
    output = (done.stdout + done.stderr)[-TAIL_CHARS:]
    if done.returncode != 0 and not output.strip():
        output = f"exit status {done.returncode}"
    return StepResult(step, done.returncode == 0, output)


_IMPORT_TARGETS = """\
import importlib, sys
for target in sys.argv[1:]:
    module, _, attribute = target.partition(":")
    value = importlib.import_module(module.strip())
    for part in attribute.strip().split(".") if attribute.strip() else []:
        value = getattr(value, part)
    if attribute and not callable(value):
        raise SystemExit(f"{target} is not callable")
"""


def _read_pyproject(lab: Path) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    return tomllib.loads((lab / "pyproject.toml").read_text(encoding="utf-8"))


def _install(lab: Path, pkg: str, site: Path, argv: list[str], env: dict[str, str]
             ) -> StepResult:
    """The ``install`` step (module docstring): lay the wheel's folders out in ``site``, then
    run ``argv + [pkg, *script targets]`` (the import check)."""
    try:
        pyproject = _read_pyproject(lab)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return StepResult("install", False, f"pyproject.toml: {exc}")
    project = pyproject.get("project")
    if not isinstance(project, dict) or not project.get("name"):
        return StepResult("install", False, "pyproject.toml: $.project.name: missing")
    wheel = pyproject.get("tool", {}).get("hatch", {}).get("build", {}).get("targets", {}) \
        .get("wheel", {})
    folders = wheel.get("packages", [f"src/{pkg}"]) if isinstance(wheel, dict) else []
    for folder in folders:
        source = lab / str(folder)
        if not source.is_dir():
            return StepResult("install", False, f"pyproject.toml: wheel package {folder!r} is "
                                                "not a folder of the lab")
        shutil.copytree(source, site / source.name, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    scripts = project.get("scripts", {})
    targets = [str(t) for t in scripts.values()] if isinstance(scripts, dict) else []
    return _run("install", [*argv, pkg, *targets], lab, env)


def verify_lab(lab: Path, pkg: str, *, seed: int, n: int, repeats: int,
               progress: Callable[[StepResult], None] | None = None,
               python: str = sys.executable) -> list[StepResult]:
    """Run the four steps (module docstring) on the lab folder ``lab`` of package ``pkg``.

    Args:
        lab: the generated lab folder.
        pkg: its import package.
        seed: the scenario seed to generate with.
        n: the number of scenarios to generate (>= 1).
        repeats: mock repeats per scenario (>= 1).
        progress: called with each finished step.
        python: the interpreter that runs every step.

    Returns:
        the steps run, in order; the last one failed when there are fewer than four.
    """
    lab = lab.resolve()
    results: list[StepResult] = []
    site = Path(tempfile.mkdtemp(prefix="aau-forge-verify-"))
    try:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(site)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        commands = {
            "install": [python, "-c", _IMPORT_TARGETS],
            "generate": [python, "-m", f"{pkg}.cli", "generate", "--n", str(n), "--seed",
                         str(seed), "--out", str(lab / "evals" / "scenarios.json"), "--force"],
            "tests": [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c",
                      str(lab / "pyproject.toml"), "--rootdir", str(lab), str(lab / "tests")],
            "mock_eval": [python, "-m", f"{pkg}.cli", "eval", "--backend", "mock", "--repeats",
                          str(repeats), "--scenarios", str(lab / "evals" / "scenarios.json"),
                          "--out", str(lab / "results"), "--force"],
        }
        for step in STEPS:
            if step == "install":
                result = _install(lab, pkg, site, commands[step], env)
            elif step == "tests" and importlib.util.find_spec("pytest") is None:
                result = StepResult(step, False, "pytest is not installed in this Python; "
                                    "pip install pytest, or forge with --no-verify")
            else:
                result = _run(step, commands[step], lab, env)
            results.append(result)
            if progress is not None:
                progress(result)
            if not result.passed:
                break
    finally:
        shutil.rmtree(site, ignore_errors=True)
    return results
