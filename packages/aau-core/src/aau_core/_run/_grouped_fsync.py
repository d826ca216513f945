"""Grouped ``fsync`` for an append-only file: a short timer or a batch, whichever comes first.

A line handed to the OS with ``os.write`` already survives the death of the process (SIGKILL, a
crash): it is in the kernel's page cache, and the kernel writes it out. Only a power loss or a
kernel crash can lose it before it reaches the disk, and ``fsync`` is what closes that window. A
flush per line costs a disk round trip per line (100,000 ``--mock`` units: ~36 s of ``fsync`` on
the project's machine, against ~3 s for the run itself), so ``GroupedFsync`` groups them:

- the first line written after a quiet spell (no ``fsync`` for ``interval_s``) is synced at
  once, so a run whose units come slowly still flushes every unit as it finishes;
- a line written sooner waits for the next ``fsync``, which comes when ``batch`` lines are
  waiting, or when ``interval_s`` has passed since the last one (a background thread sees to it,
  so a line never waits longer, even when no other line follows);
- ``sync`` and ``close`` flush whatever is waiting (a run's end, Ctrl-C, a resume's rewrite).

So ``fsync`` runs at most once per ``interval_s`` unless ``batch`` lines fill up sooner, and on
power loss the lines lost are at most those written in the last ``interval_s`` seconds and at
most ``batch - 1`` of them (defaults: 0.5 s, 1,000 lines). The defaults: half a second is a
window a user re-runs without noticing (a resume re-runs those units), and it caps the cost at
two disk flushes a second for any run slower than 2,000 units a second; 1,000 lines bound the
count for the fastest runs (``--mock``: ~30,000 units a second on 2 cores, i.e. ~30 flushes a
second, each ~0.4 ms here).

An ``fsync`` that fails in the background thread (``EIO``, a full disk on some file systems) is
raised by the next ``wrote``, ``sync`` or ``close``.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

FSYNC_INTERVAL_S = 0.5
FSYNC_BATCH = 1000


class GroupedFsync:
    """When to ``fsync`` one append-only file descriptor (module docstring).

    Args:
        fd: the open file descriptor (the caller keeps it open until ``close`` returns).
        interval_s: the longest a written line waits for its ``fsync``, in seconds (> 0).
        batch: the most lines that wait at once (>= 1; 1 = ``fsync`` after every line).
        clock: monotonic seconds (a fake clock in tests).
        fsync: the flush itself, called with ``fd`` (``os.fsync``; a counter in tests).
        background: start the thread that syncs a waiting line once ``interval_s`` has
            passed; without it, a waiting line is synced by the next ``wrote`` that finds
            the interval over, or by ``sync``/``close`` (tests drive the clock this way).

    Safe from several threads.
    """

    def __init__(self, fd: int, *, interval_s: float = FSYNC_INTERVAL_S,
                 batch: int = FSYNC_BATCH, clock: Callable[[], float] = time.monotonic,
                 fsync: Callable[[int], None] = os.fsync, background: bool = True) -> None:
        if not interval_s > 0 or batch < 1:
            raise ValueError("interval_s must be > 0 and batch >= 1")
        self._fd = fd
        self._interval = interval_s
        self._batch = batch
        self._clock = clock
        self._fsync = fsync
        self._background = background
        self._waiting = 0  # lines written since the last fsync
        self._last = float("-inf")  # clock() at the last fsync
        self._error: OSError | None = None
        self._closed = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        # True while the timer thread sleeps until the next due fsync: a line written then
        # changes nothing it waits for (the due time depends on the last fsync only), so
        # ``wrote`` does not wake it -- a wake-up per line cost a thread switch per unit
        self._timer_armed = False

    @property
    def waiting(self) -> int:
        """Lines written and not yet synced (what a power loss now could lose)."""
        return self._waiting

    def wrote(self) -> None:
        """Count one line just written to ``fd``; sync now when the batch is full or the
        interval since the last ``fsync`` is over, else leave it to the timer.

        Raises:
            OSError: this ``fsync``, or an earlier one in the background, failed.
        """
        with self._cond:
            self._raise_error()
            self._waiting += 1
            if self._waiting >= self._batch or self._clock() - self._last >= self._interval:
                self._sync_now()
            elif self._background:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, daemon=True,
                                                    name="aau-checkpoint-fsync")
                    self._thread.start()
                if not self._timer_armed:
                    self._cond.notify()

    def sync(self) -> None:
        """``fsync`` now if any line is waiting.

        Raises:
            OSError: the ``fsync`` (or an earlier one in the background) failed.
        """
        with self._cond:
            self._raise_error()
            if self._waiting:
                self._sync_now()

    def close(self, *, sync: bool = True) -> None:
        """Sync what is waiting (unless ``sync`` is false: the file is about to be deleted)
        and stop the timer thread (``fd`` is not closed here).

        Raises:
            OSError: as ``sync``; the thread is stopped all the same.
        """
        try:
            if sync:
                self.sync()
        finally:
            with self._cond:
                self._closed = True
                self._cond.notify()
            if self._thread is not None:
                self._thread.join()

    def _raise_error(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _sync_now(self) -> None:  # with self._cond held
        self._fsync(self._fd)
        self._waiting = 0
        self._last = self._clock()

    def _run(self) -> None:
        with self._cond:
            while not self._closed:
                if not self._waiting or self._error is not None:
                    self._timer_armed = False
                    self._cond.wait()
                    continue
                due = self._last + self._interval - self._clock()
                if due > 0:
                    self._timer_armed = True
                    self._cond.wait(due)
                    continue
                self._timer_armed = False
                try:
                    self._sync_now()
                except OSError as exc:
                    self._error = exc
