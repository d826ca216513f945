"""The review documents (``schemas/review/v1``) as frozen attrs models.

One class per object of each schema, named for it; field names are the JSON keys, and a
document's fixed values (versions, the taxonomy's verdicts, the manifest's claims, the report's
privacy block and unsure rule) are the fields' defaults. ``MODELS`` maps each schema kind to its
class; ``tests/test_models.py`` keeps every class equal to its schema and round-trips every valid
example. Convert with the package's one converter (``_converter.converter``): ``structure`` only
after the schema check, ``unstructure`` to write.
"""

from __future__ import annotations

from typing import Any

import attrs
from aau_core._files._converter import JSON_KEY, optional_field  # internal to the monorepo

from ._protocol import (
    LABELS_VERSION,
    MANIFEST_VERSION,
    REPORT_VERSION,
    SCORES_VERSION,
    TASKS_VERSION,
    UNSURE_RULE,
    VERDICTS,
)

# ---- tasks.json and scores.json ---------------------------------------------------------------


@attrs.frozen
class Category:
    """A declared failure category: a slug ``id`` and what it means (<= 200 characters)."""

    id: str
    description: str


@attrs.frozen
class Taxonomy:
    """What a rater may answer: the three verdicts (fixed) and the declared categories."""

    categories: tuple[Category, ...] = ()
    verdicts: tuple[str, ...] = VERDICTS


@attrs.frozen
class Scores:
    """One unit's automatic verdicts (``"pass"``/``"fail"``); a scorer that does not apply is
    ``None`` (absent)."""

    exact: str | None = optional_field()
    outcome_exact: str | None = optional_field()
    tool_calls_match: str | None = optional_field()


@attrs.frozen(kw_only=True)
class Unit:
    """One unit to label: pack-local ``unit_id`` (``u0001``), the scenario and 0-based repeat,
    the case input and the agent's normalised response (open objects), the agent-class failure
    code of a refused answer or ``None``; unblinded packs add ``expected`` and ``scores``."""

    unit_id: str
    scenario_id: str
    repeat: int
    input: dict[str, Any]
    response: dict[str, Any]
    error: str | None
    expected: dict[str, Any] | None = optional_field()
    scores: Scores | None = optional_field()


@attrs.frozen(kw_only=True)
class Tasks:
    """``aau-review-tasks/1.0`` (``tasks.json``): the units raters see and the taxonomy."""

    suite_id: str
    blinded: bool
    taxonomy: Taxonomy
    units: tuple[Unit, ...]
    tasks_version: str = TASKS_VERSION


@attrs.frozen
class UnitScores:
    """A row of ``scores.json``: a unit's automatic verdicts."""

    unit_id: str
    scores: Scores


@attrs.frozen(kw_only=True)
class ScoresDocument:
    """``aau-review-scores/1.0`` (``scores.json``): every unit's automatic verdicts, kept by the
    organiser."""

    scorers: tuple[str, ...]
    units: tuple[UnitScores, ...]
    scores_version: str = SCORES_VERSION


# ---- manifest.json ----------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Source:
    """What a pack was made from: the suite id and SHA-256 (the receipt's ``suite_sha256``) and
    the SHA-256 of the public and private receipt files' bytes."""

    suite_id: str
    suite_sha256: str
    receipt_sha256: str
    private_receipt_sha256: str


@attrs.frozen
class RaterAssignment:
    """A rater's pseudonym and the units it labels, in its own seeded order."""

    rater: str
    units: tuple[str, ...]


@attrs.frozen
class SensitiveContent:
    """The suite's true ``contains_*`` sharing flags and whether ``--allow-sensitive`` accepted
    them."""

    declared: tuple[str, ...] = ()
    allowed: bool = False


@attrs.frozen
class ManifestFile:
    """A manifest row: pack-relative path, byte length, SHA-256 of the exact bytes."""

    path: str
    bytes: int
    sha256: str


@attrs.frozen
class ManifestClaims:
    """The manifest's fixed claims: byte integrity only."""

    byte_integrity_only: bool = True
    rater_identity_verified: bool = False
    labels_included: bool = False


@attrs.frozen(kw_only=True)
class Manifest:
    """``aau-review-manifest/1.0`` (``manifest.json``): source, design (sample, seed, K, raters
    and their orders, taxonomy, blinded), the sensitive-content declaration and the files."""

    source: Source
    unit_count: int
    excluded_not_measured: int
    sample_size: int | None
    seed: int
    per_unit: int
    raters: tuple[RaterAssignment, ...]
    taxonomy: Taxonomy
    blinded: bool
    sensitive_content: SensitiveContent
    files: tuple[ManifestFile, ...]
    claims: ManifestClaims = ManifestClaims()
    hash_algorithm: str = "sha256"
    manifest_version: str = MANIFEST_VERSION


# ---- labels -----------------------------------------------------------------------------------


@attrs.frozen
class JudgeError:
    """A unit a model judge was asked and could not label: ``error`` is ``"provider"`` (the call
    failed) or ``"reply"`` (the reply could not be read as a label); ``message`` says why."""

    unit_id: str
    error: str
    message: str


