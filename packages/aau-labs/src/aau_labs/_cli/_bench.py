"""``aau bench``: public agent benchmarks run through aau's own agent loop and runner.

``aau bench agentdojo`` runs AgentDojo's user tasks (``aau_labs._agentdojo``) with a real backend
or the ground-truth replay and writes ``agentdojo-<suite>_<tag>.json`` (an ``eval-aggregate-v2``
document) and ``.md``. Every problem with flags or outputs is one line and exit 2 (so is a
missing ``aau-labs[agentdojo]`` extra); nothing is half-written; nothing is replaced without
``--force``. A bench measures; it has no bar: exit 0 when written. With ``--attack NAME`` it
runs twice, without attack (utility) and under the attack (utility under attack, attack success
rate), and writes both results (``agentdojo-<suite>_<tag>.json`` and
``agentdojo-<suite>_<tag>_<attack>.json``, each with its ``.md``), all four files checked
writable before the first run.
"""

from __future__ import annotations

import sys
from typing import Any

import click
from aau_core import (
    UsageError,
    force_option,
    json_on_not_measured,
    json_option,
    out_option,
    print_json,
    store_options,
)

from ._pricing import apply_pricing, cost_text, pricing_options

_CTX = {"help_option_names": ["-h", "--help"]}
_SUITES = ("banking", "slack", "travel", "workspace")  # == AGENTDOJO_SUITES (kept import-free)


@click.group("bench", context_settings=_CTX)
def bench_group() -> None:
    """Public agent benchmarks run through aau's agent loop, scored, with intervals.

    \b
    Benchmarks:
      agentdojo   AgentDojo's executable tool environments (pip install 'aau-labs[agentdojo]';
                  docs/agentdojo.md)

    \b
    Examples:
      aau bench agentdojo --suite banking --mock-ground-truth --out results/agentdojo
      aau bench agentdojo --suite slack --backend local --model qwen2.5-coder-1.5b \\
          --base-url http://127.0.0.1:8080/v1 --repeats 3 --out results/agentdojo
    """


def _parse_tasks(value: str | None, flag: str = "--tasks") -> list[str] | None:
    if value is None:
        return None
    ids = [part.strip() for part in value.split(",")]
    if not ids or any(not part for part in ids):
        example = "injection_task_0,injection_task_3" if "injection" in flag else \
            "user_task_0,user_task_3"
        raise UsageError(f"{flag} {value!r}: expected task ids separated by commas ({example})")
    return ids


@bench_group.command("agentdojo")
@click.option("--suite", required=True, type=click.Choice(_SUITES), help="The AgentDojo suite.")
@click.option("--backend", "backend_kind", default=None,
              help="A backend kind (local, openai, anthropic, mistral, ...).")
@click.option("--model", default=None, help="The model id for --backend.")
@pricing_options
@click.option("--base-url", default=None,
              help="The API root for --backend (e.g. a local llama.cpp server's /v1).")
@click.option("--text-tool-calls", type=click.Choice(["auto", "off"]), default="auto",
              show_default=True,
              help="For OpenAI-compatible backends: read tool calls the model writes as text "
                   "(fenced JSON, <tool_call> tags, bare JSON; llama.cpp's server) when the "
                   "reply has no structured tool_calls.")
@click.option("--mock-ground-truth", "ground_truth", is_flag=True,
              help="Replay each task's ground truth through the same loop (no model).")
@click.option("--repeats", type=click.IntRange(min=1, max=1000), default=1, show_default=True,
              help="Runs per task.")
@click.option("--tasks", "tasks_arg", default=None, metavar="ID,...",
              help="Only these user tasks (default: all of the suite).")
@click.option("--benchmark-version", default=None,
              help="AgentDojo benchmark version (default: v1.2.2, the newest in 0.1.35).")
@click.option("--max-turns", type=click.IntRange(min=1, max=200), default=20,
              show_default=True, help="Most model calls per run.")
@click.option("--attack", default=None, metavar="NAME",
              help="Also run every (task x injection task) under this AgentDojo attack "
                   "(important_instructions, direct, ...): utility under attack and attack "
                   "success rate.")
@click.option("--injection-tasks", "injection_tasks_arg", default=None, metavar="ID,...",
              help="With --attack: only these injection tasks (default: all of the version).")
@out_option("Folder for agentdojo-<suite>_<tag>.json and .md.",
            name="out_dir", required=True, kind="folder")
@force_option("Replace existing result files.")
@click.option("--quiet", is_flag=True, help="No progress on stderr (a bar on a terminal, else one "
              "line per run).")
