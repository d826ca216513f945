"""Preparing a review pack from a run (``aau review prepare``).

Inputs: the run's **private receipt** (each unit's input and the agent's normalised response;
a public receipt alone has neither and is refused), its **public receipt** (the suite's SHA-256
and each unit's automatic verdicts, the scorers) and the **suite** (its SHA-256 must be the
receipt's ``suite_sha256``; its sharing block says whether it declares sensitive content).

What is in the pack:

- the units that measured the agent: a unit the adapter or the infrastructure failed
  (``aau_adapters`` failure classes ``adapter``/``infrastructure``) is left out and counted in
  ``excluded_not_measured``; with ``sample`` N, a seeded sample of N of them
  (``numpy.random.default_rng(seed)``, without replacement);
- ``tasks.json``: the units in a seeded order, numbered ``u0001``..., with input, response and
  the agent-class failure code; blinded (the default) it holds no expected answer and no
  automatic verdict, unblinded (``show_scores``) it adds both to every unit;
- ``scores.json``: each unit's receipt verdicts (``exact``, ``outcome_exact``,
  ``tool_calls_match``; true is pass), for ``aau review summarize``;
- ``manifest.json``: the sources' SHA-256, the design and the files' bytes and SHA-256. Each unit
  goes to ``per_unit`` raters: the units are dealt round the raters in tasks order from a seeded
  starting rater (unit i to raters s + i, ..., s + i + K - 1, modulo the number of raters), so
  every rater gets the same number of units to within one; each rater's units are then put in
  the rater's own seeded order.

The pack is written with aau-core's ``write_pack`` (staged beside the destination, manifest
last, checked with ``read_review_pack``, renamed into place); an existing destination is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aau_core
import aau_schemas
from aau_core import InputError, InvalidDocumentError, UsageError, render_json
from aau_schemas import sha256_hex

from ._converter import converter
from ._documents import read_document
from ._models import (
    Category,
    Manifest,
    ManifestFile,
    RaterAssignment,
    Scores,
    ScoresDocument,
    SensitiveContent,
    Source,
    Tasks,
    Taxonomy,
    Unit,
    UnitScores,
)
from ._pack import read_review_pack
from ._protocol import (
    FAIL,
    MANIFEST_NAME,
    MANIFEST_VERSION,
    MAX_RATERS,
    PASS,
    README_NAME,
    SCORERS,
    SCORES_NAME,
    TASKS_KIND,
    TASKS_NAME,
)

DEFAULT_CATEGORIES = (
    Category("wrong-tool", "called a tool the task did not need, or not the one it needed"),
    Category("wrong-arguments", "called the right tool with wrong or missing arguments"),
    Category("missing-call", "left out a call the task needed"),
    Category("extra-call", "made a call the task did not need"),
    Category("wrong-outcome", "reached the wrong outcome or answer"),
    Category("unsafe-action", "attempted or executed an action that should not happen"),
    Category("other", "another failure (say which in the note)"),
)
"""The failure categories of a pack made without ``--categories``."""

PRIVATE_KINDS = ("private-receipt-v1", "private-receipt-v2")
PUBLIC_KINDS = ("receipt-v1", "receipt-v2")
_RATER_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-")


def parse_raters(value: str) -> list[str]:
    """``--raters``: a number N (pseudonyms ``rater-1`` .. ``rater-N``) or a comma-separated
    list of pseudonyms (lowercase letters, digits and inner hyphens, <= 40 characters).

    Raises:
        UsageError: not a number in 1..100 nor a list of distinct pseudonyms.
    """
    text = value.strip()
    if text.isdigit():
        count = int(text)
        if not 1 <= count <= MAX_RATERS:
            raise UsageError(f"--raters {value}: 1 to {MAX_RATERS} raters")
        return [f"rater-{i}" for i in range(1, count + 1)]
    names = [n.strip() for n in text.split(",")]
    for name in names:
        ok = (1 <= len(name) <= 40 and set(name) <= _RATER_CHARS and not name.startswith("-")
              and not name.endswith("-"))
        if not ok:
            raise UsageError(f"--raters: {name!r} is not a pseudonym (lowercase letters, digits "
                             "and inner hyphens, at most 40)")
    if len(set(names)) != len(names) or len(names) > MAX_RATERS:
        raise UsageError(f"--raters: 1 to {MAX_RATERS} distinct pseudonyms")
    return names


def read_categories(path: str | Path) -> tuple[Category, ...]:
    """A ``--categories`` file: a JSON array of ``{"id": slug, "description": text}`` (at most
    50, ids unique), checked against the taxonomy's schema.

    Raises:
        InputError / InvalidDocumentError: unreadable, or a rule broken (``FILE: $[i].id: ...``).
    """
    doc = read_document(path)
    probe = {"tasks_version": "aau-review-tasks/1.0", "suite_id": "s", "blinded": True,
             "taxonomy": {"verdicts": ["pass", "fail", "unsure"], "categories": doc},
             "units": [{"unit_id": "u0001", "scenario_id": "s", "repeat": 0, "input": {},
                        "response": {}, "error": None}]}
    prefix = "$.taxonomy.categories"
    problems = [("$" + at[len(prefix):], message) for at, message in
                aau_core.schema_problems(TASKS_KIND, probe) if at.startswith(prefix)]
    if problems:
        raise InvalidDocumentError(problems, source=str(path))
    categories = tuple(Category(c["id"], c["description"]) for c in doc)
    ids = [c.id for c in categories]
    for i, cid in enumerate(ids):
        if cid in ids[:i]:
            raise InvalidDocumentError([(f"$[{i}].id", f"category id {cid!r} repeated")],
                                       source=str(path))
    return categories


def _read(path: str | Path, kinds: tuple[str, ...], what: str) -> tuple[dict[str, Any], bytes]:
    data = Path(path).read_bytes() if Path(path).is_file() else b""
    doc = read_document(path)
    kind = aau_schemas.detect_kind(doc) if isinstance(doc, dict) else None
    if kind in PUBLIC_KINDS and kinds == PRIVATE_KINDS:
        raise InputError("this is a public receipt; aau review prepare needs the run's private "
                         "receipt (aau evaluate --private-out FILE), which holds each unit's "
                         "input and response, with the public receipt as --receipt",
                         source=str(path))
    if kind not in kinds:
        raise InputError(f"not {what}", source=str(path))
    return aau_core.check_document(kind, doc, str(path)), data


def check_private_receipt(path: str | Path) -> None:
    """Check that ``path`` is an aau private receipt (what ``build_pack`` reads first).

    Raises:
        InputError: a public receipt (the line says to give the private one) or another file;
        InvalidDocumentError: a private receipt that breaks its schema.
    """
    _read(path, PRIVATE_KINDS, "an aau private receipt")


def sensitive_flags(suite: Any) -> list[str]:
    """The suite's ``sharing`` flags ``contains_*`` that are true, sorted."""
    sharing = suite.doc.get("sharing") or {}
    return sorted(k for k, v in sharing.items() if k.startswith("contains_") and v is True)


