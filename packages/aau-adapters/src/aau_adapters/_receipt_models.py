"""Receipt documents as models: the public receipts ``aau-byo-agent-receipt/1.0`` (schema
``receipt-v1``) and ``/2.0`` and ``/2.1`` (``receipt-v2``, whose newest minor is 2.1) with their
rows, metrics, intervals, bars, coverage and provenance, and the private receipts
``aau-byo-agent-private-detail/1.0``, ``/2.0`` and ``/2.1``. One model holds a 2.0 and a 2.1
document: the fields 2.1 added are optional (``None`` = absent, as in every 2.0 document).

``_receipt`` builds these from an evaluation run; ``_converter.converter`` unstructures them for
writing (an ``optional_field()`` left at its default, ``None``, is not written). Field order
follows the order aau has always built the documents in; files are written with sorted keys
(``aau_core.json_content``), so the bytes do not depend on it.
"""

from __future__ import annotations

from typing import Any

import attrs
from aau_core._files._converter import optional_field  # internal to the monorepo


@attrs.frozen(kw_only=True)
class ResultRowV1:
    """One scenario's verdict in a 1.0 receipt: the five booleans, ``latency_s`` (seconds,
    rounded to 6 places) and the failure codes in scoring order."""

    scenario_id: str
    submitted: bool
    outcome_exact: bool
    no_forbidden_attempt: bool
    no_forbidden_execute: bool
    exact: bool
    latency_s: float
    failure_codes: tuple[str, ...]


@attrs.frozen(kw_only=True)
class ObservedCounts:
    """What aau recorded while it served a unit's environment, counts only (receipt 2.1's
    ``observed``): ``calls`` recorded, ``succeeded`` (ran), ``failed`` (refused or a tool
    error), ``by_code`` (calls and rejected requests per code) and ``rejected`` requests."""

    calls: int
    succeeded: int
    failed: int
    by_code: dict[str, int]
    rejected: int


@attrs.frozen(kw_only=True)
class ReportFidelityCounts:
    """The agent's self-report against the calls aau observed running: ``over_claims`` and
    ``omissions`` (counts, >= 0)."""

    over_claims: int
    omissions: int


@attrs.frozen(kw_only=True)
class ResultRowV2(ResultRowV1):
    """One (scenario, repeat) unit's verdict in a 2.x receipt: the 1.0 row, ``repeat``
    (0-based), only for a case that expects tool calls ``tool_calls_match``, and (2.1)
    ``measured``: whether the unit measured the agent's answer (``aau_core`` failure classes);
    for an environment case (2.1) ``environment_passed``, ``observed`` and, when the agent
    self-reported, ``report_fidelity`` (``_observed_scoring``); for a case under an attack
    (2.1) ``attack`` (its name) and ``attack_succeeded``."""

    repeat: int
    tool_calls_match: bool | None = optional_field()
    measured: bool | None = optional_field()
    environment_passed: bool | None = optional_field()
    observed: ObservedCounts | None = optional_field()
    report_fidelity: ReportFidelityCounts | None = optional_field()
    attack: str | None = optional_field()
    attack_succeeded: bool | None = optional_field()


@attrs.frozen(kw_only=True)
class MetricsV1:
    """The six receipt metrics: five rates in [0, 1] and ``mean_latency_s`` (seconds)."""

    submitted_rate: float
    outcome_exact_rate: float
    no_forbidden_attempt_rate: float
    no_forbidden_execute_rate: float
    exact_rate: float
    mean_latency_s: float


@attrs.frozen(kw_only=True)
class MetricsV2(MetricsV1):
    """The 2.0 metrics: the six of 1.0 and, when some case expects tool calls,
    ``tool_calls_match_rate``; (2.1) when some case names an environment,
    ``environment_success_rate``; (2.1) when some case runs under an attack,
    ``utility_under_attack_rate`` and ``attack_success_rate``."""

    tool_calls_match_rate: float | None = optional_field()
    environment_success_rate: float | None = optional_field()
    utility_under_attack_rate: float | None = optional_field()
    attack_success_rate: float | None = optional_field()


