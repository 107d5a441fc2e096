"""Plain-Python Ravenfeast duel (rules notes ravenfeast.md §12.5): the test oracle and bench
baseline. Written independently of ``kernel.py`` and the rating helpers of the shared
``ravenfeast/rules.py`` but with the same draw order,
so both give identical games from the same dice Generator.

What it shares with the kernel: only the profile data, i.e. the rows of ``DuelSetup.rows``
built by ``profiles.compile_profile`` (the profile table, the user's overrides and the §7.2
Tough reading), plus the ``Rules`` and ``Stance`` values themselves. The modified Melee and
Armor (§6.2, §8.3, §2.2), the Free Attack trigger and the turn cap are worked out here from
the rules notes (:func:`modified_melee`, :func:`modified_armor`), never read from the kernel's
compiled numbers (``DuelSetup.melee``/``armor``, ``rules.melee_rating``/``armor_rating``);
``tests/test_ravenfeast_ratings.py`` checks both readings against a hand-typed grid.

Draw order per turn: A's attacks, then B's; per attack a hit die, on a hit an Armor die, on the
§6.4 trigger a Free Attack die; at End of Turn a Fated stroke die (A first, then B) and, with
``fated_armor_roll``, its Armor die.
"""
from __future__ import annotations

from vikingsim.core import rng as _rng
from vikingsim.core.rng import d6
from vikingsim.games.ravenfeast.duel.rules import describe_setup
from vikingsim.games.ravenfeast.profiles import RATING_MAX, Stat
from vikingsim.games.ravenfeast.rules import BLOCK_GAMES, INT8_MAX, Outcome


def clamp(value, rules):
    """§2.2 DEFAULT ``rating_clamp``: a modified rating stays within 0..5."""
    if not rules.rating_clamp:
        return value
    return max(0, min(RATING_MAX, value))   # §2.1: ratings run 1..5


def modified_melee(melee, rules, *, outnumbered=False, wall=False, uphill=False):
    """§6.2: −1 attacking across an obstacle or uphill; −1 engaged by several enemies, which a
    shield-wall member ignores (§8.3)."""
    penalty = 0
    if uphill:
        penalty += rules.uphill_melee_mod
    if outnumbered and not wall:
        penalty += rules.outnumbered_melee_mod
    return clamp(melee - penalty, rules)


def modified_armor(armor, rules, *, wall=False, rear=False, mighty=False):
    """Armor of a figure against one enemy's hits (§6.2, §8.3): ``wall`` it stands in a shield
    wall, ``rear`` the blow comes from behind, ``mighty`` the attacker is Mighty.

    Shield wall +2, at most 5, and nothing against an attack from the rear; rear −1; a Mighty
    attacker −1. Where the wall's cap sits against Mighty is the ``shield_wall_cap`` reading
    (DEFAULT ``before_mighty``: cap Armor + 2 first, then take Mighty's 1 off).
    """
    walled = wall and not rear
    rear = rules.rear_armor_mod if rear else 0
    mighty = rules.mighty_armor_mod if mighty else 0
    if not walled:
        return clamp(armor - mighty - rear, rules)
    with_bonus = armor + rules.shield_wall_armor_bonus
    if rules.shield_wall_cap == "before_mighty":
        return clamp(min(with_bonus, rules.shield_wall_armor_max) - mighty, rules)
    return clamp(min(with_bonus - mighty, rules.shield_wall_armor_max), rules)


class Duellist:
    """One figure of a duel: its profile row's numbers and its ratings in its stance."""

    def __init__(self, row, stance, enemy_row, rules):
        self.attacks = int(row[Stat.ATTACKS])
        self.wounds = int(row[Stat.WOUNDS])
        self.fated = bool(row[Stat.FATED])
        self.melee = modified_melee(int(row[Stat.MELEE]), rules, outnumbered=stance.outnumbered,
                                    wall=stance.shield_wall, uphill=stance.uphill)
        self.armor = modified_armor(int(row[Stat.ARMOR]), rules, wall=stance.shield_wall,
                                    rear=stance.rear, mighty=bool(enemy_row[Stat.MIGHTY]))


def duellists(s):
    """(A, B) of setup ``s``, each rated from its profile row, stance and the rules."""
    return tuple(Duellist(s.rows[i], s.stances[i], s.rows[1 - i], s.rules) for i in (0, 1))


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


