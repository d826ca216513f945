"""`aau import agentdojo`: a case per user task naming agentdojo-<suite>, the system message and
the prompt as input, expected {}; every case is accepted by its environment and its ground truth
passes through it; bad input is one line, exit 2, nothing written."""

from __future__ import annotations

import json
import re

import aau_schemas
import pytest
from aau_core import ObservedCall, load_environment, run

pytest.importorskip("agentdojo", reason="AgentDojo is not installed: pip install "
                    "'aau-labs[agentdojo]' (make test's environment has it)")

from aau_labs._agentdojo._suite import AgentDojoSuite  # noqa: E402

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


@pytest.mark.parametrize("suite,count", [("banking", 16), ("slack", 21)])
def test_import_writes_environment_cases_that_pass_by_ground_truth(tmp_path, capsys, suite,
                                                                   count):
    out = tmp_path / "s.json"
    assert run(["import", "agentdojo", "--suite", suite, "--out", str(out)]) == 0
    assert f"{count} case(s) written" in capsys.readouterr().err
    doc = json.loads(out.read_text())
    aau_schemas.validate("suite-v3", doc)
    bench = AgentDojoSuite(suite)
    env = load_environment(f"agentdojo-{suite}")
    assert [c["scenario_id"] for c in doc["cases"]] == [t.task_id for t in bench.tasks()]
    for case, task in zip(doc["cases"], bench.tasks(), strict=True):
        spec = case["environment"]
        assert NAME.match(spec["name"]) and spec == {
            "name": f"agentdojo-{suite}", "task": task.task_id,
            "options": {"benchmark_version": "v1.2.2"}}
        assert case["expected"] == {}
        assert case["input"]["messages"] == [
            {"role": "system", "content": bench.system_prompt()},
            {"role": "user", "content": task.prompt}]
        env.check_case(spec["task"], spec["options"])
        session = env.open(spec["task"], spec["options"])
        calls = []
        for i, call in enumerate(bench.ground_truth(task)):
            got = session.call(call["name"], call["arguments"])
            calls.append(ObservedCall(index=i, name=call["name"], arguments=call["arguments"],
                                      ok=got.ok, code=None, result=got.text, started_s=0.0,
                                      duration_s=0.0))
        assert session.score(calls, task.task.GROUND_TRUTH_OUTPUT).passed, task.task_id
    assert doc["source"]["benchmark"] == "agentdojo" and doc["source"]["imported"] == count


def test_tasks_and_version_options(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert run(["import", "agentdojo", "--suite", "slack", "--tasks", "user_task_3,user_task_0",
                "--benchmark-version", "v1.1", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert [c["scenario_id"] for c in doc["cases"]] == ["user_task_3", "user_task_0"]
    assert {c["environment"]["options"]["benchmark_version"] for c in doc["cases"]} == {"v1.1"}
    capsys.readouterr()
    for args, words in [(["--tasks", "user_task_99"], "no task 'user_task_99'"),
                        (["--benchmark-version", "v9"], "unknown AgentDojo benchmark version"),
                        (["--tasks", "a,,b"], "expected task ids")]:
        bad = tmp_path / "bad.json"
        rc = run(["import", "agentdojo", "--suite", "banking", *args, "--out", str(bad)])
        err = capsys.readouterr().err
        assert rc == 2 and words in err and len(err.strip().splitlines()) == 1, err
        assert not bad.exists()
