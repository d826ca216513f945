"""What ``aau --help`` lists for aau-navigator's commands, read without importing them.

The ``aau.command_help`` entry point of aau-navigator (see ``aau_core._cli._group``). No imports.
"""

COMMAND_HELP = {
    "challenge": "Run and validate Reliability Challenge missions (Reproduce, Break, Adapt).",
    "doctor": "Check the starter project in PATH (default: the current folder).",
    "examples": ("Write aau's examples (suites, agents, labs, traces, real receipts) into "
                 "./examples."),
    "find": ("Find use cases whose title, path, industry, kind, question or capabilities contain "
             "every term of QUERY (case-insensitive)."),
    "forge": "Turn an AAU Studio brief into a runnable lab package.",
    "gallery": "Inspect adapted labs and the trust levels their committed evidence earns.",
    "init": ("Create a starter project NAME: suite, command and HTTP adapters, a test, CI, first "
             "receipt."),
    "list": "List the use cases of the catalog.",
    "new-use-case": "Scaffold a lab package whose tests and mock evaluation pass from the start.",
    "show": "Explain one use case: NAME is its title, path, file or folder name, or cli.",
    "start": "Print the exact commands that run one use case offline; changes nothing.",
}
"""Command name -> its one-line help (the first sentence of its docstring)."""
