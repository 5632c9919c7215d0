"""Deterministic understanding: a final user turn in, a
:class:`~agent.understanding.proposals.Proposal` out.

Modules, one concept each:

- ``lexicon``: every phrase that moves a decision (data only);
- ``normalise``: lower case, numbers as digits (text2num), recogniser homophones;
- ``dates``: dates against the call's clock (dateparser, with docs/call-scripts.md's rules pinned);
- ``times``: times of day and visit windows;
- ``catalog``: the caller's own assets and the registry's procedures (rapidfuzz, safely);
- ``slots``: units, site, language, configuration, region, opened;
- ``reading``: one stretch of text to slot values;
- ``corrections``: negation, replace markers, cleared constraints, referents, authority;
- ``intents``: what the caller wants;
- ``proposer``: :class:`RuleProposer`, which puts them together;

The package itself imports nothing: import what you need from its modules
(``from agent.understanding.nlu.proposer import RuleProposer``), so that a module using one word
list (``agent.understanding.nlu.lexicon``) does not load the whole understanding layer, and no
import cycle can run through the package.
"""
