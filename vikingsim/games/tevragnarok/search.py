"""Compiled search players of the Ragnarok model (issue 21 §2; tev-ragnarok §4.11; parameters
in ``search_params.py``, plain-Python twins in ``reference_search.py``).

Games with a search seat are played here: ``forward.advance`` plays the kernel's own turns and
stops where a search seat chooses its card; ``_decide`` picks the option and ``forward.apply``
carries it out. The real game's draws stay on the dice stream; every rollout draws its
determinization, dice and policy draws on the policy stream (the game's own, so the same seed
gives the same games for any thread count).

Rollout: copy the state, ``forward.determinize`` it for the searching seat, apply the option,
play to the end with every seat on ``greedy_vp`` (``roll_kinds``; the other seats with the
default weights, the searcher with its own); score 1 if the searching seat won. ISMCTS keeps
its tree in arena arrays, one entry per (node, legal option) met: ``visits``, ``wins``,
``avail`` (times the option leading to it was legal at its parent, tried or not), ``code``
(that option), ``first`` child and ``sib`` (next sibling), -1 none; node 0 the root.
"""
from __future__ import annotations

import math

import numpy as np

from vikingsim.core.jit import jit
from vikingsim.core.search import pick_best as _pick_best
from vikingsim.core.search import root_score as _root_score
from vikingsim.core.search import timed as _timed
from vikingsim.games.tevragnarok import forward, kernel
from vikingsim.games.tevragnarok.forward import DECIDE, Clock
from vikingsim.games.tevragnarok.policies import N_PARAMS, Param, PolicyKind

#: counts[0] decisions searched, counts[1] rollouts played
N_COUNTS = 2


@jit(nrt=False)
def _won(st, seat):
    return 1.0 if st.clock[Clock.WINNER] == seat else 0.0


@jit(nrt=False)
def _rollout(cf, roll_kinds, roll_params, root, sim, code, pol_rng):
    """One rollout of option ``code`` from ``root`` (at a choice): a fresh determinization,
    the option, greedy_vp to the end; 1.0 if the chooser wins."""
    seat = root.clock[Clock.ACTOR]
    forward.copy(root, sim)
    forward.determinize(cf, sim, seat, pol_rng)
    forward.apply(cf, roll_kinds, roll_params, sim, code, pol_rng, pol_rng)
    return _won(sim, seat)


@jit(nrt=False)
def _flatmc(cf, roll_kinds, roll_params, root, sim, opts, n, rollouts, scores, pol_rng):
    """Flat Monte Carlo: ``rollouts`` rollouts per option, options in list order."""
    for j in range(n):
        w = 0.0
        for _ in range(rollouts):
            w += _rollout(cf, roll_kinds, roll_params, root, sim, opts[j], pol_rng)
        scores[j] = w
    return _pick_best(scores, opts, n, pol_rng)


@jit(inline="always", nrt=False)
def _new_node(tree, m, code, parent):
    """Node m for option ``code`` below ``parent`` (-1: the root), first among its siblings;
    no visit, no availability yet."""
    visits, wins, avail, codes, first, sib = tree
    visits[m], wins[m], avail[m], codes[m], first[m] = 0.0, 0.0, 0.0, code, -1
    if parent >= 0:
        sib[m] = first[parent]
        first[parent] = m
    else:
        sib[m] = -1
    return m


@jit(nrt=False)
def _child(tree, node, code):
    """The entry of option ``code`` below ``node``, -1 none."""
    ch = tree[4][node]
    while ch >= 0 and tree[3][ch] != code:
        ch = tree[5][ch]
    return ch


@jit(nrt=False)
def _select(tree, node, opts, n, c, n_nodes, ucb, kids, pol_rng):
    """ISMCTS selection at ``node`` among the legal ``opts``: every legal option's
    availability +1 (an entry is made for an option the first time it is legal here, tried or
    not); an untried option (no visit yet), drawn uniformly on the policy stream
    (``_pick_best`` over untried flags), is expanded; else the best UCB1 value, equals drawn
    on the policy stream. Returns (option, child node, entries in use, expanded)."""
    visits, wins, avail = tree[0], tree[1], tree[2]
    untried = 0
    for j in range(n):
        ch = _child(tree, node, opts[j])
        if ch < 0:
            ch = _new_node(tree, n_nodes, opts[j], node)
            n_nodes += 1
        avail[ch] += 1.0
        kids[j] = ch
        ucb[j] = 1.0 if visits[ch] == 0.0 else 0.0
        untried += int(ucb[j])
    expand = untried > 0
    if not expand:
        for j in range(n):
            ch = kids[j]
            ucb[j] = wins[ch] / visits[ch] + c * math.sqrt(math.log(avail[ch]) / visits[ch])
    o = _pick_best(ucb, opts, n, pol_rng)
    for j in range(n):
        if opts[j] == o:
            return o, kids[j], n_nodes, expand
    return o, kids[0], n_nodes, expand


