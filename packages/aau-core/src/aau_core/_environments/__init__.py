"""Observed environments: the contract an executable tool world gives aau (``_contract``:
tools with JSON Schema parameters, a fresh state per unit, calls, the final state, a scorer over
the state and the calls aau observed) and environments by name through the entry-point group
``aau.environments`` (``_registry``). docs/environments.md. May import ``aau_core._errors``
only.
"""
