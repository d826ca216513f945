"""Overhead of the Ray executor against the local one, measured in the same run.

    python benchmarks/bench_ray.py [--units N] [--delay S] [--concurrency C] [--json] [--strict]

Workload: N I/O-bound units (default 1,000), each sleeping S seconds (0.2), run through
``aau_core.run_units`` (the local executor: threads) and through ``aau_core.ray_executor()`` on a
local Ray cluster started by this script (``ray.init(num_cpus=2)``), both at the same concurrency
C (16), both with an ``on_done`` callback as ``aau evaluate`` has (checkpoint and progress live in
the calling process). The ideal wall time is ceil(N / C) x S for both.

Ray's workers are started before timing (a warm-up of 4 rounds of 2 x C units of S seconds,
untimed, reported apart as ``ray warm-up``: Ray starts workers lazily, and the first rounds on a
fresh cluster are 2-4x slower): a long run pays that once, and it depends on the machine rather than
on aau. The cluster start (``ray.init``) is reported apart too.

Rows: ``local`` and ``ray`` wall times, each with its ratio to the ideal time, and ``ray / local``
(the overhead; target <= 1.5). Exit status: 0 whatever the numbers; 1 with ``--strict`` when the
target is missed; 2 when Ray is not installed (pip install 'aau-core[ray]').
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time

WARMUP_ROUNDS = 4

def _sleep(delay: float) -> float:
    time.sleep(delay)
    return delay


def _timed(execute, n: int, delay: float, concurrency: int) -> float:
    done = [0]

    def on_done(_i: int, _r: object) -> None:
        done[0] += 1

    started = time.monotonic()
    results = execute([delay] * n, _sleep, on_error=lambda _i, exc: exc,
                      concurrency=concurrency, on_done=on_done)
    wall = time.monotonic() - started
    if done[0] != n or any(r != delay for r in results):
        raise SystemExit(f"bench_ray: a run lost units ({done[0]} of {n} done)")
    return wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, default=1000)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args(argv)
    try:
        import ray
    except ImportError:
        print("bench_ray: Ray is not installed: pip install 'aau-core[ray]'", file=sys.stderr)
        return 2
    from aau_core import ray_executor, run_units

    n, delay, conc = args.units, args.delay, args.concurrency
    ideal = math.ceil(n / conc) * delay
    print(f"local executor: {n} units x {delay} s at concurrency {conc} ...", file=sys.stderr)
    local = _timed(run_units, n, delay, conc)
    started = time.monotonic()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    init_s = time.monotonic() - started
    execute = ray_executor()
    started = time.monotonic()
    for _ in range(WARMUP_ROUNDS):  # Ray starts its workers lazily, over several rounds
        _timed(execute, 2 * conc, delay, conc)
    warm_s = time.monotonic() - started
    print("ray executor ...", file=sys.stderr)
    remote = _timed(execute, n, delay, conc)
    ray.shutdown()
    ratio = remote / local
    doc = {"units": n, "delay_s": delay, "concurrency": conc, "ideal_s": round(ideal, 3),
           "local_s": round(local, 3), "ray_s": round(remote, 3), "ray_over_local": round(ratio, 3),
           "ray_init_s": round(init_s, 3), "ray_warmup_s": round(warm_s, 3),
           "target": 1.5, "met": ratio <= 1.5, "cpus": os.cpu_count(),
           "python": platform.python_version(), "ray": ray.__version__}
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        print(f"| row | wall time (s) | vs ideal ({ideal:.1f} s) |\n|---|---|---|")
        print(f"| local (threads) | {local:.2f} | {local / ideal:.3f}x |")
        print(f"| ray (local cluster) | {remote:.2f} | {remote / ideal:.3f}x |")
        print(f"\nray / local = {ratio:.3f} (target <= 1.5: {'met' if doc['met'] else 'MISSED'}); "
              f"ray.init {init_s:.1f} s and worker warm-up {warm_s:.1f} s not included; "
              f"{doc['cpus']} CPUs, Python {doc['python']}, Ray {doc['ray']}")
    return 1 if args.strict and not doc["met"] else 0


if __name__ == "__main__":
    sys.exit(main())
