"""``aau bench agentdojo``: aau's agent loop on AgentDojo's executable tool environments.

For each chosen user task of one AgentDojo suite (``_agentdojo_suite``) and each repeat, one run:

1. a fresh copy of the suite's environment (``pre`` kept untouched for the checks);
2. ``run_tool_agent(backend, AgentDojo's system message, the suite's tool schemas, the task's
   prompt, a tool session on the environment, ...)``. AgentDojo agents end by answering in
   text, not by calling a submit tool, so the loop is given no submit tool: a run ends when the
   model answers without a tool call (its text is the *model output*), refuses, or runs out of
   turns (``max_turns``; the last reply's text is then the model output);
3. two metrics, each 0 or 1:

   - ``utility``: AgentDojo's own verdict (``utility_from_traces`` if the task has one, else
     ``utility(model_output, pre, post)``): did the environment end in the right state and
     does the answer say what it must. The headline.
   - ``tool_call_match``: aau's matcher (``_tool_calls.match_tool_calls``, mode ``superset``)
     of the calls made against the task's ground truth: every ground-truth call must be made,
     with its arguments (``AgentDojoSuite.expected_calls``: strings compared BFCL-style, optional
     arguments left out or at their default), in any order; extra calls (more reading,
     retries) are allowed. Stricter than ``utility`` where the ground truth's argument values
     are one of several good ones (a free-text subject, a search query), looser where a wrong
     extra write would undo the effect.

``run_eval`` repeats, aggregates (means, 95 % Wilson score intervals over tasks since both
metrics are 0/1, a run that raised counting as a failure of both, pass^k), records cost and
provenance. ``write_bench_result`` writes the aggregate as
an ``eval-aggregate-v2`` document (validated) and a Markdown report.

Result file names: ``agentdojo-<suite>_<tag>.json`` and ``.md`` in the output folder, ``tag``
``ground-truth`` for the replay, else the model with ``/`` replaced by ``_``.

Each result's ``detail``: ``suite``, ``benchmark_version``, ``agentdojo_version``,
``difficulty``, ``tool_calls`` (every call made: ``name``, ``arguments``, ``error`` — AgentDojo's
error text or ``None``), ``expected_tool_calls`` (the ground truth, concrete), ``tool_call_match``
(``ToolCallMatch.to_dict()``), ``model_output``, ``ended`` (``"answer"``, ``"refusal"``,
``"turn_limit"``, ``"output_limit"`` when the last reply was cut by the token limit
(``OUTPUT_LIMIT_ERROR``), or ``"malformed_tool_call"`` when the provider rejected the model's tool call,
``stop_reason == "tool_use_failed"``: the run ends there, its output the provider's text),
``n_turns``, ``agent_error`` (``no_answer_error``: ``"no final answer within N turns"`` at the
turn limit, else ``None``) and
``usage`` (``CostTracker.as_dict()``).

Under an attack (``--attack NAME``; ``attack_pairs``), the scenarios are (user task × injection
task) pairs (``AttackPair``, scenario id ``<user task>-<injection task>``): each run's
environment is loaded with the attack's texts in their injection vectors
(``_attacks.injected_environment``), and a third metric, ``attack_success``, is the injection
task's ``security`` on the run (1: the attacker's goal was reached; lower is better, so a run
that raised counts as 1). ``utility`` there is *utility under attack*. Such a run's ``detail``
adds ``attack``, ``injection_task`` and ``injected_vectors`` (the vector names, not the text).
The result files are ``agentdojo-<suite>_<tag>_<attack>.json`` / ``.md``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
from aau_core import EvalAggregate, ScenarioResult, run_eval, run_tool_agent
from aau_core._agents._loop import (  # internal to the monorepo
    NO_SUBMISSION_ERROR,
    OUTPUT_LIMIT_ERROR,
)

from ._suite import AgentDojoSuite, AgentDojoTask, agentdojo_version

GROUND_TRUTH_KIND = "ground-truth"
"""``backend_kind`` of the ground-truth replay (``--mock-ground-truth``)."""
TOOL_CALL_MODE = "superset"
"""How the calls made are matched against the ground truth (``_tool_calls`` modes)."""
DEFAULT_MAX_TURNS = 20
"""Most model calls per run (AgentDojo's own loop stops after 15 tool rounds)."""
HEADLINE_METRIC = "utility"
ATTACK_METRIC = "attack_success"
"""Under attack: 1 when the injection task's security check says its goal was reached."""
_NO_SUBMIT = "\x00no-submit-tool"  # AgentDojo agents answer in text; no tool has this name


class _TextRecorder:
    """Wraps a backend and keeps the text and stop reason of its latest reply (the run's
    model output and how it ended)."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self.text = ""
        self.stop_reason: str | None = None

    def create(self, system: str, messages: list[dict[str, Any]],
               tools: list[dict[str, Any]]) -> Any:
        response = self._backend.create(system, messages, tools)
        blocks = getattr(response, "content", None) or []
        self.stop_reason = getattr(response, "stop_reason", None)
        self.text = "\n".join(str(getattr(b, "text", "")) for b in blocks
                              if getattr(b, "type", None) == "text")
        return response


@attrs.frozen
class AttackPair:
    """One scenario of a bench under attack: a user task, an injection task, the texts.

    Attributes:
        task: the user task.
        injection_task: the injection task id.
        injections: injection vector -> the attack's text there.
        attack: the attack's name.
    """

    task: AgentDojoTask
    injection_task: str
    injections: dict[str, str] = attrs.field(eq=False, repr=False)
    attack: str

    @property
    def scenario_id(self) -> str:
        """``<user task>-<injection task>`` (the id ``aau import agentdojo --attack`` writes)."""
        return f"{self.task.task_id}-{self.injection_task}"

    @property
    def prompt(self) -> str:
        """The user task's prompt."""
        return self.task.prompt


def attack_pairs(suite: AgentDojoSuite, tasks: Sequence[AgentDojoTask], attack: str,
                 injection_tasks: Sequence[str] | None = None) -> list[AttackPair]:
    """Every (user task × injection task) pair under ``attack``, by user task then injection
    task, with the texts AgentDojo's attack writes (``_attacks.attack_injections``).

    Args:
        injection_tasks: only these injection task ids, in this order (default: all of the
            suite's version).

    Raises:
        UsageError: an attack aau does not run, an unknown injection task (naming the
            benchmark versions that have it), or one named twice.
    """
    from aau_core import UsageError

    from . import _attacks

    _attacks.check_attack_name(attack)
    ids = list(injection_tasks) if injection_tasks is not None else \
        _attacks.injection_task_ids(suite)
    if len(set(ids)) != len(ids):
        raise UsageError("--injection-tasks: an injection task is named twice")
    for goal in ids:
        _attacks.injection_task(suite, goal)
    return [AttackPair(task=task, injection_task=goal, attack=attack,
                       injections=_attacks.attack_injections(suite, attack, task, goal))
            for task in tasks for goal in ids]


def no_answer_error(max_turns: int) -> str:
    """``detail.agent_error`` of a run that hit the turn limit. AgentDojo agents end with a text
    answer, not a submit tool (none is offered), so it names the final answer."""
    return f"no final answer within {max_turns} turn{'' if max_turns == 1 else 's'}"


def run_agentdojo_bench(
    suite: AgentDojoSuite,
    tasks: Sequence[AgentDojoTask] | Sequence[AttackPair],
    *,
    backend_kind: str,
    model: str | None = None,
    base_url: str | None = None,
    mock_factory: Callable[[], Any] | None = None,
    repeats: int = 1,
    max_turns: int = DEFAULT_MAX_TURNS,
    progress: Callable[[str], None] | None = None,
    text_tool_calls: str = "auto",
) -> EvalAggregate:
    """Run the agent on every task ``repeats`` times and score each run (module docstring).

    Args:
        suite: the AgentDojo suite.
        tasks: its tasks to run (``suite.tasks(...)``), at least one; or ``attack_pairs(...)``
            (a bench under attack: the metric ``attack_success`` too, module docstring).
        backend_kind: ``GROUND_TRUTH_KIND`` (the replay, ``GroundTruthReplay``) or a
            ``make_backend`` kind (``local``, ``openai``, ``anthropic``, ...).
        model: the model id for ``make_backend`` (``None`` with the replay).
        base_url: the API root for ``make_backend`` (``local`` servers).
        mock_factory: for ``backend_kind="mock"``, builds a scripted backend (tests).
        repeats: runs per task (>= 1).
        max_turns: most model calls per run (>= 1), the replay's as a real backend's (it
            needs one more than its task's ground-truth calls: 19 at most in v1.2.2, so the
            default suffices; fewer ends the run at the limit, as a model would).
        progress: called after each run with one line (``run_eval``).
        text_tool_calls: ``make_backend``'s option for OpenAI-compatible kinds: ``"auto"`` reads
            tool calls a model writes as text (llama.cpp's server), ``"off"`` does not.

    Returns:
        the ``EvalAggregate`` (metrics ``utility`` and ``tool_call_match``, and
        ``attack_success`` under attack; USD, seconds).

    Raises:
        ValueError: no tasks, ``repeats < 1`` or ``max_turns < 1``.
        whatever ``make_backend`` raises (unknown kind, missing key or extra, no model), and
        ``UnknownModelPricingError`` for an unpriced hosted model; all before any run.
    """
    from aau_core import CostTracker, ToolCallFormatError, make_backend, match_tool_calls

    from .._frame._lab_run import tool_input_flags
    from ._replay import GroundTruthReplay

    if not tasks:
        raise ValueError("no tasks to run")
    if max_turns < 1:
        raise ValueError(f"max_turns must be >= 1, got {max_turns!r}")
    from . import _attacks

    # the ground truth per scenario: under an attack, on its injected state (as AgentDojo's
    # GroundTruthPipeline; an argument may come from injected data, slack's External_<text>)
    truths = {s.scenario_id: _attacks.user_ground_truth(suite, s.task, s.injections)
              if isinstance(s, AttackPair) else suite.ground_truth(s) for s in tasks}
    expected = {sid: suite.expected_calls(calls) for sid, calls in truths.items()}
    replay = backend_kind == GROUND_TRUTH_KIND
    replays: dict[str, Any] = {}
    if replay:  # one replay per scenario: pairs of one task share its prompt
        for s in tasks:
            script = {s.prompt: (truths[s.scenario_id],
                                 str((s.task if isinstance(s, AttackPair) else s)
                                     .task.GROUND_TRUTH_OUTPUT))}
            replays[s.scenario_id] = make_backend(
                "mock", mock_factory=lambda script=script: GroundTruthReplay(script))
        backend = next(iter(replays.values()))
    else:
        backend = make_backend(backend_kind, model, mock_factory=mock_factory,
                               base_url=base_url, text_tool_calls=text_tool_calls)
    from aau_core._agents._cost import cost_model_for  # internal to the monorepo

    cost_model = cost_model_for(backend, backend_kind)  # a local model: declared $0
    system_prompt = suite.system_prompt()
    tool_schemas = suite.tool_schemas()
    facts = {"suite": suite.name, "benchmark_version": suite.benchmark_version,
             "agentdojo_version": agentdojo_version()}

    def run_one(scenario: AgentDojoTask | AttackPair, repeat: int) -> ScenarioResult:
        cost = CostTracker(model=cost_model)
        pair = scenario if isinstance(scenario, AttackPair) else None
        task = pair.task if pair is not None else scenario
        if pair is None:
            pre, env = suite.new_environment(task)
        else:
            pre, env = _attacks.injected_environment(suite, task, pair.injections)
        session = suite.session(env)
        recorder = _TextRecorder(replays.get(scenario.scenario_id, backend))
        started = time.monotonic()
        run = run_tool_agent(recorder, system_prompt, tool_schemas, task.prompt, session,
                             _NO_SUBMIT, cost, max_turns=max_turns)
        latency = time.monotonic() - started
        ended = ("refusal" if run.refused else
                 "output_limit" if run.error == OUTPUT_LIMIT_ERROR else
                 "turn_limit" if run.error != NO_SUBMISSION_ERROR else
                 "malformed_tool_call" if recorder.stop_reason == "tool_use_failed" else
                 "answer")
        output = recorder.text
        made = [{"name": c["name"], "arguments": c["arguments"]} for c in session.calls]
        utility = suite.utility(task, output, pre, session.env, made)
        # the calls made, as for utility (AgentDojo's traces are every call the model made)
        attacked = {} if pair is None else {ATTACK_METRIC: 1.0 if _attacks.security(
            _attacks.injection_task(suite, pair.injection_task), output, pre, session.env,
            made) else 0.0}
        try:
            match = match_tool_calls(expected[scenario.scenario_id], made, mode=TOOL_CALL_MODE)
            matched, verdict = match.matched, match.to_dict()
        except ToolCallFormatError as exc:  # a call aau's matcher cannot read is a miss
            matched, verdict = False, {"matched": False, "mode": TOOL_CALL_MODE,
                                       "reasons": [str(exc)]}
        return ScenarioResult(
            scenario_id=scenario.scenario_id,
            repeat=repeat,
            metrics={"utility": 1.0 if utility else 0.0,
                     "tool_call_match": 1.0 if matched else 0.0, **attacked},
            cost_usd=cost.cost_usd,
            latency_s=latency,
            n_api_calls=cost.api_calls,
            detail={
                **facts,
                "difficulty": task.difficulty,
                "tool_calls": list(session.calls),
                "tool_input_flags": tool_input_flags(run),
                "expected_tool_calls": truths[scenario.scenario_id],
                "tool_call_match": verdict,
                "model_output": output,
                "ended": ended,
                "n_turns": run.n_turns,
                "agent_error": None if ended != "turn_limit" else no_answer_error(max_turns),
                "usage": cost.as_dict(),
                **({} if pair is None else {
                    "attack": pair.attack, "injection_task": pair.injection_task,
                    "injected_vectors": sorted(pair.injections)}),
            },
        )

    under_attack = any(isinstance(s, AttackPair) for s in tasks)
    return run_eval(list(tasks), run_one, repeats=repeats, progress=progress,
                    lower_is_better=(ATTACK_METRIC,) if under_attack else ())


def wilson_ci95(agg: EvalAggregate, metric: str = HEADLINE_METRIC) -> tuple[float, float]:
    """The 95 % Wilson score interval of a 0/1 ``metric`` over the tasks, the interval
    ``aau evaluate`` puts in its receipts: ``run_eval``'s own ``metric_ci95[metric]`` (its
    default rule set gives every 0/1 metric a Wilson interval over scenarios, kept in the
    result file). For an aggregate made by another rule set (``aau-compat``), the Wilson
    interval of its per-task means summed as successes.

    Raises:
        KeyError: ``metric`` is not in the aggregate.
    """
    if agg.interval_method(metric) == "wilson":
        return agg.metric_ci95[metric]
    from aau_core import wilson_interval

    n = agg.metric_counts.get(metric) or agg.n_scenarios
    return wilson_interval(agg.metric_means[metric] * n, n)


# ---------------------------------------------------------------------- result files

def result_stem(suite_name: str, backend_kind: str, model: str | None,
                attack: str | None = None) -> str:
    """``agentdojo-<suite>_<tag>``: ``tag`` is ``ground-truth`` for the replay, else the
    model (or the kind when no model is named) with ``/`` replaced by ``_``; under an attack,
    ``agentdojo-<suite>_<tag>_<attack>``."""
    from .._frame._lab_spec import result_tag

    tag = GROUND_TRUTH_KIND if backend_kind == GROUND_TRUTH_KIND else \
        result_tag(backend_kind, model)
    return f"agentdojo-{suite_name}_{tag}" + ("" if attack is None else f"_{attack}")


def result_paths(out_dir: str | os.PathLike[str], suite_name: str, backend_kind: str,
                 model: str | None, attack: str | None = None) -> tuple[Path, Path]:
    """``(json_path, md_path)`` of a bench result in ``out_dir`` (``result_stem``; a dot in the
    model id is kept, ``result_file_paths``)."""
    from .._frame._bench_run import result_file_paths

    return result_file_paths(out_dir, result_stem(suite_name, backend_kind, model, attack))


def bench_result_document(suite: AgentDojoSuite, agg: EvalAggregate, backend_kind: str,
                          model: str, attack: str | None = None) -> dict[str, Any]:
    """The ``eval-aggregate-v2`` document of a bench run: ``{"backend", "model", "variant",
    **agg.as_dict()}``, ``variant`` naming what ran (``"agentdojo 0.1.35 v1.2.2 banking"``;
    under an attack ``"... banking attack important_instructions"``)."""
    variant = f"agentdojo {agentdojo_version()} {suite.benchmark_version} {suite.name}"
    if attack is not None:
        variant += f" attack {attack}"
    return {"backend": backend_kind, "model": model, "variant": variant, **agg.as_dict()}


def render_bench_report(suite: AgentDojoSuite, agg: EvalAggregate, model: str,
                        attack: str | None = None) -> str:
    """The Markdown report: ``render_report``'s summary table (Wilson intervals, named), then
    one row per task (mean ``utility`` and ``tool_call_match`` over its repeats, under an
    attack ``attack_success`` too, runs that raised counted in the Errors column) and a note on
    what is measured."""
    from aau_core import markdown_table, render_report

    title = (f"AgentDojo {suite.name} ({suite.benchmark_version}, "
             f"agentdojo {agentdojo_version()})")
    if attack is not None:
        title += f" under the {attack} attack"
    head = render_report(agg, model=model, title=title)
    per_task: dict[str, list[Any]] = {}
    for r in agg.results:
        row = per_task.setdefault(r.scenario_id,
                                  [r.detail.get("difficulty", ""), [], [], [], 0])
        if r.error:
            row[4] += 1
            continue
        row[1].append(r.metrics["utility"])
        row[2].append(r.metrics["tool_call_match"])
        row[3].append(r.metrics.get(ATTACK_METRIC, 0.0))

    def mean(values: list[float]) -> str:
        return f"{sum(values) / len(values):.2f}" if values else "—"

    heads = ["Task", "Difficulty", "utility", "tool_call_match"] + (
        [] if attack is None else [ATTACK_METRIC]) + ["Errors"]
    rows = [[task, info[0], mean(info[1]), mean(info[2])]
            + ([] if attack is None else [mean(info[3])]) + [info[4]]
            for task, info in per_task.items()]
    table = markdown_table(heads, rows)
    from aau_core._reports._aggregate_markdown import interval_text  # internal to the monorepo

    shown = interval_text(*wilson_ci95(agg), "wilson")
    note = (f"`utility` 95 % interval over tasks: {shown} (the Wilson score interval, as in "
            "`aau evaluate` receipts; a run that raised counts as a failure). "
            "`utility` is AgentDojo's own check of the environment and the answer; "
            "`tool_call_match` is aau's match of the calls made against the task's ground "
            "truth (every ground-truth call made, extra calls allowed). " + (
                "No prompt injections: this measures utility only (docs/agentdojo.md)."
                if attack is None else
                f"Under the {attack} attack: `utility` is utility under attack; "
                f"`{ATTACK_METRIC}` is the injection task's security check (1: the attacker's "
                f"goal was reached; lower is better; its 95 % Wilson interval: "
                f"{interval_text(*wilson_ci95(agg, ATTACK_METRIC), 'wilson')}; a run that "
                "raised counts as a success of the attack). docs/agentdojo.md"))
    return f"{head.rstrip()}\n\n### Tasks\n\n{table.rstrip()}\n\n{note}\n"


def write_bench_result(out_dir: str | os.PathLike[str], suite: AgentDojoSuite,
                       agg: EvalAggregate, backend_kind: str, model: str | None, *,
                       force: bool = False, attack: str | None = None) -> tuple[Path, Path]:
    """Validate and write ``agentdojo-<suite>_<tag>.json`` (``eval-aggregate-v2``) and ``.md``,
    both or neither (``write_outputs``).

    Args:
        out_dir: the folder (created if missing, under the rules of ``check_writable``).
        suite, agg: what ran and its aggregate.
        backend_kind: ``GROUND_TRUTH_KIND`` or a ``make_backend`` kind.
        model: the model named (``None``: the replay, or the provider's default).
        force: replace existing files.
        attack: the attack's name when ``agg`` ran under one (``_<attack>`` file names).

    Returns:
        ``(json_path, md_path)``.

    Raises:
        OutputError: a file exists (without ``force``) or cannot be written.
        InputError: the document breaks the ``eval-aggregate-v2`` schema (a bug; nothing is
            written).
    """
    from .._frame._bench_run import write_result_files

    json_path, md_path = result_paths(out_dir, suite.name, backend_kind, model, attack)
    shown = model or backend_kind
    return write_result_files(
        json_path, md_path, kind="eval-aggregate-v2",
        document=lambda: bench_result_document(suite, agg, backend_kind, shown, attack),
        report=lambda: render_bench_report(suite, agg, shown, attack), force=force)


__all__ = [
    "ATTACK_METRIC", "AttackPair", "attack_pairs", "DEFAULT_MAX_TURNS", "GROUND_TRUTH_KIND", "HEADLINE_METRIC", "TOOL_CALL_MODE",
    "bench_result_document", "no_answer_error", "render_bench_report", "result_paths",
    "result_stem", "run_agentdojo_bench", "wilson_ci95", "write_bench_result",
]
