"""Exact best play with Runes and Prayer (SEED §4; issue 21 §3): a numba DP for small battles.

**Decisions optimised** (878 §5.2), each a maximin choice of the side that makes it:
- at every roll, how many of the rolling side's factions roll a Runes (Vikings) or Prayer
  (English) die, ``k`` = 0 .. factions present, decided before the roll (SEED §4.1: the dice
  are rolled with the battle dice). The first ``k`` factions present (Norsemen, Berserkers /
  Housecarls, Thegns) each take a die from the pool, or, with the pool empty, re-roll a placed
  Viking Conversion (Vikings) or Faith die (English);
- at every roll, once its Runes/Prayer dice have landed, the English spending (SEED §4.4: all
  Conversions lie on the English card): God's Peace now, or Convert ``q`` times (0 .. what is
  affordable); not taking God's Peace keeps it for a later roll. The English see the cards and
  the units, not that roll's battle dice (a decision on the dice would need them in the state);
- at the start of every Viking roll, before its ``k`` (one choice of the pair), whether the
  Vikings buy Ragnarök (SEED §4.3: its Runes back to the pool, once per battle; it changes no
  outcome of one battle, 878 §5.2). ``rp_spec(..., ragnarok=False)`` switches this node off;
- inside every Viking roll, once its dice have landed and the English have decided their
  spending, Omens of Victory (SEED §4.3): stop, or pay the Omens cost and re-roll the dice of
  one type except the Hits, Flees and others kept, again while Runes last (``_omens_dp``, an
  in-roll node per (Norsemen Hits, Flees, Berserker Hits, Flees, Runes left), solved inside
  the spending node and not stored; a block is then solved by policy iteration, see
  ``_solve_rp``). ``rp_spec(..., omens=False)``: the scripted target instead (the type with
  most non-Hit dice, Norsemen on a tie: the ``greedy`` target), the solver before this node.

**Scripted** (the same rule in the DP, the kernel and the reference; the policy ``optimal``):
never Battle Rage, Ragnarök at any other point, Defend the Faith, Faith in Victory (no Fyrd
here) or a Command retreat. Why each is left out: 878 §5.2.

Two zero-sum games (``optimal.py``): game 0 P(Viking success), game 1 P(English success). The
state is ``(n, b, h, t, runes, runes_conv, faith, prayer_conv, pend, rag, side)``: units, the
cards (Runes on the Viking card, Viking Conversions, Faith and English Conversions on the
Prayer card; pools are what is left), the Berserker first-hit rule pending (878 §4.6),
Ragnarök bought and whose roll it is; each roll is two nodes of it (phase 0 before the roll, phase 1 the dice landed). Units
only decrease except Convert (a Norseman for a Thegn, SEED §4.4), so with ``n`` the outermost
index every roll that changes a unit leads to a block solved before; inside a block of equal
units (card changes only) the game is solved by value iteration to 1e-15.

Supported rules: armies (no Fyrd), ``attacker``, ``first_roller``, faces/max dice,
``berserker_first_hit`` (first-English-roll scope) and ``seidr``, the Runes and Prayer dice,
faces and costs, ``gods_peace_exit``; inert here (never used by the scripted rules):
``reserve_berserkers``, ``martyrdom_blocks_bank``, ``linen_clothes``, ``command_moves_fyrd``.
Anything else raises ``InputError`` naming it; so does a state table above ``MAX_STATES``.
"""
from __future__ import annotations

import functools
import math
from dataclasses import fields
from typing import NamedTuple

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.jit import jit
from vikingsim.games.battle878.policies import SPEND_GP, SPEND_SCRIPTED  # noqa: F401
from vikingsim.games.battle878.rules import DIE_LETTERS, Face, Rules

#: largest state table per game (entries) the DP allocates (float64: ~40 MB per game)
MAX_STATES = 5_000_000
#: value iteration inside a block stops when no value moves more than this
VI_TOL = 1e-15
VI_MAX_SWEEPS = 100_000
#: ``fixed_spend`` code: the DP chooses (the other codes, SPEND_GP, SPEND_SCRIPTED and
#: Convert counts, are policy data: policies.py)
SPEND_FREE = -100
#: Omens of Victory a Viking in-roll choice by default (878 §5.2); False: the scripted target
OMENS_DEFAULT = True
#: ``omens_games`` code: the game whose value the Vikings' Omens choice serves (0 maximise
#: P(Viking success), 1 minimise P(English success)); OMENS_SCRIPTED the scripted rule
OMENS_SCRIPTED = -1
#: ``omens_games`` code + g: the Omens choices of game g computed from a given value table
#: (``solve_rp(..., omens_values=V)``: a fixed Omens strategy, e.g. the saddle's)
OMENS_EXTERNAL = 10
#: in-roll values closer than this are a tie (the smaller option wins, ``_omens_dp``)
OMENS_TIE = 1e-13
#: policy-iteration rounds of a block (Omens choices recomputed from the block's values)
PI_MAX_ROUNDS = 50

_OK = {"norsemen", "berserkers", "housecarls", "thegns", "attacker", "first_roller", "faces",
       "max_dice", "berserker_first_hit", "seidr", "runes_prayer", "runes_dice", "prayer_dice",
       "runes_faces", "prayer_faces", "omens_cost", "convert_cost", "gods_peace_cost",
       "battle_rage_cost", "ragnarok_cost", "defend_faith_cost", "gods_peace_exit",
       "reserve_berserkers", "martyrdom_blocks_bank", "linen_clothes", "command_moves_fyrd",
       "max_rolls", "valhalla_deaths"}


class RPSpec(NamedTuple):
    """A battle the DP can solve (from ``rp_spec``)."""
    units: tuple          # (N0, B0, H0, T0)
    dice: tuple           # (runes dice, prayer dice)
    p_rune: float         # P(Rune face) of a Runes die (else Conversion)
    p_prayer: tuple       # (P(Martyrdom), P(Conversion), P(Faith)) of a Prayer die
    costs: tuple          # (Omens, Convert, God's Peace); God's Peace 0 = cannot be bought
    pend: int             # Berserker first-hit rule on at the start (878 §4.6)
    side: int             # side of the first roll (878 §4.2)
    faces: np.ndarray     # float64 (4, 2): P(Hit), P(Flee) of the N, B, H, T dice
    max_dice: tuple       # (N, B, H, T)
    max_rolls: int
    rag_cost: int = 0     # Ragnarök's cost at the Viking node (878 §5.2); 0 = node off
    omens: int = 0        # 1: Omens of Victory a Viking in-roll choice (878 §5.2); 0 scripted


