"""What ``aau --help`` lists for aau-review's commands, read without importing them.

The ``aau.command_help`` entry point of aau-review (see ``aau_core._cli._group``). No imports.
"""

COMMAND_HELP = {
    "review": "Review labels: prepare a blinded pack, summarize raters' labels, validate files.",
}
"""Command name -> its one-line help (the first sentence of its docstring)."""
