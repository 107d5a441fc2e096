"""Plain-Python reference engine for battle878: slow, obvious, same draws in the same order.

Written separately from ``kernel.py`` (no shared helpers apart from the ``Rules`` data), as
the test oracle and bench baseline. State is a dict of unit counts keyed by slot names;
every rule step is one named method citing its section. ``log`` (a callable) receives one
line per event, which ``trace`` prints.
"""
from __future__ import annotations

from vikingsim.core.rng import d6
from vikingsim.games.battle878.policies import compile_policies
from vikingsim.games.battle878.rules import EPIC_NAMES, Outcome, Rules

SLOTS = ("N", "B", "H", "T", "F", "VF")        # rules.Unit order
DIE_OF = {"N": 0, "B": 1, "H": 2, "T": 3, "F": 4, "VF": 4}
HOME = {"N": "V", "B": "V", "H": "E", "T": "E", "F": "E", "VF": "V"}
NAMES = {"N": "Norsemen", "B": "Berserker", "H": "Housecarl", "T": "Thegn", "F": "Fyrd",
         "VF": "Viking-side Fyrd", "STRUCT": "the Fort/Settlement"}
SIDE_NAME = {"V": "Vikings", "E": "English"}
OTHER = {"V": "E", "E": "V"}
POLICY_NAME_TO_KIND = {"default": "default", "never": "never", "greedy": "greedy",
                       "smart": "smart", "runes_smart": "smart", "prayer_smart": "smart",
                       "cautious": "smart",
                       "retreat": "retreat", "random": "random"}
EFFECTS = ("omens", "battle_rage", "ragnarok", "martyrdom", "faith_in_victory",
           "defend_the_faith", "convert", "gods_peace", "runes_rolled", "prayer_rolled")


def _nolog(_msg):
    pass


