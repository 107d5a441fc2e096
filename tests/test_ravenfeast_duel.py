"""Ravenfeast duel: forced-dice rule tests, reference == kernel bit for bit, invariants,
determinism (rules notes ravenfeast.md §6, §7, §10.3, §12.5)."""
import re

import numpy as np
import pytest

from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.core.testing import ScriptedDice, plain_module
from vikingsim.games.ravenfeast import GAME, OPTIONS, duel_setup
from vikingsim.games.ravenfeast.duel import kernel as duel
from vikingsim.games.ravenfeast.duel import reference as duel_reference
from vikingsim.games.ravenfeast.duel.kernel import (_resolve_end_of_turn, _resolve_free_trigger,
                                                    _resolve_hit, _resolve_outcome,
                                                    _resolve_save, _resolve_wounds_dealt)
from vikingsim.games.ravenfeast.rules import Outcome, Rules, Stance, armor_rating, melee_rating


class Dice:
    """Scripted 'Generator': ``d6`` turns each value back into the given face."""

    def __init__(self, faces):
        self.faces = list(faces)

    def random(self):
        return (self.faces.pop(0) - 0.5) / 6.0

    @property
    def left(self):
        return len(self.faces)


# ----------------------------------------------------------------- forced dice: one attack

@pytest.mark.parametrize("roll,melee,hit", [(4, 4, True), (5, 4, False), (1, 1, True),
                                            (6, 5, False), (1, 0, False)])
def test_hit_on_roll_at_or_under_melee(roll, melee, hit):       # §6.1, §2.2
    assert bool(_resolve_hit(roll, melee)) is hit


@pytest.mark.parametrize("roll,armor,saved", [(3, 3, True), (4, 3, False), (6, 5, False),
                                              (1, 0, False)])
def test_save_on_roll_at_or_under_armor(roll, armor, saved):    # §6.3
    assert bool(_resolve_save(roll, armor)) is saved


def test_hit_of_1_met_by_armor_6_triggers_free_attack():        # §6.4 (armor_six)
    assert _resolve_free_trigger(1, 6, 2, True, True)
    assert not _resolve_free_trigger(2, 6, 2, True, True)       # hit roll must be a 1
    assert not _resolve_free_trigger(1, 5, 2, True, True)       # failed save, but not a 6
    assert not _resolve_free_trigger(1, 6, 2, False, True)      # free_attack=False
    assert _resolve_free_trigger(1, 5, 2, True, False)          # failed_save variant: 5 > 2
    assert not _resolve_free_trigger(1, 2, 2, True, False)      # ... but a save never triggers


def test_free_attack_adds_a_wound_and_a_raven_token():
    # hit 1 (<= Melee 4), Armor 6 (> 3: wound), Free Attack 4 (<= 4: hit, no Armor roll)
    assert tuple(_resolve_wounds_dealt(1, 6, 4, 4, 3, True, True)) == (2, 1)
    # Free Attack 5 > Melee 4: only the ordinary wound
    assert tuple(_resolve_wounds_dealt(1, 6, 5, 4, 3, True, True)) == (1, 0)
    # ordinary hit and save, miss
    assert tuple(_resolve_wounds_dealt(2, 3, 0, 4, 3, True, True)) == (0, 0)
    assert tuple(_resolve_wounds_dealt(5, 1, 1, 4, 3, True, True)) == (0, 0)


def test_reference_attack_draws_only_the_dice_it_needs():
    d = Dice([5, 9, 9])                      # miss: one die
    assert duel_reference.one_attack(4, 3, True, True, d) == (0, 0) and d.left == 2
    d = Dice([2, 6, 9])                      # hit, wound, no trigger: two dice
    assert duel_reference.one_attack(4, 3, True, True, d) == (1, 0) and d.left == 1
    d = Dice([1, 6, 1])                      # trigger: three dice, 2 wounds, Raven
    assert duel_reference.one_attack(4, 3, True, True, d) == (2, 1) and d.left == 0
    d = Dice([1, 6, 6])                      # Free Attack misses
    assert duel_reference.one_attack(4, 3, True, True, d) == (1, 0) and d.left == 0
    # boundaries (§2.2: a roll equal to the rating passes): hit 4 at Melee 4, save 3 at Armor
    # 3; Armor 4 > 3 wounds; Free Attack 4 at Melee 4 hits
    d = Dice([4, 3])
    assert duel_reference.one_attack(4, 3, True, True, d) == (0, 0) and d.left == 0
    d = Dice([4, 4])
    assert duel_reference.one_attack(4, 3, True, True, d) == (1, 0) and d.left == 0
    d = Dice([1, 6, 4])
    assert duel_reference.one_attack(4, 3, True, True, d) == (2, 1) and d.left == 0


