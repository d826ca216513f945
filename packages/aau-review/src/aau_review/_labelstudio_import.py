"""Label Studio's JSON export of a project labelled with ``aau review export-labelstudio``'s
tasks and config, read back as one rater's review labels (``aau-review-labels/1.0``).

Label Studio's "JSON" export (its guide's "Export annotations" and "Task format" pages) is a list
of tasks, each with the ``data`` it was imported with and its ``annotations``; an annotation has a
``result`` list (one entry per control: ``type``, ``from_name``, ``to_name``, ``value``),
``lead_time`` (seconds spent), ``created_at``, ``completed_by`` (the user: an id, or
``{"id", "email", ...}`` when the export expands it) and ``was_cancelled`` (skipped). Everything
else Label Studio writes (ids, ``updated_at``, ``ground_truth``, ``drafts``, ``predictions``,
``meta``, counters, result ids and ``origin``) is ignored.

Each task's ``data`` must carry the pack's tasks.json SHA-256 and the rater it was exported for
(``aau_tasks_sha256``, ``aau_rater``) and one of that rater's units (``unit_id``). Each annotation
that was not cancelled becomes a label: the one choice of the ``verdict`` control, the choices of
``categories``, the ``note`` text (lines joined, trimmed; none when empty), ``lead_time`` as
``time_spent_s`` (0 when Label Studio recorded none, counted) and ``created_at`` in UTC as
``labelled_at``. Cancelled (skipped) annotations are no label and are counted. The labels hold no
Label Studio user: a file is one rater, so the annotations must all be by one user, or
``annotator`` picks that user's (by id or e-mail) and the others are counted. A user is its id,
whether ``completed_by`` is the number or the expanded object; an e-mail matches the id any
annotation gives it.

Refused, every problem one line naming the export file and the JSON path (exit 2): not a list of
tasks, no task at all (``[]``), a task of another pack or rater, a unit not in the pack or not
the rater's, a result of a control the config does not have, a verdict that is not exactly one
known choice, an undeclared category, a pass with categories (``_protocol.pass_contradiction``),
a note over 500 characters, a bad ``lead_time`` (negative, not a number, or more than a day:
``_protocol.MAX_TIME_SPENT_S``) or ``created_at``, two annotations of one unit by one person,
annotations by several users without ``annotator``.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
from aau_core import InputError, InvalidDocumentError, check_document

from ._converter import converter
from ._documents import check_labels, read_document
from ._labelstudio_export import (
    CATEGORIES_CONTROL,
    NOTE_CONTROL,
    NOTE_MAX,
    RATER_KEY,
    TASKS_KEY,
    VERDICT_CONTROL,
    rater_units,
)
from ._models import Label, Labels, Rater
from ._pack import ReviewPack
from ._protocol import LABELS_KIND, MAX_TIME_SPENT_S, VERDICTS, pass_contradiction

_CONTROLS = {VERDICT_CONTROL: "choices", CATEGORIES_CONTROL: "choices", NOTE_CONTROL: "textarea"}


@attrs.frozen
class LabelStudioImport:
    """What ``labels_from_labelstudio`` read: the labels (``Labels`` model, checked against the
    pack) and counts of the export's tasks, the labels made, the cancelled annotations skipped,
    other users' annotations left out (``annotator``), labels without a ``lead_time`` (time 0)
    and the rater's units left unlabelled."""

    labels: Labels
    tasks: int
    labelled: int
    cancelled: int
    other_annotators: int
    no_lead_time: int
    unlabelled: int


@attrs.frozen
class _Annotation:
    at: str
    unit_id: str
    user: str
    keys: tuple[str, ...]
    label: Label | None
    lead_time_missing: bool


