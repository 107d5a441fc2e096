"""Test harness for the Ragnarok forced-card tests (no tests of its own): one hand-made
position played by both engines. ``Pos`` holds a reference ``Game`` (set up by hand, no
shuffles) and, after ``sync()``, the same position as the kernel's ``State`` (the kernel's own
code loaded as plain Python, ``core.testing.plain_module``). ``view_ref`` / ``view_kernel``
read both into one comparable dict, so a test can assert "kernel = reference" and the
hand-expected values.
"""
from __future__ import annotations

import numpy as np

from vikingsim.core.testing import ScriptedUniform, plain_module
from vikingsim.games.tevragnarok import reference
from vikingsim.games.tevragnarok.policies import POLICY_TYPES
from vikingsim.games.tevragnarok.rules import N_RUNES, CardKind, Rules

K = plain_module("vikingsim.games.tevragnarok.kernel")
_CARDS = plain_module("vikingsim.core.cards")          # the piles' code as plain Python too
K._draw, K._shuffle = _CARDS._draw, _CARDS._shuffle


def card(rules, kind=CardKind.BASE, rune=None, need=None, leader=None, runeact=None,
         cost=None, strength=None):
    """The first card of the deck with these properties."""
    cards = rules.compile().cards
    for i, c in enumerate(cards):
        if c[0] != kind:
            continue
        if rune is not None and c[2] != rune:
            continue
        if need is not None and c[6] != need:
            continue
        if leader is not None and c[4] != leader:
            continue
        if runeact is not None and c[5] != runeact:
            continue
        if cost is not None and c[3] != cost:
            continue
        if strength is not None and c[1] != strength:
            continue
        return i
    raise LookupError("no such card")


class Pos:
    """A blank position: no Giants, nothing on the board, start resources, empty piles."""

    def __init__(self, players=2, policies="greedy_vp", pol_values=(), **options):
        self.rules = Rules(**options)
        labels = [policies] * players if isinstance(policies, str) else list(policies)
        objs = [POLICY_TYPES[x]() for x in labels]
        self.kinds = [int(o.kind) for o in objs]
        self.params = [o.params().tolist() for o in objs]
        self.pol_values = list(pol_values)
        g = reference.Game(self.rules, self.kinds, self.params, None,
                           ScriptedUniform(self.pol_values))
        g.deck, g.discard = [], []
        g.giant, g.has_giant = [0] * g.R, [False] * g.R
        g.rows = [[0, 1, 2], [3, 4, 5]]
        g.invaders = 0
        self.g = g

    @property
    def p(self):
        return self.g.players

    def giant(self, r, value):
        self.g.giant[r], self.g.has_giant[r] = value, True

    def sync(self):
        """Copy the reference position into a fresh kernel State."""
        g, c = self.g, self.rules.compile()
        self.cf, self.st = c, K.new_state(c, g.n)
        st = self.st
        K._reset(self.cf, st)
        for s, pl in enumerate(g.players):
            st.settlers[s, :] = pl.settlers
            st.temples[s, :] = pl.temples
            st.boats[s, :] = pl.boats
            st.valk[s, :] = pl.valkyrie
            st.mat[s, K.MAT_SETTLERS] = pl.on_mat_settlers(g)
            st.mat[s, K.MAT_VALK] = 3 - pl.deployed()
            st.res[s, :] = pl.res
            st.nfav[s] = len(pl.favors)
            st.fav[s, :len(pl.favors)] = pl.favors
            st.pl[s, K.PL_SLAIN_N], st.pl[s, K.PL_SLAIN_SUM] = len(pl.slain), sum(pl.slain)
            st.pl[s, K.PL_VILLAGES], st.pl[s, K.PL_LOST] = pl.villages, pl.lost
            st.pl[s, K.PL_WON] = pl.won
            st.nhand[s] = len(pl.hand)
            st.hand[s, :len(pl.hand)] = pl.hand
        st.fury[0, :], st.fury[1, :] = g.fury, g.fury_nodrain
        st.control[:], st.vill[:] = g.control, g.villages
        st.giant[:], st.has_giant[:] = g.giant, [int(x) for x in g.has_giant]
        st.deck[:len(g.deck)], st.disc[:len(g.discard)] = g.deck, g.discard
        st.sc[K.SC_NDECK], st.sc[K.SC_NDISC] = len(g.deck), len(g.discard)
        for row in range(2):
            st.rows[row, :len(g.rows[row])] = g.rows[row]
            st.sc[K.SC_NROW0 + row] = len(g.rows[row])
        st.sc[K.SC_ERA], st.sc[K.SC_INVADERS] = g.era, g.invaders
        for s, b in g.battles.items():
            st.bt[s, :] = [1, b["prize"], b["row"], b["end"], len(b["entries"])]
            for j, e in enumerate(b["entries"]):
                st.ent[s, j, :] = e
        K._influence_all(self.cf, st)            # the game keeps it move by move from here
        self.kpol = ScriptedUniform(self.pol_values)
        return self

    def kargs(self, seat):
        return self.kinds[seat], np.array(self.params[seat])

    def both(self):
        """(reference view, kernel view): they must be equal."""
        return view_ref(self.g), view_kernel(self.st, self.g)


