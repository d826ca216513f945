"""An environment's ``ToolSpec`` as an MCP tool, and the check of a call's arguments.

Arguments are checked against the tool's ``input_schema`` with JSON Schema draft 2020-12
(``jsonschema``); the message names the JSON path of the first error, the way aau names paths
everywhere (``$.amount: 'ten' is not of type 'number'``). Compiled validators are shared by
every unit whose tool has the same schema (the schemas of one environment repeat across its
units), so opening a unit compiles nothing after the first.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import mcp_types
from aau_core import ToolSpec
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match

_VALIDATORS: dict[str, Draft202012Validator] = {}
_VALIDATORS_LOCK = threading.Lock()
_MAX_CACHED = 4096


@attrs.frozen
class UnitTools:
    """One unit's tools: the MCP ``tools/list`` answer and a validator per tool name.

    Attributes:
        listing: the tools as MCP ``Tool`` models, in the environment's order.
        validators: tool name -> its compiled draft 2020-12 validator.
    """

    listing: tuple[mcp_types.Tool, ...]
    validators: Mapping[str, Draft202012Validator]


def unit_tools(specs: Sequence[ToolSpec]) -> UnitTools:
    """Compile an environment's tools for one unit.

    Args:
        specs: what ``EnvironmentSession.tools()`` returned.

    Returns:
        the ``UnitTools``.

    Raises:
        ValueError: a tool is not a ``ToolSpec``, two tools share a name, or an input schema is
            not a valid draft 2020-12 schema of an object (the environment's bug, named).
    """
    listing: list[mcp_types.Tool] = []
    validators: dict[str, Draft202012Validator] = {}
    for position, spec in enumerate(specs):
        if not isinstance(spec, ToolSpec):
            raise ValueError(f"tools()[{position}] is a {type(spec).__name__}, not a ToolSpec")
        if spec.name in validators:
            raise ValueError(f"tools() names {spec.name!r} twice")
        schema = dict(spec.input_schema)
        if schema.get("type") != "object":
            raise ValueError(f"tool {spec.name!r}: input_schema's type is not 'object'")
        validators[spec.name] = _validator(spec.name, schema)
        listing.append(mcp_types.Tool(name=spec.name, description=spec.description,
                                      input_schema=schema))
    return UnitTools(listing=tuple(listing), validators=validators)


def _validator(name: str, schema: dict[str, Any]) -> Draft202012Validator:
    key = json.dumps(schema, sort_keys=True, separators=(",", ":"), default=repr)
    with _VALIDATORS_LOCK:
        found = _VALIDATORS.get(key)
    if found is not None:
        return found
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        raise ValueError(f"tool {name!r}: input_schema is not a valid JSON Schema: "
                         f"{error.message}") from None
    validator = Draft202012Validator(schema)
    with _VALIDATORS_LOCK:
        if len(_VALIDATORS) >= _MAX_CACHED:
            _VALIDATORS.clear()
        _VALIDATORS[key] = validator
    return validator


def argument_error(validator: Draft202012Validator, arguments: Any) -> str | None:
    """Why ``arguments`` break the tool's schema, or ``None`` when they fit.

    Args:
        validator: the tool's validator (``UnitTools.validators``).
        arguments: the arguments object the agent sent (any JSON value).

    Returns:
        one line, ``"$.path: message"`` for the most relevant error (``jsonschema.best_match``),
        or ``None``.
    """
    error = best_match(validator.iter_errors(arguments))
    if error is None:
        return None
    return f"{error.json_path}: {error.message}"
