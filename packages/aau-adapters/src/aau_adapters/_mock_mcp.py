"""The mock adapter's MCP client: replays a case's expected tool calls (or, when the case expects
none, its environment's reference solution) through the unit's MCP endpoint with the official
``mcp`` SDK client, as an agent under test would.

Imported only when the mock adapter answers an environment case (request 1.1), so ``aau
--help`` never loads the SDK.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from aau_core import EnvironmentCaseError


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


def reference_solution_of(environment: Any, task: str, options: Mapping[str, Any], *,
                          attack: Any = None) -> dict[str, Any] | None:
    """The known solution of ``task`` (``aau_core._environments._contract``'s docstring, "Optional": ``reference_solution(task,
    options)``), or ``None`` when
    ``environment`` has no ``reference_solution`` or none for this task. With ``attack`` (an
    ``aau_core.Attack`` whose injections the environment places), the environment's
    ``reference_solution_under_attack(task, options, attack)`` when it has one (the solution on
    the injected state), else its ``reference_solution``.

    Returns:
        ``{"calls": [{"name": str, "arguments": dict}], "answer": str | None}``.

    Raises:
        EnvironmentCaseError: the environment returned something of another shape (its path
            under the solution named), or whatever its ``reference_solution`` raises.
    """
    under = getattr(environment, "reference_solution_under_attack", None)
    if attack is not None and under is not None:
        solution = under(task, options, attack)
    else:
        method = getattr(environment, "reference_solution", None)
        if method is None:
            return None
        solution = method(task, options)
    if solution is None:
        return None
    calls = solution.get("calls") if isinstance(solution, Mapping) else None
    if not isinstance(calls, Sequence) or isinstance(calls, str):
        raise EnvironmentCaseError(f"{environment.name}: a reference solution is an object "
                                   "with a calls array", "$.calls")
    out = []
    for i, call in enumerate(calls):
        if not (isinstance(call, Mapping) and isinstance(call.get("name"), str)
                and isinstance(call.get("arguments", {}), Mapping)):
            raise EnvironmentCaseError(f"{environment.name}: a reference call has a name and an "
                                       "arguments object", f"$.calls[{i}]")
        out.append({"name": call["name"], "arguments": dict(call.get("arguments") or {})})
    answer = solution.get("answer")
    if answer is not None and not isinstance(answer, str):
        raise EnvironmentCaseError(f"{environment.name}: a reference answer is a string or "
                                   "null", "$.answer")
    return {"calls": out, "answer": answer or None}