def rp_spec(r: Rules, ragnarok: bool = True, omens: bool = OMENS_DEFAULT) -> RPSpec:
    """Check that ``r`` is within the DP's reach; InputError naming what is not.
    ``ragnarok=False`` switches the Viking Ragnarök node off (the solver before it, for
    comparisons: the Viking guarantee with it can only be higher or equal); ``omens=False``
    plays Omens of Victory by the scripted rule (most non-Hits) instead of the Viking in-roll
    choice (878 §5.2)."""
    base = Rules()
    bad = [f.name for f in fields(Rules)
           if f.name not in _OK and getattr(r, f.name) != getattr(base, f.name)]
    if r.berserker_first_hit_scope != "first_english_roll":
        bad.append("berserker_first_hit_scope")
    if bad:
        raise InputError("optimal play with Runes and Prayer cannot handle " + ", ".join(bad))
    units = (r.norsemen, r.berserkers, r.housecarls, r.thegns)
    if units[0] + units[1] == 0 or units[2] + units[3] == 0:
        raise InputError("optimal play with Runes and Prayer needs units on both sides")
    faces = np.zeros((4, 2))
    for i, d in enumerate(DIE_LETTERS[:4]):
        c = r.face_counts(d)
        faces[i] = [c[Face.HIT] / 6.0, c[Face.FLEE] / 6.0]
    tm = units[3] + units[0]
    size = ((units[0] + 1) * (units[1] + 1) * (units[2] + 1) * (tm + 1)
            * (r.runes_dice + 1) ** 2 * (r.prayer_dice + 1) ** 2 * 8)
    if size > MAX_STATES:
        raise InputError(f"battle too large for optimal play with Runes and Prayer ({size:,} "
                         f"states > {MAX_STATES:,}); use smaller armies")
    vik_first = (r.attacker == "vikings") == (r.first_roller == "attacker")
    pf = r.prayer_faces
    return RPSpec(units=units, dice=(r.runes_dice, r.prayer_dice),
                  p_rune=r.runes_faces.count("R") / 6.0,
                  p_prayer=(pf.count("M") / 6.0, pf.count("C") / 6.0, pf.count("F") / 6.0),
                  costs=(r.omens_cost, r.convert_cost,
                         r.gods_peace_cost if r.gods_peace_exit else 0),
                  pend=int(r.berserker_rule_on), side=0 if vik_first else 1, faces=faces,
                  max_dice=tuple(int(x) for x in r.max_dice[:4]), max_rolls=int(r.max_rolls),
                  rag_cost=int(r.ragnarok_cost) if ragnarok else 0,
                  omens=int(bool(omens) and r.omens_cost > 0))


# ----------------------------------------------------------------------------- roll tables
def _hit_flee(n: int, ph: float, pf: float) -> dict:
    """{(hits, flees): P} of n dice (trinomial: Hit, Flee, other)."""
    out = {}
    po = max(0.0, 1.0 - ph - pf)
    for i in range(n + 1):
        for j in range(n + 1 - i):
            c = math.factorial(n) // (math.factorial(i) * math.factorial(j)
                                      * math.factorial(n - i - j))
            out[(i, j)] = c * ph ** i * pf ** j * po ** (n - i - j)
    return out


def viking_table(spec: RPSpec) -> np.ndarray:
    """P(total Hits, Norsemen Flees, Berserker Flees, Runes left | dn, db dice, r Runes) after
    the scripted Omens of Victory (SEED §4.3): float64 (dn, db, r, hits, fN, fB, r_left)."""
    mn, mb = spec.max_dice[0], spec.max_dice[1]
    R, co = spec.dice[0], spec.costs[0]
    (hn_, fn_), (hb_, fb_) = spec.faces[0], spec.faces[1]
    out = np.zeros((mn + 1, mb + 1, R + 1, mn + mb + 1, mn + 1, mb + 1, R + 1))
    for dn in range(mn + 1):
        for db in range(mb + 1):
            for r0 in range(R + 1):
                cur = {}
                for (a, b), p in _hit_flee(dn, hn_, fn_).items():
                    for (c, d), q in _hit_flee(db, hb_, fb_).items():
                        cur[(a, b, c, d, r0)] = cur.get((a, b, c, d, r0), 0.0) + p * q
                done = {}
                while cur:
                    nxt = {}
                    for (a, b, c, d, r), p in cur.items():
                        mN, mB = dn - a, db - c      # non-Hit dice per type
                        if r < co or (mN <= 0 and mB <= 0):
                            done[(a, b, c, d, r)] = done.get((a, b, c, d, r), 0.0) + p
                            continue
                        if mN >= mB:                 # most non-Hits, Norsemen on a tie
                            for (x, y), q in _hit_flee(mN, hn_, fn_).items():
                                k = (a + x, y, c, d, r - co)
                                nxt[k] = nxt.get(k, 0.0) + p * q
                        else:
                            for (x, y), q in _hit_flee(mB, hb_, fb_).items():
                                k = (a, b, c + x, y, r - co)
                                nxt[k] = nxt.get(k, 0.0) + p * q
                    cur = nxt
                for (a, b, c, d, r), p in done.items():
                    out[dn, db, r0, a + c, b, d, r] += p
    return out


def english_table(spec: RPSpec) -> np.ndarray:
    """P(total Hits, Housecarl Flees, Thegn Flees | dh, dt dice): float64 (dh, dt, hits, fh,
    ft)."""
    mh, mt = spec.max_dice[2], spec.max_dice[3]
    out = np.zeros((mh + 1, mt + 1, mh + mt + 1, mh + 1, mt + 1))
    for dh in range(mh + 1):
        for dt in range(mt + 1):
            for (a, b), p in _hit_flee(dh, *spec.faces[2]).items():
                for (c, d), q in _hit_flee(dt, *spec.faces[3]).items():
                    out[dh, dt, a + c, b, d] += p * q
    return out


def omens_tri(spec: RPSpec) -> np.ndarray:
    """P(x Hits, y Flees | m dice of Viking type t): float64 (2, M + 1, M + 1, M + 1), t 0
    Norsemen, 1 Berserkers, M the larger dice maximum (the re-rolls of Omens, SEED §4.3)."""
    M = max(spec.max_dice[0], spec.max_dice[1])
    out = np.zeros((2, M + 1, M + 1, M + 1))
    for t in range(2):
        for m in range(M + 1):
            for (x, y), p in _hit_flee(m, *spec.faces[t]).items():
                out[t, m, x, y] = p
    return out


# ------------------------------------------------------------- Omens of Victory (878 §5.2)
@jit(nrt=False)
def _omens_dp(W, sign, dn, db, rmax, co, tri, U, C, P):
    """The Vikings' Omens of Victory inside their roll (SEED §4.3: 1 Rune die, re-roll any
    number of the Norsemen dice or of the Berserker dice; again while Runes last), solved
    backwards over the Runes on the card. In-roll state: (r, aN, fN, aB, fB), the Hits and
    Flees showing on the ``dn`` Norsemen and ``db`` Berserker dice (the rest show Command or
    Blank: "other"), ``r`` Runes on the Viking card. ``W[hits, fN, fB, r]``: the value of
    stopping (the roll applied, the English to roll next); the Vikings maximise
    ``sign * W``. Options: stop, or pay ``co`` Runes and re-roll the dice of one type, keeping
    ``kh`` Hits, ``kf`` Flees and ``ko`` others of it (every keep short of all its dice: a Hit
    may be re-rolled too). ``U[r, aN, fN, aB, fB]`` gets ``sign`` x the value, ``C`` the
    choice: -1 stop, else ``t * 1000 + kh * 100 + kf * 10 + ko`` (t 0 Norsemen, 1
    Berserkers). Ties (within OMENS_TIE) go to the earlier option: stop, then fewest dice
    re-rolled, then the scripted target type first (most non-Hit dice, Norsemen on a tie),
    then most Hits kept, then most Flees kept. A re-roll's value depends on the dice kept and
    the other type's dice, not on the dice it re-rolls, so each level first tabulates them
    (``_omens_rerolls`` into the scratch ``P``, shape (2, M + 1, M + 1, M + 1, M + 1, M + 1),
    M the larger dice count) and every in-roll state reads its options there. No
    allocation."""
    for r in range(rmax + 1):
        if r >= co:
            _omens_rerolls(dn, db, U, r - co, tri, P)
        for aN in range(dn + 1):
            for fN in range(dn + 1 - aN):
                for aB in range(db + 1):
                    for fB in range(db + 1 - aB):
                        best = sign * W[aN + aB, fN, fB, r]
                        code = -1
                        if r >= co:
                            first = 0 if dn - aN >= db - aB else 1
                            for m in range(1, max(dn, db) + 1):
                                for tt in range(2):
                                    t = first if tt == 0 else 1 - first
                                    d = dn if t == 0 else db
                                    if m > d:
                                        continue
                                    a = aN if t == 0 else aB
                                    f = fN if t == 0 else fB
                                    o = d - a - f
                                    a2 = aB if t == 0 else aN     # the other type's dice
                                    f2 = fB if t == 0 else fN
                                    for kh in range(min(a, d - m), -1, -1):
                                        for kf in range(min(f, d - m - kh), -1, -1):
                                            ko = d - m - kh - kf
                                            if ko > o:
                                                continue
                                            v = P[t, m, kh, kf, a2, f2]
                                            if v > best + OMENS_TIE:
                                                best = v
                                                code = t * 1000 + kh * 100 + kf * 10 + ko
                        U[r, aN, fN, aB, fB] = best
                        C[r, aN, fN, aB, fB] = code


