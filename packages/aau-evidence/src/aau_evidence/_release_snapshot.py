"""``capture``: hash every component a release manifest declares into a snapshot."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import attrs
from aau_core import InputError, check_relative_path
from aau_schemas import sha256_hex

from ._release_documents import (
    MAX_COMPONENT_BYTES,
    SNAPSHOT_VERSION,
    check_manifest,
    check_snapshot,
    digest_without,
    document,
    read_document,
)
from ._release_models import ReleaseSnapshot, SnapshotComponent


def read_component(manifest_path: Path, source_path: str, json_path: str) -> bytes:
    """The exact bytes of one component file.

    Args:
        manifest_path: the manifest file; ``source_path`` is relative to its folder.
        source_path: the component's ``source_path``.
        json_path: where ``source_path`` sits in the manifest (for messages).

    Raises:
        aau_core.InputError: the path is not a plain relative path inside the manifest's folder
            (absolute, ``..``, ``.``, empty or ``.git`` segment, a symlink on the way), or names
            no regular file, or the file is over ``MAX_COMPONENT_BYTES``.
    """
    source = str(manifest_path)
    target = check_relative_path(source_path, manifest_path.parent, source=source,
                                 json_path=json_path)
    try:
        st = os.lstat(target)
    except OSError as exc:
        raise InputError(f"{source_path!r}: cannot read: {exc.strerror or exc}", source=source,
                         path=json_path) from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{source_path!r}: not a regular file", source=source, path=json_path)
    if st.st_size > MAX_COMPONENT_BYTES:
        raise InputError(f"{source_path!r}: {st.st_size:,} bytes, over the "
                         f"{MAX_COMPONENT_BYTES:,}-byte limit", source=source, path=json_path)
    with open(target, "rb") as fh:
        data = fh.read(MAX_COMPONENT_BYTES + 1)
    if len(data) > MAX_COMPONENT_BYTES:
        raise InputError(f"{source_path!r}: over the {MAX_COMPONENT_BYTES:,}-byte limit",
                         source=source, path=json_path)
    return data


def capture_snapshot(manifest_path: str | os.PathLike[str]) -> ReleaseSnapshot:
    """Read a release manifest and hash every component it declares.

    The snapshot (``aau-agent-release-snapshot/1.0``) repeats the manifest's identity fields,
    lists the components sorted by ``component_id``, each with ``bytes`` (length) and ``sha256``
    (hex SHA-256 of the file's exact bytes) and its impact tags sorted, and binds everything
    with ``snapshot_sha256`` (the release digest of the snapshot without that key), exactly as
    aau-harness 1.6 does, so the same files give the same snapshot bytes.

    Args:
        manifest_path: an ``aau-agent-release-manifest/1.0`` file.

    Returns:
        the snapshot model (its document already checked against its schema and rules).

    Raises:
        aau_core.InputError / InvalidDocumentError: an unreadable or invalid manifest, or an
            unsafe, missing or oversized component file.
    """
    path = Path(manifest_path)
    read = read_document(path)
    manifest = check_manifest(read, str(path))
    components = []
    order = sorted(range(len(manifest.components)),
                   key=lambda i: manifest.components[i].component_id)
    for i in order:
        component = manifest.components[i]
        data = read_component(path, component.source_path, f"$.components[{i}].source_path")
        components.append(SnapshotComponent(
            component_id=component.component_id, kind=component.kind,
            source_path=component.source_path, bytes=len(data), sha256=sha256_hex(data),
            impact_tags=tuple(sorted(component.impact_tags)), required=component.required))
    snapshot = ReleaseSnapshot(
        snapshot_version=SNAPSHOT_VERSION, release_id=manifest.release_id,
        agent_id=manifest.agent_id, effective_at=manifest.effective_at,
        environment=manifest.environment, components=tuple(components),
        sharing=dict(read["sharing"]), snapshot_sha256="")  # as read: its key order is 1.6's
    snapshot = attrs.evolve(snapshot, snapshot_sha256=digest_without(snapshot, "snapshot_sha256"))
    return check_snapshot(document(snapshot), f"{path} (captured)")
