"""Compiled search players of Raid & Conquer (issue 21 §2, raidconquer §15; parameters in
``search_params.py``, plain-Python twins in ``reference_search.py``).

Games with a search seat are played here: ``forward.advance`` plays the kernel's own rounds
and stops at a search seat's Secret Plan (and, with ``buys=1``, at each of its purchases,
§15.6); ``_decide`` picks the option and ``forward.apply`` carries it out. The real game's
shuffles stay on the dice stream; every determinization and every rollout draws on the
policy stream (the game's own, so the same seed gives the same games for any thread count).

``seats`` tuples are (kinds, params, bscore, fb) (``forward`` docstring): ``real`` the game's
seats; ``roll`` the rollouts' seats of every searching seat, each array with a leading seat
axis (``roll[j][s]``: the seats of seat s's rollouts, ``Setup.roll``, §15.8; DEFAULT every
seat on ``hints`` with nothing forbidden), sliced for the actor by ``_roll_of``; ``tree`` =
the actor's ``roll`` with its own kind (ISMCTS) so that play stops at its later Secret Plans. Rollout: copy the state, determinize it (§15.3), apply the option, play
to the end; score 1 if the searching seat won. ISMCTS keeps its tree in arena arrays
(``visits``, ``wins`` per node; ``avail`` and ``child`` per node and option code: how often
that option was legal there and the child node it leads to, -1 none), node 0 the root, at
most budget + 1 nodes.
"""
from __future__ import annotations

import math

import numpy as np

from vikingsim.core.jit import jit
from vikingsim.core.search import pick_best as _pick_best
from vikingsim.core.search import root_score as _root_score
from vikingsim.core.search import timed as _timed
from vikingsim.games.raidconquer import forward, kernel
from vikingsim.games.raidconquer.forward import (
    END_DECIDE, END_TERMINATED, END_TRUNCATED, N_OPTIONS, Clock)
from vikingsim.games.raidconquer.policies import PolicyKind


@jit(inline="always", nrt=False)
def _apply(rules, seats, st, option, dice, pol):
    kinds, params, bscore, fb = seats
    return forward.apply(rules, kinds, params, bscore, fb, st, option, dice, pol)


@jit(inline="always", nrt=False)
def _roll_of(roll, seat):
    """Seat ``seat``'s rollout seats (kinds, params, bscore, fb) out of every seat's ``roll``."""
    return roll[0][seat], roll[1][seat], roll[2][seat], roll[3][seat]


@jit(nrt=False)
def _rollout(rules, roll, root, sim, option, pol):
    """One rollout of ``option`` from ``root`` (at a decision) on a fresh determinization
    (``roll``: the chooser's rollout seats): 1.0 if the chooser wins."""
    seat = root.clock[Clock.ACTOR]
    forward.copy(root, sim)
    forward.determinize(rules, sim, roll[0], roll[1], pol)
    end = _apply(rules, roll, sim, option, pol, pol)
    return 1.0 if end == END_TERMINATED and sim.clock[Clock.WINNER] == seat else 0.0


@jit(nrt=False)
def _flatmc(rules, roll, root, sim, opts, n, rollouts, scores, pol):
    """Flat Monte Carlo: ``rollouts`` rollouts per option, in ``legal_options`` order, on the
    actor's rollout seats (``roll``: every seat's)."""
    mine = _roll_of(roll, root.clock[Clock.ACTOR])
    for j in range(n):
        w = 0.0
        for _ in range(rollouts):
            w += _rollout(rules, mine, root, sim, opts[j], pol)
        scores[j] = w
    return _pick_best(scores, opts, n, pol)


@jit(inline="always", nrt=False)
def _new_node(tree, n_nodes):
    visits, wins, avail, child = tree
    visits[n_nodes] = 0.0
    wins[n_nodes] = 0.0
    for o in range(N_OPTIONS):
        avail[n_nodes, o] = 0.0
        child[n_nodes, o] = -1
    return n_nodes


