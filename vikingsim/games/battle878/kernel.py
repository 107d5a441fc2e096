"""Private kernels: one 878 battle resolved to the end (878 §4), with every expansion hook.

No input checks here (``setup`` validated everything), and no allocation (``nrt=False``): the
caller passes a block's scratch ``BattleState`` (``new_state``) and ``Outputs``. Kernels read
the rules from ``CompiledRules`` (``rules.compile()``: face tables counted once, Hit chances,
``RuleSlot`` integers) and the policies from ``kinds``/``params`` (``policies.PolicyParam``).

Flow: ``_play_block`` plays each battle with ``_battle_base`` (base rules and default
policies: the lean path on scalars) or ``_battle``: ``_reset``, ``_setup_battle`` (cards,
Raven Banner, Æthelred), then one ``_one_roll`` per roll: ``_raven_flee`` → ``_roll_side`` →
``_edmunds_faith`` → ``_ragnar`` → ``_northumbria`` → ``_runes_and_prayer`` → ``_roll_totals``
(Martyrdom, Raven Hit, Faith, Foul Weather) → ``_own_flees`` → ``_resolve_hits`` →
``_command_retreats`` → ``_end_check``. Both paths roll with ``_roll`` and allocate Hits with
``_first_hit_rule`` and ``_lose_in_order``.

Streams: battle dice, Runes/Prayer dice, Fyrd-deck draws and the Raven Banner die use ``dice``
(the dice stream); every policy coin uses ``pol`` (the policy stream). The plain-Python
``reference.py`` makes the same draws in the same order, so results are bit-identical.

Draw order of one battle (the contract with ``reference.py``):
  setup: forced Epic card; Fyrd-deck draws (deck built lazily at the first draw: epic_deck
  Epic cards picked by partial Fisher-Yates, then one uniform pick among the remaining cards
  per draw) for Christian's Wrath, Edmund's Martyrdom, fyrd_card, Arm Ring, in that order;
  the Raven Banner Thegn die.
  each roll: battle dice per unit slot 0..5 (one d6 per die); Edmund's Faith re-rolls
  (slot order); Runes/Prayer dice (faction order: Norsemen, Berserker / Housecarl, Thegn);
  spending (rolling side first): Omens re-rolls, Defend-the-Faith Fyrd draws.
"""
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from vikingsim.core.jit import jit
from vikingsim.core.rng import _d6
from vikingsim.games.battle878.optimal_rp import _after_viking_dice, _omens_dp, _terminal
from vikingsim.games.battle878.policies import (SPEND_GP, SPEND_SCRIPTED, Element, PolicyKind,
                                                PolicyParam)
from vikingsim.games.battle878.rules import (
    ENGLISH, LAGERTHA_BERSERKERS, LAGERTHA_NORSEMEN, N_EPIC, N_UNITS, PACK_BITS, UNIT_SIDE, VIKINGS,
    Die, Epic, Face, Outcome, RuneFace, RuleSlot, Unit)

V, E = VIKINGS, ENGLISH
UN, UB, UH, UT, UF, UV = (int(u) for u in Unit)
STRUCT = N_UNITS                       # pseudo-target: the Fort/Settlement (878 §4.4)
HIT, FLEE = int(Face.HIT), int(Face.FLEE)
RUNE, CONV, MART = int(RuneFace.RUNE), int(RuneFace.CONVERSION), int(RuneFace.MARTYRDOM)
PACK_MASK = (1 << PACK_BITS) - 1
EB_DIS = 1 << int(Epic.DISORGANIZED_COMBAT)
EB_EPIC = 1 << int(Epic.EPIC_BATTLE)
EB_FAITH = 1 << int(Epic.FAITH)
EB_FOUL = 1 << int(Epic.FOUL_WEATHER)
EB_REINF = 1 << int(Epic.REINFORCEMENTS)
EB_SINGLE = 1 << int(Epic.SINGLE_COMBAT)
EB_TRAIT = 1 << int(Epic.TRAITORS)
K_DEFAULT, K_NEVER, K_GREEDY, K_SMART, K_RETREAT, K_RANDOM, K_OPTIMAL = (
    int(k) for k in PolicyKind)
(EL_RETREAT, EL_RUNES, EL_OMENS, EL_RAGE, EL_RAGNAROK, EL_PRAYER, EL_FIV, EL_DEFEND, EL_CONVERT,
 EL_PEACE) = (int(e) for e in Element)
# what a roll returns: an Outcome, or GOING on
(VIKINGS_WIN, ENGLISH_WIN, BOTH_ELIMINATED, GODS_PEACE, VIKINGS_RETREAT, ENGLISH_RETREAT,
 TRUNCATED) = (int(o) for o in Outcome)
GOING = -1
# Raven Banner Thegn die (SEED §5.4)
RAVEN_NONE, RAVEN_HIT, RAVEN_FLEE = 0, 1, 2
LINEN_MOVES = 2                        # SEED §5.2 Linen Clothes: units moved per Command
NO_UNIT = -1
#: slots of the in-roll Omens memo of a block (policy optimal, 878 §5.2; _omens_choices): a
#: prime, so that neighbouring roll keys fall in different slots
OMENS_MEMO = 251


class Effect(IntEnum):
    """Columns of ``out["effects"]``: Runes/Prayer effects bought and dice rolled (SEED §4)."""
    OMENS = 0
    BATTLE_RAGE = 1
    RAGNAROK = 2
    MARTYRDOM = 3
    FAITH_IN_VICTORY = 4
    DEFEND_THE_FAITH = 5
    CONVERT = 6
    GODS_PEACE = 7
    RUNES_ROLLED = 8
    PRAYER_ROLLED = 9


N_EFF = len(Effect)
EFFECT_NAMES = tuple(e.name.lower() for e in Effect)


class StateSlot(IntEnum):
    """Scalars of one battle (``BattleState.sv``)."""
    EPIC = 0            # Epic cards in force, bit 1 << Epic
    TRAITOR = 1         # Unit slot fighting for the defenders (SEED §7.3), NO_UNIT for none
    DECK_N = 2          # cards in the Fyrd deck, -1 before the first draw
    DECK_POS = 3        # cards drawn from it
    STRUCT = 4          # Hits the Fort/Settlement can still take (SEED §1.4-1.5)
    RAVEN = 5           # Raven Banner die: RAVEN_NONE / RAVEN_HIT / RAVEN_FLEE
    REFORM_UNIT = 6     # slot whose Hit units flee (Æthelred, SEED §3.3), NO_UNIT for none
    FIRST_HIT = 7       # Berserker first-hit rule still pending (878 §4.6)
    NORTHUMBRIA = 8     # the first English Flee is still to be ignored (878 §4.8)
    FIRST_ENGLISH = 9   # the English have not rolled yet (Ragnar, 878 §4.7)
    RUNES_POOL = 10     # Runes dice not on the Viking card (SEED §4.1)
    RUNES = 11          # Rune faces on the Viking card
    RUNES_CONV = 12     # Viking dice showing Conversion, on the English Prayer card
    PRAYER_POOL = 13    # Prayer dice not on the English card
    FAITH = 14          # Faith faces on the English card
    PRAYER_CONV = 15    # English dice showing Conversion
    RAGNAROK = 16       # Ragnarök bought (SEED §4.3)
    RESERVE = 17        # Berserkers in the Reserve Pile
    BANK_VIKINGS = 18   # Foul Weather (SEED §7.3): Commands cancelling the Vikings' next Hits
    BANK_ENGLISH = 19   # ... the English next Hits (BANK_VIKINGS + side)


N_STATE = len(StateSlot)


