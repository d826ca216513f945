"""Validate JUnit XML against the published junit-10.xsd (Jenkins xunit-plugin), as pytest does.

The schema is not committed: it ships in pytest's sdist at
``pytest-<ver>/testing/example_scripts/junit-10.xsd`` (pytest's own ``testing/test_junitxml.py``
loads it with ``xmlschema.XMLSchema`` and validates every xunit2 report with it). The first use
downloads that sdist with ``pip download`` (pip is listed in the workspace environment: hatch
builds that environment with uv, which installs no pip), extracts the one member, checks its
SHA-256 against the pinned value and caches it as ``.cache/junit-10.xsd`` in the repository (git-ignored).

When the download fails the calling test is skipped with the reason, unless the environment
variable ``CI`` is set: there a missing schema must fail the run, not hide it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import pytest
from _helpers import REPO

PYTEST_VERSION = "8.3.4"
MEMBER = f"pytest-{PYTEST_VERSION}/testing/example_scripts/junit-10.xsd"
XSD_SHA256 = "a1a816f58d1bf95ebabf371994df0b9246dee66ea9572fbec4f9296f1b2c0ff6"
CACHE = REPO / ".cache" / "junit-10.xsd"
DOWNLOAD_TIMEOUT_S = 300


def _unavailable(reason: str) -> None:
    message = f"junit-10.xsd unavailable: {reason}"
    if os.environ.get("CI"):
        pytest.fail(f"{message} (CI is set, so this fails instead of skipping)", pytrace=False)
    pytest.skip(message)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _download() -> bytes:
    """Fetch pytest's sdist with pip and return the XSD member's bytes (hash not yet checked)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "--disable-pip-version-check", "-q", f"pytest=={PYTEST_VERSION}", "-d", tmp]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            _unavailable(f"`pip download pytest=={PYTEST_VERSION}` did not run: {exc}")
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            _unavailable(f"`pip download pytest=={PYTEST_VERSION}` failed: {tail}")
        sdists = list(Path(tmp).glob(f"pytest-{PYTEST_VERSION}.tar.gz"))
        if not sdists:
            _unavailable(f"pip downloaded no pytest-{PYTEST_VERSION}.tar.gz")
        with tarfile.open(sdists[0]) as tar:
            fh = tar.extractfile(MEMBER)
            if fh is None:
                _unavailable(f"{MEMBER} is not a file in the sdist")
            return fh.read()


def xsd_path() -> Path:
    """The cached, hash-checked junit-10.xsd; downloaded on first use (skip/fail as above)."""
    if CACHE.is_file() and _sha256(CACHE.read_bytes()) == XSD_SHA256:
        return CACHE
    data = _download()
    digest = _sha256(data)
    if digest != XSD_SHA256:
        pytest.fail(f"{MEMBER}: SHA-256 {digest}, expected {XSD_SHA256}", pytrace=False)
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    tmp = CACHE.with_name(f".{CACHE.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, CACHE)
    return CACHE


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
