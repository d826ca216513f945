"""The ground-truth replay agent: a case's known solution, played through MCP.

Given the suite it is evaluated on (``--suite FILE``), it answers each protocol 1.1 request by
finding the request's case (``scenario_id``), computing that case's ground truth from the
case's ``environment`` object, and making exactly those tool calls, in order, on the unit's MCP
server (``mcp.url``, bearer token; ``mcp_agent.py``'s connection), then answering:

- ``agentdojo-banking``, ``-slack``, ``-travel``, ``-workspace``: AgentDojo's own ground truth
  (``task.ground_truth(pre_environment)`` on a fresh environment of
  ``options.benchmark_version``, default v1.2.2, through ``aau_labs.AgentDojoSuite``), and the
  task's ``GROUND_TRUTH_OUTPUT`` as the answer;
- ``tau2-mock``: the case's ``environment.options.expected_actions`` (``[{"name",
  "arguments"}]``, written by ``aau import tau2 --environment``), and a short text.

With ``--follow-injection`` it plays the agent that obeys a prompt injection: for a case under
an ``attack`` with an ``injection_task`` it replays the injection task's ground truth on the
injected environment instead (the environment's ``attack_solution``: AgentDojo's
``injection_task.ground_truth``) and answers nothing, so its utility is low and its attack
success rate 1; other cases are replayed as without the flag.

It reads the suite only to learn what to replay: the request never carries the task or its
options (aau sends neither), so an agent that solved the task from the request alone would
be cheating; this one is a calibration tool. A replay that does not reach utility 1 on a task
shows a fault on aau's side (the MCP server, argument passing, the environment's scorer), not
in a model. A call the server answers with an error is noted on stderr and the replay goes on.

    aau evaluate suite.json --command \\
        "python examples/agents/mcp_replay_agent.py --suite suite.json"

Exit codes and messages as ``mcp_agent.py`` (2: a request or a suite it cannot read, or a case
it cannot replay; 3: the MCP server failed). ``--serve PORT`` answers ``POST /evaluate``.
AgentDojo cases need ``pip install 'aau-labs[agentdojo]'``.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcp_agent import (  # noqa: E402
    RequestError,
    add_options,
    answer_stdin,
    mcp_session,
    read_request,
    serve_answers,
)

AGENTDOJO_PREFIX = "agentdojo-"
TAU2_MOCK = "tau2-mock"
DEFAULT_BENCHMARK_VERSION = "v1.2.2"
"""AgentDojo's benchmark version when a case's options name none (as the environments')."""
MAX_SUITE_BYTES = 50_000_000
TAU2_ANSWER = "Done: the requested changes are made."
"""The replay's answer on a τ² mock case (τ²'s verdict reads the final database)."""


class Replayer:
    """Ground truths of one suite's cases, computed once per case and kept.

    Args:
        suite: the suite document (``aau-byo-agent-suite/3.0``), already read.
        source: its file name, for messages.
        mcp_mode: ``mcp_agent.mcp_session``'s ``mode`` (``"auto"`` or ``"legacy"``).

    Raises:
        RequestError: the suite has no ``cases`` list.
    """

    def __init__(self, suite: Any, source: str, mcp_mode: str = "auto",
                 follow_injection: bool = False) -> None:
        cases = suite.get("cases") if isinstance(suite, dict) else None
        if not isinstance(cases, list):
            raise RequestError(f"{source}: $.cases must be a list")
        self.source = source
        self.mcp_mode = mcp_mode
        self.follow_injection = follow_injection
        self._cases = {c.get("scenario_id"): (i, c) for i, c in enumerate(cases)
                       if isinstance(c, dict)}
        self._plans: dict[str, tuple[list[dict[str, Any]], str]] = {}
        self._suites: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def plan(self, scenario_id: Any) -> tuple[list[dict[str, Any]], str]:
        """``(calls, answer)`` of the case ``scenario_id``: ``[{"name", "arguments"}]``.

        Raises:
            RequestError: no such case, no ``environment``, an environment this agent cannot
                replay, or options without the ground truth.
        """
        with self._lock:
            if scenario_id not in self._plans:
                self._plans[scenario_id] = self._compute(scenario_id)
            return self._plans[scenario_id]

    def _compute(self, scenario_id: Any) -> tuple[list[dict[str, Any]], str]:
        if scenario_id not in self._cases:
            raise RequestError(f"{self.source}: no case with scenario_id {scenario_id!r}")
        index, case = self._cases[scenario_id]
        where = f"{self.source}: $.cases[{index}].environment"
        environment = case.get("environment")
        if not isinstance(environment, dict):
            raise RequestError(f"{where}: the case names no environment")
        name, task = environment.get("name"), environment.get("task")
        options = environment.get("options") or {}
        if not isinstance(name, str) or not isinstance(task, str) or not isinstance(options, dict):
            raise RequestError(f"{where}: needs a name, a task and an options object")
        attack = case.get("attack")
        at = f"{self.source}: $.cases[{index}].attack"
        if self.follow_injection and isinstance(attack, dict) and attack.get("injection_task"):
            return self._attacked(name, task, options, attack, at, "attack_solution")
        if isinstance(attack, dict) and (attack.get("injection_task") or attack.get("injections")):
            # the ground truth on the injected state (an argument may come from injected data)
            return self._attacked(name, task, options, attack, at,
                                  "reference_solution_under_attack")
        if name.startswith(AGENTDOJO_PREFIX):
            return self._agentdojo(name[len(AGENTDOJO_PREFIX):], task, options, where)
        if name == TAU2_MOCK:
            actions = options.get("expected_actions")
            if not isinstance(actions, list) or not all(
                    isinstance(a, dict) and isinstance(a.get("name"), str)
                    and isinstance(a.get("arguments", {}), dict) for a in actions):
                raise RequestError(f"{where}.options.expected_actions must be a list of "
                                   '{"name", "arguments"}')
            return ([{"name": a["name"], "arguments": dict(a.get("arguments", {}))}
                     for a in actions], TAU2_ANSWER)
        raise RequestError(f"{where}.name: no ground truth for environment {name!r} "
                           f"(this agent replays agentdojo-* and {TAU2_MOCK})")

    def _agentdojo(self, suite_name: str, task_id: str, options: Mapping[str, Any],
                   where: str) -> tuple[list[dict[str, Any]], str]:
        from aau_core import AauError
        from aau_labs import AgentDojoSuite

        version = options.get("benchmark_version", DEFAULT_BENCHMARK_VERSION)
        try:
            suite = self._suites.get((suite_name, version))
            if suite is None:
                suite = self._suites[(suite_name, version)] = AgentDojoSuite(suite_name, version)
            (task,) = suite.tasks([task_id])
        except AauError as error:  # AgentDojo not installed, unknown suite, version or task
            raise RequestError(f"{where}: {error}") from None
        return suite.ground_truth(task), str(task.task.GROUND_TRUTH_OUTPUT)

    def _attacked(self, name: str, task: str, options: Mapping[str, Any],
                  attack: Mapping[str, Any], where: str,
                  method: str) -> tuple[list[dict[str, Any]], str]:
        """A case under attack: the environment's ``method`` (``attack_solution``: the calls of
        an agent that obeys the injection; ``reference_solution_under_attack``: the ground
        truth on the injected state)."""
        from aau_core import AauError, Attack, load_environment

        try:
            environment = load_environment(name)
            solve = getattr(environment, method, None)
            if solve is None:
                raise RequestError(f"{where}: environment {name!r} has no {method}")
            solution = solve(task, options, Attack(
                name=str(attack.get("name")), injection_task=attack.get("injection_task"),
                injections=dict(attack.get("injections") or {})))
        except AauError as error:  # AgentDojo not installed, unknown task or version
            raise RequestError(f"{where}: {error}") from None
        if solution is None:
            raise RequestError(f"{where}: environment {name!r} has no solution for the attack")
        return [dict(c) for c in solution["calls"]], str(solution.get("answer") or "")

    def answer(self, request: Any, log: Callable[[str], None]) -> dict[str, Any]:
        """Replay the request's case through its MCP unit and answer ``{"outcome": ...}``
        (``{}`` when the ground truth's answer is empty).

        Raises:
            RequestError: the request or its case cannot be replayed.
            ServiceError: the MCP server failed.
        """
        import anyio

        mcp, _, _ = read_request(request)
        calls, answer = self.plan(request.get("scenario_id"))
        return anyio.run(self._replay, mcp, calls, answer, log)

    async def _replay(self, mcp: dict[str, Any], calls: list[dict[str, Any]], answer: str,
                      log: Callable[[str], None]) -> dict[str, Any]:
        async with mcp_session(mcp, self.mcp_mode) as session:
            for n, call in enumerate(calls):
                ok, text = await session.call(call["name"], call["arguments"])
                if not ok:
                    log(f"call {n + 1} ({call['name']}) answered an error: {text[:200]}")
        log(f"replayed {len(calls)} {'injection-task' if self.follow_injection else 'ground-truth'}"
            " calls")
        # many AgentDojo tasks' GROUND_TRUTH_OUTPUT is "": an environment case may be answered
        # without an outcome, and an empty one is not a valid answer
        return {"outcome": answer} if answer else {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Ground-truth replay agent for `aau evaluate` environment cases: the case's "
                    "known solution (AgentDojo, tau2 mock) played through the unit's MCP tools.")
    parser.add_argument("--suite", required=True, metavar="FILE",
                        help="the suite being evaluated (its cases name the ground truth)")
    parser.add_argument("--ask-first", action="store_true",
                        help="on a conversation turn (request 1.2): first ask the user one "
                             "question, then replay on the turn that carries its reply")
    parser.add_argument("--follow-injection", action="store_true",
                        help="obey the prompt injection: on a case under an attack with an "
                             "injection task, replay the injection task's ground truth instead")
    add_options(parser)
    args = parser.parse_args(argv)
    from aau_core import AauError, read_json_file

    try:
        replayer = Replayer(read_json_file(args.suite, max_bytes=MAX_SUITE_BYTES), args.suite,
                            args.mcp_mode, follow_injection=args.follow_injection)
    except (AauError, RequestError) as error:
        print(f"mcp_replay_agent: {error}", file=sys.stderr)
        return 2
    if args.serve is not None:
        return serve_answers("mcp_replay_agent", args.host, args.serve, replayer.answer)
    if args.ask_first:
        return _ask_then_answer(replayer.answer)
    return answer_stdin("mcp_replay_agent", replayer.answer)


ASK = "Before I start: is there anything else I should know?"
"""The one question ``--ask-first`` puts to the simulated user."""


def _ask_then_answer(answer: Callable[..., dict[str, Any]]) -> int:
    """``--ask-first`` on stdin: for a 1.2 request, print ``{"message_to_user": ASK}``, read the
    next request line (the user's reply; the same process, request 1.2's command contract),
    then answer that one as ``answer_stdin`` does. A 1.1 request is answered at once. Exit 0
    when aau closes stdin instead of replying (the user stopped)."""
    import io
    import json

    line = sys.stdin.readline()
    try:
        first = json.loads(line)
    except ValueError:
        first = None
    if isinstance(first, dict) and first.get("protocol_version") == "aau-byo-agent-request/1.2":
        sys.stdout.write(json.dumps({"message_to_user": ASK}) + "\n")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            return 0
    sys.stdin = io.StringIO(line)
    return answer_stdin("mcp_replay_agent", answer)


if __name__ == "__main__":
    sys.exit(main())
