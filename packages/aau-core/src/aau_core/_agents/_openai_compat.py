"""A backend for OpenAI-compatible chat-completions servers, through the official ``openai`` SDK.

One class serves every provider of ``PROVIDERS`` (mistral, groq, gemini, cerebras, deepseek,
together, fireworks, openrouter, openai) and any local server (llama.cpp, vLLM, Ollama): each
call POSTs ``{base_url}/chat/completions`` with ``temperature: 0``.

The agent loop speaks Anthropic's message shape; ``to_openai_messages`` and ``to_openai_tools``
translate the conversation on every call, and the answer comes back as ``Block`` objects
(``text`` / ``tool_use``) with ``stop_reason`` and ``usage`` in Anthropic's names, so the loop never
branches on the provider.

Behaviour (as aau-harness 1.6 ``llm_providers.py``, on the official SDK instead of urllib):

- **Throttle**: at least ``min_interval_s`` seconds between calls (free tiers' rate limits).
- **Retries**: up to ``max_attempts`` tries. HTTP 429 or 5xx: wait ``Retry-After`` seconds when
  the server sends it, else ``min(2 ** attempt * 2, 60)``; a connection failure or timeout:
  ``min(2 ** attempt * 2, 30)``, except a refused connection (nothing listens at ``base_url``),
  which is a ``ProviderError("ConnectionError talking to ... (connection refused)")`` at once:
  a server that is down fails in milliseconds, not after a minute of back-off. Then ``ProviderError("giving up after N attempts: HTTP 503 from
  groq: ...")``. Any other status is a ``ProviderError("HTTP <status> from <provider>: ...")`` at
  once. The SDK's own retries are off, so these rules are the only ones.
- **Malformed tool calls**: a 400 whose body names ``tool_use_failed`` (Groq) becomes a text block
  with ``stop_reason="tool_use_failed"`` and zero usage — a miss, not a crash.
- **Latched streaming**: a 400 whose body mentions streaming means the model only streams; the
  backend sets ``streaming = True`` and from then on, for the rest of the session, sends
  ``stream: true`` with ``stream_options.include_usage`` and reassembles the SSE chunks.
- **Malformed replies**: a 200 whose body is not JSON, is JSON but not an object, has no
  non-empty ``choices`` list, or has a field of the wrong type (``message``, ``content``,
  ``tool_calls``, ``function``, ``usage``, ...) is a ``ProviderError("invalid response from
  <provider>: ...")`` at once, never a ``TypeError``/``KeyError`` from deep inside; the guards count
  it as a transport failure (``TRANSPORT_ERROR_PATTERN``). ``check_completion`` is the one place
  that checks; a streamed reply is checked after reassembly.
- **Served model**: the ``model`` field of the first answer is kept as ``served_model`` (provenance).
- **Usage**: ``input_tokens`` = ``prompt_cache_miss_tokens`` when given, else ``prompt_tokens``
  minus the cache hits (``prompt_cache_hit_tokens`` or ``prompt_tokens_details.cached_tokens``);
  ``cache_read_input_tokens`` = the hits; ``output_tokens`` = ``completion_tokens``.
- **Tool arguments** are decoded by the one strict decoder (``_files._model_json``: no NaN,
  infinity or duplicate key); refused ones arrive as ``{"_unparseable": "<raw text>"}`` with the
  reason in ``Block.input_error``; the one recovery (stray ``"`` after the object) sets
  ``Block.input_recovered``.
- **Refusals**: an answer with a ``refusal`` message gets ``stop_reason="refusal"``; otherwise
  ``stop_reason`` is the provider's ``finish_reason`` (``"tool_calls"``, ``"stop"``, ...).
- **Tool calls written as text** (``text_tool_calls="auto"``, the default): llama.cpp's
  ``llama_cpp.server`` and many small models return their calls as text in ``content`` (fenced
  ```` ```json ```` blocks, ``<tool_call>`` tags, a reply that is JSON as a whole). When the
  request offered tools and the answer has no structured ``tool_calls``, the text is read with
  the strict parser of ``_tool_call_text`` (all or nothing; JSON in prose is not a call) and its
  calls become ``tool_use`` blocks (ids ``text_call_<n>``, ``stop_reason="tool_calls"``, or
  ``"length"`` kept when the reply was cut at the token limit); the text block is kept.
  ``"off"`` leaves the text alone.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .._errors import InputError
from .._files._model_json import ModelJsonError, decode_arguments
from .._files._strict_json import loads_strict
from .._tool_calls._text import parse_tool_call_text
from ._backend_errors import (
    BackendConfigError,
    MissingExtraError,
    ProviderError,
    StreamingRequiredError,
    invalid_response,
)
from ._loop import OUTPUT_LIMIT_STOPS, Block
from ._openai_stream import assemble_stream

DEFAULT_TIMEOUT_S = 120.0
"""Seconds allowed for one non-streaming request."""

STREAM_TIMEOUT_S = 300.0
"""Seconds allowed for one streaming request."""

TEXT_TOOL_CALL_MODES = ("auto", "off")
"""Values of ``text_tool_calls``: ``auto`` reads calls written as text (module docstring)."""


@attrs.frozen
class ProviderSpec:
    """One OpenAI-compatible provider.

    Attributes:
        name: the backend kind (``"groq"``).
        base_url: the API root, without ``/chat/completions``; ``None`` when the user must give it.
        env_key: the environment variable holding the API key; ``None`` when no key is needed.
        default_model: the model used when none is given; ``None`` when the user must name one.
        min_interval_s: least seconds between two calls (free-tier throttle).
    """

    name: str
    base_url: str | None
    env_key: str | None
    default_model: str | None
    min_interval_s: float = 0.0


@attrs.define
class Usage:
    """Token usage of one call, in the names ``CostTracker.add_usage`` reads."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0


