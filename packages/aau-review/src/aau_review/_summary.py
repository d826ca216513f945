"""Summarizing a pack's labels into a review report (``aau review summarize``).

The human raters' labels make the ratings (units x human raters; ``unsure`` and "not labelled"
are no rating: ``_protocol.UNSURE_RULE``); from them come the agreement statistics
(``_agreement``: percent agreement, Cohen's kappa when there are exactly two human raters,
Fleiss' kappa over the units with all K = ``per_unit`` ratings, Krippendorff's alpha over every
unit rated twice or more) and the consensus (``_consensus``). Each receipt scorer of
``scores.json`` and each model rater is then compared with the consensus (``_validity``): model
judges are shown apart from the humans, never mixed into their agreement or consensus. Every
bootstrap uses the same ``resamples`` and ``seed``, recorded in the report. The report holds
counts and statistics only: no notes, inputs or responses, raters by pseudonym.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from aau_core import InputError
from aau_schemas import sha256_hex

from ._agreement import (
    Estimate,
    category_counts,
    cohen_kappa_estimate,
    fleiss_kappa_estimate,
    krippendorff_alpha_estimate,
    percent_agreement_estimate,
)
from ._consensus import consensus
from ._converter import converter
from ._documents import check_labels, check_notes, load_model, read_document
from ._models import (
    Bootstrap,
    CategoryCount,
    Confusion,
    Consensus,
    HumanAgreement,
    LabelFile,
    Labels,
    ReportSource,
    ReviewReport,
    ScorerComparison,
    Tie,
    VerdictCounts,
)
from ._models import Estimate as EstimateModel
from ._pack import ReviewPack
from ._protocol import BOOTSTRAP_RESAMPLES, FAIL, LABELS_KIND, PASS, UNSURE
from ._validity import scorer_validity

_CODES = {PASS: 0, FAIL: 1}


@attrs.frozen
class LabelsFile:
    """A labels file read and checked against its pack: its path, model and SHA-256."""

    path: Path
    labels: Labels
    sha256: str


def read_labels(paths: Sequence[str | Path], pack: ReviewPack) -> list[LabelsFile]:
    """Read and check every labels file against ``pack`` (``_documents.check_labels``), that
    no rater has two files, and that no note trips the sensitive-data scan
    (``_documents.check_notes``: the report binds each labels file by its SHA-256, so the files
    are what a sceptical reader asks for to recompute it).

    Raises:
        InputError / InvalidDocumentError: one line naming the file and JSON path.
    """
    out: list[LabelsFile] = []
    seen: dict[str, Path] = {}
    for path in map(Path, paths):
        data = path.read_bytes() if path.is_file() else b""
        doc = load_model(LABELS_KIND, read_document(path), str(path))
        check_labels(doc, tasks_sha256=pack.tasks_sha256, manifest=pack.manifest,
                     source=str(path))
        check_notes(doc, str(path))
        name = doc.rater.pseudonym
        if name in seen:
            raise InputError(f"rater {name!r} already labelled in {seen[name]}: a rater has one "
                             "labels file", source=str(path), path="$.rater.pseudonym")
        seen[name] = path
        out.append(LabelsFile(path=path, labels=doc, sha256=sha256_hex(data)))
    return out


NO_PAIR = "no unit with two or more usable ratings (pass or fail; unsure is no rating)"
ONE_CATEGORY = "every usable rating is one category: no disagreement is possible by chance"
CHANCE_ONE = "chance agreement p_e = 1: both gave one and the same category to every unit"
INTERVAL_UNDEFINED = ("interval undefined: the statistic is undefined in more than half of the "
                      "bootstrap resamples (too few units, or resamples with one category)")


def _estimate(est: Estimate, interval: str = "bootstrap", *, empty: str = NO_PAIR,
              undefined: str = ONE_CATEGORY) -> EstimateModel:
    """The report's estimate of ``(value, ci, n)``; ``undefined`` says why the value is
    ``None`` (``empty`` when it is over no unit) or, with a value, why its interval is."""
    value, ci, n = est

    def r(x: float) -> float:
        return round(float(x), 6)

    if value is None:
        return EstimateModel(value=None, ci95=None, n=n, interval=interval,
                             undefined=empty if n == 0 else undefined)
    if ci is None:
        return EstimateModel(value=r(value), ci95=None, n=n, interval=interval,
                             undefined=INTERVAL_UNDEFINED)
    return EstimateModel(value=r(value), ci95=(r(ci[0]), r(ci[1])), n=n, interval=interval)


def _codes(files: list[LabelsFile], index: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(units x raters codes, per-unit unsure counts) of these labels files."""
    ratings = np.full((len(index), len(files)), -1, dtype=np.int64)
    unsure = np.zeros(len(index), dtype=np.int64)
    codes = {PASS: 0, FAIL: 1, UNSURE: -1}
    for j, f in enumerate(files):
        rows = np.array([index[label.unit_id] for label in f.labels.labels], dtype=np.int64)
        said = np.array([codes[label.verdict] for label in f.labels.labels], dtype=np.int64)
        if len(rows):
            ratings[rows, j] = said
            np.add.at(unsure, rows[said == -1], 1)
    return ratings, unsure