@jit(nrt=False)
def _select(node, opts, n, c, tree, n_nodes, ucb, pol):
    """ISMCTS selection at ``node`` among the legal ``opts``: each one's availability +1;
    an untried option, drawn uniformly on the policy stream (``_pick_best`` over untried
    flags), is expanded; else the best UCB1 value, equals drawn on the policy stream.
    Returns (option, child node, nodes in use)."""
    visits, wins, avail, child = tree
    untried = 0
    for j in range(n):
        avail[node, opts[j]] += 1.0
        ucb[j] = 1.0 if child[node, opts[j]] < 0 else 0.0
        untried += int(ucb[j])
    if untried > 0:
        o = _pick_best(ucb, opts, n, pol)
        ch = _new_node(tree, n_nodes)
        child[node, o] = ch
        return o, ch, n_nodes + 1
    for j in range(n):
        ch = child[node, opts[j]]
        ucb[j] = (wins[ch] / visits[ch]
                  + c * math.sqrt(math.log(avail[node, opts[j]]) / visits[ch]))
    o = _pick_best(ucb, opts, n, pol)
    return o, child[node, o], n_nodes


@jit(nrt=False)
def _iterate(rules, tree_seats, roll, root, sim, opts, c, tree, path, n_nodes, ucb, pol):
    """One ISMCTS iteration on a fresh determinization: descend the tree while the searching
    seat plans, expand one node, roll out (``roll``: the actor's rollout seats), back up the
    win. Returns the nodes in use."""
    seat = root.clock[Clock.ACTOR]
    forward.copy(root, sim)
    forward.determinize(rules, sim, roll[0], roll[1], pol)
    node, depth, status = 0, 0, END_DECIDE
    while status == END_DECIDE:
        if node < 0:                                       # below the tree: default policy
            o = forward.default_option(rules, sim, roll[1][seat], roll[2][seat], roll[3][seat],
                                      pol)
            status = _apply(rules, roll, sim, o, pol, pol)
            continue
        n = forward.legal_options(rules, sim, opts)
        before = n_nodes
        o, node, n_nodes = _select(node, opts, n, c, tree, n_nodes, ucb, pol)
        depth += 1
        path[depth] = node
        status = _apply(rules, tree_seats, sim, o, pol, pol)
        if n_nodes > before:
            node = -1                                      # expanded: leave the tree
    won = 1.0 if status == END_TERMINATED and sim.clock[Clock.WINNER] == seat else 0.0
    visits, wins = tree[0], tree[1]
    for d in range(1, depth + 1):
        visits[path[d]] += 1.0
        wins[path[d]] += won
    return n_nodes


@jit(nrt=False)
def _ismcts(rules, tree_seats, roll, root, sim, opts, root_opts, n, budget, c, scores, tree,
            path, pol):
    """``budget`` iterations from ``root`` on the actor's rollout seats (``roll``: every
    seat's); the most visited root option (equal visits by mean result, then on the policy
    stream: ``_root_score``)."""
    mine = _roll_of(roll, root.clock[Clock.ACTOR])
    for j in range(n):
        root_opts[j] = opts[j]
    n_nodes = _new_node(tree, 0) + 1
    for _ in range(budget):
        n_nodes = _iterate(rules, tree_seats, mine, root, sim, opts, c, tree, path, n_nodes,
                           scores, pol)
    child = tree[3]
    for j in range(n):
        ch = child[0, root_opts[j]]
        scores[j] = _root_score(tree[0][ch], tree[1][ch]) if ch >= 0 else 0.0
    return _pick_best(scores, root_opts, n, pol)


@jit(nrt=False)
def _decide(rules, real, roll, tree_kinds, search, st, sim, opts, root_opts, scores, tree, path,
            counts, pol):
    """The decision (Secret Plan or purchase) of ``st``'s actor by its search policy
    (``search[seat]``: budget, c, buys);
    ``counts`` += (decisions, rollouts)."""
    seat = st.clock[Clock.ACTOR]
    n = forward.legal_options(rules, st, opts)
    counts[0] += 1
    budget = int(search[seat, 0])
    if real[0][seat] == PolicyKind.FLATMC:
        counts[1] += budget * n
        return _flatmc(rules, roll, st, sim, opts, n, budget, scores, pol)
    counts[1] += budget
    for s in range(tree_kinds.shape[0]):
        tree_kinds[s] = roll[0][seat, s]
    tree_kinds[seat] = PolicyKind.ISMCTS
    tree_seats = (tree_kinds, roll[1][seat], roll[2][seat], roll[3][seat])
    return _ismcts(rules, tree_seats, roll, st, sim, opts, root_opts, n, budget,
                   search[seat, 1], scores, tree, path, pol)


