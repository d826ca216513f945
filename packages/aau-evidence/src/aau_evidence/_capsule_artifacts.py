"""The artifact files an Impact Capsule binds: reading them safely and cross-checking their
content with what the capsule declares about them.

Each check returns ``(json_path, message)`` problems located at the capsule's artifact entry
(``$.artifacts.agent_receipt.primary_metric.value``), with the artifact file named in the message.
Formula sources: the scenario-id hash is aau-harness 1.6's ``sha256_json`` of the sorted unique
ids (``aau_schemas.legacy_sha256_json``); the study hash is the same function of the study; a
suite's aau-harness hash is ``aau_schemas.legacy_suite_sha256``.
"""

from __future__ import annotations

import math
import stat
from pathlib import Path
from typing import Any

import aau_schemas
from aau_core import InputError, schema_problems
from aau_schemas import sha256_hex

from ._capsule import (
    MAX_ARTIFACT_BYTES,
    OBSERVATION_KIND,
    REPRODUCTION_KIND,
    REVIEW_REPORT_KIND,
    Locator,
    Problems,
    parse_json_bytes,
    present_artifacts,
    same_number,
)


class _Artifact:
    """One located, read artifact: slot, declared entry, file path, bytes, parsed JSON."""

    def __init__(self, slot: str, entry: dict[str, Any], path: Path, data: bytes):
        self.slot, self.entry, self.path, self.data = slot, entry, path, data
        self.at = f"$.artifacts.{slot}"

    def json(self) -> Any:
        return parse_json_bytes(self.data, str(self.path))


def read_artifact_bytes(path: Path) -> bytes:
    """The bytes of a regular, non-symlink file of at most ``MAX_ARTIFACT_BYTES``.

    Raises:
        InputError: missing, a symlink, not a regular file, too large, or unreadable.
    """
    try:
        st = path.lstat()
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=str(path)) from None
    if stat.S_ISLNK(st.st_mode):
        raise InputError("is a symlink; artifacts must be regular files", source=str(path))
    if not stat.S_ISREG(st.st_mode):
        raise InputError("not a regular file", source=str(path))
    if st.st_size > MAX_ARTIFACT_BYTES:
        raise InputError(f"{st.st_size} bytes; artifacts are at most {MAX_ARTIFACT_BYTES}",
                         source=str(path))
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=str(path)) from None


def artifact_problems(capsule: dict[str, Any], locate: Locator) -> Problems:
    """Locate, read and hash-check every artifact, then cross-check the contents (each slot's
    checks run only when its file and the files it depends on were read intact)."""
    p: Problems = []
    read: dict[str, _Artifact] = {}
    for slot, entry in present_artifacts(capsule):
        at = f"$.artifacts.{slot}"
        try:
            path = locate(slot, entry)
            data = read_artifact_bytes(path)
        except InputError as exc:
            # an error that already names its JSON path in the capsule (check_relative_path)
            # gives its message alone: the capsule and the path are added once, by the caller
            p.append((exc.path, exc.message) if exc.path else (f"{at}.path", str(exc)))
            continue
        if sha256_hex(data) != entry["sha256"]:
            p.append((f"{at}.sha256", f"{path}: the file's SHA-256 differs (hash drift)"))
            continue
        read[slot] = _Artifact(slot, entry, path, data)
    checks = (("suite", (), _check_suite), ("agent_receipt", ("suite",), _check_receipt),
              ("human_study", ("suite",), _check_study),
              ("human_baseline", ("human_study",), _check_baseline),
              ("public_value_observation", (), _check_observation),
              ("reproduction", (), _check_reproduction),
              ("review_report", ("agent_receipt",), _check_review_report))
    for slot, needs, check in checks:
        if slot in read and all(n in read for n in needs):
            try:
                p += check(read[slot], read, capsule)
            except InputError as exc:  # the artifact is not JSON (or not strict JSON)
                p.append((read[slot].at, str(exc)))
    return p


