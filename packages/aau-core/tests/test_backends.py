"""Every backend path offline: the official SDKs against a fake server on 127.0.0.1 (port 0).

No test reaches the internet: each provider's base URL points at ``fake_openai_server.py``
(through ``AAU_<KIND>_BASE_URL`` or the ``base_url`` argument).
"""

from __future__ import annotations

import importlib.util
import json
import socket
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from aau_core._agents._backend_errors import (
    BackendConfigError,
    MissingCredentialError,
    MissingExtraError,
    ProviderError,
    UnknownBackendError,
)
from aau_core._agents._backends import PROVIDERS, backend_kinds, base_url_env, make_backend
from aau_core._agents._cost import CostTracker, _reset_pricing, register_pricing
from aau_core._agents._loop import NO_SUBMISSION_ERROR, Block, run_tool_agent
from aau_core._agents._openai_compat import (
    response_from_openai,
    to_openai_messages,
    to_openai_tools,
    usage_from_openai,
)
from aau_core._run import _provenance
from aau_core._run._guards import is_transport_error

_spec = importlib.util.spec_from_file_location(
    "fake_openai_server", Path(__file__).with_name("fake_openai_server.py")
)
fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake)

TOOLS = [
    {
        "name": "lookup",
        "description": "Look something up.",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
    },
    {
        "name": "submit",
        "description": "Submit the final answer.",
        "input_schema": {"type": "object", "properties": {"answer": {"type": "string"}}},
    },
]
ALL_KEYS = [s.env_key for s in PROVIDERS.values() if s.env_key] + ["ANTHROPIC_API_KEY"]


@pytest.fixture
def server():
    with fake.FakeServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ALL_KEYS:
        monkeypatch.delenv(name, raising=False)
    for kind in [*PROVIDERS, "anthropic"]:
        monkeypatch.delenv(base_url_env(kind), raising=False)
    for name in ("AAU_LOCAL_MODEL", "AAU_LOCAL_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    _reset_pricing()
    yield
    _reset_pricing()
    _provenance.register_backend(None)


def quiet(backend):
    """Record waits instead of sleeping (free-tier throttles, retry back-off)."""
    waits = []
    backend._sleep = waits.append
    return waits


def agent(backend, model):
    register_pricing(model, 1.0, 2.0)
    cost = CostTracker(model)
    out = run_tool_agent(
        backend, "You are terse.", TOOLS, "Find it.", lambda n, i: f"{n}:{i['q']}", "submit", cost
    )
    return out, cost


def provider_backend(kind, server, monkeypatch, *, via_env=True, model=None):
    spec = PROVIDERS[kind]
    if spec.env_key:
        monkeypatch.setenv(spec.env_key, f"key-for-{kind}")
    url = f"{server.url}/v1"
    if kind == "local":
        monkeypatch.setenv("AAU_LOCAL_MODEL", "qwen2.5-7b-instruct")
    if via_env:
        monkeypatch.setenv(base_url_env(kind), url)
        backend = make_backend(kind, model=model)
    else:
        backend = make_backend(kind, model=model, base_url=url)
    return backend, quiet(backend)


@pytest.mark.parametrize("kind", sorted(PROVIDERS))
def test_every_openai_compatible_provider_runs_the_agent_loop(kind, server, monkeypatch):
    model = None if PROVIDERS[kind].default_model or kind == "local" else "gpt-4o-mini"
    backend, _ = provider_backend(kind, server, monkeypatch, via_env=kind != "openai", model=model)
    out, cost = agent(backend, backend.model)
    assert out.submitted and out.submission == {"answer": "lookup:first"} and out.n_turns == 2
    assert backend.served_model == backend.model + fake.SERVED_SUFFIX
    assert cost.api_calls == 2 and cost.input_tokens == 120 and cost.cache_read_input_tokens == 80

    first, second = server.requests
    assert first["path"] == "/v1/chat/completions"
    key = PROVIDERS[kind].env_key
    want_auth = f"Bearer key-for-{kind}" if key else "Bearer not-needed"
    assert first["headers"]["authorization"] == want_auth
    body = first["body"]
    assert body["model"] == backend.model and body["temperature"] == 0
    assert "stream" not in body
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Find it."},
    ]
    assert body["tools"][0] == {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look something up.",
            "parameters": TOOLS[0]["input_schema"],
        },
    }
    assistant, tool = second["body"]["messages"][2:]
    assert assistant == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "lookup", "arguments": '{"q": "first"}'},
            }
        ],
    }
    assert tool == {"role": "tool", "tool_call_id": "call_1", "content": "lookup:first"}


