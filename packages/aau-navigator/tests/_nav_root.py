"""A challenge/gallery root in aau-harness 1.6's layout, built from real files.

Gallery entries, the challenge catalog and the receipt are the byte copies of aau-harness 1.6's
files kept in ``schemas/navigator/v1/examples/valid/``; lab results are the two 1.6 eval
aggregates in ``schemas/eval-aggregate/v1/examples/valid/`` and a mock result that
``aau lab run`` writes; scenarios are those of ``examples/labs/transit-pass-continuity``.

Levels the root is built to produce (asserted by the tests):

- ``medicaid-renewal-reference``: Verified (14/14);
- ``pipeline-notification-reference``: Domain reviewed (no scenarios, results or failures);
- ``batch-disposition-reference``: Draft (not in the catalog);
- ``county-benefit-appeal-eval``: Generated; claims the Adapt challenge C05 (finished);
- receipt ``your-handle-completion-gap``: a valid Reproduce receipt for C01.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
NAV = REPO / "schemas" / "navigator" / "v1" / "examples" / "valid"
AGGREGATES = REPO / "schemas" / "eval-aggregate" / "v1" / "examples" / "valid"
LAB_CONFIG = REPO / "examples" / "labs" / "transit-pass-continuity.json"
LAB_SCENARIOS = REPO / "examples" / "labs" / "transit-pass-continuity.scenarios.json"

REFERENCE = "medicaid-chip/renewal-continuity-navigator"
PIPELINE = "pipeline-safety/incident-notification-coordinator"
BATCH = "pharmaceutical-manufacturing/batch-disposition-gate"
ADAPTED = "community-services/county-benefit-appeal-eval"
PRIVACY = "privacy-data-governance/privacy-rights-orchestrator"
REFUND = "customer-support/refund-guarded"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def package(lab: Path, title: str, readme_extra: str = "") -> None:
    """README, pyproject, tests/ and evals/ (the runnable-package check)."""
    write(lab / "README.md", f"# {title}\n\n{readme_extra}\n")
    write(lab / "pyproject.toml", f'[project]\nname = "{lab.name}"\n'
                                  f'[project.scripts]\n{lab.name} = "{lab.name}.cli:main"\n')
    write(lab / "tests" / "test_smoke.py", "def test_smoke():\n    assert True\n")
    (lab / "evals").mkdir(exist_ok=True)


def scenarios_jsonl(lab: Path, ids: list[str] | None = None) -> list[str]:
    """Write evals/scenarios.jsonl (the transit lab's real scenarios, or rows with ``ids``)."""
    if ids is None:
        rows = json.loads(LAB_SCENARIOS.read_text("utf-8"))["scenarios"]
    else:
        rows = [{"scenario_id": i, "case_text": f"case {i}"} for i in ids]
    write(lab / "evals" / "scenarios.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    return [r["scenario_id"] for r in rows]


def failure_modes(lab: Path, n: int) -> None:
    body = "".join(f"### {i}. Failure {i}\n\nScenario pass-renewal-00{i} shows it.\n\n"
                   for i in range(1, n + 1))
    write(lab / "FAILURE_MODES.md", "# Failure modes\n\n" + body)


def mock_result(lab: Path) -> None:
    """results/eval_mock.json as `aau lab run --mock` writes it."""
    from aau_core import run

    out = lab / ".mock-run"
    out.mkdir()
    assert run(["lab", "run", str(LAB_CONFIG), "--scenarios", str(LAB_SCENARIOS), "--mock",
                "--repeats", "3", "--out", str(out)]) == 0
    (lab / "results").mkdir(exist_ok=True)
    shutil.copyfile(out / "eval_mock.json", lab / "results" / "eval_mock.json")
    shutil.rmtree(out)


def build_root(root: Path) -> Path:
    """Build the root described in the module docstring under ``root``; return it."""
    # the catalog, the studio data, CI, the source ledger
    catalog = [{"path": p, "title": t, "icon": "🧪", "industry": "Public Services",
                "capabilities": ["decide"], "kind": "benchmark", "question": "q?", "cli": c}
               for p, t, c in [(REFERENCE, "Renewal Continuity", "renewal-continuity"),
                               (PIPELINE, "Pipeline Notification", "pipeline-notification"),
                               (PRIVACY, "Privacy Rights", "privacy-rights-orchestrator")]]
    write(root / "docs" / "use-cases.json", json.dumps(catalog, indent=2))
    studio = {"cases": [
        {"path": REFERENCE, "title": "Renewal Continuity Navigator", "icon": "🩺",
         "industry": "Medicaid & CHIP", "cli": "renewal-continuity-navigator",
         "contract": {"name": "Rights Continuity", "path": "RIGHTS_CONTINUITY_CONTRACT.md"},
         "failure_patterns": ["companion protection lapses"]},
        {"path": PIPELINE, "title": "Incident Notification Coordinator",
         "contract": {"name": "Critical Event Fan-Out"}}]}
    write(root / "docs" / "studio-data.json", json.dumps(studio, indent=2))
    write(root / ".github" / "workflows" / "ci.yml",
          f"jobs:\n  labs:\n    steps:\n      - run: pytest {REFERENCE} {PIPELINE}\n")
    write(root / "docs" / "NEXT_IMPACT_RESEARCH_NOTES.md",
          "# Sources\n\n- https://www.medicaid.gov/renewals\n- https://www.ecfr.gov/part-435\n")

    # the Verified maintainer reference
    lab = root / REFERENCE
    package(lab, "Renewal Continuity Navigator",
            "Only a human caseworker holds the authority to end coverage; the agent must not.")
    scenarios_jsonl(lab)
    failure_modes(lab, 3)
    mock_result(lab)
    for name in AGGREGATES.glob("*.json"):
        model = name.stem.split(".", 1)[1]
        shutil.copyfile(name, lab / "results" / f"eval_{model}.json")

    # a Generated reference (no review) and a Draft one (not in the catalog)
    package(root / PIPELINE, "Incident Notification Coordinator")
    package(root / BATCH, "Batch Disposition Gate")

    # the Forge adaptation claiming the Adapt challenge
    lab = root / ADAPTED
    package(lab, "County Benefit Appeal")
    write(lab / "aau-forge.json", json.dumps({"forge_version": "aau-forge/2.0",
                                              "generator": {"contract": "Rights Continuity"}}))
    write(lab / "contract-blueprint.json", json.dumps({"contract": "Rights Continuity"}))

    # gallery entries: 1.6's files, as committed
    for name in ("batch-disposition-reference", "medicaid-renewal-reference",
                 "pipeline-notification-reference"):
        dest = root / "gallery" / "entries" / f"{name}.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(NAV / f"gallery-entry-aau-1.6-{name}.json", dest)
    shutil.copyfile(NAV / "gallery-entry-aau-1.6-example-unreviewed.json",
                    root / "gallery" / "entries" / "county-benefit-appeal-eval.json")

    # the challenge: 1.6's catalog and example receipt, with its starter labs
    (root / "challenge" / "entries").mkdir(parents=True)
    shutil.copyfile(NAV / "challenge-catalog-aau-1.6.json", root / "challenge" / "challenges.json")
    for starter in (PRIVACY, REFUND, BATCH, PIPELINE, REFERENCE):
        (root / starter).mkdir(parents=True, exist_ok=True)
    lab = root / PRIVACY
    package(lab, "Privacy Rights Orchestrator")
    scenarios_jsonl(lab, [f"privacy-{i:03d}" for i in range(30)])
    reproduction = json.loads(
        (AGGREGATES / "eval-aggregate-foia-routing-appeal-navigator.deepseek-v4-flash.json")
        .read_text("utf-8"))
    write(lab / "results" / "eval_reproduction_your_handle.json", json.dumps(reproduction))
    write(root / "challenge" / "receipts" / "your-handle-completion-gap.md",
          "# Completion gap\n\nprivacy-017 completes but routes to the wrong office.\n")
    shutil.copyfile(NAV / "challenge-entry-aau-1.6-example.json",
                    root / "challenge" / "entries" / "your-handle-completion-gap.json")
    return root
