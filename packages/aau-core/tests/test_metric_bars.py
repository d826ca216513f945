"""parse_metric_bars: the one METRIC=VALUE parser (aau evaluate, aau lab run, aau report)."""

from __future__ import annotations

import pytest
from aau_core import UsageError, parse_metric_bars


def test_bars_in_order():
    assert parse_metric_bars(("b=0.5", "a=1", "c= 0 ")) == {"b": 0.5, "a": 1.0, "c": 0.0}
    assert parse_metric_bars(()) == {}


@pytest.mark.parametrize(("flag", "message"), [
    ("exact_rate", "--fail-under 'exact_rate': expected METRIC=VALUE, e.g. exact_rate=0.9"),
    ("=0.5", "expected METRIC=VALUE"),
    ("exact_rate=", "expected METRIC=VALUE"),
    (" exact_rate=0.5", "expected METRIC=VALUE"),  # a name with spaces names no metric
    ("exact_rate=high", "'high' is not a number"),
    ("exact_rate=nan", "the bar must be a finite number"),
    ("exact_rate=inf", "the bar must be a finite number"),
    ("exact_rate=1.5", "the bar must be between 0 and 1 (a rate or a 0/1 score, in [0, 1])"),
    ("exact_rate=-0.1", "between 0 and 1"),
])
def test_each_rule_is_one_usage_error(flag, message):
    with pytest.raises(UsageError) as info:
        parse_metric_bars((flag,))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_metric_given_twice_is_refused():
    with pytest.raises(UsageError, match=r"--pass-metric 'a' is given twice"):
        parse_metric_bars(("a=0.5", "a=0.6"), option="--pass-metric")


def test_known_metrics_and_the_flag_shape_are_the_callers():
    with pytest.raises(UsageError, match=r"unknown metric 'speed'; one of exact_rate, x_rate"):
        parse_metric_bars(("speed=1",), metrics=("exact_rate", "x_rate"))
    with pytest.raises(UsageError, match=r"--pass-metric 'r': expected NAME=MIN, e.g. r=1"):
        parse_metric_bars(("r",), option="--pass-metric", metavar="NAME=MIN", example="r=1")
