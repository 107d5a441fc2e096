"""Forced-dice tests of every raid board rule (raidboard.md §§5-9).

Each test scripts the d6 faces and runs one turn twice: through the kernel's own code loaded as
plain Python (``plain_module``; the compiled kernel is tied to it by the JIT-on = JIT-off and
reference tests) and through the independent reference engine. Expected values are worked out
by hand from the rules notes in the comments.
"""
from dataclasses import replace

import numpy as np
import pytest

from vikingsim.core.testing import ScriptedDice, ScriptedUniform, plain_module
from vikingsim.games.raidboard import reference
from vikingsim.games.raidboard.policies import PolicyKind, compile_policies
from vikingsim.games.raidboard.rules import Rules

K = plain_module("vikingsim.games.raidboard.kernel")
ENGINES = ["kernel", "reference"]


def run_turn(engine, faces, *, seat=0, n_seats=2, gold=None, pos=None, owner=None, miss=None,
             fdir=None, rules=None, policy="greedy", pol=None):
    """Play one turn of ``seat`` with scripted dice; return the state after it."""
    rules = rules or Rules()
    gold = list(gold or [20] * n_seats)
    pos = list(pos or [0] * n_seats)
    fdir = list(fdir or [1] * n_seats)
    miss = list(miss or [False] * n_seats)
    owner = dict(owner or {})
    kinds, params = compile_policies([policy] * n_seats)
    dice, pol = ScriptedDice(faces), pol or ScriptedUniform([0.0] * 10)
    if engine == "kernel":
        c = rules.compile()
        g, p, d, m = (np.array(x, np.int64) for x in (gold, pos, fdir, miss))
        m = m.astype(bool)
        own = np.full(40, -1, np.int64)
        for sp, s in owner.items():
            own[sp] = s
        n_set = np.array([sum(1 for s in owner.values() if s == i) for i in range(n_seats)])
        n_king = np.array([K._kingdoms(own, c.region_spaces, i) for i in range(n_seats)])
        lost = np.zeros(n_seats, np.int64)
        r = K._take_turn(c.ri, c.kind, c.region, c.seas, c.region_spaces, seat, kinds[seat],
                         params[seat], g, p, d, m, own, n_set, n_king, lost, dice, pol)
        assert list(n_set) == [int((own == i).sum()) for i in range(n_seats)]   # counts in step
        assert list(n_king) == [K._kingdoms(own, c.region_spaces, i) for i in range(n_seats)]
        state = dict(won=r == K.WON, gold=list(g), pos=list(p), fdir=list(d), miss=list(m),
                     owner={i: int(own[i]) for i in range(40) if own[i] >= 0}, lost=list(lost))
    else:
        game = reference.Game(rules, list(kinds), params.tolist(), dice, pol)
        game.gold, game.pos, game.dir, game.miss, game.owner = gold, pos, fdir, miss, owner
        try:
            game.turn(seat)
            won = False
        except reference.Won:
            won = True
        state = dict(won=won, gold=game.gold, pos=game.pos, fdir=game.dir, miss=game.miss,
                     owner=dict(game.owner), lost=game.lost)
    state["dice_left"] = dice.left
    return state


@pytest.fixture(params=ENGINES)
def engine(request):
    return request.param


@pytest.mark.parametrize("roll, can_capture, want", [
    (2, True, K.RAID_DESTROYED), (4, True, K.RAID_DESTROYED),      # §7.2: 4 or less
    (5, True, K.RAID_PLUNDER), (8, True, K.RAID_PLUNDER),          # §7.3
    (9, True, K.RAID_CAPTURE), (12, True, K.RAID_CAPTURE),         # §7.4: 9 or more
    (9, False, K.RAID_PLUNDER), (12, False, K.RAID_PLUNDER)])      # raid-only never captures
def test_raid_roll_boundaries(roll, can_capture, want):
    assert K._raid_outcome(roll, can_capture, 4, 9) == want


def test_income_one_d6_per_settlement(engine):
    # Denmark(1), Norway(2) owned, no kingdom (Sweden missing): income 3+5; move 1 onto own
    # Denmark: +1d6 (4) (§5.2, §6.2). 20 + 8 + 4 = 32.
    s = run_turn(engine, [3, 5, 1, 4], owner={1: 0, 2: 0})
    assert s["gold"][0] == 32 and s["pos"][0] == 1 and s["dice_left"] == 0