def test_default_models_and_urls_are_those_of_1_6():
    assert {k: (s.base_url, s.env_key, s.default_model) for k, s in PROVIDERS.items()} == {
        "mistral": ("https://api.mistral.ai/v1", "MISTRAL_API_KEY", "mistral-small-latest"),
        "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY", "llama-3.3-70b-versatile"),
        "gemini": (
            "https://generativelanguage.googleapis.com/v1beta/openai",
            "GEMINI_API_KEY",
            "gemini-2.0-flash",
        ),
        "cerebras": ("https://api.cerebras.ai/v1", "CEREBRAS_API_KEY", "zai-glm-4.7"),
        "deepseek": ("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", "deepseek-v4-flash"),
        "together": (
            "https://api.together.xyz/v1",
            "TOGETHER_API_KEY",
            "meta-llama/Llama-3.3-70B-Instruct-Turbo",
        ),
        "fireworks": (
            "https://api.fireworks.ai/inference/v1",
            "FIREWORKS_API_KEY",
            "accounts/fireworks/models/gpt-oss-120b",
        ),
        "openrouter": (
            "https://openrouter.ai/api/v1",
            "OPENROUTER_API_KEY",
            "nvidia/nemotron-3-super-120b-a12b:free",
        ),
        "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY", None),
        "local": (None, None, None),
    }
    assert backend_kinds() == sorted(["mock", "anthropic", *PROVIDERS])


def test_429_then_200_honours_retry_after(server, monkeypatch):
    backend, waits = provider_backend("groq", server, monkeypatch)
    backend.min_interval_s = 0
    server.plan = [{"status": 429, "headers": {"Retry-After": "7"}}]
    out, _ = agent(backend, backend.model)
    assert out.submitted and waits == [7.0] and len(server.requests) == 3


def test_500_then_200_backs_off_exponentially(server, monkeypatch):
    backend, waits = provider_backend("mistral", server, monkeypatch)
    backend.min_interval_s = 0
    server.plan = [{"status": 500}, {"status": 502}]
    out, _ = agent(backend, backend.model)
    assert out.submitted and waits == [2.0, 4.0]


def test_retries_used_up_is_a_transport_error(server, monkeypatch):
    backend, waits = provider_backend("together", server, monkeypatch)
    backend.min_interval_s = 0
    server.plan = [{"status": 503}] * 6
    with pytest.raises(ProviderError) as info:
        agent(backend, backend.model)
    assert str(info.value).startswith("giving up after 6 attempts: HTTP 503 from together")
    assert is_transport_error(info.value) and len(server.requests) == 6
    assert waits == [2.0, 4.0, 8.0, 16.0, 32.0]


def test_client_error_fails_at_once_and_reads_as_transport(server, monkeypatch):
    backend, _ = provider_backend("cerebras", server, monkeypatch)
    server.plan = [{"status": 401, "body": {"error": {"message": "Invalid API key"}}}]
    with pytest.raises(ProviderError) as info:
        agent(backend, backend.model)
    assert info.value.status == 401 and "HTTP 401 from cerebras" in str(info.value)
    assert "Invalid API key" in str(info.value) and is_transport_error(info.value)
    assert len(server.requests) == 1


def test_malformed_tool_call_is_a_miss_not_a_crash(server, monkeypatch):
    backend, _ = provider_backend("groq", server, monkeypatch)
    body = {"error": {"code": "tool_use_failed", "message": "Failed to call a function"}}
    server.plan = [{"status": 400, "body": body}]
    out, cost = agent(backend, backend.model)
    assert out.error == NO_SUBMISSION_ERROR and not is_transport_error(out.error)
    assert cost.api_calls == 1 and cost.input_tokens == 0


def test_streaming_required_latches_streaming_for_the_session(server, monkeypatch):
    backend, _ = provider_backend("together", server, monkeypatch, model="Qwen/Qwen3.7-Plus")
    server.stream_only = True
    out, cost = agent(backend, backend.model)
    assert out.submitted and out.submission == {"answer": "lookup:first"}
    assert backend.streaming is True
    assert backend.served_model == "Qwen/Qwen3.7-Plus" + fake.SERVED_SUFFIX
    assert [r["body"].get("stream") for r in server.requests] == [None, True, True]
    assert server.requests[1]["body"]["stream_options"] == {"include_usage": True}
    assert cost.api_calls == 2 and cost.output_tokens == 40 and cost.cache_read_input_tokens == 80


