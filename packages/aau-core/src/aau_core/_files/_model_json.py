"""Strict decoding of the JSON a model writes: the one decoder of every model-side path.

Used for tool-call arguments from the OpenAI-compatible backends (``function.arguments``, a JSON
string), the tool inputs of the Anthropic backend, the calls the text parser reads out of a reply
(``_tool_calls._text``: tags, fences, bare JSON, an ``arguments`` string), and through those the
example LLM agents. It is ``_strict_json``'s reader (the one for files) with a scanning form and
one recovery:

- the rules of ``loads_strict``: no ``NaN``, ``Infinity`` or ``-Infinity``, no number that
  overflows to infinity (``1e999``), no duplicate key in one object
  (``{"city": "Paris", "city": "Rome"}`` is refused, not read as Rome), no lone UTF-16
  surrogate, at most 100 nested containers;
- whitespace around the value is allowed; any other text after it is refused
  (``{"q": 1} x``);
- **the one recovery**: an *object* followed only by double-quote characters and whitespace
  (``{"q": 1}""``, a wire artefact of some providers) is decoded, and the result says so
  (``DecodedJson.recovered``), so the recovery is recorded wherever the call is.

A refusal is a ``ModelJsonError`` whose ``reason`` is one line, e.g.
``duplicate key "city"``, ``$.n: NaN is not allowed (JSON has no NaN or Infinity)`` or
``text after the JSON value at character 8: ' x'`` (for ``{"q": 1} x``).
"""

from __future__ import annotations

from typing import Any

import attrs

from .._errors import InputError
from ._strict_json import check_value, loads_marked, raw_decode_strict

_WHITESPACE = " \t\n\r"
_STRAY = '"'


class ModelJsonError(ValueError):
    """Model-side JSON that the strict rules refuse; ``reason`` says why (one line)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@attrs.frozen
class DecodedJson:
    """A decoded model-side value.

    Attributes:
        value: the value (dicts, lists, str, int, float, bool, None).
        recovered: ``None`` for clean JSON; for the one recovery, what was dropped, e.g.
            ``'dropped stray \\'""\\' after the object'``.
    """

    value: Any
    recovered: str | None = None


def _skip_whitespace(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def _shown(text: str) -> str:
    return repr(text if len(text) <= 20 else text[:20] + "...")


def _reason(error: InputError) -> str:
    """The one-line reason of a refusal; the path is left out when it is the root."""
    return error.message if error.path in (None, "$") else f"{error.path}: {error.message}"


def decode_marked(text: str) -> Any:
    """A whole JSON text parsed without the rules' checks, for judging its parts one by one
    with ``refusal`` (``_strict_json.loads_marked``).

    Raises:
        ModelJsonError: the text is not JSON.
    """
    try:
        return loads_marked(text)
    except InputError as error:
        raise ModelJsonError(_reason(error)) from None


def refusal(value: Any) -> str | None:
    """Why a part of ``decode_marked``'s result breaks the rules (path relative to it), or
    ``None`` when it keeps them."""
    try:
        check_value(value)
    except InputError as error:
        return _reason(error)
    return None


def decode_value_at(text: str, index: int) -> tuple[Any, int]:
    """Decode the value starting at ``text[index]`` (leading whitespace skipped), strictly.

    The scanning form for a reply that holds several values or a closing fence after one.

    Args:
        text: the text.
        index: where to start (0-based character offset).

    Returns:
        ``(value, end)``: the value and the offset just after it.

    Raises:
        ModelJsonError: no JSON value there, or a rule of the module docstring broken.
    """
    start = _skip_whitespace(text, index)
    try:
        return raw_decode_strict(text, start)
    except InputError as error:
        raise ModelJsonError(_reason(error)) from None


def decode_model_json(text: str) -> DecodedJson:
    """Decode one whole model-side JSON text under the module docstring's rules.

    Args:
        text: the text (an arguments string, a tag body, a whole reply).

    Returns:
        a ``DecodedJson``; ``recovered`` is set only for an object followed by stray ``"``.

    Raises:
        ModelJsonError: empty text, invalid JSON, a forbidden value (NaN, an infinity, a
            duplicate key, ...) or any other text after the value.
    """
    if not text.strip(_WHITESPACE):
        raise ModelJsonError("empty (no JSON value)")
    value, end = decode_value_at(text, 0)
    rest = text[end:]
    if not rest.strip(_WHITESPACE):
        return DecodedJson(value)
    if isinstance(value, dict) and not rest.strip(_WHITESPACE + _STRAY):
        stray = rest.strip(_WHITESPACE)
        return DecodedJson(value, f"dropped stray {stray!r} after the object")
    raise ModelJsonError(f"text after the JSON value at character {end}: {_shown(rest)}")


def decode_arguments(raw: str) -> DecodedJson:
    """Decode a tool call's arguments string: an object, or ``{}`` for an empty string.

    OpenAI-compatible servers send ``""`` (or whitespace) for a call without arguments; that is
    ``{}``. Anything else must decode (``decode_model_json``) to an object.

    Raises:
        ModelJsonError: as ``decode_model_json``, or the value is not an object
            (``arguments are not a JSON object: '[1]'``).
    """
    if not raw.strip(_WHITESPACE):
        return DecodedJson({})
    decoded = decode_model_json(raw)
    if not isinstance(decoded.value, dict):
        raise ModelJsonError(f"arguments are not a JSON object: {_shown(raw.strip(_WHITESPACE))}")
    return decoded
