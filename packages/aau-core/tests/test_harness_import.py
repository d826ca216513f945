"""import_harness_dir: PraisonAI InteractiveTestHarness folders into traces, malformed content."""

from __future__ import annotations

import json
import os
import shutil

import aau_schemas
import pytest
from _helpers import REPO
from aau_core import HarnessEvaluator, InputError, import_harness_dir

HARNESS_DIR = REPO / "examples" / "traces" / "praison-harness-run"


def test_fixture_folder_becomes_the_expected_trace():
    trace = import_harness_dir(HARNESS_DIR)
    aau_schemas.validate("trace", trace)
    assert [c["tool"] for c in trace["tool_calls"]] == ["list_files", "write_file", "write_file",
                                                       "execute_command"]
    assert trace["artifacts"] == ["README.md", "src/greet.py"]
    assert trace["judge_score"] == 8.5 and trace["judge"]["threshold"] == 7.0
    assert trace["transcript"].startswith("[user] Create a Python module")
    assert trace["result"]["status"] == "completed"
    assert trace["source"]["format"] == "praisonai-interactive-test-harness"
    r = HarnessEvaluator(trace, required_artifacts=["src/greet.py"], min_tool_calls=4).run()
    assert r.passed and r.tool_call_count == 4


@pytest.fixture
def run_dir(tmp_path):
    target = tmp_path / "run"
    shutil.copytree(HARNESS_DIR, target)
    return target


def test_only_some_files(run_dir):
    for name in ("judge_result.json", "result.json", "transcript.txt"):
        (run_dir / name).unlink()
    trace = import_harness_dir(run_dir)
    assert "judge_score" not in trace and "judge" not in trace
    assert trace["source"]["files"] == ["tool_trace.jsonl", "workspace/"]


def test_null_judge_score_means_no_judge(run_dir):
    (run_dir / "judge_result.json").write_text('{"score": null, "passed": false}')
    trace = import_harness_dir(run_dir)
    assert "judge_score" not in trace and trace["judge"]["passed"] is False


@pytest.mark.parametrize("name, content, where", [
    ("tool_trace.jsonl", '{"tool": "a"}\n[1]\n', "tool_trace.jsonl: line 2: a tool call must be a JSON object"),
    ("tool_trace.jsonl", '{"tool": "a"}\n\n{"tool": NaN}\n', "tool_trace.jsonl: line 3: $.tool: NaN"),
    ("tool_trace.jsonl", b'{"tool": "\xff"}\n', "tool_trace.jsonl: line 1: not UTF-8"),
    ("judge_result.json", '{"score": "8"}', "judge_result.json: $.score: score must be a number"),
    ("judge_result.json", '{"score": true}', "judge_result.json: $.score"),
    ("judge_result.json", '[8]', "judge_result.json: $: a judge result must be a JSON object"),
    ("result.json", '"done"', "result.json: $: a result must be a JSON object"),
    ("result.json", '{"a": 1', "result.json"),
])
def test_malformed_files_name_the_file_and_place(run_dir, name, content, where):
    path = run_dir / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(InputError) as info:
        import_harness_dir(run_dir)
    message = str(info.value)
    assert "\n" not in message and str(run_dir) in message and where in message


def test_not_a_harness_folder(tmp_path):
    with pytest.raises(InputError, match="not an InteractiveTestHarness output folder"):
        import_harness_dir(tmp_path)
    with pytest.raises(InputError, match="not a folder"):
        import_harness_dir(tmp_path / "missing")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks here")
def test_workspace_symlinks_are_listed_not_followed(run_dir, tmp_path):
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "secret.txt").write_text("x")
    os.symlink(outside, run_dir / "workspace" / "link")
    trace = import_harness_dir(run_dir)
    assert "link" in trace["artifacts"]
    assert not any("secret" in a for a in trace["artifacts"])
    json.dumps(trace)
