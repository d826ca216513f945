"""Reading an agent trace dict the way PraisonAI's ``HarnessEvaluator`` (1.7.17) does.

A trace is a plain dict another tool wrote (schema kind ``trace``). Four things are read:

- **tool calls**: the first *non-empty* of ``tool_calls``, ``tool_trace``, ``tools`` (Python
  truthiness, fixed order: ``None``, ``[]``, ``0``, ``""``, ``{}`` fall through). An ``int`` is a
  count (negative counts as 0, ``True`` as 1); a list counts its items, a dict its keys. Only the
  count matters. ``tool_call_count``.
- **artifacts**: the first non-empty of ``artifacts``, ``files``, ``outputs``; a dict contributes
  its values, a string is one artifact; each entry is named by ``artifact_name``.
  ``artifact_names``.
- **the schema hash**: ``sha256(json.dumps(tool_schema, sort_keys=True, default=str))[:16]`` over
  the raw ``tool_schema`` value, ``None`` when it is empty. ``schema_hash``.
- **the judge score**: ``judge_score``, a number or a numeric string, read as a usable score or
  as a ``JudgeError`` saying why it is not one (``unparseable``, ``not-finite``,
  ``out-of-range``, ``missing``). ``read_judge_score``.

Where 1.7.17 crashes (a float count, mixed dict key types), iterates a string per character (a
string of tool calls or artifacts) or gives a value that changes from process to process (a set
or an arbitrary object hashed through its ``repr``), these functions raise ``TraceError`` naming
the JSON path, or read a string artifact value as one name; see docs/trace-gates.md.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs
from aau_schemas import json_path, sha256_hex

TOOL_CALL_KEYS = ("tool_calls", "tool_trace", "tools")
ARTIFACT_KEYS = ("artifacts", "files", "outputs")
ARTIFACT_NAME_KEYS = ("path", "name", "file", "filename", "artifact")
SCHEMA_HASH_LENGTH = 16


class TraceError(ValueError):
    """A trace (or an evaluator option) that cannot be read; ``str(err)`` is ``"$.path: message"``.

    Args:
        message: what is wrong.
        path: the JSON path of the offending value (``"$.tool_calls"``, ``"$.tool_schema.t"``);
            option paths are written ``"required_artifacts[0]"``.
    """

    def __init__(self, message: str, path: str = "$") -> None:
        self.message = message
        self.path = path
        super().__init__(f"{path}: {message}")


def first_present(trace: Mapping[str, Any], keys: Iterable[str]) -> tuple[str | None, Any]:
    """The first key of ``keys`` whose value in ``trace`` is truthy, and that value.

    Returns:
        ``(key, value)``, or ``(None, None)`` when every value is missing or falsy.

    Raises:
        TraceError: ``trace`` is not a mapping (``$: a trace must be an object, not array``).
    """
    if not isinstance(trace, Mapping):
        raise TraceError(f"a trace must be an object, not {_type_name(trace)}")
    for key in keys:
        value = trace.get(key)
        if value:
            return key, value
    return None, None


def _type_name(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object", type(None): "null"}.get(type(value), type(value).__name__)


def tool_call_count(trace: Mapping[str, Any]) -> int:
    """The number of tool calls in ``trace`` (1.7.17's rule; see the module docstring).

    Returns:
        a count >= 0.

    Raises:
        TraceError: the value is a string (1.7.17 counts its characters) or neither an integer
            nor iterable (1.7.17 raises TypeError for ``2.0``); the path names its key.
    """
    key, calls = first_present(trace, TOOL_CALL_KEYS)
    if calls is None:
        return 0
    if isinstance(calls, int):  # bool is an int: True counts 1
        return max(int(calls), 0)
    if isinstance(calls, (str, bytes, float, complex)) or not isinstance(calls, Iterable):
        raise TraceError(f"tool calls must be a list or an integer count, not {_type_name(calls)} "
                         f"{calls!r}", json_path([key or ""]))
    return len(list(calls))


def artifact_name(entry: Any) -> str:
    """The name of one artifact entry.

    A dict is named by the first truthy value among ``path``, ``name``, ``file``, ``filename``,
    ``artifact`` (as ``str``), else by ``str(dict)``; anything else by ``str(entry)``.
    """
    if isinstance(entry, dict):
        for key in ARTIFACT_NAME_KEYS:
            value = entry.get(key)
            if value:
                return str(value)
        return str(entry)
    return str(entry)


def artifact_names(trace: Mapping[str, Any]) -> list[str]:
    """The artifact names of ``trace``, in trace order (a dict's values in insertion order).

    A bare string value is one artifact (1.7.17 iterates it per character; the ``trace`` schema
    refuses it, so ``aau trace score`` never sees one).

    Raises:
        TraceError: the value is not iterable (1.7.17: TypeError).
    """
    key, value = first_present(trace, ARTIFACT_KEYS)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = value.values()
    if not isinstance(value, Iterable):
        raise TraceError(f"artifacts must be a list or an object, not {_type_name(value)} "
                         f"{value!r}", json_path([key or ""]))
    return [artifact_name(entry) for entry in value]


def _check_hashable(value: Any, parts: list[str | int], seen: set[int]) -> None:
    """Refuse what would make the canonical form crash or depend on the process."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return
    if isinstance(value, (dict, list, tuple)):
        if id(value) in seen:
            raise TraceError("circular reference", json_path(parts))
        seen.add(id(value))
        if isinstance(value, dict):
            kinds = {"text" if isinstance(k, str) else "null" if k is None else "number"
                     for k in value}
            for k in value:
                if not (k is None or isinstance(k, (str, int, float))):
                    raise TraceError(f"key {k!r} is not a JSON key", json_path(parts))
            if len(kinds) > 1:
                raise TraceError("keys of mixed types (text, numbers, null) cannot be sorted; "
                                 "1.7.17 crashes here", json_path(parts))
            for k, child in value.items():
                _check_hashable(child, [*parts, str(k)], seen)
        else:
            for i, child in enumerate(value):
                _check_hashable(child, [*parts, i], seen)
        seen.discard(id(value))
        return
    raise TraceError(f"{type(value).__name__} is not JSON: its text form (and so the hash) "
                     "could change from process to process", json_path(parts))


def canonical_schema_text(tool_schema: Any) -> str | None:
    """The text the schema hash is taken of: ``json.dumps(tool_schema, sort_keys=True)``.

    Default separators (``", "``, ``": "``), ``ensure_ascii=True``, so the bytes are exactly
    PraisonAI 1.7.17's (``_schema_hash`` in ``eval/harness_eval.py``).

    Returns:
        the text, or ``None`` for an empty schema (``None``, ``{}``, ``[]``, ``""``).

    Raises:
        TraceError: the schema holds a set, an object that is not JSON, a circular reference or
            a dict with mixed key types (1.7.17 hashes the first two by ``repr``, which changes
            between processes, and crashes on the last); the path points below ``$.tool_schema``.
    """
    if not tool_schema:
        return None
    _check_hashable(tool_schema, ["tool_schema"], set())
    return json.dumps(tool_schema, sort_keys=True)


def schema_hash(tool_schema: Any) -> str | None:
    """The 16-hex-digit schema hash: ``sha256(canonical_schema_text(tool_schema))[:16]``.

    Examples: ``{"n": 1}`` -> ``"e5d5f7c1d225fd6b"``, ``{"n": 1.0}`` -> ``"98f25079e96d7424"``.
    Dict key order does not matter; list order does; ``1``, ``1.0`` and ``true`` differ.

    Returns:
        16 lowercase hex characters, or ``None`` for an empty schema.

    Raises:
        TraceError: as ``canonical_schema_text``.
    """
    text = canonical_schema_text(tool_schema)
    if text is None:
        return None
    return sha256_hex(text.encode("utf-8"))[:SCHEMA_HASH_LENGTH]


JUDGE_SCORE_RANGE = (0.0, 10.0)
"""The judge score range, inclusive: PraisonAI's judge scores 0-10 (the ``trace`` schema)."""

JUDGE_ERROR_CODES = ("unparseable", "not-finite", "out-of-range", "missing")
"""What ``JudgeError.code`` can be (docs/trace-gates.md, "Judge errors")."""

_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_SHOWN_CHARS = 40


@attrs.frozen
class JudgeError:
    """Why a trace's judge score could not be used (a result's ``judge_error``).

    Args:
        code: one of ``JUDGE_ERROR_CODES``: ``unparseable`` (a string that is not a JSON number
            literal, or a value that is no number at all), ``not-finite`` (NaN, an infinity, a
            number that overflows to one), ``out-of-range`` (outside the judge's range,
            ``JUDGE_SCORE_RANGE`` unless set), ``missing`` (the judge gate is required and the
            trace has no score).
        message: one line naming the value, e.g. ``"judge_score 'n/a' is not a number"``.
    """

    code: str
    message: str


@attrs.frozen
class JudgeReading:
    """A trace's ``judge_score`` as read by ``read_judge_score``.

    Args:
        configured: the judge gate is set (the trace has a score, or one is required).
        score: the score as a finite float inside the range, or ``None``.
        error: why there is no usable score although the gate is set, or ``None``.
    """

    configured: bool
    score: float | None
    error: JudgeError | None


def _shown(raw: Any) -> str:
    """``raw`` for a message, at most 40 characters."""
    try:
        text = f"{_type_name(raw)} {raw!r}" if isinstance(raw, (list, dict)) else repr(raw)
    except ValueError:  # an integer with more digits than Python will print
        text = "an integer too long to print"
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS - 3] + "..."


def _range_text(score_range: tuple[float, float]) -> str:
    return f"[{score_range[0]:g}, {score_range[1]:g}]"


def _judge_number(raw: Any) -> float | JudgeError:
    """``raw`` as a float (maybe not finite), or the ``unparseable`` error."""
    if isinstance(raw, str):
        text = raw.strip()
        if _JSON_NUMBER.fullmatch(text):
            return float(text)  # "1e999" -> inf: reported as not finite
        try:
            special = float(text)
        except ValueError:
            special = 0.0
        if not math.isfinite(special):  # "nan", "NaN", "inf", "-Infinity"
            return JudgeError("not-finite", f"judge_score {_shown(raw)} is not a finite number")
        return JudgeError("unparseable", f"judge_score {_shown(raw)} is not a number")
    if isinstance(raw, (int, float)):  # bool included: True is 1.0, as in 1.7.17
        try:
            return float(raw)
        except OverflowError:  # an int beyond the float range: finite, but out of any range
            return math.inf if raw > 0 else -math.inf
    try:
        return float(raw)  # Decimal, numpy scalars, ... through the Python API
    except (TypeError, ValueError, OverflowError):
        return JudgeError("unparseable", f"judge_score {_shown(raw)} is not a number")


def read_judge_score(raw: Any, score_range: tuple[float, float] = JUDGE_SCORE_RANGE, *,
                     required: bool = False) -> JudgeReading:
    """Read a trace's ``judge_score`` value.

    - ``None`` (absent or null): no judge; the gate is not configured, unless ``required``
      (then ``missing``).
    - a number (``True`` is 1.0, as in 1.7.17), or a string holding a JSON number literal with
      optional surrounding white space (``"9"``, ``" 8.5 "``): that number. Other strings
      (``"n/a"``, ``"1_000"``, ``"0x10"``, ``"+5"``, ``""``) and values that are no number
      (``[]``, ``{}``) are ``unparseable``; 1.7.17's ``float()`` reads ``"1_000"`` and ``"+5"``.
    - NaN, an infinity (a float, or a string such as ``"nan"``, ``"Infinity"``, ``"1e999"``) is
      ``not-finite``; a finite number outside ``score_range`` (inclusive; an integer too large
      for a float included) is ``out-of-range``.

    Args:
        raw: the ``judge_score`` value as found in the trace.
        score_range: ``(lowest, highest)`` score the judge gives; default 0-10 (PraisonAI's).
        required: the judge gate is required: a missing score is an error.

    Returns:
        a ``JudgeReading``: a usable ``score`` with no ``error``, or ``score None`` with the
        ``error`` (the judge gate then fails), or neither (no judge, gate not configured).
    """
    if raw is None:
        if required:
            return JudgeReading(True, None, JudgeError(
                "missing", "no judge_score in the trace, and the judge gate is required"))
        return JudgeReading(False, None, None)
    value = _judge_number(raw)
    if isinstance(value, JudgeError):
        return JudgeReading(True, None, value)
    low, high = score_range
    if math.isnan(value) or (math.isinf(value) and not isinstance(raw, int)):
        return JudgeReading(True, None, JudgeError(
            "not-finite", f"judge_score {_shown(raw)} is not a finite number"))
    if not low <= value <= high:
        return JudgeReading(True, None, JudgeError(
            "out-of-range", f"judge_score {_shown(raw)} is outside the judge's range "
                            f"{_range_text(score_range)}"))
    return JudgeReading(True, value, None)