@attrs.define
class ModelResponse:
    """One model answer in the agent loop's shape: ``content`` blocks, ``stop_reason``, ``usage``,
    and ``model`` (the id the provider reported, or ``None``)."""

    content: list[Block]
    stop_reason: str | None
    usage: Usage
    model: str | None = None


def _as_int(value: Any) -> int:
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0


def usage_from_openai(usage: Mapping[str, Any] | None) -> Usage:
    """Map an OpenAI ``usage`` object (as a dict) onto Anthropic's names (module docstring)."""
    usage = usage or {}
    details = usage.get("prompt_tokens_details") or {}
    hit = _as_int(usage.get("prompt_cache_hit_tokens") or details.get("cached_tokens"))
    miss = usage.get("prompt_cache_miss_tokens")
    prompt = _as_int(usage.get("prompt_tokens"))
    return Usage(
        input_tokens=_as_int(miss) if miss is not None else max(0, prompt - hit),
        output_tokens=_as_int(usage.get("completion_tokens")),
        cache_read_input_tokens=hit,
    )


def to_openai_tools(tool_schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Translate Anthropic tool definitions (``name``, ``description``, ``input_schema``) into
    OpenAI ``function`` tools (``parameters`` = the input schema)."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": tool.get("input_schema") or {"type": "object", "properties": {}},
            },
        }
        for tool in tool_schemas
    ]


def _field(block: Any, name: str) -> Any:
    return block.get(name) if isinstance(block, Mapping) else getattr(block, name, None)


def _tool_result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # Anthropic allows a list of text blocks
        return "".join(str(_field(part, "text") or "") for part in content)
    return json.dumps(content)