def scorer_comparison(name: str, source: str, codes: Any, agreed: Any, resamples: int,
                      seed: int) -> ScorerComparison:
    """The report's entry for one scorer: ``scorer_validity`` of its per-unit codes against the
    consensus codes (0 pass, 1 fail, -1 none), each estimate with its ``interval`` kind and,
    when undefined, why. ``_recompute`` calls it again to check a stored entry."""
    v = scorer_validity(codes, agreed, resamples=resamples, seed=seed)
    return ScorerComparison(
        scorer=name, source=source, units=v.units,
        confusion=Confusion(tp=v.tp, fp=v.fp, fn=v.fn, tn=v.tn),
        accuracy=_estimate(v.accuracy, "wilson", empty=_NOT_COMPARED),
        precision=_estimate(v.precision, "wilson",
                            empty="the scorer said pass on no unit with a consensus"),
        recall=_estimate(v.recall, "wilson", empty="no unit the scorer judged has a pass "
                         "consensus"),
        f1=_estimate(v.f1, empty=_NOT_COMPARED, undefined="tp, fp and fn are all 0 (F1 = 0/0)"),
        cohen_kappa=_estimate(v.kappa, empty=_NOT_COMPARED, undefined=CHANCE_ONE))


_NOT_COMPARED = "no unit has both a pass or fail consensus and the scorer's pass or fail"


def build_review_report(pack: ReviewPack, files: list[LabelsFile], *,
                        resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> ReviewReport:
    """The review report of ``pack`` from checked labels files (``read_labels``).

    Args:
        pack: the checked pack (``read_review_pack``).
        files: its labels files, human and model raters.
        resamples: bootstrap resamples (>= 1); seed: their seed (>= 0).

    Returns:
        the ``ReviewReport`` model (module docstring).

    Raises:
        InputError: no human labels file (agreement and consensus need people).
    """
    units = pack.tasks.units
    index = {u.unit_id: i for i, u in enumerate(units)}
    humans = sorted((f for f in files if f.labels.rater.kind == "human"),
                    key=lambda f: f.labels.rater.pseudonym)
    models = sorted((f for f in files if f.labels.rater.kind == "model"),
                    key=lambda f: f.labels.rater.pseudonym)
    if not humans:
        raise InputError("no labels file of a human rater: agreement and the consensus are "
                         "measured among people (model raters are compared with them)",
                         source=str(files[0].path) if files else str(pack.path))
    ratings, unsure = _codes(humans, index)
    counts = category_counts(ratings, 2)
    opts = {"resamples": resamples, "seed": seed}
    cohen: Estimate = (None, None, 0)
    no_cohen = "Cohen's kappa needs exactly two human raters"
    if len(humans) == 2:
        cohen = cohen_kappa_estimate(ratings[:, 0], ratings[:, 1], 2, **opts)
        no_cohen = "no unit rated pass or fail by both raters"
    m = pack.manifest.per_unit
    agreement = HumanAgreement(
        raters=len(humans),
        percent_agreement=_estimate(percent_agreement_estimate(counts, **opts)),
        cohen_kappa=_estimate(cohen, empty=no_cohen, undefined=CHANCE_ONE),
        fleiss_kappa=_estimate(fleiss_kappa_estimate(counts, m, **opts),
                               empty=f"no unit with all K = {m} ratings usable (pass or fail)",
                               undefined=f"chance agreement p_e = 1: every rating of the units "
                                         f"with all K = {m} ratings is one category"),
        krippendorff_alpha=_estimate(krippendorff_alpha_estimate(counts, **opts)))
    agreed = consensus(ratings, unsure)
    ties = tuple(Tie(units[i].unit_id, units[i].scenario_id, units[i].repeat)
                 for i in np.flatnonzero(agreed.tie))
    comparisons = []
    for name in pack.scores.scorers:
        codes = np.array([_CODES.get(getattr(row.scores, name) or "", -1)
                          for row in pack.scores.units], dtype=np.int64)
        comparisons.append(scorer_comparison(name, "receipt", codes, agreed.codes, resamples, seed))
    for f in models:
        codes, _ = _codes([f], index)
        comparisons.append(scorer_comparison(f.labels.rater.pseudonym, "model", codes[:, 0],
                                       agreed.codes, resamples, seed))
    verdicts = [label.verdict for f in humans for label in f.labels.labels]
    chosen = [c for f in humans for label in f.labels.labels for c in label.categories]
    return ReviewReport(
        source=ReportSource(suite_id=pack.manifest.source.suite_id,
                            suite_sha256=pack.manifest.source.suite_sha256,
                            receipt_sha256=pack.manifest.source.receipt_sha256,
                            tasks_sha256=pack.tasks_sha256,
                            manifest_sha256=pack.manifest_sha256),
        label_files=tuple(LabelFile(rater=f.labels.rater.pseudonym, kind=f.labels.rater.kind,
                                    labels_sha256=f.sha256, label_count=len(f.labels.labels))
                          for f in [*humans, *models]),
        unit_count=len(units),
        labelled_unit_count=int(((ratings >= 0).any(axis=1) | (unsure > 0)).sum()),
        bootstrap=Bootstrap(resamples=resamples, seed=seed),
        human_agreement=agreement,
        consensus=Consensus(pass_=int((agreed.codes == 0).sum()),
                            fail=int((agreed.codes == 1).sum()), unsure=int(agreed.unsure.sum()),
                            unlabelled=int(agreed.unlabelled.sum()), ties=ties),
        verdict_counts=VerdictCounts(pass_=verdicts.count(PASS), fail=verdicts.count(FAIL),
                                     unsure=verdicts.count(UNSURE)),
        categories=tuple(CategoryCount(c.id, chosen.count(c.id))
                         for c in pack.manifest.taxonomy.categories),
        scorers=tuple(comparisons))


def report_document(report: ReviewReport) -> dict[str, Any]:
    """The report as its JSON document (``converter.unstructure``)."""
    return converter.unstructure(report)
