"""JUnit XML rendering: counts, escaping, hostile text, and validity under junit-10.xsd."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest
from _junit_xsd import validate_junit
from aau_core._reports._junit import JUnitCase, JUnitSuite, render_junit, xml_safe

HOSTILE = "a<b & c]]>\"quote' \x00\x01\x1b\x7f \ud800 \ufffe 😀 ﷽ \t\r\n end"


def _parse(text: str) -> ET.Element:
    return ET.fromstring(text.encode("utf-8"))


def _mixed_suite() -> JUnitSuite:
    return JUnitSuite(
        name="suite-1",
        cases=(
            JUnitCase("passes", "suite-1", time_s=0.25),
            JUnitCase("fails", "suite-1", time_s=1.0, failure_message="2/3 repeats passed",
                      failure_text="repeat 1: wrong-outcome\n"),
            JUnitCase("errors", "suite-1", error_message="agent crashed"),
            JUnitCase("skipped", "suite-1", skipped_message="not run"),
        ),
        timestamp="2026-01-01T00:00:00Z",
        properties=(("metric.pass_rate.mean", "0.5"), ("metric.pass_rate.ci95", "[0.1, 0.9]")),
    )


def test_counts_and_totals_on_suites_and_root() -> None:
    other = JUnitSuite("suite-2", (JUnitCase("x", "suite-2", time_s=2.0, failure_message=""),))
    text = render_junit([_mixed_suite(), other])
    validate_junit(text)
    assert text.startswith("<?xml version='1.0' encoding='utf-8'?>\n")
    root = _parse(text)
    assert root.tag == "testsuites"
    assert {k: root.get(k) for k in ("tests", "failures", "errors", "time")} == {
        "tests": "5", "failures": "2", "errors": "1", "time": "3.250"}
    assert root.get("skipped") is None  # junit-10.xsd has no skipped on <testsuites>
    first, second = root.findall("testsuite")
    assert {k: first.get(k) for k in ("name", "tests", "failures", "errors", "skipped", "time",
                                      "timestamp")} == {
        "name": "suite-1", "tests": "4", "failures": "1", "errors": "1", "skipped": "1",
        "time": "1.250", "timestamp": "2026-01-01T00:00:00Z"}
    assert second.get("failures") == "1" and second.get("timestamp") is None
    assert second.find("testcase/failure").get("message") == ""  # "" still marks a failure


def test_case_outcomes_and_properties_placement() -> None:
    root = _parse(render_junit([_mixed_suite()]))
    suite = root.find("testsuite")
    assert list(suite)[0].tag == "properties"  # the suite's properties come first
    assert [(p.get("name"), p.get("value")) for p in suite.findall("properties/property")] == [
        ("metric.pass_rate.mean", "0.5"), ("metric.pass_rate.ci95", "[0.1, 0.9]")]
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert list(cases["passes"]) == []
    failure = cases["fails"].find("failure")
    assert failure.get("message") == "2/3 repeats passed"
    assert failure.text == "repeat 1: wrong-outcome\n"
    assert cases["errors"].find("error").get("message") == "agent crashed"
    assert cases["skipped"].find("skipped").get("message") == "not run"
    assert cases["fails"].get("classname") == "suite-1" and cases["fails"].get("time") == "1.000"


def test_case_properties_go_to_system_out_not_properties() -> None:
    case = JUnitCase("c", "k", properties=(("pass_rate", "1.0"), ("cost_usd", "0.0")))
    text = render_junit([JUnitSuite("s", (case,))])
    validate_junit(text)
    tc = _parse(text).find("testsuite/testcase")
    assert tc.find("properties") is None
    assert tc.find("system-out").text == "pass_rate: 1.0\ncost_usd: 0.0\n"


def test_hostile_names_stay_valid_and_round_trip_what_xml_can_hold() -> None:
    case = JUnitCase(HOSTILE, HOSTILE, failure_message=HOSTILE, failure_text=HOSTILE,
                     error_message=HOSTILE, skipped_message=HOSTILE,
                     properties=((HOSTILE, HOSTILE),))
    text = render_junit([JUnitSuite(HOSTILE, (case,), timestamp=HOSTILE,
                                    properties=((HOSTILE, HOSTILE),))])
    validate_junit(text)
    assert "]]>" not in text.split("?>", 1)[1]
    root = _parse(text)
    safe = xml_safe(HOSTILE)
    assert safe == HOSTILE.replace("\x00", "\ufffd").replace("\x01", "\ufffd").replace(
        "\x1b", "\ufffd").replace("\ud800", "\ufffd").replace("\ufffe", "\ufffd")
    # attributes keep tabs and newlines (escaped as character references); emoji survive
    assert root.find("testsuite").get("name") == safe
    assert root.find("testsuite/testcase").get("name") == safe
    assert root.find("testsuite/testcase/failure").get("message") == safe
    assert root.find("testsuite/properties/property").get("name") == safe
    assert "😀" in root.find("testsuite/testcase/failure").text


def test_xml_safe_keeps_the_xml_char_range() -> None:
    allowed = "\t\n\r \ud7ff\ue000\ufffd\U00010000\U0010ffff"
    assert xml_safe(allowed) == allowed
    assert xml_safe("\x08\x0b\x0c\x1f\udfff\uffff") == "\ufffd" * 6


def test_empty_input_renders_a_valid_empty_root() -> None:
    text = render_junit([])
    validate_junit(text)
    root = _parse(text)
    assert (root.get("tests"), root.get("time"), list(root)) == ("0", "0.000", [])
    text = render_junit([JUnitSuite("empty", ())])
    validate_junit(text)
    assert _parse(text).find("testsuite").get("tests") == "0"


def test_times_are_surefire_times() -> None:
    cases = tuple(JUnitCase(f"c{i}", "k", time_s=t) for i, t in
                  enumerate((0, 1e-9, 12345.6789, 0.0005)))
    text = render_junit([JUnitSuite("s", cases)])
    validate_junit(text)
    times = [c.get("time") for c in _parse(text).iter("testcase")]
    assert times == ["0.000", "0.000", "12345.679", "0.001"]


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf, True, "1"])
def test_bad_times_are_refused(bad: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        JUnitCase("c", "k", time_s=bad)  # type: ignore[arg-type]


def test_models_validate_their_fields() -> None:
    with pytest.raises(TypeError):
        JUnitCase(1, "k")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        JUnitCase("c", "k", properties=(("a", 1),))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        JUnitSuite("s", ("not a case",))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        render_junit(["not a suite"])  # type: ignore[list-item]
    # lists are accepted and frozen to tuples
    suite = JUnitSuite("s", [JUnitCase("c", "k", properties=[["a", "b"]])])
    assert suite.cases[0].properties == (("a", "b"),)


@pytest.mark.parametrize(("old", "new"), [
    ('<testsuites tests="1"', '<testsuites skipped="0" tests="1"'),  # no skipped on the root
    ("<system-out>", "<properties /><system-out>"),  # no properties in a testcase
    ('time="1.000"', 'time="1e0"'),  # SUREFIRE_TIME has no exponent
])
def test_the_xsd_catches_what_the_renderer_avoids(old: str, new: str) -> None:
    text = render_junit([JUnitSuite("s", (JUnitCase("c", "k", time_s=1.0,
                                                    properties=(("a", "b"),)),))])
    validate_junit(text)
    assert old in text
    xmlschema = pytest.importorskip("xmlschema")
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        validate_junit(text.replace(old, new, 1))