def to_openai_messages(system: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Translate the loop's conversation (module docstring of ``_agent_loop``) into OpenAI chat
    messages: a ``system`` message first; a user string stays a ``user`` message; an assistant
    turn's text blocks join into ``content`` (``None`` when there is none) and its ``tool_use``
    blocks become ``tool_calls`` (arguments as JSON text); each ``tool_result`` block becomes a
    ``tool`` message with its ``tool_call_id``; a user turn's text blocks become a user message.
    Blocks may be objects (SDK, ``Block``) or dicts."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for message in messages:
        role, content = message["role"], message["content"]
        if isinstance(content, str):
            out.append({"role": role, "content": content})
            continue
        if role == "assistant":
            texts, calls = [], []
            for block in content:
                kind = _field(block, "type")
                if kind == "text":
                    texts.append(_field(block, "text") or "")
                elif kind == "tool_use":
                    calls.append(
                        {
                            "id": _field(block, "id"),
                            "type": "function",
                            "function": {
                                "name": _field(block, "name"),
                                "arguments": json.dumps(_field(block, "input")),
                            },
                        }
                    )
            entry: dict[str, Any] = {"role": "assistant", "content": " ".join(texts) or None}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
            continue
        texts = []
        for block in content:
            kind = _field(block, "type")
            if kind == "tool_result":
                out.append(
                    {
                        "role": "tool",
                        "tool_call_id": _field(block, "tool_use_id"),
                        "content": _tool_result_text(_field(block, "content")),
                    }
                )
            elif kind == "text":
                texts.append(_field(block, "text") or "")
        if texts:
            out.append({"role": role, "content": " ".join(texts)})
    return out


def tool_use_block(call_id: Any, name: Any, raw: Any) -> Block:
    """A ``tool_use`` block for a call whose arguments arrived as ``raw`` (a JSON string, or an
    object already decoded), decoded by the one strict decoder (``_files._model_json``).

    Refused arguments become ``input={"_unparseable": raw}`` with ``input_error`` (the reason);
    the one recovery sets ``input_recovered`` (what was dropped). Neither attribute is set
    otherwise.
    """
    if not isinstance(raw, str):
        return Block(type="tool_use", id=call_id, name=name, input=raw if raw is not None else {})
    try:
        decoded = decode_arguments(raw)
    except ModelJsonError as error:
        return Block(type="tool_use", id=call_id, name=name, input={"_unparseable": raw},
                     input_error=error.reason)
    block = Block(type="tool_use", id=call_id, name=name, input=decoded.value)
    if decoded.recovered:
        block.input_recovered = decoded.recovered
    return block


def response_from_openai(data: Mapping[str, Any]) -> ModelResponse:
    """Turn an OpenAI chat completion (as a dict) into a ``ModelResponse`` of ``Block``s."""
    choice = (data.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    blocks: list[Block] = []
    if message.get("content"):
        blocks.append(Block(type="text", text=message["content"]))
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        blocks.append(tool_use_block(call.get("id"), function.get("name"), function.get("arguments")))
    stop = "refusal" if message.get("refusal") else choice.get("finish_reason")
    return ModelResponse(
        content=blocks,
        stop_reason=stop,
        usage=usage_from_openai(data.get("usage")),
        model=data.get("model"),
    )


def with_text_tool_calls(response: ModelResponse) -> ModelResponse:
    """``response`` with the tool calls written in its text added as ``tool_use`` blocks.

    Only when it has no ``tool_use`` block already and is not a refusal; a text that holds no
    call, or call markup that cannot be read strictly, leaves ``response`` unchanged.
    """
    if response.stop_reason == "refusal" or any(
        getattr(b, "type", None) == "tool_use" for b in response.content
    ):
        return response
    text = "\n".join(
        getattr(b, "text", "") or ""
        for b in response.content
        if getattr(b, "type", None) == "text"
    )
    parsed = parse_tool_call_text(text)
    if not parsed.calls:
        return response
    uses = [
        Block(type="tool_use", id=f"text_call_{n + 1}", name=call["name"], input=call["arguments"])
        for n, call in enumerate(parsed.calls)
    ]
    for n, note in parsed.recovered:
        uses[n].input_recovered = note
    # a call read from a reply that a token limit cut stays marked as cut (AgentRun.cut_turns)
    stop = response.stop_reason if response.stop_reason in OUTPUT_LIMIT_STOPS else "tool_calls"
    return attrs.evolve(response, content=[*response.content, *uses], stop_reason=stop)


def _check_type(value: Any, kinds: tuple[type, ...], where: str, provider: str) -> None:
    if value is not None and not isinstance(value, kinds):
        raise invalid_response(provider, f"{where} is {type(value).__name__}, not {kinds[0].__name__}")


def check_completion(data: Any, provider: str) -> dict[str, Any]:
    """``data`` when it has the chat-completion shape ``response_from_openai`` reads.

    Raises:
        ProviderError: ``invalid response from <provider>: ...`` naming what is wrong: not an
            object, no non-empty ``choices`` list, or a field of the wrong type.
    """
    if not isinstance(data, Mapping):
        raise invalid_response(provider, f"the body is JSON {type(data).__name__}, not an object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise invalid_response(provider, "no choices in the reply")
    choice = choices[0]
    if not isinstance(choice, Mapping):
        raise invalid_response(provider, "choices[0] is not an object")
    _check_type(data.get("usage"), (Mapping,), "usage", provider)
    _check_type(data.get("model"), (str,), "model", provider)
    _check_type(choice.get("finish_reason"), (str,), "finish_reason", provider)
    message = choice.get("message")
    _check_type(message, (Mapping,), "choices[0].message", provider)
    message = message or {}
    _check_type(message.get("content"), (str,), "message.content", provider)
    _check_type(message.get("refusal"), (str,), "message.refusal", provider)
    calls = message.get("tool_calls")
    _check_type(calls, (list,), "message.tool_calls", provider)
    for n, call in enumerate(calls or []):
        if not isinstance(call, Mapping):
            raise invalid_response(provider, f"message.tool_calls[{n}] is not an object")
        _check_type(call.get("id"), (str,), f"tool_calls[{n}].id", provider)
        function = call.get("function")
        _check_type(function, (Mapping,), f"tool_calls[{n}].function", provider)
        _check_type((function or {}).get("name"), (str,), f"tool_calls[{n}].function.name", provider)
    return dict(data)


def _decode_body(text: str, provider: str) -> Any:
    try:
        return loads_strict(text, source=f"reply from {provider}")
    except InputError as exc:
        raise invalid_response(provider, f"{exc} (body: {text[:120]!r})") from None


def _import_openai() -> Any:
    try:
        import openai
    except ImportError:
        raise MissingExtraError("openai", "openai") from None
    return openai


def _retry_after(response: Any) -> float | None:
    headers = getattr(response, "headers", None) or {}
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None


def _refused(exc: BaseException) -> bool:
    """Whether a connection failure is a refused connection (no server at that address)."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError) or "refused" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _error_detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if body is not None and not isinstance(body, str):
        body = json.dumps(body)
    if not body:
        response = getattr(exc, "response", None)
        try:
            body = response.text if response is not None else str(exc)
        except Exception:  # a streamed response whose body was not read
            body = str(exc)
    return " ".join(str(body).split())[:500]


class OpenAICompatBackend:
    """A chat-completions backend (module docstring for retries, streaming and translation).

    Args:
        spec: the provider (``PROVIDERS[kind]`` or a ``ProviderSpec`` for a local server).
        model: the model id to request.
        api_key: the key (``make_backend`` reads it from the environment).
        base_url: the API root, e.g. ``https://api.groq.com/openai/v1``.
        max_attempts: tries per call on 429/5xx/connection failures (>= 1).
        timeout_s: seconds one HTTP request may take before it is a timeout (``None``: 120, and
            300 for a streamed reply).
        sleep: the function used to wait (tests pass a recorder).
        text_tool_calls: ``"auto"`` (read calls written as text when the request offered tools
            and the answer has no structured ``tool_calls``) or ``"off"``.
        max_tokens: the most tokens one reply may have, sent as ``max_tokens`` (>= 1; ``None``:
            not sent, the server's own limit). A small local model that repeats itself would
            otherwise write until its context is full.

    Attributes:
        name: the provider's name; ``model``: the requested id; ``served_model``: the id of the
        first answer (``None`` before one); ``streaming``: ``True`` once the provider demanded
        streaming; ``base_url``.

    Raises:
        MissingExtraError: the ``openai`` package is not installed.
        BackendConfigError: ``text_tool_calls`` is not one of ``TEXT_TOOL_CALL_MODES``;
            ``max_tokens`` below 1.
    """

    def __init__(
        self,
        spec: ProviderSpec,
        model: str,
        api_key: str,
        base_url: str,
        *,
        max_attempts: int = 6,
        timeout_s: float | None = None,
        sleep: Callable[[float], None] = time.sleep,
        text_tool_calls: str = "auto",
        max_tokens: int | None = None,
    ) -> None:
        if max_tokens is not None and max_tokens < 1:
            raise BackendConfigError(f"max_tokens must be at least 1, got {max_tokens}")
        if text_tool_calls not in TEXT_TOOL_CALL_MODES:
            raise BackendConfigError(
                f"text_tool_calls must be one of {', '.join(TEXT_TOOL_CALL_MODES)}, "
                f"got {text_tool_calls!r}"
            )
        openai = _import_openai()
        self.text_tool_calls = text_tool_calls
        self.max_tokens = max_tokens
        self.spec = spec
        self.name = spec.name
        self.model = model
        self.base_url = base_url
        self.served_model: str | None = None
        self.streaming = False
        self.max_attempts = max(1, max_attempts)
        self._stream_timeout_s = STREAM_TIMEOUT_S if timeout_s is None else timeout_s
        self.min_interval_s = spec.min_interval_s
        self._sleep = sleep
        self._last_call: float | None = None
        self._openai = openai
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url, max_retries=0,
            timeout=DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s,
        )

    def __repr__(self) -> str:
        return (
            f"OpenAICompatBackend({self.name!r}, model={self.model!r}, base_url={self.base_url!r})"
        )

    # -- transport ------------------------------------------------------------------------------

    def _throttle(self) -> None:
        if self._last_call is not None and self.min_interval_s > 0:
            wait = self.min_interval_s - (time.monotonic() - self._last_call)
            if wait > 0:
                self._sleep(wait)

    def _request(self, payload: dict[str, Any]) -> dict[str, Any]:
        openai = self._openai
        last = ""
        for attempt in range(self.max_attempts):
            self._throttle()
            try:
                if self.streaming:
                    stream = self._client.chat.completions.create(
                        **payload,
                        stream=True,
                        stream_options={"include_usage": True},
                        timeout=self._stream_timeout_s,
                    )
                    try:
                        return assemble_stream(stream)
                    except (TypeError, ValueError, AttributeError, KeyError) as exc:
                        raise invalid_response(self.name, f"a streamed chunk: {exc}") from None
                raw = self._client.chat.completions.with_raw_response.create(**payload)
                return _decode_body(raw.http_response.text, self.name)
            except openai.APIStatusError as exc:
                status = exc.status_code
                detail = _error_detail(exc)
                last = f"HTTP {status} from {self.name}: {detail}"
                if status == 429 or status >= 500:
                    delay = _retry_after(exc.response)
                    if delay is None:
                        delay = min(2**attempt * 2.0, 60.0)
                    if attempt + 1 < self.max_attempts:
                        self._sleep(delay)
                    continue
                if status == 400 and "tool_use_failed" in detail:
                    return {"_tool_use_failed": detail}
                if status == 400 and "streaming" in detail.lower() and not self.streaming:
                    raise StreamingRequiredError(last, status) from None
                raise ProviderError(last, status) from None
            except openai.APIConnectionError as exc:  # includes APITimeoutError
                kind = "Timed out" if isinstance(exc, openai.APITimeoutError) else "ConnectionError"
                last = f"{kind} talking to {self.name} at {self.base_url}: {exc}"
                if _refused(exc):  # nothing listens there: retrying only delays the failure
                    raise ProviderError(f"{last} (connection refused)") from None
                if attempt + 1 < self.max_attempts:
                    self._sleep(min(2**attempt * 2.0, 30.0))
            finally:
                self._last_call = time.monotonic()
        raise ProviderError(f"giving up after {self.max_attempts} attempts: {last}")

    # -- backend interface ----------------------------------------------------------------------

    def create(
        self, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> ModelResponse:
        """Send the conversation and return the model's answer.

        Args:
            system: the system prompt.
            messages: the loop's conversation (Anthropic shape).
            tools: Anthropic tool definitions.

        Returns:
            a ``ModelResponse``.

        Raises:
            ProviderError: an HTTP error status, retries used up, or a malformed reply
                (``invalid response from <provider>``); the text matches the guards' transport
                pattern.
        """
        payload: dict[str, Any] = {
            "model": self.model,
            "temperature": 0,
            "messages": to_openai_messages(system, messages),
        }
        if self.max_tokens is not None:
            payload["max_tokens"] = self.max_tokens
        if tools:
            payload["tools"] = to_openai_tools(tools)
        try:
            data = self._request(payload)
        except StreamingRequiredError:
            self.streaming = True  # latched for the rest of the session
            data = self._request(payload)
        if "_tool_use_failed" in data:
            return ModelResponse(
                content=[
                    Block(
                        type="text",
                        text=f"[model emitted a malformed tool call] {data['_tool_use_failed'][:300]}",
                    )
                ],
                stop_reason="tool_use_failed",
                usage=Usage(),
            )
        response = response_from_openai(check_completion(data, self.name))
        if tools and self.text_tool_calls == "auto":
            response = with_text_tool_calls(response)
        if self.served_model is None:
            self.served_model = response.model or self.model
        return response
