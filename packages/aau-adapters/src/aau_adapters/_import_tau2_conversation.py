"""τ² environment cases as conversations (``aau import tau2 --environment --conversation``).

A τ²-bench task's ``user_scenario`` is the script of its LLM user simulator: a ``persona``
(optional text) and ``instructions``, either text or an object with ``domain``,
``reason_for_call``, ``known_info``, ``unknown_info`` and ``task_instructions`` (τ²-bench's
``UserScenario`` / ``StructuredUserInstructions``). As a conversation the case's ``user`` is a
model user (suite 3.0 ``user.kind: model``) whose ``instructions`` are that scenario rendered as
text, labelled in τ²'s field order; the agent no longer gets the ticket in ``input``: the user
opens the conversation. ``input.messages`` keeps the policy (system) and, when the task has
one, its earlier message history.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DEFAULT_MAX_TURNS = 30
"""The agent's turn limit of an imported conversation (τ²-bench bounds steps, not turns; 30
agent turns leave room for every mock task's few exchanges)."""

_FIELDS = (("domain", "Domain"), ("reason_for_call", "Reason for call"),
           ("known_info", "Known info"), ("unknown_info", "Unknown info"),
           ("task_instructions", "Task instructions"))


def user_instructions(task: Mapping[str, Any]) -> str:
    """The task's user scenario as the model user's instructions (module docstring).

    Returns:
        the text (``""`` when the task has no usable scenario).
    """
    scenario = task.get("user_scenario") or {}
    if not isinstance(scenario, Mapping):
        return ""
    parts = []
    if isinstance(scenario.get("persona"), str) and scenario["persona"].strip():
        parts.append(f"Persona: {scenario['persona'].strip()}")
    instructions = scenario.get("instructions")
    if isinstance(instructions, str) and instructions.strip():
        parts.append(f"Instructions: {instructions.strip()}")
    elif isinstance(instructions, Mapping):
        for key, label in _FIELDS:
            value = instructions.get(key)
            if isinstance(value, str) and value.strip():
                parts.append(f"{label}: {value.strip()}")
    return "\n\n".join(parts)


def as_conversation(case: dict[str, Any], task: Mapping[str, Any],
                    max_turns: int = DEFAULT_MAX_TURNS) -> dict[str, Any]:
    """The environment case ``case`` of ``task`` as a conversation with a model user.

    Args:
        case: a ``tau2_environment_case`` document (its last message is the ticket).
        task: the τ² task it came from.
        max_turns: the user's ``max_turns`` (1..200).

    Returns:
        a new case: ``input.messages`` without the ticket, and ``user``.

    Raises:
        ValueError: the task has no user scenario to follow (the importer skips it).
    """
    instructions = user_instructions(task)
    if not instructions:
        raise ValueError("no user scenario for the simulated user")
    messages = list(case["input"]["messages"][:-1])  # the user opens: drop the ticket
    return {**case, "input": {**case["input"], "messages": messages},
            "user": {"kind": "model", "instructions": instructions, "max_turns": max_turns}}