def fated_strokes(figs, left, rules, rng, log=None, names=("A", "B")):
    """§10.3 at End of Turn: a Fated figure just killed strikes a last blow at a standing enemy
    (d6 <= its Melee; with ``fated_armor_roll`` the target then rolls Armor), A's first.
    ``left`` (wounds left per figure) is updated in place."""
    for i in (0, 1):
        j = 1 - i
        if left[i] == 0 and left[j] > 0 and figs[i].fated:
            hit = d6(rng)
            wound = hit <= figs[i].melee
            if wound and rules.fated_armor_roll:
                wound = d6(rng) > figs[j].armor
            if wound:
                left[j] -= 1
            if log is not None:
                log.append(f"  {names[i]} falls, Fated, and strikes a last blow (roll {hit}): "
                           f"{'a wound' if wound else 'no wound'}.")


def play_one(s, rng, log=None, figs=None):
    """One duel of setup ``s`` (a ``DuelSetup``); returns (outcome, turns, left_a, left_b,
    ravens_a, ravens_b). ``figs``: the two :class:`Duellist` (made from ``s`` if None)."""
    figs = duellists(s) if figs is None else figs
    rules = s.rules
    trigger_six = rules.free_attack_trigger == "armor_six"
    left = [figs[0].wounds, figs[1].wounds]
    ravens = [0, 0]
    names = s.names
    t = 0
    result = None
    while result is None and t < rules.max_turns:
        t += 1
        if log is not None:
            log.append(f"Turn {t}: {names[0]} has {left[0]} wound(s) left, {names[1]} {left[1]}.")
        dealt = [0, 0]                      # dealt[i] = wounds marked on figure i this turn
        for i in (0, 1):                    # A strikes first in the draw order, then B
            j = 1 - i
            for _ in range(figs[i].attacks):
                w, r = one_attack(figs[i].melee, figs[j].armor, rules.free_attack,
                                  trigger_six, rng, log, f"  {names[i]}")
                dealt[j] += w
                ravens[i] += r
        for i in (0, 1):                    # End of Turn: wounds take effect
            left[i] = max(0, left[i] - dealt[i])
        fated_strokes(figs, left, rules, rng, log, names)
        if log is not None:
            log.append(f"  End of Turn: {names[0]} {left[0]} wound(s) left, "
                       f"{names[1]} {left[1]}.")
        if left[0] == 0 and left[1] == 0:
            result = Outcome.DRAW           # both removed in the same End of Turn (§6.5)
        elif left[1] == 0:
            result = Outcome.A_WIN
        elif left[0] == 0:
            result = Outcome.B_WIN
    if result is None:
        result = Outcome.TRUNCATED
    return int(result), t, left[0], left[1], min(ravens[0], INT8_MAX), min(ravens[1], INT8_MAX)


def reference_block(s, g0, g1, dice_rng, pol_rng, out) -> None:
    """Plain-Python twin of ``kernel.play_block``."""
    keys = ("outcome", "turns", "a_wounds_left", "b_wounds_left", "a_ravens", "b_ravens")
    figs = duellists(s)
    for g in range(g0, g1):
        for k, v in zip(keys, play_one(s, dice_rng, figs=figs)):
            out[k][g] = v


def trace(s, seed: int, game_id: int = 0) -> str:
    """Duel ``game_id`` of a run with root ``seed`` told in words (the same dice as the kernel:
    the earlier duels of its RNG block are replayed silently first)."""
    dice, _, first = _rng.trace_streams(seed, int(game_id), BLOCK_GAMES)
    figs = duellists(s)
    for _ in range(first):
        play_one(s, dice, figs=figs)
    log = [f"Ravenfeast duel {game_id}, seed {seed}. {describe_setup(s)}."]
    res = play_one(s, dice, log, figs=figs)
    outcome, turns = Outcome(res[0]), res[1]
    words = {Outcome.A_WIN: f"{s.names[0]} wins", Outcome.B_WIN: f"{s.names[1]} wins",
             Outcome.DRAW: "both fall", Outcome.TRUNCATED: "still fighting at the turn cap"}
    log.append(f"Result after {turns} turn(s): {words[outcome]}.")
    return "\n".join(log)
