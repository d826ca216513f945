"""What ``aau --help`` lists for aau-labs's commands, read without importing them.

The ``aau.command_help`` entry point of aau-labs (see ``aau_core._cli._group``). No imports.
"""

COMMAND_HELP = {
    "bench": "Public agent benchmarks run through aau's agent loop, scored, with intervals.",
    "lab": ("Fictional domain labs: generate seeded scenarios, run an agent (or the mock), score "
            "it."),
}
"""Command name -> its one-line help (the first sentence of its docstring)."""
