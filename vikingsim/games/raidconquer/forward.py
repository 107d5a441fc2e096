"""Forward model of Raid & Conquer (issue 21 §1, raidconquer §15): one game state with one
documented layout, ``copy``, the legal options at a decision, ``apply``, ``determinize``, all
callable from compiled code (and from Python with numpy arrays and a Generator), so a search
player can look ahead.

The state is a :class:`State`: the whole-game kernel's own arrays (kernel.py docstring) plus a
``clock`` saying where play stands. Play runs with the kernel's own code (``kernel._setup``,
``_draw_phase``, ``_plan``, ``_main_and_action``, ``_game_over``, ``_cleanup``) and stops only
at a search seat's Secret Plan (§6.2, §15.1); ``apply`` records the option and plays on to the
next such decision or the end. A scripted seat never stops play.

``rules`` everywhere is the tuple :func:`rules_of` makes; ``kinds, params, bscore, fb`` are the
seats' policy kinds, parameter rows, buy scores (``kernel.buy_scores``) and forbidden cards.
"""
from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np

from vikingsim.core.cards import _shuffle
from vikingsim.core.jit import jit
from vikingsim.games.raidconquer import kernel
from vikingsim.games.raidconquer.kernel import (
    ATTACK, DECK, DEFEND, GS_FIRST, GS_ROUND, HAND, LONE, N_EC, N_GS, N_PILES, N_PS, PARTY,
    PLAY, PS_ACTION, PS_TARGET, RDECK, TREAS, VDECK)
from vikingsim.games.raidconquer.policies import PolicyKind
from vikingsim.games.raidconquer.rules import ROW_SIZE, RuleSlot

__all__ = ["State", "Clock", "new_state", "rules_of", "copy", "reset", "advance",
           "legal_options", "apply", "default_option", "determinize", "RUNNING",
           "END_DECIDE", "END_TERMINATED", "END_TRUNCATED", "N_OPTIONS"]

#: ``clock[Clock.END]`` while the game goes on
RUNNING = -1
#: what ``advance``/``apply`` return: a search seat must choose, someone won, the cap (§5)
END_DECIDE, END_TERMINATED, END_TRUNCATED = 0, 1, 2
#: Secret Plan option codes (§15.1): Defend, Lone Raid, Raid Party, then Attack seat t = 3 + t
OPT_DEFEND, OPT_LONE, OPT_PARTY, OPT_ATTACK = 0, 1, 2, 3
#: most options at a decision (5 players: 3 + 4 opponents) and the arena's option axis
N_OPTIONS = 8


class Clock(IntEnum):
    """Slots of ``State.clock`` (int64)."""

    ROUND = 0       # round in play (or next to start), 1-based (§5)
    TURN = 1        # turn index (0 = First Player) of the next Secret Plan of ROUND; -1 = ROUND
    #                 has not started (its Draw comes next)
    ACTOR = 2       # seat whose Secret Plan is pending, -1 = none
    END = 3         # RUNNING, END_TERMINATED (§9.1) or END_TRUNCATED (max_rounds, §5)
    WINNER = 4      # winning seat (§10.1; a tie: its first seat in turn order), -1 otherwise
    ROUNDS = 5      # rounds played once ended


N_CLOCK = len(Clock)


class State(NamedTuple):
    """One Raid & Conquer game's state (P seats, CAP cards in the game, K card designs)."""

    pp: np.ndarray       # int16[P, 6, CAP]  seat piles DECK, DISC, HAND, PLAY, RAID, BURY (top
    #                                        last)
    pn: np.ndarray       # int64[P, 6]       their sizes
    fl: np.ndarray       # int8[P, CAP]      flag of each PLAY card (kernel NORMAL ... TAKEN)
    ps: np.ndarray       # int64[P, N_PS]    per-seat scalars (kernel PS_*: character, action ...)
    sh: np.ndarray       # int16[3, CAP]     Viking deck, Treasure pile, Raid deck (top last)
    shn: np.ndarray      # int64[3]          their sizes
    rows: np.ndarray     # int64[2, 5]       Viking Row and Raid Row (-1 = empty slot)
    supply: np.ndarray   # int64[K]          Village / basic piles by card id (§4.1)
    box: np.ndarray      # int64[K]          Raid cards left in the box (§4.3)
    gs: np.ndarray       # int64[4]          First seat, Earl side up, failed raids, round (GS_*)
    ec: np.ndarray       # uint16[4, P, K|0] per-card counters (§14.6; K = 0 unless counted)
    clock: np.ndarray    # int64[N_CLOCK]    where play stands, slots ``Clock``
    tmp: np.ndarray      # int16[CAP]        scratch of the setup (not state: never copied)
    s1: np.ndarray       # int64[CAP]        scratch of Defend and the raids (not copied)
    s2: np.ndarray       # int64[CAP]        scratch of Defend (not copied)