@json_option()
@store_options("result")
def agentdojo_command(suite: str, backend_kind: str | None, model: str | None,
                      price_per_mtok: str | None, pricing_file: str | None,
                      base_url: str | None, text_tool_calls: str, ground_truth: bool,
                      repeats: int,
                      tasks_arg: str | None, benchmark_version: str | None, max_turns: int,
                      attack: str | None, injection_tasks_arg: str | None, out_dir: str, force: bool, quiet: bool, as_json: bool,
                      store: str | None, no_store: bool) -> int:
    """Run AgentDojo's SUITE tasks through aau's agent loop and write the scored result.

    Choose --mock-ground-truth (the tasks' ground truth replayed; every task must score
    utility 1) or --backend KIND with --model M. Each run gets a fresh copy of the suite's
    environment; the model's calls execute against it; AgentDojo's utility check and aau's
    tool-call match against the ground truth score it. With --attack NAME, every (task x
    injection task) pair runs again with the attack's text in the environment: utility under
    attack and the attack success rate (AgentDojo's injection-task security check), each with
    its Wilson interval, in a second result file. The results are recorded in the run store
    (aau runs) unless --no-store.

    Exit 0 when written; 2 for bad flags, a missing extra (pip install 'aau-labs[agentdojo]'),
    an existing result without --force, or a backend that cannot be built; 3 when nothing was
    measured (every run errored, or the provider failed: no result is written).

    \b
    Examples:
      aau bench agentdojo --suite banking --mock-ground-truth --out results/agentdojo
      aau bench agentdojo --suite workspace --backend openai --model gpt-4o-mini \\
          --tasks user_task_0,user_task_1 --repeats 3 --out results/agentdojo --json
      aau bench agentdojo --suite banking --mock-ground-truth --attack important_instructions \\
          --out results/agentdojo
    """
    from .._agentdojo._bench import (
        GROUND_TRUTH_KIND,
        HEADLINE_METRIC,
        result_paths,
        run_agentdojo_bench,
        wilson_ci95,
        write_bench_result,
    )
    from .._agentdojo._suite import DEFAULT_BENCHMARK_VERSION, AgentDojoSuite
    from .._frame._bench_run import BenchmarkPlan, backend_choice, run_benchmark

    kind = backend_choice(ground_truth, backend_kind, mock_flag="--mock-ground-truth",
                          mock_kind=GROUND_TRUTH_KIND,
                          backend_only={"--model": model, "--base-url": base_url,
                                        "--price-per-mtok": price_per_mtok,
                                        "--pricing-file": pricing_file})
    apply_pricing(price_per_mtok, pricing_file, model)
    ids = _parse_tasks(tasks_arg)
    goal_ids = _parse_tasks(injection_tasks_arg, "--injection-tasks")
    if goal_ids is not None and attack is None:
        raise UsageError("--injection-tasks needs --attack NAME")
    json_path, md_path = result_paths(out_dir, suite, kind, model)
    attacked_paths = result_paths(out_dir, suite, kind, model, attack) if attack else None
    if attacked_paths is not None:  # all four checked before the first (paid) run
        from aau_core import check_outputs

        check_outputs({"--out (result)": json_path, "--out (report)": md_path,
                       "--out (attack result)": attacked_paths[0],
                       "--out (attack report)": attacked_paths[1]}, force=force)

    pairs: list[Any] = []  # under --attack: made before the first run (bad names: exit 2 first)

    def prepare() -> BenchmarkPlan:
        bench = AgentDojoSuite(suite, benchmark_version or DEFAULT_BENCHMARK_VERSION)
        tasks = bench.tasks(ids)
        if attack is not None:
            from .._agentdojo._bench import attack_pairs

            pairs.extend(attack_pairs(bench, tasks, attack, goal_ids))
        return BenchmarkPlan(
            name=f"agentdojo {suite}", label=f"agentdojo {suite}", n_runs=len(tasks) * repeats,
            headline=HEADLINE_METRIC,
            evaluate=lambda progress: run_agentdojo_bench(
                bench, tasks, backend_kind=kind, model=model, base_url=base_url,
                repeats=repeats, max_turns=max_turns, progress=progress,
                text_tool_calls=text_tool_calls),
            write=lambda agg: write_bench_result(out_dir, bench, agg, kind, model, force=force),
            subject=bench)

    with json_on_not_measured(as_json, benchmark="agentdojo", suite=suite, backend=kind,
                              model=model or kind, json=None, markdown=None):
        outcome = run_benchmark(
            {"--out (result)": json_path, "--out (report)": md_path}, prepare, force=force,
            store=store, no_store=no_store, measured=not ground_truth, progress=_progress,
            quiet=quiet, owner=(kind, model or kind))
    bench, agg, shown = outcome.plan.subject, outcome.aggregate, model or kind
    from aau_core._reports._aggregate_markdown import interval_text  # internal to the monorepo

    mean = agg.metric_means[HEADLINE_METRIC]
    w_low, w_high = wilson_ci95(agg)
    click.echo(f"{outcome.json_path}: agentdojo {suite} ({bench.benchmark_version}) utility "
               f"{mean:.3f} {interval_text(w_low, w_high, 'wilson')}, tool_call_match "
               f"{agg.metric_means['tool_call_match']:.3f} over {agg.n_scenarios} tasks x "
               f"{repeats} repeats ({agg.n_errors} errored), {cost_text(agg)}",
               err=True)
    under = None
    if attack is not None and attacked_paths is not None:
        under = _run_under_attack(bench, attack, pairs, kind=kind, model=model,
                                  base_url=base_url, repeats=repeats, max_turns=max_turns,
                                  text_tool_calls=text_tool_calls, out_dir=out_dir,
                                  paths=attacked_paths, force=force, store=store,
                                  no_store=no_store, measured=not ground_truth, quiet=quiet,
                                  as_json=as_json)
    if as_json:
        summary: dict[str, Any] = {
            "measured": True, "benchmark": "agentdojo", "suite": suite,
            "benchmark_version": bench.benchmark_version, "backend": kind, "model": shown,
            "json": str(outcome.json_path), "markdown": str(outcome.md_path),
            "n_tasks": agg.n_scenarios, "n_repeats": repeats, "n_errors": agg.n_errors,
            "metric_means": {k: round(v, 4) for k, v in agg.metric_means.items()},
            "utility_passed": sum(1 for r in agg.results
                                  if not r.error and r.metrics["utility"] == 1.0),
            "n_runs": len(agg.results),
            "utility_wilson_ci95": [round(w_low, 4), round(w_high, 4)],
            "total_cost_usd": round(agg.total_cost_usd, 4),
        }
        if under is not None:
            summary["attack"] = _attack_summary(attack, under)
            summary["total_cost_usd"] = round(agg.total_cost_usd
                                              + under.aggregate.total_cost_usd, 4)
        print_json(summary)
    sys.stderr.flush()
    return outcome.exit_code


