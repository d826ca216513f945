"""A backend for Anthropic's Messages API, through the official ``anthropic`` SDK.

The agent loop already speaks Anthropic's message shape, so nothing is translated: the SDK's
response (``content`` blocks, ``stop_reason``, ``usage`` with cache counts) goes to the loop as it
is. Each call sends the system prompt as one text block marked for prompt caching (ephemeral),
``max_tokens=4096``, adaptive thinking and medium effort — the request aau-harness 1.6 sends.

Tool inputs are held to the one strict decoder's rules (``_files._model_json``): the reply's
body is read again without the SDK's leniency, and a ``tool_use`` block whose ``input`` holds
``NaN``, an infinity, a number that overflows to one or a duplicate key (which the SDK would read
as the last value) is replaced by a copy with ``input={"_unparseable": "<the input as JSON>"}``;
the reason is kept on it as ``input_error`` (not sent back to the API), as the OpenAI-compatible
backends do for a refused ``arguments`` string.

Retries are the SDK's own (``max_retries``; it honours ``Retry-After`` on 429 and retries 5xx and
connection failures). A failure that survives them becomes a ``ProviderError`` worded
``HTTP <status> from anthropic: ...`` or ``ConnectionError ...``, which the guards count as a
transport failure.
"""

from __future__ import annotations

import json
from typing import Any

from .._files._model_json import ModelJsonError, decode_marked, refusal
from ._backend_errors import MissingExtraError, ProviderError, invalid_response

DEFAULT_ANTHROPIC_MODEL = "claude-opus-4-8"
"""The model ``make_backend("anthropic")`` requests when none is named (as aau-harness 1.6)."""

ANTHROPIC_ENV_KEY = "ANTHROPIC_API_KEY"
"""The environment variable the Anthropic backend reads its key from."""


def _import_anthropic() -> Any:
    try:
        import anthropic
    except ImportError:
        raise MissingExtraError("anthropic", "anthropic") from None
    return anthropic


def _check_message(response: Any) -> None:
    content = getattr(response, "content", None)
    if not isinstance(content, list):
        what = type(response).__name__ if not hasattr(response, "content") else "content"
        raise invalid_response("anthropic", f"no content list in the reply ({what})")
    for n, block in enumerate(content):
        if not isinstance(getattr(block, "type", None), str):
            raise invalid_response("anthropic", f"content[{n}] is not a block with a type")


def _refuse_loose_inputs(body: str, response: Any) -> None:
    """Replace each ``tool_use`` block of ``response`` whose input, as ``body`` holds it, breaks
    the strict rules (module docstring). ``body`` is the reply the SDK parsed into ``response``."""
    try:
        doc = decode_marked(body)
    except ModelJsonError:
        return  # not JSON: the SDK's own parse has failed already
    raw_blocks = doc.get("content") if isinstance(doc, dict) else None
    if not isinstance(raw_blocks, list) or len(raw_blocks) != len(response.content):
        return
    for n, (block, raw) in enumerate(zip(response.content, raw_blocks, strict=True)):
        if getattr(block, "type", None) != "tool_use" or not isinstance(raw, dict):
            continue
        reason = refusal(raw.get("input"))
        if reason is None:
            continue
        shown = json.dumps(block.input, ensure_ascii=False)  # Python's json writes NaN/Infinity
        twin = block.model_copy(update={"input": {"_unparseable": shown}})
        object.__setattr__(twin, "input_error", reason)  # not a field: never sent back
        response.content[n] = twin


class AnthropicBackend:
    """Anthropic Messages backend.

    Args:
        model: the model id (default ``DEFAULT_ANTHROPIC_MODEL``).
        api_key: the key (``make_backend`` reads ``ANTHROPIC_API_KEY``).
        base_url: the API root (default: the SDK's, ``https://api.anthropic.com``).
        max_retries: the SDK's retry budget per call (5: six attempts, as the other backends).
        max_tokens: output token limit per call.
        timeout_s: seconds one HTTP request may take (``None``: the SDK's default).

    Attributes:
        name (``"anthropic"``), model, served_model (the ``model`` of the first answer), base_url.

    Raises:
        MissingExtraError: the ``anthropic`` package is not installed.
    """

    name = "anthropic"

    def __init__(
        self,
        model: str = DEFAULT_ANTHROPIC_MODEL,
        *,
        api_key: str,
        base_url: str | None = None,
        max_retries: int = 5,
        max_tokens: int = 4096,
        timeout_s: float | None = None,
    ) -> None:
        anthropic = _import_anthropic()
        self.model = model
        self.base_url = base_url
        self.max_tokens = max_tokens
        self.served_model: str | None = None
        self._anthropic = anthropic
        kwargs: dict[str, Any] = {"api_key": api_key, "max_retries": max_retries}
        if base_url:
            kwargs["base_url"] = base_url
        if timeout_s is not None:
            kwargs["timeout"] = timeout_s
        self._client = anthropic.Anthropic(**kwargs)

    def __repr__(self) -> str:
        return f"AnthropicBackend(model={self.model!r})"

    def request(
        self, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Return the keyword arguments ``create`` passes to ``messages.create``."""
        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            "thinking": {"type": "adaptive"},
            "output_config": {"effort": "medium"},
            "messages": messages,
        }
        if tools:
            request["tools"] = tools
        return request

    def create(
        self, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> Any:
        """Send the conversation; return the SDK's ``Message`` (``content``, ``stop_reason``,
        ``usage``, ``model``).

        Raises:
            ProviderError: an HTTP error status after the SDK's retries, a connection failure, or
                a malformed 200 reply (``invalid response from anthropic: ...``: not JSON, not an
                object, ``content`` not a list of blocks with a ``type``).
        """
        anthropic = self._anthropic
        try:
            raw = self._client.messages.with_raw_response.create(
                **self.request(system, messages, tools)
            )
            response = raw.parse()
        except anthropic.APIStatusError as exc:
            detail = " ".join(str(getattr(exc, "body", None) or exc).split())[:500]
            raise ProviderError(
                f"HTTP {exc.status_code} from anthropic: {detail}", exc.status_code
            ) from None
        except anthropic.APIConnectionError as exc:
            kind = "Timed out" if isinstance(exc, anthropic.APITimeoutError) else "ConnectionError"
            raise ProviderError(f"{kind} talking to anthropic: {exc}") from None
        except (ValueError, RecursionError) as exc:  # a 200 whose body is not JSON
            raise invalid_response("anthropic", f"invalid JSON: {exc}") from None
        _check_message(response)
        _refuse_loose_inputs(raw.http_response.text, response)
        if self.served_model is None:
            self.served_model = getattr(response, "model", None) or self.model
        return response
