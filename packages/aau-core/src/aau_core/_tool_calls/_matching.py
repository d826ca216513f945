"""Tool-call matching: did an agent make the function calls a case expects?

Pure (no I/O). Used by ``aau evaluate`` for suite v2's ``expected.tool_calls``, and usable by any
runner or lab that has expected and actual calls in hand.

Formats of expected calls, acceptable values, actual calls and function definitions, and the
checks every input goes through first, are in ``_expected``.

Modes (the trajectory vocabulary of LangChain agentevals, ``trajectory_match_mode``)
-------------------------------------------------------------------------------------
- ``strict``: the same calls in the same order, nothing extra, nothing missing.
- ``unordered``: the same multiset of calls in any order (BFCL's parallel checker).
- ``subset``: every actual call matches a distinct expected call; calls may be skipped but
  nothing extra may be called.
- ``superset``: every expected call is matched by a distinct actual call; extra calls are
  allowed.

Matching is one-to-one (an actual call is consumed once). For ``unordered``, ``subset`` and
``superset`` the pairing is a maximum bipartite matching (augmenting paths), so the verdict does
not depend on the order of either list; BFCL's parallel checker pairs greedily, which can miss a
valid pairing when one actual call fits two expected calls. An expected list of ``[]`` means "call
nothing" in every mode (BFCL's irrelevance category): any call fails, even under ``superset``.

Per-call rules (BFCL ``ast_checker.simple_function_checker``, learned from bfcl-eval 2026.3.23)
-----------------------------------------------------------------------------------------------
1. The function name must be equal (case-sensitive; BFCL's per-model ``.`` -> ``_`` renaming is
   not applied).
2. Every parameter the definition marks ``required`` must be present.
3. Every actual argument must be named both in the definition's ``properties`` (when a
   definition is given) and in the expected call's ``arguments``; otherwise it is unexpected.
4. Types, when the definition gives one: ``integer`` takes an integer only (a float such as
   ``5.0`` is refused); ``number``/``float`` takes an integer or a float (Python's int-to-float
   widening, which BFCL allows, and not the reverse); ``string``, ``boolean``, ``array``
   (also ``tuple``), ``object`` (also ``dict``) take only their JSON type; ``any`` takes
   everything. Array ``items`` types are checked element by element. A boolean is never a
   number. Without a definition numbers compare by value.
5. The value must equal one acceptable value under the argument's matcher (below).
6. Every expected argument absent from the call must list ``""`` as acceptable.
7. Declared defaults (aau's rule; BFCL's checker ignores ``default`` and its ground truth lists
   ``""`` beside the default instead): when the definition declares a parameter's JSON Schema
   ``default``, passing that value (under the argument's matcher) and leaving the argument out
   are the same on both sides. An actual argument equal to its default is accepted where the
   expected call lets it be left out (lists ``""``, or does not name it); an argument left out is
   accepted where the expected call lists the default as acceptable. Rule 2 still applies: a
   ``required`` parameter must be present even if it declares a default. The rule applies at
   every depth: inside an object value whose definition declares nested ``properties`` with a
   ``default`` (directly, or as the ``items`` of an array), a key left out and the key given
   its default are alike on both sides (BFCL does not read nested defaults either).

Matchers (per tool, per argument: ``{"tool": {"arg": matcher}}``)
-----------------------------------------------------------------
- ``"exact"`` (default): BFCL equality. Strings are *standardised* before comparison, anywhere in
  the value: the characters space , . / - _ * ^ are removed, the rest lower-cased and ``'``
  replaced by ``"`` (so "April 1, 2024" equals "april 1 2024"); numbers compare by value
  (type rules above); arrays element by element; objects as patterns.
- ``"verbatim"``: as exact but strings must be identical (no standardisation).
- ``"case_insensitive"``: as exact but strings compare by ``str.casefold()`` only (spaces and
  punctuation count).
- ``"any"``: any value is accepted (no type check); whether the argument may be left out still
  follows the ``""`` rule and the definition's ``required`` list.
- ``{"tolerance": abs, "relative": rel}``: numbers within ``max(abs, rel * |acceptable|)`` of an
  acceptable number match (both default to 0, neither negative); other values as exact.

Reasons name the call (``expected call #i`` / ``actual call #j``, 0-based), the argument, the value
got and the values allowed; they are short and meant for receipts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ._expected import (
    ToolCallFormatError,
    _check_acceptable_value,
    _check_matcher,
    _is_number,
    _is_omitted,
    _json_type,
    _short,
    _type_error,
    check_expected_calls,
    check_functions,
    check_matchers,
    functions_by_name,
)

TOOL_CALL_MODES = ("strict", "unordered", "subset", "superset")
"""The four matching modes."""

_BFCL_STRIP = re.compile(r"[ ,./\-_*^]")


@attrs.frozen
class ToolCallMatch:
    """The verdict of ``match_tool_calls``.

    Attributes:
        matched: whether the actual calls satisfy the expected calls under ``mode``.
        mode: the mode used.
        expected_count, actual_count: how many calls each side has.
        pairs: ``(expected index, actual index)`` pairs of the matching found, sorted.
        reasons: one short line per mismatch (empty when ``matched``).
    """

    matched: bool
    mode: str
    expected_count: int
    actual_count: int
    pairs: tuple[tuple[int, int], ...]
    reasons: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"matched", "mode", "expected_count", "actual_count", "pairs", "reasons"}``
        (pairs as two-element lists), JSON-ready.

        Stays a dict built here: the verdict is no document of a schema kind (it is written
        inside a bench result's free-form ``detail``), and its pairs are lists where the
        document converter would keep two-element tuples."""
        return {
            "matched": self.matched,
            "mode": self.mode,
            "expected_count": self.expected_count,
            "actual_count": self.actual_count,
            "pairs": [list(p) for p in self.pairs],
            "reasons": list(self.reasons),
        }


