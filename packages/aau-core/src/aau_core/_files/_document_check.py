"""Checking an input document against its schema, the one way every command reports it.

``check_document(kind, doc, source)`` is what each reader calls after parsing a file:

1. a document whose version field names another known kind, or an unknown version of the
   expected kind, is refused in one line (``aau_schemas.kind_mismatch``): ``this is a
   gate-config document (...), not a gate-scenarios document``;
2. otherwise every schema violation (``schema_problems``, which returns them instead) is collected and raised as one ``InvalidDocumentError``:
   ``source: $.path: message [kind]`` for the first, then one ``source: $.path: message`` line
   for each further one, at most ``MAX_LISTED_VIOLATIONS`` in all; when there are more, a last
   line says how many were left out and to run ``aau schema validate FILE`` to list them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._errors import InvalidDocumentError


def check_document(kind: str, doc: Any, source: str | None, *,
                   accepted: Sequence[str] | None = None) -> Any:
    """Validate ``doc`` against aau-schemas kind ``kind``; return it unchanged when valid.

    Args:
        kind: the schema kind to check against.
        doc: the parsed document.
        source: the file name, put in front of every line.
        accepted: every kind this reader takes (``["suite", "suite-v2"]``), for the version
            check; default ``[kind]``.

    Raises:
        InvalidDocumentError: another kind or an unknown version (one line), or the schema's
            violations (module docstring).
    """
    import aau_schemas

    if aau_schemas.is_valid(kind, doc):
        return doc
    mismatch = aau_schemas.kind_mismatch(doc, list(accepted or [kind]))
    if mismatch is not None:
        raise InvalidDocumentError([mismatch], source=source)
    violations = schema_problems(kind, doc)
    path, message = violations[0]
    violations[0] = (path, f"{message} [{kind}]")
    raise InvalidDocumentError(violations, source=source)


KIND_HINTS = {
    "receipt-v1": "aau evaluate's receipt; use aau report / aau schema validate",
    "receipt-v2": "aau evaluate's receipt; use aau report / aau schema validate",
    "private-receipt-v1": "aau evaluate's private receipt; aau report reads the public receipt "
                          "(--out)",
    "private-receipt-v2": "aau evaluate's private receipt; aau report reads the public receipt "
                          "(--out)",
    "suite": "an aau evaluate suite; run it with aau evaluate",
    "suite-v2": "an aau evaluate suite; run it with aau evaluate",
    "suite-v3": "an aau evaluate suite; run it with aau evaluate",
    "lab-result": "aau lab run's result; use aau report / aau results verify",
}


def describe_kind(doc: Any) -> str | None:
    """``"this is a <kind> (<what it is; which command reads it>)"`` when ``doc``'s version field
    names a kind ``aau_schemas`` knows, else ``None``. For messages when a command is given
    another kind of document than it reads."""
    import aau_schemas

    kind = aau_schemas.detect_kind(doc)
    if kind is None:
        return None
    hint = KIND_HINTS.get(kind)
    return f"this is a {kind}" + (f" ({hint})" if hint else "")
def schema_problems(kind: str, doc: Any) -> list[tuple[str, str]]:
    """Every violation of aau-schemas kind ``kind``'s schema, returned instead of raised.

    For readers that gather a document's problems with others before reporting (a pack's
    checks, a capsule's rules) or word them their own way.

    Args:
        kind: the schema kind to check against.
        doc: the parsed document.

    Returns:
        ``(json_path, message)`` pairs, in the validator's order; empty when ``doc`` is valid.
        When the fast validator refuses the document but the reference one finds no violation
        to name, one ``("$", "not a valid <kind> document")``.
    """
    import aau_schemas

    if aau_schemas.is_valid(kind, doc):
        return []
    return [(v.path, v.message) for v in aau_schemas.iter_violations(kind, doc)] or [
        ("$", f"not a valid {kind} document")]
