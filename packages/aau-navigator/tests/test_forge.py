"""`aau forge`: briefs, the 1.6 seed rule, contract families, generated labs verified end to end,
the manifest, `aau forge doctor` and the command line."""

from __future__ import annotations

import copy
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import aau_schemas
import pytest
from aau_core import BarNotMetError, InputError, run
from aau_labs import load_contract_config
from aau_navigator._cli_forge import forge_command
from aau_navigator._forge import FAMILY_METRICS, contract_config, forge
from aau_navigator._forge_brief import brief_seed, contract_family, load_brief
from aau_navigator._forge_doctor import diagnose_forged_lab
from aau_navigator._scaffold import lab_names

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "schemas" / "navigator" / "v1" / "examples"
PIPELINE = EXAMPLES / "valid" / "studio-brief-aau-1.6-pipeline.json"  # 1.6's own example brief
GATE = EXAMPLES / "valid" / "studio-brief-minimal-decision-gate.json"
GENERIC = EXAMPLES / "valid" / "studio-brief-generic-unspecified-industry.json"


def _brief(tmp_path: Path, contract: str, name: str = "brief.json") -> Path:
    doc = json.loads(GATE.read_text())
    doc["recommended_case"]["contract"] = contract
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


# ------------------------------------------------------------------ briefs and the seed rule

def test_seed_is_aau_harness_16s() -> None:
    brief = load_brief(PIPELINE)
    assert brief_seed(brief) == 1334  # what aau-harness 1.6's deterministic_seed gives
    same = copy.deepcopy(brief)
    same["created_at"] = "2030-01-01T00:00:00Z"
    same["commands"]["install"] = "something else"
    assert brief_seed(same) == 1334
    other = copy.deepcopy(brief)
    other["workflow"]["risks"].append("one more risk")
    assert brief_seed(other) != 1334
    assert all(1000 <= brief_seed(load_brief(p)) <= 9998 for p in (PIPELINE, GATE, GENERIC))


@pytest.mark.parametrize("path", sorted((EXAMPLES / "invalid").glob("studio-brief-*.json")),
                         ids=lambda p: p.stem)