# ----------------------------------------------------------------- modifiers (§6.2, §8.3)

def test_mighty_lowers_the_targets_armor_by_one():
    s = duel_setup({"a": "jarl", "b": "berserker"})
    assert list(s.armor) == [4 - 1, 2 - 1]            # both Mighty (§12.2 DEFAULT profiles)
    s = duel_setup({"a": "hirdmen", "b": "bondi"})
    assert list(s.armor) == [3, 2]                    # neither Mighty
    s = duel_setup({"a": "hirdmen", "b": "bondi", "a_mighty": "true", "mighty_armor_mod": 2})
    assert list(s.armor) == [3, 0]


def test_shield_wall_rear_and_melee_modifiers():
    r = Rules()
    assert armor_rating(4, Stance(shield_wall=True), False, r) == 5           # +2, max 5
    assert armor_rating(4, Stance(shield_wall=True), True, r) == 4            # cap, then Mighty
    assert armor_rating(4, Stance(shield_wall=True), True,
                        Rules(shield_wall_cap="after_mighty")) == 5
    assert armor_rating(4, Stance(shield_wall=True, rear=True), False, r) == 3  # no bonus, -1
    assert armor_rating(1, Stance(rear=True), True, r) == 0                   # clamped at 0
    assert armor_rating(1, Stance(rear=True), True, Rules(rating_clamp=False)) == -1
    assert melee_rating(4, Stance(outnumbered=True), r) == 3
    assert melee_rating(4, Stance(outnumbered=True, shield_wall=True), r) == 4
    assert melee_rating(4, Stance(outnumbered=True, uphill=True), r) == 2


@pytest.mark.parametrize("name,total,extra", [("jarl", 3, 4), ("huskarl", 2, 3), ("bondi", 1, 1)])
def test_tough_readings(name, total, extra):                                  # §7.2, §13.1
    assert duel_setup({"a": name}).wounds[0] == total
    assert duel_setup({"a": name, "tough_reading": "extra_wounds"}).wounds[0] == extra
    assert duel_setup({"a": name, "a_wounds": 7}).wounds[0] == 7


def test_overrides_reach_the_kernel_numbers():
    s = duel_setup({"a": "bondi", "a_attacks": 3, "a_melee": 5, "a_armor": 4, "a_wounds": 2,
                    "a_mighty": "true", "b": "jarl", "b_mighty": "false"})
    assert (s.attacks[0], s.melee[0], s.wounds[0]) == (3, 5, 2)
    assert s.armor[0] == 4 and s.armor[1] == 4 - 1


# ----------------------------------------------------------------- forced dice: whole duels

def _setup(**o):
    return duel_setup({"a": "hirdmen", "b": "hirdmen", **o})


def test_figure_killed_this_turn_still_strikes_so_both_can_die():             # §3.4, §6.5
    s = _setup()                                      # 1 attack each, Melee 4, Armor 3
    res = duel_reference.play_one(s, Dice([2, 5, 3, 6]))   # A hits, B fails; B hits, A fails
    assert res[:4] == (Outcome.DRAW, 1, 0, 0)
    assert _kernel_duel(s, [2, 5, 3, 6]) == res


