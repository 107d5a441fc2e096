"""Ravenfeast warband and scenario kernel (rules notes ravenfeast.md §12.6, §10.7): two warbands
fight a non-spatial melee to the end (``docs/rules-coverage.md``, Ravenfeast warband section,
says how the map is abstracted). It plays the arrays of a ``rules.WarbandSetup``: the Melee and
Armor of every figure come compiled as tables, so the kernel holds no rating arithmetic of its
own beyond morale (§9) and the turn structure (§3).

Turn (§3.1): Initiative (§3.2, option ``initiative``: the side acting first in every phase) →
  Rally (§9.5) → Movement (turn 1: shield walls §8.1; later: disengaging §4.4) →
  Missile (approach turns only, §12.6) → Melee (pairing, attacks §6) →
  End of Turn (removal §7.1 with Fated §10.3 and Thrall capture §10.6; morale §9.2-9.4;
  a second removal of figures killed while fleeing; walls break §8.4; victory).

Draw order (``reference.py`` is bit-identical): dice stream only, in this order —
initiative (``rolled``: side 0's die, side 1's die, repeated on a tie; none in a turn where
nothing can happen, an approach turn without shooters); "first, other" below means the side
that won the initiative, then the other (always side 0 then 1 with ``a_first``) —
rally tests (first, other; figure index order; a Geld re-roll right after a failed die);
disengage Free Attacks (first, other); missiles per shooter (first, other; hit, cover dice,
Armor, Geld re-roll, missile Free Attack); melee per fighter of first, other in line order, per
attack: hit, Armor, Geld re-roll, §6.4 Free Attack; End of Turn: Fated strokes (side 0 then 1:
removal is simultaneous, §3.5), then per side (first, other) and trigger the morale dice
(Leader, Heroes, others) each followed by the Free Attack dice of a figure that flees. The policy stream
is drawn only by the ``random`` target policy (one draw per choice).

Every kernel is compiled without NRT and allocates nothing: :func:`play_block` makes the
scratch state (``st``: :class:`FigState` per figure, ``sd``: :class:`SideState` per side,
``line``, ``cand``) once per block.
"""
from __future__ import annotations

from enum import IntEnum

import numpy as np

from vikingsim.core.jit import jit
from vikingsim.core.rng import _d6
from vikingsim.games.ravenfeast.duel.kernel import _resolve_free_trigger
from vikingsim.games.ravenfeast.profiles import RATING_MAX
from vikingsim.games.ravenfeast.rules import INT8_MAX, RUNNING, Outcome
from vikingsim.games.ravenfeast.warband.policies import GeldUse, PolicySlot, Target
from vikingsim.games.ravenfeast.warband.rules import FigCol, WarbandSetup, WarbandSlot


class Status(IntEnum):
    """Figure status (state column ``FigState.STATUS``)."""

    ACTIVE = 0     # fighting (or in a shield wall's rear rank / disengaged reserve)
    COWARD = 1     # fled with a Coward token (§9.4); rallies or dies next Rally (§9.5)
    DEAD = 2       # removed as killed (§7.1, §9.5)
    CAPTURED = 3   # a Thrall held by an enemy captor (§10.6)


class FigState(IntEnum):
    """Columns of the per-figure state ``st`` (int64, shape=(2, MAX_FIGURES, FigState.N))."""

    BLOOD = 0      # Blood tokens (wounds marked, §6.3); removal at End of Turn (§7.1)
    STATUS = 1     # Status
    RESERVE = 2    # 1: disengaged, out of the line while friends fight (§4.4)
    TGT = 3        # index of the enemy this figure attacks this turn (-1 none)
    ENG = 4        # enemies in contact this turn (>= 2: several enemies, §6.2)
    REAR = 5       # 1: attacks its target from the rear (option rear_attack_from)
    SURR = 6       # 1: engaged front and rear: cannot disengage or flee (§4.4, §9.4)
    RAVEN = 7      # Raven tokens placed on it this turn (§6.4)
    HIT_BY = 8     # last enemy that wounded it in melee (-1: none / missile), for capture
    CAPTOR = 9     # enemy holding it captive (§10.6), -1 none
    DOOM = 10      # scratch of the removal pass: 1 fled/out of contact, 2 in contact
    N = 11


class SideState(IntEnum):
    """Columns of the per-side state ``sd`` (int64, shape=(2, SideState.N))."""

    N_FIG = 0
    LEADER = 1      # index of the Leader
    WALL = 2        # 1: in a shield wall (§8)
    FRONT = 3       # shield-wall frontage (figures in the front rank)
    GELD = 4        # unspent Geld (§10.1)
    FIFTY = 5       # 1: the 50 % test has been taken (§9.2, §13.5)
    EV_LEADER = 6   # Leader removed since the last morale step
    EV_HERO = 7     # Heroes removed since the last morale step
    REMOVED = 8     # figures dead or captured now
    FLED = 9        # morale failures in the current End of Turn
    N_LINE = 10     # fighters in the line this turn
    CAPTIVES = 11   # its figures held captive now (§10.6)
    RAVENS = 12     # Raven tokens placed on its figures this turn (§6.4)
    HURT = 13       # 1: Blood tokens added since the last removal pass (skips empty passes)
    N_HERO = 14     # Heroes in the warband (skips an empty morale phase)
    COWARDS = 15    # its figures with status COWARD now (skips an empty Rally phase)
    N = 16


_NS, _ND = int(FigState.N), int(SideState.N)
_RUNNING = RUNNING
_A_WIN, _B_WIN, _DRAW = int(Outcome.A_WIN), int(Outcome.B_WIN), int(Outcome.DRAW)
_TRUNC = int(Outcome.TRUNCATED)
_NONE = -1                      # no figure (target, hit_by, captor, duel result)
_DOOM_FLED, _DOOM_CONTACT = 1, 2


# ---------------------------------------------------------------- pure rule resolution

@jit(inline="always", nrt=False)
def _resolve_test(roll, rating):
    """§2.2: a test (hit, save, morale, rally, missile) passes when roll <= rating."""
    return roll <= rating


