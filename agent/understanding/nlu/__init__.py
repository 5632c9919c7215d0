"""Deterministic understanding: a final user turn in, a
:class:`~agent.understanding.proposals.Proposal` out.

Modules, one concept each:

- ``lexicon``: the words of values: days, letters, asset nouns, places (data only);
- ``intent_words``, ``correction_words``, ``authority_words``: the words of intents, corrections
  and authority boundaries (data only);
- ``normalise``: lower case, numbers as digits (text2num), recogniser homophones;
- ``dates``: dates against the call's clock (dateparser, with docs/call-scripts.md's rules pinned);
- ``date_rules``: which days a date phrase names, counted from today;
- ``times``: times of day and visit windows;
- ``catalog``: the caller's own assets; ``asset_ids``: how an owned id is said, and an id heard
  that is none of the caller's;
- ``procedures``: the registry's procedures (rapidfuzz, safely);
- ``slots``: units, site, language, configuration, region, opened;
- ``reading``: one stretch of text to slot values;
- ``corrections``: negation, replace markers, cleared constraints, referents, authority;
- ``intents``: what the caller wants;
- ``withdrawals``: the values a turn takes back ("not X", "from X to Y");
- ``precedence``: the intent and the correction kind, by fixed precedence;
- ``proposer``: :class:`RuleProposer`, which puts them together;

The package itself imports nothing: import what you need from its modules
(``from agent.understanding.nlu.proposer import RuleProposer``), so that a module using one word
list (``agent.understanding.nlu.lexicon``) does not load the whole understanding layer, and no
import cycle can run through the package.
"""
