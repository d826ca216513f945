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
- Every JSON value is decoded by the one model-side decoder (``aau_core._files._model_json``):
  ``NaN``, ``Infinity``, ``1e999``, a duplicate key (``{"city": "Paris", "city": "Rome"}``) or
  nesting deeper than 100 containers make the reply malformed, with the decoder's reason in the
  note. An ``arguments`` *string* gets the decoder's one recovery (an object followed only by
  stray ``"``): the call is taken and ``ParsedReply.recovered`` says what was dropped.
- A fence is found by its opening line and decoded from there, JSON-aware: the block ends at the
  first ```` ``` ```` *after* its last JSON value, so backticks inside a string value
  (``"note": "use ``` here"``) never close it. An empty JSON fence, or one never closed, is
  malformed. The parser never raises.
- A malformed or ambiguous reply yields **no calls** and a note saying why; a reply with no call
  markup at all yields no calls and the note ``no tool call in the reply``.

Code fences in other languages (```` ```python ````) are prose, not calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .._files._model_json import ModelJsonError, decode_arguments, decode_value_at

_TAG_OPEN = "<tool_call>"
_TAG_CLOSE = "</tool_call>"
_FENCE_OPEN = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n")
_FENCE_CLOSE = "```"
_PROSE_FENCE_CLOSE = re.compile(r"^[ \t]*```", re.MULTILINE)
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
        recovered: ``(index into calls, note)`` for each call taken with the decoder's one
            recovery, e.g. ``(0, 'dropped stray \'""\' after the object')``; ``()`` when none.
            Callers record it beside the call (the example LLM agent writes it to stderr, which
            the private receipt keeps; the backend sets ``Block.input_recovered``).
    """

    calls: list[dict[str, Any]] = field(default_factory=list)
    source: str = "none"
    note: str = ""
    malformed: bool = False
    recovered: tuple[tuple[int, str], ...] = ()


def _call_from(value: Any, where: str) -> dict[str, Any]:
    """Check one call object; return ``{"name", "arguments"}`` or raise ``_ReplyError``.

    A recovered ``arguments`` string adds ``"_recovered"`` (the note; ``_reply`` takes it out).
    """
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
    recovered = None
    if isinstance(arguments, str):
        try:
            decoded = decode_arguments(arguments)
        except ModelJsonError as error:
            raise _ReplyError(f"{where}: 'arguments' string is not JSON ({error.reason})") from None
        arguments, recovered = decoded.value, decoded.recovered
    if not isinstance(arguments, dict):
        raise _ReplyError(f"{where}: 'arguments' must be an object")
    call = {"name": name.strip(), "arguments": arguments}
    if recovered:
        call["_recovered"] = recovered
    return call


def _reply(calls: list[dict[str, Any]], source: str) -> ParsedReply:
    """The ``ParsedReply`` of ``calls``, their recovery notes moved to ``recovered``."""
    recovered = tuple((i, call.pop("_recovered")) for i, call in enumerate(calls)
                      if "_recovered" in call)
    return ParsedReply(calls, source, recovered=recovered)


def _decode_at(text: str, index: int, where: str) -> tuple[Any, int]:
    try:
        return decode_value_at(text, index)
    except ModelJsonError as error:
        raise _ReplyError(f"{where}: {error.reason}") from None


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index].isspace():
        index += 1
    return index


def _json_values(body: str, where: str) -> list[Any]:
    """Decode ``body`` as one or more whitespace-separated JSON values, consuming all of it."""
    values: list[Any] = []
    index = _skip_space(body, 0)
    while index < len(body):
        value, index = _decode_at(body, index, where)
        values.append(value)
        index = _skip_space(body, index)
    if not values:
        raise _ReplyError(f"{where}: empty")
    return values


def _calls_of(values: list[Any], where: str) -> list[dict[str, Any]]:
    """Every call in ``values``: each a call or a non-empty list of calls."""
    calls: list[dict[str, Any]] = []
    for n, value in enumerate(values):
        here = f"{where}, value {n + 1}"
        if isinstance(value, list):
            if not value:
                raise _ReplyError(f"{here}: an empty list")
            calls.extend(_call_from(item, f"{here}[{i}]") for i, item in enumerate(value))
        else:
            calls.append(_call_from(value, here))
    return calls


def _is_json_fence(match: re.Match[str]) -> bool:
    return match.group(1).lower() in _JSON_FENCE_LANGS


def _fence_values(text: str, start: int, where: str) -> tuple[list[Any], int]:
    """The JSON values of a fence whose body starts at ``text[start]``, and the offset after its
    closing ```` ``` ````: values are decoded first, so a ```` ``` ```` inside a string is text."""
    values: list[Any] = []
    index = _skip_space(text, start)
    while not text.startswith(_FENCE_CLOSE, index):
        if index >= len(text):
            raise _ReplyError(f"{where}: the fence is never closed")
        value, index = _decode_at(text, index, where)
        values.append(value)
        index = _skip_space(text, index)
    if not values:
        raise _ReplyError(f"{where}: empty")
    return values, index + len(_FENCE_CLOSE)


def _after_prose_fence(text: str, start: int) -> int:
    """The offset after the closing line of a fence in another language (a line that starts
    with ```` ``` ````), or the end of the text when there is none."""
    close = _PROSE_FENCE_CLOSE.search(text, start)
    return close.end() if close else len(text)


def _fences(text: str) -> list[tuple[int, int, list[Any]]]:
    """Every JSON fence of ``text`` in order: ``(start, end, values)``.

    Fences in other languages are prose, skipped to their closing line (``_after_prose_fence``).
    """
    found: list[tuple[int, int, list[Any]]] = []
    pos = 0
    while (match := _FENCE_OPEN.search(text, pos)) is not None:
        if not _is_json_fence(match):
            pos = _after_prose_fence(text, match.end())
            continue
        values, pos = _fence_values(text, match.end(), f"fenced block {len(found) + 1}")
        found.append((match.start(), pos, values))
    return found


def _has_json_fence(text: str) -> bool:
    """Whether ``text`` opens a JSON fence (outside fences in other languages)."""
    pos = 0
    while (match := _FENCE_OPEN.search(text, pos)) is not None:
        if _is_json_fence(match):
            return True
        pos = _after_prose_fence(text, match.end())
    return False


def _tag_values(body: str, where: str) -> list[Any]:
    """A tag body's values; the body may itself be one fenced block (```json ... ```)."""
    inner = body.strip()
    match = _FENCE_OPEN.match(inner)
    if match and _is_json_fence(match):
        values, end = _fence_values(inner, match.end(), where)
        if inner[end:].strip():
            raise _ReplyError(f"{where}: text after the fenced block")
        return values
    return _json_values(body, where)


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
        calls.extend(_calls_of(_tag_values(body, f"tag {n + 1}"), f"tag {n + 1}"))
        rest = rest[stop + len(_TAG_CLOSE) :]
        n += 1
    return calls, "".join(outside)


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
            return _reply(calls, "tags")
        if _has_json_fence(text):
            calls = []
            for n, (_, _, values) in enumerate(_fences(text)):
                calls.extend(_calls_of(values, f"fenced block {n + 1}"))
            return _reply(calls, "fenced")
        if _looks_like_json(text):
            return _reply(_calls_of(_json_values(text, "reply"), "reply"), "json")
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
            (arguments already decoded by the backend), plus ``"arguments_error"`` (the
            decoder's reason, when the backend refused the arguments: they are then
            ``{"_unparseable": raw}``) and ``"arguments_recovered"`` (the decoder's recovery
            note) when the backend set them (``Block.input_error`` / ``Block.input_recovered``).

    Returns:
        a ``ParsedReply`` (structured calls have ``source == "tool_calls"``); refused arguments
        make the reply malformed, with the reason in the note.
    """
    if not structured:
        return parse_tool_call_text(text)
    try:
        if _TAG_OPEN in text or _TAG_CLOSE in text or _has_json_fence(text):
            raise _ReplyError("ambiguous: structured tool_calls and call markup in the text")
        calls = []
        for n, given in enumerate(structured):
            where, call = f"tool_calls[{n}]", dict(given)
            error = call.pop("arguments_error", None)
            note = call.pop("arguments_recovered", None)
            arguments = call.get("arguments")
            if error or (isinstance(arguments, dict) and set(arguments) == {"_unparseable"}):
                why = f" ({error})" if error else ""
                raise _ReplyError(f"{where}: 'arguments' is not JSON{why}")
            calls.append(_call_from(call, where))
            if note:
                calls[-1]["_recovered"] = note
    except _ReplyError as error:
        return ParsedReply([], "none", f"malformed tool call: {error}; no call taken", True)
    except RecursionError:
        return ParsedReply([], "none", _TOO_DEEP_NOTE, True)
    return _reply(calls, "tool_calls")


__all__ = ["NO_TOOL_CALL_NOTE", "ParsedReply", "parse_tool_call_reply", "parse_tool_call_text"]
