"""Plain-Python reference engine for battle878: slow, obvious, same draws in the same order.

The test oracle and bench baseline of ``kernel.py``, written from the rules notes (``878 §x``),
the seed (``SEED §x``) and the policy texts (``policies.POLICIES``), not from the kernel: state
is a dict of unit counts keyed by slot names; each rule step is one named method citing its
section; who loses a unit to a Hit is an explicit ordered list per side (``LOSS_ORDER``,
``MOST_VALUABLE``); each policy's choices are small methods named after its help text. ``log``
(a callable) receives one line per event, which ``trace`` prints.

What it shares with the kernel (and with ``exact.py``):

- the ``Rules`` dataclass, built from the options by ``rules_from_options`` (which parses
  ``faces``, ``berserker_flee_faces`` and ``max_dice``): the option values, their validation,
  ``berserker_rule_on`` (Seidr) and the data tables as strings: battle-die faces, max dice,
  Runes/Prayer faces, Fyrd cards (``rules.DEFAULT_*``; each checked by a hand-typed test in
  ``tests/test_battle878_shared_data.py``);
- ``EPIC_NAMES`` (Epic card order: the Fyrd-deck draw picks by index) and ``Outcome`` codes;
- the policy objects (``policies.policy_objects``: which play a name means and its parameters,
  e.g. ``retreat(threshold=0.6)``), read here as plain attributes;
- ``core.rng.d6``, the one d6 expression every engine uses (same draw, same value).

Nothing else: not the kernel's compiled arrays, its helpers or ``compile_policies``. The draw
order is the contract in ``kernel.py``'s docstring.
"""
from __future__ import annotations

import math

from vikingsim.core.policies import forbid_names
from vikingsim.core.rng import d6
from vikingsim.games.battle878.policies import (ELEMENT_NAMES, SPEND_GP, SPEND_SCRIPTED,
                                                policy_objects)
from vikingsim.games.battle878.rules import EPIC_NAMES, Outcome, Rules

SLOTS = ("N", "B", "H", "T", "F", "VF")        # rules.Unit order
DIE_OF = {"N": 0, "B": 1, "H": 2, "T": 3, "F": 4, "VF": 4}
HOME = {"N": "V", "B": "V", "H": "E", "T": "E", "F": "E", "VF": "V"}
NAMES = {"N": "Norsemen", "B": "Berserker", "H": "Housecarl", "T": "Thegn", "F": "Fyrd",
         "VF": "Viking-side Fyrd", "STRUCT": "the Fort/Settlement"}
SIDE_NAME = {"V": "Vikings", "E": "English"}
OTHER = {"V": "E", "E": "V"}
EFFECTS = ("omens", "battle_rage", "ragnarok", "martyrdom", "faith_in_victory",
           "defend_the_faith", "convert", "gods_peace", "runes_rolled", "prayer_rolled")
# 878 §4.6 DEFAULT loss orders: Vikings lose Norsemen, Berserkers, then the Fort/Settlement
# ("STRUCT"), Viking-side Fyrd before all of them (878 §4.14); the English lose Fyrd, Thegns,
# Housecarls. 878 §5 Traitors: the defenders give Hits to the traitor units first, whichever
# side the defenders are (``Battle.loss_order`` puts them in front).
LOSS_ORDER = {"V": ("VF", "N", "B", "STRUCT"), "E": ("F", "T", "H")}
# 878 §5 Disorganized Combat: the rolling side's chosen Hit takes the most valuable enemy type
# present; units fighting as Traitors count least (they leave the battle for Fled Units).
MOST_VALUABLE = {"V": ("B", "N", "STRUCT", "VF", "H", "T"), "E": ("H", "T", "F", "B", "N")}
# POLICIES 'retreat': Command moves take the most valuable units out first
RETREAT_ORDER = {"V": ("B", "N", "VF"), "E": ("H", "T", "F")}
# 878 §5 Traitors DEFAULT: the attackers give the faction with fewer units; on a tie the
# Norsemen (Vikings attacking) or the Thegns (English attacking)
TRAITOR_FACTIONS = {"V": ("N", "B"), "E": ("H", "T")}
TRAITOR_TIE = {"V": "N", "E": "T"}


def _nolog(_msg):
    pass


