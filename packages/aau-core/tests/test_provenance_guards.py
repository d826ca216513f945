"""Model provenance (floating aliases, redirects) and the transport-error guards."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from aau_core._run import _provenance
from aau_core._run._guards import (
    TRANSPORT_ERROR_PATTERN,
    ProviderUnavailable,
    check_results_are_measurements,
    is_transport_error,
    provider_error_rate,
)
from aau_core._run._provenance import is_floating, register_backend, snapshot


@pytest.fixture(autouse=True)
def no_active_backend():
    register_backend(None)
    yield
    register_backend(None)


def backend(model, served=None):
    return SimpleNamespace(model=model, served_model=served)


def test_snapshot_keys_and_a_pinned_model():
    snap = snapshot(backend("deepseek-v4-flash", "deepseek-v4-flash"))
    assert list(snap) == [
        "generated_at",
        "harness_version",
        "python",
        "platform",
        "requested_model",
        "served_model",
        "served_differs_from_requested",
        "model_pinned",
    ]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", snap["generated_at"])
    assert snap["model_pinned"] is True and snap["served_differs_from_requested"] is False
    assert snap["harness_version"] != "0+unknown"


def test_redirect_is_not_pinned_and_explained():
    snap = snapshot(backend("deepseek-chat", "deepseek-v4-flash"))
    assert snap["served_differs_from_requested"] is True and snap["model_pinned"] is False
    assert "'deepseek-chat'" in snap["reproducibility_note"]
    assert "'deepseek-v4-flash'" in snap["reproducibility_note"]


def test_floating_alias_unresolved_is_noted():
    snap = snapshot(backend("mistral-small-latest", "mistral-small-latest"))
    assert snap["model_pinned"] is False and not snap["served_differs_from_requested"]
    assert "floating alias" in snap["reproducibility_note"]


def test_floating_alias_resolved_to_a_pinned_snapshot_is_a_redirect():
    snap = snapshot(backend("mistral-small-latest", "mistral-small-2506"))
    assert snap["served_differs_from_requested"] and not snap["model_pinned"]


def test_mock_backend_has_no_served_model_and_is_never_pinned():
    snap = snapshot(SimpleNamespace(model="mock"))
    assert snap["served_model"] is None and snap["model_pinned"] is False
    assert "reproducibility_note" not in snap


def test_snapshot_defaults_to_the_registered_backend():
    assert snapshot()["requested_model"] is None
    register_backend(backend("claude-haiku-4-5", "claude-haiku-4-5"))
    assert snapshot()["served_model"] == "claude-haiku-4-5"
    assert _provenance.active_backend().model == "claude-haiku-4-5"


@pytest.mark.parametrize(
    ("model", "floating"),
    [
        ("mistral-small-latest", True),
        ("Qwen/Qwen3.7-Plus", True),
        ("Qwen/Qwen3.7-Max", True),
        ("gemini-2.5-pro-preview-05-06", True),
        ("gemini-exp-experimental", True),
        ("nvidia/nemotron-3-super-120b-a12b:free", True),
        ("claude-haiku-4-5", False),
        ("deepseek-chat", False),
        ("", False),
        (None, False),
    ],
)
def test_is_floating(model, floating):
    assert is_floating(model) is floating


# --------------------------------------------------------------------------- guards


@pytest.mark.parametrize(
    "text",
    [
        "HTTP 401 from mistral: Unauthorized",
        "HTTP error 503",
        "http status: 429",
        "giving up after 6 attempts: HTTP 500 from groq",
        "Forbidden",
        "Payment Required",
        "RemoteDisconnected('Remote end closed connection')",
        "ConnectionError: [Errno 111]",
        "Read timed out",
        "Timeout",
        "Too Many Requests",
        "SSLError(certificate verify failed)",
        "NameResolutionError",
        "insufficient_quota",
    ],
)
def test_transport_errors_match(text):
    assert is_transport_error(text) and TRANSPORT_ERROR_PATTERN.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "ended turn without submitting a decision",
        "no submission within 8 turns",
        "refused",
        "[model emitted malformed tool call] tool_use_failed",
        "HTTP 200 ok",
        "",
        None,
    ],
)
def test_agent_failures_do_not_match(text):
    assert not is_transport_error(text)


def results(*errors):
    return [SimpleNamespace(detail={"error": e} if e is not None else {}) for e in errors]


def test_provider_error_rate_over_objects_dicts_and_aggregates():
    rs = results("HTTP 401 from x", None, "no submission within 8 turns", "Read timed out")
    assert provider_error_rate(rs) == 0.5
    dicts = [{"detail": {"error": "HTTP 429"}}, {"detail": {}}, {"metrics": {}}]
    assert provider_error_rate(dicts) == pytest.approx(1 / 3)
    assert provider_error_rate(SimpleNamespace(results=rs)) == 0.5
    assert provider_error_rate([]) == 0.0
    assert provider_error_rate([SimpleNamespace(detail=None), object()]) == 0.0


def test_check_results_are_measurements_raises_at_the_threshold():
    check_results_are_measurements(results("HTTP 401", None, None))
    with pytest.raises(ProviderUnavailable) as info:
        check_results_are_measurements(results("HTTP 401", None))
    assert info.value.rate == 0.5 and "transport layer" in str(info.value)
    assert str(info.value).startswith("50% of runs (1 of 2) failed at the transport layer")
    assert (info.value.not_measured, info.value.units, len(info.value.results)) == (1, 2, 2)
    assert isinstance(info.value, RuntimeError) and info.value.exit_code == 3
    check_results_are_measurements(results("HTTP 401", None), threshold=0.75)
    with pytest.raises(ValueError):
        check_results_are_measurements([], threshold=0)


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize(
    "source",
    [backend("mistral-small-latest", "mistral-small-latest"), backend("a", "b"), None],
)
def test_snapshot_fits_the_eval_aggregate_provenance(version, source):
    import aau_schemas

    schema_id = f"https://aau.dev/schemas/eval-aggregate/{version}/eval-aggregate.schema.json"
    aau_schemas.validate(schema_id + "#/$defs/provenance", snapshot(source))
