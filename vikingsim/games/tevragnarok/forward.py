"""Forward model of the Ragnarok model (issue 21 §1; tev-ragnarok §4.11): one game state with
one documented layout, ``copy``, the legal options at a decision, ``apply`` and
``determinize``, all callable from compiled code (and from Python with numpy arrays and a
Generator), so a search player can look ahead.

The state is a :class:`State`: the kernel's own game arrays (kernel.py's docstring, same field
names, so the kernel's functions take it as is) plus a ``clock`` saying where play stands and
what each search seat has seen. Play runs with the kernel's own code (``_setup_game``,
``_draft``, ``_own_battle``, ``_play_card``, ``_cleanup``, ``_next_opener``, ``_winner``) and
stops only where a search seat must choose the card of its turn and its use (§4.11.1);
``apply`` carries that option out with the kernel's ``_carry_out`` and plays on to the next
such choice or the end. A scripted seat never stops play. Nothing here is compiled by a
plain game: ``kernel.py`` does not import this module.

Hidden information (§4.11.2): ``determinize`` redraws what the acting seat cannot see (the
deck order, the other seats' hands, the other seats' face-down battle cards, the Giants'
values on the board and in the other seats' hands), consistent with what it has seen, on the
policy stream.
"""
from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np

from vikingsim.core.cards import _shuffle
from vikingsim.core.jit import jit
from vikingsim.games.tevragnarok import kernel as K
from vikingsim.games.tevragnarok.kernel import (BT_N, BT_OPEN, PL_SLAIN_N, PL_SLAIN_SUM,
                                                SC_ERA, SC_INVADERS, SC_NDECK, SC_OPENED0,
                                                SC_OPENER)
from vikingsim.games.tevragnarok.policies import PolicyKind
from vikingsim.games.tevragnarok.rules import N_ERAS, N_GIANTS

__all__ = ["State", "Clock", "new_state", "reset", "copy", "advance", "legal_options",
           "apply", "default_option", "determinize", "encode", "decode", "record", "RUNNING", "DECIDE",
           "ENDED"]

#: ``advance``/``apply`` return DECIDE (``clock[ACTOR]`` must choose) or ENDED
DECIDE, ENDED = 1, 2
#: ``clock[Clock.END]`` while the game goes on (else ENDED)
RUNNING = -1
#: Search players: policy kinds from this one up stop play at their card choice
SEARCH_KIND_MIN = PolicyKind.FLATMC
#: Option codes (``encode``): (hand position * 4 + use) * X_SPAN + target
X_SPAN = 16
N_CODES = K.MAX_HAND * 4 * X_SPAN


class Clock(IntEnum):
    """Slots of ``State.clock`` (int64)."""

    ERA = 0         # Era in play, 0-based (N_ERAS once the game is over)
    STEP = 1        # step of the Era's turn loop: seat (opener + STEP) mod n, §4.7
    PHASE = 2       # P_DRAFT (the Era not begun), P_BATTLE (the step's own battle next),
                    # P_CARD (its battle done, the card next)
    ACTOR = 3       # seat that must choose its card now, -1 = none
    END = 4         # RUNNING or ENDED
    WINNER = 5      # winning seat (§2.6), -1 while running


N_CLOCK = len(Clock)
P_DRAFT, P_BATTLE, P_CARD = 0, 1, 2


