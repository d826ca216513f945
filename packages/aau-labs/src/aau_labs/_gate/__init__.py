"""The decision-gate lab: an agent on fictional, human-owned decision gates.

Config checks, the gate contract and its scenarios (``_gate_contract``), what the agent is
shown (``_tools``), the tool session (``_session``), the deliberate mock (``_mock``), the
detectors (``_score``) and the lab itself (``_lab``). May import ``aau_core``,
``aau_labs._frame`` and the package's converter (``aau_labs._converter``).
"""