class BattleState(NamedTuple):
    """Scratch state of one battle (int64 arrays, reused by a block's battles)."""
    cnt: np.ndarray         # (N_UNITS,) units in the battle per Unit slot
    own: np.ndarray         # (N_UNITS,) side fighting with each slot (Traitors change it)
    dead: np.ndarray        # (N_UNITS,)
    fled: np.ndarray        # (N_UNITS,)
    ret: np.ndarray         # (N_UNITS,) Command-moved out
    joined: np.ndarray      # (N_UNITS,)
    left: np.ndarray        # (N_UNITS,) left by Battle Rage or Convert
    h: np.ndarray           # (N_UNITS,) this roll's Hits per slot
    fl: np.ndarray          # (N_UNITS,) Flees
    c: np.ndarray           # (N_UNITS,) Commands
    nd: np.ndarray          # (N_UNITS,) dice rolled
    deck: np.ndarray        # (n_fyrd_cards + N_EPIC,) Fyrd deck; Epic e coded -1 - e
    epic_order: np.ndarray  # (N_EPIC,) scratch of the Epic-card shuffle
    eff: np.ndarray         # (N_EFF,) Effect tallies
    sv: np.ndarray          # (N_STATE,) StateSlot scalars
    opt: np.ndarray         # int8 (5, n, b, h, t, r, rc, fa, pc, pend, rag): policy
    #                         optimal's decision table (Setup.table, optimal_rp)
    ov: np.ndarray          # float64 (n, b, h, t, r, rc, fa, pc, pend, rag): the Viking seat's
    #                         game value with the English to roll (Setup.omens; its Omens
    #                         choice, 878 §5.2); shape (1,) * 10 when Omens is scripted
    otri: np.ndarray        # float64 (2, M+1, M+1, M+1): P(x Hits, y Flees | m dice), N / B
    ow: np.ndarray          # float64 (hits, fN, fB, r): scratch, the Omens leaf values
    ou: np.ndarray          # float64 (r, aN, fN, aB, fB): scratch, in-roll values
    oc: np.ndarray          # int64 (OMENS_MEMO, r, aN, fN, aB, fB): in-roll choices of the
    #                         in-roll DPs of this block's battles, memoised (_optimal_omens)
    okey: np.ndarray        # int64 (OMENS_MEMO,): the roll key of each ``oc`` slot, -1 none
    otop: np.ndarray        # int64 (OMENS_MEMO,): the Runes levels 0..otop it holds
    op: np.ndarray          # float64 (2, M+1, ..., M+1): scratch, re-roll values (_omens_dp)
    og: np.ndarray          # int64 (1,): the game the Viking seat's Omens serves (0 / 1);
    #                         -1 when Omens is scripted


class Outputs(NamedTuple):
    """Per-battle outputs (first axis: game); the arrays ``battle878.allocate`` makes."""
    outcome: np.ndarray     # int8 Outcome
    rolls: np.ndarray       # int32
    alive: np.ndarray       # int16 (n, N_UNITS)
    dead: np.ndarray
    fled: np.ndarray
    retreated: np.ndarray
    joined: np.ndarray
    left: np.ndarray
    structure: np.ndarray   # int8 Fort/Settlement Hits left
    epic: np.ndarray        # int16 Epic mask
    traitor: np.ndarray     # int8 Unit slot or -1
    effects: np.ndarray     # int16 (n, N_EFF)


def new_state(cr, table=None, omens=None) -> BattleState:
    """Scratch state for one block's battles (``_reset`` fills it per battle); ``table``: the
    optimal policy's decision table (``Setup.table``; a placeholder when None); ``omens``:
    ``Setup.omens`` (values, P table, game) for the Viking seat's Omens choice, None when
    scripted."""
    def z(n):
        return np.zeros(n, np.int64)
    if table is None:
        table = np.zeros((5,) + (1,) * 10, np.int8)
    if omens is None:
        ov, otri, og = np.zeros((1,) * 10), np.zeros((2, 1, 1, 1)), -1
    else:
        ov, otri, og = omens
    R = ov.shape[4] - 1
    mn, mb = int(cr.max_dice[Die.NORSEMEN]), int(cr.max_dice[Die.BERSERKER])
    nm = OMENS_MEMO if omens is not None else 1
    return BattleState(*(z(N_UNITS) for _ in range(11)), z(cr.fyrd_cards.shape[0] + N_EPIC),
                       z(N_EPIC), z(N_EFF), z(N_STATE), table, ov, otri,
                       np.zeros((mn + mb + 1, mn + 1, mb + 1, R + 1)),
                       np.zeros((R + 1, mn + 1, mn + 1, mb + 1, mb + 1)),
                       np.zeros((nm, R + 1, mn + 1, mn + 1, mb + 1, mb + 1), np.int64),
                       np.full(nm, -1, np.int64), np.zeros(nm, np.int64),
                       np.zeros((2,) + (max(mn, mb) + 1,) * 5), np.array([og], np.int64))


# ---------------------------------------------------------------- shared by both paths
@jit(inline="always", nrt=False)
def _roll(pack, d, n, dice):
    """``n`` dice of die ``d`` (``n`` dice draws): their packed counts, one add per die."""
    acc = 0
    for _ in range(n):
        acc += pack[d, _d6(dice) - 1]
    return acc


@jit(inline="always", nrt=False)
def _hits(acc):
    return acc & PACK_MASK


@jit(inline="always", nrt=False)
def _flees(acc):
    return (acc >> PACK_BITS) & PACK_MASK


@jit(inline="always", nrt=False)
def _commands(acc):
    return acc >> (2 * PACK_BITS)


@jit(inline="always", nrt=False)
def _structure_die(k, struct, fort):
    """878 §4.4: a standing Fort adds a Norsemen and a Berserker die, a Settlement a
    Berserker die, to the Vikings' own types."""
    return 1 if struct > 0 and (k == UB or (k == UN and fort)) else 0


@jit(inline="always", nrt=False)
def _n_dice(units, cap):
    """878 §4.3: min(units, max dice of the type)."""
    return units if units < cap else cap


@jit(inline="always", nrt=False)
def _lose_in_order(hits, a, b, c):
    """878 §4.6 loss order over three unit types holding ``a``, ``b``, ``c`` units: each Hit
    takes a unit of the first type with any left. Returns (lost a, lost b, lost c, Hits left)."""
    xa = hits if hits < a else a
    hits -= xa
    xb = hits if hits < b else b
    hits -= xb
    xc = hits if hits < c else c
    return xa, xb, xc, hits - xc


@jit(inline="always", nrt=False)
def _first_hit_rule(pending, hits, berserkers, until_casualty):
    """Base rule 4.5 (878 §4.6) on an English roll: while pending, its first Hit kills a
    Berserker. Returns (Berserkers taken, 0 or 1; still pending): the rule lapses after this
    roll, or with ``until_casualty`` (SEED §5.4 'first casualty') only after a roll with Hits."""
    take = 1 if pending and hits > 0 and berserkers > 0 else 0
    return take, pending and hits == 0 and until_casualty


@jit(inline="always", nrt=False)
def _standing(va, ea):
    """878 §4.10 on the units left (``va`` Vikings with the Fort/Settlement, ``ea`` English):
    an Outcome, or GOING while both sides stand."""
    if va == 0:
        return BOTH_ELIMINATED if ea == 0 else ENGLISH_WIN
    return VIKINGS_WIN if ea == 0 else GOING


@jit(inline="always", nrt=False)
def _first_roller(ri):
    """878 §4.2: the defender rolls first (DEFAULT), or the attacker."""
    att = ri[RuleSlot.ATTACKER]
    return (1 - att) if ri[RuleSlot.FIRST_ROLLER] == 0 else att


@jit(inline="always", nrt=False)
def _structure_hits(ri):
    """SEED §1.4-1.5: the Hits a Fort (fort_hits) or a Settlement (one) takes."""
    return ri[RuleSlot.FORT] * ri[RuleSlot.FORT_HITS] + ri[RuleSlot.SETTLEMENT]


@jit(inline="always", nrt=False)
def _ignore_first_flee(f1, f2, f3):
    """878 §4.8 Northumbria on the base path: the first of the Housecarl, Thegn and Fyrd Flees
    (f1, f2, f3; at least one) is ignored."""
    if f1 > 0:
        return f1 - 1, f2, f3
    if f2 > 0:
        return f1, f2 - 1, f3
    return f1, f2, f3 - 1