def _user(value: Any) -> tuple[str, tuple[str, ...]] | None:
    """(display, keys an --annotator may match) of a ``completed_by``, or None if unusable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return f"user {value}", (str(value),)
    if isinstance(value, dict) and isinstance(value.get("id"), int) \
            and not isinstance(value["id"], bool):
        email = value.get("email")
        keys = (str(value["id"]),) + ((email,) if isinstance(email, str) and email else ())
        return f"user {value['id']}" + (f" <{email}>" if len(keys) > 1 else ""), keys
    return None


def _timestamp(value: Any) -> str | None:
    """``created_at`` as the schema's UTC timestamp, or None when it is no aware ISO time."""
    if not isinstance(value, str):
        return None
    try:
        when = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        if when.tzinfo is None:
            return None
        return when.astimezone(_dt.timezone.utc).isoformat().replace("+00:00", "Z")
    except (ValueError, OverflowError):  # not ISO 8601, or out of datetime's range in UTC
        return None


def _when(ann: _Annotation) -> _dt.datetime:
    assert ann.label is not None
    return _dt.datetime.fromisoformat(ann.label.labelled_at.replace("Z", "+00:00"))


class _Reader:
    """Collects the problems of one export (``(json_path, message)``) while reading it."""

    def __init__(self, pack: ReviewPack, rater: str) -> None:
        self.problems: list[tuple[str, str]] = []
        self.rater = rater
        self.tasks_sha256 = pack.tasks_sha256
        self.mine = set(rater_units(pack, rater))
        self.units = {u.unit_id for u in pack.tasks.units}
        self.declared = {c.id for c in pack.tasks.taxonomy.categories}

    def problem(self, at: str, message: str) -> None:
        self.problems.append((at, message))

    def task_unit(self, task: Any, at: str) -> str | None:
        """The unit id of a task, after its binding to the pack and the rater."""
        data = task.get("data") if isinstance(task, dict) else None
        if not isinstance(data, dict):
            self.problem(f"{at}.data", "a Label Studio task has a data object")
            return None
        if TASKS_KEY not in data or RATER_KEY not in data:
            self.problem(f"{at}.data", f"no {TASKS_KEY}/{RATER_KEY}: not a task of aau review "
                                       "export-labelstudio")
            return None
        if data[TASKS_KEY] != self.tasks_sha256:
            self.problem(f"{at}.data.{TASKS_KEY}", "a task of another pack: this pack's "
                                                   f"tasks.json has SHA-256 {self.tasks_sha256}")
            return None
        if data[RATER_KEY] != self.rater:
            self.problem(f"{at}.data.{RATER_KEY}", f"exported for rater {data[RATER_KEY]!r}, "
                                                   f"not {self.rater!r}")
            return None
        unit_id = data.get("unit_id")
        if not isinstance(unit_id, str) or unit_id not in self.units:
            self.problem(f"{at}.data.unit_id", f"{unit_id!r} is not a unit of the pack")
            return None
        if unit_id not in self.mine:
            self.problem(f"{at}.data.unit_id", f"{unit_id} is not assigned to rater "
                                               f"{self.rater!r}")
            return None
        return str(unit_id)

    def annotation(self, ann: Any, unit_id: str, at: str) -> _Annotation | None:
        """One annotation read; ``label`` None when it was cancelled."""
        if not isinstance(ann, dict):
            self.problem(at, "an annotation is an object")
            return None
        user = _user(ann.get("completed_by"))
        if user is None:
            self.problem(f"{at}.completed_by", "no Label Studio user (an id, or an object "
                                               "with an id)")
            return None
        cancelled = ann.get("was_cancelled", False)
        if not isinstance(cancelled, bool):
            self.problem(f"{at}.was_cancelled", f"{cancelled!r} is not true or false")
            return None
        if cancelled:
            return _Annotation(at, unit_id, *user, None, False)
        before = len(self.problems)
        chosen = self.results(ann.get("result"), f"{at}.result")
        lead = ann.get("lead_time")
        if lead is not None and (isinstance(lead, bool) or not isinstance(lead, int | float)
                                 or not math.isfinite(lead) or lead < 0):
            self.problem(f"{at}.lead_time", f"{lead!r} is not a number of seconds >= 0")
        elif lead is not None and lead > MAX_TIME_SPENT_S:
            self.problem(f"{at}.lead_time", f"{lead!r} seconds is more than a day on one unit "
                                            f"(at most {MAX_TIME_SPENT_S:g}, as every label)")
        stamp = _timestamp(ann.get("created_at"))
        if stamp is None:
            self.problem(f"{at}.created_at", f"{ann.get('created_at')!r} is not an ISO 8601 "
                                             "time with a UTC offset")
        if len(self.problems) > before or chosen is None or stamp is None:
            return None
        verdict, categories, note = chosen
        label = Label(unit_id=unit_id, verdict=verdict, categories=categories,
                      time_spent_s=float(lead or 0), labelled_at=stamp, note=note)
        return _Annotation(at, unit_id, *user, label, lead is None)

    def results(self, results: Any, at: str) -> tuple[str, tuple[str, ...], str | None] | None:
        """(verdict, categories, note) of an annotation's result list."""
        if not isinstance(results, list):
            self.problem(at, "an annotation's result is a list")
            return None
        verdicts: list[tuple[str, Any]] = []
        categories: list[str] = []
        texts: list[str] = []
        for k, entry in enumerate(results):
            here = f"{at}[{k}]"
            name = entry.get("from_name") if isinstance(entry, dict) else None
            if not isinstance(name, str) or name not in _CONTROLS:
                self.problem(f"{here}.from_name", f"{name!r} is no control of aau's labelling "
                                                  f"config ({', '.join(_CONTROLS)})")
                continue
            value = entry.get("value")
            key = "choices" if _CONTROLS[name] == "choices" else "text"
            items = value.get(key) if isinstance(value, dict) else None
            if entry.get("type") != _CONTROLS[name] or not isinstance(items, list) \
                    or not all(isinstance(x, str) for x in items):
                self.problem(here, f"a {name} result has type {_CONTROLS[name]!r} and "
                                   f"value.{key}, a list of strings")
                continue
            if name == VERDICT_CONTROL:
                verdicts += [(f"{here}.value.choices", items)]
            elif name == CATEGORIES_CONTROL:
                for j, item in enumerate(items):
                    if item not in self.declared:
                        self.problem(f"{here}.value.choices[{j}]", f"unknown choice {item!r}: "
                                     "not a category of the pack's taxonomy")
                    elif item not in categories:
                        categories.append(item)
            else:
                texts += items
        if len(verdicts) != 1 or len(verdicts[0][1]) != 1:
            self.problem(verdicts[0][0] if len(verdicts) == 1 else at,
                         "no verdict" if not verdicts else "a label has exactly one verdict "
                         f"({', '.join(VERDICTS)})")
            return None
        verdict_at, (verdict,) = verdicts[0]
        if verdict not in VERDICTS:
            self.problem(f"{verdict_at}[0]", f"unknown choice {verdict!r}: a verdict is one "
                                             f"of {', '.join(VERDICTS)}")
            return None
        contradiction = pass_contradiction(verdict, categories)
        if contradiction:
            self.problem(at, contradiction)
            return None
        note = "\n".join(texts).strip() or None
        if note is not None and len(note) > NOTE_MAX:
            self.problem(at, f"the note has {len(note)} characters; at most {NOTE_MAX}")
            return None
        return verdict, tuple(categories), note


