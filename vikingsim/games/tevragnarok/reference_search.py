"""Plain-Python forward model and search players of the Ragnarok model: the oracle of
``forward.py`` and ``search.py``, written from the rules notes (tev-ragnarok §4.7, §4.11) and
the algorithms (``search_params.py`` docstrings) on the reference engine (``reference.Game``).

``Fwd`` is a reference game with a clock: ``advance`` plays the Eras with the reference's own
steps (``draft``, ``own_battle``, ``choose`` + ``carry_out``, ``cleanup``,
``next_chieftain``) and stops where a search seat chooses its card. A rollout is a silent
clone (``clone``), ``determinize``d for the chooser, with every seat on ``greedy_vp`` and its
draws on the game's policy stream. Draws happen in the same order as in the compiled players,
so both give the same games.
"""
from __future__ import annotations

import copy as _copy
import math

from vikingsim.core import cards as C
from vikingsim.core.reference_search import draw_one, pick_best, root_score
from vikingsim.games.tevragnarok.policies import GreedyVP, Param, PolicyKind
from vikingsim.games.tevragnarok.reference import SLAY, record
from vikingsim.games.tevragnarok.rules import N_ERAS

DECIDE, ENDED = 1, 2
P_DRAFT, P_BATTLE, P_CARD = 0, 1, 2


class Fwd:
    """A reference game and where play stands (``forward.Clock``'s slots)."""

    def __init__(self, game):
        self.g = game
        self.era, self.step, self.phase, self.actor, self.winner = 0, 0, P_DRAFT, -1, -1

    def clone(self, rng, kinds, params):
        """A silent copy playing ``kinds``/``params``, its dice and policy draws on ``rng``
        (the rules and the card table are shared, never changed)."""
        g = self.g
        keep = {id(x): x for x in (g.rules, g.p, g.cards, g.favor_rune, g.docks, g.adj,
                                   g.dice, g.pol)}
        h = _copy.deepcopy(g, keep)
        h.dice = h.pol = rng
        h.kinds, h.params, h.events = list(kinds), [list(r) for r in params], None
        for s, pl in enumerate(h.players):
            pl.forbid = int(params[s][Param.FORBID])
        f = Fwd(h)
        f.era, f.step, f.phase, f.actor, f.winner = (self.era, self.step, self.phase,
                                                     self.actor, self.winner)
        return f

    def advance(self):
        """Play on until a search seat chooses its card (DECIDE) or the game ends (ENDED)."""
        g = self.g
        while self.era < N_ERAS:
            if self.phase == P_DRAFT:
                g.era = self.era
                g.invaders = 0
                g.draft()
                g.openers.append(g.chieftain)
                self.step, self.phase = 0, P_BATTLE
            order = g.clockwise(g.openers[self.era])
            turns = g.hand_size() * g.n
            while self.step < turns + g.n:
                t = self.step
                s = order[t % g.n]
                if self.phase == P_BATTLE:
                    g.own_battle(s, t < turns)
                    self.phase = P_CARD
                if t < turns:
                    if g.kinds[s] >= PolicyKind.FLATMC:
                        self.actor = s
                        return DECIDE
                    pl = g.players[s]
                    g.carry_out(pl, g.choose(pl))
                self.step, self.phase = t + 1, P_BATTLE
            g.cleanup()
            g.chieftain = g.next_chieftain(order)
            self.era, self.phase = self.era + 1, P_DRAFT
        g.era = N_ERAS - 1
        self.winner, self.actor = g.winner(), -1
        return ENDED

    def options(self):
        return self.g.options(self.g.players[self.actor])

    def apply(self, option):
        pl = self.g.players[self.actor]
        self.actor = -1
        self.g.carry_out(pl, option)
        self.step, self.phase = self.step + 1, P_BATTLE
        return self.advance()


def determinize(g, p, rng):
    """§4.11.2: what seat p cannot see drawn again on ``rng``: the deck, the other hands and
    the other seats' face-down battle cards, in ascending id order, shuffled together and
    dealt back into the same places; then the Giant values it has not seen (the pool less its own slain) shuffled and
    dealt to the board's Giants (regions ascending) and to the other seats' slain Giants."""
    n = g.n
    others = [(p + t) % n for t in range(1, n)]
    battles = [g.battles[s] for s in ((p + t) % n for t in range(n)) if s in g.battles]
    pool = list(g.deck)
    for q in others:
        pool += g.players[q].hand
    for b in battles:
        pool += [card for seat, card, _ in b["entries"] if seat != p]
    pool.sort()                        # ascending ids: nothing p cannot see orders the draw
    C.shuffle(pool, rng)
    m = len(g.deck)
    g.deck[:] = pool[:m]
    for q in others:
        k = len(g.players[q].hand)
        g.players[q].hand[:] = pool[m:m + k]
        m += k
    for b in battles:
        new = []
        for seat, card, s in b["entries"]:
            if seat != p:
                card = pool[m]
                m += 1
                s = g.strength(g.players[seat], card)
            new.append((seat, card, s))
        b["entries"] = new
    gpool = list(g.p.giants_values)
    for v in g.players[p].slain:
        gpool.remove(v)
    C.shuffle(gpool, rng)
    m = 0
    for r in range(g.R):
        if g.has_giant[r]:
            g.giant[r] = gpool[m]
            m += 1
    for q in others:
        k = len(g.players[q].slain)
        g.players[q].slain = gpool[m:m + k]
        m += k