@jit(inline="always", nrt=False)
def _resolve_morale_rating(own, shared, wall, wall_bonus, nearby_hero, clamp):
    """§9.1, §9.3, §8.3, §13.3: the Morale a figure tests on.

    ``shared`` is the best Morale of a Leader/Hero that tested first and passed (0 if none);
    ``nearby_hero`` is 1 when the nearby reading of §13.3 gives +1.
    """
    m = own + nearby_hero
    if shared > m:
        m = shared
    if wall:
        m += wall_bonus
    if clamp:
        m = min(max(m, 0), RATING_MAX)
    return m


@jit(inline="always", nrt=False)
def _resolve_attack(hit_roll, armor_roll, free_roll, melee, armor, free_attack, trigger_six):
    """One melee attack from its dice (§6.1-6.4): (wounds 0-2, raven 0/1, free attack rolled).

    ``armor_roll`` is the final Armor die (after any Geld re-roll); ignored on a miss.
    """
    if not _resolve_test(hit_roll, melee):
        return 0, 0, False
    wounds = 0 if _resolve_test(armor_roll, armor) else 1
    if _resolve_free_trigger(hit_roll, armor_roll, armor, free_attack, trigger_six):
        if _resolve_test(free_roll, melee):
            return wounds + 1, 1, True
        return wounds, 0, True
    return wounds, 0, False


@jit(inline="always", nrt=False)
def _resolve_wall_front(members, ranks):
    """§8.3 abstraction: front-rank width of a wall of ``members`` figures ``ranks`` deep."""
    return (members + ranks - 1) // ranks


@jit(inline="always", nrt=False)
def _resolve_wall_holds(members, wall_min):
    """§8.4: the wall breaks when fewer than ``wall_min`` (SEED 3) figures remain."""
    return members >= wall_min


@jit(inline="always", nrt=False)
def _resolve_fifty(removed, start):
    """§9.2 / §13.5 DEFAULT: more than half of the starting figures removed."""
    return 2 * removed > start


@jit(inline="always", nrt=False)
def _resolve_removed(blood, wounds):
    """§7.1: removed when its Blood tokens reach its wounds."""
    return blood >= wounds


@jit(inline="always", nrt=False)
def _resolve_outcome(f0, f1, held0, held1, thrall_tb, geld0, geld1, geld_tb):
    """§12.6 victory from fighters left (an Outcome code; -1 = fight goes on). A tie (neither
    side has a fighter) goes to the side holding more captive Thralls (``held0`` = side 1's
    figures held by side 0; §10.6, ``thrall_victory`` tiebreak), then optionally to more Geld
    (§10.1), else a draw."""
    if f0 > 0 and f1 > 0:
        return _RUNNING
    if f0 > 0:
        return _A_WIN
    if f1 > 0:
        return _B_WIN
    if thrall_tb and held0 != held1:
        return _A_WIN if held0 > held1 else _B_WIN
    if geld_tb and geld0 != geld1:
        return _A_WIN if geld0 > geld1 else _B_WIN
    return _DRAW


# ---------------------------------------------------------------- kernel helpers

@jit(inline="always", nrt=False)
def _alive(st, s, i):
    stat = st[s, i, FigState.STATUS]
    return stat == Status.ACTIVE or stat == Status.COWARD


@jit(inline="always", nrt=False)
def _in_contact(st, s, i, e):
    """Enemy e (side 1-s) is in contact with figure i of side s this turn (and can strike)."""
    es = 1 - s
    return (st[es, e, FigState.STATUS] == Status.ACTIVE
            and (st[es, e, FigState.TGT] == i or st[s, i, FigState.TGT] == e))


@jit(inline="always", nrt=False)
def _geld_ok(ri, st, sd, s):
    """§10.1: Geld to spend (carried by the Leader, DEFAULT)."""
    if sd[s, SideState.GELD] <= 0:
        return False
    return ri[WarbandSlot.GELD_NEEDS_LEADER] == 0 or _alive(st, s, sd[s, SideState.LEADER])


@jit(inline="always", nrt=False)
def _count_active(st, sd, s):
    """Figures of side s with status ACTIVE."""
    k = 0
    for i in range(sd[s, SideState.N_FIG]):
        if st[s, i, FigState.STATUS] == Status.ACTIVE:
            k += 1
    return k


@jit(inline="always", nrt=False)
def _prefer(kind, fig, st, es, e, b):
    """Target policy: is enemy e strictly preferred to b (§12.6 DEFAULT focus)?"""
    if kind == Target.LEADER:
        ke = 2 * fig[es, e, FigCol.LEADER] + fig[es, e, FigCol.HERO]
        kb = 2 * fig[es, b, FigCol.LEADER] + fig[es, b, FigCol.HERO]
        if ke != kb:
            return ke > kb
    elif kind == Target.SPREAD:
        if st[es, e, FigState.ENG] != st[es, b, FigState.ENG]:
            return st[es, e, FigState.ENG] < st[es, b, FigState.ENG]
    le = fig[es, e, FigCol.WOUNDS] - st[es, e, FigState.BLOOD]
    lb = fig[es, b, FigCol.WOUNDS] - st[es, b, FigState.BLOOD]
    if (le > 0) != (lb > 0):          # figures already doomed this turn last
        return le > 0
    if le != lb:
        return le < lb
    return fig[es, e, FigCol.POINTS2] > fig[es, b, FigCol.POINTS2]


@jit(inline="always", nrt=False)
def _choose(kind, fig, st, es, cand, nc, pol_rng):
    """Pick one of ``cand[:nc]`` (enemy indices, side es) by target policy ``kind``."""
    if kind == Target.RANDOM:
        return cand[int(pol_rng.random() * nc)]
    best = cand[0]
    for k in range(1, nc):
        if _prefer(kind, fig, st, es, cand[k], best):
            best = cand[k]
    return best


@jit(inline="always", nrt=False)
def _mark_blood(st, sd, s, x, wounds, by):
    """``wounds`` Blood tokens on figure x of side s, struck by enemy ``by`` (-1: missile)."""
    st[s, x, FigState.BLOOD] += wounds
    st[s, x, FigState.HIT_BY] = by
    sd[s, SideState.HURT] = 1


