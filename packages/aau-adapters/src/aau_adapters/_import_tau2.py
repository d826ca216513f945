"""Import τ²-bench (tau2-bench) task files as suite v3 documents with expected tool calls.

τ²-bench (MIT, https://github.com/sierra-research/tau2-bench; not on PyPI) keeps each domain's
tasks in ``data/tau2/domains/<domain>/tasks.json`` beside its ``policy.md`` (and ``db.json``). A
task holds a ``user_scenario`` (the instructions of its LLM user simulator), often a ``ticket``
(the request as the agent would get it without a simulator), and ``evaluation_criteria``:
expected ``actions`` ``{action_id, name, arguments, compare_args?}``, ``communicate_info``,
``nl_assertions``, ``env_assertions`` and the ``reward_basis`` saying which of them count.

One task becomes one case (docs/import.md says what is not covered):

- ``scenario_id``: the task id.
- ``input.messages``: the domain policy as the system message (τ²'s agent gets the policy in its
  system prompt), then one user message: the task's ``ticket`` when it has one, else the user
  scenario's instructions rendered as text. The user simulator is not run.
- ``input.tools``: OpenAI-style tools. τ² defines its tools in Python, not in the task files, so
  by default they are *inferred from the expected actions of the whole task file* (each name
  with the union of its argument names; a type when every value seen has one JSON type; the
  arguments present in every action required); ``--tools FILE`` gives the real definitions.
- ``input.user_scenario`` (verbatim) and ``input.initial_state`` (verbatim, when not null).
- ``expected.tool_calls``: the expected actions, each argument's value as its only acceptable
  value (objects become patterns; an argument left out of ``compare_args`` may take any value
  or be left out, matcher ``any``); compared arguments use the ``verbatim`` matcher, because
  τ² compares arguments with Python ``==`` (no string normalisation).
- ``expected.tool_call_match.mode`` is ``superset``: τ²'s action check
  (``evaluator_action``) passes when every expected action appears among the agent's calls;
  it checks neither order nor extra calls. Identical expected actions are listed once (one
  call satisfies both in τ²).

Skipped, with the reason in ``source.skipped``: a task with no expected actions (its reward is
database state or assertions, which aau cannot check), a task whose argument value is the
empty string (``""`` means "may be left out" in the expected-call format), and a task whose
expected action depends on an earlier conversation: a compared argument value (a string, or a
number's JSON text) that appears nowhere in the messages the case sends nor in the user
scenario, but does appear in the task's ``initial_state`` (its prior message history). No
agent shown the case's conversation can know it (``task_2`` in the mock domain's
``update_task_with_message_history``). A value found nowhere at all is kept: it is one a
tool-running adapter looks up (a reservation id from ``get_user_details``).

With ``environment=True`` (``--environment``, mock only) each case names ``tau2-mock`` instead
(``_import_tau2_environment``): the database, initial state and expected actions go in its
options and tasks the environment refuses are skipped with its reason.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aau_core import InputError, UsageError, read_json_file
from aau_core._files._strict_json import read_text_file  # internal to the monorepo
from aau_schemas import sha256_hex

from ._import_bfcl import PUBLIC_SHARING
from ._suite import SUITE_V3

TAU2_DOMAINS = ("airline", "retail", "mock")
"""The domains ``aau import tau2`` reads (telecom's tasks need its user tools; not imported)."""

MAX_TAU2_FILE_BYTES = 50_000_000
_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
               (list, "array"), (dict, "object"))


def _sha256_file(path: Path) -> str:
    return sha256_hex(path.read_bytes())


