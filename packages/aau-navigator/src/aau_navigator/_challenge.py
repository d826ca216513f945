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

Without a root (none given, none found above the current folder), the catalog is the one this
package ships (``challenges.json``: missions played on labs that ``aau new-use-case`` and
``aau forge`` write, so they run from any folder after ``pip install``), with no receipts and
no Gallery.
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


def load_challenge_catalog(root: Path | None) -> dict[str, Any]:
    """Read ``<root>/challenge/challenges.json`` (``root`` None: the bundled catalog,
    ``BUNDLED_CHALLENGES``) and check it.

    Raises:
        aau_core.InputError / InvalidDocumentError: unreadable, invalid against
            ``challenge-catalog``, or a challenge id or number used twice.
    """
    from aau_core import InputError

    from ._documents import read_document

    path = BUNDLED_CHALLENGES if root is None else root / "challenge" / "challenges.json"
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
                          file_name: str | None) -> dict[str, Any]:
    """Check a schema-valid challenge-entry receipt against the catalog and the committed files.

    (Not ``aau_adapters.check_receipt``, which checks an evaluation receipt's own arithmetic.)

    Args:
        root: the root folder.
        receipt: the ``challenge-entry`` document.
        source: its file name, for error lines.
        challenges: the catalog's challenges by id.
        file_name: the receipt's file name when it is committed under challenge/entries/
            (then it must be ``<id>.json``), else ``None``.

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
                                     "challenge/challenges.json")
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
    if not _inside(note_path, root / "challenge" / "receipts") or not note_path.is_file():
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
    note = read_text(note_path)
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


def gallery_row(item: dict[str, Any], challenges: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The scoreboard row of a Gallery item: a community entry when it claims a challenge
    (finish by ``finish_status``), else a maintainer reference.

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
            raise InputError(f"no challenge {claim['id']!r} in challenge/challenges.json",
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
        rows += [gallery_row(item, challenges) for item in build_gallery(root)["entries"]]
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
    """The text ``aau challenge show`` prints for one mission (``root`` None: the bundled
    catalog, whose labs are looked for in the current folder)."""
    here = Path.cwd() if root is None else root
    missing = "  (not in this folder yet)" if root is None else "  (not under this root)"
    lines = [
        f"{challenge['number']} · {challenge['track']} · {challenge['title']}",
        f"For:      {challenge['beneficiary']}",
        f"Time:     about {challenge['minutes']} minutes",
        f"Mission:  {challenge['mission']}",
        f"Trap:     {challenge['trap']}",
        f"Success:  {challenge['success']}",
        f"Evidence: {challenge['artifact']}",
        f"Lab:      {challenge['starter_lab']}"
        + ("" if (here / challenge["starter_lab"]).is_dir() else missing),
        "",
        "Run it for $0:",
        f"  {challenge['command']}",
    ]
    return "\n".join(lines)
