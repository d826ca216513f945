"""A progress bar on stderr (rich) that appears only for runs longer than a second on a terminal."""

from __future__ import annotations

import sys
import threading
from typing import Any

SHOW_AFTER_SECONDS = 1.0


class DelayedProgress:
    """Counts finished units; shows a rich progress bar once the run has lasted a second.

    Nothing is drawn when stderr is not a terminal (CI logs stay clean).

    Args:
        total: units in the run.
        label: text in front of the bar.
    """

    def __init__(self, total: int, label: str) -> None:
        self.total = total
        self.label = label
        self.completed = 0
        self.failed = 0
        self._lock = threading.Lock()
        self._progress: Any = None
        self._task: Any = None
        self._timer: threading.Timer | None = None

    def __enter__(self) -> DelayedProgress:
        if sys.stderr.isatty():
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
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with self._lock:
            if self._timer is None:
                return
            progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("[red]{task.fields[failed]} failed"), TimeElapsedColumn(),
                TimeRemainingColumn(), console=Console(stderr=True), transient=True,
            )
            self._task = progress.add_task(self.label, total=self.total,
                                           completed=self.completed, failed=self.failed)
            progress.start()
            self._progress = progress

    def advance(self, failed: bool) -> None:
        """Record one finished unit (``failed``: it did not score ``exact``)."""
        with self._lock:
            self.completed += 1
            self.failed += int(failed)
            if self._progress is not None:
                self._progress.update(self._task, completed=self.completed, failed=self.failed)

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._progress is not None:
                self._progress.stop()
                self._progress = None
