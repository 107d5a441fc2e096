"""Plain-Python search players of Raid & Conquer: the oracle of ``search.py``, written from the
algorithms (``search_params.py`` docstrings, raidconquer §15) on the reference engine
(``reference.Game``).

A decision is ``where`` = (PLAN, i): the Secret Plan of turn index i, or (BUY, i): a purchase
in the Main turn of turn index i (``buys=1``, §15.6; the tally is ``pl.tally``). A rollout is
a silent clone of the game with every seat on the policy the searcher models it with (§15.8,
``Setup.roll``: DEFAULT ``hints``, nothing forbidden) and its shuffles and policy draws on the
game's policy stream; the clone is determinized (§15.3, §15.6), the
searching seat's option is carried out, the round resumes (``Game.play(start, plan_from)``
after a plan, ``main_from`` inside a buy step) and the game is played out; it scores 1 when
the searching seat wins. ISMCTS runs the clone with the searching seat's later decisions
asked of the tree (``Game.searcher``) until a node is expanded, then that seat plays its own
scripted policy too. Draws happen in the same order as in the compiled players, so both give the
same games.
"""
from __future__ import annotations

import copy
import math

from vikingsim.core import cards as piles
from vikingsim.core.reference_search import draw_one, pick_best, root_score
from vikingsim.games.raidconquer.policies import PolicyKind
from vikingsim.games.raidconquer.reference import ATTACK, DEFEND, EMPTY, LONE, PARTY
from vikingsim.games.raidconquer.rules import ROW_SIZE, RuleSlot

#: Secret Plan option codes (forward.OPT_*): Defend, Lone Raid, Raid Party, Attack seat 3 + t
_ACTIONS = ((DEFEND, -1), (LONE, -1), (PARTY, -1))
#: buy option codes (§15.6): candidate c (Viking Row slots 0-4, Warriors, Hacksilver,
#: Longboat) = OPT_BUY + c, stop = OPT_STOP
OPT_BUY, N_CANDIDATES = 8, ROW_SIZE + 3
OPT_STOP = OPT_BUY + N_CANDIDATES
PLAN, BUY = 0, 1
_PILES = (RuleSlot.WARRIORS, RuleSlot.HACKSILVER, RuleSlot.LONGBOAT)


def options(game, seat):
    """Defend, Lone Raid, Raid Party, then Attack each opponent clockwise from ``seat``."""
    n = len(game.players)
    return [0, 1, 2] + [3 + (seat + i) % n for i in range(1, n)]


def candidate(game, cand):
    """(slot or -1, card or EMPTY) of buy candidate ``cand`` (§7.4's order)."""
    if cand < ROW_SIZE:
        return cand, game.vrow[cand]
    k = game.ri[_PILES[cand - ROW_SIZE]]
    return -1, k if game.supply[k] > 0 else EMPTY


def buy_options(game, pl):
    """§15.6: each candidate whose card is there and costs at most the Silver left plus what
    unused Warriors could add (§7.5), in §7.4's order, then stop."""
    left = pl.tally[0] - pl.tally[1] + sum(n for _, n in game.spare_warriors(pl))
    ok = [OPT_BUY + c for c in range(N_CANDIDATES)
          if (k := candidate(game, c)[1]) != EMPTY and game.c.cost[k] <= left]
    return ok + [OPT_STOP]


def legal(game, seat, where):
    return options(game, seat) if where[0] == PLAN else buy_options(game, game.players[seat])


def decode(option):
    return _ACTIONS[option] if option < 3 else (ATTACK, option - 3)


def _ask(game, pl, where):
    """The option code the search (or the tree hook ``game.searcher``) picks at ``where``."""
    if game.searcher is not None:
        return game.searcher(game, pl, where)
    opts = legal(game, pl.seat, where)
    budget = int(game.search[pl.seat, 0])
    if pl.kind == PolicyKind.FLATMC:
        return flatmc(game, pl.seat, where, opts, budget)
    return ismcts(game, pl.seat, where, opts, budget, float(game.search[pl.seat, 1]))


def choose(game, pl, i):
    """The (action, target) of ``pl``'s search policy at its Secret Plan, turn index ``i``."""
    return decode(_ask(game, pl, (PLAN, i)))


def choose_buy(game, pl, i):
    """(slot, card) or None (stop) of ``pl``'s search policy in its buy step (turn index i):
    no decision when stop is the only option."""
    if len(buy_options(game, pl)) == 1:
        return None
    o = _ask(game, pl, (BUY, i))
    return None if o == OPT_STOP else candidate(game, o - OPT_BUY)


def carry(g, seat, where, option):
    """Carry out ``option`` of ``seat`` at ``where`` in clone ``g``."""
    me = g.players[seat]
    if where[0] == PLAN:
        me.action, me.target = decode(option)
    elif option == OPT_STOP:
        me.tally[3] = True
    else:
        g.buy(me, *candidate(g, option - OPT_BUY))


