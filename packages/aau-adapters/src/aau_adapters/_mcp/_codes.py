"""The MCP failure codes aau records, and the limits behind them.

Each code names why aau refused or failed a request to a unit, and how it was answered:

| code | when | answered |
|---|---|---|
| ``mcp-wrong-token`` | missing or unknown bearer token, or a token of another unit | HTTP 401 |
| ``mcp-unit-ended`` | any request after the unit closed | HTTP 404 (``ToolServer.late_requests``) |
| ``mcp-wrong-session`` | an ``Mcp-Session-Id`` this unit did not open (another unit's, or none issued) | HTTP 404 |
| ``mcp-malformed-jsonrpc`` | body not JSON / not JSON-RPC 2.0 | HTTP 400, JSON-RPC -32700 / -32600 |
| ``mcp-oversized-request`` | body over ``MAX_REQUEST_BYTES`` | HTTP 413 |
| ``mcp-unknown-tool`` | ``tools/call`` of a name the environment does not have | JSON-RPC -32602 |
| ``mcp-invalid-arguments`` | arguments break the tool's input schema | tool result ``isError``, the JSON path named |
| ``mcp-call-budget-exceeded`` | more ``tools/call`` than the unit's ``max_calls`` | tool result ``isError`` |
| ``tool-error`` | the environment answered ``ok=False`` | tool result ``isError`` |
| ``environment-error`` | the environment raised | tool result ``isError`` |

The first five are ``RejectedRequest`` codes (the request never became a call); the last five
are ``ObservedCall`` codes (the agent asked for a tool; the call is attempted, not ok).
"""

from __future__ import annotations

WRONG_TOKEN = "mcp-wrong-token"
UNIT_ENDED = "mcp-unit-ended"
WRONG_SESSION = "mcp-wrong-session"
MALFORMED_JSONRPC = "mcp-malformed-jsonrpc"
OVERSIZED_REQUEST = "mcp-oversized-request"
UNKNOWN_TOOL = "mcp-unknown-tool"
INVALID_ARGUMENTS = "mcp-invalid-arguments"
CALL_BUDGET_EXCEEDED = "mcp-call-budget-exceeded"
TOOL_ERROR = "tool-error"
ENVIRONMENT_ERROR = "environment-error"

MCP_FAILURE_CODES: tuple[str, ...] = (
    WRONG_TOKEN, UNIT_ENDED, WRONG_SESSION, MALFORMED_JSONRPC, OVERSIZED_REQUEST, UNKNOWN_TOOL,
    INVALID_ARGUMENTS, CALL_BUDGET_EXCEEDED, TOOL_ERROR, ENVIRONMENT_ERROR,
)
"""Every code of the table above, in its order."""

REJECTED_CODES = frozenset({WRONG_TOKEN, UNIT_ENDED, WRONG_SESSION, MALFORMED_JSONRPC,
                            OVERSIZED_REQUEST})
CALL_CODES = frozenset({UNKNOWN_TOOL, INVALID_ARGUMENTS, CALL_BUDGET_EXCEEDED, TOOL_ERROR,
                        ENVIRONMENT_ERROR})

MAX_REQUEST_BYTES = 1_000_000
"""The largest request body a unit reads, in bytes (larger: ``mcp-oversized-request``)."""
MAX_CALLS_LIMIT = 10_000
"""The largest call budget a unit may have (suite v3's ``max_calls`` maximum)."""

# JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification#error_object)
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