def _suite_ids(suite: _Artifact) -> tuple[list[Any] | None, Problems]:
    """The suite file's scenario ids (``None`` when they cannot be read) and problems."""
    e = suite.entry
    if e["suite_kind"] == "domain_scenario_jsonl":
        try:
            lines = [ln for ln in suite.data.decode("utf-8").splitlines() if ln.strip()]
            rows = [parse_json_bytes(ln.encode(), f"{suite.path}: line {i + 1}")
                    for i, ln in enumerate(lines)]
        except (UnicodeDecodeError, InputError) as exc:
            return None, [(suite.at, f"{suite.path}: not JSON Lines: {exc}")]
        ids = [r.get("scenario_id") if isinstance(r, dict) else None for r in rows]
    else:
        doc = suite.json()
        cases = doc.get("cases") if isinstance(doc, dict) else None
        if not isinstance(cases, list):
            return None, [(suite.at, f"{suite.path}: not an aau suite (no cases list)")]
        if doc.get("suite_id") != e["suite_id"]:
            return None, [(f"{suite.at}.suite_id", f"{suite.path} has suite_id "
                           f"{doc.get('suite_id')!r}")]
        ids = [c.get("scenario_id") if isinstance(c, dict) else None for c in cases]
    p: Problems = []
    if len(ids) != e["scenario_count"]:
        p.append((f"{suite.at}.scenario_count", f"{suite.path} holds {len(ids)} scenarios"))
    if not all(isinstance(i, str) and i.strip() for i in ids):
        p.append((suite.at, f"{suite.path}: every scenario needs a non-empty scenario_id"))
    elif len(set(ids)) != len(ids):
        p.append((suite.at, f"{suite.path}: scenario ids are not unique"))
    return (ids if not p else None), p


def _check_suite(suite: _Artifact, read: dict[str, _Artifact], capsule: dict[str, Any]) -> Problems:
    return _suite_ids(suite)[1]


def _suite_hashes(suite: _Artifact) -> set[str]:
    """The hashes a suite may be bound by: its file's SHA-256, and for an aau suite its
    aau-harness hash (``legacy_suite_sha256`` of the parsed file)."""
    hashes = {suite.entry["sha256"]}
    if suite.entry["suite_kind"] == "aau_byo_suite":
        try:
            hashes.add(aau_schemas.legacy_suite_sha256(suite.json()))
        except (InputError, ValueError, TypeError):
            pass
    return hashes


def _check_receipt(receipt: _Artifact, read: dict[str, _Artifact],
                   capsule: dict[str, Any]) -> Problems:
    e, doc, at = receipt.entry, receipt.json(), receipt.at
    metric = e["primary_metric"]
    name = metric["name"]
    where = str(receipt.path)
    if not isinstance(doc, dict):
        return [(at, f"{where}: an agent receipt is a JSON object")]
    p: Problems = []
    if e["receipt_kind"] == "aau_domain_eval":
        means, cis = doc.get("metric_means"), doc.get("metric_ci95")
        means = means if isinstance(means, dict) else {}
        cis = cis if isinstance(cis, dict) else {}
        rows = doc.get("results") if isinstance(doc.get("results"), list) else []
        facts = [("model", doc.get("model"), e["model"], "model"),
                 ("n_scenarios", doc.get("n_scenarios"), metric["scenario_count"],
                  "primary_metric.scenario_count"),
                 ("n_repeats", doc.get("n_repeats"), metric["repeats"], "primary_metric.repeats")]
        numbers = [(f"metric_means.{name}", means.get(name), metric["value"], "value"),
                   (f"metric_ci95.{name}", cis.get(name), metric["interval_95"], "interval_95"),
                   ("mean_cost_per_scenario_usd", doc.get("mean_cost_per_scenario_usd"),
                    metric["mean_cost_per_scenario_usd"], "mean_cost_per_scenario_usd"),
                   ("p50_latency_s", doc.get("p50_latency_s"), metric["p50_latency_s"],
                    "p50_latency_s")]
    else:
        kind = aau_schemas.detect_kind(doc)
        if kind not in ("receipt-v1", "receipt-v2"):
            private = "private_receipt_version" in doc
            return [(f"{at}.path", f"{where}: " + (
                "a private receipt detail file is never public evidence" if private else
                "not an aau-byo-agent-receipt/1.0 or /2.0 receipt"))]
        p += [(f"{at}.path", f"{where}: {path}: {msg}") for path, msg in
              schema_problems(kind, doc)[:5]]
        if p:
            return p
        if doc["adapter_kind"] == "mock":
            p.append((f"{at}.path", f"{where}: a mock receipt is not evidence about an agent"))
        rows = doc["results"]
        means = doc["metrics"]
        facts = [("scenario_count", doc["scenario_count"], metric["scenario_count"],
                  "primary_metric.scenario_count"),
                 ("suite_id", doc["suite_id"], read["suite"].entry["suite_id"], "")]
        numbers = [(f"metrics.{name}", means.get(name), metric["value"], "value")]
        if e["suite_binding"] == "hash_bound" and doc["suite_sha256"] not in _suite_hashes(
                read["suite"]):
            p.append((f"{at}.suite_binding", f"{where}: suite_sha256 is not the bound suite's; "
                      "hash_bound is not supported by the receipt"))
    for label, found, declared, field in facts:
        if found != declared:
            p.append((f"{at}.{field}" if field else at, f"{where}: {label} is {found!r}, the capsule says {declared!r}"))
    for label, found, declared, field in numbers:
        same = (same_number(found, declared) if not isinstance(declared, list) else
                isinstance(found, list) and len(found) == len(declared)
                and all(same_number(a, b) for a, b in zip(found, declared, strict=True)))
        if not same:
            p.append((f"{at}.primary_metric.{field}",
                      f"{where}: {label} is {found!r}, the capsule says {declared!r}"))
    ids = sorted({r["scenario_id"] for r in rows
                  if isinstance(r, dict) and isinstance(r.get("scenario_id"), str)})
    if len(ids) != metric["scenario_count"]:
        p.append((f"{at}.primary_metric.scenario_count",
                  f"{where}: the results cover {len(ids)} distinct scenarios"))
    if aau_schemas.legacy_sha256_json(ids) != e["scenario_ids_sha256"]:
        p.append((f"{at}.scenario_ids_sha256", f"{where}: differs from the hash of the receipt's "
                  "sorted scenario ids"))
    suite_ids, _ = _suite_ids(read["suite"])
    if suite_ids is not None and ids != sorted(suite_ids):
        p.append((f"{at}.scenario_ids_sha256", f"{where}: the receipt's scenario ids are not the "
                  "suite's"))
    return p


