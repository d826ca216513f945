"""Reading and checking review documents: schema first, then the model, then what the schema
cannot say (the rules each schema's ``description`` lists).

Every check raises ``aau_core.InvalidDocumentError`` naming the file and the JSON path of each
problem (one line each, exit 2).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from aau_core import InvalidDocumentError, read_json_file
from aau_core._files._converter import structure_document  # internal to the monorepo
from aau_core._files._privacy_scan import scan_text  # internal to the monorepo

from ._converter import converter
from ._models import MODELS, Labels, Manifest, ReviewReport, ScoresDocument, Tasks
from ._protocol import MAX_FILE_BYTES


def read_document(path: str | Path) -> Any:
    """Parse a JSON file strictly (at most ``MAX_FILE_BYTES``). Raises InputError."""
    return read_json_file(path, max_bytes=MAX_FILE_BYTES)


def load_model(kind: str, doc: Any, source: str) -> Any:
    """Validate ``doc`` against ``kind``'s schema, then structure it into ``MODELS[kind]``
    with the package's converter (aau-core's ``structure_document``).

    Raises:
        InvalidDocumentError: every schema violation (nothing is structured then).
    """
    return structure_document(kind, doc, MODELS[kind], source, converter=converter)


def load(kind: str, path: str | Path) -> Any:
    """``read_document`` then ``load_model``: the file as its checked model."""
    return load_model(kind, read_document(path), str(path))


def _raise(problems: list[tuple[str, str]], source: str) -> None:
    if problems:
        raise InvalidDocumentError(problems, source=source)


def _repeated(values: list[Any]) -> set[Any]:
    return {v for v, n in Counter(values).items() if n > 1}


def check_tasks(tasks: Tasks, source: str) -> Tasks:
    """The rules of ``tasks.json`` beyond its schema: unique unit ids, one unit per (scenario,
    repeat), unique category ids. Returns ``tasks``; raises InvalidDocumentError."""
    problems = []
    twice = _repeated([u.unit_id for u in tasks.units])
    pairs = _repeated([(u.scenario_id, u.repeat) for u in tasks.units])
    for i, unit in enumerate(tasks.units):
        if unit.unit_id in twice:
            problems.append((f"$.units[{i}].unit_id", f"unit id {unit.unit_id!r} repeated"))
        if (unit.scenario_id, unit.repeat) in pairs:
            problems.append((f"$.units[{i}]", f"scenario {unit.scenario_id!r} repeat "
                                              f"{unit.repeat} appears more than once"))
    problems += _category_problems(tasks, "$.taxonomy")
    _raise(problems, source)
    return tasks


def _category_problems(tasks: Tasks | Manifest, at: str) -> list[tuple[str, str]]:
    twice = _repeated([c.id for c in tasks.taxonomy.categories])
    return [(f"{at}.categories[{i}].id", f"category id {c.id!r} repeated")
            for i, c in enumerate(tasks.taxonomy.categories) if c.id in twice]


def check_scores(scores: ScoresDocument, tasks: Tasks, source: str) -> ScoresDocument:
    """``scores.json`` against ``tasks.json``: one row per unit in tasks order, and ``scorers``
    naming exactly the scorers that occur. Raises InvalidDocumentError."""
    problems = []
    ids = [u.unit_id for u in tasks.units]
    if [row.unit_id for row in scores.units] != ids:
        problems.append(("$.units", "rows are not the units of tasks.json in its order"))
    used = sorted({name for row in scores.units
                   for name, value in converter.unstructure(row.scores).items()
                   if value is not None})
    if sorted(scores.scorers) != used:
        problems.append(("$.scorers", f"names {sorted(scores.scorers)}; the rows use {used}"))
    _raise(problems, source)
    return scores


def check_manifest(manifest: Manifest, tasks: Tasks, source: str) -> Manifest:
    """The manifest's design against ``tasks.json`` (schemas/review/v1/manifest.schema.json's
    description): taxonomy, blinded flag and unit count equal tasks.json's; raters unique;
    ``per_unit`` at most the raters; each unit assigned to exactly ``per_unit`` raters, each
    rater's units being units of the pack, once each. Raises InvalidDocumentError."""
    problems = []
    if manifest.taxonomy != tasks.taxonomy:
        problems.append(("$.taxonomy", "differs from tasks.json's taxonomy"))
    if manifest.blinded != tasks.blinded:
        problems.append(("$.blinded", "differs from tasks.json's blinded"))
    if manifest.unit_count != len(tasks.units):
        problems.append(("$.unit_count", f"{manifest.unit_count}, but tasks.json has "
                                         f"{len(tasks.units)} units"))
    raters = [r.rater for r in manifest.raters]
    for i, name in enumerate(raters):
        if name in _repeated(raters):
            problems.append((f"$.raters[{i}].rater", f"rater {name!r} listed more than once"))
    if manifest.per_unit > len(raters):
        problems.append(("$.per_unit", f"{manifest.per_unit} raters per unit, but the pack has "
                                       f"{len(raters)} raters"))
    known = {u.unit_id for u in tasks.units}
    assigned: Counter[str] = Counter()
    for i, rater in enumerate(manifest.raters):
        for j, unit_id in enumerate(rater.units):
            if unit_id not in known:
                problems.append((f"$.raters[{i}].units[{j}]", f"{unit_id} is not a unit of "
                                                              "tasks.json"))
        for unit_id in _repeated(list(rater.units)):
            problems.append((f"$.raters[{i}].units", f"{unit_id} assigned twice"))
        assigned.update(set(rater.units))
    wrong = [u for u in sorted(known) if assigned[u] != manifest.per_unit]
    if wrong:
        problems.append(("$.raters", f"{wrong[0]} (and {len(wrong) - 1} more) assigned to "
                                     f"{assigned[wrong[0]]} raters, not per_unit "
                                     f"{manifest.per_unit}"))
    _raise(problems, source)
    return manifest


