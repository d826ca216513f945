"""The Reliability Challenge: missions, community receipts, finishes and achievements.

A root in aau-harness 1.6's layout holds ``challenge/challenges.json`` (kind
``challenge-catalog``), community receipts ``challenge/entries/<id>.json`` (kind
``challenge-entry``) with their notes in ``challenge/receipts/``, and the Gallery
(``_gallery``). Everything here is derived from committed files, with 1.6's rules:

- A **receipt** (Reproduce or Break) finishes its challenge when: its file is ``<id>.json``; its
  challenge exists with the same track and its ``starter_lab`` equals the receipt's lab; the
  result is a file directly in ``<lab>/results/`` with ``n_repeats >= 3`` and
  ``n_scenarios >= 1``; the note is directly in ``challenge/receipts/`` and names every declared
  scenario id; every scenario id is one of the lab's (``_lab_evidence.scenario_ids``). A receipt
  that breaks a rule is an input error, not an unfinished entry. It earns receipt-ready, plus
  failure-hunter on the Break track and repeat-runner when the result is not a mock.
- A **Gallery entry** that claims a challenge finishes it when its trust level reaches the
  track's minimum (Adapt: Generated; Reproduce and Break: Reproduced) and, for Break, it has
  >= 3 observed failure modes. Its achievements come from its evidence (``achievements_for``).
  Entries without a claim are maintainer references: shown, never counted as community
  finishes.

The root is ``--root``, else the nearest folder at or above the current one holding
``gallery/`` or ``challenge/``, else the current folder itself (``challenge_root``): the folder
where ``aau new-use-case`` and ``aau forge`` wrote the labs. Its catalog is its own
``challenge/challenges.json`` when it has one (1.6's repository), else the one this package
ships (``challenges.json``: missions played on labs those commands write, so every command
runs from any folder after ``pip install``; ``catalog_path``). ``write_receipt`` drafts a
receipt and its note for a lab that exists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ._gallery import DRAFT, LEVEL_RANK, build_gallery
from ._lab_evidence import read_text, result_summary, scenario_ids

CATALOG_KIND = "challenge-catalog"
ENTRY_KIND = "challenge-entry"
BUNDLED_CHALLENGES = Path(__file__).with_name("challenges.json")
"""The challenge catalog aau ships (read when there is no root)."""
TRACK_MINIMUM = {"Reproduce": "Reproduced", "Break": "Reproduced", "Adapt": "Generated"}
BOUNDARY = ("Challenge status is derived from committed evidence. It is not production "
            "certification, regulatory approval, or permission to automate a protected human "
            "authority.")


def challenge_root(start: Path | None = None) -> Path:
    """The root the challenge commands read when no ``--root`` is given: the nearest folder at
    or above ``start`` (default: the current folder) holding ``gallery/`` or ``challenge/``,
    else ``start`` itself (where ``aau new-use-case`` writes the labs)."""
    from ._gallery import nearest_root

    return nearest_root(start) or (start or Path.cwd()).resolve()


def catalog_path(root: Path | None) -> Path:
    """The challenge catalog a root uses: ``<root>/challenge/challenges.json`` when it is there
    (anything at that name, so a broken one is reported, not skipped), else the bundled
    ``BUNDLED_CHALLENGES`` (also for ``root`` None)."""
    if root is not None:
        local = root / "challenge" / "challenges.json"
        if local.exists() or local.is_symlink():
            return local
    return BUNDLED_CHALLENGES


def catalog_label(root: Path | None) -> str:
    """How output names the catalog ``catalog_path(root)`` picks: its path, or ``the catalog
    aau ships`` (with where a local one would be)."""
    path = catalog_path(root)
    if path != BUNDLED_CHALLENGES:
        return shown_path(path)
    where = "" if root is None else f"; no challenge/challenges.json in {shown_path(root)}"
    return f"the catalog aau ships{where}"


def shown_path(path: Path) -> str:
    """``path`` relative to the current folder when it is inside it, else absolute."""
    here = Path.cwd().resolve()
    resolved = path.resolve()
    if resolved == here:
        return "the current folder"
    try:
        return resolved.relative_to(here).as_posix()
    except ValueError:
        return str(resolved)


def catalog_name(root: Path | None) -> str:
    """The catalog's name in error lines: ``challenge/challenges.json`` (the root's own) or
    ``the catalog aau ships``."""
    return ("the catalog aau ships" if catalog_path(root) == BUNDLED_CHALLENGES
            else "challenge/challenges.json")


def load_challenge_catalog(root: Path | None) -> dict[str, Any]:
    """Read and check the catalog ``catalog_path(root)`` picks: ``<root>/challenge/
    challenges.json`` when the root has one, else the bundled ``BUNDLED_CHALLENGES``.

    Raises:
        aau_core.InputError / InvalidDocumentError: unreadable, invalid against
            ``challenge-catalog``, or a challenge id or number used twice.
    """
    from aau_core import InputError

    from ._documents import read_document

    path = catalog_path(root)
    doc = read_document(CATALOG_KIND, path)
    for field in ("id", "number"):
        seen: dict[str, int] = {}
        for index, item in enumerate(doc["challenges"]):
            if item[field] in seen:
                raise InputError(f"{item[field]!r} is also the {field} of challenge "
                                 f"{seen[item[field]]}", source=str(path),
                                 path=f"$.challenges[{index}].{field}")
            seen[item[field]] = index
    return doc


def missing_starter_labs(root: Path, catalog: dict[str, Any]) -> list[tuple[int, str]]:
    """``(index, starter_lab)`` of the challenges whose starter lab is not a folder of root."""
    return [(i, c["starter_lab"]) for i, c in enumerate(catalog["challenges"])
            if not (root / c["starter_lab"]).is_dir()]


def achievements_for(item: dict[str, Any]) -> list[str]:
    """Achievement ids a Gallery item's evidence earns (1.6); only a finished entry shows them
    (``gallery_row``): receipt-ready always;
    failure-hunter (>= 3 observed failures); repeat-runner (a real result, n >= 3);
    cross-model-witness (>= 2 models); domain-grounder (>= 2 ledger links and a named review);
    boundary-keeper (protected-authority check passed)."""
    evidence = item["evidence"]
    passed = {c["check"]: c["passed"] for c in item["trust"]["checks"]}
    earned = ["receipt-ready"]
    if evidence["observed_failure_modes"] >= 3:
        earned.append("failure-hunter")
    if evidence["real_result_artifacts"] >= 1 and evidence["minimum_repeats"] >= 3:
        earned.append("repeat-runner")
    if evidence["model_count"] >= 2:
        earned.append("cross-model-witness")
    if evidence["source_links"] >= 2 and passed.get("named review", False):
        earned.append("domain-grounder")
    if passed.get("protected authority", False):
        earned.append("boundary-keeper")
    return earned


def finish_status(item: dict[str, Any], track: str) -> tuple[bool, str]:
    """Whether a Gallery item finishes a challenge of ``track``, and why (1.6's rule)."""
    minimum = TRACK_MINIMUM[track]
    level = item["trust"]["level"]
    finished = level != DRAFT and LEVEL_RANK[level] >= LEVEL_RANK[minimum]
    if track == "Break":
        finished = finished and item["evidence"]["observed_failure_modes"] >= 3
    return finished, f"{level}; minimum for {track} is {minimum}"


def _inside(path: Path, folder: Path) -> bool:
    return path.parent.resolve() == folder.resolve()


def check_challenge_entry(root: Path, receipt: dict[str, Any], *, source: str,
                          challenges: dict[str, dict[str, Any]],
                          file_name: str | None, note_text: str | None = None
                          ) -> dict[str, Any]:
    """Check a schema-valid challenge-entry receipt against the catalog and the committed files.

    (Not ``aau_adapters.check_receipt``, which checks an evaluation receipt's own arithmetic.)

    Args:
        root: the root folder.
        receipt: the ``challenge-entry`` document.
        source: its file name, for error lines.
        challenges: the catalog's challenges by id.
        file_name: the receipt's file name when it is committed under challenge/entries/
            (then it must be ``<id>.json``), else ``None``.
        note_text: the note's text when it is not written yet (``write_receipt`` checks a
            draft before writing it); ``None``: read the note file, which must exist.

    Returns:
        the scoreboard row: ``entry_id, type ("community"), track, challenge_id, title,
        lab_path, contributor{name, github, profile_url}, trust{level: "Receipt verified",
        score}, evidence{scenario_count, minimum_repeats}, achievements, finish (true),
        finish_detail, record_path``.

    Raises:
        aau_core.InputError: the first rule broken, as ``source: $.path: message``.
    """
    from aau_core import InputError

    def fail(path: str, message: str) -> InputError:
        return InputError(message, source=source, path=path)

    if file_name is not None and file_name != f"{receipt['id']}.json":
        raise fail("$.id", f"the file of receipt {receipt['id']!r} must be named "
                           f"{receipt['id']}.json")
    challenge = challenges.get(receipt["challenge_id"])
    if challenge is None:
        raise fail("$.challenge_id", f"no challenge {receipt['challenge_id']!r} in "
                                     f"{catalog_name(root)}")
    if receipt["track"] != challenge["track"]:
        raise fail("$.track", f"challenge {challenge['id']!r} is on the {challenge['track']} "
                              "track")
    if receipt["lab_path"] != challenge["starter_lab"]:
        raise fail("$.lab_path", f"challenge {challenge['id']!r} is played on "
                                 f"{challenge['starter_lab']!r}")
    lab = root / receipt["lab_path"]
    evidence = receipt["evidence"]
    result_path = root / evidence["result_path"]
    note_path = root / evidence["note_path"]
    if not _inside(result_path, lab / "results") or not result_path.is_file():
        raise fail("$.evidence.result_path", f"not a file directly in {receipt['lab_path']}/"
                                             "results/")
    if not _inside(note_path, root / "challenge" / "receipts") or (
            note_text is None and not note_path.is_file()):
        raise fail("$.evidence.note_path", "not a file directly in challenge/receipts/")
    known = set(scenario_ids(lab))
    for index, scenario in enumerate(evidence["scenario_ids"]):
        if scenario not in known:
            raise fail(f"$.evidence.scenario_ids[{index}]",
                       f"{scenario!r} is not a scenario of {receipt['lab_path']}/evals/")
    try:
        summary = result_summary(json.loads(read_text(result_path) or "null"))
    except json.JSONDecodeError:
        summary = None
    if summary is None or summary["n_repeats"] < 3 or summary["n_scenarios"] < 1:
        raise fail("$.evidence.result_path", "the result needs at least one scenario and "
                                             "n_repeats >= 3")
    note = read_text(note_path) if note_text is None else note_text
    for index, scenario in enumerate(evidence["scenario_ids"]):
        if scenario not in note:
            raise fail(f"$.evidence.scenario_ids[{index}]",
                       f"the note {evidence['note_path']} does not name {scenario!r}")
    github = receipt["contributor"]["github"].lstrip("@")
    achievements = ["receipt-ready"]
    if receipt["track"] == "Break":
        achievements.append("failure-hunter")
    if not summary["mock"]:
        achievements.append("repeat-runner")
    count, repeats = len(evidence["scenario_ids"]), summary["n_repeats"]
    return {
        "entry_id": receipt["id"], "type": "community", "track": receipt["track"],
        "challenge_id": receipt["challenge_id"], "title": challenge["title"],
        "lab_path": receipt["lab_path"],
        "contributor": {**receipt["contributor"], "github": github,
                        "profile_url": f"https://github.com/{github}"},
        "trust": {"level": "Receipt verified", "score": {"passed": 5, "total": 5}},
        "evidence": {"scenario_count": count, "minimum_repeats": repeats},
        "achievements": achievements, "finish": True,
        "finish_detail": f"valid {receipt['track']} receipt; {count} traced scenario(s), "
                         f"n={repeats}",
        "record_path": source,
    }


def gallery_row(item: dict[str, Any], challenges: dict[str, dict[str, Any]],
                catalog: str = "challenge/challenges.json") -> dict[str, Any]:
    """The scoreboard row of a Gallery item: a community entry when it claims a challenge
    (finish by ``finish_status``), else a maintainer reference. ``catalog`` names the
    catalog in error lines (``catalog_name``).

    Raises:
        aau_core.InputError: the claim names an unknown challenge or another track.
    """
    from aau_core import InputError

    claim = item.get("challenge")
    row_type, track, challenge_id = "reference", "Reference", None
    finished, detail = True, "Maintainer reference; a benchmark, not a community finish"
    if claim:
        challenge = challenges.get(claim["id"])
        if challenge is None:
            raise InputError(f"no challenge {claim['id']!r} in {catalog}",
                             source=item["record_path"], path="$.challenge.id")
        if claim["track"] != challenge["track"]:
            raise InputError(f"challenge {claim['id']!r} is on the {challenge['track']} track",
                             source=item["record_path"], path="$.challenge.track")
        row_type, track, challenge_id = "community", claim["track"], claim["id"]
        finished, detail = finish_status(item, track)
    return {
        "entry_id": item["id"], "type": row_type, "track": track, "challenge_id": challenge_id,
        "title": item["title"], "lab_path": item["lab_path"], "contributor": item["contributor"],
        "trust": item["trust"], "evidence": item["evidence"],
        "achievements": achievements_for(item) if finished else [], "finish": finished,
        "finish_detail": detail,
        "record_path": item["record_path"],
    }


def load_receipts(root: Path, challenges: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Scoreboard rows of every ``challenge/entries/*.json`` (each through
    ``check_challenge_entry``)."""
    from ._documents import read_document

    rows = []
    for path in sorted((root / "challenge" / "entries").glob("*.json")):
        source = path.relative_to(root).as_posix()
        receipt = read_document(ENTRY_KIND, path)
        rows.append(check_challenge_entry(root, receipt, source=source, challenges=challenges,
                                          file_name=path.name))
    return rows


def build_challenge(root: Path | None) -> dict[str, Any]:
    """The whole challenge: the catalog plus ``stats``, ``scoreboard`` and ``boundary``.

    Args:
        root: the root folder, or ``None`` for the bundled catalog (an empty scoreboard).

    Returns:
        ``{version, tracks, achievements, challenges, stats{live_challenges,
        community_participants, community_finishes, reference_finishes, achievements},
        scoreboard[...], boundary}`` (1.6's shape); the scoreboard lists community rows first,
        finished before unfinished, then by title. A root without gallery/ has no Gallery rows.

    Raises:
        aau_core.InputError: an invalid catalog, receipt or Gallery entry.
    """
    catalog = load_challenge_catalog(root)
    challenges = {c["id"]: c for c in catalog["challenges"]}
    rows = [] if root is None else load_receipts(root, challenges)
    if root is not None and (root / "gallery").is_dir():
        rows += [gallery_row(item, challenges, catalog_name(root))
                 for item in build_gallery(root)["entries"]]
    rows.sort(key=lambda r: (r["type"] != "community", not r["finish"], r["title"]))
    community = [r for r in rows if r["type"] == "community"]
    return {
        **catalog,
        "stats": {
            "live_challenges": len(catalog["challenges"]),
            "community_participants": len({r["contributor"]["github"].lstrip("@").lower()
                                           for r in community}),
            "community_finishes": sum(r["finish"] for r in community),
            "reference_finishes": sum(r["type"] == "reference" for r in rows),
            "achievements": len(catalog["achievements"]),
        },
        "scoreboard": rows,
        "boundary": BOUNDARY,
    }


def resolve_challenge(catalog: dict[str, Any], target: str) -> dict[str, Any]:
    """The challenge whose id or number is ``target``.

    Raises:
        aau_core.UsageError: none matches.
    """
    from aau_core import UsageError

    for challenge in catalog["challenges"]:
        if target in (challenge["id"], challenge["number"]):
            return challenge
    raise UsageError(f"no challenge has the id or number {target!r}")


def render_challenge(challenge: dict[str, Any], root: Path | None) -> str:
    """The text ``aau challenge show`` prints for one mission: the mission, its lab (looked for
    under ``root``; None: the current folder), which catalog it comes from, and the next
    command: the one that makes the lab while it is missing, else writing a receipt (Reproduce,
    Break) or a Gallery entry (Adapt) and validating it."""
    base = (Path.cwd() if root is None else root).resolve()
    lab = base / challenge["starter_lab"]
    where = ("in this folder" if base == Path.cwd().resolve() else f"under {shown_path(base)}")
    lines = [
        f"{challenge['number']} · {challenge['track']} · {challenge['title']}",
        f"For:      {challenge['beneficiary']}",
        f"Time:     about {challenge['minutes']} minutes",
        f"Mission:  {challenge['mission']}",
        f"Trap:     {challenge['trap']}",
        f"Success:  {challenge['success']}",
        f"Evidence: {challenge['artifact']}",
        f"Lab:      {challenge['starter_lab']}"
        + ("" if lab.is_dir() else f"  (not {where} yet)"),
        f"Catalog:  {catalog_label(root)}",
        "",
    ]
    if not lab.is_dir():
        return "\n".join([*lines, "Run it for $0:", f"  {challenge['command']}"])
    lines.append(f"The lab exists at {shown_path(lab)}. Next:")
    if challenge["track"] == "Adapt":
        lines += ["  write gallery/entries/YOUR-ENTRY.json (kind gallery-entry) claiming "
                  f"challenge {challenge['id']!r}, then",
                  "  aau challenge validate YOUR-ENTRY"]
    else:
        root_option = "" if root is None or base == Path.cwd().resolve() \
            else f" --root {shown_path(base)}"
        lines += [f"  aau challenge receipt {challenge['number']} --id YOUR-ID --github "
                  f"YOUR-HANDLE --scenario SCENARIO-ID --claim \"WHAT YOU FOUND\"{root_option}",
                  f"  aau challenge validate YOUR-ID{root_option}",
                  f"  (SCENARIO-ID: a scenario_id in {challenge['starter_lab']}/evals/ that "
                  "your note traces)"]
    return "\n".join(lines)


def row_for_file(root: Path, path: Path, challenges: dict[str, dict[str, Any]]
                 ) -> dict[str, Any]:
    """The scoreboard row of one receipt or Gallery entry file (a submission not committed
    yet, or a committed one), told apart by its ``schema_version``.

    Raises:
        aau_core.UsageError: a Gallery entry that claims no challenge.
        aau_core.InputError / InvalidDocumentError: the file is invalid or breaks a rule.
    """
    from aau_core import UsageError, check_document

    from ._documents import read_json
    from ._gallery import GALLERY_VERSION, GalleryContext, evaluate_entry

    doc = read_json(path)
    try:
        source = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        source = str(path)
    version = doc.get("schema_version") if isinstance(doc, dict) else None
    if version == GALLERY_VERSION:
        entry = check_document("gallery-entry", doc, str(path))
        item = evaluate_entry(GalleryContext(root), entry, record_path=source)
        if not entry.get("challenge"):
            raise UsageError(f"{path}: this gallery entry claims no challenge")
        return gallery_row(item, challenges, catalog_name(root))
    receipt = check_document(ENTRY_KIND, doc, str(path))
    committed = path.parent.resolve() == (root / "challenge" / "entries").resolve()
    return check_challenge_entry(root, receipt, source=source, challenges=challenges,
                                 file_name=path.name if committed else None)


def validate_challenge(root: Path, target: str | None) -> dict[str, Any]:
    """What ``aau challenge validate`` checks: the community rows TARGET selects.

    Args:
        root: the root (``challenge_root()`` when none is given).
        target: a receipt or Gallery entry id; else a challenge id or number (every
            community entry of that mission); else a receipt or Gallery entry file; ``None``:
            every community entry, after checking (for a root's own catalog only, as 1.6
            did) that every starter lab is a folder. The bundled catalog's labs are made on
            demand by ``aau new-use-case`` and ``aau forge``, so none is required.

    Returns:
        ``{"rows": [scoreboard row], "challenge": the mission TARGET names or None,
        "catalog": catalog_label(root)}``; ``rows`` may be empty (nothing to check yet).

    Raises:
        aau_core.UsageError: TARGET names no entry, mission or file.
        aau_core.InputError: a missing starter lab, or a file that breaks a rule.
    """
    from aau_core import InputError, UsageError

    label = catalog_label(root)
    if target is not None and target.endswith(".json") and Path(target).is_file():
        catalog = load_challenge_catalog(root)
        row = row_for_file(root, Path(target), {c["id"]: c for c in catalog["challenges"]})
        return {"rows": [row], "challenge": None, "catalog": label}
    data = build_challenge(root)
    if target is None and catalog_path(root) != BUNDLED_CHALLENGES:
        missing = missing_starter_labs(root, data)
        if missing:
            index, lab = missing[0]
            raise InputError(f"starter lab {lab!r} is not a folder under {root}",
                             source=str(catalog_path(root)),
                             path=f"$.challenges[{index}].starter_lab")
    community = [r for r in data["scoreboard"] if r["type"] == "community"]
    if target is None:
        return {"rows": community, "challenge": None, "catalog": label}
    rows = [r for r in community if r["entry_id"] == target]
    if rows:
        return {"rows": rows, "challenge": None, "catalog": label}
    mission = next((c for c in data["challenges"] if target in (c["id"], c["number"])), None)
    if mission is None and target.endswith(".json"):
        raise UsageError(f"{target}: no such file")
    if mission is None:
        raise UsageError(f"no community challenge entry or challenge has the id {target!r}")
    return {"rows": [r for r in community if r["challenge_id"] == mission["id"]],
            "challenge": mission, "catalog": label}


def render_nothing_to_validate(root: Path, mission: dict[str, Any] | None) -> str:
    """The one line ``aau challenge validate`` prints when there is no entry to check."""
    where = shown_path(root)
    if mission is None:
        return (f"No community challenge entry in {where} yet: write a receipt with `aau "
                "challenge receipt` (see `aau challenge show C01`) or a Gallery entry that "
                "claims a challenge.")
    if mission["track"] == "Adapt":
        how = f"a Gallery entry in gallery/entries/ that claims {mission['id']!r}"
    else:
        how = (f"a receipt with `aau challenge receipt {mission['number']}` "
               f"(see `aau challenge show {mission['number']}`)")
    return (f"No entry for {mission['number']} ({mission['id']}) in {where} yet: write {how}.")


def write_receipt(root: Path, target: str, *, entry_id: str, github: str,
                  scenario_ids: list[str], claim: str, name: str | None = None,
                  result: str | None = None, force: bool = False) -> tuple[Path, Path]:
    """Write a receipt ``challenge/entries/<entry_id>.json`` and its note
    ``challenge/receipts/<entry_id>.md`` under ``root`` for the mission ``target`` (id or
    number, a Reproduce or Break one), after checking them by ``aau challenge validate``'s
    rules, so nothing is written that would not validate.

    Args:
        root: the root; the mission's starter lab must be a folder in it.
        target: the mission's id or number.
        entry_id: the receipt id (lowercase hyphenated slug).
        github: the contributor's GitHub handle.
        scenario_ids: one to ten scenario ids of the lab (the ones the note traces).
        claim: what was reproduced or broken (at most 240 characters).
        name: the contributor's name (default: the handle).
        result: the result file, relative to the root (default:
            ``<starter_lab>/results/eval_mock.json``, the three-repeat mock run
            ``aau new-use-case`` writes).
        force: replace an existing receipt and note.

    Returns:
        the receipt's and the note's paths.

    Raises:
        aau_core.UsageError: the mission is unknown, on the Adapt track, or its lab is missing.
        aau_core.InvalidDocumentError: the receipt would not be a valid ``challenge-entry``.
        aau_core.InputError: it breaks a rule (``check_challenge_entry``).
        aau_core.OutputError: a file exists (without ``force``) or cannot be written.
    """
    from aau_core import UsageError, check_document, json_content, write_outputs

    catalog = load_challenge_catalog(root)
    mission = resolve_challenge(catalog, target)
    if mission["track"] == "Adapt":
        raise UsageError(f"{mission['number']} is an Adapt challenge: it is finished by a "
                         "Gallery entry that claims it, not a receipt")
    lab = root / mission["starter_lab"]
    if not lab.is_dir():
        raise UsageError(f"no lab {mission['starter_lab']!r} under {root} yet: run "
                         f"`{mission['command']}` there first")
    result_path = result or f"{mission['starter_lab']}/results/eval_mock.json"
    note_rel = f"challenge/receipts/{entry_id}.md"
    receipt = {
        "schema_version": "aau-challenge-entry/1.0", "id": entry_id,
        "challenge_id": mission["id"], "track": mission["track"],
        "contributor": {"name": name or github.lstrip("@"), "github": github},
        "lab_path": mission["starter_lab"], "claim": claim,
        "evidence": {"result_path": result_path, "note_path": note_rel,
                     "scenario_ids": list(scenario_ids)},
    }
    receipt_rel = f"challenge/entries/{entry_id}.json"
    check_document(ENTRY_KIND, receipt, receipt_rel)
    note = _receipt_note(root, mission, receipt)
    check_challenge_entry(root, receipt, source=receipt_rel, file_name=f"{entry_id}.json",
                          challenges={c["id"]: c for c in catalog["challenges"]},
                          note_text=note)
    receipt_file, note_file = root / receipt_rel, root / note_rel
    write_outputs({receipt_file: json_content(receipt), note_file: note}, force=force)
    return receipt_file, note_file


def _receipt_note(root: Path, mission: dict[str, Any], receipt: dict[str, Any]) -> str:
    evidence = receipt["evidence"]
    try:
        doc = json.loads(read_text(root / evidence["result_path"]) or "null")
    except json.JSONDecodeError:
        doc = None
    means = doc.get("metric_means") if isinstance(doc, dict) else None
    lines = [f"# {receipt['id']}: {mission['number']} · {mission['title']}", "",
             receipt["claim"], "",
             f"- challenge: `{mission['id']}` ({mission['track']}), lab `{receipt['lab_path']}`",
             f"- made with: `{mission['command']}`",
             f"- result: `{evidence['result_path']}`"]
    if isinstance(means, dict) and means:
        lines.append("- metric means: " + ", ".join(f"{k} {v}" for k, v in sorted(means.items())))
    lines.append("- scenarios traced: " + ", ".join(f"`{s}`" for s in evidence["scenario_ids"]))
    return "\n".join(lines) + "\n"
