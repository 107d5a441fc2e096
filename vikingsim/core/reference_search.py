"""What the plain-Python twins of every game's search players share (``reference_search.py``
of the raid board, Raid & Conquer and Ragnarok; raidboard §10.6, raidconquer §15.2,
tevragnarok §4.11), written from the notes: one uniform draw on the policy stream, only when
there is a choice, for a tie of best scores, for the untried option an ISMCTS node expands, and
the root's final order (most visits, then the higher mean result)."""
from __future__ import annotations


def draw_one(items, rng):
    """One of ``items`` (in their order) uniformly on ``rng``; no draw for a single item."""
    return items[int(rng.random() * len(items))] if len(items) > 1 else items[0]


def pick_best(scores, options, rng):
    """Highest score; equals drawn uniformly on ``rng`` (one draw, only when tied)."""
    best = max(scores)
    return draw_one([o for o, s in zip(options, scores) if s == best], rng)


def root_score(visits, wins):
    """Visits, equal visits ordered by mean result (half of it: never outweighs a visit)."""
    return visits + 0.5 * wins / visits if visits > 0.0 else 0.0
