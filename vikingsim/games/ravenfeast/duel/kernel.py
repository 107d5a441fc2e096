"""Ravenfeast duel kernel (rules notes ravenfeast.md §12.5): two figures in base contact fight in
melee until one or both are removed.

Layers (style rule 1): the private kernels ``_resolve_*`` (pure, dice passed in), ``_attack``,
``_fated_stroke``, ``_play_duels`` run on scalars, arrays and the dice Generator only; they play
the plain numbers of a ``rules.DuelSetup``.

Draw order (the reference engine ``reference.py`` uses the same):
for each turn, A's attacks then B's; for each attack one hit die, then (on a hit) one Armor die,
then (when the §6.4 trigger fires) one Free Attack die; then in the End of Turn, a Fated
death-stroke die (A's first, then B's) and, with ``fated_armor_roll``, its Armor die.
"""
from __future__ import annotations

import numpy as np

from vikingsim.core.jit import jit
from vikingsim.core.rng import _d6
from vikingsim.games.ravenfeast.duel.rules import DuelSetup
from vikingsim.games.ravenfeast.rules import INT8_MAX, RUNNING, Outcome

# Kernel copies of Outcome as plain ints (frozen at compile time), so that the "still running"
# sentinel and the outcomes share one integer type.
_A_WIN = int(Outcome.A_WIN)
_B_WIN = int(Outcome.B_WIN)
_DRAW = int(Outcome.DRAW)
_TRUNC = int(Outcome.TRUNCATED)
_RUNNING = RUNNING
_INT8_MAX = INT8_MAX


# ---------------------------------------------------------------- pure rule resolution

@jit(inline="always")
def _resolve_hit(roll, melee):
    """§6.1 / §2.2: a melee die hits when roll <= Melee (a 6 always misses at Melee <= 5)."""
    return roll <= melee


@jit(inline="always")
def _resolve_save(roll, armor):
    """§6.3: the hit is ignored when the Armor die is <= the (modified) Armor."""
    return roll <= armor


@jit(inline="always")
def _resolve_free_trigger(hit_roll, armor_roll, armor, free_attack, trigger_six):
    """§6.4: a hit rolled as a 1 met by an Armor roll of 6 (DEFAULT ``armor_six``) or by any failed
    save (``failed_save``) earns a Free Attack. Called only for hits."""
    if not free_attack or hit_roll != 1:
        return False
    if trigger_six:
        return armor_roll == 6
    return armor_roll > armor


@jit(inline="always")
def _resolve_wounds_dealt(hit_roll, armor_roll, free_roll, melee, armor, free_attack,
                          trigger_six):
    """Wounds (0, 1 or 2) and Raven token (0/1) from one attack given all its dice (§6.1-6.4).

    ``armor_roll`` is ignored on a miss and ``free_roll`` unless the §6.4 trigger fires. The Free
    Attack hits on d6 <= Melee and allows no Armor roll (§6.4), so it cannot trigger another.
    """
    if not _resolve_hit(hit_roll, melee):
        return 0, 0
    wounds = 0 if _resolve_save(armor_roll, armor) else 1
    if _resolve_free_trigger(hit_roll, armor_roll, armor, free_attack, trigger_six):
        if _resolve_hit(free_roll, melee):
            return wounds + 1, 1          # §6.4: a further wound and a Raven token
    return wounds, 0


@jit(inline="always")
def _resolve_end_of_turn(left_a, left_b, dealt_to_a, dealt_to_b):
    """§3.4-3.5, §7.1: marked wounds take effect at End of Turn; never below 0."""
    a = left_a - dealt_to_a
    b = left_b - dealt_to_b
    return (a if a > 0 else 0), (b if b > 0 else 0)


@jit(inline="always")
def _resolve_outcome(left_a, left_b):
    """Outcome once wounds are applied: a figure at 0 wounds left is removed (§7.1)."""
    if left_a == 0 and left_b == 0:
        return _DRAW
    if left_b == 0:
        return _A_WIN
    if left_a == 0:
        return _B_WIN
    return _RUNNING


# ---------------------------------------------------------------- kernels (draw dice)

