"""``_frame/_lab_spec``: policy search, lab configs, scenario files, lab results, volatile fields."""

from __future__ import annotations

import json
from pathlib import Path

import aau_schemas
import pytest
from aau_core import InputError, OutputError
from aau_labs._frame._lab_spec import (
    LAB_RESULT_KIND,
    digest,
    keyword_search,
    lab_result_document,
    load_lab_config,
    read_scenarios,
    strip_volatile,
    strip_volatile_markdown,
    write_lab_result,
    write_scenarios,
)

REPO = Path(__file__).resolve().parents[3]
RIVER = REPO / "examples" / "labs" / "river-permit-desk.json"
SECTIONS = [
    {"id": "P-00", "title": "Preamble", "text": "General rules."},
    {"id": "P-01", "title": "Evidence", "text": "Request the missing evidence only."},
    {"id": "P-02", "title": "Deadlines", "text": "Evidence deadlines are preserved."},
    {"id": "P-03", "title": "Actions", "text": "One action per case."},
]


def test_keyword_search_ranks_whole_word_overlap_with_stable_ties():
    ids = [s["id"] for s in keyword_search(SECTIONS, "missing evidence")]
    assert ids == ["P-01", "P-02"]  # two terms beat one
    # "act" is inside "Actions" and "action": 1.6 counted it, whole words do not
    assert [s["id"] for s in keyword_search(SECTIONS, "act")] == ["P-00"]
    # ties keep the given order; top_k cuts
    assert [s["id"] for s in keyword_search(SECTIONS, "evidence", top_k=1)] == ["P-01"]
    # underscores and punctuation split terms; short words are ignored; case does not matter
    assert [s["id"] for s in keyword_search(SECTIONS, "ONE_ACTION, per")] == ["P-03"]
    assert keyword_search(SECTIONS, "zebra")[0] is SECTIONS[0]  # nothing matches: preamble
    assert keyword_search([], "x") == []
    with pytest.raises(ValueError):
        keyword_search(SECTIONS, "x", top_k=0)


def test_load_lab_config_names_the_file_and_path(tmp_path):
    spec, doc, cfg = load_lab_config(RIVER)
    assert spec.name == "decision-gate" and doc["seed"] == 4101 and cfg is doc
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**doc, "seed": -1}))
    with pytest.raises(InputError) as err:
        load_lab_config(bad)
    assert str(err.value).startswith(f"{bad}: $.seed: ") and "[gate-config]" in str(err.value)
    rule = tmp_path / "rule.json"
    rule.write_text(json.dumps({**doc, "evidence": doc["evidence"] * 2}))
    with pytest.raises(InputError) as err:
        load_lab_config(rule)
    assert str(err.value) == f"{rule}: $.evidence: evidence names must be distinct"
    other = tmp_path / "suite.json"
    other.write_text(json.dumps({"hello": 1}))
    with pytest.raises(InputError, match=r"suite.json: \$: not a lab config: it has none of the lab config version fields gate_config_version \(gate-config\)"):
        load_lab_config(other)


def make_file(tmp_path, n=8, seed=None, name="s.json"):
    spec, doc, cfg = load_lab_config(RIVER)
    scenarios = spec.generate(cfg, n, seed)
    path = write_scenarios(tmp_path / name, spec, doc, scenarios, seed, n)
    return spec, doc, scenarios, path


def test_scenario_files_round_trip_byte_identically(tmp_path):
    spec, doc, scenarios, path = make_file(tmp_path)
    _, _, _, again = make_file(tmp_path, name="t.json")
    assert path.read_bytes() == again.read_bytes()
    written = json.loads(path.read_text())
    assert written["gate_scenarios_version"] == "aau-gate-scenarios/1.0"
    assert (written["lab"], written["seed"], written["n"]) == ("decision-gate", 4101, 8)
    assert written["config_sha256"] == digest(doc)
    aau_schemas.validate("gate-scenarios", written)
    assert read_scenarios(path, spec, config_doc=doc) == scenarios
    with pytest.raises(OutputError, match="already exists"):
        make_file(tmp_path)