def view_ref(g) -> dict:
    return {
        "settlers": [list(pl.settlers) for pl in g.players],
        "mat": [pl.on_mat_settlers(g) for pl in g.players],
        "temples": [list(pl.temples) for pl in g.players],
        "boats": [list(pl.boats) for pl in g.players],
        "valk": [list(pl.valkyrie) for pl in g.players],
        "res": [list(pl.res) for pl in g.players],
        "favors": [list(pl.favors) for pl in g.players],
        "slain": [(len(pl.slain), sum(pl.slain)) for pl in g.players],
        "villages": [pl.villages for pl in g.players],
        "lost": [pl.lost for pl in g.players], "won": [pl.won for pl in g.players],
        "fury": list(g.fury), "fury_nodrain": list(g.fury_nodrain),
        "control": list(g.control), "has_giant": [bool(x) for x in g.has_giant],
        "giant": [v if h else 0 for v, h in zip(g.giant, g.has_giant)],
        "board_villages": list(g.villages), "rows": [list(r) for r in g.rows],
        "discard": list(g.discard),
    }


def view_kernel(st, g) -> dict:
    n = st.settlers.shape[0]
    return {
        "settlers": [list(st.settlers[s]) for s in range(n)],
        "mat": [int(st.mat[s, K.MAT_SETTLERS]) for s in range(n)],
        "temples": [list(st.temples[s]) for s in range(n)],
        "boats": [list(st.boats[s]) for s in range(n)],
        "valk": [list(st.valk[s]) for s in range(n)],
        "res": [list(st.res[s]) for s in range(n)],
        "favors": [list(st.fav[s, :st.nfav[s]]) for s in range(n)],
        "slain": [(int(st.pl[s, K.PL_SLAIN_N]), int(st.pl[s, K.PL_SLAIN_SUM])) for s in range(n)],
        "villages": [int(st.pl[s, K.PL_VILLAGES]) for s in range(n)],
        "lost": [int(st.pl[s, K.PL_LOST]) for s in range(n)],
        "won": [int(st.pl[s, K.PL_WON]) for s in range(n)],
        "fury": list(st.fury[0]), "fury_nodrain": list(st.fury[1]),
        "control": list(st.control), "has_giant": [bool(x) for x in st.has_giant],
        "giant": list(st.giant), "board_villages": list(st.vill),
        "rows": [list(st.rows[r, :st.sc[K.SC_NROW0 + r]]) for r in range(2)],
        "discard": list(st.disc[:st.sc[K.SC_NDISC]]),
    }


def same(pos) -> dict:
    """Assert kernel = reference in this position; returns the (shared) view."""
    r, k = pos.both()
    r2 = {key: _plain(v) for key, v in r.items()}
    k2 = {key: _plain(v) for key, v in k.items()}
    assert r2 == k2, {key: (r2[key], k2[key]) for key in r2 if r2[key] != k2[key]}
    assert influence_in_step(pos), "kernel Influence out of step with its units"
    return r2


def _plain(v):
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (np.integer,)):
        return int(v)
    return v


__all__ = ["K", "Pos", "card", "same", "N_RUNES"]


def influence_in_step(pos) -> bool:
    """The kernel's Influence and ground counts, kept move by move, equal a full recount."""
    infl, gr = pos.st.infl.copy(), pos.st.gr.copy()
    K._influence_all(pos.cf, pos.st)
    return np.array_equal(infl, pos.st.infl) and np.array_equal(gr, pos.st.gr)
