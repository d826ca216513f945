"""MeasuredRowView: the receipt 2.1 row of a unit as a view, equal to measured_row's copy."""

from __future__ import annotations

import pytest
from aau_adapters._scoring import MeasuredRowView, measured_row

ROW = {"scenario_id": "c-1", "submitted": True, "outcome_exact": True,
       "no_forbidden_attempt": True, "no_forbidden_execute": True, "exact": True,
       "latency_s": 0.25, "failure_codes": [], "repeat": 0}


@pytest.mark.parametrize("error", [None, "outcome-mismatch", "adapter-timeout",
                                   "adapter-http-429", "adapter-invalid-response"])
@pytest.mark.parametrize("row", [ROW, {**ROW, "tool_calls_match": False}])
def test_the_view_has_the_copys_keys_order_and_values(row, error):
    view = MeasuredRowView(row, error)
    copy = measured_row(row, error)
    assert list(view) == list(copy) and len(view) == len(copy)
    assert dict(view) == copy and view == copy
    assert view.get("missing") is None and "measured" in view and "exact" in view
    assert row == (ROW if "tool_calls_match" not in row else {**ROW, "tool_calls_match": False})


def test_an_unanswered_unit_reads_as_failing_its_negative_checks():
    view = MeasuredRowView(ROW, "adapter-timeout")
    assert (view["measured"], view["exact"], view["no_forbidden_attempt"],
            view["no_forbidden_execute"], view["submitted"]) == (False, False, False, False, True)
    assert MeasuredRowView(ROW, "outcome-mismatch")["measured"] is True
    with pytest.raises(KeyError):
        MeasuredRowView({"scenario_id": "x"}, "adapter-timeout")["exact"]
