"""Expected tool calls: the format of what a case expects, and its checks.

Everything ``_matching`` compares is checked here first, so a malformed expectation is an input
error naming its JSON path and never a silent mismatch: expected calls, matcher tables, function
definitions (their ``type`` words), and what makes an expectation impossible to satisfy
(``tool_call_contradictions``). Also the two builders of calls: BFCL ground truth turned into
expected calls (``calls_from_bfcl``) and an answer that satisfies an expectation
(``example_calls``, the mock adapter's). Pure (no I/O); imports nothing from aau.

Formats
-------
Expected calls follow the Berkeley Function-Calling Leaderboard (BFCL) ground truth, renamed to
JSON-friendly keys::

    {"name": "get_weather", "arguments": {"city": ["Paris", "paris"], "unit": ["celsius", ""]}}

Each argument maps to a LIST of acceptable values; ``""`` in the list means the argument may be
left out. An acceptable value that is an object is a *pattern*: each of its keys again maps to a
list of acceptable values (BFCL's dictionary ground truth), and the actual object may hold no
other key. An acceptable array is compared element by element (same length); objects inside it
are patterns too (BFCL's list of dictionaries).

Actual calls are what an agent reports: ``{"name": str, "arguments": {str: JSON value}}``.

Function definitions (optional) give parameter types and required parameters, as BFCL's
``function`` field or an OpenAI tool's ``function`` object does::

    {"name": "get_weather", "parameters": {"type": "object",
     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
     "required": ["city"]}}

Types may use the JSON Schema words (``integer``, ``number``, ``string``, ``boolean``, ``array``,
``object``) or BFCL's Python words (``float``, ``dict``, ``tuple``, ``any``).

Matchers (``TOOL_CALL_MATCHERS`` and the numeric ``{"tolerance", "relative"}`` object) and how
values compare under them are described in ``_matching``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

TOOL_CALL_MATCHERS = ("exact", "verbatim", "case_insensitive", "any")
"""Matchers given by name; the numeric tolerance matcher is an object."""

_TYPE_WORDS = {
    "integer": "integer", "int": "integer",
    "number": "number", "float": "number", "double": "number",
    "string": "string", "str": "string",
    "boolean": "boolean", "bool": "boolean",
    "array": "array", "tuple": "array", "list": "array",
    "object": "object", "dict": "object",
    "any": "any",
    "null": "null",
}
_REPR_LIMIT = 80


class ToolCallFormatError(ValueError):
    """Expected calls, actual calls, matchers or definitions are malformed.

    Attributes:
        path: JSON path of the problem relative to the value given (``"$[1].arguments"``).
        message: what is wrong.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


# ---------------------------------------------------------------------------------------------
# Input checks


def _named_objects(value: Any, path: str, what: str) -> list[tuple[str, Mapping[str, Any]]]:
    """``(path of item, item)`` for an array of objects each with a non-empty string ``name``."""
    if not isinstance(value, list):
        raise ToolCallFormatError(path, f"{what} must be an array")
    out = []
    for i, item in enumerate(value):
        where = f"{path}[{i}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str) \
                or not item["name"]:
            raise ToolCallFormatError(where, "must be an object with a non-empty string name")
        out.append((where, item))
    return out


def check_expected_calls(value: Any, *, path: str = "$") -> list[dict[str, Any]]:
    """Check expected calls (``[{"name", "arguments": {arg: [acceptable, ...]}}]``).

    Returns:
        the list itself (not copied).

    Raises:
        ToolCallFormatError: not an array of objects with a non-empty ``name`` and an
            ``arguments`` object whose values are non-empty arrays.
    """
    for where, item in _named_objects(value, path, "expected tool calls"):
        arguments = item.get("arguments", {})
        if not isinstance(arguments, dict):
            raise ToolCallFormatError(f"{where}.arguments", "must be an object")
        for arg, allowed in arguments.items():
            _check_acceptable_values(allowed, f"{where}.arguments.{arg}")
    return value


def _check_acceptable_values(allowed: Any, where: str) -> None:
    if not isinstance(allowed, list) or not allowed:
        raise ToolCallFormatError(where, "must be a non-empty array of acceptable values")
    for i, value in enumerate(allowed):
        _check_acceptable_value(value, f"{where}[{i}]")


