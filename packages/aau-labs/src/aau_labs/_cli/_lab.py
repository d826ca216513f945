"""``aau lab generate`` and ``aau lab run``: the domain labs from the command line.

The config file's version field (``aau_schemas.detect_kind``) picks the lab
(``aau_labs._frame._registry.lab_for_config_kind``). ``generate`` writes a scenario file; ``run`` evaluates
the mock or a real backend on it and writes ``eval_<tag>.json`` (kind ``lab-result``) and
``eval_<tag>.md``. Every input problem is one line ``file: $.path: message`` and exit 2; no
output is half-written (atomic writes) and none is replaced without ``--force``. A lab
measures; it has no bar: ``run`` exits 0 unless ``--fail-under METRIC=VALUE`` is given and a
metric's mean is below its value (exit 1).
"""

from __future__ import annotations

import sys
from typing import Any

import click
from aau_core import (
    EXIT_OK,
    force_option,
    json_on_not_measured,
    json_option,
    out_option,
    print_json,
    store_options,
)

from ._pricing import apply_pricing, cost_text, pricing_options

_CTX = {"help_option_names": ["-h", "--help"]}


@click.group("lab", context_settings=_CTX)
def lab_group() -> None:
    """Fictional domain labs: generate seeded scenarios, run an agent (or the mock), score it.

    \b
    Labs (picked by the config file's version field):
      decision-gate     gate_config_version      (docs/labs.md)
      contract          contract_config_version  (docs/contract-runtime.md)
      evidence-service  service_config_version   (docs/service-lab.md)

    \b
    Examples:
      aau examples         # writes ./examples: the lab configs below (aau-navigator)
      aau lab generate examples/labs/river-permit-desk.json --n 32 --out river.scenarios.json
      aau lab run examples/labs/river-permit-desk.json --scenarios river.scenarios.json \\
          --mock --out results/river
    """


def _progress(line: str) -> None:
    click.echo(line, err=True)


@lab_group.command("generate")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--n", "n", type=click.IntRange(min=1, max=10_000), default=None,
              help="Scenarios to generate, 1 to 10,000 (default: the lab's, 32).")
@click.option("--seed", type=click.IntRange(min=0, max=2**53 - 1), default=None,
              help="Generator seed (default: the config's seed).")
@out_option("Scenario file to write.", required=True, kind="file")
@force_option("Replace OUT if it exists.")
@json_option()
def generate_command(config: str, n: int | None, seed: int | None, out: str, force: bool,
                     as_json: bool) -> int:
    """Generate N seeded scenarios from a lab CONFIG and write them to OUT.

    The same config, N and seed always give a byte-identical file. Exit 0 when written, 2 when
    the config is invalid (one line naming the file and the JSON path) or OUT exists without
    --force.

    \b
    Examples:
      aau examples         # writes ./examples: the lab config below (aau-navigator)
      aau lab generate examples/labs/microgrant-disbursement.json --out grants.scenarios.json
      aau lab generate my-domain.json --n 64 --seed 7 --out my.scenarios.json --force
    """
    from aau_core import check_outputs

    from .._frame._lab_spec import load_lab_config, write_scenarios

    check_outputs({"--out": out}, inputs=[config], force=force)
    spec, doc, cfg = load_lab_config(config)
    count = spec.default_n if n is None else n
    used_seed = doc["seed"] if seed is None else seed
    scenarios = spec.generate(cfg, count, used_seed)
    path = write_scenarios(out, spec, doc, scenarios, used_seed, count, force=force)
    click.echo(f"{path}: {count} {spec.name} scenario(s), seed {used_seed}", err=True)
    if as_json:
        print_json({"lab": spec.name, "out": str(path), "n": count,
                    "seed": used_seed})
    return EXIT_OK


@lab_group.command("run")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--scenarios", "scenarios_file", type=click.Path(dir_okay=False), default=None,
              help="Scenario file from 'aau lab generate' (default: generate the lab's default "
                   "number from the config's seed, in memory).")
@click.option("--mock", is_flag=True, help="Run the lab's deliberate mock (no network, no cost).")
@click.option("--backend", "backend_kind", default=None,
              help="A real backend kind (anthropic, openai, mistral, local, ...).")
@click.option("--model", default=None, help="The model id for --backend.")
@pricing_options
@click.option("--repeats", type=click.IntRange(min=1, max=1000), default=3, show_default=True,
              help="Runs per scenario.")
@out_option("Folder for eval_<tag>.json and eval_<tag>.md.",
            name="out_dir", required=True, kind="folder")
@force_option("Replace existing result files.")
@click.option("--fail-under", "fail_under", multiple=True, metavar="METRIC=VALUE",
              help="Exit 1 when METRIC's mean is below VALUE (repeatable).")
@click.option("--quiet", is_flag=True, help="No progress on stderr (a bar on a terminal, else one "
              "line per run).")
