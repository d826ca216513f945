"""The Ray executor: the same units as ``run_units``, run as Ray tasks (optional extra ``aau-core[ray]``).

``ray_executor(address=None)`` returns a callable with ``run_units``' signature and guarantees:
results in input order; at most ``concurrency`` tasks in flight (each task asks for no CPU, so
the limit is ours, as with the local executor's threads, not the cluster's CPU count); a unit
that raises, on the worker or in transit, becomes that unit's result through ``on_error``;
``on_done`` runs in the calling process as units finish (so checkpoints and progress stay
local); Ctrl-C or SIGTERM cancels the in-flight tasks (``ray.cancel(force=True)``, which kills
the worker and so any child process it started) and raises ``Interrupted`` with the finished
units.

``fn`` and the items are shipped to the workers with cloudpickle, so they must not capture
locks, open files or processes: ``aau evaluate`` sends an adapter factory and builds the adapter
on each worker (command adapters run there). Per-unit timeouts are enforced on the worker by the
unit function itself, as locally.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any

from .._errors import Interrupted, UsageError
from ._execution import INTERRUPT_SIGNALS

INSTALL_HINT = "pip install 'aau-core[ray]'"
_POLL_SECONDS = 0.1


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError(f"--executor ray needs Ray, which is not installed: {INSTALL_HINT}") from None
    return ray


def _call(fn: Callable[[Any], Any], item: Any) -> tuple[bool, Any]:
    try:
        return True, fn(item)
    except Exception as exc:  # noqa: BLE001 - isolation: sent back to on_error
        return False, exc


def ray_executor(*, address: str | None = None,
                 init_kwargs: dict[str, Any] | None = None) -> Callable[..., list[Any]]:
    """Return an executor with ``run_units``' signature that runs units as Ray tasks.

    Args:
        address: the cluster to join (``"auto"``, ``"ray://head:10001"``); ``None`` joins the
            cluster Ray is already connected to, else starts a local one (``ray.init()``).
        init_kwargs: extra ``ray.init`` arguments (e.g. ``{"num_cpus": 2}``).

    Returns:
        ``execute(items, fn, *, on_error, concurrency=1, on_done=None, cancel=None) -> list``.

    Raises:
        UsageError: Ray is not installed (the message names ``pip install 'aau-core[ray]'``).
    """
    ray = _import_ray()

    def execute(items: Sequence[Any], fn: Callable[[Any], Any], *,
                on_error: Callable[[Any, BaseException], Any], concurrency: int = 1,
                on_done: Callable[[int, Any], None] | None = None,
                cancel: Callable[[], None] | None = None) -> list[Any]:
        if concurrency < 1:
            raise ValueError("concurrency must be >= 1")
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     **(init_kwargs or {}))
        task = ray.remote(num_cpus=0, max_retries=0)(_call)
        fn_ref = ray.put(fn)
        results: dict[int, Any] = {}
        pending: dict[Any, int] = {}
        next_index = 0
        hit = threading.Event()
        guard: Any = contextlib.nullcontext()
        if threading.current_thread() is threading.main_thread():
            guard = contextlib.ExitStack()
            for signum in INTERRUPT_SIGNALS:  # SIGTERM is handled exactly like Ctrl-C
                guard.callback(signal.signal, signum, signal.signal(signum, lambda *_: hit.set()))
        with guard:
            while next_index < len(items) or pending:
                if hit.is_set():
                    for ref in pending:
                        ray.cancel(ref, force=True)
                    if cancel is not None:
                        cancel()
                    raise Interrupted("interrupted", finished=dict(results))
                while next_index < len(items) and len(pending) < concurrency:
                    pending[task.remote(fn_ref, items[next_index])] = next_index
                    next_index += 1
                refs = list(pending)
                ready, _ = ray.wait(refs, num_returns=1, timeout=_POLL_SECONDS)
                if ready:  # take every unit that is ready now, not one per round trip
                    ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
                for ref in ready:
                    index = pending.pop(ref)
                    try:
                        ok, value = ray.get(ref)
                    except Exception as exc:  # noqa: BLE001 - worker died, unpicklable result
                        ok, value = False, exc
                    results[index] = value if ok else on_error(items[index], value)
                    if on_done is not None:
                        on_done(index, results[index])
        return [results[i] for i in range(len(items))]

    return execute