def _roll_params(game, seat):
    default = GreedyVP().params().tolist()
    return [list(game.params[s]) if s == seat else default for s in range(game.n)]


def _greedy(game):
    return [int(PolicyKind.GREEDY_VP)] * game.n


def rollout(fw, seat, option, params):
    sim = fw.clone(fw.g.pol, _greedy(fw.g), params)
    determinize(sim.g, seat, sim.g.pol)
    sim.apply(option)
    return sim.winner == seat


def flatmc(fw, seat, options, rollouts):
    params = _roll_params(fw.g, seat)
    scores = [float(sum(rollout(fw, seat, o, params) for _ in range(rollouts)))
              for o in options]
    return pick_best(scores, options, fw.g.pol)


class Node:
    def __init__(self):
        self.children, self.visits, self.wins, self.avail = {}, 0.0, 0.0, 0.0


def _select(node, options, c, rng):
    """(option, child, expanded): every legal option's availability +1 (tried or not); an
    untried option, drawn uniformly on ``rng``, is expanded, else the best UCB1 value (equals
    drawn on ``rng``)."""
    for o in options:
        node.children.setdefault(o, Node()).avail += 1.0
    untried = [o for o in options if node.children[o].visits == 0.0]
    if untried:
        o = draw_one(untried, rng)
        return o, node.children[o], True
    ucb = []
    for o in options:
        ch = node.children[o]
        ucb.append(ch.wins / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits))
    best = pick_best(ucb, options, rng)
    return best, node.children[best], False


def _iteration(fw, seat, root, c, params):
    tree_kinds = _greedy(fw.g)
    tree_kinds[seat] = int(PolicyKind.ISMCTS)
    sim = fw.clone(fw.g.pol, tree_kinds, params)
    determinize(sim.g, seat, sim.g.pol)
    node, path, status = root, [], DECIDE
    while status == DECIDE:
        o, node, expanded = _select(node, sim.options(), c, sim.g.pol)
        path.append(node)
        if expanded:                                   # leave the tree: greedy_vp from here
            sim.g.kinds[seat] = int(PolicyKind.GREEDY_VP)
        status = sim.apply(o)
    won = float(sim.winner == seat)
    for nd in path:
        nd.visits += 1.0
        nd.wins += won


def ismcts(fw, seat, options, budget, c):
    params = _roll_params(fw.g, seat)
    root = Node()
    for _ in range(budget):
        _iteration(fw, seat, root, c, params)
    scores = [root_score(root.children[o].visits, root.children[o].wins)
              if o in root.children else 0.0 for o in options]
    return pick_best(scores, options, fw.g.pol)


def choose(fw):
    """The option (hand position, use, x) the search seat ``fw.actor`` plays."""
    seat, options = fw.actor, fw.options()
    if len(options) == 1:
        return options[0]
    kind, params = fw.g.kinds[seat], fw.g.params[seat]
    if kind == PolicyKind.FLATMC:
        return flatmc(fw, seat, options, int(params[Param.BUDGET]))
    return ismcts(fw, seat, options, int(params[Param.BUDGET]), params[Param.UCB_C])


def play(game):
    """Play ``game`` (a fresh ``reference.Game``) with its search seats; returns the winner."""
    fw = Fwd(game)
    game.setup()
    status = fw.advance()
    while status == DECIDE:
        status = fw.apply(choose(fw))
    return fw.winner


def play_block(setup, g0, g1, dice_rng, pol_rng, out):
    """Reference twin of ``search.play_block``: same rows, same draws."""
    from vikingsim.games.tevragnarok.reference import Game

    kinds = [int(k) for k in setup.kinds]
    params = setup.params.tolist()
    for g in range(g0, g1):
        game = Game(setup.rules, kinds, params, dice_rng, pol_rng)
        record(game, g, out, play(game))


__all__ = ["Fwd", "determinize", "choose", "flatmc", "ismcts", "play", "play_block", "SLAY"]
