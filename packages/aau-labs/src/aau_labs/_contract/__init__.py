"""The contract lab: Decision Gate, Rights Continuity and Critical Event Fan-Out contracts.

A fictional domain compiled into one contract family (``_config``), seeded scenarios with their
gold contract (``_scenarios``), what the agent sees (``_tools``), the mock agent (``_mock``),
the detectors (``_scoring``) and the lab (``_lab``). May import ``aau_core``,
``aau_labs._frame`` and the package's converter (``aau_labs._converter``).
"""
