"""Compiled search players of the raid board (issue 21 §2; parameters in ``search_params.py``,
plain-Python twins in ``reference_search.py``).

Games with a search seat are played here: ``forward.advance`` plays the kernel's own turns and
stops where a search seat must choose; ``_decide`` picks the option and ``forward.apply``
carries it out. The real game's dice stay on the dice stream; every rollout draws its dice on
the policy stream (the game's own, so the same seed gives the same games for any thread count).

Rollout: copy the state, apply the option, play to the end with every seat on ``greedy``
(``roll_kinds``); score 1 if the searching seat won. ISMCTS keeps its tree in arena arrays
(``visits``, ``wins`` per node; ``avail`` and ``child`` per node and space: how often that
option was legal there, and the child node it leads to, -1 none),
node 0 the root, at most budget + 1 nodes.
"""
from __future__ import annotations

import math

import numpy as np

from vikingsim.core.jit import jit
from vikingsim.core.search import pick_best as _pick_best
from vikingsim.core.search import root_score as _root_score
from vikingsim.core.search import timed as _timed
from vikingsim.games.raidboard import forward
from vikingsim.games.raidboard.forward import Clock
from vikingsim.games.raidboard.kernel import END_DECIDE, END_TERMINATED, END_TRUNCATED
from vikingsim.games.raidboard.policies import N_PARAMS, PolicyKind
from vikingsim.games.raidboard.rules import N_SPACES


@jit(nrt=False)
def _rollout(rules, roll_kinds, roll_params, root, sim, option, pol_rng):
    """One rollout of ``option`` from ``root`` (at a choice): 1.0 if the chooser wins."""
    seat = root.clock[Clock.ACTOR]
    forward.copy(root, sim)
    forward.apply(rules, roll_kinds, roll_params, sim, option, pol_rng, pol_rng)
    return 1.0 if sim.clock[Clock.END] == END_TERMINATED and sim.clock[Clock.WINNER] == seat \
        else 0.0


@jit(nrt=False)
def _flatmc(rules, roll_kinds, roll_params, root, sim, opts, n, rollouts, scores, pol_rng):
    """Flat Monte Carlo: ``rollouts`` rollouts per option, options in ascending order."""
    for j in range(n):
        w = 0.0
        for _ in range(rollouts):
            w += _rollout(rules, roll_kinds, roll_params, root, sim, opts[j], pol_rng)
        scores[j] = w
    return _pick_best(scores, opts, n, pol_rng)


@jit(inline="always", nrt=False)
def _new_node(visits, wins, avail, child, n_nodes):
    visits[n_nodes] = 0.0
    wins[n_nodes] = 0.0
    avail[n_nodes, :] = 0.0
    child[n_nodes, :] = -1
    return n_nodes


@jit(nrt=False)
def _select(node, opts, n, c, visits, wins, avail, child, n_nodes, ucb, pol_rng):
    """ISMCTS selection at ``node`` among the legal ``opts``: each legal option's availability
    at the node +1 (tried or not); an untried option, drawn uniformly on the policy stream
    (``_pick_best`` over untried flags), is expanded; else the best UCB1 value, equals drawn
    on the policy stream. Returns (option, child node, nodes in use)."""
    untried = 0
    for j in range(n):
        avail[node, opts[j]] += 1.0
        ucb[j] = 1.0 if child[node, opts[j]] < 0 else 0.0
        untried += int(ucb[j])
    if untried > 0:
        o = _pick_best(ucb, opts, n, pol_rng)
        ch = _new_node(visits, wins, avail, child, n_nodes)
        child[node, o] = ch
        return o, ch, n_nodes + 1
    for j in range(n):
        ch = child[node, opts[j]]
        ucb[j] = (wins[ch] / visits[ch]
                  + c * math.sqrt(math.log(avail[node, opts[j]]) / visits[ch]))
    o = _pick_best(ucb, opts, n, pol_rng)
    return o, child[node, o], n_nodes


@jit(nrt=False)
def _iterate(rules, tree_kinds, roll_kinds, roll_params, root, sim, opts, c, visits, wins,
             avail, child, path, n_nodes, ucb, pol_rng):
    """One ISMCTS iteration on a fresh determinization (dice from the policy stream): descend
    the tree while the searching seat chooses, expand one node, roll out with greedy, back up
    the win. Returns the nodes in use."""
    seat = root.clock[Clock.ACTOR]
    forward.copy(root, sim)
    node, depth, status = 0, 0, END_DECIDE
    while status == END_DECIDE:
        if node < 0:                                       # below the tree: default policy
            o = forward.default_option(rules, sim, roll_params[seat], pol_rng)
            status = forward.apply(rules, roll_kinds, roll_params, sim, o, pol_rng, pol_rng)
            continue
        n = forward.legal_options(rules, sim, opts)
        before = n_nodes
        o, node, n_nodes = _select(node, opts, n, c, visits, wins, avail, child, n_nodes, ucb,
                                   pol_rng)
        depth += 1
        path[depth] = node
        status = forward.apply(rules, tree_kinds, roll_params, sim, o, pol_rng, pol_rng)
        if n_nodes > before:
            node = -1                                      # expanded: leave the tree
    won = 1.0 if status == END_TERMINATED and sim.clock[Clock.WINNER] == seat else 0.0
    for d in range(1, depth + 1):
        visits[path[d]] += 1.0
        wins[path[d]] += won
    return n_nodes


