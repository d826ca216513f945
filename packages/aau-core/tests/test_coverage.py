"""``aau_core._reports._coverage``: which adapter failure codes measured the agent, a run's
coverage from its receipt rows, and when a run is a non-measurement."""

from __future__ import annotations

import pytest
from aau_core._reports._coverage import (
    failure_class,
    is_measured,
    non_measurement,
    receipt_coverage,
    row_adapter_code,
)

CLASSES = [
    (None, None),
    ("adapter-not-found", "adapter"),
    ("adapter-exit-1", "adapter"),
    ("adapter-exit--9", "adapter"),
    ("adapter-timeout", "adapter"),
    ("adapter-protocol-error", "adapter"),
    ("adapter-internal-error", "adapter"),
    ("adapter-unreachable", "infrastructure"),
    ("adapter-http-429", "infrastructure"),
    ("adapter-http-500", "infrastructure"),
    ("adapter-http-503", "infrastructure"),
    ("adapter-http-599", "infrastructure"),
    ("adapter-http-400", "agent"),  # the agent read the request and refused it
    ("adapter-http-409", "agent"),
    ("adapter-http-422", "agent"),
    ("adapter-http-418", "agent"),
    # the request never reached the agent's answer (WIRING_STATUSES, every 3xx)
    ("adapter-http-404", "adapter"),
    ("adapter-http-405", "adapter"),
    ("adapter-http-410", "adapter"),
    ("adapter-http-401", "adapter"),
    ("adapter-http-403", "adapter"),
    ("adapter-http-407", "adapter"),
    ("adapter-http-408", "adapter"),
    ("adapter-http-413", "adapter"),
    ("adapter-http-415", "adapter"),
    ("adapter-http-431", "adapter"),
    ("adapter-http-302", "adapter"),
    ("adapter-http-307", "adapter"),
    ("adapter-http-300", "adapter"),
    ("adapter-invalid-response", "agent"),
    ("not-submitted", "agent"),
    ("outcome-mismatch", "agent"),
]


@pytest.mark.parametrize(("code", "cls"), CLASSES, ids=[str(c) for c, _ in CLASSES])
def test_every_code_has_its_class(code, cls):
    assert failure_class(code) == cls
    assert is_measured(code) is (cls in (None, "agent"))


def _row(*codes: str) -> dict:
    return {"failure_codes": list(codes)}


def test_a_rows_adapter_code_is_its_first_adapter_code_only():
    assert row_adapter_code(_row("adapter-exit-2", "not-submitted")) == "adapter-exit-2"
    assert row_adapter_code(_row("not-submitted")) is None
    assert row_adapter_code(_row()) is None
    assert row_adapter_code({}) is None


def test_coverage_counts_adapter_and_infrastructure_failures_apart():
    rows = [_row(), _row("outcome-mismatch"), _row("adapter-invalid-response", "not-submitted"),
            _row("adapter-exit-1", "not-submitted"), _row("adapter-http-503", "not-submitted"),
            _row("adapter-unreachable", "not-submitted"), _row("adapter-http-429")]
    assert receipt_coverage(rows) == {"units": 7, "measured": 3, "not_measured": 4,
                                      "adapter_failures": 1, "infrastructure_failures": 3,
                                      "rate": 0.428571}


def _coverage(units: int, adapter: int = 0, infrastructure: int = 0) -> dict:
    rows = ([_row("adapter-exit-1")] * adapter + [_row("adapter-http-503")] * infrastructure
            + [_row()] * (units - adapter - infrastructure))
    return receipt_coverage(rows)


def test_non_measurement_at_the_limit_and_for_an_outage():
    assert non_measurement(_coverage(5, adapter=5), 1.0) == "limit"
    assert non_measurement(_coverage(5, adapter=4), 1.0) is None
    assert non_measurement(_coverage(5, adapter=2), 0.4) == "limit"  # 2/5 reaches 0.4
    assert non_measurement(_coverage(5, adapter=1), 0.4) is None
    # more than half of the units failed in the transport or at the provider: an outage
    assert non_measurement(_coverage(5, infrastructure=3), 1.0) == "infrastructure"
    assert non_measurement(_coverage(4, infrastructure=2), 1.0) is None  # half is not more
    assert non_measurement(_coverage(5, adapter=2, infrastructure=2), 1.0) is None
