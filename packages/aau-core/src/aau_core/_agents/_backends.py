"""Model backends by name: ``make_backend(kind, model=None, mock_factory=None, base_url=None)``.

Kinds:

- ``mock``: ``mock_factory()`` builds it (the use case's deterministic backend); no network.
- ``anthropic``: Anthropic's Messages API via the official ``anthropic`` SDK
  (``pip install 'aau-core[anthropic]'``), key from ``ANTHROPIC_API_KEY``.
- every key of ``PROVIDERS`` (mistral, groq, gemini, cerebras, deepseek, together, fireworks,
  openrouter, openai): an OpenAI-compatible chat-completions API via the official ``openai``
  SDK (``pip install 'aau-core[openai]'``), key from the provider's variable.
- ``local``: any OpenAI-compatible server you run (llama.cpp ``llama-server``, vLLM, Ollama,
  LM Studio) at the URL you give (``base_url=`` or ``AAU_LOCAL_BASE_URL``); model from
  ``model=`` or ``AAU_LOCAL_MODEL``; no key needed (``AAU_LOCAL_API_KEY`` is sent when set).

Where a backend connects, first found wins: the ``base_url`` argument, then the environment
variable ``AAU_<KIND>_BASE_URL`` (e.g. ``AAU_GROQ_BASE_URL``; useful for proxies, gateways and
tests), then the provider's public URL. Keys come only from the environment, never from
arguments or files. Building a backend sends nothing; the first ``create`` call does. Every
backend built here is registered for provenance (``snapshot()`` describes the latest).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .._run._provenance import register_backend
from ._anthropic import ANTHROPIC_ENV_KEY, DEFAULT_ANTHROPIC_MODEL, AnthropicBackend
from ._backend_errors import BackendConfigError, MissingCredentialError, UnknownBackendError
from ._openai_compat import OpenAICompatBackend, ProviderSpec

PROVIDERS: dict[str, ProviderSpec] = {
    spec.name: spec
    for spec in (
        ProviderSpec(
            "mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", "mistral-small-latest", 1.1
        ),
        ProviderSpec(
            "groq",
            "https://api.groq.com/openai/v1",
            "GROQ_API_KEY",
            "llama-3.3-70b-versatile",
            2.1,
        ),
        ProviderSpec(
            "gemini",
            "https://generativelanguage.googleapis.com/v1beta/openai",
            "GEMINI_API_KEY",
            "gemini-2.0-flash",
            4.1,
        ),
        ProviderSpec(
            "cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY", "zai-glm-4.7", 2.1
        ),
        ProviderSpec(
            "deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", "deepseek-v4-flash", 0.0
        ),
        ProviderSpec(
            "together",
            "https://api.together.xyz/v1",
            "TOGETHER_API_KEY",
            "meta-llama/Llama-3.3-70B-Instruct-Turbo",
            0.5,
        ),
        ProviderSpec(
            "fireworks",
            "https://api.fireworks.ai/inference/v1",
            "FIREWORKS_API_KEY",
            "accounts/fireworks/models/gpt-oss-120b",
            0.5,
        ),
        ProviderSpec(
            "openrouter",
            "https://openrouter.ai/api/v1",
            "OPENROUTER_API_KEY",
            "nvidia/nemotron-3-super-120b-a12b:free",
            2.5,
        ),
        ProviderSpec("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", None, 0.0),
        ProviderSpec("local", None, None, None, 0.0),
    )
}
"""OpenAI-compatible providers: kind -> ``ProviderSpec`` (base URL, key variable, default model,
least seconds between calls). The first eight are aau-harness 1.6's table; ``openai`` has no
default model (name one); ``local`` has neither URL nor model nor key (you give them)."""

LOCAL_BASE_URL_ENV = "AAU_LOCAL_BASE_URL"
LOCAL_MODEL_ENV = "AAU_LOCAL_MODEL"
LOCAL_API_KEY_ENV = "AAU_LOCAL_API_KEY"
_LOCAL_PLACEHOLDER_KEY = "not-needed"  # the SDK insists on a key; local servers ignore it


def backend_kinds() -> list[str]:
    """Every kind ``make_backend`` accepts, sorted."""
    return sorted(["mock", "anthropic", *PROVIDERS])


def base_url_env(kind: str) -> str:
    """The environment variable that overrides ``kind``'s base URL: ``AAU_<KIND>_BASE_URL``."""
    return f"AAU_{kind.upper()}_BASE_URL"


