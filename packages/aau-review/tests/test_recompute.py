"""An edited number of a review report fails its check (``_recompute``): a report written by
``aau review summarize`` on the example pack passes; each edit of one number makes ``aau review
validate`` (and ``aau schema validate``) fail naming the JSON path, the stored and the
recomputed value. Numbers that follow from the report itself are caught from the report alone;
the agreement among people needs the pack and the labels (``--pack``, ``--labels``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aau_core import run

RATERS = ("alice", "bob", "judge")


def _labels(examples: Path) -> list[str]:
    return [a for r in RATERS for a in ("--labels", str(examples / f"labels-{r}.json"))]


@pytest.fixture
def report(example_pack: Path, examples: Path, tmp_path: Path, monkeypatch) -> Path:
    """The report ``aau review summarize`` writes for the example pack and its three labels."""
    monkeypatch.setenv("AAU_RUN_STORE", "none")
    out = tmp_path / "report.json"
    assert run(["review", "summarize", str(example_pack), *_labels(examples), "--out",
                str(out), "--no-store"]) == 0
    return out


def _edit(report: Path, path: str, value) -> Path:
    """The report with the number at ``path`` (``$.a.b[0]``) replaced by ``value``."""
    doc = json.loads(report.read_text(encoding="utf-8"))
    keys = path[2:].replace("[", ".[").split(".")
    node = doc
    for key in keys[:-1]:
        node = node[int(key[1:-1])] if key.startswith("[") else node[key]
    last = keys[-1]
    node[int(last[1:-1]) if last.startswith("[") else last] = value
    out = report.with_name("edited.json")
    out.write_text(json.dumps(doc), encoding="utf-8")
    return out


def _problems(capsys, *args: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    rc = run(["review", "validate", *args, "--json"])
    return rc, json.loads(capsys.readouterr().out)["problems"]


def test_the_report_summarize_writes_passes_every_check(report, example_pack, examples, capsys):
    assert _problems(capsys, str(report)) == (0, [])
    assert _problems(capsys, str(report), "--pack", str(example_pack), *_labels(examples)) == \
        (0, [])
    assert run(["schema", "validate", str(report)]) == 0
    committed = examples / "report-live-simple.json"
    assert _problems(capsys, str(committed), "--pack", str(example_pack),
                     *_labels(examples)) == (0, [])


def test_a_report_checked_alone_says_what_was_not_recomputed(report, example_pack, examples,
                                                             capsys):
    """'valid' from the report alone covers the scorers only: the line says the agreement and
    the consensus need the pack and labels, so an edited kappa among people is not read as
    checked; with them, the line is plain."""
    assert run(["review", "validate", str(report)]) == 0
    assert capsys.readouterr().err.strip() == (
        f"{report}: valid review-report (each scorer's numbers recomputed from the report; the "
        "agreement among people and the consensus need --pack and --labels)")
    assert run(["review", "validate", str(report), "--pack", str(example_pack),
                *_labels(examples)]) == 0
    assert capsys.readouterr().err.strip() == f"{report}: valid review-report"


# scorers: [0] exact (tp 3, tn 1), [1] outcome_exact (tp 3, fp 1), [2] tool_calls_match,
# [3] judge-qwen (tp 2, fn 1, tn 1; kappa 0.5 [0.0, 1.0])
REPORT_ALONE = [
    ("$.scorers[0].accuracy.value", 0.6, "1.0"),
    ("$.scorers[0].accuracy.ci95[0]", 0.3, "0.510109"),
    ("$.scorers[0].cohen_kappa.value", 0.7, "1.0"),
    ("$.scorers[1].cohen_kappa.value", 0.9, "0.0"),
    ("$.scorers[1].precision.ci95[1]", 0.99, "0.954"),
    ("$.scorers[3].cohen_kappa.ci95[0]", 0.45, "0.0"),
    ("$.scorers[3].f1.value", 0.9, "0.8"),
    ("$.scorers[3].recall.n", 4, "3"),
    ("$.scorers[3].recall.interval", "bootstrap", "'wilson'"),
]


@pytest.mark.parametrize(("path", "value", "recomputed"), REPORT_ALONE,
                         ids=[p for p, _, _ in REPORT_ALONE])
def test_a_scorer_number_edited_fails_from_the_report_alone(report, capsys, path, value,
                                                            recomputed):
    edited = _edit(report, path, value)
    rc, problems = _problems(capsys, str(edited))
    assert rc == 1
    assert problems[0].startswith(f"{edited}: {path}: is {value!r}; recomputed from its "
                                  "confusion matrix"), problems
    assert problems[0].split(": ")[-1].startswith(recomputed), problems
    assert run(["schema", "validate", str(edited)]) == 1


def test_the_rater_count_and_verdict_total_follow_the_label_files(report, capsys):
    rc, problems = _problems(capsys, str(_edit(report, "$.human_agreement.raters", 3)))
    assert rc == 1 and "$.human_agreement.raters: is 3; label_files lists 2 human" in \
        problems[0]
    rc, problems = _problems(capsys, str(_edit(report, "$.verdict_counts.pass", 7)))
    assert rc == 1 and "$.verdict_counts: add up to 11; the human labels files hold 10" in \
        problems[0]


NEED_LABELS = [
    ("$.human_agreement.percent_agreement.value", 0.9, "0.75"),
    ("$.human_agreement.percent_agreement.ci95[0]", 0.5, "0.25"),
    ("$.human_agreement.cohen_kappa.value", 0.8, "0.5"),
    ("$.human_agreement.fleiss_kappa.value", 0.9, "0.466667"),
    ("$.human_agreement.krippendorff_alpha.value", 0.9, "0.533333"),
    ("$.human_agreement.krippendorff_alpha.ci95[0]", 0.2, "-0.4"),
    ("$.labelled_unit_count", 4, "5"),
]


@pytest.mark.parametrize(("path", "value", "recomputed"), NEED_LABELS,
                         ids=[p for p, _, _ in NEED_LABELS])
def test_an_agreement_number_edited_fails_with_the_pack_and_labels(report, example_pack,
                                                                   examples, capsys, path,
                                                                   value, recomputed):
    edited = _edit(report, path, value)
    # the report alone cannot say what people agreed on: its own rules still hold
    assert _problems(capsys, str(edited)) == (0, [])
    rc, problems = _problems(capsys, str(edited), "--pack", str(example_pack),
                             *_labels(examples))
    assert rc == 1
    assert problems == [f"{edited}: {path}: is {value!r}; recomputed from the pack and labels "
                        f"files: {recomputed}"]


def test_the_labels_must_be_the_ones_the_report_binds(report, example_pack, examples,
                                                      error_line, tmp_path):
    """Labels files left out or not bound are the caller's inputs gone wrong, not a fault of
    the report: a usage error (exit 2), never 'invalid review-report'."""
    only_two = [a for r in ("alice", "judge") for a in ("--labels",
                                                        str(examples / f"labels-{r}.json"))]
    assert run(["review", "validate", str(report), "--pack", str(example_pack), *only_two]) == 2
    assert error_line() == (f"aau: error: {report}: the labels of bob were not given: add "
                            "--labels FILE for every labels file the report binds "
                            "($.label_files)")
    bob = json.loads((examples / "labels-bob.json").read_text(encoding="utf-8"))
    bob["labels"][0]["verdict"] = "fail" if bob["labels"][0]["verdict"] == "pass" else "pass"
    bob["labels"][0]["categories"] = []
    other = tmp_path / "labels-bob.json"
    other.write_text(json.dumps(bob), encoding="utf-8")
    swapped = [a for p in (examples / "labels-alice.json", other, examples / "labels-judge.json")
               for a in ("--labels", str(p))]
    assert run(["review", "validate", str(report), "--pack", str(example_pack), *swapped]) == 2
    line = error_line()
    assert line.startswith(f"aau: error: {report}: --labels {other} (SHA-256 ")
    assert line.endswith("is not a labels file this report was built from ($.label_files)")


def test_a_report_of_another_pack_is_named(report, examples, prepare, tmp_path, capsys):
    other = tmp_path / "other-pack"
    assert prepare(other, "--raters", "alice,bob", "--seed", "8") == 0
    rc, problems = _problems(capsys, str(report), "--pack", str(other), *_labels(examples))
    assert rc == 1 and problems[0].startswith(f"{report}: $.source.tasks_sha256: is ")


def test_labels_without_a_pack_is_a_usage_error(report, examples, error_line):
    assert run(["review", "validate", str(report), *_labels(examples)]) == 2
    assert "--labels recomputes a report: give the report and its --pack" in error_line()