@pytest.mark.parametrize(("edit", "where"), [
    (lambda d: d.update(lab="contract"), "$.lab"),
    (lambda d: d.update(n=3), "$.n"),
    (lambda d: d.update(seed="x"), "$.seed"),
    (lambda d: d["scenarios"][2].update(archetype="READY"), "$.scenarios[2].archetype"),
    (lambda d: d.update(config_sha256="sha256:" + "0" * 64), "$.config_sha256"),
])
def test_bad_scenario_files_are_one_line_errors(tmp_path, edit, where):
    spec, doc, _, path = make_file(tmp_path)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as err:
        read_scenarios(path, spec, config_doc=doc)
    assert err.value.source == str(path) and err.value.path == where
    assert "\n" not in str(err.value)


def aggregate(spec, doc, scenarios):
    return spec.evaluate(doc, scenarios, repeats=2)


def test_lab_results_validate_and_refuse_overwrite(tmp_path):
    spec, doc, scenarios, _ = make_file(tmp_path)
    agg = aggregate(spec, doc, scenarios)
    js, md = write_lab_result(tmp_path / "out", spec, agg, "mock", None, doc,
                              scenarios_sha256=digest([s.as_dict() for s in scenarios]))
    assert (js.name, md.name) == ("eval_mock.json", "eval_mock.md")
    result = json.loads(js.read_text())
    aau_schemas.validate(LAB_RESULT_KIND, result)
    aau_schemas.validate("eval-aggregate-v2", result["aggregate"])
    assert result["headline"]["metric"] == "decision_gate_exact"
    assert result["headline"]["mean"] == result["aggregate"]["metric_means"]["decision_gate_exact"]
    assert result["aggregate"]["backend"] == result["backend"] == "mock"
    assert md.read_text().startswith("## Results\n\nModel: `mock` · 8 scenarios × 2 repeats")
    with pytest.raises(OutputError, match="already exists"):
        write_lab_result(tmp_path / "out", spec, agg, "mock", None, doc)
    write_lab_result(tmp_path / "out", spec, agg, "mock", None, doc, force=True)
    js2, _ = write_lab_result(tmp_path / "out", spec, agg, "anthropic", "org/model-x", doc)
    assert js2.name == "eval_org_model-x.json"


def test_volatile_fields_are_exactly_time_versions_and_latency(tmp_path):
    spec, doc, scenarios, _ = make_file(tmp_path)
    one = lab_result_document(spec, aggregate(spec, doc, scenarios), "mock", "mock", doc)
    two = lab_result_document(spec, aggregate(spec, doc, scenarios), "mock", "mock", doc)
    one["aggregate"]["provenance"]["generated_at"] = "2000-01-01T00:00:00Z"
    two["aggregate"]["results"][0]["latency_s"] = 12.5
    assert one != two
    assert strip_volatile(one) == strip_volatile(two)
    assert strip_volatile(one)["aggregate"]["provenance"]["python"] == "<volatile>"
    assert one["aggregate"]["provenance"]["python"] != "<volatile>"  # a copy
    changed = json.loads(json.dumps(two))
    changed["aggregate"]["results"][0]["metrics"]["gate_fidelity"] = 0.5
    assert strip_volatile(changed) != strip_volatile(two)  # everything else counts
    page = "| x | 1 |\n| p50 latency (s) | 0.01 | — |\n"
    assert strip_volatile_markdown(page) == "| x | 1 |\n| p50 latency (s) | <volatile> | — |\n"


def test_lab_result_needs_its_headline(tmp_path):
    spec, doc, scenarios, _ = make_file(tmp_path)
    agg = aggregate(spec, doc, scenarios)
    import attrs

    bare = attrs.evolve(agg, metric_means={"x": 1.0}, metric_ci95={"x": (1.0, 1.0)})
    with pytest.raises(ValueError, match="headline metric 'decision_gate_exact' missing"):
        lab_result_document(spec, bare, "mock", "mock", doc)