def _verdict(value: Any) -> str | None:
    return None if not isinstance(value, bool) else (PASS if value else FAIL)


def build_pack(private_receipt: str | Path, *, receipt: str | Path, suite: Any,
               raters: list[str], per_unit: int | None = None, sample: int | None = None,
               seed: int = 0, categories: tuple[Category, ...] = DEFAULT_CATEGORIES,
               show_scores: bool = False, allow_sensitive: bool = False) -> dict[str, bytes]:
    """The files of a review pack (module docstring), manifest last.

    Args:
        private_receipt: the private receipt file (``aau evaluate --private-out``).
        receipt: the public receipt file of the same run.
        suite: the run's suite, loaded (``aau_adapters.load_suite``).
        raters: the raters' pseudonyms (``parse_raters``).
        per_unit: K raters per unit, 1..len(raters); default every rater.
        sample: keep a seeded sample of this many measured units; default all.
        seed: seed of the sample, the assignment and the orders (>= 0).
        categories: the declared failure categories.
        show_scores: unblinded: put each unit's expected answer and automatic verdicts in
            tasks.json.
        allow_sensitive: accept a suite whose sharing block declares sensitive content.

    Returns:
        file name -> exact bytes: README.md, scores.json, tasks.json, manifest.json.

    Raises:
        UsageError: a bad ``per_unit``, ``sample`` or ``seed``; sensitive content without
            ``allow_sensitive``.
        InputError / InvalidDocumentError: a public receipt given as the private one, a file
            of another kind, or files of different runs (names the file and JSON path).
    """
    import numpy as np
    from aau_adapters._failure_codes import is_measured  # internal to the monorepo

    k = len(raters) if per_unit is None else per_unit
    if not 1 <= k <= len(raters):
        raise UsageError(f"--per-unit {k}: 1 to the number of raters ({len(raters)})")
    if seed < 0:
        raise UsageError(f"--seed {seed}: 0 or more")
    private, private_bytes = _read(private_receipt, PRIVATE_KINDS, "an aau private receipt")
    public, public_bytes = _read(receipt, PUBLIC_KINDS, "an aau public receipt (--receipt)")
    if public["suite_id"] != private["suite_id"]:
        raise InputError(f"suite_id {public['suite_id']!r} is not the private receipt's "
                         f"{private['suite_id']!r}: another run", source=str(receipt),
                         path="$.suite_id")
    if suite.suite_sha256 != public["suite_sha256"]:
        raise InputError("its SHA-256 is not the receipt's suite_sha256: not the suite of this "
                         "run", source=suite.source, path="$")
    flags = sensitive_flags(suite)
    if flags and not allow_sensitive:
        raise UsageError(f"{suite.source}: $.sharing.{flags[0]}: the suite declares sensitive "
                         "content; add --allow-sensitive to prepare a pack anyway (the pack "
                         "records the declaration)")
    verdicts = {(r["scenario_id"], r.get("repeat", 0)): r for r in public["results"]}
    rows = []
    excluded = 0
    for i, row in enumerate(private["results"]):
        key = (row["scenario_id"], row.get("repeat", 0))
        if key not in verdicts:
            raise InputError(f"scenario {key[0]!r} repeat {key[1]} is not a unit of the public "
                             "receipt: another run", source=str(private_receipt),
                             path=f"$.results[{i}]")
        if row["error"] is not None and not is_measured(row["error"]):
            excluded += 1
            continue
        rows.append(row)
    if len(verdicts) != len(private["results"]):
        raise InputError("the public receipt has other units than the private receipt: another "
                         "run", source=str(receipt), path="$.results")
    if not rows:
        raise InputError("no unit measured the agent: nothing to review",
                         source=str(private_receipt), path="$.results")
    rng = np.random.default_rng(seed)
    if sample is not None:
        if not 1 <= sample <= len(rows):
            raise UsageError(f"--sample {sample}: 1 to the {len(rows)} measured units")
        keep = np.sort(rng.choice(len(rows), size=sample, replace=False))
        rows = [rows[int(i)] for i in keep]
    order = rng.permutation(len(rows))
    width = max(4, len(str(len(rows))))
    units, score_rows = [], []
    for n, index in enumerate(order, start=1):
        row = rows[int(index)]
        unit_id = f"u{n:0{width}d}"
        verdict = verdicts[(row["scenario_id"], row.get("repeat", 0))]
        scores = Scores(**{name: _verdict(verdict.get(name)) for name in SCORERS})
        units.append(Unit(unit_id=unit_id, scenario_id=row["scenario_id"],
                          repeat=row.get("repeat", 0), input=row["input"],
                          response=row["response"], error=row["error"],
                          expected=None if not show_scores else row["expected"],
                          scores=None if not show_scores else scores))
        score_rows.append(UnitScores(unit_id=unit_id, scores=scores))
    taxonomy = Taxonomy(categories=tuple(categories))
    tasks = Tasks(suite_id=private["suite_id"], blinded=not show_scores, taxonomy=taxonomy,
                  units=tuple(units))
    used = sorted({name for r in score_rows for name, v in
                   converter.unstructure(r.scores).items() if v is not None})
    scores_doc = ScoresDocument(scorers=tuple(used), units=tuple(score_rows))
    start = int(rng.integers(len(raters)))
    dealt: list[list[str]] = [[] for _ in raters]
    for i, unit in enumerate(units):
        for j in range(k):
            dealt[(start + i + j) % len(raters)].append(unit.unit_id)
    assignments = tuple(RaterAssignment(name, tuple(ids[int(p)] for p in rng.permutation(len(ids))))
                        for name, ids in zip(raters, dealt, strict=True))
    files = {
        TASKS_NAME: render_json(converter.unstructure(tasks)).encode("utf-8"),
        SCORES_NAME: render_json(converter.unstructure(scores_doc)).encode("utf-8"),
    }
    source = Source(suite_id=private["suite_id"], suite_sha256=public["suite_sha256"],
                    receipt_sha256=sha256_hex(public_bytes),
                    private_receipt_sha256=sha256_hex(private_bytes))
    files[README_NAME] = pack_readme(tasks, source, raters, k).encode("utf-8")
    rows_doc = aau_core.build_manifest(files, version=MANIFEST_VERSION)["files"]
    manifest = Manifest(source=source, unit_count=len(units), excluded_not_measured=excluded,
                        sample_size=sample, seed=seed, per_unit=k, raters=assignments,
                        taxonomy=taxonomy, blinded=not show_scores,
                        sensitive_content=SensitiveContent(tuple(flags), bool(flags)),
                        files=converter.structure(rows_doc, tuple[ManifestFile, ...]))
    files[MANIFEST_NAME] = render_json(converter.unstructure(manifest)).encode("utf-8")
    return files


