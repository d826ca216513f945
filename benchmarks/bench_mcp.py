"""Speed and memory of aau's MCP tool server (`aau_adapters.tool_server`), against the same work
done in-process, measured in the same run.

    python benchmarks/bench_mcp.py [--units N] [--rss-units M] [--env-ms MS] [--quick]
                                   [--json] [--strict]

Workload: a counter environment (one tool `add`, a JSON Schema with two properties) whose call
costs `--env-ms` (default 1 ms, slept: an environment waiting on its own state store; 0 for
pure harness cost) and times itself. Each unit: open the unit, the agent connects with the
official MCP SDK client (`ClientSession` over `streamable_http_client`, bearer header),
`initialize`, `tools/list`, 5 `tools/call`, disconnect; close the unit. N units (default 500),
16 at a time. The agent runs in a child process (`--client`, one asyncio loop, 16 units at a
time), as an agent under test does, so the two do not share a GIL; the server runs here.

Rows:

  overhead (server)   per call: time inside aau's server (from the request read whole by the
                      gate to the last byte of the answer handed to uvicorn) minus the
                      environment's own call time                           target p50 <= 5 ms, p95 <= 20 ms
  overhead (client)   per call: the client's round trip minus the environment's call time
  wall, MCP           the N units over MCP, in a thread (default) and on the event loop
                      (`_server.CALLS_IN_THREAD`), wall time and the CPU time of each process
  wall, in-process    the baseline: the same N units x 5 calls, 16 threads calling the
                      session directly as aau's own agent loop does; and through aau's channel
                      without HTTP (`UnitChannel.answer`: budget, schema check, record)
                                                          target: MCP wall <= 1.5x in-process
  RSS                 this process's resident set after 500 units and after M (default 5,000)
                      units over MCP, and its peak                 target: flat (<= +10 %)

The client's CPU time is reported beside the server's: on a 2-core host the SDK client's own
cost per call is larger than the server's, and the wall ratio is the sum of both.

Exit status: 0 whatever the numbers; 1 with `--strict` when a target is missed.
Progress goes to stderr; the table (or, with `--json`, one JSON document) to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from typing import Any

CONCURRENCY = 16
CALLS_PER_UNIT = 5
TARGET_P50_MS = 5.0
TARGET_P95_MS = 20.0
TARGET_WALL_RATIO = 1.5
TARGET_RSS_GROWTH = 0.10
SCHEMA = {"type": "object", "properties": {"by": {"type": "integer", "minimum": 1},
                                           "note": {"type": "string"}},
          "required": ["by"], "additionalProperties": False}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class CounterSession:
    """The benchmark's environment: `add` sleeps `work_s` and counts; it times itself."""

    def __init__(self, work_s: float) -> None:
        self.work_s = work_s
        self.total = 0
        self.call_s: list[float] = []

    def tools(self) -> list[Any]:
        from aau_core import ToolSpec

        return [ToolSpec(name="add", description="Add to the counter.", input_schema=SCHEMA)]

    def call(self, name: str, arguments: Any) -> Any:
        from aau_core import ToolOutcome

        start = time.perf_counter()
        if self.work_s:
            time.sleep(self.work_s)
        self.total += arguments["by"]
        outcome = ToolOutcome(ok=True, text=f"total {self.total}", value={"total": self.total})
        self.call_s.append(time.perf_counter() - start)
        return outcome

    def final_state(self) -> Any:
        return {"total": self.total}

    def score(self, calls: Any, final_answer: str | None) -> Any:
        from aau_core import EnvironmentVerdict

        return EnvironmentVerdict(passed=True, reason="")


# -- the client process -------------------------------------------------------------------------


