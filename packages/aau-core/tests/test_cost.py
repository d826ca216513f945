"""CostTracker and the pricing table: 1.6's prices and cache rules, kept as validated data."""

from __future__ import annotations

import json
from importlib import resources
from types import SimpleNamespace

import aau_schemas
import pytest
from aau_core._agents import _cost
from aau_core._agents._cost import (
    CostTracker,
    PricingError,
    UnknownModelPricingError,
    price_for,
    pricing_table,
    register_pricing,
    register_pricing_file,
    shipped_pricing,
)


@pytest.fixture(autouse=True)
def fresh_table():
    _cost._reset_pricing()
    yield
    _cost._reset_pricing()


def test_shipped_table_is_found_as_a_package_resource_and_validates():
    text = resources.files("aau_core._agents").joinpath("pricing.json").read_text("utf-8")
    doc = json.loads(text)
    aau_schemas.validate("pricing", doc)
    assert aau_schemas.detect_kind(doc) == "pricing"
    assert shipped_pricing() == doc


def test_shipped_table_is_the_schema_example():
    from _helpers import REPO

    example = REPO / "schemas/pricing/v1/examples/valid/pricing-aau-core-shipped.json"
    shipped = resources.files("aau_core._agents").joinpath("pricing.json").read_bytes()
    assert example.read_bytes() == shipped


@pytest.mark.parametrize(
    ("model", "rates"),
    [
        ("claude-opus-4-8", (5.0, 25.0)),
        ("claude-sonnet-4-6", (3.0, 15.0)),
        ("claude-haiku-4-5", (1.0, 5.0)),
        ("mistral-small-latest", (0.10, 0.30)),
        ("deepseek-v4-flash", (0.14, 0.28)),
        ("accounts/fireworks/models/gpt-oss-120b", (0.15, 0.60)),
        ("mock", (0.0, 0.0)),
    ],
)
def test_prices_are_those_of_aau_harness_1_6(model, rates):
    price = price_for(model)
    assert (price.input_per_mtok, price.output_per_mtok) == rates


def test_table_has_the_33_models_of_1_6():
    assert len(pricing_table()["models"]) == 33


def test_cost_formula_with_cache_write_and_read():
    cost = CostTracker("claude-opus-4-8")
    cost.add_usage(
        {
            "input_tokens": 1000,
            "output_tokens": 200,
            "cache_creation_input_tokens": 4000,
            "cache_read_input_tokens": 10000,
        }
    )
    want = (1000 * 5 + 4000 * 5 * 1.25 + 10000 * 5 * 0.10 + 200 * 25) / 1e6
    assert cost.cost_usd == pytest.approx(want, rel=1e-12)
    assert cost.api_calls == 1
    assert cost.total_input_tokens == 15000


@pytest.mark.parametrize(
    ("model", "mult"),
    [
        ("deepseek-v4-flash", 0.02),
        ("deepseek-chat", 0.02),
        ("deepseek/deepseek-v4-flash-0731", 0.02),
        ("accounts/fireworks/models/deepseek-v4-pro", 0.02),
        ("claude-haiku-4-5", 0.10),
        ("gemini-2.0-flash", 0.10),
    ],
)
def test_cache_read_multiplier_deepseek_family(model, mult):
    assert price_for(model).cache_read_multiplier == mult
    assert price_for(model).cache_write_multiplier == 1.25


def test_add_usage_accepts_objects_dicts_none_and_missing_fields():
    cost = CostTracker("claude-haiku-4-5")
    cost.add_usage(SimpleNamespace(input_tokens=10, output_tokens=5))
    cost.add_usage({"input_tokens": 1, "cache_read_input_tokens": None})
    cost.add_usage(None)
    assert (cost.input_tokens, cost.output_tokens, cost.api_calls) == (11, 5, 3)
    with pytest.raises(ValueError, match="input_tokens"):
        cost.add_usage({"input_tokens": -1})
    with pytest.raises(ValueError, match="output_tokens"):
        cost.add_usage({"output_tokens": "12"})


def test_as_dict_rounds_cost_to_six_places():
    cost = CostTracker("deepseek-v4-flash")
    cost.add_usage({"input_tokens": 1234, "output_tokens": 567, "cache_read_input_tokens": 8901})
    d = cost.as_dict()
    assert list(d) == [
        "model",
        "api_calls",
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "cost_usd",
    ]
    assert d["cost_usd"] == round((1234 * 0.14 + 8901 * 0.14 * 0.02 + 567 * 0.28) / 1e6, 6)