def _file_schema_problems(art: _Artifact, kind: str, doc: Any, limit: int = 5) -> Problems:
    """``kind``'s schema violations of an artifact file, located at the artifact's path entry."""
    return [(f"{art.at}.path", f"{art.path}: {path}: {msg}")
            for path, msg in schema_problems(kind, doc)[:limit]]


def _mismatches(art: _Artifact, facts: list[tuple[str, Any, Any, str]]) -> Problems:
    """``(label, found in the file, declared in the capsule, capsule field)`` rows that differ
    (in value or JSON type)."""
    return [(f"{art.at}.{field}", f"{art.path}: {label} is {found!r}, the capsule says "
             f"{declared!r}")
            for label, found, declared, field in facts
            if found != declared or type(found) is not type(declared)]


def _study(read: dict[str, _Artifact]) -> tuple[dict[str, Any] | None, Problems]:
    from aau_baseline import Study, check_study

    from ._converter import converter

    art = read["human_study"]
    doc = art.json()
    p = _file_schema_problems(art, "human-baseline-study", doc)
    if p:
        return None, p
    try:
        check_study(converter.structure(doc, Study), str(art.path))
    except InputError as exc:
        return None, [(f"{art.at}.path", str(exc).splitlines()[0])]
    return doc, []


def _check_study(art: _Artifact, read: dict[str, _Artifact], capsule: dict[str, Any]) -> Problems:
    study, p = _study(read)
    if study is None:
        return p
    suite = read["suite"]
    if study["suite_id"] != suite.entry["suite_id"]:
        p.append((art.at, f"{art.path}: the study is for suite {study['suite_id']!r}, not the "
                  "capsule's"))
    elif study["suite_sha256"] not in _suite_hashes(suite):
        p.append((art.at, f"{art.path}: the study's suite_sha256 is not the bound suite's"))
    return p


def _check_baseline(art: _Artifact, read: dict[str, _Artifact],
                    capsule: dict[str, Any]) -> Problems:
    from aau_baseline import Report, check_baseline_report

    from ._converter import converter

    study, p = _study(read)
    if study is None:
        return []  # reported under human_study
    doc, e, where = art.json(), art.entry, str(art.path)
    p = _file_schema_problems(art, "human-baseline-report", doc)
    if p:
        return p
    try:
        check_baseline_report(converter.structure(doc, Report), where)
    except InputError as exc:
        return [(f"{art.at}.path", str(exc).splitlines()[0])]
    study_hash = aau_schemas.legacy_sha256_json(study)
    if doc["study_sha256"] != study_hash or e["study_sha256"] != study_hash:
        p.append((f"{art.at}.study_sha256", f"{where}: the report, the capsule and the study's "
                  "hash must agree"))
    facts = [("session_count", doc["source"]["session_count"], e["session_count"]),
             ("observed_human_sessions",
              doc["human_protection_summary"]["observed_human_sessions"],
              e["observed_human_sessions"]),
             ("exact_rate", doc["metrics"]["outcome_exact_rate"], e["exact_rate"]),
             ("abstain_rate", doc["metrics"]["abstain_rate"], e["abstain_rate"])]
    for field, found, declared in facts:
        if not same_number(found, declared):
            p.append((f"{art.at}.{field}", f"{where}: the report says {found!r}"))
    return p


