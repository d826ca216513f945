"""The mock adapter's MCP client: replays a case's expected tool calls through the unit's MCP
endpoint with the official ``mcp`` SDK client, as an agent under test would.

Imported only when the mock adapter answers an environment case (request 1.1), so ``aau
--help`` never loads the SDK.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any


async def _replay(url: str, token: str, calls: Sequence[Mapping[str, Any]],
                  timeout_s: float) -> list[bool]:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    results = []
    async with httpx2.AsyncClient(headers=headers, timeout=timeout_s) as http, \
            streamable_http_client(url, http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        for call in calls:
            result = await session.call_tool(str(call["name"]), dict(call.get("arguments", {})))
            results.append(not result.is_error)
    return results


def replay_calls(mcp: Mapping[str, Any], calls: Sequence[Mapping[str, Any]], *,
                 timeout_s: float = 30.0) -> list[bool]:
    """Connect to a unit's MCP endpoint and make ``calls`` in order.

    Args:
        mcp: the request's ``mcp`` object (``url``, ``bearer_token``).
        calls: ``[{"name", "arguments"}]`` to make (``aau_core.example_calls`` of the case).
        timeout_s: seconds allowed for each HTTP exchange.

    Returns:
        for each call, whether the tool answered without an error (``is_error`` false).

    Raises:
        Exception: whatever the SDK raises when the endpoint cannot be reached or answers
            outside the protocol (the mock's unit then records a harness failure).
    """
    return asyncio.run(_replay(str(mcp["url"]), str(mcp["bearer_token"]), calls, timeout_s))
