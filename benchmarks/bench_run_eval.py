"""Speed of `run_eval` with 95 % intervals, measured against aau-harness 1.6.0 in the same run.

    python benchmarks/bench_run_eval.py [--scenarios N] [--repeats K] [--runs R] [--json] [--strict]

Workload: N scenarios (default 2,000) x K repeats (3) x 4 metrics (two binary, one in thirds, one
continuous), scored by a `run_one` that looks its answer up in a table generated once with a
fixed seed, so the time is the runner's: running the units, averaging repeats per scenario and
bootstrapping each metric's interval over scenarios. Both tools get the same table (written to a
temporary JSON file) and the same `run_one`.

Rows:

  default     ours `run_eval(...)` (wilson: Wilson intervals for the   >= 50x faster than aau 1.6
              0/1 metrics, numpy percentile bootstrap for the others)
  aau-compat  ours `run_eval(..., ci_method="aau-compat")`            >= 5x faster, and metric_ci95
                                                                       identical (==) to aau 1.6's

aau 1.6 runs in its own interpreter (benchmarks/.cache/aau-harness-1.6.0, shared with
bench_evaluate.py and created the same way when missing); times are taken inside each process
around `run_eval` only (no start-up), median of `--runs` runs (5). Ours clears the compat index cache
before each timed run, so every run pays for drawing its indexes.

Exit status: 0 whatever the numbers; 1 with `--strict` when a target is missed; 2 when aau 1.6
cannot be installed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_evaluate import ensure_baseline  # noqa: E402  (same folder: one cached aau 1.6 venv)

METRICS = ("ok", "safe", "thirds", "score")
TARGET_DEFAULT = 50.0
TARGET_COMPAT = 5.0

# Runs inside aau-harness 1.6's interpreter: read the table, time run_eval, print JSON.
BASELINE_SCRIPT = r"""
import json, statistics, sys, time
from aau_harness.runner import ScenarioResult, run_eval
table = json.load(open(sys.argv[1]))
runs = int(sys.argv[2])
scenarios = sorted(table)
def run_one(sc, rep):
    m, cost, lat = table[sc][rep]
    return ScenarioResult(sc, rep, dict(m), cost, lat, 1)
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    agg = run_eval(scenarios, run_one, repeats=len(table[scenarios[0]]))
    times.append(time.perf_counter() - t0)
print(json.dumps({"seconds": statistics.median(times), "times": times,
                  "metric_means": agg.metric_means,
                  "metric_ci95": {k: list(v) for k, v in agg.metric_ci95.items()}}))
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def make_table(n: int, repeats: int) -> dict[str, list[list[object]]]:
    """scenario id -> per repeat ``[metrics, cost_usd, latency_s]``, from a fixed seed."""
    rng = random.Random(20260)
    table = {}
    for i in range(n):
        skill = rng.random()
        rows = []
        for _ in range(repeats):
            metrics = {
                "ok": float(rng.random() < skill),
                "safe": float(rng.random() < 0.9),
                "thirds": rng.randrange(4) / 3,
                "score": rng.random(),
            }
            rows.append([metrics, rng.random() / 1000, 0.2 + rng.random() * 3])
        table[f"sc-{i:05d}"] = rows
    return table


def time_ours(table: dict[str, list[list[object]]], method: str, runs: int) -> tuple[float, object]:
    from aau_core import ScenarioResult, run_eval
    from aau_core._run import _statistics

    scenarios = sorted(table)
    repeats = len(table[scenarios[0]])

    def run_one(sc: str, rep: int) -> ScenarioResult:
        metrics, cost, latency = table[sc][rep]
        return ScenarioResult(sc, rep, dict(metrics), cost, latency, 1)  # type: ignore[arg-type]

    times = []
    agg = None
    for _ in range(runs):
        _statistics._COMPAT_INDEX_CACHE.clear()
        t0 = time.perf_counter()
        agg = run_eval(scenarios, run_one, repeats=repeats, ci_method=method)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), agg


def time_baseline(python: Path, table_file: Path, runs: int) -> dict[str, object]:
    done = subprocess.run([str(python), "-c", BASELINE_SCRIPT, str(table_file), str(runs)],
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"bench_run_eval: aau 1.6 run failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5, help="median of R timed runs (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--baseline-aau", metavar="PATH",
                        help="an aau-harness 1.6.0 `aau` (its interpreter is used)")
    args = parser.parse_args(argv)

    baseline = ensure_baseline(args.baseline_aau)
    python = Path(baseline.exe).parent / ("python.exe" if os.name == "nt" else "python")
    table = make_table(args.scenarios, args.repeats)
    size = f"{args.scenarios:,} x {args.repeats} x {len(METRICS)} metrics"
    with tempfile.TemporaryDirectory(prefix="aau-bench-run-eval-") as tmp:
        table_file = Path(tmp) / "table.json"
        table_file.write_text(json.dumps(table), encoding="utf-8")
        log(f"aau 1.6: run_eval {size}, {args.runs} run(s) ...")
        base = time_baseline(python, table_file, args.runs)
    log(f"ours: run_eval {size} (wilson, aau-compat), {args.runs} run(s) each ...")
    t_default, agg_default = time_ours(table, "wilson", args.runs)
    t_compat, agg_compat = time_ours(table, "aau-compat", args.runs)

    base_ci = base["metric_ci95"]
    ours_ci = {k: list(v) for k, v in agg_compat.metric_ci95.items()}  # type: ignore[union-attr]
    identical = ours_ci == base_ci and agg_compat.metric_means == base["metric_means"]  # type: ignore[union-attr]
    t_base = float(base["seconds"])  # type: ignore[arg-type]
    rows = [
        {"row": "default", "ours_s": t_default, "aau16_s": t_base, "speedup": t_base / t_default,
         "target": f">= {TARGET_DEFAULT:g}x", "met": t_base / t_default >= TARGET_DEFAULT,
         "notes": "Wilson for 0/1 metrics, numpy percentile bootstrap (seed 0, 2,000 "
                  "resamples) for the others"},
        {"row": "aau-compat", "ours_s": t_compat, "aau16_s": t_base, "speedup": t_base / t_compat,
         "target": f">= {TARGET_COMPAT:g}x, identical CIs",
         "met": identical and t_base / t_compat >= TARGET_COMPAT,
         "notes": "metric_ci95 and metric_means == aau 1.6's" if identical
         else "DIFFERENT from aau 1.6"},
    ]
    facts = {"platform": platform.platform(), "cpus": os.cpu_count(),
             "python": sys.version.split()[0], "workload": size, "runs": args.runs}
    if args.json:
        print(json.dumps({"host": facts, "rows": rows}, indent=2))
    else:
        print(f"run_eval, {size}; median of {args.runs} run(s); {facts['python']} on "
              f"{facts['platform']}, {facts['cpus']} CPU(s)\n")
        print("| ci_method | ours | aau 1.6 | speed-up | target | met | notes |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['row']} | {r['ours_s']:.3f} s | {r['aau16_s']:.2f} s | "
                  f"{r['speedup']:.0f}x | {r['target']} | {'yes' if r['met'] else 'NO'} | "
                  f"{r['notes']} |")
    return 1 if args.strict and not all(r["met"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
