"""Private compiled kernel of the Ragnarok model (tev-ragnarok §4.7, RNG protocol §4.8).

Arrays in, arrays out, no checks, no allocation (``@jit(nrt=False)``): ``play_block`` (plain
Python) allocates one block's scratch ``State`` and passes it in. Flow: ``_play_block`` ->
``_play_game`` -> ``_setup_game``, ``_play_era`` (``_draft``, then per turn ``_resolve``
and ``_play_card``: ``_choose``, ``_face_up`` / ``_start`` / ``_join`` / ``_slay``; then
``_cleanup``) -> ``_record``. Speed: the per-turn chain and the small helpers are inlined
by LLVM (``inline="llvm"``) because every real call copies the whole State and CompiledRules
(about 400 machine words) onto the stack. Compile time: every function but ``_play_block``
is ``internal`` (no CPython wrapper unboxing 50 arrays); numba inlines (``inline="always"``)
only the six small bodies with one call site each in this file that chain the block to a turn
(``_play_game``, ``_play_era``, ``_own_battle``, ``_play_card``, ``_choose``, ``_carry_out``;
the last four are also the forward model's steps, ``forward.py``), so the whole kernel is
optimized and emitted once, in ``_play_block``, not once per level; numba's IR inlining of
the whole chain (before) retyped the grown Era function at every site, most of the first
run's 60-90 s of CPU. ``docs/benchmarks.md`` has both profiles. Draws: the dice stream for every
shuffle and draw (deck, Giants, Favor cards, deals, Invader cards), the policy stream for
``random_legal``'s choices only.

State (one game at a time; ``n`` seats, ``R`` regions, ``D`` docks):
    settlers, temples int64[n, R]   units on the board   mat int64[n, 2]  Settlers, Valkyries
    boats int64[n, D]               moored Boats          valk int64[n, 3] region or -1 (mat)
    res int64[n, 3]                 Wood, Food, Steel     fav int64[n, 4], nfav int64[n]
    pl int64[n, N_PL]               per-seat counters (``PL_*``)
    hand, pack int64[n, K]; nhand, npack int64[n]   hands and draft packs (pack a: dealt to seat a)
    deck, disc int64[C]             Viking piles (top = last)
    giant, has_giant int64[R]       token values / presence; tokens int64[9]
    rows int64[2, F]; fdeck int64[F]                      the two Favor rows
    control, vill int64[R]; fury int64[2, 3] (row 1: never drained)
    bt int64[n, N_BT]; ent int64[n, n, 3] (seat, card, Strength at play)   open battles
    opts int64[MAX_OPTS, 3]; fig int64[n, 3]; ftmp int64[3]; sc int64[N_SC]; special int64[3, 2, 2]
    infl, gr int64[n, R]: Influence and ground units, kept in step with every unit move
    (``_add_settlers`` ...); control is checked again only after a move (``SC_CONTROL_STALE``);
    held int64[n, 3]: Island Runes of each god controlled, kept in step by ``_update_control``
    rival int64[R]: ``_focus``'s strongest rival Influence per region
    keys int64[n, N_KEYS]: the final ranking keys (``_final_keys``)
    fvals, cand, tc: a turn's
    prize values (``_options``), slay-candidate regions and what
    every option shares (``_turn_cache``, ``TC_*``)
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from vikingsim.core.cards import _draw, _shuffle
from vikingsim.core.jit import jit
from vikingsim.games.tevragnarok.policies import ELEMENTS, Param, PolicyKind
from vikingsim.games.tevragnarok.rules import CompiledRules as Cfg  # the kernel's view
from vikingsim.games.tevragnarok.rules import (
    BOAT_INFLUENCE, CARD_COST, CARD_KIND, CARD_LEADER, CARD_NEED, CARD_RUNE, CARD_RUNEACT,
    CARD_STRENGTH, CARRY_SETTLER_FOOD, CARRY_TEMPLE_STEEL, FOOD, JOKER, MAX_DEGREE,
    MAX_FAVOR_HELD, N_ERAS, N_GIANTS, N_RUNES, N_VALKYRIES, SETTLER_INFLUENCE, SLAY_SETTLERS,
    SLAY_SETTLERS_EINHERJAR, STEEL, STRENGTH_PER_UNIT, TEMPLE_INFLUENCE, VALKYRIE_INFLUENCE,
    WOOD, CardKind, Leader, RuneAct, RuleSlot as S)

FACE_UP, START, JOIN, SLAY = 0, 1, 2, 3
# per-seat counters
PL_SLAIN_N, PL_SLAIN_SUM, PL_VILLAGES, PL_LOST, PL_WON = 0, 1, 2, 3, 4
PL_ERA0 = 5                                   # slays in Era e at PL_ERA0 + e
PL_EL0 = PL_ERA0 + N_ERAS                     # element e's counter t at PL_EL0 + 3 e + t
MAT_SETTLERS, MAT_VALK = 0, 1
# open battle: open flag, prize, row, end, entries
BT_OPEN, BT_PRIZE, BT_ROW, BT_END, BT_N = 0, 1, 2, 3, 4
N_BT = 5
# game scalars
SC_FIRST_SLAYER, SC_FIRST_LOSER, SC_INVADERS, SC_ERA, SC_RES_MAX, SC_FURY_MIN, SC_FAVOR_MAX, \
    SC_NDECK, SC_NDISC, SC_NROW0, SC_NROW1, SC_CONTROL_STALE, SC_OPENER, SC_COUNT = range(14)
SC_OPENED0 = 14                               # + e: the seat that opened Era e (the record)
N_SC = SC_OPENED0 + N_ERAS
ALL_REGIONS = (1 << 16) - 1                   # SC_CONTROL_STALE: bit r = region r changed
# turn cache (``_turn_cache``): what every option of one choice shares, for the chooser
TC_FAVOR = 0                                  # + g: a Favor card of god g at today's ranks
TC_FAVOR_LO = 3                               # least valuable held Favor card (hand full)
TC_ISLAND = 4                                 # + g: an Island of god g (``_focus``)
TC_RUNE_PTS = 7                               # p's Rune points today (``_slay_value``) ...
TC_RUNE_PTS_WITH = 8                          # + g: ... and with 1 more Fury of god g
TC_RUNE_PTS_SET = 11                          # 1 once the three above are filled this choice
N_TC = 12
# a seat's final ranking keys (§2.6, ``_final_keys``), in tie-breaker order
KEY_SCORE, KEY_ISLANDS, KEY_FAVORS, KEY_TEMPLES, KEY_BOATS, KEY_RESOURCES = range(6)
N_KEYS = 6
# elements (``policies.ELEMENTS``): restricted play (bit e of Param.FORBID) and the counters
# ``st.pl[p, PL_EL0 + 3 e + EL_*]``: times taken, Era (1-3) of the first take, cards drafted
EL_START, EL_JOIN, EL_SLAY, EL_DEPLOY = 0, 1, 2, 3
EL_LEADER0 = 4                                # + Leader
EL_RUNE0 = 8                                  # + RuneAct
EL_CARD0 = 13                                 # + CardKind (Valkyrie 14, Einherjar 15)
N_EL = EL_CARD0 + 3
EL_TAKEN, EL_FIRST, EL_DRAFTED = 0, 1, 2
N_PL = PL_EL0 + 3 * N_EL          # in ``pl``, not an array of their own: every real call
                                  # copies each State array's shape and strides
assert ELEMENTS[EL_DEPLOY] == "deploy_valkyrie" and ELEMENTS[EL_RUNE0] == "smite"
assert ELEMENTS[EL_CARD0 + CardKind.VALKYRIE] == "valkyrie_card" and len(ELEMENTS) == N_EL
MAX_HAND = 8
MAX_OPTS = MAX_HAND * (1 + 4 + 4 + N_GIANTS)


class State(NamedTuple):
    settlers: np.ndarray
    temples: np.ndarray
    boats: np.ndarray
    valk: np.ndarray
    mat: np.ndarray
    res: np.ndarray
    fav: np.ndarray
    nfav: np.ndarray
    pl: np.ndarray
    hand: np.ndarray
    nhand: np.ndarray
    pack: np.ndarray
    npack: np.ndarray
    deck: np.ndarray
    disc: np.ndarray
    giant: np.ndarray
    has_giant: np.ndarray
    tokens: np.ndarray
    rows: np.ndarray
    fdeck: np.ndarray
    control: np.ndarray
    vill: np.ndarray
    fury: np.ndarray
    bt: np.ndarray
    ent: np.ndarray
    opts: np.ndarray
    fig: np.ndarray
    ftmp: np.ndarray
    sc: np.ndarray
    special: np.ndarray
    infl: np.ndarray
    gr: np.ndarray
    fvals: np.ndarray
    cand: np.ndarray
    tc: np.ndarray
    held: np.ndarray
    rival: np.ndarray
    keys: np.ndarray


class Out(NamedTuple):
    winner: np.ndarray
    score: np.ndarray
    giant_points: np.ndarray
    slays: np.ndarray
    lost_battles: np.ndarray
    won_battles: np.ndarray
    valkyries: np.ndarray
    islands: np.ndarray
    favors: np.ndarray
    villages: np.ndarray
    temples: np.ndarray
    boats: np.ndarray
    resources: np.ndarray
    settlers: np.ndarray
    settlers_mat: np.ndarray
    valkyries_mat: np.ndarray
    slays_era: np.ndarray
    fury: np.ndarray
    fury_nodrain: np.ndarray
    giants_left: np.ndarray
    first_slayer: np.ndarray
    first_loser: np.ndarray
    res_max: np.ndarray
    fury_min: np.ndarray
    favor_max: np.ndarray
    special_n: np.ndarray
    special_sum: np.ndarray
    openers: np.ndarray
    el_taken: np.ndarray
    el_first: np.ndarray
    el_drafted: np.ndarray


# ------------------------------------------------------------------ small helpers

@jit(inline="llvm", nrt=False, internal=True)
def _rand(pol_rng, n):
    return int(pol_rng.random() * n)


@jit(nrt=False, internal=True)
def _allowed(prm, e):
    """Restricted play: the seat's policy does not forbid element e (``Param.FORBID``)."""
    f = prm[Param.FORBID]
    return f == 0.0 or (int(f) >> e) & 1 == 0       # nothing forbidden: one comparison


