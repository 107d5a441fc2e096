"""Plain-Python Ravenfeast warband battle (rules notes ravenfeast.md §12.6, §10.7): the test
oracle and bench baseline for ``kernel.py``, and the trace. Written with figure objects and lists,
without the kernel's helpers, but with the same draw order (see ``kernel.py``'s docstring), so
both give identical battles from the same Generators.

What it shares with the kernel:

- profile data: each figure's row from ``warbands.compile_warband`` (the profile table, the
  warband list's overrides, the §7.2 Tough reading), its Thrall flag and its model points
  (the §12.3 price table, used for target ties);
- the rule readings as given (``WarbandSetup.rules`` and ``.wrules``, the dataclasses, not the
  kernel's compiled vector ``ri``) and the policy rows ``WarbandSetup.pol``
  (``policies.WarbandPolicy.row``, read through ``PolicySlot``, ``Target``, ``GeldUse``).

Everything else is worked out here from the rules notes: modified Melee and Armor per blow
(``duel.reference.modified_melee`` / ``modified_armor``, the plain reading shared by both
references; never ``rules.melee_rating``/``armor_rating`` or the kernel's ``melt``/``armt``
tables), the Hero's +1 Morale (§13.3), Fight for Honor's Armor-3 Jarls (§10.7), the morale
rating, victory and the Thrall tie-break (§10.6).
"""
from __future__ import annotations

from vikingsim.core import rng as _rng
from vikingsim.core.rng import d6
from vikingsim.games.ravenfeast.duel.reference import clamp, modified_armor, modified_melee
from vikingsim.games.ravenfeast.profiles import RATING_MAX, Stat
from vikingsim.games.ravenfeast.rules import BLOCK_GAMES, INT8_MAX, Outcome
from vikingsim.games.ravenfeast.warband.policies import GeldUse, PolicySlot, Target
from vikingsim.games.ravenfeast.warbands import compile_warband

ACTIVE, COWARD, DEAD, CAPTURED = "active", "coward", "dead", "captured"


class Rated:
    """One figure's numbers before the battle: its profile row (shared data) and the ratings
    this module works out from the rules notes."""

    def __init__(self, key, row, thrall, points2, rules, wrules):
        self.key = key
        self.attacks, self.wounds = int(row[Stat.ATTACKS]), int(row[Stat.WOUNDS])
        self.missile, self.range = int(row[Stat.MISSILE]), int(row[Stat.RANGE])
        self.leader, self.hero = bool(row[Stat.LEADER]), bool(row[Stat.HERO])
        self.mighty = bool(row[Stat.MIGHTY])
        self.fated, self.fearless = bool(row[Stat.FATED]), bool(row[Stat.FEARLESS])
        self.thrall, self.points2 = bool(thrall), int(points2)
        self.melee = clamp(int(row[Stat.MELEE]), rules)          # Free Attacks: no modifier
        self.armor = int(row[Stat.ARMOR])
        if wrules.scenario == "fight_for_honor" and key == "jarl":
            self.armor = wrules.ffh_jarl_armor                   # §10.7 [RF-FfH] Armor-3 Jarls
        self.morale = int(row[Stat.MORALE])
        if self.hero and wrules.hero_morale_bonus == "self":
            self.morale = min(self.morale + 1, RATING_MAX)       # §9.3, §13.3: +1, max 5
        self.melee_in = {(out, wall): modified_melee(int(row[Stat.MELEE]), rules,
                                                     outnumbered=out, wall=wall)
                         for out in (False, True) for wall in (False, True)}
        self.armor_vs = {(wall, rear, mighty): modified_armor(self.armor, rules, wall=wall,
                                                              rear=rear, mighty=mighty)
                         for wall in (False, True) for rear in (False, True)
                         for mighty in (False, True)}


def roster(setup):
    """Per side, the :class:`Rated` figures of ``setup``'s warbands (made once per setup)."""
    out = []
    for band in setup.warbands:
        rows, thrall, points2 = compile_warband(band, tough_reading=setup.rules.tough_reading)
        out.append([Rated(band.figures[i][0], rows[i], thrall[i], points2[i], setup.rules,
                          setup.wrules) for i in range(len(band))])
    return out


