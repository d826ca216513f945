"""``diff``: the change surface between two release snapshots of one agent."""

from __future__ import annotations

import attrs
from aau_core import InputError

from ._release_documents import DIFF_VERSION, digest_without
from ._release_models import DiffChange, ReleaseDiff, ReleaseSnapshot


def diff_snapshots(baseline: ReleaseSnapshot, candidate: ReleaseSnapshot) -> ReleaseDiff:
    """Classify every component of two checked snapshots and collect the impacted tags.

    A component is ``added`` (only in the candidate), ``removed`` (only in the baseline),
    ``changed`` (its ``sha256`` or its ``kind`` differs) or unchanged (left out). Each change
    carries the union of its impact tags before and after, sorted; ``impacted_tags`` is the
    sorted union over all changes. ``diff_sha256`` is the release digest of the diff without
    that key. Same rules and bytes as aau-harness 1.6 (reference §1.5 "Release gate").

    Args:
        baseline, candidate: snapshot models (from ``check_snapshot`` or ``capture_snapshot``).

    Returns:
        the ``aau-agent-release-diff/1.0`` model.

    Raises:
        aau_core.InputError: the snapshots belong to different agents (``agent_id`` differs).
    """
    if baseline.agent_id != candidate.agent_id:
        raise InputError(f"the baseline is agent {baseline.agent_id!r} and the candidate "
                         f"{candidate.agent_id!r}; a release diff compares one agent",
                         path="$.agent_id")
    before = {c.component_id: c for c in baseline.components}
    after = {c.component_id: c for c in candidate.components}
    changes = []
    impacted: set[str] = set()
    for component_id in sorted(before.keys() | after.keys()):
        old, new = before.get(component_id), after.get(component_id)
        if old is None:
            state = "added"
        elif new is None:
            state = "removed"
        elif old.sha256 != new.sha256 or old.kind != new.kind:
            state = "changed"
        else:
            continue
        tags = sorted(set(old.impact_tags if old else ()) | set(new.impact_tags if new else ()))
        impacted.update(tags)
        changes.append(DiffChange(
            component_id=component_id, state=state,
            before_kind=old.kind if old else None, after_kind=new.kind if new else None,
            before_sha256=old.sha256 if old else None, after_sha256=new.sha256 if new else None,
            impact_tags=tuple(tags),
            required_before=old.required if old else None,
            required_after=new.required if new else None))
    diff = ReleaseDiff(
        diff_version=DIFF_VERSION, agent_id=baseline.agent_id,
        baseline_release_id=baseline.release_id, candidate_release_id=candidate.release_id,
        baseline_snapshot_sha256=baseline.snapshot_sha256,
        candidate_snapshot_sha256=candidate.snapshot_sha256, changes=tuple(changes),
        impacted_tags=tuple(sorted(impacted)), diff_sha256="")
    return attrs.evolve(diff, diff_sha256=digest_without(diff, "diff_sha256"))
