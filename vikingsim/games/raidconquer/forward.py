"""Forward model of Raid & Conquer (issue 21 §1, raidconquer §15): one game state with one
documented layout, ``copy``, the legal options at a decision, ``apply``, ``determinize``, all
callable from compiled code (and from Python with numpy arrays and a Generator), so a search
player can look ahead.

The state is a :class:`State`: the whole-game kernel's own arrays (kernel.py docstring) plus a
``clock`` saying where play stands. Play runs with the kernel's own code (``kernel._setup``,
``_draw_phase``, ``_plan``, ``_main_turn`` or its pieces ``_main_play``, ``_buy_open``,
``_pick_buy``, ``_buy_one``, ``_main_close``, then ``_action_phase``, ``_game_over``,
``_cleanup``) and stops only at a search seat's Secret Plan (§6.2, §15.1) and, for a seat that
searches its buys too (``clock[BUYERS]``, §15.6), at each of its purchases; ``apply`` records
the option and plays on to the next such decision or the end. A scripted seat never stops
play.

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
    ATTACK, DECK, DEFEND, EMPTY, GS_FIRST, GS_ROUND, HAND, LONE, N_EC, N_GS, N_PILES, N_PS, PARTY,
    PLAY, PS_ACTION, PS_SILVER_AVAIL, PS_SILVER_SPENT, PS_TARGET, RDECK, TREAS, VDECK)
from vikingsim.games.raidconquer.policies import PolicyKind
from vikingsim.games.raidconquer.rules import Col, ROW_SIZE, RuleSlot

__all__ = ["State", "Clock", "new_state", "rules_of", "copy", "reset", "advance",
           "legal_options", "apply", "default_option", "determinize", "RUNNING",
           "END_DECIDE", "END_TERMINATED", "END_TRUNCATED", "N_OPTIONS", "OPT_BUY", "OPT_STOP"]

#: ``clock[Clock.END]`` while the game goes on
RUNNING = -1
#: what ``advance``/``apply`` return: a search seat must choose, someone won, the cap (§5)
END_DECIDE, END_TERMINATED, END_TRUNCATED = 0, 1, 2
#: Secret Plan option codes (§15.1): Defend, Lone Raid, Raid Party, then Attack seat t = 3 + t
OPT_DEFEND, OPT_LONE, OPT_PARTY, OPT_ATTACK = 0, 1, 2, 3
#: buy option codes (§15.6): buy candidate c = OPT_BUY + c (``kernel._candidate``: Viking Row
#: slots 0-4, then Warriors, Hacksilver, Longboat), stop buying = OPT_STOP; apart from the plan
#: codes, so that an ISMCTS node never mixes the two kinds
N_CANDIDATES = ROW_SIZE + 3
OPT_BUY = 8
OPT_STOP = OPT_BUY + N_CANDIDATES
#: the arena's option axis (every code); at most 9 options at one decision
N_OPTIONS = OPT_STOP + 1


class Clock(IntEnum):
    """Slots of ``State.clock`` (int64)."""

    ROUND = 0       # round in play (or next to start), 1-based (§5)
    TURN = 1        # turn index (0 = First Player) of the next Secret Plan of ROUND; -1 = ROUND
    #                 has not started (its Draw comes next)
    ACTOR = 2       # seat whose Secret Plan is pending, -1 = none
    END = 3         # RUNNING, END_TERMINATED (§9.1) or END_TRUNCATED (max_rounds, §5)
    WINNER = 4      # winning seat (§10.1; a tie: its first seat in turn order), -1 otherwise
    ROUNDS = 5      # rounds played once ended
    BUYERS = 6      # bit s set: search seat s decides its buys too (§15.6; from ``Setup.search``,
    #                 kept by ``reset``)
    MAIN = 7        # turn index of the Main turn in play (§7); -1 = the Main phase has not begun
    BUYING = 8      # that turn: 0 = not begun, 1 = its buy step under way, 2 = "stop" chosen
    AVAIL = 9       # its buy tally (``kernel._buy_open``): Silver available, spent, cards
    SPENT = 10      # bought, Longboats owned, Silver unused Warriors could still add
    BOUGHT = 11
    OWNED = 12
    EXTRA = 13


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
    clock[Clock.MAIN] = -1
    search = getattr(s, "search", None)
    if search is not None and search.shape[1] > 2:
        clock[Clock.BUYERS] = sum(1 << q for q in range(n_seats) if search[q, 2] > 0)
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
    c[Clock.MAIN], c[Clock.BUYING] = -1, 0


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


@jit(inline="always", nrt=False)
def _buyer(kinds, c, s):
    """Seat s is a search seat that decides its buys (§15.6)."""
    return kinds[s] >= PolicyKind.FLATMC and (c[Clock.BUYERS] >> s) & 1 == 1


@jit(nrt=False)
def advance(rules, kinds, params, bscore, fb, st, dice, pol):
    """Play on from the clock until a search seat must choose (its Secret Plan; a purchase of a
    seat in ``clock[BUYERS]``) or the game ends, exactly as ``kernel._play_game`` plays (§5).
    Returns END_DECIDE (``clock[ACTOR]`` must choose), END_TERMINATED or END_TRUNCATED."""
    ri, card, alt, alt_n, base_att, base_def = rules
    n = kinds.shape[0]
    c = st.clock
    rnd, i0 = c[Clock.ROUND], c[Clock.TURN]
    while rnd <= ri[RuleSlot.MAX_ROUNDS]:
        spring = rnd > ri[RuleSlot.WINTER_ROUNDS]
        if i0 < 0:                                          # the round starts: Draw (§6.1)
            st.gs[GS_ROUND] = rnd
            if rnd > 1 or not ri[RuleSlot.SETUP_HAND_IS_ROUND1]:
                kernel._draw_phase(ri, st.pp, st.pn, st.fl, st.gs, n, rnd, dice)
            i0 = 0
        if c[Clock.MAIN] < 0:
            if spring:
                i = _plans(rules, kinds, params, st, i0, pol)
                if i < n:
                    c[Clock.ROUND], c[Clock.TURN] = rnd, i
                    c[Clock.ACTOR] = kernel._turn_seat(st.gs[GS_FIRST], i, n)
                    return END_DECIDE
                kernel._count_plans(ri, st.ps, st.ec, n)    # §14.6
            c[Clock.ROUND], c[Clock.TURN], c[Clock.MAIN], c[Clock.BUYING] = rnd, n, 0, 0
        if _mains(rules, kinds, params, bscore, fb, st, rnd, spring, dice, pol):
            return END_DECIDE
        if spring:                                          # §8
            kernel._action_phase(ri, card, base_att, base_def, kinds, params, fb, st.sh, st.shn,
                                 st.rows, st.supply, st.pp, st.pn, st.fl, st.ps, st.gs, n, rnd,
                                 st.s1, st.s2)
        if kernel._game_over(ri, card, st.sh, st.shn, st.rows, st.pp, st.pn, n):   # §9.1
            return _ended(rules, st, END_TERMINATED, rnd)
        kernel._cleanup(ri, card, st.sh, st.shn, st.pp, st.pn, st.fl, st.ps, st.supply, st.gs,
                        n)
        rnd += 1
        i0 = -1
        c[Clock.ROUND], c[Clock.TURN], c[Clock.MAIN] = rnd, -1, -1
    return _ended(rules, st, END_TRUNCATED, ri[RuleSlot.MAX_ROUNDS])


@jit(nrt=False)
def _mains(rules, kinds, params, bscore, fb, st, rnd, spring, dice, pol):
    """The Main turns (§7) from ``clock[MAIN]`` in turn order: the kernel's ``_main_turn``,
    but a seat in ``clock[BUYERS]`` plays its cards (``_main_play``) and then buys one card at
    a time (``_buys``), its tally in the clock. True when its purchase is pending."""
    ri, card, alt, alt_n = rules[0], rules[1], rules[2], rules[3]
    n = kinds.shape[0]
    c = st.clock
    while c[Clock.MAIN] < n:
        s = kernel._turn_seat(st.gs[GS_FIRST], c[Clock.MAIN], n)
        if c[Clock.BUYING] == 0:
            if not _buyer(kinds, c, s):
                kernel._main_turn(ri, card, alt, alt_n, bscore[s], kinds[s], params[s], fb[s],
                                  st.rows, st.supply, st.sh, st.shn, st.pp, st.pn, st.fl,
                                  st.ps, s, spring, st.ec, rnd, dice, pol)
                c[Clock.MAIN] += 1
                continue
            kernel._main_play(ri, card, alt, alt_n, params[s], fb[s], st.supply, st.pp, st.pn,
                              st.fl, st.ps, s, spring, dice)
            avail, spent, bought, owned, extra = kernel._buy_open(ri, card, alt, alt_n, st.pp,
                                                                  st.pn, st.fl, st.ps, s)
            c[Clock.AVAIL], c[Clock.SPENT], c[Clock.BOUGHT] = avail, spent, bought
            c[Clock.OWNED], c[Clock.EXTRA], c[Clock.BUYING] = owned, extra, 1
        if c[Clock.BUYING] == 1 and _buys(rules, kinds, params, bscore, fb, st, s, pol):
            c[Clock.ACTOR] = s
            return True
        st.ps[s, PS_SILVER_AVAIL] += c[Clock.AVAIL]                # the end of _buy_step
        st.ps[s, PS_SILVER_SPENT] += c[Clock.SPENT]
        kernel._main_close(ri, st.pp, st.pn, st.fl, s, st.ec)
        c[Clock.MAIN] += 1
        c[Clock.BUYING] = 0
    return False


@jit(nrt=False)
def _buys(rules, kinds, params, bscore, fb, st, s, pol):
    """Seat s's buy step from the clock's tally (§7.4): a buyer (§15.6) stops to choose (True)
    unless "stop" is its only option (no decision: False); any other seat buys by its policy
    (``kernel._pick_buy``) until it stops (False)."""
    ri, card = rules[0], rules[1]
    c = st.clock
    if _buyer(kinds, c, s):
        return _n_buys(rules, st) > 0
    while True:
        k = kernel._pick_buy(ri, card, bscore[s], kinds[s], params[s], fb[s], st.rows,
                             st.supply, c[Clock.OWNED], c[Clock.AVAIL] - c[Clock.SPENT],
                             c[Clock.EXTRA], c[Clock.BOUGHT], pol)
        if k < 0:
            return False
        _buy(rules, st, s, k)


@jit(nrt=False)
def _buy(rules, st, s, cand):
    """Seat s buys candidate ``cand`` (``kernel._buy_one``), the tally kept in the clock."""
    ri, card, alt, alt_n = rules[0], rules[1], rules[2], rules[3]
    c = st.clock
    avail, spent, bought, owned, extra = kernel._buy_one(
        ri, card, alt, alt_n, st.rows, st.supply, st.sh, st.shn, st.pp, st.pn, st.fl, s, st.ec,
        c[Clock.ROUND], cand, c[Clock.AVAIL], c[Clock.SPENT], c[Clock.BOUGHT], c[Clock.OWNED],
        c[Clock.EXTRA])
    c[Clock.AVAIL], c[Clock.SPENT], c[Clock.BOUGHT] = avail, spent, bought
    c[Clock.OWNED], c[Clock.EXTRA] = owned, extra


@jit(inline="always", nrt=False)
def _affordable(rules, st, cand):
    """Candidate ``cand`` can be bought now (§7.4: a card is there and its cost is at most
    the Silver left plus what unused Warriors could add, §7.5)."""
    ri, card = rules[0], rules[1]
    c = st.clock
    _, k = kernel._candidate(ri, st.rows, st.supply, cand)
    return k != EMPTY and card[Col.COST, k] <= c[Clock.AVAIL] - c[Clock.SPENT] + c[Clock.EXTRA]


@jit(nrt=False)
def _n_buys(rules, st):
    n = 0
    for cand in range(N_CANDIDATES):
        if _affordable(rules, st, cand):
            n += 1
    return n


@jit(nrt=False)
def legal_options(rules, st, out):
    """The options of ``clock[ACTOR]`` into ``out`` (int64[N_OPTIONS]); returns how many. In
    the order a search expands untried options in, relative to the acting seat, never by seat
    number. A Secret Plan (§15.1): Defend, Lone Raid, Raid Party, then Attack each opponent
    clockwise from the actor (the next seat first; §6.2: any action may be chosen; one with no
    Longboat just does nothing, §8.3.1, §8.4.1). A purchase (§15.6): each affordable
    candidate in §7.4's order (Viking Row slots left to right, Warriors, Hacksilver,
    Longboat), then "stop"."""
    if st.clock[Clock.MAIN] >= 0:
        m = 0
        for cand in range(N_CANDIDATES):
            if _affordable(rules, st, cand):
                out[m] = OPT_BUY + cand
                m += 1
        out[m] = OPT_STOP
        return m + 1
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
    """``clock[ACTOR]`` takes ``option`` (one of ``legal_options``); play goes on as in
    ``advance``. Returns what ``advance`` returns."""
    c = st.clock
    s = c[Clock.ACTOR]
    if option == OPT_STOP:
        c[Clock.BUYING] = 2
    elif option >= OPT_BUY:
        _buy(rules, st, s, option - OPT_BUY)
    else:
        if option >= OPT_ATTACK:
            st.ps[s, PS_ACTION], st.ps[s, PS_TARGET] = ATTACK, option - OPT_ATTACK
        else:
            st.ps[s, PS_TARGET] = -1
            st.ps[s, PS_ACTION] = DEFEND if option == OPT_DEFEND else (
                LONE if option == OPT_LONE else PARTY)
        c[Clock.TURN] += 1
    c[Clock.ACTOR] = -1
    return advance(rules, kinds, params, bscore, fb, st, dice, pol)


@jit(nrt=False)
def default_option(rules, st, params_row, bscore_row, fb_row, pol):
    """What the default policy (``hints``, §12.4: a scripted row ``params_row``, its buy
    scores ``bscore_row`` and forbidden cards ``fb_row``) would choose at the pending decision:
    the kernel's own ``_plan`` or ``_pick_buy`` (scripted: they draw nothing)."""
    ri, card, alt, alt_n, base_att, base_def = rules
    c = st.clock
    s = c[Clock.ACTOR]
    if c[Clock.MAIN] >= 0:
        k = kernel._pick_buy(ri, card, bscore_row, PolicyKind.SCRIPTED, params_row, fb_row,
                             st.rows, st.supply, c[Clock.OWNED], c[Clock.AVAIL] - c[Clock.SPENT],
                             c[Clock.EXTRA], c[Clock.BOUGHT], pol)
        return OPT_STOP if k < 0 else OPT_BUY + k
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
def determinize(rules, st, kinds, params, pol):
    """One sample of what ``clock[ACTOR]`` cannot see, consistent with what it saw (§2.2,
    §15.3), on the policy stream in this order, each pile sorted by card id first
    (``_reshuffle``, so the sample depends only on what the seat saw): its own deck order;
    each other seat (seat order) its hand and deck shuffled together and the hand redealt;
    the Viking deck; the Treasure pile under its face-up top card; the Raid deck. Then the
    Secret Plans already made this round by the seats before it in turn order (hidden, §6.2)
    are made again on their redealt hands, each by the policy the searcher models it with
    (``kinds``, ``params``: its rollout seats, §15.8; DEFAULT hints, scripted: no draw; a
    ``random`` seat of ``table`` draws its plan again on the policy stream); at a purchase in
    Spring (§15.6) every other seat's plan is, on its hand and, once its Main turn is over,
    the cards it put in play (``_replan``)."""
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
    c = st.clock
    if c[Clock.MAIN] < 0:
        for i in range(c[Clock.TURN]):
            q = kernel._turn_seat(st.gs[GS_FIRST], i, n)
            _replan(rules, st, q, kinds[q], params[q], False, pol)
    elif c[Clock.ROUND] > ri[RuleSlot.WINTER_ROUNDS]:
        for i in range(n):
            q = kernel._turn_seat(st.gs[GS_FIRST], i, n)
            if q != me:
                _replan(rules, st, q, kinds[q], params[q], i < c[Clock.MAIN], pol)


@jit(nrt=False)
def _replan(rules, st, q, kind, params_row, played, pol):
    """Seat q's Secret Plan made again by its modelled policy (``kind``, ``params_row``) on
    its hand, and with ``played`` on its hand and the cards it has put in play
    (its Main turn is over, §15.6): laid after the hand (its pile's free space) for the
    call."""
    ri, card, alt, alt_n, base_att, base_def = rules
    nh = st.pn[q, HAND]
    if played:
        for j in range(st.pn[q, PLAY]):
            st.pp[q, HAND, nh + j] = st.pp[q, PLAY, j]
        st.pn[q, HAND] = nh + st.pn[q, PLAY]
    act, tgt = kernel._plan(ri, card, alt, base_att, kind, params_row, q, st.pn.shape[0],
                            st.pp, st.pn, st.fl, st.ps, st.rows, st.supply, pol)
    st.pn[q, HAND] = nh
    st.ps[q, PS_ACTION] = act
    st.ps[q, PS_TARGET] = tgt


def is_ended(st: State) -> bool:
    return int(st.clock[Clock.END]) != RUNNING
