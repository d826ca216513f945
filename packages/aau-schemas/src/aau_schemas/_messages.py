"""User-facing messages for schema violations: one line each, values written as JSON literals.

python-jsonschema's own messages use Python reprs (``False was expected``, ``'x' is a required
property``); aau's users read JSON, so the common keywords get messages built from the error's
data (``false was expected``, ``"x" is a required property``), and other keywords keep the
library's message with a leading Python value rewritten as JSON. A failed ``pattern`` says the
rule in words (``"http://x.org" is not an https:// URL``): the pattern is one the schemas share,
or its schema's ``description`` names the rule, or the pattern is read out in words
(``_pattern_words``); ``not`` of a ``const`` says ``"x" is not
allowed here``: a user never reads a raw regex or a schema fragment. A key a closed object does
not allow names the allowed key it most resembles (``nearest_key``): ``property
"forbidden_action" is not allowed here; did you mean "forbidden_actions"?``.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from ._pattern_words import pattern_in_words

INSTANCE_CHARS = 80  # a longer offending value is cut short (its JSON path already locates it)
NEAREST_KEY_CUTOFF = 0.6  # difflib's default similarity ratio: "tool_call" -> "tool_calls"


def nearest_key(key: str, known: Iterable[str], *,
                cutoff: float = NEAREST_KEY_CUTOFF) -> str | None:
    """The key of ``known`` that ``key`` most resembles: the likely intended spelling of a
    misspelt key, for "did you mean ...?" hints.

    Args:
        key: the key a document has and its schema does not name.
        known: the keys the schema names there.
        cutoff: the least similarity accepted, in [0, 1]: ``difflib.SequenceMatcher``'s ratio
            2*M/T (M matching characters, T the characters of both strings); default 0.6.

    Returns:
        the most similar known key (``difflib.get_close_matches``; ties go to the key that sorts
        last), or ``None`` when none reaches ``cutoff``. ``nearest_key("forbidden_action",
        ["expected", "forbidden_actions", "input", "scenario_id"])`` is
        ``"forbidden_actions"`` (ratio 0.97); ``nearest_key("notes", ...)`` is ``None``.
    """
    found = difflib.get_close_matches(key, sorted(set(known)), n=1, cutoff=cutoff)
    return found[0] if found else None


def _literal(value: Any, limit: int = INSTANCE_CHARS) -> str:
    """``value`` as a JSON literal, cut to about ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):  # not a JSON value (an API caller's own object)
        text = repr(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escape it rather than fail to print
        text = json.dumps(value, ensure_ascii=True, default=repr)
    if len(text) <= limit:
        return text
    return text[: limit - 4] + ('..."' if isinstance(value, str) else " ...")


def _literals(values: Iterable[Any]) -> str:
    return ", ".join(_literal(v) for v in values)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _msg_required(error: Any) -> str | None:
    instance = error.instance if isinstance(error.instance, dict) else {}
    for name in error.validator_value:
        if name not in instance and error.message == f"{name!r} is a required property":
            return f"{_literal(name)} is a required property"
    return None


def _msg_dependent_required(error: Any) -> str | None:
    instance = error.instance if isinstance(error.instance, dict) else {}
    for prop, names in error.validator_value.items():
        for name in names:
            if prop in instance and name not in instance \
                    and error.message == f"{name!r} is a dependency of {prop!r}":
                return f"{_literal(name)} is required when {_literal(prop)} is present"
    return None


def _msg_type(error: Any) -> str:
    types = error.validator_value
    types = [types] if isinstance(types, str) else list(types)
    return f"{_literal(error.instance)} is not of type {_literals(types)}"


def _extra_keys(error: Any) -> list[str]:
    props = error.schema.get("properties", {})
    patterns = list(error.schema.get("patternProperties", {}))
    return [k for k in error.instance
            if k not in props and not any(re.search(p, k) for p in patterns)]


def _msg_additional(error: Any) -> str | None:
    if error.validator_value is not False or not isinstance(error.instance, dict):
        return None
    extra = _extra_keys(error)
    if not extra:
        return None
    allowed = [k for k in error.schema.get("properties", {}) if k not in error.instance]
    hints = {k: hint for k in extra if (hint := nearest_key(k, allowed)) is not None}
    if len(extra) == 1:
        message = f"property {_literal(extra[0])} is not allowed here"
        return message + (f"; did you mean {_literal(hints[extra[0]])}?" if hints else "")
    message = f"properties {_literals(extra)} are not allowed here"
    if hints:
        message += "; did you mean " + ", ".join(
            f"{_literal(hint)} for {_literal(k)}" for k, hint in hints.items()) + "?"
    return message


def _msg_length(error: Any) -> str:
    n, value = error.validator_value, error.instance
    if error.validator == "minLength":
        if n == 1:
            return f"{_literal(value)} should be non-empty"
        return f"{_literal(value)} is shorter than {_plural(n, 'character')}"
    return f"{_literal(value)} is longer than {_plural(n, 'character')}"


def _msg_items(error: Any) -> str:
    n, value = error.validator_value, error.instance
    if error.validator == "minItems":
        if n == 1:
            return f"{_literal(value)} should be non-empty"
        return f"{_literal(value)} has fewer than {_plural(n, 'item')}"
    return f"{_literal(value)} has more than {_plural(n, 'item')}"


def _msg_properties(error: Any) -> str:
    n, value = error.validator_value, error.instance
    if error.validator == "minProperties":
        if n == 1:
            return f"{_literal(value)} should be non-empty"
        return f"{_literal(value)} has fewer than {_plural(n, 'property')}"
    if n == 0:
        return f"{_literal(value)} should be empty"
    return f"{_literal(value)} has more than {_plural(n, 'property')}"


_BOUNDS = {
    "minimum": "is less than the minimum of",
    "maximum": "is greater than the maximum of",
    "exclusiveMinimum": "is less than or equal to the exclusive minimum of",
    "exclusiveMaximum": "is greater than or equal to the exclusive maximum of",
}


def _forbidden_names(schema: Any) -> list[str]:
    """Property names a ``not`` schema made of ``required`` (or ``anyOf`` of them) forbids."""
    if not isinstance(schema, dict):
        return []
    if set(schema) == {"required"}:
        return list(schema["required"])
    if set(schema) == {"anyOf"} and all(isinstance(s, dict) and set(s) == {"required"}
                                        for s in schema["anyOf"]):
        return [name for s in schema["anyOf"] for name in s["required"]]
    return []


def _msg_not(error: Any) -> str:
    names = _forbidden_names(error.validator_value)
    present = [n for n in names if isinstance(error.instance, dict) and n in error.instance]
    if present:
        verb = "is" if len(present) == 1 else "are"
        return f"{_literals(present)} {verb} not allowed here"
    forbidden = error.validator_value
    if isinstance(forbidden, dict) and (set(forbidden) == {"const"} or set(forbidden) == {"enum"}):
        return f"{_literal(error.instance)} is not allowed here"
    return f"{_literal(error.instance)} should not be valid under " \
           f"{_literal(error.validator_value, 200)}"


# What a pattern means, for the patterns aau's schemas share (a user never sees the regex)
_PATTERN_RULES: tuple[tuple[Callable[[str], bool], str], ...] = (
    (lambda p: p.startswith("^https://github\\.com/"), "an https://github.com/<handle> URL"),
    (lambda p: p.startswith("^https://"), "an https:// URL"),
    (lambda p: "(?!\\.{1,2}(?:/|$" in p,
     'a safe relative POSIX path (no "..", ".", ".git", empty or absolute segments)'),
    (lambda p: p.startswith("[^\\t\\n\\u000b"), "non-blank text"),
    (lambda p: p.startswith("^[^\\t\\n\\u000b") and "[\\s\\S]*" in p,
     "text without leading or trailing whitespace"),
    (lambda p: p.startswith("^[^\\t\\n\\u000b"), "text without whitespace at either end"),
)
_ARTICLE = re.compile(r"^(A|An|One|\d+ to \d+) ")  # a noun phrase: "An id", "12 to 64 hex..."


def _rule_description(error: Any) -> str | None:
    """The rule a failed ``pattern`` stands for, as a noun phrase (``an https:// URL``): from
    the shared patterns above, else from the (sub)schema's own ``description`` when it starts
    with "A"/"An"/"One" or a range "12 to 64" (its first sentence or clause, before ". " or
    "; ", lower-cased first letter), else the pattern read out (``pattern_in_words``)."""
    pattern = error.validator_value if isinstance(error.validator_value, str) else ""
    for matches, phrase in _PATTERN_RULES:
        if matches(pattern):
            return phrase
    description = error.schema.get("description") if isinstance(error.schema, dict) else None
    if isinstance(description, str) and _ARTICLE.match(description):
        first = re.split(r"(?<=[a-z0-9)])(?:\. |; )", description.strip(),
                         maxsplit=1)[0].rstrip(".")
        if len(first) <= 160:
            return first[0].lower() + first[1:]
    return pattern_in_words(pattern) if pattern else None


def _msg_pattern(error: Any) -> str:
    rule = _rule_description(error)
    if rule is not None:
        return f"{_literal(error.instance)} is not {rule}"
    return f"{_literal(error.instance)} does not match {_literal(error.validator_value, 200)}"


_MESSAGES: dict[str, Callable[[Any], str | None]] = {
    "required": _msg_required,
    "dependentRequired": _msg_dependent_required,
    "type": _msg_type,
    "const": lambda e: f"{_literal(e.validator_value, 200)} was expected",
    "enum": lambda e: f"{_literal(e.instance)} is not one of {_literal(e.validator_value, 200)}",
    "additionalProperties": _msg_additional,
    "minLength": _msg_length,
    "maxLength": _msg_length,
    "minItems": _msg_items,
    "maxItems": _msg_items,
    "minProperties": _msg_properties,
    "maxProperties": _msg_properties,
    "pattern": _msg_pattern,
    "format": lambda e: f"{_literal(e.instance)} is not a valid {_literal(e.validator_value)}",
    "uniqueItems": lambda e: f"{_literal(e.instance)} has repeated items",
    "not": _msg_not,
    **{k: (lambda e, words=words: f"{_literal(e.instance)} {words} {_literal(e.validator_value)}")
       for k, words in _BOUNDS.items()},
}


def violation_message(error: Any) -> str:
    """One error's message with values as JSON literals (see the module docstring)."""
    build = _MESSAGES.get(error.validator) if isinstance(error.validator, str) else None
    if build is not None:
        try:
            message = build(error)
        except Exception:  # noqa: BLE001 - an unexpected shape: the library's message will do
            message = None
        if message:
            if "propertyNames" in error.schema_path:  # the instance is a key, not a value
                message = f"property name {message}"
            return message
    message = str(error.message)
    try:
        prefix = repr(error.instance)
    except Exception:  # noqa: BLE001
        return message
    if message.startswith(prefix + " "):
        message = _literal(error.instance) + message[len(prefix):]
    return message


def one_line(message: str) -> str:
    message = " ".join(message.split())
    return message if len(message) <= 300 else message[:297] + "..."
