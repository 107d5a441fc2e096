"""Exact Ravenfeast duel odds (rules notes ravenfeast.md §12.5): a Markov chain over wounds left.

State ``(wa, wb)`` = wounds left by A and B at the start of a turn (transient while both > 0).
One turn: A's attacks mark ``dB`` wounds on B and B's mark ``dA`` on A, independently; each count
is the sum of i.i.d. per-attack results 0, 1 or 2 (a hit that wounds, plus a §6.4 Free Attack),
whose distribution is enumerated exactly over the 6 x 6 x 6 hit / Armor / Free Attack dice with
the same decision rules as the kernel. End of Turn applies both (§3.4-3.5), then the §10.3 Fated
strokes (A's first). Wounds never go up, so every transition except the self-loop ("no wound
either way") goes to a state with fewer total wounds: absorption probabilities ``h_x`` and the
expected duration ``E`` follow in one pass in increasing order, dividing by ``1 - p_self`` (the
self-loop solved exactly, i.e. summed as a geometric series).

The ``max_turns`` cap (§12.6) is exact too: with ``m_T(s)`` the probability of still being in
transient state s after T turns (T forward steps), the capped probabilities are
``h_x(start) - sum_s m_T(s) h_x(s)`` and ``E[min(tau, T)] = E(start) - sum_s m_T(s) E(s)``.
States that can never move (both figures unable to wound) fall back to the forward recursion.
"""
from __future__ import annotations

import numpy as np

from vikingsim.games.ravenfeast.duel.rules import DuelSetup

_FACES = range(1, 7)


def attack_distribution(melee: int, armor: int, free_attack: bool = True,
                        trigger_six: bool = True) -> np.ndarray:
    """P(0, 1, 2 wounds) from one melee attack (§6.1-6.4), enumerating the three dice.

    Returns
    -------
    ndarray(float64, shape=(3,))
    """
    p = np.zeros(3)
    for h in _FACES:
        if h > melee:                                   # §6.1 miss
            p[0] += 1 / 6
            continue
        for s in _FACES:
            w = 0 if s <= armor else 1                  # §6.3 save / wound
            trig = free_attack and h == 1 and (s == 6 if trigger_six else s > armor)
            if not trig:
                p[w] += 1 / 36
                continue
            for f in _FACES:                            # §6.4 Free Attack: hit, no Armor roll
                p[w + (1 if f <= melee else 0)] += 1 / 216
    return p


def turn_distribution(attacks: int, melee: int, armor: int, free_attack: bool = True,
                      trigger_six: bool = True) -> np.ndarray:
    """P(k wounds marked in one turn) for k = 0..2*attacks (convolution of the attacks)."""
    one = attack_distribution(melee, armor, free_attack, trigger_six)
    out = np.array([1.0])
    for _ in range(attacks):
        out = np.convolve(out, one)
    return out


def _fated_probability(melee: int, armor: int, fated_armor: bool) -> float:
    """§10.3 Fated stroke wounds: d6 <= Melee, then (optionally) a failed Armor roll."""
    hit = min(max(melee, 0), 6) / 6
    if not fated_armor:
        return hit
    return hit * (1 - min(max(armor, 0), 6) / 6)


def transitions(s: DuelSetup) -> tuple[list, dict]:
    """Transient states and, for each, {next state: probability} (absorbing states are
    ``("A",)``, ``("B",)``, ``("both",)``)."""
    wa0, wb0 = int(s.wounds[0]), int(s.wounds[1])
    on_b = turn_distribution(int(s.attacks[0]), int(s.melee[0]), int(s.armor[1]),
                             s.free_attack, s.trigger_six)       # A's attacks on B
    on_a = turn_distribution(int(s.attacks[1]), int(s.melee[1]), int(s.armor[0]),
                             s.free_attack, s.trigger_six)
    qa = _fated_probability(int(s.melee[0]), int(s.armor[1]), s.fated_armor) if s.fated[0] else 0.0
    qb = _fated_probability(int(s.melee[1]), int(s.armor[0]), s.fated_armor) if s.fated[1] else 0.0
    states = [(a, b) for a in range(1, wa0 + 1) for b in range(1, wb0 + 1)]
    trans = {}
    for (wa, wb) in states:
        t: dict = {}

        def add(na, nb, p):
            if p == 0.0:
                return
            if na == 0 and nb == 0:
                key = ("both",)
            elif nb == 0:
                key = ("A",)
            elif na == 0:
                key = ("B",)
            else:
                key = (na, nb)
            t[key] = t.get(key, 0.0) + p

        for da, pa in enumerate(on_a):
            if pa == 0.0:
                continue
            for db, pb in enumerate(on_b):
                p = pa * pb
                if p == 0.0:
                    continue
                na, nb = max(wa - da, 0), max(wb - db, 0)
                # §10.3 Fated strokes at End of Turn, A's first (as the kernel)
                branches = [(na, nb, p)]
                if na == 0 and nb > 0 and qa > 0:
                    branches = [(na, nb - 1, p * qa), (na, nb, p * (1 - qa))]
                final = []
                for xa, xb, pp in branches:
                    if xb == 0 and xa > 0 and qb > 0:
                        final += [(xa - 1, xb, pp * qb), (xa, xb, pp * (1 - qb))]
                    else:
                        final.append((xa, xb, pp))
                for xa, xb, pp in final:
                    add(xa, xb, pp)
        trans[(wa, wb)] = t
    return states, trans