class Battle:
    """One battle; ``run()`` returns the Outcome. Attributes hold the final state."""

    def __init__(self, rules: Rules, policies, dice, pol, log=_nolog, table=None, omens=None):
        self.r = rules
        self.table = table      # policy optimal's decision table (Setup.table, optimal_rp)
        self.omens = omens      # Setup.omens: the Viking seat's Omens choice (878 §5.2) or None
        self.dice, self.pol, self.log = dice, pol, log
        # the policies' parameters (POLICIES texts): retreat ``threshold``; smart English
        # ``bad_odds``, smart Vikings ``runes_margin``; random ``retreat_chance``,
        # ``die_chance``, ``reroll_chance``. ``kind``: the play behind the name (the smart
        # aliases and cautious are smart)
        self.policy = dict(zip(("V", "E"), policy_objects(policies)))
        self.kind = {side: p.kind.name.lower() for side, p in self.policy.items()}
        self.face = {d: [{"H": "hit", "F": "flee", "C": "cmd", "B": "blank"}[ch] for ch in s]
                     for d, s in enumerate(rules.faces)}
        self.phit = [sum(ch == "H" for ch in s) / 6.0 for s in rules.faces]
        lag = int(rules.lagertha)
        self.cnt = {"N": rules.norsemen + 2 * lag, "B": rules.berserkers + lag,
                    "H": rules.housecarls, "T": rules.thegns, "F": rules.fyrd, "VF": 0}
        self.owner = dict(HOME)
        z = {k: 0 for k in SLOTS}
        self.dead, self.fled, self.retreated = dict(z), dict(z), dict(z)
        self.joined, self.left = dict(z), dict(z)
        self.effects = {e: 0 for e in EFFECTS}
        self.fort = bool(rules.fort)
        self.settlement = bool(rules.settlement)
        self.struct = rules.fort * rules.fort_hits + rules.settlement
        self.epics: set[str] = set()
        self.traitor = None
        self.deck = None
        self.rolls = 0

    # ---------- helpers
    def rand(self):
        return self.pol.random()

    def allowed(self, side, element):
        """Restricted play: ``element`` (policies.ELEMENT_NAMES) is not in the side's
        ``forbid`` ('+'-joined names)."""
        return element not in forbid_names(self.policy[side].forbid, ELEMENT_NAMES,
                                           "battle878")

    def holds(self, side, k):
        """Does ``side`` have unit type ``k`` (or the Fort/Settlement, ``"STRUCT"``) now?"""
        if k == "STRUCT":
            return side == "V" and self.struct > 0
        return self.owner[k] == side and self.cnt[k] > 0

    def alive(self, side):
        n = sum(v for k, v in self.cnt.items() if self.owner[k] == side)
        return n + (self.struct if side == "V" else 0)

    def add(self, slot, n, why):
        if n:
            self.cnt[slot] += n
            self.joined[slot] += n
            self.log(f"  {n} {NAMES[slot]} join ({why})")

    def n_dice(self, k):
        """878 §4.3 dice of unit type ``k``: min(units, max dice); 878 §4.4 a standing Fort adds a
        Norsemen and a Berserker die, a Settlement a Berserker die, to the Vikings' own types."""
        n = self.cnt[k]
        if self.owner[k] == "V" and self.struct > 0 and (k == "B" or (k == "N" and self.fort)):
            n += 1
        return min(n, self.r.max_dice[DIE_OF[k]])

    def strength(self, side):
        """POLICIES 'retreat' odds proxy: expected Hits of one roll (dice x Hit chance) times
        units (the Fort/Settlement counts as a Viking unit)."""
        mine = [k for k in SLOTS if self.owner[k] == side]
        hits = sum(self.n_dice(k) * self.phit[DIE_OF[k]] for k in mine)
        units = sum(self.cnt[k] for k in mine) + (self.struct if side == "V" else 0)
        return hits * units

    def roll_face(self, die):
        return self.face[die][d6(self.dice) - 1]

    def conversions(self):
        """Conversion faces on the English Prayer card, from both sides' dice (SEED §4.4)."""
        return self.conv["E"] + self.conv["V"]

    # ---------- Epic cards and the Fyrd deck (SEED §7, 878 §2.5)
    def activate(self, name):
        if name in self.epics:
            return
        self.epics.add(name)
        self.log(f"  Epic Battle card: {name}")
        r = self.r
        if name == "reinforcements":
            for k in ("N", "B", "H", "T"):
                self.add(k, r.reinforcements_units, "Reinforcements card")
            self.add("F", r.reinforcements_fyrd, "Reinforcements card")
        elif name == "epic_battle":
            for k, v in (("N", r.adj_norsemen), ("B", r.adj_berserkers),
                         ("H", r.adj_housecarls), ("T", r.adj_thegns)):
                self.add(k, v, "Epic Battle card, adjacent shires")
        elif name == "traitors" and self.traitor is None:
            self.hand_over_traitors()

    def hand_over_traitors(self):
        """SEED §7.3 Traitors: the attackers hand one of their factions to the defenders, who
        roll its dice and take its decisions. 878 §6.8: no effect unless both attacking
        factions are there. Which one: ``TRAITOR_FACTIONS`` (POLICIES 'random': a coin)."""
        att = "V" if self.r.attacker == "vikings" else "E"
        pair = TRAITOR_FACTIONS[att]
        if not all(self.holds(att, k) for k in pair):
            return
        if self.kind[att] == "random":
            t = pair[0] if self.rand() < 0.5 else pair[1]
        else:
            t = min(pair, key=lambda k: (self.cnt[k], k != TRAITOR_TIE[att]))
        self.owner[t] = OTHER[att]
        self.traitor = t
        self.log(f"  Traitors: the {NAMES[t]} fight for the {SIDE_NAME[OTHER[att]]}")

    def draw_fyrd(self):
        cards = list(self.r.fyrd_cards)
        if self.deck is None:
            order = list(range(8))
            chosen = []
            for i in range(self.r.epic_deck):
                j = i + int(self.dice.random() * (8 - i))
                order[i], order[j] = order[j], order[i]
                chosen.append(EPIC_NAMES[order[i]])
            self.deck = cards + chosen          # remaining cards, in array order
            self.pos = 0
        while True:
            if self.pos >= len(self.deck):
                self.deck, self.pos = cards, 0     # rebuilt from the Fyrd cards only
            j = self.pos + int(self.dice.random() * (len(self.deck) - self.pos))
            self.deck[j], self.deck[self.pos] = self.deck[self.pos], self.deck[j]
            card = self.deck[self.pos]
            self.pos += 1
            if isinstance(card, str):
                self.activate(card)
            else:
                self.log(f"  Fyrd card: {card} Fyrd")
                return card

    # ---------- the battle
    def setup(self):
        r = self.r
        if r.epic_card != "none":
            self.activate(r.epic_card)
        if r.christians_wrath:
            self.add("F", self.draw_fyrd(), "Christian's Wrath")
        if r.edmunds_martyrdom:
            self.add("F", self.draw_fyrd(), "King Edmund's Martyrdom")
        if r.fyrd_card:
            self.add("F", self.draw_fyrd(), "Fyrd card")
        if r.arm_ring:
            self.add("VF", self.draw_fyrd(), "Arm Ring of Thor")
        self.raven = None
        if r.raven_banner:
            self.raven = self.roll_face(3)
            self.log(f"  Raven Banner Thegn die: {self.raven}")
        self.reform_unit = None
        if r.military_reform:
            if r.reform_unit != "auto":
                self.reform_unit = {"norsemen": "N", "berserkers": "B", "housecarls": "H",
                                    "thegns": "T"}[r.reform_unit]
            elif r.attacker == "vikings":
                self.reform_unit = "N" if self.cnt["N"] >= self.cnt["B"] else "B"
            else:
                self.reform_unit = "H" if self.cnt["H"] >= self.cnt["T"] else "T"

    def run(self) -> Outcome:
        r = self.r
        self.log(f"Start: {self.describe()}")
        self.setup()
        att = "V" if r.attacker == "vikings" else "E"
        side = OTHER[att] if r.first_roller == "defender" else att
        self.first_hit_pending = r.berserker_rule_on      # 878 §4.6 (SEED §5.4 Seidr: off)
        self.north = r.northumbria
        self.first_english = True
        self.ragnarok = False
        self.reserve = r.reserve_berserkers
        self.bank = {"V": 0, "E": 0}
        self.pool = {"V": r.runes_dice, "E": r.prayer_dice}
        self.runes = 0         # Rune faces on the Viking card
        self.faith = 0         # Faith faces on the English card
        self.conv = {"V": 0, "E": 0}   # Conversion faces (by die owner) on the English card
        while True:
            if self.rolls >= r.max_rolls:
                return Outcome.TRUNCATED
            self.rolls += 1
            result = self.one_roll(side)
            if result is not None:
                self.log(f"End: {result.name} after {self.rolls} rolls; {self.describe()}")
                return result
            side = OTHER[side]

    def describe(self):
        parts = [f"{NAMES[k]} {v}" + ("" if self.owner[k] == HOME[k] else " (traitors)")
                 for k, v in self.cnt.items() if v]
        if self.struct:
            parts.append(f"structure {self.struct}")
        return ", ".join(parts) or "nobody"

    def end_check(self, s, retreated):
        va, ea = self.alive("V"), self.alive("E")
        if va == 0 and ea == 0:
            return Outcome.BOTH_ELIMINATED
        if va == 0:
            return Outcome.VIKINGS_RETREAT if retreated and s == "V" else Outcome.ENGLISH_WIN
        if ea == 0:
            return Outcome.ENGLISH_RETREAT if retreated and s == "E" else Outcome.VIKINGS_WIN
        return None

    def one_roll(self, s):
        """One roll of side ``s``, its steps in the order of the notes; the Outcome, or None
        while the battle goes on."""
        self.log(f"Roll {self.rolls}: {SIDE_NAME[s]} roll")
        if s == "V" and self.raven == "flee" and self.raven_flee():
            return Outcome.BOTH_ELIMINATED if self.alive("E") == 0 else Outcome.ENGLISH_WIN
        res = self.roll_dice(s)
        ignored = self.ragnar_and_northumbria(s, res)
        self.log("  dice: " + self.describe_roll(res, with_dice=True))
        martyr = False
        if self.r.runes_prayer:
            martyr, gods_peace = self.runes_and_prayer(s, res)
            if gods_peace:
                return Outcome.GODS_PEACE
            self.log("  dice after Runes/Prayer: " + self.describe_roll(res))
        hits, cmds = self.roll_totals(s, res, martyr, ignored)
        self.own_flees(res)
        self.take_hits(s, hits)
        retreated = False
        if cmds > 0 and "foul_weather" not in self.epics:
            retreated = self.retreat(s, cmds)
        if s == "E":
            self.first_english = False
        return self.end_check(s, retreated)

    @staticmethod
    def describe_roll(res, with_dice=False):
        return "; ".join(f"{NAMES[k]}{' ' + str(v['n']) if with_dice else ''}: {v['hit']}H "
                         f"{v['flee']}F {v['cmd']}C" for k, v in res.items() if v["n"])

    def raven_flee(self):
        """SEED §5.4 Raven Banner Flee: a Norseman and a Berserker flee before each Viking
        roll. Returns whether the Vikings have nothing left."""
        for k in ("N", "B"):
            if self.owner[k] == "V" and self.cnt[k] > 0:
                self.cnt[k] -= 1
                self.fled[k] += 1
                self.log(f"  Raven Banner: a {NAMES[k]} flees")
        return self.alive("V") == 0

    def roll_dice(self, s):
        """878 §4.3 dice per type (878 §4.4 Fort/Settlement extra dice), then SEED §3.3
        Edmund's Faith: the holder re-rolls its Flee and Command results once."""
        r = self.r
        res = {k: {"hit": 0, "flee": 0, "cmd": 0, "blank": 0, "n": 0} for k in SLOTS}
        for k in SLOTS:
            if self.owner[k] != s:
                continue
            res[k]["n"] = n = self.n_dice(k)
            for _ in range(n):
                res[k][self.roll_face(DIE_OF[k])] += 1
        if r.edmunds_faith and s == ("E" if r.edmunds_faith_side == "english" else "V"):
            for k in SLOTS:
                m = res[k]["flee"] + res[k]["cmd"]
                res[k]["flee"] = res[k]["cmd"] = 0
                for _ in range(m):
                    res[k][self.roll_face(DIE_OF[k])] += 1
        return res

    def ragnar_and_northumbria(self, s, res):
        """878 §4.7 Ragnar: the Commands of the first English roll count as Flees; 878 §4.8
        Northumbria: the battle's first English Flee is ignored (H, T, F, then traitors).
        Returns whether a Flee was ignored this roll."""
        if self.r.ragnar and s == "E" and self.first_english:
            for k in SLOTS:
                res[k]["flee"] += res[k]["cmd"]
                res[k]["cmd"] = 0
        if self.north and s == "E":
            for k in ("H", "T", "F", "B", "N"):
                if self.owner[k] == "E" and res[k]["flee"] > 0:
                    res[k]["flee"] -= 1
                    self.north = False
                    self.log(f"  Northumbria: a {NAMES[k]} Flee is ignored")
                    return True
        return False

    def runes_and_prayer(self, s, res):
        """SEED §4: the rolling side rolls its Runes or Prayer dice; then each side spends,
        rolling side first (DEFAULT order). Returns (Martyrdom, God's Peace)."""
        martyr = self.roll_runes(s) if s == "V" else self.roll_prayer()
        spend = self.optimal_spend(s) if self.kind["E"] == "optimal" else SPEND_SCRIPTED
        order = (s, OTHER[s])
        if s == "V" and self.kind["V"] == "optimal" and self.omens is not None:
            order = ("E", "V")   # 878 §5.2: optimal's Omens choice follows the English spending
        for sp in order:
            if self.kind[sp] in ("default", "never", "retreat"):
                continue
            if sp == "V":
                self.spend_runes(s, res)
            elif self.spend_prayer(s, res, spend):
                return martyr, True
        return martyr, False

    def roll_totals(self, s, res, martyr, ignored):
        """(Hits, Commands) of the roll after SEED §4.4 Martyrdom (no English Command; under
        Foul Weather, SEED §7.3, the voided Commands are not banked either unless
        martyrdom_blocks_bank is off), the Raven Banner Hit (SEED §5.4), the Faith card's Flee
        Hit and Foul Weather's banked Commands (SEED §7.3)."""
        r = self.r
        if martyr and (r.martyrdom_blocks_bank or "foul_weather" not in self.epics):
            for k in SLOTS:
                res[k]["cmd"] = 0
        hits = sum(v["hit"] for v in res.values())
        flees = sum(v["flee"] for v in res.values())
        cmds = sum(v["cmd"] for v in res.values())
        if s == "V" and self.raven == "hit":
            hits += 1
        if "faith" in self.epics and (flees > 0 or (ignored and r.faith_counts_ignored_flee)):
            hits += 1
        if "foul_weather" in self.epics:
            cancel = min(self.bank[s], hits)
            hits -= cancel
            self.bank[s] = 0
            self.bank[OTHER[s]] = cmds
        return hits, cmds

    def own_flees(self, res):
        """878 §4.5: each Flee removes a unit of its own type; extra Flees are lost."""
        for k in SLOTS:
            x = min(res[k]["flee"], self.cnt[k])
            if x:
                self.cnt[k] -= x
                self.fled[k] += x
                self.log(f"  {x} {NAMES[k]} flee")

    # ---------- 878 §4.6 who takes the Hits
    def loss_order(self, side):
        """``side``'s units present, in the order the DEFAULT policy gives them up (878 §4.6;
        traitor units first, 878 §5)."""
        first = (self.traitor,) if self.traitor else ()
        return [k for k in first + LOSS_ORDER[side] if self.holds(side, k)]

    def random_loss(self, side):
        """POLICIES 'random': a uniform pick among the unit types present (Unit order, then the
        Fort/Settlement); one policy draw per Hit."""
        present = [k for k in SLOTS + ("STRUCT",) if self.holds(side, k)]
        return present[int(self.rand() * len(present))]

    def take_hits(self, s, hits):
        """The rolling side ``s`` scores ``hits`` on the other side, one unit per Hit; Hits
        beyond the units present are lost (878 §4.5)."""
        recv = OTHER[s]
        first_hit_rule = s == "E" and self.first_hit_pending       # 878 §4.6, base rule 4.5
        roller_picks = "disorganized_combat" in self.epics          # SEED §7.3: one Hit a roll
        for i in range(hits):
            if not any(self.holds(recv, k) for k in SLOTS + ("STRUCT",)):
                break
            if i == 0 and first_hit_rule and self.holds("V", "B"):
                victim = "B"             # a Fort never satisfies the rule (SEED §1.4)
            elif roller_picks:
                victim = next(k for k in MOST_VALUABLE[recv] if self.holds(recv, k))
                roller_picks = False
            elif self.kind[recv] == "random":
                victim = self.random_loss(recv)
            else:
                victim = self.loss_order(recv)[0]
            self.lose(victim)
        # the rule is used up by the first English roll (878 §4.6 DEFAULT), or only by the
        # first English Hit of the battle (berserker_first_hit_scope=first_casualty)
        scope = self.r.berserker_first_hit_scope
        if first_hit_rule and (hits > 0 or scope == "first_english_roll"):
            self.first_hit_pending = False

    def lose(self, k):
        """One Hit on unit type ``k``: it dies, or flees under Single Combat (SEED §7.3),
        Æthelred's Military Reform (SEED §3.3) or, for Viking units, Ragnarök (SEED §4.3)."""
        if k == "STRUCT":
            self.struct -= 1
            self.log("  Hit on the Fort/Settlement")
            return
        self.cnt[k] -= 1
        if ("single_combat" in self.epics or k == self.reform_unit
                or (self.ragnarok and k in ("N", "B") and self.owner[k] == "V")):
            self.fled[k] += 1
            self.log(f"  Hit: a {NAMES[k]} flees instead of dying")
        else:
            self.dead[k] += 1
            self.log(f"  Hit: a {NAMES[k]} dies")

    # ---------- Command retreats (878 §2.3, §5; SEED §5.2 Linen Clothes)
    def wants_retreat(self, s):
        kind = self.kind[s]
        if kind == "random":
            go = self.rand() < self.policy[s].retreat_chance
        elif kind == "retreat":
            go = self.strength(s) < self.policy[s].threshold * self.strength(OTHER[s])
        else:
            return False
        return go and self.allowed(s, "retreat")    # after any coin: same policy draws

    def retreat(self, s, cmds):
        """Each Command moves one unit out (two with the Linen Clothes), most valuable first;
        Fyrd only with ``command_moves_fyrd``. Returns whether any unit left."""
        if not self.wants_retreat(s):
            return False
        holder = {"V": "vikings", "E": "english"}[s]
        moves = cmds * (2 if self.r.linen_clothes in ("both", holder) else 1)
        did = False
        for k in RETREAT_ORDER[s]:
            if self.owner[k] != s or (k in ("F", "VF") and not self.r.command_moves_fyrd):
                continue
            x = min(moves, self.cnt[k])
            if x:
                self.cnt[k] -= x
                self.retreated[k] += x
                moves -= x
                did = True
                self.log(f"  {x} {NAMES[k]} retreat with Command")
        return did

    # ---------- SEED §4 Runes and Prayer: rolling
    def wants_new_die(self, side):
        """POLICIES: greedy always rolls; smart English always pray; smart Vikings stop once
        the Prayer card holds enough Conversions for God's Peace less the margin; random: a
        coin (drawn whether or not a die is left); default, never, retreat: never."""
        kind = self.kind[side]
        if kind == "random":
            return self.rand() < self.policy[side].die_chance
        if kind == "smart" and side == "V":
            return self.conversions() < self.r.gods_peace_cost - self.policy["V"].runes_margin
        return kind in ("greedy", "smart")

    def rerolls_placed_rune(self):
        """SEED §4.1 all four Runes dice placed: greedy and smart re-roll a Viking Conversion
        (to take it off the English card); random: a coin."""
        kind = self.kind["V"]
        if kind == "random":
            return self.rand() < self.policy["V"].reroll_chance
        return kind in ("greedy", "smart")

    def optimal_entry(self, row, outside):
        """Policy optimal (878 §5.2): row ``row`` of the DP's table at the current state;
        ``outside`` at a state the DP never reaches (another policy's effects)."""
        idx = (self.cnt["N"], self.cnt["B"], self.cnt["H"], self.cnt["T"], self.runes,
               self.conv["V"], self.faith, self.conv["E"], 1 if self.first_hit_pending else 0,
               1 if self.ragnarok else 0)
        if any(i >= d for i, d in zip(idx, self.table.shape[1:])):
            return outside
        return int(self.table[(row, *idx)])

    def optimal_dice(self, side):
        """How many of ``side``'s factions roll a Runes/Prayer die this roll, from the table at
        the state before the roll (rows 0-1); 2 (all) outside it."""
        return self.optimal_entry(0 if side == "V" else 1, 2)

    def optimal_spend(self, side):
        """The English spending code at this roll of ``side`` (a Convert count or SPEND_GP),
        once the roll's Runes/Prayer dice have landed (rows 2-3); SPEND_SCRIPTED outside."""
        return self.optimal_entry(2 + (0 if side == "V" else 1), SPEND_SCRIPTED)

    def optimal_ragnarok(self):
        """Whether the Vikings buy Ragnarök (SEED §4.3) at the start of their roll, before its
        Runes dice: row 4 at the state of ``optimal_dice`` (never outside the table), if
        affordable, not yet bought and not forbidden."""
        return (self.optimal_entry(4, 0) == 1 and not self.ragnarok
                and self.runes >= self.r.ragnarok_cost and self.allowed("V", "ragnarok"))

    def roll_runes(self, s):
        """SEED §4.1: each Viking faction with units in the battle may roll one Runes die
        (optimal: the first ``optimal_dice`` of them, new or re-rolling a Conversion).
        Returns False (Martyrdom is a Prayer face)."""
        opt = self.kind["V"] == "optimal"
        k_opt = self.optimal_dice("V") if opt else 0
        if opt and self.optimal_ragnarok():
            self.pay_runes(self.r.ragnarok_cost)
            self.ragnarok = True
            self.effects["ragnarok"] += 1
        i = 0
        for faction in ("N", "B"):
            if not self.holds("V", faction):
                continue
            want = i < k_opt if opt else self.wants_new_die("V")
            i += 1
            new = want and self.allowed("V", "runes")
            if self.pool["V"] > 0:
                if new:
                    self.pool["V"] -= 1
                    self.place_rune()
            elif (self.conv["V"] > 0 and (want if opt else self.rerolls_placed_rune())
                  and self.allowed("V", "runes")):
                self.conv["V"] -= 1
                self.place_rune()
        return False

    def place_rune(self):
        face = self.r.runes_faces[d6(self.dice) - 1]
        self.effects["runes_rolled"] += 1
        self.log(f"  Runes die: {face}")
        if face == "R":
            self.runes += 1
        else:
            self.conv["V"] += 1     # SEED §4.4 note: Conversions go on the English card

    def roll_prayer(self):
        """SEED §4.1: each English faction with units may roll one Prayer die (with all four
        placed, a Faith die is re-rolled). Returns whether Martyrdom came up (SEED §4.4)."""
        martyr = False
        opt = self.kind["E"] == "optimal"
        k_opt = self.optimal_dice("E") if opt else 0
        i = 0
        for faction in ("H", "T"):
            if not self.holds("E", faction):
                continue
            i += 1
            if (not (i <= k_opt if opt else self.wants_new_die("E"))
                    or not self.allowed("E", "prayer")):
                continue
            if self.pool["E"] > 0:
                self.pool["E"] -= 1
            elif self.faith > 0:
                self.faith -= 1
            else:
                continue
            face = self.r.prayer_faces[d6(self.dice) - 1]
            self.effects["prayer_rolled"] += 1
            self.log(f"  Prayer die: {face}")
            if face == "M":          # automatic; the die leaves the card at once
                martyr = True
                self.effects["martyrdom"] += 1
                self.pool["E"] += 1
            elif face == "C":
                self.conv["E"] += 1
            else:
                self.faith += 1
        return martyr

    # ---------- SEED §4 Runes and Prayer: spending (POLICIES greedy / smart / random)
    def spend_runes(self, s, res):
        """Vikings, costliest effect first: Ragnarök (never for smart), Battle Rage (smart: one,
        and only while it adds a Berserker die), then Omens of Victory on their own roll."""
        r = self.r
        smart = self.kind["V"] == "smart"
        opt = self.kind["V"] == "optimal"      # optimal: Omens only (optimal_rp docstring)
        if (not smart and not opt and not self.ragnarok and self.runes >= r.ragnarok_cost
                and self.allowed("V", "ragnarok")):
            self.pay_runes(r.ragnarok_cost)
            self.ragnarok = True
            self.effects["ragnarok"] += 1
            self.log("  Ragnarök: Viking Hit units flee instead")
        while (not opt and self.runes >= r.battle_rage_cost and self.holds("V", "N")
               and self.owner["B"] == "V" and self.reserve > 0
               and self.allowed("V", "battle_rage")):
            if smart and self.cnt["B"] >= r.max_dice[1]:
                break
            self.pay_runes(r.battle_rage_cost)
            self.cnt["N"] -= 1
            self.left["N"] += 1
            self.cnt["B"] += 1
            self.joined["B"] += 1
            self.reserve -= 1
            self.effects["battle_rage"] += 1
            self.log("  Battle Rage: a Norseman becomes a Berserker")
            if smart:
                break
        if s == "V" and opt and self.omens is not None and self.optimal_omens(res):
            return
        while s == "V" and self.runes >= r.omens_cost and self.allowed("V", "omens_of_victory"):
            k = self.omens_target(res, smart)
            if k is None:
                break
            self.pay_runes(r.omens_cost)
            self.effects["omens"] += 1
            m = res[k]["n"] - res[k]["hit"]
            res[k]["flee"] = res[k]["cmd"] = res[k]["blank"] = 0
            for _ in range(m):
                res[k][self.roll_face(DIE_OF[k])] += 1
            self.log(f"  Omens of Victory: {m} {NAMES[k]} dice re-rolled")

    def optimal_omens(self, res):
        """Policy optimal (878 §5.2): Omens of Victory as the Vikings' choice inside their roll,
        after the English spending. An end of the roll (Hits on Thegns then Housecarls, Flees on
        their own type) is worth the Viking seat's game value with the English to roll
        (``self.omens``); the Vikings maximise it (game 0, P(Viking success)) or minimise it
        (game 1, P(English success)) over: stop, or pay the Omens cost and re-roll the dice of
        one type except the Hits, Flees and others they keep (every keep short of all; ties:
        stop, fewest dice re-rolled, the type with more non-Hit dice (Norsemen on a tie), most
        Hits kept, most Flees kept). False outside the table (scripted Omens then)."""
        vals, _tri, game = self.omens
        c = self.cnt
        n, b, h, t = c["N"], c["B"], c["H"], c["T"]
        idx = (n, b, h, t, self.runes, self.conv["V"], self.faith, self.conv["E"])
        if (any(i >= d for i, d in zip(idx, vals.shape)) or c["F"] or c["VF"]
                or self.owner["N"] != "V" or self.owner["B"] != "V"):
            return False
        ctx = (self.conv["V"], self.faith, self.conv["E"], 1 if self.first_hit_pending else 0,
               1 if self.ragnarok else 0)
        sign = 1.0 if game == 0 else -1.0
        dn, db = res["N"]["n"], res["B"]["n"]
        co = self.r.omens_cost

        def leaf(hits, fn, fb, rl):
            n2, b2 = n - min(fn, n), b - min(fb, b)
            t2 = t - min(hits, t)
            h2 = h - min(hits - min(hits, t), h)
            if n2 + b2 == 0 or h2 + t2 == 0:
                win = (n2 + b2 > 0) if game == 0 else (h2 + t2 > 0)
                return 1.0 if win else 0.0
            return float(vals[(n2, b2, h2, t2, rl) + ctx])

        def p_roll(die, m, x, y):      # P(x Hits, y Flees) on m dice of ``die``
            ph = self.face[die].count("hit") / 6.0
            pf = self.face[die].count("flee") / 6.0
            po = max(0.0, 1.0 - ph - pf)
            return (math.factorial(m) // (math.factorial(x) * math.factorial(y)
                                          * math.factorial(m - x - y))
                    * ph ** x * pf ** y * po ** (m - x - y))

        memo = {}

        def best(r, an, fn, ab, fb):
            key = (r, an, fn, ab, fb)
            if key in memo:
                return memo[key]
            top, choice = sign * leaf(an + ab, fn, fb, r), None
            if r >= co:
                first = "N" if dn - an >= db - ab else "B"
                for m in range(1, max(dn, db) + 1):
                    for k in (first, "B" if first == "N" else "N"):
                        d, a, f = (dn, an, fn) if k == "N" else (db, ab, fb)
                        if m > d:
                            continue
                        for kh in range(min(a, d - m), -1, -1):
                            for kf in range(min(f, d - m - kh), -1, -1):
                                ko = d - m - kh - kf
                                if ko > d - a - f:
                                    continue
                                v = 0.0
                                for x in range(m + 1):
                                    for y in range(m + 1 - x):
                                        q = p_roll(DIE_OF[k], m, x, y)
                                        if q == 0.0:
                                            continue
                                        nxt = ((r - co, kh + x, kf + y, ab, fb) if k == "N"
                                               else (r - co, an, fn, kh + x, kf + y))
                                        v += q * best(*nxt)[0]
                                if v > top + 1e-13:
                                    top, choice = v, (k, kh, kf, ko)
            memo[key] = (top, choice)
            return memo[key]

        while self.runes >= co and self.allowed("V", "omens_of_victory"):
            choice = best(self.runes, res["N"]["hit"], res["N"]["flee"], res["B"]["hit"],
                          res["B"]["flee"])[1]
            if choice is None:
                break
            k, kh, kf, ko = choice
            self.pay_runes(co)
            self.effects["omens"] += 1
            kc = min(ko, res[k]["cmd"])          # others kept: Commands first, then Blanks
            m = res[k]["n"] - kh - kf - ko
            res[k].update(hit=kh, flee=kf, cmd=kc, blank=ko - kc)
            for _ in range(m):
                res[k][self.roll_face(DIE_OF[k])] += 1
            self.log(f"  Omens of Victory: {m} {NAMES[k]} dice re-rolled, {kh} Hits, {kf} "
                     f"Flees and {ko} others kept")
        return True

    def omens_target(self, res, smart):
        """The Viking die type whose non-Hit dice to re-roll: the most non-Hits (smart: the
        most expected new Hits, non-Hits x Hit chance); Norsemen on a tie; None if no gain."""
        def gain(k):
            nonhit = res[k]["n"] - res[k]["hit"]
            return nonhit * self.phit[DIE_OF[k]] if smart else nonhit * 1.0
        types = [k for k in ("N", "B") if self.owner[k] == "V" and gain(k) > 0]
        return max(types, key=gain) if types else None

    def pay_runes(self, n):
        self.runes -= n
        self.pool["V"] += n       # SEED §4.2: spent dice may be rolled again

    def spend_prayer(self, s, res, spend=SPEND_SCRIPTED):
        """English: God's Peace (smart: only when the odds are bad), Defend the Faith, Convert
        (smart: only when they are not; English Conversions first), then Faith in Victory on
        their own roll (smart: only once no Prayer die is left). ``spend``: optimal's table
        (878 §5.2): God's Peace only on SPEND_GP, at most ``spend`` Converts. True: God's
        Peace."""
        r = self.r
        smart = self.kind["E"] == "smart"
        opt = self.kind["E"] == "optimal"   # optimal: God's Peace and Convert, from its table
        bad = smart and self.strength("E") < self.policy["E"].bad_odds * self.strength("V")
        if (self.conversions() >= r.gods_peace_cost and r.gods_peace_exit and (bad or not smart)
                and spend in (SPEND_SCRIPTED, SPEND_GP) and self.allowed("E", "gods_peace")):
            self.effects["gods_peace"] += 1
            self.log("  God's Peace: the Vikings must leave")
            return True
        while (not opt and self.faith >= r.defend_faith_cost
               and self.allowed("E", "defend_the_faith")):
            self.faith -= r.defend_faith_cost
            self.pool["E"] += r.defend_faith_cost
            self.add("F", self.draw_fyrd(), "Defend the Faith")
            self.effects["defend_the_faith"] += 1
        n_max = None if spend == SPEND_SCRIPTED else (0 if spend == SPEND_GP else spend)
        while (self.conversions() >= r.convert_cost and self.holds("V", "N")
               and not (smart and bad) and n_max != 0 and self.allowed("E", "convert")):
            self.convert()
            n_max = None if n_max is None else n_max - 1
        if (s == "E" and not opt and (not smart or self.pool["E"] == 0)
                and self.allowed("E", "faith_in_victory")):
            while self.faith >= 1 and res["F"]["flee"] > 0:
                res["F"]["flee"] -= 1
                self.faith -= 1
                self.pool["E"] += 1
                self.effects["faith_in_victory"] += 1
                self.log("  Faith in Victory: a Fyrd Flee is ignored")
        return False

    def convert(self):
        """SEED §4.4 Convert (878 §6.7): a Norseman leaves, a Thegn joins; paid with English
        Conversion dice first, then Viking ones."""
        cost = self.r.convert_cost
        own = min(self.conv["E"], cost)
        self.conv["E"] -= own
        self.pool["E"] += own
        self.conv["V"] -= cost - own
        self.pool["V"] += cost - own
        self.cnt["N"] -= 1
        self.left["N"] += 1
        self.cnt["T"] += 1
        self.joined["T"] += 1
        self.effects["convert"] += 1
        self.log("  Convert: a Norseman leaves, a Thegn joins")


