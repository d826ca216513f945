"""What a receipt 2.1 of environment cases must satisfy beyond its schema
(``aau_core.check_receipt_consistency``), on the example a mock run over MCP wrote
(``schemas/receipt/v2.1/examples/valid/receipt-ledger-environment.mock.json``), each rule
broken by hand in a way the schema cannot see."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from aau_adapters import check_receipt

EXAMPLE = (Path(__file__).resolve().parents[3] / "schemas" / "receipt" / "v2.1" / "examples"
           / "valid" / "receipt-ledger-environment.mock.json")


@pytest.fixture
def receipt() -> dict[str, Any]:
    return json.loads(EXAMPLE.read_text())


def _problems(doc: dict[str, Any]) -> list[tuple[str, str]]:
    aau_schemas.validate("receipt-v2", doc)  # the edit is invisible to the schema
    return check_receipt(doc)


def test_the_example_is_consistent(receipt: dict[str, Any]) -> None:
    assert check_receipt(receipt) == []
    assert receipt["metrics"]["environment_success_rate"] == round(
        sum(r["environment_passed"] for r in receipt["results"]) / len(receipt["results"]), 6)


def test_environment_success_rate_recomputes(receipt: dict[str, Any]) -> None:
    doc = copy.deepcopy(receipt)
    doc["metrics"]["environment_success_rate"] = 0.9
    doc["metric_ci95"]["environment_success_rate"]["high"] = 1.0
    assert [p for p, _ in _problems(doc)] == ["$.metrics.environment_success_rate"]


def test_environment_pass_hat_k_recomputes(receipt: dict[str, Any]) -> None:
    doc = copy.deepcopy(receipt)
    doc["environment_pass_hat_k"]["2"] = 0.5
    assert [p for p, _ in _problems(doc)] == ["$.environment_pass_hat_k"]


def test_exact_needs_environment_passed(receipt: dict[str, Any]) -> None:
    doc = copy.deepcopy(receipt)
    row = next(r for r in doc["results"] if not r["environment_passed"] and not r["failure_codes"]
               == ["environment-task-failed"])
    row["environment_passed"] = False
    i = doc["results"].index(row)
    row["exact"] = True
    problems = [p for p, _ in _problems(doc)]
    assert f"$.results[{i}].exact" in problems


def test_observed_counts_add_up(receipt: dict[str, Any]) -> None:
    doc = copy.deepcopy(receipt)
    doc["results"][0]["observed"]["succeeded"] += 1
    assert [p for p, _ in _problems(doc)] == ["$.results[0].observed"]


def test_the_public_example_holds_no_argument(receipt: dict[str, Any]) -> None:
    text = EXAMPLE.read_text()
    private = EXAMPLE.with_name("private-" + EXAMPLE.name).read_text()
    assert '"landlord"' in private and '"alice"' in private  # the arguments the mock sent
    assert "landlord" not in text and "alice" not in text