def labels_from_labelstudio(export: str | Path, pack: ReviewPack, rater: str, *,
                            annotator: str | None = None) -> LabelStudioImport:
    """Read a Label Studio JSON export as ``rater``'s labels of ``pack`` (module docstring).

    Args:
        export: the export file (Label Studio's "JSON" format: a list of tasks).
        pack: the checked pack the tasks were exported from.
        rater: the pack rater the tasks were exported for (a human rater).
        annotator: the Label Studio user whose annotations to take (its id or e-mail); needed
            only when several users annotated.

    Returns:
        a ``LabelStudioImport``: the labels in the order they were made (``labelled_at``,
        then tasks.json order), and the counts.

    Raises:
        UsageError: ``rater`` is not a rater of the pack.
        InvalidDocumentError / InputError: every problem, one line naming the file and the
            JSON path (module docstring); nothing is returned then.
    """
    source = str(export)
    doc = read_document(export)
    reader = _Reader(pack, rater)
    if not isinstance(doc, list):
        raise InputError("not a Label Studio JSON export (a list of tasks); export the project "
                         "in the JSON format", source=source, path="$")
    if not doc:
        raise InputError("no task in the export: export the project after labelling, in the "
                         "JSON format", source=source, path="$")
    found: list[_Annotation] = []
    for i, task in enumerate(doc):
        unit_id = reader.task_unit(task, f"$[{i}]")
        if unit_id is None:
            continue
        annotations = task.get("annotations", [])
        if not isinstance(annotations, list):
            reader.problem(f"$[{i}].annotations", "a task's annotations are a list")
            continue
        for j, ann in enumerate(annotations):
            read = reader.annotation(ann, unit_id, f"$[{i}].annotations[{j}]")
            if read is not None:
                found.append(read)
    if reader.problems:
        raise InvalidDocumentError(reader.problems, source=source)
    kept, others = _one_annotator(found, annotator, source)
    first: dict[str, str] = {}
    for ann in kept:
        if ann.label is None:
            continue
        if ann.unit_id in first:
            reader.problem(ann.at, f"{ann.unit_id} annotated twice by {ann.user} (first at "
                                   f"{first[ann.unit_id]}): one label per unit")
        first.setdefault(ann.unit_id, ann.at)
    if reader.problems:
        raise InvalidDocumentError(reader.problems, source=source)
    order = {u.unit_id: i for i, u in enumerate(pack.tasks.units)}
    made = sorted((a for a in kept if a.label is not None),
                  key=lambda a: (_when(a), order[a.unit_id]))
    labels = Labels(tasks_sha256=pack.tasks_sha256, rater=Rater(pseudonym=rater, kind="human"),
                    labels=tuple(a.label for a in made if a.label is not None))
    check_document(LABELS_KIND, converter.unstructure(labels), source)
    check_labels(labels, tasks_sha256=pack.tasks_sha256, manifest=pack.manifest, source=source)
    return LabelStudioImport(
        labels=labels, tasks=len(doc), labelled=len(made),
        cancelled=sum(a.label is None for a in kept), other_annotators=others,
        no_lead_time=sum(a.lead_time_missing for a in made),
        unlabelled=len(reader.mine - {a.unit_id for a in made}))


