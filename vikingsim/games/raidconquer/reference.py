"""Plain-Python reference engine of Raid & Conquer: the test oracle and the bench baseline.

Written from the rules notes (``docs/rules/raidconquer.md``) as readable objects, and drawing
random numbers exactly as the notes' Simulation protocol (§14) says, so it replays the kernel
bit for bit. It narrates a game for ``vikingsim trace raidconquer`` (``events``).

Hidden information (§2.2, §14.4): the policy methods (``plan``, ``choose_alt``, ``buy``, ...)
read only the acting player's own cards and public state (rows, piles, Raid piles, discard
piles, counts); nothing reads another hand or any deck order.
"""
from __future__ import annotations

from vikingsim.core import cards as piles
from vikingsim.games.raidconquer.catalog import Ability, Persist, Pile
from vikingsim.games.raidconquer.policies import Param, Plan, PolicyKind
from vikingsim.games.raidconquer.rules import (
    CHARACTERS, N_CHARACTERS, ROW_SIZE, ROW_START, TOP_LEVEL, Col, RuleSlot)

# §14.1 actions chosen in the Secret Plan
DEFEND, ATTACK, PARTY, LONE = 0, 1, 2, 3
ACTION_NAMES = ("Defend", "Attack", "Raid Party", "Lone Raid")
# flags of a card in play (§7.5, §7.6)
NORMAL, USED, SACRIFICED, BURIED, TAKEN = 0, 1, 2, 3, 4
EMPTY = -1
RANDOM_MAX_BUYS = 5                 # §14.3: the random policy buys at most 5 cards a turn
SUPPLY_PILES = (Pile.COIN, Pile.WARRIORS, Pile.HACKSILVER, Pile.LONGBOAT)


class Card:
    """Catalog lookups by card id (from the compiled rules)."""

    def __init__(self, compiled):
        c = compiled.card
        self.n = c.shape[1]
        self.pile = [int(x) for x in c[Col.PILE]]
        self.copies = [int(x) for x in c[Col.COPIES]]
        self.cost = [int(x) for x in c[Col.COST]]
        self.power = [int(x) for x in c[Col.POWER]]
        self.infl = [int(x) for x in c[Col.INFLUENCE]]
        self.defense = [int(x) for x in c[Col.DEFENSE]]
        self.silver = [int(x) for x in c[Col.SILVER]]
        self.legend = [int(x) for x in c[Col.LEGEND]]
        self.level = [int(x) for x in c[Col.LEVEL]]
        self.attack_char = [int(x) for x in c[Col.ATTACK_CHAR]]
        self.persist = [int(x) for x in c[Col.PERSIST]]
        self.betray = [bool(x) for x in c[Col.BETRAY]]
        self.alts = [[(int(a), int(n)) for a, n in zip(compiled.alt[k], compiled.alt_n[k])
                      if a != Ability.NONE] for k in range(self.n)]

    def is_viking(self, k):                  # §11.1: Warriors are Vikings
        return self.pile[k] in (Pile.VIKING, Pile.WARRIORS)

    def draw_amount(self, k):
        return max([n for a, n in self.alts[k] if a in (Ability.DRAW, Ability.SACRIFICE_DRAW)],
                   default=0)


class Player:
    def __init__(self, seat, char, kind, params, forbid, n_cards):
        self.seat, self.char, self.kind, self.p = seat, char, kind, params
        self.forbid = forbid                  # card ids the policy never chooses (§12.4)
        self.bought = [0] * n_cards           # §14.6: copies bought this game
        self.first_buy = [0] * n_cards        # round of the first buy (0 = never)
        self.played = [0] * n_cards           # copies put into play
        self.plans = [0] * n_cards            # Secret Plans taken by action (slots 0-3)
        self.deck, self.discard, self.hand = [], [], []
        self.play = []                        # [card, flag] in the order put into play
        self.raid, self.bury = [], []
        self.action, self.target = DEFEND, -1
        self.bonus_power = self.bonus_silver = 0
        self.last_earl = -1
        self.earls = self.won = self.acquired = self.pillaged = self.lost = 0
        self.silver_avail = self.silver_spent = 0


