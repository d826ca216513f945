"""AgentDojo's task suites as aau sees them: tasks, tool schemas, a live tool session, scoring.

AgentDojo (Debenedetti et al., 2024; PyPI ``agentdojo``, MIT; the optional extra
``aau-labs[agentdojo]`` pins ``agentdojo==0.1.35``) ships four suites — ``workspace``,
``travel``, ``banking``, ``slack`` — each an executable environment (a pydantic model loaded
from the package's YAML data), a list of tool functions that read and mutate it, and user
tasks. A user task has a ``PROMPT``, ``ground_truth(pre_environment)`` (the function calls
that solve it) and ``utility(model_output, pre_environment, post_environment)`` (a check of the
answer text and of the environment's state after the run; some tasks check the calls made
instead, ``utility_from_traces``). This module reads all of that through AgentDojo's own API
(``agentdojo.task_suite.load_suites.get_suite``, ``FunctionsRuntime.run_function``,
``tool_result_to_str``) and turns it into what aau's agent loop and scorer take:

- ``AgentDojoSuite.tool_schemas()``: Anthropic tool definitions ``{"name", "description",
  "input_schema"}`` from each function's pydantic argument model (its JSON Schema);
- ``AgentDojoSession``: ``session(name, arguments) -> str`` runs one call against the run's own
  copy of the environment (a successful call mutates it) and records it;
- ``expected_calls(...)``: a task's ground truth as aau expected tool calls (``_tool_calls``);
- ``AgentDojoSuite.utility(...)``: AgentDojo's verdict, traces first, as its task suite does.

Nothing here talks to a model; ``_bench`` runs the agent loop.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import attrs
from aau_core import MissingExtraError, UsageError

AGENTDOJO_PIN = "0.1.35"
"""The AgentDojo release aau's extra pins and its tests run against."""
AGENTDOJO_SUITES = ("banking", "slack", "travel", "workspace")
"""The suite names ``aau bench agentdojo --suite`` accepts."""
DEFAULT_BENCHMARK_VERSION = "v1.2.2"
"""AgentDojo's newest benchmark version in 0.1.35 (tasks fixed since v1 are used in their
latest form)."""


def import_agentdojo() -> Any:
    """Import ``agentdojo`` (its suites registered) and return the package.

    Raises:
        MissingExtraError: not installed; the one-line message says
            ``pip install 'aau-labs[agentdojo]'``.
    """
    try:
        with warnings.catch_warnings():  # its import warns about optional LLM SDKs
            warnings.simplefilter("ignore")
            import agentdojo
            import agentdojo.task_suite.load_suites  # noqa: F401 - registers every version
    except ImportError:
        raise MissingExtraError("agentdojo", "agentdojo", "aau-labs") from None
    return agentdojo


def agentdojo_version() -> str:
    """The installed AgentDojo version (``importlib.metadata``), ``"unknown"`` if not found."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentdojo")
    except PackageNotFoundError:
        return "unknown"


def benchmark_versions() -> list[str]:
    """AgentDojo's benchmark versions that have suites (``"v1"`` ... ``"v1.2.2"``), sorted."""
    import_agentdojo()
    from agentdojo.task_suite import load_suites

    return sorted(v for v, suites in load_suites._SUITES.items() if suites)


@attrs.frozen
class AgentDojoTask:
    """One AgentDojo user task.

    Attributes:
        task_id: AgentDojo's id (``"user_task_3"``), the aau scenario id.
        prompt: the user's request, the agent's first message.
        difficulty: ``"easy"``, ``"medium"`` or ``"hard"`` (AgentDojo's label).
        task: AgentDojo's task object (``ground_truth``, ``utility``, ``init_environment``).
    """

    task_id: str
    prompt: str
    difficulty: str
    task: Any = attrs.field(eq=False, repr=False)

    @property
    def scenario_id(self) -> str:
        """The id ``run_eval`` groups repeats by: ``task_id``."""
        return self.task_id


