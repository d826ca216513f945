"""What ``aau --help`` lists for aau-evidence's commands, read without importing them.

The ``aau.command_help`` entry point of aau-evidence (see ``aau_core._cli._group``). No imports.
"""

COMMAND_HELP = {
    "evidence": "Impact capsules and evidence packs: validate, compare, pack, verify.",
    "release": "Change-aware agent release evidence: capture, diff, assess, verify, export-oscal.",
    "submit": "Build a community-evidence pack from a starter and its receipts, or --validate one.",
}
"""Command name -> its one-line help (the first sentence of its docstring)."""