class State(NamedTuple):
    """One Ragnarok game's state: the kernel's arrays (kernel.py docstring; ``n`` seats, ``R``
    regions, ``D`` docks, ``C`` Viking cards, ``F`` Favor cards, ``K`` = MAX_HAND), then the
    forward model's own. Fields marked scratch hold nothing between turns."""

    settlers: np.ndarray   # int64[n, R]   Settlers on the board
    temples: np.ndarray    # int64[n, R]   Temples on the board
    boats: np.ndarray      # int64[n, D]   Boats moored at each dock
    valk: np.ndarray       # int64[n, 3]   region of the Valkyrie of each Rune, -1 on the mat
    mat: np.ndarray        # int64[n, 2]   Settlers and Valkyries on the mat
    res: np.ndarray        # int64[n, 3]   Wood, Food, Steel (cap 7, §2.2)
    fav: np.ndarray        # int64[n, 4]   Favor cards held (public: every prize is named)
    nfav: np.ndarray       # int64[n]      how many
    pl: np.ndarray         # int64[n, N_PL] per-seat counters (kernel ``PL_*``: slays, their
                           #               points (hidden from the others), Villages ...)
    hand: np.ndarray       # int64[n, K]   hands (hidden from the other seats)
    nhand: np.ndarray      # int64[n]      hand sizes (public)
    pack: np.ndarray       # int64[n, K]   draft packs (empty between drafts)
    npack: np.ndarray      # int64[n]
    deck: np.ndarray       # int64[C]      Viking deck, top = last (order hidden)
    disc: np.ndarray       # int64[C]      discard pile (public)
    giant: np.ndarray      # int64[R]      value of the Giant in each region (hidden)
    has_giant: np.ndarray  # int64[R]      a Giant stands there (public face)
    tokens: np.ndarray     # int64[9]      setup shuffle of the Giant tokens (setup only)
    rows: np.ndarray       # int64[2, F+1] the two Favor rows (public)
    fdeck: np.ndarray      # int64[F]      setup shuffle of the Favor cards (setup only)
    control: np.ndarray    # int64[R]      holder of each region's Rune, -1 none
    vill: np.ndarray       # int64[R]      Villages left per region
    fury: np.ndarray       # int64[2, 3]   Fury per god (row 1 never drained, a record)
    bt: np.ndarray         # int64[n, 5]   each seat's open battle (kernel ``BT_*``)
    ent: np.ndarray        # int64[n, n, 3] its entries: seat, card (face down), Strength
    opts: np.ndarray       # int64[MAX_OPTS, 3] scratch: the option list (hand pos, use, x)
    fig: np.ndarray        # int64[n, 3]   scratch: a battle's fighters
    ftmp: np.ndarray       # int64[3]      scratch: Fury with one more
    sc: np.ndarray         # int64[N_SC]   game scalars (kernel ``SC_*``: Era, pile sizes ...)
    special: np.ndarray    # int64[3, 2, 2] Valkyrie / Einherjar battle records per Era
    infl: np.ndarray       # int64[n, R]   Influence, in step with the units
    gr: np.ndarray         # int64[n, R]   ground units, in step with the units
    fvals: np.ndarray      # float64[4+n]  scratch: prize values of a choice
    cand: np.ndarray       # int64[R]      scratch: slay-candidate regions
    tc: np.ndarray         # int64[N_TC]   scratch: a choice's shared values
    held: np.ndarray       # int64[n, 3]   Island Runes held per god, in step with control
    rival: np.ndarray      # int64[R]      scratch: strongest rival Influence per region
    keys: np.ndarray       # int64[n, 6]   final ranking keys (after the game)
    clock: np.ndarray      # int64[N_CLOCK] where play stands, slots ``Clock``
    seen: np.ndarray       # int64[n, 9]   values of the Giants each search seat slew, as it
                           #               saw them (filled by ``apply``; PL_SLAIN_N of them)
    pool: np.ndarray       # int64[C]      scratch: ``determinize``'s hidden cards
    mark: np.ndarray       # int64[C]      scratch: 1 = card id hidden from the seat (0 after)
    gpool: np.ndarray      # int64[9]      scratch: ``determinize``'s unseen Giant values


