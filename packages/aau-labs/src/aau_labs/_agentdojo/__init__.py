"""AgentDojo through aau's agent loop (``aau bench agentdojo``; extra ``aau-labs[agentdojo]``).

AgentDojo's task suites as aau sees them (``_suite``: tasks, tool schemas, a live tool session,
scoring), the ground-truth replay backend (``_replay``) and the bench run and its result file
(``_bench``). May import ``aau_core``, ``aau_labs._frame`` and ``agentdojo`` (only inside
functions, so the package imports without the extra).
"""
