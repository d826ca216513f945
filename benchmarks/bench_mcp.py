"""Speed and memory of aau's MCP tool server (`aau_adapters.tool_server`), against the same work
done in-process, measured in the same run.

    python benchmarks/bench_mcp.py [--units N] [--rss-units M] [--env-ms MS] [--quick]
                                   [--json] [--strict]

Workload: a counter environment (one tool `add`, a JSON Schema with two properties) whose call
costs `--env-ms` (default 1 ms, slept: an environment waiting on its own state store; 0 for
pure harness cost) and times itself. Each unit: open the unit, the agent connects, `initialize`,
`tools/list`, 5 `tools/call`, disconnect; close the unit. N units (default 500), 16 at a time.
The agent runs in a child process (`bench_mcp_clients.py KIND`, one asyncio loop), as
an agent under test does, so the two do not share a GIL; the server runs here. Two clients:

  sdk    the official MCP SDK client (`ClientSession` over `streamable_http_client`, bearer
         header): what most agents use; it also opens the standalone GET event stream and
         sends DELETE at the end
  lean   the same requests as JSON-RPC over one shared `httpx.AsyncClient` (keep-alive,
         `Mcp-Session-Id` echoed, no GET stream, no DELETE: the unit's end closes the session):
         an MCP client whose own cost is as small as Python makes it, so the wall row measures
         the harness and not the client

Rows:

  overhead (server)   per call: time inside aau's server (from the request read whole by the
                      gate to the last byte of the answer handed to uvicorn) minus the
                      environment's own call time           target p50 <= 5 ms, p95 <= 20 ms
                      (judged on both clients)
  overhead (client)   per call: the client's round trip minus the environment's call time
  wall, MCP           the N units over MCP with each client, wall time and the CPU time of
                      each process; and with the lean client and calls on the event loop
                      (`_server.CALLS_IN_THREAD = False`)
  wall, agent loop    the baseline, "the same work done through aau's in-process agent loop":
                      16 threads, each unit one `aau_core.run_tool_agent` run with a scripted
                      backend that asks for the same 5 `add` calls and then submits, the calls
                      executed on the session directly. Also shown: the calls made directly
                      (no loop) and through aau's channel without HTTP (`UnitChannel.answer`)
                                          target: MCP wall (lean client) <= 1.5x agent loop
  RSS                 this process's resident set after 500 units and after M (default 5,000)
                      units over MCP (lean client), and its peak; MCP sessions left open
                                                                target: flat (<= +10 %)

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_mcp_clients import CALLS_PER_UNIT  # noqa: E402 - the one count both sides use

CONCURRENCY = 16
CLIENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_mcp_clients.py")
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

    def call_text(self, name: str, arguments: Any) -> str:
        """`call`, its text only (the agent loop's `execute_tool`)."""
        return self.call(name, arguments).text

    def final_state(self) -> Any:
        return {"total": self.total}

    def score(self, calls: Any, final_answer: str | None) -> Any:
        from aau_core import EnvironmentVerdict

        return EnvironmentVerdict(passed=True, reason="")


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


def _drive(units: int, client: str, open_one: Any, finish_one: Any) -> dict[str, float]:
    """Run N units through a `client` ("sdk" or "lean") child process, CONCURRENCY at a time:
    `open_one(n)` returns the unit's `{"key", "url", "token"}` line, `finish_one(answer, done)`
    takes the child's answer for it. Returns the wall time and both processes' CPU time, from
    the child's imports done to its last answer."""
    child = subprocess.Popen([sys.executable, CLIENTS, client], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, bufsize=1)
    assert child.stdin is not None and child.stdout is not None
    if json.loads(child.stdout.readline() or "{}").get("ready") is not True:
        raise SystemExit("bench_mcp: the client process did not start")
    issued = done = 0
    cpu_start, wall_start = time.process_time(), time.perf_counter()

    def issue() -> None:
        nonlocal issued
        child.stdin.write(json.dumps(open_one(issued)) + "\n")
        issued += 1

    for _ in range(min(CONCURRENCY, units)):
        issue()
    child.stdin.flush()
    while done < units:
        line = child.stdout.readline()
        if not line:
            raise SystemExit("bench_mcp: the client process ended early")
        done += 1
        finish_one(json.loads(line), done)
        if issued < units:
            issue()
            child.stdin.flush()
    child.stdin.close()
    client_cpu = json.loads(child.stdout.readline() or "{}").get("cpu_s", float("nan"))
    wall = time.perf_counter() - wall_start
    child.wait(timeout=60)
    return {"wall_s": wall, "server_cpu_s": time.process_time() - cpu_start,
            "client_cpu_s": client_cpu}


def run_mcp(units: int, work_s: float, *, client: str,
            rss_at: tuple[int, ...] = ()) -> dict[str, Any]:
    """N units over MCP through a `client` ("sdk" or "lean") child process; the numbers."""
    from aau_adapters import tool_server

    server = tool_server()
    open_units: dict[str, tuple[Any, CounterSession]] = {}
    server_s: dict[str, list[float]] = SERVER_S
    overhead_server, overhead_client, rtt_all, errors = [], [], [], []
    rss: dict[int, float] = {}

    def open_one(number: int) -> dict[str, str]:
        session = CounterSession(work_s)
        unit = server.open_unit(session, max_calls=CALLS_PER_UNIT, label=f"bench#{number}")
        open_units[unit.key] = (unit, session)
        return {"key": unit.key, "url": unit.url, "token": unit.token}

    def finish_one(answer: dict[str, Any], done: int) -> None:
        unit, session = open_units.pop(answer["key"])
        record = unit.close()
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

    timing = _drive(units, client, open_one, finish_one)
    return {
        "units": units, "calls": units * CALLS_PER_UNIT, "errors": len(errors),
        "first_error": errors[0] if errors else None, **timing,
        "overhead_server_ms": _percentiles(overhead_server),
        "overhead_client_ms": _percentiles(overhead_client),
        "round_trip_ms": _percentiles(rtt_all), "rss_mb": rss, "peak_rss_mb": _rss_mb()[1],
        "late_requests": server.late_requests(), "open_units_after": server.open_units(),
        "open_sessions_after": _sessions_after(server), "client": client,
    }


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _sessions_after(server: Any) -> int:
    """MCP sessions still open once the last unit closed (their DELETEs run on the server's
    loop: wait up to 5 s for them)."""
    deadline = time.monotonic() + 5
    while server.open_sessions() and time.monotonic() < deadline:
        time.sleep(0.01)
    return server.open_sessions()


SERVER_S: dict[str, list[float]] = defaultdict(list)


async def _floor_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The transport floor: an ASGI app that answers the lean client's requests the way aau's
    server does (same shapes, a session id, the environment's time slept in a worker thread),
    with no MCP SDK, no gate, no record."""
    import anyio.to_thread

    if scope["type"] != "http":
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    request = json.loads(body)
    headers = [(b"content-type", b"application/json")]
    if "id" not in request:
        await send({"type": "http.response.start", "status": 202, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
        return
    if request["method"] == "initialize":
        result: dict[str, Any] = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                  "serverInfo": {"name": "floor", "version": "0"}}
        headers.append((b"mcp-session-id", b"floor"))
    elif request["method"] == "tools/list":
        result = {"tools": [{"name": "add", "description": "Add.", "inputSchema": SCHEMA}]}
    else:
        await anyio.to_thread.run_sync(time.sleep, FLOOR_WORK_S[0])
        result = {"content": [{"type": "text", "text": "total 1"}], "isError": False,
                  "structuredContent": {"total": 1}}
    answer = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": answer})


FLOOR_WORK_S = [0.0]


def run_floor(units: int, work_s: float) -> dict[str, Any]:
    """The same N units and requests from the lean client, answered by `_floor_app` on uvicorn
    (the server aau uses, same parser): what any Python HTTP server costs before MCP."""
    import socket

    import uvicorn

    FLOOR_WORK_S[0] = work_s
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    floor = uvicorn.Server(uvicorn.Config(_floor_app, log_level="warning", access_log=False,
                                          lifespan="on", backlog=1024))
    thread = threading.Thread(target=floor.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    while not floor.started:
        time.sleep(0.005)
    errors: list[str] = []

    def open_one(number: int) -> dict[str, str]:
        return {"key": str(number), "token": "floor",
                "url": f"http://127.0.0.1:{port}/units/{number}/mcp"}

    def finish_one(answer: dict[str, Any], done: int) -> None:
        if answer.get("error"):
            errors.append(answer["error"])

    timing = _drive(units, "lean", open_one, finish_one)
    floor.should_exit = True
    thread.join(5)
    return {"units": units, **timing, "errors": len(errors)}


def _in_threads(units: int, one_unit: Any) -> dict[str, float]:
    """`one_unit(number)` for every unit, CONCURRENCY threads; wall and CPU seconds."""
    counter = iter(range(units))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                number = next(counter, None)
            if number is None:
                return
            one_unit(number)

    cpu_start, wall_start = time.process_time(), time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(CONCURRENCY)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"wall_s": time.perf_counter() - wall_start, "cpu_s": time.process_time() - cpu_start}


def run_in_process(units: int, work_s: float, *, through_channel: bool) -> dict[str, Any]:
    """The same units and calls, 16 threads, no HTTP, no agent loop: the calls made directly,
    or through aau's channel (`UnitChannel.answer`)."""
    from aau_adapters import tool_server

    server = tool_server() if through_channel else None

    def one_unit(number: int) -> None:
        session = CounterSession(work_s)
        session.tools()
        if server is None:
            for k in range(CALLS_PER_UNIT):
                session.call("add", {"by": k + 1, "note": "bench"})
            return
        unit = server.open_unit(session, max_calls=CALLS_PER_UNIT, label=f"base#{number}")
        for k in range(CALLS_PER_UNIT):
            unit.answer("add", {"by": k + 1, "note": "bench"}, time.perf_counter())
        unit.close()

    return {"units": units, **_in_threads(units, one_unit)}


class ScriptedBackend:
    """The baseline's model: asks for `add` five times (one call a turn), then submits."""

    model = "mock"

    def __init__(self) -> None:
        self.turn = 0

    def create(self, system: str, messages: list[Any], tools: list[Any]) -> Any:
        from aau_core import Block, MockUsage

        self.turn += 1
        if self.turn <= CALLS_PER_UNIT:
            use = Block(type="tool_use", id=f"call_{self.turn}", name="add",
                        input={"by": self.turn, "note": "bench"})
        else:
            use = Block(type="tool_use", id="submit", name="submit", input={"answer": "done"})
        return Block(content=[use], stop_reason="tool_use", usage=MockUsage(10, 5))


SUBMIT = {"name": "submit", "description": "Give the final answer.",
          "input_schema": {"type": "object", "properties": {"answer": {"type": "string"}},
                           "required": ["answer"]}}


def run_agent_loop(units: int, work_s: float) -> dict[str, Any]:
    """The baseline the issue names: each unit one `run_tool_agent` run on a scripted backend,
    its tool calls executed on the unit's session, 16 threads."""
    from aau_core import CostTracker, run_tool_agent

    failures: list[str] = []

    def one_unit(number: int) -> None:
        session = CounterSession(work_s)
        schemas = [{"name": spec.name, "description": spec.description,
                    "input_schema": spec.input_schema} for spec in session.tools()]
        run = run_tool_agent(ScriptedBackend(), "You add numbers.", [*schemas, SUBMIT],
                             "Add 1 to 5.", session.call_text, "submit",
                             CostTracker("mock"), max_turns=CALLS_PER_UNIT + 1)
        if not run.submitted or len(session.call_s) != CALLS_PER_UNIT:
            failures.append(f"unit {number}: submitted={run.submitted}")

    return {"units": units, **_in_threads(units, one_unit), "errors": len(failures)}


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
    args = parser.parse_args(argv)
    if args.quick:
        args.units, args.rss_units = 50, 500
    CONCURRENCY = args.concurrency
    work_s = args.env_ms / 1000

    from aau_adapters._mcp import _server

    _instrument_gate(SERVER_S)
    log(f"warm-up: {CONCURRENCY} units over MCP")
    for client in ("sdk", "lean"):
        run_mcp(CONCURRENCY, work_s, client=client)
    results: dict[str, Any] = {"units": args.units, "env_ms": args.env_ms,
                               "concurrency": CONCURRENCY, "calls_per_unit": CALLS_PER_UNIT}
    log("in-process baselines, and the transport floor")
    results["agent_loop"] = run_agent_loop(args.units, work_s)
    results["floor"] = run_floor(args.units, work_s)
    results["http_parser"] = "httptools" if _has("httptools") else "h11"
    results["in_process"] = run_in_process(args.units, work_s, through_channel=False)
    results["in_process_channel"] = run_in_process(args.units, work_s, through_channel=True)
    for label, client, in_thread in (("mcp_sdk", "sdk", True), ("mcp_lean", "lean", True),
                                     ("mcp_lean_loop", "lean", False)):
        _server.CALLS_IN_THREAD = in_thread
        log(f"{args.units} units over MCP, {client} client, calls "
            f"{'in a thread' if in_thread else 'on the loop'}")
        results[label] = run_mcp(args.units, work_s, client=client)
    _server.CALLS_IN_THREAD = True
    rss_marks = tuple(sorted({min(500, args.rss_units), args.rss_units}))
    log(f"RSS: {args.rss_units:,} units over MCP (lean client, env 0 ms)")
    results["rss"] = run_mcp(args.rss_units, 0.0, client="lean", rss_at=rss_marks)

    base = results["agent_loop"]["wall_s"]
    ratio = results["mcp_lean"]["wall_s"] / base
    rss = results["rss"]["rss_mb"]
    growth = (rss[rss_marks[-1]] - rss[rss_marks[0]]) / rss[rss_marks[0]]

    def overhead_met(label: str, cut: str, target: float) -> bool:
        server = results[label]["overhead_server_ms"]
        return server is not None and server[cut] <= target

    runs = ("mcp_sdk", "mcp_lean", "mcp_lean_loop", "rss")
    met = {"overhead_p50": all(overhead_met(k, "p50", TARGET_P50_MS)
                               for k in ("mcp_sdk", "mcp_lean")),
           "overhead_p95": all(overhead_met(k, "p95", TARGET_P95_MS)
                               for k in ("mcp_sdk", "mcp_lean")),
           "wall_ratio": ratio <= TARGET_WALL_RATIO,
           "rss_flat": growth <= TARGET_RSS_GROWTH,
           "sessions_closed": results["rss"]["open_sessions_after"] == 0,
           "no_errors": all(results[k]["errors"] == 0 for k in (*runs, "agent_loop", "floor"))}
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
    names = {"mcp_sdk": "SDK client", "mcp_lean": "lean client",
             "mcp_lean_loop": "lean client, calls on the loop"}
    print(f"MCP tool server: {results['units']:,} units x {CALLS_PER_UNIT} calls, "
          f"{CONCURRENCY} at a time, environment {results['env_ms']:g} ms a call; "
          f"{os.cpu_count()} cores")
    print("| row | ours | baseline | ratio | target | met |")
    print("|---|---|---|---|---|---|")
    for label, name in names.items():
        run = results[label]
        judged = label != "mcp_lean_loop"
        server = run["overhead_server_ms"]
        ok = (server is not None and server["p50"] <= TARGET_P50_MS
              and server["p95"] <= TARGET_P95_MS)
        print(f"| overhead per call, server ({name}) | {cell(server)} | - | - "
              f"| p50 <= {TARGET_P50_MS:g} ms, p95 <= {TARGET_P95_MS:g} ms | "
              f"{yes[ok] if judged else 'n/a'} |")
        print(f"| overhead per call, client round trip ({name}) | "
              f"{cell(run['overhead_client_ms'])} | - | - | - | n/a |")
    loop, direct, channel = (results["agent_loop"], results["in_process"],
                             results["in_process_channel"])
    for label, name in names.items():
        run = results[label]
        ratio = run["wall_s"] / loop["wall_s"]
        judged = label == "mcp_lean"
        print(f"| wall, MCP ({name}) vs aau's agent loop | {run['wall_s']:.2f} s (server CPU "
              f"{run['server_cpu_s']:.2f} s, client CPU {run['client_cpu_s']:.2f} s) | "
              f"{loop['wall_s']:.2f} s (CPU {loop['cpu_s']:.2f} s; calls direct "
              f"{direct['wall_s']:.2f} s, through the channel {channel['wall_s']:.2f} s) | "
              f"{ratio:.2f}x | {'<= ' + format(TARGET_WALL_RATIO, 'g') + 'x' if judged else '-'}"
              f" | {yes[ratio <= TARGET_WALL_RATIO] if judged else 'n/a'} |")
    floor = results["floor"]
    lean = results["mcp_lean"]
    print(f"| wall, transport floor (lean client, bare ASGI app on uvicorn/"
          f"{results['http_parser']}) vs aau's agent loop | {floor['wall_s']:.2f} s (server CPU "
          f"{floor['server_cpu_s']:.2f} s, client CPU {floor['client_cpu_s']:.2f} s) | "
          f"{loop['wall_s']:.2f} s | {floor['wall_s'] / loop['wall_s']:.2f}x | - | n/a |")
    print(f"| wall, MCP (lean client) vs the transport floor | {lean['wall_s']:.2f} s | "
          f"{floor['wall_s']:.2f} s | {lean['wall_s'] / floor['wall_s']:.2f}x | - | n/a |")
    rss = results["rss"]
    marks = ", ".join(f"{n:,} units {rss['rss_mb'][n]:.1f} MB" for n in rss_marks)
    print(f"| RSS over {rss_marks[-1]:,} units | {marks} (peak {rss['peak_rss_mb']:.1f} MB); "
          f"sessions open after: {rss['open_sessions_after']} | "
          f"- | {1 + results['rss_growth']:.2f}x | <= {1 + TARGET_RSS_GROWTH:.2f}x | "
          f"{yes[met['rss_flat'] and met['sessions_closed']]} |")
    errors = {k: results[k]["errors"] for k in (*names, "rss", "agent_loop")}
    print(f"errors: {errors}; open units after: {rss['open_units_after']}")


if __name__ == "__main__":
    sys.exit(main())
