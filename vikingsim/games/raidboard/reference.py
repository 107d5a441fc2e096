"""Plain-Python reference engine of the raid board: the test oracle and the bench baseline.

Written straight from the rules notes as readable objects, independently of ``kernel.py``, but
drawing random numbers in the same order (income, move, then each space's dice; policy draws
on the policy stream), so it replays the kernel bit for bit. It can also narrate a game
(``events``), which ``vikingsim trace raidboard`` prints.
"""
from __future__ import annotations

from vikingsim.core.rng import d6
from vikingsim.games.raidboard.policies import (
    ELEMENTS, LOST_OPPONENT, LOST_OWN, N_PARAMS, FORBID_COL, PolicyKind)
from vikingsim.games.raidboard.rules import (
    BOARD, LAST_SPACE, N_SPACES, SPACE_NAMES, Region, Space)

_SEAS = [i for i, (_, k, _) in enumerate(BOARD) if k == Space.SEA]
_REGION_OF = [r for _, _, r in BOARD]
_REGIONS = {reg: [i for i, (_, _, r) in enumerate(BOARD) if r == reg]
            for reg in Region if reg not in (Region.NONE, Region.EAST)}
_STORM = 6                                          # §6.4: sea roll 6 = Great Storm
# The lookahead policy's values (§10.4), from the 2d6 arithmetic of §7.5 at the SEED thresholds:
# ways[t] of the 36 ordered rolls give total t; 2-4 destroy, 5-12 plunder, 9-12 capture.
_WAYS = {t: 6 - abs(t - 7) for t in range(2, 13)}
_PLUNDER_EV = sum(t * _WAYS[t] for t in range(5, 13)) / 36          # 232/36 Gold per raid
_P_DESTROYED = sum(_WAYS[t] for t in range(2, 5)) / 36              # 6/36
_P_CAPTURE = sum(_WAYS[t] for t in range(9, 13)) / 36               # 10/36
_MEAN_D6, _MEAN_2D6 = 3.5, 7.0
_P_SAIL_ON = 5 / 6                                   # §6.4: sea rolls 1-5 sail on
_SEED_MERCENARY_RAIDS = 2.0                          # §6.7 SEED: valued as two raids


def _sea_name(space):
    """The element name of a sea (§10.5): its name in lower_snake_case."""
    return SPACE_NAMES[space].lower().replace(" ", "_")


class Won(Exception):
    """Raised the moment a player reaches the target (§8.1)."""


