"""What ``aau --help`` lists for aau-baseline's commands, read without importing them.

The ``aau.command_help`` entry point of aau-baseline (see ``aau_core._cli._group``). No imports.
"""

COMMAND_HELP = {
    "baseline": ("Blinded human-baseline studies: prepare a pack, summarize sessions, validate "
                 "files."),
}
"""Command name -> its one-line help (the first sentence of its docstring)."""