def client_main() -> int:
    """Read `{"key", "url", "token"}` lines; run each unit with the official SDK client, 16 at
    a time; write `{"key", "rtt_s": [...], "error"}` lines. Ends at EOF."""
    import asyncio

    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def unit(line: dict[str, str]) -> dict[str, Any]:
        rtts: list[float] = []
        try:
            headers = {"Authorization": f"Bearer {line['token']}"}
            async with httpx2.AsyncClient(headers=headers, timeout=60) as http, \
                    streamable_http_client(line["url"], http_client=http) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                for k in range(CALLS_PER_UNIT):
                    start = time.perf_counter()
                    result = await session.call_tool("add", {"by": k + 1, "note": "bench"})
                    rtts.append(time.perf_counter() - start)
                    if result.is_error:
                        raise RuntimeError(result.content[0].text)
            return {"key": line["key"], "rtt_s": rtts, "error": None}
        except Exception as error:  # noqa: BLE001 - reported to the parent, which counts it
            return {"key": line["key"], "rtt_s": rtts, "error": repr(error)}

    async def run() -> None:
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[dict[str, str] | None] = asyncio.Queue()

        def read_stdin() -> None:
            for raw in sys.stdin:
                loop.call_soon_threadsafe(lines.put_nowait, json.loads(raw))
            loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=read_stdin, daemon=True).start()
        running: set[asyncio.Task[None]] = set()

        async def one(line: dict[str, str]) -> None:
            answer = await unit(line)
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()

        while (line := await lines.get()) is not None:
            task = asyncio.create_task(one(line))
            running.add(task)
            task.add_done_callback(running.discard)
        await asyncio.gather(*running)

    asyncio.run(run())
    return 0


# -- the server side ----------------------------------------------------------------------------


def _rss_mb() -> tuple[float, float]:
    """(resident now, peak) of this process in MB (Linux /proc; else the peak twice)."""
    try:
        fields = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines()
                      if ":" in line)
        return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)
    except (OSError, KeyError, ValueError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return peak, peak


def _instrument_gate(server_s: dict[str, list[float]]) -> None:
    """Time each tools/call inside the gate: arrival to the answer's last byte handed on."""
    from aau_adapters._mcp import _asgi

    original_call, original_shape = _asgi.Gate.__call__, _asgi.Gate._call_shape

    async def shape(self, message, body, unit, arrived, scope, send):
        scope["bench.method"] = message.get("method")
        return await original_shape(self, message, body, unit, arrived, scope, send)

    async def timed(self, scope, receive, send):
        end = [0.0]

        async def timed_send(message):
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                end[0] = time.perf_counter()

        await original_call(self, scope, receive, timed_send)
        unit = scope.get(_asgi.SCOPE_UNIT)
        if unit is not None and scope.get("bench.method") == "tools/call":
            server_s[unit.key].append(end[0] - scope[_asgi.SCOPE_ARRIVED])

    _asgi.Gate.__call__, _asgi.Gate._call_shape = timed, shape


def run_mcp(units: int, work_s: float, *, rss_at: tuple[int, ...] = ()) -> dict[str, Any]:
    """N units over MCP through a client child process; the numbers of the run."""
    from aau_adapters import tool_server

    server = tool_server()
    child = subprocess.Popen([sys.executable, __file__, "--client"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, bufsize=1)
    assert child.stdin is not None and child.stdout is not None
    open_units: dict[str, tuple[Any, CounterSession]] = {}
    server_s: dict[str, list[float]] = SERVER_S
    overhead_server, overhead_client, rtt_all, errors = [], [], [], []
    rss: dict[int, float] = {}
    issued = done = 0
    cpu_start = time.process_time()
    child_cpu_start = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall_start = time.perf_counter()

    def issue() -> None:
        nonlocal issued
        session = CounterSession(work_s)
        unit = server.open_unit(session, max_calls=CALLS_PER_UNIT, label=f"bench#{issued}")
        open_units[unit.key] = (unit, session)
        child.stdin.write(json.dumps({"key": unit.key, "url": unit.url,
                                      "token": unit.token}) + "\n")
        issued += 1

    for _ in range(min(CONCURRENCY, units)):
        issue()
    child.stdin.flush()
    while done < units:
        line = child.stdout.readline()
        if not line:
            raise SystemExit("bench_mcp: the client process ended early")
        answer = json.loads(line)
        unit, session = open_units.pop(answer["key"])
        record = unit.close()
        done += 1
        if answer["error"] or len(record.calls) != CALLS_PER_UNIT or not all(
                call.ok for call in record.calls):
            errors.append(answer["error"] or f"record {[c.code for c in record.calls]}")
        else:
            # the gate's timing of the last answer may land after the client saw it: a unit's
            # server times can be short by one, and are then paired as far as they go
            served = server_s.pop(unit.key, [])
            for env_s, inside in zip(session.call_s, served, strict=False):
                overhead_server.append((inside - env_s) * 1000)
            for rtt, env_s in zip(answer["rtt_s"], session.call_s, strict=True):
                overhead_client.append((rtt - env_s) * 1000)
                rtt_all.append(rtt * 1000)
        server_s.pop(unit.key, None)
        if done in rss_at:
            rss[done] = _rss_mb()[0]
            log(f"  {done:,} units: RSS {rss[done]:.1f} MB")
        if issued < units:
            issue()
            child.stdin.flush()
    child.stdin.close()
    child.wait(timeout=60)
    wall = time.perf_counter() - wall_start
    child_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "units": units, "calls": units * CALLS_PER_UNIT, "errors": len(errors),
        "first_error": errors[0] if errors else None, "wall_s": wall,
        "server_cpu_s": time.process_time() - cpu_start,
        "client_cpu_s": (child_cpu.ru_utime + child_cpu.ru_stime)
        - (child_cpu_start.ru_utime + child_cpu_start.ru_stime),
        "overhead_server_ms": _percentiles(overhead_server),
        "overhead_client_ms": _percentiles(overhead_client),
        "round_trip_ms": _percentiles(rtt_all), "rss_mb": rss, "peak_rss_mb": _rss_mb()[1],
        "late_requests": server.late_requests(), "open_units_after": server.open_units(),
    }


SERVER_S: dict[str, list[float]] = defaultdict(list)


def run_in_process(units: int, work_s: float, *, through_channel: bool) -> dict[str, Any]:
    """The baseline: the same units and calls, 16 threads, no HTTP."""
    from aau_adapters import tool_server

    server = tool_server() if through_channel else None
    counter = iter(range(units))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                number = next(counter, None)
            if number is None:
                return
            session = CounterSession(work_s)
            session.tools()
            if server is None:
                for k in range(CALLS_PER_UNIT):
                    session.call("add", {"by": k + 1, "note": "bench"})
                continue
            unit = server.open_unit(session, max_calls=CALLS_PER_UNIT, label=f"base#{number}")
            for k in range(CALLS_PER_UNIT):
                unit.answer("add", {"by": k + 1, "note": "bench"}, time.perf_counter())
            unit.close()

    cpu_start, wall_start = time.process_time(), time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(CONCURRENCY)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"units": units, "wall_s": time.perf_counter() - wall_start,
            "cpu_s": time.process_time() - cpu_start}