class Battle:
    """One battle; ``run()`` returns the Outcome. Attributes hold the final state."""

    def __init__(self, rules: Rules, policies, dice, pol, log=_nolog):
        self.r = rules
        self.dice, self.pol, self.log = dice, pol, log
        kinds = [POLICY_NAME_TO_KIND[p] for p in policies]
        self.kind = {"V": kinds[0], "E": kinds[1]}
        _, params = compile_policies(list(policies))
        self.ratio = {"V": float(params[0, 0]), "E": float(params[1, 0])}
        self.cut = float(params[0, 1])   # smart Vikings: Conversions allowed = gp cost - cut
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

    def alive(self, side):
        n = sum(v for k, v in self.cnt.items() if self.owner[k] == side)
        return n + (self.struct if side == "V" else 0)

    def add(self, slot, n, why):
        if n:
            self.cnt[slot] += n
            self.joined[slot] += n
            self.log(f"  {n} {NAMES[slot]} join ({why})")

    def strength(self, side):
        """Expected Hits per roll x units (+ structure): the policies' odds proxy."""
        s, n = 0.0, 0
        for k in SLOTS:
            if self.owner[k] != side:
                continue
            dice = self.cnt[k]
            if side == "V" and self.struct > 0 and k == "N" and self.fort:
                dice += 1
            if side == "V" and self.struct > 0 and k == "B" and (self.fort or self.settlement):
                dice += 1
            dice = min(dice, self.r.max_dice[DIE_OF[k]])
            s += dice * self.phit[DIE_OF[k]]
            n += self.cnt[k]
        if side == "V":
            n += self.struct
        return s * n

    def roll_face(self, die):
        return self.face[die][d6(self.dice) - 1]

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
        elif name == "traitors":
            att = "V" if r.attacker == "vikings" else "E"
            a, b = ("N", "B") if att == "V" else ("H", "T")
            if (self.cnt[a] > 0 and self.cnt[b] > 0 and self.owner[a] == att
                    and self.owner[b] == att and self.traitor is None):
                if self.kind[att] == "random":
                    t = a if self.rand() < 0.5 else b
                elif att == "V":
                    t = "B" if self.cnt["B"] < self.cnt["N"] else "N"
                else:
                    t = "H" if self.cnt["H"] < self.cnt["T"] else "T"
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
        self.bfh = r.berserker_rule_on
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
        r = self.r
        self.log(f"Roll {self.rolls}: {SIDE_NAME[s]} roll")
        if s == "V" and self.raven == "flee":       # SEED §5.4 Raven Banner Flee
            for k in ("N", "B"):
                if self.owner[k] == "V" and self.cnt[k] > 0:
                    self.cnt[k] -= 1
                    self.fled[k] += 1
                    self.log(f"  Raven Banner: a {NAMES[k]} flees")
            if self.alive("V") == 0:
                return Outcome.BOTH_ELIMINATED if self.alive("E") == 0 else Outcome.ENGLISH_WIN
        # 878 §4.3 dice per type; 878 §4.4 Fort/Settlement extra dice
        res = {k: {"hit": 0, "flee": 0, "cmd": 0, "blank": 0, "n": 0} for k in SLOTS}
        for k in SLOTS:
            if self.owner[k] != s:
                continue
            n = self.cnt[k]
            if s == "V" and self.struct > 0:
                if k == "N" and self.fort:
                    n += 1
                elif k == "B":
                    n += 1
            n = min(n, r.max_dice[DIE_OF[k]])
            res[k]["n"] = n
            for _ in range(n):
                res[k][self.roll_face(DIE_OF[k])] += 1
        # SEED §3.3 Edmund's Faith
        if r.edmunds_faith and s == ("E" if r.edmunds_faith_side == "english" else "V"):
            for k in SLOTS:
                m = res[k]["flee"] + res[k]["cmd"]
                res[k]["flee"] = res[k]["cmd"] = 0
                for _ in range(m):
                    res[k][self.roll_face(DIE_OF[k])] += 1
        # 878 §4.7 Ragnar
        if r.ragnar and s == "E" and self.first_english:
            for k in SLOTS:
                res[k]["flee"] += res[k]["cmd"]
                res[k]["cmd"] = 0
        # 878 §4.8 Northumbria
        ignored = False
        if self.north and s == "E":
            for k in ("H", "T", "F", "B", "N"):
                if self.owner[k] == "E" and res[k]["flee"] > 0:
                    res[k]["flee"] -= 1
                    ignored = True
                    self.north = False
                    self.log(f"  Northumbria: a {NAMES[k]} Flee is ignored")
                    break
        self.log("  dice: " + "; ".join(
            f"{NAMES[k]} {v['n']}: {v['hit']}H {v['flee']}F {v['cmd']}C"
            for k, v in res.items() if v["n"]))
        martyr = False
        if r.runes_prayer:
            martyr = self.roll_runes_prayer(s)
            for sp in (s, OTHER[s]):
                if self.kind[sp] in ("default", "never", "retreat"):
                    continue
                if sp == "V":
                    self.spend_vikings(s, res)
                elif self.spend_english(s, res):
                    return Outcome.GODS_PEACE
            self.log("  dice after Runes/Prayer: " + "; ".join(
                f"{NAMES[k]}: {v['hit']}H {v['flee']}F {v['cmd']}C"
                for k, v in res.items() if v["n"]))
        if martyr:
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
        for k in SLOTS:   # 878 §4.5 own Flees
            x = min(res[k]["flee"], self.cnt[k])
            if x:
                self.cnt[k] -= x
                self.fled[k] += x
                self.log(f"  {x} {NAMES[k]} flee")
        self.apply_hits(s, hits)
        retreated = False
        if cmds > 0 and "foul_weather" not in self.epics:
            retreated = self.retreat(s, cmds)
        if s == "E":
            self.first_english = False
        return self.end_check(s, retreated)

    def target(self, recv):
        kind = self.kind[recv]
        if kind == "random":
            opts = [k for k in SLOTS if self.owner[k] == recv and self.cnt[k] > 0]
            if recv == "V" and self.struct > 0:
                opts.append("STRUCT")
            if not opts:
                return None
            return opts[int(self.rand() * len(opts))]
        if recv == "V":
            order = [k for k in ("VF", "N", "B") if self.owner[k] == "V"] + ["STRUCT"]
        else:
            order = [k for k in ("N", "B", "F", "T", "H") if self.owner[k] == "E"]
        for k in order:
            if (self.struct > 0) if k == "STRUCT" else (self.cnt[k] > 0):
                return k
        return None

    def disorganized_target(self, recv):
        order = ["B", "N", "STRUCT", "VF"] if recv == "V" else ["H", "T", "F", "B", "N"]
        for k in order:
            if k == "STRUCT":
                if self.struct > 0:
                    return k
            elif self.owner[k] == recv and self.cnt[k] > 0:
                return k
        return None

    def apply_hits(self, s, hits):
        recv = OTHER[s]
        bfh = self.bfh and s == "E" and self.first_english
        dis = "disorganized_combat" in self.epics
        for i in range(hits):
            if i == 0 and bfh and self.owner["B"] == "V" and self.cnt["B"] > 0:
                t = "B"       # base rule 4.5
            elif dis:
                t = self.disorganized_target(recv)
                dis = False
            else:
                t = self.target(recv)
            if t is None:
                break
            if t == "STRUCT":
                self.struct -= 1
                self.log("  Hit on the Fort/Settlement")
                continue
            self.cnt[t] -= 1
            if ("single_combat" in self.epics or t == self.reform_unit
                    or (self.ragnarok and self.owner[t] == "V" and t in ("N", "B"))):
                self.fled[t] += 1
                self.log(f"  Hit: a {NAMES[t]} flees instead of dying")
            else:
                self.dead[t] += 1
                self.log(f"  Hit: a {NAMES[t]} dies")

    def retreat(self, s, cmds):
        kind = self.kind[s]
        if kind == "retreat":
            go = self.strength(s) < self.ratio[s] * self.strength(OTHER[s])
        elif kind == "random":
            go = self.rand() < 0.2
        else:
            return False
        if not go:
            return False
        lc = self.r.linen_clothes
        per = 2 if lc == "both" or lc == {"V": "vikings", "E": "english"}[s] else 1
        moves = cmds * per
        did = False
        for k in (("B", "N", "VF") if s == "V" else ("H", "T", "F")):
            if moves == 0:
                break
            if self.owner[k] != s or (k in ("VF", "F") and not self.r.command_moves_fyrd):
                continue
            x = min(moves, self.cnt[k])
            if x:
                self.cnt[k] -= x
                self.retreated[k] += x
                moves -= x
                did = True
                self.log(f"  {x} {NAMES[k]} retreat with Command")
        return did

    # ---------- SEED §4 Runes and Prayer
    def roll_runes_prayer(self, s):
        r = self.r
        kind = self.kind[s]
        martyr = False
        if s == "V":
            for k in ("N", "B"):
                if self.owner[k] != "V" or self.cnt[k] == 0:
                    continue
                if kind == "greedy":
                    want = True
                elif kind == "smart":
                    want = self.conv["E"] + self.conv["V"] < r.gods_peace_cost - self.cut
                elif kind == "random":
                    want = self.rand() < 0.5
                else:
                    want = False
                if self.pool["V"] > 0:
                    if want:
                        self.pool["V"] -= 1
                        self.place_rune()
                elif self.conv["V"] > 0 and (kind in ("greedy", "smart")
                                             or (kind == "random" and self.rand() < 0.5)):
                    self.conv["V"] -= 1      # SEED §4.1 re-roll one placed die
                    self.place_rune()
        else:
            for k in ("H", "T"):
                if self.owner[k] != "E" or self.cnt[k] == 0:
                    continue
                if kind in ("greedy", "smart"):
                    want = True
                elif kind == "random":
                    want = self.rand() < 0.5
                else:
                    want = False
                if not want:
                    continue
                if self.pool["E"] > 0:
                    self.pool["E"] -= 1
                elif self.faith > 0:
                    self.faith -= 1
                else:
                    continue
                face = r.prayer_faces[d6(self.dice) - 1]
                self.effects["prayer_rolled"] += 1
                self.log(f"  Prayer die: {face}")
                if face == "M":
                    martyr = True
                    self.effects["martyrdom"] += 1
                    self.pool["E"] += 1
                elif face == "C":
                    self.conv["E"] += 1
                else:
                    self.faith += 1
        return martyr

    def place_rune(self):
        face = self.r.runes_faces[d6(self.dice) - 1]
        self.effects["runes_rolled"] += 1
        self.log(f"  Runes die: {face}")
        if face == "R":
            self.runes += 1
        else:
            self.conv["V"] += 1

    def spend_vikings(self, s, res):
        r = self.r
        kind = self.kind["V"]
        if kind != "smart" and not self.ragnarok and self.runes >= r.ragnarok_cost:
            self.runes -= r.ragnarok_cost
            self.pool["V"] += r.ragnarok_cost
            self.ragnarok = True
            self.effects["ragnarok"] += 1
            self.log("  Ragnarök: Viking Hit units flee instead")
        while (self.runes >= r.battle_rage_cost and self.owner["N"] == "V" and self.cnt["N"] > 0
               and self.owner["B"] == "V" and self.reserve > 0):
            if kind == "smart" and self.cnt["B"] >= r.max_dice[1]:
                break
            self.runes -= r.battle_rage_cost
            self.pool["V"] += r.battle_rage_cost
            self.cnt["N"] -= 1
            self.left["N"] += 1
            self.cnt["B"] += 1
            self.joined["B"] += 1
            self.reserve -= 1
            self.effects["battle_rage"] += 1
            self.log("  Battle Rage: a Norseman becomes a Berserker")
            if kind == "smart":
                break
        while s == "V" and self.runes >= 1:
            best, bestv = None, 0.0
            for k in ("N", "B"):
                if self.owner[k] != "V":
                    continue
                nonhit = res[k]["n"] - res[k]["hit"]
                if nonhit <= 0:
                    continue
                v = nonhit * self.phit[DIE_OF[k]] if kind == "smart" else nonhit * 1.0
                if v > bestv:
                    best, bestv = k, v
            if best is None:
                break
            self.runes -= 1
            self.pool["V"] += 1
            self.effects["omens"] += 1
            m = res[best]["n"] - res[best]["hit"]
            res[best]["flee"] = res[best]["cmd"] = res[best]["blank"] = 0
            for _ in range(m):
                res[best][self.roll_face(DIE_OF[best])] += 1
            self.log(f"  Omens of Victory: {m} {NAMES[best]} dice re-rolled")

    def spend_english(self, s, res):
        r = self.r
        kind = self.kind["E"]
        bad = False
        if kind == "smart":
            bad = self.strength("E") < self.ratio["E"] * self.strength("V")
        if (self.conv["E"] + self.conv["V"] >= r.gods_peace_cost and r.gods_peace_exit
                and (kind != "smart" or bad)):
            self.effects["gods_peace"] += 1
            self.log("  God's Peace: the Vikings must leave")
            return True
        while self.faith >= r.defend_faith_cost:
            self.faith -= r.defend_faith_cost
            self.pool["E"] += r.defend_faith_cost
            self.add("F", self.draw_fyrd(), "Defend the Faith")
            self.effects["defend_the_faith"] += 1
        while (self.conv["E"] + self.conv["V"] >= r.convert_cost and self.owner["N"] == "V"
               and self.cnt["N"] > 0 and (kind != "smart" or not bad)):
            from_e = min(self.conv["E"], r.convert_cost)
            self.conv["E"] -= from_e
            self.pool["E"] += from_e
            self.conv["V"] -= r.convert_cost - from_e
            self.pool["V"] += r.convert_cost - from_e
            self.cnt["N"] -= 1
            self.left["N"] += 1
            self.cnt["T"] += 1
            self.joined["T"] += 1
            self.effects["convert"] += 1
            self.log("  Convert: a Norseman leaves, a Thegn joins")
        if s == "E" and (kind != "smart" or self.pool["E"] == 0):
            while self.faith >= 1 and res["F"]["flee"] > 0:
                res["F"]["flee"] -= 1
                self.faith -= 1
                self.pool["E"] += 1
                self.effects["faith_in_victory"] += 1
                self.log("  Faith in Victory: a Fyrd Flee is ignored")
        return False


def play_battle(rules: Rules, policies, dice, pol, log=_nolog) -> Battle:
    b = Battle(rules, policies, dice, pol, log)
    b.outcome = b.run()
    return b


def play_block(rules: Rules, policies, g0, g1, dice, pol, out) -> None:
    """Games g0..g1-1 into ``out`` (same layout as the kernel)."""
    for g in range(g0, g1):
        b = play_battle(rules, policies, dice, pol)
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