def test_an_upstream_error_is_not_mistaken_for_streaming(server, monkeypatch):
    backend, _ = provider_backend("openrouter", server, monkeypatch)
    server.plan = [{"status": 400, "body": {"error": {"message": "upstream provider error"}}}]
    with pytest.raises(ProviderError, match="HTTP 400 from openrouter"):
        agent(backend, backend.model)
    assert backend.streaming is False


def test_deepseek_cache_split_usage(server, monkeypatch):
    backend, _ = provider_backend("deepseek", server, monkeypatch)
    server.usage = {
        "prompt_tokens": 100,
        "completion_tokens": 7,
        "prompt_cache_hit_tokens": 70,
        "prompt_cache_miss_tokens": 30,
    }
    cost = CostTracker("deepseek-v4-flash")
    run_tool_agent(backend, "s", TOOLS, "u", lambda n, i: "r", "submit", cost)
    assert (cost.input_tokens, cost.cache_read_input_tokens, cost.output_tokens) == (60, 140, 14)
    assert cost.cost_usd == pytest.approx((60 * 0.14 + 140 * 0.14 * 0.02 + 14 * 0.28) / 1e6)


def test_refused_connection_fails_at_once_and_reads_as_transport(monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    monkeypatch.setenv("GROQ_API_KEY", "k")
    backend = make_backend("groq", base_url=f"http://127.0.0.1:{port}/v1")
    waits = quiet(backend)
    backend.max_attempts, backend.min_interval_s = 3, 0
    with pytest.raises(ProviderError) as info:
        backend.create("s", [{"role": "user", "content": "u"}], TOOLS)
    assert str(info.value).startswith("ConnectionError talking to groq")
    assert "connection refused" in str(info.value)
    assert is_transport_error(info.value) and waits == []  # no back-off on a refused connect


def test_connection_timeout_still_retries(server, monkeypatch):
    backend, waits = provider_backend("groq", server, monkeypatch)
    backend.max_attempts, backend.min_interval_s = 3, 0
    openai = backend._openai
    import httpx  # openai's own transport

    def timeout(**_):
        # a real request: openai >= 3.60 reads the request's headers when it builds the error
        raise openai.APITimeoutError(
            request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"))

    backend._client = SimpleNamespace(
        chat=SimpleNamespace(
            completions=SimpleNamespace(with_raw_response=SimpleNamespace(create=timeout))
        )
    )
    with pytest.raises(ProviderError) as info:
        backend.create("s", [{"role": "user", "content": "u"}], TOOLS)
    assert "giving up after 3 attempts: Timed out" in str(info.value) and waits == [2.0, 4.0]


MALFORMED_REPLIES = {
    "non-JSON body": ({"raw": "<html>oops</html>", "content_type": "text/html"}, "invalid JSON"),
    "non-JSON body labelled JSON": ({"raw": "not json"}, "invalid JSON"),
    "JSON list": ({"raw": "[1, 2]"}, "not an object"),
    "JSON string": ({"raw": '"hello"'}, "not an object"),
    "no choices": ({"raw": '{"id": "x", "model": "m"}'}, "no choices"),
    "empty choices": ({"raw": '{"choices": []}'}, "no choices"),
    "choice not an object": ({"raw": '{"choices": [7]}'}, "choices[0] is not an object"),
    "message a string": ({"raw": '{"choices": [{"message": "hi"}]}'}, "message is str"),
    "content a number": (
        {"raw": '{"choices": [{"message": {"content": 5}}]}'},
        "message.content is int",
    ),
    "tool_calls an object": (
        {"raw": '{"choices": [{"message": {"tool_calls": {"a": 1}}}]}'},
        "message.tool_calls is dict",
    ),
    "function a string": (
        {"raw": '{"choices": [{"message": {"tool_calls": [{"function": "f"}]}}]}'},
        "function is str",
    ),
    "usage a list": ({"raw": '{"choices": [{"message": {}}], "usage": [1]}'}, "usage is list"),
    "nested 5000 deep": ({"raw": "[" * 5000 + "]" * 5000}, "nested deeper"),
}


@pytest.mark.parametrize("shape", sorted(MALFORMED_REPLIES))
def test_malformed_reply_is_an_invalid_response_transport_error(shape, server, monkeypatch):
    step, why = MALFORMED_REPLIES[shape]
    backend, waits = provider_backend("local", server, monkeypatch)
    server.plan = [{"status": 200, **step}]
    with pytest.raises(ProviderError) as info:
        backend.create("s", [{"role": "user", "content": "u"}], TOOLS)
    text = str(info.value)
    assert text.startswith("invalid response from local: ") and why in text, text
    assert is_transport_error(text) and len(server.requests) == 1 and waits == []


def test_provenance_records_the_served_model(server, monkeypatch):
    backend, _ = provider_backend("deepseek", server, monkeypatch)
    assert _provenance.snapshot()["requested_model"] == "deepseek-v4-flash"
    assert _provenance.snapshot()["served_model"] is None
    agent(backend, backend.model)
    snap = _provenance.snapshot()
    assert snap["served_model"] == "deepseek-v4-flash" + fake.SERVED_SUFFIX
    assert snap["served_differs_from_requested"] and not snap["model_pinned"]


def test_throttle_waits_between_calls(server, monkeypatch):
    backend, waits = provider_backend("gemini", server, monkeypatch)
    agent(backend, backend.model)
    assert len(waits) == 1 and 0 < waits[0] <= 4.1


# --------------------------------------------------------------------------- configuration


@pytest.mark.parametrize("kind", sorted(k for k, s in PROVIDERS.items() if s.env_key))
def test_missing_key_names_the_variable(kind):
    with pytest.raises(MissingCredentialError) as info:
        make_backend(kind, model="m")
    assert info.value.env_var == PROVIDERS[kind].env_key
    assert PROVIDERS[kind].env_key in str(info.value)


def test_anthropic_missing_key_names_the_variable():
    with pytest.raises(MissingCredentialError, match="ANTHROPIC_API_KEY is not set"):
        make_backend("anthropic")


def test_local_needs_a_url_and_a_model_but_no_key(server, monkeypatch):
    with pytest.raises(BackendConfigError, match="AAU_LOCAL_BASE_URL"):
        make_backend("local", model="m")
    with pytest.raises(BackendConfigError, match="AAU_LOCAL_MODEL"):
        make_backend("local", base_url=server.url + "/v1")
    with pytest.raises(BackendConfigError, match="needs a model"):
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        make_backend("openai")
    monkeypatch.setenv("AAU_LOCAL_API_KEY", "secret-local")
    backend = make_backend("local", model="llama", base_url=server.url + "/v1/")
    assert backend.base_url == server.url + "/v1"
    backend.create("s", [{"role": "user", "content": "hi"}], [])
    assert server.requests[0]["headers"]["authorization"] == "Bearer secret-local"
    assert "tools" not in server.requests[0]["body"]


def test_max_tokens_is_sent_only_when_set_and_must_be_positive(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("AAU_ANTHROPIC_BASE_URL", server.url)
    turn = [{"role": "user", "content": "hi"}]
    make_backend("local", model="llama", base_url=server.url + "/v1").create("s", turn, [])
    make_backend("local", model="llama", base_url=server.url + "/v1",
                 max_tokens=512).create("s", turn, [])
    make_backend("anthropic", model="claude-haiku-4-5", max_tokens=300).create("s", turn, [])
    default, capped, anthropic = (r["body"] for r in server.requests)
    assert "max_tokens" not in default  # the server's own limit
    assert capped["max_tokens"] == 512
    assert anthropic["max_tokens"] == 300
    for kind in ("local", "anthropic", "mock"):
        with pytest.raises(BackendConfigError, match="max_tokens must be at least 1, got 0"):
            make_backend(kind, model="m", base_url=server.url + "/v1", max_tokens=0)


def test_base_url_argument_beats_the_environment(server, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", "k")
    monkeypatch.setenv("AAU_MISTRAL_BASE_URL", "http://127.0.0.1:9/v1")
    assert make_backend("mistral", base_url=server.url + "/v1").base_url == server.url + "/v1"
    assert make_backend("mistral").base_url == "http://127.0.0.1:9/v1"
    monkeypatch.delenv("AAU_MISTRAL_BASE_URL")
    assert make_backend("mistral").base_url == "https://api.mistral.ai/v1"  # nothing sent


def test_unknown_kind_and_mock(monkeypatch):
    with pytest.raises(UnknownBackendError, match="unknown backend 'gpt'.*anthropic.*local"):
        make_backend("gpt")
    with pytest.raises(BackendConfigError, match="mock_factory"):
        make_backend("mock")
    mock = SimpleNamespace(model="mock")
    assert make_backend("mock", mock_factory=lambda: mock) is mock
    assert _provenance.active_backend() is mock


@pytest.mark.parametrize(("kind", "module"), [("groq", "openai"), ("anthropic", "anthropic")])
def test_missing_sdk_says_which_extra_to_install(kind, module, monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    with pytest.raises(MissingExtraError) as info:
        make_backend(kind)
    assert str(info.value) == (
        f"the {module!r} package is not installed: pip install 'aau-core[{module}]'"
    )
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------- anthropic


def test_anthropic_backend_against_the_fake_server(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("AAU_ANTHROPIC_BASE_URL", server.url)
    backend = make_backend("anthropic", model="claude-haiku-4-5")
    cost = CostTracker("claude-haiku-4-5")
    out = run_tool_agent(
        backend, "You are terse.", TOOLS, "Find it.", lambda n, i: f"{n}:{i['q']}", "submit", cost
    )
    assert out.submitted and out.submission == {"answer": "lookup:first"}
    assert backend.served_model == "claude-haiku-4-5" + fake.SERVED_SUFFIX
    assert cost.as_dict()["cache_read_input_tokens"] == 600 and cost.api_calls == 2
    first, second = server.requests
    assert first["path"] == "/v1/messages"
    headers = first["headers"]  # the key travels as x-api-key or as a bearer token (SDK 2.x)
    assert "sk-ant-test" in (headers.get("x-api-key"), headers.get("authorization", "")[7:])
    body = first["body"]
    assert body["system"] == [
        {"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["thinking"] == {"type": "adaptive"} and body["max_tokens"] == 4096
    assert body["output_config"] == {"effort": "medium"} and body["tools"] == TOOLS
    user_turn = second["body"]["messages"][2]
    assert user_turn == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "lookup:first"}],
    }
    assert second["body"]["messages"][1]["content"][0]["type"] == "tool_use"


def test_anthropic_error_is_a_transport_error(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "bad")
    backend = make_backend("anthropic", base_url=server.url)
    server.plan = [
        {"status": 401, "body": {"type": "error", "error": {"type": "authentication_error"}}}
    ]
    with pytest.raises(ProviderError) as info:
        backend.create("s", [{"role": "user", "content": "u"}], TOOLS)
    assert "HTTP 401 from anthropic" in str(info.value) and is_transport_error(info.value)


ANTHROPIC_MALFORMED = {
    "non-JSON body": ({"raw": "<html>oops</html>", "content_type": "text/html"}, "no content list"),
    "non-JSON body labelled JSON": ({"raw": "not json"}, "invalid JSON"),
    "JSON list": ({"raw": "[1]"}, "no content list"),
    "no content": ({"raw": '{"id": "m"}'}, "no content list"),
    "content a number": ({"raw": '{"content": 5}'}, "no content list"),
    "block without type": ({"raw": '{"content": [{"text": "x"}]}'}, "content[0] is not a block"),
}


@pytest.mark.parametrize("shape", sorted(ANTHROPIC_MALFORMED))
def test_anthropic_malformed_reply_is_an_invalid_response(shape, server, monkeypatch):
    step, why = ANTHROPIC_MALFORMED[shape]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    backend = make_backend("anthropic", base_url=server.url)
    server.plan = [{"status": 200, **step}]
    with pytest.raises(ProviderError) as info:
        backend.create("s", [{"role": "user", "content": "u"}], TOOLS)
    text = str(info.value)
    assert text.startswith("invalid response from anthropic: ") and why in text, text
    assert is_transport_error(text)


# --------------------------------------------------------------------------- translation


def test_translation_accepts_objects_and_dicts_and_text_turns():
    messages = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": [
                SimpleNamespace(type="thinking", thinking="..."),
                {"type": "text", "text": "checking"},
                SimpleNamespace(type="tool_use", id="t1", name="lookup", input={"q": "é"}),
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [{"type": "text", "text": "a"}],
                },
                {"type": "text", "text": "and?"},
            ],
        },
    ]
    assert to_openai_messages("sys", messages) == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "checking",
            "tool_calls": [
                {
                    "id": "t1",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": '{"q": "\\u00e9"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "t1", "content": "a"},
        {"role": "user", "content": "and?"},
    ]
    assert to_openai_tools([{"name": "x"}])[0]["function"]["parameters"] == {
        "type": "object",
        "properties": {},
    }


def test_response_translation_unparseable_arguments_and_refusal():
    data = {
        "model": "m-1",
        "choices": [
            {
                "finish_reason": "tool_calls",
                "message": {
                    "content": "hmm",
                    "tool_calls": [
                        {"id": "c1", "function": {"name": "f", "arguments": "{not json"}},
                        {"id": "c2", "function": {"name": "g", "arguments": ""}},
                    ],
                },
            }
        ],
    }
    response = response_from_openai(data)
    assert [b.type for b in response.content] == ["text", "tool_use", "tool_use"]
    assert response.content[1].input == {"_unparseable": "{not json"}
    assert response.content[2].input == {}
    assert response.stop_reason == "tool_calls" and response.model == "m-1"
    refusal = response_from_openai({"choices": [{"message": {"refusal": "no"}}]})
    assert refusal.stop_reason == "refusal" and refusal.content == []


def test_usage_mapping():
    assert usage_from_openai(None).input_tokens == 0
    u = usage_from_openai({"prompt_tokens": 10, "completion_tokens": 3})
    assert (u.input_tokens, u.output_tokens, u.cache_read_input_tokens) == (10, 3, 0)
    u = usage_from_openai({"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 4}})
    assert (u.input_tokens, u.cache_read_input_tokens) == (6, 4)


@pytest.mark.parametrize("style", ["fenced", "tags", "json"])
def test_tool_calls_written_as_text_drive_the_agent_loop(style, server, monkeypatch):
    """llama.cpp's server returns tool calls as text in ``content``: with the default
    ``text_tool_calls="auto"`` the loop still sees them as calls and runs to the submission."""
    server.text_calls = style
    backend, _ = provider_backend("local", server, monkeypatch)
    assert backend.text_tool_calls == "auto"
    out, _cost = agent(backend, backend.model)
    assert out.submitted and out.submission == {"answer": "lookup:first"} and out.n_turns == 2
    assistant = server.requests[1]["body"]["messages"][2]
    assert assistant["tool_calls"][0]["id"] == "text_call_1"
    assert assistant["tool_calls"][0]["function"]["name"] == "lookup"


def test_text_tool_calls_off_and_without_tools_leave_the_text(server, monkeypatch):
    server.text_calls = "fenced"
    monkeypatch.setenv("AAU_LOCAL_MODEL", "m")
    backend = make_backend("local", base_url=f"{server.url}/v1", text_tool_calls="off")
    quiet(backend)
    out, _cost = agent(backend, backend.model)
    assert not out.submitted and out.n_turns == 1  # the loop ends after one turn
    server.answer = lambda body: (None, [{"id": "c", "name": "lookup", "arguments": "{}"}])
    auto = make_backend("local", base_url=f"{server.url}/v1")
    reply = auto.create("s", [{"role": "user", "content": "hi"}], [])  # no tools offered
    assert [b.type for b in reply.content] == ["text"] and reply.stop_reason == "stop"
    with pytest.raises(BackendConfigError, match="text_tool_calls must be one of auto, off"):
        make_backend("local", base_url=f"{server.url}/v1", text_tool_calls="always")


def test_text_tool_calls_strictness():
    """Prose with JSON in it, malformed markup and structured calls are left as they are."""
    from aau_core._agents._openai_compat import ModelResponse, Usage, with_text_tool_calls

    def reply(text, *extra, stop="stop"):
        return ModelResponse([Block(type="text", text=text), *extra], stop, Usage())

    call = '```json\n{"name": "lookup", "arguments": {"q": "x"}}\n```'
    got = with_text_tool_calls(reply("Let me look.\n" + call))
    assert got.stop_reason == "tool_calls" and got.content[0].text.startswith("Let me look.")
    assert (got.content[1].name, got.content[1].input, got.content[1].id) == \
        ("lookup", {"q": "x"}, "text_call_1")
    for text in ('You could call {"name": "lookup", "arguments": {}}.',
                 '```json\n{"name": "lookup", "arguments": {}, "id": 3}\n```',
                 "<tool_call>{\"name\": \"lookup\"", ""):
        same = reply(text)
        assert with_text_tool_calls(same) is same
    structured = reply(call, Block(type="tool_use", id="c1", name="other", input={}))
    assert with_text_tool_calls(structured) is structured
    refusal = reply(call, stop="refusal")
    assert with_text_tool_calls(refusal) is refusal
    # a call read from a reply cut at the token limit stays marked as cut
    assert with_text_tool_calls(reply(call, stop="length")).stop_reason == "length"


@pytest.mark.parametrize("stream", [False, True])
def test_a_reply_cut_at_the_token_limit_ends_the_loop_as_cut(stream, server, monkeypatch):
    """finish_reason "length" from a real OpenAI SDK call (plain and streamed) reaches the loop:
    the run ends with OUTPUT_LIMIT_ERROR and the cut turn listed."""
    from aau_core._agents._loop import OUTPUT_LIMIT_ERROR

    server.answer = lambda body: ("The answer is", [])
    server.stop_reason = "length"
    server.stream_only = stream  # the backend then streams, as it does for such providers
    backend, _ = provider_backend("local", server, monkeypatch)
    out, _cost = agent(backend, backend.model)
    assert (out.submitted, out.error, out.cut_turns) == (False, OUTPUT_LIMIT_ERROR, [1])
    assert bool(server.requests[-1]["body"].get("stream")) is stream


def test_anthropic_max_tokens_ends_the_loop_as_cut(server, monkeypatch):
    """Anthropic's stop_reason "max_tokens", through the official SDK."""
    from aau_core._agents._loop import OUTPUT_LIMIT_ERROR

    server.anthropic_answer = lambda body: [{"type": "text", "text": "The answer is"}]
    server.stop_reason = "max_tokens"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("AAU_ANTHROPIC_BASE_URL", server.url)
    backend = make_backend("anthropic", model="claude-haiku-4-5")
    out, _cost = agent(backend, backend.model)
    assert (out.submitted, out.error, out.cut_turns) == (False, OUTPUT_LIMIT_ERROR, [1])

# --------------------------------------------------------------------------- what models send
# Strict tool arguments in both backends (the one decoder, its one recovery; canned raw bodies,
# so NaN and duplicate keys reach the SDKs exactly as a provider sends them) and tool-call ids
# made unique before the results go back (issue 17).

ASK = [{"role": "user", "content": "Weather?"}]


def _local(server):
    backend = make_backend("local", model="m", base_url=f"{server.url}/v1")
    quiet(backend)
    return backend


@pytest.mark.parametrize(("arguments", "reason"), [
    ('{"city":"Paris","city":"Rome"}', 'duplicate key "city"'),
    ('{"n": NaN}', "$.n: NaN is not allowed (JSON has no NaN or Infinity)"),
    ('{"n": 1e999}', "$.n: number 1e999 is too large (overflows to infinity)"),
    ('{"q": 1} x', "text after the JSON value at character 8: ' x'"),
])
def test_openai_compatible_arguments_refused_with_the_reason(arguments, reason, server):
    server.answer = fake.one_call("get_weather", arguments)
    (use,) = _local(server).create("s", ASK, TOOLS).content
    assert (use.type, use.id, use.name) == ("tool_use", "call_1", "get_weather")
    assert use.input == {"_unparseable": arguments} and use.input_error == reason
    assert not hasattr(use, "input_recovered")


def test_openai_compatible_stray_quotes_recovered_and_flagged(server):
    server.answer = fake.one_call("get_weather", '{"q": 1}""')
    (use,) = _local(server).create("s", ASK, TOOLS).content
    assert use.input == {"q": 1} and use.input_recovered == "dropped stray '\"\"' after the object"
    assert not hasattr(use, "input_error")


def test_openai_compatible_clean_arguments_carry_no_flag(server):
    server.answer = fake.one_call("get_weather", '{"city": "Paris"}')
    (use,) = _local(server).create("s", ASK, TOOLS).content
    assert use.input == {"city": "Paris"} and set(vars(use)) == {"type", "id", "name", "input"}


def _message(input_json: str) -> str:
    """An Anthropic message whose one tool_use input is ``input_json`` as the provider wrote it."""
    return ('{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", '
            '"content": [{"type": "text", "text": "checking"}, {"type": "tool_use", '
            f'"id": "toolu_1", "name": "get_weather", "input": {input_json}}}], '
            '"stop_reason": "tool_use", "stop_sequence": null, '
            '"usage": {"input_tokens": 5, "output_tokens": 2}}')


@pytest.mark.parametrize(("input_json", "reason", "shown"), [
    ('{"city": "Paris", "city": "Rome"}', 'duplicate key "city"', '{"city": "Rome"}'),
    ('{"n": NaN}', "$.n: NaN is not allowed (JSON has no NaN or Infinity)", '{"n": NaN}'),
    ('{"n": -Infinity}', "$.n: -Infinity is not allowed (JSON has no NaN or Infinity)",
     '{"n": -Infinity}'),
])
def test_anthropic_tool_inputs_refused_with_the_reason(input_json, reason, shown, server,
                                                       monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    server.plan = [{"status": 200, "raw": _message(input_json)}]
    backend = make_backend("anthropic", base_url=server.url)
    text, use = backend.create("s", ASK, TOOLS).content
    assert text.text == "checking" and (use.id, use.name) == ("toolu_1", "get_weather")
    assert use.input == {"_unparseable": shown} and use.input_error == reason
    assert "input_error" not in use.model_dump()  # never sent back to the API


def test_anthropic_clean_tool_input_is_left_alone(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    server.plan = [{"status": 200, "raw": _message('{"city": "Oslo", "days": 2.5}')}]
    _, use = make_backend("anthropic", base_url=server.url).create("s", ASK, TOOLS).content
    assert use.input == {"city": "Oslo", "days": 2.5} and not hasattr(use, "input_error")


# --------------------------------------------------------------------------- tool-call ids

IDS = ["call_0", "call_0", None, ""]
SENT = ["call_0", "call_0-2", "aau_call_1_3", "aau_call_1_4"]


def _run(backend):
    register_pricing(backend.model, 0, 0)  # the loop's cost tracker needs a price
    return run_tool_agent(backend, "s", TOOLS, "Find them.", lambda n, i: f"result {i['q']}",
                          "submit", CostTracker(backend.model))


def test_openai_duplicate_and_missing_ids_pair_every_result_with_its_own_call(server):
    def answer(body):
        if not any(m["role"] == "tool" for m in body["messages"]):
            return None, [{"id": i, "name": "lookup", "arguments": json.dumps({"q": f"q{n}"})}
                          for n, i in enumerate(IDS)]
        return None, [{"id": "call_9", "name": "submit", "arguments": '{"answer": "ok"}'}]

    server.answer = answer
    out = _run(_local(server))
    assert out.submitted and out.n_turns == 2
    sent = server.requests[1]["body"]["messages"]
    assert [c["id"] for c in sent[2]["tool_calls"]] == SENT
    assert [json.loads(c["function"]["arguments"]) for c in sent[2]["tool_calls"]] == [
        {"q": f"q{n}"} for n in range(4)]
    assert [(m["role"], m["tool_call_id"], m["content"]) for m in sent[3:]] == [
        ("tool", sid, f"result q{n}") for n, sid in enumerate(SENT)]
    assert [(c["id"], c.get("sent_id")) for c in out.tool_calls[:4]] == [
        ("call_0", None), ("call_0", "call_0-2"), (None, "aau_call_1_3"), ("", "aau_call_1_4")]


def test_anthropic_duplicate_and_missing_ids_pair_every_result_with_its_own_call(server,
                                                                                 monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    def answer(body):
        if len(body["messages"]) == 1:
            return [{"type": "tool_use", "id": i, "name": "lookup", "input": {"q": f"q{n}"}}
                    for n, i in enumerate(IDS)]
        return [{"type": "tool_use", "id": "toolu_9", "name": "submit", "input": {"answer": "ok"}}]

    server.anthropic_answer = answer
    out = _run(make_backend("anthropic", model="claude-haiku-4-5", base_url=server.url))
    assert out.submitted and out.n_turns == 2
    assistant, results = server.requests[1]["body"]["messages"][1:3]
    assert [(b["id"], b["input"]) for b in assistant["content"]] == [
        (sid, {"q": f"q{n}"}) for n, sid in enumerate(SENT)]
    assert [(b["tool_use_id"], b["content"]) for b in results["content"]] == [
        (sid, f"result q{n}") for n, sid in enumerate(SENT)]
    assert [c["id"] for c in out.tool_calls] == [*IDS, "toolu_9"]


def test_text_tool_calls_keep_the_decoders_recovery_and_refusals():
    from aau_core._agents._openai_compat import ModelResponse, Usage, with_text_tool_calls

    def reply(text):
        return ModelResponse([Block(type="text", text=text)], "stop", Usage())

    recovered = with_text_tool_calls(reply(
        '<tool_call>{"name": "lookup", "arguments": "{\\"q\\": \\"x\\"}\\"\\""}</tool_call>'))
    (use,) = recovered.content[1:]
    assert (use.name, use.input, use.input_recovered) == (
        "lookup", {"q": "x"}, "dropped stray '\"\"' after the object")
    refused = reply('```json\n{"name": "lookup", "arguments": {"q": "x", "q": "y"}}\n```')
    assert with_text_tool_calls(refused) is refused  # malformed: no call, the text stays
