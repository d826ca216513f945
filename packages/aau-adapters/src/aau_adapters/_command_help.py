"""What ``aau --help`` lists for aau-adapters's commands, read without importing them.

The ``aau.command_help`` entry point of aau-adapters (see ``aau_core._cli._group``). No imports.
"""

COMMAND_HELP = {
    "evaluate": "Measure an existing agent on SUITE and write a schema-valid, hash-bound receipt.",
    "import": ("Import public benchmark data (BFCL, tau2-bench, AgentDojo) as aau suites "
               "(suite v3)."),
}
"""Command name -> its one-line help (the first sentence of its docstring)."""
