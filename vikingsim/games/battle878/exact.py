"""Exact battle odds for battle878: a Markov chain over battle states, solved by DP.

Under the default policy (878 §4.6 hit orders, no retreats, no Runes/Prayer) a battle's state is
finite and only ever shrinks:

``(norsemen, berserkers, tile, housecarls, thegns, fyrd, deaths, pend, northumbria_unused,
side_to_roll)``

``pend`` is 1 before the first English roll (Ragnar, 878 §4.7, and the Berserker first-hit rule,
878 §4.6), 0 after it, and 2 after it while the first-hit rule still waits for the Vikings'
first casualty (``berserker_first_hit_scope=first_casualty``: English rolls without a Hit keep
it pending).

``tile`` counts the Hits the Fort/Settlement can still absorb (878 §4.4, SEED §1.4-1.5);
``deaths`` counts Viking units killed so far, capped at ``valhalla_deaths`` (SEED §6.2; only
tracked when the army can reach it); with the Foul Weather card (SEED §7.3) the state also holds
the Commands banked against the side about to roll. Every roll removes units (Hits on the
enemy, Flees on the roller's own units), uses up a flag, or changes nothing but whose roll it
is. So the only cycles are "nothing happened" two-cycles between the Viking and English rolls at
the same state, solved exactly: ``V_vik = a_vik + p0_vik * V_eng`` and
``V_eng = a_eng + p0_eng * V_vik`` (a 2x2 linear system, the geometric series of self-loops
summed in closed form; under Foul Weather the cycle runs through the bank values and is a small
dense linear solve). Every other dependency points to a state that is componentwise smaller, or
equal with a flag used, so visiting unit counts in lexicographic order (flags used first) meets
every dependency before it is needed.

A roll's outcome distribution is a product of multinomials, one per die type: for ``n`` dice of
a type with per-face probabilities (hit, flee, command, other) ``_joint_table`` gives
P(hits=i, flees=j, commands=k) exactly (Commands counted only under Foul Weather). Per-die
modifiers change the face probabilities: Edmund's Faith (re-roll Flee and Command once, SEED
§3.3) and Ragnar (Commands of the first English roll count as Flees, 878 §4.7, after the
re-roll, as in the engine). Per-roll rules (Northumbria 878 §4.8, the Faith epic card, the Raven
Banner, the Berserker first-hit rule, Disorganized Combat, the hit orders 878 §4.6) are applied
by the kernel to every combined outcome, in the engine's order (878 §4.9). Random setup steps
are mixtures solved exactly: the Raven Banner's Thegn die (3 cases) and the Fyrd cards drawn at
the start (Christian's Wrath, Edmund's Martyrdom, the base Fyrd card: every ordered draw from
the deck enumerated; one DP over the largest Fyrd count serves every draw, since the value table
holds every smaller army too).

Public entry point: :func:`odds` (wired as ``GAME.odds``), taking the engine's flat options.
"""
from __future__ import annotations

import math
from dataclasses import fields
from typing import NamedTuple

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.jit import jit
from vikingsim.games.battle878.rules import (
    DIE_LETTERS, OUTCOME_KEYS, Face, Rules, rules_from_options)

# value-vector layout (last axis of the value table; Valhalla's Glory has its own table)
_K_VIK, _K_ENG, _K_BOTH, _K_ROLLS, _K_VALH = 0, 1, 2, 3, 4
_NK = 4
# kernel flag array P (int64) indices
(_P_TILE_N, _P_TILE_B, _P_BFH, _P_RAGNAR, _P_NORTH, _P_FAITH, _P_FAITH_IGN, _P_RAVEN, _P_DIS,
 _P_DEATH_N, _P_DEATH_B, _P_VALH, _P_FOUL, _P_BANKS, _P_BFH_CAS, _N_P) = range(16)

#: Largest value table the solver allocates (entries; 8 bytes each, so about 240 MB).
MAX_VALUES = 30_000_000
#: Largest accepted upper bound on P(battle truncated by max_rolls), reported as 0. A loose,
#: worst-case bound (see ``solve``); the true chance at the default max_rolls is far smaller.
TRUNCATION_TOL = 1e-6

# Rule fields the solver reads (each applied as the engine does).
_HANDLED = {
    "norsemen", "berserkers", "housecarls", "thegns", "fyrd", "attacker", "first_roller",
    "faces", "max_dice", "berserker_first_hit", "berserker_first_hit_scope", "seidr", "fort",
    "fort_hits", "settlement", "northumbria", "edmunds_faith", "edmunds_faith_side", "ragnar",
    "raven_banner",
    "faith_counts_ignored_flee", "military_reform", "reform_unit", "valhalla_deaths",
    "lagertha", "christians_wrath", "edmunds_martyrdom", "fyrd_card", "fyrd_cards",
    "epic_card", "reinforcements_units", "reinforcements_fyrd", "adj_norsemen",
    "adj_berserkers", "adj_housecarls", "adj_thegns", "max_rolls",
    # inert under the default policy (never retreats, never rolls Runes/Prayer; 878 §5):
    "runes_prayer", "runes_dice", "prayer_dice", "runes_faces", "prayer_faces",
    "omens_cost", "battle_rage_cost", "ragnarok_cost", "defend_faith_cost", "convert_cost",
    "gods_peace_cost", "reserve_berserkers", "martyrdom_blocks_bank", "linen_clothes",
    "command_moves_fyrd",
}
#: Epic cards the solver handles (war_spreads and single_combat do not change who wins).
_EPIC_OK = ("none", "faith", "disorganized_combat", "single_combat", "war_spreads",
            "reinforcements", "epic_battle", "foul_weather")


