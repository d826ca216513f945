"""Example command agent that answers with tool calls (suite v2, ``expected.tool_calls``).

It plays the help desk of an invented town library (examples/suites/library-desk-tool-calls.json):
one ``aau-byo-agent-request/1.0`` line on stdin, one JSON object on stdout::

    {"outcome": "renewed", "tool_calls": [{"name": "renew_loan", "arguments": {...}}]}

Its rules are fixed and simple, and it never sees the expected calls. It has one deliberate bug,
so that a run shows a ``tool-call-mismatch``: when a renewal asks for a number of days it passes
the days on as the string it received, where the desk's ``renew_loan`` declares an integer.

Exit codes: 0 answered; 2 the input was not a request this agent understands.

    aau evaluate examples/suites/library-desk-tool-calls.json \\
        --command "python examples/agents/tool_call_agent.py"
"""

import json
import sys


def calls_for(task: dict) -> tuple[str, list[dict]]:
    """Return ``(outcome, tool calls)`` for one request's ``input``."""
    kind = task.get("request")
    if kind == "renew":
        arguments = {"card_id": task["card"], "item_id": task["item"]}
        if "days" in task:
            arguments["days"] = task["days"]  # the bug: "21" stays a string
        return "renewed", [{"name": "renew_loan", "arguments": arguments}]
    if kind == "hold":
        return "holds_placed", [
            {"name": "place_hold", "arguments": {"card_id": task["card"], "item_id": item}}
            for item in reversed(task["items"])
        ]
    if kind == "branch":
        return "branch_found", [{"name": "find_branch", "arguments": {
            "latitude": round(task["lat"], 3), "longitude": round(task["lon"], 3),
            "open_now": True}}]
    if kind == "fines":
        return "fines_reported", [
            {"name": "lookup_card", "arguments": {"card_id": task["card"]}},
            {"name": "get_fines", "arguments": {"card_id": task["card"].upper()}},
        ]
    if kind == "search":
        return "search_done", [{"name": "search_catalog", "arguments": {"query": task["title"]}}]
    return "out_of_scope", []


def main() -> int:
    line = sys.stdin.readline()
    try:
        request = json.loads(line)
        outcome, calls = calls_for(request["input"])
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        print(f"tool_call_agent: bad request: {error!r}", file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps({"outcome": outcome, "tool_calls": calls}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