def clone(game, seat, tree=False):
    """A silent copy of ``game`` whose seats play ``seat``'s rollout seats (§15.8: each its
    kind, parameters and forbidden cards of ``Setup.roll[.][seat]``; with ``tree`` ``seat``
    keeps kind ISMCTS), its dice and policy draws both on ``game.pol``."""
    keep = {id(x): y for x, y in ((game.c, game.c), (game.dice, game.pol),
                                  (game.pol, game.pol), (game.search, game.search),
                                  (game.roll, game.roll))
            if x is not None}                  # (never None: deepcopy would map every None)
    g = copy.deepcopy(game, keep)
    g.events, g.searcher = None, None
    kinds, params, forbid = (a[seat] for a in game.roll)
    for pl in g.players:
        q = pl.seat
        pl.kind = int(PolicyKind.ISMCTS if tree and q == seat else kinds[q])
        pl.p = [float(x) for x in params[q]]
        pl.forbid = {k for k in range(g.c.n) if forbid[q, k]}
    return g


def _reshuffled(cards, rng):
    """The cards sorted by id, then shuffled (never their unseen order, §15.3)."""
    out = sorted(cards)
    piles.shuffle(out, rng)
    return out


def determinize(g, seat, where):
    """§15.3, in ``forward.determinize``'s order on ``g.pol``, each pile sorted first: own
    deck; each other seat's hand + deck shuffled and the hand redealt; Viking deck; Treasure
    pile under its top; Raid deck; then at a plan the earlier Secret Plans of the round made
    again, each by the seat's policy in the clone (§15.8), at a purchase in Spring every other seat's (§15.6: on its hand and,
    its Main turn over, the cards it put in play)."""
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
    kind, i = where
    if kind == PLAN:
        for pl in g.order()[:i]:
            pl.action, pl.target = g.plan(pl)
    elif g.round > g.ri[RuleSlot.WINTER_ROUNDS]:
        for j, pl in enumerate(g.order()):
            if pl is not me:
                hand = pl.hand
                if j < i:
                    pl.hand = hand + [k for k, _ in pl.play]
                pl.action, pl.target = g.plan(pl)
                pl.hand = hand


def _play_out(g, seat, where, option):
    """Carry out ``option`` for ``seat`` at ``where`` in clone ``g`` and play to the end: did
    ``seat`` win?"""
    carry(g, seat, where, option)
    kind, i = where
    if kind == PLAN:
        truncated, _ = g.play(start=g.round, plan_from=i + 1)
    else:
        truncated, _ = g.play(start=g.round, main_from=i)
    return not truncated and g.winner()[0] == seat


def rollout(game, seat, where, option):
    g = clone(game, seat)
    determinize(g, seat, where)
    return _play_out(g, seat, where, option)


def flatmc(game, seat, where, opts, rollouts):
    scores = [float(sum(rollout(game, seat, where, o) for _ in range(rollouts))) for o in opts]
    return pick_best(scores, opts, game.pol)


class Node:
    def __init__(self):
        self.children, self.visits, self.wins = {}, 0.0, 0.0
        self.avail = {}                  # option -> times it was legal here (tried or not)


def _tree_choice(node, opts, c, rng):
    """(option, child, expanded): availability +1 for every legal option; an untried option,
    drawn uniformly on ``rng``, is expanded, else the best UCB1 value (equals drawn on
    ``rng``)."""
    for o in opts:
        node.avail[o] = node.avail.get(o, 0.0) + 1.0
    untried = [o for o in opts if o not in node.children]
    if untried:
        o = draw_one(untried, rng)
        node.children[o] = Node()
        return o, node.children[o], True
    ucb = [node.children[o].wins / node.children[o].visits
           + c * math.sqrt(math.log(node.avail[o]) / node.children[o].visits) for o in opts]
    best = pick_best(ucb, opts, rng)
    return best, node.children[best], False


def _iteration(game, seat, where, opts, root, c):
    g = clone(game, seat, tree=True)
    determinize(g, seat, where)
    path, at = [], {"node": root}

    def step(g_, pl, where_):
        o, child, expanded = _tree_choice(at["node"], legal(g_, seat, where_), c, game.pol)
        path.append(child)
        at["node"] = child
        if expanded:                                   # leave the tree: own policy from here
            pl.kind = int(PolicyKind.SCRIPTED)
        return o

    g.searcher = step
    o, child, expanded = _tree_choice(root, opts, c, game.pol)
    path.append(child)
    at["node"] = child
    if expanded:
        g.players[seat].kind = int(PolicyKind.SCRIPTED)
    won = _play_out(g, seat, where, o)
    for n in path:
        n.visits += 1.0
        n.wins += float(won)


def ismcts(game, seat, where, opts, budget, c):
    root = Node()
    for _ in range(budget):
        _iteration(game, seat, where, opts, root, c)
    scores = [root_score(root.children[o].visits, root.children[o].wins)
              if o in root.children else 0.0 for o in opts]
    return pick_best(scores, opts, game.pol)
