"""τ²-bench's mock domain as an observed environment (``tau2-mock``).

τ²-bench (MIT, sierra-research) ships a tiny ``mock`` domain: a database of users and their tasks
(``db.json``), a five-line policy and ten tasks. aau ships none of that data: the importer
(``aau import tau2 --domain mock --environment``) writes it into each case's options. The tools
are written here from the semantics the data documents (the policy, the task records and the
tool results in their message histories), not from τ²'s code:

- ``create_task(user_id, title, description?)``: the user must exist and the title must be
  non-empty (policy 1 and 3); the new task's id is ``task_<n+1>``, ``n`` the number of tasks in
  the database; it is ``{"task_id", "title", "description", "status": "pending"}``
  (``description`` ``null`` when not given), stored under ``tasks`` and appended to the user's
  ``tasks`` list; the result is the task object.
- ``update_task_status(task_id, status)``: ``status`` is ``"pending"`` or ``"completed"`` (policy
  2); the task must exist; the result is the updated task.
- ``transfer_to_human_agents(summary)``: changes nothing; answers that the transfer was made.

No read tool (``get_users``-style) is offered: neither the policy nor any task names one.

Options (``check_case`` refuses anything else, naming the path):

- ``database`` (required): ``{"tasks": {...}, "users": {...}}``, τ²'s ``db.json``.
- ``initial_state`` (optional, τ²'s task field): ``initialization_data.agent_data`` is merged
  into the database (objects key by key, any other value replaced); ``initialization_actions``
  with ``env_type`` ``"assistant"`` are replayed in order (``"user"`` ones need τ²'s user-side
  tools: refused); the tool calls of ``message_history`` assistant messages are replayed in
  order. ``initialization_data.user_data`` (user-side state) is refused.
- ``expected_actions`` (required, non-empty): ``[{"name", "arguments", "compare_args"?}]``.
  A task without expected actions is refused: nothing defines its expected database (τ² judges
  those by NL assertions or assertions aau does not run).
- ``reward_basis`` (optional): τ²'s list; default ``["DB", "COMMUNICATE"]`` (τ²'s default).
  A basis with neither ``DB`` nor ``ACTION`` is refused: nothing of it is judged here.

``score`` judges exactly two things:

- ``DB`` (when in the basis): the final database equals, as canonical JSON, the database the
  expected actions produce on a fresh initialised state; the reason names the first differing
  JSON path (``$.tasks.task_2.status``).
- ``ACTION`` (when in the basis): every expected action appears among the observed ok calls:
  same name and, for each argument in ``compare_args`` (all the expected action's arguments
  when absent; none when ``[]``), an equal value. Order and extra calls are not judged.

Not judged: ``communicate_info``, ``nl_assertions``, ``env_assertions`` and anything the user
simulator would do; the final answer text is not read.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from aau_core import (
    EnvironmentCaseError,
    EnvironmentVerdict,
    ObservedCall,
    ToolOutcome,
    ToolSpec,
)

TAU2_MOCK_VERSION = "tau2-mock 1 (aau's tools for τ²-bench's mock domain; data from the case)"
STATUSES = ("pending", "completed")
DEFAULT_REWARD_BASIS = ("DB", "COMMUNICATE")
JUDGED = ("DB", "ACTION")
OPTION_KEYS = ("database", "initial_state", "expected_actions", "reward_basis")

TOOLS = (
    ToolSpec(name="create_task",
             description="Create a new task for an existing user. Returns the task object.",
             input_schema={"type": "object", "properties": {
                 "user_id": {"type": "string", "description": "The id of an existing user."},
                 "title": {"type": "string", "description": "The task's title (required)."},
                 "description": {"type": ["string", "null"],
                                 "description": "What the task is about (optional)."}},
                 "required": ["user_id", "title"], "additionalProperties": False}),
    ToolSpec(name="update_task_status",
             description="Set a task's status to 'pending' or 'completed'. Returns the task.",
             input_schema={"type": "object", "properties": {
                 "task_id": {"type": "string", "description": "The id of an existing task."},
                 "status": {"type": "string", "enum": list(STATUSES)}},
                 "required": ["task_id", "status"], "additionalProperties": False}),
    ToolSpec(name="transfer_to_human_agents",
             description="Transfer the user to a human agent, with a summary of the request.",
             input_schema={"type": "object", "properties": {
                 "summary": {"type": "string", "description": "What the user needs."}},
                 "required": ["summary"], "additionalProperties": False}),
)
_NAMES = {t.name for t in TOOLS}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _ToolError(Exception):
    """A call the mock domain refuses; the message is what the agent is shown."""


def _run(db: dict[str, Any], name: str, arguments: Mapping[str, Any]) -> Any:
    """Run one tool on ``db`` (mutated); the result value. Raises ``_ToolError``."""
    if name == "create_task":
        user_id, title = arguments.get("user_id"), arguments.get("title")
        if not isinstance(user_id, str) or user_id not in db["users"]:
            raise _ToolError(f"user {user_id!r} not found (only existing users can create tasks)")
        if not isinstance(title, str) or not title.strip():
            raise _ToolError("a task must have a title")
        description = arguments.get("description")
        if description is not None and not isinstance(description, str):
            raise _ToolError("description must be a string")
        task_id = f"task_{len(db['tasks']) + 1}"
        task = {"task_id": task_id, "title": title, "description": description,
                "status": "pending"}
        db["tasks"][task_id] = task
        db["users"][user_id].setdefault("tasks", []).append(task_id)
        return copy.deepcopy(task)
    if name == "update_task_status":
        task_id, status = arguments.get("task_id"), arguments.get("status")
        if not isinstance(task_id, str) or task_id not in db["tasks"]:
            raise _ToolError(f"task {task_id!r} not found")
        if status not in STATUSES:
            raise _ToolError(f"status must be 'pending' or 'completed', not {status!r}")
        db["tasks"][task_id]["status"] = status
        return copy.deepcopy(db["tasks"][task_id])
    if name == "transfer_to_human_agents":
        if not isinstance(arguments.get("summary"), str):
            raise _ToolError("summary must be a string")
        return "Transfer successful"
    raise _ToolError(f"unknown tool {name!r}")


def _merge(base: Any, update: Any) -> Any:
    """``update`` merged into ``base``: objects key by key, any other value replaced."""
    if isinstance(base, dict) and isinstance(update, dict):
        out = dict(base)
        for key, value in update.items():
            out[key] = _merge(base[key], value) if key in base else copy.deepcopy(value)
        return out
    return copy.deepcopy(update)


def _key(path: str, key: str) -> str:
    return f"{path}.{key}" if _IDENT.match(key) else f"{path}[{json.dumps(key)}]"


def first_difference(a: Any, b: Any, path: str = "$") -> str | None:
    """The first JSON path where ``a`` and ``b`` differ (keys in sorted order), ``None`` when
    equal as canonical JSON (``true`` differs from ``1``; ``1`` equals ``1.0``)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return _key(path, key)
            found = first_difference(a[key], b[key], _key(path, key))
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return None if len(a) == len(b) else f"{path}[{min(len(a), len(b))}]"
    if isinstance(a, bool) or isinstance(b, bool):
        return None if a is b else path
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return None if a == b else path
    return None if type(a) is type(b) and a == b else path


