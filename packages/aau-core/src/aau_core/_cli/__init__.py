"""The ``aau`` command: the click group, plugin loading and aau-core's own commands.

The group and its entry-point plugins (``_group``: exit codes, ``--debug``, terminal-safe
streams), the one-line help of aau-core's commands that ``aau --help`` lists without importing
them (``_command_help``) and one module per command family, presentation only: ``aau schema`` (``_schema``),
``aau results`` (``_results``), ``aau report`` (``_report``), ``aau trace`` (``_trace``) and
``aau runs`` (``_runs``), ``aau view`` (``_view``); the options every command of every package shares and the one JSON
printer (``_options``: ``json_option``, ``force_option``, ``out_option``, ``print_json``) and the
one ``METRIC=VALUE`` parser (``_metric_bars``). A command parses its options, calls the Python API of the
subpackage that does the work and prints; it may import any aau_core subpackage, nothing
imports it but the entry points.
"""
