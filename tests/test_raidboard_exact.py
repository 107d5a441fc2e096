"""Monte Carlo against exact answers (style rule 11.3): the first round of a 2-player game.

A turn from Vikings Start with 20 Gold and no settlement is small enough to enumerate exactly:
every d6 sequence of the move, sea rolls, Exploration and raid rolls. The enumeration below is
written from the rules notes (§5-§7, greedy Exploration §10.2, greedy Lost §10.3) with exact
fractions, on the hand-typed board of ``test_raidboard_board.TABLE``, independently of both
engines. Games capped at one round (``max_rounds=1``) measure it:

* seat 0's Gold and fleet after round 1 are those of its own turn (seat 1's turn cannot touch
  them; nobody can reach 100 Gold in one turn);
* seat 0's settlement can be lost in seat 1's turn (a capture by a 9+ raid on it, §7.4, or the
  Lost space, §6.8), so seat 1's turn is enumerated too, on the board seat 0 left.

What the run is compared with (each within ``config.TEST_K_SE`` = 4 standard errors):
mean Gold, P(fleet destroyed), P(Gold unchanged), P(seat 0 holds a **captured** territory)
(a settlement and more than 20 Gold: a capture always plunders 9-12), P(seat 0 holds a
**settled** North territory) (a settlement and exactly 20 Gold: §6.3 gives no Gold), and
P(seat 1 holds a settlement).

Why 200,000 games: the standard error of a probability p is sqrt(p(1-p)/n) <= 0.0011 there, so
4 SE is at most 0.45 percentage points, and of the mean Gold about 0.013 Gold. The rule errors
these checks must see are far larger: a capture threshold of 8 instead of 9 (§7.4) adds 5/36
of every first-turn territory raid (0.54 raids a turn: +7.5 points on P(captured) = 14.3%,
24x its tolerance of 0.31 points); a North territory that stopped settling (§6.3) takes about
14 points off P(settled) = 40%; a fail threshold of 3 or 5 instead of 4 (§7.2) moves
P(destroyed) = 9.1% by 4.5 or 6 points (17x or more its tolerance of 0.26 points).
"""
from fractions import Fraction as F
import math

from tests.test_raidboard_board import TABLE
from vikingsim.core import config
from vikingsim.core.runner import simulate
from vikingsim.core.testing import within_k_se

SIXTH = F(1, 6)
N_GAMES = 200_000
EXPLORATION_TARGET = 16       # §10.2 greedy: first sea ahead of Winds of Thor (North Sea)
LOST_SPACE = 19


def _raid(gold, space, capture, p, out):
    """§7: one 2d6 raid roll; outcomes (gold, destroyed, event, space, p)."""
    for a in range(1, 7):
        for b in range(1, 7):
            roll, q = a + b, p * SIXTH * SIXTH
            if roll <= 4:                                        # §7.2: lose 2d6, floor 0
                for c in range(1, 7):
                    for d in range(1, 7):
                        out.append((max(0, gold - c - d), True, None, None, q * SIXTH * SIXTH))
            elif capture and roll >= 9:                          # §7.4 plunder and capture
                out.append((gold + roll, False, "capture", space, q))
            else:                                                # §7.3 plunder
                out.append((gold + roll, False, None, None, q))


def _land(pos, gold, p, out, rival):
    """Resolve landing on ``pos`` (§6); ``rival`` = the space holding the opponent's
    settlement, or None. Events: "settle" (§6.3), "capture" (§7.4), "remove" (§6.8)."""
    _, _, kind, region = TABLE[pos]
    if kind == "territory":
        if region == "North" and pos != rival:                  # empty North: settle (§6.3)
            out.append((gold, False, "settle", pos, p))
        else:                                                    # §6.1 (§12.1: North raidable)
            _raid(gold, pos, True, p, out)
    elif kind == "raid-only":                                    # §6.6
        _raid(gold, pos, False, p, out)
    elif kind == "sea":                                          # §6.4
        out.append((gold, False, None, None, p * SIXTH))         # 6: Great Storm
        for k in range(1, 6):
            _land((pos + k) % 40, gold, p * SIXTH, out, rival)
    elif kind == "exploration":                                  # §6.5, §10.2
        _land(EXPLORATION_TARGET, gold, p, out, rival)
    elif kind == "lost" and rival is not None:                   # §6.8, §10.3.1
        out.append((gold, False, "remove", rival, p))
    else:                                                        # start; Lost, empty board
        out.append((gold, False, None, None, p))


