"""What a lab folder's committed files prove: the raw evidence the Gallery and the Challenge
derive trust levels and achievements from (aau-harness 1.6's rules, ``gallery.py``).

A lab is a folder ``<root>/<industry>/<use-case>`` laid out as aau-harness 1.6's labs are:
``README.md``, ``pyproject.toml``, ``tests/``, ``evals/`` (scenarios), ``results/eval_*.json``
(run results), ``FAILURE_MODES.md``, and for Forge adaptations ``aau-forge.json`` and
``contract-blueprint.json``. Everything here reads files and never runs anything.

Scenario files: 1.6's ``evals/scenarios.jsonl`` (one JSON object with ``scenario_id`` per
non-blank line) or aau's ``evals/scenarios.json`` (what ``aau lab generate`` writes: a
``scenarios`` array).

Result files: 1.6's eval aggregates (``backend``, ``model``, ``n_scenarios``, ``n_repeats`` at
the top) and aau's ``aau-lab-result/1.x`` (``backend`` and ``model`` at the top, the counts in
``aggregate``). A result is a mock result when its backend or model is ``mock``; every other
result is real-model evidence. Files that do not parse, or are not JSON objects, count as
nothing (as in 1.6).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

import attrs
from aau_core._files._strict_json import decode_text  # internal to the monorepo

from ._converter import navigator_converter

PLACEHOLDER_MARKS = ("TODO(domain)", "TODO-DOMAIN", "TODO_DOMAIN")
PLACEHOLDER_SUFFIXES = frozenset({".py", ".md", ".json", ".toml"})
PLACEHOLDER_SKIPPED_FOLDERS = frozenset({"results", "evals", "__pycache__"})
BOUNDARY_TERMS = ("human", "authority", "may never", "must not")
MAX_TEXT_BYTES = 5_000_000
_FAILURE_HEADING = re.compile(r"^###\s+\d+\.", re.MULTILINE)
_LINK = re.compile(r"https?://")


def read_text(path: Path) -> str:
    """The text of ``path`` (UTF-8, undecodable bytes replaced), or ``""`` when it is not a
    regular file or is larger than ``MAX_TEXT_BYTES``."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_TEXT_BYTES:
            return ""
        return decode_text(path.read_bytes(), lenient=True)
    except OSError:
        return ""


def scenario_ids(lab: Path) -> list[str]:
    """The scenario ids committed in the lab, in file order (see module docstring)."""
    jsonl = lab / "evals" / "scenarios.jsonl"
    ids: list[str] = []
    if jsonl.is_file():
        for line in read_text(jsonl).splitlines():
            if line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(row, dict) and isinstance(row.get("scenario_id"), str):
                    ids.append(row["scenario_id"])
        return ids
    try:
        doc = json.loads(read_text(lab / "evals" / "scenarios.json") or "null")
    except json.JSONDecodeError:
        return ids
    rows = doc.get("scenarios") if isinstance(doc, dict) else None
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and isinstance(row.get("scenario_id"), str):
            ids.append(row["scenario_id"])
    return ids


def scenario_count(lab: Path) -> int:
    """1.6's scenario volume: non-blank lines of ``evals/scenarios.jsonl``; for aau's
    ``evals/scenarios.json``, its scenarios."""
    jsonl = lab / "evals" / "scenarios.jsonl"
    if jsonl.is_file():
        return sum(1 for line in read_text(jsonl).splitlines() if line.strip())
    return len(scenario_ids(lab))


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def result_summary(doc: Any) -> dict[str, Any] | None:
    """``{"mock", "model", "n_scenarios", "n_repeats"}`` of one result document, or ``None`` when
    it is not a JSON object. ``model`` is the model id, or the backend when the model is absent
    (1.6)."""
    if not isinstance(doc, dict):
        return None
    counts = doc.get("aggregate") if isinstance(doc.get("aggregate"), dict) else doc
    backend, model = doc.get("backend"), doc.get("model")
    return {
        "mock": backend == "mock" or model == "mock",
        "model": str(model or backend),
        "n_scenarios": _int(counts.get("n_scenarios")),
        "n_repeats": _int(counts.get("n_repeats")),
    }


