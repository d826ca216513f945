"""One human rater's labelling session on a review pack (what ``aau review serve`` serves).

A session holds the checked pack, the rater's pseudonym (a rater of the pack, kind ``human``),
the units assigned to that rater in the manifest (in the rater's own seeded order) and the
rater's labels file, outside the pack. It never reads any other labels file, and it hands out
only the rater's own units and labels.

Every ``save`` builds the whole labels document (``aau-review-labels/1.0``) with the new label,
checks it against the labels schema and the pack's rules (``_documents.check_labels``) and
writes it with aau-core's atomic writer (temp file in the same folder, fsync, rename): after
every save the file on disk is a complete, valid labels document, so killing the process at any
moment loses nothing already saved. Saving a unit again replaces its label; its
``time_spent_s`` is the sum of the seconds sent with each save of it (the page sends the seconds
the unit was on screen since its last save).
"""

from __future__ import annotations

import json
import math
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import attrs
from aau_core import (
    InputError,
    InvalidDocumentError,
    UsageError,
    atomic_write_json,
    check_document,
)
from aau_core._files._manifest import check_outputs_outside_pack  # internal to the monorepo

from ._converter import converter
from ._documents import check_labels, load_model, read_document
from ._models import Label, Labels, Rater, Unit
from ._pack import ReviewPack
from ._protocol import LABELS_KIND, MAX_TIME_SPENT_S, VERDICTS, pass_contradiction

MAX_NOTE_CHARS = 500
"""The labels schema's longest note."""
MAX_SECONDS_PER_SAVE = MAX_TIME_SPENT_S
"""Most seconds one save may add to a unit's time spent (a day: a page left open overnight)."""
LABEL_KEYS = ("verdict", "categories", "note", "time_spent_s")
"""What a label request may hold (``verdict`` and ``time_spent_s`` required)."""


class LabelRefused(InputError):
    """A label request the session refuses; ``status`` is the HTTP status to answer (400 a
    malformed label, 403 a unit not assigned to the rater, 404 no such unit)."""

    def __init__(self, status: int, message: str, *, path: str | None = None):
        super().__init__(message, path=path)
        self.status = status