class Fig:
    """One figure: its :class:`Rated` numbers plus its battle state."""

    def __init__(self, rated, side, i):
        self.side, self.i = side, i
        for k in ("attacks", "melee", "wounds", "morale", "missile", "range", "points2",
                  "leader", "hero", "mighty", "fated", "fearless", "thrall", "melee_in",
                  "armor_vs"):
            setattr(self, k, getattr(rated, k))
        self.blood = 0
        self.status = ACTIVE
        self.reserve = False
        self.target = None        # the enemy it attacks this turn
        self.engaged = 0          # enemies in contact this turn
        self.rear = False         # attacks its target from the rear
        self.surrounded = False
        self.raven = 0
        self.hit_by = None
        self.captor = None

    def alive(self):
        return self.status in (ACTIVE, COWARD)

    def left(self):
        return self.wounds - self.blood

    def __repr__(self):
        return f"{'AB'[self.side]}{self.i}"


class Battle:
    def __init__(self, setup, dice, prng, log=None, rated=None):
        self.rules, self.wr = setup.rules, setup.wrules
        self.pol = [{p.name.lower(): int(setup.pol[s, p]) for p in PolicySlot
                     if p != PolicySlot.N} for s in (0, 1)]      # per seat: wall, target, ...
        rated = roster(setup) if rated is None else rated
        self.bands = [[Fig(r, s, i) for i, r in enumerate(rated[s])] for s in (0, 1)]
        self.names = [f"A ({setup.names[0]})", f"B ({setup.names[1]})"]   # for the log
        self.dice, self.prng, self.log = dice, prng, log
        self.leader = [next(f for f in band if f.leader) for band in self.bands]
        self.wall = [False, False]
        self.front = [0, 0]
        self.geld = [self.wr.geld] * 2
        self.fifty = [False, False]
        self.ev_leader = [0, 0]
        self.ev_hero = [0, 0]
        self.fled = [0, 0]
        self.lines = [[], []]
        self.order = (0, 1)       # sides in this turn's initiative order (§3.1)

    # -- helpers
    def say(self, msg):
        if self.log is not None:
            self.log.append(msg)

    def roll(self):
        return d6(self.dice)

    def enemies(self, f):
        return self.bands[1 - f.side]

    def contacts(self, f):
        """Enemies that can strike f now: ACTIVE and in contact this turn (§4.4)."""
        return [e for e in self.enemies(f)
                if e.status == ACTIVE and (e.target is f or f.target is e)]

    def removed(self, s):
        return sum(1 for f in self.bands[s] if f.status in (DEAD, CAPTURED))

    def geld_ok(self, s):
        return self.geld[s] > 0 and (not self.wr.geld_needs_leader or self.leader[s].alive())

    def test(self, rating):
        return self.roll() <= rating

    def better(self, kind, e, b):
        if kind == Target.LEADER:
            ke, kb = 2 * e.leader + e.hero, 2 * b.leader + b.hero
            if ke != kb:
                return ke > kb
        elif kind == Target.SPREAD and e.engaged != b.engaged:
            return e.engaged < b.engaged
        if (e.left() > 0) != (b.left() > 0):
            return e.left() > 0
        if e.left() != b.left():
            return e.left() < b.left()
        return e.points2 > b.points2

    def choose(self, kind, cands):
        if kind == Target.RANDOM:
            return cands[int(self.prng.random() * len(cands))]
        best = cands[0]
        for c in cands[1:]:
            if self.better(kind, c, best):
                best = c
        return best

    def free_attacks_on(self, f):
        for e in self.contacts(f):
            if self.roll() <= e.melee:
                f.blood += 1
                f.hit_by = e
                self.say(f"  {e} strikes {f} as it leaves: a wound")

    # -- phases
    def initiative(self):
        """§3.2: this turn's order. rolled: each side rolls a d6 (a's die first) minus the
        Leaders and Heroes left in its force; the lower total acts first in every phase (it
        does not name the other side); a tie rolls again. a_first: a, then b, no dice."""
        if self.wr.initiative == "a_first":
            self.order = (0, 1)
            return
        left = [sum(int(f.leader) + int(f.hero) for f in band if f.alive()) for band in self.bands]
        while True:
            totals = [self.roll() - left[0], self.roll() - left[1]]
            if totals[0] != totals[1]:
                break
            self.say(f"  initiative tied at {totals[0]}: both roll again")
        self.order = (0, 1) if totals[0] < totals[1] else (1, 0)
        self.say(f"  initiative: {self.names[self.order[0]]} acts first "
                 f"(d6 - Leaders and Heroes: {totals[0]} v {totals[1]})")

    def rally(self):
        for s in self.order:
            lead = self.leader[s]
            for f in self.bands[s]:
                if f.status != COWARD:
                    continue
                rating = f.morale
                if self.wr.rally_uses_leader and lead.status == ACTIVE:
                    rating = max(rating, lead.morale)
                ok = self.test(rating)
                if not ok and self.pol[s]["geld"] == GeldUse.MORALE and self.geld_ok(s):
                    self.geld[s] -= 1
                    ok = self.test(rating)
                if ok:
                    f.status, f.target = ACTIVE, None
                    self.say(f"  {f} rallies")
                else:
                    f.status = DEAD
                    self.ev_leader[s] += f.leader
                    self.ev_hero[s] += f.hero
                    self.say(f"  {f} fails to rally and is removed")

    def form_walls(self):
        for s in (0, 1):
            if self.pol[s]["wall"]:
                k = sum(1 for f in self.bands[s] if f.status == ACTIVE)
                if k >= self.wr.wall_min_figures:
                    self.wall[s] = True
                    self.front[s] = -(-k // self.wr.wall_ranks)
                    self.say(f"  {self.names[s]} forms a shield wall, {self.front[s]} wide")

    def disengage(self):
        for s in self.order:
            at = self.pol[s]["disengage_at"]        # wounds left at which it steps out
            if at == 0:
                continue
            lead = self.leader[s]
            if lead.status != ACTIVE or lead.reserve or lead.target is None or lead.surrounded:
                continue
            if lead.blood == 0 or lead.left() > at:
                continue
            if not any(f is not lead and f.status == ACTIVE and not f.reserve for f in self.bands[s]):
                continue
            self.say(f"  {lead} disengages")
            self.free_attacks_on(lead)
            lead.reserve, lead.target = True, None

    def missiles(self, t):
        dist = self.wr.approach_last_distance + (self.wr.approach_turns - t) * self.wr.approach_step
        for band in self.bands:
            for f in band:
                f.engaged = 0
        for s in self.order:
            foes = self.bands[1 - s]
            for f in self.bands[s]:
                if f.status != ACTIVE or f.missile == 0 or f.range < dist:
                    continue
                cands = [e for e in foes if e.status == ACTIVE and not e.leader and not e.hero]
                cands = cands or [e for e in foes if e.status == ACTIVE]
                if not cands:
                    continue
                x = self.choose(self.pol[s]["target"], cands)
                x.engaged += 1
                h = self.roll()
                if h > f.missile:
                    continue
                blocked = False
                for _ in range(self.wr.cover_pieces):
                    if self.roll() >= self.wr.cover_block_min:
                        blocked = True
                        break
                if blocked:
                    continue
                arm = x.armor_vs[self.wall[1 - s], False, False]   # §5.3: no Mighty
                sv = self.roll()
                if (sv > arm and self.pol[1 - s]["geld"] == GeldUse.LEADER_SAVES
                        and x.leader and self.geld_ok(1 - s)):
                    self.geld[1 - s] -= 1
                    sv = self.roll()
                if sv > arm:
                    x.blood += 1
                    x.hit_by = None
                    self.say(f"  {f} shoots {x}: a wound")
                if self.rules.free_attack_in_missile and h == 1 and self.trigger(sv, arm):
                    if self.roll() <= f.missile:
                        x.blood += 1
                        x.raven += 1
                        x.hit_by = None

    def trigger(self, sv, arm):
        return sv == 6 if self.rules.free_attack_trigger == "armor_six" else sv > arm

    def melee(self, duel_only):
        for band in self.bands:
            for f in band:
                f.target, f.engaged, f.rear, f.surrounded = None, 0, False, False
        for s in (0, 1):
            line = [f for f in self.bands[s] if f.status == ACTIVE and not f.reserve
                    and (not duel_only or f.leader)]
            if not line and not duel_only:
                line = [f for f in self.bands[s] if f.status == ACTIVE and f.reserve]
                for f in line:
                    f.reserve = False
            if self.wall[s]:
                line = line[: self.front[s]]
            self.lines[s] = line
        m = min(len(self.lines[0]), len(self.lines[1]))
        if m == 0:
            return
        for a, b in zip(self.lines[0][:m], self.lines[1][:m]):
            a.target, b.target, a.engaged, b.engaged = b, a, 1, 1
        if len(self.lines[0]) != len(self.lines[1]):
            big = 0 if len(self.lines[0]) > len(self.lines[1]) else 1
            sm = 1 - big
            for f in self.lines[big][m:]:
                e = self.choose(self.pol[big]["target"], self.lines[sm])
                f.target, f.engaged = e, 1
                e.engaged += 1
                if self.wr.rear_attack_from > 0 and e.engaged >= self.wr.rear_attack_from:
                    f.rear, e.surrounded = True, True
            for x in self.lines[sm]:
                if x.engaged > 1:
                    cands = [f for f in self.lines[big] if f.target is x]
                    x.target = self.choose(self.pol[sm]["target"], cands)
        for s in self.order:
            for f in self.lines[s]:
                x = f.target
                mel = f.melee_in[f.engaged > 1, self.wall[s]]             # §6.2, §8.3
                arm = x.armor_vs[self.wall[1 - s], f.rear, f.mighty]      # §6.2, §8.3
                for _ in range(f.attacks):
                    self.attack(f, x, mel, arm)

    def attack(self, f, x, mel, arm):
        h = self.roll()
        if h > mel:
            return
        sv = self.roll()
        es = x.side
        if (sv > arm and self.pol[es]["geld"] == GeldUse.LEADER_SAVES and x.leader
                and self.geld_ok(es)):
            self.geld[es] -= 1
            sv = self.roll()
        if sv > arm:
            x.blood += 1
            x.hit_by = f
            self.say(f"  {f} hits {x} ({h} to hit), Armor roll {sv} fails: a Blood token")
        if self.rules.free_attack and h == 1 and self.trigger(sv, arm):
            if self.roll() <= mel:
                x.blood += 1
                x.raven += 1
                x.hit_by = f
                self.say(f"  {f} kills {x} in a Death Worthy of a Song: Raven token")

    def removal(self):
        while True:
            doomed = [(f, f.status == ACTIVE) for band in self.bands for f in band
                      if f.alive() and f.blood >= f.wounds]
            if not doomed:
                break
            for f, _ in doomed:
                h = f.hit_by
                if (self.wr.capture_thralls and f.thrall and h is not None and h.alive()
                        and h.blood < h.wounds):
                    f.status, f.captor = CAPTURED, h
                    self.say(f"  {f} is captured by {h}")
                else:
                    f.status = DEAD
                    self.say(f"  {f} is removed as killed")
                self.ev_leader[f.side] += f.leader
                self.ev_hero[f.side] += f.hero
            for f, in_contact in doomed:
                if not (in_contact and f.fated):
                    continue
                for e in self.contacts(f):
                    if self.roll() <= f.melee:
                        if self.rules.fated_armor_roll:
                            if self.roll() <= e.armor_vs[self.wall[e.side], False, f.mighty]:
                                continue
                        e.blood += 1
                        e.hit_by = f
                        self.say(f"  Fated {f} strikes {e} as it dies")
        for band in self.bands:
            for f in band:
                if f.status == CAPTURED and not f.captor.alive():
                    f.status, f.blood, f.captor, f.target, f.hit_by = ACTIVE, f.wounds - 1, None, None, None
                    self.say(f"  {f} is freed")

    def flee(self, f):
        self.fled[f.side] += 1
        self.say(f"  {f} fails morale and flees")
        if f.surrounded:
            f.blood = f.wounds
        else:
            self.free_attacks_on(f)
        f.status, f.target, f.reserve = COWARD, None, False

    def group_test(self, s):
        band = self.bands[s]
        lead = self.leader[s]
        nearby = int(self.wr.hero_morale_bonus == "nearby"
                     and any(f.hero and f.status == ACTIVE for f in band))
        order = ([lead] + [f for f in band if f.hero and f is not lead]
                 + [f for f in band if f is not lead and not f.hero])
        shared = 0
        for k, f in enumerate(order):
            if f.status != ACTIVE or f.fearless:
                continue
            first = f is lead or f.hero
            m = max(f.morale + (0 if f.hero else nearby), shared)
            if self.wall[s]:
                m += self.wr.shield_wall_morale_bonus
            if self.rules.rating_clamp:
                m = min(max(m, 0), RATING_MAX)
            ok = self.test(m)
            if not ok and self.pol[s]["geld"] == GeldUse.MORALE and self.geld_ok(s):
                self.geld[s] -= 1
                ok = self.test(m)
            if ok:
                if first and self.wr.leader_shares_morale:
                    shared = max(shared, f.morale)
            else:
                self.flee(f)

    def end_of_turn(self):
        self.removal()
        ravens = [0, 0]
        for s in (0, 1):
            for f in self.bands[s]:
                if f.raven and (not self.wr.raven_token_requires_death or not f.alive()):
                    ravens[1 - s if self.wr.raven_test_side == "attacker_side" else s] += f.raven
                f.raven = 0
        self.fled = [0, 0]
        for s in self.order:
            tests = []
            if self.ev_leader[s]:
                tests.append("Leader killed")
            if not self.fifty[s] and 2 * self.removed(s) > len(self.bands[s]):
                self.fifty[s] = True
                tests.append("past 50%")
            tests += ["Hero killed"] * self.ev_hero[s] + ["Raven token"] * ravens[s]
            for why in tests:
                self.say(f"  {self.names[s]} tests morale: {why}")
                self.group_test(s)
            self.ev_leader[s] = self.ev_hero[s] = 0
        self.removal()
        for s in (0, 1):
            standing = sum(f.status == ACTIVE for f in self.bands[s])
            if self.wall[s] and standing < self.wr.wall_min_figures:
                self.wall[s] = False
                self.say(f"  {self.names[s]}'s shield wall breaks")

    def fighters(self, s):
        ok = (ACTIVE, COWARD) if self.wr.end_rule == "no_figures" else (ACTIVE,)
        return sum(1 for f in self.bands[s] if f.status in ok)

    def play(self):
        scen = self.wr.scenario == "fight_for_honor"
        gm = 0 if scen else 1
        duel = -1
        approach = 0 if scen else self.wr.approach_turns
        shooters = any(f.missile > 0 for band in self.bands for f in band)
        result = None
        t = 0
        while t < self.rules.max_turns:
            t += 1
            self.say(f"Turn {t}: " + "; ".join(
                f"{self.names[s]} {self.fighters(s)} fighting" for s in (0, 1)))
            self.order = (0, 1)
            if not (t <= approach and not shooters):     # a turn where nothing can happen
                self.initiative()                        # rolls no initiative dice
            self.rally()
            if t == 1:
                self.form_walls()
            elif gm:
                self.disengage()
            if t <= approach:
                self.missiles(t)
            else:
                self.melee(duel_only=not gm)
            self.end_of_turn()
            if not gm:
                la = self.leader[0].status == DEAD
                lb = self.leader[1].status == DEAD
                if la or lb:
                    duel = Outcome.DRAW if la and lb else (Outcome.B_WIN if la else Outcome.A_WIN)
                if sum(self.fled):
                    gm = 1
                    self.say("  a warband breaks: general melee!")
                elif la or lb:
                    if self.wr.ffh_duel_death_ends:
                        result = duel
                        break
                    gm = 1
            if self.fighters(0) == 0 or self.fighters(1) == 0:
                result = self.victor()
                break
        if result is None:
            result = Outcome.TRUNCATED
        return int(result), t, gm, int(duel)

    def held(self, s):
        """Thralls of the other side that side s holds captive now (§10.6)."""
        return sum(1 for f in self.bands[1 - s] if f.status == CAPTURED)

    def victor(self):
        """§12.6: the side left with fighters wins. A tie (neither has any) goes to the side
        holding more captive Thralls (§10.6 "Thralls count toward victory", reading
        ``thrall_victory`` = tiebreak), then, if ``geld_breaks_ties``, to more Geld (§10.1);
        otherwise it is a draw."""
        wins = (Outcome.A_WIN, Outcome.B_WIN)
        for s in (0, 1):
            if self.fighters(s) and not self.fighters(1 - s):
                return wins[s]
        if self.wr.thrall_victory == "tiebreak" and self.held(0) != self.held(1):
            return wins[0] if self.held(0) > self.held(1) else wins[1]
        if self.wr.geld_breaks_ties and self.geld[0] != self.geld[1]:
            return wins[0] if self.geld[0] > self.geld[1] else wins[1]
        return Outcome.DRAW


def play_one(setup, dice, prng, log=None, rated=None) -> dict:
    """One battle; returns the per-battle output values (same keys as ``kernel.OUT_DTYPES``).
    ``rated``: :func:`roster` of ``setup`` (made here if None)."""
    b = Battle(setup, dice, prng, log, rated)
    res, t, gm, duel = b.play()
    row = {"outcome": res, "turns": t, "general_melee": gm, "duel_result": duel}
    for s, p in ((0, "a"), (1, "b")):
        row[f"{p}_survivors"] = sum(f.alive() for f in b.bands[s])
        row[f"{p}_fled"] = sum(f.status == COWARD for f in b.bands[s])
        row[f"{p}_thralls"] = sum(f.status == CAPTURED for f in b.bands[1 - s])
        row[f"{p}_geld"] = min(b.geld[s], INT8_MAX)
    return row


def reference_block(setup, g0, g1, dice_rng, pol_rng, out) -> None:
    """Plain-Python twin of ``kernel.play_block``: battles g0..g1-1 of ``out``."""
    rated = roster(setup)
    for g in range(g0, g1):
        for k, v in play_one(setup, dice_rng, pol_rng, rated=rated).items():
            out[k][g] = v


def trace(setup, seed: int, game_id: int = 0) -> str:
    """Battle ``game_id`` of a run with root ``seed``, told turn by turn (the same streams as the
    runner: the earlier battles of its RNG block are replayed silently first)."""
    dice, prng, first = _rng.trace_streams(seed, int(game_id), BLOCK_GAMES)
    rated = roster(setup)
    for _ in range(first):
        play_one(setup, dice, prng, rated=rated)
    log = [f"{setup.names[0]} ({len(setup.warbands[0])} figures, policy {setup.policies[0]}) vs "
           f"{setup.names[1]} ({len(setup.warbands[1])} figures, policy {setup.policies[1]}): "
           f"battle {game_id}, seed {seed}"]
    row = play_one(setup, dice, prng, log, rated=rated)
    res = {Outcome.A_WIN: "A wins", Outcome.B_WIN: "B wins", Outcome.DRAW: "draw",
           Outcome.TRUNCATED: "truncated"}[Outcome(row["outcome"])]
    log.append(f"Result: {res} after {row['turns']} turns; survivors A {row['a_survivors']}, "
               f"B {row['b_survivors']}.")
    return "\n".join(log)