@jit(inline="llvm", nrt=False, internal=True)
def _card_allowed(cf, prm, card):
    """A base card is never forbidden; a Valkyrie or Einherjar card when its kind is."""
    kind = cf.cards[card, CARD_KIND]
    return kind == CardKind.BASE or _allowed(prm, EL_CARD0 + kind)


@jit(inline="llvm", nrt=False, internal=True)
def _take(st, p, e):
    """Count one take of element e by p: times, and the Era (1-3) of the first (with the
    option ``count_elements``, ``SC_COUNT``)."""
    if st.sc[SC_COUNT] == 0:
        return
    st.pl[p, PL_EL0 + 3 * e + EL_TAKEN] += 1
    if st.pl[p, PL_EL0 + 3 * e + EL_FIRST] == 0:
        st.pl[p, PL_EL0 + 3 * e + EL_FIRST] = st.sc[SC_ERA] + 1


@jit(inline="llvm", nrt=False, internal=True)
def _take_card(cf, st, p, card):
    """The card was used (a battle, a slay, or face up with its condition met)."""
    kind = cf.cards[card, CARD_KIND]
    if kind != CardKind.BASE:
        _take(st, p, EL_CARD0 + kind)


@jit(inline="llvm", nrt=False, internal=True)
def _gain(cf, st, p, kind, k):
    """§2.2: resources capped (start.resource_cap, 7)."""
    cap = cf.ri[S.CAP]
    v = st.res[p, kind] + k
    st.res[p, kind] = cap if v > cap else v
    if st.res[p, kind] > st.sc[SC_RES_MAX]:
        st.sc[SC_RES_MAX] = st.res[p, kind]


@jit(inline="llvm", nrt=False, internal=True)
def _moved(st):
    """Units may have moved anywhere: control must be checked again in every region."""
    st.sc[SC_CONTROL_STALE] = ALL_REGIONS


@jit(inline="llvm", nrt=False, internal=True)
def _changed(st, r):
    """Influence or ground units changed in region r: check its control again."""
    st.sc[SC_CONTROL_STALE] |= 1 << r


@jit(inline="llvm", nrt=False, internal=True)
def _add_settlers(st, p, r, k):
    """k Settlers more (or fewer) on region r, with their Influence and ground count (§2.4)."""
    _changed(st, r)
    st.settlers[p, r] += k
    st.infl[p, r] += SETTLER_INFLUENCE * k
    st.gr[p, r] += k


@jit(inline="llvm", nrt=False, internal=True)
def _add_temples(st, p, r, k):
    _changed(st, r)
    st.temples[p, r] += k
    st.infl[p, r] += TEMPLE_INFLUENCE * k
    st.gr[p, r] += k


@jit(inline="llvm", nrt=False, internal=True)
def _add_boats(cf, st, p, d, k):
    """§3.2: a moored Boat counts for each region of its dock (a Boat is no ground unit)."""
    st.boats[p, d] += k
    st.infl[p, cf.dock[d, 0]] += BOAT_INFLUENCE * k
    _changed(st, cf.dock[d, 0])
    if cf.dock[d, 1] >= 0:
        st.infl[p, cf.dock[d, 1]] += BOAT_INFLUENCE * k
        _changed(st, cf.dock[d, 1])


@jit(inline="llvm", nrt=False, internal=True)
def _set_valkyrie(st, p, g, r):
    """§3.6: Valkyrie g of seat p to region r (2 Influence, a ground unit)."""
    old = st.valk[p, g]
    if old >= 0:
        _changed(st, old)
        st.infl[p, old] -= VALKYRIE_INFLUENCE
        st.gr[p, old] -= 1
    _changed(st, r)
    st.valk[p, g] = r
    st.infl[p, r] += VALKYRIE_INFLUENCE
    st.gr[p, r] += 1


@jit(inline="llvm", nrt=False, internal=True)
def _add_fury(st, g, k):
    st.fury[0, g] += k
    st.fury[1, g] += k


@jit(inline="llvm", nrt=False, internal=True)
def _deployed(st, p):
    """Valkyries of p on the board: those not on its mat (§3.6)."""
    return N_VALKYRIES - st.mat[p, MAT_VALK]


@jit(inline="llvm", nrt=False, internal=True)
def _deployed_count(st, p):
    """The same, counted on the board (the record, so the invariants can compare the two)."""
    n = 0
    for g in range(N_VALKYRIES):
        if st.valk[p, g] >= 0:
            n += 1
    return n


@jit(inline="llvm", nrt=False, internal=True)
def _valk_in(st, p, r):
    n = 0
    for g in range(N_VALKYRIES):
        if st.valk[p, g] == r:
            n += 1
    return n


@jit(inline="llvm", nrt=False, internal=True)
def _adjacent(cf, a, b):
    for j in range(MAX_DEGREE):
        if cf.adj[a, j] == b:
            return True
    return False


@jit(inline="llvm", nrt=False, internal=True)
def _serves(cf, d, r):
    return cf.dock[d, 0] == r or cf.dock[d, 1] == r


@jit(nrt=False, internal=True)
def _influence_all(cf, st):
    """§2.4, §3.2, §3.6 for every seat and region at once, into ``st.infl`` (Settler 1,
    Temple 4, moored Boat 2 per region of its dock, Valkyrie 2) and ``st.gr`` (ground units:
    Settlers, Temples, Valkyries; a Boat is not on the ground). A full count: the game keeps
    both in step move by move; tests call it after setting a position by hand."""
    _moved(st)
    n, R = st.settlers.shape[0], cf.rune.shape[0]
    for p in range(n):
        for r in range(R):
            st.infl[p, r] = (SETTLER_INFLUENCE * st.settlers[p, r]
                             + TEMPLE_INFLUENCE * st.temples[p, r])
            st.gr[p, r] = st.settlers[p, r] + st.temples[p, r]
        for d in range(cf.dock.shape[0]):
            b = st.boats[p, d]
            if b > 0:
                st.infl[p, cf.dock[d, 0]] += BOAT_INFLUENCE * b
                if cf.dock[d, 1] >= 0:
                    st.infl[p, cf.dock[d, 1]] += BOAT_INFLUENCE * b
        for g in range(N_VALKYRIES):
            r = st.valk[p, g]
            if r >= 0:
                st.infl[p, r] += VALKYRIE_INFLUENCE
                st.gr[p, r] += 1
        for h in range(N_RUNES):
            st.held[p, h] = 0
    for r in range(R):
        if st.control[r] >= 0:
            st.held[st.control[r], cf.rune[r]] += 1


@jit(nrt=False, internal=True)
def _update_control(cf, st):
    """§2.4, §3.6: a unique most-Influence player with ground units takes the Rune (+1 Fury);
    a holder without ground units and no such challenger returns it."""
    stale = st.sc[SC_CONTROL_STALE]
    if stale == 0:
        return                                   # idempotent: nothing moved since the last check
    st.sc[SC_CONTROL_STALE] = 0
    n = st.settlers.shape[0]
    for r in range(cf.rune.shape[0]):            # a region's check depends on that region only
        if (stale >> r) & 1 == 0:
            continue
        best, best_seat, tie = -1, -1, False
        for p in range(n):
            if st.gr[p, r] == 0:
                continue
            x = st.infl[p, r]
            if x > best:
                best, best_seat, tie = x, p, False
            elif x == best:
                tie = True
        holder, g = st.control[r], cf.rune[r]
        if best_seat >= 0 and not tie:
            if best_seat != holder:
                st.control[r] = best_seat
                if holder >= 0:
                    st.held[holder, g] -= 1
                st.held[best_seat, g] += 1
                _add_fury(st, g, 1)
        elif holder >= 0 and st.gr[holder, r] == 0:
            st.control[r] = -1
            st.held[holder, g] -= 1


@jit(inline="llvm", nrt=False, internal=True)
def _rank_index(f, g):
    """§2.6: 0 = rank 1; tied gods take the lower value."""
    k = 0
    for h in range(N_RUNES):
        if h != g and f[h] >= f[g]:
            k += 1
    return k