def _env(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def _key(env_key: str, provider: str) -> str:
    key = _env(env_key)
    if key is None:
        raise MissingCredentialError(env_key, provider)
    return key


def make_backend(
    kind: str,
    model: str | None = None,
    mock_factory: Callable[[], Any] | None = None,
    base_url: str | None = None,
    text_tool_calls: str = "auto",
    *,
    max_attempts: int | None = None,
    timeout_s: float | None = None,
    max_tokens: int | None = None,
) -> Any:
    """Build the backend named ``kind`` (module docstring) and register it for provenance.

    Args:
        kind: ``"mock"``, ``"anthropic"``, ``"local"`` or a key of ``PROVIDERS``.
        model: the model id; ``None`` means the provider's default (``local`` and ``openai``
            have none: name one, or set ``AAU_LOCAL_MODEL`` for ``local``).
        mock_factory: for ``mock``, a callable returning the backend.
        base_url: the API root, overriding ``AAU_<KIND>_BASE_URL`` and the public URL.
        text_tool_calls: for the OpenAI-compatible kinds, ``"auto"`` (read tool calls a model
            writes as text, as llama.cpp's server returns them, when the answer has no
            structured ``tool_calls``) or ``"off"``; see ``OpenAICompatBackend``.
        max_attempts: tries per call (>= 1) on 429/5xx/connection failures; ``None``: the
            backend's default (6; for ``anthropic`` the SDK's ``max_retries`` is one less).
        timeout_s: seconds one HTTP request may take; ``None``: the backend's default.
        max_tokens: the most output tokens per model call (>= 1); ``None``: the backend's
            default (``anthropic`` 4096; the OpenAI-compatible kinds send none, so the server's
            limit holds). All three are ignored by ``mock``.

    Returns:
        a backend with ``create(system, messages, tools)``, ``model`` and ``served_model``.

    Raises:
        UnknownBackendError: unknown ``kind`` (lists the known ones).
        BackendConfigError: ``mock`` without a factory; ``local`` without a URL or a model;
            ``openai`` without a model; an unknown ``text_tool_calls``; ``max_tokens`` < 1.
        MissingCredentialError: the provider's key variable is unset or empty.
        MissingExtraError: the provider's SDK is not installed (says what to ``pip install``).
    """
    if max_tokens is not None and max_tokens < 1:
        raise BackendConfigError(f"max_tokens must be at least 1, got {max_tokens}")
    if kind == "mock":
        if mock_factory is None:
            raise BackendConfigError(
                "the mock backend needs a mock_factory (this use case has none)"
            )
        backend = mock_factory()
    elif kind == "anthropic":
        url = base_url or _env(base_url_env(kind))
        backend = AnthropicBackend(
            model or DEFAULT_ANTHROPIC_MODEL,
            api_key=_key(ANTHROPIC_ENV_KEY, kind),
            base_url=url,
            timeout_s=timeout_s,
            **({} if max_attempts is None else {"max_retries": max(1, max_attempts) - 1}),
            **({} if max_tokens is None else {"max_tokens": max_tokens}),
        )
    elif kind in PROVIDERS:
        spec = PROVIDERS[kind]
        url = base_url or _env(base_url_env(kind)) or spec.base_url
        if url is None:
            raise BackendConfigError(
                f"the {kind} backend needs the server's URL: pass --base-url (base_url= from "
                f"Python) or set "
                f"{LOCAL_BASE_URL_ENV} (e.g. http://127.0.0.1:8080/v1 for llama.cpp)"
            )
        if kind == "local":
            chosen = model or _env(LOCAL_MODEL_ENV)
            key = _env(LOCAL_API_KEY_ENV) or _LOCAL_PLACEHOLDER_KEY
        else:
            chosen = model or spec.default_model
            key = _key(spec.env_key or "", kind)
        if chosen is None:
            hint = f" or set {LOCAL_MODEL_ENV}" if kind == "local" else ""
            raise BackendConfigError(
                f"the {kind} backend needs a model: pass --model (model= from Python){hint}"
            )
        backend = OpenAICompatBackend(
            spec, chosen, key, url.rstrip("/"), text_tool_calls=text_tool_calls,
            timeout_s=timeout_s, max_tokens=max_tokens,
            **({} if max_attempts is None else {"max_attempts": max_attempts}),
        )
    else:
        raise UnknownBackendError(f"unknown backend {kind!r}; known: {', '.join(backend_kinds())}")
    register_backend(backend)
    return backend