def _percentiles(ms: list[float]) -> dict[str, float] | None:
    if len(ms) < 2:
        return None
    cuts = statistics.quantiles(ms, n=100, method="inclusive")
    return {"p50": statistics.median(ms), "p95": cuts[94], "max": max(ms), "n": len(ms)}


def main(argv: list[str] | None = None) -> int:
    global CONCURRENCY
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--units", type=int, default=500)
    parser.add_argument("--rss-units", type=int, default=5000)
    parser.add_argument("--env-ms", type=float, default=1.0,
                        help="the environment's own time per call (slept)")
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY,
                        help="units at a time (the targets are for 16)")
    parser.add_argument("--quick", action="store_true", help="50 units, RSS over 500")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.client:
        return client_main()
    if args.quick:
        args.units, args.rss_units = 50, 500
    CONCURRENCY = args.concurrency
    work_s = args.env_ms / 1000

    from aau_adapters._mcp import _server

    _instrument_gate(SERVER_S)
    log(f"warm-up: {CONCURRENCY} units over MCP")
    run_mcp(CONCURRENCY, work_s)
    results: dict[str, Any] = {"units": args.units, "env_ms": args.env_ms,
                               "concurrency": CONCURRENCY, "calls_per_unit": CALLS_PER_UNIT}
    log("in-process baselines")
    results["in_process"] = run_in_process(args.units, work_s, through_channel=False)
    results["in_process_channel"] = run_in_process(args.units, work_s, through_channel=True)
    for label, in_thread in (("mcp_thread", True), ("mcp_loop", False)):
        _server.CALLS_IN_THREAD = in_thread
        log(f"{args.units} units over MCP, calls {'in a thread' if in_thread else 'on the loop'}")
        results[label] = run_mcp(args.units, work_s)
    _server.CALLS_IN_THREAD = True
    rss_marks = tuple(sorted({min(500, args.rss_units), args.rss_units}))
    log(f"RSS: {args.rss_units:,} units over MCP (env 0 ms)")
    results["rss"] = run_mcp(args.rss_units, 0.0, rss_at=rss_marks)

    mcp = results["mcp_thread"]
    server = mcp["overhead_server_ms"]
    ratio = mcp["wall_s"] / results["in_process"]["wall_s"]
    rss = results["rss"]["rss_mb"]
    growth = (rss[rss_marks[-1]] - rss[rss_marks[0]]) / rss[rss_marks[0]]
    met = {"overhead_p50": server is not None and server["p50"] <= TARGET_P50_MS,
           "overhead_p95": server is not None and server["p95"] <= TARGET_P95_MS,
           "wall_ratio": ratio <= TARGET_WALL_RATIO,
           "rss_flat": growth <= TARGET_RSS_GROWTH,
           "no_errors": all(results[k]["errors"] == 0 for k in ("mcp_thread", "mcp_loop", "rss"))}
    results.update({"wall_ratio": ratio, "rss_growth": growth, "met": met})
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        _print_table(results, rss_marks)
    return 1 if args.strict and not all(met.values()) else 0