@jit(nrt=False, internal=True)
def _rune_points(cf, st, p, f):
    """§2.6: each held Island Rune and Favor card scores its god's rank value under Fury f."""
    pts = 0
    for g in range(N_RUNES):
        if st.held[p, g]:
            pts += st.held[p, g] * cf.island[_rank_index(f, g)]
    for i in range(st.nfav[p]):
        pts += cf.favor[_rank_index(f, cf.favor_rune[st.fav[p, i]])]
    return pts


@jit(nrt=False, internal=True)
def _points_with(cf, st, p, g):
    """Rune points if god g had 1 more Fury."""
    for h in range(N_RUNES):
        st.ftmp[h] = st.fury[0, h] + (1 if h == g else 0)
    return _rune_points(cf, st, p, st.ftmp)


@jit(nrt=False, internal=True)
def _fill_rune_points(cf, st, p):
    """p's Rune points today and with 1 more Fury of each god, into ``st.tc``
    (``TC_RUNE_PTS*``)."""
    st.tc[TC_RUNE_PTS] = _rune_points(cf, st, p, st.fury[0])
    for h in range(N_RUNES):
        st.tc[TC_RUNE_PTS_WITH + h] = _points_with(cf, st, p, h)
    st.tc[TC_RUNE_PTS_SET] = 1


@jit(inline="llvm", nrt=False, internal=True)
def _best_gain_rune(st):
    """The god whose +1 Fury gains the most Rune points (first on ties), from ``st.tc``."""
    best, best_g = -1e300, 0
    for g in range(N_RUNES):
        v = st.tc[TC_RUNE_PTS_WITH + g] - st.tc[TC_RUNE_PTS]
        if v > best:
            best, best_g = v, g
    return best_g


@jit(nrt=False, internal=True)
def _best_fury_rune(cf, st, p):
    """A Joker's god (§3.5): the one whose +1 Fury gains p the most Rune points."""
    _fill_rune_points(cf, st, p)
    return _best_gain_rune(st)


@jit(inline="llvm", nrt=False, internal=True)
def _strength(cf, st, p, card):
    """§3.5 SEED: Valkyrie 4 x Valkyries deployed, Einherjar 4 x Giants slain; a base card
    its printed Strength (the special cards print 0, ``make_cards``: no branch on the kind)."""
    kind = cf.cards[card, CARD_KIND]
    return (cf.cards[card, CARD_STRENGTH]
            + (kind == CardKind.VALKYRIE) * (STRENGTH_PER_UNIT * _deployed(st, p))
            + (kind == CardKind.EINHERJAR) * (STRENGTH_PER_UNIT * st.pl[p, PL_SLAIN_N]))


@jit(inline="llvm", nrt=False, internal=True)
def _slay_need(cf, card):
    """§3.3 SEED: 3 Settlers, 2 with an Einherjar card."""
    if cf.cards[card, CARD_KIND] == CardKind.EINHERJAR:
        return SLAY_SETTLERS_EINHERJAR
    return SLAY_SETTLERS


@jit(inline="llvm", nrt=False, internal=True)
def _can_slay(cf, st, p, card, r):
    """§3.3 SEED: a Giant, the Settlers and a Valkyrie in r (a Valkyrie card stands in for it)."""
    if st.has_giant[r] == 0 or st.settlers[p, r] < _slay_need(cf, card):
        return False
    valk_here = st.gr[p, r] - st.settlers[p, r] - st.temples[p, r]   # ground units (§3.6)
    return cf.cards[card, CARD_KIND] == CardKind.VALKYRIE or valk_here > 0


@jit(inline="llvm", nrt=False, internal=True)
def _face_up_ok(cf, st, p, card):
    """§3.5 SEED: Einherjar need a Giant slain; Valkyrie cards Valkyries deployed (§6.3)."""
    kind = cf.cards[card, CARD_KIND]
    dep = _deployed(st, p)
    if cf.ri[S.VALK_CONDITION_ONE_OR_TWO]:
        valk_ok = (dep >= 1) & (dep <= 2)
    else:
        valk_ok = dep >= cf.cards[card, CARD_NEED]
    return (((kind != CardKind.EINHERJAR) | (st.pl[p, PL_SLAIN_N] >= 1))
            & ((kind != CardKind.VALKYRIE) | valk_ok))


@jit(inline="llvm", nrt=False, internal=True)
def _runes_enough(cf, st, p, card):
    """§2.2: the card's Rune (a Joker: the best) plus the held Islands' Runes reach the
    Rune action's count."""
    g = cf.cards[card, CARD_RUNE]
    held = 0
    if g == JOKER:
        for h in range(N_RUNES):
            if st.held[p, h] > held:
                held = st.held[p, h]
    else:
        held = st.held[p, g]
    return 1 + held >= cf.ri[S.RUNE_ACTION_RUNES]


# ------------------------------------------------------------------ policy values (§4.7)

@jit(nrt=False, internal=True)
def _focus(cf, st, p, kind, prm, pol_rng):
    """Focus region: an unheld Rune's value, less half the Influence gap to the strongest
    rival, plus giant_weight on a Giant; random_legal: uniform (one policy draw)."""
    R = cf.rune.shape[0]
    if kind == PolicyKind.RANDOM_LEGAL:
        return _rand(pol_rng, R)
    n = st.settlers.shape[0]
    for g in range(N_RUNES):
        st.tc[TC_ISLAND + g] = cf.island[_rank_index(st.fury[0], g)]
    for r in range(R):
        st.rival[r] = 0
    for q in range(n):                           # region by region, so the loop vectorizes
        if q != p:
            for r in range(R):
                st.rival[r] = max(st.rival[r], st.infl[q, r])
    best, best_r = -1e300, 0
    for r in range(R):
        own, rival = st.infl[p, r], st.rival[r]
        v = float(st.tc[TC_ISLAND + cf.rune[r]] * (st.control[r] != p))
        v -= 0.5 * max(0, rival - own)
        v += prm[Param.GIANT_WEIGHT] * st.has_giant[r]
        if v > best:
            best, best_r = v, r
    return best_r


@jit(nrt=False, internal=True)
def _turn_cache(cf, st, p):
    """What every option of p's choice shares, into ``st.tc`` (``TC_*``): Favor card values
    at today's ranks and the least valuable held one."""
    for g in range(N_RUNES):
        st.tc[TC_FAVOR + g] = cf.favor[_rank_index(st.fury[0], g)]
    lo = 1 << 30
    for i in range(st.nfav[p]):
        x = st.tc[TC_FAVOR + cf.favor_rune[st.fav[p, i]]]
        if x < lo:
            lo = x
    st.tc[TC_FAVOR_LO] = lo
    st.tc[TC_RUNE_PTS_SET] = 0


@jit(inline="llvm", nrt=False, internal=True)
def _favor_value(cf, st, p, f):
    """A Favor card's value to p (``_turn_cache`` first): its points, less the card sent
    back when the hand of Favor cards is full."""
    v = float(st.tc[TC_FAVOR + cf.favor_rune[f]])
    if st.nfav[p] >= MAX_FAVOR_HELD:
        v -= st.tc[TC_FAVOR_LO]
    return v


@jit(nrt=False, internal=True)
def _slay_value(cf, st, p, card, prm):
    """Expected Giant value plus the Rune points of the card's Fury (a Joker: the best god,
    first on ties), less the Settlers. The Rune points are worked out at the choice's first
    slay option and kept in ``st.tc`` for the rest of it (``_turn_cache`` clears them)."""
    if st.tc[TC_RUNE_PTS_SET] == 0:
        _fill_rune_points(cf, st, p)
    base = st.tc[TC_RUNE_PTS]
    g = cf.cards[card, CARD_RUNE]
    if g == JOKER:
        g = _best_gain_rune(st)
    after = st.tc[TC_RUNE_PTS_WITH + g]
    ev = (cf.ri[S.POOL_SUM] - st.pl[p, PL_SLAIN_SUM]) / (N_GIANTS - st.pl[p, PL_SLAIN_N])
    return ev + after - base - prm[Param.SETTLER_VALUE] * _slay_need(cf, card)


@jit(inline="llvm", nrt=False, internal=True)
def _card_values(cf, st, p, card, prm):
    """What a card's options' values share (§4.7): the face-up value, and for a battle the
    win chance pw, (1 - pw) x the loss value and whether its Steel can be paid."""
    n = 0
    if _face_up_ok(cf, st, p, card) and _card_allowed(cf, prm, card):   # allowed actions only
        n += _allowed(prm, EL_LEADER0 + cf.cards[card, CARD_LEADER])
        if _runes_enough(cf, st, p, card):
            n += _allowed(prm, EL_RUNE0 + cf.cards[card, CARD_RUNEACT])
    face = prm[Param.FACE_UP_VALUE] * n
    s = _strength(cf, st, p, card)
    pw = min(1.0, s / (cf.ri[S.STRENGTH_HI] + 1))
    g = cf.cards[card, CARD_RUNE]
    joker = g == JOKER
    on_mat = st.valk[p, 0 if joker else g] < 0       # the Valkyrie a loss would deploy
    deploys = ((joker & (_deployed(st, p) < N_VALKYRIES)) | ((not joker) & on_mat)) & _allowed(
        prm, EL_DEPLOY)
    lose = cf.ri[S.BOON] * prm[Param.RESOURCE_VALUE] + deploys * prm[Param.VALKYRIE_VALUE]
    return face, pw, (1.0 - pw) * lose, st.res[p, STEEL] >= cf.cards[card, CARD_COST]


