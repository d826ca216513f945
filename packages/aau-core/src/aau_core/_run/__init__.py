"""Running evaluations: units of scenario x repeat, their statistics and their provenance.

The execution layer (``_execution``: bounded concurrency, per-unit timeouts, one unit's failure
never the run's), the optional Ray executor (``_ray_executor``), append-only JSONL checkpoints
(``_checkpoint``), the runner (``_runner``: ``run_eval``, ``EvalAggregate``) and its aggregation
rules (``_aggregation``), the statistics with
the source of every formula (``_statistics``), the progress bar (``_progress``), provenance
(``_provenance``) and the guards that keep transport failures out of an agent's score
(``_guards``). May import ``aau_core._errors``, ``aau_core._files`` and ``aau_core._installed``
(cached distribution versions); never agents, reports, the store or the CLI.
"""