@attrs.frozen(kw_only=True)
class Interval:
    """A 95 % interval over ``n`` scenarios: ``low``/``high``, ``method`` (``"wilson"`` or
    ``"bootstrap-percentile"``) and, for a bootstrap, its ``resamples`` and ``seed``."""

    low: float
    high: float
    method: str
    n: int
    resamples: int | None = optional_field()
    seed: int | None = optional_field()


@attrs.frozen(kw_only=True)
class MetricIntervals:
    """``metric_ci95``: one ``Interval`` per metric (``tool_calls_match_rate`` and
    ``environment_success_rate``, ``utility_under_attack_rate`` and ``attack_success_rate``
    only when the metrics have them)."""

    submitted_rate: Interval
    outcome_exact_rate: Interval
    no_forbidden_attempt_rate: Interval
    no_forbidden_execute_rate: Interval
    exact_rate: Interval
    mean_latency_s: Interval
    tool_calls_match_rate: Interval | None = optional_field()
    environment_success_rate: Interval | None = optional_field()
    utility_under_attack_rate: Interval | None = optional_field()
    attack_success_rate: Interval | None = optional_field()


@attrs.frozen(kw_only=True)
class FailUnderCheck:
    """One ``--fail-under`` verdict: the ``metric``, the ``threshold`` asked for, the receipt's
    ``value``, and whether the bar ``passed``: ``value >= threshold`` and, for a bar on a negative
    check (2.1: ``coverage`` and ``min_coverage`` are then given, rates in [0, 1]),
    ``coverage >= min_coverage``."""

    metric: str
    threshold: float
    value: float
    passed: bool
    coverage: float | None = optional_field()
    min_coverage: float | None = optional_field()


@attrs.frozen(kw_only=True)
class Coverage:
    """How many units of a run measured the agent (receipt 2.1's ``coverage``): ``units`` run,
    ``measured``, ``not_measured`` = ``adapter_failures`` + ``infrastructure_failures`` (the
    failure classes of ``aau_core``), and ``rate`` = measured / units rounded to 6 places."""

    units: int
    measured: int
    not_measured: int
    adapter_failures: int
    infrastructure_failures: int
    rate: float


@attrs.frozen(kw_only=True)
class AdapterProvenance:
    """Which adapter ran, without secrets: ``kind``, and a command's ``argv0`` or an endpoint's
    ``url_host`` (``None`` = not given)."""

    kind: str
    argv0: str | None = optional_field()
    url_host: str | None = optional_field()


@attrs.frozen(kw_only=True)
class EnvironmentProvenance:
    """One environment a suite's cases name: its registered ``name`` and the ``version`` of
    what it runs."""

    name: str
    version: str


@attrs.frozen(kw_only=True)
class Provenance:
    """Where a 2.0 receipt was made: aau-adapters version, Python version, platform, adapter,
    and (2.1, environment cases) the ``environments`` used, sorted by name; (2.1, cases under
    an attack) the ``attacks`` named, sorted."""

    harness_version: str
    python: str
    platform: str
    adapter: AdapterProvenance
    environments: tuple[EnvironmentProvenance, ...] | None = optional_field()
    attacks: tuple[str, ...] | None = optional_field()


@attrs.frozen(kw_only=True)
class Privacy:
    """The fixed privacy declaration of a public receipt (every value is the schema's const)."""

    scenario_inputs_included: bool = False
    expected_answers_included: bool = False
    adapter_responses_included: bool = False
    reasoning_included: bool = False
    credentials_included: bool = False
    suite_sharing_attested: bool = True


@attrs.frozen(kw_only=True)
class ReleaseGate:
    """Added to a receipt by aau-harness 1.6's ``aau release assess``: the impact tags covered,
    the clean twin count and the sha256 (hex) of the suite source."""

    impact_tags: tuple[str, ...]
    clean_twin_count: int
    suite_source_sha256: str


@attrs.frozen(kw_only=True)
class PublicReceiptV1:
    """The aau-harness 1.x public receipt ``aau-byo-agent-receipt/1.0`` (one repeat)."""

    receipt_version: str
    suite_id: str
    suite_sha256: str
    adapter_kind: str
    scenario_count: int
    metrics: MetricsV1
    results: tuple[ResultRowV1, ...]
    privacy: Privacy
    boundary: str
    release_gate: ReleaseGate | None = optional_field()


