"""The Gallery: adapted labs with trust levels derived from their committed evidence.

A contributor describes an adaptation in ``<root>/gallery/entries/<name>.json`` (schema kind
``gallery-entry``, aau-harness 1.6's ``aau-gallery/1.0``); its trust level is never written
there. ``evaluate_entry`` derives it from the lab's files (``_lab_evidence``) by fourteen checks
in four stages, with aau-harness 1.6's rules:

====================  ===================================================================
stage                 checks (all of a stage and of every earlier stage must pass)
====================  ===================================================================
Generated             runnable package (README.md, pyproject.toml, tests/, evals/); Forge
                      provenance (aau-forge.json; a maintainer reference: listed in the
                      root's catalog); contract blueprint (``generator.blueprint`` of
                      aau-forge.json, where ``aau forge`` writes it, or 1.6's
                      contract-blueprint.json; a maintainer reference: a contract named in
                      docs/studio-data.json)
Domain reviewed       no domain placeholders; a named review (reviewer, role, scope, date
                      and ledger all filled in); a source ledger with >= 2 http(s) links
Reproduced            >= 20 committed scenarios; a mock result; >= 1 real model; real
                      results with n_repeats >= 3; >= 3 observed failure modes
Verified              >= 2 real model ids; the README states the human boundary; the lab is
                      in the root's catalog (docs/use-cases.json) and a CI workflow
====================  ===================================================================

The level is the last stage whose checks, and all earlier ones, pass; ``Draft`` when the
Generated checks do not. Where 1.6 required files of its own repository (docs/studio-data.json,
.github/workflows/ci.yml) and crashed without them, a missing file here only fails the check
that needs it; any ``*.yml``/``*.yaml`` workflow counts as CI. 1.6's embedded Forge doctor
report is left out (``aau forge doctor`` gives it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aau_evidence import DRAFT, LEVEL_RANK, LEVELS, level_of

from ._lab_evidence import (
    domain_placeholders,
    observed_failures,
    read_text,
    result_evidence,
    scenario_count,
    source_links,
    states_human_boundary,
)

GALLERY_KIND = "gallery-entry"
GALLERY_VERSION = "aau-gallery/1.0"
REVIEW_FIELDS = ("reviewer", "reviewer_role", "scope", "reviewed_at", "source_ledger")
CONTRACT_FILES = {"Decision Gate": "DECISION_GATE_CONTRACT.md",
                  "Rights Continuity": "RIGHTS_CONTINUITY_CONTRACT.md",
                  "Critical Event Fan-Out": "CRITICAL_EVENT_FANOUT_CONTRACT.md"}
TRUST_NOTE = ("Levels are derived from committed evidence. Domain reviewed records the scope of "
              "a named review; it is not regulatory or production approval.")


def nearest_root(start: Path | None = None) -> Path | None:
    """The nearest folder at or above ``start`` (default: the current folder) that holds a
    ``gallery/`` or ``challenge/`` folder, or ``None`` when there is none."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "gallery").is_dir() or (folder / "challenge").is_dir():
            return folder
    return None


def find_root(start: Path | None = None) -> Path:
    """``nearest_root(start)``, required.

    Raises:
        aau_core.UsageError: there is none (the message says to pass ``--root``).
    """
    from aau_core import UsageError

    found = nearest_root(start)
    if found is None:
        here = (start or Path.cwd()).resolve()
        raise UsageError(f"no gallery/ or challenge/ folder in {here} or above; pass --root DIR")
    return found


def require_gallery(root: Path) -> Path:
    """``root``, when it holds a ``gallery/`` folder.

    Raises:
        aau_core.UsageError: it does not (a root found by its ``challenge/`` folder, or a
            ``--root`` without a gallery), so there is no gallery to list or validate there.
    """
    from aau_core import UsageError

    if not (root / "gallery").is_dir():
        raise UsageError(f"{root}: no gallery here (no gallery/ folder); pass --root DIR of a "
                         "folder holding gallery/entries/")
    return root


def load_entry(path: Path) -> dict[str, Any]:
    """Read one gallery entry file and check it against ``gallery-entry``.

    Raises:
        aau_core.InputError / InvalidDocumentError: unreadable or invalid (one line per
            violation, ``file: $.path: message``).
    """
    from ._documents import read_document

    return read_document(GALLERY_KIND, path)