@jit(nrt=False)
def _play_game(rules, real, roll, tree_kinds, search, g, st, sim, opts, root_opts, scores, tree,
               path, counts, dice, pol):
    """One game with search seats: the kernel's own play (``forward``), the search seats'
    Secret Plans by ``_decide``. Returns the final status."""
    kinds, params, bscore, fb = real
    forward.reset(rules, st, kinds.shape[0], g, dice)
    status = forward.advance(rules, kinds, params, bscore, fb, st, dice, pol)
    while status == END_DECIDE:
        o = _decide(rules, real, roll, tree_kinds, search, st, sim, opts, root_opts, scores,
                    tree, path, counts, pol)
        status = _apply(rules, real, st, o, dice, pol)
    return status


@jit(nrt=False)
def _play_block(rules, real, roll, tree_kinds, search, g0, g1, game0, dice, pol, st, sim, opts,
                root_opts, scores, tree, path, counts, out):
    """Games g0..g1 into rows g0..g1 of the outputs ``out`` (the tuple ``OUT_KEYS``)."""
    ri, card = rules[0], rules[1]
    n = real[0].shape[0]
    for g in range(g0, g1):
        status = _play_game(rules, real, roll, tree_kinds, search, game0 + g, st, sim, opts,
                            root_opts, scores, tree, path, counts, dice, pol)
        ec = out[7][g]
        for a in range(st.ec.shape[0]):
            for s in range(st.ec.shape[1]):
                for k in range(st.ec.shape[2]):
                    ec[a, s, k] = st.ec[a, s, k]
        kernel._record(ri, card, st.pp, st.pn, st.fl, st.ps, st.sh, st.shn, st.rows,
                       st.supply, st.box, st.gs, n, g, status == END_TRUNCATED,
                       st.clock[Clock.ROUNDS], ec, out[0], out[1], out[2], out[3], out[4],
                       out[5], out[6], out[8], out[9], out[10], out[11], out[12], out[13],
                       out[14], out[15], out[16], out[17], out[18])


#: The output arrays ``_play_block`` fills, in the order of ``kernel._record`` (cards 8th).
OUT_KEYS = ("winner", "tie", "tied", "rounds", "truncated", "failed_raids", "census", "cards",
            "legend", "raid_legend", "raids", "character", "earls", "won", "acquired",
            "pillaged", "lost", "silver_avail", "silver_spent")


def is_search(kinds) -> bool:
    """True when some seat is a search player."""
    return bool((np.asarray(kinds) >= PolicyKind.FLATMC).any())


def seat_tuples(s) -> tuple:
    """(real, roll, tree_kinds) for setup ``s`` (module docstring)."""
    c, k = s.compiled, len(s.kinds)
    real = (s.kinds, s.params, kernel.buy_scores(c.card, c.alt, c.alt_n, s.params), s.forbid)
    kinds, params, fb = s.roll
    bscore = np.stack([kernel.buy_scores(c.card, c.alt, c.alt_n, p) for p in params])
    return real, (kinds, params, bscore, fb), np.zeros(k, np.int8)


def scratch(s) -> tuple:
    """The scratch ``_decide`` takes after ``st``: sim state, options, root options, scores,
    ISMCTS arena (visits, wins, avail, child) and path."""
    k = len(s.kinds)
    b = [int(s.search[q, 0]) for q in range(k) if s.kinds[q] == PolicyKind.ISMCTS]
    m = max(b, default=0) + 1
    tree = (np.zeros(m), np.zeros(m), np.zeros((m, N_OPTIONS)),
            np.full((m, N_OPTIONS), -1, np.int32))
    return (forward.new_state(s, k), np.zeros(N_OPTIONS, np.int64),
            np.zeros(N_OPTIONS, np.int64), np.zeros(N_OPTIONS), tree, np.zeros(m + 1, np.int64))