@jit(nrt=False)
def _iterate(cf, tree_kinds, roll_kinds, roll_params, root, sim, opts, c, tree, path, n_nodes,
             ucb, kids, pol_rng):
    """One ISMCTS iteration on a fresh determinization: descend the tree while the searching
    seat chooses, expand one node, roll out with greedy_vp, back up the win. Returns the
    nodes in use."""
    seat = root.clock[Clock.ACTOR]
    forward.copy(root, sim)
    forward.determinize(cf, sim, seat, pol_rng)
    node, depth, status = 0, 0, DECIDE
    while status == DECIDE:
        n = forward.legal_options(cf, tree_kinds, roll_params, sim, opts)
        o, node, n_nodes, expanded = _select(tree, node, opts, n, c, n_nodes, ucb, kids,
                                             pol_rng)
        depth += 1
        path[depth] = node
        if expanded:                                   # leave the tree: greedy_vp from here
            status = forward.apply(cf, roll_kinds, roll_params, sim, o, pol_rng, pol_rng)
        else:
            status = forward.apply(cf, tree_kinds, roll_params, sim, o, pol_rng, pol_rng)
    won = _won(sim, seat)
    for d in range(1, depth + 1):
        tree[0][path[d]] += 1.0
        tree[1][path[d]] += won
    return n_nodes


@jit(nrt=False)
def _ismcts(cf, tree_kinds, roll_kinds, roll_params, root, sim, opts, root_opts, n, budget,
            c, scores, tree, path, kids, pol_rng):
    """``budget`` iterations from ``root``; the most visited root option (equal visits by mean
    result, then on the policy stream: ``_root_score``)."""
    for j in range(n):
        root_opts[j] = opts[j]
    n_nodes = _new_node(tree, 0, -1, -1) + 1
    for _ in range(budget):
        n_nodes = _iterate(cf, tree_kinds, roll_kinds, roll_params, root, sim, opts, c, tree,
                           path, n_nodes, scores, kids, pol_rng)
    for j in range(n):
        ch = _child(tree, 0, root_opts[j])
        scores[j] = _root_score(tree[0][ch], tree[1][ch]) if ch >= 0 else 0.0
    return _pick_best(scores, root_opts, n, pol_rng)


@jit(nrt=False)
def _decide(cf, kinds, params, default_row, st, sim, roll_kinds, roll_params, tree_kinds,
            opts, root_opts, scores, tree, path, kids, counts, pol_rng):
    """The option the search seat ``clock[ACTOR]`` plays at ``st``: one legal option is
    played without search. ``counts`` += (1 decision searched, its rollouts)."""
    seat = st.clock[Clock.ACTOR]
    n_seats = kinds.shape[0]
    for s in range(n_seats):                       # rollouts: greedy_vp, the searcher's own
        roll_kinds[s] = PolicyKind.GREEDY_VP       # weights, the default ones for the others
        tree_kinds[s] = PolicyKind.GREEDY_VP
        for k in range(N_PARAMS):
            roll_params[s, k] = params[s, k] if s == seat else default_row[k]
    n = forward.legal_options(cf, kinds, params, st, opts)
    if n == 1:
        return opts[0]
    counts[0] += 1
    budget = int(params[seat, Param.BUDGET])
    if kinds[seat] == PolicyKind.FLATMC:
        counts[1] += n * budget
        return _flatmc(cf, roll_kinds, roll_params, st, sim, opts, n, budget, scores, pol_rng)
    counts[1] += budget
    tree_kinds[seat] = PolicyKind.ISMCTS
    return _ismcts(cf, tree_kinds, roll_kinds, roll_params, st, sim, opts, root_opts, n,
                   budget, params[seat, Param.UCB_C], scores, tree, path, kids, pol_rng)


@jit(nrt=False)
def _play_block(cf, kinds, params, default_row, g0, g1, dice_rng, pol_rng, st, sim,
                roll_kinds, roll_params, tree_kinds, opts, root_opts, scores, tree, path, kids,
                counts, o):
    """Games g0..g1 with search seats into rows g0..g1 of ``o`` (the kernel's ``_record``,
    so the outputs are those of a plain game); ``counts`` += (decisions searched,
    rollouts)."""
    for g in range(g0, g1):
        forward.reset(cf, st, dice_rng)
        status = forward.advance(cf, kinds, params, st, dice_rng, pol_rng)
        while status == DECIDE:
            code = _decide(cf, kinds, params, default_row, st, sim, roll_kinds, roll_params,
                           tree_kinds, opts, root_opts, scores, tree, path, kids, counts,
                           pol_rng)
            status = forward.apply(cf, kinds, params, st, code, dice_rng, pol_rng)
        forward.record(cf, st, g, o)


def is_search(kinds) -> bool:
    """Some seat is a search player."""
    return bool((np.asarray(kinds) >= PolicyKind.FLATMC).any())


def default_row() -> np.ndarray:
    """The parameter row of the default policy (``greedy_vp`` at its defaults, §4.5)."""
    from vikingsim.games.tevragnarok.policies import GreedyVP

    return GreedyVP().params()


