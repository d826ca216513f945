"""Tool names a model API accepts, and the way back to the real names.

Benchmarks name functions as Python does (BFCL's ``math.factorial``, ``spotify.play``), but
OpenAI-style chat APIs (and llama.cpp's OpenAI-compatible server) accept tool names matching
``^[a-zA-Z0-9_-]{1,64}$`` only. Suites keep the real names (they are what the expected calls
and the function definitions say); an adapter that shows a case's tools to a model encodes the
names, and decodes the names in the model's calls before it answers, so that scoring compares
real names with real names.

The encoding
------------
``encode_tool_name``: every character outside ``[A-Za-z0-9_-]`` becomes ``_`` (so
``math.factorial`` -> ``math_factorial``). It is BFCL's own convention for the model APIs that
forbid dots (bfcl-eval rewrites ``.`` to ``_`` for those models), so a model sees the names it
would see on the leaderboard. It is not reversible by itself (``a.b`` and ``a_b`` both give
``a_b``), so decoding goes through the case's own tool list: ``tool_name_map`` builds
``{encoded: real}`` for the tools offered together and refuses a collision (two real names with
one encoding), which the importers check for every case they write. A name longer than 64
characters after encoding is refused too, rather than cut (cutting could collide silently).

Decoding (``decode_tool_calls``) maps each called name through that table; a name that is not in
it (the model invented a function) is left as it is and fails scoring as a wrong function. A real
name that is already valid encodes to itself, so the table also decodes calls made with real
names.

Usage in an adapter::

    names = tool_name_map([t["function"]["name"] for t in case_input["tools"]])
    shown = encode_tools(case_input["tools"])           # what the model sees
    ...                                                  # ask the model, parse its calls
    answer["tool_calls"] = decode_tool_calls(calls, names)
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""What OpenAI-style APIs accept as a tool name."""

_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")


class ToolNameError(ValueError):
    """A name cannot be encoded (empty, or over 64 characters), or two names of one tool list
    share an encoding. ``str(err)`` names them."""


def encode_tool_name(name: str) -> str:
    """The name to show a model: every character outside ``[A-Za-z0-9_-]`` replaced by ``_``.

    Args:
        name: the real function name (``"math.factorial"``).

    Returns:
        the encoded name (``"math_factorial"``); a valid name is returned unchanged.

    Raises:
        ToolNameError: ``name`` is empty or not a string, or the result is over 64 characters.
    """
    if not isinstance(name, str) or not name:
        raise ToolNameError(f"a tool name must be a non-empty string, not {name!r}")
    encoded = _NOT_ALLOWED.sub("_", name)
    if len(encoded) > 64:
        raise ToolNameError(f"tool name {name!r} is {len(encoded)} characters; model APIs "
                            "accept at most 64")
    return encoded


def tool_name_map(names: Iterable[str]) -> dict[str, str]:
    """``{encoded: real}`` for the tools offered together (one case's tool list).

    Args:
        names: the real names (duplicates are fine: a name offered twice maps once).

    Returns:
        the decoding table, in the order of first appearance.

    Raises:
        ToolNameError: a name cannot be encoded, or two different names share an encoding
            (``'a.b' and 'a_b' both encode to 'a_b'``).
    """
    table: dict[str, str] = {}
    for name in names:
        encoded = encode_tool_name(name)
        other = table.setdefault(encoded, name)
        if other != name:
            raise ToolNameError(f"tool names {other!r} and {name!r} both encode to {encoded!r}")
    return table


def encode_tools(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A copy of OpenAI-style tools (``{"type": "function", "function": {"name", ...}}``, or bare
    function objects ``{"name", ...}``) with every name encoded.

    Raises:
        ToolNameError: as ``tool_name_map`` for the tools' names (a collision included).
        ValueError: a tool is not an object with a ``name`` (directly or under ``function``).
    """
    out = []
    for i, tool in enumerate(tools):
        new = copy.deepcopy(dict(tool))
        holder = new.get("function") if isinstance(new.get("function"), dict) else new
        if not isinstance(holder, dict) or not isinstance(holder.get("name"), str):
            raise ValueError(f"tools[{i}]: not a function tool with a name")
        out.append((new, holder))
    tool_name_map(holder["name"] for _, holder in out)  # refuse collisions
    for _, holder in out:
        holder["name"] = encode_tool_name(holder["name"])
    return [new for new, _ in out]


def decode_tool_name(name: str, table: Mapping[str, str]) -> str:
    """The real name for a name a model used: ``table[name]`` when present, else ``name``."""
    return table.get(name, name)


def decode_tool_calls(calls: Sequence[Mapping[str, Any]],
                      table: Mapping[str, str]) -> list[dict[str, Any]]:
    """A copy of ``[{"name", "arguments", ...}]`` with each ``name`` decoded through ``table``
    (``tool_name_map``'s result); other keys are kept, unknown names left unchanged.

    Raises:
        ValueError: a call is not an object.
    """
    out = []
    for i, call in enumerate(calls):
        if not isinstance(call, Mapping):
            raise ValueError(f"calls[{i}]: a tool call must be an object")
        new = dict(call)
        if isinstance(new.get("name"), str):
            new["name"] = decode_tool_name(new["name"], table)
        out.append(new)
    return out
