"""Example command agent: one adapter request on stdin, one response on stdout.

The harness runs this once per scenario (``aau evaluate SUITE --command "python
examples/agents/command_agent.py"``), writes ONE line of JSON (an ``aau-byo-agent-request/1.0``
request) to its stdin and reads ONE JSON object from its stdout.

Exit codes: 0 answered; 2 the input was not a request this agent understands (the reason goes to
stderr, nothing to stdout).

It imports only ``json``, ``os``, ``sys`` and the routing policy beside this file, so it also runs under
``python -S`` (no site-packages) and starts in a few tens of milliseconds.
"""

import json
import os
import sys

# Find routing_policy.py beside this file, wherever the agent is started from. (``os`` is already
# loaded by the interpreter at start-up, so importing it costs nothing.)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from routing_policy import respond  # noqa: E402


def main() -> int:
    line = sys.stdin.readline()
    if not line.strip():
        print("command_agent: expected one line of JSON on stdin, got nothing", file=sys.stderr)
        return 2
    try:
        request = json.loads(line)
        response = respond(request)
    # JSONDecodeError and RequestError are ValueErrors; very deep nesting is a RecursionError.
    except (ValueError, RecursionError) as error:
        print(f"command_agent: bad request: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(response) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
