"""The evidence-service lab: a coordinator agent on a fictional evidence-heavy public service.

The world: config, scenarios, policy and gold public-value contracts (``_world``), and the lab:
tool session, mock, scoring and evaluation (``_lab``). May import ``aau_core``,
``aau_labs._frame``, ``aau_labs._crew``, ``_report_fidelity``, ``_public_value`` and the package's
converter (``aau_labs._converter``).
"""
