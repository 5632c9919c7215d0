"""The applicability registry: which document revision applies (docs/registry-format.md, seed 003).

Modules, one concept each: ``timeaxis`` (ticks and instants), ``model`` (parsed values),
``parse`` (YAML file → values, per-file checks), ``checks`` (cross-revision rules),
``schema`` (SQLite DDL and safe opening), ``store`` (atomic import, snapshots), ``resolver``
(the six steps; the ``Resolver`` port), ``tokens`` (scope tokens, policy version),
``explain`` and ``findings`` (operator tools), ``render`` and ``cli`` (``amend registry``),
``demo`` (the Northwind registry), ``synthetic`` and ``bench`` (benchmarks).

Kept free of imports so ``amend --help`` stays fast; import the submodules you need.
"""