_ENDS = (("A",), ("B",), ("both",))      # absorbing states: A wins, B wins, both fall


def _absorption(states, trans, index):
    """Uncapped absorption probabilities ``h`` (n, 3) and expected turns ``e`` (n,) of every
    transient state, in increasing total wounds (successors have fewer), the self-loop solved
    as a geometric series; ``stuck`` when some state can never move (h nan, e inf there)."""
    n = len(states)
    h = np.zeros((n, 3))
    e = np.zeros(n)
    stuck = False
    for st in sorted(states, key=lambda x: x[0] + x[1]):
        i = index[st]
        t = trans[st]
        p_self = t.get(st, 0.0)
        if p_self >= 1.0 - 1e-15:
            h[i] = np.nan
            e[i] = np.inf
            stuck = True
            continue
        acc = np.zeros(3)
        acc_e = 1.0
        for nxt, p in t.items():
            if nxt == st:
                continue
            if nxt in index:
                acc += p * h[index[nxt]]
                acc_e += p * e[index[nxt]]
            else:
                acc[_ENDS.index(nxt)] += p
        h[i] = acc / (1.0 - p_self)
        e[i] = acc_e / (1.0 - p_self)
    return h, e, stuck


def _forward(trans, index, start, max_turns):
    """``max_turns`` forward steps from ``start``: (m_T over transient states, probabilities
    absorbed by then (3,), sum over t of P(tau > t) = E[min(tau, T)])."""
    n = len(index)
    q = np.zeros((n, n))
    r = np.zeros((n, 3))
    for st, t in trans.items():
        for nxt, p in t.items():
            if nxt in index:
                q[index[st], index[nxt]] += p
            else:
                r[index[st], _ENDS.index(nxt)] += p
    m = np.zeros(n)
    m[start] = 1.0
    absorbed = np.zeros(3)
    turns_sum = 0.0
    for _ in range(max_turns):
        mass = m.sum()
        if mass < 1e-300:
            m[:] = 0.0
            break
        turns_sum += mass                                   # E[min(tau, T)] = sum P(tau > t)
        absorbed += m @ r
        m = m @ q
    return m, absorbed, turns_sum


def solve(s: DuelSetup) -> dict:
    """Exact capped and uncapped results for a compiled ``DuelSetup``.

    Returns a dict with the capped ``p_a_win``, ``p_b_win``, ``p_both_die``, ``p_truncated``,
    ``mean_turns`` and the uncapped ``p_*_uncapped`` / ``mean_turns_uncapped`` (nan when some
    reachable state can never end).
    """
    states, trans = transitions(s)
    index = {st: i for i, st in enumerate(states)}
    h, e, stuck = _absorption(states, trans, index)
    start = index[(int(s.wounds[0]), int(s.wounds[1]))]
    m, absorbed, turns_sum = _forward(trans, index, start, s.max_turns)
    p_trunc = float(m.sum())
    if stuck or not np.all(np.isfinite(h[start])):
        p = absorbed                                        # forward recursion fallback
        mean_turns = turns_sum
        unc = (np.full(3, np.nan), np.nan)
    else:
        live = m > 0
        p = h[start] - (m[live, None] * h[live]).sum(axis=0)
        mean_turns = float(e[start] - (m[live] * e[live]).sum())
        unc = (h[start], float(e[start]))
    return {"p_a_win": float(p[0]), "p_b_win": float(p[1]), "p_both_die": float(p[2]),
            "p_truncated": p_trunc, "mean_turns": float(mean_turns),
            "p_a_win_uncapped": float(unc[0][0]), "p_b_win_uncapped": float(unc[0][1]),
            "p_both_die_uncapped": float(unc[0][2]), "mean_turns_uncapped": unc[1],
            "forward_p": [float(x) for x in absorbed], "forward_mean_turns": turns_sum}


def odds_of(s: DuelSetup) -> dict:
    """Exact odds of a compiled duel with the keys of the duel summary: ``p_a_win``,
    ``p_b_win``, ``p_draw`` (= ``p_both_die``, both kept), ``p_truncated``, ``mean_turns``
    and their ``*_ci`` (degenerate [p, p]: no sampling error), ``a``, ``b``."""
    res = solve(s)
    res["p_draw"] = res["p_both_die"]                       # a duel where both die is a draw
    out = {}
    for k in ("p_a_win", "p_b_win", "p_both_die", "p_draw", "p_truncated"):
        out[k] = res[k]
        out[k + "_ci"] = [res[k], res[k]]
    out["mean_turns"] = res["mean_turns"]
    out["mean_turns_ci"] = [res["mean_turns"], res["mean_turns"]]
    out["a"], out["b"] = s.names
    return out


__all__ = ["attack_distribution", "turn_distribution", "transitions", "solve", "odds_of"]