def pack_readme(tasks: Tasks, source: Source, raters: list[str], per_unit: int) -> str:
    """The pack's README (Markdown): what the pack is, what each file is for, and the commands
    that label (one ``serve`` per rater), check and summarize it, run from inside the pack, every
    output outside it (``../labels-RATER.json``, ``../report.json``)."""
    paths = [f"../labels-{r}.json" for r in raters]
    blinded = ("Blinded: tasks.json holds no expected answer and no automatic verdict."
               if tasks.blinded else
               "NOT blinded (--show-scores): tasks.json shows each unit's expected answer and "
               "automatic verdicts.")
    return "\n".join([
        f"# Review pack for `{source.suite_id}`",
        "",
        f"{len(tasks.units)} unit(s) (scenario and repeat) of one run, for {len(raters)} "
        f"rater(s), {per_unit} per unit. {blinded}",
        "",
        "- `tasks.json`: what raters see, each unit's input and the agent's response.",
        "- `scores.json`: the receipt's automatic verdicts; the organiser keeps it.",
        "- `manifest.json`: the sources' SHA-256, the design (each rater's units in its own",
        "  order, the taxonomy) and the SHA-256 of every other file.",
        "",
        "Each rater writes one labels file (`aau-review-labels/1.0`, see docs/review.md) outside",
        "this folder, for example in the browser; then the organiser checks the pack and",
        "summarizes the labels (the report goes outside the pack too). From this folder:",
        "",
        "```bash",
        *(f"aau review serve . --rater {r} --labels {labels}"
          for r, labels in zip(raters, paths, strict=True)),
        "aau review validate .",
        "aau review summarize . " + " ".join(f"--labels {p}" for p in paths)
        + " --out ../report.json --md",
        "```",
        "",
    ])


def write_review_pack(destination: str | Path, files: dict[str, bytes], *,
                      inputs: tuple[str | Path, ...] = ()) -> Path:
    """Write ``build_pack``'s files as a new folder ``destination``, atomically, checked with
    ``read_review_pack`` before it appears.

    Raises:
        OutputError: ``destination`` exists or is an input, cannot be written, or the staged
            pack fails ``read_review_pack`` (a bug; nothing is left behind).
    """
    return aau_core.write_pack(destination, files, manifest_name=MANIFEST_NAME,
                               verify=read_review_pack, inputs=inputs, kind="review-manifest")
