"""A synthetic registry generator for benchmarks: realistic shape, any size.

Revisions come in groups of ten per (family, procedure): a base manual open-ended, eight
bulletins each superseding the previous one over consecutive ten-tick windows, and a German
translation of the base manual. So a query meets two candidates and a supersession chain,
like the seed, at any registry size. Pure: builds values, touches nothing.
"""

from __future__ import annotations

import random

from registry.model import Edge, Interpretation, RegistryFile, RevisionSpec, Scope

GROUP = 10
PROCEDURES_PER_FAMILY = 20
CONFIGS, REGIONS = ("C1", "C2", "C3"), ("EU", "US")


def _scope(procedure: str, start: int, end: int | None) -> Scope:
    return Scope(procedure, CONFIGS, REGIONS, start, end, start, end)


def synthetic_revisions(count: int) -> tuple[RevisionSpec, ...]:
    """``count`` revisions (rounded up to a group of ten)."""
    out = []
    for g in range((count + GROUP - 1) // GROUP):
        family, procedure = f"fam{g // PROCEDURES_PER_FAMILY}", f"proc{g % PROCEDURES_PER_FAMILY}"
        base = f"g{g}-manual"
        out.append(RevisionSpec(base, family, "manual", "en", "*", (("text", (), f"{base}"),),
                                True, Interpretation("approved", (), (_scope(procedure, 0, None),),
                                                     (), None)))
        previous = base
        for k in range(1, GROUP - 1):
            rid = f"g{g}-bulletin{k}"
            edge = Edge(previous, procedure, f"AD-{g}-{k}")
            out.append(RevisionSpec(
                rid, family, "bulletin", "en", "*", (("text", (), rid),), True,
                Interpretation("approved", ("technician",) if k % 4 == 0 else (),
                               (_scope(procedure, k * 10, k * 10 + 10),), (edge,), None)))
            previous = rid
        out.append(RevisionSpec(f"{base}-de", family, "translation", "de", "*",
                                (("text", (), f"{base} de"),), True,
                                Interpretation("approved", (), (_scope(procedure, 0, None),),
                                               (), base)))
    return tuple(out[:max(count, 0)] if count % GROUP == 0 else out)


def synthetic_file(count: int) -> RegistryFile:
    return RegistryFile("synthetic.yaml", "synthetic", "ticks", (), synthetic_revisions(count),
                        "0" * 64)


def synthetic_queries(count: int, revisions: int, seed: int = 7):
    """(family, procedure, configuration, region, tick) tuples spread over every group."""
    rng = random.Random(seed)
    groups = max(1, revisions // GROUP)
    for _ in range(count):
        g = rng.randrange(groups)
        yield (f"fam{g // PROCEDURES_PER_FAMILY}", f"proc{g % PROCEDURES_PER_FAMILY}",
               rng.choice(CONFIGS), rng.choice(REGIONS), rng.randrange(0, 100))