def new_state(s, n_seats: int) -> State:
    """A zeroed state for setup ``s`` (call ``reset`` for the setup of a game)."""
    w = kernel.scratch(s, n_seats)
    if not s.rules.count_elements:
        w["ec"] = np.zeros((N_EC, n_seats, 0), np.uint16)
    clock = np.zeros(N_CLOCK, np.int64)
    clock[Clock.TURN], clock[Clock.ACTOR], clock[Clock.END], clock[Clock.WINNER] = -1, -1, \
        RUNNING, -1
    return State(w["pp"], w["pn"], w["fl"], w["ps"], w["sh"], w["shn"], w["rows"],
                 w["supply"], w["box"], w["gs"], w["ec"], clock, w["tmp"], w["s1"], w["s2"])


def rules_of(compiled) -> tuple:
    """The rules tuple every function here takes, from ``Rules.compile()``."""
    return (compiled.ri, compiled.card, compiled.alt, compiled.alt_n, compiled.base_attack,
            compiled.base_defense)


@jit(nrt=False)
def copy(src, dst):
    """Copy state ``src`` into ``dst`` (same setup): every pile up to its size (the kernel
    never reads a pile beyond its size, nor a play flag beyond the cards in play)."""
    for s in range(src.pn.shape[0]):
        for p in range(N_PILES):
            n = src.pn[s, p]
            dst.pn[s, p] = n
            for j in range(n):
                dst.pp[s, p, j] = src.pp[s, p, j]
        for j in range(src.pn[s, PLAY]):
            dst.fl[s, j] = src.fl[s, j]
        for q in range(N_PS):
            dst.ps[s, q] = src.ps[s, q]
    for p in range(3):
        dst.shn[p] = src.shn[p]
        for j in range(src.shn[p]):
            dst.sh[p, j] = src.sh[p, j]
    for r in range(2):
        for j in range(ROW_SIZE):
            dst.rows[r, j] = src.rows[r, j]
    for k in range(src.supply.shape[0]):
        dst.supply[k] = src.supply[k]
        dst.box[k] = src.box[k]
    for q in range(N_GS):
        dst.gs[q] = src.gs[q]
    for a in range(src.ec.shape[0]):
        for s in range(src.ec.shape[1]):
            for k in range(src.ec.shape[2]):
                dst.ec[a, s, k] = src.ec[a, s, k]
    for q in range(N_CLOCK):
        dst.clock[q] = src.clock[q]


@jit(nrt=False)
def reset(rules, st, n_seats, g, dice):
    """The setup of the run's game ``g`` (§4, §14.1), before round 1."""
    ri, card = rules[0], rules[1]
    kernel._setup(ri, card, n_seats, g, st.pp, st.pn, st.fl, st.ps, st.sh, st.shn, st.tmp,
                  st.rows, st.supply, st.box, st.gs, dice)
    for a in range(st.ec.shape[0]):          # (empty unless count_elements, §14.6)
        for s in range(st.ec.shape[1]):
            for k in range(st.ec.shape[2]):
                st.ec[a, s, k] = 0
    c = st.clock
    c[Clock.ROUND], c[Clock.TURN], c[Clock.ACTOR] = 1, -1, -1
    c[Clock.END], c[Clock.WINNER], c[Clock.ROUNDS] = RUNNING, -1, 0


@jit(nrt=False)
def _ended(rules, st, end, rounds):
    ri, card = rules[0], rules[1]
    c = st.clock
    w, _, _ = kernel._winner(ri, card, st.pp, st.pn, st.fl, st.ps, st.gs, st.pn.shape[0])
    c[Clock.END], c[Clock.ROUNDS], c[Clock.ACTOR] = end, rounds, -1
    c[Clock.WINNER] = w if end == END_TERMINATED else -1
    return end


