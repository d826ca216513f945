"""Provenance: what ran, where, and which model answered. Never environment values."""

from __future__ import annotations

import datetime as _dt
import platform

from .._installed import distribution_version


def package_version(distribution: str) -> str:
    """Return an installed distribution's version, or ``"0+unknown"`` when it is not installed
    (cached while nothing installed changes: ``aau_core._installed``)."""
    return distribution_version(distribution)


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


# --------------------------------------------------------------------------- model provenance
#
# Which model answered is the fact that bites: providers serve floating aliases
# ("mistral-small-latest" is whatever shipped this morning) and redirect plain-looking names
# ("deepseek-chat" answers as "deepseek-v4-flash"). Every response echoes the model that served
# it; backends record the first one as ``served_model`` and ``snapshot`` puts it beside the
# requested id, with an honest flag saying whether a re-run can hit the same weights.

FLOATING_MARKERS: tuple[str, ...] = ("latest", "-plus", "-max", "preview", "experimental", ":free")
"""Substrings (compared lower-case) that mark a model id as a floating alias (aau-harness 1.6)."""

_active_backend: object | None = None


def register_backend(backend: object | None) -> None:
    """Remember ``backend`` as the one ``snapshot()`` describes when given none.

    ``make_backend`` calls this for every backend it builds (the most recent one wins), so a
    result can carry its provenance without the backend being passed down to where it is saved.
    """
    global _active_backend
    _active_backend = backend


def active_backend() -> object | None:
    """Return the backend last passed to ``register_backend`` (``None`` before any)."""
    return _active_backend


def is_floating(model: str | None) -> bool:
    """True when the model id can silently point at different weights over time.

    A floating id contains one of ``FLOATING_MARKERS`` (case-insensitive), e.g.
    ``mistral-small-latest``, ``gemini-2.5-pro-preview``, ``nvidia/...:free``.
    """
    return bool(model) and any(marker in model.lower() for marker in FLOATING_MARKERS)


def harness_version() -> str:
    """Return the installed ``aau-harness`` version, else ``aau-core``'s, else ``"0+unknown"``."""
    for distribution in ("aau-harness", "aau-core"):
        version = package_version(distribution)
        if version != "0+unknown":
            return version
    return "0+unknown"


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def snapshot(backend: object | None = None) -> dict[str, object]:
    """Describe what produced a result, as far as it can be known.

    Args:
        backend: any object with ``model`` (the requested id) and optionally ``served_model``
            (the id the provider reported); ``None`` means the last registered backend
            (``register_backend``), and with none registered both ids are ``None``.

    Returns:
        ``{"generated_at": "2026-08-09T22:39:56Z", "harness_version", "python", "platform",
        "requested_model", "served_model", "served_differs_from_requested": bool,
        "model_pinned": bool}`` plus ``"reproducibility_note"`` when the result cannot be
        expected to reproduce:

        - ``served_differs_from_requested``: both ids known and different (a redirect: the
          requested id is an alias, whatever it looks like);
        - ``model_pinned``: a served id is known, is not floating, and was not redirected (mock
          backends report no served id, so they are never pinned);
        - the note explains a redirect, or a floating requested id the provider did not pin.

    Never holds environment values, URLs or credentials. Rules as aau-harness 1.6
    ``provenance.snapshot``; the timestamp ends in ``Z`` (seconds) instead of ``+00:00``.
    """
    source = _active_backend if backend is None else backend
    requested = _text_or_none(getattr(source, "model", None))
    served = _text_or_none(getattr(source, "served_model", None))
    redirected = requested is not None and served is not None and served != requested
    pinned = served is not None and not is_floating(served) and not redirected
    now = _dt.datetime.now(_dt.timezone.utc)
    out: dict[str, object] = {
        "generated_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "harness_version": harness_version(),
        "python": python_version(),
        "platform": platform_string(),
        "requested_model": requested,
        "served_model": served,
        "served_differs_from_requested": redirected,
        "model_pinned": pinned,
    }
    if redirected:
        out["reproducibility_note"] = (
            f"asked for {requested!r}, the provider answered as {served!r}: the requested id "
            "is an alias, so a re-run may reach different weights"
        )
    elif requested is not None and is_floating(requested) and not pinned:
        out["reproducibility_note"] = (
            f"{requested!r} is a floating alias and the provider reported no pinned snapshot, "
            "so a re-run may reach different weights"
        )
    return out
