"""The frame every lab shares: its spec, its files, one run, its session and mock, the registry.

- ``_lab_spec``: ``LabSpec``, policy search, scenario files and lab-result files;
- ``_lab_run``: the run every tool-using lab shares (one scenario x repeat through
  ``run_tool_agent``, scored) and the ``LabSpec.evaluate`` adapter of a lab's ``evaluate_*``;
- ``_lab_session``: the base of the labs' tool sessions (reads by case id, executed actions);
- ``_scripted_mock``: the base of the labs' scripted mock backends and what they read from a
  conversation;
- ``_bench_run``: one run of an aau-driven benchmark (``aau lab run``, ``aau bench``) from
  checked outputs to an exit code, and the writer of its two result files;
- ``_registry``: the labs by name and config kind.

May import ``aau_core`` and ``aau_schemas`` only: ``aau_core``'s public names, and the few
monorepo internals of its private modules marked ``# internal to the monorepo`` where they are
imported (as every aau package may).
"""