def test_kingdom_adds_two_d6(engine):
    # Scandinavia 1, 2, 4 → a kingdom: 3 settlement dice + 2 kingdom dice = 1+1+1+2+2 = 7;
    # move 4 → Sweden (own): +6. 20 + 7 + 6 = 33 (§3.4, §5.2).
    s = run_turn(engine, [1, 1, 1, 2, 2, 4, 6], owner={1: 0, 2: 0, 4: 0})
    assert s["gold"][0] == 33 and s["dice_left"] == 0


def test_raid_of_4_destroys_fleet(engine):
    # From Vinland(8) move 2 → Scotland(10), empty: raid 1+3 = 4 → destroyed: lose 3+3,
    # back to start, miss next turn (§7.2).
    s = run_turn(engine, [2, 1, 3, 3, 3], pos=[8, 0])
    assert s["gold"][0] == 14 and s["pos"][0] == 0 and s["miss"][0] and s["lost"][0] == 1
    assert s["owner"] == {}


def test_gold_floor_zero(engine):
    # 3 Gold, destroyed, loss 6+6 = 12 → 0, not -9 (§12.2 DEFAULT gold_floor = 0).
    s = run_turn(engine, [2, 1, 1, 6, 6], pos=[8, 0], gold=[3, 20])
    assert s["gold"][0] == 0


def test_gold_floor_option_allows_debt(engine):
    s = run_turn(engine, [2, 1, 1, 6, 6], pos=[8, 0], gold=[3, 20],
                 rules=Rules(gold_floor=-100))
    assert s["gold"][0] == -9


def test_raid_of_5_plunders_without_capture(engine):
    s = run_turn(engine, [2, 2, 3], pos=[8, 0])                    # §7.3: +5, no settlement
    assert s["gold"][0] == 25 and s["owner"] == {} and not s["miss"][0]


def test_raid_of_9_captures_and_replaces_opponent(engine):
    # Scotland held by seat 1; raid 4+5 = 9: +9 Gold, seat 1's settlement replaced (§7.4).
    s = run_turn(engine, [2, 4, 5], pos=[8, 0], owner={10: 1})
    assert s["gold"][0] == 29 and s["owner"] == {10: 0}


def test_capture_needs_a_marker_when_supply_is_limited(engine):
    # settlement_supply = 1 and seat 0 already has one: plunder only (§2.2 option).
    s = run_turn(engine, [2, 6, 6], pos=[8, 0], owner={1: 0},
                 rules=Rules(settlement_supply=1, income_dice_per_settlement=0))
    assert s["gold"][0] == 32 and s["owner"] == {1: 0}


def test_empty_north_is_settled_without_a_roll(engine):
    s = run_turn(engine, [5])                                      # 0 → Iceland(5) (§6.3)
    assert s["owner"] == {5: 0} and s["gold"][0] == 20 and s["dice_left"] == 0


def test_opponents_north_settlement_is_raided(engine):
    # Iceland held by seat 1: raid with capture, 6+6 = 12 (§6.3, §12.1 DEFAULT).
    s = run_turn(engine, [5, 6, 6], owner={5: 1})
    assert s["owner"] == {5: 0} and s["gold"][0] == 32


def test_settle_only_reading_protects_north(engine):
    s = run_turn(engine, [5], owner={5: 1},
                 rules=Rules(north_opponent_settlement_raidable=False))
    assert s["owner"] == {5: 1} and s["gold"][0] == 20 and s["dice_left"] == 0


def test_raid_only_never_captures(engine):
    s = run_turn(engine, [2, 6, 6], pos=[10, 0])                   # Monasteries(12) (§6.6)
    assert s["gold"][0] == 32 and s["owner"] == {}


def test_east_is_raid_only(engine):
    s = run_turn(engine, [1, 6, 6], pos=[34, 0])                   # Black Sea(34) + 1 = 35
    assert s["pos"][0] == 35 and s["gold"][0] == 32 and s["owner"] == {}   # Byzantium (§3.5)


def test_sea_great_storm_stays(engine):
    s = run_turn(engine, [3, 6])                                   # Norwegian Sea(3), storm
    assert s["pos"][0] == 3 and s["gold"][0] == 20 and s["dice_left"] == 0


def test_sea_moves_on_and_resolves(engine):
    # Norwegian Sea(3), sea roll 1 → Sweden(4), empty territory: raid 3+3 = 6 (§6.4 DEFAULT).
    s = run_turn(engine, [3, 1, 3, 3])
    assert s["pos"][0] == 4 and s["gold"][0] == 26


def test_sea_without_resolving_new_space(engine):
    s = run_turn(engine, [3, 1], rules=Rules(sea_resolves_new_space=False))
    assert s["pos"][0] == 4 and s["gold"][0] == 20 and s["dice_left"] == 0