def _progress(line: str) -> None:
    click.echo(line, err=True)


def _run_under_attack(bench: Any, attack: str, pairs: list[Any], *, kind: str, model: str | None,
                      base_url: str | None, repeats: int, max_turns: int, text_tool_calls: str,
                      out_dir: str, paths: tuple[Any, Any], force: bool, store: str | None,
                      no_store: bool, measured: bool, quiet: bool, as_json: bool) -> Any:
    """The second run of ``--attack``: every (task x injection task) pair under ``attack``
    (``pairs``, ``attack_pairs``), written to ``paths``; prints its summary line. Returns the
    ``BenchmarkOutcome``."""
    from aau_core import json_on_not_measured
    from aau_core._reports._aggregate_markdown import interval_text  # internal to the monorepo

    from .._agentdojo._bench import (
        ATTACK_METRIC,
        HEADLINE_METRIC,
        run_agentdojo_bench,
        wilson_ci95,
        write_bench_result,
    )
    from .._frame._bench_run import BenchmarkPlan, run_benchmark

    def prepare() -> BenchmarkPlan:
        return BenchmarkPlan(
            name=f"agentdojo {bench.name} under {attack}", label=f"{bench.name} {attack}",
            n_runs=len(pairs) * repeats, headline=HEADLINE_METRIC,
            evaluate=lambda progress: run_agentdojo_bench(
                bench, pairs, backend_kind=kind, model=model, base_url=base_url,
                repeats=repeats, max_turns=max_turns, progress=progress,
                text_tool_calls=text_tool_calls),
            write=lambda agg: write_bench_result(out_dir, bench, agg, kind, model, force=force,
                                                 attack=attack),
            subject=pairs)

    with json_on_not_measured(as_json, benchmark="agentdojo", suite=bench.name, backend=kind,
                              model=model or kind, attack=attack, json=None, markdown=None):
        outcome = run_benchmark(
            {"--out (attack result)": paths[0], "--out (attack report)": paths[1]}, prepare,
            force=True, store=store, no_store=no_store, measured=measured, progress=_progress,
            quiet=quiet, owner=None)  # both files were checked (with --force) before run one
    agg = outcome.aggregate
    utility = interval_text(*wilson_ci95(agg), "wilson")
    asr = interval_text(*wilson_ci95(agg, ATTACK_METRIC), "wilson")
    click.echo(f"{outcome.json_path}: agentdojo {bench.name} under {attack}: utility under "
               f"attack {agg.metric_means[HEADLINE_METRIC]:.3f} {utility}, attack success rate "
               f"{agg.metric_means[ATTACK_METRIC]:.3f} {asr} over {agg.n_scenarios} task x "
               f"injection pairs x {repeats} repeats ({agg.n_errors} errored), "
               f"{cost_text(agg)}", err=True)
    return outcome


def _attack_summary(attack: str, outcome: Any) -> dict[str, Any]:
    """The ``--json`` summary's ``attack`` object: the attack, its result files, and utility
    under attack and the attack success rate with their Wilson intervals."""
    from .._agentdojo._bench import ATTACK_METRIC, HEADLINE_METRIC, wilson_ci95

    agg = outcome.aggregate

    def rate(metric: str) -> dict[str, Any]:
        low, high = wilson_ci95(agg, metric)
        return {"mean": round(agg.metric_means[metric], 4),
                "wilson_ci95": [round(low, 4), round(high, 4)]}

    return {"name": attack, "json": str(outcome.json_path), "markdown": str(outcome.md_path),
            "n_pairs": agg.n_scenarios, "n_errors": agg.n_errors,
            "utility_under_attack": rate(HEADLINE_METRIC),
            "attack_success_rate": rate(ATTACK_METRIC),
            "total_cost_usd": round(agg.total_cost_usd, 4)}


__all__ = ["bench_group"]