def _check_observation(art: _Artifact, read: dict[str, _Artifact],
                       capsule: dict[str, Any]) -> Problems:
    doc, e, where = art.json(), art.entry, str(art.path)
    p = _file_schema_problems(art, OBSERVATION_KIND, doc, limit=20)
    if p:
        return p
    ids = [r["metric_id"] for r in doc["metric_results"]]
    if len(set(ids)) != len(ids):
        p.append((f"{art.at}.path", f"{where}: metric_results repeat a metric_id"))
    if any(not math.isfinite(r[k]) for r in doc["metric_results"]
           for k in ("baseline_value", "observed_value")):
        p.append((f"{art.at}.path", f"{where}: metric values must be finite"))
    facts = [("capsule_id", doc["capsule_id"], capsule["capsule_id"], "path"),
             ("method", doc["method"], e["observation_kind"], "observation_kind"),
             ("causal_claim", doc["causal_claim"], e["causal_claim"], "causal_claim"),
             ("metric ids", sorted(set(ids)), sorted(set(e["metric_ids"])), "metric_ids")]
    return p + _mismatches(art, facts)


def _check_reproduction(art: _Artifact, read: dict[str, _Artifact],
                        capsule: dict[str, Any]) -> Problems:
    doc, e, where = art.json(), art.entry, str(art.path)
    p = _file_schema_problems(art, REPRODUCTION_KIND, doc, limit=20)
    if p:
        return p
    sources = {r["artifact_id"]: r["sha256"] for r in doc["source_artifacts"]}
    if len(sources) != len(doc["source_artifacts"]):
        p.append((f"{art.at}.path", f"{where}: source_artifacts repeat an artifact_id"))
    current = {a["artifact_id"]: a["sha256"] for _, a in present_artifacts(capsule)}
    art_ids = capsule["artifacts"]
    for slot in ("suite", "agent_receipt"):
        if art_ids[slot]["artifact_id"] not in sources:
            p.append((f"{art.at}.path", f"{where}: source_artifacts must include the {slot} "
                      f"({art_ids[slot]['artifact_id']!r})"))
    for artifact_id, digest in sources.items():
        if current.get(artifact_id) != digest:
            p.append((f"{art.at}.path", f"{where}: source artifact {artifact_id!r} is not bound "
                      "with that SHA-256 by this capsule (reproduced something else)"))
    for i, row in enumerate(doc["metric_checks"]):
        within = abs(row["source_value"] - row["reproduced_value"]) <= row["tolerance"]
        if row["within_tolerance"] is not within:
            p.append((f"{art.at}.path", f"{where}: $.metric_checks[{i}].within_tolerance must be "
                      f"{str(within).lower()} (|source - reproduced| <= tolerance)"))
    facts = [("source_capsule_id", doc["source_capsule_id"], capsule["capsule_id"], "path"),
             ("organization_id", doc["organization_id"], e["organization_id"], "organization_id"),
             ("outcome", doc["outcome"], e["outcome"], "outcome")]
    return p + _mismatches(art, facts)


def _check_review_report(art: _Artifact, read: dict[str, _Artifact],
                         capsule: dict[str, Any]) -> Problems:
    """A 1.1 capsule's review report: its schema and aau review's report rules
    (``aau_review.check_review_report``), and that it reviews this capsule's run: the receipt
    SHA-256 it binds (``source.receipt_sha256``) and the one the capsule declares for it are the
    agent receipt's, and its suite is the capsule's suite."""
    from aau_review import ReviewReport, check_review_report

    from ._converter import converter

    doc, e, where = art.json(), art.entry, str(art.path)
    p = _file_schema_problems(art, REVIEW_REPORT_KIND, doc)
    if p:
        return p
    try:
        check_review_report(converter.structure(doc, ReviewReport), where)
    except InputError as exc:
        return [(f"{art.at}.path", str(exc).splitlines()[0])]
    receipt = read["agent_receipt"].entry["sha256"]
    if doc["source"]["receipt_sha256"] != receipt:
        p.append((f"{art.at}.path", f"{where}: the report reviews another receipt (SHA-256 "
                  f"{doc['source']['receipt_sha256']}), not the capsule's agent receipt "
                  f"({receipt})"))
    if e["receipt_sha256"] != receipt:
        p.append((f"{art.at}.receipt_sha256", f"must be the agent receipt's SHA-256 "
                  f"({receipt})"))
    suite_id = capsule["artifacts"]["suite"]["suite_id"]
    if doc["source"]["suite_id"] != suite_id:
        p.append((f"{art.at}.path", f"{where}: the report is for suite "
                  f"{doc['source']['suite_id']!r}, not the capsule's {suite_id!r}"))
    return p