@json_option()
@store_options("result")
def run_command(config: str, scenarios_file: str | None, mock: bool, backend_kind: str | None,
                model: str | None, price_per_mtok: str | None, pricing_file: str | None,
                repeats: int, out_dir: str, force: bool,
                fail_under: tuple[str, ...], quiet: bool, as_json: bool, store: str | None,
                no_store: bool) -> int:
    """Run the lab of CONFIG on its scenarios and write the result to OUT.

    Choose --mock, or --backend KIND (with --model M). Progress goes to stderr: a bar on a
    terminal (done/total, failures, rate, ETA), one line per run in a log; the summary line
    names the headline metric, its mean and 95 % interval.

    Exit 0 when written (a lab measures; it has no bar) — or, with --fail-under, 1 when a
    metric's mean is below its value; 2 for a bad config or scenario file (one line naming the
    file and the JSON path), bad flags, or an existing result without --force; 3 when nothing
    was measured (every run errored, or the provider failed: no result is written).

    \b
    Examples:
      aau examples         # writes ./examples: the lab config and scenarios (aau-navigator)
      aau lab run examples/labs/river-permit-desk.json --mock --out results/river
      aau lab run examples/labs/river-permit-desk.json \\
          --scenarios examples/labs/river-permit-desk.scenarios.json \\
          --backend anthropic --model claude-sonnet-4-6 --repeats 5 --out results/river \\
          --fail-under decision_gate_exact=0.8 --json
    """
    from .._frame._bench_run import (
        BenchmarkPlan,
        backend_choice,
        run_benchmark,
    )
    from .._frame._lab_spec import digest, lab_result_paths, load_lab_config, write_lab_result

    kind = backend_choice(mock, backend_kind, mock_flag="--mock", mock_kind="mock",
                          backend_only={"--model": model, "--price-per-mtok": price_per_mtok,
                                        "--pricing-file": pricing_file})
    apply_pricing(price_per_mtok, pricing_file, model)
    from aau_core import parse_metric_bars

    bars = parse_metric_bars(fail_under, option="--fail-under",
                             example="decision_gate_exact=0.8")
    shown = "mock" if mock else (model or kind)
    json_path, md_path = lab_result_paths(out_dir, kind, shown)

    def prepare() -> BenchmarkPlan:
        spec, doc, cfg = load_lab_config(config)
        if scenarios_file is not None:
            from .._frame._lab_spec import read_scenarios

            scenarios = read_scenarios(scenarios_file, spec, config_doc=doc)
        else:
            scenarios = spec.generate(cfg, spec.default_n, None)
        sha = digest([spec.scenario_to_dict(s) for s in scenarios])
        return BenchmarkPlan(
            name=f"lab {spec.name}", label=spec.name, n_runs=len(scenarios) * repeats,
            headline=spec.headline_for(cfg),
            evaluate=lambda progress: spec.evaluate(cfg, scenarios, backend_kind=kind,
                                                    model=model, repeats=repeats,
                                                    progress=progress),
            write=lambda agg: write_lab_result(out_dir, spec, agg, kind, model, doc,
                                               scenarios_sha256=sha, force=force),
            metric_names=lambda: _metric_names(spec, cfg, scenarios), subject=spec)

    with json_on_not_measured(as_json, config=config, backend=kind, model=shown, json=None,
                              markdown=None):
        outcome = run_benchmark(
            {"--out (result)": json_path, "--out (report)": md_path}, prepare,
            inputs=[config, *([scenarios_file] if scenarios_file else [])], force=force,
            store=store, no_store=no_store, measured=kind != "mock", progress=_progress,
            bars=bars, quiet=quiet, owner=(kind, shown))
    lab, agg, headline = outcome.plan.subject.name, outcome.aggregate, outcome.headline
    from aau_core._reports._aggregate_markdown import interval_text  # internal to the monorepo

    from .._frame._lab_spec import tool_input_counts, tool_input_text

    tool_inputs = tool_input_counts(agg.results)
    flagged = tool_input_text(tool_inputs)
    mean = agg.metric_means[headline]
    low, high = agg.metric_ci95[headline]
    click.echo(f"{outcome.json_path}: {lab} {headline} {mean:.3f} "
               f"{interval_text(low, high, agg.interval_method(headline))} over "
               f"{agg.n_scenarios} scenarios x {repeats} repeats ({agg.n_errors} errored), "
               f"{cost_text(agg)}{flagged and f'; {flagged}'}", err=True)
    for m, v in outcome.failed.items():
        click.echo(f"{outcome.json_path}: {m} {agg.metric_means[m]:.4f} is below --fail-under "
                   f"{v}", err=True)
    if as_json:
        summary: dict[str, Any] = {
            "measured": True, "config": config, "lab": lab, "backend": kind, "model": shown, "json": str(outcome.json_path),
            "markdown": str(outcome.md_path), "n_scenarios": agg.n_scenarios,
            "n_repeats": repeats, "n_errors": agg.n_errors, "headline_metric": headline,
            "metric_means": {k: round(v, 4) for k, v in agg.metric_means.items()},
            "total_cost_usd": round(agg.total_cost_usd, 4), "tool_inputs": tool_inputs,
            "fail_under": bars, "passed": not outcome.failed,
        }
        print_json(summary)
    sys.stderr.flush()
    return outcome.exit_code


def _metric_names(spec: Any, cfg: Any, scenarios: list[Any]) -> set[str]:
    """The metrics a run of this lab reports: those of one mock run of the first scenario
    (free, and before a paid run, so a misspelt --fail-under metric costs nothing)."""
    agg = spec.evaluate(cfg, scenarios[:1], backend_kind="mock", repeats=1)
    return set(agg.metric_means)


__all__ = ["lab_group"]
