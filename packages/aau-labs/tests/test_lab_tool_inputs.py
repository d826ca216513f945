"""The strict decoder's reasons reach the written lab result (issue 17's trial: a lab run
refused duplicate keys, NaN and 1e999 correctly, but its result and stderr said nothing)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import aau_schemas
import pytest
from aau_core import run
from aau_core._agents._cost import _reset_pricing

_spec = importlib.util.spec_from_file_location(
    "fake_chat_server", Path(__file__).with_name("fake_chat_server.py"))
_fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fake)

REPO = Path(__file__).resolve().parents[3]
RIVER = REPO / "examples" / "labs" / "river-permit-desk.json"
ARGUMENTS = ['{"case_id": "A", "case_id": "B"}', '{"n": NaN}', '{"n": 1e999}', '{"q": 1}""',
             '{"case_id": "A"}']


@pytest.fixture(autouse=True)
def _fresh_prices():
    _reset_pricing()
    yield
    _reset_pricing()


def test_refused_and_recovered_tool_inputs_are_kept_and_counted(capsys, tmp_path, monkeypatch):
    with _fake.chat_server(ARGUMENTS) as url:
        monkeypatch.setenv("AAU_LOCAL_BASE_URL", url)
        rc = run(["lab", "run", str(RIVER), "--backend", "local", "--model", "m", "--repeats",
                  "1", "--quiet", "--out", str(tmp_path), "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    doc = json.loads((tmp_path / "eval_m.json").read_text())
    aau_schemas.validate("lab-result", doc)
    assert doc["tool_inputs"] == {"refused": 96, "recovered": 32}  # 3 and 1 in each of 32 runs
    flags = doc["aggregate"]["results"][0]["detail"]["tool_input_flags"]
    assert [(f["call"], f["id"], sorted(f)) for f in flags] == [
        (0, "call_0", ["call", "id", "input_error", "name"]),
        (1, "call_1", ["call", "id", "input_error", "name"]),
        (2, "call_2", ["call", "id", "input_error", "name"]),
        (3, "call_3", ["call", "id", "input_recovered", "name"])]
    assert [f.get("input_error") or f["input_recovered"] for f in flags] == [
        'duplicate key "case_id"', "$.n: NaN is not allowed (JSON has no NaN or Infinity)",
        "$.n: number 1e999 is too large (overflows to infinity)",
        "dropped stray '\"\"' after the object"]
    assert json.loads(out.out)["tool_inputs"] == {"refused": 96, "recovered": 32}
    line = ("96 tool call(s) with arguments refused by the decoder, 32 recovered "
            "(detail.tool_input_flags)")
    assert out.err.endswith(f"(price declared); {line}\n")
    assert f"Tool inputs: {line}." in (tmp_path / "eval_m.md").read_text()


def test_a_clean_run_counts_zero_and_says_nothing(capsys, tmp_path):
    assert run(["lab", "run", str(RIVER), "--mock", "--repeats", "1", "--quiet", "--out",
                str(tmp_path)]) == 0
    err = capsys.readouterr().err
    doc = json.loads((tmp_path / "eval_mock.json").read_text())
    assert doc["tool_inputs"] == {"refused": 0, "recovered": 0}
    assert {len(r["detail"]["tool_input_flags"]) for r in doc["aggregate"]["results"]} == {0}
    assert err.endswith("(0 errored), $0.0000\n")
    assert "Tool inputs" not in (tmp_path / "eval_mock.md").read_text()