@jit(nrt=False)
def _plans(rules, kinds, params, st, i0, pol):
    """Secret Plans (§6.2) of turn indices i0.. of the round in turn order; stops at a search
    seat's (returns its turn index; n_seats when none)."""
    ri, card, alt, alt_n, base_att, base_def = rules
    n = kinds.shape[0]
    for i in range(i0, n):
        s = kernel._turn_seat(st.gs[GS_FIRST], i, n)
        if kinds[s] >= PolicyKind.FLATMC:
            return i
        act, tgt = kernel._plan(ri, card, alt, base_att, kinds[s], params[s], s, n, st.pp,
                                st.pn, st.fl, st.ps, st.rows, st.supply, pol)
        st.ps[s, PS_ACTION] = act
        st.ps[s, PS_TARGET] = tgt
    return n


@jit(nrt=False)
def advance(rules, kinds, params, bscore, fb, st, dice, pol):
    """Play on from the clock until a search seat's Secret Plan is pending or the game ends,
    exactly as ``kernel._play_game`` plays (§5). Returns END_DECIDE (``clock[ACTOR]`` must
    choose), END_TERMINATED or END_TRUNCATED."""
    ri, card, alt, alt_n, base_att, base_def = rules
    n = kinds.shape[0]
    c = st.clock
    rnd, i0 = c[Clock.ROUND], c[Clock.TURN]
    while rnd <= ri[RuleSlot.MAX_ROUNDS]:
        if i0 < 0:                                          # the round starts: Draw (§6.1)
            st.gs[GS_ROUND] = rnd
            if rnd > 1 or not ri[RuleSlot.SETUP_HAND_IS_ROUND1]:
                kernel._draw_phase(ri, st.pp, st.pn, st.fl, st.gs, n, rnd, dice)
            i0 = 0
        if rnd > ri[RuleSlot.WINTER_ROUNDS]:
            i = _plans(rules, kinds, params, st, i0, pol)
            if i < n:
                c[Clock.ROUND], c[Clock.TURN] = rnd, i
                c[Clock.ACTOR] = kernel._turn_seat(st.gs[GS_FIRST], i, n)
                return END_DECIDE
        kernel._main_and_action(ri, card, alt, alt_n, bscore, base_att, base_def, kinds,
                                params, fb, st.sh, st.shn, st.rows, st.supply, st.pp, st.pn,
                                st.fl, st.ps, st.gs, n, rnd, st.s1, st.s2, st.ec, dice, pol)
        if kernel._game_over(ri, card, st.sh, st.shn, st.rows, st.pp, st.pn, n):   # §9.1
            return _ended(rules, st, END_TERMINATED, rnd)
        kernel._cleanup(ri, card, st.sh, st.shn, st.pp, st.pn, st.fl, st.ps, st.supply, st.gs,
                        n)
        rnd += 1
        i0 = -1
        c[Clock.ROUND], c[Clock.TURN] = rnd, -1
    return _ended(rules, st, END_TRUNCATED, ri[RuleSlot.MAX_ROUNDS])


@jit(nrt=False)
def legal_options(st, out):
    """The Secret Plan options of ``clock[ACTOR]`` into ``out`` (int64[N_OPTIONS]): Defend,
    Lone Raid, Raid Party, then Attack each opponent clockwise from the actor (the next seat
    first: the order a search expands untried options in, so relative to the acting seat,
    never by seat number; §6.2: any action may be chosen; one with no Longboat just does
    nothing, §8.3.1, §8.4.1). Returns how many."""
    n = st.pn.shape[0]
    me = st.clock[Clock.ACTOR]
    out[0], out[1], out[2] = OPT_DEFEND, OPT_LONE, OPT_PARTY
    for i in range(1, n):
        out[2 + i] = OPT_ATTACK + kernel._turn_seat(me, i, n)
    return 2 + n


@jit(inline="always", nrt=False)
def encode(act, tgt):
    """Option code of (action, target) (kernel DEFEND/ATTACK/PARTY/LONE)."""
    if act == ATTACK:
        return OPT_ATTACK + tgt
    if act == LONE:
        return OPT_LONE
    if act == PARTY:
        return OPT_PARTY
    return OPT_DEFEND


