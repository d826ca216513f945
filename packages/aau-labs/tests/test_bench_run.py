"""``_frame/_bench_run``: the option checks, the run order and the result writer that
``aau lab run`` and ``aau bench agentdojo`` share."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from aau_core import (
    EvalAggregate,
    InputError,
    NotMeasuredError,
    OutputError,
    ProviderUnavailable,
    UsageError,
    aggregate_results,
)
from aau_labs._frame._bench_run import (
    BenchmarkPlan,
    backend_choice,
    run_benchmark,
    write_result_files,
)
from aau_labs._frame._lab_spec import load_lab_config

REPO = Path(__file__).resolve().parents[3]
RIVER = REPO / "examples" / "labs" / "river-permit-desk.json"


def test_backend_choice_names_the_flags_of_each_command():
    assert backend_choice(True, None, mock_flag="--mock", mock_kind="mock",
                          backend_only={"--model": None}) == "mock"
    assert backend_choice(False, "openai", mock_flag="--mock", mock_kind="mock",
                          backend_only={"--model": "m"}) == "openai"
    with pytest.raises(UsageError, match="^choose exactly one of --mock and --backend KIND$"):
        backend_choice(False, None, mock_flag="--mock", mock_kind="mock", backend_only={})
    with pytest.raises(UsageError, match="^--model goes with --backend, not --mock$"):
        backend_choice(True, None, mock_flag="--mock", mock_kind="mock",
                       backend_only={"--model": "m"})
    with pytest.raises(UsageError, match="^--model and --base-url go with --backend, not "
                                         "--mock-ground-truth$"):
        backend_choice(True, None, mock_flag="--mock-ground-truth", mock_kind="ground-truth",
                       backend_only={"--model": None, "--base-url": "http://x"})


def _plan(tmp_path: Path, calls: list[str], force: bool = False, **changes) -> BenchmarkPlan:
    spec, doc, cfg = load_lab_config(RIVER)
    scenarios = spec.generate(cfg, 4, None)

    def evaluate(progress) -> EvalAggregate:
        calls.append("evaluate")
        return spec.evaluate(cfg, scenarios, repeats=1, progress=progress)

    def write(agg: EvalAggregate):
        calls.append("write")
        from aau_labs._frame._lab_spec import write_lab_result

        return write_lab_result(tmp_path, spec, agg, "mock", None, doc, force=force)

    fields = {"name": f"lab {spec.name}", "label": spec.name, "n_runs": 4,
              "headline": spec.headline_for(cfg), "evaluate": evaluate, "write": write,
              "metric_names": lambda: {"decision_gate_exact", "record_fidelity"}}
    fields.update(changes)
    return BenchmarkPlan(**fields)


def _run(tmp_path: Path, plan: BenchmarkPlan, **kwargs):
    outputs = {"--out (result)": tmp_path / "eval_mock.json",
               "--out (report)": tmp_path / "eval_mock.md"}
    options = {"force": False, "store": None, "no_store": True, "measured": False,
               "progress": lambda line: None, "quiet": True}
    options.update(kwargs)
    return run_benchmark(outputs, lambda: plan, **options)


def test_run_writes_and_compares_bars(tmp_path):
    calls: list[str] = []
    outcome = _run(tmp_path, _plan(tmp_path, calls), bars={"decision_gate_exact": 1.0})
    assert calls == ["evaluate", "write"]
    assert outcome.json_path == tmp_path / "eval_mock.json" and outcome.md_path.is_file()
    assert json.loads(outcome.json_path.read_text())["lab"] == "decision-gate"
    mean = outcome.aggregate.metric_means["decision_gate_exact"]
    assert mean < 1.0  # the mock has deliberate gaps
    assert outcome.failed == {"decision_gate_exact": 1.0} and outcome.exit_code == 1
    again = _run(tmp_path, _plan(tmp_path, [], force=True), bars={"decision_gate_exact": 0.0}, force=True)
    assert again.failed == {} and again.exit_code == 0


def test_outputs_and_bars_are_checked_before_any_run(tmp_path):
    (tmp_path / "eval_mock.md").write_text("kept\n")
    calls: list[str] = []
    with pytest.raises(OutputError):
        _run(tmp_path, _plan(tmp_path, calls))
    assert calls == [] and (tmp_path / "eval_mock.md").read_text() == "kept\n"
    with pytest.raises(UsageError, match="^--fail-under: unknown metric 'nope' for lab "
                                         "decision-gate$"):
        _run(tmp_path, _plan(tmp_path, calls), bars={"nope": 0.5}, force=True)
    with pytest.raises(UsageError, match="takes no bars"):
        _run(tmp_path, _plan(tmp_path, calls, metric_names=None), bars={"x": 0.5}, force=True)
    assert calls == []


def test_a_run_without_its_headline_writes_nothing(tmp_path):
    calls: list[str] = []
    plan = _plan(tmp_path, calls, headline="absent_metric")
    with pytest.raises(NotMeasuredError, match=r"^every run failed \(0 errored\): nothing to "
                                               r"score, nothing written$") as info:
        _run(tmp_path, plan)
    assert info.value.exit_code == 3
    assert calls == ["evaluate"] and list(tmp_path.iterdir()) == []


def test_a_real_backend_result_half_lost_to_the_provider_is_refused(tmp_path):
    """run_eval's own limit is 1.0 (every run); a published real-backend result is refused at
    0.5 (check_results_are_measurements), before anything is written."""
    calls: list[str] = []
    spec, doc, cfg = load_lab_config(RIVER)
    scenarios = spec.generate(cfg, 4, None)
    lost = {s.scenario_id for s in scenarios[:2]}

    def evaluate(progress) -> EvalAggregate:
        calls.append("evaluate")
        agg = spec.evaluate(cfg, scenarios, repeats=1, progress=progress)
        results = [attrs.evolve(r, metrics={}, detail={"error": "ProviderError: HTTP 429"})
                   if r.scenario_id in lost else r for r in agg.results]
        return aggregate_results(results, 1)

    plan = _plan(tmp_path, calls, evaluate=evaluate)
    with pytest.raises(ProviderUnavailable, match=r"^50% of runs \(2 of 4\) failed at the "
                                                  r"transport layer .*limit 50%"):
        _run(tmp_path, plan, measured=True)
    assert calls == ["evaluate"] and list(tmp_path.iterdir()) == []
    outcome = _run(tmp_path, _plan(tmp_path, calls, evaluate=evaluate), measured=False)
    assert outcome.aggregate.n_errors == 2 and outcome.aggregate.coverage == 0.5


def test_write_result_files_writes_both_or_neither(tmp_path):
    json_path, md_path = tmp_path / "r.json", tmp_path / "r.md"
    with pytest.raises(InputError, match=r"r\.json"):
        write_result_files(json_path, md_path, kind="eval-aggregate-v2",
                           document=lambda: {"not": "an aggregate"}, report=lambda: "# r\n")
    assert list(tmp_path.iterdir()) == []
    md_path.write_text("old\n")
    with pytest.raises(OutputError):
        write_result_files(json_path, md_path, kind="eval-aggregate-v2",
                           document=lambda: pytest.fail("built before the check"),
                           report=lambda: "# r\n")
    assert not json_path.exists() and md_path.read_text() == "old\n"


def test_errors_named_counts_the_most_frequent_first():
    from aau_core import ScenarioResult
    from aau_labs._frame._bench_run import errors_named

    def row(error):
        return ScenarioResult(scenario_id="s", repeat=0, metrics={}, detail={"error": error})

    rows = [row("B: two"), row("A: one"), row("A: one"), row("C: three"), row(None)]
    assert errors_named(rows) == "4 errored: 2 x A: one; 1 x B: two; and 1 other error(s)"
    assert errors_named(rows[:3], shown=1) == "3 errored: 2 x A: one; and 1 other error(s)"
    assert errors_named([row("A: one")]) == "1 errored: 1 x A: one"
    assert errors_named([]) == "0 errored"
