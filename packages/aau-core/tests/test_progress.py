"""The progress bar (aau_core.DelayedProgress, as aau evaluate uses it) appears only on a terminal,
only for runs longer than the delay, never with quiet; it shows rate, ETA and cost."""

from __future__ import annotations

import io
import sys
import time

from aau_core._run import _progress


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_shows_on_a_terminal_after_the_delay(monkeypatch):
    fake = _Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    monkeypatch.setattr(_progress, "SHOW_AFTER_SECONDS", 0.05)
    with _progress.DelayedProgress(3, "suite") as progress:
        progress.advance(failed=False)
        deadline = time.monotonic() + 20  # rich's first import can take a while on a busy host
        while progress._progress is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert progress._progress is not None  # shown once the run outlived the delay
        progress.advance(failed=True)
        progress.advance(failed=False)
    assert progress._progress is None  # stopped on exit
    assert (progress.completed, progress.failed) == (3, 1)


def test_no_bar_for_a_short_run(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Tty())
    with _progress.DelayedProgress(2, "suite") as progress:  # the default 1 s delay
        progress.advance(failed=False)
        progress.advance(failed=False)
    assert progress._progress is None
    assert sys.stderr.getvalue() == ""


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch):
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buffer)
    monkeypatch.setattr(_progress, "SHOW_AFTER_SECONDS", 0.0)
    with _progress.DelayedProgress(1, "suite") as progress:
        time.sleep(0.1)
        assert progress._timer is None and progress._progress is None
        progress.advance(failed=False)
    assert buffer.getvalue() == ""


def test_quiet_never_draws(monkeypatch):
    fake = _Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    monkeypatch.setattr(_progress, "SHOW_AFTER_SECONDS", 0.0)
    with _progress.DelayedProgress(2, "suite", quiet=True) as progress:
        time.sleep(0.1)
        progress.advance(failed=False)
        assert progress._timer is None and progress._progress is None
    assert fake.getvalue() == ""


def test_rate_eta_and_cost_are_drawn(monkeypatch):
    fake = _Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    monkeypatch.setattr(_progress, "SHOW_AFTER_SECONDS", 0.0)
    spent = [0.0]
    with _progress.DelayedProgress(10, "suite", completed=4, cost=lambda: spent[0]) as progress:
        time.sleep(0.1)
        for _ in range(3):
            spent[0] += 0.125
            progress.advance(failed=False)
            time.sleep(0.05)
        assert progress._progress is not None
        task = progress._progress.tasks[0]
        assert task.completed == 7 and task.total == 10  # a resumed run starts at 4
        assert task.fields["cost"] == "$0.3750"
        assert task.fields["rate"].endswith("/s") and task.fields["rate"] != "-/s"
        progress._progress.refresh()
    shown = fake.getvalue()
    assert "7/10" in shown and "$0.3750" in shown and "/s" in shown and "ETA" in shown


def test_per_run_lines_drive_the_bar_on_a_terminal_and_print_in_a_log(monkeypatch):
    """`aau lab run` / `aau bench agentdojo`: run_eval's per-run lines advance the bar on a
    terminal (an errored run counts as failed), are printed in a log, and vanish with quiet."""
    printed: list[str] = []
    monkeypatch.setattr(sys, "stderr", _Tty())
    with _progress.DelayedProgress(2, "lab") as progress:
        sink = progress.lines(printed.append)
        sink("repeat 1/1 scenario s-1: {'exact': 1.0} $0.0000")
        sink("repeat 1/1 scenario s-2: error: ProviderError: HTTP 500 $0.0000")
    assert (progress.completed, progress.failed, printed) == (2, 1, [])
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with _progress.DelayedProgress(1, "lab") as progress:
        assert progress.lines(printed.append) == printed.append
    with _progress.DelayedProgress(1, "lab", quiet=True) as progress:
        assert progress.lines(printed.append) is None


def test_lab_run_and_bench_quiet_print_no_progress(tmp_path):
    """Both commands: one line per run in a log, none with --quiet (the summary line stays)."""
    import subprocess
    from pathlib import Path

    lab = Path(__file__).resolve().parents[3] / "examples" / "labs" / "river-permit-desk.json"
    script = str(Path(sys.executable).parent / "aau")
    base = [script, "lab", "run", str(lab), "--mock", "--repeats", "1", "--no-store"]
    loud = subprocess.run([*base, "--out", str(tmp_path / "a")], capture_output=True,
                          text=True, timeout=300)
    quiet = subprocess.run([*base, "--out", str(tmp_path / "b"), "--quiet"],
                           capture_output=True, text=True, timeout=300)
    assert loud.returncode == quiet.returncode == 0, loud.stderr + quiet.stderr
    assert loud.stderr.count("repeat 1/1 scenario ") > 1
    assert "repeat 1/1" not in quiet.stderr and "eval_mock.json" in quiet.stderr


def test_no_timer_thread_outlives_the_bar(monkeypatch):
    """A bar that ends while its timer is drawing waits for it: a daemon thread still inside
    an import at interpreter exit aborts CPython 3.11 (SIGABRT)."""
    import threading

    monkeypatch.setattr(sys, "stderr", _Tty())
    monkeypatch.setattr(_progress, "SHOW_AFTER_SECONDS", 0.0)
    before = set(threading.enumerate())
    with _progress.DelayedProgress(1, "suite") as progress:
        timer = progress._timer
        progress.advance(failed=False)
    assert timer is not None and not timer.is_alive()
    assert [t for t in set(threading.enumerate()) - before if t.is_alive()] == []
