"""Monte Carlo against exact answers (style rule 11.3).

The first turn of the first player is small enough to enumerate exactly: every d6 sequence of
the move, sea rolls, Exploration and raid rolls from Vikings Start with 20 Gold on an empty
board. The enumeration below is written from the rules notes (§5-§7) with exact fractions,
independently of both engines. Seat 1's later turn in round 1 cannot change seat 0's Gold or
fleet, so games capped at one round (max_rounds=1) measure it.
"""
from fractions import Fraction as F
import math

from vikingsim.core import config
from vikingsim.core.runner import simulate
from vikingsim.games.raidboard.rules import BOARD, Region, Space

SIXTH = F(1, 6)


def _raid(gold, capture, p, out):
    for a in range(1, 7):
        for b in range(1, 7):
            roll, q = a + b, p * SIXTH * SIXTH
            if roll <= 4:                                        # §7.2: lose 2d6, floor 0
                for c in range(1, 7):
                    for d in range(1, 7):
                        out.append((max(0, gold - c - d), True, False, q * SIXTH * SIXTH))
            else:                                                # §7.3 / §7.4
                out.append((gold + roll, False, capture and roll >= 9, q))


def _land(pos, gold, p, out):
    kind, region = BOARD[pos][1], BOARD[pos][2]
    if kind == Space.TERRITORY:
        if region == Region.NORTH:                               # empty North: settle (§6.3)
            out.append((gold, False, True, p))
        else:
            _raid(gold, True, p, out)
    elif kind == Space.RAID_ONLY:
        _raid(gold, False, p, out)
    elif kind == Space.SEA:                                      # §6.4
        out.append((gold, False, False, p * SIXTH))              # 6: Great Storm
        for k in range(1, 6):
            _land((pos + k) % 40, gold, p * SIXTH, out)
    elif kind == Space.EXPLORATION:                              # greedy: North Sea (16)
        _land(16, gold, p, out)
    else:                                                        # start, Lost on empty board
        out.append((gold, False, False, p))


def first_turn_outcomes():
    out = []
    for move in range(1, 7):
        _land(move, 20, SIXTH, out)
    assert sum(p for *_, p in out) == 1
    return out


def test_first_turn_matches_exact_enumeration():
    outcomes = first_turn_outcomes()
    mean = sum(g * p for g, _, _, p in outcomes)
    var = sum((g - mean) ** 2 * p for g, _, _, p in outcomes)
    p_lost = sum(p for _, lost, _, p in outcomes if lost)
    # 200,000 games: SE of the mean Gold is sd/447 ≈ 0.013 Gold and of P(destroyed) ≈ 0.0007,
    # so k = 4 SE resolves an error of a few hundredths of a Gold or 0.3 percentage points.
    n = 200_000
    r = simulate("raidboard", n=n, seed=77, players=2, options={"max_rounds": 1})
    g0 = r.out["gold"][:, 0]
    se_mean = math.sqrt(float(var) / n)
    assert abs(g0.mean() - float(mean)) <= config.TEST_K_SE * se_mean, (g0.mean(), float(mean))
    p = float(p_lost)
    observed = (r.out["fleets_lost"][:, 0] == 1).mean()
    assert abs(observed - p) <= config.TEST_K_SE * math.sqrt(p * (1 - p) / n), (observed, p)
    # the same seed also pins the full distribution: P(gold == 20) (no gain, no loss)
    p20 = float(sum(p for g, lost, _, p in outcomes if g == 20 and not lost))
    obs20 = ((g0 == 20) & (r.out["fleets_lost"][:, 0] == 0)).mean()
    assert abs(obs20 - p20) <= config.TEST_K_SE * math.sqrt(p20 * (1 - p20) / n)


def test_raid_roll_probabilities_are_the_2d6_arithmetic():
    # §7.5: destroyed 6/36, plunder only 20/36, capture 10/36; expected plunder 232/36.
    outs = []
    _raid(0, True, F(1), outs)
    assert sum(p for _, lost, _, p in outs if lost) == F(6, 36)
    assert sum(p for _, lost, cap, p in outs if cap) == F(10, 36)
    assert sum(g * p for g, lost, _, p in outs if not lost) == F(232, 36)