@jit(inline="always", nrt=False)
def _free_attacks_on(fig, st, sd, s, x, dice):
    """§4.4 / §9.4: every enemy in contact with figure x strikes once (d6 <= Melee), no Armor
    roll; wounds are marked (removal at End of Turn). One die per enemy in contact."""
    es = 1 - s
    for e in range(sd[es, SideState.N_FIG]):
        if _in_contact(st, s, x, e):
            if _resolve_test(_d6(dice), fig[es, e, FigCol.MELEE]):
                _mark_blood(st, sd, s, x, 1, e)


# ---------------------------------------------------------------- End of Turn: removal

@jit(inline="always", nrt=False)
def _mark_doomed(fig, st, sd):
    """§7.1: DOOM = 2 (ACTIVE) or 1 (COWARD) on every figure whose Blood reaches its wounds,
    0 elsewhere (branch-free; DOOM is 0 outside the removal pass); 1 if any."""
    found = 0
    for s in range(2):
        for i in range(sd[s, SideState.N_FIG]):
            stat = st[s, i, FigState.STATUS]
            hit = (stat <= Status.COWARD) & _resolve_removed(st[s, i, FigState.BLOOD],
                                                             fig[s, i, FigCol.WOUNDS])
            st[s, i, FigState.DOOM] = hit * (_DOOM_CONTACT - stat)
            found |= hit
    return found


@jit(inline="always", nrt=False)
def _captured_by(fig, ri, st, s, i):
    """§10.6: the enemy that captures doomed figure i of side s (a Thrall beaten in combat by
    a figure that survives the turn), or -1."""
    es = 1 - s
    h = st[s, i, FigState.HIT_BY]
    if (ri[WarbandSlot.CAPTURE] and fig[s, i, FigCol.THRALL] and h >= 0 and _alive(st, es, h)
            and not _resolve_removed(st[es, h, FigState.BLOOD], fig[es, h, FigCol.WOUNDS])):
        return h
    return _NONE


@jit(inline="always", nrt=False)
def _remove_doomed(fig, ri, st, sd):
    """§7.1 removal (or §10.6 capture) of the doomed; True if a Fated figure in contact died
    (its DOOM stays 2 for :func:`_fated_strokes`; every other DOOM is reset)."""
    fated = False
    for s in range(2):
        for i in range(sd[s, SideState.N_FIG]):
            doom = st[s, i, FigState.DOOM]
            if doom == 0:
                continue
            h = _captured_by(fig, ri, st, s, i)
            if h >= 0:
                st[s, i, FigState.STATUS] = Status.CAPTURED   # §10.6 beaten in combat
                st[s, i, FigState.CAPTOR] = h
                sd[s, SideState.CAPTIVES] += 1
            else:
                st[s, i, FigState.STATUS] = Status.DEAD       # §7.1
            sd[s, SideState.REMOVED] += 1
            sd[s, SideState.EV_LEADER] += fig[s, i, FigCol.LEADER]
            sd[s, SideState.EV_HERO] += fig[s, i, FigCol.HERO]
            if doom == _DOOM_FLED:
                sd[s, SideState.COWARDS] -= 1
            if doom == _DOOM_CONTACT and fig[s, i, FigCol.FATED]:
                fated = True
            else:
                st[s, i, FigState.DOOM] = 0
    return fated


@jit(inline="always", nrt=False)
def _fated_strokes(fig, armt, ri, st, sd, dice):
    """§10.3: each Fated figure killed in contact strikes every enemy in contact once (d6 <=
    Melee; with ``fated_armor_roll`` the target rolls Armor, Mighty counted)."""
    for s in range(2):
        es = 1 - s
        for i in range(sd[s, SideState.N_FIG]):
            if st[s, i, FigState.DOOM] != _DOOM_CONTACT:
                continue
            st[s, i, FigState.DOOM] = 0
            for e in range(sd[es, SideState.N_FIG]):
                if not _in_contact(st, s, i, e):
                    continue
                if not _resolve_test(_d6(dice), fig[s, i, FigCol.MELEE]):
                    continue
                if ri[WarbandSlot.FATED_ARMOR]:
                    a = armt[es, e, sd[es, SideState.WALL] + 4 * fig[s, i, FigCol.MIGHTY]]
                    if _resolve_test(_d6(dice), a):
                        continue
                _mark_blood(st, sd, es, e, 1, i)


@jit(inline="always", nrt=False)
def _free_captives(fig, st, sd):
    """§10.6: a captive whose captor is beaten is freed, with one wound left."""
    for s in range(2):
        es = 1 - s
        if sd[s, SideState.CAPTIVES] == 0:
            continue
        for i in range(sd[s, SideState.N_FIG]):
            if (st[s, i, FigState.STATUS] == Status.CAPTURED
                    and not _alive(st, es, st[s, i, FigState.CAPTOR])):
                sd[s, SideState.CAPTIVES] -= 1
                st[s, i, FigState.STATUS] = Status.ACTIVE
                st[s, i, FigState.BLOOD] = fig[s, i, FigCol.WOUNDS] - 1
                st[s, i, FigState.CAPTOR] = _NONE
                st[s, i, FigState.TGT] = _NONE
                st[s, i, FigState.HIT_BY] = _NONE
                sd[s, SideState.REMOVED] -= 1


@jit(inline="always", nrt=False)
def _removal(fig, armt, ri, st, sd, dice):
    """§7.1 End of Turn removal, §10.3 Fated strokes (repeated while they kill), §10.6 capture
    and release."""
    while sd[0, SideState.HURT] or sd[1, SideState.HURT]:   # no new Blood: nothing to remove
        sd[0, SideState.HURT] = 0
        sd[1, SideState.HURT] = 0
        if not _mark_doomed(fig, st, sd):
            break
        if not _remove_doomed(fig, ri, st, sd):
            break
        _fated_strokes(fig, armt, ri, st, sd, dice)
    _free_captives(fig, st, sd)


# ---------------------------------------------------------------- morale

@jit(inline="always", nrt=False)
def _flee(fig, st, sd, s, x, dice):
    """§9.4: a failed test gives a Coward token; the figure flees and every enemy in contact gets a
    Free Attack; a figure engaged front and rear cannot flee and is killed (or captured)."""
    sd[s, SideState.FLED] += 1
    if st[s, x, FigState.SURR]:
        st[s, x, FigState.BLOOD] = fig[s, x, FigCol.WOUNDS]
        sd[s, SideState.HURT] = 1
    else:
        _free_attacks_on(fig, st, sd, s, x, dice)
    st[s, x, FigState.STATUS] = Status.COWARD
    sd[s, SideState.COWARDS] += 1
    st[s, x, FigState.TGT] = _NONE
    st[s, x, FigState.RESERVE] = 0


