"""Evidence (impact) packs: a checked capsule, its comparison and copies of its artifacts, bound by
a SHA-256 manifest (``aau-impact-pack/1.0``, aau-harness 1.6's layout).

Layout::

    capsule.json          the capsule, rendered as aau-harness 1.6 renders it (indent 2, sorted keys)
    comparison.json       build_comparison(capsule), same rendering
    README.md             what the pack is and how to verify it (aau's own text)
    artifacts/<artifact_id><suffix>
                          each bound artifact's exact bytes; <suffix> is the source file's last
                          one or two suffixes when they are plain (``.json``, ``.jsonl``,
                          ``.tar.gz``), else ``.bin``
    manifest.json         pack_version, capsule_id, hash_algorithm, files [{path, source_path,
                          bytes, sha256}] sorted by path, fixed byte-integrity-only claims

Writing goes through ``aau_core.write_pack``: staged beside the destination, manifest last,
verified with ``pack_problems`` (the same check ``aau evidence verify`` runs), then renamed into
place. Verifying re-checks the manifest against the folder (hash drift, files added or removed,
symlinks), the manifest's schema, the capsule in full with its artifacts read from the packed
copies (so a receipt inside a pack is cross-checked exactly as in the repository), that every
capsule artifact and nothing else is packed, and that ``comparison.json`` recomputes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath
from typing import Any

from aau_core import (
    InputError,
    InvalidDocumentError,
    OutputError,
    check_pack_output,
    schema_problems,
    verify_manifest_dir,
    write_pack,
)
from aau_core._files._manifest import PACK_GITATTRIBUTES  # internal to the monorepo

from ._capsule import (
    check_capsule,
    derive_status,
    present_artifacts,
    read_capsule,
    render,
)
from ._capsule_artifacts import read_artifact_bytes
from ._comparison import build_comparison
from ._converter import converter
from ._models import PACK_VERSION, EvidencePackManifest, PackClaims

MANIFEST_KIND = "evidence-pack-manifest"
MANIFEST_NAME = "manifest.json"
GENERATED = ("README.md", "capsule.json", "comparison.json")
"""Files every pack holds besides the artifacts and the manifest (``source_path`` null)."""
_PLAIN_SUFFIX = re.compile(r"(?:\.[A-Za-z0-9_-]{1,16}){1,2}")


def packed_name(artifact: dict[str, Any]) -> str:
    """``artifacts/<artifact_id><suffix>`` for an artifact (see the module docstring)."""
    suffix = "".join(PurePosixPath(artifact["path"]).suffixes[-2:])
    if not _PLAIN_SUFFIX.fullmatch(suffix):
        suffix = ".bin"
    return f"artifacts/{artifact['artifact_id']}{suffix}"


def pack_readme(capsule: dict[str, Any], comparison: dict[str, Any]) -> str:
    """The pack's README (Markdown), a function of the capsule and its comparison."""
    gaps = [f"- {item}" for item in comparison["missing_evidence"]] or ["- none"]
    bound = [f"- `{packed_name(a)}` ({slot.replace('_', ' ')}, from `{a['path']}`)"
             for slot, a in present_artifacts(capsule)]
    return "\n".join([
        f"# {capsule['title']}",
        "",
        f"Impact Capsule `{capsule['capsule_id']}`, status derived from its artifacts: "
        f"**{comparison['derived_status']}**.",
        "",
        capsule["mission"],
        "",
        "## Bound artifacts",
        "",
        *bound,
        "",
        "## Evidence not yet bound",
        "",
        *gaps,
        "",
        f"Next: {comparison['next_evidence']}.",
        "",
        "## Checking this pack",
        "",
        "```bash",
        "aau evidence verify .",
        "```",
        "",
        "`manifest.json` lists the SHA-256 and byte length of every other file; verification also",
        "re-checks the capsule against the packed artifacts and recomputes `comparison.json`. The",
        "manifest shows the bytes are unchanged, nothing more: the status is not a score, a",
        "certification, an endorsement, a causal finding or a permission to deploy.",
        "",
        f"Boundary: {capsule['boundary']}",
        "",
    ])


def pack_files(capsule: dict[str, Any], root: str | os.PathLike[str], *,
               source: str) -> tuple[dict[str, bytes], dict[str, dict[str, Any]]]:
    """The pack's files (manifest excluded) and each file's ``source_path`` row field.

    ``capsule`` must have passed ``check_capsule`` against ``root``.

    Raises:
        InputError: two artifacts would get the same packed name, or an artifact cannot be read.
    """
    comparison = build_comparison(capsule)
    files = {"README.md": pack_readme(capsule, comparison).encode("utf-8"),
             "capsule.json": render(capsule), "comparison.json": render(comparison)}
    fields: dict[str, dict[str, Any]] = {name: {"source_path": None} for name in files}
    from aau_core import check_relative_path

    for slot, artifact in present_artifacts(capsule):
        name = packed_name(artifact)
        if name in files:
            raise InputError(f"artifacts {name!r} twice: artifact ids and suffixes must give "
                             "unique packed names", source=source, path=f"$.artifacts.{slot}")
        path = check_relative_path(artifact["path"], root, source=source,
                                   json_path=f"$.artifacts.{slot}.path")
        files[name] = read_artifact_bytes(path)
        fields[name] = {"source_path": artifact["path"]}
    return files, fields