class Spec(NamedTuple):
    """A battle the kernel can solve: start counts, per-die face probabilities, rule flags."""

    units: tuple            # (norsemen, berserkers, tile hits, housecarls, thegns, fyrd) at start
    fyrd_extra: dict        # {extra Fyrd from start-of-battle cards: probability}
    raven: dict             # {0 none / 1 Hit / 2 Flee: probability} (SEED §5.4 Raven Banner)
    faces: np.ndarray       # float64 (5, 4): P(hit), P(flee), P(command), P(blank) per die
    max_dice: np.ndarray    # int64 (5,)
    flags: np.ndarray       # int64 (_N_P,) kernel flags
    edmund_side: int        # -1 none, 0 Vikings, 1 English (SEED §3.3)
    english_first: bool     # the English make the battle's first roll (878 §4.2)
    max_rolls: int


# ----------------------------------------------------------------------------- per-die tables
def _rerolled(p: np.ndarray) -> np.ndarray:
    """Face probabilities after re-rolling Flee and Command once (SEED §3.3 Edmund's Faith).

    A first Hit or Blank stands; a first Flee or Command (probability f + c) is re-rolled and the
    second face stands whatever it is ("they do not re-roll a second time").
    """
    h, f, c, b = p
    r = f + c
    return np.array([h + r * h, r * f, r * c, b + r * b])


def _joint_table(n: int, p_hit: float, p_flee: float, p_cmd: float, size: int) -> np.ndarray:
    """P(hits = i, flees = j, commands = k) for ``n`` independent dice, float64 (size,)*3.

    Multinomial over (hit, flee, command, other): n! / (i! j! k! m!) p_hit^i p_flee^j p_cmd^k
    p_other^m, m = n-i-j-k. Pass ``p_cmd = 0`` to fold Commands into "other" (only Foul
    Weather needs them counted).
    """
    p_other = max(0.0, 1.0 - p_hit - p_flee - p_cmd)
    out = np.zeros((size, size, size))
    f = math.factorial
    for i in range(n + 1):
        for j in range(n + 1 - i):
            for k in range(n + 1 - i - j):
                m = n - i - j - k
                coef = f(n) // (f(i) * f(j) * f(k) * f(m))
                out[i, j, k] = coef * p_hit**i * p_flee**j * p_cmd**k * p_other**m
    return out


def _dice_tables(spec: Spec) -> tuple[np.ndarray, np.ndarray]:
    """(viking, english) tables, float64 (2 modes, 5 dice, size, size, size, size).

    ``[mode, die, n, i, j, k]`` = P(i hits, j flees, k commands) for n dice of that type
    (k = 0 always unless Foul Weather counts Commands); mode 1 is the first English roll with
    Ragnar (every Command counts as a Flee, 878 §4.7, after Edmund's re-roll, 878 §4.9 step 2).
    Viking rolls use mode 0 only.
    """
    size = int(spec.max_dice.max()) + 1
    foul = bool(spec.flags[_P_FOUL])
    out = []
    for side in (0, 1):
        t = np.zeros((2, 5, size, size, size, size))
        for d in range(5):
            p = _rerolled(spec.faces[d]) if spec.edmund_side == side else spec.faces[d]
            for n in range(int(spec.max_dice[d]) + 1):
                t[0, d, n] = _joint_table(n, p[0], p[1], p[2] if foul else 0.0, size)
                t[1, d, n] = _joint_table(n, p[0], p[1] + p[2], 0.0, size)
        out.append(t)
    return out[0], out[1]


# ----------------------------------------------------------------------------- kernels
@jit
def _english_take_hits(hits, h, t, f, dis):
    """English losses; no checks. 878 §4.6 DEFAULT order Fyrd, Thegns, Housecarls; with
    Disorganized Combat (SEED §7.3, 878 §5 default) one Hit first takes the most valuable unit
    (Housecarl, Thegn, Fyrd)."""
    for _ in range(hits):
        if dis:
            dis = False
            if h > 0:
                h -= 1
            elif t > 0:
                t -= 1
            elif f > 0:
                f -= 1
            else:
                break
        elif f > 0:
            f -= 1
        elif t > 0:
            t -= 1
        elif h > 0:
            h -= 1
        else:
            break
    return h, t, f


