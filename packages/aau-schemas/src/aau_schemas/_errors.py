"""Errors raised by aau-schemas.

Hierarchy::

    SchemaError (ValueError)        a document does not satisfy its schema; lists every violation
    UnknownKindError (KeyError)     a kind name or $id that the registry does not hold
    CanonicalizationError (ValueError)
                                    a value that RFC 8785 cannot represent (NaN, +-Infinity,
                                    integers beyond +-(2**53 - 1), non-string keys, lone surrogates)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Violation:
    """One schema violation.

    Attributes:
        path: JSON path of the offending value, RFC 9535 style (``$``, ``$.cases[0].input``).
        message: what is wrong, in one line.
    """

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class SchemaError(ValueError):
    """A document does not satisfy its schema (or a rule its schema documents but cannot express).

    Attributes:
        kind: the schema kind checked (``"suite"``, ``"receipt-v2"``, ...), or ``None``.
        source: the file (or other label) the document came from, or ``None``.
        violations: every violation found, in document order; never empty.

    ``str(err)`` is one line per violation, each ``source: $.path: message``.
    """

    def __init__(
        self,
        violations: Sequence[Violation],
        *,
        kind: str | None = None,
        source: str | None = None,
    ) -> None:
        if not violations:
            raise ValueError("SchemaError needs at least one violation")
        self.kind = kind
        self.source = source
        self.violations: tuple[Violation, ...] = tuple(violations)
        super().__init__(self._render())

    def _render(self) -> str:
        prefix = f"{self.source}: " if self.source else ""
        return "\n".join(f"{prefix}{v}" for v in self.violations)

    def with_source(self, source: str) -> SchemaError:
        """Return a copy of this error labelled with ``source`` (a file name)."""
        return SchemaError(self.violations, kind=self.kind, source=source)


class UnknownKindError(KeyError):
    """The registry holds no schema for this kind name or ``$id``."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown schema kind"


class CanonicalizationError(ValueError):
    """The value cannot be written as RFC 8785 canonical JSON (see ``canonical_json``).

    Attributes:
        path: the JSON path of the first value that cannot be written (``"$.cases[0].input.n"``,
            document order), or ``"$"`` when none could be named.
        reason: why that value cannot be written, without the path (the message when no path
            was named).
    """

    def __init__(self, message: str, path: str = "$", reason: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason if reason is not None else message
