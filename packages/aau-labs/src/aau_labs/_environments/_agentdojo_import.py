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

Under an attack (``attack=NAME``, ``aau import agentdojo --attack NAME``): one case per (user
task × injection task), ``scenario_id`` ``<user task>-<injection task>``, each with ``attack``:
``{"name": NAME, "injection_task": <id>, "injections": {vector: text}}``, the texts AgentDojo's
attack writes for that pair (``_agentdojo._attacks.attack_injections``; a pair whose ground
truth shows no vector gets none). The environment places them in its data, and its verdict
carries the injection task's ``security`` (``attack_succeeded``); the receipt reports utility
under attack and the attack success rate. The suite then holds the injected texts (public
AgentDojo data); receipts never do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aau_core import UsageError

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
                             tasks: Sequence[str] | None = None, attack: str | None = None,
                             injection_tasks: Sequence[str] | None = None) -> dict[str, Any]:
    """The suite v3 document of AgentDojo ``suite``'s user tasks (module docstring).

    Args:
        suite: ``banking``, ``slack``, ``travel`` or ``workspace``.
        benchmark_version: AgentDojo's benchmark version (default ``v1.2.2``).
        tasks: only these task ids, in this order (default: every task, by number).
        attack: an AgentDojo attack (``_attacks.targeted_attacks()``): the cases are (user task
            × injection task) pairs under it (module docstring); ``None``: no attack.
        injection_tasks: with ``attack``, only these injection task ids, in this order
            (default: every one of the version, by number).

    Returns:
        the suite document (deterministic: no dates); ``source`` names AgentDojo, its version,
        the benchmark version and the scoring rule.

    Raises:
        MissingExtraError: AgentDojo is not installed.
        UsageError: unknown suite, version, task id, attack or injection task (the message
            lists the known ones; for an injection task, the benchmark versions that have it),
            or ``injection_tasks`` without ``attack``.
    """
    from .._agentdojo import _attacks
    from .._agentdojo._bench import AttackPair, attack_pairs

    version = benchmark_version or DEFAULT_BENCHMARK_VERSION
    bench = AgentDojoSuite(suite, version)
    chosen = bench.tasks(list(tasks) if tasks is not None else None)
    if attack is None and injection_tasks is not None:
        raise UsageError("--injection-tasks needs --attack NAME")
    # under an attack: (user task x injection task) pairs, unknown names refused first
    scenarios = chosen if attack is None else attack_pairs(bench, chosen, attack,
                                                           injection_tasks)
    goals = {s.injection_task for s in scenarios if isinstance(s, AttackPair)}
    system = bench.system_prompt()
    name = f"agentdojo-{suite}"
    cases = []
    for scenario in scenarios:
        task = scenario.task if isinstance(scenario, AttackPair) else scenario
        case: dict[str, Any] = {
            "scenario_id": scenario.scenario_id,
            "input": {"messages": [{"role": "system", "content": system},
                                   {"role": "user", "content": task.prompt}]},
            "environment": {"name": name, "task": task.task_id,
                            "options": {"benchmark_version": version}},
            "expected": {},
        }
        if isinstance(scenario, AttackPair):
            injections = scenario.injections
            case["attack"] = {"name": attack, "injection_task": scenario.injection_task,
                              **({"injections": injections} if injections else {})}
        cases.append(case)
    suite_id = f"agentdojo-{suite}-{version}" + ("" if tasks is None else f"-{len(chosen)}tasks")
    if attack is not None:
        suite_id += f"-{attack}" + ("" if injection_tasks is None else f"-{len(goals)}injections")
    described = (f"{len(cases)} user task(s) imported by `aau import agentdojo`" if attack is None
                 else f"{len(chosen)} user task(s) x {len(goals)} injection task(s) under the "
                      f"{attack} attack, imported by `aau import agentdojo --attack {attack}`")
    scoring = ("AgentDojo's utility (the task's check of the final environment state and the "
               "answer) is the verdict. No prompt injections." if attack is None else
               "AgentDojo's utility is the verdict (utility under attack) and the injection "
               "task's security check says whether the attack succeeded (attack success rate).")
    source_attack = {} if attack is None else {
        "attack": attack, "injection_tasks": len(goals),
        "attack_target_model": f"{_attacks.TARGET_PIPELINE_NAME} (AgentDojo's 'Local model')"}
    return {
        "suite_version": SUITE_V3,
        "suite_id": suite_id,
        "description": (
            f"AgentDojo {suite} ({version}): {described}. Each case names the {name} "
            f"environment: aau serves its tools to the agent, records every call, and {scoring}"),
        "sharing": dict(PUBLIC_SHARING),
        "source": {
            "benchmark": "agentdojo",
            "suite": suite,
            "benchmark_version": version,
            "agentdojo_version": agentdojo_version(),
            "license": "MIT",
            "homepage": "https://github.com/ethz-spylab/agentdojo",
            "scored_by": "the environment's verdict: AgentDojo's utility" + (
                "" if attack is None else "; attack success: the injection task's security"),
            "expected_tool_calls": "none: AgentDojo accepts trajectories other than its ground "
                                   "truth",
            "imported": len(cases),
            "importer": "aau import agentdojo",
            **source_attack,
        },
        "cases": cases,
    }


__all__ = ["agentdojo_suite_document"]
