"""`aau import tau2 --domain mock --environment`: cases naming tau2-mock, with the database,
initial state and expected actions in the options; tasks the environment refuses are skipped
with its reason; the cases pass through the environment when the expected actions are called;
errors are one line, exit 2, nothing written; `aau import --help` lists plugged-in importers
without importing them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import aau_schemas
import pytest
from aau_core import ObservedCall, environment_names, load_environment, run

REPO = Path(__file__).resolve().parents[3]
TAU2 = REPO.parent / "shared" / "datasets" / "tau2"
pytestmark = [
    pytest.mark.skipif(not TAU2.is_dir(), reason="the τ² task files live in "
                       "../shared/datasets/tau2, beside the repository; a plain clone has none"),
    pytest.mark.skipif("tau2-mock" not in environment_names(),
                       reason="tau2-mock comes from aau-labs, which is not installed"),
]
NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


def check_environment_suite(doc):
    """The shape of an environment case, and the suite v3 schema."""
    assert doc["suite_version"] == "aau-byo-agent-suite/3.0"
    for case in doc["cases"]:
        env = case["environment"]
        assert NAME.match(env["name"]) and 0 < len(env["task"]) <= 256
        assert isinstance(env.get("options", {}), dict) and set(env) <= {"name", "task",
                                                                        "options", "max_calls"}
        assert case["expected"] == {}
        assert all(m["role"] in ("system", "user") and m["content"]
                   for m in case["input"]["messages"])
    aau_schemas.validate("suite-v3", doc)


def _import(tmp_path, capsys, *extra):
    out = tmp_path / "suite.json"
    rc = run(["import", "tau2", "--source", str(TAU2), "--domain", "mock", "--environment",
              "--out", str(out), *extra])
    err = capsys.readouterr().err
    return rc, out, err


def test_mock_environment_import(tmp_path, capsys):
    rc, out, err = _import(tmp_path, capsys)
    assert rc == 0, err
    assert "7 case(s) written" in err and "3 skipped" in err
    doc = json.loads(out.read_text())
    check_environment_suite(doc)
    skipped = {s["id"]: s["reason"] for s in doc["source"]["skipped"]}
    assert set(skipped) == {"create_task_1_nl_eval", "update_task_with_history_and_env_assertions",
                            "update_task_with_user_tools"}
    assert "env_type" in skipped["update_task_with_user_tools"]
    db = json.loads((TAU2 / "tau2_mock_db.json").read_text())
    env = load_environment("tau2-mock")
    for case in doc["cases"]:
        options = case["environment"]["options"]
        assert options["database"] == db and case["environment"]["name"] == "tau2-mock"
        session = env.open(case["environment"]["task"], options)
        calls = []
        for i, action in enumerate(options["expected_actions"]):
            got = session.call(action["name"], action["arguments"])
            calls.append(ObservedCall(index=i, name=action["name"], arguments=action["arguments"],
                                      ok=got.ok, code=None, result=got.text, started_s=0.0,
                                      duration_s=0.0))
        assert session.score(calls, None).passed, case["scenario_id"]
    history = next(c for c in doc["cases"]
                   if c["scenario_id"] == "update_task_with_message_history")
    shown = history["input"]["messages"][1]["content"]
    assert shown.startswith("Earlier in this conversation:") and "task_2" in shown
    names = [f["path"] for f in doc["source"]["files"]]
    assert names == ["tau2_mock_tasks.json", "tau2_mock_policy.md", "tau2_mock_db.json"]


def test_db_option_and_errors(tmp_path, capsys):
    db = json.loads((TAU2 / "tau2_mock_db.json").read_text())
    db["users"]["user_2"] = {"user_id": "user_2", "name": "Other", "tasks": []}
    path = tmp_path / "db.json"
    path.write_text(json.dumps(db))
    rc, out, err = _import(tmp_path, capsys, "--db", str(path))
    assert rc == 0, err
    doc = json.loads(out.read_text())
    assert doc["cases"][0]["environment"]["options"]["database"]["users"].keys() == {
        "user_1", "user_2"}
    # errors: one line, exit 2, nothing written
    for args, words in [(["--db", str(tmp_path / "missing.json")], "missing.json"),
                        (["--tools", str(path)], "--tools and --environment")]:
        bad = tmp_path / "bad.json"
        rc = run(["import", "tau2", "--source", str(TAU2), "--domain", "mock", "--environment",
                  "--out", str(bad), *args])
        err = capsys.readouterr().err
        assert rc == 2 and words in err and len(err.strip().splitlines()) == 1 and not bad.exists()
    rc = run(["import", "tau2", "--source", str(TAU2), "--domain", "airline", "--environment",
              "--out", str(tmp_path / "air.json")])
    err = capsys.readouterr().err
    assert rc == 2 and "only mock has a bundled environment" in err


def test_import_help_lists_agentdojo_without_importing_aau_labs():
    code = ("import sys; from aau_core import run; rc = run(['import', '--help']); "
            "print('LABS' if any(m.startswith('aau_labs') for m in sys.modules) else 'NOLABS')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert "agentdojo  (from aau-labs; aau import agentdojo --help)" in proc.stdout
    assert proc.stdout.strip().endswith("NOLABS"), proc.stdout
