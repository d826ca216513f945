"""aau's MCP tool server: an environment's tools served to the agent under test over MCP
streamable HTTP (the official ``mcp`` SDK), every call recorded by aau.

Modules by concept: the failure codes and limits (``_codes``), a unit's channel and what it
recorded (``_units``), an environment's tools as MCP tools and the argument check
(``_tools``), the HTTP gate in front of the SDK: unit routing, bearer tokens, body size,
JSON-RPC well-formedness (``_asgi``), and the process-wide server on a uvicorn thread
(``_server``). The public names are exported from ``aau_adapters``; nothing here is imported
until one of them is used.
"""
