"""schemas/conformance/: the cross-language cases, run against aau-schemas and aau-core.

The npm package runs the same files (packages-js/aau-schemas, tests/test_npm_package.py); the
format is described in schemas/conformance/README.md.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from aau_core import bootstrap_ci, compat_bootstrap_ci, pass_at_k, pass_hat_k, wilson_interval

CONFORMANCE = Path(__file__).resolve().parents[1] / "schemas" / "conformance"


def load(name: str) -> Any:
    return json.loads((CONFORMANCE / name).read_text(encoding="utf-8"))


CANONICAL = load("canonical.json")["cases"]
LEGACY = load("legacy.json")["cases"]
STATS = load("statistics.json")
TOL = STATS["tolerance"]


def ids(cases: list[dict[str, Any]]) -> list[str]:
    return [case["id"] for case in cases]


def test_case_ids_are_unique_and_files_are_the_documented_ones() -> None:
    assert sorted(p.name for p in CONFORMANCE.iterdir()) == [
        "README.md", "canonical.json", "legacy.json", "statistics.json"]
    for cases in (CANONICAL, LEGACY):
        assert len(set(ids(cases))) == len(cases) >= 10


@pytest.mark.parametrize("case", CANONICAL, ids=ids(CANONICAL))
def test_rfc8785_canonical_bytes_and_digest(case: dict[str, Any]) -> None:
    doc = json.loads(case["input_json"])
    if "error" in case:
        with pytest.raises(aau_schemas.CanonicalizationError):
            aau_schemas.canonical_json(doc)
        with pytest.raises(aau_schemas.CanonicalizationError):
            aau_schemas.canonical_digest(doc)
        return
    data = aau_schemas.canonical_json(doc)
    assert data == case["canonical"].encode("utf-8")
    assert hashlib.sha256(data).hexdigest() == case["sha256"]
    assert aau_schemas.canonical_digest(doc) == case["digest"] == "sha256:" + case["sha256"]


@pytest.mark.parametrize("case", LEGACY, ids=ids(LEGACY))
def test_legacy_conventions(case: dict[str, Any]) -> None:
    doc = json.loads(case["input_json"])
    suite, evidence, release = case["suite"], case["evidence"], case["release"]
    assert aau_schemas.legacy_suite_bytes(doc) == suite["text"].encode("ascii")
    assert aau_schemas.legacy_suite_sha256(doc) == suite["sha256"]
    assert hashlib.sha256(suite["text"].encode("ascii")).hexdigest() == suite["sha256"]
    assert aau_schemas.legacy_render_json(doc) == evidence["text"]
    assert aau_schemas.legacy_sha256_json(doc) == evidence["sha256"]
    assert aau_schemas.legacy_release_digest(doc) == release["sha256"]
    assert hashlib.sha256(release["text"].encode("utf-8")).hexdigest() == release["sha256"]


def test_legacy_and_rfc8785_differ_where_the_readme_says() -> None:
    by_id = {case["id"]: case for case in CANONICAL}
    legacy = {case["id"]: case for case in LEGACY}
    # key order: UTF-16 code units (RFC 8785) vs code points (Python's sort_keys)
    assert by_id["key-order-utf16"]["canonical"].index("\U0001f600") < \
        by_id["key-order-utf16"]["canonical"].index("\ue000")
    assert legacy["key-order-utf16"]["release"]["text"].index("\ue000") < \
        legacy["key-order-utf16"]["release"]["text"].index("\U0001f600")
    # numbers: ECMAScript form vs Python repr (1.0 stays 1.0)
    assert by_id["floats"]["canonical"].startswith("[1,0,")
    assert legacy["floats"]["release"]["text"].startswith("[1.0,-0.0,")


@pytest.mark.parametrize("case", STATS["wilson"]["cases"])
def test_wilson(case: dict[str, Any]) -> None:
    args = (case["successes"], case["n"]) + ((case["z"],) if "z" in case else ())
    low, high = wilson_interval(*args)
    assert low == pytest.approx(case["low"], abs=TOL)
    assert high == pytest.approx(case["high"], abs=TOL)
    assert low <= case["successes"] / case["n"] <= high


@pytest.mark.parametrize("case", STATS["wilson"]["errors"])
def test_wilson_errors(case: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        wilson_interval(case["successes"], case["n"])


@pytest.mark.parametrize("case", STATS["pass_k"]["cases"])
def test_pass_k(case: dict[str, Any]) -> None:
    counts = [tuple(pair) for pair in case["counts"]]
    assert pass_hat_k(counts, case["k"]) == pytest.approx(case["pass_hat_k"], abs=TOL)
    assert pass_at_k(counts, case["k"]) == pytest.approx(case["pass_at_k"], abs=TOL)


@pytest.mark.parametrize("case", STATS["pass_k"]["errors"])
def test_pass_k_errors(case: dict[str, Any]) -> None:
    counts = [tuple(pair) for pair in case["counts"]]
    with pytest.raises(ValueError):
        pass_hat_k(counts, case["k"])
    with pytest.raises(ValueError):
        pass_at_k(counts, case["k"])


@pytest.mark.parametrize("case", STATS["bootstrap"]["cases"])
def test_bootstrap(case: dict[str, Any]) -> None:
    low, high = bootstrap_ci(case["values"], resamples=case["resamples"], seed=case["seed"],
                             confidence=case["confidence"])
    assert (low, high) == pytest.approx((case["low"], case["high"]), abs=TOL)


@pytest.mark.parametrize("case", STATS["compat_bootstrap"]["cases"])
def test_compat_bootstrap(case: dict[str, Any]) -> None:
    low, high = compat_bootstrap_ci(case["values"])
    assert (low, high) == pytest.approx((case["low"], case["high"]), abs=TOL)