def new_state(c, n: int) -> State:
    """A zeroed state for ``n`` seats and compiled rules ``c`` (``reset`` sets a game up)."""
    k = K.new_state(c, n)
    C = c.cards.shape[0]
    clock = np.zeros(N_CLOCK, np.int64)
    clock[Clock.ACTOR], clock[Clock.END], clock[Clock.WINNER] = -1, RUNNING, -1
    return State(*k, clock, np.zeros((n, N_GIANTS), np.int64), np.zeros(C, np.int64),
                 np.zeros(C, np.int64), np.zeros(N_GIANTS, np.int64))


@jit(nrt=False)
def reset(cf, st, dice_rng):
    """The setup (§4.7, draws of §4.8 (1)-(3) on ``dice_rng``), before the first draft."""
    K._setup_game(cf, st, dice_rng)
    c = st.clock
    c[Clock.ERA], c[Clock.STEP], c[Clock.PHASE], c[Clock.ACTOR] = 0, 0, P_DRAFT, -1
    c[Clock.END], c[Clock.WINNER] = RUNNING, -1
    for p in range(st.seen.shape[0]):
        for j in range(N_GIANTS):
            st.seen[p, j] = 0


# ---- copy: a loop per rank (slice assignment between arrays needs numba's NRT) -----------
@jit(inline="always", nrt=False)
def _c1(a, b):
    for i in range(a.shape[0]):
        b[i] = a[i]


@jit(inline="always", nrt=False)
def _c2(a, b):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j]


@jit(inline="always", nrt=False)
def _c3(a, b):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                b[i, j, k] = a[i, j, k]


@jit(nrt=False)
def copy(s, d):
    """Copy every field of state ``s`` into state ``d`` (same rules and seat count)."""
    _c2(s.settlers, d.settlers)
    _c2(s.temples, d.temples)
    _c2(s.boats, d.boats)
    _c2(s.valk, d.valk)
    _c2(s.mat, d.mat)
    _c2(s.res, d.res)
    _c2(s.fav, d.fav)
    _c1(s.nfav, d.nfav)
    _c2(s.pl, d.pl)
    _c2(s.hand, d.hand)
    _c1(s.nhand, d.nhand)
    _c2(s.pack, d.pack)
    _c1(s.npack, d.npack)
    _c1(s.deck, d.deck)
    _c1(s.disc, d.disc)
    _c1(s.giant, d.giant)
    _c1(s.has_giant, d.has_giant)
    _c1(s.tokens, d.tokens)
    _c2(s.rows, d.rows)
    _c1(s.fdeck, d.fdeck)
    _c1(s.control, d.control)
    _c1(s.vill, d.vill)
    _c2(s.fury, d.fury)
    _c2(s.bt, d.bt)
    _c3(s.ent, d.ent)
    _c2(s.opts, d.opts)
    _c2(s.fig, d.fig)
    _c1(s.ftmp, d.ftmp)
    _c1(s.sc, d.sc)
    _c3(s.special, d.special)
    _c2(s.infl, d.infl)
    _c2(s.gr, d.gr)
    _c1(s.fvals, d.fvals)
    _c1(s.cand, d.cand)
    _c1(s.tc, d.tc)
    _c2(s.held, d.held)
    _c1(s.rival, d.rival)
    _c2(s.keys, d.keys)
    _c1(s.clock, d.clock)
    _c2(s.seen, d.seen)


# ---- play -----------------------------------------------------------------------------------
@jit(inline="always", nrt=False)
def _ended(st, w):
    c = st.clock
    c[Clock.END], c[Clock.WINNER], c[Clock.ACTOR] = ENDED, w, -1
    return ENDED