def load_entries(root: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Every ``<root>/gallery/entries/*.json``, checked, in file-name order.

    Raises:
        aau_core.InputError: an invalid file, or an id or lab path used twice (naming both
            files).
    """
    from aau_core import InputError

    out: list[tuple[Path, dict[str, Any]]] = []
    seen: dict[tuple[str, str], Path] = {}
    for path in sorted((root / "gallery" / "entries").glob("*.json")):
        entry = load_entry(path)
        for field in ("id", "lab_path"):
            other = seen.get((field, entry[field]))
            if other is not None:
                raise InputError(f"{entry[field]!r} is also the {field} of {other}",
                                 source=str(path), path=f"$.{field}")
            seen[(field, entry[field])] = path
        out.append((path, entry))
    return out


class GalleryContext:
    """The root-level files entries are checked against, read once per gallery build.

    Attributes:
        root: the root folder.
        catalog_paths: entry paths of ``docs/use-cases.json`` (``None`` when absent).
        studio: ``docs/studio-data.json`` cases by path (empty when absent or unreadable).
        workflows: text of every ``.github/workflows/*.yml|*.yaml``, joined.
    """

    def __init__(self, root: Path) -> None:
        from ._catalog import load_catalog

        self.root = root
        catalog_file = root / "docs" / "use-cases.json"
        self.catalog_paths = (
            {e.path for e in load_catalog(catalog_file, root=root).entries}
            if catalog_file.is_file() else None)
        self.studio: dict[str, dict[str, Any]] = {}
        try:
            studio = json.loads(read_text(root / "docs" / "studio-data.json") or "{}")
        except json.JSONDecodeError:
            studio = {}
        cases = studio.get("cases") if isinstance(studio, dict) else None
        for case in cases if isinstance(cases, list) else []:
            if isinstance(case, dict) and isinstance(case.get("path"), str):
                self.studio[case["path"]] = case
        workflows = root / ".github" / "workflows"
        self.workflows = "\n".join(
            read_text(p) for p in sorted(workflows.glob("*")) if p.suffix in (".yml", ".yaml"))


def _check(name: str, passed: bool, detail: str, stage: str) -> dict[str, Any]:
    return {"check": name, "passed": bool(passed), "detail": detail, "stage": stage}


def _json_object(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(read_text(path) or "{}")
    except json.JSONDecodeError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _mapping(doc: dict[str, Any], key: str) -> dict[str, Any]:
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def next_level(level: str) -> str | None:
    """The level after ``level`` (``Generated`` after ``Draft``; ``None`` after Verified)."""
    if level == DRAFT:
        return LEVELS[0]
    rank = LEVEL_RANK[level]
    return LEVELS[rank + 1] if rank + 1 < len(LEVELS) else None


def evaluate_entry(context: GalleryContext, entry: dict[str, Any], *,
                   record_path: str) -> dict[str, Any]:
    """Derive one entry's trust level and evidence from the lab's committed files.

    Args:
        context: the root's shared files (``GalleryContext``).
        entry: a schema-valid gallery entry.
        record_path: where the entry is, relative to the root when it is under it.

    Returns:
        aau-harness 1.6's gallery item: ``id, origin, lab_path, title, icon, industry,
        contract{name, path}, failure_patterns, summary, why_fork, tags, contributor{name,
        github, profile_url}, review, challenge, trust{level, score{passed, total}, checks,
        next_level}, evidence{...}, commands{validate, run}``, plus ``record_path``.

    An entry whose lab folder does not exist is not an error of the whole gallery: it is
    evaluated like an empty lab, so it is ``Draft``, its "runnable package" check saying
    ``no lab folder '<lab_path>' under <root>`` (``aau gallery validate`` exits 1 for it).
    """
    root = context.root
    lab = root / entry["lab_path"]
    missing_lab = not lab.is_dir()
    studio = context.studio.get(entry["lab_path"], {})
    reference = entry["origin"] == "maintainer-reference"
    review = entry["review"]
    ledger_name = review.get("source_ledger", "")
    links = source_links(root / ledger_name if ledger_name.strip() else None)
    evidence = result_evidence(lab)
    scenarios = scenario_count(lab)
    failures = observed_failures(lab)
    placeholders = domain_placeholders(lab)
    manifest = _json_object(lab / "aau-forge.json")
    forged_blueprint = _mapping(manifest, "generator").get("blueprint")
    blueprint = (_json_object(lab / "contract-blueprint.json")
                 or (forged_blueprint if isinstance(forged_blueprint, dict) else {}))
    brief = _json_object(lab / "evaluation-brief.json")
    in_catalog = context.catalog_paths is not None and entry["lab_path"] in context.catalog_paths

    package = not missing_lab and all((lab / name).exists() for name in (
        "README.md", "pyproject.toml", "tests", "evals"))
    studio_contract = _mapping(studio, "contract").get("name")
    if reference:
        provenance = (in_catalog, "maintainer reference, listed in the catalog"
                      if in_catalog else "maintainer reference missing from docs/use-cases.json")
        contract = (bool(studio_contract) or (lab / "contract-blueprint.json").is_file(),
                    str(studio_contract or ("contract-blueprint.json committed"
                        if (lab / "contract-blueprint.json").is_file() else "contract missing")))
    else:
        has_manifest = (lab / "aau-forge.json").is_file()
        has_file = (lab / "contract-blueprint.json").is_file()
        in_manifest = isinstance(forged_blueprint, dict) and bool(forged_blueprint)
        provenance = (has_manifest, "aau-forge.json committed" if has_manifest
                      else "aau-forge.json missing")
        contract = (has_file or in_manifest,
                    "contract-blueprint.json committed" if has_file
                    else "blueprint in aau-forge.json (generator.blueprint)" if in_manifest
                    else "contract blueprint missing (no generator.blueprint in aau-forge.json, "
                         "no contract-blueprint.json)")
    review_done = all(isinstance(review.get(f), str) and review[f].strip() for f in REVIEW_FIELDS)
    boundary = states_human_boundary(lab)
    catalog_ci = in_catalog and entry["lab_path"] in context.workflows
    checks = [
        _check("runnable package", package,
               f"no lab folder {entry['lab_path']!r} under {root}" if missing_lab
               else "README, package, tests, and eval directory committed" if package
               else "README.md, pyproject.toml, tests/ or evals/ missing", "Generated"),
        _check("Forge provenance", provenance[0], provenance[1], "Generated"),
        _check("contract blueprint", contract[0], contract[1], "Generated"),
        _check("domain placeholders", not placeholders, "none remain" if not placeholders
               else "remaining: " + ", ".join(placeholders[:4]), "Domain reviewed"),
        _check("named review", review_done, f"{review.get('reviewer') or 'no reviewer'} · "
               f"{review.get('scope') or 'no scope'}", "Domain reviewed"),
        _check("primary-source ledger", links >= 2,
               f"{links} linked sources in {ledger_name or 'no ledger supplied'}",
               "Domain reviewed"),
        _check("scenario volume", scenarios >= 20, f"{scenarios}/20 committed scenarios",
               "Reproduced"),
        _check("zero-cost reproduction", evidence.mock_available, "committed mock result"
               if evidence.mock_available else "no committed mock result", "Reproduced"),
        _check("real-model evidence", len(evidence.models) >= 1,
               f"{len(evidence.models)} measured model(s)", "Reproduced"),
        _check("repeated runs", evidence.minimum_repeats >= 3,
               f"minimum n={evidence.minimum_repeats}", "Reproduced"),
        _check("observed failures", failures >= 3,
               f"{failures}/3 scenario-linked failure modes", "Reproduced"),
        _check("independent model evidence", len(evidence.models) >= 2,
               f"{len(evidence.models)}/2 model IDs", "Verified"),
        _check("protected authority", boundary, "human boundary stated in README" if boundary
               else "human boundary not found", "Verified"),
        _check("catalog + CI", catalog_ci, "public catalog and CI coverage" if catalog_ci
               else "not in both docs/use-cases.json and a CI workflow", "Verified"),
    ]
    level = level_of(checks)
    readme_title = next((line[2:].strip() for line in read_text(lab / "README.md").splitlines()
                         if line.startswith("# ")), "")
    contract_name = (studio_contract or blueprint.get("contract")
                     or _mapping(manifest, "generator").get("contract")
                     or _mapping(brief, "recommended_case").get("contract")
                     or "Unclassified contract")
    github = entry["contributor"]["github"].lstrip("@")
    cli = studio.get("cli") or entry["lab_path"].split("/")[-1]
    return {
        "id": entry["id"],
        "origin": entry["origin"],
        "lab_path": entry["lab_path"],
        "title": studio.get("title") or readme_title or entry["id"].replace("-", " ").title(),
        "icon": studio.get("icon", "🧪"),
        "industry": (studio.get("industry") or _mapping(brief, "workflow").get("industry")
                     or entry["lab_path"].split("/")[0].replace("-", " ").title()),
        "contract": {"name": str(contract_name),
                     "path": _mapping(studio, "contract").get("path")
                     or CONTRACT_FILES.get(str(contract_name), "AAU_FORGE.md")},
        "failure_patterns": studio.get("failure_patterns", []),
        "summary": entry["summary"],
        "why_fork": entry["why_fork"],
        "tags": entry["tags"],
        "contributor": {**entry["contributor"], "profile_url": f"https://github.com/{github}"},
        "review": review,
        "challenge": entry.get("challenge"),
        "trust": {"level": level,
                  "score": {"passed": sum(c["passed"] for c in checks), "total": len(checks)},
                  "checks": checks, "next_level": next_level(level)},
        "evidence": {**evidence.to_dict(), "scenario_count": scenarios,
                     "observed_failure_modes": failures, "source_links": links},
        "commands": {"validate": f"aau gallery validate {entry['id']}",
                     "run": f"{cli} eval --backend mock --repeats 3"},
        "record_path": record_path,
    }


def _record_path(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def build_gallery(root: Path) -> dict[str, Any]:
    """Evaluate every committed entry of ``root``.

    Returns:
        ``{"version": "aau-gallery/1.0", "trust_model": {"levels", "note"}, "stats":
        {"adaptations", "contributors", "contracts", "levels": {level: count}}, "entries"}``,
        entries sorted by level (highest first) then title; Draft entries are kept (and
        counted under ``"Draft"``).

    Raises:
        aau_core.InputError: an invalid entry or root file (a missing lab only makes its entry
            Draft).
    """
    context = GalleryContext(root)
    items = [evaluate_entry(context, entry, record_path=_record_path(root, path))
             for path, entry in load_entries(root)]
    items.sort(key=lambda i: (-LEVEL_RANK.get(i["trust"]["level"], -1), i["title"]))
    levels = {level: sum(i["trust"]["level"] == level for i in items) for level in
              (*LEVELS, DRAFT)}
    return {
        "version": GALLERY_VERSION,
        "trust_model": {"levels": list(LEVELS), "note": TRUST_NOTE},
        "stats": {"adaptations": len(items),
                  "contributors": len({i["contributor"]["github"].lstrip("@").lower()
                                       for i in items}),
                  "contracts": len({i["contract"]["name"] for i in items}),
                  "levels": levels},
        "entries": items,
    }


def resolve_item(items: list[dict[str, Any]], target: str) -> dict[str, Any]:
    """The gallery item whose id or lab path is ``target`` (a trailing ``/`` ignored).

    Raises:
        aau_core.UsageError: none matches.
    """
    from aau_core import UsageError

    needle = target.strip().rstrip("/")
    for item in items:
        if needle in (item["id"], item["lab_path"]):
            return item
    raise UsageError(f"no gallery entry has the id or lab path {target!r}")


def render_item(item: dict[str, Any]) -> str:
    """The text ``aau gallery validate`` prints for one item: level, score, every check."""
    score = item["trust"]["score"]
    lines = [
        f"{item['icon']}  {item['title']}",
        f"Trust:       {item['trust']['level']} ({score['passed']}/{score['total']} checks)",
        f"Contract:    {item['contract']['name']}",
        f"Contributor: @{item['contributor']['github'].lstrip('@')}",
        f"Lab:         {item['lab_path']}",
        "",
    ]
    lines += [f"[{'PASS' if c['passed'] else 'NEXT'}] {c['check']}: {c['detail']}"
              for c in item["trust"]["checks"]]
    if item["trust"]["next_level"]:
        lines += ["", f"Next evidence level: {item['trust']['next_level']}"]
    return "\n".join(lines)
