"""aau-baseline: blinded human-baseline studies (the aau-harness 1.6 ``aau-human-baseline-*/1.0``
formats).

Public API::

    build_study(suite, study_id=, title=, purpose=) -> (study, answer_key)
    pack_files(study, answer_key) -> {name: bytes}   write_pack(dest, files) -> Path
    read_pack(path) -> Pack                       a checked pack folder (study, answer key, manifest)
    session_template(study) -> dict               the session participants fill in
    build_report(study, answer_key, sessions, agent_receipt=None) -> (report, HumanMetrics)
    summarize_responses(case_ids, outcomes, answers, sessions) -> (HumanMetrics, [ScenarioSummary])
    Response, HumanMetrics, ScenarioSummary
    check_study / check_answer_key / check_session / check_agent_receipt / check_baseline_report
    ABSTAIN
    baseline_group (the click group behind `aau baseline`)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aau_core._lazy import lazy_exports

# Names load on first use (PEP 562), so `aau --help` stays fast.
_EXPORTS = {
    "ABSTAIN": "._protocol",
    "HumanMetrics": "._summary",
    "Pack": "._pack",
    "Response": "._summary",
    "ScenarioSummary": "._summary",
    "baseline_group": "._cli",
    "build_report": "._report",
    "build_study": "._prepare",
    "pack_files": "._prepare",
    "write_pack": "._prepare",
    "check_agent_receipt": "._documents",
    "check_answer_key": "._documents",
    "check_baseline_report": "._documents",
    "check_session": "._documents",
    "check_study": "._documents",
    "read_pack": "._pack",
    "session_template": "._pack",
    "summarize_responses": "._summary",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from ._cli import baseline_group
    from ._documents import (
        check_agent_receipt,
        check_answer_key,
        check_baseline_report,
        check_session,
        check_study,
    )
    from ._pack import Pack, read_pack, session_template
    from ._prepare import build_study, pack_files, write_pack
    from ._protocol import ABSTAIN
    from ._report import build_report
    from ._summary import HumanMetrics, Response, ScenarioSummary, summarize_responses

__version__ = "2.0.0.dev0"

__all__ = [
    "ABSTAIN",
    "HumanMetrics",
    "Pack",
    "Response",
    "ScenarioSummary",
    "baseline_group",
    "build_report",
    "build_study",
    "check_agent_receipt",
    "check_answer_key",
    "check_baseline_report",
    "check_session",
    "check_study",
    "pack_files",
    "read_pack",
    "session_template",
    "summarize_responses",
    "write_pack",
]