def play_block(s, g0, g1, dice_rng, pol_rng, out, game0=0, counts=None) -> None:
    """``GameSpec.play_block`` for setups with a search seat."""
    real, roll, tk = seat_tuples(s)
    cnt = np.zeros(2, np.int64) if counts is None else counts
    _play_block(forward.rules_of(s.compiled), real, roll, tk, s.search, g0, g1, game0,
                dice_rng, pol_rng, forward.new_state(s, len(s.kinds)), *scratch(s), cnt,
                tuple(out[key] for key in OUT_KEYS))


def decide(s, st, pol_rng, tuples=None) -> int:
    """The Secret Plan option the search policy of ``st``'s actor chooses at ``st`` (a state
    suspended at a decision, ``forward``), for setup ``s``: tests ask it of forced positions.
    ``tuples``: ``seat_tuples(s)`` when the caller has them (they cost a ``buy_scores`` per
    seat: 8 of the bench's 28 s when made again at each of its 800 decisions)."""
    real, roll, tk = seat_tuples(s) if tuples is None else tuples
    return int(_decide(forward.rules_of(s.compiled), real, roll, tk, s.search, st,
                       *scratch(s), np.zeros(2, np.int64), pol_rng))


# ---- vikingsim bench: decisions/s, rollouts/s, the search's own overhead ---------------------
#: The search players ``vikingsim bench`` times (one search seat among ``hints`` seats), with
#: and without searched buys (§15.6).
BENCH_POLICIES = ("flatmc", "ismcts", "flatmc(buys=1)", "ismcts(buys=1)")


@jit(nrt=False)
def _rollouts_from(rules, roll, root, sim, opts, count, pol):
    """``count`` rollouts from ``root`` (a decision), cycling over its options: rollout time
    alone."""
    n = forward.legal_options(rules, root, opts)
    mine = _roll_of(roll, root.clock[Clock.ACTOR])
    w = 0.0
    for r in range(count):
        w += _rollout(rules, mine, root, sim, opts[r % n], pol)
    return w


def _decision_states(s, most: int, seed: int) -> list:
    """The first ``most`` decision states of seed's games (the search seat's own Secret Plans,
    made by ``decide``, so the positions are those the bench's games reach)."""
    from vikingsim.core import rng

    rules, k = forward.rules_of(s.compiled), len(s.kinds)
    tuples = seat_tuples(s)
    kinds, params, bscore, fb = tuples[0]
    dice = rng.block_generator(seed, rng.STREAM_DICE, 0)
    pol = rng.block_generator(seed, rng.STREAM_POLICY, 0)
    st, found, g = forward.new_state(s, k), [], 0
    while len(found) < most:
        forward.reset(rules, st, k, g, dice)
        g += 1
        status = forward.advance(rules, kinds, params, bscore, fb, st, dice, pol)
        while status == END_DECIDE and len(found) < most:
            found.append(forward.State(*[a.copy() for a in st]))
            o = decide(s, st, pol, tuples)
            status = forward.apply(rules, kinds, params, bscore, fb, st, o, dice, pol)
    return found


def _rollout_seconds(s, bank, count: int, pol) -> float:
    """CPU seconds per rollout from the states of ``bank`` (``count`` each), less the cost of
    calling in from Python (the same calls with no rollout)."""
    rules, k = forward.rules_of(s.compiled), len(s.kinds)
    roll = seat_tuples(s)[1]
    sim, opts = forward.new_state(s, k), np.zeros(N_OPTIONS, np.int64)

    def run(c):
        for root in bank:
            _rollouts_from(rules, roll, root, sim, opts, c, pol)
    run(1)
    return (_timed(lambda: run(count)) - _timed(lambda: run(0))) / (count * len(bank))


def bench_rows(seconds: float = 1.0, repeats: int = 3, players: int = 4) -> list[dict]:
    """One row per search player in one seat among ``hints`` seats (``core.search.bench_rows``:
    decisions/s, rollouts/s, overhead)."""
    import sys

    from vikingsim.core import search as core_search
    from vikingsim.games.raidconquer import GAME

    return core_search.bench_rows(GAME, sys.modules[__name__], "hints", seconds=seconds,
                                  repeats=repeats, players=players, n_start=2,
                                  bank_size=200, roll_cap=None)
