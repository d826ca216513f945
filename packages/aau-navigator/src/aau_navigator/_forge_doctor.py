"""``aau forge doctor PATH``: what a forged lab still needs before publication.

Eight checks, in order (aau-harness 1.6's, with its ids as ``check``):

| check | passes when |
| --- | --- |
| ``forge manifest`` | ``aau-forge.json`` is strict JSON and a valid ``forge-manifest`` |
| ``contract blueprint`` | contract-aware: the blueprint's ``lab_config.json`` is a valid contract-config of the blueprint's family; generic-fallback: declared in the manifest |
| ``required artifacts`` | README.md, FAILURE_MODES.md, ADAPTATION_CHECKLIST.md, evaluation-brief.json, pyproject.toml, tests/ and evals/scenarios.json exist |
| ``domain truth replaced`` | ``src/`` exists and holds no ``TODO(domain)``, ``TODO-DOMAIN`` or ``TODO_DOMAIN`` (.py, .md, .json) |
| ``scenario volume`` | evals/scenarios.json holds at least the manifest's ``minimum_scenarios`` |
| ``real-model evidence`` | at least two ``results/eval_*.json`` other than ``eval_mock.json`` |
| ``observed failures`` | FAILURE_MODES.md no longer says "generated hypotheses" nor ``TODO(domain)`` |
| ``generated verification`` | the manifest's verification status is ``passed`` |

The report (``--json``; kind ``forge-doctor-report``)::

    {"doctor_version": "aau-forge-doctor/1.0", "path": "<absolute lab path>",
     "contract": "<family or contract>" | null, "publication_ready": <bool>,
     "score": {"passed": <int>, "total": 8},
     "checks": [{"check": "<id>", "passed": <bool>, "detail": "<one line>"}, ...]}

A missing or unreadable file fails its check; it never raises.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from aau_core import AauError, read_json_file
from aau_labs import load_contract_config

from ._forge import MANIFEST_NAME, check_manifest

FORGE_DOCTOR_VERSION = "aau-forge-doctor/1.0"
REQUIRED = ("README.md", "FAILURE_MODES.md", "ADAPTATION_CHECKLIST.md", "evaluation-brief.json",
            "pyproject.toml", "tests", "evals/scenarios.json")
PLACEHOLDER = re.compile(r"TODO\(domain\)|TODO-DOMAIN|TODO_DOMAIN")
MAX_FILE_BYTES = 50_000_000
"""Largest file the doctor reads, in bytes."""


def _first_line(exc: Exception) -> str:
    lines = str(exc).splitlines() or [type(exc).__name__]
    return lines[0] + (f" (and {len(lines) - 1} more)" if len(lines) > 1 else "")


def _read_json(path: Path) -> tuple[Any, str | None]:
    try:
        return read_json_file(path, max_bytes=MAX_FILE_BYTES), None
    except AauError as exc:
        return None, _first_line(exc)


def _placeholders(lab: Path) -> list[str]:
    found = []
    src = lab / "src"
    for path in sorted(src.rglob("*")) if src.is_dir() else []:
        if path.suffix not in (".py", ".md", ".json") or not path.is_file():
            continue
        try:
            lines = path.read_text("utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        found += [f"{path.relative_to(lab)}:{i}" for i, line in enumerate(lines, 1)
                  if PLACEHOLDER.search(line)]
    return found


def _blueprint_check(lab: Path, manifest: dict[str, Any] | None) -> tuple[bool, str]:
    if manifest is None:
        return False, "no valid manifest to read the blueprint from"
    generator = manifest["generator"]
    blueprint = generator["blueprint"]
    if blueprint is None:
        return True, f"generic fallback declared in the manifest ({generator['contract']})"
    config, problem = _read_json(lab / blueprint["config_path"])
    if problem:
        return False, problem
    try:
        loaded = load_contract_config(config, source=blueprint["config_path"])
    except AauError as exc:
        return False, _first_line(exc)
    if loaded.family != blueprint["contract"]:
        return False, f"lab_config.json is a {loaded.family} config, the blueprint says " \
                      f"{blueprint['contract']}"
    return True, f"{loaded.family}: {len(loaded.nodes)} nodes, headline {blueprint['exact_metric']}"


def diagnose_forged_lab(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The doctor report of the forged lab at ``path`` (module docstring); never raises for
    a broken lab."""
    lab = Path(path).resolve()
    checks: list[dict[str, Any]] = []

    def add(check: str, passed: bool, detail: str) -> None:
        checks.append({"check": check, "passed": bool(passed), "detail": detail})

    manifest, problem = _read_json(lab / MANIFEST_NAME)
    if problem is None:
        try:
            check_manifest(manifest, MANIFEST_NAME)
        except AauError as exc:
            problem = _first_line(exc)
    if problem is not None:
        manifest = None
    add("forge manifest", manifest is not None,
        problem or f"{manifest['forge_version']}, {manifest['generator']['mode']}")
    add("contract blueprint", *_blueprint_check(lab, manifest))

    absent = [name for name in REQUIRED if not (lab / name).exists()]
    add("required artifacts", not absent,
        "complete" if not absent else f"missing: {', '.join(absent)}")

    todos = _placeholders(lab)
    if not (lab / "src").is_dir():
        add("domain truth replaced", False, "src/ is missing")
    else:
        add("domain truth replaced", not todos, "no generated domain placeholders remain"
            if not todos else f"{len(todos)} placeholder(s); first: {', '.join(todos[:5])}")

    minimum = manifest["verification"]["minimum_scenarios"] if manifest else 20
    scenarios, problem = _read_json(lab / "evals" / "scenarios.json")
    count = len(scenarios["scenarios"]) if isinstance(scenarios, dict) and isinstance(
        scenarios.get("scenarios"), list) else 0
    add("scenario volume", count >= minimum,
        f"{count}/{minimum} committed scenarios" if problem is None else problem)

    results = lab / "results"
    real = sorted(p.name for p in results.glob("eval_*.json")
                  if p.name != "eval_mock.json") if results.is_dir() else []
    add("real-model evidence", len(real) >= 2, f"{len(real)}/2 non-mock result files")

    failures = lab / "FAILURE_MODES.md"
    try:
        text = failures.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        text = None
    observed = text is not None and "generated hypotheses" not in text.lower() \
        and "TODO(domain)" not in text
    add("observed failures", observed,
        "failure modes read as observed" if observed
        else "replace the generated hypotheses with observed, scenario-linked failures")

    status = manifest["verification"]["status"] if manifest else "missing"
    add("generated verification", status == "passed", status)

    passed = sum(check["passed"] for check in checks)
    return {
        "doctor_version": FORGE_DOCTOR_VERSION,
        "path": str(lab),
        "contract": manifest["generator"]["contract"] if manifest else None,
        "publication_ready": passed == len(checks),
        "score": {"passed": passed, "total": len(checks)},
        "checks": checks,
    }


def render_diagnosis(report: dict[str, Any]) -> str:
    """The report as text: a title line, the score, one ``[PASS]``/``[TODO]`` line per check
    and the verdict."""
    lines = [f"aau forge doctor: {report['contract'] or 'unknown contract'} ({report['path']})",
             f"readiness {report['score']['passed']}/{report['score']['total']}", ""]
    lines += [f"[{'PASS' if c['passed'] else 'TODO'}] {c['check']}: {c['detail']}"
              for c in report["checks"]]
    lines += ["", "PUBLICATION READY" if report["publication_ready"] else "ADAPTATION REQUIRED"]
    return "\n".join(lines)