def _check_options(options: Mapping[str, Any]) -> None:
    """Shape checks of the options (module docstring). Raises ``EnvironmentCaseError``."""
    for key in options:
        if key not in OPTION_KEYS:
            raise EnvironmentCaseError(f"tau2-mock has no option {key!r} (it takes "
                                       + ", ".join(OPTION_KEYS) + ")", f"$.options.{key}")
    db = options.get("database")
    if not isinstance(db, dict):
        raise EnvironmentCaseError("tau2-mock needs the domain's database (db.json) as an "
                                   "object", "$.options.database")
    for part in ("tasks", "users"):
        if not isinstance(db.get(part), dict) or not all(isinstance(v, dict)
                                                         for v in db[part].values()):
            raise EnvironmentCaseError(f"must be an object of {part[:-1]} objects",
                                       f"$.options.database.{part}")
    state = options.get("initial_state")
    if state is not None:
        if not isinstance(state, dict):
            raise EnvironmentCaseError("must be an object or null", "$.options.initial_state")
        data = state.get("initialization_data")
        if data is not None:
            at = "$.options.initial_state.initialization_data"
            if not isinstance(data, dict):
                raise EnvironmentCaseError("must be an object", at)
            if data.get("user_data"):
                raise EnvironmentCaseError("user-side initialization data needs τ²'s user "
                                           "tools, which tau2-mock does not run",
                                           f"{at}.user_data")
            if not isinstance(data.get("agent_data") or {}, dict):
                raise EnvironmentCaseError("must be an object", f"{at}.agent_data")
        actions = state.get("initialization_actions") or []
        if not isinstance(actions, list):
            raise EnvironmentCaseError("must be an array",
                                       "$.options.initial_state.initialization_actions")
        for i, action in enumerate(actions):
            at = f"$.options.initial_state.initialization_actions[{i}]"
            if not isinstance(action, dict):
                raise EnvironmentCaseError("must be an object", at)
            if action.get("env_type") != "assistant":
                raise EnvironmentCaseError(
                    f"initialization action {action.get('func_name')!r} has env_type "
                    f"{action.get('env_type')!r}: it needs τ²'s user-side tools, which tau2-mock "
                    "does not run", f"{at}.env_type")
            if action.get("func_name") not in _NAMES:
                raise EnvironmentCaseError(f"unknown tool {action.get('func_name')!r}",
                                           f"{at}.func_name")
        history = state.get("message_history") or []
        if not isinstance(history, list):
            raise EnvironmentCaseError("must be an array",
                                       "$.options.initial_state.message_history")
    expected = options.get("expected_actions")
    if not isinstance(expected, list) or not expected:
        raise EnvironmentCaseError("tau2-mock needs a non-empty array of expected actions: "
                                   "without them nothing defines the expected database (the "
                                   "task is judged by assertions tau2-mock does not run)",
                                   "$.options.expected_actions")
    for i, action in enumerate(expected):
        at = f"$.options.expected_actions[{i}]"
        if not isinstance(action, dict) or action.get("name") not in _NAMES \
                or not isinstance(action.get("arguments", {}), dict):
            raise EnvironmentCaseError("an expected action is {name, arguments} naming one of "
                                       + ", ".join(sorted(_NAMES)), at)
        compare = action.get("compare_args")
        if compare is not None and not (isinstance(compare, list)
                                        and all(isinstance(a, str) for a in compare)):
            raise EnvironmentCaseError("must be null or an array of argument names",
                                       f"{at}.compare_args")
    basis = options.get("reward_basis", list(DEFAULT_REWARD_BASIS))
    if not isinstance(basis, list) or not all(isinstance(b, str) for b in basis):
        raise EnvironmentCaseError("must be an array of strings", "$.options.reward_basis")
    if not set(basis) & set(JUDGED):
        raise EnvironmentCaseError(f"reward basis {basis} has neither DB nor ACTION, the only "
                                   "parts tau2-mock judges", "$.options.reward_basis")


