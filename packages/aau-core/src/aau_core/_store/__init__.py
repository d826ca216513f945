"""The run store: every receipt, eval aggregate and lab result in one SQLite file.

Recording and reading runs (``_run_store``), a stored run as shown (``_run_views``: the
``run-show`` document and the HTML page), comparing two runs with paired intervals
(``_compare``), the ``--store``/``--no-store`` options of every recording command
(``_options``) and the read-only browser view on 127.0.0.1 (``_view``). May import
``aau_core._errors``, ``_files``, ``_run`` and ``_reports``; never the CLI group.
"""