@jit(nrt=False)
def _fast_ok(ri, pkind):
    """True when only base rules are on (878 §4 plus Fort/Settlement, Ragnar, Northumbria and
    the first-hit rule) and both policies are default/never: ``_battle_base`` then applies."""
    for seat in range(pkind.shape[0]):
        if pkind[seat] != K_DEFAULT and pkind[seat] != K_NEVER:
            return False
    for i in (RuleSlot.EPIC_MASK, RuleSlot.CHRISTIANS_WRATH, RuleSlot.EDMUNDS_MARTYRDOM,
              RuleSlot.FYRD_CARD, RuleSlot.ARM_RING, RuleSlot.RAVEN_BANNER,
              RuleSlot.EDMUNDS_FAITH, RuleSlot.MILITARY_REFORM, RuleSlot.RUNES_PRAYER):
        if ri[i] != 0:
            return False
    return True


@jit(inline="always", nrt=False)
def _allowed(pp, s, e):
    """Side ``s``'s policy may use Element ``e`` (not in its ``forbid``, restricted play)."""
    return (int(pp[s, PolicyParam.FORBID]) >> e) & 1 == 0


# ---------------------------------------------------------------- the base battle
@jit(nrt=False)
def _battle_base(cr, st, dice):
    """The base battle (878 §4.1-§4.10) on scalars: the lean hot path, under the rules
    ``_fast_ok`` allows (same draws and results as ``_battle`` there). Writes alive, dead and
    fled of slots 0..4 into ``st``; returns (outcome, rolls, structure left)."""
    ri, pack, md = cr.ints, cr.face_pack, cr.max_dice
    lag = ri[RuleSlot.LAGERTHA]
    n = ri[RuleSlot.NORSEMEN] + LAGERTHA_NORSEMEN * lag              # SEED §9.2
    b = ri[RuleSlot.BERSERKERS] + LAGERTHA_BERSERKERS * lag
    hc, th, fy = ri[RuleSlot.HOUSECARLS], ri[RuleSlot.THEGNS], ri[RuleSlot.FYRD]
    fort, struct = ri[RuleSlot.FORT], _structure_hits(ri)
    dn = db = dh = dt = df = fn = fb = fh = ft = ff = 0
    pending = ri[RuleSlot.BERSERKER_FIRST_HIT] != 0
    until_cas = ri[RuleSlot.FIRST_HIT_UNTIL_CASUALTY] != 0
    north, ragnar = ri[RuleSlot.NORTHUMBRIA] != 0, ri[RuleSlot.RAGNAR] != 0
    side, first_eng = _first_roller(ri), True
    rolls, outcome = 0, TRUNCATED
    while rolls < ri[RuleSlot.MAX_ROLLS]:      # 878 §4.10 guard: truncated, not a result
        rolls += 1
        if side == V:
            n1 = _n_dice(n + _structure_die(UN, struct, fort), md[Die.NORSEMEN])
            n2 = _n_dice(b + _structure_die(UB, struct, fort), md[Die.BERSERKER])
            a1, a2 = _roll(pack, Die.NORSEMEN, n1, dice), _roll(pack, Die.BERSERKER, n2, dice)
            x = min(_flees(a1), n)                   # 878 §4.5 own Flees
            n, fn = n - x, fn + x
            x = min(_flees(a2), b)
            b, fb = b - x, fb + x
            xf, xt, xh, _ = _lose_in_order(_hits(a1) + _hits(a2), fy, th, hc)   # 878 §4.6
            fy, th, hc, df, dt, dh = fy - xf, th - xt, hc - xh, df + xf, dt + xt, dh + xh
        else:
            a1 = _roll(pack, Die.HOUSECARL, _n_dice(hc, md[Die.HOUSECARL]), dice)
            a2 = _roll(pack, Die.THEGN, _n_dice(th, md[Die.THEGN]), dice)
            a3 = _roll(pack, Die.FYRD, _n_dice(fy, md[Die.FYRD]), dice)
            f1, f2, f3 = _flees(a1), _flees(a2), _flees(a3)
            if ragnar and first_eng:                 # 878 §4.7 Commands count as Flees
                f1, f2, f3 = f1 + _commands(a1), f2 + _commands(a2), f3 + _commands(a3)
            if north and f1 + f2 + f3 > 0:           # 878 §4.8: Housecarl, Thegn, Fyrd
                north = False
                f1, f2, f3 = _ignore_first_flee(f1, f2, f3)
            x1, x2, x3 = min(f1, hc), min(f2, th), min(f3, fy)
            hc, th, fy, fh, ft, ff = hc - x1, th - x2, fy - x3, fh + x1, ft + x2, ff + x3
            hits = _hits(a1) + _hits(a2) + _hits(a3)
            take, pending = _first_hit_rule(pending, hits, b, until_cas)
            xn, xb, xs, _ = _lose_in_order(hits - take, n, b - take, struct)
            n, b, struct, dn, db = n - xn, b - take - xb, struct - xs, dn + xn, db + take + xb
            first_eng = False
        outcome = _standing(n + b + struct, hc + th + fy)
        if outcome != GOING:
            break
        side = 1 - side
    if outcome == GOING:
        outcome = TRUNCATED
    for k, alive, dead, fled in ((UN, n, dn, fn), (UB, b, db, fb), (UH, hc, dh, fh),
                                 (UT, th, dt, ft), (UF, fy, df, ff)):
        st.cnt[k], st.dead[k], st.fled[k] = alive, dead, fled
    return outcome, rolls, struct


# ---------------------------------------------------------------- state helpers
@jit(inline="always", nrt=False)
def _held(st, k, side):
    """Units of slot ``k`` fighting for ``side`` (0 if the slot is the other side's)."""
    return st.cnt[k] if st.own[k] == side else 0


@jit(inline="always", nrt=False)
def _alive(st, side):
    """Units fighting for ``side``; the Fort/Settlement counts as a Viking unit (SEED §1.5)."""
    t = st.sv[StateSlot.STRUCT] if side == V else 0
    for k in range(N_UNITS):
        if st.own[k] == side:
            t += st.cnt[k]
    return t


@jit(nrt=False)
def _strengths(cr, st):
    """(Vikings, English): expected Hits of one roll (dice x Hit chance) times units
    (+structure for the Vikings), the policies' odds proxy (POLICIES 'retreat', 'smart')."""
    struct, fort = st.sv[StateSlot.STRUCT], cr.ints[RuleSlot.FORT]
    hv = he = 0.0
    nv, ne = struct, 0
    for k in range(N_UNITS):
        d = cr.unit_die[k]
        if st.own[k] == V:
            hv += _n_dice(st.cnt[k] + _structure_die(k, struct, fort), cr.max_dice[d]) * cr.phit[d]
            nv += st.cnt[k]
        else:
            he += _n_dice(st.cnt[k], cr.max_dice[d]) * cr.phit[d]
            ne += st.cnt[k]
    return hv * nv, he * ne


@jit(inline="always", nrt=False)
def _join(st, k, x):
    st.cnt[k] += x
    st.joined[k] += x


@jit(inline="always", nrt=False)
def _lose(st, k, x):
    """``x`` Hits on slot ``k``: its units die, or flee under Single Combat (SEED §7.3),
    Æthelred's Military Reform (SEED §3.3) or, for Viking units, Ragnarök (SEED §4.3)."""
    if x == 0:
        return
    sv = st.sv
    st.cnt[k] -= x
    if ((sv[StateSlot.EPIC] & EB_SINGLE) or k == sv[StateSlot.REFORM_UNIT]
            or (sv[StateSlot.RAGNAROK] and st.own[k] == V and k <= UB)):
        st.fled[k] += x
    else:
        st.dead[k] += x