def write_evidence_pack(capsule_path: str | os.PathLike[str], root: str | os.PathLike[str],
                        destination: str | os.PathLike[str]) -> dict[str, Any]:
    """Check a capsule and write its evidence pack as the new folder ``destination``.

    Returns:
        ``{"ready": True, "capsule_id", "derived_status", "file_count", "path"}`` (file_count
        includes the manifest).

    Raises:
        InputError / InvalidDocumentError: the capsule is unreadable or fails ``check_capsule``.
        OutputError: ``destination`` exists, is or contains the capsule or one of its
            artifacts, cannot be written, or the staged pack failed its own verification (nothing is left behind).
    """
    source = str(capsule_path)
    dest = Path(destination)
    if dest.exists() or dest.is_symlink():  # no --force here
        raise OutputError(f"{dest}: exists; choose a new folder for the pack")
    check_pack_output(dest, inputs=[capsule_path], force=False)
    capsule = check_capsule(read_capsule(capsule_path), root, source=source)
    files, fields = pack_files(capsule, root, source=source)
    inputs = [capsule_path, *(Path(root) / row["source_path"] for row in fields.values()
                              if row["source_path"] is not None)]
    write_pack(dest, files, inputs=inputs, manifest_name=MANIFEST_NAME, manifest_version=PACK_VERSION,
               version_key="pack_version", file_fields=fields, render=render,
               manifest_extra={"capsule_id": capsule["capsule_id"], "hash_algorithm": "sha256",
                               "claims": converter.unstructure(PackClaims())},
               verify=pack_problems)
    return {"ready": True, "capsule_id": capsule["capsule_id"],
            "derived_status": derive_status(capsule), "file_count": len(files) + 1,
            "path": str(dest.resolve())}


def pack_problems(pack: str | os.PathLike[str]) -> list[str]:
    """Every problem of an evidence pack folder, one ``file: [$.path: ]message`` line each;
    empty when the pack verifies (see the module docstring for what is checked)."""
    root = Path(pack)
    problems = verify_manifest_dir(root, MANIFEST_NAME, version=PACK_VERSION,
                                   version_key="pack_version")
    if problems:
        return problems
    manifest_path = root / MANIFEST_NAME
    manifest = _json(manifest_path)
    found = schema_problems(MANIFEST_KIND, manifest)
    if found:
        return [f"{manifest_path}: {path}: {msg}" for path, msg in found]
    checked = converter.structure(manifest, EvidencePackManifest)
    rows = checked.files
    names = [row.path for row in rows]
    if names != sorted(names):
        problems.append(f"{manifest_path}: $.files: rows must be sorted by path")
    for name in GENERATED:
        if name not in names:
            problems.append(f"{manifest_path}: $.files: {name} is missing from the pack")
    if problems:
        return problems
    capsule_path = root / "capsule.json"
    try:
        capsule = read_capsule(capsule_path)
    except InputError as exc:
        return [str(exc)]
    by_source = {row.source_path: row.path for row in rows if row.source_path}
    for i, row in enumerate(rows):
        if row.source_path is None and row.path not in GENERATED:
            problems.append(f"{manifest_path}: $.files[{i}]: {row.path} is neither generated "
                            "nor a capsule artifact")

    def locate(slot: str, artifact: dict[str, Any]) -> Path:
        name = by_source.get(artifact["path"])
        if name is None:
            raise InputError(f"{artifact['path']}: not packed (no manifest row has it as "
                             "source_path)", source=str(manifest_path))
        return root / name

    try:
        check_capsule(capsule, root, source=str(capsule_path), locate=locate)
    except InvalidDocumentError as exc:
        return problems + str(exc).splitlines()
    if checked.capsule_id != capsule["capsule_id"]:
        problems.append(f"{manifest_path}: $.capsule_id: differs from capsule.json's")
    bound = {a["path"] for _, a in present_artifacts(capsule)}
    for i, row in enumerate(rows):
        if row.source_path is not None and row.source_path not in bound:
            problems.append(f"{manifest_path}: $.files[{i}].source_path: "
                            f"{row.source_path} is not an artifact of the capsule")
    comparison_path = root / "comparison.json"
    try:
        comparison = _json(comparison_path)
    except InputError as exc:
        return problems + [str(exc)]
    if comparison != build_comparison(capsule):
        problems.append(f"{comparison_path}: $: does not recompute from capsule.json (stale or "
                        "edited)")
    return problems


def verify_evidence_pack(pack: str | os.PathLike[str]) -> dict[str, Any]:
    """Verify an evidence pack folder.

    Returns:
        ``{"ready": True, "capsule_id", "derived_status", "file_count"}``.

    Raises:
        InputError: ``pack`` is not a folder (exit 2).
        InvalidDocumentError: the pack failed verification; ``problems`` holds every line.
    """
    root = Path(pack)
    if not root.is_dir() or root.is_symlink():
        raise InputError("not a folder (an evidence pack is a folder)", source=str(root))
    problems = pack_problems(root)
    if problems:
        raise PackVerificationError(problems)
    capsule = read_capsule(root / "capsule.json")
    count = sum(1 for p in root.rglob("*") if p.is_file()
                and p.relative_to(root).as_posix() != PACK_GITATTRIBUTES)  # unlisted, not evidence
    return {"ready": True, "capsule_id": capsule["capsule_id"],
            "derived_status": derive_status(capsule), "file_count": count}


class PackVerificationError(InputError):
    """A pack failed verification; ``problems`` is one line each (the CLI exits 1)."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__(self.problems[0])
        self.args = ("\n".join(self.problems),)

    def __str__(self) -> str:
        return str(self.args[0])


def _json(path: Path) -> Any:
    from aau_core import read_json_file

    return read_json_file(path, max_bytes=5_000_000)