# ---------------------------------------------------------------------------------------------
# Actual calls


def normalize_tool_calls(value: Any, *, path: str = "$") -> list[dict[str, Any]]:
    """Check actual calls and return them as ``[{"name", "arguments"}]`` (extra keys dropped).

    Only aau's own shape is read. A call in a model provider's shape is refused with a hint
    naming the shape and what to answer instead (never read as a call without arguments, which
    would be a silent wrong score): an Anthropic ``tool_use`` block (``input``), an OpenAI chat
    tool call (``function.name`` / ``function.arguments``) and an OpenAI Responses
    ``function_call`` item (``arguments`` a JSON string). A call carrying a key under which a
    documented shape holds arguments (``PROVIDER_ARGUMENT_KEYS``: ``input``, ``function``,
    ``parameters``, ``args``, ``kwargs``, ``tool_input``) is refused whether or not it also has
    ``arguments`` (``{"name", "arguments": {}, "input": {...}}`` is not a call without
    arguments). A call with no ``arguments`` but keys other than ``name``, ``id``, ``call_id``
    and ``type`` is refused too: its arguments are probably under one of them.

    Args:
        value: the ``tool_calls`` value of an adapter response.
        path: JSON path of ``value``, for messages.

    Returns:
        a new list of ``{"name": str, "arguments": dict}``.

    Raises:
        ToolCallFormatError: not an array; an item not an object; an item in a provider's shape
            or with its arguments under an unknown key; ``name`` not a non-empty string;
            ``arguments`` present but not an object (a JSON-encoded string is refused too).
    """
    if not isinstance(value, list):
        raise ToolCallFormatError(path, "tool_calls must be an array of {name, arguments}")
    out = []
    for i, item in enumerate(value):
        where = f"{path}[{i}]"
        if not isinstance(item, dict):
            raise ToolCallFormatError(where, "a tool call must be an object {name, arguments}")
        shape = _provider_shape(item)
        if shape is not None:
            raise ToolCallFormatError(where, shape)
        name = item.get("name")
        if not isinstance(name, str) or not name:
            keys = ", ".join(repr(k) for k in item) or "none"
            raise ToolCallFormatError(f"{where}.name", "must be a non-empty string (a tool call is "
                                      f"{{name, arguments}}; its keys: {keys})")
        arguments = item.get("arguments", {})
        if not isinstance(arguments, dict):
            hint = " (decode a JSON-encoded string first)" if isinstance(arguments, str) else ""
            raise ToolCallFormatError(f"{where}.arguments", "must be an object" + hint)
        out.append({"name": name, "arguments": arguments})
    return out