@jit(inline="always", nrt=False)
def _morale_roll(ri, pol, st, sd, s, rating, dice):
    """One morale or rally test of a figure of side s; a failed die is re-rolled with Geld when
    the policy spends it so (§10.1)."""
    ok = _resolve_test(_d6(dice), rating)
    if not ok and pol[s, PolicySlot.GELD] == GeldUse.MORALE and _geld_ok(ri, st, sd, s):
        sd[s, SideState.GELD] -= 1                          # §10.1 re-roll
        ok = _resolve_test(_d6(dice), rating)
    return ok


@jit(inline="always", nrt=False)
def _group_test(fig, ri, pol, st, sd, s, dice):
    """One morale trigger for side s (§9.2-9.4): the Leader tests first, then Heroes, then the
    rest in index order; friends may use a passed Leader's/Hero's Morale (§9.3)."""
    n = sd[s, SideState.N_FIG]
    lead = sd[s, SideState.LEADER]
    nearby = 0
    if ri[WarbandSlot.HERO_NEARBY]:                         # §13.3 nearby reading
        for i in range(n):
            if fig[s, i, FigCol.HERO] and st[s, i, FigState.STATUS] == Status.ACTIVE:
                nearby = 1
    shared = 0
    for ph in range(3):                                     # Leader, Heroes, the others
        i0 = lead if ph == 0 else 0
        i1 = lead + 1 if ph == 0 else n
        if ph == 1 and sd[s, SideState.N_HERO] == 0:
            continue
        for i in range(i0, i1):
            if st[s, i, FigState.STATUS] != Status.ACTIVE or fig[s, i, FigCol.FEARLESS]:
                continue                                    # §10.4 Fearless never tests
            is_lead = i == lead
            is_hero = fig[s, i, FigCol.HERO] != 0 and not is_lead
            if ph != (0 if is_lead else (1 if is_hero else 2)):
                continue
            nb = 0 if fig[s, i, FigCol.HERO] else nearby
            rating = _resolve_morale_rating(fig[s, i, FigCol.MORALE], shared,
                                            sd[s, SideState.WALL],
                                            ri[WarbandSlot.WALL_MORALE], nb,
                                            ri[WarbandSlot.CLAMP])
            if _morale_roll(ri, pol, st, sd, s, rating, dice):
                if (ph < 2 and ri[WarbandSlot.LEADER_SHARES]
                        and fig[s, i, FigCol.MORALE] > shared):
                    shared = fig[s, i, FigCol.MORALE]       # §9.3
            else:
                _flee(fig, st, sd, s, i, dice)


@jit(inline="always", nrt=False)
def _rally(fig, ri, pol, st, sd, first, dice):
    """§9.5 Rally phase: each Coward tests Morale; pass: acts normally; fail: removed as killed.
    Sides in initiative order (§3.1: side ``first``, then the other)."""
    for k in range(2):
        s = first ^ k
        if sd[s, SideState.COWARDS] == 0:
            continue
        lead = sd[s, SideState.LEADER]
        for i in range(sd[s, SideState.N_FIG]):
            if st[s, i, FigState.STATUS] != Status.COWARD:
                continue
            sd[s, SideState.COWARDS] -= 1
            rating = fig[s, i, FigCol.MORALE]
            if ri[WarbandSlot.RALLY_LEADER] and st[s, lead, FigState.STATUS] == Status.ACTIVE:
                rating = max(rating, fig[s, lead, FigCol.MORALE])
            if _morale_roll(ri, pol, st, sd, s, rating, dice):
                st[s, i, FigState.STATUS] = Status.ACTIVE
                st[s, i, FigState.TGT] = _NONE
            else:
                st[s, i, FigState.STATUS] = Status.DEAD
                sd[s, SideState.REMOVED] += 1
                sd[s, SideState.EV_LEADER] += fig[s, i, FigCol.LEADER]
                sd[s, SideState.EV_HERO] += fig[s, i, FigCol.HERO]


@jit(inline="always", nrt=False)
def _count_ravens(ri, st, sd, s):
    """§6.4, §13.2: Raven tokens placed on side s this turn (cleared here); returns (tests
    owed by side 0, by side 1): the victim's side tests, or the attacker's
    (``raven_test_side``); with ``raven_token_requires_death`` only tokens on the dead count."""
    r0 = 0
    r1 = 0
    if sd[s, SideState.RAVENS] == 0:
        return r0, r1
    sd[s, SideState.RAVENS] = 0
    for i in range(sd[s, SideState.N_FIG]):
        r = st[s, i, FigState.RAVEN]
        if r > 0 and (ri[WarbandSlot.RAVEN_DEATH] == 0 or not _alive(st, s, i)):
            if (s == 0) != (ri[WarbandSlot.RAVEN_ATTACKER] != 0):
                r0 += r
            else:
                r1 += r
        st[s, i, FigState.RAVEN] = 0
    return r0, r1


@jit(inline="always", nrt=False)
def _morale_phase(fig, ri, pol, st, sd, first, dice):
    """§9.2 morale triggers per side, in initiative order (§3.1: side ``first`` tests first, so
    its fleeing figures take Free Attacks from enemies that may flee after them): Leader
    killed, past 50 % (once), each Hero killed, each Raven token owed; each is one group
    test."""
    ravens0 = 0
    ravens1 = 0
    for s in range(2):
        r0, r1 = _count_ravens(ri, st, sd, s)
        ravens0 += r0
        ravens1 += r1
    for s in range(2):
        sd[s, SideState.FLED] = 0
    for k in range(2):
        s = first ^ k
        tests = 0
        if sd[s, SideState.EV_LEADER] > 0:                  # §9.2 Leader killed
            tests += 1
        if sd[s, SideState.FIFTY] == 0 and _resolve_fifty(sd[s, SideState.REMOVED],
                                                          sd[s, SideState.N_FIG]):
            sd[s, SideState.FIFTY] = 1                      # §9.2 past 50 %, once
            tests += 1
        tests += sd[s, SideState.EV_HERO]                   # §9.2 Hero killed
        tests += ravens0 if s == 0 else ravens1             # §9.2 Raven token
        for _ in range(tests):
            _group_test(fig, ri, pol, st, sd, s, dice)
        sd[s, SideState.EV_LEADER] = 0
        sd[s, SideState.EV_HERO] = 0


