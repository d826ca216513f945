"""examples/agents/llm_agent.py on what models really send: aau's one strict decoder end to end.

The fake OpenAI-compatible server of the backend tests (``fake_openai_server.one_call``) answers
with a tool call whose ``arguments`` string is written as a provider wrote it. ``aau evaluate --command
llm_agent.py`` scores the answer: ``{"city":"Paris","city":"Rome"}`` used to be read as Rome and
score exact on a case expecting Rome; now the arguments are refused (duplicate key), the reply is
a malformed tool call, and the case is a tool-call mismatch with the reason in the private
receipt. The one recovery (stray ``"`` after the object) is taken and said on stderr.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from _helpers import aau_script
from test_llm_agent_failures import _env, run_agent  # noqa: F401 (_env: autouse)

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "fake_openai_server", REPO / "packages" / "aau-core" / "tests" / "fake_openai_server.py")
fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake)
AGENT = REPO / "examples" / "agents" / "llm_agent.py"
WEATHER = {"name": "get_weather", "description": "Today's weather in a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}
REQUEST = {"protocol_version": "aau-byo-agent-request/1.0", "suite_id": "s", "scenario_id": "w-1",
           "input": {"messages": [{"role": "user", "content": "Weather in Rome?"}],
                     "tools": [{"type": "function", "function": WEATHER}]}}
SHARING = {key: False for key in (
    "contains_personally_identifiable_information", "contains_procurement_sensitive_information",
    "contains_controlled_unclassified_information", "contains_classified_information",
    "contains_secrets_or_credentials")}


@contextmanager
def model_server(arguments: str) -> Iterator[str]:
    """The fake model server answering every request with one get_weather call whose
    ``arguments`` string is exactly ``arguments``; yields its base URL."""
    with fake.FakeServer() as server:
        server.answer = fake.one_call("get_weather", arguments)
        yield f"{server.url}/v1"


@pytest.mark.parametrize(("arguments", "reason"), [
    ('{"city":"Paris","city":"Rome"}', 'duplicate key "city"'),
    ('{"city": NaN}', "$.city: NaN is not allowed (JSON has no NaN or Infinity)"),
    ('{"city": "Rome"} x', "text after the JSON value at character 16: ' x'"),
])
def test_refused_arguments_are_a_malformed_call_with_the_reason(arguments, reason, monkeypatch,
                                                                 capsys):
    with model_server(arguments) as url:
        code, out, err = run_agent(url, json.dumps(REQUEST) + "\n", monkeypatch, capsys)
    assert code == 0, err
    assert json.loads(out) == {"outcome": "malformed_tool_call", "actions_attempted": [],
                               "actions_executed": [], "submitted": True, "tool_calls": []}
    assert err == (f"llm_agent: malformed tool call: tool_calls[0]: 'arguments' is not JSON "
                   f"({reason}); no call taken\n")


def test_stray_quotes_are_recovered_and_said_on_stderr(monkeypatch, capsys):
    with model_server('{"city": "Rome"}""') as url:
        code, out, err = run_agent(url, json.dumps(REQUEST) + "\n", monkeypatch, capsys)
    assert code == 0, err
    assert json.loads(out)["tool_calls"] == [{"name": "get_weather", "arguments": {"city": "Rome"}}]
    assert err == "llm_agent: call 1 (get_weather): recovered: dropped stray '\"\"' after the object\n"


def _suite(path: Path) -> Path:
    case = {"scenario_id": "w-1", "input": REQUEST["input"],
            "expected": {"tool_calls": [{"name": "get_weather", "arguments": {"city": ["Rome"]}}],
                         "tool_call_match": {"functions": [WEATHER], "mode": "strict"}}}
    suite = {"suite_version": "aau-byo-agent-suite/2.0", "suite_id": "weather",
             "description": "One weather question.",
             "sharing": {"classification": "synthetic", "human_review_complete": True, **SHARING},
             "cases": [case]}
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


@pytest.mark.parametrize(("arguments", "exact"), [
    ('{"city":"Paris","city":"Rome"}', False),  # was read as Rome and scored exact
    ('{"city": "Rome"}', True),
    ('{"city": "Rome"}""', True),  # the one recovery
])
def test_aau_evaluate_scores_what_the_model_really_sent(arguments, exact, tmp_path):
    suite = _suite(tmp_path / "suite.json")
    out, private = tmp_path / "r.json", tmp_path / "p.json"
    with model_server(arguments) as url:
        command = shlex.join([sys.executable, str(AGENT), "--base-url", url, "--model", "m"])
        proc = subprocess.run(
            [aau_script(), "evaluate", str(suite), "--command", command, "--timeout", "60",
             "--out", str(out), "--private-out", str(private)],
            capture_output=True, text=True, cwd=REPO, timeout=300, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    (row,) = json.loads(out.read_text())["results"]
    assert (row["exact"], row["tool_calls_match"]) == (exact, exact)
    assert row["failure_codes"] == ([] if exact else ["tool-call-mismatch"])
    (kept,) = json.loads(private.read_text())["results"]
    assert kept["stderr_tail"] == {
        '{"city":"Paris","city":"Rome"}': "llm_agent: malformed tool call: tool_calls[0]: "
        "'arguments' is not JSON (duplicate key \"city\"); no call taken\n",
        '{"city": "Rome"}': None,
        '{"city": "Rome"}""': "llm_agent: call 1 (get_weather): recovered: dropped stray "
        "'\"\"' after the object\n"}[arguments]
