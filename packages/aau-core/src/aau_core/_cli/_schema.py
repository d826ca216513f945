"""``aau schema``: list the registered schemas, show one, validate documents against them."""

from __future__ import annotations

import click

from .._errors import EXIT_BAR_NOT_MET, EXIT_OK, InputError, UsageError
from ._options import json_option, print_json

MAX_DOCUMENT_BYTES = 200_000_000
#: kinds whose numbers are also checked against their own rows (``check_receipt_consistency``)
RECEIPT_KINDS = ("receipt-v1", "receipt-v2")


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
@json_option("Print one JSON verdict per file on stdout.")
def validate_command(files: tuple[str, ...], kind: str | None, as_json: bool) -> int:
    """Validate JSON FILES against their schemas.

    The kind is detected from the version field (`suite_version`, `receipt_version`, ...);
    give --kind for documents without one (adapter responses). A receipt that passes its
    schema is also checked against its own rows: rows per scenario equal repeats, no
    duplicate (scenario_id, repeat), scenario_count, every metric, pass^k and the failure-code
    counts recomputed (each problem printed as a violation).

    Exit 0 when every file is valid, 1 when one is invalid or is not JSON,
    2 for a usage error (unknown --kind, missing file, undetectable kind).

    \b
    Examples:
      aau schema validate receipt.json
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
    for name in files:
        try:
            doc = read_json_file(name, max_bytes=MAX_DOCUMENT_BYTES)
        except InputError as exc:
            if exc.path is None:  # missing or unreadable: a usage/input error
                raise
            failed = True
            verdicts.append({"file": name, "kind": kind, "valid": False,
                             "violations": [{"path": exc.path, "message": exc.message}]})
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
        failed = failed or bool(found)
        verdicts.append({"file": name, "kind": doc_kind, "valid": not found,
                         "violations": found})
    for verdict in verdicts:
        if verdict["valid"]:
            click.echo(f"{verdict['file']}: valid {verdict['kind']}", err=True)
        else:
            for v in verdict["violations"]:
                click.echo(f"{verdict['file']}: {v['path']}: {v['message']}", err=True)
    if as_json:
        print_json({"files": verdicts})
    return EXIT_BAR_NOT_MET if failed else EXIT_OK