_AAU_CALL = 'aau reads {"name": "...", "arguments": {...}}'
_CALL_KEYS_WITHOUT_ARGUMENTS = frozenset({"name", "id", "call_id", "type"})
PROVIDER_ARGUMENT_KEYS = ("input", "function", "parameters", "args", "kwargs", "tool_input")
"""Keys under which a documented provider or framework shape carries a call's arguments:
Anthropic ``tool_use`` (``input``), OpenAI chat (``function``), Llama / Hermes-style JSON calls
(``parameters``), Gemini ``functionCall`` and LangChain ``ToolCall`` (``args``), Python-style
(``kwargs``), LangChain ``AgentAction`` (``tool_input``). A call carrying one is refused even
beside ``arguments``: which of the two holds the arguments is not aau's guess to make."""


def _provider_shape(item: Mapping[str, Any]) -> str | None:
    """Why ``item`` is not an aau call though it looks like one of a documented provider shape
    (or carries its arguments under a provider's key, beside ``arguments`` or instead of it, or
    under an unknown key), with what to answer instead; ``None`` when it is none of them (aau's
    shape, or a plain error the name/arguments checks report)."""
    beside = " (beside 'arguments': which one holds the arguments is ambiguous)" \
        if "arguments" in item else ""
    if "function" in item:
        return ("an OpenAI chat tool call ({\"type\": \"function\", \"function\": {\"name\", "
                f"\"arguments\": \"<JSON string>\"}}}}) is not read{beside}; {_AAU_CALL}: answer "
                "function.name as name and function.arguments decoded as arguments")
    if "input" in item or ("arguments" not in item and item.get("type") == "tool_use"):
        return ("an Anthropic tool_use block ({\"type\": \"tool_use\", \"name\", \"input\"}) is "
                f"not read{beside}; {_AAU_CALL}: answer its input as arguments")
    if item.get("type") == "function_call" and not isinstance(item.get("arguments", {}), dict):
        return ("an OpenAI Responses function_call item ({\"type\": \"function_call\", \"name\", "
                f"\"arguments\": \"<JSON string>\", \"call_id\"}}) is not read; {_AAU_CALL}: "
                "answer its arguments decoded")
    keyed = [k for k in PROVIDER_ARGUMENT_KEYS if k in item]
    if keyed:
        where = "beside 'arguments'" if "arguments" in item else "and no 'arguments'"
        return (f"carries its arguments under {', '.join(repr(k) for k in keyed)} {where} (a "
                f"provider's or framework's shape); {_AAU_CALL}: answer them as arguments")
    other = sorted(str(k) for k in item if k not in _CALL_KEYS_WITHOUT_ARGUMENTS)
    if "arguments" not in item and other:
        return (f"has no 'arguments' but has {', '.join(repr(k) for k in other)}; {_AAU_CALL} "
                "(arguments may be left out only for a call without arguments)")
    return None


# ---------------------------------------------------------------------------------------------
# Value comparison


