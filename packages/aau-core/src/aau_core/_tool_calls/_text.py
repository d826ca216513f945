"""Strict parsing of tool calls out of a chat model's reply text.

Used by ``OpenAICompatBackend`` (``text_tool_calls="auto"``: a reply without structured
``tool_calls`` to a request that offered tools is read here, so the agent loop sees ``tool_use``
blocks) and by ``examples/agents/llm_agent.py`` (which reads the reply itself, with the notes).

A model served through an OpenAI-compatible API may return its tool calls in three ways, and
llama.cpp's ``llama_cpp.server`` uses the last two (it returns the calls as text in ``content``):

1. **Structured**: the message's ``tool_calls`` (the backend layer hands them over as
   ``tool_use`` blocks with a decoded ``input`` object).
2. **Tags**: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` in the text (Qwen,
   Hermes); one tag per call, several tags allowed.
3. **Fenced JSON**: a Markdown block fenced with ```` ```json ```` (or an untagged fence) holding
   a call object, a list of call objects, or several call objects one after the other.

Plus one lenient-looking but still exact case: a reply whose *whole* text is JSON (one call, a
list of calls, or a whitespace-separated sequence of them).

Rules (all-or-nothing, so a reply is never half-read):

- A **call** is a JSON object with exactly the keys ``name`` (a non-empty string) and
  ``arguments`` (an object, or a string holding a JSON object, as OpenAI encodes it);
  ``parameters`` is accepted instead of ``arguments`` (Llama 3 style), never both. Any other key
  makes the call malformed.
- Each tag or fence body must be consumed *entirely* by JSON values that are calls or lists of
  calls: trailing prose inside a tag, a second object that is not a call, or an unclosed tag
  makes the whole reply malformed.
- Mixing sources is ambiguous: structured ``tool_calls`` together with call markup in the text, or
  ``<tool_call>`` tags together with fenced JSON outside them. A fence that holds JSON which is not
  a call (``{"result": 5}``) is malformed, not ignored.
- JSON embedded in prose without a fence or a tag is not a call (no "first object wins").
- JSON nested deeper than Python's recursion limit is malformed (the parser never raises).
- A malformed or ambiguous reply yields **no calls** and a note saying why; a reply with no call
  markup at all yields no calls and the note ``no tool call in the reply``.

Code fences in other languages (```` ```python ````) are prose, not calls.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_TAG_OPEN = "<tool_call>"
_TAG_CLOSE = "</tool_call>"
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.DOTALL)
_JSON_FENCE_LANGS = {"", "json", "jsonc", "json5"}

NO_TOOL_CALL_NOTE = "no tool call in the reply"
"""The note of a reply without any call markup."""

_TOO_DEEP_NOTE = "malformed tool call: JSON nested too deeply; no call taken"


class _ReplyError(ValueError):
    """A reply that holds call markup which cannot be read unambiguously."""


@dataclass(frozen=True)
class ParsedReply:
    """What a reply asked for.

    Attributes:
        calls: ``[{"name": str, "arguments": dict}, ...]`` in the order written; ``[]`` when none
            or when the reply was malformed.
        source: ``"tool_calls"``, ``"tags"``, ``"fenced"``, ``"json"`` or ``"none"``.
        note: why there are no calls (``NO_TOOL_CALL_NOTE``, or the malformation), else ``""``.
        malformed: ``True`` when the reply held call markup that could not be read.
    """

    calls: list[dict[str, Any]] = field(default_factory=list)
    source: str = "none"
    note: str = ""
    malformed: bool = False


def _call_from(value: Any, where: str) -> dict[str, Any]:
    """Check one call object; return ``{"name", "arguments"}`` or raise ``_ReplyError``."""
    if not isinstance(value, dict):
        raise _ReplyError(f"{where}: a call must be a JSON object, got {type(value).__name__}")
    keys = set(value)
    if "arguments" in keys and "parameters" in keys:
        raise _ReplyError(f"{where}: both 'arguments' and 'parameters'")
    extra = keys - {"name", "arguments", "parameters"}
    if extra:
        raise _ReplyError(f"{where}: unexpected key(s) {sorted(extra)} (a call has name, arguments)")
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _ReplyError(f"{where}: 'name' must be a non-empty string")
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as error:
            raise _ReplyError(f"{where}: 'arguments' string is not JSON ({error.msg})") from None
        except RecursionError:
            raise _ReplyError(f"{where}: 'arguments' string is nested too deeply") from None
    if not isinstance(arguments, dict):
        raise _ReplyError(f"{where}: 'arguments' must be an object")
    return {"name": name.strip(), "arguments": arguments}


def _json_values(body: str, where: str) -> list[Any]:
    """Decode ``body`` as one or more whitespace-separated JSON values, consuming all of it."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    index, end = 0, len(body)
    while True:
        while index < end and body[index].isspace():
            index += 1
        if index == end:
            break
        try:
            value, index = decoder.raw_decode(body, index)
        except json.JSONDecodeError as error:
            raise _ReplyError(f"{where}: not JSON at character {error.pos} ({error.msg})") from None
        except RecursionError:
            raise _ReplyError(f"{where}: JSON nested too deeply") from None
        values.append(value)
    if not values:
        raise _ReplyError(f"{where}: empty")
    return values


