"""What ``aau --help`` lists for aau-core's commands, read without importing them.

The ``aau.command_help`` entry point of aau-core (see ``aau_core._cli._group``). No imports.
"""

COMMAND_HELP = {
    "report": "Report each scenario of receipts and eval aggregates as a test case.",
    "results": "Check eval aggregate files (run_eval results, aau-harness 1.x or aau 2).",
    "runs": "The run store: list, show and compare recorded runs; import result files.",
    "schema": "List, show and validate against aau's JSON Schemas (draft 2020-12).",
    "trace": "Score agent traces on artifact, tool-call, schema and judge gates.",
    "view": "Browse the run store's runs in a web browser (127.0.0.1 only, read-only).",
}
"""Command name -> its one-line help (the first sentence of its docstring)."""