def test_invalid_briefs_are_one_line_input_errors(path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_brief(path)
    assert str(info.value).startswith(f"{path}: $")
    assert "\n" not in str(info.value)


def test_brief_that_is_not_json_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text('{"contract_version": "aau-studio/1.0",}')
    with pytest.raises(InputError, match=str(bad)):
        load_brief(bad)


@pytest.mark.parametrize(("contract", "family"), [
    ("Decision Gate", "Decision Gate"),
    ("decision-gate contract", "Decision Gate"),
    ("RIGHTS   continuity", "Rights Continuity"),
    ("Critical event fan-out", "Critical Event Fan-Out"),
    ("critical event fan out (v2)", "Critical Event Fan-Out"),
    ("Queue triage", None),
    ("fan-out", None),
])
def test_contract_family(contract: str, family: str | None) -> None:
    assert contract_family(contract) == family


@pytest.mark.parametrize("family", sorted(FAMILY_METRICS))
@pytest.mark.parametrize("name", ["renewal-gate", "x9", "a-very-long-lab-name-with-many-parts-"
                                                         "well-beyond-thirty-two"])
def test_contract_config_of_every_family_is_valid(family: str, name: str) -> None:
    names = lab_names("public", name)
    workflow = {"description": "  A desk\n that routes. ", "industry": "x", "agent_shape": "y",
                "risks": []}
    doc = contract_config(names, family, 4242, workflow)
    aau_schemas.validate("contract-config", doc)
    config = load_contract_config(doc)
    assert (config.family, config.seed, config.title) == (family, 4242, names.title)
    assert config.headline_metric == FAMILY_METRICS[family]
    assert doc["workflow_description"] == "A desk that routes."


# ------------------------------------------------------------------ generated labs, end to end

@pytest.mark.slow
@pytest.mark.parametrize("contract", ["Decision Gate", "Rights Continuity",
                                      "Critical Event Fan-Out"])
def test_forged_contract_lab_verifies_end_to_end(tmp_path: Path, contract: str) -> None:
    result = forge(_brief(tmp_path, contract), "renewal-gate", tmp_path / "out")
    lab = result.path
    assert lab == tmp_path / "out" / "public-benefits" / "renewal-gate"
    manifest = json.loads((lab / "aau-forge.json").read_text())
    assert manifest == result.manifest
    aau_schemas.validate("forge-manifest", manifest)
    assert manifest["generator"]["mode"] == "contract-aware"
    assert manifest["generator"]["contract"] == contract
    assert manifest["verification"]["status"] == "passed"
    assert [s["step"] for s in manifest["verification"]["steps"]] == [
        "install", "generate", "tests", "mock_eval"]
    assert "5 passed" in result.steps[2].output
    config = json.loads((lab / "src" / "renewal_gate" / "lab_config.json").read_text())
    aau_schemas.validate("contract-config", config)
    assert config["seed"] == manifest["seed"] == brief_seed(load_brief(lab / "evaluation-brief.json"))
    scenarios = json.loads((lab / "evals" / "scenarios.json").read_text())
    aau_schemas.validate("contract-scenarios", scenarios)
    assert scenarios["n"] == 32 and scenarios["seed"] == manifest["seed"]
    outcome = json.loads((lab / "results" / "eval_mock.json").read_text())
    aau_schemas.validate("lab-result", outcome)
    metric = FAMILY_METRICS[contract]
    assert 0.0 < outcome["aggregate"]["metric_means"][metric] < 1.0
    assert outcome["aggregate"]["n_repeats"] == 3
    for path in (lab / "src").rglob("*.py"):
        compile(path.read_text(), str(path), "exec")
    assert (lab / "evaluation-brief.json").read_bytes() == _brief(tmp_path, contract,
                                                                  "again.json").read_bytes()


@pytest.mark.slow
def test_forged_generic_lab_verifies_end_to_end(tmp_path: Path) -> None:
    result = forge(GENERIC, "queue-desk", tmp_path, title="Queue | Desk")
    lab = result.path
    # industry "unspecified" takes the recommended case's industry
    assert lab == tmp_path / "public-benefits" / "queue-desk"
    manifest = result.manifest
    aau_schemas.validate("forge-manifest", manifest)
    assert manifest["generator"] == {
        "mode": "generic-fallback", "contract": "Queue triage", "blueprint": None,
        "supported_contracts": ["Decision Gate", "Rights Continuity", "Critical Event Fan-Out"]}
    assert manifest["verification"]["status"] == "passed"
    assert not (lab / "src" / "queue_desk" / "lab_config.json").exists()
    aau_schemas.validate("eval-aggregate-v2",
                         json.loads((lab / "results" / "eval_mock.json").read_text()))
    readme = (lab / "README.md").read_text()
    assert readme.startswith("# Queue &#124; Desk\n")
    assert "generic scaffold" in readme and f"`{manifest['seed']}`" in readme
    checklist = (lab / "ADAPTATION_CHECKLIST.md").read_text()
    for proof in load_brief(GENERIC)["verification_plan"]["required_proofs"]:
        assert f"- [ ] {proof}" in checklist


def test_failed_verification_keeps_the_lab_and_records_the_failure(tmp_path: Path,
                                                                   monkeypatch) -> None:
    import aau_navigator._forge_verify as verify

    monkeypatch.setattr(verify.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(BarNotMetError, match="failed verification at tests: pytest is not "
                                             "installed in this Python"):
        forge(GATE, "renewal-gate", tmp_path)
    manifest = json.loads((tmp_path / "public-benefits" / "renewal-gate" / "aau-forge.json")
                          .read_text())
    aau_schemas.validate("forge-manifest", manifest)
    assert manifest["verification"]["status"] == "failed"
    assert manifest["verification"]["steps"] == [
        {"step": "install", "status": "passed"}, {"step": "generate", "status": "passed"},
        {"step": "tests", "status": "failed"}]


def test_source_commit_comes_from_git_only_inside_a_checkout(tmp_path: Path) -> None:
    outside = forge(GATE, "renewal-gate", tmp_path / "plain", verify=False).manifest
    assert outside["source"]["commit"] is None and outside["source"]["repository"] is None
    assert outside["verification"] == {"status": "not_run", "minimum_scenarios": 32,
                                       "minimum_repeats": 3, "steps": []}
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    inside = forge(GATE, "renewal-gate", repo, verify=False).manifest
    assert inside["source"]["commit"] == head
    aau_schemas.validate("forge-manifest", inside)


# ------------------------------------------------------------------ doctor

def _checks(report: dict) -> dict[str, bool]:
    return {c["check"]: c["passed"] for c in report["checks"]}


def test_doctor_on_a_fresh_lab_and_after_adaptation(tmp_path: Path) -> None:
    lab = forge(GATE, "renewal-gate", tmp_path, verify=False).path
    report = diagnose_forged_lab(lab)
    assert report["doctor_version"] == "aau-forge-doctor/1.0"
    assert report["contract"] == "Decision Gate" and report["score"]["total"] == 8
    assert _checks(report) == {
        "forge manifest": True, "contract blueprint": True,
        "required artifacts": False,  # no committed scenarios yet
        "domain truth replaced": False, "scenario volume": False,
        "real-model evidence": False, "observed failures": False,
        "generated verification": False}
    # adapt: replace placeholders, commit scenarios and two real results, observed failures
    for path in (lab / "src").rglob("*"):
        if path.is_file():
            path.write_text(path.read_text().replace("TODO(domain)", "Reviewed")
                            .replace("TODO-DOMAIN", "reviewed"))
    assert run(["lab", "generate", str(lab / "src/renewal_gate/lab_config.json"),
                "--out", str(lab / "evals/scenarios.json")]) == 0
    for model in ("model-a", "model-b"):
        (lab / "results" / f"eval_{model}.json").write_text("{}")
    (lab / "FAILURE_MODES.md").write_text("# Failure modes\n\n### 1. Observed in gate-007\n")
    manifest = json.loads((lab / "aau-forge.json").read_text())
    manifest["verification"]["status"] = "passed"
    (lab / "aau-forge.json").write_text(json.dumps(manifest))
    report = diagnose_forged_lab(lab)
    assert report["publication_ready"] is True, report
    aau_schemas.validate("forge-doctor-report", report)
    assert report["score"] == {"passed": 8, "total": 8}


def test_doctor_never_raises_on_a_broken_folder(tmp_path: Path) -> None:
    report = diagnose_forged_lab(tmp_path)
    assert report["score"] == {"passed": 0, "total": 8} and report["contract"] is None
    aau_schemas.validate("forge-doctor-report", report)
    (tmp_path / "aau-forge.json").write_text('{"forge_version": "aau-forge/2.0"')
    broken = diagnose_forged_lab(tmp_path)
    aau_schemas.validate("forge-doctor-report", broken)
    first = broken["checks"][0]
    assert first["passed"] is False and "aau-forge.json" in first["detail"]


# ------------------------------------------------------------------ command line

def test_cli_forge_json_doctor_and_errors(tmp_path: Path, capsys) -> None:
    argv = [str(GATE), "--name", "renewal-gate", "--root", str(tmp_path), "--no-verify"]
    assert run(["forge", *argv, "--json"]) == 0
    out = capsys.readouterr()
    manifest = json.loads(out.out)
    aau_schemas.validate("forge-manifest", manifest)
    assert "forged public-benefits/renewal-gate" in out.err
    lab = tmp_path / "public-benefits" / "renewal-gate"
    before = (lab / "aau-forge.json").read_text()
    assert run(["forge", *argv]) == 2  # never overwrites
    assert "already exists" in capsys.readouterr().err
    assert (lab / "aau-forge.json").read_text() == before
    assert run(["forge", "doctor", str(lab), "--json"]) == 1  # not publication ready
    report = json.loads(capsys.readouterr().out)
    assert report["path"] == str(lab) and report["publication_ready"] is False
    aau_schemas.validate("forge-doctor-report", report)
    # aau-forge, 1.6's script: the same command
    assert run(["doctor", str(lab)], command=forge_command, prog_name="aau-forge") == 1
    assert "ADAPTATION REQUIRED" in capsys.readouterr().err
    bad = EXAMPLES / "invalid" / "studio-brief-three-proofs.json"
    assert run(["forge", str(bad), "--name", "x", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: $.verification_plan.required_proofs" in err and "Traceback" not in err
    assert run(["forge", str(GATE), "--root", str(tmp_path)]) == 2  # --name is required
    assert "--name" in capsys.readouterr().err
    assert run(["forge", str(GATE), "--name", "y", "--seed", "-1"]) == 2


@pytest.mark.parametrize("brief", [GATE, GENERIC], ids=["contract-aware", "generic"])
def test_generated_labs_are_lint_clean(tmp_path: Path, brief: Path) -> None:
    """The generated code passes the project's own ruff rules (a user's first lint is clean)."""
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed")
    lab = forge(brief, "lint-desk", tmp_path, verify=False).path
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--config", str(REPO / "pyproject.toml"),
                           "--output-format", "concise", "."], cwd=lab, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