def _literal(value: Any) -> Any:
    """``value`` as an acceptable value of ``_tool_calls`` that matches only itself: an object
    becomes a pattern (each key -> ``[its value]``), arrays element by element."""
    if isinstance(value, dict):
        return {k: [_literal(v)] for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_literal(v) for v in value]
    return value


def _task_number(task_id: str) -> int:
    tail = task_id.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 1 << 30


class AgentDojoSuite:
    """One AgentDojo suite at one benchmark version.

    Args:
        name: one of ``AGENTDOJO_SUITES``.
        benchmark_version: one of ``benchmark_versions()`` (default ``DEFAULT_BENCHMARK_VERSION``).

    Raises:
        MissingExtraError: AgentDojo is not installed.
        UsageError: unknown suite or benchmark version (the message lists the known ones).
    """

    def __init__(self, name: str, benchmark_version: str = DEFAULT_BENCHMARK_VERSION) -> None:
        import_agentdojo()
        from agentdojo.task_suite.load_suites import get_suite

        if name not in AGENTDOJO_SUITES:
            raise UsageError(f"unknown AgentDojo suite {name!r}; one of "
                             + ", ".join(AGENTDOJO_SUITES))
        known = benchmark_versions()
        if benchmark_version not in known:
            raise UsageError(f"unknown AgentDojo benchmark version {benchmark_version!r}; one of "
                             + ", ".join(known))
        self.name = name
        self.benchmark_version = benchmark_version
        self._suite = get_suite(benchmark_version, name)
        self._functions = {f.name: f for f in self._suite.tools}
        self._pristine: Any = None
        self._built_attacks: dict[str, Any] = {}  # attack name -> AgentDojo attack (_attacks)

    # ------------------------------------------------------------------ tasks and tools

    def tasks(self, ids: Sequence[str] | None = None) -> list[AgentDojoTask]:
        """The suite's user tasks, by task number, or those named in ``ids`` (in that order).

        Raises:
            UsageError: an id the suite does not have, or named twice.
        """
        every = self._suite.user_tasks
        if ids is None:
            chosen = sorted(every, key=_task_number)
        else:
            chosen = list(ids)
            for task_id in chosen:
                if task_id not in every:
                    shown = ", ".join(sorted(every, key=_task_number))
                    raise UsageError(f"--tasks: suite {self.name} ({self.benchmark_version}) has "
                                     f"no task {task_id!r}; it has {shown}")
            if len(set(chosen)) != len(chosen):
                raise UsageError("--tasks: a task is named twice")
        return [AgentDojoTask(task_id=t, prompt=every[t].PROMPT,
                              difficulty=every[t].DIFFICULTY.name.lower(), task=every[t])
                for t in chosen]

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Anthropic tool definitions of the suite's functions, in AgentDojo's order:
        ``{"name", "description", "input_schema"}``, the schema being the pydantic JSON Schema
        of the function's arguments (what AgentDojo gives OpenAI models)."""
        return [{"name": f.name, "description": f.description,
                 "input_schema": f.parameters.model_json_schema()}
                for f in self._suite.tools]

    def parameter_defaults(self, function: str) -> dict[str, Any]:
        """``{argument: default}`` of the optional arguments of ``function`` (a suite tool)."""
        fields = self._functions[function].parameters.model_fields
        return {name: info.get_default(call_default_factory=True)
                for name, info in fields.items() if not info.is_required()}

    # ------------------------------------------------------------------ environments

    def new_environment(self, task: AgentDojoTask) -> tuple[Any, Any]:
        """A fresh environment for one run of ``task``: ``(pre, env)``, ``env`` the copy the
        agent's calls mutate, ``pre`` an untouched deep copy for ``utility``. The suite's data
        are loaded once, without prompt injections (every injection slot holds its default)."""
        if self._pristine is None:
            self._pristine = self._suite.load_and_inject_default_environment({})
        env = task.task.init_environment(self._pristine.model_copy(deep=True))
        return env.model_copy(deep=True), env

    def ground_truth(self, task: AgentDojoTask) -> list[dict[str, Any]]:
        """``task``'s ground truth on a fresh environment: ``[{"name", "arguments"}]``."""
        pre, _ = self.new_environment(task)
        return [{"name": c.function, "arguments": dict(c.args)}
                for c in task.task.ground_truth(pre)]

    def expected_calls(self, calls: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Ground-truth calls as aau expected tool calls (``_tool_calls`` format).

        Each argument the ground truth gives must have that value; when the value is the
        function's default, leaving the argument out is accepted too. An optional argument the
        ground truth leaves out may be left out or given its default value. So a call matches
        when it has the ground truth's effect, whatever optional arguments it spells out.
        """
        out = []
        for call in calls:
            defaults = self.parameter_defaults(call["name"])
            arguments: dict[str, list[Any]] = {}
            for arg, value in call["arguments"].items():
                wanted = _literal(value)
                arguments[arg] = [wanted, ""] if arg in defaults and defaults[arg] == value \
                    else [wanted]
            for arg, default in defaults.items():
                if arg not in arguments:
                    arguments[arg] = ["", _literal(default)]
            out.append({"name": call["name"], "arguments": arguments})
        return out

    def utility(self, task: AgentDojoTask, model_output: str, pre: Any, post: Any,
                calls: Sequence[dict[str, Any]]) -> bool:
        """AgentDojo's verdict on one run, as its task suite reaches it: the task's
        ``utility_from_traces`` when it gives one, else ``utility(model_output, pre, post)``.

        Args:
            calls: every call the agent made, ``[{"name", "arguments"}]`` in order.
        """
        from agentdojo.functions_runtime import FunctionCall

        traces = [FunctionCall(function=c["name"], args=dict(c["arguments"]))
                  for c in calls if isinstance(c.get("arguments"), dict)]
        verdict = task.task.utility_from_traces(model_output, pre, post, traces)
        if verdict is None:
            verdict = task.task.utility(model_output, pre, post)
        return bool(verdict)

    def system_prompt(self) -> str:
        """AgentDojo's default system message (its ``data/system_messages.yaml``)."""
        from agentdojo.agent_pipeline.agent_pipeline import load_system_message

        return str(load_system_message(None))

    def session(self, env: Any) -> AgentDojoSession:
        """A tool session running calls against ``env``."""
        from agentdojo.functions_runtime import FunctionsRuntime

        return AgentDojoSession(FunctionsRuntime(self._suite.tools), env)


class AgentDojoSession:
    """Runs an agent's tool calls against one environment and records them.

    ``session(name, arguments) -> str`` is ``execute_tool`` for ``run_tool_agent``: AgentDojo's
    ``FunctionsRuntime.run_function`` validates the arguments with the function's pydantic model
    and runs it on the environment (a successful call may mutate it); the result is rendered as
    AgentDojo renders it for models (``tool_result_to_str``: YAML for structured results), an
    error as ``"Error: <ExceptionType>: <message>"`` (AgentDojo sends the error text instead of
    a result).

    Attributes:
        calls: every call in order, ``{"name", "arguments", "error"}`` (``error`` ``None`` when
            it ran).
    """

    def __init__(self, runtime: Any, env: Any) -> None:
        self._runtime = runtime
        self.env = env
        self.calls: list[dict[str, Any]] = []

    def __call__(self, name: str, arguments: Any) -> str:
        from agentdojo.agent_pipeline.tool_execution import tool_result_to_str

        if not isinstance(arguments, dict):
            error: str | None = f"TypeError: arguments must be an object, got {arguments!r}"
            result: Any = ""
        else:
            result, error = self._runtime.run_function(self.env, name, arguments)
        self.calls.append({"name": name,
                           "arguments": arguments if isinstance(arguments, dict) else {},
                           "error": error})
        if error is not None:
            return f"Error: {error}"
        try:
            return tool_result_to_str(result)
        except TypeError:
            return str(result)


__all__ = [
    "AGENTDOJO_PIN", "AGENTDOJO_SUITES", "DEFAULT_BENCHMARK_VERSION", "AgentDojoSession",
    "AgentDojoSuite", "AgentDojoTask", "agentdojo_version", "benchmark_versions",
    "import_agentdojo",
]
