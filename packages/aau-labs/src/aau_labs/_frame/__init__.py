"""The frame every lab shares: its spec, its files, one run, the registry of labs.

``LabSpec``, policy search, scenario and lab-result files (``_lab_spec``), the run every
tool-using lab shares (``_lab_run``: one scenario x repeat through ``run_tool_agent``), what the
scripted mock backends read from a conversation (``_mock_reading``) and the registry of labs by
name and config kind (``_registry``). May import ``aau_core`` and ``aau_schemas`` only.
"""
