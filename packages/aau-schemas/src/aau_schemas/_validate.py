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
from collections.abc import Iterable
from typing import Any

from ._errors import SchemaError, UnknownKindError, Violation
from ._json_path import json_path
from ._messages import one_line, violation_message
from ._registry import (
    SCHEMA_BASE_URI,
    _load_by_id,
    all_schema_resources,
    kind_info,
    kind_mismatch,
)


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


def _rs_retrieve(uri: str) -> Any:
    """jsonschema-rs's retriever: the packaged schema file behind an aau ``$id``, parsed once
    (``_load_by_id``); any other URI is refused (``UnknownKindError``), so nothing is fetched."""
    return _load_by_id(uri)


@functools.cache
def _rs_validator(schema_id: str) -> Any:
    """The compiled jsonschema-rs validator of an ``$id``. Only the files it refers to are read,
    when it refers to them (a suite's validator reads 2; ``_rs_registry`` reads every packaged
    file, ~30-45 ms at the start of every ``aau evaluate`` here)."""
    import jsonschema_rs

    return jsonschema_rs.validator_for(
        _root_schema(schema_id), retriever=_rs_retrieve, validate_formats=True
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


def prepare(kind: str) -> None:
    """Compile and keep the fast validator of ``kind`` now, so that a later ``validate`` or
    ``is_valid`` does not pay it (a receipt's validator takes ~20 ms to compile here: a run can
    have it built on another thread while its units wait on the agent).

    Args:
        kind: a kind name from ``kinds()`` or an absolute schema ``$id``.

    Raises:
        UnknownKindError: unknown kind.
    """
    _rs_validator(_schema_id(kind))


def is_valid(kind: str, doc: Any) -> bool:
    """Return whether ``doc`` satisfies the schema of ``kind`` (fast path, jsonschema-rs).

    Raises:
        UnknownKindError: unknown kind.
    """
    return bool(_rs_validator(_schema_id(kind)).is_valid(doc))


_JSON_TYPES = {"null": (type(None),), "boolean": (bool,), "object": (dict,), "array": (list, tuple),
               "string": (str,), "number": (int, float), "integer": (int,)}


def _is_json_type(value: Any, name: str) -> bool:
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    if isinstance(value, bool) and name in ("number", "integer"):
        return False
    return isinstance(value, _JSON_TYPES.get(name, ()))


def _branch_refuses_type(errors: list[Any], instance: Any) -> bool:
    """Whether a ``oneOf``/``anyOf`` branch fails on the instance's JSON type itself.

    That is a ``type`` error on the instance, or an ``enum``/``const`` none of whose values has
    the instance's JSON type (a string enum does not describe an object).
    """
    for error in errors:
        if error.relative_path or len(error.relative_schema_path) != 2:
            continue  # deeper than the branch's own keywords
        if error.validator == "type":
            return True
        if error.validator in ("enum", "const"):
            values = error.validator_value if error.validator == "enum" else [error.validator_value]
            if not any(type(v) is type(instance) or (
                    isinstance(v, (int, float)) and not isinstance(v, bool)
                    and isinstance(instance, (int, float)) and not isinstance(instance, bool))
                    for v in values):
                return True
    return False


def _branch_types(errors: list[Any]) -> list[str]:
    out: list[str] = []
    for error in errors:
        if not error.relative_path and len(error.relative_schema_path) == 2 \
                and error.validator == "type":
            value = error.validator_value
            out.extend([value] if isinstance(value, str) else value)
    return out


def _reported_errors(error: Any) -> list[Any]:
    """The errors to report for one error: itself, or, for ``oneOf``/``anyOf``, its real cause.

    The rule, for every schema: the branches are grouped by index; a branch that refuses the
    instance's JSON type (see ``_branch_refuses_type``) is not what the writer meant. When
    exactly one branch accepts the type (a JSON object -> the object branch), its own errors
    are reported, descending again through nested ``oneOf``/``anyOf``. When several do,
    python-jsonschema's ``best_match`` picks among their errors. When none does, one line names
    every type the branches allow.
    """
    from jsonschema.exceptions import best_match

    if not error.context or error.validator not in ("anyOf", "oneOf"):
        return [error]
    branches: dict[int, list[Any]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    fitting = {i: errs for i, errs in branches.items()
               if not _branch_refuses_type(errs, error.instance)}
    if len(fitting) == 1:
        [errs] = fitting.values()
        return [e for sub in errs for e in _reported_errors(sub)]
    if fitting:
        return _reported_errors(best_match([e for errs in fitting.values() for e in errs]))
    types = [t for errs in branches.values() for t in _branch_types(errs)]
    if len(types) == sum(len(errs) for errs in branches.values()) and types:
        from jsonschema.exceptions import ValidationError

        return [ValidationError(
            f"{error.instance!r} is not of type {', '.join(map(repr, types))}",
            validator="type", validator_value=list(dict.fromkeys(types)),
            instance=error.instance, schema={}, path=error.absolute_path)]
    return [best_match(error.context) or error]


def iter_violations(kind: str, doc: Any) -> list[Violation]:
    """Return every violation of ``doc`` against ``kind``'s schema, sorted by JSON path.

    Array indexes sort numerically (``[2]`` before ``[10]``). Uses python-jsonschema; for each
    location only the most specific message is kept; errors of ``oneOf``/``anyOf`` are
    replaced by the errors of the branch that matches the instance's JSON type (see
    ``_reported_errors``), so a message names the deepest real problem.
    """
    validator = python_validator(_schema_id(kind))
    seen: set[tuple[str, str]] = set()
    out: list[Violation] = []
    errors = [e for top in validator.iter_errors(doc) for e in _reported_errors(top)]
    errors.sort(key=lambda e: [
        (0, p, "") if isinstance(p, int) else (1, 0, p) for p in e.absolute_path])
    for error in errors:
        path = json_path(list(error.absolute_path))
        message = one_line(violation_message(error))
        key = (path, message)
        if key not in seen:
            seen.add(key)
            out.append(Violation(path, message))
    return out


def validate(kind: str, doc: Any, *, source: str | None = None) -> None:
    """Check ``doc`` against the schema registered for ``kind``.

    Args:
        kind: a kind name from ``kinds()`` (e.g. ``"suite"``) or an absolute schema ``$id``.
        doc: the parsed JSON document.
        source: file name (or other label) to put in front of every error line.

    Raises:
        SchemaError: the document is invalid; ``.violations`` lists every ``$.path: message``,
            or, when its version field names another kind or an unknown version
            (``kind_mismatch``), that one line.
        UnknownKindError: unknown kind.
    """
    if is_valid(kind, doc):
        return
    if not kind.startswith(SCHEMA_BASE_URI):
        mismatch = kind_mismatch(doc, kind)
        if mismatch is not None:  # another kind, or an unknown version: one line says so
            raise SchemaError([Violation(*mismatch)], kind=kind, source=source)
    violations = iter_violations(kind, doc)
    if not violations:  # the two validators disagree: report what the fast one says
        violations = _rs_violations(kind, doc)
    raise SchemaError(violations, kind=kind, source=source)


def _rs_violations(kind: str, doc: Any) -> list[Violation]:
    out = []
    for error in _rs_validator(_schema_id(kind)).iter_errors(doc):
        out.append(Violation(json_path(list(error.instance_path)), one_line(error.message)))
    return out or [Violation("$", "document is invalid")]


def check_all(items: Iterable[tuple[str, Any]]) -> list[Violation]:
    """Validate many ``(kind, doc)`` pairs; return the concatenated violations (empty = all valid)."""
    out: list[Violation] = []
    for kind, doc in items:
        if not is_valid(kind, doc):
            out.extend(iter_violations(kind, doc))
    return out
