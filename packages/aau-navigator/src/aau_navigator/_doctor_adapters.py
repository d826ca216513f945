"""Run a starter project's two adapters against its suite (``aau doctor --run-adapter``).

- The command adapter runs as ``<this python> adapter_command.py`` through aau-adapters'
  ``CommandAdapter``, once per case.
- The HTTP adapter is started as ``<this python> adapter_endpoint.py 0`` in the project folder: it
  must bind a free local port and print ``serving http://127.0.0.1:<port>/evaluate`` as its
  first line on stdout within ``START_TIMEOUT_S``; every case is then POSTed to it through
  ``EndpointAdapter``, and the server is stopped (terminate, then kill) whatever happens.

Both return an ``AdapterRun``: the exact rate over the suite's cases, or why the adapter could
not be measured. Running an adapter executes project code: only on request.
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import attrs

ADAPTER_TIMEOUT_S = 10.0
"""Seconds allowed per case for either adapter."""

START_TIMEOUT_S = 10.0
"""Seconds the HTTP adapter has to print the URL it serves."""

_SERVING = re.compile(r"serving (http://127\.0\.0\.1:[0-9]{1,5}/evaluate)\s*$")


@attrs.frozen
class AdapterRun:
    """The outcome of running one adapter over a suite.

    Attributes:
        label: ``"command adapter"`` or ``"HTTP adapter"``.
        exact_rate: share of cases answered exactly (0..1), or ``None`` when it could not run.
        cases: number of cases sent.
        problem: why it could not run or what failed first (one line), or ``None``.
    """

    label: str
    exact_rate: float | None
    cases: int
    problem: str | None = None

    @property
    def passed(self) -> bool:
        """True when every case was answered exactly."""
        return self.exact_rate == 1.0

    def describe(self) -> str:
        """One line, e.g. ``"command adapter: exact_rate 1.000 over 4 cases"``."""
        if self.exact_rate is None:
            return f"{self.label}: {self.problem}"
        text = f"{self.label}: exact_rate {self.exact_rate:.3f} over {self.cases} cases"
        return f"{text} ({self.problem})" if self.problem else text


def _measure(label: str, suite: Any, adapter: Any) -> AdapterRun:
    from aau_adapters import compute_metrics, evaluate

    try:
        run = evaluate(suite, adapter, timeout_s=ADAPTER_TIMEOUT_S)
    finally:
        adapter.close()
    rows = [unit.row for unit in run.units]
    rate = compute_metrics(rows)["exact_rate"]
    codes = sorted({code for row in rows for code in row["failure_codes"]})
    return AdapterRun(label, rate, len(rows), ", ".join(codes) or None)


def run_command_adapter(root: Path, suite: Any) -> AdapterRun:
    """Measure ``root/adapter_command.py`` on ``suite`` (an ``aau_adapters.Suite``)."""
    from aau_adapters import choose_adapter

    script = str(root / "adapter_command.py")
    make = choose_adapter(command=[sys.executable, script], timeout=ADAPTER_TIMEOUT_S)
    return _measure("command adapter", suite, make())


def _first_line(stream: Any, lines: queue.Queue[str]) -> None:
    try:
        lines.put(stream.readline().decode("utf-8", "replace"))
    except (OSError, ValueError):
        lines.put("")


def run_http_adapter(root: Path, suite: Any) -> AdapterRun:
    """Start ``root/adapter_endpoint.py`` on a free port and measure it on ``suite``."""
    from aau_adapters import choose_adapter

    label = "HTTP adapter"
    try:
        proc = subprocess.Popen([sys.executable, "adapter_endpoint.py", "0"], cwd=root,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    except OSError as exc:
        return AdapterRun(label, None, 0, f"cannot start adapter_endpoint.py: {exc}")
    reader = None
    try:
        lines: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=_first_line, args=(proc.stdout, lines), daemon=True)
        reader.start()
        try:
            first = lines.get(timeout=START_TIMEOUT_S)
        except queue.Empty:
            first = None
        found = _SERVING.match(first or "")
        if not found:
            return AdapterRun(label, None, 0, _not_serving(proc, first))
        make = choose_adapter(endpoint=found.group(1), timeout=ADAPTER_TIMEOUT_S)
        return _measure(label, suite, make())
    finally:
        _stop(proc, reader)
        if proc.stderr is not None:
            proc.stderr.close()


def _not_serving(proc: subprocess.Popen[bytes], first: str | None) -> str:
    if first is None:
        return (f"adapter_endpoint.py did not print its URL within {START_TIMEOUT_S:g} s "
                "(expected 'serving http://127.0.0.1:PORT/evaluate')")
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass
    if proc.returncode is None:
        return f"adapter_endpoint.py printed {first.strip()[:120]!r} instead of its URL"
    _stop(proc)
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    tail = [line for line in err.strip().splitlines() if line.strip()][-1:] or ["no stderr"]
    return f"adapter_endpoint.py exited with status {proc.returncode} before serving: {tail[0][:200]}"


def _stop(proc: subprocess.Popen[bytes], reader: threading.Thread | None = None) -> None:
    """End ``proc``, then wait for the thread reading its first line: with the process gone
    its read ends, and a daemon thread left inside a read when the interpreter exits aborts
    the process on CPython 3.11 (``aau_adapters._evaluation`` says more)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if reader is not None:
        reader.join(timeout=5)  # a grandchild may hold the pipe open: do not wait forever
    if proc.stdout is not None and not proc.stdout.closed:
        proc.stdout.close()
