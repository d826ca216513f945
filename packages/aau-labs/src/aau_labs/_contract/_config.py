"""The contract lab's configuration: one fictional domain compiled into one contract family.

A ``contract-config`` document (schema ``schemas/lab/v1/contract-config.schema.json``, version
``aau-contract-config/1.0``) names a family — ``"Decision Gate"``, ``"Rights Continuity"`` or
``"Critical Event Fan-Out"`` — its evidence ids, its contract nodes (gates, rights or fan-out
branches), its outcomes, its rule cards and one template per archetype. ``load_contract_config``
turns a schema-valid document into a ``ContractConfig`` after checking what the schema cannot say.

The family decides which metrics the scorer adds to the common six and which one is the
headline (``FAMILY_HEADLINE``), and which protection flags an archetype may ask for
(``FAMILY_FLAGS``): the scorer of a family reads only those, so a flag outside them would be a
requirement nobody checks (aau-harness 1.6 silently ignored it; aau refuses the config).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from aau_core import InputError, check_document

from .._frame._lab_spec import ARCHETYPE_ORDER

CONFIG_KIND = "contract-config"
SCENARIOS_KIND = "contract-scenarios"

DECISION_GATE = "Decision Gate"
RIGHTS_CONTINUITY = "Rights Continuity"
FAN_OUT = "Critical Event Fan-Out"
FAMILIES = (DECISION_GATE, RIGHTS_CONTINUITY, FAN_OUT)

FAMILY_HEADLINE: dict[str, str] = {
    DECISION_GATE: "decision_gate_exact",
    RIGHTS_CONTINUITY: "rights_continuity_exact",
    FAN_OUT: "critical_event_fanout_exact",
}
"""Family -> its headline metric (the conjunction of every metric of a run), as in 1.6."""

FLAGS = (
    "accessible_channel_required",
    "recourse_required",
    "deadline_required",
    "emergency_path_required",
)
"""The four protection flags of an archetype template (and of a gold contract)."""

FAMILY_FLAGS: dict[str, tuple[str, ...]] = {
    DECISION_GATE: ("deadline_required",),
    RIGHTS_CONTINUITY: ("accessible_channel_required", "recourse_required", "deadline_required"),
    FAN_OUT: ("emergency_path_required", "deadline_required"),
}
"""Family -> the flags its scorer reads; an archetype may set only these."""

RESERVED_POLICY_SUFFIXES = ("BOUNDARY", "CONTRACT", "EVIDENCE")
"""Built-in policy sections are ``<policy_prefix>-<suffix>``; rule cards may not reuse the ids."""


@attrs.frozen
class ContractConfig:
    """A loaded ``contract-config`` document (field meanings: the schema's descriptions).

    Attributes:
        family: one of ``FAMILIES``.
        title, source_note, workflow_description, policy_version, authority_boundary: text.
        seed: default generation seed.
        evidence: evidence ids, in order.
        nodes: the contract nodes, each ``{id, trigger, clock, recipient, channel, owner,
            receipt_stage, status}`` (strings).
        outcomes: the bounded outcomes, in order.
        case_prefix, scenario_prefix, policy_prefix: id prefixes.
        rule_cards: domain policy sections ``{id, title, text}``.
        archetypes: archetype name -> template dict (all eight).
    """

    family: str
    title: str
    seed: int
    source_note: str
    workflow_description: str
    evidence: tuple[str, ...]
    nodes: tuple[dict[str, str], ...]
    outcomes: tuple[str, ...]
    case_prefix: str
    scenario_prefix: str
    policy_prefix: str
    policy_version: str
    authority_boundary: str
    rule_cards: tuple[dict[str, str], ...]
    archetypes: dict[str, dict[str, Any]]

    @property
    def headline_metric(self) -> str:
        """The family's headline metric (``FAMILY_HEADLINE``)."""
        return FAMILY_HEADLINE[self.family]

    @property
    def node_ids(self) -> tuple[str, ...]:
        """The node ids, in order."""
        return tuple(node["id"] for node in self.nodes)

    def node(self, node_id: str) -> dict[str, str]:
        """A copy of the node ``node_id``.

        Raises:
            KeyError: no such node (a loaded config never names one).
        """
        for node in self.nodes:
            if node["id"] == node_id:
                return dict(node)
        raise KeyError(node_id)

    @property
    def reason_codes(self) -> list[str]:
        """The archetypes' reason codes, sorted and distinct (the action tool's enum)."""
        return sorted({t["reason_code"] for t in self.archetypes.values()})


def _fail(message: str, path: str) -> InputError:
    return InputError(message, path=path)


def _check_archetype(doc: Mapping[str, Any], name: str, template: Mapping[str, Any]) -> None:
    where = f"$.archetypes.{name}"
    if template["outcome"] not in doc["outcomes"]:
        raise _fail(f"outcome {template['outcome']!r} is not one of the config's outcomes",
                    f"{where}.outcome")
    required = template.get("required_evidence", doc["evidence"])
    for i, item in enumerate(required):
        if item not in doc["evidence"]:
            raise _fail(f"evidence {item!r} is not one of the config's evidence ids",
                        f"{where}.required_evidence[{i}]")
    missing = template.get("missing_evidence")
    if missing is not None and missing not in required:
        raise _fail(f"missing_evidence {missing!r} is not required evidence of this archetype",
                    f"{where}.missing_evidence")
    node_ids = [node["id"] for node in doc["nodes"]]
    applicable = template.get("node_ids", node_ids)
    for i, node_id in enumerate(applicable):
        if node_id not in node_ids:
            raise _fail(f"node {node_id!r} is not one of the config's nodes",
                        f"{where}.node_ids[{i}]")
    for node_id in template.get("node_status", {}):
        if node_id not in applicable:
            raise _fail(f"node {node_id!r} is not applicable to this archetype",
                        f"{where}.node_status")
    allowed = FAMILY_FLAGS[doc["family"]]
    for flag in FLAGS:
        if template.get(flag) and flag not in allowed:
            raise _fail(f"the {doc['family']} family does not score {flag}; it may set only "
                        f"{', '.join(allowed)}", f"{where}.{flag}")


def load_contract_config(doc: Mapping[str, Any], *, validate: bool = True,
                         source: str | None = None) -> ContractConfig:
    """Check a ``contract-config`` document and load it.

    Args:
        doc: the parsed document.
        validate: validate against the schema first (default). Pass ``False`` only for a
            document already validated (the lab frame validates before ``LAB.load_config``).
        source: file name for error messages.

    Returns:
        the ``ContractConfig``.

    Raises:
        InputError: a schema violation, or (``$.path: message``) duplicate node, rule-code or
            rule-card ids, an outcome not in ``outcomes``, evidence or nodes the config does not
            define, ``missing_evidence`` not required, ``node_status`` on a non-applicable node,
            a protection flag the family does not score, a rule card reusing a built-in id.
    """
    if validate:
        check_document(CONFIG_KIND, doc, source)
    try:
        return _load(doc)
    except InputError as exc:
        if source is not None and exc.source is None:
            raise InputError(exc.message, source=source, path=exc.path) from None
        raise


def _load(doc: Mapping[str, Any]) -> ContractConfig:
    seen: set[str] = set()
    for i, node in enumerate(doc["nodes"]):
        if node["id"] in seen:
            raise _fail(f"node id {node['id']!r} is used twice", f"$.nodes[{i}].id")
        seen.add(node["id"])
    reserved = {f"{doc['policy_prefix']}-{suffix}" for suffix in RESERVED_POLICY_SUFFIXES}
    cards: set[str] = set()
    for i, card in enumerate(doc["rule_cards"]):
        if card["id"] in reserved or card["id"] in cards:
            what = "a built-in policy id" if card["id"] in reserved else "used twice"
            raise _fail(f"rule card id {card['id']!r} is {what}", f"$.rule_cards[{i}].id")
        cards.add(card["id"])
    codes: dict[str, str] = {}
    for name in ARCHETYPE_ORDER:
        template = doc["archetypes"][name]
        code = template["rule_code"]
        if code in codes:
            raise _fail(f"rule_code {code!r} is also the rule of {codes[code]}",
                        f"$.archetypes.{name}.rule_code")
        codes[code] = name
        _check_archetype(doc, name, template)
    return ContractConfig(
        family=doc["family"],
        title=doc["title"],
        seed=doc["seed"],
        source_note=doc["source_note"],
        workflow_description=doc["workflow_description"],
        evidence=tuple(doc["evidence"]),
        nodes=tuple(dict(node) for node in doc["nodes"]),
        outcomes=tuple(doc["outcomes"]),
        case_prefix=doc["case_prefix"],
        scenario_prefix=doc["scenario_prefix"],
        policy_prefix=doc["policy_prefix"],
        policy_version=doc["policy_version"],
        authority_boundary=doc["authority_boundary"],
        rule_cards=tuple(dict(card) for card in doc["rule_cards"]),
        archetypes={name: dict(doc["archetypes"][name]) for name in ARCHETYPE_ORDER},
    )


def as_contract_config(config: ContractConfig | Mapping[str, Any]) -> ContractConfig:
    """``config`` itself, or a config document (as aau-harness 1.6 passed) loaded and checked.

    Raises:
        InputError: see ``load_contract_config``.
    """
    if isinstance(config, ContractConfig):
        return config
    return load_contract_config(config)