def test_unknown_model_is_an_error_naming_the_model_and_the_fix(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-should-never-be-used")
    with pytest.raises(UnknownModelPricingError) as info:
        CostTracker("vendor/brand-new-model")
    message = str(info.value)
    assert "'vendor/brand-new-model'" in message and "register_pricing" in message
    assert isinstance(info.value, ValueError) and info.value.model == "vendor/brand-new-model"


def test_register_pricing_then_track():
    register_pricing("my-local-model", 0, 0, note="llama.cpp on my laptop")
    register_pricing("vendor/deepseek-r9", 1.0, 2.0)
    assert CostTracker("my-local-model").cost_usd == 0.0
    assert price_for("vendor/deepseek-r9").cache_read_multiplier == 0.02
    register_pricing("x", 1.0, 2.0, cache_write_multiplier=2.0, cache_read_multiplier=0.5)
    assert price_for("x") == _cost.ModelPrice(1.0, 2.0, 2.0, 0.5)
    assert pricing_table()["models"]["my-local-model"]["note"] == "llama.cpp on my laptop"


@pytest.mark.parametrize(
    "args",
    [("", 1, 1), ("m", -1, 1), ("m", 1, float("nan")), ("m", True, 1), ("m", "1", 1)],
)
def test_register_pricing_refuses_bad_rates(args):
    with pytest.raises(PricingError):
        register_pricing(*args)


def test_register_pricing_file(tmp_path):
    doc = {
        "pricing_version": "aau-pricing/1.0",
        "as_of": "2026-11-30",
        "currency": "USD",
        "source": "test",
        "cache_write_multiplier": 1.0,
        "cache_read_multiplier": 0.5,
        "cache_read_multiplier_by_family": {"fam": 0.25},
        "models": {
            "a": {"input_per_mtok": 2, "output_per_mtok": 4},
            "fam-1": {"input_per_mtok": 1, "output_per_mtok": 1},
        },
    }
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(doc))
    assert register_pricing_file(path) == 2
    assert price_for("a") == _cost.ModelPrice(2.0, 4.0, 1.0, 0.5)
    assert price_for("fam-1").cache_read_multiplier == 0.25
    doc["models"]["a"]["input_per_mtok"] = -2
    path.write_text(json.dumps(doc))
    with pytest.raises(PricingError, match=r"prices.json: \$.models.a.input_per_mtok"):
        register_pricing_file(path)


def test_one_rule_for_an_unpriced_model():
    """Priced: charged at its price; local and unpriced: a declared $0, recorded as declared;
    any other kind unpriced: refused (before a run), never $0."""
    priced = _cost.cost_model_for(SimpleNamespace(model="Qwen/Qwen3.5-9B"), "openai")
    assert priced == "Qwen/Qwen3.5-9B" and "price_declared" not in CostTracker(priced).as_dict()
    assert _cost.cost_model_for(SimpleNamespace(model=None), "mock") == "mock"
    local = _cost.cost_model_for(SimpleNamespace(model="qwen2.5-7b-instruct"), "local")
    tracker = CostTracker(local)
    tracker.add_usage({"input_tokens": 1_000_000, "output_tokens": 1_000_000})
    assert tracker.as_dict()["cost_usd"] == 0.0
    assert tracker.as_dict()["price_declared"] == _cost.LOCAL_DECLARED_REASON
    with pytest.raises(UnknownModelPricingError) as info:
        _cost.cost_model_for(SimpleNamespace(model="vendor/unpriced"), "openrouter")
    assert info.value.model == "vendor/unpriced" and "--price-per-mtok IN,OUT" in str(info.value)


def test_a_declared_price_is_charged_and_a_later_published_one_clears_the_mark():
    _cost.declare_pricing("m", 2.0, 4.0, reason="declared with --price-per-mtok 2,4")
    tracker = CostTracker("m")
    tracker.add_usage({"input_tokens": 500_000, "output_tokens": 250_000})
    assert tracker.as_dict()["cost_usd"] == 2.0  # 0.5 x $2 + 0.25 x $4
    assert tracker.as_dict()["price_declared"] == "declared with --price-per-mtok 2,4"
    _cost.register_pricing("m", 1.0, 1.0)
    assert "price_declared" not in CostTracker("m").as_dict()
    with pytest.raises(_cost.PricingError, match="needs a reason"):
        _cost.declare_pricing("m", 1.0, 1.0, reason=" ")
