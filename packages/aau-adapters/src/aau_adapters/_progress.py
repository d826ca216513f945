"""The progress bar of ``aau evaluate``: ``aau_core.DelayedProgress`` (shared by the long-running
commands)."""

from __future__ import annotations

from aau_core import DelayedProgress

__all__ = ["DelayedProgress"]
