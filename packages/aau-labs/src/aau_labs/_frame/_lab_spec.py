"""The frame every lab shares: ``LabSpec``, policy search, scenario files and lab results.

**Lab config.** A JSON document of the lab's config kind (an aau-schemas kind with a version
field, e.g. ``gate_config_version``), validated by its schema, then turned into the lab's config
object by ``LabSpec.load_config`` (which raises ``InputError`` for rules a schema cannot say).
Every lab config has a top-level integer ``seed``: the seed used when none is given.

**Scenario file** (``write_scenarios`` / ``read_scenarios``), one per lab kind
(``gate-scenarios``, ``contract-scenarios``, ``service-scenarios``)::

    {
      "<version_field of the scenarios kind>": "<its version>",   e.g. "gate_scenarios_version":
                                                                   "aau-gate-scenarios/1.0"
      "lab": "<lab name>",                   e.g. "decision-gate"
      "seed": <int>,                         the seed actually used (config's when none given)
      "n": <int>,                            number of scenarios (== len(scenarios))
      "config_sha256": "sha256:<64 hex>",    aau_schemas.canonical_digest(config document)
      "scenarios": [<LabSpec.scenario_to_dict(s)>, ...]
    }

rendered by ``render_json`` (indent 2, sorted keys, trailing newline), so the same config, ``n``
and seed give byte-identical files.

**Lab result** (``write_lab_result``), kind ``lab-result``, file ``eval_<tag>.json`` beside the
Markdown report ``eval_<tag>.md`` (``render_report``); ``tag`` is ``mock`` for the mock backend,
else the model with ``/`` replaced by ``_`` (aau-harness 1.6's names)::

    {
      "lab_result_version": "aau-lab-result/1.1",
      "lab": "<lab name>", "config_kind": "<kind>", "config_sha256": "sha256:...",
      "scenarios_sha256": "sha256:..." | null,   canonical_digest of the scenarios list run
      "backend": "<kind>", "model": "<model>",
      "headline": {"metric": "<name>", "mean": <4 dp>, "ci95": [<4 dp>, <4 dp>],
                   "ci_method": "wilson" | "bootstrap" | "aau-compat"},
                                  the metric is LabSpec.headline_for(config document)
      "tool_inputs": {"refused": <int>, "recovered": <int>},   (1.1) tool calls over all runs
                                  whose arguments the strict decoder refused / recovered
                                  (each listed with its reason in that run's
                                  detail.tool_input_flags; ``tool_input_counts``)
      "aggregate": {"backend", "model", **EvalAggregate.as_dict()}   an eval-aggregate-v2
                                  document (aau-eval-aggregate/2.1)
    }

The inner ``aggregate`` is exactly aau-harness 1.6's result file shape (``{"backend", "model",
**as_dict()}``) in aau's v2 aggregate format, so ``aau results verify`` reads it on its own.

**Volatile fields** (differ between two runs of the same mock lab, and nothing else does):
``VOLATILE_PROVENANCE`` keys of ``aggregate.provenance``, ``aggregate.p50_latency_s`` and every
``aggregate.results[].latency_s``; in the Markdown report, the p50 latency row.
``strip_volatile`` / ``strip_volatile_markdown`` blank them for byte comparisons.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
from aau_core import (
    InputError,
    atomic_write_text,
    check_document,  # re-exported: aau_core._reports._scenarios and _cli._results import it here
    render_json,
)

ARCHETYPE_ORDER: tuple[str, ...] = (
    "READY",
    "ONE_MISSING",
    "TRANSFER_TRAP",
    "CONJUNCTIVE_GATE",
    "NOTICE_OR_DEADLINE",
    "RECORD_CONFLICT",
    "OUTSIDE_SCOPE",
    "AUTHORITY_TRAP",
)
"""The eight case archetypes of the decision-gate and contract labs, in aau-harness 1.6's order;
scenario ``i`` gets ``ARCHETYPE_ORDER[i % 8]``."""

LAB_RESULT_KIND = "lab-result"
LAB_RESULT_VERSION = "aau-lab-result/1.1"
MAX_CONFIG_BYTES = 2_000_000
"""Largest lab config file read, in bytes."""
MAX_SCENARIOS_BYTES = 50_000_000
"""Largest scenario file read, in bytes."""
VOLATILE_PROVENANCE = ("generated_at", "harness_version", "python", "platform")
"""Provenance keys that change from run to run (time, installed version, interpreter, machine)."""
VOLATILE_MARK = "<volatile>"


@attrs.frozen
class LabSpec:
    """What the ``aau lab`` command needs to know about one lab.

    Attributes:
        name: the lab's name (``"decision-gate"``), a key of ``LAB_MODULES``.
        config_kind: aau-schemas kind of its config documents (``"gate-config"``).
        scenarios_kind: aau-schemas kind of its scenario files (``"gate-scenarios"``).
        headline_metric: the metric the lab is summarised by (``"decision_gate_exact"``) when
            ``headline_of`` is ``None``.
        load_config: schema-valid config document -> config object; raises ``InputError`` for
            what the schema cannot say.
        generate: ``(config, n, seed)`` -> list of scenarios; ``seed=None`` means the config's
            own seed; deterministic.
        scenario_to_dict: scenario -> JSON object (the scenario file's items).
        scenario_from_dict: schema-valid JSON object -> scenario (inverse of
            ``scenario_to_dict``); raises ``InputError`` with a path relative to the item
            (``"$.case_text"``) for what the schema cannot say.
        evaluate: ``(config, scenarios, *, backend_kind="mock", model=None, repeats=3,
            progress=None)`` -> ``EvalAggregate``.
        default_n: scenarios generated when ``--n`` is not given.
        headline_of: for a lab whose headline depends on the config (the contract lab: its
            family's metric), config object or document -> the headline metric's name;
            ``None``: always ``headline_metric``. Read it through ``headline_for``.
    """

    name: str
    config_kind: str
    scenarios_kind: str
    headline_metric: str
    load_config: Callable[[dict[str, Any]], Any]
    generate: Callable[[Any, int, int | None], list[Any]]
    scenario_to_dict: Callable[[Any], dict[str, Any]]
    scenario_from_dict: Callable[[dict[str, Any]], Any]
    evaluate: Callable[..., Any]
    default_n: int = 32
    headline_of: Callable[[Any], str] | None = None

    def headline_for(self, config: Any) -> str:
        """The headline metric of a run of ``config`` (a loaded config or its document):
        ``headline_of(config)`` when the lab has one, else ``headline_metric``."""
        if self.headline_of is None:
            return self.headline_metric
        return self.headline_of(config)


def lab_scenario_id(prefix: str, index: int) -> str:
    """The id of a lab's ``index``-th generated scenario: ``"<prefix>-<index:03d>"``."""
    return f"{prefix}-{index:03d}"


# ---------------------------------------------------------------- policy search

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def keyword_search(sections: Sequence[dict[str, Any]], query: str,
                   top_k: int = 4) -> list[dict[str, Any]]:
    """Rank policy sections by keyword overlap with ``query`` (the labs' policy search tool).

    A term is a run of ASCII letters and digits in the lower-cased query (``_`` and punctuation
    separate terms) of at least three characters; a section's score is the number of distinct
    query terms that occur as whole words in its ``id``, ``title`` and ``text``. Sections with a
    positive score are returned best first, ties in the order given (stable), at most
    ``top_k``. When nothing matches, the first section alone is returned (so the agent always
    reads the policy's preamble), as aau-harness 1.6 did.

    Unlike 1.6, which counted a term when it occurred anywhere inside the text (``"act"`` matched
    ``"action"``), terms match whole words only.

    Args:
        sections: policy sections, dicts with (some of) ``id``, ``title``, ``text`` strings.
        query: free text.
        top_k: most sections returned (>= 1).

    Returns:
        the chosen sections (the same dict objects); empty only when ``sections`` is.
    """
    if top_k < 1:
        raise ValueError("top_k must be >= 1")
    if not sections:
        return []
    terms = {w for w in _words(query) if len(w) > 2}
    scored = []
    for index, section in enumerate(sections):
        words = set(_words(" ".join(str(section.get(k, "")) for k in ("id", "title", "text"))))
        scored.append((-len(terms & words), index))
    scored.sort()
    hits = [sections[i] for score, i in scored[:top_k] if score < 0]
    return hits or [sections[0]]


# ---------------------------------------------------------------- documents

def digest(doc: Any) -> str:
    """``"sha256:<hex>"`` of the RFC 8785 canonical JSON of ``doc`` (``canonical_digest``)."""
    import aau_schemas

    return aau_schemas.canonical_digest(doc)


def load_lab_config(path: str | os.PathLike[str]) -> tuple[LabSpec, dict[str, Any], Any]:
    """Read a lab config file, pick its lab from its version field, validate and load it.

    Returns:
        ``(spec, config_doc, config)``: the lab, the parsed document, ``spec.load_config(doc)``.

    Raises:
        InputError: unreadable or invalid JSON, no lab config version field, a schema
            violation, or a rule ``load_config`` checks; always naming the file.
    """
    import aau_schemas
    from aau_core import UsageError, read_json_file

    from ._registry import available_labs, lab_for_config_kind

    source = str(path)
    doc = read_json_file(path, max_bytes=MAX_CONFIG_BYTES)
    kind = aau_schemas.detect_kind(doc)
    try:
        spec = lab_for_config_kind(kind)
    except UsageError:
        config_kinds = [lab.config_kind for lab in available_labs()]
        mismatch = aau_schemas.kind_mismatch(doc, config_kinds)
        if mismatch is not None:
            raise InputError(f"not a lab config: {mismatch[1]}", source=source,
                             path=mismatch[0]) from None
        fields = ", ".join(f"{aau_schemas.kind_info(k).version_field} ({k})"
                           for k in config_kinds)
        raise InputError(f"not a lab config: it has none of the lab config version fields "
                         f"{fields}", source=source, path="$") from None
    check_document(spec.config_kind, doc, source)
    try:
        config = spec.load_config(doc)
    except InputError as exc:
        if exc.source is None:
            raise InputError(exc.message, source=source, path=exc.path) from None
        raise
    return spec, doc, config


def _version(kind: str) -> tuple[str, str]:
    import aau_schemas

    info = aau_schemas.kind_info(kind)
    if not info.version_field or not info.version:
        raise ValueError(f"kind {kind!r} has no version field")
    return info.version_field, info.version


def scenarios_document(spec: LabSpec, config_doc: dict[str, Any], scenarios: Sequence[Any],
                       seed: int | None, n: int) -> dict[str, Any]:
    """The scenario-file document (module docstring) for ``scenarios``.

    Args:
        spec: the lab.
        config_doc: the config document the scenarios were generated from.
        scenarios: the lab's scenario objects.
        seed: the seed used; ``None`` means the config's ``seed``.
        n: the number requested; must equal ``len(scenarios)``.

    Raises:
        ValueError: ``n != len(scenarios)``.
    """
    if n != len(scenarios):
        raise ValueError(f"n={n} but {len(scenarios)} scenarios")
    field, version = _version(spec.scenarios_kind)
    return {
        field: version,
        "lab": spec.name,
        "seed": config_doc["seed"] if seed is None else seed,
        "n": n,
        "config_sha256": digest(config_doc),
        "scenarios": [spec.scenario_to_dict(s) for s in scenarios],
    }


def write_scenarios(path: str | os.PathLike[str], spec: LabSpec, config_doc: dict[str, Any],
                    scenarios: Sequence[Any], seed: int | None, n: int, *,
                    force: bool = False) -> Path:
    """Validate and atomically write a scenario file (module docstring).

    Returns:
        the path written.

    Raises:
        OutputError: the file exists and ``force`` is false, or cannot be written.
        InputError: the document breaks the scenarios schema (a lab bug; nothing is written).
    """
    from aau_core._files._writing import check_writable  # internal to the monorepo

    check_writable(path, force=force)
    doc = scenarios_document(spec, config_doc, scenarios, seed, n)
    check_document(spec.scenarios_kind, doc, str(path))
    return atomic_write_text(path, render_json(doc), force=force)


def read_scenarios(path: str | os.PathLike[str], spec: LabSpec, *,
                   config_doc: dict[str, Any] | None = None) -> list[Any]:
    """Read a scenario file of lab ``spec``: validated, every error one line naming the file.

    Args:
        path: the scenario file.
        spec: the lab it must belong to.
        config_doc: when given, the file's ``config_sha256`` must be this config's digest.

    Returns:
        the scenarios (``spec.scenario_from_dict`` of each item).

    Raises:
        InputError: unreadable, invalid JSON, a schema violation, another lab's file, ``n``
            not the number of scenarios, or (with ``config_doc``) generated from another config.
    """
    from aau_core import read_json_file

    source = str(path)
    doc = read_json_file(path, max_bytes=MAX_SCENARIOS_BYTES)
    field, _ = _version(spec.scenarios_kind)
    if isinstance(doc, dict) and doc.get("lab") not in (None, spec.name):
        raise InputError(f"a scenario file of lab {doc['lab']!r}, not {spec.name!r}",
                         source=source, path="$.lab")
    check_document(spec.scenarios_kind, doc, source)
    if doc["n"] != len(doc["scenarios"]):
        raise InputError(f"n is {doc['n']} but the file holds {len(doc['scenarios'])} scenarios",
                         source=source, path="$.n")
    if config_doc is not None and doc["config_sha256"] != digest(config_doc):
        raise InputError("generated from another config (config_sha256 differs); regenerate "
                         "with aau lab generate", source=source, path="$.config_sha256")
    out = []
    for index, item in enumerate(doc["scenarios"]):
        try:
            out.append(spec.scenario_from_dict(item))
        except InputError as exc:  # its path is relative to the item: "$.case_text"
            inner = (exc.path or "$")[1:]
            raise InputError(exc.message, source=source,
                             path=f"$.scenarios[{index}]{inner}") from None
    return out


# ---------------------------------------------------------------- lab results

def result_tag(backend_kind: str, model: str | None) -> str:
    """File tag of a result: ``"mock"`` for the mock backend, else the model with ``/`` -> ``_``
    (aau-harness 1.6's rule, kept so 1.6's file names stay the same; every other character,
    dots included, is kept: ``qwen/qwen3.6-27b`` -> ``qwen_qwen3.6-27b``)."""
    if backend_kind == "mock" or not model:
        return backend_kind
    return model.replace("/", "_")


def lab_result_paths(out_dir: str | os.PathLike[str], backend_kind: str,
                     model: str | None) -> tuple[Path, Path]:
    """``(json_path, md_path)`` of a lab result in ``out_dir``: ``eval_<tag>.json`` and
    ``eval_<tag>.md``, ``tag`` being ``result_tag(backend_kind, model)`` (``result_file_paths``:
    a dot in the model id is kept, not read as a suffix)."""
    from ._bench_run import result_file_paths

    return result_file_paths(out_dir, f"eval_{result_tag(backend_kind, model)}")


def tool_input_counts(results: Sequence[Any]) -> dict[str, int]:
    """``{"refused": N, "recovered": M}``: the tool calls, over every run's
    ``detail.tool_input_flags`` (``_lab_run.tool_input_flags``), whose arguments the decoder
    refused (``input_error``) or read with its one recovery (``input_recovered``)."""
    flags = [f for r in results for f in (r.detail.get("tool_input_flags") or [])]
    return {"refused": sum(1 for f in flags if "input_error" in f),
            "recovered": sum(1 for f in flags if "input_recovered" in f)}


def tool_input_text(counts: dict[str, int]) -> str:
    """The summary line's and report's words for ``tool_input_counts``; ``""`` when both are 0:
    ``"3 tool call(s) with arguments refused by the decoder, 1 recovered (detail.tool_input_flags)"``."""
    if not counts["refused"] and not counts["recovered"]:
        return ""
    return (f"{counts['refused']} tool call(s) with arguments refused by the decoder, "
            f"{counts['recovered']} recovered (detail.tool_input_flags)")


def lab_result_document(spec: LabSpec, agg: Any, backend_kind: str, model: str,
                        config_doc: dict[str, Any], *,
                        scenarios_sha256: str | None = None) -> dict[str, Any]:
    """The ``lab-result`` document (module docstring) of an ``EvalAggregate``; its headline is
    ``spec.headline_for(config_doc)``.

    Raises:
        ValueError: the headline metric is not among the aggregate's metrics.
    """
    headline = spec.headline_for(config_doc)
    if headline not in agg.metric_means:
        raise ValueError(f"headline metric {headline!r} missing from the aggregate")
    aggregate = {"backend": backend_kind, "model": model, **agg.as_dict()}
    return {
        "lab_result_version": LAB_RESULT_VERSION,
        "lab": spec.name,
        "config_kind": spec.config_kind,
        "config_sha256": digest(config_doc),
        "scenarios_sha256": scenarios_sha256,
        "backend": backend_kind,
        "model": model,
        "headline": {
            "metric": headline,
            "mean": aggregate["metric_means"][headline],
            "ci95": aggregate["metric_ci95"][headline],
            "ci_method": aggregate["metric_ci_method"][headline],
        },
        "tool_inputs": tool_input_counts(agg.results),
        "aggregate": aggregate,
    }


def write_lab_result(out_dir: str | os.PathLike[str], spec: LabSpec, agg: Any,
                     backend_kind: str, model: str | None, config_doc: dict[str, Any], *,
                     scenarios_sha256: str | None = None,
                     force: bool = False) -> tuple[Path, Path]:
    """Write ``eval_<tag>.json`` (kind ``lab-result``, validated) and ``eval_<tag>.md``.

    The headline recorded is ``spec.headline_for(config_doc)`` (for the contract lab, the
    config family's metric).

    Both files are checked writable before either is written, and each is written atomically.

    Args:
        out_dir: the folder (created if missing).
        spec: the lab.
        agg: the ``EvalAggregate`` of the run.
        backend_kind: ``"mock"`` or a ``make_backend`` kind.
        model: the model name (``None`` for the mock: recorded as ``"mock"``).
        config_doc: the config document run.
        scenarios_sha256: ``digest`` of the scenarios list run, if known.
        force: replace existing files.

    Returns:
        ``(json_path, md_path)``.

    Raises:
        OutputError: a file exists (without ``force``) or cannot be written.
        InputError: the document breaks the ``lab-result`` schema (a lab bug).
    """
    from ._bench_run import write_result_files

    shown = "mock" if backend_kind == "mock" else (model or backend_kind)
    json_path, md_path = lab_result_paths(out_dir, backend_kind, shown)
    return write_result_files(
        json_path, md_path, kind=LAB_RESULT_KIND,
        document=lambda: lab_result_document(spec, agg, backend_kind, shown, config_doc,
                                             scenarios_sha256=scenarios_sha256),
        report=lambda: _report(agg, shown), force=force)


def _report(agg: Any, model: str) -> str:
    """``render_report``'s page, plus a line naming the tool calls the decoder refused or
    recovered, when there are any."""
    from aau_core import render_report

    page = render_report(agg, model=model)
    flagged = tool_input_text(tool_input_counts(agg.results))
    return f"{page.rstrip()}\n\nTool inputs: {flagged}.\n" if flagged else page


def strip_volatile(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of a ``lab-result`` document with its volatile fields blanked (module docstring):
    provenance ``VOLATILE_PROVENANCE`` values -> ``"<volatile>"``, latencies -> ``0``."""
    import copy

    out = copy.deepcopy(doc)
    agg = out.get("aggregate", {})
    prov = agg.get("provenance", {})
    for key in VOLATILE_PROVENANCE:
        if key in prov:
            prov[key] = VOLATILE_MARK
    if "p50_latency_s" in agg:
        agg["p50_latency_s"] = 0
    for row in agg.get("results", []):
        row["latency_s"] = 0
    return out


_P50_ROW = re.compile(r"^\| p50 latency \(s\) \| [^|]* \|", re.MULTILINE)


def strip_volatile_markdown(text: str) -> str:
    """``text`` (a ``render_report`` page) with the p50 latency value blanked."""
    return _P50_ROW.sub(f"| p50 latency (s) | {VOLATILE_MARK} |", text)


__all__ = [
    "ARCHETYPE_ORDER", "LAB_RESULT_KIND", "LAB_RESULT_VERSION", "LabSpec", "check_document",
    "digest", "keyword_search", "lab_result_document", "lab_result_paths", "lab_scenario_id",
    "load_lab_config", "read_scenarios", "result_tag", "tool_input_counts", "tool_input_text", "scenarios_document", "strip_volatile", "strip_volatile_markdown",
    "write_lab_result", "write_scenarios",
]
