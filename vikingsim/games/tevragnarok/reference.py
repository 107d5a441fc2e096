"""Plain-Python reference of the Ragnarok model (tev-ragnarok §4.3, §4.7): the test oracle,
the bench baseline and the narrator of ``vikingsim trace tevragnarok``.

Written from the notes (§2-§4, the model of §4.7 and the RNG protocol of §4.8) as readable
objects: players with dictionaries of units, a deck as a list. It draws the dice stream and
the policy stream in the order §4.8 fixes, so it replays the kernel bit for bit.
"""
from __future__ import annotations

from vikingsim.core import cards as C
from vikingsim.games.tevragnarok.policies import CARDS, ELEMENTS, Param, PolicyKind
from vikingsim.games.tevragnarok.rules import (
    BOAT_INFLUENCE, CARD_COST, CARD_KIND, CARD_LEADER, CARD_NEED, CARD_RUNE, CARD_RUNEACT,
    CARD_STRENGTH, CARRY_SETTLER_FOOD, CARRY_TEMPLE_STEEL, FOOD, JOKER, MAX_FAVOR_HELD,
    N_ERAS, N_GIANTS, N_RUNES, N_VALKYRIES, SETTLER_INFLUENCE, SLAY_SETTLERS,
    SLAY_SETTLERS_EINHERJAR, STEEL, STRENGTH_PER_UNIT, TEMPLE_INFLUENCE, VALKYRIE_INFLUENCE,
    WOOD, CardKind, Leader, RuneAct)

FACE_UP, START, JOIN, SLAY = 0, 1, 2, 3            # uses of a card (§4.7)
EL = {name: i for i, name in enumerate(ELEMENTS)}  # restricted play and its counters (§4.7)
LEADER_EL = ("sail", "harvest", "explore", "build")                   # by ``Leader``
RUNE_EL = ("smite", "attack_settlers", "raid", "exchange", "move_giant", "raid_free")
CARD_EL = {CardKind.VALKYRIE: "valkyrie_card", CardKind.EINHERJAR: "einherjar_card"}
RUNE_NAMES = "ABC*"
USE_NAMES = ("face up", "starts a battle", "joins the battle of seat", "slays the Giant in")


class Player:
    def __init__(self, g, seat):
        p = g.p
        self.seat = seat
        self.settlers = [0] * g.R          # on the board, per region
        self.temples = [0] * g.R
        self.boats = [0] * g.D             # moored, per dock
        self.valkyrie = [-1] * N_VALKYRIES  # region of the Valkyrie of each Rune, -1 = mat
        self.res = list(p.start_resources)
        self.favors = []                   # Favor card ids held (at most 3)
        self.slain = []                    # values of the Giants slain (seen by this player)
        self.villages = 0
        self.hand = []
        self.lost = self.won = 0
        self.slays_by_era = [0] * N_ERAS
        self.forbid = int(g.params[seat][Param.FORBID])
        self.count = g.rules.count_elements    # the counters below (option, §4.10)
        self.taken = [0] * len(ELEMENTS)        # times taken, per element
        self.first = [0] * len(ELEMENTS)        # Era (1-3) of the first take, 0 = never
        self.drafted = [0] * len(CARDS)         # cards of each kind drafted

    def on_mat_settlers(self, g):
        return g.p.start_settlers - sum(self.settlers)

    def deployed(self):
        return sum(1 for v in self.valkyrie if v >= 0)

    def allowed(self, name):
        """Restricted play: the seat's policy does not forbid this element."""
        return not (self.forbid >> EL[name]) & 1

    def take(self, name, era):
        """Count one take of an element (times, and the Era of the first)."""
        if not self.count:
            return
        self.taken[EL[name]] += 1
        if self.first[EL[name]] == 0:
            self.first[EL[name]] = era + 1


