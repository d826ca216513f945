"""Validation of documents against registered schemas.

The fast path is jsonschema-rs (format checking on). When a document fails, the violations are
collected with python-jsonschema, the reference implementation, whose ``best_match`` ordering is
what users see. Both read schemas only from the offline registry.

Messages are written for people who read JSON: values appear as JSON literals (``true``,
``null``, ``"outcome"``), never as Python reprs (``True``, ``None``, ``'outcome'``). They are
built from each error's keyword, schema value and instance; a keyword without its own wording
keeps python-jsonschema's message, with a leading Python repr of the instance rewritten as JSON.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from ._errors import SchemaError, UnknownKindError, Violation
from ._json_path import json_path
from ._registry import SCHEMA_BASE_URI, _load_by_id, all_schema_resources, kind_info


def _refuse_retrieval(uri: str) -> Any:
    raise UnknownKindError(f"refusing to fetch {uri!r}: aau schemas never reach the network")


@functools.lru_cache(maxsize=1)
def _rs_registry() -> Any:
    import jsonschema_rs

    return jsonschema_rs.Registry(all_schema_resources(), retriever=_refuse_retrieval)


def _root_schema(schema_id: str) -> dict[str, Any]:
    """The schema to compile for an ``$id``: the file itself, or a ``$ref`` to its fragment."""
    if "#" in schema_id and schema_id.split("#", 1)[1] not in ("", "/"):
        _load_by_id(schema_id)  # the file must exist
        return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": schema_id}
    return _load_by_id(schema_id)


@functools.cache
def _rs_validator(schema_id: str) -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(
        _root_schema(schema_id), registry=_rs_registry(), validate_formats=True
    )


def _retrieve(uri: str) -> Any:
    from referencing import Resource
    from referencing.exceptions import NoSuchResource
    from referencing.jsonschema import DRAFT202012

    try:
        contents = _load_by_id(uri)
    except UnknownKindError:
        raise NoSuchResource(ref=uri) from None
    return Resource.from_contents(contents, default_specification=DRAFT202012)


@functools.cache
def python_validator(schema_id: str) -> Any:
    """Return a python-jsonschema ``Draft202012Validator`` (format checking on) for an ``$id``.

    A ``#/json/pointer`` fragment selects a subschema. ``$ref`` resolution goes through the
    offline registry only.
    """
    from jsonschema import Draft202012Validator
    from referencing import Registry

    registry: Any = Registry(retrieve=_retrieve)  # type: ignore[call-arg]
    return Draft202012Validator(
        _root_schema(schema_id),
        registry=registry,
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def _schema_id(kind: str) -> str:
    return kind if kind.startswith(SCHEMA_BASE_URI) else kind_info(kind).schema_id


def is_valid(kind: str, doc: Any) -> bool:
    """Return whether ``doc`` satisfies the schema of ``kind`` (fast path, jsonschema-rs).

    Raises:
        UnknownKindError: unknown kind.
    """
    return bool(_rs_validator(_schema_id(kind)).is_valid(doc))


def iter_violations(kind: str, doc: Any) -> list[Violation]:
    """Return every violation of ``doc`` against ``kind``'s schema, sorted by JSON path.

    Array indexes sort numerically (``[2]`` before ``[10]``). Uses python-jsonschema; for each
    location only the most specific message is kept
    (errors inside ``oneOf``/``anyOf`` branches are reduced with ``best_match``).
    """
    from jsonschema.exceptions import best_match

    validator = python_validator(_schema_id(kind))
    seen: set[tuple[str, str]] = set()
    out: list[Violation] = []
    errors = sorted(validator.iter_errors(doc), key=lambda e: [
        (0, p, "") if isinstance(p, int) else (1, 0, p) for p in e.absolute_path])
    for error in errors:
        if error.context:
            error = best_match(error.context) or error
        path = json_path(list(error.absolute_path))
        message = _one_line(_message(error))
        key = (path, message)
        if key not in seen:
            seen.add(key)
            out.append(Violation(path, message))
    return out


# --------------------------------------------------------------------------- messages

INSTANCE_CHARS = 80  # a longer offending value is cut short (its JSON path already locates it)


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
    if len(extra) == 1:
        return f"property {_literal(extra[0])} is not allowed here"
    return f"properties {_literals(extra)} are not allowed here"


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
    return f"{_literal(error.instance)} should not be valid under " \
           f"{_literal(error.validator_value, 200)}"


_MESSAGES: dict[str, Callable[[Any], str | None]] = {
    "required": _msg_required,
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
    "pattern": lambda e: f"{_literal(e.instance)} does not match {_literal(e.validator_value, 200)}",
    "format": lambda e: f"{_literal(e.instance)} is not a valid {_literal(e.validator_value)}",
    "uniqueItems": lambda e: f"{_literal(e.instance)} has repeated items",
    "not": _msg_not,
    **{k: (lambda e, words=words: f"{_literal(e.instance)} {words} {_literal(e.validator_value)}")
       for k, words in _BOUNDS.items()},
}


def _message(error: Any) -> str:
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


def _one_line(message: str) -> str:
    message = " ".join(message.split())
    return message if len(message) <= 300 else message[:297] + "..."


def validate(kind: str, doc: Any, *, source: str | None = None) -> None:
    """Check ``doc`` against the schema registered for ``kind``.

    Args:
        kind: a kind name from ``kinds()`` (e.g. ``"suite"``) or an absolute schema ``$id``.
        doc: the parsed JSON document.
        source: file name (or other label) to put in front of every error line.

    Raises:
        SchemaError: the document is invalid; ``.violations`` lists every ``$.path: message``.
        UnknownKindError: unknown kind.
    """
    if is_valid(kind, doc):
        return
    violations = iter_violations(kind, doc)
    if not violations:  # the two validators disagree: report what the fast one says
        violations = _rs_violations(kind, doc)
    raise SchemaError(violations, kind=kind, source=source)


def _rs_violations(kind: str, doc: Any) -> list[Violation]:
    out = []
    for error in _rs_validator(_schema_id(kind)).iter_errors(doc):
        out.append(Violation(json_path(list(error.instance_path)), _one_line(error.message)))
    return out or [Violation("$", "document is invalid")]


def check_all(items: Iterable[tuple[str, Any]]) -> list[Violation]:
    """Validate many ``(kind, doc)`` pairs; return the concatenated violations (empty = all valid)."""
    out: list[Violation] = []
    for kind, doc in items:
        if not is_valid(kind, doc):
            out.extend(iter_violations(kind, doc))
    return out