@jit(nrt=False)
def _omens_rerolls(dn, db, U, r, tri, P):
    """``P[t, m, kh, kf, a2, f2]``: the value (``U`` at ``r`` Runes, ``_omens_dp``) of
    re-rolling ``m`` dice of type ``t`` keeping ``kh`` Hits and ``kf`` Flees of it (the
    rest of its dice kept show others), the other type showing ``a2`` Hits, ``f2`` Flees."""
    for t in range(2):
        d = dn if t == 0 else db
        d2 = db if t == 0 else dn
        for m in range(1, d + 1):
            for kh in range(d - m + 1):
                for kf in range(d - m - kh + 1):
                    for a2 in range(d2 + 1):
                        for f2 in range(d2 + 1 - a2):
                            v = 0.0
                            for x in range(m + 1):
                                for y in range(m + 1 - x):
                                    p = tri[t, m, x, y]
                                    if p == 0.0:
                                        continue
                                    if t == 0:
                                        v += p * U[r, kh + x, kf + y, a2, f2]
                                    else:
                                        v += p * U[r, a2, f2, kh + x, kf + y]
                            P[t, m, kh, kf, a2, f2] = v


@jit(nrt=False)
def _omens_forward(C, dn, db, r0, co, tri, Q, L):
    """The leaf distribution of one Viking roll under the Omens choices ``C`` (``_omens_dp``):
    the battle dice land (``dn`` Norsemen, ``db`` Berserker dice) with ``r0`` Runes on the
    card, then each state follows its choice. ``Q`` (the shape of ``C``) is scratch; ``L[hits,
    fN, fB, r]`` (zeroed here) gets P(the roll ends with those Hits, Flees and Runes left).
    No allocation."""
    Q[: r0 + 1] = 0.0
    L[:] = 0.0
    for aN in range(dn + 1):
        for fN in range(dn + 1 - aN):
            for aB in range(db + 1):
                for fB in range(db + 1 - aB):
                    Q[r0, aN, fN, aB, fB] = tri[0, dn, aN, fN] * tri[1, db, aB, fB]
    for r in range(r0, -1, -1):
        for aN in range(dn + 1):
            for fN in range(dn + 1 - aN):
                for aB in range(db + 1):
                    for fB in range(db + 1 - aB):
                        p = Q[r, aN, fN, aB, fB]
                        if p == 0.0:
                            continue
                        code = C[r, aN, fN, aB, fB]
                        if code < 0:
                            L[aN + aB, fN, fB, r] += p
                            continue
                        t, kh, kf, ko = code // 1000, (code // 100) % 10, (code // 10) % 10, \
                            code % 10
                        m = (dn if t == 0 else db) - kh - kf - ko
                        for x in range(m + 1):
                            for y in range(m + 1 - x):
                                q = tri[t, m, x, y]
                                if q == 0.0:
                                    continue
                                if t == 0:
                                    Q[r - co, kh + x, kf + y, aB, fB] += p * q
                                else:
                                    Q[r - co, aN, fN, kh + x, kf + y] += p * q


@jit(nrt=False)
def _omens_choice(C, r, aN, fN, aB, fB):
    """Decode ``C``'s choice at an in-roll state: (type 0/1 or -1 stop, Hits, Flees and others
    kept of that type)."""
    code = C[r, aN, fN, aB, fB]
    if code < 0:
        return -1, 0, 0, 0
    return code // 1000, (code // 100) % 10, (code // 10) % 10, code % 10


# ----------------------------------------------------------------------------- kernels
@jit
def _rp_dice(k, pool, placed, p_keep, p_go, p_back, out, tmp):
    """Outcomes of ``k`` Runes/Prayer dice rolled one after the other (SEED §4.1): each from
    the pool, else by re-rolling a placed die of the kind ``placed`` counts (Viking Conversion
    / Faith), else none. Faces: ``p_keep`` lands on ``placed``'s kind, ``p_go`` on the other
    counted kind, ``p_back`` back to the pool (Martyrdom). ``out[i] = (P, d_placed, d_other)``
    changes of the two counts; returns the number of rows (at most 9). ``tmp`` (9, 3):
    scratch."""
    m = 1
    out[0, 0], out[0, 1], out[0, 2] = 1.0, 0.0, 0.0
    for _ in range(k):
        m2 = 0
        for i in range(m):
            p, dk, dg = out[i, 0], out[i, 1], out[i, 2]
            pl = pool - (dk + dg)          # dice out of the pool so far (Martyrdom: back)
            if pl > 0:
                src = 0.0
            elif placed + dk > 0:
                src = -1.0                 # re-roll a placed die of the kept kind
            else:
                tmp[m2, 0], tmp[m2, 1], tmp[m2, 2] = p, dk, dg
                m2 += 1
                continue
            for face in range(3):
                q = (p_keep, p_go, p_back)[face]
                if q == 0.0:
                    continue
                tmp[m2, 0] = p * q
                tmp[m2, 1] = dk + src + (1.0 if face == 0 else 0.0)
                tmp[m2, 2] = dg + (1.0 if face == 1 else 0.0)
                m2 += 1
        m = m2
        for i in range(m):
            out[i, 0], out[i, 1], out[i, 2] = tmp[i, 0], tmp[i, 1], tmp[i, 2]
    return m


@jit
def _convert_q(n, t, rc, pc, cc, q):
    """SEED §4.4 Convert ``q`` times (878 §6.7: a Norseman out, a Thegn in), English
    Conversion dice first. Returns (n, t, rc, pc)."""
    for _ in range(q):
        use = min(pc, cc)
        pc -= use
        rc -= cc - use
        n -= 1
        t += 1
    return n, t, rc, pc


@jit
def _terminal(n, b, h, t, g):
    """Success of game ``g`` at an ended battle (878 §4.10)."""
    if g == 0:
        return 1.0 if (n + b > 0 and h + t == 0) else 0.0
    return 1.0 if (h + t > 0 and n + b == 0) else 0.0


