"""The execution layer: run independent units (scenario x repeat) under bounded concurrency.

Guarantees:

- results come back in input order, whatever the concurrency and finishing order;
- a unit that raises becomes that unit's failure result (built by ``on_error``), never the run's;
- at most ``concurrency`` units run at once and at most ``2 * concurrency`` are queued, so
  memory stays flat for very large runs;
- Ctrl-C (SIGINT) or SIGTERM stops scheduling, calls ``cancel`` (which must make in-flight units
  return quickly, e.g. by killing child process groups), waits briefly for them, and raises
  ``Interrupted`` carrying every result finished before the interrupt (units cut short by the
  cancellation are not among them).

Interrupt handling. SIGTERM (what CI cancellation, ``docker stop``, Kubernetes and ``timeout``
send) is handled exactly like the first Ctrl-C. While units run in the main thread, SIGINT and
SIGTERM are handled by a handler that raises ``KeyboardInterrupt`` once and ignores every later
SIGINT or SIGTERM (tools such as ``timeout`` signal a process twice, microseconds apart). With
worker threads, the handler only sets a flag that the main thread polls, so no exception is ever
raised inside a lock or condition wait (an asynchronous ``KeyboardInterrupt`` there can leave a
lock held and deadlock the drain). The previous handlers are restored on return; off the main
thread, signals are left alone.

Per-unit timeouts are the unit function's job (adapters enforce them on the child process or the
HTTP exchange); threads cannot be killed from outside.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from .._errors import Interrupted

T = TypeVar("T")
R = TypeVar("R")

_DRAIN_SECONDS = 5.0
_POLL_SECONDS = 0.1
# the signals that interrupt a run: Ctrl-C, and what CI, `docker stop`, Kubernetes and `timeout` send
INTERRUPT_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _SigintState:
    def __init__(self) -> None:
        self.hit = threading.Event()


@contextlib.contextmanager
def _sigint_guard(*, raise_first: bool) -> Iterator[_SigintState]:
    state = _SigintState()
    if threading.current_thread() is not threading.main_thread():
        yield state
        return

    def handler(signum: int, frame: Any) -> None:
        if state.hit.is_set():
            return  # a repeated Ctrl-C or SIGTERM must not break the clean shutdown of the first
        state.hit.set()
        if raise_first:
            raise KeyboardInterrupt

    previous = {signum: signal.signal(signum, handler) for signum in INTERRUPT_SIGNALS}
    try:
        yield state
    finally:
        for signum, before in previous.items():
            signal.signal(signum, before)


def run_units(
    items: Sequence[T],
    fn: Callable[[T], R],
    *,
    on_error: Callable[[T, BaseException], R],
    concurrency: int = 1,
    on_done: Callable[[int, R], None] | None = None,
    cancel: Callable[[], None] | None = None,
) -> list[R]:
    """Run ``fn`` over ``items`` and return the results in input order.

    Args:
        items: the units (any objects).
        fn: runs one unit; called from worker threads when ``concurrency > 1``.
        on_error: turns an exception raised by ``fn(item)`` into that unit's result.
        concurrency: most units running at once (>= 1); 1 runs inline, no threads.
        on_done: called in the calling thread as ``on_done(index, result)`` when a unit finishes
            (progress bars, checkpoints); exceptions from it propagate.
        cancel: called once on Ctrl-C or SIGTERM to make in-flight units finish quickly.

    Returns:
        a list with one result per item, ``results[i]`` for ``items[i]``.

    Raises:
        ValueError: ``concurrency < 1``.
        Interrupted: Ctrl-C or SIGTERM; ``.finished`` is a ``dict[int, R]`` of the units that
            completed.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be >= 1")
    results: dict[int, R] = {}

    def guarded(item: T) -> R:
        try:
            return fn(item)
        except Exception as exc:  # noqa: BLE001 - isolation is the point
            return on_error(item, exc)

    if concurrency == 1 or len(items) <= 1:
        with _sigint_guard(raise_first=True):
            try:
                for index, item in enumerate(items):
                    result = guarded(item)
                    results[index] = result
                    if on_done is not None:
                        on_done(index, result)
            except KeyboardInterrupt:
                if cancel is not None:
                    cancel()
                raise Interrupted("interrupted", finished=dict(results)) from None
        return [results[i] for i in range(len(items))]

    pool = cf.ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="aau-unit")
    pending: dict[cf.Future[R], int] = {}
    next_index = 0
    with _sigint_guard(raise_first=False) as sigint:
        try:
            interrupted = False
            try:
                while next_index < len(items) or pending:
                    if sigint.hit.is_set():
                        interrupted = True
                        break
                    while next_index < len(items) and len(pending) < 2 * concurrency:
                        pending[pool.submit(guarded, items[next_index])] = next_index
                        next_index += 1
                    done, _ = cf.wait(pending, timeout=_POLL_SECONDS,
                                      return_when=cf.FIRST_COMPLETED)
                    for future in done:
                        index = pending.pop(future)
                        results[index] = future.result()
                        if on_done is not None:
                            on_done(index, results[index])
            except KeyboardInterrupt:  # raised by a handler other than ours (not main thread)
                interrupted = True
            if interrupted:
                for future in pending:
                    future.cancel()
                if cancel is not None:
                    cancel()
                # let in-flight units unwind (cancel() made them fail fast); their results are
                # artefacts of the cancellation, so they are not counted as finished
                cf.wait(pending, timeout=_DRAIN_SECONDS)
                raise Interrupted("interrupted", finished=dict(results))
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
    return [results[i] for i in range(len(items))]