# ---------------------------------------------------------------- setup (draw order: see top)
@jit(nrt=False)
def _reset(cr, st):
    """The armies at the start (878 §4.1; SEED §9.2 Lagertha brings her own); every count,
    tally and scalar of the previous battle cleared."""
    ri, sv = cr.ints, st.sv
    lag = ri[RuleSlot.LAGERTHA]
    for k, units in ((UN, ri[RuleSlot.NORSEMEN] + LAGERTHA_NORSEMEN * lag),
                     (UB, ri[RuleSlot.BERSERKERS] + LAGERTHA_BERSERKERS * lag),
                     (UH, ri[RuleSlot.HOUSECARLS]), (UT, ri[RuleSlot.THEGNS]),
                     (UF, ri[RuleSlot.FYRD]), (UV, 0)):
        st.cnt[k] = units
        st.own[k] = UNIT_SIDE[k]
        st.dead[k] = st.fled[k] = st.ret[k] = st.joined[k] = st.left[k] = 0
    st.eff[:] = 0
    sv[:] = 0
    sv[StateSlot.TRAITOR] = NO_UNIT
    sv[StateSlot.DECK_N] = -1
    sv[StateSlot.STRUCT] = _structure_hits(ri)
    sv[StateSlot.REFORM_UNIT] = NO_UNIT
    sv[StateSlot.FIRST_HIT] = ri[RuleSlot.BERSERKER_FIRST_HIT]
    sv[StateSlot.NORTHUMBRIA] = ri[RuleSlot.NORTHUMBRIA]
    sv[StateSlot.FIRST_ENGLISH] = 1
    sv[StateSlot.RUNES_POOL] = ri[RuleSlot.RUNES_DICE]      # SEED §4.1, §4.5: no dice placed
    sv[StateSlot.PRAYER_POOL] = ri[RuleSlot.PRAYER_DICE]
    sv[StateSlot.RESERVE] = ri[RuleSlot.RESERVE_BERSERKERS]


@jit(nrt=False)
def _activate_epic(e, cr, pkind, st, pol):
    """Epic Battle card ``e`` joins this battle (SEED §7.2-7.3); one-off setup effects here."""
    ri, sv, cnt, own = cr.ints, st.sv, st.cnt, st.own
    bit = 1 << e
    if sv[StateSlot.EPIC] & bit:
        return
    sv[StateSlot.EPIC] |= bit
    if bit == EB_REINF:  # SEED §7.3 Reinforcements: units per faction + Fyrd
        for k in (UN, UB, UH, UT):
            _join(st, k, ri[RuleSlot.REINFORCEMENTS_UNITS])
        _join(st, UF, ri[RuleSlot.REINFORCEMENTS_FYRD])
    elif bit == EB_EPIC:  # SEED §7.3 Epic Battle: defenders first; policies bring all units
        for k, slot in ((UN, RuleSlot.ADJ_NORSEMEN), (UB, RuleSlot.ADJ_BERSERKERS),
                        (UH, RuleSlot.ADJ_HOUSECARLS), (UT, RuleSlot.ADJ_THEGNS)):
            _join(st, k, ri[slot])
    elif bit == EB_TRAIT:  # SEED §7.3 Traitors (878 §5 default pick, §6.8 one faction: none)
        att = ri[RuleSlot.ATTACKER]
        a, b = (UN, UB) if att == V else (UH, UT)
        if (cnt[a] > 0 and cnt[b] > 0 and own[a] == att and own[b] == att
                and sv[StateSlot.TRAITOR] < 0):
            if pkind[att] == K_RANDOM:
                t = a if int(pol.random() * 2) == 0 else b     # uniform pick of the two
            elif att == V:
                t = UB if cnt[UB] < cnt[UN] else UN      # fewer units; tie: Norsemen
            else:
                t = UH if cnt[UH] < cnt[UT] else UT      # fewer units; tie: Thegns
            own[t] = 1 - att
            sv[StateSlot.TRAITOR] = t


@jit(nrt=False)
def _draw_fyrd(cr, pkind, st, dice, pol):
    """Draw Fyrd cards until a Fyrd card (878 §2.5, SEED §7.2); returns its Fyrd count.

    Deck = fyrd_cards + epic_deck Epic cards (coded -1-e), built at the first draw of the
    battle; each draw picks uniformly among the cards left. An empty deck is rebuilt from the
    Fyrd cards only (DEFAULT simplification of SEED §7.2's reshuffle).
    """
    sv, deck, ep, cards = st.sv, st.deck, st.epic_order, cr.fyrd_cards
    nf = cards.shape[0]
    if sv[StateSlot.DECK_N] < 0:
        for i in range(nf):
            deck[i] = cards[i]
        k = cr.ints[RuleSlot.EPIC_DECK]
        for i in range(N_EPIC):
            ep[i] = i
        for i in range(k):
            j = i + int(dice.random() * (N_EPIC - i))
            ep[i], ep[j] = ep[j], ep[i]
            deck[nf + i] = -1 - ep[i]
        sv[StateSlot.DECK_N] = nf + k
        sv[StateSlot.DECK_POS] = 0
    while True:
        if sv[StateSlot.DECK_POS] >= sv[StateSlot.DECK_N]:
            for i in range(nf):
                deck[i] = cards[i]
            sv[StateSlot.DECK_N] = nf
            sv[StateSlot.DECK_POS] = 0
        p = sv[StateSlot.DECK_POS]
        j = p + int(dice.random() * (sv[StateSlot.DECK_N] - p))
        x = deck[j]
        deck[j] = deck[p]
        deck[p] = x
        sv[StateSlot.DECK_POS] = p + 1
        if x >= 0:
            return x
        _activate_epic(-1 - x, cr, pkind, st, pol)


@jit(nrt=False)
def _setup_battle(cr, pkind, st, dice, pol):
    """Before the first roll: the Epic card in force, the Fyrd cards drawn at the start, the
    Raven Banner die and Æthelred's active faction (draw order: module docstring)."""
    ri, sv = cr.ints, st.sv
    for e in range(N_EPIC):
        if ri[RuleSlot.EPIC_MASK] & (1 << e):
            _activate_epic(e, cr, pkind, st, pol)
    for trigger in (RuleSlot.CHRISTIANS_WRATH, RuleSlot.EDMUNDS_MARTYRDOM,   # SEED §1.3, §5.2
                    RuleSlot.FYRD_CARD):                                     # 878 §2.5
        if ri[trigger]:
            _join(st, UF, _draw_fyrd(cr, pkind, st, dice, pol))
    if ri[RuleSlot.ARM_RING]:                        # SEED §5.4: Fyrd on the Viking side
        _join(st, UV, _draw_fyrd(cr, pkind, st, dice, pol))
    if ri[RuleSlot.RAVEN_BANNER]:                    # SEED §5.4: one Thegn die at the start
        face = cr.faces[Die.THEGN, _d6(dice) - 1]
        sv[StateSlot.RAVEN] = RAVEN_HIT if face == HIT else (
            RAVEN_FLEE if face == FLEE else RAVEN_NONE)
    if ri[RuleSlot.MILITARY_REFORM]:
        sv[StateSlot.REFORM_UNIT] = _reform_unit(ri, st.cnt)


@jit(nrt=False)
def _reform_unit(ri, cnt):
    """Æthelred's active faction (SEED §3.3); 'auto' (assumption): the attacking faction with
    the most units."""
    u = ri[RuleSlot.REFORM_UNIT]
    if u >= 0:
        return u
    if ri[RuleSlot.ATTACKER] == V:
        return UN if cnt[UN] >= cnt[UB] else UB
    return UH if cnt[UH] >= cnt[UT] else UT


# ---------------------------------------------------------------- one roll
@jit(inline="always", nrt=False)
def _raven_flee(st):
    """SEED §5.4 Raven Banner Flee: a Norseman and a Berserker flee before each Viking roll."""
    for k in (UN, UB):
        if st.own[k] == V and st.cnt[k] > 0:
            st.cnt[k] -= 1
            st.fled[k] += 1


@jit(inline="always", nrt=False)
def _roll_side(cr, st, s, dice):
    """878 §4.3: side ``s`` rolls min(units, max dice) per slot, slot order; 878 §4.4 Fort and
    Settlement dice. Sets this roll's ``h``, ``fl``, ``c``, ``nd`` (zero for the other side)."""
    struct, fort = st.sv[StateSlot.STRUCT], cr.ints[RuleSlot.FORT]
    for k in range(N_UNITS):
        st.h[k] = st.fl[k] = st.c[k] = st.nd[k] = 0
        if st.own[k] != s:
            continue
        d = cr.unit_die[k]
        extra = _structure_die(k, struct, fort) if s == V else 0
        n = _n_dice(st.cnt[k] + extra, cr.max_dice[d])
        acc = _roll(cr.face_pack, d, n, dice)
        st.nd[k], st.h[k], st.fl[k], st.c[k] = n, _hits(acc), _flees(acc), _commands(acc)


