"""Failure codes recorded per (scenario, repeat) unit, in the order they are listed on a row.

Tree::

    adapter failures (at most one per unit, always first)
    ├── adapter-exit-<rc>          command exited non-zero (negative rc: killed by signal -rc)
    ├── adapter-timeout            no complete answer within --timeout (command or endpoint)
    ├── adapter-not-found          command could not be started (missing, not executable)
    ├── adapter-unreachable        endpoint refused, reset or closed the connection
    ├── adapter-http-<status>      endpoint answered with a non-2xx HTTP status
    ├── adapter-protocol-error     endpoint spoke malformed HTTP
    ├── adapter-invalid-response   answer not one JSON object under the limits, or not the
    │                              4-field response (see adapter-response schema)
    └── adapter-internal-error     the harness itself failed on this unit (a bug; the run goes on)
    outcome failures (aau-harness 1.6 order)
    ├── not-submitted              the agent did not submit (or the adapter failed)
    ├── outcome-mismatch           submitted, but the outcome differs from the expected one
    ├── tool-call-mismatch         the agent answered, but its tool_calls do not match the
    │                              case's expected.tool_calls (suite v2; receipt v2 only)
    ├── forbidden-action-attempt   attempted an action the case forbids
    └── forbidden-action-executed  executed an action the case forbids

Every adapter failure belongs to one class (``failure_class``), and the class says what the unit
measured::

    agent           the agent answered and the answer is what failed: adapter-invalid-response,
                    adapter-http-<4xx> other than 429, and every outcome code. A measurement.
    adapter         the agent could not be asked or did not answer: adapter-not-found,
                    adapter-exit-<rc>, adapter-timeout, adapter-protocol-error,
                    adapter-internal-error. Not a measurement of the agent's answers.
    infrastructure  the transport or a provider in front of the agent failed: adapter-unreachable,
                    adapter-http-429, adapter-http-5xx. Not a measurement, counted apart.

aau-harness 1.6 knows only ``adapter-exit-<rc>``, ``adapter-timeout`` (commands) and
``adapter-invalid-response``; ``legacy_failure_code`` maps ours onto those for
``--format aau-1.0`` receipts exactly as 1.6 would have recorded the same event.
"""

from __future__ import annotations

ADAPTER_TIMEOUT = "adapter-timeout"
ADAPTER_NOT_FOUND = "adapter-not-found"
ADAPTER_UNREACHABLE = "adapter-unreachable"
ADAPTER_PROTOCOL_ERROR = "adapter-protocol-error"
ADAPTER_INVALID_RESPONSE = "adapter-invalid-response"
ADAPTER_INTERNAL_ERROR = "adapter-internal-error"
NOT_SUBMITTED = "not-submitted"
OUTCOME_MISMATCH = "outcome-mismatch"
TOOL_CALL_MISMATCH = "tool-call-mismatch"
FORBIDDEN_ATTEMPT = "forbidden-action-attempt"
FORBIDDEN_EXECUTED = "forbidden-action-executed"


def adapter_exit(returncode: int) -> str:
    """``adapter-exit-<rc>`` for a command's non-zero exit status (negative for signals)."""
    return f"adapter-exit-{returncode}"


def adapter_http(status: int) -> str:
    """``adapter-http-<status>`` for a non-2xx HTTP status (three digits)."""
    return f"adapter-http-{status:03d}"


def legacy_failure_code(code: str, adapter_kind: str) -> str:
    """Map a failure code to what aau-harness 1.6 records for the same event.

    Args:
        code: one of our codes.
        adapter_kind: ``"command"``, ``"endpoint"`` or ``"mock"``.

    Returns:
        the code unchanged when 1.6 has it (``adapter-exit-*``, command ``adapter-timeout``, the
        outcome codes); otherwise ``adapter-invalid-response``, which is how 1.6 reports every
        endpoint failure (timeouts included) and a command it cannot start.
    """
    if code.startswith("adapter-exit-") or not code.startswith("adapter-"):
        return code
    if code == ADAPTER_TIMEOUT and adapter_kind == "command":
        return code
    return ADAPTER_INVALID_RESPONSE


AGENT = "agent"
ADAPTER = "adapter"
INFRASTRUCTURE = "infrastructure"
FAILURE_CLASSES = (AGENT, ADAPTER, INFRASTRUCTURE)
"""The classes of ``failure_class``, in the order reports list them."""


def failure_class(code: str | None) -> str | None:
    """The class of a unit's adapter failure code: what the unit measured.

    Args:
        code: a failure code (``"adapter-http-503"``), or ``None`` for a unit whose adapter
            answered.

    Returns:
        ``None`` for ``None``; ``"infrastructure"`` for ``adapter-unreachable``,
        ``adapter-http-429`` and ``adapter-http-5xx``; ``"adapter"`` for ``adapter-not-found``,
        ``adapter-exit-*``, ``adapter-timeout``, ``adapter-protocol-error`` and
        ``adapter-internal-error``; ``"agent"`` for everything else (an invalid response, any
        other HTTP status, the outcome codes): the agent answered, so the unit is measured.
    """
    if code is None:
        return None
    if code == ADAPTER_UNREACHABLE or code == "adapter-http-429" or (
            code.startswith("adapter-http-5") and len(code) == len("adapter-http-500")):
        return INFRASTRUCTURE
    if code in (ADAPTER_NOT_FOUND, ADAPTER_TIMEOUT, ADAPTER_PROTOCOL_ERROR,
                ADAPTER_INTERNAL_ERROR) or code.startswith("adapter-exit-"):
        return ADAPTER
    return AGENT


def is_measured(code: str | None) -> bool:
    """True when a unit with this adapter failure code (or ``None``) measured the agent's
    answer: its class is neither ``"adapter"`` nor ``"infrastructure"``."""
    return failure_class(code) in (None, AGENT)
