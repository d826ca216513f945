"""Forge a lab package from an AAU Studio brief (``aau forge BRIEF --name NAME``).

The lab goes to ``<root>/<industry slug>/<name slug>/`` (industry: the brief's, or the
recommended case's first path part when the brief says ``"unspecified"``). Two modes:

- **contract-aware** — the brief's contract names a family of aau-core's contract lab
  (``contract_family``): the lab ships a ``contract-config`` document
  ``src/<pkg>/lab_config.json`` built from the family's template
  (``templates/forge/families/<family>.json``: fictional placeholder rules marked
  ``TODO(domain)``) with the lab's title, seed, id prefixes and the brief's workflow; its
  world, tools, agent, evaluation and CLI are thin modules over aau-core's contract lab
  (``generate_contract_scenarios``, ``ContractToolSession``, ``ContractMockBackend``,
  ``evaluate_contract``, ``aau lab generate|run``), and its headline is the family's metric.
- **generic-fallback** — any other contract: the generic scaffold of ``_scaffold``.

Both add ``README.md`` (with the brief's origin), ``ADAPTATION_CHECKLIST.md`` (one item per
required proof), ``evaluation-brief.json`` (the brief's exact bytes) and ``aau-forge.json``
(kind ``forge-manifest``, validated before it is written). With verification (the default,
``_forge_verify``) the lab is installed into a throw-away folder, generates its committed
scenarios, passes its own tests and runs its mock; the manifest records each step.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import attrs
from aau_core import (
    BarNotMetError,
    UsageError,
    check_document,
    render_json,
    utc_timestamp,
    write_outputs,
)
from aau_labs import ARCHETYPE_ORDER, load_contract_config

from ._forge_brief import FAMILIES, brief_seed, contract_family, load_brief
from ._scaffold import (
    LabNames,
    base_values,
    lab_names,
    markdown_text,
    package_files,
    render_template,
    scaffold_files,
    template_text,
    write_lab,
)

MANIFEST_KIND = "forge-manifest"
FORGE_VERSION = "aau-forge/2.0"
MANIFEST_NAME = "aau-forge.json"
BRIEF_COPY = "evaluation-brief.json"
BLUEPRINT_VERSION = "aau-forge-contract/1.0"
STATUS = "adaptation_required"

FAMILY_FILES = {
    "Decision Gate": "decision-gate",
    "Rights Continuity": "rights-continuity",
    "Critical Event Fan-Out": "critical-event-fanout",
}
"""Family -> stem of its config template in ``templates/forge/families/``."""

FAMILY_METRICS = {
    "Decision Gate": "decision_gate_exact",
    "Rights Continuity": "rights_continuity_exact",
    "Critical Event Fan-Out": "critical_event_fanout_exact",
}
"""Family -> its headline metric (aau-core's contract lab)."""

FAMILY_PROMISES = {
    "Decision Gate": "a recommendation passes only when the evidence, every hard gate, the "
                     "authority boundary and the durable record agree.",
    "Rights Continuity": "a case passes only when every primary and companion right keeps its "
                         "own trigger, clock, channel, recourse, owner and receipt.",
    "Critical Event Fan-Out": "a response passes only when every emergency, notification, "
                              "recipient and follow-up branch stays independently truthful.",
}

@attrs.frozen
class ForgeResult:
    """What ``forge`` made.

    Attributes:
        path: the lab folder.
        manifest: the ``aau-forge.json`` document as last written.
        steps: the verification steps run (``_forge_verify.StepResult``), empty without.
    """

    path: Path
    manifest: dict[str, Any]
    steps: tuple[Any, ...] = ()


def _case_prefix(slug: str) -> str:
    initials = "".join(part[0] for part in slug.split("-") if part).upper()
    prefix = initials if len(initials) >= 2 else slug.replace("-", "").upper()
    return prefix[:6]


def contract_config(names: LabNames, family: str, seed: int,
                    workflow: dict[str, Any]) -> dict[str, Any]:
    """The lab's ``contract-config`` document: the family template with the lab's names.

    Sets ``title`` (the lab title), ``seed``, ``workflow_description`` (the brief's),
    ``case_prefix`` (the name's initials, at most 6), ``scenario_prefix`` (the name slug, at
    most 32 characters) and ``policy_prefix`` (the slug upper-cased).

    Raises:
        InputError: the document breaks the contract-config rules (a bug: tested per family).
    """
    doc = copy.deepcopy(json.loads(template_text(f"forge/families/{FAMILY_FILES[family]}.json")))
    doc.update(
        title=names.title,
        seed=seed,
        workflow_description=" ".join(workflow["description"].split()),
        case_prefix=_case_prefix(names.slug),
        scenario_prefix=names.slug[:32].rstrip("-"),
        policy_prefix=names.slug[:32].rstrip("-").upper(),
    )
    load_contract_config(doc)
    return doc


def _blueprint(names: LabNames, family: str, config: dict[str, Any]) -> dict[str, Any]:
    return {
        "blueprint_version": BLUEPRINT_VERSION,
        "contract": family,
        "exact_metric": FAMILY_METRICS[family],
        "config_path": f"src/{names.pkg}/lab_config.json",
        "node_semantics": [node["id"] for node in config["nodes"]],
        "archetypes": list(ARCHETYPE_ORDER),
        "safety_status": STATUS,
    }


def _contract_files(names: LabNames, seed: int, family: str,
                    config: dict[str, Any]) -> dict[str, str]:
    values = {**base_values(names, seed), "family": family,
              "exact_metric": FAMILY_METRICS[family]}
    return {**package_files(names, values, "forge"),
            f"src/{names.pkg}/lab_config.json": render_json(config)}


def _brief_values(brief: dict[str, Any], names: LabNames, seed: int,
                  family: str | None) -> dict[str, object]:
    workflow, case, plan = brief["workflow"], brief["recommended_case"], brief["verification_plan"]
    risks = "; ".join(workflow["risks"]) or "none selected in Studio"
    values: dict[str, object] = {
        **base_values(names, seed),
        "workflow_md": markdown_text(workflow["description"]),
        "industry_md": markdown_text(workflow["industry"]),
        "agent_shape_md": markdown_text(workflow["agent_shape"]),
        "risks_md": markdown_text(risks),
        "case_title_md": markdown_text(case["title"]),
        "case_path": case["path"],
        "contract_md": markdown_text(case["contract"]),
        "generator_contract_md": markdown_text(family or "generic scaffold"),
        "scenarios": plan["minimum_scenarios"],
        "repeats": plan["minimum_repeats"],
        "proofs_md": "\n".join(f"- [ ] {markdown_text(p)}" for p in plan["required_proofs"]),
    }
    if family:
        values["contract_item"] = (f"- [ ] Check every {family} node and report "
                                   f"`{FAMILY_METRICS[family]}` with its component metrics.")
        section = render_template("forge/contract-section.md.tmpl", {
            **values, "family": family, "exact_metric": FAMILY_METRICS[family],
            "promise": FAMILY_PROMISES[family]})
    else:
        values["contract_item"] = ("- [ ] Replace the generic request desk with the domain's "
                                   "deciding state transition.")
        section = render_template("forge/generic-section.md.tmpl", values)
    values["lab_section"] = section
    return values


def _git(root: Path, *args: str) -> str | None:
    """``git -C root ARGS`` stripped stdout, or ``None`` when git is missing or fails."""
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              check=False, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def source_commit(root: Path) -> tuple[str | None, str | None]:
    """``(remote origin URL, HEAD commit)`` of the folder ``root`` when it is inside a git
    checkout, each ``None`` when absent (or git is not installed); nothing is fetched (local
    ``git`` only). The output root of ``forge`` is read through its nearest existing folder."""
    if _git(root, "rev-parse", "--is-inside-work-tree") != "true":
        return None, None
    commit = _git(root, "rev-parse", "HEAD")
    if commit is not None and (len(commit) != 40 or not all(c in "0123456789abcdef" for c in commit)):
        commit = None
    return _git(root, "config", "--get", "remote.origin.url"), commit


def check_manifest(doc: dict[str, Any], source: str | None = None) -> None:
    """Validate a forge manifest against ``forge-manifest``.

    Raises:
        InvalidDocumentError: one ``source: $.path: message`` line per violation.
    """
    check_document(MANIFEST_KIND, doc, source or MANIFEST_NAME)


def write_manifest(dest: Path, manifest: dict[str, Any]) -> Path:
    """Validate ``manifest`` and (re)write ``dest/aau-forge.json`` atomically.

    ``dest`` is the lab folder ``forge`` has just created, so its own manifest is replaced
    (``force``); a device, pipe or link standing there is still refused (``write_outputs``).
    """
    path = dest / MANIFEST_NAME
    check_manifest(manifest, str(path))
    return write_outputs({path: render_json(manifest)}, force=True)[0]


def forge(brief_path: str | os.PathLike[str], name: str, root: str | os.PathLike[str] = ".", *,
          seed: int | None = None, title: str | None = None, verify: bool = True,
          progress: Any = None) -> ForgeResult:
    """Generate a lab from a Studio brief (module docstring).

    Args:
        brief_path: the ``studio-brief`` file.
        name: the lab name (slugified; see ``_scaffold.lab_names``).
        root: output root; the lab is ``<root>/<industry slug>/<name slug>``.
        seed: scenario seed (>= 0); default ``brief_seed(brief)``.
        title: lab title (default: the name in title case).
        verify: install, generate, test and mock-run the lab (``_forge_verify.verify_lab``).
        progress: called with each finished ``StepResult`` (for the CLI).

    Returns:
        the ``ForgeResult``.

    Raises:
        InputError: the brief is unreadable or invalid.
        UsageError: bad name, title or seed.
        OutputError: the lab folder exists or cannot be written.
        BarNotMetError: verification failed; the lab is kept (its manifest says ``failed``).
    """
    brief = load_brief(brief_path)
    if seed is not None and seed < 0:
        raise UsageError("--seed must be zero or greater")
    resolved_seed = brief_seed(brief) if seed is None else seed
    workflow, case, plan = brief["workflow"], brief["recommended_case"], brief["verification_plan"]
    industry = workflow["industry"]
    if industry.strip().lower() == "unspecified":
        industry = case["path"].split("/")[0]
    names = lab_names(industry, name, title)
    family = contract_family(case["contract"])
    if family:
        config = contract_config(names, family, resolved_seed, workflow)
        contents = _contract_files(names, resolved_seed, family, config)
        blueprint: dict[str, Any] | None = _blueprint(names, family, config)
    else:
        contents = scaffold_files(names, resolved_seed)
        blueprint = None
    values = _brief_values(brief, names, resolved_seed, family)
    contents["README.md"] = render_template("forge/README.md.tmpl", values)
    contents["ADAPTATION_CHECKLIST.md"] = render_template("forge/ADAPTATION_CHECKLIST.md.tmpl",
                                                          values)
    contents[BRIEF_COPY] = Path(brief_path).read_bytes().decode("utf-8")
    out_root = Path(root)
    existing = out_root.absolute()
    while not existing.is_dir() and existing != existing.parent:
        existing = existing.parent
    repository, commit = source_commit(existing)
    manifest: dict[str, Any] = {
        "forge_version": FORGE_VERSION,
        "status": STATUS,
        "forged_at": utc_timestamp(),
        "generated_path": names.rel_path,
        "seed": resolved_seed,
        "source": {"repository": repository, "commit": commit, "case": case},
        "workflow": workflow,
        "generator": {
            "mode": "contract-aware" if family else "generic-fallback",
            "contract": family or case["contract"],
            "blueprint": blueprint,
            "supported_contracts": list(FAMILIES),
        },
        "verification": {
            "status": "pending" if verify else "not_run",
            "minimum_scenarios": plan["minimum_scenarios"],
            "minimum_repeats": plan["minimum_repeats"],
            "steps": [],
        },
    }
    check_manifest(manifest, MANIFEST_NAME)
    contents[MANIFEST_NAME] = render_json(manifest)
    dest = write_lab(out_root / names.industry / names.slug, contents)
    if not verify:
        return ForgeResult(dest, manifest)

    from ._forge_verify import verify_lab

    steps = verify_lab(dest, names.pkg, seed=resolved_seed, n=plan["minimum_scenarios"],
                       repeats=plan["minimum_repeats"], progress=progress)
    passed = all(step.passed for step in steps) and len(steps) == 4
    manifest["verification"]["status"] = "passed" if passed else "failed"
    manifest["verification"]["steps"] = [step.record() for step in steps]
    write_manifest(dest, manifest)
    if not passed:
        raise BarNotMetError(f"{dest}: the forged lab failed verification at "
                             f"{steps[-1].step}: {steps[-1].summary}; its files are kept")
    return ForgeResult(dest, manifest, tuple(steps))
