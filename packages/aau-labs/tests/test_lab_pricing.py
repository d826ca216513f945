"""A lab run of a model aau has no price for: declared $0 for ``local``, a price given with
``--price-per-mtok``, a refusal before any run for a hosted model — never a silent $0, never
every scenario errored (issue 17's trial: 32 x UnknownModelPricingError, exit 3)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import aau_schemas
import pytest
from aau_core import run
from aau_core._agents._cost import LOCAL_DECLARED_REASON, _reset_pricing

_spec = importlib.util.spec_from_file_location(
    "fake_chat_server", Path(__file__).with_name("fake_chat_server.py"))
_fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fake)
chat_server = _fake.chat_server
REPO = Path(__file__).resolve().parents[3]
RIVER = REPO / "examples" / "labs" / "river-permit-desk.json"
MODEL = "qwen2.5-7b-instruct"  # docs/backends.md's local example; not in aau's pricing table


@pytest.fixture(autouse=True)
def _fresh_prices():
    _reset_pricing()
    yield
    _reset_pricing()


def _lab(capsys, *args):
    rc = run(["lab", "run", str(RIVER), *map(str, args)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_an_unpriced_local_model_is_measured_at_a_declared_zero(capsys, tmp_path, monkeypatch):
    with chat_server() as url:
        monkeypatch.setenv("AAU_LOCAL_BASE_URL", url)
        rc, _, err = _lab(capsys, "--backend", "local", "--model", MODEL, "--repeats", 1,
                          "--quiet", "--out", tmp_path)
    assert rc == 0, err
    doc = json.loads((tmp_path / f"eval_{MODEL}.json").read_text())
    aau_schemas.validate("lab-result", doc)
    rows = doc["aggregate"]["results"]
    assert len(rows) == 32 and doc["aggregate"]["n_errors"] == 0
    assert {r["detail"]["usage"]["price_declared"] for r in rows} == {LOCAL_DECLARED_REASON}
    assert doc["aggregate"]["total_cost_usd"] == 0
    assert err.endswith("over 32 scenarios x 1 repeats (0 errored), $0.0000 (price declared)\n")


def test_a_price_given_on_the_command_line_is_charged_and_recorded(capsys, tmp_path,
                                                                    monkeypatch):
    with chat_server() as url:
        monkeypatch.setenv("AAU_LOCAL_BASE_URL", url)
        rc, out, err = _lab(capsys, "--backend", "local", "--model", MODEL, "--repeats", 1,
                            "--price-per-mtok", "1000,2000", "--quiet", "--out", tmp_path,
                            "--json")
    assert rc == 0, err
    doc = json.loads((tmp_path / f"eval_{MODEL}.json").read_text())
    usage = doc["aggregate"]["results"][0]["detail"]["usage"]
    # one call (the submit), 1 input token x $1000/M + 1 output token x $2000/M = $0.003
    assert (usage["api_calls"], usage["cost_usd"]) == (1, 0.003)
    assert usage["price_declared"] == "declared with --price-per-mtok 1000,2000"
    assert json.loads(out)["total_cost_usd"] == 0.096  # 32 runs x $0.003
    assert err.endswith("(0 errored), $0.0960 (price declared)\n")


def test_an_unpriced_hosted_model_is_refused_before_any_call(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # never reached
    rc, _, err = _lab(capsys, "--backend", "openai", "--model", "vendor/unpriced", "--quiet",
                      "--out", tmp_path / "r")
    assert rc == 2
    assert err == ("aau: error: no pricing for model 'vendor/unpriced': give it with "
                   "--price-per-mtok IN,OUT (USD per million input, output tokens) or "
                   "--pricing-file FILE, or in Python aau_core.register_pricing("
                   "'vendor/unpriced', input_per_mtok=..., output_per_mtok=...) before creating "
                   "its CostTracker; aau never reports an unknown price as $0\n")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("value", ["1", "1,2,3", "a,b", "-1,2", "nan,1", "inf,1"])
def test_a_bad_price_is_a_usage_error(capsys, tmp_path, value):
    rc, _, err = _lab(capsys, "--backend", "local", "--model", MODEL, "--price-per-mtok", value,
                      "--out", tmp_path)
    assert rc == 2
    assert err == (f"aau: error: --price-per-mtok {value!r}: expected IN,OUT, two numbers >= 0 "
                   "in USD per million input and output tokens (e.g. 0.15,0.60)\n")


def test_a_price_without_a_model_or_with_the_mock_is_refused(capsys, tmp_path):
    rc, _, err = _lab(capsys, "--backend", "local", "--price-per-mtok", "1,2", "--out", tmp_path)
    assert (rc, err) == (2, "aau: error: --price-per-mtok goes with --model (the model it "
                            "prices)\n")
    rc, _, err = _lab(capsys, "--mock", "--price-per-mtok", "1,2", "--out", tmp_path)
    assert (rc, err) == (2, "aau: error: --model, --price-per-mtok and --pricing-file go with "
                            "--backend, not --mock\n")