def test_sea_chain(engine):
    # Atlantic(7) via sea roll 4 from Norwegian Sea(3); Atlantic rolls 6: storm (§12.4 chains).
    s = run_turn(engine, [3, 4, 6])
    assert s["pos"][0] == 7 and s["dice_left"] == 0


def test_exploration_greedy_goes_to_north_sea(engine):
    # Greenland(6) + 3 → Winds of Thor(9) → North Sea(16) (§10.2), sea roll 6: storm.
    s = run_turn(engine, [3, 6], pos=[6, 0])
    assert s["pos"][0] == 16 and s["dice_left"] == 0


def test_exploration_without_sea_roll(engine):
    s = run_turn(engine, [3], pos=[6, 0], rules=Rules(exploration_resolves_sea=False))
    assert s["pos"][0] == 16 and s["dice_left"] == 0


def test_exploration_random_uses_policy_stream(engine):
    # policy draw 0.99 → the last of the 7 seas, Caspian Sea(36); sea roll 6.
    s = run_turn(engine, [3, 6], pos=[6, 0], policy="random", pol=ScriptedUniform([0.99]))
    assert s["pos"][0] == 36


def test_mercenary_two_raids(engine):
    # Byzantium(35) + 4 → Foreign Service(39): raids 2+3 = 5 and 4+4 = 8 (§6.7).
    s = run_turn(engine, [4, 2, 3, 4, 4], pos=[35, 0])
    assert s["gold"][0] == 33 and s["owner"] == {}


def test_mercenary_stops_after_destruction(engine):
    s = run_turn(engine, [4, 1, 1, 2, 2], pos=[35, 0])             # destroyed: lose 4, stop
    assert s["gold"][0] == 16 and s["dice_left"] == 0 and s["pos"][0] == 0


def test_mercenary_second_raid_option(engine):
    s = run_turn(engine, [4, 1, 1, 2, 2, 5, 5], pos=[35, 0],
                 rules=Rules(mercenary_stops_on_destruction=False))
    assert s["gold"][0] == 26 and s["miss"][0]


def test_win_between_mercenary_rolls(engine):
    # 90 Gold, first Mercenary raid 5+5 = 10 → 100: wins at once, second raid not rolled (§8.1).
    s = run_turn(engine, [4, 5, 5, 6, 6], pos=[35, 0], gold=[90, 0])
    assert s["won"] and s["gold"][0] == 100 and s["dice_left"] == 2


def test_win_after_income_before_moving(engine):
    s = run_turn(engine, [3, 6], owner={1: 0}, gold=[97, 0])       # income 3 → 100 (§8.1)
    assert s["won"] and s["dice_left"] == 1


def test_missed_turn_skips_everything(engine):
    s = run_turn(engine, [], owner={1: 0}, miss=[True, False])     # §5.1 DEFAULT
    assert not s["miss"][0] and s["gold"][0] == 20


def test_missed_turn_income_option(engine):
    s = run_turn(engine, [4], owner={1: 0}, miss=[True, False],
                 rules=Rules(miss_turn_skips_income=False))
    assert not s["miss"][0] and s["gold"][0] == 24 and s["pos"][0] == 0


def test_lost_removes_richest_opponents_kingdom_settlement(engine):
    # 3 seats. Seat 1 (50 Gold) holds Scandinavia (1,2,4 kingdom) and Scotland(10); seat 2
    # (40 Gold) holds Frisia(22). Richest opponent = seat 1; kingdom first, lowest index → 1.
    owner = {1: 1, 2: 1, 4: 1, 10: 1, 22: 2}
    s = run_turn(engine, [3], pos=[16, 0, 0], n_seats=3, gold=[20, 50, 40], owner=owner)
    assert s["pos"][0] == 19 and 1 not in s["owner"] and len(s["owner"]) == 4


@pytest.mark.parametrize("policy", ["greedy", "lookahead"])
@pytest.mark.parametrize("seat, tied, poorer, want", [
    # 4 seats; the two richest opponents tie (40 Gold, one settlement each), a third has 10.
    # §10.3.1: the tie goes to the first of them clockwise from the acting seat (the next in
    # turn order), never to the lower seat number: from seat 2 the order is 3, 0, 1 -> 3
    # (a "lowest seat" rule would take seat 0); from seat 1 it is 2, 3, 0 -> 3 over 0.
    (2, (0, 3), 1, 3), (1, (0, 3), 2, 3), (0, (1, 3), 2, 1), (3, (1, 2), 0, 1),
    (2, (1, 3), 0, 3)])