@jit(inline="always", nrt=False)
def _end_of_turn(fig, armt, ri, pol, st, sd, first, dice):
    """§3.5 End of Turn: removal, morale triggers (§9.2) per side in initiative order, removal
    of the fled killed (their triggers wait a turn), §8.4 walls break."""
    for p in range(2):              # a loop, not two calls: one inlined copy of _removal
        _removal(fig, armt, ri, st, sd, dice)               # (compile time); 2nd pass:
        if p == 0:                                          # the fled and killed
            _morale_phase(fig, ri, pol, st, sd, first, dice)
    for s in range(2):                                      # §8.4 the wall breaks below 3
        if sd[s, SideState.WALL]:
            if not _resolve_wall_holds(_count_active(st, sd, s), ri[WarbandSlot.WALL_MIN]):
                sd[s, SideState.WALL] = 0


# ---------------------------------------------------------------- Movement and Missile

@jit(inline="always", nrt=False)
def _form_walls(ri, pol, st, sd):
    """Turn 1 Movement: a side whose policy forms a shield wall does so if it has enough
    figures (§8.1, §8.4); its front rank is ``wall_ranks`` deep (§8.3 abstraction)."""
    for s in range(2):
        if pol[s, PolicySlot.WALL]:
            k = _count_active(st, sd, s)
            if _resolve_wall_holds(k, ri[WarbandSlot.WALL_MIN]):
                sd[s, SideState.WALL] = 1
                sd[s, SideState.FRONT] = _resolve_wall_front(k, ri[WarbandSlot.WALL_RANKS])


@jit(inline="always", nrt=False)
def _disengage(fig, ri, pol, st, sd, first, dice):
    """§4.4 disengaging as a policy: a wounded Leader with at most the policy's
    ``disengage_at`` wounds left steps out of the line while a friend still fights; every enemy
    in contact gets a Free Attack. It returns when no friend is left fighting. Sides in
    initiative order (§3.1)."""
    for k in range(2):
        s = first ^ k
        at = pol[s, PolicySlot.DISENGAGE_AT]
        if at == 0:
            continue
        lead = sd[s, SideState.LEADER]
        if (st[s, lead, FigState.STATUS] != Status.ACTIVE or st[s, lead, FigState.RESERVE]
                or st[s, lead, FigState.TGT] < 0 or st[s, lead, FigState.SURR]):
            continue
        blood = st[s, lead, FigState.BLOOD]
        if blood == 0 or fig[s, lead, FigCol.WOUNDS] - blood > at:
            continue
        other = False
        for i in range(sd[s, SideState.N_FIG]):
            if (i != lead and st[s, i, FigState.STATUS] == Status.ACTIVE
                    and st[s, i, FigState.RESERVE] == 0):
                other = True
        if not other:
            continue
        _free_attacks_on(fig, st, sd, s, lead, dice)
        st[s, lead, FigState.RESERVE] = 1
        st[s, lead, FigState.TGT] = _NONE


@jit(inline="always", nrt=False)
def _missile_targets(fig, st, sd, es, cand):
    """§5.2 "closest" abstraction: the ACTIVE enemies that are no Leader or Hero into
    ``cand``, or all ACTIVE enemies when none is left; returns how many."""
    nc = 0
    for e in range(sd[es, SideState.N_FIG]):
        if (st[es, e, FigState.STATUS] == Status.ACTIVE and not fig[es, e, FigCol.LEADER]
                and not fig[es, e, FigCol.HERO]):
            cand[nc] = e
            nc += 1
    if nc == 0:
        for e in range(sd[es, SideState.N_FIG]):
            if st[es, e, FigState.STATUS] == Status.ACTIVE:
                cand[nc] = e
                nc += 1
    return nc


@jit(inline="always", nrt=False)
def _shoot(fig, armt, ri, pol, st, sd, s, i, x, dice):
    """Shooter i of side s fires at enemy x: hit (§5.3), cover dice (§5.3, ``cover_block_min``
    and up blocks), Armor (no Mighty), Geld re-roll of the Leader's save, and with
    ``free_attack_in_missile`` the §6.4 Free Attack."""
    es = 1 - s
    h = _d6(dice)
    if not _resolve_test(h, fig[s, i, FigCol.MISSILE]):     # §5.3 to hit
        return
    for c in range(ri[WarbandSlot.COVER]):                  # §5.3 cover, 4+ blocks
        if _d6(dice) >= ri[WarbandSlot.COVER_BLOCK]:
            return
    arm = armt[es, x, sd[es, SideState.WALL]]
    sv = _d6(dice)
    if (not _resolve_test(sv, arm) and pol[es, PolicySlot.GELD] == GeldUse.LEADER_SAVES
            and x == sd[es, SideState.LEADER] and _geld_ok(ri, st, sd, es)):
        sd[es, SideState.GELD] -= 1
        sv = _d6(dice)
    if not _resolve_test(sv, arm):
        _mark_blood(st, sd, es, x, 1, _NONE)
    if ri[WarbandSlot.FREE_IN_MISSILE] and _resolve_free_trigger(h, sv, arm, True,
                                                                 ri[WarbandSlot.TRIGGER_SIX]):
        if _resolve_test(_d6(dice), fig[s, i, FigCol.MISSILE]):
            _mark_blood(st, sd, es, x, 1, _NONE)
            st[es, x, FigState.RAVEN] += 1
            sd[es, SideState.RAVENS] += 1


