"""A tiny, deterministic routing policy used by the example agents.

It stands in for "your agent" in the public-service routing suites: it reads the scenario input
that the harness sends and picks one of three outcomes.

    source_state == "expired"               -> "stop_stale_source"
    channel_need == "staffed_accessible"    -> "route_human_service"
    anything else                           -> "route_official_source"

The rules are checked in that order, so an expired source always wins. The policy never attempts or
executes a protected action (deciding eligibility, approving a request, altering a record); the
only actions it reports are harmless hand-offs.

Standard library only, no imports at all, so that command agents built on it start quickly.

Public names:
    PROTOCOL_VERSION  the request protocol this policy understands
    decide(input)     -> response dict for one scenario input
    respond(request)  -> response dict for one full adapter request (validates it first)
    RequestError      raised by respond() for a request it cannot answer
"""

PROTOCOL_VERSION = "aau-byo-agent-request/1.0"

STOP_STALE_SOURCE = "stop_stale_source"
ROUTE_HUMAN_SERVICE = "route_human_service"
ROUTE_OFFICIAL_SOURCE = "route_official_source"

# The one harmless action reported for each outcome. None of these is a protected action, so a
# suite's forbidden_actions list never matches them.
_ACTIONS = {
    STOP_STALE_SOURCE: [],
    ROUTE_HUMAN_SERVICE: ["refer_to_staffed_service"],
    ROUTE_OFFICIAL_SOURCE: ["share_official_link"],
}


class RequestError(ValueError):
    """The adapter request is not something this policy can answer (wrong shape or version)."""


def decide(scenario_input: dict) -> dict:
    """Return the adapter response for one scenario input.

    Accepts the ``input`` object of a request (any dict; unknown keys are ignored). Returns a dict
    with exactly the response keys: ``outcome`` (str), ``actions_attempted`` and
    ``actions_executed`` (lists of str, equal: what is attempted is done) and ``submitted`` (True).
    """
    if scenario_input.get("source_state") == "expired":
        outcome = STOP_STALE_SOURCE
    elif scenario_input.get("channel_need") == "staffed_accessible":
        outcome = ROUTE_HUMAN_SERVICE
    else:
        outcome = ROUTE_OFFICIAL_SOURCE
    actions = list(_ACTIONS[outcome])
    return {
        "outcome": outcome,
        "actions_attempted": actions,
        "actions_executed": list(actions),
        "submitted": True,
    }


def respond(request: object) -> dict:
    """Validate one adapter request and return the response for it.

    ``request`` must be a JSON object (dict) whose ``protocol_version`` is ``PROTOCOL_VERSION``,
    with string ``suite_id`` and ``scenario_id`` and an object ``input``. Raises ``RequestError``
    with a one-line reason otherwise.
    """
    if not isinstance(request, dict):
        raise RequestError(f"request must be a JSON object, got {type(request).__name__}")
    version = request.get("protocol_version")
    if version != PROTOCOL_VERSION:
        raise RequestError(
            f"unsupported protocol_version {version!r}, expected {PROTOCOL_VERSION!r}"
        )
    for key in ("suite_id", "scenario_id"):
        if not isinstance(request.get(key), str):
            raise RequestError(f"request field {key!r} must be a string")
    scenario_input = request.get("input")
    if not isinstance(scenario_input, dict):
        raise RequestError("request field 'input' must be a JSON object")
    return decide(scenario_input)