@jit(nrt=False)
def advance(cf, kinds, params, st, dice_rng, pol_rng):
    """Play on from the clock (seat policies ``kinds``/``params``) until a search seat must
    choose its card (returns DECIDE, ``clock[ACTOR]`` set) or the game ends (ENDED). The
    steps are the kernel's ``_play_game`` / ``_play_era`` (§4.7), cut where a seat chooses."""
    c = st.clock
    n = st.settlers.shape[0]
    while c[Clock.ERA] < N_ERAS:
        e = c[Clock.ERA]
        if c[Clock.PHASE] == P_DRAFT:
            st.sc[SC_ERA] = e
            st.sc[SC_INVADERS] = 0
            K._draft(cf, st, kinds, params, dice_rng, pol_rng)
            st.sc[SC_OPENED0 + e] = st.sc[SC_OPENER]
            c[Clock.STEP], c[Clock.PHASE] = 0, P_BATTLE
        first = st.sc[SC_OPENED0 + e]
        turns = K._hand_size(cf, st) * n
        while c[Clock.STEP] < turns + n:
            t = c[Clock.STEP]
            s = first + t % n
            s = s - n if s >= n else s
            if c[Clock.PHASE] == P_BATTLE:
                K._own_battle(cf, st, s, t < turns, kinds, params, dice_rng, pol_rng)
                c[Clock.PHASE] = P_CARD
            if t < turns:
                if kinds[s] >= SEARCH_KIND_MIN:
                    c[Clock.ACTOR] = s
                    return DECIDE
                K._play_card(cf, st, s, kinds, params, pol_rng)
            c[Clock.STEP] = t + 1
            c[Clock.PHASE] = P_BATTLE
        K._cleanup(cf, st)
        st.sc[SC_OPENER] = K._next_opener(cf, st, first)
        c[Clock.ERA] = e + 1
        c[Clock.PHASE] = P_DRAFT
    st.sc[SC_ERA] = N_ERAS - 1
    return _ended(st, K._winner(cf, st))


@jit(inline="always", nrt=False)
def encode(i, use, x):
    """An option as one int: hand position i, use (kernel FACE_UP, START, JOIN, SLAY), x."""
    return (i * 4 + use) * X_SPAN + x


@jit(inline="always", nrt=False)
def decode(code):
    """(hand position, use, x) of an option code."""
    return code // (4 * X_SPAN), (code // X_SPAN) % 4, code % X_SPAN


@jit(nrt=False)
def legal_options(cf, kinds, params, st, out):
    """The option codes of ``clock[ACTOR]``'s card choice into ``out`` (int64[MAX_OPTS]), in
    the fixed order of §4.7 (the kernel's own ``_options``, restricted play included);
    returns how many (at least one: every card may be played face up)."""
    p = st.clock[Clock.ACTOR]
    k = K._options(cf, st, p, kinds[p], params[p], False)
    for j in range(k):
        out[j] = encode(st.opts[j, 0], st.opts[j, 1], st.opts[j, 2])
    return k


@jit(nrt=False)
def default_option(cf, st, params_row, pol_rng):
    """The option the default policy (``greedy_vp`` with ``params_row``'s weights, §4.5)
    would play at the pending choice: the kernel's own ``_choose`` (it draws nothing)."""
    p = st.clock[Clock.ACTOR]
    j = K._choose(cf, st, p, PolicyKind.GREEDY_VP, params_row, pol_rng)
    return encode(st.opts[j, 0], st.opts[j, 1], st.opts[j, 2])


@jit(nrt=False)
def apply(cf, kinds, params, st, code, dice_rng, pol_rng):
    """``clock[ACTOR]`` plays option ``code`` (one of ``legal_options``) with the kernel's
    ``_carry_out``; then play goes on as in ``advance``. Returns what ``advance`` returns."""
    c = st.clock
    p = c[Clock.ACTOR]
    i, use, x = decode(code)
    if use == K.SLAY:                                # the value the slayer sees (§3.3)
        st.seen[p, st.pl[p, PL_SLAIN_N]] = st.giant[x]
    c[Clock.ACTOR] = -1
    K._carry_out(cf, st, p, kinds[p], params[p], i, use, x, pol_rng)
    c[Clock.STEP] += 1
    c[Clock.PHASE] = P_BATTLE
    return advance(cf, kinds, params, st, dice_rng, pol_rng)