class Game:
    """One game. ``setup`` is the game's Setup; ``g`` the game's index in the run."""

    def __init__(self, setup, g, dice, pol, events=None):
        self.c, self.ri = Card(setup.compiled), [int(x) for x in setup.compiled.ri]
        self._names = setup.catalog.names if events is not None else None
        self.base_attack = [int(x) for x in setup.compiled.base_attack]
        self.base_defense = [int(x) for x in setup.compiled.base_defense]
        self.dice, self.pol, self.events = dice, pol, events
        self.search = setup.search                 # search players' budgets (§15), or None
        self.roll = setup.roll                     # their rollout seats (§15.8), or None
        self.searcher = None                       # a search tree's hook (reference_search)
        n = len(setup.kinds)
        R = RuleSlot
        shift = self.ri[R.CHARACTER_OFFSET] + (g if self.ri[R.ROTATE_CHARACTERS] else 0)
        self.players = [Player(s, (s + shift) % N_CHARACTERS, int(setup.kinds[s]),
                               [float(x) for x in setup.params[s]],
                               {k for k in range(self.c.n) if setup.forbid[s, k]}, self.c.n)
                        for s in range(n)]
        self.first, self.earl_side = self.ri[R.FIRST_SEAT], False
        self.round = 0
        self.failed_raids = 0
        self._setup()

    # ------------------------------------------------------------------ helpers
    def say(self, text):
        if self.events is not None:
            self.events.append(text)

    def name(self, k):
        return self._names[k] if self._names else str(k)

    def order(self):
        """Seats in turn order, clockwise from the First Player marker (§7.1, §8)."""
        n = len(self.players)
        return [self.players[(self.first + i) % n] for i in range(n)]

    def draw_into_hand(self, pl, count):
        for _ in range(count):                 # §3.3: reshuffle the discard when empty
            k = piles.draw(pl.deck, pl.discard, self.dice)
            if k == piles.NO_CARD:
                return
            pl.hand.append(k)

    def draw_phase(self, rnd):
        """§6.1, §7.2: each player in turn order draws up to ``hand_size`` cards, the cards kept
        back in hand (``play_all_cards`` = false) counting towards it, never a negative draw;
        with every card played that is ``hand_size``. In round 1 (a Draw only when
        ``setup_hand_is_round1_hand`` is false, §13.11) no card has been kept back yet: the
        setup hand does not count, ``hand_size`` more are drawn."""
        for pl in self.order():
            kept = len(pl.hand) if rnd > 1 else 0
            self.draw_into_hand(pl, max(0, self.ri[RuleSlot.HAND_SIZE] - kept))

    def draw_into_play(self, pl, count):       # "+N cards": drawn and played (§7.2)
        for _ in range(count):
            k = piles.draw(pl.deck, pl.discard, self.dice)
            if k == piles.NO_CARD:
                return
            pl.play.append([k, NORMAL])

    def gain_treasure(self, pl):
        """§8: the top Treasure (§2.1: an empty pile gives nothing), passing over the copies
        the seat forbids (§12.4: the topmost it does not forbid; the others keep their order)."""
        j = next((j for j in reversed(range(len(self.treasure)))
                  if self.treasure[j] not in pl.forbid), -1)
        if j >= 0:
            k = self.treasure.pop(j)
            pl.discard.append(k)
            self.took(pl, k)
            self.say(f"    seat {pl.seat} gains Treasure {self.name(k)}")

    def raid_count(self, pl):                  # §9.1: Treasures in a Raid pile do not count
        return sum(1 for k in pl.raid if self.c.pile[k] == Pile.RAID)

    def refill_raid_slot(self, j):
        self.raid_row[j] = self.raid_deck.pop() if self.raid_deck else EMPTY

    # ------------------------------------------------------------------ setup (§4)
    def _setup(self):
        c, R, n = self.c, RuleSlot, len(self.players)
        # §12.3 variant: the start_card character's extra card leaves its pile first
        holder = next((pl for pl in self.players if pl.char == self.ri[R.START_CARD_CHAR]), None)
        extra = self.ri[R.START_CARD] if holder is not None else -1
        self.supply = [0] * c.n
        for k in range(c.n):
            if c.pile[k] in SUPPLY_PILES:
                self.supply[k] = c.copies[k] - (k == extra)
        self.vdeck = [k for k in range(c.n) if c.pile[k] in (Pile.VIKING, Pile.EVENT)
                      for _ in range(c.copies[k] - (k == extra))]
        piles.shuffle(self.vdeck, self.dice)                       # §14.1 step 1
        self.vrow = [self.vdeck.pop() if self.vdeck else EMPTY for _ in range(ROW_SIZE)]
        self.treasure = [k for k in range(c.n) if c.pile[k] == Pile.TREASURE
                         for _ in range(c.copies[k] - (k == extra))]
        piles.shuffle(self.treasure, self.dice)                    # step 2
        self.raid_row, self.raid_deck, self.box = [], [], [0] * c.n
        for lv in range(1, 6):                                     # step 3, §4.3
            cards = [k for k in range(c.n) if c.pile[k] == Pile.RAID and c.level[k] == lv
                     for _ in range(c.copies[k])]
            if lv > TOP_LEVEL[n]:
                for k in cards:
                    self.box[k] += 1
                continue
            piles.shuffle(cards, self.dice)
            for _ in range(ROW_START[n][lv - 1]):
                self.raid_row.append(cards.pop())
            self.raid_deck.extend(cards)
        piles.shuffle(self.raid_deck, self.dice)                   # step 4
        coin, boat = self.ri[R.COIN], self.ri[R.LONGBOAT]
        for pl in self.players:                                    # step 5, §4.6
            pl.deck = [coin] * self.ri[R.START_COINS] + [boat] * self.ri[R.START_LONGBOATS]
            if pl is holder:
                pl.deck.append(extra)
            self.supply[coin] -= self.ri[R.START_COINS]
            self.supply[boat] -= self.ri[R.START_LONGBOATS]
            piles.shuffle(pl.deck, self.dice)
            self.draw_into_hand(pl, self.ri[R.HAND_SIZE])

    # ------------------------------------------------------------------ statistics (§3.1, §11.1)
    def stats(self, cards, pl, attacking=False):
        """(Power, Influence, card Defense, Longboats) of ``cards`` = [(card, flag), ...]
        (sacrificed cards excluded), plus the player's Thor's-Might-style bonus Power."""
        c = self.c
        live = [(k, f) for k, f in cards if f != SACRIFICED]
        vikings = sum(1 for k, _ in live if c.is_viking(k))
        boats = sum(1 for k, _ in live if c.pile[k] == Pile.LONGBOAT)
        power = infl = dfn = 0
        for k, _ in live:
            p = c.power[k]
            if attacking and c.attack_char[k] >= 0:                # §11.3 Attack Character
                p = c.attack_char[k] if self.ri[RuleSlot.ATTACK_CHAR_REPLACES] \
                    else p + c.attack_char[k]
            power += p
            infl += c.infl[k]
            dfn += c.defense[k]
            own_v, own_b = int(c.is_viking(k)), int(c.pile[k] == Pile.LONGBOAT)
            if c.persist[k] & Persist.BATTLE_FRENZY:
                power += vikings - own_v
            if c.persist[k] & Persist.LEADERSHIP:
                infl += vikings - own_v
            if c.persist[k] & Persist.BATTLE_SHIP:
                power += boats - own_b
            if c.persist[k] & Persist.COMMAND_SHIP:
                infl += boats - own_b
        counted = sum(1 for k, f in live if c.pile[k] == Pile.LONGBOAT
                      and (f != TAKEN or self.ri[RuleSlot.SHIPBUILD_COUNTS]))
        return power + pl.bonus_power, infl, dfn, counted

    def total_power(self, pl, attacking=False):               # §3.5: + Base Attack
        return self.stats(pl.play, pl, attacking)[0] + self.base_attack[pl.char]

    def row_defenses(self):
        return [self.c.defense[k] for k in self.raid_row if k != EMPTY]

    # ------------------------------------------------------------------ policy: Secret Plan
    def plan(self, pl):
        """§6.2, §12.4: (action, target) from the own hand and public state only."""
        n = len(self.players)
        opponents = [s for s in range(n) if s != pl.seat]
        if pl.kind == PolicyKind.RANDOM:                           # §14.3: one draw
            j = int(self.pol.random() * (3 + len(opponents)))
            if j < 3:
                return (DEFEND, LONE, PARTY)[j], -1
            return ATTACK, opponents[j - 3]
        c, p = self.c, pl.p
        power, infl, _, _ = self.stats([(k, NORMAL) for k in pl.hand], pl)
        power += self.base_attack[pl.char]
        boat = any(c.pile[k] == Pile.LONGBOAT for k in pl.hand) or (
            self.supply[self.ri[RuleSlot.LONGBOAT]] > 0
            and any(a == Ability.SHIPBUILD for k in pl.hand for a, _ in c.alts[k]))
        rows = self.row_defenses()
        low = min(rows) if rows else None
        raids = [self.raid_count(self.players[s]) for s in range(n)]
        clockwise = [(pl.seat + i) % n for i in range(1, n)]       # ties: the next seat first
        most = max(clockwise, key=lambda s: raids[s])
        for i in range(6):
            code = int(p[Param.PLAN0 + i])
            if code < 0:
                break
            if code == Plan.BLOCK:
                if raids[most] >= p[Param.BLOCK_RAIDS] and power >= p[Param.ATTACK_MIN]:
                    return ATTACK, most
            elif code == Plan.LONE:
                if boat and low is not None and power >= low + p[Param.LONE_MARGIN]:
                    return LONE, -1
            elif code == Plan.PARTY:
                if boat and infl >= p[Param.PARTY_INFLUENCE_MIN]:
                    return PARTY, -1
            elif code == Plan.ATTACK:
                if power >= p[Param.ATTACK_MIN]:
                    return ATTACK, most
            elif code == Plan.ACQUIRE:
                buried = sum(c.silver[k] for k in pl.bury)
                best = max([c.silver[k] for k in pl.hand if c.pile[k] in
                            (Pile.COIN, Pile.HACKSILVER)], default=0)
                if low is not None and buried + best >= low + p[Param.ACQUIRE_MARGIN]:
                    return DEFEND, -1
            else:
                return DEFEND, -1
        return DEFEND, -1

    # ------------------------------------------------------------------ Main phase (§7)
    def sacrificable(self, pl, i):
        """Policy (§7.5, §13.13, §14.2): the card sacrificed for card i's ability: the first
        unused Coin in play; else, with ``sacrifice_any_card``, the unused card of lowest cost,
        at most the policy's ``sacrifice_max_cost``, that is neither a Treasure nor a Longboat
        (earliest on ties); -1 = none."""
        coin, c = self.ri[RuleSlot.COIN], self.c
        for j, (k, f) in enumerate(pl.play):
            if j != i and k == coin and f == NORMAL:
                return j
        if not self.ri[RuleSlot.SACRIFICE_ANY_CARD]:
            return -1
        others = [j for j, (k, f) in enumerate(pl.play) if j != i and f == NORMAL
                  and c.pile[k] not in (Pile.TREASURE, Pile.LONGBOAT)
                  and c.cost[k] <= pl.p[Param.SACRIFICE_MAX_COST]]
        return min(others, key=lambda j: (c.cost[pl.play[j][0]], j), default=-1)

    def viking_in_deck_or_discard(self, pl):
        return any(self.c.is_viking(k) for k in pl.deck + pl.discard)

    def legal_alt(self, pl, i, a, n):
        """§7.5: an ability whose sacrifice cannot be fully resolved may not be used."""
        R = RuleSlot
        if a == Ability.DRAW:
            return True
        if a == Ability.SACRIFICE_DRAW:
            return self.sacrificable(pl, i) >= 0 and len(pl.deck) + len(pl.discard) >= n
        if a == Ability.SHIPBUILD:
            return self.supply[self.ri[R.LONGBOAT]] > 0
        if a == Ability.SACRIFICE_SELF_HACKSILVER:
            return self.supply[self.ri[R.HACKSILVER]] > 0
        if a == Ability.BURY:
            return self.bury_slot(pl) >= 0
        if a in (Ability.MAY_SACRIFICE_SILVER, Ability.MAY_SACRIFICE_POWER):
            return self.sacrificable(pl, i) >= 0
        if a == Ability.MAY_RITUAL_SEARCH:
            return self.sacrificable(pl, i) >= 0 and self.viking_in_deck_or_discard(pl)
        return False                            # SACRIFICE_SELF_SILVER: at buy time (§14.3)

    def choose_alt(self, pl, i, spring):
        """Policy: the legal alternative of card i with the highest priority (> 0), ties by
        listed order; Shipbuild only when raiding with no Longboat in play. -1 = none."""
        k = pl.play[i][0]
        best, best_p = -1, 0
        for j, (a, n) in enumerate(self.c.alts[k]):
            prio = pl.p[Param.PRIO0 + a] if a != Ability.SACRIFICE_SELF_SILVER else 0
            if a == Ability.SHIPBUILD:
                has_boat = any(self.c.pile[x] == Pile.LONGBOAT and f != SACRIFICED
                               for x, f in pl.play)
                if not spring or pl.action not in (PARTY, LONE) or has_boat:
                    prio = 0
            if self.gains(a) in pl.forbid:                         # restricted play
                prio = 0
            if prio > best_p and self.legal_alt(pl, i, a, n):
                best, best_p = j, prio
        return best

    def gains(self, a):
        """The card an alternative gains or takes (Shipbuild: a Longboat; Warriors: a
        Hacksilver), else None."""
        return {Ability.SHIPBUILD: self.ri[RuleSlot.LONGBOAT],
                Ability.SACRIFICE_SELF_HACKSILVER: self.ri[RuleSlot.HACKSILVER]}.get(a)

    def use_alt(self, pl, i, a, n):
        c, R = self.c, RuleSlot
        k = pl.play[i][0]
        self.say(f"    {self.name(k)}: {Ability(a).name.lower()} {n}")
        if a in (Ability.SHIPBUILD, Ability.SACRIFICE_SELF_HACKSILVER):
            pl.play[i][1] = SACRIFICED                             # sacrifice this card
            if a == Ability.SHIPBUILD:                             # §11.2: take into play
                self.supply[self.ri[R.LONGBOAT]] -= 1
                pl.play.append([self.ri[R.LONGBOAT], TAKEN])
            else:                                                  # gain: to discard
                self.supply[self.ri[R.HACKSILVER]] -= 1
                pl.discard.append(self.ri[R.HACKSILVER])
            return
        pl.play[i][1] = USED
        if a == Ability.DRAW:
            self.draw_into_play(pl, n)
        elif a == Ability.BURY:                        # §7.6
            j = self.bury_slot(pl)
            if j >= 0:
                pl.play[j][1] = BURIED
                if c.pile[pl.play[j][0]] == Pile.TREASURE:
                    self.took(pl, pl.play[j][0])
        else:
            pl.play[self.sacrificable(pl, i)][1] = SACRIFICED       # the sacrificed Coin
            if a == Ability.SACRIFICE_DRAW:
                self.draw_into_play(pl, n)
            elif a == Ability.MAY_SACRIFICE_SILVER:
                pl.bonus_silver += n
            elif a == Ability.MAY_SACRIFICE_POWER:
                pl.bonus_power += n
            else:
                self.ritual(pl)

    def bury_slot(self, pl):
        """§7.6, §14.2: the play slot BURY buries: the first unused Coin, else Hacksilver, else
        Treasure, never a Treasure the seat forbids (§12.4); -1 = none."""
        for want in (Pile.COIN, Pile.HACKSILVER, Pile.TREASURE):
            for j, (x, f) in enumerate(pl.play):
                if f == NORMAL and self.c.pile[x] == want and not (
                        want == Pile.TREASURE and x in pl.forbid):
                    return j
        return -1

    def ritual(self, pl):
        """§7.5 Ritual Sacrifice (assumption): the costliest Viking in deck then discard
        (first found on ties) is taken into play; then the deck is shuffled."""
        c = self.c
        best, where, idx = -1, None, -1
        for src in (pl.deck, pl.discard):
            for j, k in enumerate(src):
                if c.is_viking(k) and c.cost[k] > best:
                    best, where, idx = c.cost[k], src, j
        k = where.pop(idx)
        pl.play.append([k, NORMAL])
        piles.shuffle(pl.deck, self.dice)

    def silver_now(self, pl):
        return sum(self.c.silver[k] for k, f in pl.play if f != SACRIFICED) + pl.bonus_silver

    def owned_longboats(self, pl):
        boat = self.ri[RuleSlot.LONGBOAT]
        return (pl.deck + pl.discard + pl.hand).count(boat) + sum(
            1 for k, f in pl.play if k == boat and f != SACRIFICED)

    def candidates(self):
        """Buyable cards: Viking Row slots left to right, then Warriors, Hacksilver, Longboat
        (§7.4); (slot or -1, card)."""
        R = RuleSlot
        out = [(j, k) for j, k in enumerate(self.vrow) if k != EMPTY]
        for k in (self.ri[R.WARRIORS], self.ri[R.HACKSILVER], self.ri[R.LONGBOAT]):
            if self.supply[k] > 0:
                out.append((-1, k))
        return out

    def buy_score(self, pl, k):
        c, p = self.c, pl.p
        return (p[Param.W_POWER] * c.power[k] + p[Param.W_INFLUENCE] * c.infl[k]
                + p[Param.W_SILVER] * c.silver[k] + p[Param.W_DEFENSE] * c.defense[k]
                + p[Param.W_DRAW] * c.draw_amount(k) + p[Param.W_COST] * c.cost[k])

    def spare_warriors(self, pl):
        """Cards in play whose unused Sacrifice-this: +N Silver the buy may still call on."""
        return [(j, n) for j, (k, f) in enumerate(pl.play) if f == NORMAL
                for a, n in self.c.alts[k] if a == Ability.SACRIFICE_SELF_SILVER]

    def pick_buy(self, pl, left, extra, bought):
        """Policy: (slot, card) to buy or None. Scripted: a Longboat first while owning fewer
        than longboats_wanted, else the best score (ties: dearer, then listed order)."""
        cands = [(j, k) for j, k in self.candidates() if k not in pl.forbid]
        if pl.kind == PolicyKind.RANDOM:                           # §14.3: one draw per step
            if bought >= RANDOM_MAX_BUYS:
                return None
            ok = [(j, k) for j, k in cands if self.c.cost[k] <= left]
            m = int(self.pol.random() * (len(ok) + 1))
            return ok[m] if m < len(ok) else None
        p = pl.p
        if bought >= p[Param.MAX_BUYS]:
            return None
        extra = extra if p[Param.WARRIORS_FOR_SILVER] else 0
        war = self.ri[RuleSlot.WARRIORS]               # never a Warriors for a Warriors
        ok = [(j, k) for j, k in cands if self.c.cost[k] <= left + (extra if k != war else 0)]
        boat = self.ri[RuleSlot.LONGBOAT]
        if self.owned_longboats(pl) < p[Param.LONGBOATS_WANTED]:
            for j, k in ok:
                if k == boat:
                    return j, k
        best, key = None, None
        for j, k in ok:
            s = self.buy_score(pl, k)
            if s >= p[Param.MIN_SCORE] and (key is None or (s, self.c.cost[k]) > key):
                best, key = (j, k), (s, self.c.cost[k])
        return best

    def buy_step(self, pl, i, resume=False):
        """§7.4: buy while the policy wants (``choose_buy``), one card at a time (``buy``);
        ``pl.tally`` = [Silver available, spent, cards bought, "stop" chosen]. ``resume`` goes
        on from the tally (a search rollout from a purchase, §15.6); i = the turn index."""
        if not resume:
            pl.tally = [self.silver_now(pl), 0, 0, False]
        while not pl.tally[3]:
            choice = self.choose_buy(pl, i)
            if choice is None:
                break
            self.buy(pl, *choice)
        pl.silver_avail += pl.tally[0]
        pl.silver_spent += pl.tally[1]

    def choose_buy(self, pl, i):
        """(slot, card) to buy or None: a seat that searches its buys asks the search (§15.6,
        ``reference_search.choose_buy``), the others ``pick_buy``."""
        if pl.kind >= PolicyKind.FLATMC and self.search is not None and self.search[pl.seat, 2]:
            from vikingsim.games.raidconquer import reference_search

            return reference_search.choose_buy(self, pl, i)
        avail, spent, bought, _ = pl.tally
        return self.pick_buy(pl, avail - spent, sum(n for _, n in self.spare_warriors(pl)),
                             bought)

    def buy(self, pl, j, k):
        """Buy card k (Viking Row slot j, or -1: the supply), paying with played Silver and
        Warriors sacrificed for +1 Silver each while the Silver left falls short (§7.4-§7.5);
        the gap refilled at once."""
        t = pl.tally
        for w, n in self.spare_warriors(pl):                       # Warriors: +1 Silver each
            if self.c.cost[k] <= t[0] - t[1]:
                break
            pl.play[w][1] = SACRIFICED
            t[0] += n
        t[1] += self.c.cost[k]
        t[2] += 1
        if self.ri[RuleSlot.COUNT_ELEMENTS]:                      # §14.6
            pl.bought[k] += 1
            pl.first_buy[k] = pl.first_buy[k] or self.round
        pl.discard.append(k)                                       # §7.4: to the discard pile
        if j >= 0:
            self.vrow[j] = self.vdeck.pop() if self.vdeck else EMPTY
        else:
            self.supply[k] -= 1
        self.say(f"    buys {self.name(k)} for {self.c.cost[k]}")

    def keep_back(self, pl, spring):
        """Policy (§7.2, §13.8, ``keep_in_winter``): the hand positions kept back. Only with
        ``play_all_cards`` false and in Winter (no Action phase: Power and Influence would be
        wasted): up to keep_in_winter cards that give no Silver and have Power + Influence
        > 0, highest Power first, then highest Influence, then earliest in hand."""
        if spring or self.ri[RuleSlot.PLAY_ALL_CARDS]:
            return set()
        c, hand = self.c, pl.hand
        wasted = [h for h, k in enumerate(hand) if c.silver[k] == 0 and c.power[k] + c.infl[k] > 0]
        wasted.sort(key=lambda h: (-c.power[hand[h]], -c.infl[hand[h]], h))
        return set(wasted[:int(pl.p[Param.KEEP_IN_WINTER])])

    def main_turn(self, pl, spring, i=None, resume=False):
        """§7: play the hand (§7.2: all of it, unless ``keep_back`` keeps cards, which stay in
        hand, out of play), use abilities card by card, buy, and move buried cards to the Bury
        pile at the end of the turn (i = the turn index; ``resume``: from the buy step,
        ``buy_step``)."""
        if not resume:
            self.play_cards(pl, spring)
        self.buy_step(pl, i, resume)
        for k, _ in pl.play:                           # §14.6: every card put into play
            pl.played[k] += self.ri[RuleSlot.COUNT_ELEMENTS]
        keep = []
        for k, f in pl.play:                                       # §7.6
            if f == BURIED:
                pl.bury.append(k)
            else:
                keep.append([k, f])
        pl.play = keep

    def play_cards(self, pl, spring):
        """§7.2-§7.3: the Main turn up to its buy step."""
        kept = self.keep_back(pl, spring)
        pl.play = [[k, NORMAL] for h, k in enumerate(pl.hand) if h not in kept]
        pl.hand = [k for h, k in enumerate(pl.hand) if h in kept]
        self.say(f"  seat {pl.seat} plays {[self.name(k) for k, _ in pl.play]}")
        if pl.hand:
            self.say(f"  seat {pl.seat} keeps {[self.name(k) for k in pl.hand]} in hand")
        i = 0
        while i < len(pl.play):
            if pl.play[i][1] == NORMAL and self.c.alts[pl.play[i][0]]:
                j = self.choose_alt(pl, i, spring)
                if j >= 0:
                    a, n = self.c.alts[pl.play[i][0]][j]
                    self.use_alt(pl, i, a, n)
            i += 1

    # ------------------------------------------------------------------ Action phase (§8)
    def defend(self, pl):
        """§8.1.2 bury one Coin (then Hacksilver) from play; §8.1.3 acquire the highest-Defense
        Row card the Bury pile pays for, never one the seat forbids (§12.4)."""
        c, R = self.c, RuleSlot
        if pl.p[Param.DEFEND_BURY]:
            for want in (Pile.COIN, Pile.HACKSILVER):
                j = next((j for j, (k, f) in enumerate(pl.play)
                          if f != SACRIFICED and c.pile[k] == want), -1)
                if j >= 0:
                    pl.bury.append(pl.play.pop(j)[0])
                    self.say(f"    seat {pl.seat} buries {self.name(pl.bury[-1])}")
                    break
        total = sum(c.silver[k] for k in pl.bury)
        best = -1
        for j, k in enumerate(self.raid_row):
            if k != EMPTY and k not in pl.forbid and c.defense[k] <= total and \
                    self.payment(pl, c.defense[k]) \
                    is not None and (best < 0 or c.defense[k] > c.defense[self.raid_row[best]]):
                best = j
        if best < 0:
            return
        k = self.raid_row[best]
        pay = self.payment(pl, c.defense[k])
        for idx in sorted(pay, reverse=True):
            x = pl.bury.pop(idx)
            if c.pile[x] == Pile.TREASURE:
                pl.raid.append(x)                                  # spent Treasures: Raid pile
            else:
                self.supply[x] += 1                                # Coins, Hacksilver: back
        pl.raid.append(k)
        self.took(pl, k)
        pl.acquired += 1
        self.say(f"    seat {pl.seat} acquires {self.name(k)} with {len(pay)} buried cards")
        if self.ri[R.ACQUIRE_REFILLS]:
            self.refill_raid_slot(best)
        else:
            self.raid_row[best] = EMPTY
        self.gain_treasure(pl)

    def payment(self, pl, need):
        """Indices of the buried cards spent (§8.1.3, §13.5): largest Silver first (earliest
        on ties), skipping a card that would overshoot; ``at_least`` then adds the smallest
        remaining cards until the Defense is reached. None if it cannot be paid."""
        c = self.c
        order = sorted(range(len(pl.bury)), key=lambda j: (-c.silver[pl.bury[j]], j))
        chosen, total = [], 0
        for j in order:
            if total + c.silver[pl.bury[j]] <= need:
                chosen.append(j)
                total += c.silver[pl.bury[j]]
        if total < need and not self.ri[RuleSlot.ACQUIRE_EXACT]:
            for j in reversed(order):
                if total >= need:
                    break
                if j not in chosen:
                    chosen.append(j)
                    total += c.silver[pl.bury[j]]
        return chosen if total >= need and (total == need or not self.ri[RuleSlot.ACQUIRE_EXACT]) \
            else None

    def defense_of(self, pl):
        """§8.1.1, §13.1, §13.2: Base Defense (+ Power when Defending, + card Defense)."""
        power, _, dfn, _ = self.stats(pl.play, pl)
        d = self.base_defense[pl.char]
        mode = self.ri[RuleSlot.CARD_DEFENSE]
        if pl.action == DEFEND:
            d += power + (self.base_attack[pl.char] if self.ri[RuleSlot.DEFEND_BASE_POWER] else 0)
        if mode == 2 or (mode == 1 and pl.action == DEFEND):
            d += dfn
        return d

    def attacks(self):
        """§8.2: every attacker in turn order; only the unique strongest on a defender."""
        attackers = [pl for pl in self.order() if pl.action == ATTACK]
        power = {pl.seat: self.total_power(pl, attacking=True) for pl in attackers}
        for pl in attackers:
            rivals = [power[q.seat] for q in attackers if q.target == pl.target and q is not pl]
            if rivals and power[pl.seat] <= max(rivals):
                continue                                            # §8.2.2
            self.attack(pl, self.players[pl.target], power[pl.seat])

    def attack(self, pl, dfd, power):
        c = self.c
        d = self.defense_of(dfd)
        self.say(f"    seat {pl.seat} attacks seat {dfd.seat}: Power {power} v Defense {d}")
        if power < d:
            return
        self.gain_treasure(pl)                                      # §8.2.3
        best = -1
        no = pl.forbid                                              # §12.4: never taken
        for j, k in enumerate(dfd.raid):                            # Pillage: best legend
            if c.pile[k] == Pile.RAID and k not in no and power >= d + c.defense[k] and (
                    best < 0 or c.legend[k] > c.legend[dfd.raid[best]]):
                best = j
        if best < 0 and self.ri[RuleSlot.PILLAGE_TREASURES]:        # §13.7 alternative
            for j, k in enumerate(dfd.raid):
                if c.pile[k] == Pile.TREASURE and k not in no and (
                        best < 0 or c.legend[k] > c.legend[dfd.raid[best]]):
                    best = j
        if best >= 0:
            k = dfd.raid.pop(best)
            pl.raid.append(k)
            self.took(pl, k)
            if c.pile[k] == Pile.RAID:
                pl.pillaged += 1
                dfd.lost += 1
            self.say(f"    pillages {self.name(k)}")
            return
        betray = [j for j, k in enumerate(dfd.discard) if c.betray[k]]
        pool = betray or list(range(len(dfd.discard)))              # §8.2.4 Betray
        pool = [j for j in pool if dfd.discard[j] not in no]        # §12.4: never Looted
        if pool:                                                    # Loot
            j = max(pool, key=lambda j: (c.legend[dfd.discard[j]], c.cost[dfd.discard[j]], -j))
            pl.discard.append(dfd.discard.pop(j))
            self.took(pl, pl.discard[-1])
            self.say(f"    loots {self.name(pl.discard[-1])}")
        elif dfd.deck:                                              # Plunder
            pl.discard.append(dfd.deck.pop())
            self.say("    plunders the top card")

    def took(self, pl, k):
        """Seat ``pl`` used card k where its ``forbid`` acts (§12.4): a raid target (a Chaotic
        Raid's too), an acquire, a Pillage, a Loot, a Treasure gained from the pile or buried
        (a hook for tests of restricted play, nothing else)."""

    def raid_target(self, power, pl):
        """Policy (§12.4): the Row slot with the highest Defense <= power, leftmost on ties,
        never a card the choosing seat ``pl`` forbids (-1: none, a failed raid)."""
        best = -1
        for j, k in enumerate(self.raid_row):
            if k != EMPTY and k not in pl.forbid and self.c.defense[k] <= power and (
                    best < 0 or self.c.defense[k] > self.c.defense[self.raid_row[best]]):
                best = j
        return best

    def highest_slot(self, limit=None, skip=frozenset()):
        """Slot of the highest Defense in the Row (<= limit), tie per ``failed_raid_tie``,
        passing over the cards in ``skip`` (a Chaotic Raid's forbidden cards, §12.4)."""
        right = self.ri[RuleSlot.FAILED_TIE_RIGHT]
        best = -1
        for j, k in enumerate(self.raid_row):
            if k == EMPTY or k in skip or (limit is not None and self.c.defense[k] > limit):
                continue
            if best < 0:
                best = j
                continue
            dk, db = self.c.defense[k], self.c.defense[self.raid_row[best]]
            if dk > db or (dk == db and right):
                best = j
        return best

    def to_bottom(self, j):
        """§8.5, §8.3.5: the card in slot j goes under the Raid deck, refilled from the top."""
        self.raid_deck.insert(0, self.raid_row[j])
        self.refill_raid_slot(j)

    def failed_raid(self):
        self.failed_raids += 1
        j = self.highest_slot()
        if j >= 0:
            self.say(f"    failed raid: {self.name(self.raid_row[j])} goes under the deck")
            self.to_bottom(j)

    def raid_party(self, rnd):
        """§8.3: Earl election, invitations within Longboat capacity, the raid."""
        party = [pl for pl in self.order() if pl.action == PARTY]
        st = {pl.seat: self.stats(pl.play, pl) for pl in self.players}
        eligible = [pl for pl in party if st[pl.seat][3] > 0]
        if not eligible:
            return
        key = {pl.seat: (st[pl.seat][1], self.total_power(pl)) for pl in eligible}
        top = max(key.values())
        earls = [pl for pl in eligible if key[pl.seat] == top]
        if len(earls) > 1:
            return self.chaotic_raid(party, st)
        earl = earls[0]
        self.first, self.earl_side = earl.seat, True               # §8.3.2
        earl.last_earl, earl.earls = rnd, earl.earls + 1
        raiders, cap = [earl], st[earl.seat][3]
        n = len(self.players)
        if earl.p[Param.INVITE] and (n > 2 or self.ri[RuleSlot.TWO_PLAYER_ALLIANCES]):
            # §8.3.3; §13.12: a 2-player game has "No alliances"
            ring = [self.players[(earl.seat + i) % n] for i in range(1, n)]
            for want in (PARTY, DEFEND):
                for q in ring:
                    if q.action != want or (want == DEFEND and not q.p[Param.ACCEPT]):
                        continue
                    if len(raiders) + 1 <= cap + st[q.seat][3]:
                        raiders.append(q)
                        cap += st[q.seat][3]
        power = self.party_power(raiders)
        self.say(f"    Earl seat {earl.seat}, raiders {[q.seat for q in raiders]}, Power {power}")
        j = self.raid_target(power, earl)                         # the Earl picks (§8.3.4)
        if j < 0:
            return self.failed_raid()
        k = self.raid_row[j]
        earl.raid.append(k)
        self.took(earl, k)
        earl.won += 1
        self.say(f"    takes {self.name(k)}")
        self.refill_raid_slot(j)
        for q in raiders:
            self.gain_treasure(q)

    def party_power(self, raiders):
        """§8.3.4: the Raiders' card Power plus each one's Base Attack (or the first's once)."""
        per = self.ri[RuleSlot.BASE_POWER_PER_RAIDER]
        total = sum(self.stats(q.play, q)[0] + (self.base_attack[q.char] if per else 0)
                    for q in raiders)
        return total + (0 if per else self.base_attack[raiders[0].char])

    def chaotic_raid(self, party, st):
        """§8.3.5: no Earl; the party raids for nobody, never against a card a Raider forbids
        (§12.4: none left, a failed raid)."""
        if not self.ri[RuleSlot.CHAOTIC_ALL]:
            party = [pl for pl in party if st[pl.seat][3] > 0]
        power = self.party_power(party)
        self.say(f"    Chaotic Raid by {[q.seat for q in party]}, Power {power}")
        j = self.highest_slot(limit=power, skip=set().union(*(q.forbid for q in party)))
        if j < 0:
            return self.failed_raid()
        for q in party:
            self.took(q, self.raid_row[j])
        for q in party:
            self.gain_treasure(q)
        self.to_bottom(j)

    def lone_raid(self):
        """§8.4: most Power, then Influence; still tied: nobody."""
        cands = [pl for pl in self.order() if pl.action == LONE and self.stats(pl.play, pl)[3] > 0]
        if not cands:
            return
        key = {pl.seat: (self.total_power(pl), self.stats(pl.play, pl)[1]) for pl in cands}
        top = max(key.values())
        best = [pl for pl in cands if key[pl.seat] == top]
        if len(best) > 1:
            return
        pl, power = best[0], top[0]
        self.say(f"    Lone Raider seat {pl.seat}, Power {power}")
        j = self.raid_target(power, pl)
        if j < 0:
            return self.failed_raid()
        k = self.raid_row[j]
        pl.raid.append(k)
        self.took(pl, k)
        pl.won += 1
        self.say(f"    takes {self.name(k)}")
        self.refill_raid_slot(j)
        self.gain_treasure(pl)

    # ------------------------------------------------------------------ End of Round (§9)
    def game_over(self):
        need = self.ri[RuleSlot.RAIDS_TO_END]
        if need == 0:                                               # Epic (§10.2)
            return not self.raid_deck and all(k == EMPTY for k in self.raid_row)
        return any(self.raid_count(pl) >= need for pl in self.players)

    def cleanup(self):
        c = self.c
        for pl in self.players:
            for k, f in pl.play:
                if f != SACRIFICED:
                    pl.discard.append(k)                            # §9.2 step 1
                elif c.pile[k] in SUPPLY_PILES:
                    self.supply[k] += 1                             # step 2
                elif c.pile[k] == Pile.TREASURE:
                    self.treasure.append(k)
                else:
                    self.vdeck.insert(0, k)                         # under the Viking deck
            pl.play = []
            pl.bonus_power = pl.bonus_silver = 0
        if not self.earl_side:                                      # step 3
            self.first = (self.first + 1) % len(self.players)
        elif self.ri[RuleSlot.EARL_MARKER_RESETS]:
            self.earl_side = False

    def score(self, pl):
        """§10.1: Legend on Treasures and Raid cards in deck, discard, Raid and Bury piles
        (``score_cards_in_play``, §13.14: also the hand and the cards in play)."""
        c = self.c
        held = pl.deck + pl.discard + pl.raid + pl.bury
        if self.ri[RuleSlot.SCORE_IN_PLAY]:
            held = held + pl.hand + [k for k, f in pl.play if f != SACRIFICED]
        raid = sum(c.legend[k] for k in pl.raid if c.pile[k] == Pile.RAID)
        return sum(c.legend[k] for k in held), raid

    def winner(self):
        """§10.1: most Legend; then Legend from Raid cards; then most recent Earl; still tied:
        the first in turn order (outcome tie unless final_tie = seat_order)."""
        keys = {pl.seat: (*self.score(pl), pl.last_earl) for pl in self.players}
        top = max(keys.values())
        tied = [pl.seat for pl in self.order() if keys[pl.seat] == top]
        tie = len(tied) > 1 and not self.ri[RuleSlot.FINAL_TIE_SEAT_ORDER]
        return tied[0], tie, sum(1 << s for s in tied)

    # ------------------------------------------------------------------ the game loop
    def action_phase(self, rnd):
        """§8: I Defend, II Attack, III Raid Party, IV Lone Raid, each for everyone who chose
        it, in turn order from the First Player."""
        for pl in self.order():
            if pl.action == DEFEND:
                self.defend(pl)
        self.attacks()
        self.raid_party(rnd)
        self.lone_raid()

    def play_round(self, rnd, plan_from=None, main_from=None):
        """One round (§5): Draw (§6.1, §13.11), in Spring the Secret Plan (§6.2), Main (§7),
        in Spring the Action phase (§8). ``plan_from`` = i resumes the round at the Secret
        Plan of turn index i (its Draw and earlier plans done: a search rollout, §15);
        ``main_from`` = i in the buy step of the Main turn of turn index i (§15.6)."""
        R = RuleSlot
        self.round = rnd
        spring = rnd > self.ri[R.WINTER_ROUNDS]
        if plan_from is None and main_from is None:
            self.say(f"-- round {rnd} ({'Spring' if spring else 'Winter'}), first seat "
                     f"{self.first}, Raid Row {[self.name(k) for k in self.raid_row]}")
            if rnd > 1 or not self.ri[R.SETUP_HAND_IS_ROUND1]:      # §6.1, §13.11
                self.draw_phase(rnd)
        if spring and main_from is None:                            # §6.2
            for i, pl in enumerate(self.order()):
                if i >= (plan_from or 0):
                    pl.action, pl.target = self.choose_plan(pl, i)
            if self.ri[R.COUNT_ELEMENTS]:                           # §14.6
                for pl in self.players:
                    pl.plans[pl.action] += 1
        for i, pl in enumerate(self.order()):
            if i >= (main_from or 0):
                self.main_turn(pl, spring, i, resume=i == main_from)
        if spring:
            self.say("  actions " + ", ".join(
                f"seat {pl.seat}: {ACTION_NAMES[pl.action]}"
                + (f" seat {pl.target}" if pl.action == ATTACK else "")
                for pl in self.players))
            self.action_phase(rnd)

    def choose_plan(self, pl, i):
        """The Secret Plan of ``pl`` (turn index i): a search seat asks the search
        (``reference_search.choose``, §15), the others ``plan``."""
        if pl.kind < PolicyKind.FLATMC:
            return self.plan(pl)
        from vikingsim.games.raidconquer import reference_search

        return reference_search.choose(self, pl, i)

    def play(self, start=1, plan_from=None, main_from=None):
        """Returns (truncated, rounds); ``start``/``plan_from``/``main_from`` resume a game
        mid-round (``play_round``)."""
        R = RuleSlot
        for rnd in range(start, self.ri[R.MAX_ROUNDS] + 1):
            first = rnd == start
            self.play_round(rnd, plan_from if first else None, main_from if first else None)
            if self.game_over():                                    # §9.1: checked first
                return False, rnd
            self.cleanup()
        return True, self.ri[R.MAX_ROUNDS]

    def census(self):
        """Copies of each card id in every place (conservation, §2)."""
        out = [0] * self.c.n
        places = [self.vdeck, [k for k in self.vrow if k != EMPTY], self.treasure,
                  self.raid_deck, [k for k in self.raid_row if k != EMPTY]]
        for pl in self.players:
            places += [pl.deck, pl.discard, pl.hand, pl.raid, pl.bury, [k for k, _ in pl.play]]
        for place in places:
            for k in place:
                out[k] += 1
        for k in range(self.c.n):
            out[k] += self.supply[k] + self.box[k]
        return out


