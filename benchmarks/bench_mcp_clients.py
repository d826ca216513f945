"""The agent side of `bench_mcp.py`: a child process that runs MCP units as an agent would.

    python benchmarks/bench_mcp_clients.py sdk|lean

Reads `{"key", "url", "token"}` lines on stdin, runs each unit (initialize, tools/list,
`CALLS_PER_UNIT` tools/call of `add`) with the chosen client, every unit as soon as its line
arrives (the parent keeps 16 open), on one asyncio loop, and writes `{"key", "rtt_s": [...], "error"}` lines; first `{"ready": true}` once
its imports are done, last `{"cpu_s"}` (its CPU time from ready to EOF). The clients:

  sdk    the official MCP SDK client (`ClientSession` over `streamable_http_client`)
  lean   JSON-RPC over one shared `httpx.AsyncClient` (keep-alive, `Mcp-Session-Id` echoed, no
         GET stream, no DELETE)
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

CALLS_PER_UNIT = 5


def client_main(kind: str) -> int:
    """Read `{"key", "url", "token"}` lines; run each unit with the `kind` client ("sdk" or
    "lean"), 16 at a time; write `{"key", "rtt_s": [...], "error"}` lines. Ends at EOF."""
    import asyncio

    import httpx

    if kind == "sdk":
        import httpx2
        from mcp.client.session import ClientSession
        from mcp.client.streamable_http import streamable_http_client

    shared: list[httpx.AsyncClient] = []

    async def lean_unit(line: dict[str, str]) -> dict[str, Any]:
        if not shared:
            shared.append(httpx.AsyncClient(timeout=60, limits=httpx.Limits(
                max_connections=64, max_keepalive_connections=64)))
        http = shared[0]
        rtts: list[float] = []
        headers = {"authorization": f"Bearer {line['token']}", "accept": "application/json",
                   "content-type": "application/json"}

        async def rpc(method: str, params: dict[str, Any] | None, request_id: int | None) -> Any:
            message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
            if params is not None:
                message["params"] = params
            if request_id is not None:
                message["id"] = request_id
            response = await http.post(line["url"], content=json.dumps(message), headers=headers)
            if request_id is None:
                if response.status_code != 202:
                    raise RuntimeError(f"{method}: HTTP {response.status_code}")
                return None
            answer = response.json()
            if response.status_code != 200 or "error" in answer:
                raise RuntimeError(f"{method}: HTTP {response.status_code} {answer}")
            if "mcp-session-id" in response.headers:
                headers["mcp-session-id"] = response.headers["mcp-session-id"]
            return answer["result"]

        try:
            started = await rpc("initialize", {"protocolVersion": "2025-06-18",
                                               "capabilities": {},
                                               "clientInfo": {"name": "lean", "version": "0"}}, 0)
            headers["mcp-protocol-version"] = started["protocolVersion"]
            await rpc("notifications/initialized", None, None)
            await rpc("tools/list", {}, 1)
            for k in range(CALLS_PER_UNIT):
                start = time.perf_counter()
                result = await rpc("tools/call", {"name": "add", "arguments": {
                    "by": k + 1, "note": "bench"}}, 2 + k)
                rtts.append(time.perf_counter() - start)
                if result.get("isError"):
                    raise RuntimeError(result["content"][0]["text"])
            return {"key": line["key"], "rtt_s": rtts, "error": None}
        except Exception as error:  # noqa: BLE001 - reported to the parent, which counts it
            return {"key": line["key"], "rtt_s": rtts, "error": repr(error)}

    async def sdk_unit(line: dict[str, str]) -> dict[str, Any]:
        rtts: list[float] = []
        try:
            headers = {"Authorization": f"Bearer {line['token']}"}
            async with httpx2.AsyncClient(headers=headers, timeout=60) as http, \
                    streamable_http_client(line["url"], http_client=http) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                for k in range(CALLS_PER_UNIT):
                    start = time.perf_counter()
                    result = await session.call_tool("add", {"by": k + 1, "note": "bench"})
                    rtts.append(time.perf_counter() - start)
                    if result.is_error:
                        raise RuntimeError(result.content[0].text)
            return {"key": line["key"], "rtt_s": rtts, "error": None}
        except Exception as error:  # noqa: BLE001 - reported to the parent, which counts it
            return {"key": line["key"], "rtt_s": rtts, "error": repr(error)}

    async def run() -> None:
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[dict[str, str] | None] = asyncio.Queue()

        def read_stdin() -> None:
            for raw in sys.stdin:
                loop.call_soon_threadsafe(lines.put_nowait, json.loads(raw))
            loop.call_soon_threadsafe(lines.put_nowait, None)

        sys.stdout.write(json.dumps({"ready": True}) + "\n")  # imports done: start the clock
        sys.stdout.flush()
        ready_cpu = time.process_time()
        threading.Thread(target=read_stdin, daemon=True).start()
        running: set[asyncio.Task[None]] = set()

        unit = lean_unit if kind == "lean" else sdk_unit

        async def one(line: dict[str, str]) -> None:
            answer = await unit(line)
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()

        while (line := await lines.get()) is not None:
            task = asyncio.create_task(one(line))
            running.add(task)
            task.add_done_callback(running.discard)
        await asyncio.gather(*running)
        sys.stdout.write(json.dumps({"cpu_s": time.process_time() - ready_cpu}) + "\n")
        sys.stdout.flush()

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(client_main(sys.argv[1]))