@jit
def _vikings_take_hits(hits, n, b, L, bfirst, dis, death_n, death_b):
    """Viking losses and deaths; no checks.

    878 §4.6 DEFAULT order Norsemen, Berserkers, then the tile. ``bfirst``: first English roll
    with the first-hit rule on, so the roll's first Hit takes a Berserker if one is present (a
    tile never satisfies it, SEED §1.4). Disorganized Combat: one Hit (the next after the
    Berserker rule's) takes Berserker, Norseman, tile. ``death_n``/``death_b``: a Hit on that type
    is a death (not a flight: Single Combat, Æthelred's Military Reform, SEED §3.3, §7.3).
    """
    deaths = 0
    for i in range(hits):
        if i == 0 and bfirst and b > 0:
            b -= 1
            deaths += death_b
        elif dis:
            dis = False
            if b > 0:
                b -= 1
                deaths += death_b
            elif n > 0:
                n -= 1
                deaths += death_n
            elif L > 0:
                L -= 1
            else:
                break
        elif n > 0:
            n -= 1
            deaths += death_n
        elif b > 0:
            b -= 1
            deaths += death_b
        elif L > 0:
            L -= 1
        else:
            break
    return n, b, L, deaths


@jit
def _terminal_fill(val, valh, n, b, L, h, t, f, track):
    """Value of an ended battle (878 §4.10): outcome one-hot, 0 rolls left; Valhalla's Glory
    reached iff the death count sits at its cap (``track``: deaths are being counted)."""
    vik = n + b + L > 0
    eng = h + t + f > 0
    k = _K_BOTH
    if vik:
        k = _K_VIK
    elif eng:
        k = _K_ENG
    D = valh.shape[7] - 1
    for c in range(val.shape[6]):
        for pend in range(val.shape[7]):
            for nu in range(2):
                for side in range(2):
                    val[n, b, L, h, t, f, c, pend, nu, side, k] = 1.0
                    if track:
                        valh[n, b, L, h, t, f, c, D, pend, nu, side] = 1.0


@jit
def _viking_roll(val, valh, n, b, L, h, t, f, c, pend, nu, P, max_dice, vtab, acc, acch, p0):
    """One Viking roll from a state whose roll has ``c`` banked Commands against it (Foul
    Weather). Adds P(outcome) x value(next) to ``acc`` (outcome values) and ``acch`` (Valhalla
    chance per death count) for every outcome that changes the units; ``p0[c2]`` gets the
    chance that no unit changes and the English then face ``c2`` banked Commands.
    Returns q0 = P(no unit removed). No checks."""
    acc[:] = 0.0
    acch[:] = 0.0
    p0[:] = 0.0
    D = valh.shape[7] - 1
    kcap = P[_P_BANKS] - 1             # most Commands a roll can bank (0: not counted)
    n1 = n
    b1 = b
    if P[_P_RAVEN] == 2:               # SEED §5.4 Raven Banner Flee, before each Viking roll
        if n1 > 0:
            n1 -= 1
        if b1 > 0:
            b1 -= 1
        if n1 + b1 + L == 0:           # 878 §4.10: the Vikings are gone
            acc[_K_ENG if h + t + f > 0 else _K_BOTH] += 1.0
            if P[_P_VALH] > 0:
                acch[D] = 1.0
            return 0.0
    tile = 1 if L > 0 else 0
    dn = min(n1 + P[_P_TILE_N] * tile, max_dice[0])    # 878 §4.3-4.4 dice per type
    db = min(b1 + P[_P_TILE_B] * tile, max_dice[1])
    q0 = 0.0
    for hn in range(dn + 1):
        for fn in range(dn + 1 - hn):
            for cn in range(min(kcap, dn - hn - fn) + 1):
                pn = vtab[0, 0, dn, hn, fn, cn]
                if pn == 0.0:
                    continue
                for hb in range(db + 1):
                    for fb in range(db + 1 - hb):
                        for cb in range(min(kcap, db - hb - fb) + 1):
                            p = pn * vtab[0, 1, db, hb, fb, cb]
                            if p == 0.0:
                                continue
                            hits = hn + hb
                            if P[_P_RAVEN] == 1:
                                hits += 1                  # SEED §5.4 Raven Banner Hit
                            if P[_P_FAITH] and fn + fb > 0:
                                hits += 1                  # SEED §7.3 Faith card
                            hits -= min(c, hits)           # SEED §7.3 Foul Weather bank
                            c2 = cn + cb                   # banked against the English roll
                            n2 = n1 - min(fn, n1)          # 878 §4.5 Flees remove own type
                            b2 = b1 - min(fb, b1)
                            h2, t2, f2 = _english_take_hits(hits, h, t, f, P[_P_DIS])
                            if n2 == n and b2 == b and h2 == h and t2 == t and f2 == f:
                                p0[c2] += p
                                q0 += p
                            else:
                                for k in range(_NK):
                                    acc[k] += p * val[n2, b2, L, h2, t2, f2, c2, pend, nu, 1, k]
                                for dd in range(D + 1):    # Viking rolls kill no Vikings
                                    acch[dd] += p * valh[n2, b2, L, h2, t2, f2, c2, dd, pend, nu, 1]
    return q0


