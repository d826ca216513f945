"""τ²-bench tasks as suite v3 cases that name the domain's bundled environment (``aau import
tau2 --environment``, mock only): the database, initial state and expected actions go in each
case's ``environment.options``; the environment (``tau2-mock``, from aau-labs) refuses what it
cannot judge, and those tasks are skipped with its reason. The task file is read and checked by
``_import_tau2`` (the same reading as for tool-call cases).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aau_core import InputError, UsageError, read_json_file

from ._import_bfcl import PUBLIC_SHARING
from ._import_tau2 import (
    MAX_TAU2_FILE_BYTES,
    _actions,
    _read_tasks,
    _read_text,
    _relative,
    _sha256_file,
    _source_folder,
    _user_message,
    tau2_files,
)
from ._import_tau2_conversation import as_conversation
from ._suite import SUITE_V3

ENVIRONMENT_DOMAINS = {"mock": "tau2-mock"}
"""The τ² domains with a bundled environment (aau-labs registers it) -> its name."""


def _history_text(task: Mapping[str, Any]) -> str | None:
    """The task's earlier ``message_history`` as one text block, or ``None`` when it has none.

    User and assistant text, the assistant's tool calls and the tool results are listed in order,
    so the agent sees what was said and done before (the environment replays the tool calls)."""
    history = (task.get("initial_state") or {}).get("message_history") or []
    lines = []
    for message in history:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if isinstance(message.get("content"), str) and message["content"].strip():
            who = "tool result" if role == "tool" else str(role)
            lines.append(f"{who}: {message['content']}")
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                lines.append(f"assistant called {call.get('name')} with "
                             f"{json.dumps(call.get('arguments'), sort_keys=True)}")
    if not lines:
        return None
    return "Earlier in this conversation:\n" + "\n".join(lines)


def tau2_environment_options(task: Mapping[str, Any], database: Mapping[str, Any]
                             ) -> dict[str, Any]:
    """The ``environment.options`` of one checked τ² task for ``tau2-mock``.

    Returns:
        ``{"database", "expected_actions": [{"name", "arguments", "compare_args"?}],
        "initial_state"?: the task's (when not null), "reward_basis"?: the task's (when
        given)}``.
    """
    options: dict[str, Any] = {"database": dict(database), "expected_actions": []}
    for action in _actions(task):
        item = {"name": action["name"], "arguments": dict(action.get("arguments") or {})}
        if action.get("compare_args") is not None:
            item["compare_args"] = list(action["compare_args"])
        options["expected_actions"].append(item)
    if task.get("initial_state") is not None:
        options["initial_state"] = task["initial_state"]
    basis = (task.get("evaluation_criteria") or {}).get("reward_basis")
    if basis is not None:
        options["reward_basis"] = basis
    return options


def tau2_environment_case(task: Mapping[str, Any], policy: str, database: Mapping[str, Any],
                          environment: Any) -> dict[str, Any]:
    """The suite v3 case of one checked τ² task naming the domain's environment.

    ``input.messages``: the policy (system), then the earlier conversation as text when the
    task has a message history (user), then the ticket or user instructions (user). The tools
    are the environment's (served over MCP), so ``input`` carries none. ``expected`` is ``{}``:
    the environment's verdict decides.

    Args:
        environment: the loaded ``aau_core.Environment`` (``tau2-mock``).

    Raises:
        ValueError: the environment refuses the task (``check_case``), or there is no message
            to send; the message is the reason the importer records.
    """
    from aau_core import EnvironmentCaseError

    message = _user_message(task)
    if not message:
        raise ValueError("no ticket and no user instructions to send")
    options = tau2_environment_options(task, database)
    try:
        environment.check_case(str(task["id"]), options)
    except EnvironmentCaseError as exc:
        raise ValueError(f"{environment.name} refuses it at {exc.path}: {exc.message}") from None
    messages = [{"role": "system", "content": policy}]
    history = _history_text(task)
    if history is not None:
        messages.append({"role": "user", "content": history})
    messages.append({"role": "user", "content": message})
    return {"scenario_id": str(task["id"]), "input": {"messages": messages},
            "environment": {"name": environment.name, "task": str(task["id"]),
                            "options": options},
            "expected": {}}


def tau2_db_path(source: str | os.PathLike[str], domain: str,
                 db: str | os.PathLike[str] | None = None) -> Path:
    """The database file ``--environment`` reads: ``db`` when given, else the one beside the
    tasks file (``tau2_files``' ``"db"``).

    Raises:
        UsageError: ``domain`` has no bundled environment.
        InputError: no database beside the tasks file and none given.
    """
    if domain not in ENVIRONMENT_DOMAINS:
        raise UsageError(f"--environment: only {', '.join(ENVIRONMENT_DOMAINS)} has a bundled "
                         f"environment, not {domain}")
    if db is not None:
        return Path(db)
    files = tau2_files(source, domain)
    if "db" not in files:
        raise InputError(f"no database for {domain} beside {files['tasks'].name} (db.json or "
                         f"tau2_{domain}_db.json): pass --db FILE", source=str(source))
    return files["db"]


def import_tau2_environment(source: str | os.PathLike[str], domain: str, *, limit: int | None,
                            tools: str | os.PathLike[str] | None,
                            db: str | os.PathLike[str] | None,
                            conversation: bool = False) -> dict[str, Any]:
    """``import_tau2(..., environment=True)``: the first ``limit`` tasks (all when ``None``) as
    cases naming the domain's environment (``tau2_environment_case``); with ``conversation``
    each opens a conversation with the task's user (``as_conversation``).

    Returns:
        the suite v3 document (its ``source`` lists the files read with SHA-256 and the
        skipped tasks with their reasons).

    Raises:
        UsageError: ``tools`` given, or a domain without an environment.
        InputError: unreadable files, a database that is not an object, no task imported.
    """
    from aau_core import load_environment

    if tools is not None:
        raise UsageError("--tools and --environment exclude each other: the environment "
                         "serves its own tools")
    db_path = tau2_db_path(source, domain, db)
    files = tau2_files(source, domain)
    database = read_json_file(db_path, max_bytes=MAX_TAU2_FILE_BYTES)
    if not isinstance(database, dict):
        raise InputError("expected a JSON object (the domain database)", source=str(db_path),
                         path="$")
    env = load_environment(ENVIRONMENT_DOMAINS[domain])
    tasks = _read_tasks(files)
    policy = _read_text(files["policy"])
    chosen = tasks if limit is None else tasks[:limit]
    cases, skipped = [], []
    for task in chosen:
        try:
            case = tau2_environment_case(task, policy, database, env)
            cases.append(as_conversation(case, task) if conversation else case)
        except ValueError as exc:
            skipped.append({"id": str(task["id"]), "reason": str(exc)})
    if not cases:
        raise InputError(f"no task of {domain} could be imported ({len(skipped)} skipped)",
                         source=str(files["tasks"]))
    root = _source_folder(source)
    listed = [{"path": _relative(p, root), "sha256": _sha256_file(p)}
              for k, p in files.items() if k != "db"]
    listed.append({"path": _relative(db_path, root), "sha256": _sha256_file(db_path)})
    suite_id = f"tau2-{domain}-environment" + (f"-first{limit}" if limit is not None else "")
    return {
        "suite_version": SUITE_V3,
        "suite_id": suite_id,
        "description": (
            f"τ²-bench {domain}: {len(cases)} task(s) imported by `aau import tau2 "
            f"--environment`. Each case names the {env.name} environment: aau serves its tools "
            "to the agent, records every call, and the environment judges the final database "
            "against the one the expected actions produce (and, when the task's reward basis "
            "has ACTION, that every expected action was called). communicate_info, NL "
            "assertions and env_assertions are not judged; the user simulator is not run."),
        "sharing": dict(PUBLIC_SHARING),
        "source": {
            "benchmark": "tau2-bench",
            "domain": domain,
            "license": "MIT",
            "homepage": "https://github.com/sierra-research/tau2-bench",
            "files": listed,
            "environment": {"name": env.name, "version": env.version},
            "not_scored": ["user simulator (one user message only)", "env_assertions",
                           "communicate_info", "nl_assertions"],
            "records_read": len(chosen),
            "records_in_file": len(tasks),
            "imported": len(cases),
            "skipped": skipped,
            "importer": "aau import tau2 --environment",
        },
        "cases": cases,
    }
