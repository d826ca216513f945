"""Tool calls: did an agent make the function calls a case expects?

The format of an expectation and its checks (``_expected``: expected calls, matcher tables,
function definitions and their types, contradictions, BFCL ground truth, example answers),
matching observed calls against it (``_matching``: modes, matchers, a bipartite assignment so
order never changes a verdict) and reading calls a chat model writes as text (``_text``: fences,
tags, bare JSON, strictly). May import ``aau_core._errors`` and ``aau_core._files`` only.
"""
