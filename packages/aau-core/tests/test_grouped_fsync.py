"""Grouped fsync of the checkpoint: the power-loss window is a property, shown with a fake clock.

``GroupedFsync`` (``aau_core._run._grouped_fsync``) syncs at most once per interval unless the
batch fills, never leaves more than ``batch - 1`` lines waiting, and always syncs at close.
Every line is written to the OS before ``Checkpoint.append`` returns, whatever the fsyncs do
(the SIGKILL test is in tests/test_resume_evaluate.py).
"""

from __future__ import annotations

import json
import os
import random
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from aau_core import Checkpoint, ScenarioResult, open_checkpoint, read_checkpoint
from aau_core._run._grouped_fsync import FSYNC_BATCH, FSYNC_INTERVAL_S, GroupedFsync
from aau_core._run._runner import result_to_json


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Fsyncs:
    """Records the fake clock's time at each fsync."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.at: list[float] = []

    def __call__(self, fd: int) -> None:
        self.at.append(self.clock.now)


def _grouped(interval: float = 0.5, batch: int = 4) -> tuple[GroupedFsync, FakeClock, Fsyncs]:
    clock = FakeClock()
    fsyncs = Fsyncs(clock)
    return (GroupedFsync(-1, interval_s=interval, batch=batch, clock=clock, fsync=fsyncs,
                         background=False), clock, fsyncs)


def test_the_defaults_are_the_documented_window() -> None:
    assert (FSYNC_INTERVAL_S, FSYNC_BATCH) == (0.5, 1000)


def test_a_quiet_line_syncs_at_once_a_burst_waits_for_the_interval_or_the_batch() -> None:
    sync, clock, fsyncs = _grouped(interval=0.5, batch=4)
    sync.wrote()  # the first line after a quiet spell: synced at once
    assert fsyncs.at == [100.0] and sync.waiting == 0
    for t in (100.1, 100.2, 100.4):
        clock.now = t
        sync.wrote()
    assert fsyncs.at == [100.0] and sync.waiting == 3  # within the interval: they wait
    clock.now = 100.5  # the interval is over: this line syncs the four waiting
    sync.wrote()
    assert fsyncs.at == [100.0, 100.5] and sync.waiting == 0
    for t in (100.6, 100.61, 100.62):
        clock.now = t
        sync.wrote()
    assert sync.waiting == 3
    clock.now = 100.63  # the fourth waiting line fills the batch
    sync.wrote()
    assert fsyncs.at == [100.0, 100.5, 100.63] and sync.waiting == 0
    clock.now = 100.7
    sync.wrote()
    sync.close()  # close syncs what waits
    assert fsyncs.at == [100.0, 100.5, 100.63, 100.7] and sync.waiting == 0


def test_close_syncs_only_when_a_line_waits() -> None:
    sync, clock, fsyncs = _grouped()
    sync.close()
    assert fsyncs.at == []
    sync, clock, fsyncs = _grouped()
    sync.wrote()
    sync.close()
    assert fsyncs.at == [100.0]  # already synced: close adds none


def test_over_random_bursts_fsync_is_at_most_once_per_interval_unless_the_batch_fills() -> None:
    interval, batch = 0.5, 25
    rng = random.Random(17)
    sync, clock, fsyncs = _grouped(interval=interval, batch=batch)
    written: list[float] = []  # when each line was written
    synced_upto = 0  # lines covered by an fsync
    reasons: list[str] = []
    burst = 0
    for _ in range(5000):
        if not burst and rng.random() < 0.02:
            burst = rng.randint(10, 80)  # a burst of fast units (some fill the batch)
        burst = max(burst - 1, 0)
        clock.now += 0.001 if burst else rng.choice([0.0, 0.001, 0.01, 0.05, 0.3, 2.0])
        before = len(fsyncs.at)
        sync.wrote()
        written.append(clock.now)
        assert sync.waiting <= batch - 1  # never more than batch - 1 lines at risk
        if len(fsyncs.at) > before:
            reasons.append("batch" if len(written) - synced_upto == batch else "interval")
            synced_upto = len(written)
        # every line still waiting was written less than one interval after the last fsync
        last = fsyncs.at[-1]
        assert all(t - last < interval for t in written[synced_upto:])
    assert len(reasons) == len(fsyncs.at)
    for k in range(1, len(fsyncs.at)):
        assert reasons[k] == "batch" or fsyncs.at[k] - fsyncs.at[k - 1] >= interval
    assert reasons.count("batch") > 0 and reasons.count("interval") > 0  # both paths ran
    assert len(fsyncs.at) < len(written) / 3  # grouped: far fewer fsyncs than lines
    sync.close()
    assert sync.waiting == 0 and fsyncs.at[-1] == clock.now


def _second_fsync_sets() -> tuple[list[int], threading.Event, Callable[[int], None]]:
    """An fsync that records its descriptors and sets the event at the second call."""
    calls: list[int] = []
    synced = threading.Event()

    def fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 2:
            synced.set()

    return calls, synced, fsync


def test_the_timer_syncs_a_waiting_line_when_no_other_line_follows() -> None:
    calls, synced, fsync = _second_fsync_sets()
    sync = GroupedFsync(7, interval_s=0.05, batch=100, fsync=fsync)
    sync.wrote()  # synced at once
    sync.wrote()  # waits for the timer: nothing else is written
    assert synced.wait(10), "the background thread never synced the waiting line"
    assert calls == [7, 7] and sync.waiting == 0
    sync.close()
    assert calls == [7, 7]


class CountingCondition(threading.Condition):
    """A condition that counts its ``notify`` calls (each one wakes the timer thread)."""

    def __init__(self) -> None:
        super().__init__()
        self.notified = 0

    def notify(self, n: int = 1) -> None:
        self.notified += 1
        super().notify(n)


def test_lines_written_while_the_timer_waits_do_not_wake_it() -> None:
    # a wake-up per line was a thread switch per unit (~0.05-0.1 s of CPU per 1,000 endpoint
    # cases); the timer's due time depends only on the last fsync, so one wake-up arms it
    calls, synced, fsync = _second_fsync_sets()
    sync = GroupedFsync(5, interval_s=1.0, batch=10_000, fsync=fsync)
    condition = CountingCondition()
    sync._cond = condition  # before the first line: the timer thread waits on it
    sync.wrote()  # synced at once, no thread yet
    sync.wrote()  # starts the timer thread and wakes it: the one notify
    for _ in range(50):  # the thread arms its timer within microseconds when it gets a core
        if sync._timer_armed:
            break
        synced.wait(0.01)
    assert sync._timer_armed
    for _ in range(500):
        sync.wrote()
    assert condition.notified == 1
    assert synced.wait(10), "the timer never synced the waiting lines"
    assert calls == [5, 5] and sync.waiting == 0
    sync.close()
    assert calls == [5, 5]


def test_a_background_fsync_failure_is_raised_by_the_next_call() -> None:
    failed = threading.Event()

    def fsync(fd: int) -> None:
        if failed.is_set():
            return
        if getattr(fsync, "armed", False):
            failed.set()
            raise OSError(5, "Input/output error")
        fsync.armed = True  # type: ignore[attr-defined]

    sync = GroupedFsync(3, interval_s=0.02, batch=100, fsync=fsync)
    sync.wrote()
    sync.wrote()
    assert failed.wait(10)
    with pytest.raises(OSError, match="Input/output error"):
        sync.wrote()
    sync.close()


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        GroupedFsync(0, interval_s=0)
    with pytest.raises(ValueError):
        GroupedFsync(0, batch=0)


def _result(i: int) -> dict:
    return result_to_json(ScenarioResult(f"s-{i}", 0, {"correct": i % 2 == 0}))


def _header(tmp_path: Path) -> tuple[Path, dict]:
    path = tmp_path / "run.jsonl"
    open_checkpoint(path, producer="run_eval", units=5000,
                    binding={"suite_digest": "sha256:" + "0" * 64, "adapter": {"run_one": "f"},
                             "config": {}}, created_at="2026-12-02T00:00:00Z",
                    resume=False).close()
    header, _, _ = read_checkpoint(path)
    return path, header


def test_checkpoint_lines_reach_the_os_at_once_and_fsyncs_are_grouped(tmp_path: Path) -> None:
    path, header = _header(tmp_path)
    clock = FakeClock()
    fsyncs = Fsyncs(clock)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    ckpt = Checkpoint(path, header, {}, fd, syncing=lambda fd: GroupedFsync(
        fd, clock=clock, fsync=fsyncs, background=False))
    size = path.stat().st_size
    for i in range(2500):  # 2,500 units within 0.25 s of fake time: only the batch syncs
        clock.now = 100.0 + i * 1e-4
        ckpt.append(i, _result(i))
        grown = path.stat().st_size
        assert grown > size  # written to the OS before append returned
        size = grown
    assert len(fsyncs.at) == 3  # the first line, then a full batch at lines 1,001 and 2,001
    ckpt.discard([0])  # the rewrite is fsync'd by its atomic write; the waiting lines are moot
    ckpt.append(0, _result(0))
    clock.now += 0.1
    ckpt.append(2500, _result(2500))
    count = len(fsyncs.at)
    assert count == 4  # discard's rewrite syncs itself; the new file's first line syncs at once
    ckpt.close()  # the final fsync, with one line waiting
    assert len(fsyncs.at) == count + 1
    _, finished, _ = read_checkpoint(path)
    assert sorted(finished) == list(range(2501))
    assert json.loads(path.read_text().splitlines()[-1])["index"] == 2500


def test_remove_skips_the_final_fsync_and_stops_the_timer(tmp_path: Path) -> None:
    path, header = _header(tmp_path)
    calls: list[int] = []
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    ckpt = Checkpoint(path, header, {}, fd, syncing=lambda fd: GroupedFsync(
        fd, interval_s=60.0, fsync=calls.append))
    ckpt.append(0, _result(0))
    ckpt.append(1, _result(1))  # waits (60 s interval): its timer thread is running
    assert len(calls) == 1
    threads = threading.active_count()
    ckpt.remove()
    assert len(calls) == 1 and not path.exists()
    assert threading.active_count() == threads - 1