def _check_acceptable_value(value: Any, where: str) -> None:
    if isinstance(value, dict):
        for key, allowed in value.items():
            _check_acceptable_values(allowed, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_acceptable_value(item, f"{where}[{i}]")
    elif not (value is None or isinstance(value, (str, bool, int, float))):
        raise ToolCallFormatError(where, f"{type(value).__name__} is not a JSON value")


def _check_matcher(matcher: Any, where: str) -> None:
    if isinstance(matcher, str):
        if matcher not in TOOL_CALL_MATCHERS:
            raise ToolCallFormatError(where, f"unknown matcher {matcher!r}; one of "
                                      + ", ".join(TOOL_CALL_MATCHERS) + " or {tolerance, relative}")
        return
    if not isinstance(matcher, dict) or not matcher or set(matcher) - {"tolerance", "relative"}:
        raise ToolCallFormatError(where, "a numeric matcher is {\"tolerance\": abs, "
                                  "\"relative\": rel}")
    for key, bound in matcher.items():
        if isinstance(bound, bool) or not isinstance(bound, (int, float)) or not (
                math.isfinite(bound) and bound >= 0):
            raise ToolCallFormatError(f"{where}.{key}", "must be a finite number >= 0")


def check_matchers(value: Any, *, path: str = "$") -> dict[str, dict[str, Any]]:
    """Check a matcher table ``{tool: {arg: matcher}}`` (matchers in the module docstring).

    Raises:
        ToolCallFormatError: not an object of objects, or an unknown matcher.
    """
    if not isinstance(value, dict):
        raise ToolCallFormatError(path, "matchers must be an object {tool: {argument: matcher}}")
    for tool, per_arg in value.items():
        if not isinstance(per_arg, dict):
            raise ToolCallFormatError(f"{path}.{tool}", "must be an object {argument: matcher}")
        for arg, matcher in per_arg.items():
            _check_matcher(matcher, f"{path}.{tool}.{arg}")
    return value


def _check_type_spec(spec: Any, where: str) -> None:
    if not isinstance(spec, Mapping):
        raise ToolCallFormatError(where, "a parameter definition must be an object")
    if "type" in spec:
        words = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
        for word in words:
            if not isinstance(word, str) or word.lower() not in _TYPE_WORDS:
                raise ToolCallFormatError(f"{where}.type", f"unknown type {word!r}; one of "
                                          + ", ".join(sorted(_TYPE_WORDS)))
    if isinstance(spec.get("items"), Mapping):
        _check_type_spec(spec["items"], f"{where}.items")


def check_functions(value: Any, *, path: str = "$") -> list[Mapping[str, Any]]:
    """Check function definitions (``[{"name", "parameters": {"properties", "required"}}]``).

    Returns:
        the list itself.

    Raises:
        ToolCallFormatError: not an array of objects with a non-empty string ``name``;
            ``parameters`` not an object; ``properties`` not an object of objects; ``required``
            not an array of strings; a ``type`` word that is neither a JSON Schema type nor a
            BFCL one (``"strng"``: the type check would be skipped silently).
    """
    for where, fn in _named_objects(value, path, "function definitions"):
        params = fn.get("parameters", {})
        if not isinstance(params, Mapping):
            raise ToolCallFormatError(f"{where}.parameters", "must be an object")
        properties = params.get("properties", {})
        if not isinstance(properties, Mapping):
            raise ToolCallFormatError(f"{where}.parameters.properties", "must be an object")
        for arg, spec in properties.items():
            _check_type_spec(spec, f"{where}.parameters.properties.{arg}")
        required = params.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise ToolCallFormatError(f"{where}.parameters.required",
                                      "must be an array of argument names")
    return value


def tool_call_contradictions(
    expected: Sequence[Mapping[str, Any]], functions: Sequence[Mapping[str, Any]] | None,
) -> list[tuple[list[str | int], str]]:
    """What makes checked expected calls impossible to satisfy under their definitions.

    Args:
        expected: expected calls (already through ``check_expected_calls``).
        functions: definitions (already through ``check_functions``), or ``None``.

    Returns:
        ``(path parts, message)`` pairs, the parts relative to the case's ``expected`` object
        (``["tool_call_match", "functions", 0, "parameters", "required", 1]``): a definition no
        expected call uses (a misspelt name?); a required parameter an expected call omits or
        may only leave out; an expected argument the definition does not declare; an acceptable
        value of a type the definition refuses. Empty when an answer matching every expected
        call exists (the one ``example_calls`` builds).
    """
    problems: list[tuple[list[str | int], str]] = []
    used = {call["name"] for call in expected}
    defs = functions_by_name(functions)
    for i, fn in enumerate(functions or []):
        if fn["name"] not in used:
            problems.append((["tool_call_match", "functions", i, "name"],
                             f"function {fn['name']!r} is defined but no expected call uses it "
                             "(a misspelt name?)"))
    index = {fn["name"]: i for i, fn in reversed(list(enumerate(functions or [])))}
    for j, call in enumerate(expected):
        fn = defs.get(call["name"])
        if fn is None:
            continue
        at = ["tool_call_match", "functions", index[call["name"]], "parameters"]
        params = fn.get("parameters", {})
        properties = params.get("properties", {})
        arguments = call.get("arguments", {})
        for k, param in enumerate(params.get("required", [])):
            if not any(not _is_omitted(a) for a in arguments.get(param, [])):
                problems.append(([*at, "required", k],
                                 f"{param!r} is required, but expected call #{j} "
                                 f"{call['name']!r} gives it no value (the case could never pass)"))
        for arg, allowed in arguments.items():
            where: list[str | int] = ["tool_calls", j, "arguments", arg]
            if arg not in properties:
                problems.append((where, f"{call['name']!r} declares no parameter {arg!r} in "
                                        "parameters.properties (the case could never pass)"))
                continue
            for n, value in enumerate(allowed):
                problem = None if _is_omitted(value) else _type_error(value, properties[arg])
                if problem:
                    problems.append(([*where, n], f"{_short(value)} can never match the "
                                                  f"declared type ({problem})"))
    return problems


def functions_by_name(functions: Sequence[Mapping[str, Any]] | None) -> dict[str, Mapping[str, Any]]:
    """Index function definitions by name (the first definition of a name wins).

    Args:
        functions: ``[{"name", "parameters": {"properties", "required"}}]`` (BFCL ``function``
            entries or OpenAI function objects), or ``None``.

    Returns:
        ``{name: definition}``.

    Raises:
        ToolCallFormatError: as ``check_functions``.
    """
    out: dict[str, Mapping[str, Any]] = {}
    for fn in check_functions(list(functions) if isinstance(functions, tuple) else functions,
                              path="functions") if functions is not None else ():
        out.setdefault(fn["name"], fn)
    return out


# ---------------------------------------------------------------------------------------------
# Declared types


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_omitted(value: Any) -> bool:
    return isinstance(value, str) and value == ""


def _type_error(value: Any, spec: Any) -> str | None:
    """Return why ``value`` does not have the declared type ``spec``, or ``None``."""
    if not isinstance(spec, Mapping):
        return None
    raw = spec.get("type", "any")
    words = [_TYPE_WORDS.get(str(w).lower()) for w in (raw if isinstance(raw, list) else [raw])]
    ok = any({
        None: True,
        "any": True,
        "null": value is None,
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": _is_number(value),
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }[word] for word in words)
    word = words[0] if len(words) == 1 else None
    if not ok:
        return f"expected type {spec.get('type')}, got {_json_type(value)}"
    if word == "array" and isinstance(spec.get("items"), Mapping):
        for i, item in enumerate(value):
            problem = _type_error(item, spec["items"])
            if problem:
                return f"item {i}: {problem}"
    return None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _REPR_LIMIT else text[: _REPR_LIMIT - 3] + "..."


# ---------------------------------------------------------------------------------------------
# Helpers for BFCL data and the mock adapter


def calls_from_bfcl(ground_truth: Sequence[Mapping[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Turn BFCL ground truth ``[{fn: {arg: [acceptable, ...]}}]`` into expected calls.

    Returns:
        ``[{"name": fn, "arguments": {arg: [acceptable, ...]}}]`` in the same order.

    Raises:
        ToolCallFormatError: not an array of ``{fn: {arg: [acceptable, ...]}}`` objects.
    """
    if not isinstance(ground_truth, list) or not all(
            isinstance(entry, dict) and all(isinstance(a, dict) for a in entry.values())
            for entry in ground_truth):
        raise ToolCallFormatError("$", "BFCL ground truth must be an array of "
                                  "{function: {argument: [acceptable, ...]}} objects")
    out = []
    for entry in ground_truth:
        for name, arguments in entry.items():
            out.append({"name": name, "arguments": {
                k: list(v) if isinstance(v, tuple) else v for k, v in arguments.items()}})
    return check_expected_calls(out)


def _first_value(allowed: Sequence[Any]) -> tuple[bool, Any]:
    for value in allowed:
        if not _is_omitted(value):
            return True, _concrete(value)
    return False, None


def _concrete(value: Any) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, allowed in value.items():
            present, chosen = _first_value(allowed if isinstance(allowed, list) else [allowed])
            if present:
                out[key] = chosen
        return out
    if isinstance(value, list):
        return [_concrete(v) for v in value]
    return value


def example_calls(expected: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Build actual calls that satisfy ``expected``: per argument the first acceptable value
    that is not ``""`` (arguments whose only acceptable value is ``""`` are left out; object
    patterns are filled in the same way). Used by the mock adapter.

    Returns:
        ``[{"name", "arguments"}]`` in expected order.

    Raises:
        ToolCallFormatError: as ``check_expected_calls``.
    """
    check_expected_calls(list(expected) if isinstance(expected, tuple) else expected)
    calls = []
    for call in expected:
        arguments = {}
        for arg, allowed in call.get("arguments", {}).items():
            present, chosen = _first_value(allowed)
            if present:
                arguments[arg] = chosen
        calls.append({"name": call["name"], "arguments": arguments})
    return calls
