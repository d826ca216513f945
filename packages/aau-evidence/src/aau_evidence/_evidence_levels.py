"""Evidence levels of a community submission, derived from its artifacts, never declared.

Levels, lowest first: ``Generated < Domain reviewed < Reproduced < Verified``; ``Draft`` when a
Generated check fails. A submission has the highest level whose checks, and all lower levels'
checks, pass. Nine checks, in this order::

    stage            check id (2.0)              passes when
    Generated        starter-contract            the starter manifest is aau-agent-evidence-starter/1.0
                     public-agent-receipt        at least one non-mock, privacy-bounded receipt
                     protected-human-authority   the suite names accountable_role and protected_action
    Domain reviewed  adapted-suite               the suite differs from the one the starter generated
                     scenario-depth              at least 10 cases
                     named-domain-review         reviewer, reviewer_role, scope and reviewed_at given
                     source-ledger               at least two https:// sources
    Reproduced       distinct-runs               >= 3 receipt v2 runs, run windows pairwise disjoint,
                                                 no two runs copies of each other, from >= 2
                                                 distinct environments
    Verified         independent-reproduction    a named reproducer (handle != contributor's), a
                                                 scope, and a linked receipt v2 whose environment
                                                 differs from every other receipt's in more than
                                                 the adapter invocation, whose run window overlaps
                                                 none of theirs and which copies none of them

A run's *window* is ``[started_at, finished_at]`` of a receipt v2; its *provenance* is the
receipt's ``provenance`` object (aau version, Python version, platform, adapter kind and
``argv0`` or ``url_host``). Receipt v1 carries neither, so it cannot show a distinct run.

A run's *environment* is its provenance with ``argv0`` normalised (``environment_key``): the
base name, lower-cased, without ``.exe``, and every spelling of a Python interpreter
(``python``, ``python3``, ``python3.11``, ``/usr/bin/python3``, ``env`` as in ``/usr/bin/env
python``) is ``python``: calling the same script through another spelling of the same
interpreter is the same environment. Two runs are *copies* (``copied_runs``) when at least
half of the result rows they share (same ``scenario_id`` and ``repeat``) have the same
``latency_s``, to the microsecond: a re-run never reproduces latencies, so such receipts are
one run re-labelled (hand-edited ``provenance``/``started_at``/``finished_at``).

What these checks prove, and what they do not: provenance and run windows are self-reported
and nothing checks them (a receipt is a JSON file its author can edit); the checks catch
repetition presented as reproduction (one run copied, one run re-launched through another
spelling of the interpreter, runs from one environment) but not a forger who edits latencies
and provenance consistently, and never who ran what.

Why (aau-harness 1.6 used ``repeated-receipts``: 3 receipts with 3 distinct hashes, and
``named-independent-reproduction``: any other GitHub handle): the hashes of three back-to-back
runs of the same adapter differ by latency alone, and a handle is not verified, so one person
reached Verified with one command. Repeating the same adapter in the same environment is
*repetition*, which receipt v2 records as ``repeats`` and pass^k; *reproduction* needs another
environment, and a reproducer's run must be a separate run from another environment. Nothing
here verifies identity: two honest people on identical environments are indistinguishable from
one person, and one person with two environments can still claim a second handle. The manifest
says so (``identity_verified: false``).

``rules="1.6"`` recomputes aau-harness 1.6's checks (``aau-community-evidence-checks/1.0``)
bit for bit, to validate packs 1.6 wrote.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

import aau_schemas
import attrs

LEVELS = ("Generated", "Domain reviewed", "Reproduced", "Verified")
DRAFT = "Draft"
LEVEL_RANK = {DRAFT: -1, **{level: i for i, level in enumerate(LEVELS)}}
CHECKS_V1 = "aau-community-evidence-checks/1.0"
CHECKS_V2 = "aau-community-evidence-checks/2.0"
STARTER_VERSION = "aau-agent-evidence-starter/1.0"
RECEIPT_V2_VERSIONS = ("aau-byo-agent-receipt/2.0", "aau-byo-agent-receipt/2.1")  # every minor of v2
CHECKS_BOUNDARY = ("Evidence levels are derived from submitted artifacts. They are not identity "
                   "verification, certification, endorsement, production validation, or "
                   "authority to deploy.")
MIN_CASES = 10
MIN_SOURCES = 2
MIN_RUNS = 3
MIN_PROVENANCES = 2

Rules = Literal["aau", "1.6"]


@attrs.frozen
class PackedReceipt:
    """A receipt as the checks see it.

    Attributes:
        name: its pack path (``receipts/run-01.json``).
        doc: the parsed receipt (v1 or v2), already checked.
        sha256: SHA-256 of its 1.6 rendering (indent 2, sorted keys, ASCII, newline).
    """

    name: str
    doc: Mapping[str, Any]
    sha256: str

    @property
    def is_v2(self) -> bool:
        """True for a receipt v2 (it has a run window and a provenance)."""
        return self.doc.get("receipt_version") in RECEIPT_V2_VERSIONS

    def provenance_key(self) -> str | None:
        """The provenance as canonical JSON, or ``None`` for a receipt v1."""
        if not self.is_v2:
            return None
        return aau_schemas.canonical_json(self.doc["provenance"]).decode()

    def window(self) -> tuple[datetime, datetime] | None:
        """``(started_at, finished_at)`` as aware datetimes, or ``None`` for a receipt v1."""
        if not self.is_v2:
            return None
        return _instant(self.doc["started_at"]), _instant(self.doc["finished_at"])


def normalize_argv0(argv0: str) -> str:
    """The adapter program as an environment sees it: base name, lower case, no ``.exe``,
    every Python interpreter spelling (``python3``, ``python3.11``, ``py``, ``env`` as in
    ``/usr/bin/env python``) as ``python``."""
    base = re.split(r"[\\/]", argv0.strip())[-1].lower()
    base = base.removesuffix(".exe")
    if base in ("env", "py") or re.fullmatch(r"pythonw?[0-9.]*", base):
        return "python"
    return base


def environment_key(receipt: PackedReceipt, *, adapter: bool = True) -> str | None:
    """A receipt v2's environment as canonical JSON (``argv0`` normalised; without the adapter
    when ``adapter`` is false); ``None`` for a receipt v1."""
    if not receipt.is_v2:
        return None
    provenance = dict(receipt.doc["provenance"])
    described = dict(provenance.get("adapter") or {})
    if isinstance(described.get("argv0"), str):
        described["argv0"] = normalize_argv0(described["argv0"])
    provenance["adapter"] = described
    if not adapter:
        del provenance["adapter"]
    return aau_schemas.canonical_json(provenance).decode()


def _latencies(receipt: PackedReceipt) -> dict[tuple[Any, Any], Any]:
    rows = receipt.doc.get("results")
    return {(row.get("scenario_id"), row.get("repeat")): row.get("latency_s")
            for row in (rows if isinstance(rows, list) else []) if isinstance(row, dict)}


def copied_runs(a: PackedReceipt, b: PackedReceipt) -> bool:
    """True when two receipts are one run: at least half of the result rows they share
    (``scenario_id`` and ``repeat``) have the same ``latency_s``."""
    la, lb = _latencies(a), _latencies(b)
    shared = [key for key in la if key in lb]
    same = sum(1 for key in shared if la[key] is not None and la[key] == lb[key])
    return bool(shared) and 2 * same >= len(shared)


def _instant(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _text(value: Any, maximum: int) -> bool:
    return isinstance(value, str) and 0 < len(value.strip()) <= maximum


def _overlap(a: tuple[datetime, datetime], b: tuple[datetime, datetime]) -> bool:
    """True when two run windows share an instant or start together."""
    return a[0] == b[0] or (a[0] < b[1] and b[0] < a[1])


def _check(check_id: str, stage: str, passed: bool, detail: str) -> dict[str, Any]:
    return {"id": check_id, "stage": stage, "passed": bool(passed), "detail": detail}


def _distinct_runs(receipts: Sequence[PackedReceipt]) -> dict[str, Any]:
    runs = [r for r in receipts if r.is_v2]
    windows = [w for r in runs if (w := r.window()) is not None]
    overlapping = sum(1 for i, a in enumerate(windows) for b in windows[i + 1:] if _overlap(a, b))
    copies = sum(1 for i, a in enumerate(runs) for b in runs[i + 1:] if copied_runs(a, b))
    provenances = {environment_key(r) for r in runs}
    passed = (len(runs) >= MIN_RUNS and not overlapping and not copies
              and len(provenances) >= MIN_PROVENANCES)
    detail = (f"{len(runs)}/{MIN_RUNS} receipt v2 runs · {overlapping} overlapping pair(s) · "
              f"{copies} copied pair(s) (same latencies) · "
              f"{len(provenances)}/{MIN_PROVENANCES} provenances")
    if len(runs) < len(receipts):
        detail += f" · {len(receipts) - len(runs)} receipt v1 (no run window or provenance)"
    return _check("distinct-runs", "Reproduced", passed, detail)


def _independent_reproduction(metadata: Mapping[str, Any],
                              receipts: Sequence[PackedReceipt]) -> dict[str, Any]:
    reproduction = metadata.get("reproduction") or {}
    contributor = str(metadata["contributor"]["github"]).lower()
    reproducer = str(reproduction.get("reproducer_github") or "").lower()
    linked = next((r for r in receipts if r.name == reproduction.get("receipt_file")), None)
    reasons = []
    if not _text(reproduction.get("reproducer_name"), 240):
        reasons.append("no reproducer name")
    if not reproducer or reproducer == contributor:
        reasons.append("no reproducer handle other than the contributor's")
    if not _text(reproduction.get("scope"), 500):
        reasons.append("no reproduction scope")
    if linked is None:
        reasons.append("no linked receipt")
    elif not linked.is_v2:
        reasons.append("the linked receipt is v1 (no provenance)")
    else:
        others = [r for r in receipts if r is not linked]
        key, window = environment_key(linked, adapter=False), linked.window()
        if not others:
            reasons.append("no contributor receipt to compare with")
        if any(environment_key(r, adapter=False) in (None, key) for r in others):
            reasons.append("its provenance equals (or cannot be told from) a contributor "
                           "receipt's in more than the adapter invocation (harness version, "
                           "python, platform)")
        if any(copied_runs(linked, r) for r in others):
            reasons.append("it is a copy of a contributor run (same latencies)")
        if window is not None and any(
                (w := r.window()) is not None and _overlap(window, w) for r in others):
            reasons.append("its run overlaps a contributor run")
    if reasons:
        detail = "; ".join(reasons)
    else:
        detail = f"reproduction by @{reproduction['reproducer_github']} from another provenance"
    return _check("independent-reproduction", "Verified", not reasons, detail)


def _v16_upper_checks(metadata: Mapping[str, Any],
                      receipts: Sequence[PackedReceipt]) -> list[dict[str, Any]]:
    """aau-harness 1.6's Reproduced and Verified checks, as it computed them."""
    hashes = {r.sha256 for r in receipts}
    reproduction = metadata.get("reproduction") or {}
    contributor = str(metadata["contributor"]["github"]).lower()
    reproducer = str(reproduction.get("reproducer_github", "")).lower()
    complete = (_text(reproduction.get("reproducer_name"), 240) and bool(reproducer)
                and reproducer != contributor and _text(reproduction.get("scope"), 500)
                and reproduction.get("receipt_file", "") in {r.name for r in receipts})
    return [
        _check("repeated-receipts", "Reproduced", len(receipts) >= 3 and len(hashes) >= 3,
               f"{len(receipts)} receipts · {len(hashes)} distinct hashes"),
        _check("named-independent-reproduction", "Verified", complete,
               f"named reproduction by @{reproduction.get('reproducer_github')}" if complete
               else "different named reproducer and linked receipt required"),
    ]