@jit(inline="always", nrt=False)
def _missiles(fig, armt, ri, pol, st, sd, t, cand, first, dice, pol_rng):
    """§5 / §12.6 approach volleys: shooters in range fire once at a target chosen by policy;
    Leaders and Heroes only when no other target is left (§5.2 "closest" abstraction). Sides
    in initiative order (§3.1; simultaneous, §3.4: only the draw order)."""
    dist = (ri[WarbandSlot.APPROACH_LAST]
            + (ri[WarbandSlot.APPROACH_TURNS] - t) * ri[WarbandSlot.APPROACH_STEP])
    for s in range(2):
        for i in range(sd[s, SideState.N_FIG]):
            st[s, i, FigState.ENG] = 0                      # shots aimed at it this volley
    for k in range(2):
        s = first ^ k
        es = 1 - s
        for i in range(sd[s, SideState.N_FIG]):
            if (st[s, i, FigState.STATUS] != Status.ACTIVE or fig[s, i, FigCol.MISSILE] == 0
                    or fig[s, i, FigCol.RANGE] < dist):
                continue
            nc = _missile_targets(fig, st, sd, es, cand)
            if nc == 0:
                continue
            x = _choose(pol[s, PolicySlot.TARGET], fig, st, es, cand, nc, pol_rng)
            st[es, x, FigState.ENG] += 1
            _shoot(fig, armt, ri, pol, st, sd, s, i, x, dice)


# ---------------------------------------------------------------- Melee

@jit(inline="always", nrt=False)
def _form_line(fig, st, sd, line, s, duel_only):
    """Side s's fighters this turn into ``line[s]`` (ACTIVE, not in reserve; in the §10.7
    duel only the Leader); the reserve rejoins when no one else is left; a wall's rear rank
    waits (§8.3). Clears the turn's pairing state."""
    n = sd[s, SideState.N_FIG]
    k = 0
    for i in range(n):
        st[s, i, FigState.TGT] = _NONE
        st[s, i, FigState.ENG] = 0
        st[s, i, FigState.REAR] = 0
        st[s, i, FigState.SURR] = 0
        line[s, k] = i                                      # kept if it fights (branch-free)
        k += ((st[s, i, FigState.STATUS] == Status.ACTIVE) & (st[s, i, FigState.RESERVE] == 0)
              & ((duel_only == 0) | (fig[s, i, FigCol.LEADER] != 0)))
    if k == 0 and duel_only == 0:                           # reserve rejoins when alone
        for i in range(n):
            if st[s, i, FigState.STATUS] == Status.ACTIVE and st[s, i, FigState.RESERVE]:
                st[s, i, FigState.RESERVE] = 0
                line[s, k] = i
                k += 1
    if sd[s, SideState.WALL] and k > sd[s, SideState.FRONT]:
        k = sd[s, SideState.FRONT]                          # §8.3 rear rank waits
    sd[s, SideState.N_LINE] = k


@jit(inline="always", nrt=False)
def _join_surplus(fig, ri, pol, st, sd, line, big, m, pol_rng):
    """§12.6: the longer line's surplus fighters each join a fight, the enemy chosen by policy
    among the paired ones; the ``rear_attack_from``-th enemy on one figure attacks from the
    rear and leaves it surrounded."""
    sm = 1 - big
    for j in range(m, sd[big, SideState.N_LINE]):
        f = line[big, j]
        e = _choose(pol[big, PolicySlot.TARGET], fig, st, sm, line[sm], m, pol_rng)
        st[big, f, FigState.TGT] = e
        st[big, f, FigState.ENG] = 1
        st[sm, e, FigState.ENG] += 1
        rear_from = ri[WarbandSlot.REAR_FROM]
        if rear_from > 0 and st[sm, e, FigState.ENG] >= rear_from:
            st[big, f, FigState.REAR] = 1
            st[sm, e, FigState.SURR] = 1


@jit(inline="always", nrt=False)
def _face_one(fig, pol, st, sd, line, cand, big, m, pol_rng):
    """§4.3: a ganged-up figure of the shorter line strikes one of its attackers (policy)."""
    sm = 1 - big
    for j in range(m):
        x = line[sm, j]
        if st[sm, x, FigState.ENG] <= 1:
            continue
        nc = 0
        for jj in range(sd[big, SideState.N_LINE]):
            f = line[big, jj]
            if st[big, f, FigState.TGT] == x:
                cand[nc] = f
                nc += 1
        st[sm, x, FigState.TGT] = _choose(pol[sm, PolicySlot.TARGET], fig, st, big, cand, nc,
                                          pol_rng)


@jit(inline="always", nrt=False)
def _pair_lines(fig, ri, pol, st, sd, line, cand, m, pol_rng):
    """§12.6 pairing of the first ``m`` fighters of each line front to front, then the
    surplus of the longer line."""
    for j in range(m):
        a = line[0, j]
        b = line[1, j]
        st[0, a, FigState.TGT] = b
        st[1, b, FigState.TGT] = a
        st[0, a, FigState.ENG] = 1
        st[1, b, FigState.ENG] = 1
    if sd[0, SideState.N_LINE] != sd[1, SideState.N_LINE]:
        big = 0 if sd[0, SideState.N_LINE] > sd[1, SideState.N_LINE] else 1
        _join_surplus(fig, ri, pol, st, sd, line, big, m, pol_rng)
        _face_one(fig, pol, st, sd, line, cand, big, m, pol_rng)


@jit(inline="always", nrt=False)
def _strike(fig, melt, armt, ri, pol, st, sd, s, f, dice):
    """Fighter f of side s makes its attacks on its target (§6.1-6.4): per attack a hit die,
    an Armor die (Geld may re-roll the Leader's failed save, §10.1), the §6.4 Free Attack die;
    wounds are marked (§3.4: removed at End of Turn)."""
    es = 1 - s
    x = st[s, f, FigState.TGT]
    out = 1 if st[s, f, FigState.ENG] > 1 else 0            # §6.2 several enemies
    mel = melt[s, f, out + 2 * sd[s, SideState.WALL]]
    arm = armt[es, x, (sd[es, SideState.WALL] + 2 * st[s, f, FigState.REAR]
                       + 4 * fig[s, f, FigCol.MIGHTY])]
    geld_saves = (pol[es, PolicySlot.GELD] == GeldUse.LEADER_SAVES
                  and x == sd[es, SideState.LEADER])
    free_attack = ri[WarbandSlot.FREE_ATTACK] != 0
    trigger_six = ri[WarbandSlot.TRIGGER_SIX] != 0
    wounds = 0
    ravens = 0
    for _ in range(fig[s, f, FigCol.ATTACKS]):
        h = _d6(dice)                                       # §6.1 hit die
        if not _resolve_test(h, mel):
            continue
        sv = _d6(dice)                                      # §6.3 Armor die
        if geld_saves and not _resolve_test(sv, arm) and _geld_ok(ri, st, sd, es):
            sd[es, SideState.GELD] -= 1                     # §10.1 re-roll
            sv = _d6(dice)
        fr = 0
        if _resolve_free_trigger(h, sv, arm, free_attack, trigger_six):
            fr = _d6(dice)                                  # §6.4 Free Attack die
        w, r, _ = _resolve_attack(h, sv, fr, mel, arm, free_attack, trigger_six)
        wounds += w
        ravens += r
    if wounds > 0:
        _mark_blood(st, sd, es, x, wounds, f)
    st[es, x, FigState.RAVEN] += ravens
    sd[es, SideState.RAVENS] += ravens


