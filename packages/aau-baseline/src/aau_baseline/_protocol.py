"""The fixed vocabulary of the aau-harness 1.6 human-baseline protocol (``aau-human-baseline-*/1.0``).

Versions, the participant roles and measures every study declares, the abstention category and
the boundary texts (the fixed protection, privacy and claims blocks are the defaults of their
models in ``_models``). Every document aau writes uses these values verbatim; the schemas in
``schemas/human-baseline/v1/`` pin the same values with ``const`` (the tests compare them).
"""

from __future__ import annotations

STUDY_VERSION = "aau-human-baseline-study/1.0"
ANSWER_KEY_VERSION = "aau-human-baseline-answer-key/1.0"
SESSION_VERSION = "aau-human-baseline-session/1.0"
MANIFEST_VERSION = "aau-human-baseline-manifest/1.0"
REPORT_VERSION = "aau-human-baseline-report/1.0"

ABSTAIN = "__abstain__"
"""The outcome a participant gives when declining to answer; a category of its own everywhere."""

PARTICIPANT_ROLES = ("domain_operator", "service_reviewer", "generalist_reviewer")
MEASURES = ("outcome_exact_rate", "abstain_rate", "task_time_ms", "confidence_calibration",
            "inter_rater_agreement")
SESSION_KINDS = ("synthetic_reference", "human_observed")
MAX_SESSIONS = 250
MAX_ELAPSED_MS = 3_600_000

STUDY_BOUNDARY = (
    "This blinded synthetic protocol supports baseline design and aggregate measurement. It is "
    "not an institutional human-subjects determination, IRB approval, production validation, "
    "certification, workforce decision, or authority to deploy AI."
)
SESSION_BOUNDARY = (
    "This session contains one local evaluator's synthetic-task responses. Do not publish "
    "participant-level files or use them for employment decisions."
)
REPORT_BOUNDARY = (
    "This report is descriptive evidence for the declared synthetic study. It does not prove "
    "causal benefit, production fitness, statistical superiority, certification, or authority "
    "to replace or evaluate workers."
)
COMPARISON_INTERPRETATION = (
    "Descriptive same-suite comparison only; it is not a significance test, causal estimate, "
    "workforce recommendation, or replacement decision."
)
