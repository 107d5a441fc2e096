"""Plain-Python Ravenfeast duel (rules notes ravenfeast.md §12.5): the test oracle and bench
baseline. Written independently of ``duel.py`` (no shared helpers) but with the same draw order,
so both give identical games from the same dice Generator.

Draw order per turn: A's attacks, then B's; per attack a hit die, on a hit an Armor die, on the
§6.4 trigger a Free Attack die; at End of Turn a Fated stroke die (A first, then B) and, with
``fated_armor_roll``, its Armor die.
"""
from __future__ import annotations

from vikingsim.core.rng import d6
from vikingsim.games.ravenfeast.rules import Outcome


def one_attack(melee, armor, free_attack, trigger_six, rng, log=None, who=""):
    """(wounds, raven) of one attack, rolling its dice; ``log`` collects sentences for trace."""
    hit = d6(rng)
    if hit > melee:
        if log is not None:
            log.append(f"{who} rolls {hit} to hit (needs {melee} or less): miss.")
        return 0, 0
    save = d6(rng)
    wounds = 0 if save <= armor else 1
    if log is not None:
        log.append(f"{who} rolls {hit} to hit: hit; Armor roll {save} (saves on {armor} or "
                   f"less): {'saved' if wounds == 0 else 'a wound (Blood token)'}.")
    trigger = free_attack and hit == 1 and (save == 6 if trigger_six else save > armor)
    if not trigger:
        return wounds, 0
    free = d6(rng)
    if free <= melee:
        if log is not None:
            log.append(f"  Death Worthy of a Song! Free Attack roll {free}: hits, no Armor roll "
                       f"- a further wound and a Raven token.")
        return wounds + 1, 1
    if log is not None:
        log.append(f"  Free Attack roll {free}: misses.")
    return wounds, 0


def play_one(s, rng, log=None):
    """One duel of setup ``s`` (a ``DuelSetup``); returns (outcome, turns, left_a, left_b,
    ravens_a, ravens_b)."""
    left = [int(s.wounds[0]), int(s.wounds[1])]
    ravens = [0, 0]
    names = s.names
    t = 0
    result = None
    while t < s.max_turns:
        t += 1
        if log is not None:
            log.append(f"Turn {t}: {names[0]} has {left[0]} wound(s) left, {names[1]} {left[1]}.")
        dealt = [0, 0]                      # dealt[i] = wounds marked on figure i this turn
        for i in (0, 1):                    # A strikes first in the draw order, then B
            j = 1 - i
            for _ in range(int(s.attacks[i])):
                w, r = one_attack(int(s.melee[i]), int(s.armor[j]), s.free_attack,
                                  s.trigger_six, rng, log, f"  {names[i]}")
                dealt[j] += w
                ravens[i] += r
        for i in (0, 1):                    # End of Turn: wounds take effect
            left[i] = max(0, left[i] - dealt[i])
        for i in (0, 1):                    # Fated death-strokes, A's first
            j = 1 - i
            if left[i] == 0 and left[j] > 0 and s.fated[i]:
                hit = d6(rng)
                wound = hit <= s.melee[i]
                if wound and s.fated_armor:
                    wound = d6(rng) > s.armor[j]
                if wound:
                    left[j] -= 1
                if log is not None:
                    log.append(f"  {names[i]} falls, Fated, and strikes a last blow (roll {hit}): "
                               f"{'a wound' if wound else 'no wound'}.")
        if log is not None:
            log.append(f"  End of Turn: {names[0]} {left[0]} wound(s) left, "
                       f"{names[1]} {left[1]}.")
        if left[0] == 0 and left[1] == 0:
            result = Outcome.BOTH_DIE
        elif left[1] == 0:
            result = Outcome.A_WIN
        elif left[0] == 0:
            result = Outcome.B_WIN
        if result is not None:
            break
    if result is None:
        result = Outcome.TRUNCATED
    return int(result), t, left[0], left[1], min(ravens[0], 127), min(ravens[1], 127)


def reference_block(s, g0, g1, dice_rng, pol_rng, out) -> None:
    """Plain-Python twin of ``duel.play_block``."""
    keys = ("outcome", "turns", "a_wounds_left", "b_wounds_left", "a_ravens", "b_ravens")
    for g in range(g0, g1):
        for k, v in zip(keys, play_one(s, dice_rng)):
            out[k][g] = v


def trace(s, seed: int, game_id: int = 0) -> str:
    """Duel ``game_id`` of a run with root ``seed`` told in words (the same dice as the kernel:
    the earlier duels of its RNG block are replayed silently first)."""
    from vikingsim.core import rng as _rng
    from vikingsim.games.ravenfeast import GAME
    from vikingsim.games.ravenfeast.duel import describe_setup

    block, first = divmod(int(game_id), GAME.block_games)
    dice = _rng.block_generator(seed, _rng.STREAM_DICE, block)
    for _ in range(first):
        play_one(s, dice)
    log = [f"Ravenfeast duel {game_id}, seed {seed}. {describe_setup(s)}."]
    res = play_one(s, dice, log)
    outcome, turns = Outcome(res[0]), res[1]
    words = {Outcome.A_WIN: f"{s.names[0]} wins", Outcome.B_WIN: f"{s.names[1]} wins",
             Outcome.BOTH_DIE: "both fall", Outcome.TRUNCATED: "still fighting at the turn cap"}
    log.append(f"Result after {turns} turn(s): {words[outcome]}.")
    return "\n".join(log)