@jit(inline="llvm", nrt=False, internal=True)
def _battle_value(pw, lose, afford, win):
    """A battle option's value from its card's ``_card_values`` (win chance pw, (1 - pw) x the
    loss value, Steel paid) and its prize's ``_prize_value`` (§4.7): pw x win + that."""
    if not afford:
        return 0.0                                       # §2.5: could not take part
    return pw * win + lose


@jit(inline="llvm", nrt=False, internal=True)
def _prize_value(cf, st, p, prm, f):
    """What winning Favor card f is worth to p: its Favor value plus the Favor bag."""
    return _favor_value(cf, st, p, f) + cf.ri[S.FAVOR_BAG] * prm[Param.RESOURCE_VALUE]


@jit(inline="llvm", nrt=False, internal=True)
def _offer(st, k, best, score, v, i, use, x):
    """One option of ``_options``: listed at row k, or (score) kept in row 0 when its value v
    beats the best so far (first on ties). Returns the new (k, best)."""
    if not score:
        st.opts[k, 0], st.opts[k, 1], st.opts[k, 2] = i, use, x
        return k + 1, best
    if v > best:
        st.opts[0, 0], st.opts[0, 1], st.opts[0, 2] = i, use, x
        return 1, v
    return k, best


@jit(inline="llvm", nrt=False, internal=True)
def _options(cf, st, p, kind, prm, score):
    """The fixed option list (§4.7), per card in hand: face up, start a battle at each row
    end, join each open battle, slay in each region where it can. ``score`` false: the list
    into ``st.opts``, returns its length. ``score`` true (values from ``_prize_value`` and
    ``_card_values``): the best option into ``st.opts[0]`` (giant_hunter: the first slay),
    returns 1."""
    n = st.settlers.shape[0]
    nc = 0                                       # regions where some card could slay
    if kind != PolicyKind.NO_GIANTS and _allowed(prm, EL_SLAY):
        for r in range(cf.rune.shape[0]):         # written always, kept when it counts
            st.cand[nc] = r
            nc += (st.has_giant[r] != 0) & (st.settlers[p, r] >= SLAY_SETTLERS_EINHERJAR)
    joinable = 0                                 # bit s: seat s's open battle
    can_join = _allowed(prm, EL_JOIN)
    for s in range(n):
        ok = (s != p) & (st.bt[s, BT_OPEN] == 1) & can_join
        for j in range(st.bt[s, BT_N]):
            ok &= st.ent[s, j, 0] != p           # not joined yet
        joinable |= ok << s
        if score and ok:                         # its prize (fvals 4 + s)
            st.fvals[4 + s] = _prize_value(cf, st, p, prm, st.bt[s, BT_PRIZE])
    can_start = (st.bt[p, BT_OPEN] == 0) & _allowed(prm, EL_START)
    if score and can_start:                      # each row end's prize (fvals 0..3)
        for x in range(4):
            row, end = x // 2, x % 2
            nrow = st.sc[SC_NROW0 + row]
            if nrow > 0:
                prize = st.rows[row, 0] if end == 0 else st.rows[row, nrow - 1]
                st.fvals[x] = _prize_value(cf, st, p, prm, prize)
    hunter = score and kind == PolicyKind.GIANT_HUNTER
    k, best = 0, -1e300
    face, pw, lose, afford = 0.0, 0.0, 0.0, False   # (score) the card's ``_card_values``
    for i in range(st.nhand[p]):
        card = st.hand[p, i]
        if score:
            face, pw, lose, afford = _card_values(cf, st, p, card, prm)
        k, best = _offer(st, k, best, score, face, i, FACE_UP, 0)
        if not _card_allowed(cf, prm, card):
            continue                             # restricted play: face up, no actions
        if can_start:
            for row in range(2):
                if st.sc[SC_NROW0 + row] > 0:
                    for end in range(2):
                        x = 2 * row + end
                        v = _battle_value(pw, lose, afford, st.fvals[x]) if score else 0.0
                        k, best = _offer(st, k, best, score, v, i, START, x)
        for t in range(1, n):                    # starters clockwise from p (§4.7)
            s = p + t if p + t < n else p + t - n
            if (joinable >> s) & 1:
                v = _battle_value(pw, lose, afford, st.fvals[4 + s]) if score else 0.0
                k, best = _offer(st, k, best, score, v, i, JOIN, s)
        for t in range(nc):
            r = st.cand[t]
            if _can_slay(cf, st, p, card, r):
                if hunter:
                    st.opts[0, 0], st.opts[0, 1], st.opts[0, 2] = i, SLAY, r
                    return 1
                v = _slay_value(cf, st, p, card, prm) if score else 0.0
                k, best = _offer(st, k, best, score, v, i, SLAY, r)
    return k


@jit(inline="always", nrt=False, internal=True)
def _choose(cf, st, p, kind, prm, pol_rng):
    """§4.5: random_legal uniform over the option list; giant_hunter the first slay; else the
    best value (first on ties). Returns the option's row in ``st.opts``. One call site of
    ``_options`` with a run-time ``score``: two constant ones compiled it twice."""
    score = kind != PolicyKind.RANDOM_LEGAL
    if score:
        _turn_cache(cf, st, p)
    k = _options(cf, st, p, kind, prm, score)
    return 0 if score else _rand(pol_rng, k)


# ------------------------------------------------------------------ draft (§2.1, §4.7)

@jit(inline="llvm", nrt=False, internal=True)
def _draw_card(st, dice_rng):
    card, nd, nc = _draw(st.deck, st.sc[SC_NDECK], st.disc, st.sc[SC_NDISC], dice_rng)
    st.sc[SC_NDECK], st.sc[SC_NDISC] = nd, nc
    return card


@jit(inline="llvm", nrt=False, internal=True)
def _discard(st, card):
    st.disc[st.sc[SC_NDISC]] = card
    st.sc[SC_NDISC] += 1


@jit(inline="llvm", nrt=False, internal=True)
def _pick(cf, st, p, a, kind, prm, pol_rng):
    """§4.7: seat p picks from pack a: random_legal uniform, else the strongest card (a
    Valkyrie or Einherjar card: + special_bonus), first on ties."""
    m, ok = st.npack[a], st.npack[a]             # ok: cards not forbidden (restricted play)
    if prm[Param.FORBID] != 0.0:
        ok = 0
        for j in range(m):
            ok += _card_allowed(cf, prm, st.pack[a, j])
    if kind == PolicyKind.RANDOM_LEGAL:
        if ok == m or ok == 0:
            return _rand(pol_rng, m)
        t = _rand(pol_rng, ok)                   # the t-th allowed card
        for j in range(m):
            if _card_allowed(cf, prm, st.pack[a, j]):
                if t == 0:
                    return j
                t -= 1
    best, best_j = -1e300, 0
    for j in range(m):
        c = st.pack[a, j]
        if ok < m and ok > 0 and not _card_allowed(cf, prm, c):
            continue                             # a forbidden kind only when forced
        v = _strength(cf, st, p, c) + prm[Param.SPECIAL_BONUS] * (cf.cards[c, CARD_KIND]
                                                                 != CardKind.BASE)
        if v > best:
            best, best_j = v, j
    return best_j


@jit(inline="llvm", nrt=False, internal=True)
def _hand_size(cf, st):
    """§4.3: the Era's hand size (params ``economy.draft_size``, Era 1 4 PUBLIC)."""
    return cf.ri[S.DRAFT_ERA1 + st.sc[SC_ERA]]


@jit(nrt=False, internal=True)
def _draft(cf, st, kinds, params, dice_rng, pol_rng):
    """§2.1, §4.7: hands dealt and picked seat by seat from the first player (first_seat)
    clockwise, so the seat numbers mean nothing but the table's order."""
    n, k, first = st.settlers.shape[0], _hand_size(cf, st), cf.ri[S.FIRST_SEAT]
    for i in range(n):
        p = first + i if first + i < n else first + i - n
        for j in range(k):
            st.pack[p, j] = _draw_card(st, dice_rng)
        st.npack[p] = k
    for rnd in range(k):
        shift = rnd % n                          # packs pass to the left: after rnd passes
        for i in range(n):
            p = first + i if first + i < n else first + i - n
            a = p - shift if p >= shift else p - shift + n          # p holds seat p-rnd's
            j = _pick(cf, st, p, a, kinds[p], params[p], pol_rng)
            kind = cf.cards[st.pack[a, j], CARD_KIND]
            if kind != CardKind.BASE and st.sc[SC_COUNT]:
                st.pl[p, PL_EL0 + 3 * (EL_CARD0 + kind) + EL_DRAFTED] += 1
            st.hand[p, st.nhand[p]] = st.pack[a, j]
            st.nhand[p] += 1
            for t in range(j, st.npack[a] - 1):
                st.pack[a, t] = st.pack[a, t + 1]
            st.npack[a] -= 1