def test_lost_ties_go_clockwise_from_the_player(engine, policy, seat, tied, poorer, want):
    space = {0: 10, 1: 22, 2: 30, 3: 33}          # Scotland, Frisia, two more lands
    owner = {space[t]: t for t in (*tied, poorer)}
    gold = [20] * 4
    for t in tied:
        gold[t] = 40
    gold[poorer] = 10
    pos = [0] * 4
    pos[seat] = 16                                   # North Sea(16) + 3 -> Reconquest(19)
    s = run_turn(engine, [3], seat=seat, pos=pos, n_seats=4, gold=gold, owner=owner,
                 policy=policy)
    assert s["pos"][seat] == 19 and s["dice_left"] == 0
    assert space[want] not in s["owner"] and len(s["owner"]) == 2


def test_lost_prefers_a_kingdom_settlement_over_a_lower_index(engine):
    # §10.3.1: the only opponent, seat 1, holds Scotland(10) and all of Brits (York 17,
    # Danelaw 18, East Anglia 20: a kingdom, §3.4). A settlement that is part of a kingdom goes
    # first, the lowest index within that group: York(17), although Scotland(10) has the
    # lowest index overall. Seat 0 has no settlement (no income dice): North Sea(16) + 3 →
    # Reconquest(19).
    owner = {10: 1, 17: 1, 18: 1, 20: 1}
    s = run_turn(engine, [3], pos=[16, 0], owner=owner)
    assert s["pos"][0] == 19 and s["owner"] == {10: 1, 18: 1, 20: 1} and s["dice_left"] == 0


def test_lost_own_settlement_outside_kingdom(engine):
    owner = {1: 0, 2: 0, 4: 0, 10: 0}
    s = run_turn(engine, [3], pos=[16, 0], owner=owner, rules=Rules(
        income_dice_per_settlement=0, income_dice_per_kingdom=0))
    assert s["owner"] == {1: 0, 2: 0, 4: 0}


def test_lost_with_empty_board(engine):
    s = run_turn(engine, [3], pos=[16, 0])
    assert s["owner"] == {} and s["dice_left"] == 0


def test_circular_wraps(engine):
    s = run_turn(engine, [3, 3, 3], pos=[38, 0])        # 38 → 39 → 0 → 1, Denmark: raid 6
    assert s["pos"][0] == 1 and s["gold"][0] == 26


def test_ends_of_earth_turns_round(engine):
    # 37 forward + 4 → 38, 39, 38, 37: ends on Muslim States(37) facing backward (§9.2).
    s = run_turn(engine, [4, 3, 3], pos=[37, 0], rules=Rules(variant="ends-of-earth"))
    assert s["pos"][0] == 37 and s["fdir"][0] == -1 and s["gold"][0] == 26


def test_ends_of_earth_exploration_backward(engine):
    # Facing backward from Scotland(10) - 1 → Winds of Thor(9): first sea behind is Atlantic(7).
    s = run_turn(engine, [1, 6], pos=[10, 0], fdir=[-1, 1], rules=Rules(variant="ends-of-earth"))
    assert s["pos"][0] == 7


def test_destroyed_fleet_faces_forward_again(engine):
    s = run_turn(engine, [2, 1, 1, 1, 1], pos=[12, 0], fdir=[-1, 1],
                 rules=Rules(variant="ends-of-earth"))                # 12 → 10, destroyed
    assert s["pos"][0] == 0 and s["fdir"][0] == 1


def test_lookahead_picks_best_expected_landing():
    # Values (policies.Lookahead, settle_value 12, miss_cost 6): raid = 232/36 - 6/36*(7+6)
    # = 4.278; territory = raid + 10/36*12 = 7.611; empty North = 12; sea/exploration = 5/6*raid
    # = 3.565; own settlement 3.5. Norwegian Sea(3) reaches 4,5,6,7,8 = 7.611+12+12+3.565+12
    # = 47.2, better than Atlantic(7) (8,9,10,11,12 = 12+3.565+7.611+7.611+4.278 = 35.1).
    c = Rules().compile()
    kinds, params = compile_policies(["lookahead"])
    own = np.full(40, -1, np.int64)
    choose = K._choose_exploration
    assert choose(c.ri, c.kind, c.region, c.seas, own, 9, 1, 0, kinds[0], params[0], None) == 3
    # With Iceland and Greenland already ours (3.5 each), Norwegian Sea is worth 30.2 < 35.1.
    own[5] = own[6] = 0
    assert choose(c.ri, c.kind, c.region, c.seas, own, 9, 1, 0, kinds[0], params[0], None) == 7


