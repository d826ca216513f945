"""JUnit XML: test suites and cases as attrs values, and the one renderer every aau report uses.

The output follows the published Jenkins xunit-plugin ``junit-10.xsd`` (the schema pytest's own
``--junitxml`` tests validate against; GitHub Actions test reporters, GitLab ``artifacts:reports:junit``
and Jenkins all read it). That schema shapes the design:

- ``<testsuites>`` carries ``tests``, ``failures``, ``errors`` and ``time`` totals; it has no
  ``skipped`` attribute, so skipped counts appear on each ``<testsuite>`` only.
- ``<properties>`` may appear inside ``<testsuite>`` but not inside ``<testcase>``: a suite's
  properties become its ``<properties>`` block (first child); a case's properties become
  ``name: value`` lines of its ``<system-out>``, which CI viewers show beside the case.
- ``time`` on suites and the root is a ``SUREFIRE_TIME``: digits with at most three decimals, no sign,
  no exponent; every time is written with exactly three decimals.

Text that XML 1.0 cannot hold (control characters other than tab, newline and carriage return,
lone surrogates, U+FFFE/U+FFFF) is replaced by U+FFFD, so a hostile scenario name yields a valid
file rather than a crash. Escaping of ``<``, ``&`` and ``]]>`` is left to ``xml.etree.ElementTree``.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

import attrs

# XML 1.0 Char production (https://www.w3.org/TR/xml/#charsets), negated.
_NOT_XML_CHAR = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
REPLACEMENT = "\ufffd"


def xml_safe(text: str) -> str:
    """Return ``text`` with every character XML 1.0 cannot hold replaced by U+FFFD.

    Args:
        text: any Python string (it may hold lone surrogates or control characters).

    Returns:
        a string of the same length that an XML 1.0 document can carry verbatim.
    """
    return _NOT_XML_CHAR.sub(REPLACEMENT, text)


def _properties(value: Any) -> tuple[tuple[str, str], ...]:
    """Convert an iterable of ``(name, value)`` pairs to a tuple of 2-tuples of str."""
    pairs = tuple(tuple(p) for p in value)
    for pair in pairs:
        if len(pair) != 2 or not all(isinstance(x, str) for x in pair):
            raise TypeError(f"a property must be a (name, value) pair of str, got {pair!r}")
    return pairs  # type: ignore[return-value]


def _check_time(_instance: Any, attribute: attrs.Attribute[Any], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{attribute.name} must be a number of seconds, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{attribute.name} must be finite and >= 0 seconds, got {value!r}")


_opt_str = attrs.validators.optional(attrs.validators.instance_of(str))


@attrs.frozen
class JUnitCase:
    """One ``<testcase>``.

    Args:
        name: the case name (``name`` attribute), e.g. a scenario id.
        classname: the ``classname`` attribute; CI viewers group cases by it (e.g. the suite id).
        time_s: duration in seconds, finite and >= 0 (written with three decimals).
        failure_message: set (even to ``""``) to mark the case failed: ``<failure message=...>``.
        failure_text: the failure's body text (details, one per line); setting it alone also marks
            the case failed, with no ``message`` attribute.
        error_message: set to mark the case errored (it could not be judged): ``<error message=...>``.
        skipped_message: set to mark the case skipped: ``<skipped message=...>``.
        properties: ``(name, value)`` pairs; junit-10.xsd has no per-case ``<properties>``, so they
            are written as ``name: value`` lines of the case's ``<system-out>``.

    A case with none of the four outcome fields set passed. The fields are independent: a case
    may carry both a failure and an error, and then counts towards both totals.

    Raises:
        TypeError: a field has the wrong type.
        ValueError: ``time_s`` is negative, NaN or infinite.
    """

    name: str = attrs.field(validator=attrs.validators.instance_of(str))
    classname: str = attrs.field(validator=attrs.validators.instance_of(str))
    time_s: float = attrs.field(default=0.0, validator=_check_time)
    failure_message: str | None = attrs.field(default=None, validator=_opt_str)
    failure_text: str | None = attrs.field(default=None, validator=_opt_str)
    error_message: str | None = attrs.field(default=None, validator=_opt_str)
    skipped_message: str | None = attrs.field(default=None, validator=_opt_str)
    properties: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_properties)

    @property
    def failed(self) -> bool:
        """True when the case carries a failure (``failure_message`` or ``failure_text`` set)."""
        return self.failure_message is not None or self.failure_text is not None

    @property
    def errored(self) -> bool:
        """True when ``error_message`` is set."""
        return self.error_message is not None

    @property
    def skipped(self) -> bool:
        """True when ``skipped_message`` is set."""
        return self.skipped_message is not None


def _cases(value: Any) -> tuple[JUnitCase, ...]:
    cases = tuple(value)
    for case in cases:
        if not isinstance(case, JUnitCase):
            raise TypeError(f"cases must be JUnitCase values, got {case!r}")
    return cases


@attrs.frozen
class JUnitSuite:
    """One ``<testsuite>``: a named group of cases (aau: one input document).

    Args:
        name: the suite name (``name`` attribute).
        cases: the cases, in output order.
        timestamp: optional ISO 8601 start time (``timestamp`` attribute), written as given.
        properties: ``(name, value)`` pairs written as the suite's ``<properties>`` block.
        system_out: optional text written as the suite's ``<system-out>`` (after its cases,
            as junit-10.xsd orders them).

    Raises:
        TypeError: a field has the wrong type.
    """

    name: str = attrs.field(validator=attrs.validators.instance_of(str))
    cases: tuple[JUnitCase, ...] = attrs.field(converter=_cases)
    timestamp: str | None = attrs.field(default=None, validator=_opt_str)
    properties: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_properties)
    system_out: str | None = attrs.field(default=None, validator=_opt_str)

    @property
    def time_s(self) -> float:
        """Sum of the cases' ``time_s`` (seconds)."""
        return math.fsum(c.time_s for c in self.cases)

    def counts(self) -> dict[str, int]:
        """Return ``{"tests", "failures", "errors", "skipped"}`` counts of the cases."""
        return {"tests": len(self.cases),
                "failures": sum(c.failed for c in self.cases),
                "errors": sum(c.errored for c in self.cases),
                "skipped": sum(c.skipped for c in self.cases)}


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _outcome(parent: ET.Element, tag: str, message: str | None, text: str | None = None) -> None:
    el = ET.SubElement(parent, tag)
    if message is not None:
        el.set("message", xml_safe(message))
    if text:
        el.text = xml_safe(text)


