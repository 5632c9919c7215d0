"""Understanding: a final caller turn in, a :class:`~agent.understanding.proposals.Proposal`
out (the contract in :mod:`agent.understanding.proposals`), whether it was heard clearly
enough to act on (:mod:`agent.understanding.trust`), and the rule-based proposer
(``nlu/``). It proposes; the service accepts. Imports only :mod:`agent.core`."""
