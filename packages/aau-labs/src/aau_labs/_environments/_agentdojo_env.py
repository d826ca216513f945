"""AgentDojo's suites as observed environments: ``agentdojo-<suite>`` for the four suites.

Built on ``aau_labs._agentdojo._suite.AgentDojoSuite`` (AgentDojo's own API: its pydantic
environments, ``FunctionsRuntime.run_function``, the tasks' ``utility``):

- ``check_case(task, options)``: ``options`` may hold ``benchmark_version`` (default
  ``v1.2.2``) and nothing else; an unknown version is refused at ``$.options.benchmark_version``,
  an unknown key at ``$.options.<key>``, a task the suite does not have at ``$.task``.
- ``open``: a session on a fresh copy of the suite's environment initialised for the task
  (no prompt injections), plus an untouched copy as ``pre`` for the utility.
- ``tools()``: ``AgentDojoSuite.tool_schemas()`` as ``ToolSpec``.
- ``call``: ``run_function``; an AgentDojo error (validation or the function raising) is
  ``ToolOutcome(ok=False, text="Error: ...")``; a result is rendered as AgentDojo renders it for
  models (``tool_result_to_str``).
- ``final_state()``: the environment's pydantic model, ``model_dump(mode="json")``.
- ``score``: AgentDojo's utility (``AgentDojoSuite.utility``) with the final answer as the model
  output and, as traces, the observed calls that ran (``ok``), in order.

Prompt injections (``aau_core.Attack``, a suite v3 case's ``attack``; ``_agentdojo._attacks``):

- ``check_attack``: the injection task must exist at the case's benchmark version (else the
  message names the versions that have it, at ``$.injection_task``) and every injected vector
  must be one of the suite's (``$.injections.<vector>``);
- ``open_under_attack``: the session's environment is loaded with the attack's texts in their
  vectors (the others at their default), so the tools serve the injected text; its ``score``
  adds ``attack_succeeded``, the injection task's ``security`` on the final state, the answer
  and the ok calls;
- ``reference_solution_under_attack``: the user task's ground truth on the injected environment
  (an argument may come from injected data, as slack's channel ``External_<injection>``), for
  ``--mock`` and the replay agent;
- ``attack_solution``: the injection task's ground truth on the injected environment (what an
  agent that obeys the injection calls), for calibration agents.

Without AgentDojo installed, building the environment raises ``MissingExtraError`` (one line:
``pip install 'aau-labs[agentdojo]'``).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from aau_core import (
    Attack,
    EnvironmentCaseError,
    EnvironmentVerdict,
    ObservedCall,
    ToolOutcome,
    ToolSpec,
)

from .._agentdojo import _attacks
from .._agentdojo._suite import (
    DEFAULT_BENCHMARK_VERSION,
    AgentDojoSuite,
    AgentDojoTask,
    agentdojo_version,
    benchmark_versions,
    import_agentdojo,
)

OPTION_KEYS = ("benchmark_version",)
"""The option keys an ``agentdojo-*`` case may give."""


class AgentDojoEnvironment:
    """One AgentDojo suite as an ``aau_core.Environment`` (module docstring).

    Args:
        suite: ``"banking"``, ``"slack"``, ``"travel"`` or ``"workspace"``.

    Attributes:
        name: ``"agentdojo-<suite>"``.
        version: ``"agentdojo <installed version>"``; the benchmark version is per case.

    Raises:
        MissingExtraError: AgentDojo is not installed.
    """

    def __init__(self, suite: str) -> None:
        import_agentdojo()
        self.suite = suite
        self.name = f"agentdojo-{suite}"
        self.version = f"agentdojo {agentdojo_version()}"
        self._lock = threading.Lock()
        self._suites: dict[str, AgentDojoSuite] = {}

    def _suite_of(self, options: Mapping[str, Any]) -> AgentDojoSuite:
        version = options.get("benchmark_version", DEFAULT_BENCHMARK_VERSION)
        with self._lock:
            suite = self._suites.get(version)
            if suite is None:
                suite = AgentDojoSuite(self.suite, version)
                suite.new_environment(suite.tasks()[0])  # load the data once, under the lock
                self._suites[version] = suite
            return suite

    def check_case(self, task: str, options: Mapping[str, Any]) -> None:
        """Refuse an unknown option, benchmark version or task.

        Raises:
            EnvironmentCaseError: at ``$.options.<key>``, ``$.options.benchmark_version`` or
                ``$.task``.
        """
        for key in options:
            if key not in OPTION_KEYS:
                raise EnvironmentCaseError(f"{self.name} has no option {key!r} (it takes "
                                           "benchmark_version only)", f"$.options.{key}")
        version = options.get("benchmark_version", DEFAULT_BENCHMARK_VERSION)
        known = benchmark_versions()
        if not isinstance(version, str) or version not in known:
            raise EnvironmentCaseError(f"unknown AgentDojo benchmark version {version!r}; one "
                                       "of " + ", ".join(known), "$.options.benchmark_version")
        suite = self._suite_of(options)
        if task not in suite._suite.user_tasks:
            raise EnvironmentCaseError(f"AgentDojo {self.suite} ({version}) has no task "
                                       f"{task!r}", "$.task")

    def open(self, task: str, options: Mapping[str, Any]) -> AgentDojoEnvironmentSession:
        """A session on a fresh environment for ``task`` (checked by ``check_case``).

        Raises:
            UsageError: an unknown task or version (a case that skipped ``check_case``).
        """
        suite = self._suite_of(options)
        with self._lock:
            chosen = suite.tasks([task])[0]
            pre, env = suite.new_environment(chosen)
        return AgentDojoEnvironmentSession(suite, chosen, pre, env)

    def check_attack(self, task: str, options: Mapping[str, Any], attack: Attack) -> None:
        """Refuse an injection task or vector this suite's version does not have (module
        docstring); ``check_case`` has accepted ``task`` and ``options``.

        Raises:
            EnvironmentCaseError: at ``$.injection_task`` or ``$.injections.<vector>``.
        """
        suite = self._suite_of(options)
        if attack.injection_task is not None:
            known = _attacks.injection_task_ids(suite)
            if attack.injection_task not in known:
                raise EnvironmentCaseError(_attacks.no_injection_task_message(
                    self.suite, suite.benchmark_version, attack.injection_task, known),
                    "$.injection_task")
        vectors = _attacks.injection_vectors(suite)
        for vector in attack.injections:
            if vector not in vectors:
                raise EnvironmentCaseError(
                    f"AgentDojo {self.suite} has no injection vector {vector!r}; it has "
                    + ", ".join(sorted(vectors)), f"$.injections.{vector}")

    def open_under_attack(self, task: str, options: Mapping[str, Any],
                          attack: Attack) -> AgentDojoEnvironmentSession:
        """A session whose environment holds ``attack``'s injections; its verdict carries
        ``attack_succeeded`` when the attack names an injection task (module docstring).

        Raises:
            UsageError: an unknown task, version or injection task (a case that skipped the
                checks).
        """
        suite = self._suite_of(options)
        with self._lock:
            chosen = suite.tasks([task])[0]
            pre, env = _attacks.injected_environment(suite, chosen, attack.injections)
            goal = (_attacks.injection_task(suite, attack.injection_task)
                    if attack.injection_task is not None else None)
        return AgentDojoEnvironmentSession(suite, chosen, pre, env, injection_task=goal)

    def reference_solution_under_attack(self, task: str, options: Mapping[str, Any],
                                        attack: Attack) -> dict[str, Any]:
        """``reference_solution`` on the environment ``attack`` injected (module docstring)."""
        suite = self._suite_of(options)
        with self._lock:
            chosen = suite.tasks([task])[0]
            calls = _attacks.user_ground_truth(suite, chosen, attack.injections)
        answer = str(chosen.task.GROUND_TRUTH_OUTPUT or "")
        return {"calls": calls, "answer": answer or None}

    def attack_solution(self, task: str, options: Mapping[str, Any],
                        attack: Attack) -> dict[str, Any] | None:
        """The injection task's ground truth on the injected environment, ``{"calls",
        "answer": None}`` (``reference_solution``'s shape), or ``None`` without an injection
        task. Only calibration agents use it (an agent that obeys the injection)."""
        if attack.injection_task is None:
            return None
        suite = self._suite_of(options)
        with self._lock:
            chosen = suite.tasks([task])[0]
            calls = _attacks.injection_ground_truth(suite, chosen, attack.injection_task,
                                                    attack.injections)
        return {"calls": calls, "answer": None}

    def reference_solution(self, task: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """AgentDojo's ground truth for ``task`` (the contract's optional reference solution):
        ``{"calls": task.ground_truth(pre_environment) as [{"name", "arguments"}], "answer":
        GROUND_TRUTH_OUTPUT or None}``. ``aau evaluate --mock`` replays it; no agent sees it.

        Raises:
            UsageError: an unknown task or version (a case that skipped ``check_case``).
        """
        suite = self._suite_of(options)
        with self._lock:
            chosen = suite.tasks([task])[0]
            calls = suite.ground_truth(chosen)
        answer = str(chosen.task.GROUND_TRUTH_OUTPUT or "")
        return {"calls": calls, "answer": answer or None}


class AgentDojoEnvironmentSession:
    """One unit's AgentDojo environment (an ``aau_core.EnvironmentSession``).

    Args:
        suite: the suite at the case's benchmark version.
        task: the user task.
        pre: the untouched initial environment (for the utility).
        env: the environment the calls mutate.
        injection_task: AgentDojo's injection task whose ``security`` the verdict reports as
            ``attack_succeeded`` (``None``: no attack, or one without an injection task).
    """

    def __init__(self, suite: AgentDojoSuite, task: AgentDojoTask, pre: Any, env: Any, *,
                 injection_task: Any = None) -> None:
        self._injection_task = injection_task
        self._suite = suite
        self._task = task
        self._pre = pre
        self._env = env
        self._runtime = suite.session(env)._runtime
        self._tools = [ToolSpec(name=t["name"], description=t["description"] or t["name"],
                                input_schema=t["input_schema"]) for t in suite.tool_schemas()]

    def tools(self) -> Sequence[ToolSpec]:
        """The suite's tools, in AgentDojo's order."""
        return list(self._tools)

    def call(self, name: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        """Run one call on this session's environment; AgentDojo errors are ``ok=False``."""
        from agentdojo.agent_pipeline.tool_execution import tool_result_to_str

        try:
            result, error = self._runtime.run_function(self._env, name, dict(arguments))
        except Exception as exc:  # noqa: BLE001 - an agent's call never raises out of here
            result, error = None, f"{type(exc).__name__}: {exc}"
        if error is not None:
            return ToolOutcome(ok=False, text=f"Error: {error}")
        try:
            text = tool_result_to_str(result)
        except TypeError:
            text = str(result)
        return ToolOutcome(ok=True, text=text)

    def final_state(self) -> Any:
        """The environment's pydantic model as JSON (``model_dump(mode="json")``)."""
        return self._env.model_dump(mode="json")

    def score(self, calls: Sequence[ObservedCall], final_answer: str | None) -> EnvironmentVerdict:
        """AgentDojo's utility, from the final state, the observed ok calls and the answer;
        under an attack with an injection task, also its ``security`` (``attack_succeeded``)."""
        traces = [{"name": c.name, "arguments": dict(c.arguments)}
                  for c in calls if c.ok and c.arguments is not None]
        try:
            passed = self._suite.utility(self._task, final_answer or "", self._pre, self._env,
                                         traces)
        except Exception as exc:  # noqa: BLE001 - a utility that crashes is a failed task
            return EnvironmentVerdict(
                passed=False, reason=f"AgentDojo's utility raised {type(exc).__name__}: {exc}",
                detail={"task": self._task.task_id, "error": str(exc)})
        where = (f"AgentDojo {self._suite.name} {self._task.task_id} "
                 f"({self._suite.benchmark_version})")
        reason = (f"{where}: utility passed" if passed else
                  f"{where}: utility failed (the final state or answer is not what the task "
                  "asks)")
        detail = {"suite": self._suite.name, "benchmark_version": self._suite.benchmark_version,
                  "task": self._task.task_id, "utility": passed, "ok_calls": len(traces)}
        if self._injection_task is None:
            return EnvironmentVerdict(passed=passed, reason=reason, detail=detail)
        try:
            hit = _attacks.security(self._injection_task, final_answer or "", self._pre,
                                    self._env, traces)
        except Exception as exc:  # noqa: BLE001 - a check that crashes is not a success
            hit, detail["security_error"] = False, f"{type(exc).__name__}: {exc}"
        task_id = self._injection_task.ID
        detail.update(injection_task=task_id, security=hit)
        reason += (f"; injection task {task_id} " + ("succeeded" if hit else "did not succeed"))
        return EnvironmentVerdict(passed=passed, reason=reason, detail=detail,
                                  attack_succeeded=hit)


def _factory(suite: str) -> Any:
    def build() -> AgentDojoEnvironment:
        return AgentDojoEnvironment(suite)
    build.__doc__ = f"The ``agentdojo-{suite}`` environment (entry point)."
    return build


banking = _factory("banking")
slack = _factory("slack")
travel = _factory("travel")
workspace = _factory("workspace")

__all__ = ["AgentDojoEnvironment", "AgentDojoEnvironmentSession", "OPTION_KEYS"]