def _one_annotator(found: Sequence[_Annotation], annotator: str | None,
                   source: str) -> tuple[list[_Annotation], int]:
    """The annotations of one Label Studio user, and how many of others' were left out.

    A user is its id, whichever form ``completed_by`` takes (the number ``1`` in one annotation,
    ``{"id": 1, "email": ...}`` in another are one user); an e-mail ``annotator`` matches the
    id(s) any annotation gives that e-mail."""
    emails: dict[str, set[str]] = {}  # user id -> the e-mails annotations give it
    for a in found:
        emails.setdefault(a.keys[0], set()).update(a.keys[1:])
    users = sorted(f"user {uid}" + (f" <{', '.join(sorted(mail))}>" if mail else "")
                   for uid, mail in emails.items())
    if annotator is None:
        if len(emails) > 1:
            raise InputError(f"annotations by {len(users)} Label Studio users ({'; '.join(users)})"
                             ": one labels file is one rater's; choose one with --annotator ID "
                             "or e-mail", source=source, path="$[*].annotations[*].completed_by")
        return list(found), 0
    chosen = {uid for uid, mail in emails.items() if annotator == uid or annotator in mail}
    kept = [a for a in found if a.keys[0] in chosen]
    if not kept and found:
        raise InputError(f"--annotator {annotator}: no annotation by that user (users: "
                         f"{'; '.join(users)})", source=source,
                         path="$[*].annotations[*].completed_by")
    return kept, len(found) - len(kept)