def tau2_files(source: str | os.PathLike[str], domain: str) -> dict[str, Path]:
    """Find a domain's files under ``source``.

    Layouts tried, in order: ``SOURCE/tau2_<domain>_tasks.json`` with
    ``tau2_<domain>_policy.md`` (and ``tau2_<domain>_db.json``), as in ../shared/datasets/tau2;
    a tau2-bench checkout ``SOURCE/data/tau2/domains/<domain>/``; its domains folder
    ``SOURCE/<domain>/``; the domain folder itself (``SOURCE/tasks.json``). A checkout folder
    holds ``tasks.json``, ``policy.md`` and ``db.json``. ``source`` may also be the tasks file
    itself (``tau2_<domain>_tasks.json`` or ``tasks.json``): the policy and the database are
    then its siblings named the same way.

    Returns:
        ``{"tasks": path, "policy": path}`` plus ``"db"`` when present.

    Raises:
        UsageError: an unknown domain.
        InputError: ``source`` does not exist; no layout has both a tasks file and a policy.
    """
    if domain not in TAU2_DOMAINS:
        raise UsageError(f"unknown tau2 domain {domain!r}; one of " + ", ".join(TAU2_DOMAINS))
    root = Path(source)
    if root.is_file():
        return _tau2_files_beside(root, domain)
    if not root.is_dir():
        raise InputError("no such file or folder (give the folder holding the tasks and the "
                         "policy, or the tasks file)", source=str(source))
    flat = {"tasks": root / f"tau2_{domain}_tasks.json",
            "policy": root / f"tau2_{domain}_policy.md",
            "db": root / f"tau2_{domain}_db.json"}
    candidates = [flat]
    for folder in (root / "data" / "tau2" / "domains" / domain, root / domain, root):
        candidates.append({"tasks": folder / "tasks.json", "policy": folder / "policy.md",
                           "db": folder / "db.json"})
    for files in candidates:
        if files["tasks"].is_file() and files["policy"].is_file():
            return {k: p for k, p in files.items() if k != "db" or p.is_file()}
    raise InputError(f"no tasks and policy for domain {domain}: looked for "
                     f"tau2_{domain}_tasks.json + tau2_{domain}_policy.md, and tasks.json + "
                     f"policy.md in data/tau2/domains/{domain}/, {domain}/ and the folder itself",
                     source=str(source))


def _tau2_files_beside(tasks: Path, domain: str) -> dict[str, Path]:
    """``tau2_files`` for a tasks file: the policy and the database beside it, named like it
    (``tau2_<domain>_tasks.json`` -> ``tau2_<domain>_policy.md``, ``tasks.json`` -> ``policy.md``).

    Raises:
        InputError: the file is named neither way, or its policy is missing.
    """
    flat = f"tau2_{domain}_"
    if tasks.name == f"{flat}tasks.json":
        policy, db = tasks.with_name(f"{flat}policy.md"), tasks.with_name(f"{flat}db.json")
    elif tasks.name == "tasks.json":
        policy, db = tasks.with_name("policy.md"), tasks.with_name("db.json")
    else:
        raise InputError(f"a tasks file for domain {domain} is named {flat}tasks.json or "
                         "tasks.json (its policy beside it); or give the folder",
                         source=str(tasks))
    if not policy.is_file():
        raise InputError(f"no policy beside the tasks file: looked for {policy.name}",
                         source=str(tasks))
    return {"tasks": tasks, "policy": policy, **({"db": db} if db.is_file() else {})}


def _read_text(path: Path) -> str:
    return read_text_file(path, max_bytes=MAX_TAU2_FILE_BYTES)


# ---------------------------------------------------------------------------------------------
# Tools


def _json_type(value: Any) -> str:
    for kind, word in _JSON_TYPES:
        if isinstance(value, kind):
            return word
    return "null"


