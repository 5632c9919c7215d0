"""Versioned retrieval: evidence only from the allowed revisions, only for the question as it is.

Module map (one concept each):

* ``terms``     tokenisation shared by indexing and querying (one vocabulary for FTS5 and BM25)
* ``passages``  revision texts -> immutable passages with stable ids and ``when`` conditions
* ``corpus``    the SQLite/FTS5 store, ``sync`` from the registry, scope-before-ranking search
* ``ranking``   BM25 computed over the eligible set only
* ``query``     the immutable query snapshot, identifying-data scrubbing, rewrite validation
* ``cache``     results keyed by scope token + query snapshot, dropped on registry change
* ``evidence``  frozen evidence bundles and citation manifests
* ``retriever`` the async :class:`agent.core.ports.Retriever`, gated after every await
* ``hooks``     injectable fetch delays (tests block on events; scripted calls add latency)
* ``samples``   synthetic revisions and scope tokens (tests, bench)
* ``bench``     ``amend bench --only retrieval``

``retrieval`` imports only ``agent``; the registry reaches it as plain data
(``Corpus.sync``) and scope tokens.
"""