def play_battle(rules: Rules, policies, dice, pol, log=_nolog, table=None,
                omens=None) -> Battle:
    b = Battle(rules, policies, dice, pol, log, table, omens)
    b.outcome = b.run()
    return b


def play_block(rules: Rules, policies, g0, g1, dice, pol, out, table=None,
               omens=None) -> None:
    """Games g0..g1-1 into ``out`` (same layout as the kernel); ``table``: Setup.table;
    ``omens``: Setup.omens."""
    for g in range(g0, g1):
        b = play_battle(rules, policies, dice, pol, table=table, omens=omens)
        out["outcome"][g] = int(b.outcome)
        out["rolls"][g] = b.rolls
        out["structure"][g] = b.struct
        out["epic"][g] = sum(1 << EPIC_NAMES.index(e) for e in b.epics)
        out["traitor"][g] = -1 if b.traitor is None else SLOTS.index(b.traitor)
        for k, slot in enumerate(SLOTS):
            out["alive"][g, k] = b.cnt[slot]
            out["dead"][g, k] = b.dead[slot]
            out["fled"][g, k] = b.fled[slot]
            out["retreated"][g, k] = b.retreated[slot]
            out["joined"][g, k] = b.joined[slot]
            out["left"][g, k] = b.left[slot]
        for j, e in enumerate(EFFECTS):
            out["effects"][g, j] = b.effects[e]
