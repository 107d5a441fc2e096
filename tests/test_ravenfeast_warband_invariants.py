"""Ravenfeast warband invariants over many random battles (rules notes ravenfeast.md §12.6):
wounds never negative, the dead never return, a fled (or dead, or captive) figure never attacks,
only Thralls are captured; kernel outputs are consistent with the victory rule."""
from __future__ import annotations

import numpy as np

from vikingsim.core.runner import simulate
from vikingsim.games.ravenfeast import warband as wb
from vikingsim.games.ravenfeast.warband_reference import ACTIVE, CAPTURED, DEAD, Battle
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
        s = wb.setup_warband(opts, pols, 2)
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
        o, n = r.out, r.setup.inner.nfig
        assert (o["a_survivors"] >= 0).all() and (o["a_survivors"] <= n[0]).all()
        assert (o["b_survivors"] <= n[1]).all() and (o["a_fled"] <= o["a_survivors"]).all()
        assert (o["b_fled"] <= o["b_survivors"]).all()
        thralls = r.setup.inner.fig[:, :, wb.F.THRALL].sum(axis=1)
        assert (o["a_thralls"] <= thralls[1]).all() and (o["b_thralls"] <= thralls[0]).all()
        fight_a = o["a_survivors"] - (0 if opts.get("end_rule") == "no_figures" else o["a_fled"])
        fight_b = o["b_survivors"] - (0 if opts.get("end_rule") == "no_figures" else o["b_fled"])
        a_win, b_win, draw = o["outcome"] == 0, o["outcome"] == 1, o["outcome"] == 2
        # §12.6 fighters decide; a tie goes to more Thralls held (§10.6 DEFAULT tiebreak)
        held_a, held_b = o["a_thralls"].astype(int), o["b_thralls"].astype(int)
        assert (fight_b[a_win] == 0).all() and ((fight_a > 0) | (held_a > held_b))[a_win].all()
        assert (fight_a[b_win] == 0).all() and ((fight_b > 0) | (held_b > held_a))[b_win].all()
        assert (fight_a[draw] == 0).all() and (fight_b[draw] == 0).all()
        assert (held_a[draw] == held_b[draw]).all()
        trunc = o["outcome"] == 3
        assert (o["turns"][trunc] == 50).all() and (o["turns"] <= 50).all()
