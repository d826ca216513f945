"""AgentDojo user tasks as suite v3 cases naming an ``agentdojo-<suite>`` environment.

What ``aau import agentdojo`` writes (``aau_labs._cli._import_agentdojo`` is its command):

- one case per user task, ``scenario_id`` the task id;
- ``input.messages``: AgentDojo's default system message, then the task's prompt (user);
- ``environment``: ``{"name": "agentdojo-<suite>", "task": <id>, "options":
  {"benchmark_version": <version>}}``; the environment serves the tools;
- ``expected``: ``{}``. The environment's verdict (AgentDojo's utility on the final state and
  answer) decides. The ground-truth calls are *not* written as expected tool calls: AgentDojo
  accepts other trajectories that reach the same state (another order, a different read tool,
  optional arguments spelt out), and requiring its ground truth would fail them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._agentdojo._suite import DEFAULT_BENCHMARK_VERSION, AgentDojoSuite, agentdojo_version

SUITE_V3 = "aau-byo-agent-suite/3.0"
PUBLIC_SHARING = {
    "classification": "public",
    "human_review_complete": True,
    "contains_personally_identifiable_information": False,
    "contains_procurement_sensitive_information": False,
    "contains_controlled_unclassified_information": False,
    "contains_classified_information": False,
    "contains_secrets_or_credentials": False,
}
"""The sharing block of an imported public benchmark (AgentDojo's data is public, MIT)."""


def agentdojo_suite_document(suite: str, *, benchmark_version: str | None = None,
                             tasks: Sequence[str] | None = None) -> dict[str, Any]:
    """The suite v3 document of AgentDojo ``suite``'s user tasks (module docstring).

    Args:
        suite: ``banking``, ``slack``, ``travel`` or ``workspace``.
        benchmark_version: AgentDojo's benchmark version (default ``v1.2.2``).
        tasks: only these task ids, in this order (default: every task, by number).

    Returns:
        the suite document (deterministic: no dates); ``source`` names AgentDojo, its version,
        the benchmark version and the scoring rule.

    Raises:
        MissingExtraError: AgentDojo is not installed.
        UsageError: unknown suite, version or task id (the message lists the known ones).
    """
    version = benchmark_version or DEFAULT_BENCHMARK_VERSION
    bench = AgentDojoSuite(suite, version)
    chosen = bench.tasks(list(tasks) if tasks is not None else None)
    system = bench.system_prompt()
    name = f"agentdojo-{suite}"
    cases = [{
        "scenario_id": task.task_id,
        "input": {"messages": [{"role": "system", "content": system},
                               {"role": "user", "content": task.prompt}]},
        "environment": {"name": name, "task": task.task_id,
                        "options": {"benchmark_version": version}},
        "expected": {},
    } for task in chosen]
    suite_id = f"agentdojo-{suite}-{version}" + ("" if tasks is None else f"-{len(cases)}tasks")
    return {
        "suite_version": SUITE_V3,
        "suite_id": suite_id,
        "description": (
            f"AgentDojo {suite} ({version}): {len(cases)} user task(s) imported by `aau import "
            f"agentdojo`. Each case names the {name} environment: aau serves its tools to the "
            "agent, records every call, and AgentDojo's utility (the task's check of the final "
            "environment state and the answer) is the verdict. No prompt injections."),
        "sharing": dict(PUBLIC_SHARING),
        "source": {
            "benchmark": "agentdojo",
            "suite": suite,
            "benchmark_version": version,
            "agentdojo_version": agentdojo_version(),
            "license": "MIT",
            "homepage": "https://github.com/ethz-spylab/agentdojo",
            "scored_by": "the environment's verdict: AgentDojo's utility",
            "expected_tool_calls": "none: AgentDojo accepts trajectories other than its ground "
                                   "truth",
            "imported": len(cases),
            "importer": "aau import agentdojo",
        },
        "cases": cases,
    }


__all__ = ["agentdojo_suite_document"]
