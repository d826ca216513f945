"""A progress bar on stderr (rich) that appears only for runs longer than a second on a terminal.

``DelayedProgress`` is what the long-running commands show (``aau evaluate``; any command that runs
units): done/total, percent, failures, rate, elapsed, ETA and, given a cost callback, the cost so
far; nothing when stderr is not a terminal or with ``--quiet``. Commands whose runner reports
one line per run (``aau lab run``, ``aau bench agentdojo``) pass ``lines(echo)`` as that callback:
on a terminal the lines advance the bar; in a log (stderr not a terminal) they are printed.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

SHOW_AFTER_SECONDS = 1.0


class DelayedProgress:
    """Counts finished units; shows a rich progress bar once the run has lasted a second.

    Nothing is drawn when stderr is not a terminal (CI logs stay clean) or with ``quiet``. The
    bar shows done/total, failures, the rate (units per second), elapsed time and the ETA
    (rich's estimate from the recent rate), and the cost so far when ``cost`` is given.

    Args:
        total: units in the run.
        label: text in front of the bar.
        quiet: never draw (``--quiet``).
        completed: units already done (a resumed run starts its bar there).
        cost: called on each refresh for the US dollars spent so far (e.g. a ``CostTracker``'s
            total), or ``None``.
    """

    def __init__(self, total: int, label: str, *, quiet: bool = False, completed: int = 0,
                 cost: Any = None) -> None:
        self.total = total
        self.label = label
        self.quiet = quiet
        self.cost = cost
        self.completed = completed
        self.failed = 0
        self._lock = threading.Lock()
        self._progress: Any = None
        self._task: Any = None
        self._timer: threading.Timer | None = None
        self._initial = completed
        self._started = time.monotonic()

    def __enter__(self) -> DelayedProgress:
        if sys.stderr.isatty() and not self.quiet:
            self._timer = threading.Timer(SHOW_AFTER_SECONDS, self._show)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with self._lock:
            if self._timer is None:
                return
            columns: list[Any] = [
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TaskProgressColumn(), TextColumn("[red]{task.fields[failed]} failed"),
                TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"),
                TimeRemainingColumn()]
            if self.cost is not None:
                columns.append(TextColumn("{task.fields[cost]}"))
            progress = Progress(*columns, console=Console(stderr=True), transient=True)
            self._task = progress.add_task(self.label, total=self.total,
                                           completed=self.completed, failed=self.failed,
                                           **self._fields())
            progress.start()
            self._progress = progress

    def _fields(self) -> dict[str, str]:
        elapsed = time.monotonic() - self._started
        done = self.completed - self._initial
        rate = f"{done / elapsed:.1f}/s" if elapsed > 0 and done else "-/s"
        cost = f"${float(self.cost()):.4f}" if self.cost is not None else ""
        return {"rate": rate, "cost": cost}

    def lines(self, echo: Callable[[str], None]) -> Callable[[str], None] | None:
        """A per-run line callback (``run_eval``'s ``progress``) for this bar.

        Returns ``None`` with ``quiet``; else a callable that, on a terminal, advances the bar
        (a line with ``": error: "`` counts as failed, as ``run_eval`` writes an errored run)
        and otherwise passes the line to ``echo`` (CI logs keep one line per run).
        """
        if self.quiet:
            return None
        if not sys.stderr.isatty():
            return echo

        def advance(line: str) -> None:
            self.advance(": error: " in line)

        return advance

    def advance(self, failed: bool) -> None:
        """Record one finished unit (``failed``: it did not score ``exact``)."""
        with self._lock:
            self.completed += 1
            self.failed += int(failed)
            if self._progress is not None:
                self._progress.update(self._task, completed=self.completed, failed=self.failed,
                                      **self._fields())

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            timer, self._timer = self._timer, None
            if timer is not None:
                timer.cancel()
            refresher = None
            if self._progress is not None:
                # rich stops its refresh thread (a daemon) without waiting for it: keep it to wait
                refresher = getattr(self._progress.live, "_refresh_thread", None)
                self._progress.stop()
                self._progress = None
        # a timer already inside ``_show`` (importing rich) finds no timer and returns. Wait for
        # both threads: a daemon thread still inside an import or a wait when the interpreter
        # exits is ended by pthread_exit, which aborts CPython 3.11 (SIGABRT)
        for thread in (timer, refresher):
            if isinstance(thread, threading.Thread) and thread is not threading.current_thread():
                thread.join(timeout=5)
