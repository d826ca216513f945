"""The capsule comparison (``aau-impact-comparison/1.0``): what ``aau evidence compare`` prints
and an evidence pack's ``comparison.json`` holds.

Every value is a function of the (checked) capsule: the derived status, the agent's primary
measurement, the aggregate human comparator and ``round(human exact rate - agent value, 4)``,
the evidence still missing (in a fixed order) and the next piece to seek. Its claims are fixed
except ``causal_impact_proved``, true only for a bound ``causal_evaluation`` observation that
itself makes a causal claim, so a descriptive observation can never be read as causal (causal-label
inflation is refused earlier, by the capsule's schema and ``check_capsule``).
"""

from __future__ import annotations

from typing import Any

from ._capsule import derive_status
from ._converter import converter
from ._models import (
    AgentMeasurement,
    CapsuleComparison,
    ComparisonClaims,
    ComparisonReproduction,
    HumanComparator,
    ImpactCapsule,
)

COMPARISON_KIND = "capsule-comparison"
"""The comparison's schema kind (its version and the capsule boundary it repeats are the
defaults of ``_models.CapsuleComparison``)."""
MISSING_EVIDENCE = (
    "fresh hash-bound agent rerun on the reviewed suite",
    "reviewed blinded human study protocol",
    "aggregate observed human comparator",
    "bounded public-value observation",
    "independent reproduction",
)
"""Evidence a capsule may lack, in the order it should be sought."""
NOTHING_MISSING = "periodic reassessment and transfer testing"


def missing_evidence(capsule: ImpactCapsule) -> list[str]:
    """The ``MISSING_EVIDENCE`` items the capsule does not bind, in order."""
    art = capsule.artifacts
    human = art.human_baseline
    gaps = (art.agent_receipt.suite_binding != "hash_bound",
            art.human_study is None,
            human is None or human.observed_human_sessions == 0,
            art.public_value_observation is None,
            art.reproduction is None)
    return [item for item, gap in zip(MISSING_EVIDENCE, gaps, strict=True) if gap]


def comparison_model(capsule: dict[str, Any]) -> CapsuleComparison:
    """The comparison of a checked capsule document (``check_capsule``), as its model.

    Raises:
        cattrs.BaseValidationError: ``capsule`` does not have the capsule schema's shape (it
            must have passed ``check_capsule``).
    """
    model = converter.structure(capsule, ImpactCapsule)
    art = model.artifacts
    agent = art.agent_receipt.primary_metric
    human = art.human_baseline
    observation = art.public_value_observation
    reproduction = art.reproduction
    missing = missing_evidence(model)
    return CapsuleComparison(
        capsule_id=model.capsule_id,
        derived_status=derive_status(capsule),
        agent_measurement=AgentMeasurement(name=agent.name, value=agent.value,
                                           interval_95=agent.interval_95,
                                           observation_count=agent.observation_count),
        human_comparator=None if human is None else HumanComparator(
            exact_rate=human.exact_rate, abstain_rate=human.abstain_rate,
            session_count=human.session_count,
            observed_human_sessions=human.observed_human_sessions),
        human_minus_agent_exact_rate=(None if human is None else
                                      round(human.exact_rate - agent.value, 4)),
        public_value_observed=observation is not None,
        reproduction=None if reproduction is None else ComparisonReproduction(
            outcome=reproduction.outcome,
            independence_attested=reproduction.independence_attested),
        missing_evidence=missing,
        next_evidence=missing[0] if missing else NOTHING_MISSING,
        claims=ComparisonClaims(causal_impact_proved=bool(
            observation is not None and observation.observation_kind == "causal_evaluation"
            and observation.causal_claim is True)),
    )


def build_comparison(capsule: dict[str, Any]) -> dict[str, Any]:
    """The comparison document of a checked capsule (``check_capsule``): ``comparison_model``
    unstructured.

    Returns:
        an ``aau-impact-comparison/1.0`` object (schema kind ``capsule-comparison``).
    """
    return converter.unstructure(comparison_model(capsule))