def turn_outcomes(rival=None):
    """Every outcome of one turn from Vikings Start, 20 Gold, no settlement of one's own."""
    out = []
    for move in range(1, 7):                                     # §5.3
        _land(move, 20, SIXTH, out, rival)
    assert sum(o[-1] for o in out) == 1
    return out


def first_turn_outcomes():
    return turn_outcomes()


def round_one():
    """Exact probabilities after round 1 of a 2-player game (seat 0, then seat 1)."""
    first = turn_outcomes()
    answers = {"captured_kept": F(0), "settled_kept": F(0), "seat1_holds": F(0)}
    seat1 = {}
    for gold, _, event, space, p in first:
        rival = space if event in ("settle", "capture") else None
        if rival not in seat1:
            seat1[rival] = turn_outcomes(rival)
        lose = sum(q for _, _, e, s, q in seat1[rival]
                   if e == "remove" or (e == "capture" and s == rival))
        answers["seat1_holds"] += p * sum(q for _, _, e, _, q in seat1[rival]
                                          if e in ("settle", "capture"))
        if event == "capture":
            answers["captured_kept"] += p * (1 - lose)
        elif event == "settle":
            answers["settled_kept"] += p * (1 - lose)
    return answers


def test_first_turn_capture_and_settle_odds_by_hand():
    # Hand arithmetic from §3.1 (moves 1-6 reach 1, 2, 3 sea, 4, 5 N, 6 N; Norwegian Sea 3
    # sails to 4, 5 N, 6 N, 7 sea, 8 N; Atlantic 7 to 8 N, 9 → North Sea, 10, 11, 12 raid-only;
    # North Sea 16 to 17, 18, 19 Lost, 20, 21), capture = 10/36 per territory raid:
    #   P(capture): NS = 4/6 * 10/36 = 5/27; Atl = (NS + 2*10/36)/6 = 10/81;
    #   Sea3 = (10/36 + Atl)/6 = 65/972; first turn = 3/6 * 10/36 + Sea3/6 = 875/5832.
    #   P(settle): Atl = 1/6; Sea3 = (3 + 1/6)/6 = 19/36; first turn = 2/6 + 19/216 = 91/216.
    out = first_turn_outcomes()
    assert sum(o[-1] for o in out if o[2] == "capture") == F(875, 5832)
    assert sum(o[-1] for o in out if o[2] == "settle") == F(91, 216)


def _close(observed, p, n, what):
    se = math.sqrt(p * (1 - p) / n)
    assert within_k_se(observed, p, se), (what, observed, p, se)


def test_first_round_matches_exact_enumeration():
    outcomes = first_turn_outcomes()
    mean = sum(g * p for g, *_, p in outcomes)
    var = sum((g - mean) ** 2 * p for g, *_, p in outcomes)
    r = simulate("raidboard", n=N_GAMES, seed=77, players=2, options={"max_rounds": 1})
    g0, lost0 = r.out["gold"][:, 0], r.out["fleets_lost"][:, 0]
    set0, set1 = r.out["settlements"][:, 0], r.out["settlements"][:, 1]
    se_mean = math.sqrt(float(var) / N_GAMES)
    assert within_k_se(g0.mean(), float(mean), se_mean), (g0.mean(), float(mean))
    _close((lost0 == 1).mean(), float(sum(o[-1] for o in outcomes if o[1])), N_GAMES,
           "P(destroyed)")
    _close(((g0 == 20) & (lost0 == 0)).mean(),
           float(sum(o[-1] for o in outcomes if o[0] == 20 and not o[1])), N_GAMES,
           "P(gold unchanged)")
    exact = round_one()
    _close(((set0 == 1) & (g0 > 20)).mean(), float(exact["captured_kept"]), N_GAMES,
           "P(seat 0 holds a captured territory)")
    _close(((set0 == 1) & (g0 == 20)).mean(), float(exact["settled_kept"]), N_GAMES,
           "P(seat 0 holds a settled North territory)")
    _close((set1 >= 1).mean(), float(exact["seat1_holds"]), N_GAMES,
           "P(seat 1 holds a settlement)")
    assert set0.max() <= 1 and set1.max() <= 1


def test_raid_roll_probabilities_are_the_2d6_arithmetic():
    # §7.5: destroyed 6/36, plunder only 20/36, capture 10/36; expected plunder 232/36.
    outs = []
    _raid(0, 1, True, F(1), outs)
    assert sum(p for _, lost, *_, p in outs if lost) == F(6, 36)
    assert sum(p for _, _, e, _, p in outs if e == "capture") == F(10, 36)
    assert sum(g * p for g, lost, *_, p in outs if not lost) == F(232, 36)
