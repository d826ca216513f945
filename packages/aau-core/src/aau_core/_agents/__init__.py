"""Agents aau drives itself: the tool-using agent loop, model backends and their cost.

The agent loop (``_loop``: turns, usage, refusal and no-submission paths), backends by name
(``_backends``), their errors (``_backend_errors``), the OpenAI-compatible and Anthropic
backends through the official SDKs (``_openai_compat``, ``_anthropic``) and dollar cost from
measured tokens at published prices (``_cost``, ``pricing.json``). May import
``aau_core._errors``, ``aau_core._files``, ``aau_core._run`` (provenance, guards) and
``aau_core._tool_calls`` (text tool calls); never reports, the store or the CLI.
"""