def default_labels_path(pack: str | Path, rater: str) -> Path:
    """Where a rater's labels go when ``--labels`` is not given: beside the pack folder, named
    for it and the rater (``runs/pack`` and ``alice`` -> ``runs/pack.labels-alice.json``)."""
    root = Path(pack)
    return root.parent / f"{root.name}.labels-{rater}.json"


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@attrs.define
class LabellingSession:
    """A rater's labelling of a pack; thread-safe (one lock around every save).

    Build it with ``open_session``. ``state()``, ``unit(id)`` and ``save(id, request)`` return
    JSON-ready dicts; ``save`` raises ``LabelRefused``.
    """

    pack: ReviewPack
    rater: str
    labels_path: Path
    units: dict[str, Unit]
    order: tuple[str, ...]
    labels: dict[str, Label]
    _lock: threading.Lock = attrs.field(factory=threading.Lock)

    def state(self) -> dict[str, Any]:
        """The page's start: rater, suite, blinded flag, taxonomy, the rater's unit ids in
        order, their labels so far (``unit_id`` -> label) and the labels file's path."""
        with self._lock:
            labels = {u: converter.unstructure(lab) for u, lab in self.labels.items()}
        tasks = self.pack.tasks
        return {"rater": self.rater, "suite_id": tasks.suite_id, "blinded": tasks.blinded,
                "taxonomy": converter.unstructure(tasks.taxonomy), "units": list(self.order),
                "labels": labels, "labels_file": str(self.labels_path)}

    def unit(self, unit_id: str) -> dict[str, Any]:
        """One assigned unit as tasks.json has it (input, response, error; an unblinded pack's
        expected answer and scores). Raises LabelRefused (404 unknown, 403 not assigned)."""
        return converter.unstructure(self._assigned(unit_id))

    def _assigned(self, unit_id: str) -> Unit:
        if unit_id not in self.units:
            raise LabelRefused(404, f"{unit_id!r} is not a unit of the pack")
        if unit_id not in self.order:
            raise LabelRefused(403, f"{unit_id} is not assigned to rater {self.rater!r}")
        return self.units[unit_id]

    def save(self, unit_id: str, request: Any) -> dict[str, Any]:
        """Label ``unit_id`` with ``request`` (``{"verdict": "fail", "categories": [...],
        "note": "...", "time_spent_s": 12.5}``; ``note`` optional, an empty note is none) and
        write the labels file atomically.

        Returns:
            ``{"label": the label saved, "labelled": count, "total": assigned units}``.

        Raises:
            LabelRefused: 404/403 as ``unit``; 400 a malformed request (unknown key, verdict
                not pass/fail/unsure, a category not in the taxonomy or given twice, a note
                over 500 characters, ``time_spent_s`` missing or not a finite number in
                [0, 86400]), one message naming the JSON path, values written as JSON
                (``null``, ``true``).
            OutputError: the labels file cannot be written (the previous file stays).
        """
        self._assigned(unit_id)
        verdict, categories, note, seconds = self._parse(request)
        with self._lock:
            before = self.labels.get(unit_id)
            total = (before.time_spent_s if before else 0) + seconds
            if total > MAX_TIME_SPENT_S:
                raise LabelRefused(400, f"time_spent_s would be {total:g} s over the unit's "
                                        f"saves; at most {MAX_TIME_SPENT_S:g} (a day on one "
                                        "unit)", path="$.time_spent_s")
            label = Label(unit_id=unit_id, verdict=verdict, categories=categories, note=note,
                          time_spent_s=_seconds((before.time_spent_s if before else 0) + seconds),
                          labelled_at=_now())
            labels = {**self.labels, unit_id: label}
            doc = self._document(labels)
            atomic_write_json(self.labels_path, doc, force=True)
            self.labels = labels
            count = len(labels)
        return {"label": converter.unstructure(label), "labelled": count,
                "total": len(self.order)}

    def _parse(self, request: Any) -> tuple[str, tuple[str, ...], str | None, float]:
        if not isinstance(request, dict):
            raise LabelRefused(400, "a label is a JSON object", path="$")
        for key in request:
            if key not in LABEL_KEYS:
                raise LabelRefused(400, f"unknown key {_json(key)} (a label has "
                                        f"{', '.join(LABEL_KEYS)})", path=f"$.{key}")
        if "verdict" not in request:
            raise LabelRefused(400, f"verdict is required (one of {', '.join(VERDICTS)})",
                               path="$.verdict")
        verdict = request["verdict"]
        if verdict not in VERDICTS:
            raise LabelRefused(400, f"verdict must be one of {', '.join(VERDICTS)}, not "
                                    f"{_json(verdict)}", path="$.verdict")
        categories = request.get("categories", [])
        declared = [c.id for c in self.pack.tasks.taxonomy.categories]
        if not isinstance(categories, list):
            raise LabelRefused(400, "categories must be a list of category ids",
                               path="$.categories")
        for i, category in enumerate(categories):
            if category not in declared:
                raise LabelRefused(400, f"{_json(category)} is not a category of the pack's "
                                        f"taxonomy ({', '.join(declared)})",
                                   path=f"$.categories[{i}]")
            if category in categories[:i]:
                raise LabelRefused(400, f"{_json(category)} given twice",
                                   path=f"$.categories[{i}]")
        contradiction = pass_contradiction(verdict, categories)
        if contradiction:
            raise LabelRefused(400, contradiction, path="$.categories")
        note = request.get("note")
        if note is not None and not isinstance(note, str):
            raise LabelRefused(400, "note must be a string", path="$.note")
        note = note.strip() if note else None
        if note is not None and len(note) > MAX_NOTE_CHARS:
            raise LabelRefused(400, f"note has {len(note)} characters; at most "
                                    f"{MAX_NOTE_CHARS}", path="$.note")
        wanted = f"a number of seconds >= 0 (at most {MAX_SECONDS_PER_SAVE:g} per save)"
        if "time_spent_s" not in request:
            raise LabelRefused(400, f"time_spent_s is required: {wanted}",
                               path="$.time_spent_s")
        seconds = request["time_spent_s"]
        if (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                or not math.isfinite(seconds) or not 0 <= seconds <= MAX_SECONDS_PER_SAVE):
            raise LabelRefused(400, f"time_spent_s must be {wanted}, not {_json(seconds)}",
                               path="$.time_spent_s")
        return verdict, tuple(sorted(categories, key=declared.index)), note or None, seconds

    def _document(self, labels: dict[str, Label]) -> dict[str, Any]:
        """The labels document, labels in the rater's order, checked (schema, pack rules)."""
        rank = {u: i for i, u in enumerate(self.order)}
        model = Labels(tasks_sha256=self.pack.tasks_sha256,
                       rater=Rater(pseudonym=self.rater, kind="human"),
                       labels=tuple(sorted(labels.values(), key=lambda x: rank[x.unit_id])))
        doc = converter.unstructure(model)
        source = str(self.labels_path)
        check_document(LABELS_KIND, doc, source)
        check_labels(model, tasks_sha256=self.pack.tasks_sha256, manifest=self.pack.manifest,
                     source=source)
        return doc