# ------------------------------------------------------------------ leader actions

@jit(nrt=False, internal=True)
def _sail(cf, st, p, f):
    """§2.3, §3.2: a Boat to the first dock serving f (mat first), Settlers at 1 Food each."""
    dock = 0
    for d in range(cf.dock.shape[0]):
        if _serves(cf, d, f):
            dock = d
            break
    moored = 0
    for d in range(cf.dock.shape[0]):
        moored += st.boats[p, d]
    if moored >= cf.ri[S.BOATS]:
        for d in range(cf.dock.shape[0]):
            if st.boats[p, d] > 0:
                _add_boats(cf, st, p, d, -1)
                break
    _add_boats(cf, st, p, dock, 1)
    k = min(cf.ri[S.SAIL], st.res[p, FOOD], st.mat[p, MAT_SETTLERS])
    st.res[p, FOOD] -= k
    _add_settlers(st, p, f, k)
    st.mat[p, MAT_SETTLERS] -= k
    if k > 0 and cf.ri[S.ATTACK_AFTER_DEPLOY]:   # §2.3 PUBLIC: "After adding Settlers ..."
        _attack_in(st, p, f)


@jit(nrt=False, internal=True)
def _harvest(cf, st, p):
    """§2.3, §3.6: the scarcest kind, plus each deployed Valkyrie's bonus."""
    kind = 0
    for h in range(1, 3):
        if st.res[p, h] < st.res[p, kind]:
            kind = h
    _gain(cf, st, p, kind, cf.ri[S.HARVEST])
    for g in range(N_VALKYRIES):
        if st.valk[p, g] >= 0:
            _gain(cf, st, p, cf.rune_res[g], cf.ri[S.VALK_BONUS])


@jit(nrt=False, internal=True)
def _carry(cf, st, p, f):
    """§3.6 SEED: a neighbouring Valkyrie flies to f carrying a Settler (1 Food) or else a
    Temple (3 Steel; §3.4 SEED not into a Giant's region). False when none can carry."""
    for g in range(N_VALKYRIES):
        a = st.valk[p, g]
        if a < 0 or not _adjacent(cf, f, a):
            continue
        if st.settlers[p, a] > 0 and st.res[p, FOOD] >= CARRY_SETTLER_FOOD:
            st.res[p, FOOD] -= CARRY_SETTLER_FOOD
            _add_settlers(st, p, a, -1)
            _add_settlers(st, p, f, 1)
        elif (st.temples[p, a] > 0 and st.res[p, STEEL] >= CARRY_TEMPLE_STEEL
              and st.has_giant[f] == 0):
            st.res[p, STEEL] -= CARRY_TEMPLE_STEEL
            _add_temples(st, p, a, -1)
            _add_temples(st, p, f, 1)
        else:
            continue
        _set_valkyrie(st, p, g, f)
        return True
    return False


@jit(inline="llvm", nrt=False, internal=True)
def _explore(cf, st, p, f):
    """§2.3, §3.2, §3.6 into f, the first that applies: a Valkyrie carrying; a neighbour's
    Settler; a neighbouring Valkyrie alone; a neighbour's Temple unless a Giant is in f."""
    if _carry(cf, st, p, f):
        return
    for j in range(MAX_DEGREE):
        a = cf.adj[f, j]
        if a >= 0 and st.settlers[p, a] > 0:
            _add_settlers(st, p, a, -1)
            _add_settlers(st, p, f, 1)
            return
    for g in range(N_VALKYRIES):
        a = st.valk[p, g]
        if a >= 0 and _adjacent(cf, f, a):
            _set_valkyrie(st, p, g, f)
            return
    if st.has_giant[f] == 0:
        for j in range(MAX_DEGREE):
            a = cf.adj[f, j]
            if a >= 0 and st.temples[p, a] > 0:
                _add_temples(st, p, a, -1)
                _add_temples(st, p, f, 1)
                return


@jit(nrt=False, internal=True)
def _built(cf, st, p):
    n = 0
    for r in range(cf.rune.shape[0]):
        n += st.temples[p, r]
    return n


@jit(nrt=False, internal=True)
def _build(cf, st, p, f):
    """§2.3, §3.4 SEED: a Temple by a Settler where no Giant stands (f first)."""
    if _built(cf, st, p) >= cf.ri[S.TEMPLES] or st.res[p, WOOD] < cf.ri[S.TEMPLE_WOOD]:
        return
    R = cf.rune.shape[0]
    for t in range(R + 1):
        r = f if t == 0 else t - 1
        if st.settlers[p, r] > 0 and st.has_giant[r] == 0:
            st.res[p, WOOD] -= cf.ri[S.TEMPLE_WOOD]
            _add_temples(st, p, r, 1)
            return


@jit(inline="llvm", nrt=False, internal=True)
def _leader(cf, st, p, card, f):
    act = cf.cards[card, CARD_LEADER]
    if act == Leader.SAIL:
        _sail(cf, st, p, f)
    elif act == Leader.HARVEST:
        _harvest(cf, st, p)
    elif act == Leader.EXPLORE:
        _explore(cf, st, p, f)
    else:
        _build(cf, st, p, f)


# ------------------------------------------------------------------ rune actions

@jit(nrt=False, internal=True)
def _smite(cf, st, p, f):
    """§2.3, §3.6: one rival Settler (never a Valkyrie), f first; the rival with most there,
    ties to the first clockwise from p (§4.7: no seat number decides)."""
    n, R = st.settlers.shape[0], cf.rune.shape[0]
    for t in range(R + 1):
        r = f if t == 0 else t - 1
        best, best_q = 0, -1
        for i in range(1, n):
            q = p + i if p + i < n else p + i - n
            if st.settlers[q, r] > best:
                best, best_q = st.settlers[q, r], q
        if best_q >= 0:
            _add_settlers(st, best_q, r, -1)
            st.mat[best_q, MAT_SETTLERS] += 1
            return


@jit(nrt=False, internal=True)
def _attack_in(st, p, r):
    """§2.3, §3.6 Attack Settlers in r: when p's Settlers outnumber every rival's (Valkyries
    never count) and a rival has one, each rival there loses one. True when it happened."""
    n = st.settlers.shape[0]
    if st.settlers[p, r] < 2:                    # 1 Settler cannot outnumber a rival's one
        return False
    any_rival, ok = False, True
    for q in range(n):
        if q != p:
            if st.settlers[q, r] > 0:
                any_rival = True
            if st.settlers[p, r] <= st.settlers[q, r]:
                ok = False
    if not (any_rival and ok):
        return False
    for q in range(n):
        if q != p and st.settlers[q, r] > 0:
            _add_settlers(st, q, r, -1)
            st.mat[q, MAT_SETTLERS] += 1
    return True


@jit(nrt=False, internal=True)
def _attack(cf, st, p, f):
    """The Attack Settlers Rune action (§4.7): in the first region where it applies, f first."""
    R = cf.rune.shape[0]
    for t in range(R + 1):
        r = f if t == 0 else t - 1
        if _attack_in(st, p, r):
            return


@jit(nrt=False, internal=True)
def _raid(cf, st, p, f, free):
    """§2.3 by a moored Boat for the Era's Steel; §3.5 SEED free where a unit stands."""
    cost = 0 if free else cf.raid_cost[st.sc[SC_ERA]]
    if st.res[p, STEEL] < cost:
        return
    R = cf.rune.shape[0]
    served = 0                                   # bit r: a moored Boat of p serves r
    for d in range(cf.dock.shape[0]):
        if st.boats[p, d] > 0:
            served |= 1 << cf.dock[d, 0]
            if cf.dock[d, 1] >= 0:
                served |= 1 << cf.dock[d, 1]
    for t in range(R + 1):
        r = f if t == 0 else t - 1
        if st.vill[r] == 0:
            continue
        if (st.gr[p, r] > 0) if free else ((served >> r) & 1) == 1:
            st.res[p, STEEL] -= cost
            st.vill[r] -= 1
            st.pl[p, PL_VILLAGES] += 1
            return


@jit(nrt=False, internal=True)
def _exchange(cf, st, p):
    hi, lo = 0, 0
    for h in range(1, 3):
        if st.res[p, h] > st.res[p, hi]:
            hi = h
        if st.res[p, h] < st.res[p, lo]:
            lo = h
    if hi == lo:
        return
    k = min(cf.ri[S.EXCHANGE], st.res[p, hi])
    st.res[p, hi] -= k
    _gain(cf, st, p, lo, k)


@jit(nrt=False, internal=True)
def _move_giant_between(st, a, b):
    st.giant[b], st.has_giant[b] = st.giant[a], 1
    st.giant[a], st.has_giant[a] = 0, 0


@jit(nrt=False, internal=True)
def _move_giant(cf, st, p, f, prm):
    """§3.5 SEED to a neighbour without a Giant: hunters pull one into f, others push f's out."""
    if prm[Param.GIANT_WEIGHT] > 0:
        if st.has_giant[f]:
            return
        for j in range(MAX_DEGREE):
            a = cf.adj[f, j]
            if a >= 0 and st.has_giant[a]:
                _move_giant_between(st, a, f)
                return
    elif st.has_giant[f]:
        for j in range(MAX_DEGREE):
            a = cf.adj[f, j]
            if a >= 0 and st.has_giant[a] == 0:
                _move_giant_between(st, f, a)
                return


