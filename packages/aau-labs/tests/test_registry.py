"""``_frame/_registry``: the labs by name and by config kind."""

from __future__ import annotations

import pytest
from aau_core import UsageError
from aau_labs._frame._registry import LAB_MODULES, get_lab, lab_for_config_kind


def test_registry():
    gate = get_lab("decision-gate")
    assert gate is get_lab("decision-gate")
    assert lab_for_config_kind("gate-config") is gate
    assert set(LAB_MODULES) == {"decision-gate", "contract", "evidence-service"}
    with pytest.raises(UsageError, match="unknown lab 'nope'; known: contract, decision-gate"):
        get_lab("nope")
    with pytest.raises(UsageError, match="no lab reads documents of kind 'suite'"):
        lab_for_config_kind("suite")