@jit
def _english_roll(val, valh, n, b, L, h, t, f, c, pend, nu, P, max_dice, etab, acc, acch, p0,
                  qn):
    """One English roll (878 §4.9 order); same contract as ``_viking_roll``, except that
    ``p0`` only collects outcomes that also keep every flag (the others lead to states with a
    flag used, solved before this one); ``qn[nu2, c2]`` collects every outcome that removes no
    unit, by the Vikings' next flag and bank (for the truncation bound)."""
    acc[:] = 0.0
    acch[:] = 0.0
    p0[:] = 0.0
    qn[:, :] = 0.0
    D = valh.shape[7] - 1
    kcap = P[_P_BANKS] - 1             # most Commands a roll can bank (0: not counted)
    dh = min(h, max_dice[2])
    dt = min(t, max_dice[3])
    df = min(f, max_dice[4])
    mode = 1 if (P[_P_RAGNAR] and pend == 1) else 0    # 878 §4.7 Ragnar: first English roll
    bfirst = P[_P_BFH] != 0 and pend >= 1              # 878 §4.6 first-hit rule pending
    q0 = 0.0
    for hh in range(dh + 1):
        for fh in range(dh + 1 - hh):
            for ch in range(min(kcap, dh - hh - fh) + 1):
                ph = etab[mode, 2, dh, hh, fh, ch]
                if ph == 0.0:
                    continue
                for ht in range(dt + 1):
                    for ft in range(dt + 1 - ht):
                        for ct in range(min(kcap, dt - ht - ft) + 1):
                            pht = ph * etab[mode, 3, dt, ht, ft, ct]
                            if pht == 0.0:
                                continue
                            for hf in range(df + 1):
                                for ff in range(df + 1 - hf):
                                    for cf in range(min(kcap, df - hf - ff) + 1):
                                        p = pht * etab[mode, 4, df, hf, ff, cf]
                                        if p == 0.0:
                                            continue
                                        fh2 = fh
                                        ft2 = ft
                                        ff2 = ff
                                        nu2 = nu
                                        ignored = 0
                                        if nu == 1 and fh + ft + ff > 0:   # 878 §4.8 Northumbria
                                            nu2 = 0
                                            ignored = 1
                                            if fh2 > 0:
                                                fh2 -= 1
                                            elif ft2 > 0:
                                                ft2 -= 1
                                            else:
                                                ff2 -= 1
                                        hits = hh + ht + hf
                                        if P[_P_FAITH] and (fh2 + ft2 + ff2 > 0
                                                            or (ignored and P[_P_FAITH_IGN])):
                                            hits += 1             # SEED §7.3 Faith; 878 §6.8
                                        hits -= min(c, hits)      # SEED §7.3 Foul Weather bank
                                        c2 = ch + ct + cf         # banked against the Vikings
                                        h2 = h - min(fh2, h)
                                        t2 = t - min(ft2, t)
                                        f2 = f - min(ff2, f)
                                        n2, b2, L2, deaths = _vikings_take_hits(
                                            hits, n, b, L, bfirst, P[_P_DIS], P[_P_DEATH_N],
                                            P[_P_DEATH_B])
                                        same = (n2 == n and b2 == b and L2 == L and h2 == h
                                                and t2 == t and f2 == f)
                                        # a Hit-less roll keeps the first-casualty rule waiting
                                        pend2 = 2 if (bfirst and P[_P_BFH_CAS] and hits == 0) \
                                            else 0
                                        if same:
                                            q0 += p
                                            qn[nu2, c2] += p
                                        if same and pend2 == pend and nu2 == nu:
                                            p0[c2] += p
                                        else:
                                            for k in range(_NK):
                                                acc[k] += p * val[n2, b2, L2, h2, t2, f2, c2,
                                                                  pend2, nu2, 0, k]
                                            for dd in range(D + 1):
                                                acch[dd] += p * valh[n2, b2, L2, h2, t2, f2, c2,
                                                                     min(dd + deaths, D), pend2,
                                                                     nu2, 0]
    return q0