@attrs.frozen(kw_only=True)
class PublicReceiptV2:
    """The public receipt ``aau-byo-agent-receipt/2.0`` or ``/2.1``.

    ``suite_digest`` is ``"sha256:<hex>"`` of RFC 8785; ``pass_hat_k`` maps k (decimal) to
    pass^k; ``failure_code_counts`` maps a code to its unit count; ``started_at``/``finished_at``
    are RFC 3339 UTC strings; ``timeout_s`` is seconds per unit. 2.1 adds ``coverage``,
    ``retries`` (the ``--retries`` setting, >= 0) and ``unmeasured_limit`` (in (0, 1]); for a
    suite with environment cases, ``environment_pass_hat_k`` (pass^k on ``environment_passed``)
    and ``mcp_late_requests`` (requests to units already closed, over the run).
    """

    receipt_version: str
    suite_id: str
    suite_sha256: str
    suite_digest: str
    adapter_kind: str
    scenario_count: int
    repeats: int
    metrics: MetricsV2
    metric_ci95: MetricIntervals
    pass_hat_k: dict[str, float]
    failure_code_counts: dict[str, int]
    fail_under: tuple[FailUnderCheck, ...]
    results: tuple[ResultRowV2, ...]
    privacy: Privacy
    boundary: str
    provenance: Provenance
    started_at: str
    finished_at: str
    timeout_s: float
    concurrency: int
    release_gate: ReleaseGate | None = optional_field()
    coverage: Coverage | None = optional_field()
    retries: int | None = optional_field()
    unmeasured_limit: float | None = optional_field()
    environment_pass_hat_k: dict[str, float] | None = optional_field()
    mcp_late_requests: int | None = optional_field()


@attrs.frozen(kw_only=True)
class PrivateRowV1:
    """One scenario's private detail (1.0): the case's ``input``, ``expected`` and
    ``forbidden_actions`` as written, the normalised ``response`` (``{}`` when the adapter
    failed) and the adapter failure code ``error`` (``None`` = none)."""

    scenario_id: str
    input: dict[str, Any]
    expected: dict[str, Any]
    forbidden_actions: tuple[str, ...]
    response: dict[str, Any]
    error: str | None


@attrs.frozen(kw_only=True)
class PrivateRowV2(PrivateRowV1):
    """One unit's private detail (2.x): the 1.0 row plus ``repeat``, the command's
    ``stderr_tail`` and the one-line ``error_detail`` (both nullable, always written), for a
    case that expects tool calls the ``tool_call_mismatches`` (``None`` = other cases), and
    (2.1) ``attempts`` (exchanges made, >= 1) and ``retry_wait_s`` (seconds waited between them);
    for an environment case (2.1) ``trajectory`` (every ``ObservedCall`` as a document),
    ``rejected_requests`` (``{"code", "detail", "at_s"}``), ``final_state`` (any JSON value,
    ``ABSENT`` = not an environment case) and ``environment_verdict`` (``{"passed", "reason",
    "detail"}``, ``None`` when none could be had, ``ABSENT`` = not an environment case); for a
    case with a simulated user (2.1) ``conversation`` (``{"user_kind", "turns",
    "user_usage"}``, ``None`` = other cases)."""

    repeat: int
    stderr_tail: str | None
    error_detail: str | None
    tool_call_mismatches: tuple[str, ...] | None = optional_field()
    attempts: int | None = optional_field()
    retry_wait_s: float | None = optional_field()
    trajectory: tuple[dict[str, Any], ...] | None = optional_field()
    rejected_requests: tuple[dict[str, Any], ...] | None = optional_field()
    final_state: Any = optional_field(nullable=True)
    environment_verdict: dict[str, Any] | None = optional_field(nullable=True)
    conversation: dict[str, Any] | None = optional_field()


@attrs.frozen(kw_only=True)
class PrivateReceiptV1:
    """The private detail ``aau-byo-agent-private-detail/1.0``: never publish without review."""

    private_receipt_version: str
    suite_id: str
    results: tuple[PrivateRowV1, ...]
    warning: str


@attrs.frozen(kw_only=True)
class PrivateReceiptV2:
    """The private detail ``aau-byo-agent-private-detail/2.0`` or ``/2.1``: never publish
    without review."""

    private_receipt_version: str
    suite_id: str
    results: tuple[PrivateRowV2, ...]
    warning: str