def derive_checks(metadata: Mapping[str, Any], starter_manifest: Mapping[str, Any],
                  suite: Mapping[str, Any], receipts: Sequence[PackedReceipt], *,
                  rules: Rules = "aau") -> dict[str, Any]:
    """The checks document of a submission, derived from its artifacts.

    Args:
        metadata: the submission metadata (``contributor``, ``review``, ``reproduction``).
        starter_manifest: the starter's ``aau-starter.json`` (checked).
        suite: the parsed suite document (checked).
        receipts: the packed receipts in order (each checked).
        rules: ``"aau"`` (``aau-community-evidence-checks/2.0``, kind ``submission-checks-v2``)
            or ``"1.6"`` (``/1.0``, aau-harness 1.6's rules, kind ``submission-checks``).

    Returns:
        ``{checks_version, level, levels, score{passed, total}, checks[{id, stage, passed,
        detail}], boundary}``.
    """
    review = metadata.get("review") or {}
    authority = suite.get("human_authority") if isinstance(suite.get("human_authority"),
                                                           dict) else {}
    fingerprints = starter_manifest.get("generated_file_sha256") or {}
    original = fingerprints.get("suite.json")
    adapted = bool(original and original != aau_schemas.legacy_sha256_json(suite))
    sources = review.get("sources", [])
    n_cases = len(suite["cases"])
    checks = [
        _check("starter-contract", "Generated",
               starter_manifest.get("starter_version") == STARTER_VERSION,
               f"starter contract {starter_manifest.get('starter_version', 'missing')}"),
        _check("public-agent-receipt", "Generated", bool(receipts),
               f"{len(receipts)} non-mock privacy-bounded receipt(s)"),
        _check("protected-human-authority", "Generated",
               all(_text(authority.get(f), 500) for f in ("accountable_role", "protected_action")),
               str(authority.get("accountable_role", "missing"))),
        _check("adapted-suite", "Domain reviewed", adapted,
               "suite differs from generated template" if adapted
               else "starter smoke suite is unchanged"),
        _check("scenario-depth", "Domain reviewed", n_cases >= MIN_CASES,
               f"{n_cases}/{MIN_CASES} synthetic cases"),
        _check("named-domain-review", "Domain reviewed",
               all(_text(review.get(f), 500)
                   for f in ("reviewer", "reviewer_role", "scope", "reviewed_at")),
               str(review.get("scope", "named review is incomplete"))),
        _check("source-ledger", "Domain reviewed", len(sources) >= MIN_SOURCES,
               f"{len(sources)}/{MIN_SOURCES} https source links"),
    ]
    if rules == "1.6":
        checks += _v16_upper_checks(metadata, receipts)
    else:
        checks += [_distinct_runs(receipts), _independent_reproduction(metadata, receipts)]
    return {
        "checks_version": CHECKS_V1 if rules == "1.6" else CHECKS_V2,
        "level": level_of(checks),
        "levels": list(LEVELS),
        "score": {"passed": sum(c["passed"] for c in checks), "total": len(checks)},
        "checks": checks,
        "boundary": CHECKS_BOUNDARY,
    }


def level_of(checks: Sequence[Mapping[str, Any]]) -> str:
    """The highest level whose checks and every lower level's checks pass (``Draft`` if none).

    A level is earned only by checks of its own: a stage with no check is not reached (nothing
    passes because nothing was checked), so neither is any stage above it.

    Args:
        checks: ``[{"stage": <one of LEVELS>, "passed": bool}, ...]``.

    Returns:
        one of ``LEVELS``, or ``DRAFT``.
    """
    level = DRAFT
    for candidate in LEVELS:
        needed = [c for c in checks if LEVEL_RANK[c["stage"]] <= LEVEL_RANK[candidate]]
        own = [c for c in needed if c["stage"] == candidate]
        if own and all(c["passed"] for c in needed):
            level = candidate
        else:
            break
    return level