@jit
def _solve(N0, B0, L0, H0, T0, F0, D, P, max_dice, vtab, etab):
    """Value of every state in the box below the start; no input checks.

    Returns ``(val, valh, qmax, q2max)``. ``val`` float64 of shape
    (N0+1, B0+1, L0+1, H0+1, T0+1, F0+1, C banked Commands, 2 or 3 pend, 2 nu, 2 side, 4):
    ``side`` 0 = Vikings to roll; last axis P(Vikings win), P(English win), P(both eliminated),
    E(rolls still to come). ``C`` is 1 unless Foul Weather banks Commands (SEED §7.3).
    ``valh`` float64 (..., C, D+1 deaths so far, 2, 2, 2): P(Valhalla's Glory).
    ``qmax`` / ``q2max``: the largest chance that one roll / two rolls in a row remove no unit
    (for the truncation bound). A state whose cycle cannot end gets NaN.
    """
    C = P[_P_BANKS]
    npend = _n_pend(P)
    val = np.zeros((N0 + 1, B0 + 1, L0 + 1, H0 + 1, T0 + 1, F0 + 1, C, npend, 2, 2, _NK))
    valh = np.zeros((N0 + 1, B0 + 1, L0 + 1, H0 + 1, T0 + 1, F0 + 1, C, D + 1, npend, 2, 2))
    track = P[_P_VALH] > 0
    # pend values to solve, dependencies first: 0, then 2 (first casualty awaited), then 1
    n_pend_solved = npend if (P[_P_RAGNAR] or P[_P_BFH]) else 1
    nu_hi = 1 if P[_P_NORTH] else 0
    acc = np.zeros((2, C, _NK))           # [side, bank] constant terms of the cycle block
    acch = np.zeros((2, C, D + 1))
    p0 = np.zeros((2, C, C))              # [side, bank, next bank]: no unit changed
    qn = np.zeros((C, 2, C))              # [bank, next nu, next bank]: English, no unit removed
    # P(one roll removes no unit) per state, for the two-roll truncation bound
    qarr = np.zeros((N0 + 1, B0 + 1, L0 + 1, H0 + 1, T0 + 1, F0 + 1, C, npend, 2, 2))
    qmax = 0.0
    q2max = 0.0
    for n in range(N0 + 1):
        for b in range(B0 + 1):
            for L in range(L0 + 1):
                for h in range(H0 + 1):
                    for t in range(T0 + 1):
                        for f in range(F0 + 1):
                            if n + b + L == 0 or h + t + f == 0:
                                _terminal_fill(val, valh, n, b, L, h, t, f, track)
                                continue
                            for pi in range(n_pend_solved):
                                pend = pi if (pi == 0 or npend == 2) else 3 - pi
                                for nu in range(nu_hi + 1):
                                    for c in range(C):
                                        q0v = _viking_roll(val, valh, n, b, L, h, t, f, c, pend,
                                                           nu, P, max_dice, vtab, acc[0, c],
                                                           acch[0, c], p0[0, c])
                                        q0e = _english_roll(val, valh, n, b, L, h, t, f, c, pend,
                                                            nu, P, max_dice, etab, acc[1, c],
                                                            acch[1, c], p0[1, c], qn[c])
                                        qmax = max(qmax, q0v, q0e)
                                        qarr[n, b, L, h, t, f, c, pend, nu, 0] = q0v
                                        qarr[n, b, L, h, t, f, c, pend, nu, 1] = q0e
                                        acc[0, c, _K_ROLLS] += 1.0
                                        acc[1, c, _K_ROLLS] += 1.0
                                    _solve_block(val, valh, n, b, L, h, t, f, pend, nu, acc,
                                                 acch, p0)
                                    # two rolls in a row that remove no unit (truncation bound)
                                    for c in range(C):
                                        w_v = 0.0
                                        w_e = 0.0
                                        for c2 in range(C):
                                            w_v += (p0[0, c, c2]
                                                    * qarr[n, b, L, h, t, f, c2, pend, nu, 1])
                                            for nu2 in range(2):
                                                w_e += (qn[c, nu2, c2]
                                                        * qarr[n, b, L, h, t, f, c2, 0, nu2, 0])
                                        q2max = max(q2max, w_v, w_e)
    return val, valh, qmax, q2max


@jit
def _n_pend(P):
    """Values of the ``pend`` state axis: 3 when the first-hit rule can outlast the first
    English roll (``berserker_first_hit_scope=first_casualty``), else 2."""
    return 3 if (P[_P_BFH] and P[_P_BFH_CAS]) else 2


@jit
def _solve_block(val, valh, n, b, L, h, t, f, pend, nu, acc, acch, p0):
    """Solve the "no unit changed" cycle of one unit state and flag pair exactly; no checks.

    Unknowns x[side, bank]; x = acc + sum p0[side, bank, bank2] x[other side, bank2]. With one
    bank (no Foul Weather) this is the 2x2 system V = a_v + p0_v E, E = a_e + p0_e V, solved in
    closed form (the geometric series of self-loops); otherwise by Gaussian elimination.
    """
    C = acc.shape[1]
    if C == 1:
        p0v = p0[0, 0, 0]
        p0e = p0[1, 0, 0]
        den = 1.0 - p0v * p0e
        ok = den > 1e-300
        for k in range(acc.shape[2]):
            vv = (acc[0, 0, k] + p0v * acc[1, 0, k]) / den if ok else np.nan
            val[n, b, L, h, t, f, 0, pend, nu, 0, k] = vv
            val[n, b, L, h, t, f, 0, pend, nu, 1, k] = acc[1, 0, k] + p0e * vv
        for dd in range(acch.shape[2]):
            vv = (acch[0, 0, dd] + p0v * acch[1, 0, dd]) / den if ok else np.nan
            valh[n, b, L, h, t, f, 0, dd, pend, nu, 0] = vv
            valh[n, b, L, h, t, f, 0, dd, pend, nu, 1] = acch[1, 0, dd] + p0e * vv
        return
    m = 2 * C
    A = np.eye(m)
    rhs = np.zeros((m, acc.shape[2] + acch.shape[2]))
    for s in range(2):
        for c in range(C):
            i = s * C + c
            for c2 in range(C):
                A[i, (1 - s) * C + c2] -= p0[s, c, c2]
            for k in range(acc.shape[2]):
                rhs[i, k] = acc[s, c, k]
            for dd in range(acch.shape[2]):
                rhs[i, acc.shape[2] + dd] = acch[s, c, dd]
    x = _gauss_solve(A, rhs)
    for s in range(2):
        for c in range(C):
            i = s * C + c
            for k in range(acc.shape[2]):
                val[n, b, L, h, t, f, c, pend, nu, s, k] = x[i, k]
            for dd in range(acch.shape[2]):
                valh[n, b, L, h, t, f, c, dd, pend, nu, s] = x[i, acc.shape[2] + dd]