@attrs.frozen
class ModelRater:
    """A model rater: the model served (provider:model), its prompt file's SHA-256, settings;
    from ``aau review judge`` also its cost in USD (when priced) and the units it could not
    label."""

    served: str
    prompt_sha256: str
    settings: dict[str, Any]
    cost_usd: float | None = optional_field()
    judge_errors: tuple[JudgeError, ...] | None = optional_field()


@attrs.frozen
class Rater:
    """Who labelled: a pseudonym, ``human`` or ``model`` (then ``model`` is set)."""

    pseudonym: str
    kind: str
    model: ModelRater | None = optional_field()


@attrs.frozen(kw_only=True)
class Label:
    """One unit's label: verdict, category ids, optional note (<= 500 characters), seconds spent
    (>= 0) and the UTC timestamp it was made (kept as its string)."""

    unit_id: str
    verdict: str
    categories: tuple[str, ...]
    time_spent_s: float
    labelled_at: str
    note: str | None = optional_field()


@attrs.frozen(kw_only=True)
class Labels:
    """``aau-review-labels/1.0``: one rater's labels for the pack whose tasks.json has SHA-256
    ``tasks_sha256``."""

    tasks_sha256: str
    rater: Rater
    labels: tuple[Label, ...]
    labels_version: str = LABELS_VERSION


# ---- the report -------------------------------------------------------------------------------


@attrs.frozen
class Estimate:
    """A statistic, its 95 % interval (``None`` with the value when undefined, or when the
    statistic is undefined in most bootstrap resamples), the units (or denominator) ``n`` it is
    over, the interval method (``"bootstrap"`` or ``"wilson"``) and, when the value or interval
    is ``None``, why (``undefined``)."""

    value: float | None
    ci95: tuple[float, float] | None
    n: int
    interval: str
    undefined: str | None = optional_field()


@attrs.frozen(kw_only=True)
class ReportSource:
    """The report's bindings: suite, public receipt, the pack's tasks.json and manifest."""

    suite_id: str
    suite_sha256: str
    receipt_sha256: str
    tasks_sha256: str
    manifest_sha256: str


@attrs.frozen(kw_only=True)
class LabelFile:
    """A labels file read: rater pseudonym and kind, SHA-256 of its bytes, labels in it."""

    rater: str
    kind: str
    labels_sha256: str
    label_count: int


@attrs.frozen(kw_only=True)
class Bootstrap:
    """The bootstrap behind every non-Wilson interval: percentile, over units, seeded."""

    resamples: int
    seed: int
    method: str = "percentile"
    over: str = "units"
    confidence: float = 0.95


@attrs.frozen(kw_only=True)
class HumanAgreement:
    """Agreement among the human raters; Cohen's kappa only for exactly two raters."""

    raters: int
    percent_agreement: Estimate
    cohen_kappa: Estimate
    fleiss_kappa: Estimate
    krippendorff_alpha: Estimate


@attrs.frozen
class Tie:
    """A unit with as many pass as fail human labels, to adjudicate."""

    unit_id: str
    scenario_id: str
    repeat: int


@attrs.frozen(kw_only=True)
class Consensus:
    """Units by consensus: pass, fail, all-unsure, unlabelled, and the ties."""

    pass_: int = attrs.field(metadata={JSON_KEY: "pass"})
    fail: int
    unsure: int
    unlabelled: int
    ties: tuple[Tie, ...]


@attrs.frozen(kw_only=True)
class VerdictCounts:
    """Human labels by verdict."""

    pass_: int = attrs.field(metadata={JSON_KEY: "pass"})
    fail: int
    unsure: int


@attrs.frozen
class CategoryCount:
    """How many human labels chose a declared category."""

    id: str
    count: int


@attrs.frozen
class Confusion:
    """Scorer against consensus, pass the positive class."""

    tp: int
    fp: int
    fn: int
    tn: int


@attrs.frozen(kw_only=True)
class ScorerComparison:
    """One scorer (``source`` ``receipt``) or model rater (``model``) against the consensus."""

    scorer: str
    source: str
    units: int
    confusion: Confusion
    accuracy: Estimate
    precision: Estimate
    recall: Estimate
    f1: Estimate
    cohen_kappa: Estimate


@attrs.frozen
class ReportPrivacy:
    """The report's fixed privacy block: aggregates only."""

    aggregates_only: bool = True
    notes_included: bool = False
    inputs_included: bool = False
    rater_ids: str = "pseudonyms"


@attrs.frozen(kw_only=True)
class ReviewReport:
    """``aau-review-report/1.0``: what ``aau review summarize`` writes (aggregates only)."""

    source: ReportSource
    label_files: tuple[LabelFile, ...]
    unit_count: int
    labelled_unit_count: int
    bootstrap: Bootstrap
    human_agreement: HumanAgreement
    consensus: Consensus
    verdict_counts: VerdictCounts
    categories: tuple[CategoryCount, ...]
    scorers: tuple[ScorerComparison, ...]
    privacy: ReportPrivacy = ReportPrivacy()
    unsure_rule: str = UNSURE_RULE
    report_version: str = REPORT_VERSION


MODELS: dict[str, type] = {
    "review-manifest": Manifest,
    "review-tasks": Tasks,
    "review-scores": ScoresDocument,
    "review-labels": Labels,
    "review-report": ReviewReport,
}
"""Schema kind -> model class."""