def test_rules_validation():
    from vikingsim.core.errors import InputError
    with pytest.raises(InputError):
        Rules(raid_fail_max=9, raid_capture_min=9)
    with pytest.raises(InputError):
        replace(Rules(), variant="flat")
    assert PolicyKind.GREEDY == 0


def play_one_round(engine, faces, rules, n_seats):
    """Play a whole game capped at one round (``max_rounds=1``) with scripted dice, from the
    setup on; return (final Gold per seat, dice left)."""
    rules = replace(rules, max_rounds=1)
    kinds, params = compile_policies(["greedy"] * n_seats)
    dice, pol = ScriptedDice(faces), ScriptedUniform([0.0] * 10)
    if engine == "kernel":
        c = rules.compile()
        gold = np.zeros(n_seats, np.int64)
        state = [np.zeros(n_seats, np.int64), np.ones(n_seats, np.int64),
                 np.zeros(n_seats, np.bool_), np.full(40, -1, np.int64),
                 *[np.zeros(n_seats, np.int64) for _ in range(3)]]
        end, _, _ = K._play_game(c.ri, c.kind, c.region, c.seas, c.region_spaces, kinds, params,
                                 gold, *state, dice, pol)
        assert end == K.END_TRUNCATED
        return [int(g) for g in gold], dice.left
    game = reference.Game(rules, list(kinds), params.tolist(), dice, pol)
    truncated, _, _ = game.play()
    assert truncated
    return game.gold, dice.left


# Three seats, each moves 1 onto Denmark (an empty Scandinavian territory) and raids (§6.1):
# seat 0 rolls 5+3 = 8 (plunder 8), seat 1 rolls 3+3 = 6 (plunder 6), seat 2 rolls 2+2 = 4
# (destroyed, loses 1+1 = 2 Gold, §7.2).
ROUND_FACES = [1, 5, 3, 1, 3, 3, 1, 2, 2, 1, 1]


def test_seat_gold_step_default_is_the_printed_setup(engine):
    # §4.1, §4.4 DEFAULT 0: everyone starts with 20: 20+8, 20+6, 20-2
    assert play_one_round(engine, ROUND_FACES, Rules(), 3) == ([28, 26, 18], 0)


def test_seat_gold_step_gives_seat_k_k_steps(engine):
    # §4.4 seat_gold_step=5: seats start with 20, 25, 30; then +8, +6, -2 -> 28, 31, 28
    rules = Rules(seat_gold_step=5)
    assert play_one_round(engine, ROUND_FACES, rules, 3) == ([28, 31, 28], 0)


def test_seat_gold_step_may_not_start_a_seat_at_the_target():
    # §4.4: 4 seats, step 27: seat 3 would start with 20 + 3*27 = 101 >= 100
    from vikingsim.core.errors import InputError
    from vikingsim.games import raidboard
    opts = {o.name: o.default for o in raidboard.OPTIONS}
    raidboard.setup({**opts, "seat_gold_step": 26}, ["greedy"] * 4, 4)      # 98: allowed
    with pytest.raises(InputError, match="seat 3 would start with 101"):
        raidboard.setup({**opts, "seat_gold_step": 27}, ["greedy"] * 4, 4)
    # starting exactly on the target is refused too (§8.1: reaching it wins): 20 + 3*26 = 98
    with pytest.raises(InputError, match="seat 3 would start with 98"):
        raidboard.setup({**opts, "seat_gold_step": 26, "target_gold": 98}, ["greedy"] * 4, 4)


@pytest.mark.parametrize("first, want", [
    # §4.4 seat_gold_step = 3 at 4 players: the k-th player in turn order gets 20 + 3k, k
    # counted clockwise from first_seat; with first_seat = 2: seats 2, 3, 0, 1 get 20, 23,
    # 26, 29 (a seat-number step would give 20, 23, 26, 29 to seats 0, 1, 2, 3)
    (0, [20, 23, 26, 29]), (2, [26, 29, 20, 23]), (3, [23, 26, 29, 20])])
def test_seat_gold_step_follows_turn_order(first, want):
    rules = Rules(seat_gold_step=3, first_seat=first)
    kinds, params = compile_policies(["greedy"] * 4)
    game = reference.Game(rules, list(kinds), params.tolist(), ScriptedDice([]),
                          ScriptedUniform([]))
    assert game.gold == want
    ri = rules.compile().ri
    assert [int(K._start_gold(ri, s, 4)) for s in range(4)] == want
