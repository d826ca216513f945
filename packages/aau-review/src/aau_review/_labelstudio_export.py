"""A rater's units of a review pack as Label Studio tasks, and the labelling config to label them.

Label Studio (https://labelstud.io) imports tasks as a JSON list of ``{"data": {...}}`` objects
("Basic Label Studio JSON format", its guide's "Import data" page); each object tag of a
project's labelling config shows one ``data`` key (``<Text name="input" value="$input"/>``), and
each control tag writes results named by its ``name`` (``from_name``) on an object tag
(``to_name``). ``labelstudio_tasks`` writes one task per unit assigned to a rater, in that
rater's seeded order, with these ``data`` keys:

- ``unit_id``, ``scenario_id``, ``repeat``: the unit (``aau review import-labelstudio`` matches
  annotations back by ``unit_id``); ``title``: the three as one line for the page's header;
- ``input``, ``response``: the case input and the agent's normalised response as indented JSON
  text (Label Studio's ``Text`` tag shows a string); ``failure``: the agent-class failure code of a
  refused answer, or that there is none;
- unblinded packs only: ``expected`` (indented JSON) and ``scores`` (``exact: pass, ...``);
- ``aau_tasks_sha256`` and ``aau_rater``: the pack's tasks.json SHA-256 and the rater, so an
  export from another pack or for another rater is refused on import.

``labelstudio_config`` is the matching labelling config (XML): the fields above as text, the
verdict as a required single ``Choices`` (``pass``/``fail``/``unsure``), the pack's failure
categories as a multiple ``Choices`` (each category's description as its hint) and an optional
``TextArea`` note. The control names ``VERDICT_CONTROL``, ``CATEGORIES_CONTROL`` and
``NOTE_CONTROL`` are what the import reads.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from aau_core import UsageError

from ._converter import converter
from ._models import Unit
from ._pack import ReviewPack
from ._protocol import VERDICTS

VERDICT_CONTROL = "verdict"
CATEGORIES_CONTROL = "categories"
NOTE_CONTROL = "note"
OBJECT_TAG = "response"
"""The object tag the three controls label (``to_name``): the agent's response."""
TASKS_KEY = "aau_tasks_sha256"
RATER_KEY = "aau_rater"
NOTE_MAX = 500
"""A note's limit in characters (schemas/review/v1/labels.schema.json)."""


def rater_units(pack: ReviewPack, rater: str) -> tuple[str, ...]:
    """The unit ids the manifest assigns to ``rater``, in that rater's seeded order.

    Raises:
        UsageError: ``rater`` is not one of the pack's raters (exit 2).
    """
    for row in pack.manifest.raters:
        if row.rater == rater:
            return row.units
    names = ", ".join(r.rater for r in pack.manifest.raters)
    raise UsageError(f"--rater {rater}: not a rater of the pack {pack.path} (raters: {names})")


def _json_text(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def _task(unit: Unit, *, tasks_sha256: str, rater: str) -> dict[str, Any]:
    data: dict[str, Any] = {
        "unit_id": unit.unit_id,
        "scenario_id": unit.scenario_id,
        "repeat": unit.repeat,
        "title": f"{unit.unit_id} · scenario {unit.scenario_id} · repeat {unit.repeat}",
        "input": _json_text(unit.input),
        "response": _json_text(unit.response),
        "failure": (f"failure code: {unit.error}" if unit.error else
                    "failure code: none (the answer was accepted in form)"),
    }
    if unit.expected is not None:
        data["expected"] = _json_text(unit.expected)
    if unit.scores is not None:
        scores = converter.unstructure(unit.scores)
        data["scores"] = ", ".join(f"{name}: {scores[name]}" for name in sorted(scores))
    data[TASKS_KEY] = tasks_sha256
    data[RATER_KEY] = rater
    return {"data": data}


def labelstudio_tasks(pack: ReviewPack, rater: str) -> list[dict[str, Any]]:
    """The Label Studio tasks of ``rater``'s units (module docstring), in its seeded order.

    Args:
        pack: a checked pack (``read_review_pack``).
        rater: one of its raters' pseudonyms.

    Returns:
        a JSON list of ``{"data": {...}}`` task objects, one per assigned unit.

    Raises:
        UsageError: ``rater`` is not a rater of the pack.
    """
    by_id = {u.unit_id: u for u in pack.tasks.units}
    return [_task(by_id[unit_id], tasks_sha256=pack.tasks_sha256, rater=rater)
            for unit_id in rater_units(pack, rater)]


def _element(parent: ET.Element, tag: str, **attributes: str) -> ET.Element:
    return ET.SubElement(parent, tag, attributes)


def labelstudio_config(pack: ReviewPack) -> str:
    """The labelling config (XML text) for the tasks of ``labelstudio_tasks``.

    Paste it into a Label Studio project's Settings > Labeling Interface > Code. The verdict is
    required and single; categories are the pack's taxonomy, several allowed; the note is one
    optional text (at most 500 characters on import). An unblinded pack's config also shows the
    expected answer and the automatic verdicts.

    Returns:
        the XML document as text, ending with a newline.
    """
    view = ET.Element("View")
    view.append(ET.Comment(f" aau review export-labelstudio: a config for the pack whose "
                           f"tasks.json has SHA-256 {pack.tasks_sha256} "))
    _element(view, "Header", value="$title")
    _element(view, "Header", value="The input", size="4")
    _element(view, "Text", name="input", value="$input")
    _element(view, "Header", value="The agent's response", size="4")
    _element(view, "Text", name=OBJECT_TAG, value="$response")
    _element(view, "Text", name="failure", value="$failure")
    if not pack.tasks.blinded:
        _element(view, "Header", value="Expected (unblinded pack)", size="4")
        _element(view, "Text", name="expected", value="$expected")
        _element(view, "Text", name="scores", value="$scores")
    _element(view, "Header", value="Verdict", size="4")
    verdict = _element(view, "Choices", name=VERDICT_CONTROL, toName=OBJECT_TAG,
                       choice="single-radio", required="true", showInline="true")
    for value in VERDICTS:
        _element(verdict, "Choice", value=value)
    categories = pack.tasks.taxonomy.categories
    if categories:
        _element(view, "Header", value="Failure categories", size="4")
        chosen = _element(view, "Choices", name=CATEGORIES_CONTROL, toName=OBJECT_TAG,
                          choice="multiple")
        for category in categories:
            _element(chosen, "Choice", value=category.id, hint=category.description)
    _element(view, "Header", value="Note for the organiser (optional)", size="4")
    _element(view, "TextArea", name=NOTE_CONTROL, toName=OBJECT_TAG, maxSubmissions="1",
             rows="2", placeholder=f"at most {NOTE_MAX} characters; never in a report")
    ET.indent(view, space="  ")
    return ET.tostring(view, encoding="unicode") + "\n"
