"""``aau evidence``: impact capsules and evidence packs (``validate``, ``compare``, ``pack``,
``verify``).

Exit codes: 0 done / valid; 1 bar not met (``validate`` found the capsule invalid, ``verify``
found the pack broken); 2 usage or input error (unreadable, not JSON, not a capsule, an
invalid capsule given to ``compare`` or ``pack``; nothing is written then). Problems are printed
one a line on stderr as ``file: $.json.path: message``; ``--json`` puts the result on stdout.

``--root`` defaults as in aau-harness 1.6: the nearest folder at or above the capsule holding
``docs/use-cases.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from aau_core import EXIT_BAR_NOT_MET, EXIT_OK, InputError, json_option, out_option, print_json

_ROOT_HELP = ("Folder the capsule's artifact paths are relative to (default: the nearest folder "
              "at or above the capsule holding docs/use-cases.json).")


@click.group("evidence", context_settings={"help_option_names": ["-h", "--help"]})
def evidence_group() -> None:
    """Impact capsules and evidence packs: validate, compare, pack, verify.

    An Impact Capsule binds a suite, an aggregate agent receipt and optional human, public-value
    and reproduction evidence by SHA-256. Its status is derived from the artifacts, never chosen.

    \b
    Example:
      aau evidence validate capsule.json --root .
      aau evidence pack capsule.json --root . --out pack/
      aau evidence verify pack/
    """


def _root(capsule: Path, root: Path | None) -> Path:
    from ._capsule import find_root

    if root is None:
        return find_root(capsule)
    if not root.is_dir():
        raise InputError("--root: not a folder", source=str(root))
    return root


def _emit(result: dict[str, Any], as_json: bool, line: str) -> None:
    if as_json:
        print_json(result)
    else:
        click.echo(line)


def _checked(capsule: Path, root: Path | None) -> dict[str, Any]:
    from ._capsule import check_capsule, read_capsule

    doc = read_capsule(capsule)
    return check_capsule(doc, _root(capsule, root), source=str(capsule))


@evidence_group.command("validate")
@click.argument("capsule", type=click.Path(path_type=Path))
@click.option("--root", type=click.Path(path_type=Path), help=_ROOT_HELP)
@json_option("Print the verdict as JSON on stdout.")
def validate_command(capsule: Path, root: Path | None, as_json: bool) -> int:
    """Check a CAPSULE and every artifact it binds; derive its status.

    Checks the closed schema, the declared status against the derived one (inflation is
    refused), evidence-quality and causal labels, the artifact files (no traversal, no
    symlinks, SHA-256, size) and their contents against what the capsule says, and scans every
    string for private data.

    Exit 0 valid, 1 invalid (one line per problem), 2 unreadable or not a capsule.

    \b
    Example:
      aau evidence validate capsule.json --root .
    """
    from aau_core import InvalidDocumentError

    from ._capsule import check_capsule, derive_status, present_artifacts, read_capsule

    doc = read_capsule(capsule)
    base = _root(capsule, root)
    try:
        check_capsule(doc, base, source=str(capsule))
    except InvalidDocumentError as exc:
        click.echo(str(exc), err=True)
        if as_json:
            print_json({"ready": False, "problems": str(exc).splitlines()})
        return EXIT_BAR_NOT_MET
    result = {"ready": True, "capsule_id": doc["capsule_id"], "derived_status": derive_status(doc),
              "artifact_count": len(present_artifacts(doc))}
    _emit(result, as_json, f"{capsule}: valid impact capsule {result['capsule_id']} "
          f"({result['derived_status']}, {result['artifact_count']} artifacts)")
    return EXIT_OK


@evidence_group.command("compare")
@click.argument("capsule", type=click.Path(path_type=Path))
@click.option("--root", type=click.Path(path_type=Path), help=_ROOT_HELP)
@json_option("Print the aau-impact-comparison/1.0 document on stdout.")
def compare_command(capsule: Path, root: Path | None, as_json: bool) -> int:
    """Show what a checked CAPSULE binds, what is missing and the next evidence to seek.

    Exit 0, or 2 when the capsule is unreadable or invalid.

    \b
    Example:
      aau evidence compare capsule.json --json
    """
    from ._comparison import build_comparison

    result = build_comparison(_checked(capsule, root))
    human = result["human_minus_agent_exact_rate"]
    agent = result["agent_measurement"]
    lines = [f"Impact Capsule {result['capsule_id']}: {result['derived_status']}",
             f"Agent {agent['name']}: {agent['value']} (95% interval {agent['interval_95'][0]}"
             f"-{agent['interval_95'][1]}, {agent['observation_count']} observations)",
             "Human comparator: " + ("none" if human is None else
                                     f"human minus agent exact rate {human}"),
             "Missing: " + ("; ".join(result["missing_evidence"]) or "nothing"),
             f"Next evidence: {result['next_evidence']}"]
    _emit(result, as_json, "\n".join(lines))
    return EXIT_OK


@evidence_group.command("pack")
@click.argument("capsule", type=click.Path(path_type=Path))
@click.option("--root", type=click.Path(path_type=Path), help=_ROOT_HELP)
@out_option("New folder for the pack (refused if it exists).",
            required=True, kind="path", path_type=Path)
@json_option()
def pack_command(capsule: Path, root: Path | None, out: Path, as_json: bool) -> int:
    """Write a checked CAPSULE, its comparison and its artifacts as a verified evidence pack.

    The pack (capsule.json, comparison.json, README.md, artifacts/, manifest.json with the
    SHA-256 of every file) is staged beside --out, verified as `aau evidence verify` would,
    then moved into place; nothing is written when anything fails.

    Exit 0 written, 2 invalid capsule or unwritable --out.

    \b
    Example:
      aau evidence pack capsule.json --root . --out pack/
    """
    from ._evidence_pack import write_evidence_pack

    result = write_evidence_pack(capsule, _root(capsule, root), out)
    _emit(result, as_json, f"{out}: evidence pack of {result['capsule_id']} "
          f"({result['derived_status']}, {result['file_count']} files)")
    return EXIT_OK


@evidence_group.command("verify")
@click.argument("pack", type=click.Path(path_type=Path))
@json_option("Print the verdict as JSON on stdout.")
def verify_command(pack: Path, as_json: bool) -> int:
    """Verify an evidence PACK: hashes, file set, no symlinks, the capsule against the packed
    artifacts, and comparison.json recomputed.

    Exit 0 intact, 1 verification failed (one line per problem), 2 not a folder.

    \b
    Example:
      aau evidence verify pack/
    """
    from ._evidence_pack import PackVerificationError, verify_evidence_pack

    try:
        result = verify_evidence_pack(pack)
    except PackVerificationError as exc:
        click.echo(str(exc), err=True)
        if as_json:
            print_json({"ready": False, "problems": exc.problems})
        return EXIT_BAR_NOT_MET
    _emit(result, as_json, f"{pack}: evidence pack verified: {result['capsule_id']} "
          f"({result['derived_status']}, {result['file_count']} files)")
    return EXIT_OK


def evidence_main() -> None:
    """Console-script entry point for the ``aau-evidence`` alias."""
    from aau_core import run

    sys.exit(run(command=evidence_group, prog_name="aau-evidence"))
