"""Checkpoint bindings: what must be equal for a resume, and the one phrase that says what
differs when it is not (``open_checkpoint`` puts it in its refusal).

A binding is ``{"suite_digest", "adapter", "config"}`` (schema kind ``checkpoint``, ``$defs/binding``).
Since ``aau-checkpoint/1.1`` an ``aau evaluate`` command adapter's identity may also hold the
SHA-256 of the command's program file (``program_sha256``, with the ``program_argv_index`` it
came from); a 1.0 header never does, so a 1.0 checkpoint cannot resume a run whose adapter binds a
program file: it says it predates program binding rather than "a different adapter".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CHECKPOINT_VERSION_1_0 = "aau-checkpoint/1.0"  # headers from before program binding
PROGRAM_KEYS = ("program_sha256", "program_argv_index")  # a command adapter's program file
HEADER_NAMES_KEY = "header_names"  # an endpoint adapter's --header names (never the values)


def _without_program(adapter: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in adapter.items() if k not in PROGRAM_KEYS}


def _program_change(old: Mapping[str, Any], new: Mapping[str, Any], name: str | None) -> str:
    """How the program-file part of two adapter identities differs, in words."""
    index = new.get("program_argv_index", old.get("program_argv_index"))
    shown = name or f"argv[{index}]"
    if "program_sha256" not in new:
        return f"the agent's program file {shown} is no longer a file in the working directory"
    if "program_sha256" not in old:
        return (f"the agent's program file {shown} was not in the working directory when the "
                "checkpoint was made")
    return f"the agent's program file {shown} changed"


_EVALUATE_OPTIONS = {"repeats": "--repeats", "timeout_s": "--timeout", "format": "--format",
                     "private": "--private-out given or not"}
"""How ``aau evaluate``'s bound settings are named in a refusal: the option a user changed."""


def _headers_only(old_a: Mapping[str, Any], new_a: Mapping[str, Any]) -> bool:
    """Whether two adapter identities differ in their ``--header`` names alone."""
    return old_a != new_a and ({k: v for k, v in old_a.items() if k != HEADER_NAMES_KEY}
                               == {k: v for k, v in new_a.items() if k != HEADER_NAMES_KEY})


def adds_header_names(header: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether a run bound by ``new`` may resume the checkpoint with ``header`` although their
    bindings differ: everything is equal but the endpoint's ``--header`` names, and the new
    names include every old one. Adding a header (a credential forgotten the first time, whose
    401s were not measured) keeps the units measured; dropping one is refused (``refusal``),
    since the units still to run would go without it."""
    old = header.get("binding") or {}
    old_a, new_a = old.get("adapter") or {}, new.get("adapter") or {}
    return (_headers_only(old_a, new_a)
            and old.get("suite_digest") == new.get("suite_digest")
            and old.get("config") == new.get("config")
            and set(old_a.get(HEADER_NAMES_KEY) or ()) <= set(new_a.get(HEADER_NAMES_KEY) or ()))


def resume_advice(header: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """What to do about a refused resume, to follow ``refusal``'s phrase: give the same
    ``--header`` names again when they alone differ (starting over would throw the measured
    units away), else start over with ``--force``."""
    old = header.get("binding") or {}
    if (_headers_only(old.get("adapter") or {}, new.get("adapter") or {})
            and old.get("suite_digest") == new.get("suite_digest")
            and old.get("config") == new.get("config")):
        return ("give --header with the same names again (a value may change), or start over "
                "with --force")
    return "start over with --force instead of --resume"


def refusal(header: Mapping[str, Any], new: Mapping[str, Any], program_name: str | None) -> str:
    """Why a checkpoint with ``header`` cannot resume a run bound by ``new``, in one phrase.

    Args:
        header: the checkpoint's header line (a dict).
        new: the binding of the run that asked to resume.
        program_name: the program file as the user wrote it (``agent.py``), or ``None``
            (then it is named ``argv[N]``).

    Returns:
        ``checkpoint is from a different suite and configuration (repeats)`` (``aau evaluate``: ``(--repeats)``),
        ``... configuration (the agent's program file agent.py changed)``, ``... adapter``, or
        ``checkpoint predates program binding (...)``.
    """
    old = header.get("binding") or {}
    old_a, new_a = old.get("adapter") or {}, new.get("adapter") or {}
    program_only = old_a != new_a and _without_program(old_a) == _without_program(new_a)
    rest_equal = (old.get("suite_digest") == new.get("suite_digest")
                  and old.get("config") == new.get("config"))
    if (program_only and rest_equal and header.get("checkpoint_version") == CHECKPOINT_VERSION_1_0
            and "program_sha256" not in old_a):
        named = f" {program_name}" if program_name else ""
        return (f"checkpoint predates program binding ({CHECKPOINT_VERSION_1_0} does not record "
                f"the agent's program file{named}, so a changed agent would go unseen)")
    parts = []
    if old.get("suite_digest") != new.get("suite_digest"):
        parts.append("suite")
    changes = []
    headers_only = _headers_only(old_a, new_a)
    if program_only:
        changes.append(_program_change(old_a, new_a, program_name))
    elif headers_only:
        def said(names: Any) -> str:
            return ", ".join(names) if names else "none"
        changes.append(f"--header names: {said(old_a.get(HEADER_NAMES_KEY))} when it was "
                       f"made, {said(new_a.get(HEADER_NAMES_KEY))} now")
    elif old_a != new_a:
        parts.append("adapter")
    if old.get("config") != new.get("config"):
        old_c, new_c = old.get("config") or {}, new.get("config") or {}
        names = _EVALUATE_OPTIONS if header.get("producer") == "aau evaluate" else {}
        changes += sorted(names.get(k, k) for k in set(old_c) | set(new_c)
                          if old_c.get(k) != new_c.get(k))
    if changes:
        parts.append("configuration (" + ", ".join(changes) + ")")
    if not parts:  # every bound part is equal: the header's own binding_sha256 was altered
        return ("checkpoint is from a different binding (its binding_sha256 does not match the "
                "suite, adapter and settings it records: the header was edited)")
    return "checkpoint is from a different " + " and ".join(parts)
