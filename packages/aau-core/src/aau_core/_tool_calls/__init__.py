"""Tool calls: did an agent make the function calls a case expects?

Matching observed calls against expected ones (``_matching``: modes, matchers, declared types,
a bipartite assignment so order never changes a verdict) and reading calls a chat model writes
as text (``_text``: fences, tags, bare JSON, strictly). May import ``aau_core._errors`` and
``aau_core._files`` only.
"""