@jit(nrt=False)
def _ismcts(rules, tree_kinds, roll_kinds, roll_params, root, sim, opts, root_opts, n, budget,
            c, scores, visits, wins, avail, child, path, pol_rng):
    """``budget`` iterations from ``root``; the most visited root option (equal visits by mean
    result, then on the policy stream: ``_root_score``)."""
    for j in range(n):
        root_opts[j] = opts[j]
    n_nodes = _new_node(visits, wins, avail, child, 0) + 1
    for _ in range(budget):
        n_nodes = _iterate(rules, tree_kinds, roll_kinds, roll_params, root, sim, opts, c,
                           visits, wins, avail, child, path, n_nodes, scores, pol_rng)
    for j in range(n):
        ch = child[0, root_opts[j]]
        scores[j] = _root_score(visits[ch], wins[ch]) if ch >= 0 else 0.0
    return _pick_best(scores, root_opts, n, pol_rng)


@jit(nrt=False)
def _decide(rules, kinds, params, st, sim, roll_kinds, roll_params, tree_kinds, opts,
            root_opts, scores, visits, wins, avail, child, path, counts, pol_rng):
    """The pending choice of ``st``'s actor, by its search policy; a lone option is taken
    without search. ``counts`` += (1 decision searched, its rollouts)."""
    seat = st.clock[Clock.ACTOR]
    n = forward.legal_options(rules, st, opts)
    if n == 1:
        return opts[0]
    counts[0] += 1
    if kinds[seat] == PolicyKind.FLATMC:
        counts[1] += n * int(params[seat, 0])
        return _flatmc(rules, roll_kinds, roll_params, st, sim, opts, n, int(params[seat, 0]),
                       scores, pol_rng)
    counts[1] += int(params[seat, 0])
    for s in range(kinds.shape[0]):
        tree_kinds[s] = roll_kinds[s]
    tree_kinds[seat] = PolicyKind.ISMCTS
    return _ismcts(rules, tree_kinds, roll_kinds, roll_params, st, sim, opts, root_opts, n,
                   int(params[seat, 0]), params[seat, 1], scores, visits, wins, avail, child,
                   path, pol_rng)


@jit(nrt=False)
def _play_block(rules, kinds, params, g0, g1, dice_rng, pol_rng, st, sim, roll_kinds,
                roll_params, tree_kinds, opts, root_opts, scores, visits, wins, avail, child,
                path, counts, winner, rounds, truncated, gold_out, settle_out, kingdom_out,
                lost_out):
    """Games g0..g1 with search seats into rows g0..g1 of the outputs (as kernel._play_block);
    ``counts`` += (decisions searched, rollouts played)."""
    n_seats = kinds.shape[0]
    for g in range(g0, g1):
        forward.reset(rules, st)
        status = forward.advance(rules, kinds, params, st, dice_rng, pol_rng)
        while status == END_DECIDE:
            o = _decide(rules, kinds, params, st, sim, roll_kinds, roll_params, tree_kinds,
                        opts, root_opts, scores, visits, wins, avail, child, path, counts,
                        pol_rng)
            status = forward.apply(rules, kinds, params, st, o, dice_rng, pol_rng)
        winner[g] = st.clock[Clock.WINNER]
        rounds[g] = st.clock[Clock.ROUNDS]
        truncated[g] = status == END_TRUNCATED
        for s in range(n_seats):
            gold_out[g, s] = st.gold[s]
            settle_out[g, s] = st.n_set[s]
            kingdom_out[g, s] = st.n_king[s]
            lost_out[g, s] = st.lost[s]


def is_search(kinds) -> bool:
    """Some seat is a search player."""
    return bool((np.asarray(kinds) >= PolicyKind.FLATMC).any())


def max_nodes(kinds, params) -> int:
    """Arena size for the seats' ISMCTS budgets (1 when none)."""
    b = [int(params[s, 0]) for s in range(len(kinds)) if kinds[s] == PolicyKind.ISMCTS]
    return max(b, default=0) + 1


def scratch(kinds, params) -> tuple:
    """The scratch arrays ``_play_block`` takes after ``st``: sim state, rollout kinds and
    params, tree kinds, options, root options, scores, ISMCTS arena and path."""
    k = len(kinds)
    m = max_nodes(kinds, params)
    return (forward.new_state(k), np.zeros(k, np.int8), np.zeros((k, N_PARAMS)),
            np.zeros(k, np.int8), np.zeros(N_SPACES, np.int64), np.zeros(N_SPACES, np.int64),
            np.zeros(N_SPACES), np.zeros(m), np.zeros(m), np.zeros((m, N_SPACES)),
            np.full((m, N_SPACES), -1, np.int32), np.zeros(m + 1, np.int64))


