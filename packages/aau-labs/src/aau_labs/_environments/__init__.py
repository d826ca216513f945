"""Environments aau serves to an agent under test (the ``aau_core`` environment contract).

Registered in the ``aau.environments`` entry-point group by aau-labs' ``pyproject.toml``:
``agentdojo-banking``, ``agentdojo-slack``, ``agentdojo-travel``, ``agentdojo-workspace``
(``_agentdojo_env``: AgentDojo's suites, extra ``aau-labs[agentdojo]``) and ``tau2-mock``
(``_tau2_mock``: τ²-bench's mock domain, written from its data's documented semantics; the
database and expected actions come in the case's options). May import ``aau_core``,
``aau_labs._agentdojo`` and ``agentdojo`` (only inside functions).
"""