@jit(inline="always", nrt=False)
def _melee(fig, melt, armt, ri, pol, st, sd, line, cand, duel_only, first, dice, pol_rng):
    """§6 / §12.6 melee phase: form and pair the lines, surplus figures gang up, then every
    fighter's attacks, side ``first``'s first (§3.1 initiative order; §3.4 simultaneous: only
    the draw order)."""
    for s in range(2):
        _form_line(fig, st, sd, line, s, duel_only)
    m = min(sd[0, SideState.N_LINE], sd[1, SideState.N_LINE])
    if m == 0:
        return
    _pair_lines(fig, ri, pol, st, sd, line, cand, m, pol_rng)
    for k in range(2):
        s = first ^ k
        for j in range(sd[s, SideState.N_LINE]):
            _strike(fig, melt, armt, ri, pol, st, sd, s, line[s, j], dice)


# ---------------------------------------------------------------- battle

@jit(inline="always", nrt=False)
def _command(fig, st, sd, s):
    """§3.2: the Leaders and Heroes left in side s's force (alive: ACTIVE or COWARD; a figure
    that is both a Leader and a Hero counts as one of each)."""
    k = 0
    for i in range(sd[s, SideState.N_FIG]):
        if _alive(st, s, i):
            k += fig[s, i, FigCol.LEADER] + fig[s, i, FigCol.HERO]
    return k


@jit(inline="always", nrt=False)
def _resolve_initiative(roll0, roll1, command0, command1):
    """§3.2: the side acting first from the two initiative dice: the lower d6 - (Leaders +
    Heroes left) (the low roller goes first, DEFAULT: it never names the other side);
    -1 on a tie (both roll again)."""
    r0 = roll0 - command0
    r1 = roll1 - command1
    if r0 == r1:
        return _NONE
    return 0 if r0 < r1 else 1


@jit(inline="always", nrt=False)
def _initiative(fig, ri, st, sd, dice):
    """§3.2 Initiative phase: the side that acts first in every phase of this turn. Option
    ``initiative``: rolled (DEFAULT) draws a die for side 0 then side 1, again on a tie;
    a_first (the old fixed order) draws nothing and returns 0."""
    if ri[WarbandSlot.INITIATIVE] == 0:
        return 0
    c0 = _command(fig, st, sd, 0)
    c1 = _command(fig, st, sd, 1)
    while True:
        d0 = _d6(dice)
        first = _resolve_initiative(d0, _d6(dice), c0, c1)
        if first != _NONE:
            return first


@jit(inline="always", nrt=False)
def _fighters(ri, st, sd, s):
    """1 if side s has a figure able to fight (§12.6): ACTIVE; with end_rule no_figures, a
    Coward too; else 0 (only "any" matters for the victory rule)."""
    for i in range(sd[s, SideState.N_FIG]):
        stat = st[s, i, FigState.STATUS]
        if stat == Status.ACTIVE or (ri[WarbandSlot.END_FIGURES] and stat == Status.COWARD):
            return 1
    return 0


@jit(inline="always", nrt=False)
def _victory(ri, st, sd):
    """§12.6 victory (§10.6 Thralls, §10.1 Geld tie-breaks): an Outcome code or -1."""
    return _resolve_outcome(_fighters(ri, st, sd, 0), _fighters(ri, st, sd, 1),
                            sd[1, SideState.CAPTIVES], sd[0, SideState.CAPTIVES],
                            ri[WarbandSlot.THRALL_TIEBREAK], sd[0, SideState.GELD],
                            sd[1, SideState.GELD], ri[WarbandSlot.GELD_TIEBREAK])


@jit(inline="always", nrt=False)
def _reset(fig, nfig, ri, st, sd):
    """A battle's starting state: every figure ACTIVE with no token, no target; Leader index,
    Hero count and Geld (§10.1) per side. Returns whether any figure can shoot."""
    shooters = False
    for s in range(2):
        for k in range(_ND):
            sd[s, k] = 0
        sd[s, SideState.N_FIG] = nfig[s]
        sd[s, SideState.GELD] = ri[WarbandSlot.GELD]        # §10.1
        for i in range(nfig[s]):
            for k in range(_NS):
                st[s, i, k] = 0
            st[s, i, FigState.TGT] = _NONE
            st[s, i, FigState.HIT_BY] = _NONE
            st[s, i, FigState.CAPTOR] = _NONE
            if fig[s, i, FigCol.LEADER]:
                sd[s, SideState.LEADER] = i
            sd[s, SideState.N_HERO] += fig[s, i, FigCol.HERO]
            if fig[s, i, FigCol.MISSILE] > 0:
                shooters = True
    return shooters


@jit(inline="always", nrt=False)
def _honour_duel(ri, st, sd, duel_res):
    """§10.7 Fight for Honor after an End of Turn of the Jarls' duel: returns (general melee
    0/1, duel result: -1 none, or the Outcome code of the Jarls' fight, battle result or -1).
    A warband that fails morale starts the general melee; a fallen Jarl ends the game
    (``ffh_duel_death_ends``) or starts it."""
    la = st[0, sd[0, SideState.LEADER], FigState.STATUS] == Status.DEAD
    lb = st[1, sd[1, SideState.LEADER], FigState.STATUS] == Status.DEAD
    if la or lb:
        duel_res = _DRAW if (la and lb) else (_B_WIN if la else _A_WIN)
    if sd[0, SideState.FLED] + sd[1, SideState.FLED] > 0:
        return 1, duel_res, _RUNNING                        # a warband fails morale: melee
    if la or lb:
        if ri[WarbandSlot.FFH_DEATH_ENDS]:
            return 0, duel_res, duel_res
        return 1, duel_res, _RUNNING
    return 0, duel_res, _RUNNING