def infer_tools(tasks: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-style tools inferred from the expected actions of ``tasks`` (already checked).

    Each action name gives one tool, in order of first appearance; its properties are the
    argument names seen in any action of that name (sorted), each with a ``type`` when every
    value seen has the same JSON type (``integer`` and ``number`` together give ``number``; a
    ``null`` value gives no type); ``required`` lists the arguments present in every action.
    The description says the definition is inferred.

    Returns:
        ``[{"type": "function", "function": {"name", "description", "parameters"}}]``.
    """
    seen: dict[str, list[Mapping[str, Any]]] = {}
    for task in tasks:
        for action in _actions(task):
            seen.setdefault(action["name"], []).append(action["arguments"])
    tools = []
    for name, calls in seen.items():
        props: dict[str, dict[str, Any]] = {}
        for arg in sorted({a for call in calls for a in call}):
            types = {_json_type(call[arg]) for call in calls if arg in call}
            if types == {"integer", "number"}:
                types = {"number"}
            props[arg] = {"type": types.pop()} if len(types) == 1 and "null" not in types else {}
        required = sorted(a for a in props if all(a in call for call in calls))
        tools.append({"type": "function", "function": {
            "name": name,
            "description": (f"τ²-bench tool {name} (definition inferred by aau from the task "
                            "file's expected actions; the real one is in tau2-bench's code)"),
            "parameters": {"type": "object", "properties": props, "required": required}}})
    return tools


def read_tools(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read ``--tools``: a JSON array of OpenAI tools or bare function objects.

    Returns:
        ``[{"type": "function", "function": {...}}]``.

    Raises:
        InputError: not an array of objects each naming a function (the path is given).
    """
    doc = read_json_file(path, max_bytes=MAX_TAU2_FILE_BYTES)
    if not isinstance(doc, list):
        raise InputError("expected a JSON array of tools", source=str(path), path="$")
    out = []
    for i, tool in enumerate(doc):
        fn = tool.get("function", tool) if isinstance(tool, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
            raise InputError("a tool must be an object with a name (or function.name)",
                             source=str(path), path=f"$[{i}]")
        out.append({"type": "function", "function": fn})
    return out


# ---------------------------------------------------------------------------------------------
# Tasks -> cases


def _actions(task: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    criteria = task.get("evaluation_criteria") or {}
    return list(criteria.get("actions") or [])


def _check_task(task: Any, where: str, source: str) -> None:
    if not isinstance(task, dict) or not isinstance(task.get("id"), (str, int)):
        raise InputError("a task must be an object with an id", source=source, path=where)
    criteria = task.get("evaluation_criteria")
    if criteria is not None and not isinstance(criteria, dict):
        raise InputError("must be an object", source=source, path=f"{where}.evaluation_criteria")
    actions = (criteria or {}).get("actions")
    if actions is None:
        return
    if not isinstance(actions, list):
        raise InputError("must be an array", source=source,
                         path=f"{where}.evaluation_criteria.actions")
    for j, action in enumerate(actions):
        at = f"{where}.evaluation_criteria.actions[{j}]"
        if not isinstance(action, dict) or not isinstance(action.get("name"), str) \
                or not action["name"] or not isinstance(action.get("arguments", {}), dict):
            raise InputError("an action must be an object with a name and an arguments object",
                             source=source, path=at)
        compare = action.get("compare_args")
        if compare is not None and not (isinstance(compare, list)
                                        and all(isinstance(a, str) for a in compare)):
            raise InputError("must be null or an array of argument names", source=source,
                             path=f"{at}.compare_args")
        action.setdefault("arguments", {})


def _pattern(value: Any) -> Any:
    """A JSON value as an acceptable value: objects become patterns (each key -> [value])."""
    if isinstance(value, dict):
        return {k: [_pattern(v)] for k, v in value.items()}
    if isinstance(value, list):
        return [_pattern(v) for v in value]
    return value


def _has_empty_string(value: Any) -> bool:
    if value == "":
        return True
    if isinstance(value, dict):
        return any(_has_empty_string(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_empty_string(v) for v in value)
    return False


def _texts(value: Any, out: list[str]) -> list[str]:
    """Every string (keys too) and number (as JSON text) in ``value``, appended to ``out``."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            out.append(str(key))
            _texts(item, out)
    elif isinstance(value, list):
        for item in value:
            _texts(item, out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out.append(json.dumps(value))
    return out


def _leaves(value: Any) -> list[str]:
    """The strings and numbers (as JSON text) of an expected value, the values a call copies."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, str):
        return [value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [json.dumps(value)]
    return []


def _history_only_value(task: Mapping[str, Any], sent: str, name: str, arg: str,
                        value: Any) -> None:
    """Raise ``_Skip`` when a value of ``value`` is nowhere in ``sent`` (the case's messages and
    user scenario) but is in the task's ``initial_state``: it comes from an earlier conversation
    the case does not send, so no agent can pass the case (module docstring)."""
    history = "\n".join(_texts(task.get("initial_state"), []))
    for leaf in _leaves(value):
        if leaf not in sent and leaf in history:
            raise _Skip(f"action {name!r} argument {arg!r} expects {leaf!r}, which only the "
                        "earlier message history (initial_state) holds: the case sends no "
                        "history, so no agent can know it")


def _user_message(task: Mapping[str, Any]) -> str:
    """The ticket, else the user scenario's instructions as text (τ²'s field order)."""
    if isinstance(task.get("ticket"), str) and task["ticket"].strip():
        return task["ticket"]
    instructions = (task.get("user_scenario") or {}).get("instructions")
    if isinstance(instructions, str):
        return instructions
    if isinstance(instructions, dict):
        parts = []
        for key in ("reason_for_call", "known_info", "unknown_info", "task_instructions"):
            if isinstance(instructions.get(key), str) and instructions[key].strip():
                parts.append(instructions[key].strip())
        return "\n\n".join(parts)
    return ""


class _Skip(Exception):
    """A task that cannot become a case; the message is the reason."""


def tau2_case(task: Mapping[str, Any], policy: str, tools: list[dict[str, Any]]
              ) -> dict[str, Any]:
    """Build the suite v3 case of one checked τ² task (the module docstring says how).

    Args:
        task: the task record.
        policy: the domain policy text (the system message).
        tools: the tools to show (inferred or from ``--tools``).

    Returns:
        the case object.

    Raises:
        ValueError: the task cannot become a case (no expected actions; an empty-string
            argument; a value only its earlier message history holds; a tool with and without
            ``compare_args`` for one argument; no user message); the importer skips it with
            this reason.
    """
    try:
        return _case(task, policy, tools)
    except _Skip as exc:
        raise ValueError(str(exc)) from None


def _case(task: Mapping[str, Any], policy: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    actions = _actions(task)
    if not actions:
        basis = (task.get("evaluation_criteria") or {}).get("reward_basis")
        raise _Skip("no expected actions (reward basis "
                    f"{', '.join(basis) if basis else 'DB and assertions'}; aau checks actions only)")
    message = _user_message(task)
    if not message:
        raise _Skip("no ticket and no user instructions to send")
    sent = "\n".join(_texts([policy, message, task.get("user_scenario")], []))
    calls: list[dict[str, Any]] = []
    matchers: dict[str, dict[str, str]] = {}
    keys: set[str] = set()
    for action in actions:
        key = json.dumps([action["name"], action["arguments"], action.get("compare_args")],
                         sort_keys=True)
        if key in keys:
            continue  # τ² matches each expected action against any call: one call serves both
        keys.add(key)
        compare = action.get("compare_args")
        arguments = {}
        for arg, value in action["arguments"].items():
            if _has_empty_string(value):
                raise _Skip(f"action {action['name']!r} argument {arg!r} holds an empty string, "
                            "which the expected-call format reads as 'may be left out'")
            compared = compare is None or arg in compare
            if compared:
                _history_only_value(task, sent, action["name"], arg, value)
            arguments[arg] = [_pattern(value)] if compared else [_pattern(value), ""]
            matcher = "verbatim" if compared else "any"
            if matchers.setdefault(action["name"], {}).setdefault(arg, matcher) != matcher:
                raise _Skip(f"{action['name']!r} argument {arg!r} is compared in one expected "
                            "action and not in another (one matcher per tool and argument)")
        calls.append({"name": action["name"], "arguments": arguments})
    names = {t["function"]["name"] for t in tools}
    missing = sorted({c["name"] for c in calls} - names)
    if missing:
        raise _Skip(f"no tool definition for {', '.join(missing)}")
    case_input: dict[str, Any] = {
        "messages": [{"role": "system", "content": policy}, {"role": "user", "content": message}],
        "tools": tools,
        "user_scenario": task.get("user_scenario"),
    }
    if task.get("initial_state") is not None:
        case_input["initial_state"] = task["initial_state"]
    match: dict[str, Any] = {"mode": "superset"}
    matchers = {tool: per for tool, per in matchers.items() if per}
    if matchers:
        match["matchers"] = matchers
    return {"scenario_id": str(task["id"]), "input": case_input,
            "expected": {"tool_calls": calls, "tool_call_match": match}}


def import_tau2(source: str | os.PathLike[str], domain: str, *, limit: int | None = None,
                tools: str | os.PathLike[str] | None = None, environment: bool = False,
                conversation: bool = False,
                db: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Import the first ``limit`` tasks (all when ``None``) of a τ² domain as a suite v3.

    Args:
        source: a folder in one of ``tau2_files``' layouts.
        domain: ``airline``, ``retail`` or ``mock``.
        limit: how many tasks to read, from the start of the file (>= 1).
        tools: a JSON file of the domain's real tool definitions; ``None`` infers them
            (``infer_tools``) from all the file's tasks (not with ``environment``).
        environment: write cases naming the domain's environment (``tau2-mock``; needs
            aau-labs installed) instead of expected tool calls (``tau2_environment_case``).
        conversation: with ``environment``, write each case as a conversation with a model
            user following the task's user scenario (``_import_tau2_conversation``).
        db: the domain database for ``environment`` (default: the ``db.json`` /
            ``tau2_<domain>_db.json`` beside the tasks file).

    Returns:
        the suite document; ``source`` records the benchmark, domain, files with SHA-256, how
        the tools were obtained, the match mode and the skipped tasks with their reasons.
        Deterministic (no dates).

    Raises:
        UsageError: unknown domain or bad ``limit``; ``environment`` for a domain without
            one, with ``tools``, or with aau-labs missing.
        InputError: files missing or malformed (file and JSON path named); no task left.
    """
    if limit is not None and limit < 1:
        raise UsageError("--limit must be at least 1")
    if environment:
        from ._import_tau2_environment import import_tau2_environment

        return import_tau2_environment(source, domain, limit=limit, tools=tools, db=db,
                                        conversation=conversation)
    if db is not None:
        raise UsageError("--db is read only with --environment")
    files = tau2_files(source, domain)
    tasks = read_json_file(files["tasks"], max_bytes=MAX_TAU2_FILE_BYTES)
    if not isinstance(tasks, list):
        raise InputError("expected a JSON array of tasks", source=str(files["tasks"]), path="$")
    seen: dict[str, int] = {}
    for i, task in enumerate(tasks):
        _check_task(task, f"$[{i}]", str(files["tasks"]))
        first = seen.setdefault(str(task["id"]), i)
        if first != i:  # each id becomes a scenario_id: two would clash in the suite
            raise InputError(f"duplicate task id {str(task['id'])!r} (also $[{first}].id)",
                             source=str(files["tasks"]), path=f"$[{i}].id")
    policy = _read_text(files["policy"])
    shown = read_tools(tools) if tools is not None else infer_tools(tasks)
    chosen = tasks if limit is None else tasks[:limit]
    cases, skipped = [], []
    for task in chosen:
        try:
            cases.append(tau2_case(task, policy, shown))
        except ValueError as exc:
            skipped.append({"id": str(task["id"]), "reason": str(exc)})
    if not cases:
        raise InputError(f"no task of {domain} could be imported ({len(skipped)} skipped)",
                         source=str(files["tasks"]))
    root = _source_folder(source)
    listed = [{"path": _relative(p, root), "sha256": _sha256_file(p)}
              for k, p in files.items()]
    if tools is not None:
        listed.append({"path": str(tools), "sha256": _sha256_file(Path(tools))})
    suite_id = f"tau2-{domain}" + (f"-first{limit}" if limit is not None else "")
    return {
        "suite_version": SUITE_V3,
        "suite_id": suite_id,
        "description": (
            f"τ²-bench {domain}: {len(cases)} task(s) imported by `aau import tau2`. Input: the "
            "domain policy (system message), the task's ticket or user instructions (user "
            "message; the user simulator is not run) and the tools; expected: the task's "
            "expected actions, every one of which must be called (order and extra calls "
            "unchecked, as in τ²'s action check). Database state, communicate_info and "
            "natural-language assertions are not scored."),
        "sharing": dict(PUBLIC_SHARING),
        "source": {
            "benchmark": "tau2-bench",
            "domain": domain,
            "license": "MIT",
            "homepage": "https://github.com/sierra-research/tau2-bench",
            "files": listed,
            "tools": "from --tools" if tools is not None else
                     "inferred from the task file's expected actions",
            "match_mode": "superset",
            "not_scored": ["user simulator (one user message only)", "database state (DB)",
                           "env_assertions", "communicate_info", "nl_assertions"],
            "records_read": len(chosen),
            "records_in_file": len(tasks),
            "imported": len(cases),
            "skipped": skipped,
            "importer": "aau import tau2",
        },
        "cases": cases,
    }


def _read_tasks(files: Mapping[str, Path]) -> list[Any]:
    tasks = read_json_file(files["tasks"], max_bytes=MAX_TAU2_FILE_BYTES)
    if not isinstance(tasks, list):
        raise InputError("expected a JSON array of tasks", source=str(files["tasks"]), path="$")
    seen: dict[str, int] = {}
    for i, task in enumerate(tasks):
        _check_task(task, f"$[{i}]", str(files["tasks"]))
        first = seen.setdefault(str(task["id"]), i)
        if first != i:
            raise InputError(f"duplicate task id {str(task['id'])!r} (also $[{first}].id)",
                             source=str(files["tasks"]), path=f"$[{i}].id")
    return tasks


def _source_folder(source: str | os.PathLike[str]) -> Path:
    """The folder the listed files are relative to: ``source``, or its folder for a tasks file."""
    root = Path(source)
    return root.parent if root.is_file() else root


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
