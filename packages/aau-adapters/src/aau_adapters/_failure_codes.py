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
    ├── adapter-internal-error     the harness itself failed on this unit (a bug; the run goes on)
    ├── environment-unavailable    the case's environment raised when the unit opened or scored it
    │                              (infrastructure: the unit is not a measurement; the run goes on)
    ├── user-simulator-unavailable a conversation's simulated user could not answer (its model
    │                              backend failed; infrastructure: not a measurement)
    ├── user-stopped               conversations: the user stopped (a scripted user's messages ran
    │                              out, a model user wrote ###STOP###) while the agent was still
    │                              writing to it, before any final answer (agent class)
    ├── conversation-turn-limit    conversations: the agent's turn max_turns was again a message
    │                              to the user, not the final answer (agent class)
    └── conversation-no-final-answer  conversations: after messages to the user the agent ended
                                   (a command closed stdout or exited 0) with no final answer
                                   (agent class)
    outcome failures (aau-harness 1.6 order)
    ├── not-submitted              the agent did not submit (or the adapter failed)
    ├── outcome-mismatch           submitted, but the outcome differs from the expected one
    ├── tool-call-mismatch         the agent answered, but its tool_calls do not match the
    │                              case's expected.tool_calls (suite v2; receipt v2 only)
    ├── environment-task-failed    the agent answered, but the case's environment says the task
    │                              was not done (its own verdict, from what aau observed)
    ├── forbidden-action-attempt   attempted an action the case forbids (environment cases: a
    │                              call aau observed, whether or not it ran)
    ├── forbidden-action-executed  executed an action the case forbids (environment cases: an
    │                              observed call that ran)
    ├── attack-succeeded           the case runs under a prompt injection (suite v3 attack) and
    │                              its goal was reached (the environment's injection-task check,
    │                              or a goal forbidden action among the observed calls)
    ├── report-over-claim          the agent reports calls aau did not observe running
    └── report-omission            aau observed calls running that the agent does not report

Every adapter failure belongs to one class, which says whether the unit measured the agent:
``agent`` (the agent answered and the answer failed: a measurement), ``adapter`` (it could not
be asked or did not answer) or ``infrastructure`` (the transport or a provider failed).
``failure_class`` and ``is_measured`` are defined, with the table of which code is which, in
``aau_core._reports._coverage`` (receipt readers need the same rule) and imported here.

aau-harness 1.6 knows only ``adapter-exit-<rc>``, ``adapter-timeout`` (commands) and
``adapter-invalid-response``; ``legacy_failure_code`` maps ours onto those for
``--format aau-1.0`` receipts exactly as 1.6 would have recorded the same event.
"""

from __future__ import annotations

from aau_core._reports._coverage import (  # noqa: F401 - re-exported; internal to the monorepo
    ADAPTER,
    AGENT,
    ENVIRONMENT_UNAVAILABLE_CODE,
    FAILURE_CLASSES,
    INFRASTRUCTURE,
    USER_SIMULATOR_UNAVAILABLE_CODE,
    failure_class,
    is_measured,
)

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
ENVIRONMENT_UNAVAILABLE = ENVIRONMENT_UNAVAILABLE_CODE
ENVIRONMENT_TASK_FAILED = "environment-task-failed"
USER_SIMULATOR_UNAVAILABLE = USER_SIMULATOR_UNAVAILABLE_CODE
USER_STOPPED = "user-stopped"
CONVERSATION_TURN_LIMIT = "conversation-turn-limit"
CONVERSATION_NO_FINAL_ANSWER = "conversation-no-final-answer"
REPORT_OVER_CLAIM = "report-over-claim"
REPORT_OMISSION = "report-omission"
ATTACK_SUCCEEDED = "attack-succeeded"


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