def test_saved_hits_continue_the_duel_and_tough_absorbs_wounds():
    s = _setup(b_wounds=2)
    # turn 1: A hits (2), B saves (3); B misses (5). turn 2: A hits (1), B fails (4); B misses (6)
    # turn 3: A hits (4), B fails (6): B's 2nd wound; B misses (5)
    res = duel_reference.play_one(s, Dice([2, 3, 5, 1, 4, 6, 4, 6, 5]))
    assert res[:4] == (Outcome.A_WIN, 3, 1, 0)
    assert _kernel_duel(s, [2, 3, 5, 1, 4, 6, 4, 6, 5]) == res


def test_free_attack_kills_a_tough_2_figure_in_one_blow():                     # §6.4
    s = _setup(b_wounds=2)
    res = duel_reference.play_one(s, Dice([1, 6, 2, 5]))   # 1 + Armor 6 + Free 2; B misses
    assert res == (Outcome.A_WIN, 1, 1, 0, 1, 0)                # A placed one Raven token
    assert _kernel_duel(s, [1, 6, 2, 5]) == res


def test_fated_figure_strikes_when_killed():                                   # §10.3
    s = _setup(a_fated="true")
    # A misses (6); B hits (1), A fails (5) -> A killed; Fated stroke 3 <= 4 kills B
    res = duel_reference.play_one(s, Dice([6, 1, 5, 3]))
    assert res[:4] == (Outcome.DRAW, 1, 0, 0)
    assert _kernel_duel(s, [6, 1, 5, 3]) == res
    s = _setup(a_fated="true", fated_armor_roll=True)
    res = duel_reference.play_one(s, Dice([6, 1, 5, 3, 2]))     # B saves the stroke (2 <= 3)
    assert res[:4] == (Outcome.B_WIN, 1, 0, 1)
    assert _kernel_duel(s, [6, 1, 5, 3, 2]) == res
    s = _setup(b_fated="true")          # the same for B: B misses (6) after A's hit (1, 5)
    res = duel_reference.play_one(s, Dice([1, 5, 6, 3]))        # kills it; B's stroke 3 <= 4
    assert res[:4] == (Outcome.DRAW, 1, 0, 0)
    assert _kernel_duel(s, [1, 5, 6, 3]) == res


def test_duel_that_cannot_end_is_truncated_not_drawn():                       # §12.6 guard
    r = simulate(GAME, n=500, seed=3, threads=1,
                 options={"a_melee": 0, "b_melee": 0, "max_turns": 7})
    assert r.summary["p_truncated"] == 1.0 and r.summary["mean_turns"] == 7.0
    assert (r.frame["turns"] == 7).all() and r.frame["truncated"].all()


# ----------------------------------------------------------------- reference bit for bit

COMBOS = [
    {},
    {"a": "huskarl", "b": "berserker"},
    {"a": "jarl", "b": "jarl", "tough_reading": "extra_wounds"},
    {"a": "thrall", "b": "bondi", "a_fated": "true", "b_fated": "true", "fated_armor_roll": True},
    {"a": "hirdmen", "b": "huskarl", "free_attack_trigger": "failed_save", "a_shield_wall": True,
     "b_outnumbered": True},
    {"a": "bondi", "b": "thrall", "free_attack": False, "max_turns": 2, "b_rear": True},
    {"a": "berserker", "b": "hirdmen", "a_attacks": 4, "a_melee": 1, "b_armor": 5,
     "b_wounds": 5, "b_fated": "true"},
]


@pytest.mark.parametrize("opts", COMBOS)
def test_kernel_matches_reference_bit_for_bit(opts):
    n = 5_000                                          # > one 4096-game block: two blocks
    fast = simulate(GAME, n=n, seed=17, threads=2, options=opts)
    slow = simulate(GAME, n=n, seed=17, threads=1, options=opts, reference=True)
    for k in fast.out:
        np.testing.assert_array_equal(fast.out[k], slow.out[k], err_msg=k)
    assert fast.summary["p_a_win"] == slow.summary["p_a_win"]


# ----------------------------------------------------------------- invariants