@jit(nrt=False)
def _reroll(cr, st, k, m, dice):
    """Re-roll ``m`` dice of slot ``k`` whose non-Hit results are dropped (Edmund's Faith,
    Omens of Victory): their new Hits add up, Flees and Commands are what they show now."""
    acc = _roll(cr.face_pack, cr.unit_die[k], m, dice)
    st.h[k] += _hits(acc)
    st.fl[k] = _flees(acc)
    st.c[k] = _commands(acc)


@jit(inline="always", nrt=False)
def _edmunds_faith(cr, st, dice):
    """SEED §3.3 Edmund's Faith: the holder re-rolls its Flee and Command results once."""
    for k in range(N_UNITS):
        m = st.fl[k] + st.c[k]
        if m > 0:
            _reroll(cr, st, k, m, dice)


@jit(inline="always", nrt=False)
def _ragnar(st):
    """878 §4.7 Ragnar: the Commands of the first English roll count as Flees."""
    for k in range(N_UNITS):
        st.fl[k] += st.c[k]
        st.c[k] = 0


@jit(inline="always", nrt=False)
def _northumbria(st):
    """878 §4.8: the first English Flee of the battle is ignored (Housecarl, Thegn, Fyrd,
    then traitor units). Returns whether a Flee was ignored this roll."""
    for k in (UH, UT, UF, UB, UN):
        if st.own[k] == E and st.fl[k] > 0:
            st.fl[k] -= 1
            st.sv[StateSlot.NORTHUMBRIA] = 0
            return True
    return False


@jit(inline="always", nrt=False)
def _roll_totals(cr, st, s, martyr, ignored):
    """The roll's (Hits, Commands) after Martyrdom (SEED §4.4: no English Command; under Foul
    Weather they are not banked either unless martyrdom_blocks_bank is off), the Raven Banner
    Hit (SEED §5.4), the Faith card (SEED §7.3: one Flee also counts as a Hit) and Foul Weather
    (SEED §7.3: the other side's banked Commands cancel Hits; this roll's Commands are banked)."""
    ri, sv = cr.ints, st.sv
    epic = sv[StateSlot.EPIC]
    if martyr and (ri[RuleSlot.MARTYRDOM_BLOCKS_BANK] or not (epic & EB_FOUL)):
        st.c[:] = 0
    hits = nfl = ncmd = 0
    for k in range(N_UNITS):
        hits += st.h[k]
        nfl += st.fl[k]
        ncmd += st.c[k]
    if s == V and sv[StateSlot.RAVEN] == RAVEN_HIT:
        hits += 1
    if epic & EB_FAITH and (nfl > 0 or (ignored and ri[RuleSlot.FAITH_COUNTS_IGNORED_FLEE])):
        hits += 1
    if epic & EB_FOUL:
        mine = StateSlot.BANK_VIKINGS + s
        hits -= min(sv[mine], hits)
        sv[mine] = 0
        sv[StateSlot.BANK_VIKINGS + 1 - s] = ncmd
    return hits, ncmd


@jit(inline="always", nrt=False)
def _own_flees(st):
    """878 §4.5: each Flee removes a unit of its own type; extra Flees are lost (the
    Fort/Settlement never flees; fled Fyrd leave play)."""
    for k in range(N_UNITS):
        x = min(st.fl[k], st.cnt[k])
        st.cnt[k] -= x
        st.fled[k] += x


# ---------------------------------------------------------------- Hits (878 §4.6)
@jit(nrt=False)
def _disorganized_target(side, st):
    """SEED §7.3 Disorganized Combat: the roller hits the most valuable enemy (878 §5)."""
    if side == V:
        for k in (UB, UN):
            if _held(st, k, V) > 0:
                return k
        if st.sv[StateSlot.STRUCT] > 0:
            return STRUCT
        for k in (UV, UH, UT):       # Viking Fyrd, then English traitors (878 §5: least valuable)
            if _held(st, k, V) > 0:
                return k
        return NO_UNIT
    for k in (UH, UT, UF, UB, UN):
        if _held(st, k, E) > 0:
            return k
    return NO_UNIT


@jit(nrt=False)
def _random_target(side, st, pol):
    """POLICIES 'random': a uniform pick among ``side``'s unit types present (Unit order, then
    the Fort/Settlement); one policy draw, none when nothing is left."""
    struct = st.sv[StateSlot.STRUCT] if side == V else 0
    n = 1 if struct > 0 else 0
    for k in range(N_UNITS):
        if _held(st, k, side) > 0:
            n += 1
    if n == 0:
        return NO_UNIT
    pick = int(pol.random() * n)
    for k in range(N_UNITS):
        if _held(st, k, side) > 0:
            if pick == 0:
                return k
            pick -= 1
    return STRUCT


@jit(nrt=False)
def _lose_one(st, t):
    if t == STRUCT:
        st.sv[StateSlot.STRUCT] -= 1
    else:
        _lose(st, t, 1)


@jit(inline="always", nrt=False)
def _hits_in_loss_order(hits, side, st):
    """878 §4.6 DEFAULT orders: Vikings lose traitor units (878 §5), Viking-side Fyrd
    (878 §4.14), Norsemen, Berserkers, then the Fort/Settlement; the English lose traitor
    units, Fyrd, Thegns, Housecarls. Each Hit takes a unit of the first type with any left;
    Hits beyond the units present are lost."""
    if side == V:
        for t in (UH, UT, UV, UN, UB):
            x = min(hits, _held(st, t, V))
            _lose(st, t, x)
            hits -= x
        x = min(hits, st.sv[StateSlot.STRUCT])
        st.sv[StateSlot.STRUCT] -= x
        return
    for t in (UN, UB, UF, UT, UH):
        x = min(hits, _held(st, t, E))
        _lose(st, t, x)
        hits -= x


@jit(inline="always", nrt=False)
def _resolve_hits(hits, s, cr, st, kind_recv, pol):
    """Side ``s`` scores ``hits`` on the other side (878 §4.6): on an English roll the
    Berserker first-hit rule first (base rule 4.5, updated even without Hits), then one Hit
    picked by the roller under Disorganized Combat (SEED §7.3), then the receiver's policy
    (loss order, or a random pick per Hit). Dice: none; policy draws: 'random' only."""
    sv = st.sv
    if s == E:
        take, sv[StateSlot.FIRST_HIT] = _first_hit_rule(
            sv[StateSlot.FIRST_HIT] != 0, hits, _held(st, UB, V),
            cr.ints[RuleSlot.FIRST_HIT_UNTIL_CASUALTY] != 0)
        _lose(st, UB, take)
        hits -= take
    if hits > 0 and sv[StateSlot.EPIC] & EB_DIS:
        t = _disorganized_target(1 - s, st)
        if t == NO_UNIT:
            return
        _lose_one(st, t)
        hits -= 1
    if kind_recv != K_RANDOM:
        _hits_in_loss_order(hits, 1 - s, st)
        return
    for _ in range(hits):
        t = _random_target(1 - s, st, pol)
        if t == NO_UNIT:
            return
        _lose_one(st, t)


# ---------------------------------------------------------------- Runes and Prayer (SEED §4)
@jit(inline="always", nrt=False)
def _place_rune(cr, st, dice):
    """Roll one Runes die onto the cards: a Rune on the Viking card, a Conversion on the
    English Prayer card (SEED §4.4 note)."""
    st.eff[Effect.RUNES_ROLLED] += 1
    if cr.rune_faces[_d6(dice) - 1] == RUNE:
        st.sv[StateSlot.RUNES] += 1
    else:
        st.sv[StateSlot.RUNES_CONV] += 1


@jit(inline="always", nrt=False)
def _optimal_entry(st, row, outside):
    """Policy optimal (878 §5.2): row ``row`` of the DP's table (optimal_rp) at the current
    state; ``outside`` at a state the DP never reaches (another policy's effects)."""
    sv, cnt, shp = st.sv, st.cnt, st.opt.shape
    if (cnt[UN] >= shp[1] or cnt[UB] >= shp[2] or cnt[UH] >= shp[3] or cnt[UT] >= shp[4]
            or sv[StateSlot.RUNES] >= shp[5] or sv[StateSlot.FAITH] >= shp[7]):
        return outside
    return st.opt[row, cnt[UN], cnt[UB], cnt[UH], cnt[UT], sv[StateSlot.RUNES],
                  sv[StateSlot.RUNES_CONV], sv[StateSlot.FAITH], sv[StateSlot.PRAYER_CONV],
                  1 if sv[StateSlot.FIRST_HIT] else 0, 1 if sv[StateSlot.RAGNAROK] else 0]