@jit(inline="always")
def _attack(melee, armor, free_attack, trigger_six, rng):
    """One melee attack; draws 1 (miss), 2 (hit) or 3 (hit + §6.4 trigger) dice."""
    h = _d6(rng)
    if h > melee:                                  # §6.1 miss: no further dice
        return 0, 0
    s = _d6(rng)                                   # §6.3 the target's Armor die
    f = 0
    if _resolve_free_trigger(h, s, armor, free_attack, trigger_six):
        f = _d6(rng)                               # §6.4 Free Attack die
    return _resolve_wounds_dealt(h, s, f, melee, armor, free_attack, trigger_six)


@jit(inline="always")
def _fated_stroke(melee, armor, fated_armor, rng):
    """§10.3 Fated: the killed figure's free attack on the enemy in contact; 1 wound or 0."""
    if not _resolve_hit(_d6(rng), melee):
        return 0
    if fated_armor and _resolve_save(_d6(rng), armor):
        return 0
    return 1


@jit
def _play_duels(att_a, att_b, mel_a, mel_b, arm_a, arm_b, wnd_a, wnd_b, fat_a, fat_b,
                free_attack, trigger_six, fated_armor, max_turns, g0, g1, rng,
                outcome, turns, left_a, left_b, ravens_a, ravens_b):
    """Play duels g0..g1-1 into the output arrays. No input checks.

    ``arm_a`` is A's Armor against B's hits (and vice versa). Uses only ``rng`` (dice stream),
    1-3 draws per attack plus 1-2 per Fated stroke, in the module docstring's order.
    Outputs (shape=(n_games,)): outcome int8 (Outcome), turns int16, left_a/left_b int8 (wounds
    left), ravens_a/ravens_b int8 (Raven tokens A/B placed, i.e. Free Attack hits by A/B).
    """
    for g in range(g0, g1):
        wa = wnd_a
        wb = wnd_b
        ra = 0
        rb = 0
        res = _RUNNING
        t = 0
        while t < max_turns:
            t += 1
            to_b = 0
            for _ in range(att_a):                 # §6.5: both strike every turn
                w, r = _attack(mel_a, arm_b, free_attack, trigger_six, rng)
                to_b += w
                ra += r
            to_a = 0
            for _ in range(att_b):
                w, r = _attack(mel_b, arm_a, free_attack, trigger_six, rng)
                to_a += w
                rb += r
            wa, wb = _resolve_end_of_turn(wa, wb, to_a, to_b)   # §3.5 End of Turn
            if wa == 0 and wb > 0 and fat_a:                    # §10.3 Fated A strikes B
                wb -= _fated_stroke(mel_a, arm_b, fated_armor, rng)
            if wb == 0 and wa > 0 and fat_b:                    # §10.3 Fated B strikes A
                wa -= _fated_stroke(mel_b, arm_a, fated_armor, rng)
            res = _resolve_outcome(wa, wb)
            if res != _RUNNING:
                break
        if res == _RUNNING:
            res = _TRUNC                           # §12.6 guard: reported, never a draw
        outcome[g] = res
        turns[g] = t
        left_a[g] = wa
        left_b[g] = wb
        ravens_a[g] = ra if ra < _INT8_MAX else _INT8_MAX
        ravens_b[g] = rb if rb < _INT8_MAX else _INT8_MAX


# ---------------------------------------------------------------- entry (mode=duel)

OUT_DTYPES = {"outcome": np.int8, "turns": np.int16, "a_wounds_left": np.int8,
              "b_wounds_left": np.int8, "a_ravens": np.int8, "b_ravens": np.int8}


def allocate(setup: DuelSetup, n_games: int) -> dict:
    """Per-game outputs: 7 bytes a duel (10 million duels = 70 MB)."""
    return {k: np.zeros(n_games, dt) for k, dt in OUT_DTYPES.items()}


def kernel_args(s: DuelSetup) -> tuple:
    return (int(s.attacks[0]), int(s.attacks[1]), int(s.melee[0]), int(s.melee[1]),
            int(s.armor[0]), int(s.armor[1]), int(s.wounds[0]), int(s.wounds[1]),
            bool(s.fated[0]), bool(s.fated[1]), s.free_attack, s.trigger_six, s.fated_armor,
            s.max_turns)


def play_block(setup: DuelSetup, g0, g1, dice_rng, pol_rng, out) -> None:
    """Compiled duels g0..g1-1 (no policy draws: ``pol_rng`` is unused)."""
    _play_duels(*kernel_args(setup), g0, g1, dice_rng, out["outcome"], out["turns"],
                out["a_wounds_left"], out["b_wounds_left"], out["a_ravens"], out["b_ravens"])
