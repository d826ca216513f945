"""``aau schema``: list the registered schemas, show one, validate documents against them.

``validate`` runs a document's schema, then the checks its kind has beyond the schema: a
receipt's consistency with its own rows (aau-core), and whatever the packages register in the
entry-point group ``aau.document_checks`` (kind -> ``check(doc, *, source, strict) ->
(problems, warnings)``, each a list of ``(json_path, message)``): aau-adapters registers the
suite kinds (duplicate scenario ids, an empty expected outcome, tool-call rules, unknown keys),
aau-core the trace (keys that look misspelt). A package adds its checks without aau-core
importing it.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from .._errors import EXIT_BAR_NOT_MET, EXIT_OK, InputError, UsageError
from ._options import json_option, print_json

MAX_DOCUMENT_BYTES = 200_000_000
#: kinds whose numbers are also checked against their own rows (``check_receipt_consistency``)
RECEIPT_KINDS = ("receipt-v1", "receipt-v2")
DOCUMENT_CHECKS = "aau.document_checks"
"""The entry-point group of per-kind checks beyond the schema (module docstring)."""


@click.group("schema", context_settings={"help_option_names": ["-h", "--help"]})
def schema_group() -> None:
    """List, show and validate against aau's JSON Schemas (draft 2020-12).

    \b
    Examples:
      aau schema list
      aau schema show receipt-v2 > receipt.schema.json
      aau schema validate receipt.json suite.json
      aau schema validate response.json --kind adapter-response
    """


@schema_group.command("list")
@json_option("Print the kinds as JSON on stdout.")
def list_command(as_json: bool) -> int:
    """List every document kind, its version string and schema $id.

    \b
    Example:
      aau schema list --json
    """
    import aau_schemas

    rows = [
        {
            "kind": k.kind,
            "version_field": k.version_field,
            "version": k.version,
            "versions": list(k.versions),  # every accepted string (a minor lists its major's)
            "schema_id": k.schema_id,
            "title": k.title,
        }
        for k in aau_schemas.kinds()
    ]
    if as_json:
        print_json({"kinds": rows})
        return EXIT_OK
    _print_table(("kind", "version", "schema $id"),
                 [(r["kind"], r["version"] or "-", r["schema_id"]) for r in rows])
    return EXIT_OK


def _print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """Print plain columns aligned with spaces on stdout, one row per line; nothing is cut short.

    The same on a terminal and in a pipe: a narrow terminal wraps a long line rather than
    folding a cell, so a schema $id stays one piece to copy, grep or cut.
    """
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + [row[-1]]
        click.echo("  ".join(cells))


@schema_group.command("show")
@click.argument("kind")
def show_command(kind: str) -> int:
    """Print the JSON Schema of KIND (a name from `aau schema list`) on stdout.

    \b
    Example:
      aau schema show suite
    """
    import aau_schemas

    try:
        doc = aau_schemas.schema(kind)
    except aau_schemas.UnknownKindError as exc:
        raise UsageError(str(exc)) from None
    print_json(doc)
    return EXIT_OK


@schema_group.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--kind", help="Schema kind to check against, a name from `aau schema list` "
              "(default: detected from the document's version field).")
@click.option("--strict", is_flag=True, help="Count warnings as violations: a key an open "
              "format's schema does not name (a suite 1.0/2.0, a trace).")
@json_option("Print one JSON verdict per file on stdout.")
def validate_command(files: tuple[str, ...], kind: str | None, strict: bool,
                     as_json: bool) -> int:
    """Validate JSON FILES against their schemas.

    The kind is detected from the version field (`suite_version`, `receipt_version`, ...);
    give --kind for documents without one (adapter responses, traces). A receipt that passes
    its schema is also checked against its own rows: rows per scenario equal repeats, no
    duplicate (scenario_id, repeat), scenario_count, every metric, pass^k and the failure-code
    counts recomputed (each problem printed as a violation). A suite gets the checks `aau
    evaluate` makes (unique scenario ids, a non-empty expected outcome, the tool-call rules);
    a key a suite 1.0/2.0 does not name is a warning with the known key it most resembles
    (`did you mean forbidden_actions?`), as is a trace key that looks misspelt; --strict makes
    warnings violations.

    Exit 0 when every file is valid (warnings or not), 1 when one is invalid or is not JSON,
    2 for a usage error (unknown --kind, missing file, undetectable kind).

    \b
    Examples:
      aau schema validate receipt.json suite.json --strict
      aau schema validate answer.json --kind adapter-response
    """
    import aau_schemas

    from .._files._strict_json import read_json_file
    from .._reports._receipt_consistency import check_receipt_consistency

    if kind is not None:
        try:
            aau_schemas.kind_info(kind)
        except aau_schemas.UnknownKindError as exc:
            raise UsageError(str(exc)) from None
    verdicts = []
    failed = False
    checks = document_checks()
    for name in files:
        try:
            doc = read_json_file(name, max_bytes=MAX_DOCUMENT_BYTES)
        except InputError as exc:
            if exc.path is None:  # missing or unreadable: a usage/input error
                raise
            failed = True
            verdicts.append({"file": name, "kind": kind, "valid": False,
                             "violations": [{"path": exc.path, "message": exc.message}],
                             "warnings": []})
            continue
        doc_kind = kind or aau_schemas.detect_kind(doc)
        if doc_kind is None:
            raise InputError(
                "cannot tell the document kind from its version field; pass --kind "
                "(see `aau schema list`)", source=name, path="$")
        found = [{"path": v.path, "message": v.message}
                 for v in (aau_schemas.iter_violations(doc_kind, doc)
                           if not aau_schemas.is_valid(doc_kind, doc) else [])]
        if not found and doc_kind in RECEIPT_KINDS:
            found = [{"path": path, "message": message} for path, _, message in
                     (p.partition(": ") for p in check_receipt_consistency(doc))]
        warnings: list[dict[str, str]] = []
        check = None if found else checks.get(doc_kind)
        if check is not None:
            problems, warned = check(doc, source=name, strict=strict)
            found = [{"path": path, "message": message} for path, message in problems]
            warnings = [{"path": path, "message": message} for path, message in warned]
        failed = failed or bool(found)
        verdicts.append({"file": name, "kind": doc_kind, "valid": not found,
                         "violations": found, "warnings": warnings})
    for verdict in verdicts:
        for w in verdict["warnings"]:
            click.echo(f"{verdict['file']}: {w['path']}: {w['message']}", err=True)
        if verdict["valid"]:
            click.echo(f"{verdict['file']}: valid {verdict['kind']}", err=True)
        else:
            for v in verdict["violations"]:
                click.echo(f"{verdict['file']}: {v['path']}: {v['message']}", err=True)
    if as_json:
        print_json({"files": verdicts})
    return EXIT_BAR_NOT_MET if failed else EXIT_OK


CheckResult = tuple[list[tuple[str, str]], list[tuple[str, str]]]


def document_checks() -> dict[str, Callable[..., CheckResult]]:
    """The checks beyond the schema registered under ``aau.document_checks``: kind -> callable.

    Returns:
        ``{kind: check}``, where ``check(doc, *, source, strict)`` returns ``(problems,
        warnings)`` for a schema-valid document (``strict``: warnings count as problems). An
        entry point that fails to load is left out with a warning line on stderr (a broken
        plugin must not break ``aau schema validate``).
    """
    from importlib.metadata import entry_points

    found: dict[str, Callable[..., CheckResult]] = {}
    for ep in entry_points(group=DOCUMENT_CHECKS):
        if ep.name in found:
            continue
        try:
            found[ep.name] = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken plugin only loses its own check
            click.echo(f"aau: warning: document check {ep.name!r} from {ep.value} failed to "
                       f"load: {exc}", err=True)
    return found