def check_labels(labels: Labels, *, tasks_sha256: str, manifest: Manifest,
                 source: str) -> Labels:
    """One labels file against its pack: ``tasks_sha256`` names this pack's tasks.json; each
    unit id is a unit of the pack, labelled once; every category is declared; a human rater is
    one of the pack's raters and labels only the units assigned to it; a judge's
    ``judge_errors`` name units of the pack, once each, none of them labelled. Raises
    InvalidDocumentError (the first rule that fails for each label)."""
    if labels.tasks_sha256 != tasks_sha256:
        _raise([("$.tasks_sha256", "labels for another pack: tasks.json of this pack has "
                                   f"SHA-256 {tasks_sha256}")], source)
    problems = []
    assignments = {r.rater: set(r.units) for r in manifest.raters}
    every = set().union(*assignments.values()) if assignments else set()
    human = labels.rater.kind == "human"
    if human and labels.rater.pseudonym not in assignments:
        _raise([("$.rater.pseudonym", f"{labels.rater.pseudonym!r} is not a rater of the pack "
                                      f"(raters: {', '.join(sorted(assignments))})")], source)
    mine = assignments.get(labels.rater.pseudonym, set()) if human else every
    declared = {c.id for c in manifest.taxonomy.categories}
    seen: dict[str, int] = {}
    for i, label in enumerate(labels.labels):
        at = f"$.labels[{i}]"
        if label.unit_id not in every:
            problems.append((f"{at}.unit_id", f"{label.unit_id} is not a unit of the pack"))
        elif label.unit_id not in mine:
            problems.append((f"{at}.unit_id", f"{label.unit_id} is not assigned to rater "
                                              f"{labels.rater.pseudonym!r}"))
        elif label.unit_id in seen:
            problems.append((f"{at}.unit_id", f"{label.unit_id} labelled twice (first at "
                                              f"$.labels[{seen[label.unit_id]}])"))
        else:
            seen[label.unit_id] = i
        for j, category in enumerate(label.categories):
            if category not in declared:
                problems.append((f"{at}.categories[{j}]", f"{category!r} is not a category "
                                                          "of the pack's taxonomy"))
    problems += _judge_error_problems(labels, every, seen)
    _raise(problems, source)
    return labels


