"""Summaries of degenerate designs: no unit with two usable ratings, one category, all unsure,
a judge that labelled fewer units. Every statistic is then undefined (value or interval null)
with the reason, the consensus still reported, and summarize never raises anything but the
documented one-line errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import aau_schemas
import pytest
from aau_core import run
from aau_review import (
    build_review_report,
    check_review_report,
    read_labels,
    read_review_pack,
    report_markdown,
)
from aau_review._summary import INTERVAL_UNDEFINED, NO_PAIR, ONE_CATEGORY, report_document
from aau_schemas import sha256_hex

VERDICTS = ("pass", "fail", "unsure")


def _write_labels(pack: Path, out: Path, rater: str, verdicts: dict[str, str],
                  kind: str = "human") -> Path:
    doc = {"labels_version": "aau-review-labels/1.0",
           "tasks_sha256": sha256_hex((pack / "tasks.json").read_bytes()),
           "rater": {"pseudonym": rater, "kind": kind},
           "labels": [{"unit_id": u, "verdict": v, "categories": [], "time_spent_s": 1.0,
                       "labelled_at": "2026-12-01T10:00:00Z"} for u, v in verdicts.items()]}
    if kind == "model":
        doc["rater"]["model"] = {"served": "mock:judge", "prompt_sha256": "0" * 64,
                                 "settings": {}}
    path = out / f"labels-{rater}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _assigned(pack: Path) -> dict[str, list[str]]:
    manifest = json.loads((pack / "manifest.json").read_text(encoding="utf-8"))
    return {r["rater"]: r["units"] for r in manifest["raters"]}


@pytest.fixture
def pack3(tmp_path, prepare) -> Path:
    out = tmp_path / "pack3"
    assert prepare(out, "--raters", "a,b,c", "--seed", "3") == 0
    return out


def test_three_raters_one_labels_file_reports_undefined_with_reasons(pack3, tmp_path, capsys):
    units = _assigned(pack3)["a"]
    labels = _write_labels(pack3, tmp_path, "a", {u: "pass" for u in units})
    out = tmp_path / "report.json"
    assert run(["review", "summarize", str(pack3), "--labels", str(labels), "--out", str(out),
                "--md"]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    aau_schemas.validate("review-report", doc)
    a = doc["human_agreement"]
    assert a["krippendorff_alpha"] == {"value": None, "ci95": None, "n": 0,
                                       "interval": "bootstrap", "undefined": NO_PAIR}
    assert a["percent_agreement"]["undefined"] == NO_PAIR
    assert a["cohen_kappa"]["undefined"] == "Cohen's kappa needs exactly two human raters"
    assert a["fleiss_kappa"]["value"] is None and "no unit with all K = 3 ratings" in \
        a["fleiss_kappa"]["undefined"]
    assert doc["consensus"]["pass"] == len(units) == 5  # the consensus is still reported
    printed = capsys.readouterr().err
    assert f"Krippendorff alpha  undefined ({NO_PAIR})" in printed
    assert f"| Krippendorff's α (nominal) | undefined ({NO_PAIR}) | 0 |" in \
        out.with_suffix(".md").read_text(encoding="utf-8")


def test_two_raters_all_unsure(example_pack, tmp_path):
    assigned = _assigned(example_pack)
    files = [_write_labels(example_pack, tmp_path, r, {u: "unsure" for u in units})
             for r, units in assigned.items()]
    out = tmp_path / "report.json"
    args = ["review", "summarize", str(example_pack), "--out", str(out)]
    for f in files:
        args += ["--labels", str(f)]
    assert run(args) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    a = doc["human_agreement"]
    assert [a[k]["value"] for k in ("percent_agreement", "cohen_kappa", "fleiss_kappa",
                                    "krippendorff_alpha")] == [None] * 4
    assert a["cohen_kappa"]["undefined"] == "no unit rated pass or fail by both raters"
    assert doc["consensus"] == {"pass": 0, "fail": 0, "unsure": 5, "unlabelled": 0, "ties": []}
    for s in doc["scorers"]:
        assert s["units"] == 0 and s["accuracy"]["value"] is None
        assert s["accuracy"]["undefined"].startswith("no unit has both")


def test_one_category_everywhere_leaves_alpha_and_both_kappas_undefined(example_pack,
                                                                        tmp_path):
    """Every rating is pass: percent agreement is 1.0, but both kappas and alpha are 0/0. They
    are null with their reason, never Fleiss 1.0 beside an undefined Cohen's on the same data."""
    files = [_write_labels(example_pack, tmp_path, r, {u: "pass" for u in units})
             for r, units in _assigned(example_pack).items()]
    pack = read_review_pack(example_pack)
    report = build_review_report(pack, read_labels(files, pack), resamples=50)
    a = report.human_agreement
    assert a.percent_agreement.value == 1.0
    assert a.fleiss_kappa.value is None and a.fleiss_kappa.ci95 is None
    assert a.fleiss_kappa.undefined.startswith("chance agreement p_e = 1")
    assert a.krippendorff_alpha.value is None and a.krippendorff_alpha.undefined == ONE_CATEGORY
    assert a.cohen_kappa.value is None and a.cohen_kappa.undefined.startswith("chance agreement")