class Game:
    """One raid board game. ``rules`` is a ``Rules``; ``kinds``/``params`` per seat."""

    def __init__(self, rules, kinds, params, dice, pol, events=None):
        self.r, self.kinds, self.params, self.dice, self.pol = rules, kinds, params, dice, pol
        n = len(kinds)
        # §4.1 everyone starts with start_gold; §4.4 designer variant: the k-th player in turn
        # order (k = 0 for first_seat) gets k steps more
        self.gold = [rules.start_gold + ((s - rules.first_seat) % n) * rules.seat_gold_step
                     for s in range(n)]
        self.pos = [0] * n
        self.dir = [1] * n
        self.miss = [False] * n
        self.lost = [0] * n
        self.owner = {}                      # space -> seat
        self.events = events
        self.round_i, self.turn_i = 0, 0     # the turn in play: round, index in turn order
        self.searcher = None                 # search players' choice (reference_search.py)

    def clone(self, rng, kinds):
        """A silent copy of this game whose dice and policy draws both come from ``rng``
        (a search player's rollout), seats on ``kinds``."""
        g = Game.__new__(Game)
        g.r, g.kinds, g.params, g.dice, g.pol = self.r, list(kinds), self.params, rng, rng
        g.gold, g.pos, g.dir = list(self.gold), list(self.pos), list(self.dir)
        g.miss, g.lost, g.owner = list(self.miss), list(self.lost), dict(self.owner)
        g.events, g.round_i, g.turn_i, g.searcher = None, self.round_i, self.turn_i, None
        return g

    # --- helpers -----------------------------------------------------------------------
    def say(self, text):
        if self.events is not None:
            self.events.append(text)

    def roll(self):
        return d6(self.dice)

    def gain(self, seat, amount, why):
        self.gold[seat] += amount
        self.say(f"  seat {seat} gains {amount} Gold ({why}) -> {self.gold[seat]}")
        if self.gold[seat] >= self.r.target_gold:
            raise Won(seat)

    def settlements(self, seat):
        return sorted(s for s, o in self.owner.items() if o == seat)

    def kingdoms(self, seat):
        return [reg for reg, spaces in _REGIONS.items()
                if all(self.owner.get(s) == seat for s in spaces)]

    def in_kingdom(self, space):
        reg = _REGION_OF[space]
        holder = self.owner.get(space)
        return reg in _REGIONS and all(self.owner.get(s) == holder for s in _REGIONS[reg])

    def may_place(self, seat):
        supply = self.r.settlement_supply
        return supply == 0 or len(self.settlements(seat)) < supply

    def step(self, pos, direction, steps):
        if self.r.variant == "circular":
            return (pos + steps) % N_SPACES, direction
        for _ in range(steps):
            if not 0 <= pos + direction <= LAST_SPACE:
                direction = -direction
            pos += direction
        return pos, direction

    def move(self, seat, steps):
        self.pos[seat], self.dir[seat] = self.step(self.pos[seat], self.dir[seat], steps)
        self.say(f"  seat {seat} moves {steps} to {SPACE_NAMES[self.pos[seat]]} ({self.pos[seat]})")

    # --- rules -------------------------------------------------------------------------
    def raid(self, seat, space, can_capture):
        """§7: returns False when the fleet is destroyed."""
        roll = self.roll() + self.roll()
        if roll <= self.r.raid_fail_max:
            loss = self.roll() + self.roll()
            self.gold[seat] = max(self.r.gold_floor, self.gold[seat] - loss)
            self.pos[seat], self.dir[seat], self.miss[seat] = 0, 1, True
            self.lost[seat] += 1
            self.say(f"  raid roll {roll}: fleet destroyed, loses {loss} -> {self.gold[seat]} Gold,"
                     " back to start, misses next turn")
            return False
        captured = can_capture and roll >= self.r.raid_capture_min and self.may_place(seat)
        if captured:
            self.say(f"  raid roll {roll}: captures {SPACE_NAMES[space]}"
                     + (f" from seat {self.owner[space]}" if space in self.owner else ""))
            self.owner[space] = seat
        self.gain(seat, roll, f"plunder, raid roll {roll}")
        return True

    def forbidden(self, seat):
        """§10.5: the elements the seat's policy may not choose (names of ``ELEMENTS``)."""
        flags = self.params[seat][FORBID_COL:N_PARAMS]
        return {e for e, f in zip(ELEMENTS, flags) if f}

    def search(self, seat, options):
        """A search player's choice among ``options`` (issue 21 §2)."""
        from vikingsim.games.raidboard import reference_search

        return (self.searcher or reference_search.choose)(self, seat, options)

    def exploration_target(self, seat):
        kind, params = self.kinds[seat], self.params[seat]
        if kind >= PolicyKind.FLATMC:
            return self.search(seat, list(_SEAS))          # §6.5: any sea
        no = self.forbidden(seat)
        seas = [q for q in _SEAS if _sea_name(q) not in no]          # §10.5
        if kind == PolicyKind.RANDOM:
            return seas[int(self.pol.random() * len(seas))]
        if kind == PolicyKind.LOOKAHEAD:
            best, best_v = _SEAS[0], -1e300
            for q in seas:
                v = 0.0
                for roll in range(1, _STORM):
                    land, _ = self.step(q, self.dir[seat], roll)
                    v += self.landing_value(seat, land, params[0], params[1])
                if v > best_v:
                    best, best_v = q, v
            return best
        p, d = self.pos[seat], self.dir[seat]
        while True:
            p, d = self.step(p, d, 1)
            if p in seas:
                return p

    def landing_value(self, seat, space, settle_value, miss_cost):
        kind, holder = BOARD[space][1], self.owner.get(space)
        raid = _PLUNDER_EV - _P_DESTROYED * (_MEAN_2D6 + miss_cost)
        if kind == Space.TERRITORY:
            if holder == seat:
                return _MEAN_D6
            if _REGION_OF[space] == Region.NORTH:
                if holder is None:
                    return settle_value
                if not self.r.north_opponent_settlement_raidable:
                    return 0.0
            return raid + _P_CAPTURE * settle_value
        return {Space.RAID_ONLY: raid, Space.MERCENARY: _SEED_MERCENARY_RAIDS * raid,
                Space.SEA: _P_SAIL_ON * raid, Space.EXPLORATION: _P_SAIL_ON * raid}.get(kind, 0.0)

    def lost_target(self, seat):
        on_board = sorted(self.owner)
        if not on_board:
            return None
        kind = self.kinds[seat]
        if kind >= PolicyKind.FLATMC:
            return self.search(seat, on_board)             # §6.8: any settlement
        # §10.5: never a forbidden kind of removal, unless that leaves nothing to remove
        no = self.forbidden(seat)
        allowed = [s for s in on_board if (LOST_OWN if self.owner[s] == seat
                                           else LOST_OPPONENT) not in no] or on_board
        if kind == PolicyKind.RANDOM:
            return allowed[int(self.pol.random() * len(allowed))]
        n = len(self.gold)                   # clockwise from the acting seat: ties go first
        rivals = [s for s in ((seat + i) % n for i in range(1, n))
                  if any(self.owner[t] == s for t in allowed)]
        if rivals:
            def threat(s):
                score = float(self.gold[s])
                if kind == PolicyKind.LOOKAHEAD:
                    score += (_MEAN_D6 * len(self.settlements(s))
                              + _MEAN_2D6 * len(self.kingdoms(s)))
                return score
            target = max(rivals, key=threat)                        # first of the best
            mine = self.settlements(target)
            king = [s for s in mine if self.in_kingdom(s)]
            if king:
                return king[0]
            if kind == PolicyKind.LOOKAHEAD:
                # a region where they hold all territories but one (§10.4)
                pair = [s for s in mine if _REGION_OF[s] in _REGIONS and sum(
                    self.owner.get(t) == target for t in _REGIONS[_REGION_OF[s]])
                    == len(_REGIONS[_REGION_OF[s]]) - 1]
                if pair:
                    return pair[0]
            return mine[0]
        mine = self.settlements(seat)
        loose = [s for s in mine if not self.in_kingdom(s)]
        return (loose or mine)[0]

    def remove(self, target):
        """§6.8: the settlement on ``target`` leaves the board (None: the board is empty)."""
        if target is not None:
            self.say(f"  Lost: removes seat {self.owner[target]}'s settlement on "
                     f"{SPACE_NAMES[target]}")
            del self.owner[target]

    def sail_to(self, seat, sea):
        """§6.5: to the chosen sea; True when its sea die is then rolled."""
        self.pos[seat] = sea
        self.say(f"  Exploration: sails to {SPACE_NAMES[sea]}")
        return self.r.exploration_resolves_sea

    def carry_out(self, seat, option):
        """The rest of ``seat``'s turn after it chose ``option`` on Lost or Exploration."""
        if BOARD[self.pos[seat]][1] == Space.LOST:
            self.remove(option)
        elif self.sail_to(seat, option):
            self.resolve(seat)

    def resolve(self, seat):
        while True:
            space = self.pos[seat]
            kind = BOARD[space][1]
            if kind == Space.TERRITORY:
                holder = self.owner.get(space)
                if holder == seat:
                    self.gain(seat, self.roll(), "own settlement")
                    return
                if _REGION_OF[space] == Region.NORTH and holder is None:
                    if self.may_place(seat):
                        self.owner[space] = seat
                        self.say(f"  settles {SPACE_NAMES[space]} without a raid")
                    return
                if (_REGION_OF[space] == Region.NORTH
                        and not self.r.north_opponent_settlement_raidable):
                    return
                self.raid(seat, space, True)
                return
            if kind == Space.RAID_ONLY:
                self.raid(seat, space, False)
                return
            if kind == Space.MERCENARY:
                for _ in range(self.r.mercenary_raids):
                    if not self.raid(seat, space, False) and self.r.mercenary_stops_on_destruction:
                        return
                return
            if kind == Space.LOST:
                self.remove(self.lost_target(seat))
                return
            if kind == Space.EXPLORATION:
                if not self.sail_to(seat, self.exploration_target(seat)):
                    return
                continue
            if kind == Space.SEA:
                roll = self.roll()
                if roll == _STORM:
                    self.say("  sea roll 6: Great Storm, stays put")
                    return
                self.say(f"  sea roll {roll}")
                self.move(seat, roll)
                if not self.r.sea_resolves_new_space:
                    return
                continue
            return

    def turn(self, seat):
        if self.miss[seat]:
            self.miss[seat] = False
            self.say(f"seat {seat} misses this turn")
            if self.r.miss_turn_skips_income:
                return
            moving = False
        else:
            moving = True
        n_dice = (len(self.settlements(seat)) * self.r.income_dice_per_settlement
                  + len(self.kingdoms(seat)) * self.r.income_dice_per_kingdom)
        if n_dice:
            income = 0
            for _ in range(n_dice):
                income += self.roll()
            self.gain(seat, income, f"income, {n_dice} dice")
        if not moving:
            return
        self.move(seat, self.roll())
        self.resolve(seat)

    def play(self, start_round=0, start_turn=0):
        """Play from turn ``start_turn`` of round ``start_round`` (0-based); returns (truncated,
        winner or -1, rounds)."""
        n = len(self.gold)
        for n_round in range(start_round, self.r.max_rounds):
            if n_round > start_round or start_turn == 0:
                self.say(f"-- round {n_round + 1}: gold {self.gold}")
            for i in range(start_turn if n_round == start_round else 0, n):
                seat = (self.r.first_seat + i) % n
                self.round_i, self.turn_i = n_round, i
                self.say(f"seat {seat} ({SPACE_NAMES[self.pos[seat]]}, {self.gold[seat]} Gold)")
                try:
                    self.turn(seat)
                except Won:
                    self.say(f"seat {seat} wins with {self.gold[seat]} Gold in round {n_round + 1}")
                    return False, seat, n_round + 1
        self.say("safety cap reached: truncated")
        return True, -1, self.r.max_rounds

    def play_after_turn(self):
        """Play on from the turn after the one in play (a rollout's continuation)."""
        n = len(self.gold)
        nxt = self.turn_i + 1
        return self.play(self.round_i + (nxt == n), nxt % n)


def play_block(setup, g0, g1, dice_rng, pol_rng, out):
    """Reference twin of the kernel's block: same rows, same draws."""
    for g in range(g0, g1):
        game = Game(setup.rules, [int(k) for k in setup.kinds], setup.params.tolist(),
                    dice_rng, pol_rng)
        truncated, winner, rounds = game.play()
        out["winner"][g], out["rounds"][g], out["truncated"][g] = winner, rounds, truncated
        for s in range(len(game.gold)):
            out["gold"][g, s] = game.gold[s]
            out["settlements"][g, s] = len(game.settlements(s))
            out["kingdoms"][g, s] = len(game.kingdoms(s))
            out["fleets_lost"][g, s] = game.lost[s]