@jit(nrt=False)
def _battle(fig, melt, armt, nfig, ri, pol, st, sd, line, cand, dice, pol_rng):
    """One battle (§3 turn sequence); returns (outcome, turns, general_melee, duel_result).

    No input checks. ``st``, ``sd``, ``line``, ``cand`` are scratch, overwritten here.
    """
    shooters = _reset(fig, nfig, ri, st, sd)
    scen = ri[WarbandSlot.SCENARIO]
    gm = 1 if scen == 0 else 0                              # §10.7 duel first
    duel_res = _NONE
    approach = ri[WarbandSlot.APPROACH_TURNS] if scen == 0 else 0
    result = _RUNNING
    t = 0
    while t < ri[WarbandSlot.MAX_TURNS]:
        t += 1
        quiet = t <= approach and not shooters              # nothing can happen: no dice
        first = 0
        if not quiet:
            first = _initiative(fig, ri, st, sd, dice)      # 1 Initiative (§3.2)
            _rally(fig, ri, pol, st, sd, first, dice)       # 2 Rally (§9.5)
        if t == 1:
            _form_walls(ri, pol, st, sd)                    # 3 Movement: §8.1 walls form
        elif gm:
            _disengage(fig, ri, pol, st, sd, first, dice)   # §4.4
        if quiet:
            continue
        if t <= approach:
            _missiles(fig, armt, ri, pol, st, sd, t, cand, first, dice, pol_rng)   # 4 Missile
        else:
            _melee(fig, melt, armt, ri, pol, st, sd, line, cand, 1 - gm, first, dice,
                   pol_rng)                                 # 5 Melee
        _end_of_turn(fig, armt, ri, pol, st, sd, first, dice)   # 6 End of Turn
        if gm == 0:                                         # §10.7 Fight for Honor
            gm, duel_res, result = _honour_duel(ri, st, sd, duel_res)
            if result != _RUNNING:
                break
        result = _victory(ri, st, sd)
        if result != _RUNNING:
            break
    if result == _RUNNING:
        result = _TRUNC                                     # §12.6 cap: never a draw
    return result, t, gm, duel_res


@jit(inline="always", nrt=False)
def _side_counts(nfig, st, sd, s):
    """(figures alive, fled, enemies held captive, Geld left capped at INT8_MAX) of side s."""
    alive = 0
    fled = 0
    held = 0
    for i in range(nfig[s]):                                # branch-free counts
        stat = st[s, i, FigState.STATUS]
        alive += stat <= Status.COWARD
        fled += stat == Status.COWARD
    for i in range(nfig[1 - s]):
        held += st[1 - s, i, FigState.STATUS] == Status.CAPTURED
    return alive, fled, held, min(sd[s, SideState.GELD], INT8_MAX)


@jit(nrt=False)
def _play_block(fig, melt, armt, nfig, ri, pol, g0, g1, dice, pol_rng, st, sd, line, cand,
                outcome, turns, surv_a, surv_b, fled_a, fled_b, thralls_a, thralls_b, geld_a,
                geld_b, general_melee, duel_result):
    """Battles g0..g1-1 into the output arrays (shape=(n_games,)). No input checks.

    Compiled without NRT (no allocation here): the scratch state ``st`` (2, MAX_FIGURES,
    FigState.N), ``sd`` (2, SideState.N), ``line`` (2, MAX_FIGURES), ``cand`` (MAX_FIGURES,)
    comes from the wrapper, allocated once per block, never per battle. Streams: ``dice`` for
    every die, ``pol_rng`` only for the random target policy.
    """
    for g in range(g0, g1):
        res, t, gm, dr = _battle(fig, melt, armt, nfig, ri, pol, st, sd, line, cand, dice,
                                 pol_rng)
        outcome[g] = res
        turns[g] = t
        general_melee[g] = gm
        duel_result[g] = dr
        surv_a[g], fled_a[g], thralls_a[g], geld_a[g] = _side_counts(nfig, st, sd, 0)
        surv_b[g], fled_b[g], thralls_b[g], geld_b[g] = _side_counts(nfig, st, sd, 1)


# ---------------------------------------------------------------- entry

OUT_DTYPES = {"outcome": np.int8, "turns": np.int16, "a_survivors": np.int8,
              "b_survivors": np.int8, "a_fled": np.int8, "b_fled": np.int8,
              "a_thralls": np.int8, "b_thralls": np.int8, "a_geld": np.int8, "b_geld": np.int8,
              "general_melee": np.int8, "duel_result": np.int8}


def allocate(setup: WarbandSetup, n: int) -> dict:
    """Per-battle outputs: 13 bytes a battle (10 million battles = 130 MB)."""
    return {k: np.zeros(n, dt) for k, dt in OUT_DTYPES.items()}


def play_block(setup: WarbandSetup, g0, g1, dice_rng, pol_rng, out) -> None:
    """Compiled battles g0..g1-1 of ``out`` (one nogil kernel call); the scratch state is
    made here, once per block."""
    maxf = setup.fig.shape[1]
    st = np.zeros((2, maxf, _NS), np.int64)
    sd = np.zeros((2, _ND), np.int64)
    line = np.zeros((2, maxf), np.int64)
    cand = np.zeros(maxf, np.int64)
    _play_block(setup.fig, setup.melt, setup.armt, setup.nfig, setup.ri, setup.pol, g0, g1,
                dice_rng, pol_rng, st, sd, line, cand, out["outcome"], out["turns"],
                out["a_survivors"], out["b_survivors"], out["a_fled"], out["b_fled"],
                out["a_thralls"], out["b_thralls"], out["a_geld"], out["b_geld"],
                out["general_melee"], out["duel_result"])
