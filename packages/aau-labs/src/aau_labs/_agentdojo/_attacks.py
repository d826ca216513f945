"""AgentDojo's prompt injections as aau sees them: injection tasks, attacks, injected states.

AgentDojo's second half (Debenedetti et al., 2024) plants attacker instructions in the data its
tools return. Each suite's environment data has *injection vectors*, placeholders with a
harmless default text (``TaskSuite.get_injection_vector_defaults()``: banking's
``injection_bill_text`` is the bill's text); an *attack* (``agentdojo.attacks``, registered by
name) writes, for one user task and one *injection task* (the attacker's goal, its ``GOAL``
text), the text of each vector the user task's ground truth would show the model
(``BaseAttack.attack(user_task, injection_task) -> {vector: text}``); the environment is loaded
with those texts in place (``load_and_inject_default_environment(injections)``), and after the
run the injection task's ``security(model_output, pre, post)`` (or ``security_from_traces``
when the task gives one) says whether the attack succeeded (True: the goal was reached).
Everything here goes through that API (its ``TaskSuite._check_injection_task_security`` order:
traces first).

Attacks aau runs (``targeted_attacks()``): every registered attack except ``manual`` (it asks
for the text on stdin) and the denial-of-service ones (``is_dos_attack``: their goal is to stop
the agent, not a targeted action, so a targeted attack success rate does not apply). An attack
that names the model (``important_instructions``: "... to you, {model}") is built for a target
pipeline named ``local`` (AgentDojo's name for a model it does not know: "Local model"), since
aau writes the injections before any model is chosen.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from aau_core import UsageError

from ._suite import AgentDojoSuite, AgentDojoTask, _task_number, benchmark_versions

TARGET_PIPELINE_NAME = "local"
"""The target pipeline name attacks are built for (AgentDojo's "Local model")."""
UNSUPPORTED_ATTACKS = ("manual",)
"""Registered attacks aau does not run (besides the denial-of-service ones)."""


class _TargetPipeline:
    """The stand-in for AgentDojo's attacked pipeline: only its ``name`` is read."""

    name = TARGET_PIPELINE_NAME


def _registry() -> dict[str, Any]:
    from agentdojo.attacks.attack_registry import ATTACKS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import agentdojo.attacks  # noqa: F401 - registers the attacks
    return dict(ATTACKS)


def targeted_attacks() -> list[str]:
    """The AgentDojo attacks aau runs (module docstring), sorted."""
    return sorted(name for name, cls in _registry().items()
                  if name not in UNSUPPORTED_ATTACKS and not getattr(cls, "is_dos_attack", False))


def check_attack_name(name: str) -> None:
    """Refuse an attack aau does not run.

    Raises:
        UsageError: ``unknown AgentDojo attack 'x'; one of direct, ...`` (or why a registered
            one is not run).
    """
    known = targeted_attacks()
    if name in known:
        return
    if name in _registry():
        why = ("asks for the injected text interactively" if name in UNSUPPORTED_ATTACKS else
               "is a denial-of-service attack (no targeted goal)")
        raise UsageError(f"AgentDojo attack {name!r} {why}; aau runs " + ", ".join(known))
    raise UsageError(f"unknown AgentDojo attack {name!r}; one of " + ", ".join(known))


def injection_task_ids(suite: AgentDojoSuite) -> list[str]:
    """The suite's injection task ids at its benchmark version, by number."""
    return sorted(suite._suite.injection_tasks, key=_task_number)


def injection_task(suite: AgentDojoSuite, task_id: str) -> Any:
    """AgentDojo's injection task ``task_id`` of ``suite`` at its benchmark version.

    Raises:
        UsageError: the version has no such task; the message lists the ones it has, and the
            benchmark versions that have ``task_id`` when some do.
    """
    tasks = suite._suite.injection_tasks
    if task_id in tasks:
        return tasks[task_id]
    raise UsageError(no_injection_task_message(suite.name, suite.benchmark_version, task_id,
                                               injection_task_ids(suite)))


def no_injection_task_message(suite: str, version: str, task_id: str,
                              known: Sequence[str]) -> str:
    """``AgentDojo workspace (v1) has no injection task 'injection_task_13' (benchmark versions
    v1.2, v1.2.1, v1.2.2 have it); it has injection_task_0, ...``."""
    from agentdojo.task_suite.load_suites import get_suite

    having = [v for v in benchmark_versions()
              if task_id in get_suite(v, suite).injection_tasks]
    where = (f" (benchmark versions {', '.join(having)} have it)" if having else
             " (no benchmark version has it)")
    return (f"AgentDojo {suite} ({version}) has no injection task {task_id!r}{where}; it has "
            + ", ".join(known))


def injection_vectors(suite: AgentDojoSuite) -> dict[str, str]:
    """``{vector: default text}`` of the suite's environment data."""
    return dict(suite._suite.get_injection_vector_defaults())


def attack_injections(suite: AgentDojoSuite, attack: str, task: AgentDojoTask,
                      injection_task_id: str) -> dict[str, str]:
    """The texts attack ``attack`` places for user task ``task`` and the injection task:
    ``{vector: text}``, the vectors the task's ground truth shows the model (AgentDojo's
    ``BaseAttack.attack``).

    Raises:
        UsageError: an attack aau does not run, or an unknown injection task.
    """
    check_attack_name(attack)
    goal = injection_task(suite, injection_task_id)
    built = suite._built_attacks.get(attack)
    if built is None:  # one per suite: it caches each user task's injectable vectors
        built = suite._built_attacks[attack] = _registry()[attack](suite._suite, _TargetPipeline())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dict(built.attack(task.task, goal))


def injected_environment(suite: AgentDojoSuite, task: AgentDojoTask,
                         injections: Mapping[str, str]) -> tuple[Any, Any]:
    """A fresh environment for one run of ``task`` with ``injections`` in place: ``(pre, env)``
    as ``AgentDojoSuite.new_environment`` (the other vectors keep their default)."""
    loaded = suite._suite.load_and_inject_default_environment(dict(injections))
    env = task.task.init_environment(loaded)
    return env.model_copy(deep=True), env


def security(goal: Any, model_output: str, pre: Any, post: Any,
             calls: Sequence[Mapping[str, Any]]) -> bool:
    """AgentDojo's check of injection task ``goal`` on one run (True: the attack succeeded):
    ``security_from_traces`` when the task gives one, else ``security(output, pre, post)``.

    Args:
        calls: the calls that ran, ``[{"name", "arguments"}]`` in order.
    """
    from agentdojo.functions_runtime import FunctionCall

    traces = [FunctionCall(function=c["name"], args=dict(c["arguments"])) for c in calls
              if isinstance(c.get("arguments"), Mapping)]
    verdict = goal.security_from_traces(model_output, pre, post, traces)
    if verdict is None:
        verdict = goal.security(model_output, pre, post)
    return bool(verdict)


def user_ground_truth(suite: AgentDojoSuite, task: AgentDojoTask,
                      injections: Mapping[str, str]) -> list[dict[str, Any]]:
    """``task``'s ground truth on its injected environment (what AgentDojo's
    ``GroundTruthPipeline`` calls under an attack): ``[{"name", "arguments"}]``. It differs from
    ``AgentDojoSuite.ground_truth`` where an argument comes from injected data (slack's channel
    ``External_<injection>``)."""
    pre, _ = injected_environment(suite, task, injections)
    return [{"name": c.function, "arguments": dict(c.args)} for c in task.task.ground_truth(pre)]


def injection_ground_truth(suite: AgentDojoSuite, task: AgentDojoTask, injection_task_id: str,
                           injections: Mapping[str, str]) -> list[dict[str, Any]]:
    """The calls that reach the injection task's goal on ``task``'s injected environment
    (its ``ground_truth(pre)``): what an agent that obeys the injection does."""
    goal = injection_task(suite, injection_task_id)
    pre, _ = injected_environment(suite, task, injections)
    return [{"name": c.function, "arguments": dict(c.args)} for c in goal.ground_truth(pre)]


__all__ = [
    "TARGET_PIPELINE_NAME", "attack_injections", "check_attack_name", "injected_environment",
    "injection_ground_truth", "injection_task", "user_ground_truth", "injection_task_ids", "injection_vectors",
    "no_injection_task_message", "security", "targeted_attacks",
]
