"""Validate JUnit XML against the published junit-10.xsd (Jenkins xunit-plugin), as pytest does.

The schema is not committed: it ships in pytest's sdist at
``pytest-<ver>/testing/example_scripts/junit-10.xsd`` (pytest's own ``testing/test_junitxml.py``
loads it with ``xmlschema.XMLSchema`` and validates every xunit2 report with it). The first use
downloads that sdist, checks the member's pinned SHA-256 and caches it as ``.cache/junit-10.xsd``
(``_registry_file.RegistryFile``: skipped when unavailable, failed when ``CI`` is set).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from _registry_file import CACHE_DIR, RegistryFile

PYTEST_VERSION = "8.3.4"
JUNIT_XSD = RegistryFile(
    label="junit-10.xsd", package="pytest", version=PYTEST_VERSION, sdist=True,
    member=f"pytest-{PYTEST_VERSION}/testing/example_scripts/junit-10.xsd",
    sha256="a1a816f58d1bf95ebabf371994df0b9246dee66ea9572fbec4f9296f1b2c0ff6",
    cache=CACHE_DIR / "junit-10.xsd")


def xsd_path() -> Path:
    """The cached, hash-checked junit-10.xsd; downloaded on first use (``_registry_file``)."""
    return JUNIT_XSD.path()


@functools.lru_cache(maxsize=1)
def _schema() -> Any:
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema is a test dependency "
                                    "(root pyproject.toml); install it to validate JUnit XML")
    return xmlschema.XMLSchema(str(xsd_path()))


def validate_junit(xml_text: str) -> None:
    """Assert that ``xml_text`` (a whole JUnit XML document) is valid under junit-10.xsd.

    Args:
        xml_text: the document as text, XML declaration included.

    Raises:
        xmlschema.XMLSchemaValidationError (an AssertionError for pytest's report): invalid.
        pytest's skip/fail outcome: the schema could not be obtained (see the module docstring).
    """
    schema = _schema()
    # the declaration names the encoding, so hand the parser bytes, as a file would
    schema.validate(xml_text.encode("utf-8"))
