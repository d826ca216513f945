"""Reports: what aau shows of receipts, eval aggregates and lab results.

Per-scenario verdicts (``_scenarios``: ``DocumentReport``), the three ``aau report`` outputs
(``_formats``: JUnit XML, Markdown, JSON), JUnit values and their renderer (``_junit``),
Markdown tables (``_markdown_table``), aau-harness 1.6's Markdown of an aggregate
(``_aggregate_markdown``), the self-contained HTML page and its templates (``_html``,
``templates/``) and what a receipt's schema cannot say (``_receipt_consistency``). May import
``aau_core._errors``, ``_files`` and ``_run`` (statistics); never the store or the CLI.
"""