# ---- hidden information (§4.11.2) -------------------------------------------------------------
@jit(nrt=False)
def _redeal_cards(cf, st, p, pol_rng):
    """The cards p cannot see (the deck, the other hands, the other seats' face-down battle
    cards), in ascending id order (so the draw depends on nothing p cannot see), shuffled on
    ``pol_rng`` and dealt back: the deck bottom to top, the other hands clockwise from p, the
    open battles' entries (starters clockwise from p), each place keeping its count."""
    n = st.settlers.shape[0]
    for i in range(st.sc[SC_NDECK]):
        st.mark[st.deck[i]] = 1
    for q in range(n):
        if q != p:
            for i in range(st.nhand[q]):
                st.mark[st.hand[q, i]] = 1
        if st.bt[q, BT_OPEN]:
            for j in range(st.bt[q, BT_N]):
                if st.ent[q, j, 0] != p:
                    st.mark[st.ent[q, j, 1]] = 1
    m = 0
    for c in range(st.mark.shape[0]):
        if st.mark[c]:
            st.pool[m] = c
            st.mark[c] = 0
            m += 1
    _shuffle(st.pool, m, pol_rng)
    m = 0
    for i in range(st.sc[SC_NDECK]):
        st.deck[i] = st.pool[m]
        m += 1
    for t in range(1, n):
        q = p + t if p + t < n else p + t - n
        for i in range(st.nhand[q]):
            st.hand[q, i] = st.pool[m]
            m += 1
    for t in range(n):
        s = p + t if p + t < n else p + t - n
        if st.bt[s, BT_OPEN]:
            for j in range(st.bt[s, BT_N]):
                q = st.ent[s, j, 0]
                if q != p:
                    st.ent[s, j, 1] = st.pool[m]
                    st.ent[s, j, 2] = K._strength(cf, st, q, st.pool[m])
                    m += 1


@jit(nrt=False)
def _redeal_giants(cf, st, p, pol_rng):
    """The Giant values p has not seen (the pool less the ones it slew), shuffled on
    ``pol_rng`` and dealt to the Giants on the board (regions ascending), then to the other
    seats' slain Giants (clockwise from p; their points become the sum); the rest stay in the
    box (§3.1: unseen)."""
    n = st.settlers.shape[0]
    m = 0
    for j in range(N_GIANTS):
        st.gpool[m] = cf.giants[j]
        m += 1
    for k in range(st.pl[p, PL_SLAIN_N]):                # remove each seen value once
        for j in range(m):
            if st.gpool[j] == st.seen[p, k]:
                for t in range(j, m - 1):
                    st.gpool[t] = st.gpool[t + 1]
                m -= 1
                break
    _shuffle(st.gpool, m, pol_rng)
    m = 0
    for r in range(st.giant.shape[0]):
        if st.has_giant[r]:
            st.giant[r] = st.gpool[m]
            m += 1
    for t in range(1, n):
        q = p + t if p + t < n else p + t - n
        v = 0
        for k in range(st.pl[q, PL_SLAIN_N]):
            v += st.gpool[m]
            m += 1
        st.pl[q, PL_SLAIN_SUM] = v


@jit(nrt=False)
def determinize(cf, st, p, pol_rng):
    """§4.11.2: one sample of what seat p cannot see, consistent with what it saw: its hand,
    the discard pile, the board, the Favor rows and holdings, the Giants' faces and the values
    of the Giants it slew stay; the rest is drawn again (cards first, then Giants)."""
    _redeal_cards(cf, st, p, pol_rng)
    _redeal_giants(cf, st, p, pol_rng)


@jit(nrt=False)
def record(cf, st, g, o):
    """Row g of the per-game outputs ``o`` (a ``kernel.Out``) from an ended state: the
    kernel's own ``_record``, so a game played here gives a plain game's outputs."""
    K._record(cf, st, g, st.clock[Clock.WINNER], o)


def is_ended(st: State) -> bool:
    return int(st.clock[Clock.END]) != RUNNING