def initial_database(options: Mapping[str, Any]) -> dict[str, Any]:
    """The database a unit starts from: ``database`` with ``initial_state`` applied (module
    docstring), options already shape-checked.

    Raises:
        EnvironmentCaseError: an initialisation call the mock domain refuses (its path named).
    """
    db = copy.deepcopy(dict(options["database"]))
    state = options.get("initial_state") or {}
    data = (state.get("initialization_data") or {}).get("agent_data")
    if data:
        db = _merge(db, data)
    steps: list[tuple[str, str, Any]] = []
    for i, action in enumerate(state.get("initialization_actions") or []):
        steps.append((f"$.options.initial_state.initialization_actions[{i}]",
                      action["func_name"], action.get("arguments") or {}))
    for i, message in enumerate(state.get("message_history") or []):
        if isinstance(message, dict) and message.get("role") == "assistant":
            for j, call in enumerate(message.get("tool_calls") or []):
                at = f"$.options.initial_state.message_history[{i}].tool_calls[{j}]"
                if not isinstance(call, dict) or call.get("name") not in _NAMES:
                    raise EnvironmentCaseError("a replayed tool call must name one of "
                                               + ", ".join(sorted(_NAMES)), at)
                steps.append((at, call["name"], call.get("arguments") or {}))
    for at, name, arguments in steps:
        if not isinstance(arguments, dict):
            raise EnvironmentCaseError("arguments must be an object", f"{at}.arguments")
        try:
            _run(db, name, arguments)
        except _ToolError as exc:
            raise EnvironmentCaseError(f"replaying {name} failed: {exc}", at) from None
    return db


def expected_database(options: Mapping[str, Any]) -> dict[str, Any]:
    """The database the expected actions produce on a fresh initialised state.

    Raises:
        EnvironmentCaseError: an expected action the mock domain refuses (its path named).
    """
    db = initial_database(options)
    for i, action in enumerate(options["expected_actions"]):
        try:
            _run(db, action["name"], action.get("arguments") or {})
        except _ToolError as exc:
            raise EnvironmentCaseError(f"expected action {action['name']} fails on the "
                                       f"initial state: {exc}",
                                       f"$.options.expected_actions[{i}]") from None
    return db


def _matches(action: Mapping[str, Any], call: ObservedCall) -> bool:
    if call.name != action["name"] or not call.ok or call.arguments is None:
        return False
    expected = action.get("arguments") or {}
    compare = action.get("compare_args")
    keys = list(expected) if compare is None else compare
    return all(k in call.arguments and k in expected
               and first_difference(call.arguments[k], expected[k]) is None for k in keys)


