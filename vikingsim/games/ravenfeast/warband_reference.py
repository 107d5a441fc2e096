"""Plain-Python Ravenfeast warband battle (rules notes ravenfeast.md §12.6, §10.7): the test oracle
and bench baseline for ``warband.py``. Written with figure objects and lists, without the
kernel's helpers, but with the same draw order (see ``warband.py``'s docstring), so both give
identical battles from the same Generators. It reads only the compiled setup tables
(``WarbandSetup``: ratings after ``rules.melee_rating`` / ``rules.armor_rating``).
"""
from __future__ import annotations

from vikingsim.core.rng import d6
from vikingsim.games.ravenfeast.warband import D, F, P, W

ACTIVE, COWARD, DEAD, CAPTURED = "active", "coward", "dead", "captured"
FOCUS, SPREAD, LEADER, RANDOM = 0, 1, 2, 3
GELD_MORALE, GELD_SAVES = 1, 2


class Fig:
    """One figure: profile numbers from the setup tables plus its battle state."""

    def __init__(self, setup, side, i):
        self.side, self.i = side, i
        row = setup.fig[side, i]
        self.attacks, self.melee, self.wounds = int(row[F.ATTACKS]), int(row[F.MELEE]), int(row[F.WOUNDS])
        self.morale, self.missile, self.range = int(row[F.MORALE]), int(row[F.MISSILE]), int(row[F.RANGE])
        self.points2 = int(row[F.POINTS2])
        self.leader, self.hero, self.mighty = bool(row[F.LEADER]), bool(row[F.HERO]), bool(row[F.MIGHTY])
        self.fated, self.fearless, self.thrall = bool(row[F.FATED]), bool(row[F.FEARLESS]), bool(row[F.THRALL])
        self.melee_t = [int(v) for v in setup.melt[side, i]]
        self.armor_t = [int(v) for v in setup.armt[side, i]]
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
    def __init__(self, setup, dice, prng, log=None):
        self.r = {w: int(setup.ri[w]) for w in W if w != W.N}
        self.pol = [{p: int(setup.pol[s, p]) for p in P if p != P.N} for s in (0, 1)]
        self.bands = [[Fig(setup, s, i) for i in range(int(setup.nfig[s]))] for s in (0, 1)]
        self.names = [f"A ({setup.names[0]})", f"B ({setup.names[1]})"]   # for the log
        self.dice, self.prng, self.log = dice, prng, log
        self.leader = [next(f for f in band if f.leader) for band in self.bands]
        self.wall = [False, False]
        self.front = [0, 0]
        self.geld = [self.r[W.GELD]] * 2
        self.fifty = [False, False]
        self.ev_leader = [0, 0]
        self.ev_hero = [0, 0]
        self.fled = [0, 0]
        self.lines = [[], []]

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
        return self.geld[s] > 0 and (not self.r[W.GELD_NEEDS_LEADER] or self.leader[s].alive())

    def test(self, rating):
        return self.roll() <= rating

    def better(self, kind, e, b):
        if kind == LEADER:
            ke, kb = 2 * e.leader + e.hero, 2 * b.leader + b.hero
            if ke != kb:
                return ke > kb
        elif kind == SPREAD and e.engaged != b.engaged:
            return e.engaged < b.engaged
        if (e.left() > 0) != (b.left() > 0):
            return e.left() > 0
        if e.left() != b.left():
            return e.left() < b.left()
        return e.points2 > b.points2

    def choose(self, kind, cands):
        if kind == RANDOM:
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
    def rally(self):
        for s in (0, 1):
            lead = self.leader[s]
            for f in self.bands[s]:
                if f.status != COWARD:
                    continue
                rating = f.morale
                if self.r[W.RALLY_LEADER] and lead.status == ACTIVE:
                    rating = max(rating, lead.morale)
                ok = self.test(rating)
                if not ok and self.pol[s][P.GELD] == GELD_MORALE and self.geld_ok(s):
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
            if self.pol[s][P.WALL]:
                k = sum(1 for f in self.bands[s] if f.status == ACTIVE)
                if k >= self.r[W.WALL_MIN]:
                    self.wall[s] = True
                    self.front[s] = -(-k // self.r[W.WALL_RANKS])
                    self.say(f"  {self.names[s]} forms a shield wall, {self.front[s]} wide")

    def disengage(self):
        for s in (0, 1):
            if self.pol[s][P.DISENGAGE] != 1:
                continue
            lead = self.leader[s]
            if lead.status != ACTIVE or lead.reserve or lead.target is None or lead.surrounded:
                continue
            if lead.blood == 0 or lead.left() != 1:
                continue
            if not any(f is not lead and f.status == ACTIVE and not f.reserve for f in self.bands[s]):
                continue
            self.say(f"  {lead} disengages")
            self.free_attacks_on(lead)
            lead.reserve, lead.target = True, None

    def missiles(self, t):
        dist = self.r[W.APPROACH_LAST] + (self.r[W.APPROACH_TURNS] - t) * self.r[W.APPROACH_STEP]
        for band in self.bands:
            for f in band:
                f.engaged = 0
        for s in (0, 1):
            foes = self.bands[1 - s]
            for f in self.bands[s]:
                if f.status != ACTIVE or f.missile == 0 or f.range < dist:
                    continue
                cands = [e for e in foes if e.status == ACTIVE and not e.leader and not e.hero]
                cands = cands or [e for e in foes if e.status == ACTIVE]
                if not cands:
                    continue
                x = self.choose(self.pol[s][P.TARGET], cands)
                x.engaged += 1
                h = self.roll()
                if h > f.missile:
                    continue
                blocked = False
                for _ in range(self.r[W.COVER]):
                    if self.roll() >= self.r[W.COVER_BLOCK]:
                        blocked = True
                        break
                if blocked:
                    continue
                arm = x.armor_t[int(self.wall[1 - s])]
                sv = self.roll()
                if (sv > arm and self.pol[1 - s][P.GELD] == GELD_SAVES and x.leader
                        and self.geld_ok(1 - s)):
                    self.geld[1 - s] -= 1
                    sv = self.roll()
                if sv > arm:
                    x.blood += 1
                    x.hit_by = None
                    self.say(f"  {f} shoots {x}: a wound")
                if self.r[W.FREE_IN_MISSILE] and h == 1 and self.trigger(sv, arm):
                    if self.roll() <= f.missile:
                        x.blood += 1
                        x.raven += 1
                        x.hit_by = None

    def trigger(self, sv, arm):
        return sv == 6 if self.r[W.TRIGGER_SIX] else sv > arm

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
                e = self.choose(self.pol[big][P.TARGET], self.lines[sm])
                f.target, f.engaged = e, 1
                e.engaged += 1
                if self.r[W.REAR_FROM] > 0 and e.engaged >= self.r[W.REAR_FROM]:
                    f.rear, e.surrounded = True, True
            for x in self.lines[sm]:
                if x.engaged > 1:
                    cands = [f for f in self.lines[big] if f.target is x]
                    x.target = self.choose(self.pol[sm][P.TARGET], cands)
        for s in (0, 1):
            for f in self.lines[s]:
                x = f.target
                mel = f.melee_t[(1 if f.engaged > 1 else 0) + 2 * self.wall[s]]
                arm = x.armor_t[int(self.wall[1 - s]) + 2 * f.rear + 4 * f.mighty]
                for _ in range(f.attacks):
                    self.attack(f, x, mel, arm)

    def attack(self, f, x, mel, arm):
        h = self.roll()
        if h > mel:
            return
        sv = self.roll()
        es = x.side
        if sv > arm and self.pol[es][P.GELD] == GELD_SAVES and x.leader and self.geld_ok(es):
            self.geld[es] -= 1
            sv = self.roll()
        if sv > arm:
            x.blood += 1
            x.hit_by = f
            self.say(f"  {f} hits {x} ({h} to hit), Armor roll {sv} fails: a Blood token")
        if self.r[W.FREE_ATTACK] and h == 1 and self.trigger(sv, arm):
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
                if (self.r[W.CAPTURE] and f.thrall and h is not None and h.alive()
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
                        if self.r[W.FATED_ARMOR]:
                            if self.roll() <= e.armor_t[int(self.wall[e.side]) + 4 * f.mighty]:
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
        nearby = int(bool(self.r[W.HERO_NEARBY]) and any(f.hero and f.status == ACTIVE for f in band))
        order = ([lead] + [f for f in band if f.hero and f is not lead]
                 + [f for f in band if f is not lead and not f.hero])
        shared = 0
        for k, f in enumerate(order):
            if f.status != ACTIVE or f.fearless:
                continue
            first = f is lead or f.hero
            m = max(f.morale + (0 if f.hero else nearby), shared)
            if self.wall[s]:
                m += self.r[W.WALL_MORALE]
            if self.r[W.CLAMP]:
                m = min(max(m, 0), 5)
            ok = self.test(m)
            if not ok and self.pol[s][P.GELD] == GELD_MORALE and self.geld_ok(s):
                self.geld[s] -= 1
                ok = self.test(m)
            if ok:
                if first and self.r[W.LEADER_SHARES]:
                    shared = max(shared, f.morale)
            else:
                self.flee(f)

    def end_of_turn(self):
        self.removal()
        ravens = [0, 0]
        for s in (0, 1):
            for f in self.bands[s]:
                if f.raven and (not self.r[W.RAVEN_DEATH] or not f.alive()):
                    ravens[1 - s if self.r[W.RAVEN_ATTACKER] else s] += f.raven
                f.raven = 0
        self.fled = [0, 0]
        for s in (0, 1):
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
            if self.wall[s] and sum(f.status == ACTIVE for f in self.bands[s]) < self.r[W.WALL_MIN]:
                self.wall[s] = False
                self.say(f"  {self.names[s]}'s shield wall breaks")

    def fighters(self, s):
        ok = (ACTIVE, COWARD) if self.r[W.END_FIGURES] else (ACTIVE,)
        return sum(1 for f in self.bands[s] if f.status in ok)

    def play(self):
        scen = self.r[W.SCENARIO]
        gm = 0 if scen else 1
        duel = -1
        approach = 0 if scen else self.r[W.APPROACH_TURNS]
        result = None
        t = 0
        while t < self.r[W.MAX_TURNS]:
            t += 1
            self.say(f"Turn {t}: " + "; ".join(
                f"{self.names[s]} {self.fighters(s)} fighting" for s in (0, 1)))
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
                    duel = 2 if la and lb else (1 if la else 0)
                if sum(self.fled):
                    gm = 1
                    self.say("  a warband breaks: general melee!")
                elif la or lb:
                    if self.r[W.FFH_DEATH_ENDS]:
                        result = duel
                        break
                    gm = 1
            f0, f1 = self.fighters(0), self.fighters(1)
            if f0 == 0 or f1 == 0:
                if f0:
                    result = 0
                elif f1:
                    result = 1
                elif self.r[W.GELD_TIEBREAK] and self.geld[0] != self.geld[1]:
                    result = 0 if self.geld[0] > self.geld[1] else 1
                else:
                    result = 2
                break
        if result is None:
            result = 3
        return result, t, gm, duel


def play_one(setup, dice, prng, log=None) -> dict:
    """One battle; returns the per-battle output values (same keys as ``OUT_DTYPES``)."""
    b = Battle(setup, dice, prng, log)
    res, t, gm, duel = b.play()
    row = {"outcome": res, "turns": t, "general_melee": gm, "duel_result": duel}
    for s, p in ((0, "a"), (1, "b")):
        row[f"{p}_survivors"] = sum(f.alive() for f in b.bands[s])
        row[f"{p}_fled"] = sum(f.status == COWARD for f in b.bands[s])
        row[f"{p}_thralls"] = sum(f.status == CAPTURED for f in b.bands[1 - s])
        row[f"{p}_geld"] = min(b.geld[s], 127)
    return row


def reference_block_warband(setup, g0, g1, dice_rng, pol_rng, out) -> None:
    """GameSpec.reference_block for mode warband / scenario: battles g0..g1-1, plain Python."""
    for g in range(g0, g1):
        for k, v in play_one(setup, dice_rng, pol_rng).items():
            out[k][g] = v


def trace_warband(setup, seed: int) -> str:
    """Battle 0 of block 0 for ``seed``, told turn by turn (same streams as the runner)."""
    from vikingsim.core import rng

    log = [f"{setup.names[0]} ({len(setup.warbands[0])} figures, policy {setup.policies[0]}) vs "
           f"{setup.names[1]} ({len(setup.warbands[1])} figures, policy {setup.policies[1]})"]
    row = play_one(setup, rng.block_generator(seed, rng.STREAM_DICE, 0),
                   rng.block_generator(seed, rng.STREAM_POLICY, 0), log)
    res = ["A wins", "B wins", "draw", "truncated"][row["outcome"]]
    log.append(f"Result: {res} after {row['turns']} turns; survivors A {row['a_survivors']}, "
               f"B {row['b_survivors']}.")
    return "\n".join(log)