@jit(inline="llvm", nrt=False, internal=True)
def _rune_action(cf, st, p, card, f, prm):
    act = cf.cards[card, CARD_RUNEACT]
    if act == RuneAct.SMITE:
        _smite(cf, st, p, f)
    elif act == RuneAct.ATTACK:
        _attack(cf, st, p, f)
    elif act == RuneAct.RAID:
        _raid(cf, st, p, f, False)
    elif act == RuneAct.EXCHANGE:
        _exchange(cf, st, p)
    elif act == RuneAct.MOVE_GIANT:
        _move_giant(cf, st, p, f, prm)
    else:
        _raid(cf, st, p, f, True)


@jit(inline="llvm", nrt=False, internal=True)
def _face_up(cf, st, p, card, kind, prm, pol_rng):
    """§2.3: the Leader action, then the Rune action when open, both at the focus region
    (random_legal draws it always; a scored policy works it out only when an action uses it:
    all but Harvest and Exchange)."""
    ok = _face_up_ok(cf, st, p, card) and _card_allowed(cf, prm, card)
    ok_rune = ok and _runes_enough(cf, st, p, card)
    f = 0
    if kind == PolicyKind.RANDOM_LEGAL or (ok and (
            cf.cards[card, CARD_LEADER] != Leader.HARVEST
            or (ok_rune and cf.cards[card, CARD_RUNEACT] != RuneAct.EXCHANGE))):
        f = _focus(cf, st, p, kind, prm, pol_rng)
    if ok:
        _take_card(cf, st, p, card)
        e = EL_LEADER0 + cf.cards[card, CARD_LEADER]
        if _allowed(prm, e):                     # the actions are optional (PUBLIC)
            _take(st, p, e)
            _leader(cf, st, p, card, f)
            _update_control(cf, st)
        e = EL_RUNE0 + cf.cards[card, CARD_RUNEACT]
        if ok_rune and _allowed(prm, e):
            _take(st, p, e)
            _rune_action(cf, st, p, card, f, prm)
            _update_control(cf, st)
    _discard(st, card)


@jit(nrt=False, internal=True)
def _slay(cf, st, p, card, r, kind, pol_rng):
    """§3.3 SEED: sacrifice, take the hidden Giant, +1 Fury to the card's god, no Boon."""
    need = _slay_need(cf, card)
    _add_settlers(st, p, r, -need)
    st.mat[p, MAT_SETTLERS] += need
    st.pl[p, PL_SLAIN_N] += 1
    st.pl[p, PL_SLAIN_SUM] += st.giant[r]
    st.giant[r], st.has_giant[r] = 0, 0
    g = cf.cards[card, CARD_RUNE]
    if g == JOKER:
        if kind == PolicyKind.RANDOM_LEGAL:
            g = _rand(pol_rng, N_RUNES)
        else:
            g = _best_fury_rune(cf, st, p)
    _add_fury(st, g, 1)
    st.pl[p, PL_ERA0 + st.sc[SC_ERA]] += 1
    _take(st, p, EL_SLAY)
    _take_card(cf, st, p, card)
    if st.sc[SC_FIRST_SLAYER] < 0:
        st.sc[SC_FIRST_SLAYER] = p
    _discard(st, card)
    _update_control(cf, st)


# ------------------------------------------------------------------ battles (§2.5, §3.5)

@jit(nrt=False, internal=True)
def _return_prize(st, row, end, f):
    n = st.sc[SC_NROW0 + row]
    if end == 0:
        for t in range(n, 0, -1):
            st.rows[row, t] = st.rows[row, t - 1]
        st.rows[row, 0] = f
    else:
        st.rows[row, n] = f
    st.sc[SC_NROW0 + row] = n + 1


@jit(nrt=False, internal=True)
def _take_prize(st, row, end):
    n = st.sc[SC_NROW0 + row]
    if end == 0:
        f = st.rows[row, 0]
        for t in range(n - 1):
            st.rows[row, t] = st.rows[row, t + 1]
    else:
        f = st.rows[row, n - 1]
    st.sc[SC_NROW0 + row] = n - 1
    return f


@jit(nrt=False, internal=True)
def _win(cf, st, p, s):
    """§2.5: keep the Favor card (a 4th sends the least valuable back), collect the bag."""
    prize = st.bt[s, BT_PRIZE]
    st.pl[p, PL_WON] += 1
    st.fav[p, st.nfav[p]] = prize
    st.nfav[p] += 1
    if st.nfav[p] > MAX_FAVOR_HELD:
        lo, lo_i = 1 << 30, 0
        for i in range(st.nfav[p]):
            x = cf.favor[_rank_index(st.fury[0], cf.favor_rune[st.fav[p, i]])]
            if x < lo:
                lo, lo_i = x, i
        back = st.fav[p, lo_i]
        for i in range(lo_i, st.nfav[p] - 1):
            st.fav[p, i] = st.fav[p, i + 1]
        st.nfav[p] -= 1
        _return_prize(st, st.bt[s, BT_ROW], st.bt[s, BT_END], back)
    if st.nfav[p] > st.sc[SC_FAVOR_MAX]:
        st.sc[SC_FAVOR_MAX] = st.nfav[p]
    _gain(cf, st, p, cf.rune_res[cf.favor_rune[prize]], cf.ri[S.FAVOR_BAG])


@jit(inline="llvm", nrt=False, internal=True)
def _lose(cf, st, p, card, kind, prm, pol_rng):
    """§2.5 Boon and +1 Fury of the card's god (Joker: one chosen Rune, §3.5); §3.6 SEED the
    Valkyrie of that Rune, if on the mat, is deployed."""
    st.pl[p, PL_LOST] += 1
    if st.sc[SC_FIRST_LOSER] < 0:
        st.sc[SC_FIRST_LOSER] = p
    g = cf.cards[card, CARD_RUNE]
    if g == JOKER:
        if kind == PolicyKind.RANDOM_LEGAL:
            g = _rand(pol_rng, N_RUNES)
        else:
            g = -1
            for h in range(N_RUNES):
                if st.valk[p, h] < 0:
                    g = h
                    break
            if g < 0:
                g = _best_fury_rune(cf, st, p)
    _gain(cf, st, p, cf.rune_res[g], cf.ri[S.BOON])
    _add_fury(st, g, 1)
    if st.valk[p, g] < 0 and _allowed(prm, EL_DEPLOY):        # SEED: "you may also choose"
        _take(st, p, EL_DEPLOY)
        if kind == PolicyKind.RANDOM_LEGAL:
            r = _rand(pol_rng, cf.rune.shape[0])
        else:
            r = _focus(cf, st, p, kind, prm, pol_rng)
        _set_valkyrie(st, p, g, r)
        st.mat[p, MAT_VALK] -= 1
        _update_control(cf, st)


@jit(nrt=False, internal=True)
def _invader_strength(cf, st, inv):
    """§2.5 the Invaders' card: its Strength (a Valkyrie or Einherjar card: the parameter)
    plus invader_growth per earlier Invader card of the Era (assumption)."""
    if cf.cards[inv, CARD_KIND] == CardKind.BASE:
        si = cf.cards[inv, CARD_STRENGTH]
    else:
        si = cf.ri[S.INVADER_SPECIAL]
    return si + cf.ri[S.INVADER_GROWTH] * st.sc[SC_INVADERS]


@jit(nrt=False, internal=True)
def _pay_fighters(cf, st, s):
    """§2.5: each entry pays its Steel or takes no part; Strength at resolution (§6.2; in
    this model it always equals the Strength at play, §4.7). Fighters into ``st.fig``."""
    nf = 0
    for j in range(st.bt[s, BT_N]):
        p, card = st.ent[s, j, 0], st.ent[s, j, 1]
        cost = cf.cards[card, CARD_COST]
        if st.res[p, STEEL] >= cost:
            st.res[p, STEEL] -= cost
            x = _strength(cf, st, p, card)           # §6.2 DEFAULT: counted at resolution
            st.fig[nf, 0], st.fig[nf, 1], st.fig[nf, 2] = p, card, x
            nf += 1
            kind = cf.cards[card, CARD_KIND]
            if kind != CardKind.BASE:
                st.special[st.sc[SC_ERA], kind - 1, 0] += 1
                st.special[st.sc[SC_ERA], kind - 1, 1] += x
    return nf


