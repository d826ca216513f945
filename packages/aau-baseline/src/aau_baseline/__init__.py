"""aau-baseline: blinded human-baseline studies (the aau-harness 1.6 ``aau-human-baseline-*/1.0``
formats).

Prepare a participant pack from a suite (``build_study``, ``pack_files``, ``write_study_pack``), read it
back checked (``read_pack``), summarize anonymous sessions into an aggregate-only report
(``build_report``, ``summarize_responses``) and check every document (``check_*``). Each document
kind has a frozen attrs model (``Study``, ``AnswerKey``, ``Session``, ``PackManifest``,
``Report`` and their parts), structured by the package's one cattrs converter (built by
aau-core's document converter factory) only after the document passed its schema.
``baseline_group`` is the click group behind ``aau baseline``.

Every public name is listed once, in ``_EXPORTS`` below (module -> names); ``__all__`` is derived
from it and names load on first use (PEP 562), so ``aau --help`` stays fast.
"""

from __future__ import annotations

from aau_core._lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    "._cli": (
        "baseline_group",
    ),
    "._documents": (
        "check_agent_receipt",
        "check_answer_key",
        "check_baseline_report",
        "check_session",
        "check_study",
    ),
    "._models": (
        "AgentComparison",
        "AnswerKey",
        "HumanProtectionSummary",
        "HumanProtections",
        "ManifestClaims",
        "ManifestFile",
        "PackManifest",
        "Report",
        "ReportPrivacy",
        "ReportSource",
        "Session",
        "SessionKinds",
        "Study",
        "StudyCase",
    ),
    "._pack": (
        "Pack",
        "read_pack",
        "session_template",
    ),
    "._prepare": (
        "build_study",
        "pack_files",
        "write_study_pack",
    ),
    "._protocol": (
        "ABSTAIN",
    ),
    "._report": (
        "build_report",
    ),
    "._summary": (
        "HumanMetrics",
        "Response",
        "ScenarioSummary",
        "summarize_responses",
    ),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__version__ = "2.0.0.dev0"

__getattr__, __dir__ = lazy_exports(
    __name__, {name: module for module, names in _EXPORTS.items() for name in names})