def standardize_string(text: str) -> str:
    """BFCL's string standardisation: drop space , . / - _ * ^, lower-case, ``'`` -> ``"``.

    Raises:
        ToolCallFormatError: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise ToolCallFormatError("$", f"must be a string, not {_json_type(text)}")
    return _BFCL_STRIP.sub("", text).lower().replace("'", '"')


def _strings_equal(got: str, want: str, matcher: Any) -> bool:
    if matcher == "verbatim":
        return got == want
    if matcher == "case_insensitive":
        return got.casefold() == want.casefold()
    return standardize_string(got) == standardize_string(want)


def _numbers_equal(got: Any, want: Any, matcher: Any) -> bool:
    if isinstance(matcher, dict):
        bound = max(float(matcher.get("tolerance", 0)),
                    float(matcher.get("relative", 0)) * abs(float(want)))
        return abs(float(got) - float(want)) <= bound
    return bool(got == want)


def value_matches(got: Any, want: Any, matcher: Any = "exact") -> bool:
    """Whether ``got`` equals one acceptable value ``want`` under ``matcher``.

    Args:
        got: the actual JSON value.
        want: one acceptable value (not ``""`` meaning "omitted"); objects are patterns whose
            values are lists of acceptable values.
        matcher: a matcher (module docstring); ``"any"`` always matches.

    Returns:
        ``True`` when they match.

    Raises:
        ToolCallFormatError: an unknown matcher, or ``want`` is not an acceptable value
            (``$`` is ``want``'s path).
    """
    _check_matcher(matcher, "matcher")
    _check_acceptable_value(want, "$")
    return _value_matches(got, want, matcher)


def _value_matches(got: Any, want: Any, matcher: Any, schema: Any = None) -> bool:
    """``value_matches`` without the input checks. ``schema`` is the JSON Schema the function
    definition declares for the value (``None``: unknown); inside an object its nested
    ``properties`` give declared defaults, applied as rule 7 at every depth."""
    if matcher == "any":
        return True
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return False
        properties = _nested(schema, "properties")
        properties = properties if isinstance(properties, Mapping) else {}
        defaults = _declared_defaults(properties)
        for key, value in got.items():
            allowed = want.get(key)
            # rule 7 inside an object: a key given as its declared default counts as left out
            if key in defaults and _is_default(value, defaults[key], matcher) and (
                    allowed is None or _is_omitted_ok(allowed)):
                continue
            if not isinstance(allowed, list) or not any(
                    _value_matches(value, a, matcher, properties.get(key))
                    for a in allowed if not _is_omitted(a)):
                return False
        # rule 7: a key left out counts as its declared default given explicitly
        return all(_is_omitted_ok(allowed) or (
            key in defaults and isinstance(allowed, list) and any(
                _is_default(a, defaults[key], matcher) for a in allowed if not _is_omitted(a)))
            for key, allowed in want.items() if key not in got)
    if isinstance(want, list):
        items = _nested(schema, "items")
        return (isinstance(got, list) and len(got) == len(want)
                and all(_value_matches(g, w, matcher, items)
                        for g, w in zip(got, want, strict=True)))
    if isinstance(want, bool) or isinstance(got, bool):
        return isinstance(got, bool) and isinstance(want, bool) and got == want
    if _is_number(want):
        return _is_number(got) and _numbers_equal(got, want, matcher)
    if isinstance(want, str):
        return isinstance(got, str) and _strings_equal(got, want, matcher)
    return bool(got is None and want is None)


def _is_omitted_ok(allowed: Any) -> bool:
    return isinstance(allowed, list) and any(_is_omitted(a) for a in allowed)


# ---------------------------------------------------------------------------------------------
# One call


def call_mismatches(
    expected: Mapping[str, Any],
    actual: Mapping[str, Any],
    *,
    matchers: Mapping[str, Mapping[str, Any]] | None = None,
    function: Mapping[str, Any] | None = None,
) -> list[str]:
    """Compare one actual call with one expected call (rules 1-7 of the module docstring).

    Args:
        expected: ``{"name", "arguments": {arg: [acceptable, ...]}}``.
        actual: ``{"name", "arguments": {arg: value}}``.
        matchers: ``{tool: {arg: matcher}}``; absent entries mean ``"exact"``.
        function: the expected function's definition, or ``None`` when types are unknown.

    Returns:
        short mismatch reasons without a call prefix (``"argument 'city': got 'Pariss', allowed
        ['Paris']"``); empty when the call matches.

    Raises:
        ToolCallFormatError: a malformed input; the path starts with the parameter's name
            (``actual.arguments``, ``function.parameters``).
    """
    check_expected_calls([expected], path="expected")
    actual = normalize_tool_calls([actual], path="actual")[0]
    if matchers is not None:
        check_matchers(matchers, path="matchers")
    if function is not None:
        check_functions([function], path="function")
    return _call_mismatches(expected, actual, matchers, function)


def _allowed_text(allowed: list[Any]) -> str:
    """The acceptable values for a reason: ``allowed ['a']``, ``... or left out``."""
    values = [a for a in allowed if not _is_omitted(a)]
    if not values:
        return 'but it must be left out (its only acceptable value is "")'
    return f"allowed {_short(values)}" + (" or left out" if len(values) < len(allowed) else "")


def _call_mismatches(expected: Mapping[str, Any], actual: Mapping[str, Any],
                     matchers: Mapping[str, Mapping[str, Any]] | None,
                     function: Mapping[str, Any] | None) -> list[str]:
    name = expected["name"]
    if actual["name"] != name:
        return [f"expected function {name!r}"]
    want_args: Mapping[str, Any] = expected.get("arguments", {})
    got_args: Mapping[str, Any] = actual.get("arguments", {})
    tool_matchers = (matchers or {}).get(name, {})
    params = function.get("parameters", {}) if function else {}
    properties = params.get("properties", {}) if isinstance(params, Mapping) else {}
    required = params.get("required", []) if isinstance(params, Mapping) else []
    defaults = _declared_defaults(properties)
    reasons = []
    for param in required:
        if param not in got_args:
            reasons.append(f"missing required argument {param!r}")
    for arg, value in got_args.items():
        matcher = tool_matchers.get(arg, "exact")
        # rule 7: the declared default given explicitly counts as left out
        as_left_out = arg in defaults and _is_default(value, defaults[arg], matcher)
        if arg not in want_args or (function is not None and arg not in properties):
            if not as_left_out:
                reasons.append(f"unexpected argument {arg!r} (got {_short(value)})")
            continue
        if matcher == "any":
            continue
        problem = _type_error(value, properties.get(arg)) if function is not None else None
        if problem:
            reasons.append(f"argument {arg!r}: {problem} ({_short(value)})")
            continue
        allowed = [a for a in want_args[arg] if not _is_omitted(a)]
        spec = properties.get(arg) if isinstance(properties, Mapping) else None
        if not any(_value_matches(value, a, matcher, spec) for a in allowed) and not (
                as_left_out and _is_omitted_ok(want_args[arg])):
            reasons.append(f"argument {arg!r}: got {_short(value)}, "
                           f"{_allowed_text(want_args[arg])}")
    for arg, allowed in want_args.items():
        if arg in got_args or arg in required or _is_omitted_ok(allowed):
            continue
        matcher = tool_matchers.get(arg, "exact")
        # rule 7: left out counts as the declared default given explicitly
        if arg in defaults and any(_is_default(a, defaults[arg], matcher)
                                   for a in allowed if not _is_omitted(a)):
            continue
        reasons.append(f"missing argument {arg!r} (allowed {_short(allowed)}; not optional)")
    return reasons


def _declared_defaults(properties: Any) -> dict[str, Any]:
    """``{arg: default}`` for each parameter whose definition declares a JSON Schema
    ``default``."""
    if not isinstance(properties, Mapping):
        return {}
    return {arg: spec["default"] for arg, spec in properties.items()
            if isinstance(spec, Mapping) and "default" in spec}


def _nested(schema: Any, key: str) -> Any:
    """``schema[key]`` (``properties``, ``items``) when ``schema`` is an object, else ``None``."""
    return schema.get(key) if isinstance(schema, Mapping) else None


def _is_default(value: Any, default: Any, matcher: Any) -> bool:
    """Whether ``value`` is the declared ``default`` under the argument's matcher (``any`` is
    read as ``exact``). A default holding an object is compared by plain JSON equality (an
    acceptable-value object would be a pattern of lists)."""
    if _holds_object(default):
        return bool(value == default)
    return _value_matches(value, default, "exact" if matcher == "any" else matcher)


def _holds_object(value: Any) -> bool:
    if isinstance(value, dict):
        return True
    return isinstance(value, list) and any(_holds_object(v) for v in value)


# ---------------------------------------------------------------------------------------------
# Lists of calls


def _max_matching(ok: list[list[bool]]) -> dict[int, int]:
    """Maximum bipartite matching (Kuhn's augmenting paths): ``{actual index: expected index}``."""
    match_of_actual: dict[int, int] = {}

    def augment(e: int, seen: set[int]) -> bool:
        for a, fits in enumerate(ok[e]):
            if fits and a not in seen:
                seen.add(a)
                if a not in match_of_actual or augment(match_of_actual[a], seen):
                    match_of_actual[a] = e
                    return True
        return False

    for e in range(len(ok)):
        augment(e, set())
    return match_of_actual


def match_tool_calls(
    expected: Sequence[Mapping[str, Any]],
    actual: Sequence[Mapping[str, Any]],
    *,
    mode: str = "strict",
    matchers: Mapping[str, Mapping[str, Any]] | None = None,
    functions: Sequence[Mapping[str, Any]] | None = None,
) -> ToolCallMatch:
    """Match actual calls against expected calls (modes and rules in the module docstring).

    Args:
        expected: expected calls, ``[{"name", "arguments": {arg: [acceptable, ...]}}]``
            (``[]`` = the agent must call nothing).
        actual: actual calls, ``[{"name", "arguments": {...}}]`` (see ``normalize_tool_calls``).
        mode: ``"strict"``, ``"unordered"``, ``"subset"`` or ``"superset"``.
        matchers: ``{tool: {arg: matcher}}``.
        functions: function definitions giving parameter types and required parameters.

    Returns:
        a ``ToolCallMatch``.

    Raises:
        ToolCallFormatError: unknown mode, or a malformed input; the path starts with the
            parameter's name (``actual[0].name: must be a non-empty string``).
    """
    if mode not in TOOL_CALL_MODES:
        raise ToolCallFormatError("mode", f"unknown mode {mode!r}; one of {', '.join(TOOL_CALL_MODES)}")
    check_expected_calls(list(expected) if isinstance(expected, tuple) else expected,
                         path="expected")
    actual = normalize_tool_calls(list(actual) if isinstance(actual, tuple) else actual,
                                  path="actual")
    if matchers is not None:
        check_matchers(matchers, path="matchers")
    defs = functions_by_name(functions)
    n_exp, n_act = len(expected), len(actual)

    def result(matched: bool, pairs: Any, reasons: list[str]) -> ToolCallMatch:
        return ToolCallMatch(matched=matched, mode=mode, expected_count=n_exp,
                             actual_count=n_act, pairs=tuple(sorted(pairs)),
                             reasons=() if matched else tuple(reasons))

    def check(e: int, a: int) -> list[str]:
        exp = expected[e]
        return _call_mismatches(exp, actual[a], matchers, defs.get(exp["name"]))

    if n_exp == 0:
        return result(n_act == 0, (), [f"no call was expected; got {n_act}: "
                                       + ", ".join(repr(c["name"]) for c in actual)])
    if mode == "strict":
        reasons = []
        if n_exp != n_act:
            reasons.append(f"expected {n_exp} call(s) in order, got {n_act}")
        pairs = []
        for i in range(min(n_exp, n_act)):
            problems = check(i, i)
            if problems:
                reasons.extend(f"call #{i} {actual[i]['name']!r}: {p}" for p in problems)
            else:
                pairs.append((i, i))
        return result(not reasons, pairs, reasons)

    ok = [[not check(e, a) for a in range(n_act)] for e in range(n_exp)]
    matching = _max_matching(ok)
    pairs = [(e, a) for a, e in matching.items()]
    matched_exp = set(matching.values())
    need_all_expected = mode in ("unordered", "superset")
    need_all_actual = mode in ("unordered", "subset")
    reasons = []
    if need_all_expected:
        for e in range(n_exp):
            if e not in matched_exp:
                reasons.append(_unmatched_expected(e, expected, actual, matching, check))
    if need_all_actual:
        for a in range(n_act):
            if a not in matching:
                reasons.append(f"actual call #{a} {actual[a]['name']!r} matches no expected call"
                               " left (extra call)")
    matched = not reasons
    return result(matched, pairs, reasons)


def _unmatched_expected(e: int, expected: Sequence[Mapping[str, Any]],
                        actual: Sequence[Mapping[str, Any]], matching: dict[int, int],
                        check: Any) -> str:
    """Reason for an expected call left unmatched, quoting the closest free same-name call."""
    name = expected[e]["name"]
    head = f"expected call #{e} {name!r} was not made"
    candidates = [a for a in range(len(actual))
                  if actual[a]["name"] == name and a not in matching]
    if not candidates:
        return head
    best = min(candidates, key=lambda a: (len(check(e, a)), a))
    return f"{head}; closest: actual call #{best}: " + "; ".join(check(e, best))