@jit(inline="llvm", nrt=False, internal=True)
def _resolve(cf, st, s, kinds, params, dice_rng, pol_rng):
    """§2.5: highest Strength wins, ties lose, a lone fighter meets the Invaders."""
    st.bt[s, BT_OPEN] = 0
    nf = _pay_fighters(cf, st, s)
    win_j, lose_all = -1, False
    if nf == 1:
        inv = _draw_card(st, dice_rng)
        si = _invader_strength(cf, st, inv)
        st.sc[SC_INVADERS] += 1
        _discard(st, inv)
        if st.fig[0, 2] > si:
            win_j = 0
            _win(cf, st, st.fig[0, 0], s)
            if cf.cards[inv, CARD_RUNE] != JOKER:
                _add_fury(st, cf.cards[inv, CARD_RUNE], 1)
        else:
            lose_all = True
    elif nf >= 2:
        top, n_top = -1, 0
        for j in range(nf):
            if st.fig[j, 2] > top:
                top, n_top, win_j = st.fig[j, 2], 1, j
            elif st.fig[j, 2] == top:
                n_top += 1
        if n_top == 1:
            _win(cf, st, st.fig[win_j, 0], s)
        else:
            win_j, lose_all = -1, True
    if win_j < 0:
        _return_prize(st, st.bt[s, BT_ROW], st.bt[s, BT_END], st.bt[s, BT_PRIZE])
    if win_j >= 0 or lose_all:
        for j in range(nf):
            if j != win_j:
                p = st.fig[j, 0]
                _lose(cf, st, p, st.fig[j, 1], kinds[p], params[p], pol_rng)
    for j in range(st.bt[s, BT_N]):
        _discard(st, st.ent[s, j, 1])
    _update_control(cf, st)


@jit(nrt=False, internal=True)
def _start(cf, st, p, card, code):
    row, end = code // 2, code % 2
    st.bt[p, BT_PRIZE] = _take_prize(st, row, end)
    st.bt[p, BT_OPEN], st.bt[p, BT_ROW], st.bt[p, BT_END], st.bt[p, BT_N] = 1, row, end, 1
    st.ent[p, 0, 0], st.ent[p, 0, 1], st.ent[p, 0, 2] = p, card, _strength(cf, st, p, card)
    _take(st, p, EL_START)
    _take_card(cf, st, p, card)


@jit(nrt=False, internal=True)
def _join(cf, st, p, card, s):
    j = st.bt[s, BT_N]
    st.ent[s, j, 0], st.ent[s, j, 1], st.ent[s, j, 2] = p, card, _strength(cf, st, p, card)
    st.bt[s, BT_N] = j + 1
    _take(st, p, EL_JOIN)
    _take_card(cf, st, p, card)


# ------------------------------------------------------------------ turns, Eras, game

@jit(inline="always", nrt=False, internal=True)
def _play_card(cf, st, p, kinds, params, pol_rng):
    """§2.3, §3.3, §2.5: p plays the card of the chosen option."""
    kind, prm = kinds[p], params[p]
    j = _choose(cf, st, p, kind, prm, pol_rng)
    _carry_out(cf, st, p, kind, prm, st.opts[j, 0], st.opts[j, 1], st.opts[j, 2], pol_rng)


@jit(inline="always", nrt=False, internal=True)
def _carry_out(cf, st, p, kind, prm, i, use, x, pol_rng):
    """p plays hand card i as ``use`` (x: the row end, starter or region): one option of
    ``_options`` (the forward model's ``apply`` calls it too, ``forward.py``)."""
    card = st.hand[p, i]
    for t in range(i, st.nhand[p] - 1):
        st.hand[p, t] = st.hand[p, t + 1]
    st.nhand[p] -= 1
    if use == FACE_UP:
        _face_up(cf, st, p, card, kind, prm, pol_rng)
    elif use == START:
        _start(cf, st, p, card, x)
    elif use == JOIN:
        _join(cf, st, p, card, x)
    else:
        _slay(cf, st, p, card, x, kind, pol_rng)


@jit(nrt=False, internal=True)
def _cleanup(cf, st):
    """§3.4 SEED: each Giant on the board drains 1 Fury of its region's god (not below 0);
    after Era 3 only with ``last_era_drain`` (PUBLIC: the game ends there, no Cleanup)."""
    last = st.sc[SC_ERA] == N_ERAS - 1
    if cf.ri[S.GIANT_DRAIN] and (cf.ri[S.LAST_ERA_DRAIN] or not last):
        for r in range(cf.rune.shape[0]):
            if st.has_giant[r]:
                g = cf.rune[r]
                st.fury[0, g] = max(0, st.fury[0, g] - 1)
                if st.fury[0, g] < st.sc[SC_FURY_MIN]:
                    st.sc[SC_FURY_MIN] = st.fury[0, g]


@jit(inline="always", nrt=False, internal=True)
def _play_era(cf, st, kinds, params, dice_rng, pol_rng):
    n = st.settlers.shape[0]
    st.sc[SC_INVADERS] = 0
    _draft(cf, st, kinds, params, dice_rng, pol_rng)
    first = st.sc[SC_OPENER]                     # §4.7 the Chieftain marker's holder
    st.sc[SC_OPENED0 + st.sc[SC_ERA]] = first
    turns = _hand_size(cf, st) * n               # a multiple of n: the end pass starts at first
    s = first - 1
    for t in range(turns + n):                   # one loop: ``_resolve`` compiled once
        s = 0 if s == n - 1 else s + 1           # seat (first + t) % n
        _own_battle(cf, st, s, t < turns, kinds, params, dice_rng, pol_rng)
        if t < turns:
            _play_card(cf, st, s, kinds, params, pol_rng)
    _cleanup(cf, st)
    st.sc[SC_OPENER] = _next_opener(cf, st, first)


@jit(inline="always", nrt=False, internal=True)
def _own_battle(cf, st, s, in_turns, kinds, params, dice_rng, pol_rng):
    """§2.5: seat s's own open battle resolves at the start of its turn; one still open at
    the Era's end (``in_turns`` false) resolves or returns its prize (``last_battles``, §4.7)."""
    if st.bt[s, BT_OPEN]:
        if in_turns or cf.ri[S.LAST_BATTLES_RESOLVE]:
            _resolve(cf, st, s, kinds, params, dice_rng, pol_rng)
        else:
            st.bt[s, BT_OPEN] = 0
            _return_prize(st, st.bt[s, BT_ROW], st.bt[s, BT_END], st.bt[s, BT_PRIZE])
            for j in range(st.bt[s, BT_N]):
                _discard(st, st.ent[s, j, 1])


@jit(nrt=False, internal=True)
def _next_opener(cf, st, first):
    """§4.7 who holds the Chieftain marker next Era (first: this Era's). most_runes (PUBLIC):
    the most Island Runes, ties to the tied player latest in this Era's turn order; rotate:
    the next seat clockwise."""
    n = st.settlers.shape[0]
    if cf.ri[S.OPENER_MOST_RUNES] == 0:
        return first + 1 if first + 1 < n else 0
    _update_control(cf, st)
    best, best_s = -1, first
    for i in range(n):                           # this Era's turn order; >=: the latest tied
        s = first + i if first + i < n else first + i - n
        k = st.held[s, 0] + st.held[s, 1] + st.held[s, 2]
        if k >= best:
            best, best_s = k, s
    return best_s


@jit(nrt=False, internal=True)
def _reset(cf, st):
    _moved(st)
    n, R = st.settlers.shape[0], cf.rune.shape[0]
    for p in range(n):
        for r in range(R):
            st.settlers[p, r] = 0
            st.temples[p, r] = 0
            st.infl[p, r] = 0
            st.gr[p, r] = 0
        for d in range(cf.dock.shape[0]):
            st.boats[p, d] = 0
        for g in range(N_VALKYRIES):
            st.valk[p, g] = -1
        for h in range(3):
            st.res[p, h] = cf.start_res[h]
        for t in range(PL_EL0 if cf.ri[S.COUNT_ELEMENTS] == 0 else N_PL):
            st.pl[p, t] = 0                      # the element counters stay 0 uncounted
        for h in range(N_RUNES):
            st.held[p, h] = 0
        st.mat[p, MAT_SETTLERS] = cf.ri[S.SETTLERS]
        st.mat[p, MAT_VALK] = N_VALKYRIES
        st.nfav[p], st.nhand[p], st.npack[p] = 0, 0, 0
        for t in range(N_BT):
            st.bt[p, t] = 0
    for r in range(R):
        st.control[r] = -1
        st.vill[r] = cf.villages[r]
    for h in range(N_RUNES):
        st.fury[0, h], st.fury[1, h] = 0, 0
    st.special[:, :, :] = 0
    st.sc[SC_FIRST_SLAYER], st.sc[SC_FIRST_LOSER] = -1, -1
    st.sc[SC_ERA], st.sc[SC_FURY_MIN], st.sc[SC_FAVOR_MAX] = 0, 0, 0
    st.sc[SC_OPENER] = cf.ri[S.FIRST_SEAT]
    st.sc[SC_COUNT] = cf.ri[S.COUNT_ELEMENTS]
    m = 0
    for h in range(3):
        m = max(m, cf.start_res[h])
    st.sc[SC_RES_MAX] = m


