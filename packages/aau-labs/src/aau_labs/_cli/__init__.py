"""``aau lab`` and ``aau bench``: presentation only, over the labs' Python API.

``_lab`` holds ``aau lab generate`` and ``aau lab run``, ``_bench`` holds ``aau bench
agentdojo``, ``_command_help`` their one-line help for ``aau --help`` (no imports). May import any ``aau_labs`` subpackage and ``aau_core``'s public API.
"""