@pytest.mark.parametrize("opts", COMBOS)
def test_invariants_over_many_duels(opts):
    # GAME.invariants (duel.invariants): wounds left in [0, start], 1 <= turns <= max_turns,
    # the outcome read off the wounds left, truncation only at the cap, no Raven token
    # without the Free Attack
    r = simulate(GAME, n=50_000, seed=23, threads=2, options=opts)
    assert GAME.invariants(r.setup, r.out) == []
    summ = r.summary
    total = summ["p_a_win"] + summ["p_b_win"] + summ["p_both_die"] + summ["p_truncated"]
    assert abs(total - 1.0) < 1e-12
    assert summ["p_draw"] == summ["p_both_die"]                # a duel where both die: a draw


@pytest.mark.parametrize("column, game, value, what", [
    ("a_wounds_left", 3, -1, "wounds left negative"),
    ("b_wounds_left", 3, 9, "above the start"),
    ("turns", 5, 0, "turns outside"),
    ("turns", 5, 51, "turns outside"),
    ("outcome", 2, Outcome.B_WIN, "b_win without"),
    ("outcome", 2, Outcome.DRAW, "draw without"),
    ("outcome", 2, Outcome.TRUNCATED, "truncated without"),
    ("a_ravens", 4, 1, "Raven token without"),
])
def test_invariants_report_a_broken_duel(column, game, value, what):
    r = simulate(GAME, n=200, seed=23, threads=1, options={"free_attack": False})
    out = {k: v.copy() for k, v in r.out.items()}
    out["a_wounds_left"][2], out["b_wounds_left"][2] = 1, 0      # game 2: A wins
    out["outcome"][2] = Outcome.A_WIN
    assert GAME.invariants(r.setup, out) == []
    out[column][game] = value
    found = GAME.invariants(r.setup, out)
    assert len(found) >= 1 and any(what in v and f"first game {game}" in v for v in found)


def test_figures_never_resurrect_in_traced_duels():
    pat = re.compile(r"End of Turn: .+? (\d+) wound\(s\) left, .+? (\d+)\.$")
    for seed in range(40):
        s = duel_setup({"a": "jarl", "b": "huskarl", "a_fated": "true", "b_fated": "true"})
        lines = duel_reference.trace(s, seed).splitlines()
        left = [tuple(map(int, m.groups())) for ln in lines if (m := pat.search(ln))]
        assert left, lines
        prev = (int(s.wounds[0]), int(s.wounds[1]))
        for cur in left:
            assert 0 <= cur[0] <= prev[0] and 0 <= cur[1] <= prev[1]
            prev = cur


@pytest.mark.parametrize("game_id", [0, 7, 4096 + 3])
def test_trace_tells_the_same_duel_as_the_run(game_id):
    r = simulate(GAME, n=5_000, seed=4, threads=1)
    text = GAME.trace(r.setup, 4, game_id)
    assert "Jarl" in text and "Berserker" in text
    winner = {Outcome.A_WIN: "Jarl wins", Outcome.B_WIN: "Berserker wins",
              Outcome.DRAW: "both fall"}[Outcome(r.out["outcome"][game_id])]
    assert text.rstrip().endswith(f"after {r.out['turns'][game_id]} turn(s): {winner}.")


# ----------------------------------------------------------------- options and errors

def test_bad_inputs_raise_input_error():
    with pytest.raises(InputError, match="unknown unit type"):
        simulate(GAME, n=10, options={"a": "dragon"})
    with pytest.raises(InputError):
        simulate(GAME, n=10, options={"a_melee": 6})
    with pytest.raises(InputError, match="mode"):
        GAME.odds({"mode": "warband"})


@pytest.mark.slow       # compiles the warband kernel when it exists
def test_warband_mode_is_dispatched_or_reported_missing():
    import importlib.util
    if importlib.util.find_spec("vikingsim.games.ravenfeast.warband") is None:
        with pytest.raises(InputError, match="mode=warband not available"):
            simulate(GAME, n=10, options={"mode": "warband"})
        return
    r = simulate(GAME, n=50, seed=1, threads=1,           # smoke test of the dispatcher only
                 options={"mode": "warband", "a": "hirdmen10", "b": "bondi10"})
    assert r.setup.mode == "warband" and 0.0 <= r.summary["p_a_win"] <= 1.0
    with pytest.raises(InputError, match="policy"):
        simulate(GAME, n=10, policies=["wall", "default"])    # duel makes no choices