def play_block(s, g0, g1, dice_rng, pol_rng, out, counts=None) -> None:
    """``GameSpec.play_block`` for setups with a search seat."""
    rules = forward.rules_of(s.compiled)
    cnt = np.zeros(2, np.int64) if counts is None else counts
    _play_block(rules, s.kinds, s.params, g0, g1, dice_rng, pol_rng,
                forward.new_state(len(s.kinds)), *scratch(s.kinds, s.params), cnt,
                out["winner"], out["rounds"], out["truncated"], out["gold"],
                out["settlements"], out["kingdoms"], out["fleets_lost"])


def decide(s, st, pol_rng) -> int:
    """The choice the search policy of ``st``'s actor makes at ``st`` (a state suspended at a
    choice, ``forward``), for setup ``s``: tests and notebooks ask it of forced positions."""
    return int(_decide(forward.rules_of(s.compiled), s.kinds, s.params, st,
                       *scratch(s.kinds, s.params), np.zeros(2, np.int64), pol_rng))


# ---- vikingsim bench: decisions/s, rollouts/s, the search's own overhead ---------------------
#: The search players ``vikingsim bench`` times (one search seat among greedy seats).
BENCH_POLICIES = ("flatmc", "ismcts")


@jit(nrt=False)
def _rollout_bank(rules, roll_kinds, roll_params, bank, root, sim, opts, count, pol_rng):
    """``count`` rollouts from each state of ``bank`` (a State whose fields have a leading
    axis, one row per state), cycling over its legal options: rollout time alone."""
    w = 0.0
    for m in range(bank.clock.shape[0]):
        _load_row(bank, m, root)
        n = forward.legal_options(rules, root, opts)
        for r in range(count):
            w += _rollout(rules, roll_kinds, roll_params, root, sim, opts[r % n], pol_rng)
    return w


@jit(inline="always", nrt=False)
def _row_into(src, m, dst):
    for i in range(dst.shape[0]):
        dst[i] = src[m, i]


@jit(nrt=False)
def _load_row(bank, m, st):
    _row_into(bank.gold, m, st.gold)
    _row_into(bank.pos, m, st.pos)
    _row_into(bank.fdir, m, st.fdir)
    _row_into(bank.miss, m, st.miss)
    _row_into(bank.owner, m, st.owner)
    _row_into(bank.n_set, m, st.n_set)
    _row_into(bank.n_king, m, st.n_king)
    _row_into(bank.lost, m, st.lost)
    _row_into(bank.clock, m, st.clock)


def _decision_states(s, most: int, seed: int) -> list:
    """The first ``most`` searched decision states of seed's games (the search seat's own
    choices, made by ``decide``, so the positions are those the bench's games reach), stacked
    into one State with a leading axis."""
    from vikingsim.core import rng

    rules, k = forward.rules_of(s.compiled), len(s.kinds)
    dice = rng.block_generator(seed, rng.STREAM_DICE, 0)
    pol = rng.block_generator(seed, rng.STREAM_POLICY, 0)
    st, opts, found = forward.new_state(k), np.zeros(N_SPACES, np.int64), []
    while len(found) < most:
        forward.reset(rules, st)
        status = forward.advance(rules, s.kinds, s.params, st, dice, pol)
        while status == END_DECIDE:
            if forward.legal_options(rules, st, opts) > 1:
                found.append(forward.State(*[a.copy() for a in st]))
            status = forward.apply(rules, s.kinds, s.params, st, decide(s, st, pol), dice,
                                   pol)
    return forward.State(*[np.stack(f) for f in zip(*found[:most])])


def _rollout_seconds(s, bank, count: int, pol) -> float:
    """CPU seconds per rollout from the states of ``bank`` (``count`` each)."""
    rules, k = forward.rules_of(s.compiled), len(s.kinds)
    root, sim, opts = forward.new_state(k), forward.new_state(k), np.zeros(N_SPACES, np.int64)
    kinds, params = np.zeros(k, np.int8), np.zeros((k, N_PARAMS))

    def run(c):
        _rollout_bank(rules, kinds, params, bank, root, sim, opts, c, pol)
    run(1)
    return (_timed(lambda: run(count)) - _timed(lambda: run(0))) / (count * len(bank.clock))


def bench_rows(seconds: float = 1.0, repeats: int = 3, players: int = 4) -> list[dict]:
    """One row per search player in one seat among ``greedy`` seats (``core.search.bench_rows``:
    decisions/s, rollouts/s, overhead)."""
    import sys

    from vikingsim.core import search as core_search
    from vikingsim.games.raidboard import GAME

    return core_search.bench_rows(GAME, sys.modules[__name__], "greedy", seconds=seconds,
                                  repeats=repeats, players=players, n_start=16,
                                  bank_size=1000, roll_cap=None)