def _json(value: Any) -> str:
    """``value`` as JSON writes it (``null``, ``true``, ``"3"``), for messages about a request;
    a long value is cut to 60 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _seconds(value: float) -> float:
    """Seconds, rounded to the millisecond."""
    return round(float(value), 3)


def open_session(pack: ReviewPack, rater: str, labels_path: Path) -> LabellingSession:
    """Start (or resume) ``rater``'s labelling of ``pack`` with the labels file
    ``labels_path``.

    An existing labels file is read and checked (schema, this pack's tasks.json, rater
    ``rater`` of kind human, the pack's rules): its labels are the session's start, so a rater
    can stop and come back. A missing file is written at the first save.

    Raises:
        UsageError: ``rater`` is not a rater of the pack; ``labels_path`` is inside the pack
            folder (a pack holds only its own files).
        InputError / InvalidDocumentError: the existing labels file is unreadable, invalid,
            another pack's or another rater's.
    """
    assignments = {r.rater: r.units for r in pack.manifest.raters}
    if rater not in assignments:
        raise UsageError(f"--rater {rater}: not a rater of the pack (raters: "
                         f"{', '.join(sorted(assignments))})")
    check_outputs_outside_pack(pack.path, {"--labels": labels_path}, "labels")
    labels: dict[str, Label] = {}
    if labels_path.exists() or labels_path.is_symlink():
        source = str(labels_path)
        if not labels_path.is_file() or labels_path.is_symlink():
            raise InputError("not a regular file (a labels file is a JSON file)", source=source)
        existing = load_model(LABELS_KIND, read_document(labels_path), source)
        if existing.rater.kind != "human" or existing.rater.pseudonym != rater:
            raise InvalidDocumentError([("$.rater", f"labels of {existing.rater.kind} rater "
                                                    f"{existing.rater.pseudonym!r}, not of "
                                                    f"human rater {rater!r}")], source=source)
        check_labels(existing, tasks_sha256=pack.tasks_sha256, manifest=pack.manifest,
                     source=source)
        labels = {lab.unit_id: lab for lab in existing.labels}
    return LabellingSession(pack=pack, rater=rater, labels_path=labels_path,
                            units={u.unit_id: u for u in pack.tasks.units},
                            order=tuple(assignments[rater]), labels=labels)