def _judge_error_problems(labels: Labels, every: set[str],
                          labelled: dict[str, int]) -> list[tuple[str, str]]:
    """A model rater's ``judge_errors``: units of the pack, each listed once, none labelled."""
    model = labels.rater.model
    problems, listed = [], set()
    for i, error in enumerate((model.judge_errors or ()) if model else ()):
        at = f"$.rater.model.judge_errors[{i}].unit_id"
        if error.unit_id not in every:
            problems.append((at, f"{error.unit_id} is not a unit of the pack"))
        elif error.unit_id in labelled:
            problems.append((at, f"{error.unit_id} is labelled (at "
                                 f"$.labels[{labelled[error.unit_id]}]) and listed as not "
                                 "labelled"))
        elif error.unit_id in listed:
            problems.append((at, f"{error.unit_id} listed twice"))
        listed.add(error.unit_id)
    return problems


def check_notes(labels: Labels, source: str) -> Labels:
    """No label's note trips the sensitive-data scan (``aau_core._files._privacy_scan``: e-mail
    address, SSN, card number, key, token, credential, classification marking; the text is
    never echoed). A review report binds every labels file it was computed from by SHA-256, so
    those files are what a sceptical reader is handed to recompute it: a note that looks like
    personal data or a secret must not become public evidence. Returns ``labels``; raises
    InvalidDocumentError (one line per finding: ``$.labels[i].note``)."""
    problems = [(f"$.labels[{i}].note", f"looks like private data ({f.finding} at character "
                                        f"{f.offset}); a labels file a review report binds is "
                                        "public evidence: remove it from the note")
                for i, label in enumerate(labels.labels) if label.note
                for f in scan_text(label.note, "note")]
    _raise(problems, source)
    return labels


def check_review_report(report: ReviewReport, source: str) -> ReviewReport:
    """The report's arithmetic rules (schemas/review/v1/report.schema.json's description):
    consensus counts add up to ``unit_count``, each confusion matrix sums to its units, interval
    bounds are ordered, ties name distinct units; and every number the report's own content
    determines recomputes (``_recompute.report_recompute_problems``: each scorer's estimates and
    intervals from its confusion matrix and the report's bootstrap settings, the human raters
    and the verdict total from ``label_files``). Raises InvalidDocumentError."""
    from ._recompute import report_recompute_problems

    problems = []
    c = report.consensus
    total = c.pass_ + c.fail + c.unsure + c.unlabelled + len(c.ties)
    if total != report.unit_count:
        problems.append(("$.consensus", f"counts add up to {total}, not unit_count "
                                        f"{report.unit_count}"))
    if len({t.unit_id for t in c.ties}) != len(c.ties):
        problems.append(("$.consensus.ties", "a unit is listed twice"))
    estimates = [(f"$.human_agreement.{k}", getattr(report.human_agreement, k))
                 for k in ("percent_agreement", "cohen_kappa", "fleiss_kappa",
                           "krippendorff_alpha")]
    for i, s in enumerate(report.scorers):
        m = s.confusion
        if m.tp + m.fp + m.fn + m.tn != s.units:
            problems.append((f"$.scorers[{i}].confusion", f"sums to {m.tp + m.fp + m.fn + m.tn}"
                                                          f", not units {s.units}"))
        estimates += [(f"$.scorers[{i}].{k}", getattr(s, k))
                      for k in ("accuracy", "precision", "recall", "f1", "cohen_kappa")]
    for at, e in estimates:
        if e.ci95 is not None and e.ci95[0] > e.ci95[1]:
            problems.append((f"{at}.ci95", "low bound above high bound"))
    problems += report_recompute_problems(report)
    _raise(problems, source)
    return report


def _document_check(kind: str, check: Any) -> Any:
    def run(doc: Any, *, source: str, strict: bool = False) -> tuple[
            list[tuple[str, str]], list[tuple[str, str]]]:
        try:
            check(load_model(kind, doc, source), source)
        except InvalidDocumentError as exc:
            return list(exc.violations), []
        return [], []

    run.__doc__ = (f"``aau schema validate``'s check of a schema-valid {kind} (entry point "
                   "``aau.document_checks``): ``(problems, [])``.")
    return run


check_report_document = _document_check("review-report", check_review_report)
check_tasks_document = _document_check("review-tasks", check_tasks)
"""``aau schema validate``'s checks of a schema-valid review report / tasks file (entry points
``aau.document_checks``): the rules of ``check_review_report`` / ``check_tasks``. Labels and
manifests are checked against their pack (``aau review validate``)."""