class Tau2MockEnvironment:
    """τ²-bench's mock domain as an ``aau_core.Environment`` (module docstring).

    Attributes:
        name: ``"tau2-mock"``.
        version: ``TAU2_MOCK_VERSION``.
    """

    name = "tau2-mock"
    version = TAU2_MOCK_VERSION

    def check_case(self, task: str, options: Mapping[str, Any]) -> None:
        """Refuse options tau2-mock cannot run or judge (module docstring): bad shapes,
        user-side initialisation, no expected actions, a basis with neither DB nor ACTION, an
        initialisation or expected action the domain refuses.

        Raises:
            EnvironmentCaseError: naming the path under the case's ``environment``.
        """
        if not isinstance(task, str) or not task:
            raise EnvironmentCaseError("the task id must be a non-empty string", "$.task")
        _check_options(options)
        expected_database(options)

    def open(self, task: str, options: Mapping[str, Any]) -> Tau2MockSession:
        """A session on a fresh initialised database (options checked by ``check_case``).

        Raises:
            EnvironmentCaseError: options ``check_case`` would refuse.
        """
        _check_options(options)
        return Tau2MockSession(task, options)

    def reference_solution(self, task: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """The task's expected actions, in order (the contract's optional reference solution):
        ``{"calls": [{"name", "arguments"}], "answer": None}`` (τ²'s mock tasks judge no answer
        text). ``aau evaluate --mock`` replays it; no agent sees it.

        Raises:
            EnvironmentCaseError: options ``check_case`` would refuse.
        """
        _check_options(options)
        return {"calls": [{"name": a["name"], "arguments": dict(a.get("arguments") or {})}
                          for a in options["expected_actions"]], "answer": None}


class Tau2MockSession:
    """One unit's mock-domain database (an ``aau_core.EnvironmentSession``).

    Args:
        task: the τ² task id (kept in the verdict's detail).
        options: the case's checked options.
    """

    def __init__(self, task: str, options: Mapping[str, Any]) -> None:
        self._task = task
        self._options = copy.deepcopy(dict(options))
        self._db = initial_database(self._options)
        self._basis = list(self._options.get("reward_basis", DEFAULT_REWARD_BASIS))

    def tools(self) -> Sequence[ToolSpec]:
        """``create_task``, ``update_task_status``, ``transfer_to_human_agents``."""
        return list(TOOLS)

    def call(self, name: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        """Run one call on this session's database; a refused call is ``ok=False``."""
        try:
            value = _run(self._db, name, arguments)
        except _ToolError as exc:
            return ToolOutcome(ok=False, text=f"Error: {exc}")
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        return ToolOutcome(ok=True, text=text, value=value)

    def final_state(self) -> Any:
        """The database now (``{"tasks", "users"}``)."""
        return copy.deepcopy(self._db)

    def score(self, calls: Sequence[ObservedCall], final_answer: str | None) -> EnvironmentVerdict:
        """DB and ACTION as the module docstring says; ``final_answer`` is not read."""
        judged = [b for b in JUDGED if b in self._basis]
        detail: dict[str, Any] = {"task": self._task, "reward_basis": self._basis,
                                  "judged": judged,
                                  "not_judged": [b for b in self._basis if b not in JUDGED]
                                  + ["communicate_info", "nl_assertions", "env_assertions"]}
        failures = []
        if "DB" in judged:
            try:
                want = expected_database(self._options)
            except EnvironmentCaseError as exc:
                return EnvironmentVerdict(passed=False, reason=f"the expected database cannot "
                                          f"be built: {exc.message}", detail=detail)
            where = first_difference(self._db, want)
            detail["db_matches"] = where is None
            if where is not None:
                detail["first_difference"] = where
                failures.append(f"final database differs at {where}")
        if "ACTION" in judged:
            missing = [i for i, action in enumerate(self._options["expected_actions"])
                       if not any(_matches(action, c) for c in calls)]
            detail["missing_actions"] = missing
            if missing:
                names = ", ".join(self._options["expected_actions"][i]["name"] for i in missing)
                failures.append(f"expected action(s) not among the observed ok calls: {names} "
                                f"(expected_actions{missing})")
        if failures:
            return EnvironmentVerdict(passed=False, reason="; ".join(failures), detail=detail)
        said = {"DB": "the final database matches the expected actions' database",
                "ACTION": "every expected action was observed"}
        return EnvironmentVerdict(passed=True, reason="; ".join(said[b] for b in judged),
                                  detail=detail)


__all__ = ["TAU2_MOCK_VERSION", "Tau2MockEnvironment", "Tau2MockSession", "expected_database",
           "first_difference", "initial_database"]
