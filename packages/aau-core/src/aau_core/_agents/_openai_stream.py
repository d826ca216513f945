"""Reassembling a streamed chat completion (``stream: true``) into the non-streaming shape.

Used by ``OpenAICompatBackend`` once a provider has demanded streaming; the reassembled reply is
checked (``check_completion``) and translated like any other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _dump(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return dict(obj)
    dump = getattr(obj, "model_dump", None)
    return dump() if callable(dump) else obj


def assemble_stream(chunks: Any) -> dict[str, Any]:
    """Reassemble streamed chunks into the non-streaming completion shape.

    Args:
        chunks: the SDK's stream (chunk objects or dicts).

    Returns:
        ``{"model", "choices": [{"finish_reason", "message"}], "usage"}``: text deltas joined,
        each tool call's ``arguments`` fragments joined in index order (a call without an id gets
        ``call-<n>``; one without a name is dropped).

    Raises:
        TypeError: a chunk is not an object.
    """
    texts: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    usage: dict[str, Any] = {}
    finish: str | None = None
    refusal: list[str] = []
    model: str | None = None
    for raw in chunks:
        chunk = _dump(raw)
        if not isinstance(chunk, Mapping):
            raise TypeError(f"a streamed chunk is {type(chunk).__name__}, not an object")
        model = model or chunk.get("model")
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            finish = choice.get("finish_reason") or finish
            delta = choice.get("delta") or {}
            if delta.get("content"):
                texts.append(delta["content"])
            if delta.get("refusal"):
                refusal.append(delta["refusal"])
            for part in delta.get("tool_calls") or []:
                slot = calls.setdefault(
                    part.get("index") or 0, {"id": None, "name": None, "args": ""}
                )
                slot["id"] = part.get("id") or slot["id"]
                function = part.get("function") or {}
                slot["name"] = function.get("name") or slot["name"]
                slot["args"] += function.get("arguments") or ""
    tool_calls = [
        {
            "id": slot["id"] or f"call-{n}",
            "type": "function",
            "function": {"name": slot["name"], "arguments": slot["args"]},
        }
        for n, (_, slot) in enumerate(sorted(calls.items()))
        if slot["name"]
    ]
    message = {
        "content": "".join(texts) or None,
        "tool_calls": tool_calls or None,
        "refusal": "".join(refusal) or None,
    }
    return {
        "model": model,
        "choices": [{"finish_reason": finish, "message": message}],
        "usage": usage,
    }