@jit
def _n_converts(n, rc, pc, cc):
    """Most Converts affordable now (SEED §4.4: 2 Conversion dice each, a Norseman each)."""
    return min(n, (rc + pc) // cc) if cc > 0 else 0


@jit
def _dice_moves(spec_i, spec_f, n, b, h, t, r, rc, fa, pc, pend, rag, side, k, sidx, sp,
                scratch, dsc):
    """Phase 0 (before the roll): ``k`` factions of ``side`` roll a Runes/Prayer die; each
    outcome is the phase-1 node of the same units (the dice landed). Returns successors.
    (A Ragnarök bought first comes in as ``r`` already paid and ``rag`` = 1.) ``dsc``
    (2, 9, 3): scratch of ``_rp_dice``."""
    R, PD = spec_i[0], spec_i[1]
    p_rune, pm, pcv, pfa = spec_f[0], spec_f[1], spec_f[2], spec_f[3]
    dice = dsc[0]
    if side == 0:
        m = _rp_dice(k, R - r - rc, rc, 1.0 - p_rune, p_rune, 0.0, dice, dsc[1])  # keep: Conv.
    else:
        m = _rp_dice(k, PD - fa - pc, fa, pfa, pcv, pm, dice, dsc[1])             # keep: Faith
    nt = 0
    for i in range(m):
        if side == 0:
            j = _block_index(r + int(dice[i, 2]), rc + int(dice[i, 1]), fa, pc, pend, rag,
                             side, 1, R, PD)
        else:
            j = _block_index(r, rc, fa + int(dice[i, 1]), pc + int(dice[i, 2]), pend, rag,
                             side, 1, R, PD)
        if scratch[j] == 0.0:
            sidx[nt] = j
            nt += 1
        scratch[j] += dice[i, 0]
    for j in range(nt):
        sp[j] = scratch[sidx[j]]
        scratch[sidx[j]] = 0.0
    return nt


@jit
def _spend_moves(spec_i, vtab, etab, V, n, b, h, t, r, rc, fa, pc, pend, rag, side, q, ex, sidx,
                 sp, scratch, g, omode, vals, ows):
    """Phase 1 (the roll's Runes/Prayer dice landed) of a Viking roll, game ``g`` (an English
    roll is the same in both games: ``_spend_moves_both``): the English Convert ``q``
    times (878 §5.2), then the battle dice (with Omens of Victory, scripted from
    ``vtab`` when ``omode`` < 0, else the Vikings' in-roll choice serving game ``omode``,
    ``_viking_leaves``) are applied. ``ex``: P x value of outcomes leaving the block; in-block
    ones go to ``sidx``/``sp``. ``ows``: the Omens scratch (W, U, C, Q, L, tri, VO, top, P,
    _dice_moves' dice)."""
    R, co, cc = spec_i[0], spec_i[2], spec_i[3]
    mn, mb, mh, mt = spec_i[5], spec_i[6], spec_i[7], spec_i[8]
    ex[g] = 0.0
    nt = 0
    n1, t1, rc2, pc2 = _convert_q(n, t, rc, pc, cc, q)
    dn, db = min(n, mn), min(b, mb)       # the dice were thrown before the Convert
    L = ows[4]
    if omode < 0 or r < co:
        L[:, :, :, : R + 1] = vtab[dn, db, r]
    else:
        _viking_leaves(V, vals, spec_i, n, b, h, t, n1, t1, r, rc2, fa, pc2, pend, rag,
                       dn, db, omode, ows, q, g)
    for hits in range(mn + mb + 1):
        for fN in range(mn + 1):
            for fB in range(mb + 1):
                for rl in range(R + 1):
                    p = L[hits, fN, fB, rl]
                    if p == 0.0:
                        continue
                    n2, b2, h2, t2 = _after_viking_dice(n1, b, h, t1, hits, fN, fB)
                    nt = _outcome(V, n, b, h, t, n2, b2, h2, t2, rl, rc2, fa, pc2, pend,
                                  rag, 1, p, ex, sidx, sp, nt, scratch, g)
    for j in range(nt):                  # compress: scratch holds in-block probabilities
        sp[j] = scratch[sidx[j]]
        scratch[sidx[j]] = 0.0
    return nt


@jit
def _spend_moves_both(spec_i, vtab, etab, V, n, b, h, t, r, rc, fa, pc, pend, rag, side, q, ex, sidx,
                 sp,
                 scratch):
    """Phase 1 (the roll's Runes/Prayer dice landed), both games at once where their
    transitions are the same (an English roll; a Viking roll with the scripted Omens): the
    English Convert ``q`` times (878 §5.2), then the battle dice (Vikings: with the scripted
    Omens, ``vtab``) are applied. ``ex[g]``: P x value of outcomes leaving the block; in-block
    ones go to ``sidx``/``sp``."""
    R, co, cc = spec_i[0], spec_i[2], spec_i[3]
    mn, mb, mh, mt = spec_i[5], spec_i[6], spec_i[7], spec_i[8]
    ex[0] = 0.0
    ex[1] = 0.0
    nt = 0
    n1, t1, rc2, pc2 = _convert_q(n, t, rc, pc, cc, q)
    if side == 0:
        dn, db = min(n, mn), min(b, mb)       # the dice were thrown before the Convert
        for hits in range(mn + mb + 1):
            for fN in range(mn + 1):
                for fB in range(mb + 1):
                    for rl in range(R + 1):
                        p = vtab[dn, db, r, hits, fN, fB, rl]
                        if p == 0.0:
                            continue
                        n2, b2, h2, t2 = _after_viking_dice(n1, b, h, t1, hits, fN, fB)
                        nt = _outcome_both(V, n, b, h, t, n2, b2, h2, t2, rl, rc2, fa, pc2, pend,
                                      rag, 1, p, ex, sidx, sp, nt, scratch)
    else:
        dh, dt = min(h, mh), min(t, mt)
        for hits in range(mh + mt + 1):
            for fh in range(mh + 1):
                for ft in range(mt + 1):
                    p = etab[dh, dt, hits, fh, ft]
                    if p == 0.0:
                        continue
                    h2 = h - min(fh, h)
                    t2 = t1 - min(ft, t1)
                    take = 1 if (pend == 1 and hits > 0 and b > 0) else 0
                    rem = hits - take
                    xn = min(rem, n1)
                    n2 = n1 - xn
                    b2 = b - take - min(rem - xn, b - take)
                    nt = _outcome_both(V, n, b, h, t, n2, b2, h2, t2, r, rc2, fa, pc2, 0, rag, 0,
                                  p, ex, sidx, sp, nt, scratch)
    for j in range(nt):                  # compress: scratch holds in-block probabilities
        sp[j] = scratch[sidx[j]]
        scratch[sidx[j]] = 0.0
    return nt


@jit
def _outcome_both(V, n, b, h, t, n2, b2, h2, t2, r, rc, fa, pc, pend, rag, side, p, ex, sidx, sp,
             nt, scratch):
    """Book one outcome of a roll (``_spend_moves_both``): the next roll's phase-0 node."""
    R, PD = V.shape[5] - 1, V.shape[7] - 1
    if n2 + b2 == 0 or h2 + t2 == 0:
        ex[0] += p * _terminal(n2, b2, h2, t2, 0)
        ex[1] += p * _terminal(n2, b2, h2, t2, 1)
    elif n2 == n and b2 == b and h2 == h and t2 == t:
        j = _block_index(r, rc, fa, pc, pend, rag, side, 0, R, PD)
        if scratch[j] == 0.0:
            sidx[nt] = j
            nt += 1
        scratch[j] += p
    else:
        ex[0] += p * V[0, n2, b2, h2, t2, r, rc, fa, pc, pend, rag, side]
        ex[1] += p * V[1, n2, b2, h2, t2, r, rc, fa, pc, pend, rag, side]
    return nt


@jit
def _viking_leaves(V, vals, spec_i, n, b, h, t, n1, t1, r, rc, fa, pc, pend, rag, dn, db, og,
                   ows, q, g):
    """878 §5.2 Omens as a Viking choice: the value of each end of the roll in game ``og``
    (after the Convert: ``n1`` Norsemen, ``t1`` Thegns, cards ``rc``, ``pc``), the Vikings'
    in-roll choices on it (``_omens_dp``: maximise game 0, minimise game 1) and the leaf
    distribution from ``r`` Runes (``_omens_forward``) into ``ows[4]``. An end that changes
    no unit is a node of this block: its value is the block's current estimate ``vals``.
    ``og`` >= OMENS_EXTERNAL: the choice of game ``og - OMENS_EXTERNAL`` read from the given
    value table ``ows[6]`` instead (a fixed Omens strategy: the saddle's, for policy
    evaluation). The choices ``C = ows[2][q, g]`` of Runes levels up to ``ows[7][q, g]`` (>=
    0) are kept from a call at more Runes and otherwise the same node (``_build_block`` visits
    the Runes descending): the DP's level r reads only the leaves and levels at r or fewer
    Runes, none of which depends on the Runes the roll started with."""
    W, U, Q, L, VO, top = ows[0], ows[1], ows[3], ows[4], ows[6], ows[7]
    C = ows[2][q, g]
    R, PD, co = spec_i[0], spec_i[1], spec_i[2]
    if top[q, g] < 0:
        ext = og >= OMENS_EXTERNAL        # the leaves from a given value table (``VO``)
        if ext:
            og -= OMENS_EXTERNAL
        for hits in range(dn + db + 1):
            for fN in range(dn + 1):
                for fB in range(db + 1):
                    n2, b2, h2, t2 = _after_viking_dice(n1, b, h, t1, hits, fN, fB)
                    for rl in range(r + 1):
                        if n2 + b2 == 0 or h2 + t2 == 0:
                            w = _terminal(n2, b2, h2, t2, og)
                        elif ext:
                            w = VO[og, n2, b2, h2, t2, rl, rc, fa, pc, pend, rag, 1]
                        elif n2 == n and b2 == b and h2 == h and t2 == t:   # in this block
                            w = vals[og, _block_index(rl, rc, fa, pc, pend, rag, 1, 0, R, PD)]
                        else:
                            w = V[og, n2, b2, h2, t2, rl, rc, fa, pc, pend, rag, 1]
                        W[hits, fN, fB, rl] = w
        _omens_dp(W, 1.0 if og == 0 else -1.0, dn, db, r, co, ows[5], U, C, ows[8])
        top[q, g] = r
    _omens_forward(C, dn, db, r, co, ows[5], Q, L)


@jit(inline="llvm")
def _after_viking_dice(n, b, h, t, hits, flee_n, flee_b):
    """The units left after a Viking roll's battle dice (878 §2.3-2.4 as the DP reads them):
    Norsemen and Berserkers Flee by their own dice, Hits fall on the Thegns first, then the
    Housecarls. One place for the solver's transitions and the kernel's Omens leaves."""
    xt = min(hits, t)
    return n - min(flee_n, n), b - min(flee_b, b), h - min(hits - xt, h), t - xt


@jit
def _block_index(r, rc, fa, pc, pend, rag, side, phase, R, PD):
    return ((((((r * (R + 1) + rc) * (PD + 1) + fa) * (PD + 1) + pc) * 2 + pend) * 2 + rag)
            * 2 + side) * 2 + phase


@jit
def _outcome(V, n, b, h, t, n2, b2, h2, t2, r, rc, fa, pc, pend, rag, side, p, ex, sidx, sp,
             nt, scratch, g):
    """Book one outcome of a roll (``_spend_moves``) in game ``g``: the next roll's phase-0
    node."""
    R, PD = V.shape[5] - 1, V.shape[7] - 1
    if n2 + b2 == 0 or h2 + t2 == 0:
        ex[g] += p * _terminal(n2, b2, h2, t2, g)
    elif n2 == n and b2 == b and h2 == h and t2 == t:
        j = _block_index(r, rc, fa, pc, pend, rag, side, 0, R, PD)
        if scratch[j] == 0.0:
            sidx[nt] = j
            nt += 1
        scratch[j] += p
    else:
        ex[g] += p * V[g, n2, b2, h2, t2, r, rc, fa, pc, pend, rag, side]
    return nt


@jit
def _solve_rp(spec_i, spec_f, N0, B0, H0, T0, vtab, etab, fixed, fixed_spend, omode, tri, VO):
    """Values of both games and each game's decisions on every state; no checks.

    Every roll is two nodes of one block (units fixed): phase 0, the roller picks ``k``
    Runes/Prayer dice (at a Viking roll with Ragnarök affordable and not yet bought, also
    whether to buy it first: 878 §5.2); phase 1, the dice landed, the English pick their
    spending option ``q`` (0 .. Converts affordable, or ``KQ - 1`` = God's Peace), then at a
    Viking roll the Vikings play Omens of Victory inside the roll (``omode[g]``: the game
    whose value their choice serves in game ``g``, or OMENS_SCRIPTED). ``V[g, n, b, h, t, r,
    rc, fa, pc, pend, rag, side]`` the phase-0 values; ``D[g, ...]`` the k the roller picks in
    game g, ``E[g, ...]`` the English spending code at that roll (Convert count, ``SPEND_GP``),
    ``G[g, ...]`` 1 where the Vikings buy Ragnarök at the start of their roll. ``fixed[side,
    ...]`` >= 0 imposes a k (``fixed[2, ...]`` >= 0, if present, the Ragnarök choice),
    ``fixed_spend[side, ...]`` a spending code (``SPEND_FREE``: the DP chooses). With the
    Omens choice a block is solved by policy iteration: its Omens choices are computed from
    the block's current values, value iteration runs with them fixed, and again until no
    Omens choice changes (then every node, in-roll ones included, satisfies its Bellman
    equation). Returns (V, D, E, G, sweeps max, rounds max); sweeps max < 0 when a block did
    not converge (rounds max < 0: its Omens choices did not settle)."""
    R, PD, cc = spec_i[0], spec_i[1], spec_i[3]
    TM = T0 + N0
    shp = (2, N0 + 1, B0 + 1, H0 + 1, TM + 1, R + 1, R + 1, PD + 1, PD + 1, 2, 2, 2)
    V = np.zeros(shp)
    D = np.zeros(shp, np.int8)
    E = np.zeros(shp, np.int8)
    G = np.zeros(shp, np.int8)
    S = (R + 1) * (R + 1) * (PD + 1) * (PD + 1) * 16
    KQ = (min(N0, (R + PD) // cc) if cc > 0 else 0) + 2
    K = max(6, KQ)                 # phase 0: 3 dice counts x Ragnarök or not
    MS = max(9, R + 1)             # in-block successors: 9 dice outcomes, R + 1 Omens ends
    ex = np.zeros((S, K, 2))
    nsucc = np.zeros((2, S, K), np.int64)
    sidx = np.zeros((2, S, K, MS), np.int64)
    sp = np.zeros((2, S, K, MS))
    scratch = np.zeros(S)
    kmaxs = np.zeros(S, np.int64)
    ragok = np.zeros(S, np.bool_)
    valid = np.zeros(S, np.bool_)
    vals = np.zeros((2, S))
    vj = np.zeros(S, np.int64)     # _block_vi's scratch: valid nodes, their options, choices
    nopt = np.zeros((2, S), np.int64)
    opts = np.zeros((2, S, K), np.int64)
    bks = np.zeros((2, S), np.int64)
    mn, mb = spec_i[5], spec_i[6]
    M1 = max(mn, mb) + 1
    ows = (np.zeros((mn + mb + 1, mn + 1, mb + 1, R + 1)),
           np.zeros((R + 1, mn + 1, mn + 1, mb + 1, mb + 1)),
           np.zeros((KQ, 2, R + 1, mn + 1, mn + 1, mb + 1, mb + 1), np.int64),
           np.zeros((R + 1, mn + 1, mn + 1, mb + 1, mb + 1)),
           np.zeros((mn + mb + 1, mn + 1, mb + 1, R + 1)), tri, VO,
           np.full((KQ, 2), -1, np.int64), np.zeros((2, M1, M1, M1, M1, M1)),
           np.zeros((2, 9, 3)))
    old = np.zeros(2 + 2 * MS)
    changed = np.zeros(1, np.int64)
    live = omode[0] >= 0 or omode[1] >= 0
    worst = 0
    rounds = 0
    for n in range(N0 + 1):
        for b in range(B0 + 1):
            for h in range(H0 + 1):
                for t in range(T0 + N0 - n + 1):
                    if n + b == 0 or h + t == 0:
                        for g in range(2):
                            V[g, n, b, h, t] = _terminal(n, b, h, t, g)
                        continue
                    vals[:] = 0.0
                    changed[0] = 0
                    _build_block(spec_i, spec_f, vtab, etab, V, n, b, h, t, R, PD, KQ, valid,
                                 kmaxs, ragok, ex, nsucc, sidx, sp, scratch, omode, vals, ows,
                                 old, changed, False)
                    it = 0
                    while True:
                        sweeps = _block_vi(V, D, E, G, fixed, fixed_spend, n, b, h, t, R, PD,
                                           KQ, valid, kmaxs, ragok, ex, nsucc, sidx, sp, vals,
                                           vj, nopt, opts, bks)
                        if sweeps < 0:
                            return V, D, E, G, -1, 0
                        worst = max(worst, sweeps)
                        if not live:
                            break
                        changed[0] = 0
                        _build_block(spec_i, spec_f, vtab, etab, V, n, b, h, t, R, PD, KQ,
                                     valid, kmaxs, ragok, ex, nsucc, sidx, sp, scratch, omode,
                                     vals, ows, old, changed, True)
                        it += 1
                        if changed[0] == 0:
                            break
                        if it >= PI_MAX_ROUNDS:
                            return V, D, E, G, worst, -1
                    rounds = max(rounds, it)
    return V, D, E, G, worst, rounds


@jit
def _build_block(spec_i, spec_f, vtab, etab, V, n, b, h, t, R, PD, KQ, valid, kmaxs, ragok, ex,
                 nsucc, sidx, sp, scratch, omode, vals, ows, old, changed, omens_only):
    """Every node's options and their transitions in the block of units (n, b, h, t);
    ``omens_only``: only the Viking phase-1 options again (the Omens choices, from ``vals``),
    ``changed[0]`` set when any of them moved."""
    cc, gp, rgc = spec_i[3], spec_i[4], spec_i[9]
    top = ows[7]
    for rc in range(R + 1):
        for fa in range(PD + 1):
            for pc in range(PD + 1 - fa):
                for pend in range(2):
                    for rag in range(2):
                        for side in range(2):
                            if omens_only and side == 1:
                                continue
                            top[:] = -1       # no Omens choices kept (``_viking_leaves``)
                            for r in range(R - rc, -1, -1):
                                _build_node(spec_i, spec_f, vtab, etab, V, n, b, h, t, r, rc,
                                            fa, pc, pend, rag, side, R, PD, KQ, cc, gp, rgc,
                                            valid, kmaxs, ragok, ex, nsucc, sidx, sp, scratch,
                                            omode, vals, ows, old, changed, omens_only)


@jit
def _build_node(spec_i, spec_f, vtab, etab, V, n, b, h, t, r, rc, fa, pc, pend, rag, side, R,
                PD, KQ, cc, gp, rgc, valid, kmaxs, ragok, ex, nsucc, sidx, sp, scratch, omode,
                vals, ows, old, changed, omens_only):
    """The two nodes of one roll: phase 0 options k (and, 878 §5.2, k + km + 1: Ragnarök
    bought first, at a Viking roll with ``rgc`` Runes on the card and Ragnarök not yet
    bought), phase 1 options q (Converts) and ``KQ - 1`` (God's Peace). Phase-0 and English
    transitions are the same in both games (built once, copied); a Viking roll's phase 1 is
    built per game (its Omens choice serves that game, ``omode``)."""
    j = _block_index(r, rc, fa, pc, pend, rag, side, 0, R, PD)
    if not omens_only:
        valid[j] = True
        km = ((1 if n > 0 else 0) + (1 if b > 0 else 0) if side == 0
              else (1 if h > 0 else 0) + (1 if t > 0 else 0))
        ok = side == 0 and rag == 0 and rgc > 0 and r >= rgc
        ragok[j] = ok
        kmaxs[j] = 2 * km + 1 if ok else km
        for o in range(kmaxs[j] + 1):
            buy = o > km
            ex[j, o, 0] = 0.0
            ex[j, o, 1] = 0.0
            m = _dice_moves(spec_i, spec_f, n, b, h, t, r - rgc if buy else r, rc, fa,
                            pc, pend, 1 if buy else rag, side, o - km - 1 if buy else o,
                            sidx[0, j, o], sp[0, j, o], scratch, ows[9])
            nsucc[0, j, o] = m
            nsucc[1, j, o] = m
            sidx[1, j, o] = sidx[0, j, o]
            sp[1, j, o] = sp[0, j, o]
    j = j + 1                     # phase 1 of the same roll
    if omens_only and (r < spec_i[2] or (omode[0] < 0 and omode[1] < 0)):
        return                    # no Omens affordable: nothing depends on the block's values
    valid[j] = True
    kmaxs[j] = KQ - 1
    cm = _n_converts(n, rc, pc, cc)
    for q in range(KQ - 1):
        if q > cm:
            nsucc[0, j, q] = -1   # not affordable
            nsucc[1, j, q] = -1
            continue
        if side == 1 or r < spec_i[2] or (omode[0] < 0 and omode[1] < 0):
            if omens_only:
                continue          # the same in both games, and no Omens choice in it
            m = _spend_moves_both(spec_i, vtab, etab, V, n, b, h, t, r, rc, fa, pc, pend, rag,
                                  side, q, ex[j, q], sidx[0, j, q], sp[0, j, q], scratch)
            nsucc[0, j, q] = m
            nsucc[1, j, q] = m
            sidx[1, j, q] = sidx[0, j, q]
            sp[1, j, q] = sp[0, j, q]
            continue
        for g in range(2):  # a Viking roll with an Omens choice: per game
            if omens_only and omode[g] < 0:
                continue          # scripted Omens: the transitions do not move
            if omens_only:        # keep the old transitions to see whether they move
                MS = sp.shape[3]
                m0 = nsucc[g, j, q]
                old[0] = ex[j, q, g]
                old[1] = m0
                for s in range(m0):
                    old[2 + s] = sp[g, j, q, s]
                    old[2 + MS + s] = sidx[g, j, q, s]
            m = _spend_moves(spec_i, vtab, etab, V, n, b, h, t, r, rc, fa, pc, pend, rag,
                             side, q, ex[j, q], sidx[g, j, q], sp[g, j, q], scratch, g,
                             omode[g] if side == 0 else -1, vals, ows)
            nsucc[g, j, q] = m
            if omens_only and changed[0] == 0:
                same = m == old[1] and ex[j, q, g] == old[0]
                for s in range(m):
                    if not same:
                        break
                    same = sp[g, j, q, s] == old[2 + s] and sidx[g, j, q, s] == old[2 + MS + s]
                if not same:
                    changed[0] = 1
    if gp > 0 and rc + pc >= gp:  # God's Peace: English success
        ex[j, KQ - 1, 0] = 0.0
        ex[j, KQ - 1, 1] = 1.0
        nsucc[0, j, KQ - 1] = 0
        nsucc[1, j, KQ - 1] = 0
    else:
        nsucc[0, j, KQ - 1] = -1
        nsucc[1, j, KQ - 1] = -1


@jit
def _fixed_option(fixed, fixed_spend, n, b, h, t, j, R, PD, KQ, kmax, ok, nsucc):
    """The option imposed at node ``j`` (-1: none). At a phase-0 node with the Ragnarök
    option (``ok``), a k and a Ragnarök choice are imposed separately: either alone leaves
    the other free, which ``_block_vi`` handles by returning -2 - (imposed k) / -10 - buy."""
    r, rc, fa, pc, pend, rag, side, phase = _unindex(j, R, PD)
    if phase == 0:
        km = (kmax - 1) // 2 if ok else kmax
        fk = -1
        if fixed.shape[0] > 1:
            fk = fixed[side, n, b, h, t, r, rc, fa, pc, pend, rag]
            fk = min(fk, km) if fk >= 0 else -1
        if not ok:
            return fk
        fb = fixed[2, n, b, h, t, r, rc, fa, pc, pend, rag] if fixed.shape[0] > 2 else -1
        if fk >= 0 and fb >= 0:
            return fk + (km + 1 if fb > 0 else 0)
        if fk >= 0:
            return -2 - fk          # k imposed, Ragnarök free
        if fb >= 0:
            return -10 - (1 if fb > 0 else 0)   # Ragnarök imposed, k free
        return -1
    if fixed_spend.shape[0] == 1:
        return -1
    code = fixed_spend[side, n, b, h, t, r, rc, fa, pc, pend, rag]
    if code == SPEND_FREE:
        return -1
    cm = 0
    while cm + 1 < KQ - 1 and nsucc[0, j, cm + 1] >= 0:
        cm += 1
    gp_ok = nsucc[0, j, KQ - 1] >= 0
    if code == SPEND_SCRIPTED:
        return KQ - 1 if gp_ok else cm
    if code == SPEND_GP:
        return KQ - 1 if gp_ok else 0
    return min(code, cm)


@jit
def _allowed_option(fk, o, km):
    """Whether option ``o`` of a phase-0 node is open under the partial imposition ``fk``
    (``_fixed_option``: -1 all, -2 - k: that k with or without Ragnarök, -10 - buy: that
    Ragnarök choice with any k)."""
    if fk == -1:
        return True
    if fk <= -10:
        return (o > km) == (fk == -11)
    k = -2 - fk
    return o == k or o == k + km + 1


@jit
def _block_vi(V, D, E, G, fixed, fixed_spend, n, b, h, t, R, PD, KQ, valid, kmaxs, ragok, ex,
              nsucc, sidx, sp, vals, vj, nopt, opts, bks):
    """Value iteration (Gauss-Seidel) of both games over one block; phase 0 is the roller's
    choice, phase 1 the English one; ties go to the smaller option (fewer dice rolled, no
    Ragnarök, fewer Converts, God's Peace last). Returns the sweeps used, -1 without
    convergence. The options open at each node (``opts``, ``nopt``: the imposed one, or those
    affordable and allowed, ascending) and the valid nodes (``vj``) do not move during the
    sweeps, so they are listed once; each node's value and choice (``bks``: the last sweep's)
    are booked into V, D, E, G once the sweeps converge (nothing reads them for this block
    before)."""
    nv = _block_options(fixed, fixed_spend, n, b, h, t, R, PD, KQ, valid, kmaxs, ragok, nsucc,
                        vj, nopt, opts)
    for sweep in range(VI_MAX_SWEEPS):
        delta = 0.0
        for i in range(nv):
            j = vj[i]
            chooser = 1 if j % 2 == 1 else (j // 2) % 2
            for g in range(2):
                maxim = chooser == g
                best = -1.0
                bk = 0
                for c in range(nopt[g, i]):
                    k = opts[g, i, c]
                    q = ex[j, k, g]
                    for s in range(nsucc[g, j, k]):
                        q += sp[g, j, k, s] * vals[g, sidx[g, j, k, s]]
                    if best < 0.0 or (maxim and q > best + 1e-13) or \
                            (not maxim and q < best - 1e-13):
                        best = q
                        bk = k
                delta = max(delta, abs(best - vals[g, j]))
                vals[g, j] = best
                bks[g, j] = bk
        if delta <= VI_TOL:
            for i in range(nv):
                j = vj[i]
                km = (kmaxs[j] - 1) // 2 if ragok[j] else kmaxs[j]
                for g in range(2):
                    _store(V, D, E, G, g, n, b, h, t, j, R, PD, KQ, vals[g, j], bks[g, j],
                           km if ragok[j] else 99)
            return sweep + 1
    return -1


@jit
def _block_options(fixed, fixed_spend, n, b, h, t, R, PD, KQ, valid, kmaxs, ragok, nsucc, vj,
                   nopt, opts):
    """``_block_vi``'s lists: the valid nodes ``vj`` (ascending: the Gauss-Seidel order) and,
    per game and node, the options a sweep compares (``_fixed_option``'s imposed one alone,
    else every affordable option ``_allowed_option`` leaves open, ascending). Returns the
    number of valid nodes."""
    nv = 0
    for j in range(valid.shape[0]):
        if not valid[j]:
            continue
        vj[nv] = j
        fk = _fixed_option(fixed, fixed_spend, n, b, h, t, j, R, PD, KQ, kmaxs[j], ragok[j],
                           nsucc)
        km = (kmaxs[j] - 1) // 2 if ragok[j] else kmaxs[j]
        for g in range(2):
            c = 0
            if fk >= 0:
                opts[g, nv, 0] = fk
                c = 1
            else:
                for k in range(kmaxs[j] + 1):
                    if nsucc[g, j, k] < 0 or not _allowed_option(fk, k, km):
                        continue
                    opts[g, nv, c] = k
                    c += 1
            nopt[g, nv] = c
        nv += 1
    return nv


@jit
def _unindex(j, R, PD):
    phase = j % 2
    j //= 2
    side = j % 2
    j //= 2
    rag = j % 2
    j //= 2
    pend = j % 2
    j //= 2
    pc = j % (PD + 1)
    j //= PD + 1
    fa = j % (PD + 1)
    j //= PD + 1
    rc = j % (R + 1)
    r = j // (R + 1)
    return r, rc, fa, pc, pend, rag, side, phase


@jit
def _store(V, D, E, G, g, n, b, h, t, j, R, PD, KQ, val, k, km):
    """Book node ``j``'s value and choice ``k`` (phase 0: k > ``km`` is Ragnarök bought, then
    ``k - km - 1`` dice)."""
    r, rc, fa, pc, pend, rag, side, phase = _unindex(j, R, PD)
    if phase == 0:
        V[g, n, b, h, t, r, rc, fa, pc, pend, rag, side] = val
        buy = k > km
        D[g, n, b, h, t, r, rc, fa, pc, pend, rag, side] = k - km - 1 if buy else k
        G[g, n, b, h, t, r, rc, fa, pc, pend, rag, side] = 1 if buy else 0
    else:
        E[g, n, b, h, t, r, rc, fa, pc, pend, rag, side] = SPEND_GP if k == KQ - 1 else k


# ----------------------------------------------------------------------------- entry points
def _arrays(spec: RPSpec):
    spec_i = np.array([spec.dice[0], spec.dice[1], spec.costs[0], spec.costs[1], spec.costs[2],
                       *spec.max_dice, spec.rag_cost], np.int64)
    spec_f = np.array([spec.p_rune, *spec.p_prayer])
    return spec_i, spec_f


_NONE = np.full((1,) * 11, -1, np.int8)


def solve_rp(spec: RPSpec, fixed: np.ndarray | None = None,
             fixed_spend: np.ndarray | None = None, omens_games: tuple | None = None,
             omens_values: np.ndarray | None = None):
    """(V, D, E, G) of ``_solve_rp`` for ``spec``; ``fixed`` / ``fixed_spend`` (int8, shape of
    the value table without the game axis and with the side axis first: (rows, n, b, h, t,
    r, rc, fa, pc, pend, rag)) impose dice counts of side 0 / 1 (rows 0-1; row 2, if given,
    the Viking Ragnarök choice: 1 buy, 0 not, -1 free) / English spending codes at a roll of
    side 0 / 1. ``omens_games[g]``: in game ``g`` the Vikings' Omens choice serves game
    ``omens_games[g]`` (0 or 1; OMENS_SCRIPTED: the scripted rule); default (0, 1), each
    game's own, with ``spec.omens``, else scripted. (0, 0): the Viking seat plays its own
    game's Omens in both games. ``omens_values`` (a ``V`` of this spec): the Omens choices
    are computed from it instead of the values being solved (a fixed Omens strategy: with the
    saddle's ``V`` and (0, 0), both seats on their own tables exactly). InputError if value
    iteration does not converge or the roll cap could truncate battles."""
    from vikingsim.games.battle878.exact import TRUNCATION_TOL, _binom_cdf_below

    N0, B0, H0, T0 = spec.units
    # 878 §4.10 guard: every roll removes a unit, converts one (potential 2n + b + h + t drops
    # by at least 1) or ends the battle with probability >= the smallest Hit chance of a die
    q = 1.0 - min(spec.faces[i, 0] for i in range(4) if spec.units[i] > 0)
    U = 2 * N0 + B0 + H0 + T0
    bound = _binom_cdf_below(U, spec.max_rolls, 1.0 - q)
    if bound > TRUNCATION_TOL:
        raise InputError(f"max_rolls={spec.max_rolls} may truncate battles (P up to "
                         f"{bound:.2g}); optimal play assumes no cap")
    spec_i, spec_f = _arrays(spec)
    if omens_games is None:
        omens_games = (0, 1) if spec.omens else (OMENS_SCRIPTED, OMENS_SCRIPTED)
    elif not spec.omens:
        omens_games = (OMENS_SCRIPTED, OMENS_SCRIPTED)
    og = np.array(omens_games, np.int64)
    if omens_values is not None:
        og = np.where(og >= 0, og + OMENS_EXTERNAL, og)
    # a writable copy if read-only (``solved``'s): numba types read-only arrays apart
    VO = np.zeros((1,) * 12) if omens_values is None else np.require(omens_values, None,
                                                                         ["C", "W"])
    V, D, E, G, sweeps, rounds = _solve_rp(
        spec_i, spec_f, N0, B0, H0, T0, viking_table(spec), english_table(spec),
        _NONE if fixed is None else fixed, _NONE if fixed_spend is None else fixed_spend,
        og, omens_tri(spec), VO)
    if sweeps < 0:
        raise InputError("optimal play with Runes and Prayer: a block did not converge "
                         "(a face table with no Hits?)")
    if rounds < 0:
        raise InputError("optimal play with Runes and Prayer: the Omens choices of a block "
                         f"did not settle in {PI_MAX_ROUNDS} rounds")
    return V, D, E, G


def solved(rules: Rules, ragnarok: bool = True, omens: bool = OMENS_DEFAULT) -> tuple:
    """``(spec, V, D, E, G)``: ``solve_rp`` of the battle's saddle (nothing fixed), read-only.
    Cached per process: ``decisions``, ``optimal_rp``, the tests and a notebook ask for the
    same battle's solve many times (a minute of CPU each for the default army)."""
    return _solved(rules, bool(ragnarok), bool(omens))    # one cache key however called


@functools.lru_cache(maxsize=8)
def _solved(rules: Rules, ragnarok: bool, omens: bool) -> tuple:
    spec = rp_spec(rules, ragnarok, omens)
    V, D, E, G = solve_rp(spec)
    for a in (V, D, E, G):
        a.flags.writeable = False
    return spec, V, D, E, G


@functools.lru_cache(maxsize=8)
def decisions(rules: Rules) -> tuple:
    """Both games' decision tables ``(D, E, G)`` for ``rules`` and, with the Omens choice on
    (878 §5.2), ``Vr``: float64 (2, n, b, h, t, r, rc, fa, pc, pend, rag), each game's value
    with the English to roll next (the leaves from which both engines compute the Vikings'
    in-roll Omens choice, ``_omens_dp``; None when Omens is scripted). Cached: a study or a
    notebook builds many setups of one battle. Read-only."""
    spec, V, D, E, G = solved(rules)
    Vr = np.ascontiguousarray(V[..., 1]) if spec.omens else None
    if Vr is not None:                     # a fresh copy; D, E, G are read-only (``solved``)
        Vr.flags.writeable = False
    return D, E, G, Vr, (omens_tri(spec) if spec.omens else None)


def start_index(spec: RPSpec) -> tuple:
    N0, B0, H0, T0 = spec.units
    return (N0, B0, H0, T0, 0, 0, 0, 0, spec.pend, 0, spec.side)


def decision_table(D: np.ndarray, E: np.ndarray, G: np.ndarray, games=(0, 1)) -> np.ndarray:
    """The ``optimal`` policy's table, int8 (5, n, b, h, t, r, rc, fa, pc, pend, rag): rows 0
    and 1 the dice count of seat s at its own rolls (its decisions of game ``games[s]``, its
    own game by default), rows 2 and 3 the English spending code (``SPEND_GP`` or a Convert
    count) at a roll of side 0 / 1, read once that roll's Runes/Prayer dice have landed
    (English seat's game), row 4 the Vikings' Ragnarök (1 buy) at the start of their roll,
    read with row 0 before any Runes die is rolled (Viking seat's game)."""
    rows = [D[games[s], ..., s] for s in (0, 1)] + [E[games[1], ..., s] for s in (0, 1)]
    rows.append(G[games[0], ..., 0])
    return np.stack(rows).astype(np.int8)


def own_fixed(table: np.ndarray) -> tuple:
    """``(fixed, fixed_spend)`` for ``solve_rp`` from a ``decision_table`` (policy evaluation
    of both seats playing it)."""
    return np.ascontiguousarray(table[[0, 1, 4]]), np.ascontiguousarray(table[2:4])


def optimal_rp(rules: Rules, ragnarok: bool = True, omens: bool = OMENS_DEFAULT) -> dict:
    """Value of each game from the start (module docstring); ``ragnarok=False``: without the
    Viking Ragnarök node (the solver before it); ``omens=False``: Omens of Victory by the
    scripted rule (the solver before the in-roll choice)."""
    spec, V, D, E, G = solved(rules, ragnarok, omens)
    i = start_index(spec)
    fixed_v = solve_rp(spec, *own_fixed(decision_table(D, E, G)),   # both play own tables
                       omens_games=(0, 0), omens_values=V)[0]       # (Omens: game 0's)
    return {
        "vikings_guarantee": float(V[(0, *i)]),
        "english_guarantee": float(V[(1, *i)]),
        "p_vikings_success_both_optimal": float(fixed_v[(0, *i)]),
        "p_english_success_both_optimal": float(fixed_v[(1, *i)]),
        "optimised": "how many factions roll a Runes / Prayer die at each roll (SEED §4.1); "
                     + ("Ragnarok (buy or not) at the start of each Viking roll (SEED §4.3); "
                        if ragnarok else "")
                     + ("Omens of Victory inside each Viking roll (which type, which dice "
                        "re-rolled, again while Runes last; SEED §4.3); " if spec.omens else "")
                     + "the English Convert (how many) and God's Peace (now or not) once the "
                     "roll's Runes/Prayer dice have landed (SEED §4.4); scripted: "
                     + ("" if spec.omens else "Omens on the type with most non-Hits, ")
                     + "no Battle Rage, Defend the Faith, Faith in Victory or retreat"
                     + ("" if ragnarok else ", no Ragnarok"),
    }
