"""The review-report gate of a release (policy 1.1 ``review_requirements``).

A release policy may require, for a suite, a review report (``aau review summarize``) in which
a scorer (``tool_calls_match``, ``exact``, ``outcome_exact``, or a model judge by pseudonym)
agrees with the human consensus at Cohen's kappa >= ``minimum_kappa`` over at least
``minimum_units`` units. The rules, for each review requirement whose suite ran:

- ``REVIEW_REPORT_MISSING:<suite>``: no report given for the suite (``source.suite_id``);
- ``REVIEW_REPORT_OTHER_SUITE:<suite>``: the report reviews a receipt of other suite bytes
  (``source.suite_sha256`` is not the ``suite_sha256`` of the receipt the release ran). The
  receipts of a release are made by ``aau release assess`` itself, so no report can bind their
  bytes; it binds a receipt of the same suite, whose SHA-256 the decision records;
- ``REVIEW_SCORER_MISSING:<suite>:<scorer>``: the report compares no such scorer;
- ``REVIEW_UNITS_BELOW_MINIMUM:<suite>:<scorer>``: fewer units than ``minimum_units``;
- ``REVIEW_KAPPA_BELOW_BAR:<suite>:<scorer>``: the kappa is undefined, has no interval, or its
  estimate **or the low bound of its 95 % bootstrap interval** is under ``minimum_kappa``.

Why the low bound: a kappa of 0.7 from 20 units has an interval as wide as [0.3, 0.95]; "the
scorer agrees with people at 0.6 or better" is only defensible when the data rule out the
values under 0.6 at the report's confidence, so the bar applies to the interval's low bound (a
small review cannot pass a high bar by luck). The estimate must clear it too, because a
percentile bootstrap interval need not contain its estimate (``aau_review._bootstrap``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._release_models import ReleasePolicy, ReviewEvidenceRow


def _scorer_row(report: Mapping[str, Any], scorer: str) -> Mapping[str, Any] | None:
    rows = [s for s in report["scorers"] if s["scorer"] == scorer]
    rows.sort(key=lambda s: s["source"] != "receipt")  # a receipt scorer before a model rater
    return rows[0] if rows else None


def review_gate(policy: ReleasePolicy, receipts: Mapping[str, Mapping[str, Any]],
                reports: Mapping[str, tuple[str, Mapping[str, Any]]],
                ) -> tuple[list[ReviewEvidenceRow], list[str]]:
    """The review evidence rows and blockers of ``policy``'s review requirements.

    Args:
        policy: the checked policy (a 1.0 policy has no review requirements: ``([], [])``).
        receipts: suite_id -> the receipt the release ran (only those suites are checked).
        reports: suite_id -> ``(SHA-256 of the report file's bytes, the checked report
            document)``, the reports given to the assessment by the suite they review.

    Returns:
        ``(rows, blockers)``: rows sorted by (suite_id, scorer); blocker codes as in the
        module docstring.
    """
    rows: list[ReviewEvidenceRow] = []
    blockers: list[str] = []
    for need in policy.review_requirements or ():
        suite_id, scorer = need.suite_id, need.scorer
        receipt = receipts.get(suite_id)
        if receipt is None:
            continue  # the suite did not run: its rates block already (SUITE_NOT_RUN) or nothing
        sha, report = reports.get(suite_id, (None, None))
        found = None
        if report is None:
            blockers.append(f"REVIEW_REPORT_MISSING:{suite_id}")
        elif report["source"]["suite_sha256"] != receipt["suite_sha256"]:
            blockers.append(f"REVIEW_REPORT_OTHER_SUITE:{suite_id}")
        else:
            found = _scorer_row(report, scorer)
            if found is None:
                blockers.append(f"REVIEW_SCORER_MISSING:{suite_id}:{scorer}")
        kappa = found["cohen_kappa"] if found else None
        value = kappa["value"] if kappa else None
        ci = tuple(kappa["ci95"]) if kappa and kappa["ci95"] is not None else None
        units = found["units"] if found else 0
        kappa_ok = value is not None and ci is not None and min(value, ci[0]) >= need.minimum_kappa
        if found is not None:
            if units < need.minimum_units:
                blockers.append(f"REVIEW_UNITS_BELOW_MINIMUM:{suite_id}:{scorer}")
            if not kappa_ok:
                blockers.append(f"REVIEW_KAPPA_BELOW_BAR:{suite_id}:{scorer}")
        rows.append(ReviewEvidenceRow(
            suite_id=suite_id, scorer=scorer, report_sha256=sha,
            receipt_sha256=report["source"]["receipt_sha256"] if report else None,
            cohen_kappa=value, kappa_ci95=ci, units=units,  # type: ignore[arg-type]
            minimum_kappa=need.minimum_kappa, minimum_units=need.minimum_units,
            passes=found is not None and kappa_ok and units >= need.minimum_units))
    rows.sort(key=lambda r: (r.suite_id, r.scorer))
    return rows, blockers


def review_reason_lines(rows: list[ReviewEvidenceRow] | tuple[ReviewEvidenceRow, ...],
                        reason_codes: tuple[str, ...]) -> list[str]:
    """One line per failed review row, for ``aau release assess``'s stderr: what blocked, with
    the kappa and its interval (``review: suite S, scorer tool_calls_match: Cohen's kappa 0.520
    [0.310, 0.700] over 40 unit(s); the bar is 0.6 on the interval's low bound, 30 units``)."""
    lines = []
    for row in rows:
        if row.passes:
            continue
        head = f"review: suite {row.suite_id}, scorer {row.scorer}: "
        if f"REVIEW_REPORT_MISSING:{row.suite_id}" in reason_codes:
            lines.append(head + "no review report for this suite (--review-report FILE)")
        elif f"REVIEW_REPORT_OTHER_SUITE:{row.suite_id}" in reason_codes:
            lines.append(head + "the review report reviews a receipt of other suite bytes than "
                         "the suite this release ran")
        elif f"REVIEW_SCORER_MISSING:{row.suite_id}:{row.scorer}" in reason_codes:
            lines.append(head + "the review report does not compare this scorer with people")
        else:
            kappa = ("undefined" if row.cohen_kappa is None else f"{row.cohen_kappa:.3f}"
                     + ("" if row.kappa_ci95 is None else
                        f" [{row.kappa_ci95[0]:.3f}, {row.kappa_ci95[1]:.3f}]"))
            lines.append(head + f"Cohen's kappa {kappa} over {row.units} unit(s); the bar is "
                         f"{row.minimum_kappa:g} on the interval's low bound, at least "
                         f"{row.minimum_units} unit(s)")
    return lines


def review_report_name(suite_id: str) -> str:
    """The release-pack path of a suite's review report: ``review-reports/<safe slug>.json``."""
    from aau_core import safe_slug

    return f"review-reports/{safe_slug(suite_id)}.json"


def read_review_reports(files: Mapping[str, bytes]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Check review report files given to a release and key them by the suite they review.

    Args:
        files: file name -> its exact bytes (``--review-report`` files, or a pack's copies).

    Returns:
        suite_id -> ``(SHA-256 of the bytes, the report document)``.

    Raises:
        InputError / InvalidDocumentError: not strict JSON, not a schema-valid
            ``aau-review-report/1.0``, a report failing aau review's rules, or two reports for
            one suite (one line naming the file and JSON path).
    """
    from aau_core import InputError, check_document, loads_strict
    from aau_review import ReviewReport, check_review_report
    from aau_schemas import sha256_hex

    from ._converter import converter

    out: dict[str, tuple[str, dict[str, Any]]] = {}
    first: dict[str, str] = {}
    for name, data in files.items():
        doc = check_document("review-report", loads_strict(data, source=name), name)
        check_review_report(converter.structure(doc, ReviewReport), name)
        suite_id = doc["source"]["suite_id"]
        if suite_id in out:
            raise InputError(f"a second review report for suite {suite_id!r} (the first is "
                             f"{first[suite_id]}); give one per suite", source=name,
                             path="$.source.suite_id")
        first[suite_id] = name
        out[suite_id] = (sha256_hex(data), doc)
    return out