@jit(inline="always", nrt=False)
def _optimal_dice(st, s):
    """How many of side ``s``'s factions roll a Runes/Prayer die this roll (rows 0-1, read at
    the state before the roll); outside the table: roll all."""
    return _optimal_entry(st, s, 2)


@jit(inline="always", nrt=False)
def _optimal_spend(st, s):
    """The English spending code at this roll of side ``s`` (rows 2-3, read once the roll's
    Runes/Prayer dice have landed: a Convert count, or SPEND_GP); SPEND_SCRIPTED outside."""
    return _optimal_entry(st, 2 + s, SPEND_SCRIPTED)


@jit(inline="always", nrt=False)
def _optimal_ragnarok(cr, pp, st):
    """Policy optimal (878 §5.2): Ragnarök (SEED §4.3) at the start of a Viking roll, before
    its Runes dice, where row 4 of the table says so (read at the same state as row 0; never
    outside the table), if affordable and not yet bought."""
    sv = st.sv
    if (_optimal_entry(st, 4, 0) == 1 and not sv[StateSlot.RAGNAROK]
            and sv[StateSlot.RUNES] >= cr.ints[RuleSlot.RAGNAROK_COST]
            and _allowed(pp, V, EL_RAGNAROK)):
        _pay_runes(sv, cr.ints[RuleSlot.RAGNAROK_COST])
        sv[StateSlot.RAGNAROK] = 1
        st.eff[Effect.RAGNAROK] += 1


@jit(inline="always", nrt=False)
def _roll_runes(cr, kind, pp, st, dice, pol):
    """SEED §4.1: each Viking faction present may roll one Runes die; with every die placed,
    re-roll one (a Conversion, to deny the English)."""
    sv = st.sv
    k_opt = _optimal_dice(st, V) if kind == K_OPTIMAL else 0
    if kind == K_OPTIMAL:
        _optimal_ragnarok(cr, pp, st)       # read at the state of k_opt, then paid
    i = 0
    for k in (UN, UB):
        if _held(st, k, V) == 0:
            continue
        want = kind == K_GREEDY or (kind == K_OPTIMAL and i < k_opt)
        i += 1
        if kind == K_SMART:   # stop feeding the Prayer card Conversions (God's Peace threat)
            want = (sv[StateSlot.PRAYER_CONV] + sv[StateSlot.RUNES_CONV]
                    < cr.ints[RuleSlot.GODS_PEACE_COST] - pp[V, PolicyParam.RUNES_MARGIN])
        elif kind == K_RANDOM:
            want = pol.random() < pp[V, PolicyParam.DIE_CHANCE]
        want = want and _allowed(pp, V, EL_RUNES)     # after any coin: same policy draws
        if sv[StateSlot.RUNES_POOL] > 0:
            if want:
                sv[StateSlot.RUNES_POOL] -= 1
                _place_rune(cr, st, dice)
        elif sv[StateSlot.RUNES_CONV] > 0 and (
                kind == K_GREEDY or kind == K_SMART or (kind == K_OPTIMAL and want)
                or (kind == K_RANDOM and pol.random() < pp[V, PolicyParam.REROLL_CHANCE])
        ) and _allowed(pp, V, EL_RUNES):
            sv[StateSlot.RUNES_CONV] -= 1
            _place_rune(cr, st, dice)


@jit(inline="always", nrt=False)
def _roll_prayer(cr, kind, pp, st, dice, pol):
    """SEED §4.1: each English faction present may roll one Prayer die (with all placed, a
    Faith die is re-rolled). Returns whether Martyrdom came up (SEED §4.4: automatic; the die
    leaves the card at once)."""
    sv, martyr = st.sv, False
    k_opt = _optimal_dice(st, E) if kind == K_OPTIMAL else 0
    i = 0
    for k in (UH, UT):
        if _held(st, k, E) == 0:
            continue
        i += 1
        if not (kind == K_GREEDY or kind == K_SMART or (kind == K_OPTIMAL and i <= k_opt)
                or (kind == K_RANDOM and pol.random() < pp[E, PolicyParam.DIE_CHANCE])
                ) or not _allowed(pp, E, EL_PRAYER):
            continue
        if sv[StateSlot.PRAYER_POOL] > 0:
            sv[StateSlot.PRAYER_POOL] -= 1
        elif sv[StateSlot.FAITH] > 0:
            sv[StateSlot.FAITH] -= 1
        else:
            continue
        face = cr.prayer_faces[_d6(dice) - 1]
        st.eff[Effect.PRAYER_ROLLED] += 1
        if face == MART:
            martyr = True
            st.eff[Effect.MARTYRDOM] += 1
            sv[StateSlot.PRAYER_POOL] += 1
        elif face == CONV:
            sv[StateSlot.PRAYER_CONV] += 1
        else:
            sv[StateSlot.FAITH] += 1
    return martyr


@jit(inline="always", nrt=False)
def _pay_runes(sv, n):
    sv[StateSlot.RUNES] -= n
    sv[StateSlot.RUNES_POOL] += n     # SEED §4.2: spent dice may be rolled again


@jit(nrt=False)
def _omens_target(cr, st, smart):
    """The Viking slot whose non-Hit dice Omens re-rolls: most non-Hits (smart: most expected
    new Hits, non-Hits x Hit chance); Norsemen on a tie; NO_UNIT when nothing is gained."""
    best, bestv = NO_UNIT, 0.0
    for k in (UN, UB):
        nonhit = st.nd[k] - st.h[k]
        if st.own[k] != V or nonhit <= 0:
            continue
        val = nonhit * cr.phit[cr.unit_die[k]] if smart else nonhit * 1.0
        if val > bestv:
            best, bestv = k, val
    return best


@jit(inline="always", nrt=False)
def _omens_on(st):
    """Whether the Viking seat plays policy optimal's Omens choice (Setup.omens given)."""
    return st.og[0] >= 0          # not the value table's shape: no Norsemen gives axis 1