def _case_element(parent: ET.Element, case: JUnitCase) -> None:
    el = ET.SubElement(parent, "testcase", {
        "classname": xml_safe(case.classname), "name": xml_safe(case.name),
        "time": _seconds(case.time_s)})
    if case.failed:
        _outcome(el, "failure", case.failure_message, case.failure_text)
    if case.errored:
        _outcome(el, "error", case.error_message)
    if case.skipped:
        _outcome(el, "skipped", case.skipped_message)
    if case.properties:
        out = ET.SubElement(el, "system-out")
        out.text = xml_safe("".join(f"{k}: {v}\n" for k, v in case.properties))


def render_junit(suites: Sequence[JUnitSuite]) -> str:
    """Render suites as one JUnit XML document valid under junit-10.xsd.

    Args:
        suites: the ``<testsuite>`` elements, in order (may be empty).

    Returns:
        the XML text: an ``<?xml version='1.0' encoding='utf-8'?>`` declaration, a ``<testsuites>``
        root with ``tests``/``failures``/``errors``/``time`` totals over every suite, and one
        ``<testsuite>`` per suite with its own ``tests``/``failures``/``errors``/``skipped``/``time``
        (and ``timestamp`` when given). Two-space indented, ending in a newline; write it as UTF-8
        (``atomic_write_text``).

    Raises:
        TypeError: an element of ``suites`` is not a ``JUnitSuite``.
    """
    suites = tuple(suites)
    for suite in suites:
        if not isinstance(suite, JUnitSuite):
            raise TypeError(f"suites must be JUnitSuite values, got {suite!r}")
    root = ET.Element("testsuites")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for suite in suites:
        counts = suite.counts()
        for key in totals:
            totals[key] += counts[key]
        attrib = {"name": xml_safe(suite.name), **{k: str(v) for k, v in counts.items()},
                  "time": _seconds(suite.time_s)}
        if suite.timestamp is not None:
            attrib["timestamp"] = xml_safe(suite.timestamp)
        el = ET.SubElement(root, "testsuite", attrib)
        if suite.properties:
            props = ET.SubElement(el, "properties")
            for name, value in suite.properties:
                ET.SubElement(props, "property", {"name": xml_safe(name), "value": xml_safe(value)})
        for case in suite.cases:
            _case_element(el, case)
        if suite.system_out:
            ET.SubElement(el, "system-out").text = xml_safe(suite.system_out)
    root.attrib.update({k: str(v) for k, v in totals.items()})
    root.set("time", _seconds(math.fsum(s.time_s for s in suites)))
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="utf-8", xml_declaration=True).decode("utf-8") + "\n"