@jit(nrt=False)
def apply(rules, kinds, params, bscore, fb, st, option, dice, pol):
    """``clock[ACTOR]`` takes Secret Plan ``option`` (one of ``legal_options``); play goes on
    as in ``advance``. Returns what ``advance`` returns."""
    c = st.clock
    s = c[Clock.ACTOR]
    if option >= OPT_ATTACK:
        st.ps[s, PS_ACTION], st.ps[s, PS_TARGET] = ATTACK, option - OPT_ATTACK
    else:
        st.ps[s, PS_TARGET] = -1
        st.ps[s, PS_ACTION] = DEFEND if option == OPT_DEFEND else (
            LONE if option == OPT_LONE else PARTY)
    c[Clock.ACTOR] = -1
    c[Clock.TURN] += 1
    return advance(rules, kinds, params, bscore, fb, st, dice, pol)


@jit(nrt=False)
def default_option(rules, st, params_row, pol):
    """What the default policy (``hints``, §12.4, a scripted row ``params_row``) would plan
    at the pending Secret Plan: the kernel's own ``_plan`` (scripted: draws nothing)."""
    ri, card, alt, alt_n, base_att, base_def = rules
    s = st.clock[Clock.ACTOR]
    act, tgt = kernel._plan(ri, card, alt, base_att, PolicyKind.SCRIPTED, params_row, s,
                            st.pn.shape[0], st.pp, st.pn, st.fl, st.ps, st.rows, st.supply, pol)
    return encode(act, tgt)


@jit(nrt=False)
def _sort(cards, n):
    """Sort ``cards[:n]`` by card id (insertion sort; piles are short)."""
    for a in range(1, n):
        x = cards[a]
        b = a - 1
        while b >= 0 and cards[b] > x:
            cards[b + 1] = cards[b]
            b -= 1
        cards[b + 1] = x


@jit(nrt=False)
def _reshuffle(cards, n, pol):
    """§15.3: ``cards[:n]`` sorted, then shuffled: the result depends on which cards they
    are, never on the order they were in (which the searching seat cannot see)."""
    _sort(cards, n)
    _shuffle(cards, n, pol)


@jit(nrt=False)
def _redeal(pp, pn, q, pol):
    """Seat q's hand and deck shuffled together and the hand dealt again (same size) from
    the top (§15.3)."""
    nh, nd = pn[q, HAND], pn[q, DECK]
    for h in range(nh):
        pp[q, DECK, nd + h] = pp[q, HAND, h]
    _reshuffle(pp[q, DECK], nd + nh, pol)
    for h in range(nh):
        pp[q, HAND, h] = pp[q, DECK, nd + nh - 1 - h]
    pn[q, DECK] = nd


@jit(nrt=False)
def determinize(rules, st, params_row, pol):
    """One sample of what ``clock[ACTOR]`` cannot see, consistent with what it saw (§2.2,
    §15.3), on the policy stream in this order, each pile sorted by card id first
    (``_reshuffle``, so the sample depends only on what the seat saw): its own deck order;
    each other seat (seat order) its hand and deck shuffled together and the hand redealt;
    the Viking deck; the Treasure pile under its face-up top card; the Raid deck. Then the
    Secret Plans already made this round by the seats before it in turn order (hidden, §6.2)
    are made again by the default policy (``params_row``, scripted: no draw) on their
    redealt hands."""
    ri, card, alt, alt_n, base_att, base_def = rules
    me = st.clock[Clock.ACTOR]
    n = st.pn.shape[0]
    _reshuffle(st.pp[me, DECK], st.pn[me, DECK], pol)
    for q in range(n):
        if q != me:
            _redeal(st.pp, st.pn, q, pol)
    _reshuffle(st.sh[VDECK], st.shn[VDECK], pol)
    if st.shn[TREAS] > 1:
        _reshuffle(st.sh[TREAS], st.shn[TREAS] - 1, pol)
    _reshuffle(st.sh[RDECK], st.shn[RDECK], pol)
    for i in range(st.clock[Clock.TURN]):
        s = kernel._turn_seat(st.gs[GS_FIRST], i, n)
        act, tgt = kernel._plan(ri, card, alt, base_att, PolicyKind.SCRIPTED, params_row, s, n,
                                st.pp, st.pn, st.fl, st.ps, st.rows, st.supply, pol)
        st.ps[s, PS_ACTION] = act
        st.ps[s, PS_TARGET] = tgt


def is_ended(st: State) -> bool:
    return int(st.clock[Clock.END]) != RUNNING
