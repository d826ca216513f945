"""Provenance facts recorded in every receipt: what ran, where. Never environment values."""

from __future__ import annotations

import datetime as _dt
import platform
from importlib import metadata


def package_version(distribution: str) -> str:
    """Return an installed distribution's version, or ``"0+unknown"`` when it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "0+unknown"


def python_version() -> str:
    """Return the running interpreter's version, e.g. ``"3.11.7"``."""
    return platform.python_version()


def platform_string() -> str:
    """Return ``"<system> <machine>"``, e.g. ``"Linux x86_64"`` (no host names, no user names)."""
    return f"{platform.system()} {platform.machine()}".strip() or "unknown"


def utc_timestamp(when: _dt.datetime | None = None) -> str:
    """Return an RFC 3339 UTC timestamp with microseconds and a ``Z`` suffix.

    Args:
        when: an aware datetime; ``None`` means now.
    """
    when = when or _dt.datetime.now(_dt.timezone.utc)
    return when.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