@jit
def _gauss_solve(A, rhs):
    """Solve A x = rhs by Gaussian elimination with partial pivoting (A is small: at most
    16 x 16); NaN for a singular A (a cycle that cannot end). Overwrites A and rhs. No checks.
    Hand-written rather than np.linalg.solve, whose numba compilation takes far longer."""
    m = A.shape[0]
    for col in range(m):
        piv = col
        for r in range(col + 1, m):
            if abs(A[r, col]) > abs(A[piv, col]):
                piv = r
        if abs(A[piv, col]) <= 1e-300:
            return np.full(rhs.shape, np.nan)
        if piv != col:
            for j in range(m):
                A[col, j], A[piv, j] = A[piv, j], A[col, j]
            for j in range(rhs.shape[1]):
                rhs[col, j], rhs[piv, j] = rhs[piv, j], rhs[col, j]
        for r in range(col + 1, m):
            w = A[r, col] / A[col, col]
            if w != 0.0:
                for j in range(col, m):
                    A[r, j] -= w * A[col, j]
                for j in range(rhs.shape[1]):
                    rhs[r, j] -= w * rhs[col, j]
    x = np.zeros(rhs.shape)
    for r in range(m - 1, -1, -1):
        for j in range(rhs.shape[1]):
            acc = rhs[r, j]
            for k in range(r + 1, m):
                acc -= A[r, k] * x[k, j]
            x[r, j] = acc / A[r, r]
    return x


@jit
def _first_roll_from_end(val, valh, n, b, L, h, t, f, pend, nu, side, P, max_dice, vtab, etab):
    """A battle that starts with a side already empty still has its first roll (the engine
    rolls, then checks 878 §4.10): value of that one roll, Valhalla chance last. No checks."""
    C = val.shape[6]
    acc = np.zeros(_NK)
    acch = np.zeros(valh.shape[7])
    p0 = np.zeros(C)
    qn = np.zeros((2, C))
    if side == 0:
        _viking_roll(val, valh, n, b, L, h, t, f, 0, pend, nu, P, max_dice, vtab, acc, acch, p0)
    else:
        _english_roll(val, valh, n, b, L, h, t, f, 0, pend, nu, P, max_dice, etab, acc, acch, p0,
                      qn)
    out = np.zeros(_NK + 1)
    for c2 in range(C):      # no unit changed: the battle is over all the same
        for k in range(_NK):
            out[k] += p0[c2] * val[n, b, L, h, t, f, c2, pend, nu, side, k]
        out[_NK] += p0[c2] * valh[n, b, L, h, t, f, c2, 0, pend, nu, side]
    for k in range(_NK):
        out[k] += acc[k]
    out[_K_ROLLS] += 1.0
    out[_NK] += acch[0]
    return out


# ----------------------------------------------------------------------------- options → Spec
def _fyrd_draws(cards: tuple, k: int) -> dict:
    """{total Fyrd: probability} of ``k`` draws from the Fyrd deck without replacement (each
    draw uniform among the cards left; an empty deck is rebuilt, as the engine does)."""
    out: dict = {}

    def go(left: tuple, k: int, total: int, p: float):
        if k == 0:
            out[total] = out.get(total, 0.0) + p
            return
        if not left:
            left = tuple(cards)
        for i, c in enumerate(left):
            go(left[:i] + left[i + 1:], k - 1, total + c, p / len(left))

    go(tuple(cards), k, 0, 1.0)
    return out


def _rules(options) -> Rules:
    if isinstance(options, Rules):
        return options
    from vikingsim.core.options import resolve
    from vikingsim.games import battle878

    opts = resolve("battle878", battle878.GAME.options, options)
    return rules_from_options(opts)


