"""Plain-Python search players of the raid board: the oracle of ``search.py``, written from the
algorithms (``search_params.py`` docstrings) on the reference engine (``reference.Game``).

A rollout is a silent clone of the game (``Game.clone``) with every seat on ``greedy`` and its
dice and policy draws on the game's policy stream; the chooser's option is carried out, the
rest of the game is played and the rollout scores 1 when the chooser wins. ISMCTS runs the
clone with the chooser's later choices asked of the tree (``Game.searcher``) until a node is
expanded, then the chooser plays greedy too. Draws happen in the same order as in the compiled
players, so both give the same games.
"""
from __future__ import annotations

import math

from vikingsim.core.reference_search import draw_one, pick_best, root_score
from vikingsim.games.raidboard.policies import PolicyKind
from vikingsim.games.raidboard.reference import Won


def choose(game, seat, options):
    """The choice of ``seat``'s search policy among ``options`` (ascending spaces)."""
    if len(options) == 1:
        return options[0]
    kind, params = game.kinds[seat], game.params[seat]
    if kind == PolicyKind.FLATMC:
        return flatmc(game, seat, options, int(params[0]))
    return ismcts(game, seat, options, int(params[0]), params[1])


def _greedy_kinds(game):
    return [int(PolicyKind.GREEDY)] * len(game.gold)


def _play_out(g, seat, option):
    """Carry out ``option`` in clone ``g`` and play to the end: did ``seat`` win?"""
    try:
        g.carry_out(seat, option)
    except Won as w:
        return w.args[0] == seat
    truncated, winner, _ = g.play_after_turn()
    return winner == seat


def rollout(game, seat, option):
    return _play_out(game.clone(game.pol, _greedy_kinds(game)), seat, option)


def flatmc(game, seat, options, rollouts):
    scores = [float(sum(rollout(game, seat, o) for _ in range(rollouts))) for o in options]
    return pick_best(scores, options, game.pol)


class Node:
    def __init__(self):
        self.children, self.visits, self.wins = {}, 0.0, 0.0
        self.avail = {}                  # option -> times it was legal here (tried or not)


def _tree_choice(node, options, c, rng):
    """(option, child, expanded): availability +1 for every legal option; an untried option,
    drawn uniformly on ``rng``, is expanded, else the best UCB1 value (equals drawn on
    ``rng``)."""
    for o in options:
        node.avail[o] = node.avail.get(o, 0.0) + 1.0
    untried = [o for o in options if o not in node.children]
    if untried:
        o = draw_one(untried, rng)
        node.children[o] = Node()
        return o, node.children[o], True
    ucb = []
    for o in options:
        ch = node.children[o]
        ucb.append(ch.wins / ch.visits + c * math.sqrt(math.log(node.avail[o]) / ch.visits))
    best = pick_best(ucb, options, rng)
    return best, node.children[best], False


def _iteration(game, seat, options, root, c):
    path = []
    kinds = _greedy_kinds(game)
    kinds[seat] = int(PolicyKind.ISMCTS)
    g = game.clone(game.pol, kinds)
    where = {"node": root}

    def step(g_, s, opts):
        o, child, expanded = _tree_choice(where["node"], opts, c, game.pol)
        path.append(child)
        where["node"] = child
        if expanded:                                   # leave the tree: greedy from here
            g_.kinds[seat] = int(PolicyKind.GREEDY)
        return o

    g.searcher = step
    won = _play_out(g, seat, step(g, seat, options))
    for n in path:
        n.visits += 1.0
        n.wins += float(won)


def ismcts(game, seat, options, budget, c):
    root = Node()
    for _ in range(budget):
        _iteration(game, seat, options, root, c)
    scores = [root_score(root.children[o].visits, root.children[o].wins)
              if o in root.children else 0.0 for o in options]
    return pick_best(scores, options, game.pol)
