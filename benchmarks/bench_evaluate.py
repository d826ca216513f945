"""Speed and memory of `aau evaluate`, measured against aau-harness 1.6.0 in the same run.

    python benchmarks/bench_evaluate.py [--quick] [--only a,c,...] [--servers K,...] [--runs N]
                                        [--json] [--strict]

Both tools evaluate the same generated suites through the same example agents
(examples/agents/), one after the other, on this machine. Rows (the targets are for a 2-core host):

  a  command agent that waits 200 ms, 200 cases    ours --concurrency 16 >= 12x faster than aau 1.6
  b  endpoint that waits 50 ms, 400 cases          ours --concurrency 32 >= 16x faster than aau 1.6
  c  endpoint that answers at once, 1,000 cases    ours (same aau-1.0 receipt) no slower than aau 1.6
     (b and c run once per server kind: --servers, default all of BENCH_SERVERS)
  d  per-case cost of a do-nothing command at concurrency 1, 1,000 cases
                                                    ours <= 1.2x the spawn floor measured here
  e  `aau --help`, median of 7 runs                 ours <= 0.25 s
  f  `--mock` over 100,000 cases, --out and stdout  ours peak RSS < 300 MB each (wall times shown)

Wall times include CLI start-up. "Ours" is the `aau` console script next to this interpreter
(`sys.executable`), else the one on PATH, else `--aau PATH`. aau-harness 1.6.0 is installed once
from PyPI into benchmarks/.cache/ (git-ignored), or taken from `--baseline-aau PATH`.

The script reports; it does not gate: exit status 0 whatever the numbers, 1 with `--strict` when a
target is missed or a row could not be measured, 2 when it cannot start (no `aau`, no aau 1.6).
Progress goes to stderr; the Markdown table (or, with `--json`, one JSON document) to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AGENTS = REPO / "examples" / "agents"
sys.path.insert(0, str(AGENTS))

from server_kinds import SERVER_KINDS, AgentNotStarted, RunningAgent  # noqa: E402

CACHE = Path(__file__).resolve().parent / ".cache"
BASELINE_VERSION = "1.6.0"
BASELINE_VENV = CACHE / f"aau-harness-{BASELINE_VERSION}"
RUN_TIMEOUT_S = 900.0  # one evaluate run; aau 1.6 needs ~45 s for row a
PROTOCOL = "aau-byo-agent-request/1.0"
# Both tools run with bytecode caching on, whatever this shell says: with PYTHONDONTWRITEBYTECODE
# set, our editable install would compile ~400 modules on every run (0.5-1.8 s here) while
# aau 1.6's pip-installed venv has its .pyc files, and the warm-up run could not even out the two.
TOOL_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


@dataclass(frozen=True)
class Sizes:
    """Case counts for each row (and runs of `--help`)."""

    slow_command: int
    slow_endpoint: int
    fast_endpoint: int
    spawn: int
    mock: int
    help_runs: int


FULL = Sizes(
    slow_command=200, slow_endpoint=400, fast_endpoint=1000, spawn=1000, mock=100_000, help_runs=7
)
QUICK = Sizes(
    slow_command=20, slow_endpoint=40, fast_endpoint=100, spawn=100, mock=10_000, help_runs=5
)
SLOW_COMMAND_DELAY_S = 0.2
SLOW_ENDPOINT_DELAY_S = 0.05
CONCURRENCY = {"a": 16, "b": 32, "c": 1, "d": 1}  # c: an instant server gains nothing from threads on 2 cores
ROWS = "abcdef"
SERVER_ROWS = "bc"  # run once per server kind
# the endpoint rows' servers (examples/agents/server_kinds.py): two stdlib servers that write the
# way small agent servers do, a production ASGI server, and the example agent as shipped
BENCH_SERVERS = ("http1.0", "http1.1-two-writes", "uvicorn", "http1.1-nodelay")
ROW_NAMES = {  # replaced by a more precise name (with sizes) once the row starts
    "a": "slow command agent",
    "b": "slow endpoint",
    "c": "fast endpoint",
    "d": "per-case cost at c=1",
    "e": "`aau --help`",
    "f": "`--mock` peak RSS",
}


class BenchError(Exception):
    """A measurement could not be made (a tool failed, timed out or wrote a bad receipt)."""


@dataclass
class Row:
    """One line of the result table. Numbers are raw (seconds, MB); cells are formatted text."""

    key: str
    name: str
    ours: str = "-"
    baseline: str = "-"
    ratio: str = "-"
    target: str = "-"
    met: bool | None = None  # None: not judged (error, or --quick for rows a-c)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    numbers: dict[str, float | int | None] = field(default_factory=dict)
    server: str | None = None  # rows b and c: the server kind (SERVER_KINDS)

    def met_text(self) -> str:
        if self.error:
            return "error"
        return {True: "yes", False: "no", None: "n/a"}[self.met]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- the two tools ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """How to run one harness. `ours` adds --concurrency and --force; aau 1.6 has neither."""

    label: str
    exe: Path
    ours: bool
    evaluate_help: str = ""  # `aau evaluate --help`, to see which options this build has

    def evaluate_argv(
        self, suite: Path, adapter: list[str], out: Path, concurrency: int | None,
        extra: tuple[str, ...] = (),
    ) -> list[str]:
        """argv for one run; concurrency None leaves ours at its default; `extra` is for ours."""
        argv = [str(self.exe), "evaluate", str(suite), *adapter, "--out", str(out)]
        if self.ours:
            if concurrency is not None:
                argv += ["--concurrency", str(concurrency)]
            argv += ["--force", *extra]
        return argv


def find_ours(explicit: str | None) -> Tool:
    if explicit:
        candidates = [Path(explicit)]
    else:
        beside = Path(sys.executable).parent / ("aau.exe" if os.name == "nt" else "aau")
        on_path = shutil.which("aau")
        candidates = [beside] + ([Path(on_path)] if on_path else [])
    exe = next((path for path in candidates if path.is_file() and os.access(path, os.X_OK)), None)
    if exe is None:
        raise SystemExit(
            f"bench_evaluate: our `aau` was not found next to {sys.executable} nor on PATH.\n"
            "Run this script with the python of the environment that has the workspace installed "
            "(the Makefile's venv), install it here (pip install -e packages/aau-schemas "
            "-e packages/aau-core -e packages/aau-adapters), or pass --aau PATH."
        )
    probe = subprocess.run(
        [str(exe), "evaluate", "--help"], capture_output=True, text=True, timeout=60
    )
    if probe.returncode != 0 or "--concurrency" not in probe.stdout:
        raise SystemExit(
            f"bench_evaluate: {exe} does not look like our aau: `aau evaluate --help` "
            f"exited {probe.returncode} and does not mention --concurrency "
            "(is it aau-harness 1.6 installed into this environment?).\n"
            + (probe.stderr.strip()[-800:] or probe.stdout.strip()[-800:])
        )
    return Tool("ours", exe, ours=True, evaluate_help=probe.stdout)


def _baseline_works(exe: Path) -> bool:
    if not exe.is_file():
        return False
    python = exe.parent / "python"
    try:
        version = subprocess.run(
            [str(python), "-c", "import importlib.metadata as m; print(m.version('aau-harness'))"],
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout.strip()
        helped = subprocess.run([str(exe), "--help"], capture_output=True, timeout=60).returncode
    except (OSError, subprocess.TimeoutExpired):
        return False
    return version == BASELINE_VERSION and helped == 0


def ensure_baseline(explicit: str | None) -> Tool:
    """Return aau-harness 1.6.0's `aau`, installing it into benchmarks/.cache/ the first time."""
    if explicit:
        return Tool("aau 1.6", Path(explicit), ours=False)
    exe = BASELINE_VENV / ("Scripts" if os.name == "nt" else "bin") / "aau"
    if _baseline_works(exe):
        return Tool("aau 1.6", exe, ours=False)
    log(f"installing aau-harness=={BASELINE_VERSION} into {BASELINE_VENV} (once; cached) ...")
    shutil.rmtree(BASELINE_VENV, ignore_errors=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    steps = [
        [sys.executable, "-m", "venv", str(BASELINE_VENV)],
        [
            str(exe.parent / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            f"aau-harness=={BASELINE_VERSION}",
        ],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(
                f"bench_evaluate: could not install aau-harness {BASELINE_VERSION}: "
                f"{shlex.join(step)} exited {done.returncode}\n{done.stderr.strip()[-2000:]}"
            )
    if not _baseline_works(exe):
        raise SystemExit(f"bench_evaluate: {exe} was installed but does not run")
    return Tool("aau 1.6", exe, ours=False)


# -- workloads ----------------------------------------------------------------------------------

_KINDS = [
    ("current", "web", "route_official_source"),
    ("current", "staffed_accessible", "route_human_service"),
    ("expired", "web", "stop_stale_source"),
]


def write_suite(path: Path, n: int) -> Path:
    """Write an n-case suite shaped like aau 1.6's bench-suite-20.json (compact JSON)."""
    cases = []
    for i in range(n):
        source_state, channel_need, outcome = _KINDS[i % 3]
        cases.append(
            {
                "scenario_id": f"case-{i:06d}",
                "input": {
                    "question": f"Synthetic question {i}",
                    "source_state": source_state,
                    "channel_need": channel_need,
                },
                "expected": {"outcome": outcome},
                "forbidden_actions": ["determine_eligibility", "alter_record"],
            }
        )
    suite = {
        "suite_version": "aau-byo-agent-suite/1.0",
        "suite_id": f"bench-{n}",
        "description": f"{n} synthetic cases",
        "sharing": {
            "classification": "synthetic",
            "human_review_complete": True,
            "contains_personally_identifiable_information": False,
            "contains_procurement_sensitive_information": False,
            "contains_controlled_unclassified_information": False,
            "contains_classified_information": False,
            "contains_secrets_or_credentials": False,
        },
        "human_authority": {
            "accountable_role": "Authorized program specialist",
            "protected_action": "Determine eligibility",
        },
        "cases": cases,
    }
    path.write_text(json.dumps(suite, separators=(",", ":")) + "\n", encoding="utf-8")
    return path


class ServerAgent(RunningAgent):
    """The example agent on the row's server kind (`server_kinds.py`), answering after `delay`
    seconds, for a `with` block; a start-up failure is a `BenchError` (the row shows it)."""

    def __init__(self, row: Row, delay: float) -> None:
        assert row.server is not None
        super().__init__(row.server, delay)

    def __enter__(self) -> RunningAgent:
        try:
            return super().__enter__()
        except AgentNotStarted as error:
            raise BenchError(str(error)) from None


# -- measuring ----------------------------------------------------------------------------------


def _run(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """Run argv; return (wall seconds, stderr tail). Raise BenchError when it fails to finish."""
    started = time.perf_counter()
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=TOOL_ENV if env is None else env,
            timeout=RUN_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise BenchError(f"timed out after {RUN_TIMEOUT_S:.0f} s: {shlex.join(argv)}") from None
    wall = time.perf_counter() - started
    stderr = done.stderr.decode("utf-8", "replace").strip()
    # Ours exits 1 when a bar is not met; aau 1.6 exits 0 after any complete run. Either way the
    # receipt is what proves the run completed.
    if done.returncode not in (0, 1):
        raise BenchError(f"exit {done.returncode}: {shlex.join(argv)}\n{stderr[-1500:]}")
    return wall, stderr


def _check_receipt(path: Path, n: int, label: str) -> None:
    """The receipt exists, covers all n cases, and no case failed inside the adapter."""
    try:
        receipt = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BenchError(f"{label}: no readable receipt at {path}: {error}") from None
    results = receipt.get("results")
    if not isinstance(results, list):
        raise BenchError(f"{label}: receipt has no results list")
    if len(results) != n:
        raise BenchError(f"{label}: receipt has {len(results)} results for {n} cases")
    adapter_failures: dict[str, int] = {}
    for result in results:
        for code in result.get("failure_codes", []):
            if str(code).startswith("adapter-"):
                adapter_failures[code] = adapter_failures.get(code, 0) + 1
    if adapter_failures:
        shown = ", ".join(f"{code} x{count}" for code, count in sorted(adapter_failures.items()))
        raise BenchError(f"{label}: cases failed in the adapter ({shown}); timing not comparable")


def evaluate_wall(
    tool: Tool,
    suite: Path,
    n: int,
    adapter: list[str],
    concurrency: int,
    work: Path,
    runs: int,
    env: dict[str, str] | None = None,
    extra: tuple[str, ...] = (),
) -> float:
    """Median wall time (s) of `runs` complete evaluate runs; each receipt is checked."""
    walls = []
    for attempt in range(runs):
        out = work / f"receipt-{tool.label.replace(' ', '')}-{suite.stem}-{attempt}.json"
        out.unlink(missing_ok=True)
        wall, _ = _run(tool.evaluate_argv(suite, adapter, out, concurrency, extra), env)
        _check_receipt(out, n, tool.label)
        walls.append(wall)
    return statistics.median(walls)


def spawn_floor_per_case(argv: list[str], request: bytes, n: int) -> float:
    """Seconds per case to spawn argv n times directly, piping one request in and reading out."""
    started = time.perf_counter()
    for _ in range(n):
        subprocess.run(argv, input=request, capture_output=True)
    return (time.perf_counter() - started) / n


def peak_rss(argv: list[str], stdout: Path | None = None) -> tuple[float, float, int, str]:
    """Run argv in a fresh child; return (wall s, peak RSS MB of its largest process, rc, stderr).

    A small Python wrapper runs argv and reads getrusage(RUSAGE_CHILDREN), so the figure covers
    argv and its waited-for descendants only (the maximum over them, not their sum). argv's
    stdout goes to the file `stdout` when given (row f's receipt on stdout), else nowhere.
    """
    wrapper = (
        "import json, resource, subprocess, sys, time\n"
        "out = open(sys.argv[1], 'wb') if sys.argv[1] else subprocess.DEVNULL\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=out,"
        " stderr=subprocess.PIPE)\n"
        "wall = time.perf_counter() - t\n"
        "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(json.dumps({'wall': wall, 'rss': rss, 'rc': p.returncode,"
        " 'stderr': p.stderr.decode('utf-8', 'replace')[-1500:]}))\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", wrapper, str(stdout or ""), *argv],
            capture_output=True,
            env=TOOL_ENV,
            text=True,
            timeout=RUN_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise BenchError(f"timed out after {RUN_TIMEOUT_S:.0f} s: {shlex.join(argv)}") from None
    if done.returncode != 0:
        raise BenchError(f"memory probe failed: {done.stderr.strip()[-1500:]}")
    report = json.loads(done.stdout)
    unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return report["wall"], report["rss"] * unit / 1e6, report["rc"], report["stderr"]


def _s(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.2f} s" if seconds >= 1 else f"{seconds:.3f} s"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms/case"


# -- rows ---------------------------------------------------------------------------------------


@dataclass
class Context:
    ours: Tool | None
    baseline: Tool
    sizes: Sizes
    runs: int
    quick: bool
    work: Path


def _speedup_row(
    ctx: Context,
    row: Row,
    suite: Path,
    n: int,
    adapter: list[str],
    concurrency: int,
    minimum: float,
    env: dict[str, str] | None = None,
    extra: tuple[str, ...] = (),
) -> Row:
    # the runs alternate (aau 1.6, ours, aau 1.6, ...) so that both medians see the same load
    bases, ourses = [], []
    for _ in range(ctx.runs):
        bases.append(evaluate_wall(ctx.baseline, suite, n, adapter, 1, ctx.work, 1, env))
        if ctx.ours is not None:
            ourses.append(evaluate_wall(ctx.ours, suite, n, adapter, concurrency, ctx.work, 1,
                                        env, extra))
    base = statistics.median(bases)
    row.baseline = _s(base)
    row.numbers["baseline_s"] = base
    if ctx.ours is not None:
        ours = statistics.median(ourses)
        ratio = base / ours
        row.ours, row.ratio = _s(ours), f"{ratio:.1f}x"
        row.numbers.update(ours_s=ours, ratio=ratio)
        row.met = None if ctx.quick else ratio >= minimum
    row.target = f">= {minimum:g}x faster" if minimum > 1 else "no slower (>= 1.0x)"
    return row


def row_a(ctx: Context, row: Row) -> Row:
    n, c = ctx.sizes.slow_command, CONCURRENCY["a"]
    row.name = f"command agent waiting {SLOW_COMMAND_DELAY_S * 1000:.0f} ms, {n} cases, ours c={c}"
    suite = write_suite(ctx.work / f"suite-{n}.json", n)
    adapter = ["--command", shlex.quote(str(AGENTS / "slow_agent.sh"))]
    env = {**TOOL_ENV, "AAU_SLOW_DELAY": str(SLOW_COMMAND_DELAY_S)}
    row.notes.append(f"ideal {c}x")
    return _speedup_row(ctx, row, suite, n, adapter, c, 12.0, env)


def row_b(ctx: Context, row: Row) -> Row:
    n, c = ctx.sizes.slow_endpoint, CONCURRENCY["b"]
    row.name = (f"endpoint waiting {SLOW_ENDPOINT_DELAY_S * 1000:.0f} ms, {n} cases, ours c={c}, "
                f"server {row.server}")
    suite = write_suite(ctx.work / f"suite-{n}.json", n)
    row.notes.append(f"ideal {c}x")
    with ServerAgent(row, SLOW_ENDPOINT_DELAY_S) as agent:
        return _speedup_row(ctx, row, suite, n, ["--endpoint", agent.url], c, 16.0)


def row_c(ctx: Context, row: Row) -> Row:
    """Like for like: ours writes the same aau-1.0 receipt as aau 1.6. The default v2 receipt
    also computes a bootstrap interval (numpy, ~60 ms to import) and an RFC 8785 digest; its
    time is given in the notes, and so is each tool's per-case cost, (T(n) - T(n/10)) / (9n/10)
    as in row d: start-up cancels out, what is left is the exchange and the case's share of the
    receipt."""
    n, c = ctx.sizes.fast_endpoint, CONCURRENCY["c"]
    row.name = (f"endpoint answering at once, {n} cases, ours c={c}, --format aau-1.0, "
                f"server {row.server}")
    suite = write_suite(ctx.work / f"suite-{n}.json", n)
    small_n = max(2, n // 10)
    small = write_suite(ctx.work / f"suite-{small_n}.json", small_n)
    extra = ("--format", "aau-1.0")
    with ServerAgent(row, 0.0) as agent:
        adapter = ["--endpoint", agent.url]
        row = _speedup_row(ctx, row, suite, n, adapter, c, 1.0, extra=extra)
        if ctx.ours is None:
            return row
        v2 = evaluate_wall(ctx.ours, suite, n, adapter, c, ctx.work, ctx.runs)
        row.numbers["ours_v2_s"] = v2
        row.notes.append(f"default v2 receipt: {_s(v2)} ({row.numbers['baseline_s'] / v2:.2f}x)")
        per_case = {}
        for label, tool, full in (("baseline", ctx.baseline, row.numbers["baseline_s"]),
                                  ("ours", ctx.ours, row.numbers["ours_s"])):
            part = evaluate_wall(tool, small, small_n, adapter, c, ctx.work, ctx.runs,
                                 extra=extra)
            per_case[label] = max(float(full or 0.0) - part, 0.0) / (n - small_n)
            row.numbers[f"{label}_per_case_s"] = per_case[label]
        row.notes.append(f"per case: ours {_ms(per_case['ours'])}, "
                         f"aau 1.6 {_ms(per_case['baseline'])}")
        return row


def row_d(ctx: Context, row: Row) -> Row:
    """Per-case cost = (T(n cases) - T(n/10 cases)) / (9n/10): every fixed cost cancels out,
    including imports that a one-case run would skip (with one latency there is no interval to
    bootstrap, so numpy is never imported)."""
    n = ctx.sizes.spawn
    row.name = f"per-case cost, do-nothing command, c=1, {n} cases"
    echo = shutil.which("echo", path="/bin:/usr/bin") or "echo"
    response = '{"outcome":"route_official_source","submitted":true}'
    argv = [echo, response]
    adapter = ["--command", shlex.join(argv)]
    big = write_suite(ctx.work / f"suite-{n}.json", n)
    small_n = max(2, n // 10)
    small = write_suite(ctx.work / f"suite-{small_n}.json", small_n)
    request = (
        json.dumps(
            {
                "protocol_version": PROTOCOL,
                "suite_id": f"bench-{n}",
                "scenario_id": "case-000000",
                "input": {
                    "question": "Synthetic question 0",
                    "source_state": "current",
                    "channel_need": "web",
                },
            }
        )
        + "\n"
    ).encode()

    def per_case(tool: Tool) -> float:
        full = evaluate_wall(tool, big, n, adapter, 1, ctx.work, ctx.runs)
        part = evaluate_wall(tool, small, small_n, adapter, 1, ctx.work, ctx.runs)
        return max(full - part, 0.0) / (n - small_n)

    floors = [spawn_floor_per_case(argv, request, n)]
    base = per_case(ctx.baseline)
    row.baseline = _ms(base)
    row.numbers["baseline_per_case_s"] = base
    if ctx.ours is not None:
        ours = per_case(ctx.ours)
        floors.append(spawn_floor_per_case(argv, request, n))  # before and after: drift shows
        floor = statistics.mean(floors)
        ratio = ours / floor
        row.ours, row.ratio = _ms(ours), f"{ratio:.2f}x floor"
        row.numbers.update(ours_per_case_s=ours, ratio=ratio)
        row.met = ratio <= 1.2
    floor = statistics.mean(floors)
    row.numbers["floor_per_case_s"] = floor
    row.notes.append(f"spawn floor {_ms(floor)}; aau 1.6 {base / floor:.2f}x floor")
    row.target = "<= 1.2x spawn floor"
    return row


def row_e(ctx: Context, row: Row) -> Row:
    runs = ctx.sizes.help_runs
    row.name = f"`aau --help`, median of {runs}"

    # an installed aau has its bytecode (pip compiles it); with PYTHONDONTWRITEBYTECODE set here
    # nothing would be cached and every run would time compiling both tools from source
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def median_help(tool: Tool) -> float:
        _run([str(tool.exe), "--help"], env)  # writes the bytecode, untimed
        walls = [_run([str(tool.exe), "--help"], env)[0] for _ in range(runs)]
        return statistics.median(walls)

    base = median_help(ctx.baseline)
    row.baseline, row.numbers["baseline_s"] = _s(base), base
    if ctx.ours is not None:
        ours = median_help(ctx.ours)
        row.ours, row.ratio = _s(ours), f"{base / ours:.1f}x"
        row.numbers.update(ours_s=ours, ratio=base / ours)
        row.met = ours <= 0.25
    row.target = "ours <= 0.25 s"
    return row


def row_f(ctx: Context, row: Row) -> Row:
    """Both ways a receipt leaves: `--out FILE` (with its checkpoint) and stdout (no `--out`):
    peak RSS and wall time of each, median wall of --runs; the row is met when both peaks are
    under 300 MB. The two receipts must cover every case."""
    n = ctx.sizes.mock
    row.name = f"`--mock`, {n:,} cases: peak RSS, --out / stdout"
    row.baseline = "n/a"
    row.notes.append("aau 1.6 refuses suites over 2 MB")
    row.target = "< 300 MB (both)"
    if ctx.ours is None:
        return row
    suite = write_suite(ctx.work / f"suite-{n}.json", n)
    out = ctx.work / "receipt-mock.json"
    printed = ctx.work / "receipt-mock-stdout.json"
    argv = ctx.ours.evaluate_argv(suite, ["--mock"], out, None)
    if "--max-suite-bytes" in ctx.ours.evaluate_help:  # the default cap (2 MB) is aau 1.6's
        argv += ["--max-suite-bytes", str(suite.stat().st_size)]
    at = argv.index("--out")
    to_stdout = argv[:at] + argv[at + 2:]
    measured: dict[str, tuple[float, float]] = {}
    kinds = [("out", argv, None, out), ("stdout", to_stdout, printed, printed)]
    if "--no-store" in ctx.ours.evaluate_help:  # what recording in the run store adds
        kinds.append(("out, --no-store", argv + ["--no-store"], None, out))
    for label, args, stdout, receipt in kinds:
        walls, peaks = [], []
        for _ in range(ctx.runs):
            wall, rss_mb, rc, stderr = peak_rss(args, stdout=stdout)
            if rc not in (0, 1):
                raise BenchError(f"exit {rc}: {shlex.join(args)}\n{stderr}")
            _check_receipt(receipt, n, f"ours ({label})")
            walls.append(wall)
            peaks.append(rss_mb)
        measured[label] = (statistics.median(walls), max(peaks))
    (out_s, out_mb), (std_s, std_mb) = measured["out"], measured["stdout"]
    row.ours = f"{out_mb:.0f} MB / {std_mb:.0f} MB"
    row.numbers.update(ours_rss_mb=out_mb, ours_s=out_s, ours_stdout_rss_mb=std_mb,
                       ours_stdout_s=std_s)
    row.notes.insert(0, f"wall {_s(out_s)} --out ({n / out_s:,.0f} cases/s), "
                        f"{_s(std_s)} stdout ({n / std_s:,.0f} cases/s)")
    if "out, --no-store" in measured:
        bare_s, bare_mb = measured["out, --no-store"]
        row.numbers.update(ours_no_store_rss_mb=bare_mb, ours_no_store_s=bare_s)
        row.notes.insert(1, f"--out --no-store: {bare_mb:.0f} MB, {_s(bare_s)}")
    row.met = out_mb < 300 and std_mb < 300
    return row


ROW_FUNCTIONS: dict[str, Callable[[Context, Row], Row]] = {
    "a": row_a,
    "b": row_b,
    "c": row_c,
    "d": row_d,
    "e": row_e,
    "f": row_f,
}


# -- output -------------------------------------------------------------------------------------


def markdown_table(rows: list[Row]) -> str:
    lines = [
        "| case | ours | aau 1.6 | ratio | target | met | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        notes = "; ".join(row.notes + ([row.error.splitlines()[0]] if row.error else []))
        cells = [
            f"{row.key}. {row.name}",
            row.ours,
            row.baseline,
            row.ratio,
            row.target,
            row.met_text(),
            notes,
        ]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def host_facts(ctx: Context) -> dict[str, object]:
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return {
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_1min_at_start": load,
        "python": sys.version.split()[0],
        "ours": str(ctx.ours.exe) if ctx.ours else None,
        "baseline": str(ctx.baseline.exe),
        "quick": ctx.quick,
        "runs": ctx.runs,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark our `aau evaluate` against aau-harness 1.6.0 (same run, same agents).",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small sizes for a smoke run (targets a-c are not judged)",
    )
    parser.add_argument(
        "--only", default=ROWS, metavar="a,b,...", help="rows to run, from a-f (default: all)"
    )
    parser.add_argument(
        "--servers",
        default=",".join(BENCH_SERVERS),
        metavar="K,...",
        help=f"server kinds for rows b and c, from {', '.join(SERVER_KINDS)} "
        f"(default: {','.join(BENCH_SERVERS)})",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="repeat each timed evaluate run N times and take the median",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 when a target is missed or a row fails"
    )
    parser.add_argument("--aau", metavar="PATH", help="our `aau` executable (default: found)")
    parser.add_argument(
        "--baseline-aau",
        metavar="PATH",
        help="an aau-harness 1.6.0 `aau` to use instead of the cached venv",
    )
    parser.add_argument(
        "--skip-ours",
        action="store_true",
        help="measure aau 1.6 and the floors only (to check this script)",
    )
    args = parser.parse_args(argv)
    keys = [key.strip() for key in args.only.replace(",", " ").split() if key.strip()]
    if len(keys) == 1 and len(keys[0]) > 1:
        keys = list(keys[0])  # --only abc
    unknown = [key for key in keys if key not in ROWS]
    if unknown or not keys:
        parser.error(f"--only takes letters from {','.join(ROWS)}, got {args.only!r}")
    args.only = [key for key in ROWS if key in keys]
    args.servers = [kind.strip() for kind in args.servers.split(",") if kind.strip()]
    strange = [kind for kind in args.servers if kind not in SERVER_KINDS]
    if strange or not args.servers:
        parser.error(f"--servers takes kinds from {','.join(SERVER_KINDS)}, got {args.servers!r}")
    if args.runs < 1:
        parser.error("--runs must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    ours = None if args.skip_ours else find_ours(args.aau)
    baseline = ensure_baseline(args.baseline_aau)
    with tempfile.TemporaryDirectory(prefix="aau-bench-") as tmp:
        ctx = Context(
            ours=ours,
            baseline=baseline,
            sizes=QUICK if args.quick else FULL,
            runs=args.runs,
            quick=args.quick,
            work=Path(tmp),
        )
        facts = host_facts(ctx)
        log("host: " + ", ".join(f"{key}={value}" for key, value in facts.items()))
        # Warm both tools once (bytecode compilation, page cache) before anything is timed.
        for tool in filter(None, (ours, baseline)):
            _run([str(tool.exe), "--help"])
        rows = []
        plan = [(key, server) for key in args.only
                for server in (args.servers if key in SERVER_ROWS else [None])]
        for key, server in plan:
            log(f"[{key}] running{f' on {server}' if server else ''} ...")
            started = time.perf_counter()
            row = Row(key, ROW_NAMES[key], server=server)
            try:
                ROW_FUNCTIONS[key](
                    ctx, row
                )  # fills row in place, so a failure keeps what was measured
            except BenchError as error:
                row.error = str(error)
                log(f"[{key}] could not be measured: {error}")
            rows.append(row)
            log(
                f"[{key}] {row.name}: ours {row.ours}, aau 1.6 {row.baseline}, {row.ratio}, "
                f"met {row.met_text()} ({time.perf_counter() - started:.0f} s)"
            )

    if args.json:
        document = {
            "host": facts,
            "rows": [
                {
                    "key": r.key,
                    "server": r.server,
                    "name": r.name,
                    "ours": r.ours,
                    "baseline": r.baseline,
                    "ratio": r.ratio,
                    "target": r.target,
                    "met": r.met,
                    "error": r.error,
                    "notes": r.notes,
                    "numbers": r.numbers,
                }
                for r in rows
            ],
        }
        print(json.dumps(document, indent=2))
    else:
        print(markdown_table(rows))
        if args.quick:
            print(
                "\n--quick: sizes too small for targets a-c to mean anything; they are not judged."
            )
        if ours is None:
            print("\n--skip-ours: only aau 1.6 and the floors were measured.")
    missed = any(row.error or row.met is False for row in rows)
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