def spec_from_rules(r: Rules) -> Spec:
    """Check that ``r`` is within the solver's reach and compile it; InputError otherwise."""
    base = Rules()
    bad = [f.name for f in fields(Rules)
           if f.name not in _HANDLED and getattr(r, f.name) != getattr(base, f.name)]
    if r.epic_card not in _EPIC_OK:
        bad.append(f"epic_card={r.epic_card}")
    n_draws = int(r.christians_wrath) + int(r.edmunds_martyrdom) + int(r.fyrd_card)
    if n_draws == 0:
        bad = [x for x in bad if x != "epic_deck"]     # Epic cards only come with a Fyrd draw
    if bad:
        raise InputError("the exact solver cannot handle " + ", ".join(bad) +
                         " (use Monte Carlo: vikingsim simulate battle878)")
    lag = int(r.lagertha)
    units = [r.norsemen + 2 * lag, r.berserkers + lag, r.fort * r.fort_hits + r.settlement,
             r.housecarls, r.thegns, r.fyrd]                # SEED §9.2 Lagertha 2 N + 1 B
    if r.epic_card == "reinforcements":                     # SEED §7.3 Reinforcements
        for i in (0, 1, 3, 4):
            units[i] += r.reinforcements_units
        units[5] += r.reinforcements_fyrd
    elif r.epic_card == "epic_battle":                      # SEED §7.3 Epic Battle
        units[0] += r.adj_norsemen
        units[1] += r.adj_berserkers
        units[3] += r.adj_housecarls
        units[4] += r.adj_thegns
    fyrd_extra = _fyrd_draws(tuple(r.fyrd_cards), n_draws) if n_draws else {0: 1.0}

    faces = np.zeros((5, 4))
    for d in range(5):
        c = r.face_counts(DIE_LETTERS[d])
        faces[d] = [c[Face.HIT], c[Face.FLEE], c[Face.COMMAND], c[Face.BLANK]]
    faces /= 6.0
    raven = {0: 1.0}
    if r.raven_banner:     # SEED §5.4: one Thegn die at the start; Command (or Blank) does nothing
        raven = {1: faces[3, 0], 2: faces[3, 1], 0: 1.0 - faces[3, 0] - faces[3, 1]}

    # which Viking Hits are deaths (SEED §6.2 Valhalla's Glory counts deaths, 878 §3.6)
    death_n = death_b = 1
    if r.epic_card == "single_combat":
        death_n = death_b = 0
    if r.military_reform:                    # SEED §3.3: the active faction's Hit units flee
        unit = r.reform_unit
        if unit == "auto" and r.attacker == "vikings":
            unit = "norsemen" if units[0] >= units[1] else "berserkers"
        death_n = 0 if unit == "norsemen" else death_n
        death_b = 0 if unit == "berserkers" else death_b
    flags = np.zeros(_N_P, np.int64)
    flags[_P_TILE_N] = 1 if r.fort else 0        # 878 §4.4; a Settlement adds a Berserker die only
    flags[_P_TILE_B] = 1
    flags[_P_BFH] = int(r.berserker_rule_on)               # base 4.5; Seidr switches it off
    flags[_P_BFH_CAS] = int(r.berserker_first_hit_scope == "first_casualty")
    flags[_P_RAGNAR] = int(r.ragnar)
    flags[_P_NORTH] = int(r.northumbria)
    flags[_P_FAITH] = int(r.epic_card == "faith")
    flags[_P_FAITH_IGN] = int(r.faith_counts_ignored_flee)
    flags[_P_DIS] = int(r.epic_card == "disorganized_combat")
    flags[_P_FOUL] = int(r.epic_card == "foul_weather")
    md = r.max_dice                          # banks: 0..most dice one side rolls (878 §4.3)
    flags[_P_BANKS] = 1 + (max(md[0] + md[1], md[2] + md[3] + md[4]) if flags[_P_FOUL] else 0)
    flags[_P_DEATH_N] = death_n
    flags[_P_DEATH_B] = death_b
    flags[_P_VALH] = r.valhalla_deaths if (death_n or death_b) and \
        units[0] * death_n + units[1] * death_b >= r.valhalla_deaths else 0
    vik_first = (r.attacker == "vikings") == (r.first_roller == "attacker")
    edmund = -1 if not r.edmunds_faith else (1 if r.edmunds_faith_side == "english" else 0)
    # flags[_P_RAVEN] stays 0 here: ``solve`` sets it for each Raven Banner case in turn
    return Spec(units=tuple(int(u) for u in units), fyrd_extra=fyrd_extra, raven=raven,
                faces=faces, max_dice=np.array(r.max_dice, np.int64), flags=flags,
                edmund_side=edmund, english_first=not vik_first, max_rolls=int(r.max_rolls))


# ----------------------------------------------------------------------------- solve
def _binom_cdf_below(k: int, m: int, p: float) -> float:
    """P(Binomial(m, p) < k), summed in log space."""
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0 if k <= m else 1.0
    s = 0.0
    for i in range(min(k, m + 1)):
        s += math.exp(math.lgamma(m + 1) - math.lgamma(i + 1) - math.lgamma(m - i + 1)
                      + i * math.log(p) + (m - i) * math.log1p(-p))
    return min(1.0, s)