def record(game, g, out, truncated, rounds):
    """Write one finished game into row g of the output arrays (as the kernel does)."""
    out["truncated"][g], out["rounds"][g] = truncated, rounds
    win, tie, mask = game.winner()
    out["winner"][g] = win if not truncated else -1
    out["tie"][g] = tie and not truncated
    out["tied"][g] = mask if not truncated else 0
    out["failed_raids"][g] = game.failed_raids
    out["census"][g] = game.census()
    for pl in game.players:
        s = pl.seat
        out["legend"][g, s], out["raid_legend"][g, s] = game.score(pl)
        out["raids"][g, s] = game.raid_count(pl)
        out["character"][g, s] = pl.char
        out["earls"][g, s] = pl.earls
        out["won"][g, s], out["acquired"][g, s] = pl.won, pl.acquired
        out["pillaged"][g, s], out["lost"][g, s] = pl.pillaged, pl.lost
        out["silver_avail"][g, s], out["silver_spent"][g, s] = pl.silver_avail, pl.silver_spent
        if game.ri[RuleSlot.COUNT_ELEMENTS]:
            held = pl.deck + pl.discard + pl.hand + pl.raid + pl.bury + [
                k for k, f in pl.play if f != SACRIFICED]      # §14.6: the seat's cards at the end
            out["cards"][g, :, s] = [pl.bought, pl.first_buy, pl.played,
                                     [held.count(k) for k in range(game.c.n)], pl.plans]


def play_block(setup, g0, g1, dice_rng, pol_rng, out, game0=0):
    """Reference twin of the kernel's block: same rows, same draws; row g is game game0 + g."""
    for g in range(g0, g1):
        game = Game(setup, game0 + g, dice_rng, pol_rng)
        truncated, rounds = game.play()
        record(game, g, out, truncated, rounds)