def test_a_value_without_interval_says_why(example_pack, tmp_path, capsys):
    # two people agree on every unit (3 pass, 2 fail); a judge agrees on 2 of them: kappa 1 over
    # 2 units, but half of the resamples draw one unit twice (p_e = 1): no interval
    verdicts = {"u0001": "pass", "u0002": "pass", "u0003": "fail", "u0004": "fail",
                "u0005": "pass"}
    files = [_write_labels(example_pack, tmp_path, r, {u: verdicts[u] for u in units})
             for r, units in _assigned(example_pack).items()]
    files.append(_write_labels(example_pack, tmp_path, "judge", {"u0001": "pass",
                                                                 "u0003": "fail"}, "model"))
    out = tmp_path / "report.json"
    args = ["review", "summarize", str(example_pack), "--out", str(out), "--md"]
    for f in files:
        args += ["--labels", str(f)]
    assert run(args) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    judge = next(s for s in doc["scorers"] if s["scorer"] == "judge")
    assert judge["cohen_kappa"] == {"value": 1.0, "ci95": None, "n": 2, "interval": "bootstrap",
                                    "undefined": INTERVAL_UNDEFINED}
    assert f"kappa 1.000 [{INTERVAL_UNDEFINED}] over 2 unit(s)" in capsys.readouterr().err
    assert f"1.000 [{INTERVAL_UNDEFINED}]" in out.with_suffix(".md").read_text(encoding="utf-8")


@pytest.mark.parametrize("raters", ["a,b", "a,b,c"])
def test_random_small_designs_never_crash(raters, tmp_path, prepare):
    pack_dir = tmp_path / "pack"
    assert prepare(pack_dir, "--raters", raters, "--seed", "1") == 0
    pack = read_review_pack(pack_dir)
    assigned = _assigned(pack_dir)
    rng = random.Random(18)
    for trial in range(40):
        out = tmp_path / f"t{trial}"
        out.mkdir()
        # degenerate on purpose: a few verdict kinds, a few raters, a few of their units
        kinds = rng.sample(VERDICTS, rng.randint(1, 3))
        chosen = rng.sample(sorted(assigned), rng.randint(1, len(assigned)))
        files = []
        for r in chosen:
            units = rng.sample(assigned[r], rng.randint(0, len(assigned[r])))
            files.append(_write_labels(pack_dir, out, r, {u: rng.choice(kinds) for u in units}))
        if rng.random() < 0.5:
            judged = rng.sample([u.unit_id for u in pack.tasks.units], rng.randint(0, 5))
            files.append(_write_labels(pack_dir, out, "judge",
                                       {u: rng.choice(("pass", "fail")) for u in judged},
                                       "model"))
        report = build_review_report(pack, read_labels(files, pack), resamples=30, seed=trial)
        check_review_report(report, "report")
        aau_schemas.validate("review-report", report_document(report))
        report_markdown(report)
        c = report.consensus
        assert c.pass_ + c.fail + c.unsure + c.unlabelled + len(c.ties) == 5
        a = report.human_agreement
        for e in (a.percent_agreement, a.cohen_kappa, a.fleiss_kappa, a.krippendorff_alpha,
                  *(getattr(s, k) for s in report.scorers
                    for k in ("accuracy", "precision", "recall", "f1", "cohen_kappa"))):
            assert (e.undefined is None) == (e.ci95 is not None), e


def test_the_pack_readme_commands_work_as_written(example_pack, examples, monkeypatch):
    # the README's bash block, run from inside the pack: serve (the server stubbed: it records
    # the labels file it would write, which the test then fills with the example labels),
    # validate, and summarize with every output outside the pack
    import shlex

    import aau_review._serve

    text = (example_pack / "README.md").read_text(encoding="utf-8")
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [shlex.split(line) for line in block.splitlines()]
    assert [c[:3] for c in commands] == [["aau", "review", "serve"]] * 2 + [
        ["aau", "review", "validate"], ["aau", "review", "summarize"]]
    served = []
    monkeypatch.setattr(aau_review._serve, "serve_labelling",
                        lambda session, port: served.append(session))
    monkeypatch.chdir(example_pack)
    for command in commands:
        if command[2] == "summarize":
            for s in served:
                s.labels_path.write_bytes((examples / f"labels-{s.rater}.json").read_bytes())
        assert run(command[1:]) == 0, command
    assert [s.rater for s in served] == ["alice", "bob"]
    assert (example_pack.parent / "report.json").is_file()
    assert (example_pack.parent / "report.md").is_file()
    assert sorted(p.name for p in example_pack.iterdir()) == [
        ".gitattributes", "README.md", "manifest.json", "scores.json", "tasks.json"]