@attrs.frozen
class ResultEvidence:
    """The run results of a lab (``results/eval_*.json``): the run-result keys of a gallery
    entry's ``evidence`` (kind ``gallery-report``; the gallery adds ``scenario_count``,
    ``observed_failure_modes`` and ``source_links``), ``model_count`` derived.

    Attributes:
        mock_available: at least one mock result is committed.
        real_result_artifacts: number of real-model results.
        models: sorted distinct model ids of the real results.
        minimum_repeats: smallest ``n_repeats`` of the real results (0 when there are none).
        real_scenario_runs: sum of ``n_scenarios * n_repeats`` over the real results.
    """

    mock_available: bool
    real_result_artifacts: int
    models: tuple[str, ...]
    minimum_repeats: int
    real_scenario_runs: int

    __aau_document_keys__: ClassVar[tuple[str, ...]] = (
        "mock_available", "real_result_artifacts", "models", "model_count", "minimum_repeats",
        "real_scenario_runs")

    @property
    def model_count(self) -> int:
        """How many distinct real models (``len(models)``)."""
        return len(self.models)

    def to_dict(self) -> dict[str, Any]:
        """1.6's ``evidence`` keys, with ``model_count`` (a one-line delegation to
        aau-navigator's converter)."""
        return navigator_converter().unstructure(self)


def result_evidence(lab: Path) -> ResultEvidence:
    """Summarise ``<lab>/results/eval_*.json`` (see module docstring)."""
    mock = False
    real: list[dict[str, Any]] = []
    for path in sorted((lab / "results").glob("eval_*.json")):
        try:
            summary = result_summary(json.loads(read_text(path) or "null"))
        except json.JSONDecodeError:
            continue
        if summary is None:
            continue
        if summary["mock"]:
            mock = True
        else:
            real.append(summary)
    repeats = [r["n_repeats"] for r in real]
    return ResultEvidence(
        mock_available=mock, real_result_artifacts=len(real),
        models=tuple(sorted({r["model"] for r in real})),
        minimum_repeats=min(repeats) if repeats else 0,
        real_scenario_runs=sum(r["n_scenarios"] * r["n_repeats"] for r in real))


def observed_failures(lab: Path) -> int:
    """Numbered ``### N.`` headings of ``FAILURE_MODES.md``; 0 while the file still says
    "generated hypotheses" or holds ``TODO(domain)`` (1.6)."""
    text = read_text(lab / "FAILURE_MODES.md")
    if "generated hypotheses" in text.lower() or "TODO(domain)" in text:
        return 0
    return len(_FAILURE_HEADING.findall(text))


def domain_placeholders(lab: Path) -> list[str]:
    """Lab-relative paths of ``.py/.md/.json/.toml`` files (outside results/, evals/ and
    __pycache__/) that still hold a domain placeholder mark."""
    hits = []
    for path in sorted(lab.rglob("*")):
        rel = path.relative_to(lab)
        if path.suffix not in PLACEHOLDER_SUFFIXES or not path.is_file():
            continue
        if PLACEHOLDER_SKIPPED_FOLDERS.intersection(rel.parts):
            continue
        text = read_text(path)
        if any(mark in text for mark in PLACEHOLDER_MARKS):
            hits.append(rel.as_posix())
    return hits


def source_links(path: Path | None) -> int:
    """Occurrences of ``http://`` or ``https://`` in a source ledger (0 when absent)."""
    return len(_LINK.findall(read_text(path))) if path is not None else 0


def states_human_boundary(lab: Path) -> bool:
    """The lab's README names a protected human authority (1.6's four terms, any case)."""
    text = read_text(lab / "README.md").lower()
    return any(term in text for term in BOUNDARY_TERMS)