def solve(spec: Spec) -> np.ndarray:
    """Mixture over the random setup of the value vector at the start of ``spec``:
    [P(Vikings win), P(English win), P(both eliminated), E(rolls), P(Valhalla's Glory)]."""
    N0, B0, L0, H0, T0, F0 = spec.units
    Fmax = F0 + max(spec.fyrd_extra)
    D = int(spec.flags[_P_VALH])
    C = int(spec.flags[_P_BANKS])
    size = ((N0 + 1) * (B0 + 1) * (L0 + 1) * (H0 + 1) * (T0 + 1) * (Fmax + 1)
            * 4 * _n_pend(spec.flags) * C * (_NK + D + 1))
    if size > MAX_VALUES:
        raise InputError(f"battle too large for the exact solver ({size:,} table entries > "
                         f"{MAX_VALUES:,}); use Monte Carlo (vikingsim simulate battle878)")
    vtab, etab = _dice_tables(spec)
    pend = 1 if (spec.flags[_P_RAGNAR] or spec.flags[_P_BFH]) else 0
    nu = int(spec.flags[_P_NORTH])
    side = 1 if spec.english_first else 0
    total = np.zeros(_NK + 1)
    qmax = q2max = 0.0
    for mode, w_mode in spec.raven.items():
        if w_mode <= 0.0:
            continue
        flags = spec.flags.copy()
        flags[_P_RAVEN] = mode
        val, valh, q, q2 = _solve(N0, B0, L0, H0, T0, Fmax, D, flags, spec.max_dice, vtab, etab)
        qmax, q2max = max(qmax, q), max(q2max, q2)
        for extra, w in spec.fyrd_extra.items():
            F = F0 + extra
            if N0 + B0 + L0 == 0 or H0 + T0 + F == 0:
                v = _first_roll_from_end(val, valh, N0, B0, L0, H0, T0, F, pend, nu, side,
                                         flags, spec.max_dice, vtab, etab)
            else:
                v = np.append(val[N0, B0, L0, H0, T0, F, 0, pend, nu, side],
                              valh[N0, B0, L0, H0, T0, F, 0, 0, pend, nu, side])
            total += w_mode * w * v
    if not np.all(np.isfinite(total)):
        raise InputError("this face table lets a battle go on for ever (no die can remove a "
                         "unit); the engine reports such battles as truncated; use Monte Carlo")
    # 878 §4.10 guard: the engine stops at max_rolls. A battle removes at most U units and
    # tile Hits, and every roll (every pair of rolls) removes one with probability at least
    # 1 - qmax (1 - q2max) whatever happened before, so P(truncated) is at most
    # P(Binomial(max_rolls, 1 - qmax) < U) and P(Binomial(max_rolls // 2, 1 - q2max) < U).
    # (Foul Weather can make a single roll certain to change nothing; two rolls cannot.)
    U = N0 + B0 + L0 + H0 + T0 + Fmax
    bound = min(_binom_cdf_below(U, spec.max_rolls, 1.0 - qmax),
                _binom_cdf_below(U, spec.max_rolls // 2, 1.0 - q2max))
    if bound > TRUNCATION_TOL:
        raise InputError(f"max_rolls={spec.max_rolls} may truncate battles (P up to {bound:.2g}); "
                         "the exact solver assumes no cap: raise max_rolls or use Monte Carlo")
    return total


def odds(options) -> dict:
    """Exact outcome probabilities of one battle under the default policy (both sides).

    Parameters
    ----------
    options : dict or Rules
        The engine's flat options (``vikingsim games`` lists them; defaults filled in), or a
        ``Rules``. Options outside the solver's reach raise ``InputError`` naming them.

    Returns
    -------
    dict
        The engine summary's outcome keys (``p_vikings_win``, ``p_english_win``,
        ``p_both_eliminated``; 0.0 for outcomes the default policy cannot produce:
        ``p_gods_peace``, ``p_vikings_retreat``, ``p_english_retreat``; ``p_truncated`` is 0.0,
        the solver having checked it is below ``TRUNCATION_TOL``), ``p_valhalla_glory``
        (SEED §6.2) and ``mean_rolls`` (expected rolls per battle), all exact up to float
        rounding.

    Examples
    --------
    >>> r = odds({"norsemen": 1, "berserkers": 0, "housecarls": 0, "thegns": 1})
    >>> round(r["p_vikings_win"], 6), round(r["mean_rolls"], 6)      # 9/16 and 3/2 by hand
    (0.5625, 1.5)
    """
    v = solve(spec_from_rules(_rules(options)))
    out = {f"p_{key}": 0.0 for key in OUTCOME_KEYS}
    out["p_vikings_win"] = float(v[_K_VIK])
    out["p_english_win"] = float(v[_K_ENG])
    out["p_both_eliminated"] = float(v[_K_BOTH])
    out["p_valhalla_glory"] = float(v[_K_VALH])
    out["mean_rolls"] = float(v[_K_ROLLS])
    return out


def odds_grid(options: dict, **axes) -> "pd.DataFrame":
    """Exact odds over a grid of option values, as a tidy frame (one row per cell).

    Parameters
    ----------
    options : dict
        Fixed options of every cell.
    **axes : iterable
        Option name -> values, e.g. ``norsemen=range(1, 11), housecarls=range(1, 11)``.

    Returns
    -------
    DataFrame
        One column per axis, then every key of :func:`odds`; rows in ``itertools.product``
        order. Feed it to :func:`vikingsim.plots.odds_heatmap`.

    Examples
    --------
    >>> df = odds_grid({"berserkers": 0, "thegns": 0}, norsemen=[1, 2], housecarls=[1, 2])
    >>> list(df.columns[:3])
    ['norsemen', 'housecarls', 'p_vikings_win']
    """
    import itertools

    import pandas as pd

    names = list(axes)
    rows = []
    for values in itertools.product(*(list(axes[k]) for k in names)):
        cell = dict(zip(names, values))
        rows.append({**cell, **odds({**options, **cell})})
    return pd.DataFrame(rows)


def optimal(options) -> dict:
    """Exact best play (issue 21 §3): each side's maximin guarantee, see ``optimal.py``.

    Parameters
    ----------
    options : dict or Rules
        As for :func:`odds`.

    Returns
    -------
    dict
        ``vikings_guarantee`` (the value of the Viking game: the largest P(Vikings win or
        English retreat) the Vikings can make sure of, whatever the English do),
        ``english_guarantee`` (the same for the English: P(English win, Vikings retreat or
        God's Peace)), the largest gain a deviation from the optimal table was found to
        give in each game, and ``optimised`` (which decisions were optimised).

    Examples
    --------
    >>> r = optimal({"norsemen": 1, "berserkers": 0, "housecarls": 0, "thegns": 1})
    >>> round(r["vikings_guarantee"], 6)          # = odds(): retreating never pays, 9/16
    0.5625
    """
    from vikingsim.games.battle878 import optimal as O

    return O.optimal(_rules(options))