def _calls_in(body: str, where: str) -> list[dict[str, Any]]:
    """Every call in ``body``: JSON values, each a call or a non-empty list of calls."""
    calls: list[dict[str, Any]] = []
    for n, value in enumerate(_json_values(body, where)):
        here = f"{where}, value {n + 1}"
        if isinstance(value, list):
            if not value:
                raise _ReplyError(f"{here}: an empty list")
            calls.extend(_call_from(item, f"{here}[{i}]") for i, item in enumerate(value))
        else:
            calls.append(_call_from(value, here))
    return calls


def _strip_fence(body: str) -> str:
    """A tag body may itself be fenced (```json ... ```); return the inside."""
    inner = body.strip()
    match = _FENCE.fullmatch(inner)
    if match and match.group(1).lower() in _JSON_FENCE_LANGS:
        return match.group(2)
    return body


def _tag_calls(text: str) -> tuple[list[dict[str, Any]], str]:
    """Calls from ``<tool_call>`` tags and the text outside them; raise on broken tags."""
    calls: list[dict[str, Any]] = []
    outside: list[str] = []
    rest, n = text, 0
    while True:
        start = rest.find(_TAG_OPEN)
        stray_close = rest.find(_TAG_CLOSE)
        if stray_close != -1 and (start == -1 or stray_close < start):
            raise _ReplyError(f"a {_TAG_CLOSE} without its {_TAG_OPEN}")
        if start == -1:
            outside.append(rest)
            break
        stop = rest.find(_TAG_CLOSE, start)
        nested = rest.find(_TAG_OPEN, start + len(_TAG_OPEN))
        if stop == -1:
            raise _ReplyError(f"tag {n + 1}: {_TAG_OPEN} is never closed")
        if nested != -1 and nested < stop:
            raise _ReplyError(f"tag {n + 1}: a {_TAG_OPEN} inside another")
        outside.append(rest[:start])
        body = rest[start + len(_TAG_OPEN) : stop]
        calls.extend(_calls_in(_strip_fence(body), f"tag {n + 1}"))
        rest = rest[stop + len(_TAG_CLOSE) :]
        n += 1
    return calls, "".join(outside)


def _fenced_calls(text: str) -> list[dict[str, Any]]:
    """Calls from the JSON fences of ``text`` (other languages are prose)."""
    calls: list[dict[str, Any]] = []
    n = 0
    for match in _FENCE.finditer(text):
        if match.group(1).lower() not in _JSON_FENCE_LANGS:
            continue
        n += 1
        calls.extend(_calls_in(match.group(2), f"fenced block {n}"))
    return calls


def _has_json_fence(text: str) -> bool:
    return any(m.group(1).lower() in _JSON_FENCE_LANGS for m in _FENCE.finditer(text))


def _looks_like_json(text: str) -> bool:
    stripped = text.strip()
    return stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]")


def parse_tool_call_text(text: str) -> ParsedReply:
    """Parse the calls written in a reply's text (module docstring for the rules).

    Args:
        text: the message ``content`` (may be empty).

    Returns:
        a ``ParsedReply``; never raises for any input string.
    """
    try:
        if _TAG_OPEN in text or _TAG_CLOSE in text:
            calls, outside = _tag_calls(text)
            if _has_json_fence(outside):
                raise _ReplyError("ambiguous: both <tool_call> tags and a fenced JSON block")
            return ParsedReply(calls, "tags")
        if _has_json_fence(text):
            return ParsedReply(_fenced_calls(text), "fenced")
        if _looks_like_json(text):
            return ParsedReply(_calls_in(text, "reply"), "json")
    except _ReplyError as error:
        return ParsedReply([], "none", f"malformed tool call: {error}; no call taken", True)
    except RecursionError:  # deep nesting anywhere (the parser must never raise)
        return ParsedReply([], "none", _TOO_DEEP_NOTE, True)
    return ParsedReply([], "none", NO_TOOL_CALL_NOTE)


def parse_tool_call_reply(text: str, structured: list[dict[str, Any]]) -> ParsedReply:
    """Parse a whole reply: its text and its structured ``tool_calls``.

    Args:
        text: the message ``content`` ("" when none).
        structured: the message's structured calls as ``{"name": str, "arguments": Any}``
            (arguments already decoded by the backend; ``{"_unparseable": raw}`` when they were
            not JSON).

    Returns:
        a ``ParsedReply`` (structured calls have ``source == "tool_calls"``).
    """
    if not structured:
        return parse_tool_call_text(text)
    try:
        if _TAG_OPEN in text or _TAG_CLOSE in text or _has_json_fence(text):
            raise _ReplyError("ambiguous: structured tool_calls and call markup in the text")
        calls = []
        for n, call in enumerate(structured):
            arguments = call.get("arguments")
            if isinstance(arguments, dict) and set(arguments) == {"_unparseable"}:
                raise _ReplyError(f"tool_calls[{n}]: 'arguments' is not JSON")
            calls.append(_call_from(dict(call), f"tool_calls[{n}]"))
    except _ReplyError as error:
        return ParsedReply([], "none", f"malformed tool call: {error}; no call taken", True)
    except RecursionError:
        return ParsedReply([], "none", _TOO_DEEP_NOTE, True)
    return ParsedReply(calls, "tool_calls")


__all__ = ["NO_TOOL_CALL_NOTE", "ParsedReply", "parse_tool_call_reply", "parse_tool_call_text"]
