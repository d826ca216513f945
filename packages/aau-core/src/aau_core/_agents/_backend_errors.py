"""Errors raised by model backends (``make_backend`` and the backends it builds).

Hierarchy::

    AauError
    └── BackendError                    a backend cannot be built or cannot answer
        ├── UnknownBackendError         make_backend got a kind it does not know (also ValueError)
        ├── BackendConfigError          a setting is missing: no model for `local`, no base URL,
        │   │                           no mock factory for `mock`
        │   ├── MissingCredentialError  the provider's API key variable is unset or empty;
        │   │                           .env_var names it (keys come only from the environment)
        │   └── MissingExtraError       the official SDK is not installed; the message is the one
        │                               line `pip install 'aau-core[openai]'` (or [anthropic])
        └── ProviderError               the provider did not give an answer: an HTTP error status,
            │                           retries used up on 429/5xx, a connection failure, a
            │                           malformed 200 reply (``invalid_response``). Also
            │                           RuntimeError. Its text matches TRANSPORT_ERROR_PATTERN
            │                           (``HTTP <status> from <provider>``, ``ConnectionError``),
            │                           so the guards count it as a transport failure.
            └── StreamingRequiredError  the provider rejects non-streaming requests (caught
                                        inside the backend, which latches streaming on)

A malformed tool call emitted by the model (a provider's 400 ``tool_use_failed``) is not an error
here: the backend answers with a text block and ``stop_reason="tool_use_failed"``, and the agent
loop scores the run as a miss (the model's failure, not the transport's).
"""

from __future__ import annotations

from .._errors import AauError


class BackendError(AauError):
    """A backend cannot be built or cannot answer."""


class UnknownBackendError(BackendError, ValueError):
    """``make_backend`` got a kind it does not know; the message lists the known kinds."""


class BackendConfigError(BackendError):
    """A setting the backend needs is missing or wrong (model, base URL, mock factory)."""


class MissingCredentialError(BackendConfigError):
    """The provider's API key is not set; ``.env_var`` names the environment variable."""

    def __init__(self, env_var: str, provider: str) -> None:
        self.env_var = env_var
        self.provider = provider
        super().__init__(
            f"{env_var} is not set: the {provider} backend reads its API key from the "
            f"environment variable {env_var}"
        )


class MissingExtraError(BackendConfigError, ImportError):
    """An optional SDK is not installed; the message says which ``pip install`` to run.

    Args:
        module: the missing import (``"openai"``).
        extra: the extra that installs it (``"openai"``).
        distribution: the aau package declaring that extra (``"aau-core"``, ``"aau-labs"``).
    """

    def __init__(self, module: str, extra: str, distribution: str = "aau-core") -> None:
        self.module = module
        self.extra = extra
        self.distribution = distribution
        super().__init__(
            f"the {module!r} package is not installed: pip install '{distribution}[{extra}]'"
        )


class ProviderError(BackendError, RuntimeError):
    """The provider did not answer (HTTP error status, retries used up, connection failure).

    ``.status`` is the HTTP status when there was one, else ``None``.
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class StreamingRequiredError(ProviderError):
    """The provider refuses non-streaming requests for this model (HTTP 400 naming streaming)."""


def invalid_response(provider: str, why: str) -> ProviderError:
    """The one ``ProviderError`` for a reply that is not what the API promises (a 200 whose body
    is not JSON, not an object, or lacks/mistypes a field): ``invalid response from <provider>:
    <why>``, which ``TRANSPORT_ERROR_PATTERN`` counts as a transport failure."""
    return ProviderError(f"invalid response from {provider}: {' '.join(why.split())[:300]}")
