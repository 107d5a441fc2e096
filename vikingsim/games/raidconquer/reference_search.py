"""Plain-Python search players of Raid & Conquer: the oracle of ``search.py``, written from the
algorithms (``search_params.py`` docstrings, raidconquer §15) on the reference engine
(``reference.Game``).

A rollout is a silent clone of the game with every seat on ``hints`` (nothing forbidden) and
its shuffles and policy draws on the game's policy stream; the clone is determinized (§15.3),
the searching seat's option is recorded, the round resumes at the next Secret Plan
(``Game.play(start, plan_from)``) and the game is played out; it scores 1 when the searching
seat wins. ISMCTS runs the clone with the searching seat's later Secret Plans asked of the
tree (``Game.searcher``) until a node is expanded, then that seat plays ``hints`` too. Draws
happen in the same order as in the compiled players, so both give the same games.
"""
from __future__ import annotations

import copy
import math

from vikingsim.core import cards as piles
from vikingsim.games.raidconquer.policies import Hints, PolicyKind
from vikingsim.games.raidconquer.reference import ATTACK, DEFEND, LONE, PARTY

#: Secret Plan option codes (forward.OPT_*): Defend, Lone Raid, Raid Party, Attack seat 3 + t
_ACTIONS = ((DEFEND, -1), (LONE, -1), (PARTY, -1))


def options(game, seat):
    """Defend, Lone Raid, Raid Party, then Attack each opponent clockwise from ``seat``."""
    n = len(game.players)
    return [0, 1, 2] + [3 + (seat + i) % n for i in range(1, n)]


def decode(option):
    return _ACTIONS[option] if option < 3 else (ATTACK, option - 3)


def choose(game, pl, i):
    """The (action, target) of ``pl``'s search policy at its Secret Plan, turn index ``i``."""
    opts = options(game, pl.seat)
    budget = int(game.search[pl.seat, 0])
    if pl.kind == PolicyKind.FLATMC:
        return decode(flatmc(game, pl.seat, i, opts, budget))
    return decode(ismcts(game, pl.seat, i, opts, budget, float(game.search[pl.seat, 1])))


def clone(game, search_seat=None):
    """A silent copy of ``game`` whose seats all play ``hints`` (``search_seat``, if given,
    keeps kind ISMCTS), its dice and policy draws both on ``game.pol``."""
    keep = {id(x): y for x, y in ((game.c, game.c), (game.dice, game.pol),
                                  (game.pol, game.pol), (game.search, game.search))
            if x is not None}                  # (never None: deepcopy would map every None)
    g = copy.deepcopy(game, keep)
    g.events, g.searcher = None, None
    hints = [float(x) for x in Hints().params()]
    for pl in g.players:
        pl.kind = int(PolicyKind.ISMCTS if pl.seat == search_seat else PolicyKind.SCRIPTED)
        pl.p, pl.forbid = list(hints), set()
    return g


def _reshuffled(cards, rng):
    """The cards sorted by id, then shuffled (never their unseen order, §15.3)."""
    out = sorted(cards)
    piles.shuffle(out, rng)
    return out


def determinize(g, seat, i):
    """§15.3, in ``forward.determinize``'s order on ``g.pol``, each pile sorted first: own
    deck; each other seat's
    hand + deck shuffled and the hand redealt; Viking deck; Treasure pile under its top;
    Raid deck; then the earlier Secret Plans of the round made again by ``hints``."""
    me = g.players[seat]
    me.deck = _reshuffled(me.deck, g.pol)
    for pl in g.players:
        if pl is not me:
            pool = _reshuffled(pl.deck + pl.hand, g.pol)
            pl.hand = [pool.pop() for _ in range(len(pl.hand))]
            pl.deck = pool
    g.vdeck = _reshuffled(g.vdeck, g.pol)
    if len(g.treasure) > 1:
        g.treasure = _reshuffled(g.treasure[:-1], g.pol) + g.treasure[-1:]
    g.raid_deck = _reshuffled(g.raid_deck, g.pol)
    for pl in g.order()[:i]:
        pl.action, pl.target = g.plan(pl)


def _play_out(g, seat, i, option):
    """Record ``option`` for ``seat`` (turn index i) in clone ``g`` and play to the end: did
    ``seat`` win?"""
    me = g.players[seat]
    me.action, me.target = decode(option)
    truncated, _ = g.play(start=g.round, plan_from=i + 1)
    return not truncated and g.winner()[0] == seat


def rollout(game, seat, i, option):
    g = clone(game)
    determinize(g, seat, i)
    return _play_out(g, seat, i, option)


def pick_best(scores, opts, rng):
    """Highest score; equals drawn uniformly on ``rng`` (one draw, only when tied)."""
    best = max(scores)
    tied = [o for o, s in zip(opts, scores) if s == best]
    return tied[int(rng.random() * len(tied))] if len(tied) > 1 else tied[0]


def flatmc(game, seat, i, opts, rollouts):
    scores = [float(sum(rollout(game, seat, i, o) for _ in range(rollouts))) for o in opts]
    return pick_best(scores, opts, game.pol)


class Node:
    def __init__(self):
        self.children, self.visits, self.wins = {}, 0.0, 0.0
        self.avail = {}                  # option -> times it was legal here (tried or not)


def _tree_choice(node, opts, c, rng):
    """(option, child, expanded): availability +1 for every legal option; the first untried
    option is expanded, else the best UCB1 value (equals drawn on ``rng``)."""
    for o in opts:
        node.avail[o] = node.avail.get(o, 0.0) + 1.0
    for o in opts:
        if o not in node.children:
            node.children[o] = Node()
            return o, node.children[o], True
    ucb = [node.children[o].wins / node.children[o].visits
           + c * math.sqrt(math.log(node.avail[o]) / node.children[o].visits) for o in opts]
    best = pick_best(ucb, opts, rng)
    return best, node.children[best], False


def _iteration(game, seat, i, opts, root, c):
    g = clone(game, seat)
    determinize(g, seat, i)
    path, where = [], {"node": root}

    def step(g_, pl, _i):
        o, child, expanded = _tree_choice(where["node"], options(g_, seat), c, game.pol)
        path.append(child)
        where["node"] = child
        if expanded:                                   # leave the tree: hints from here
            pl.kind = int(PolicyKind.SCRIPTED)
        return decode(o)

    g.searcher = step
    o, child, expanded = _tree_choice(root, opts, c, game.pol)
    path.append(child)
    where["node"] = child
    if expanded:
        g.players[seat].kind = int(PolicyKind.SCRIPTED)
    won = _play_out(g, seat, i, o)
    for n in path:
        n.visits += 1.0
        n.wins += float(won)


def ismcts(game, seat, i, opts, budget, c):
    root = Node()
    for _ in range(budget):
        _iteration(game, seat, i, opts, root, c)
    scores = [root.children[o].visits if o in root.children else 0.0 for o in opts]
    return pick_best(scores, opts, game.pol)
