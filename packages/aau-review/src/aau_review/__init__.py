"""aau-review: review labels, and whether aau's automatic scorers can be trusted.

Prepare a blinded review pack from a run's private receipt (``build_pack``,
``write_review_pack``), read it back checked (``read_review_pack``), read raters' labels against
it (``read_labels``), have a model judge label a pack (``judge_pack``, its prompt
``read_prompt`` and reply reader ``parse_reply``; ``MockJudgeBackend`` offline) and summarize
them into an aggregate-only report (``build_review_report``): agreement among people
(``percent_agreement_estimate``, ``cohen_kappa_estimate``, ``fleiss_kappa_estimate``,
``krippendorff_alpha_estimate``, each with a percentile bootstrap interval over units), the
consensus per unit (``consensus``), and each automatic scorer against it (``scorer_validity``).
A report is checked (``check_review_report``: each scorer's numbers recomputed from its
confusion matrix) and recomputed whole from its pack and labels (``recheck_review_report``).
Each document kind has a frozen attrs model (``Manifest``, ``Tasks``, ``ScoresDocument``,
``Labels``, ``ReviewReport`` and their parts), structured by the package's one cattrs converter
only after its schema check.
Label Studio interop: a rater's units as Label Studio tasks and a labelling config
(``labelstudio_tasks``, ``labelstudio_config``), and Label Studio's JSON export read back as
that rater's labels (``labels_from_labelstudio``, ``LabelStudioImport``).
A human rater labels a pack in a local web page (``open_session``, ``make_labelling_server``,
``serve_labelling``: ``aau review serve``), each label saved atomically as it is made.
``review_group`` is the click group behind ``aau review``.

Every public name is listed once, in ``_EXPORTS`` below (module -> names); ``__all__`` is derived
from it and names load on first use (PEP 562), so ``aau --help`` stays fast.
"""

from __future__ import annotations

from aau_core._lazy import lazy_exports  # internal to the monorepo

_EXPORTS: dict[str, tuple[str, ...]] = {
    "._agreement": (
        "category_counts",
        "cohen_kappa_estimate",
        "fleiss_kappa_estimate",
        "krippendorff_alpha_estimate",
        "percent_agreement_estimate",
    ),
    "._bootstrap": (
        "bootstrap_interval",
    ),
    "._cli": (
        "review_group",
    ),
    "._consensus": (
        "ConsensusResult",
        "consensus",
    ),
    "._documents": (
        "check_labels",
        "check_manifest",
        "check_notes",
        "check_review_report",
        "check_scores",
        "check_tasks",
    ),
    "._judge": (
        "JudgeOutcome",
        "default_pseudonym",
        "judge_pack",
    ),
    "._judge_mock": (
        "MockJudgeBackend",
    ),
    "._judge_reply": (
        "JudgePrompt",
        "JudgeVerdict",
        "ReplyError",
        "judge_message",
        "parse_reply",
        "read_prompt",
    ),
    "._labelling": (
        "LabelRefused",
        "LabellingSession",
        "default_labels_path",
        "open_session",
    ),
    "._labelstudio_export": (
        "labelstudio_config",
        "labelstudio_tasks",
    ),
    "._labelstudio_import": (
        "LabelStudioImport",
        "labels_from_labelstudio",
    ),
    "._markdown": (
        "report_markdown",
    ),
    "._models": (
        "Category",
        "Estimate",
        "JudgeError",
        "Label",
        "Labels",
        "Manifest",
        "Rater",
        "ReviewReport",
        "ScoresDocument",
        "Tasks",
        "Taxonomy",
        "Unit",
    ),
    "._pack": (
        "ReviewPack",
        "read_review_pack",
    ),
    "._prepare": (
        "DEFAULT_CATEGORIES",
        "build_pack",
        "parse_raters",
        "read_categories",
        "write_review_pack",
    ),
    "._recompute": (
        "recheck_review_report",
    ),
    "._serve": (
        "make_labelling_server",
        "serve_labelling",
    ),
    "._summary": (
        "LabelsFile",
        "build_review_report",
        "read_labels",
    ),
    "._validity": (
        "Validity",
        "scorer_validity",
    ),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__version__ = "2.0.0.dev0"

__getattr__, __dir__ = lazy_exports(
    __name__, {name: module for module, names in _EXPORTS.items() for name in names})