def _print_table(results: dict[str, Any], rss_marks: tuple[int, ...]) -> None:
    def cell(p: dict[str, float] | None) -> str:
        return "-" if p is None else f"p50 {p['p50']:.2f} ms, p95 {p['p95']:.2f} ms"

    met = results["met"]
    yes = {True: "yes", False: "no"}
    print(f"MCP tool server: {results['units']:,} units x {CALLS_PER_UNIT} calls, "
          f"{CONCURRENCY} at a time, environment {results['env_ms']:g} ms a call; "
          f"{os.cpu_count()} cores")
    print("| row | ours | baseline | ratio | target | met |")
    print("|---|---|---|---|---|---|")
    for label in ("mcp_thread", "mcp_loop"):
        run = results[label]
        where = "thread" if label == "mcp_thread" else "loop"
        print(f"| overhead per call, server ({where}) | {cell(run['overhead_server_ms'])} | - | - "
              f"| p50 <= {TARGET_P50_MS:g} ms, p95 <= {TARGET_P95_MS:g} ms | "
              f"{yes[met['overhead_p50'] and met['overhead_p95']] if where == 'thread' else 'n/a'}"
              " |")
        print(f"| overhead per call, client round trip ({where}) | "
              f"{cell(run['overhead_client_ms'])} | - | - | - | n/a |")
    base, channel = results["in_process"], results["in_process_channel"]
    for label in ("mcp_thread", "mcp_loop"):
        run = results[label]
        print(f"| wall, {label} vs in-process | {run['wall_s']:.2f} s (server CPU "
              f"{run['server_cpu_s']:.2f} s, client CPU {run['client_cpu_s']:.2f} s) | "
              f"{base['wall_s']:.2f} s (through the channel: {channel['wall_s']:.2f} s) | "
              f"{run['wall_s'] / base['wall_s']:.2f}x | <= {TARGET_WALL_RATIO:g}x | "
              f"{yes[run['wall_s'] / base['wall_s'] <= TARGET_WALL_RATIO]} |")
    rss = results["rss"]
    marks = ", ".join(f"{n:,} units {rss['rss_mb'][n]:.1f} MB" for n in rss_marks)
    print(f"| RSS over {rss_marks[-1]:,} units | {marks} (peak {rss['peak_rss_mb']:.1f} MB) | "
          f"- | {1 + results['rss_growth']:.2f}x | <= {1 + TARGET_RSS_GROWTH:.2f}x | "
          f"{yes[met['rss_flat']]} |")
    errors = {k: results[k]["errors"] for k in ("mcp_thread", "mcp_loop", "rss")}
    print(f"errors: {errors}; open units after: {rss['open_units_after']}")


if __name__ == "__main__":
    sys.exit(main())
