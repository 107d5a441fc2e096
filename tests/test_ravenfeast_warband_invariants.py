"""Ravenfeast warband invariants over many random battles (rules notes ravenfeast.md §12.6):
wounds never negative, the dead never return, a fled (or dead, or captive) figure never attacks,
only Thralls are captured; kernel outputs are consistent with the victory rule."""
from __future__ import annotations

import numpy as np

from vikingsim.core.runner import simulate
from vikingsim.games.ravenfeast import GAME, warband_setup
from vikingsim.games.ravenfeast.rules import Outcome
from vikingsim.games.ravenfeast.warband.reference import ACTIVE, CAPTURED, DEAD, Battle
from vikingsim.games.ravenfeast.warbands import PRESETS

POLICIES = ["default", "wall", "spread", "leader_hunt", "random", "geld_saves", "no_geld",
            "cautious", "wall_cautious"]
BANDS = list(PRESETS) + ["jarl+berserker*2+thrall*3", "bondi_archer*4+hirdmen*2"]


class Checked(Battle):
    """The reference engine with invariant checks at every attack and phase end."""

    dead: set

    def attack(self, f, x, mel, arm):
        assert f.status == ACTIVE, f"{f} attacks while {f.status}"
        assert x.alive(), f"{x} attacked while {x.status}"
        super().attack(f, x, mel, arm)

    def free_attacks_on(self, f):
        for e in self.contacts(f):
            assert e.status == ACTIVE
        super().free_attacks_on(f)

    def melee(self, duel_only):
        super().melee(duel_only)
        for line in self.lines:
            assert all(f.status == ACTIVE and not f.reserve for f in line)
        self.check()

    def rally(self):
        super().rally()
        self.check()

    def end_of_turn(self):
        super().end_of_turn()
        self.check()

    def check(self):
        if not hasattr(self, "dead"):
            self.dead = set()
        for band in self.bands:
            for f in band:
                assert f.blood >= 0
                if (f.side, f.i) in self.dead:
                    assert f.status == DEAD, f"{f} came back as {f.status}"
                if f.status == DEAD:
                    self.dead.add((f.side, f.i))
                assert f.status != CAPTURED or f.thrall
        assert all(g >= 0 for g in self.geld)


def test_invariants_over_random_battles():
    picker = np.random.default_rng(2024)          # chooses configurations only
    dice = np.random.default_rng(7)
    prng = np.random.default_rng(8)
    n_battles = 0
    for _ in range(40):
        opts = {"a": str(picker.choice(BANDS)), "b": str(picker.choice(BANDS)),
                "mode": str(picker.choice(["warband", "warband", "scenario"])),
                "approach_turns": int(picker.integers(0, 3)),
                "rear_attack_from": int(picker.choice([0, 2, 3])),
                "geld": int(picker.integers(0, 5)),
                "end_rule": str(picker.choice(["no_fighters", "no_figures"])),
                "raven_test_side": str(picker.choice(["victim_side", "attacker_side"])),
                "hero_morale_bonus": str(picker.choice(["self", "nearby"])),
                "capture_thralls": bool(picker.integers(0, 2))}
        pols = [str(picker.choice(POLICIES)), str(picker.choice(POLICIES))]
        s = warband_setup(opts, pols)
        for _ in range(25):
            res, turns, gm, duel = Checked(s, dice, prng).play()
            assert 0 <= res <= 3 and 1 <= turns <= 50
            n_battles += 1
    assert n_battles == 1000


def test_kernel_outputs_are_consistent():
    for opts, pols in ((dict(a="raiders300", b="levy300"), ["wall", "random"]),
                       (dict(a="jarl_hird10", b="thralls10", rear_attack_from=3), ["default"]),
                       (dict(a="hirdmen10", b="bondi10", end_rule="no_figures"), ["cautious"])):
        r = simulate("ravenfeast", n=30_000, seed=3, options={"mode": "warband", **opts},
                     policies=pols, threads=2)
        # GAME.invariants (warband.invariants): counts within the warbands, fled among the
        # survivors, captives only Thralls, turns and truncation, and every outcome as the
        # victory rule gives it: §12.6 fighters decide; a tie goes to more Thralls held
        # (§10.6 DEFAULT tiebreak), else a draw
        assert GAME.invariants(r.setup, r.out) == []


def _broken(out, game, **values):
    out = {k: v.copy() for k, v in out.items()}
    for k, v in values.items():
        out[k][game] = v
    return out


def test_invariants_report_broken_battles():
    r = simulate("ravenfeast", n=400, seed=3, threads=1,
                 options={"mode": "warband", "a": "jarl_hird10", "b": "thralls10"})
    s, o = r.setup, r.out
    assert GAME.invariants(s, o) == []
    won = int(np.argmax(o["outcome"] == Outcome.A_WIN))       # a battle A won outright
    assert o["outcome"][won] == Outcome.A_WIN and o["b_survivors"][won] == o["b_fled"][won]
    cases = [({"a_survivors": 11}, "survivors outside"),
             ({"b_fled": 11}, "more fled than survivors"),
             ({"b_thralls": 1}, "captives that are no Thralls"),        # A has no Thralls
             ({"turns": 0}, "turns outside"),
             ({"outcome": Outcome.TRUNCATED}, "truncated before max_turns"),
             ({"outcome": Outcome.B_WIN}, "b_win against the victory rule"),
             ({"outcome": Outcome.DRAW}, "draw against the victory rule"),
             ({"b_survivors": 1, "b_fled": 0}, "a_win against the victory rule")]
    for values, what in cases:
        found = GAME.invariants(s, _broken(o, won, **values))
        assert any(what in v and f"first game {won}" in v for v in found), (values, found)
    sc = simulate("ravenfeast", n=400, seed=3, threads=1, options={
        "mode": "scenario", "a": "jarl+huskarl*2", "b": "jarl+huskarl*2"})   # duels decide
    assert GAME.invariants(sc.setup, sc.out) == []
    duel = int(np.argmax((sc.out["general_melee"] == 0) & (sc.out["duel_result"] >= 0)))
    assert sc.out["general_melee"][duel] == 0 and sc.out["duel_result"][duel] >= 0
    flipped = 1 - int(sc.out["duel_result"][duel]) if sc.out["duel_result"][duel] < 2 else 0
    found = GAME.invariants(sc.setup, _broken(sc.out, duel, outcome=flipped))
    assert any("Jarls' duel" in v for v in found), found