@jit(nrt=False, internal=True)
def _setup_game(cf, st, dice_rng):
    """§4.8 draw order: shuffle the deck, then the Giants (face down, one per region), then the
    Favor cards (two rows); start Settlers (§4.7) and the first control check."""
    _reset(cf, st)
    C = cf.cards.shape[0]
    for i in range(C):
        st.deck[i] = i
    _shuffle(st.deck, C, dice_rng)
    st.sc[SC_NDECK], st.sc[SC_NDISC] = C, 0
    for i in range(N_GIANTS):
        st.tokens[i] = i
    _shuffle(st.tokens, N_GIANTS, dice_rng)
    R = cf.rune.shape[0]
    for r in range(R):
        st.giant[r] = cf.giants[st.tokens[r]]
        st.has_giant[r] = 1
    F = cf.favor_rune.shape[0]
    for i in range(F):
        st.fdeck[i] = i
    _shuffle(st.fdeck, F, dice_rng)
    half = F // 2
    for i in range(half):
        st.rows[0, i] = st.fdeck[i]
    for i in range(F - half):
        st.rows[1, i] = st.fdeck[half + i]
    st.sc[SC_NROW0], st.sc[SC_NROW1] = half, F - half
    n, first = st.settlers.shape[0], cf.ri[S.FIRST_SEAT]
    for p in range(n):
        k = p - first if p >= first else p - first + n      # turn position (§4.7)
        r = cf.start_reg[k] if cf.start_reg[0] >= 0 else k * R // n
        _add_settlers(st, p, r, cf.ri[S.START_ON_BOARD])
        st.mat[p, MAT_SETTLERS] -= cf.ri[S.START_ON_BOARD]
    _update_control(cf, st)


@jit(nrt=False, internal=True)
def _score(cf, st, p):
    """§2.6 Rune points, §3.7 SEED Giant points, Villages."""
    return (_rune_points(cf, st, p, st.fury[0]) + st.pl[p, PL_SLAIN_SUM]
            + cf.ri[S.VILLAGE_VP] * st.pl[p, PL_VILLAGES])


@jit(inline="llvm", nrt=False, internal=True)
def _islands(cf, st, p):
    k = 0
    for r in range(cf.rune.shape[0]):
        if st.control[r] == p:
            k += 1
    return k


@jit(inline="llvm", nrt=False, internal=True)
def _sum_row(a, p):
    t = 0
    for j in range(a.shape[1]):
        t += a[p, j]
    return t


@jit(nrt=False, internal=True)
def _final_keys(cf, st):
    """Each seat's §2.6 ranking keys, once, into ``st.keys`` (``KEY_*``)."""
    for p in range(st.settlers.shape[0]):
        st.keys[p, KEY_SCORE] = _score(cf, st, p)
        st.keys[p, KEY_ISLANDS] = _islands(cf, st, p)
        st.keys[p, KEY_FAVORS] = st.nfav[p]
        st.keys[p, KEY_TEMPLES] = _sum_row(st.temples, p)
        st.keys[p, KEY_BOATS] = _sum_row(st.boats, p)
        st.keys[p, KEY_RESOURCES] = _sum_row(st.res, p)


@jit(inline="llvm", nrt=False, internal=True)
def _beats(cf, st, p, q):
    """§2.6 tie-breakers (``_final_keys`` first): score, Island Runes, Favor cards, Temples,
    Boats, resources; then the earlier in turn order from the first player (first_seat,
    assumption). True when p ranks above q."""
    for t in range(N_KEYS):
        if st.keys[p, t] != st.keys[q, t]:
            return st.keys[p, t] > st.keys[q, t]
    return _position(cf, st, p) < _position(cf, st, q)


@jit(inline="llvm", nrt=False, internal=True)
def _position(cf, st, p):
    """Turn position of seat p from the first player (0 = first_seat)."""
    n, first = st.settlers.shape[0], cf.ri[S.FIRST_SEAT]
    return p - first if p >= first else p - first + n


@jit(inline="always", nrt=False, internal=True)
def _play_game(cf, st, kinds, params, dice_rng, pol_rng):
    _setup_game(cf, st, dice_rng)
    for e in range(N_ERAS):
        st.sc[SC_ERA] = e
        _play_era(cf, st, kinds, params, dice_rng, pol_rng)
    return _winner(cf, st)


@jit(nrt=False, internal=True)
def _winner(cf, st):
    """§2.6 the winner: the seat that ranks above every other (``_beats``)."""
    _final_keys(cf, st)
    w = 0
    for p in range(1, st.settlers.shape[0]):
        if _beats(cf, st, p, w):
            w = p
    return w


@jit(nrt=False, internal=True)
def _record(cf, st, g, w, o):
    """Game g's row of ``o`` (after ``_play_game``, which fills ``st.keys``)."""
    o.winner[g] = w
    for p in range(st.settlers.shape[0]):
        o.score[g, p] = st.keys[p, KEY_SCORE]
        o.giant_points[g, p] = st.pl[p, PL_SLAIN_SUM]
        o.slays[g, p] = st.pl[p, PL_SLAIN_N]
        for e in range(N_ERAS):
            o.slays_era[g, p, e] = st.pl[p, PL_ERA0 + e]
        o.lost_battles[g, p] = st.pl[p, PL_LOST]
        o.won_battles[g, p] = st.pl[p, PL_WON]
        o.valkyries[g, p] = _deployed_count(st, p)
        o.islands[g, p] = st.keys[p, KEY_ISLANDS]
        o.favors[g, p] = st.nfav[p]
        o.villages[g, p] = st.pl[p, PL_VILLAGES]
        o.temples[g, p] = st.keys[p, KEY_TEMPLES]
        o.boats[g, p] = st.keys[p, KEY_BOATS]
        o.resources[g, p] = st.keys[p, KEY_RESOURCES]
        o.settlers[g, p] = _sum_row(st.settlers, p)
        o.settlers_mat[g, p] = st.mat[p, MAT_SETTLERS]
        o.valkyries_mat[g, p] = st.mat[p, MAT_VALK]
        for e in range(N_EL if st.sc[SC_COUNT] else 0):
            o.el_taken[g, p, e] = st.pl[p, PL_EL0 + 3 * e + EL_TAKEN]
            o.el_first[g, p, e] = st.pl[p, PL_EL0 + 3 * e + EL_FIRST]
        for c in range(2 if st.sc[SC_COUNT] else 0):
            o.el_drafted[g, p, c] = st.pl[p, PL_EL0 + 3 * (EL_CARD0 + 1 + c) + EL_DRAFTED]
    for h in range(N_RUNES):
        o.fury[g, h] = st.fury[0, h]
        o.fury_nodrain[g, h] = st.fury[1, h]
    left = 0
    for r in range(cf.rune.shape[0]):
        left += st.has_giant[r]
    o.giants_left[g] = left
    o.first_slayer[g] = st.sc[SC_FIRST_SLAYER]
    o.first_loser[g] = st.sc[SC_FIRST_LOSER]
    o.res_max[g] = st.sc[SC_RES_MAX]
    o.fury_min[g] = st.sc[SC_FURY_MIN]
    o.favor_max[g] = st.sc[SC_FAVOR_MAX]
    for e in range(N_ERAS):
        o.openers[g, e] = st.sc[SC_OPENED0 + e]
        for k in range(2):
            o.special_n[g, e, k] = st.special[e, k, 0]
            o.special_sum[g, e, k] = st.special[e, k, 1]


@jit(nrt=False)
def _play_block(cf, st, kinds, params, g0, g1, dice_rng, pol_rng, o):
    """Games g0..g1 into rows g0..g1 of ``o`` (this block's streams only)."""
    for g in range(g0, g1):
        w = _play_game(cf, st, kinds, params, dice_rng, pol_rng)
        _record(cf, st, g, w, o)


# ------------------------------------------------------------------ Python side

def new_state(c, n: int) -> State:
    """Scratch state for ``n`` seats (allocated once per block, outside the kernel)."""
    R, D, C, F = c.rune.shape[0], c.dock.shape[0], c.cards.shape[0], c.favor_rune.shape[0]
    z = lambda *shape: np.zeros(shape, np.int64)                    # noqa: E731
    return State(settlers=z(n, R), temples=z(n, R), boats=z(n, D), valk=z(n, N_VALKYRIES),
                 mat=z(n, 2), res=z(n, 3), fav=z(n, MAX_FAVOR_HELD + 1), nfav=z(n),
                 pl=z(n, N_PL), hand=z(n, MAX_HAND), nhand=z(n), pack=z(n, MAX_HAND),
                 npack=z(n), deck=z(C), disc=z(C), giant=z(R),
                 has_giant=z(R), tokens=z(N_GIANTS), rows=z(2, F + 1), fdeck=z(F),
                 control=z(R), vill=z(R), fury=z(2, N_RUNES), bt=z(n, N_BT), ent=z(n, n, 3),
                 opts=z(MAX_OPTS, 3), fig=z(n, 3), ftmp=z(N_RUNES), sc=z(N_SC),
                 special=z(N_ERAS, 2, 2), infl=z(n, R), gr=z(n, R),
                 fvals=np.zeros(4 + n), cand=z(R),
                 tc=z(N_TC), held=z(n, N_RUNES), rival=z(R), keys=z(n, N_KEYS))


def play_block(s, g0, g1, dice_rng, pol_rng, out) -> None:
    c = s.compiled
    _play_block(c, new_state(c, len(s.kinds)), s.kinds, s.params, g0, g1, dice_rng,
                pol_rng, Out(**out))