def test_option_names_are_stable():
    names = {o.name for o in OPTIONS}
    for side in "ab":
        for k in ("attacks", "melee", "armor", "wounds", "mighty"):
            assert f"{side}_{k}" in names
    assert {"mode", "a", "b", "max_turns"} <= names
    assert GAME.players == (2, 2, 2)
    assert GAME.bench_options == {"mode": "duel", "a": "jarl", "b": "berserker"}


def test_frame_has_one_row_per_duel():
    r = simulate(GAME, n=1_000, seed=2, threads=1)
    df = r.frame
    assert list(df.columns[:2]) == ["game_id", "outcome"]
    assert (df["game_id"].to_numpy() == np.arange(1_000)).all()
    assert set(df["outcome"].astype(str)) <= {"a_win", "b_win", "draw", "truncated"}   # both die: draw
    np.testing.assert_array_equal(df["outcome"].cat.codes.to_numpy(), r.out["outcome"])


def test_duel_module_allocates_compact_outputs():
    out = duel.allocate(duel_setup({}), 10)
    assert sum(v.itemsize for v in out.values()) == 7              # bytes per duel


# ----------------------------------------------------------------- the kernel's own code, scripted

K = plain_module("vikingsim.games.ravenfeast.duel.kernel")   # the kernel's code as plain Python


def _kernel_duel(s, faces):
    out = duel.allocate(s, 1)
    dice = ScriptedDice(faces)
    K._play_duels(*duel.kernel_args(s), 0, 1, dice, out["outcome"], out["turns"],
                  out["a_wounds_left"], out["b_wounds_left"], out["a_ravens"], out["b_ravens"])
    assert dice.left == 0, "the kernel drew fewer dice than scripted"
    return tuple(int(out[k][0]) for k in duel.OUT_DTYPES)


def test_kernel_attack_draws_one_two_or_three_dice():
    d = ScriptedDice([5])
    assert tuple(K._attack(4, 3, True, True, d)) == (0, 0) and d.left == 0      # miss
    d = ScriptedDice([2, 6])
    assert tuple(K._attack(4, 3, True, True, d)) == (1, 0) and d.left == 0      # wound
    d = ScriptedDice([1, 6, 3])
    assert tuple(K._attack(4, 3, True, True, d)) == (2, 1) and d.left == 0      # §6.4
    d = ScriptedDice([4, 3])                          # §2.2 boundaries: hit 4, save 3
    assert tuple(K._attack(4, 3, True, True, d)) == (0, 0) and d.left == 0
    d = ScriptedDice([1, 6, 4])                       # Free Attack 4 at Melee 4 hits
    assert tuple(K._attack(4, 3, True, True, d)) == (2, 1) and d.left == 0


@pytest.mark.parametrize("opts,faces,expected", [
    ({}, [2, 5, 3, 6], (Outcome.DRAW, 1, 0, 0, 0, 0)),                 # §3.4 both strike
    ({"b_wounds": 2}, [1, 6, 2, 5], (Outcome.A_WIN, 1, 1, 0, 1, 0)),        # §6.4 Free Attack
    ({"b_wounds": 2}, [2, 3, 5, 1, 4, 6, 4, 6, 5], (Outcome.A_WIN, 3, 1, 0, 0, 0)),
    ({"a_fated": "true"}, [6, 1, 5, 3], (Outcome.DRAW, 1, 0, 0, 0, 0)),  # §10.3
    ({"a_fated": "true", "fated_armor_roll": True}, [6, 1, 5, 3, 2], (Outcome.B_WIN, 1, 0, 1, 0, 0)),
    ({"free_attack": False, "b_wounds": 2, "max_turns": 1}, [1, 6, 5],
     (Outcome.TRUNCATED, 1, 1, 1, 0, 0)),
])
def test_kernel_plays_scripted_duels_like_the_reference(opts, faces, expected):
    s = _setup(**opts)
    assert _kernel_duel(s, faces) == expected
    assert duel_reference.play_one(s, Dice(faces)) == expected
