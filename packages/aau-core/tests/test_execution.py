"""The execution layer: order, isolation, bounded concurrency, Ctrl-C and SIGTERM."""

from __future__ import annotations

import os
import random
import signal
import threading
import time

import pytest
from aau_core import Interrupted, run_units


def _on_error(item, exc):
    return ("error", item, type(exc).__name__)


@pytest.mark.parametrize("concurrency", [1, 2, 8])
def test_results_in_input_order_whatever_the_finishing_order(concurrency):
    rng = random.Random(7)
    delays = [rng.uniform(0, 0.01) for _ in range(40)]

    def work(i):
        time.sleep(delays[i])
        return i * i

    assert run_units(list(range(40)), work, on_error=_on_error,
                     concurrency=concurrency) == [i * i for i in range(40)]


@pytest.mark.parametrize("concurrency", [1, 4])
def test_one_unit_raising_is_that_units_failure_only(concurrency):
    def work(i):
        if i == 3:
            raise RecursionError("deep")
        return i

    out = run_units(list(range(6)), work, on_error=_on_error, concurrency=concurrency)
    assert out == [0, 1, 2, ("error", 3, "RecursionError"), 4, 5]


def test_concurrency_is_bounded():
    live = 0
    peak = 0
    lock = threading.Lock()

    def work(i):
        nonlocal live, peak
        with lock:
            live += 1
            peak = max(peak, live)
        time.sleep(0.01)
        with lock:
            live -= 1
        return i

    run_units(list(range(50)), work, on_error=_on_error, concurrency=5)
    assert 2 <= peak <= 5


def test_on_done_sees_every_unit_once():
    seen = []
    run_units(list(range(20)), lambda i: i, on_error=_on_error, concurrency=4,
              on_done=lambda index, result: seen.append((index, result)))
    assert sorted(seen) == [(i, i) for i in range(20)]


@pytest.mark.parametrize("concurrency", [1, 4])
def test_ctrl_c_keeps_finished_units_and_calls_cancel(concurrency):
    cancelled = []

    def on_done(index, result):
        if index == 5:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted) as info:
        run_units(list(range(100)), lambda i: i, on_error=_on_error, concurrency=concurrency,
                  on_done=on_done, cancel=lambda: cancelled.append(True))
    finished = info.value.finished
    assert 5 in finished and all(finished[i] == i for i in finished)
    assert len(finished) < 100
    assert cancelled == [True]
    assert info.value.exit_code == 130



@pytest.mark.parametrize("concurrency", [1, 4])
def test_sigterm_is_the_first_ctrl_c_and_the_handlers_come_back(concurrency):
    """A real SIGTERM (sent twice, as `timeout` does) stops the run as Ctrl-C does; the handlers
    in place before the run are back afterwards."""
    seen = []
    cancelled = []

    def recorder(signum, frame):  # stands in for the caller's handler (and keeps pytest alive)
        seen.append(signum)

    def work(i):
        if i == 5:
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.01)
        return i

    previous_int = signal.getsignal(signal.SIGINT)
    previous_term = signal.signal(signal.SIGTERM, recorder)
    try:
        with pytest.raises(Interrupted) as info:
            run_units(list(range(100)), work, on_error=_on_error, concurrency=concurrency,
                      cancel=lambda: cancelled.append(True))
        assert signal.getsignal(signal.SIGTERM) is recorder
        assert signal.getsignal(signal.SIGINT) is previous_int
    finally:
        signal.signal(signal.SIGTERM, previous_term)
    finished = info.value.finished
    assert all(finished[i] == i for i in finished) and len(finished) < 100
    if concurrency == 1:
        assert sorted(finished) == [0, 1, 2, 3, 4]  # unit 5 was cut short, nothing ran after it
    assert cancelled == [True] and seen == []  # ours handled both; the caller's saw none
    assert info.value.exit_code == 130

def test_bad_concurrency():
    with pytest.raises(ValueError):
        run_units([1], lambda i: i, on_error=_on_error, concurrency=0)