class Game:
    """One game. ``rules`` a ``Rules``; ``kinds``/``params`` per seat (``policies``)."""

    def __init__(self, rules, kinds, params, dice, pol, events=None):
        self.rules, self.p = rules, rules.p
        self.kinds, self.params, self.dice, self.pol = kinds, params, dice, pol
        p = self.p
        self.R, self.docks, self.adj = p.board_n_regions, p.docks(), p.adjacency()
        self.D = len(self.docks)
        from vikingsim.games.tevragnarok.rules import favor_runes, make_cards
        self.cards = make_cards(p).tolist()
        self.favor_rune = favor_runes(p).tolist()
        self.events = events
        self.n = len(kinds)
        self.players = [Player(self, s) for s in range(self.n)]
        self.fury = [0] * N_RUNES
        self.fury_nodrain = [0] * N_RUNES
        self.control = [-1] * self.R
        self.villages = list(p.board_villages)
        self.battles = {}                  # starter -> {"prize", "row", "end", "entries"}
        self.first_slayer = self.first_loser = -1
        self.special = [[[0, 0] for _ in range(2)] for _ in range(N_ERAS)]  # [era][kind][n,sum]
        self.era = 0
        self.first = rules.first_seat                # §4.7 first player at setup
        self.chieftain = self.first                  # holds the Chieftain marker
        self.openers = []                            # who opened each Era
        self.res_max = max(p.start_resources)        # invariant records (§4.9)
        self.fury_min = 0
        self.favor_max = 0

    def say(self, text):
        if self.events is not None:
            self.events.append(text)

    # ---------------------------------------------------------------- setup (§4.8 order)
    def setup(self):
        self.deck = list(range(len(self.cards)))
        self.discard = []
        C.shuffle(self.deck, self.dice)                         # 1. the Viking deck
        tokens = list(range(N_GIANTS))
        C.shuffle(tokens, self.dice)                            # 2. Giants, face down (§3.1)
        self.giant = [self.p.giants_values[tokens[r]] for r in range(self.R)]
        self.has_giant = [True] * self.R
        favors = list(range(self.p.economy_favor_cards))
        C.shuffle(favors, self.dice)                            # 3. Favor cards, two rows
        half = len(favors) // 2
        self.rows = [favors[:half], favors[half:]]
        for pl in self.players:              # §4.7 start region by turn position
            region = self.p.start_region(self.position(pl.seat), self.n)
            pl.settlers[region] = self.p.start_settlers_on_board
        self.update_control()

    # ---------------------------------------------------------------- board helpers
    def influence(self, pl, r):
        """§2.4, §3.2, §3.6: Settler 1, Temple 4, moored Boat 2 (each region of its dock),
        Valkyrie 2."""
        boats = sum(pl.boats[d] for d in range(self.D) if r in self.docks[d])
        valk = sum(1 for v in pl.valkyrie if v == r)
        return (SETTLER_INFLUENCE * pl.settlers[r] + TEMPLE_INFLUENCE * pl.temples[r]
                + BOAT_INFLUENCE * boats + VALKYRIE_INFLUENCE * valk)

    def ground(self, pl, r):
        """A Settler, Temple or Valkyrie in r (a Boat is not on the ground, §2.4, §3.6)."""
        return pl.settlers[r] + pl.temples[r] + sum(1 for v in pl.valkyrie if v == r) > 0

    def update_control(self):
        """§2.4, §3.6: the unique most-Influence player with ground units takes the Rune
        (+1 Fury to its god); a holder tied at the top keeps it; a holder without ground
        units and no unique challenger returns it (no Fury change)."""
        for r in range(self.R):
            best, best_seat, tie = -1, -1, False
            for pl in self.players:
                if not self.ground(pl, r):
                    continue
                x = self.influence(pl, r)
                if x > best:
                    best, best_seat, tie = x, pl.seat, False
                elif x == best:
                    tie = True
            holder = self.control[r]
            if best_seat >= 0 and not tie:
                if best_seat != holder:
                    self.control[r] = best_seat
                    self.add_fury(self.p.board_runes[r], 1)
                    self.say(f"    seat {best_seat} takes the Rune of region {r}")
            elif holder >= 0 and not self.ground(self.players[holder], r):
                self.control[r] = -1
                self.say(f"    the Rune of region {r} returns to the island")

    def position(self, seat):
        """Turn position of a seat: 0 for the first player (first_seat), then clockwise."""
        return (seat - self.first) % self.n

    def clockwise(self, start):
        """The seats in turn order from ``start``."""
        return [(start + i) % self.n for i in range(self.n)]

    def add_fury(self, g, k):
        self.fury[g] += k
        self.fury_nodrain[g] += k

    def rank_index(self, g, fury=None):
        """§2.6: 0 = rank 1; tied gods take the lower value (their tie's worst rank)."""
        f = self.fury if fury is None else fury
        return sum(1 for h in range(N_RUNES) if h != g and f[h] >= f[g])

    def rune_points(self, pl, fury=None):
        pts = 0
        for r in range(self.R):
            if self.control[r] == pl.seat:
                pts += self.p.scoring_island[self.rank_index(self.p.board_runes[r], fury)]
        for f in pl.favors:
            pts += self.p.scoring_favor[self.rank_index(self.favor_rune[f], fury)]
        return pts

    def gain(self, pl, kind, k):
        pl.res[kind] = min(self.p.start_resource_cap, pl.res[kind] + k)     # §2.2 cap 7
        self.res_max = max(self.res_max, pl.res[kind])

    def draw(self):
        return C.draw(self.deck, self.discard, self.dice)

    # ---------------------------------------------------------------- policy helpers
    def kind(self, pl):
        return self.kinds[pl.seat]

    def par(self, pl, k):
        return self.params[pl.seat][k]

    def rand(self, n):
        return int(self.pol.random() * n)

    def card_allowed(self, pl, card):
        """A base card is never forbidden; a Valkyrie or Einherjar card when its kind is."""
        kind = self.cards[card][CARD_KIND]
        return kind == CardKind.BASE or pl.allowed(CARD_EL[kind])

    def take_card(self, pl, card):
        """The card was used: a battle, a slay, or face up with its condition met."""
        kind = self.cards[card][CARD_KIND]
        if kind != CardKind.BASE:
            pl.take(CARD_EL[kind], self.era)

    def strength(self, pl, card):
        """§3.5 SEED: Valkyrie 4 x Valkyries deployed, Einherjar 4 x Giants slain."""
        kind = self.cards[card][CARD_KIND]
        if kind == CardKind.VALKYRIE:
            return STRENGTH_PER_UNIT * pl.deployed()
        if kind == CardKind.EINHERJAR:
            return STRENGTH_PER_UNIT * len(pl.slain)
        return self.cards[card][CARD_STRENGTH]

    def giant_ev(self, pl):
        """The next Giant's expected VP as this player sees it: the pool without the Giants
        it slew (§3.3: the others' Giants stay unseen)."""
        return (sum(self.p.giants_values) - sum(pl.slain)) / (N_GIANTS - len(pl.slain))

    def best_fury_rune(self, pl):
        """The Rune whose +1 Fury raises this player's Rune points most (ties: lowest)."""
        base, best, best_g = self.rune_points(pl), -1e300, 0
        for g in range(N_RUNES):
            f = list(self.fury)
            f[g] += 1
            v = self.rune_points(pl, f) - base
            if v > best:
                best, best_g = v, g
        return best_g

    def focus(self, pl):
        """§4.7 focus region: not yet held Rune's value, less half the Influence gap to the
        strongest rival, plus giant_weight where a Giant stands; random_legal: uniform."""
        if self.kind(pl) == PolicyKind.RANDOM_LEGAL:
            return self.rand(self.R)
        best, best_r = -1e300, 0
        for r in range(self.R):
            own = self.influence(pl, r)
            rival = max([self.influence(q, r) for q in self.players if q is not pl] + [0])
            v = 0.0
            if self.control[r] != pl.seat:
                v += self.p.scoring_island[self.rank_index(self.p.board_runes[r])]
            v -= 0.5 * max(0, rival - own)
            if self.has_giant[r]:
                v += self.par(pl, Param.GIANT_WEIGHT)
            if v > best:
                best, best_r = v, r
        return best_r

    def favor_value(self, pl, f):
        v = float(self.p.scoring_favor[self.rank_index(self.favor_rune[f])])
        if len(pl.favors) >= MAX_FAVOR_HELD:
            v -= min(self.p.scoring_favor[self.rank_index(self.favor_rune[h])] for h in pl.favors)
        return v

    def battle_value(self, pl, card, prize):
        c = self.cards[card]
        if pl.res[STEEL] < c[CARD_COST]:
            return 0.0                                       # §2.5: could not take part
        s = self.strength(pl, card)
        pw = min(1.0, s / (self.p.cards_strength_hi + 1))
        win = self.favor_value(pl, prize) + self.p.economy_favor_bag * self.par(
            pl, Param.RESOURCE_VALUE)
        lose = self.p.economy_boon * self.par(pl, Param.RESOURCE_VALUE)
        g = c[CARD_RUNE]
        if pl.allowed("deploy_valkyrie") and (
                (g == JOKER and pl.deployed() < N_VALKYRIES) or (g != JOKER and pl.valkyrie[g] < 0)):
            lose += self.par(pl, Param.VALKYRIE_VALUE)
        return pw * win + (1.0 - pw) * lose

    def slay_value(self, pl, card):
        c = self.cards[card]
        g = self.best_fury_rune(pl) if c[CARD_RUNE] == JOKER else c[CARD_RUNE]
        f = list(self.fury)
        f[g] += 1
        need = SLAY_SETTLERS_EINHERJAR if c[CARD_KIND] == CardKind.EINHERJAR else SLAY_SETTLERS
        return (self.giant_ev(pl) + self.rune_points(pl, f) - self.rune_points(pl)
                - self.par(pl, Param.SETTLER_VALUE) * need)

    def face_up_ok(self, pl, card):
        """§3.5 SEED: Einherjar need a Giant slain; Valkyrie cards 1 or 2 deployed (§6.3)."""
        c = self.cards[card]
        if c[CARD_KIND] == CardKind.EINHERJAR:
            return len(pl.slain) >= 1
        if c[CARD_KIND] == CardKind.VALKYRIE:
            if self.rules.valkyrie_card_condition == "one_or_two":
                return 1 <= pl.deployed() <= 2
            return pl.deployed() >= c[CARD_NEED]
        return True

    def active_runes(self, pl, card):
        """§2.2: the card's Rune plus the held Islands' (a Joker counts as the best Rune)."""
        held = [0] * N_RUNES
        for r in range(self.R):
            if self.control[r] == pl.seat:
                held[self.p.board_runes[r]] += 1
        g = self.cards[card][CARD_RUNE]
        return 1 + (max(held) if g == JOKER else held[g])

    def rune_ok(self, pl, card):
        return (self.face_up_ok(pl, card)
                and self.active_runes(pl, card) >= self.p.cards_rune_action_runes)

    def face_up_value(self, pl, card):
        """face_up_value x the allowed actions the card would take (restricted play)."""
        if not self.card_allowed(pl, card):
            return 0.0
        c = self.cards[card]
        n = (int(self.face_up_ok(pl, card) and pl.allowed(LEADER_EL[c[CARD_LEADER]]))
             + int(self.rune_ok(pl, card) and pl.allowed(RUNE_EL[c[CARD_RUNEACT]])))
        return self.par(pl, Param.FACE_UP_VALUE) * n

    def slay_regions(self, pl, card):
        """§3.3 SEED: a Giant, a Valkyrie (or a Valkyrie card) and 3 Settlers (2 with an
        Einherjar card); Valkyries never stand in for Settlers."""
        c = self.cards[card]
        need = SLAY_SETTLERS_EINHERJAR if c[CARD_KIND] == CardKind.EINHERJAR else SLAY_SETTLERS
        out = []
        for r in range(self.R):
            if not self.has_giant[r] or pl.settlers[r] < need:
                continue
            if c[CARD_KIND] == CardKind.VALKYRIE or r in pl.valkyrie:
                out.append(r)
        return out

    def options(self, pl):
        """The fixed option list (§4.7): per card in hand order, face up, start a battle for
        each available row end, join each open battle (starters clockwise from the player),
        slay per region."""
        opts = []
        ends = [(row, end) for row in range(2) for end in range(2) if self.rows[row]]
        for i, card in enumerate(pl.hand):
            opts.append((i, FACE_UP, 0))
            if not self.card_allowed(pl, card):
                continue                          # restricted play: face up, no actions
            if pl.seat not in self.battles and pl.allowed("start_battle"):
                for row, end in ends:
                    opts.append((i, START, 2 * row + end))
            for s in self.clockwise(pl.seat)[1:]:
                if s not in self.battles or not pl.allowed("join_battle"):
                    continue
                b = self.battles[s]
                if s != pl.seat and all(e[0] != pl.seat for e in b["entries"]):
                    opts.append((i, JOIN, s))
            if self.kind(pl) != PolicyKind.NO_GIANTS and pl.allowed("slay_giant"):
                for r in self.slay_regions(pl, card):
                    opts.append((i, SLAY, r))
        return opts

    def prize_of(self, code):
        row = self.rows[code // 2]
        return row[0] if code % 2 == 0 else row[-1]

    def option_value(self, pl, opt):
        i, use, x = opt
        card = pl.hand[i]
        if use == FACE_UP:
            return self.face_up_value(pl, card)
        if use == START:
            return self.battle_value(pl, card, self.prize_of(x))
        if use == JOIN:
            return self.battle_value(pl, card, self.battles[x]["prize"])
        return self.slay_value(pl, card)

    def choose(self, pl):
        opts = self.options(pl)
        kind = self.kind(pl)
        if kind == PolicyKind.RANDOM_LEGAL:
            return opts[self.rand(len(opts))]
        if kind == PolicyKind.GIANT_HUNTER:
            for o in opts:
                if o[1] == SLAY:
                    return o
        best, best_o = -1e300, opts[0]
        for o in opts:
            v = self.option_value(pl, o)
            if v > best:
                best, best_o = v, o
        return best_o

    # ---------------------------------------------------------------- draft (§2.1, §4.7)
    def hand_size(self):
        """§4.3: cards per hand this Era (Era 1: 4, PUBLIC)."""
        return self.p.economy_draft_size[self.era]

    def pick(self, pl, pack):
        """§4.7 the draft pick (an index of pack): random_legal uniform, else the strongest
        card (Valkyrie and Einherjar cards + special_bonus), first on ties; a forbidden card
        kind (restricted play) only when the pack holds nothing else."""
        ok = [j for j, c in enumerate(pack) if self.card_allowed(pl, c)] or list(
            range(len(pack)))
        if self.kind(pl) == PolicyKind.RANDOM_LEGAL:
            return ok[self.rand(len(ok))]
        vals = [self.strength(pl, pack[j]) + self.par(pl, Param.SPECIAL_BONUS) * (
            self.cards[pack[j]][CARD_KIND] != CardKind.BASE) for j in ok]
        return ok[vals.index(max(vals))]

    def draft(self):
        """§2.1, §4.7: dealt and picked seat by seat from the first player, clockwise."""
        k = self.hand_size()
        packs = [None] * self.n
        for s in self.clockwise(self.first):
            packs[s] = [self.draw() for _ in range(k)]
        for _ in range(k):
            for s in self.clockwise(self.first):
                pl = self.players[s]
                pack = packs[pl.seat]
                j = self.pick(pl, pack)
                kind = self.cards[pack[j]][CARD_KIND]
                if kind != CardKind.BASE and pl.count:
                    pl.drafted[kind - 1] += 1
                pl.hand.append(pack.pop(j))
            packs = [packs[(s - 1) % self.n] for s in range(self.n)]   # pass to the left

    # ---------------------------------------------------------------- actions (§4.7)
    def leader(self, pl, card, f):
        act = self.cards[card][CARD_LEADER]
        if not pl.allowed(LEADER_EL[act]):
            return                                # restricted play: optional (PUBLIC)
        pl.take(LEADER_EL[act], self.era)
        if act == Leader.SAIL:
            self.sail(pl, f)
        elif act == Leader.HARVEST:
            self.harvest(pl)
        elif act == Leader.EXPLORE:
            self.explore(pl, f)
        else:
            self.build(pl, f)

    def sail(self, pl, f):
        """§2.3, §3.2: a Boat to the first dock serving f (from the mat, else the lowest
        moored one), then up to Sail Settlers at 1 Food each into f (a border dock could serve
        either region; the target is f)."""
        dock = next(d for d in range(self.D) if f in self.docks[d])
        if sum(pl.boats) < self.p.start_boats:
            pl.boats[dock] += 1
        else:
            src = next(d for d in range(self.D) if pl.boats[d] > 0)
            pl.boats[src] -= 1
            pl.boats[dock] += 1
        k = min(self.p.economy_sail, pl.res[FOOD], pl.on_mat_settlers(self))
        pl.res[FOOD] -= k
        pl.settlers[f] += k
        self.say(f"    sails to dock {dock}, deploys {k} Settlers in region {f}")
        if k > 0 and self.rules.attack_after_deploy:
            self.attack_in(pl, f)          # §2.3 PUBLIC: Attack Settlers after adding Settlers

    def harvest(self, pl):
        """§2.3, §3.6: Harvest of the scarcest kind, plus each deployed Valkyrie's bonus."""
        kind = pl.res.index(min(pl.res))
        self.gain(pl, kind, self.p.economy_harvest)
        for g in range(N_VALKYRIES):
            if pl.valkyrie[g] >= 0:
                self.gain(pl, self.p.economy_rune_resource[g],
                          self.p.economy_valkyrie_harvest_bonus)
        self.say(f"    harvests -> {pl.res}")

    def explore(self, pl, f):
        """§2.3, §3.2, §3.4, §3.6 into f, the first that applies: a neighbouring Valkyrie
        carrying a Settler (1 Food) or else a Temple (3 Steel, not into a Giant's region)
        from its region; a Settler from a neighbour; a neighbouring Valkyrie alone; a Temple
        from a neighbour unless a Giant is in f."""
        for g in range(N_VALKYRIES):
            a = pl.valkyrie[g]
            if a < 0 or a not in self.adj[f]:
                continue
            if pl.settlers[a] > 0 and pl.res[FOOD] >= CARRY_SETTLER_FOOD:
                pl.res[FOOD] -= CARRY_SETTLER_FOOD
                pl.settlers[a] -= 1
                pl.settlers[f] += 1
            elif (pl.temples[a] > 0 and pl.res[STEEL] >= CARRY_TEMPLE_STEEL
                  and not self.has_giant[f]):
                pl.res[STEEL] -= CARRY_TEMPLE_STEEL
                pl.temples[a] -= 1
                pl.temples[f] += 1
            else:
                continue
            pl.valkyrie[g] = f
            self.say(f"    Valkyrie {RUNE_NAMES[g]} flies {a} -> {f}, carrying")
            return
        for a in self.adj[f]:
            if pl.settlers[a] > 0:
                pl.settlers[a] -= 1
                pl.settlers[f] += 1
                self.say(f"    explores a Settler {a} -> {f}")
                return
        for g in range(N_VALKYRIES):
            a = pl.valkyrie[g]
            if a >= 0 and a in self.adj[f]:
                pl.valkyrie[g] = f
                self.say(f"    Valkyrie {RUNE_NAMES[g]} flies {a} -> {f}")
                return
        if not self.has_giant[f]:
            for a in self.adj[f]:
                if pl.temples[a] > 0:
                    pl.temples[a] -= 1
                    pl.temples[f] += 1
                    self.say(f"    explores a Temple {a} -> {f}")
                    return

    def build(self, pl, f):
        """§2.3, §3.4: a Temple where the player has a Settler and no Giant stands (f first,
        else the lowest such region), for temple_wood Wood."""
        if sum(pl.temples) >= self.p.start_temples or pl.res[WOOD] < self.p.economy_temple_wood:
            return
        cands = [f] + list(range(self.R))
        for r in cands:
            if pl.settlers[r] > 0 and not self.has_giant[r]:
                pl.res[WOOD] -= self.p.economy_temple_wood
                pl.temples[r] += 1
                self.say(f"    builds a Temple in region {r}")
                return

    def rune_action(self, pl, card, f):
        act = self.cards[card][CARD_RUNEACT]
        if not pl.allowed(RUNE_EL[act]):
            return                                # restricted play: optional (PUBLIC)
        pl.take(RUNE_EL[act], self.era)
        if act == RuneAct.SMITE:
            self.smite(pl, f)
        elif act == RuneAct.ATTACK:
            self.attack(pl, f)
        elif act == RuneAct.RAID:
            self.raid(pl, f, free=False)
        elif act == RuneAct.EXCHANGE:
            self.exchange(pl)
        elif act == RuneAct.MOVE_GIANT:
            self.move_giant(pl, f)
        else:
            self.raid(pl, f, free=True)

    def smite(self, pl, f):
        """§2.3, §3.6: remove one rival Settler (never a Valkyrie): in f, else the lowest
        region with one; the rival with most Settlers there (ties: the first clockwise from
        the player, §4.7)."""
        for r in [f] + list(range(self.R)):
            rivals = [q for q in self.players if q is not pl and q.settlers[r] > 0]
            if rivals:
                q = max(rivals, key=lambda q: (q.settlers[r], -self.n_after(pl, q)))
                q.settlers[r] -= 1
                self.say(f"    smites a Settler of seat {q.seat} in region {r}")
                return

    def n_after(self, pl, q):
        """How many places clockwise q sits after pl (1 = the next player)."""
        return (q.seat - pl.seat) % self.n

    def attack_in(self, pl, r):
        """§2.3, §3.6 Attack Settlers in r: when the player's Settlers (Valkyries not counted)
        outnumber every rival's and a rival has one, each rival there loses a Settler."""
        rivals = [q for q in self.players if q is not pl and q.settlers[r] > 0]
        if rivals and all(pl.settlers[r] > q.settlers[r] for q in self.players if q is not pl):
            for q in rivals:
                q.settlers[r] -= 1
            self.say(f"    attacks Settlers in region {r}")
            return True
        return False

    def attack(self, pl, f):
        """The Attack Settlers Rune action (§4.7): the first region where it applies, f first."""
        for r in [f] + list(range(self.R)):
            if self.attack_in(pl, r):
                return

    def raid(self, pl, f, free):
        """§2.3 Raid a Village next to a moored Boat for the Era's Steel; §3.5 SEED the new
        Rune action: in a region with one of the player's units, no Steel (f first)."""
        cost = 0 if free else self.p.economy_raid_cost[self.era]
        if pl.res[STEEL] < cost:
            return
        for r in [f] + list(range(self.R)):
            if self.villages[r] == 0:
                continue
            if free:
                ok = self.ground(pl, r)
            else:
                ok = any(pl.boats[d] > 0 and r in self.docks[d] for d in range(self.D))
            if ok:
                pl.res[STEEL] -= cost
                self.villages[r] -= 1
                pl.villages += 1
                self.say(f"    raids a Village in region {r}{' (free)' if free else ''}")
                return

    def exchange(self, pl):
        """§2.3: exchange of the most-held kind into the scarcest (assumption)."""
        hi, lo = pl.res.index(max(pl.res)), pl.res.index(min(pl.res))
        if hi == lo:
            return
        k = min(self.p.economy_exchange, pl.res[hi])
        pl.res[hi] -= k
        self.gain(pl, lo, k)

    def move_giant(self, pl, f):
        """§3.5 SEED Move a Giant to a neighbouring region without one (Temples stay): a Giant
        hunter (giant_weight > 0) pulls a neighbour's Giant into f, others push f's out."""
        if self.par(pl, Param.GIANT_WEIGHT) > 0:
            if self.has_giant[f]:
                return
            for a in self.adj[f]:
                if self.has_giant[a]:
                    self._move(a, f)
                    return
        elif self.has_giant[f]:
            for a in self.adj[f]:
                if not self.has_giant[a]:
                    self._move(f, a)
                    return

    def _move(self, a, b):
        self.giant[b], self.has_giant[b] = self.giant[a], True
        self.giant[a], self.has_giant[a] = 0, False
        self.say(f"    moves a Giant {a} -> {b}")

    def face_up(self, pl, card):
        f = self.focus(pl)
        self.say(f"  seat {pl.seat} plays card {card} face up (focus region {f})")
        if self.face_up_ok(pl, card) and self.card_allowed(pl, card):
            self.take_card(pl, card)
            ok_rune = self.rune_ok(pl, card)           # §2.3: Runes counted before the actions
            self.leader(pl, card, f)
            self.update_control()
            if ok_rune:
                self.rune_action(pl, card, f)
                self.update_control()
        self.discard.append(card)

    def slay(self, pl, card, r):
        """§3.3 SEED: sacrifice the Settlers, take the Giant (value seen by this player only),
        +1 Fury to the god of the card's Rune (a Joker: the player's choice), no Boon."""
        c = self.cards[card]
        need = SLAY_SETTLERS_EINHERJAR if c[CARD_KIND] == CardKind.EINHERJAR else SLAY_SETTLERS
        pl.settlers[r] -= need
        pl.slain.append(self.giant[r])
        self.has_giant[r], self.giant[r] = False, 0
        g = c[CARD_RUNE]
        if g == JOKER:
            g = (self.rand(N_RUNES) if self.kind(pl) == PolicyKind.RANDOM_LEGAL
                 else self.best_fury_rune(pl))
        self.add_fury(g, 1)
        pl.slays_by_era[self.era] += 1
        pl.take("slay_giant", self.era)
        self.take_card(pl, card)
        if self.first_slayer < 0:
            self.first_slayer = pl.seat
        self.say(f"  seat {pl.seat} slays the Giant in region {r} with card {card} "
                 f"(+1 Fury {RUNE_NAMES[g]})")
        self.discard.append(card)
        self.update_control()

    def start_battle(self, pl, card, code):
        row, end = divmod(code, 2)
        prize = self.rows[row].pop(0 if end == 0 else -1)
        self.battles[pl.seat] = {"prize": prize, "row": row, "end": end,
                                 "entries": [(pl.seat, card, self.strength(pl, card))]}
        pl.take("start_battle", self.era)
        self.take_card(pl, card)
        self.say(f"  seat {pl.seat} starts a battle for Favor card {prize} (row {row})")

    def join(self, pl, card, starter):
        self.battles[starter]["entries"].append((pl.seat, card, self.strength(pl, card)))
        pl.take("join_battle", self.era)
        self.take_card(pl, card)
        self.say(f"  seat {pl.seat} joins the battle of seat {starter}")

    def turn(self, pl):
        self.own_battle(pl.seat, True)
        self.carry_out(pl, self.choose(pl))

    def own_battle(self, seat, in_turns):
        """§2.5: the seat's own open battle resolves at the start of its turn; one still open
        at the Era's end (``in_turns`` false) resolves or returns its prize (§4.7)."""
        if seat not in self.battles:
            return
        if in_turns or self.rules.last_battles == "resolve":
            self.resolve(seat)
        else:
            b = self.battles.pop(seat)
            self.return_prize(b)
            self.discard.extend(card for _, card, _ in b["entries"])

    def carry_out(self, pl, option):
        """``pl`` plays the option (hand position, use, x) of ``options``."""
        i, use, x = option
        card = pl.hand.pop(i)
        if use == FACE_UP:
            self.face_up(pl, card)
        elif use == START:
            self.start_battle(pl, card, x)
        elif use == JOIN:
            self.join(pl, card, x)
        else:
            self.slay(pl, card, x)

    # ---------------------------------------------------------------- battles (§2.5, §3.5)
    def return_prize(self, b):
        row = self.rows[b["row"]]
        if b["end"] == 0:
            row.insert(0, b["prize"])
        else:
            row.append(b["prize"])

    def resolve(self, starter):
        b = self.battles.pop(starter)
        fighters = []
        for seat, card, s_play in b["entries"]:
            pl = self.players[seat]
            cost = self.cards[card][CARD_COST]
            if pl.res[STEEL] >= cost:                   # §2.5: pay the Steel or take no part
                pl.res[STEEL] -= cost
                s = self.strength(pl, card)             # §6.2 DEFAULT: at resolution
                fighters.append((pl, card, s))
                kind = self.cards[card][CARD_KIND]
                if kind != CardKind.BASE:
                    self.special[self.era][kind - 1][0] += 1
                    self.special[self.era][kind - 1][1] += s
        losers = []
        if len(fighters) == 1:
            pl, card, s = fighters[0]
            inv = self.draw()                          # §2.5 the Invaders' card
            ic = self.cards[inv]
            si = (ic[CARD_STRENGTH] if ic[CARD_KIND] == CardKind.BASE
                  else self.p.cards_invader_special_strength)
            si += self.p.cards_invader_growth * self.invaders
            self.invaders += 1
            self.discard.append(inv)
            self.say(f"  battle of seat {starter}: {s} against the Invaders' {si}")
            if s > si:
                self.win(pl, b)
                if ic[CARD_RUNE] != JOKER:
                    self.add_fury(ic[CARD_RUNE], 1)
            else:
                self.return_prize(b)
                losers = fighters
        elif len(fighters) >= 2:
            top = max(s for _, _, s in fighters)
            at_top = [x for x in fighters if x[2] == top]
            self.say(f"  battle of seat {starter}: strengths "
                     f"{[(x[0].seat, x[2]) for x in fighters]}")
            if len(at_top) == 1:                       # §2.5: ties lose
                self.win(at_top[0][0], b)
                losers = [x for x in fighters if x is not at_top[0]]
            else:
                self.return_prize(b)
                losers = fighters
        else:
            self.return_prize(b)
        for pl, card, _ in losers:
            self.lose(pl, card)
        for _, card, _ in b["entries"]:
            self.discard.append(card)
        self.update_control()

    def win(self, pl, b):
        """§2.5: keep the Favor card (a 4th sends the least valuable back to the prize's row
        end) and collect its bag."""
        pl.won += 1
        pl.favors.append(b["prize"])
        if len(pl.favors) > MAX_FAVOR_HELD:
            vals = [self.p.scoring_favor[self.rank_index(self.favor_rune[f])] for f in pl.favors]
            back = pl.favors.pop(vals.index(min(vals)))
            self.return_prize({"prize": back, "row": b["row"], "end": b["end"]})
        self.favor_max = max(self.favor_max, len(pl.favors))
        self.gain(pl, self.p.economy_rune_resource[self.favor_rune[b["prize"]]],
                  self.p.economy_favor_bag)
        self.say(f"    seat {pl.seat} wins Favor card {b['prize']}")

    def lose(self, pl, card):
        """§2.5 Valhalla Boon and +1 Fury of the card's god (a Joker: one chosen Rune for
        both, §3.5); §3.6 then the Valkyrie of that Rune, if still on the mat, is deployed."""
        pl.lost += 1
        if self.first_loser < 0:
            self.first_loser = pl.seat
        g = self.cards[card][CARD_RUNE]
        if g == JOKER:
            if self.kind(pl) == PolicyKind.RANDOM_LEGAL:
                g = self.rand(N_RUNES)
            else:
                mat = [h for h in range(N_RUNES) if pl.valkyrie[h] < 0]
                g = mat[0] if mat else self.best_fury_rune(pl)
        self.gain(pl, self.p.economy_rune_resource[g], self.p.economy_boon)
        self.add_fury(g, 1)
        if pl.valkyrie[g] < 0 and pl.allowed("deploy_valkyrie"):    # SEED: "you may"
            r = self.focus(pl) if self.kind(pl) != PolicyKind.RANDOM_LEGAL else self.rand(self.R)
            pl.valkyrie[g] = r
            pl.take("deploy_valkyrie", self.era)
            self.say(f"    seat {pl.seat} loses: Boon and Fury {RUNE_NAMES[g]}, deploys its "
                     f"Valkyrie in region {r}")
            self.update_control()
        else:
            self.say(f"    seat {pl.seat} loses: Boon and Fury {RUNE_NAMES[g]}")

    # ---------------------------------------------------------------- the game
    def cleanup(self):
        """§3.4 SEED: each Giant on the board drains 1 Fury of its region's god (not below
        0); §2.1 the Era's cards are gone (all were played). After Era 3 only with
        last_era_drain (PUBLIC: "If it is the end of Era 3, the game is over")."""
        last = self.era == N_ERAS - 1
        if self.rules.giant_drain and (self.rules.last_era_drain or not last):
            for r in range(self.R):
                if self.has_giant[r]:
                    g = self.p.board_runes[r]
                    self.fury[g] = max(0, self.fury[g] - 1)
                    self.fury_min = min(self.fury_min, self.fury[g])

    def play_era(self):
        self.invaders = 0
        self.draft()
        first = self.chieftain
        self.openers.append(first)
        order = self.clockwise(first)
        for _ in range(self.hand_size()):
            for s in order:
                self.say(f"-- era {self.era + 1}, seat {s}: res {self.players[s].res}")
                self.turn(self.players[s])
        for s in order:
            self.own_battle(s, False)
        self.cleanup()
        self.chieftain = self.next_chieftain(order)

    def next_chieftain(self, order):
        """§4.7: most_runes (PUBLIC [DIZED] Phase 3: Cleanup): the most Island Runes, a tie
        to the tied player latest in this Era's turn order; rotate: the next seat."""
        if self.rules.era_opener == "rotate":
            return order[1 % self.n]
        most = max(self.islands(self.players[s]) for s in order)
        return [s for s in order if self.islands(self.players[s]) == most][-1]

    def score(self, pl):
        """§2.6 Rune points, §3.7 SEED Giant points, Villages (§4.3)."""
        return self.rune_points(pl) + sum(pl.slain) + self.p.scoring_village * pl.villages

    def tiebreak(self, pl):
        """§2.6: most Island Runes, Favor cards, Temples, Boats, resources (then the earlier
        in turn order from the first player, assumption)."""
        return (self.score(pl), self.islands(pl), len(pl.favors), sum(pl.temples),
                sum(pl.boats), sum(pl.res), -self.position(pl.seat))

    def winner(self):
        """§2.6: the best score, then the tie-breakers (``tiebreak``)."""
        return max(self.players, key=self.tiebreak).seat

    def islands(self, pl):
        return sum(1 for r in range(self.R) if self.control[r] == pl.seat)

    def play(self):
        self.setup()
        for self.era in range(N_ERAS):
            self.play_era()
        self.era = N_ERAS - 1
        winner = self.winner()
        self.say(f"final scores {[self.score(pl) for pl in self.players]}; winner seat {winner}")
        return winner


def record(game, g, out, winner):
    """Write game ``game``'s results into row g of the per-game arrays (``allocate``)."""
    out["winner"][g] = winner
    for s, pl in enumerate(game.players):
        out["score"][g, s] = game.score(pl)
        out["giant_points"][g, s] = sum(pl.slain)
        out["slays"][g, s] = len(pl.slain)
        for e in range(N_ERAS):
            out["slays_era"][g, s, e] = pl.slays_by_era[e]
        out["lost_battles"][g, s] = pl.lost
        out["won_battles"][g, s] = pl.won
        out["valkyries"][g, s] = pl.deployed()
        out["islands"][g, s] = game.islands(pl)
        out["favors"][g, s] = len(pl.favors)
        out["villages"][g, s] = pl.villages
        out["temples"][g, s] = sum(pl.temples)
        out["boats"][g, s] = sum(pl.boats)
        out["resources"][g, s] = sum(pl.res)
        out["settlers"][g, s] = sum(pl.settlers)
        out["settlers_mat"][g, s] = pl.on_mat_settlers(game)
        out["valkyries_mat"][g, s] = N_VALKYRIES - pl.deployed()
        out["el_taken"][g, s, :] = pl.taken
        out["el_first"][g, s, :] = pl.first
        out["el_drafted"][g, s, :] = pl.drafted
    for h in range(N_RUNES):
        out["fury"][g, h] = game.fury[h]
        out["fury_nodrain"][g, h] = game.fury_nodrain[h]
    out["giants_left"][g] = sum(game.has_giant)
    out["res_max"][g] = game.res_max
    out["fury_min"][g] = game.fury_min
    out["favor_max"][g] = game.favor_max
    out["first_slayer"][g] = game.first_slayer
    out["first_loser"][g] = game.first_loser
    for e in range(N_ERAS):
        out["openers"][g, e] = game.openers[e]
        for k in range(2):
            out["special_n"][g, e, k] = game.special[e][k][0]
            out["special_sum"][g, e, k] = game.special[e][k][1]


def play_block(setup, g0, g1, dice_rng, pol_rng, out):
    """Reference twin of the kernel's block: same rows, same draws."""
    kinds = [int(k) for k in setup.kinds]
    params = setup.params.tolist()
    if max(kinds) >= PolicyKind.FLATMC:          # a search seat (reference_search.py)
        from vikingsim.games.tevragnarok import reference_search
        return reference_search.play_block(setup, g0, g1, dice_rng, pol_rng, out)
    for g in range(g0, g1):
        game = Game(setup.rules, kinds, params, dice_rng, pol_rng)
        record(game, g, out, game.play())