@jit(nrt=False)
def _optimal_omens(cr, pp, st, dice):
    """Policy optimal (878 §5.2): Omens of Victory (SEED §4.3) as the Vikings' in-roll
    choice, on their own roll once the English have spent (their Convert is known). The leaf
    values (the roll applied: Hits on Thegns then Housecarls, Flees on their own type, the
    English to roll) come from ``st.ov``, the choices from ``optimal_rp._omens_dp`` on them,
    as in the DP (memoised per roll key within a block: ``_omens_choices``); each step pays the Omens cost and re-rolls the dice of one type it does not
    keep. Returns False (nothing done) outside the table: the scripted Omens then apply; True
    at once, before the leaf table and the DP, when no Omens can be bought (fewer Runes than
    its cost, no Viking die, Omens forbidden): the choice loop would stop at once."""
    sv, cnt, shp, ri = st.sv, st.cnt, st.ov.shape, cr.ints
    if not _omens_on(st) or st.own[UN] != V or st.own[UB] != V:
        return False
    n, b, h, t = cnt[UN], cnt[UB], cnt[UH], cnt[UT]
    r, rc, fa, pc = (sv[StateSlot.RUNES], sv[StateSlot.RUNES_CONV], sv[StateSlot.FAITH],
                     sv[StateSlot.PRAYER_CONV])
    pend, rag = (1 if sv[StateSlot.FIRST_HIT] else 0), (1 if sv[StateSlot.RAGNAROK] else 0)
    if (n >= shp[0] or b >= shp[1] or h >= shp[2] or t >= shp[3] or r >= shp[4]
            or rc >= shp[5] or fa >= shp[6] or pc >= shp[7] or cnt[UF] > 0 or cnt[UV] > 0):
        return False
    dn, db = st.nd[UN], st.nd[UB]
    co = ri[RuleSlot.OMENS_COST]
    if r < co or dn + db == 0 or not _allowed(pp, V, EL_OMENS):
        return True                           # no Omens can be bought: no table, no DP
    slot = _omens_choices(st, n, b, h, t, r, rc, fa, pc, pend, rag, dn, db, co)
    while sv[StateSlot.RUNES] >= co and _allowed(pp, V, EL_OMENS):
        code = st.oc[slot, sv[StateSlot.RUNES], st.h[UN], st.fl[UN], st.h[UB], st.fl[UB]]
        if code < 0:
            break
        k = UN if code // 1000 == 0 else UB
        kh, kf, ko = (code // 100) % 10, (code // 10) % 10, code % 10
        _pay_runes(sv, co)
        st.eff[Effect.OMENS] += 1
        kc = min(ko, st.c[k])                 # others kept: Commands first, then Blanks
        acc = _roll(cr.face_pack, cr.unit_die[k], st.nd[k] - kh - kf - ko, dice)
        st.h[k] = kh + _hits(acc)
        st.fl[k] = kf + _flees(acc)
        st.c[k] = kc + _commands(acc)
    return True


@jit(nrt=False)
def _omens_choices(st, n, b, h, t, r, rc, fa, pc, pend, rag, dn, db, co):
    """The in-roll Omens choices (``optimal_rp._omens_dp``, 878 §5.2) of a Viking roll of
    ``dn`` Norsemen and ``db`` Berserker dice, units (n, b, h, t) and cards (rc, fa, pc,
    pend, rag) once the English have spent, at Runes levels 0..``r`` (``_optimal_omens``
    reads no higher one): returns the slot of the block's memo ``st.oc`` holding them. The
    DP's level r reads only the leaves and the levels at r or fewer Runes, so a slot of the
    same key holding the levels up to ``r`` or more is the same table; otherwise the leaves
    (``st.ov``, the roll applied: Hits on Thegns then Housecarls, Flees on their own type, the
    English to roll) are filled and the DP run into the slot (direct-mapped: a key evicts the
    slot's previous one). No allocation."""
    shp = st.ov.shape
    key = ((((((((((n * shp[1] + b) * shp[2] + h) * shp[3] + t) * shp[5] + rc) * shp[6] + fa)
                * shp[7] + pc) * 2 + pend) * 2 + rag) * (st.ow.shape[1]) + dn)
           * st.ow.shape[2] + db)
    slot = key % st.okey.shape[0]
    if st.okey[slot] == key and st.otop[slot] >= r:
        return slot
    og = st.og[0]
    W = st.ow
    for hits in range(dn + db + 1):
        for fN in range(dn + 1):
            for fB in range(db + 1):
                n2, b2, h2, t2 = _after_viking_dice(n, b, h, t, hits, fN, fB)
                for rl in range(r + 1):
                    if n2 + b2 == 0 or h2 + t2 == 0:
                        W[hits, fN, fB, rl] = _terminal(n2, b2, h2, t2, og)
                    else:
                        W[hits, fN, fB, rl] = st.ov[n2, b2, h2, t2, rl, rc, fa, pc, pend, rag]
    _omens_dp(W, 1.0 if og == 0 else -1.0, dn, db, r, co, st.otri, st.ou, st.oc[slot], st.op)
    st.okey[slot] = key
    st.otop[slot] = r
    return slot


@jit(inline="always", nrt=False)
def _spend_runes(cr, kind, pp, st, s, dice):
    """Vikings, costliest first (SEED §4.3): Ragnarök (never for smart), Battle Rage (a
    Norseman swapped for a Reserve Berserker; smart: one, and only while it adds a Berserker
    die), then Omens of Victory on their own roll."""
    ri, sv, cnt, own = cr.ints, st.sv, st.cnt, st.own
    if kind != K_SMART and kind != K_OPTIMAL and not sv[StateSlot.RAGNAROK] and \
            sv[StateSlot.RUNES] >= ri[RuleSlot.RAGNAROK_COST] and \
            _allowed(pp, V, EL_RAGNAROK):
        _pay_runes(sv, ri[RuleSlot.RAGNAROK_COST])
        sv[StateSlot.RAGNAROK] = 1
        st.eff[Effect.RAGNAROK] += 1
    while (kind != K_OPTIMAL and sv[StateSlot.RUNES] >= ri[RuleSlot.BATTLE_RAGE_COST]
           and _held(st, UN, V) > 0
           and own[UB] == V and sv[StateSlot.RESERVE] > 0 and _allowed(pp, V, EL_RAGE)):
        if kind == K_SMART and cnt[UB] >= cr.max_dice[Die.BERSERKER]:
            break
        _pay_runes(sv, ri[RuleSlot.BATTLE_RAGE_COST])
        cnt[UN] -= 1
        st.left[UN] += 1
        _join(st, UB, 1)
        sv[StateSlot.RESERVE] -= 1
        st.eff[Effect.BATTLE_RAGE] += 1
        if kind == K_SMART:
            break
    if s == V and kind == K_OPTIMAL and _optimal_omens(cr, pp, st, dice):
        return
    while (s == V and sv[StateSlot.RUNES] >= ri[RuleSlot.OMENS_COST]
           and _allowed(pp, V, EL_OMENS)):
        k = _omens_target(cr, st, kind == K_SMART)
        if k == NO_UNIT:
            break
        _pay_runes(sv, ri[RuleSlot.OMENS_COST])
        st.eff[Effect.OMENS] += 1
        _reroll(cr, st, k, st.nd[k] - st.h[k], dice)


@jit(nrt=False)
def _convert(cr, st):
    """SEED §4.4 Convert (878 §6.7): a Norseman leaves, a Thegn joins; paid with English
    Conversion dice first, then Viking ones."""
    sv, cost = st.sv, cr.ints[RuleSlot.CONVERT_COST]
    own_dice = min(sv[StateSlot.PRAYER_CONV], cost)
    sv[StateSlot.PRAYER_CONV] -= own_dice
    sv[StateSlot.PRAYER_POOL] += own_dice
    sv[StateSlot.RUNES_CONV] -= cost - own_dice
    sv[StateSlot.RUNES_POOL] += cost - own_dice
    st.cnt[UN] -= 1
    st.left[UN] += 1
    _join(st, UT, 1)
    st.eff[Effect.CONVERT] += 1


@jit(inline="always", nrt=False)
def _spend_prayer(cr, pkind, pp, st, s, dice, pol, spend):
    """English (SEED §4.4): God's Peace (smart: only when the odds are bad), Defend the Faith,
    Convert (smart: only when they are not), then Faith in Victory on their own roll (smart:
    only once no Prayer die is left). ``spend`` (policy optimal's table, 878 §5.2): SPEND_GP,
    a Convert count, or SPEND_SCRIPTED (every other policy). Returns whether God's Peace ended
    the battle."""
    ri, sv, kind = cr.ints, st.sv, pkind[E]
    bad = False
    if kind == K_SMART:
        vs, es = _strengths(cr, st)
        bad = es < pp[E, PolicyParam.BAD_ODDS] * vs
    if (sv[StateSlot.PRAYER_CONV] + sv[StateSlot.RUNES_CONV] >= ri[RuleSlot.GODS_PEACE_COST]
            and ri[RuleSlot.GODS_PEACE_EXIT] and (kind != K_SMART or bad)
            and (spend == SPEND_SCRIPTED or spend == SPEND_GP) and _allowed(pp, E, EL_PEACE)):
        st.eff[Effect.GODS_PEACE] += 1
        return True
    while (kind != K_OPTIMAL and sv[StateSlot.FAITH] >= ri[RuleSlot.DEFEND_FAITH_COST]
           and _allowed(pp, E, EL_DEFEND)):
        sv[StateSlot.FAITH] -= ri[RuleSlot.DEFEND_FAITH_COST]
        sv[StateSlot.PRAYER_POOL] += ri[RuleSlot.DEFEND_FAITH_COST]
        _join(st, UF, _draw_fyrd(cr, pkind, st, dice, pol))
        st.eff[Effect.DEFEND_THE_FAITH] += 1
    left = -1 if spend == SPEND_SCRIPTED else (0 if spend == SPEND_GP else spend)
    while (sv[StateSlot.PRAYER_CONV] + sv[StateSlot.RUNES_CONV] >= ri[RuleSlot.CONVERT_COST]
           and _held(st, UN, V) > 0 and not bad and left != 0 and _allowed(pp, E, EL_CONVERT)):
        _convert(cr, st)
        left -= 1
    if s == E and kind != K_OPTIMAL and (kind != K_SMART or sv[StateSlot.PRAYER_POOL] == 0) \
            and _allowed(
            pp, E, EL_FIV):
        while sv[StateSlot.FAITH] >= 1 and st.fl[UF] > 0:
            st.fl[UF] -= 1
            sv[StateSlot.FAITH] -= 1
            sv[StateSlot.PRAYER_POOL] += 1
            st.eff[Effect.FAITH_IN_VICTORY] += 1
    return False


@jit(inline="always", nrt=False)
def _runes_and_prayer(cr, pkind, pp, st, s, dice, pol):
    """SEED §4: the rolling side rolls its Runes or Prayer dice, then each side spends,
    rolling side first (DEFAULT order). Returns (Martyrdom this roll, God's Peace bought)."""
    martyr = False
    if s == V:
        _roll_runes(cr, pkind[V], pp, st, dice, pol)
    else:
        martyr = _roll_prayer(cr, pkind[E], pp, st, dice, pol)
    spend = _optimal_spend(st, s) if pkind[E] == K_OPTIMAL else SPEND_SCRIPTED
    # 878 §5.2: the optimal Vikings' Omens choice follows the English spending of their roll
    # (decided without the battle dice), so with it the English spend first
    late = s == V and pkind[V] == K_OPTIMAL and _omens_on(st)
    for i in range(2):
        sp = (1 - s if i == 0 else s) if late else (s if i == 0 else 1 - s)
        kind = pkind[sp]
        if kind == K_DEFAULT or kind == K_NEVER or kind == K_RETREAT:
            continue
        if sp == V:
            _spend_runes(cr, kind, pp, st, s, dice)
        elif _spend_prayer(cr, pkind, pp, st, s, dice, pol, spend):
            return martyr, True
    return martyr, False


# ---------------------------------------------------------------- Commands, end
@jit(inline="always", nrt=False)
def _command_retreats(cr, pkind, pp, st, s, ncmd, pol):
    """878 §2.3, §5: when the policy says go, each Command moves one unit out (SEED §5.2 Linen
    Clothes: LINEN_MOVES), most valuable first; Fyrd only with command_moves_fyrd; none under
    Foul Weather (the Commands were banked). Returns whether any unit left."""
    ri, kind, cnt = cr.ints, pkind[s], st.cnt
    if ncmd == 0 or st.sv[StateSlot.EPIC] & EB_FOUL or (kind != K_RETREAT and kind != K_RANDOM):
        return False
    if kind == K_RETREAT:
        vs, es = _strengths(cr, st)
        own, other = (vs, es) if s == V else (es, vs)
        go = own < pp[s, PolicyParam.RETREAT_ODDS] * other
    else:
        go = pol.random() < pp[s, PolicyParam.RETREAT_CHANCE]
    if not go or not _allowed(pp, s, EL_RETREAT):    # after any coin: same policy draws
        return False
    moves = ncmd * (LINEN_MOVES if ri[RuleSlot.LINEN_CLOTHES] & (1 << s) else 1)
    retreated = False
    for k in ((UB, UN, UV) if s == V else (UH, UT, UF)):
        if st.own[k] != s or ((k == UV or k == UF) and not ri[RuleSlot.COMMAND_MOVES_FYRD]):
            continue
        x = min(moves, cnt[k])
        if x > 0:
            cnt[k] -= x
            st.ret[k] += x
            moves -= x
            retreated = True
    return retreated


@jit(inline="always", nrt=False)
def _end_check(st, s, retreated):
    """878 §4.10: the battle ends when a side has no units left (a side whose last units the
    Commands took out has retreated); GOING otherwise."""
    end = _standing(_alive(st, V), _alive(st, E))
    if retreated and end == (ENGLISH_WIN if s == V else VIKINGS_WIN):
        return VIKINGS_RETREAT if s == V else ENGLISH_RETREAT
    return end


@jit(inline="always", nrt=False)
def _one_roll(cr, pkind, pp, st, s, dice, pol):
    """One roll of side ``s``, every step in the order of the notes (878 §4.3-4.10 and the
    expansion hooks, see docs/rules-coverage.md). Returns an Outcome or GOING."""
    ri, sv = cr.ints, st.sv
    if s == V and sv[StateSlot.RAVEN] == RAVEN_FLEE:
        _raven_flee(st)
        if _alive(st, V) == 0:
            return BOTH_ELIMINATED if _alive(st, E) == 0 else ENGLISH_WIN
    _roll_side(cr, st, s, dice)
    if ri[RuleSlot.EDMUNDS_FAITH] and s == ri[RuleSlot.EDMUNDS_FAITH_SIDE]:
        _edmunds_faith(cr, st, dice)
    if s == E and ri[RuleSlot.RAGNAR] and sv[StateSlot.FIRST_ENGLISH]:
        _ragnar(st)
    ignored = s == E and sv[StateSlot.NORTHUMBRIA] != 0 and _northumbria(st)
    martyr = False
    if ri[RuleSlot.RUNES_PRAYER]:
        martyr, gods_peace = _runes_and_prayer(cr, pkind, pp, st, s, dice, pol)
        if gods_peace:
            return GODS_PEACE
    hits, ncmd = _roll_totals(cr, st, s, martyr, ignored)
    _own_flees(st)
    _resolve_hits(hits, s, cr, st, pkind[1 - s], pol)
    retreated = _command_retreats(cr, pkind, pp, st, s, ncmd, pol)
    if s == E:
        sv[StateSlot.FIRST_ENGLISH] = 0
    return _end_check(st, s, retreated)


@jit(nrt=False)
def _battle(cr, pkind, pp, st, dice, pol):
    """One battle to the end: the one general game loop. Returns (outcome, rolls); the final
    state is in ``st``. No input checks."""
    _reset(cr, st)
    _setup_battle(cr, pkind, st, dice, pol)
    ri = cr.ints
    side = _first_roller(ri)
    rolls = 0
    while rolls < ri[RuleSlot.MAX_ROLLS]:      # 878 §4.10 guard: truncated, not a result
        rolls += 1
        end = _one_roll(cr, pkind, pp, st, side, dice, pol)
        if end != GOING:
            return end, rolls
        side = 1 - side
    return TRUNCATED, rolls


# ---------------------------------------------------------------- a block of battles
@jit(nrt=False)
def _write_battle(out, g, outcome, rolls, st, n_slots, general):
    """Row ``g`` of the outputs from the final state (the base path leaves the columns it
    never changes, and slot UV, as ``allocate`` made them)."""
    out.outcome[g] = outcome
    out.rolls[g] = rolls
    out.structure[g] = st.sv[StateSlot.STRUCT]
    for k in range(n_slots):
        out.alive[g, k] = st.cnt[k]
        out.dead[g, k] = st.dead[k]
        out.fled[g, k] = st.fled[k]
    if not general:
        return
    out.epic[g] = st.sv[StateSlot.EPIC]
    out.traitor[g] = st.sv[StateSlot.TRAITOR]
    for k in range(n_slots):
        out.retreated[g, k] = st.ret[k]
        out.joined[g, k] = st.joined[k]
        out.left[g, k] = st.left[k]
    for k in range(N_EFF):
        out.effects[g, k] = st.eff[k]


@jit(nrt=False)
def _play_block(cr, pkind, pp, st, g0, g1, dice, pol, out):
    """Battles g0..g1-1 into rows g of ``out`` (``Outputs``), with scratch state ``st``."""
    if _fast_ok(cr.ints, pkind):   # literal slot count and flag: a specialised writer each
        for g in range(g0, g1):
            outcome, rolls, struct = _battle_base(cr, st, dice)
            st.sv[StateSlot.STRUCT] = struct
            _write_battle(out, g, outcome, rolls, st, UV, False)
        return
    for g in range(g0, g1):
        outcome, rolls = _battle(cr, pkind, pp, st, dice, pol)
        _write_battle(out, g, outcome, rolls, st, N_UNITS, True)