def max_nodes(kinds, params) -> int:
    """Arena size for the seats' ISMCTS budgets (1 when none): each of at most budget + 1
    visited nodes holds an entry per legal option (at most ``MAX_OPTS``)."""
    b = [int(params[s, Param.BUDGET]) for s in range(len(kinds))
         if kinds[s] == PolicyKind.ISMCTS]
    return (max(b, default=0) + 1) * kernel.MAX_OPTS + 1 if b else 1


def scratch(s) -> tuple:
    """The scratch arrays ``_decide`` takes after ``st``: sim state, rollout and tree kinds and
    params, options, root options, scores, the ISMCTS arena, its path, children found."""
    k, c = len(s.kinds), s.compiled
    m = max_nodes(s.kinds, s.params)
    tree = (np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m, np.int64),
            np.full(m, -1, np.int64), np.full(m, -1, np.int64))
    mo = kernel.MAX_OPTS
    return (forward.new_state(c, k), np.zeros(k, np.int64), np.zeros((k, N_PARAMS)),
            np.zeros(k, np.int64), np.zeros(mo, np.int64), np.zeros(mo, np.int64),
            np.zeros(mo), tree, np.zeros(m + 1, np.int64), np.zeros(mo, np.int64))


def play_block(s, g0, g1, dice_rng, pol_rng, out, counts=None) -> None:
    """``GameSpec.play_block`` for setups with a search seat."""
    cnt = np.zeros(N_COUNTS, np.int64) if counts is None else counts
    _play_block(s.compiled, s.kinds, s.params, default_row(), g0, g1, dice_rng, pol_rng,
                forward.new_state(s.compiled, len(s.kinds)), *scratch(s), cnt,
                kernel.Out(**out))


def decide(s, st, pol_rng) -> int:
    """The option code the search policy of ``st``'s actor plays at ``st`` (a state suspended
    at its choice, ``forward``), for setup ``s``: tests and notebooks ask it of positions."""
    return int(_decide(s.compiled, s.kinds, s.params, default_row(), st, *scratch(s),
                       np.zeros(N_COUNTS, np.int64), pol_rng))


# ---- vikingsim bench: decisions/s, rollouts/s, the search's own overhead ---------------------
#: The search players ``vikingsim bench`` times (one search seat among greedy_vp seats).
BENCH_POLICIES = ("flatmc", "ismcts")


@jit(nrt=False)
def _rollouts_from(cf, roll_kinds, roll_params, root, sim, opts, count, pol_rng):
    """``count`` rollouts from ``root`` (at a choice), cycling over its legal options:
    rollout time alone (copy, determinization and play, as in a search)."""
    n = forward.legal_options(cf, roll_kinds, roll_params, root, opts)
    w = 0.0
    for r in range(count):
        w += _rollout(cf, roll_kinds, roll_params, root, sim, opts[r % n], pol_rng)
    return w


def _decision_states(s, most: int, seed: int) -> list:
    """The first ``most`` searched decision states of seed's games (the search seat's own
    choices, made by ``decide``, so the positions are those the bench's games reach)."""
    from vikingsim.core import rng

    c, k = s.compiled, len(s.kinds)
    dice = rng.block_generator(seed, rng.STREAM_DICE, 0)
    pol = rng.block_generator(seed, rng.STREAM_POLICY, 0)
    st, opts, found = forward.new_state(c, k), np.zeros(kernel.MAX_OPTS, np.int64), []
    while len(found) < most:
        forward.reset(c, st, dice)
        status = forward.advance(c, s.kinds, s.params, st, dice, pol)
        while status == DECIDE and len(found) < most:
            if forward.legal_options(c, s.kinds, s.params, st, opts) > 1:
                found.append(forward.State(*[a.copy() for a in st]))
            status = forward.apply(c, s.kinds, s.params, st, decide(s, st, pol), dice, pol)
    return found


def _rollout_seconds(s, bank, count: int, pol) -> float:
    """CPU seconds per rollout from the states of ``bank`` (``count`` each)."""
    c, k = s.compiled, len(s.kinds)
    sim, opts = forward.new_state(c, k), np.zeros(kernel.MAX_OPTS, np.int64)
    kinds = np.full(k, int(PolicyKind.GREEDY_VP), np.int64)
    params = np.tile(default_row(), (k, 1))

    def run(n):
        for root in bank:
            _rollouts_from(c, kinds, params, root, sim, opts, n, pol)
    run(1)
    return (_timed(lambda: run(count)) - _timed(lambda: run(0))) / (count * len(bank))


def bench_rows(seconds: float = 1.0, repeats: int = 3, players: int = 4) -> list[dict]:
    """One row per search player in one seat among ``greedy_vp`` seats (``core.search.bench_rows``:
    decisions/s, rollouts/s, overhead)."""
    import sys

    from vikingsim.core import search as core_search
    from vikingsim.games.tevragnarok import GAME

    return core_search.bench_rows(GAME, sys.modules[__name__], "greedy_vp", seconds=seconds,
                                  repeats=repeats, players=players, n_start=1,
                                  bank_size=200, roll_cap=64)
