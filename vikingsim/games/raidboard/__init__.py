"""The circular raid board (seed 001, notes ``raidboard.md``): first to 100 Gold.

A seated game (a winner seat per game, or none when truncated). Files: ``rules.py`` (board,
``Rules`` with every rule declared once, compiled to arrays), ``kernel.py`` (compiled games),
``reference.py`` (plain-Python oracle and ``trace``), ``policies.py`` (policies as data),
``invariants.py`` (``GAME.invariants``); this module holds the ``GameSpec`` glue.

Public: ``GAME`` (registry entry), ``OPTIONS``, ``Rules``, ``simulate``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vikingsim.core import stats
from vikingsim.core.errors import InputError
from vikingsim.core.game import GameSpec
from vikingsim.core.options import options_of
from vikingsim.games.raidboard import invariants, kernel, reference, search
from vikingsim.games.raidboard.policies import (ELEMENTS, POLICY_HELP, POLICY_TYPES,
                                                compile_policies)
from vikingsim.games.raidboard.rules import N_SPACES, Rules

__all__ = ["GAME", "OPTIONS", "Rules", "simulate"]

#: Every option is a ``Rules`` field (same name, same default, help and range from ``rule``).
OPTIONS = options_of(Rules)
#: Outcome vocabulary: a game is won by a seat, or hits the safety cap (§8.3).
OUTCOMES = ("win", "truncated")
#: Bump when the same seed and options give other games.
RULES_VERSION = "2026.12.2"


@dataclass(frozen=True)
class Setup:
    rules: Rules
    compiled: object
    kinds: np.ndarray
    params: np.ndarray
    policies: tuple


def setup(options: dict, policies: list[str], players: int) -> Setup:
    """Validated setup: ``Rules`` from the resolved options (option names are its fields) and
    one policy kind and parameter row per seat from the policy labels."""
    rules = Rules(**options)
    if rules.first_seat >= players:
        raise InputError(f"first_seat={rules.first_seat}: must be a seat in [0, {players - 1}]")
    richest = rules.start_gold + (players - 1) * rules.seat_gold_step        # §4.4
    last = (rules.first_seat + players - 1) % players                        # last in turn order
    if richest >= rules.target_gold:
        raise InputError(f"seat_gold_step={rules.seat_gold_step}: seat {last} would start "
                         f"with {richest} Gold, not below target_gold={rules.target_gold}")
    kinds, params = compile_policies(policies)
    return Setup(rules, rules.compile(), kinds, params, tuple(policies))


def elements(s: Setup) -> tuple:
    """What a seat's ``forbid`` accepts (raidboard §10.5): each sea as Exploration target,
    ``lost_opponent`` and ``lost_own`` (the two kinds of Lost removal); the same in every
    setup."""
    return ELEMENTS


def allocate(s: Setup, n: int) -> dict:
    k = len(s.kinds)
    return {"winner": np.full(n, -1, np.int8), "rounds": np.zeros(n, np.int32),
            "truncated": np.zeros(n, np.bool_), "gold": np.zeros((n, k), np.int32),
            "settlements": np.zeros((n, k), np.int8), "kingdoms": np.zeros((n, k), np.int8),
            "fleets_lost": np.zeros((n, k), np.int16)}


def play_block(s: Setup, g0, g1, dice_rng, pol_rng, out) -> None:
    if search.is_search(s.kinds):                     # a search seat: forward model (§2)
        return search.play_block(s, g0, g1, dice_rng, pol_rng, out)
    c, k = s.compiled, len(s.kinds)
    scratch = [np.zeros(k, np.int64) for _ in range(3)]                # gold, pos, fdir
    kernel._play_block(c.ri, c.kind, c.region, c.seas, c.region_spaces, s.kinds, s.params,
                       g0, g1, dice_rng, pol_rng, *scratch, np.zeros(k, np.bool_),
                       np.full(N_SPACES, kernel.NO_OWNER, np.int64),
                       *[np.zeros(k, np.int64) for _ in range(3)],       # n_set, n_king, lost
                       out["winner"], out["rounds"], out["truncated"],
                       out["gold"], out["settlements"], out["kingdoms"], out["fleets_lost"])


def frame(s: Setup, out) -> pd.DataFrame:
    """One row per game: ``game_id``, ``outcome`` (categorical over ``OUTCOMES``), winner seat
    (-1 when truncated), rounds, truncated, then per seat ``gold_i``, ``settlements_i``,
    ``kingdoms_i``, ``fleets_lost_i``."""
    import pandas as pd  # here, not at the top: 'vikingsim games' stays light

    n = len(out["winner"])
    outcome = pd.Categorical.from_codes(out["truncated"].astype(np.int8), categories=OUTCOMES)
    cols = {"game_id": np.arange(n, dtype=np.int64), "outcome": outcome,
            "winner": out["winner"], "rounds": out["rounds"], "truncated": out["truncated"]}
    for name in ("gold", "settlements", "kingdoms", "fleets_lost"):
        for seat in range(out[name].shape[1]):
            cols[f"{name}_{seat}"] = out[name][:, seat]
    return pd.DataFrame(cols)


def tally(s: Setup, out) -> dict:
    """Additive reduction of a segment's games (``core.results.add_tallies``)."""
    k = out["gold"].shape[1]
    return {"wins": np.bincount(out["winner"][out["winner"] >= 0].astype(np.int64), minlength=k),
            "rounds_hist": np.bincount(out["rounds"].astype(np.int64)),
            "truncated": np.array([int(out["truncated"].sum())]),
            **{f"{name}_sum": out[name].sum(axis=0, dtype=np.int64)
               for name in ("gold", "settlements", "fleets_lost")}}


def summarize(s: Setup, t: dict, n: int) -> dict:
    """Win rate per seat over all n games (truncated games count for nobody) with Wilson 95%
    intervals; ``p_win``/``p_truncated`` with theirs; game length; truncated count."""
    mean, sd, se = stats.hist_mean_sd(t["rounds_hist"])
    truncated = int(t["truncated"][0])
    s = {
        "win_rate": [float(w / n) for w in t["wins"]],
        "win_rate_ci": [list(stats.wilson(int(w), n)) for w in t["wins"]],
        "mean_rounds": mean, "sd_rounds": sd, "mean_rounds_se": se,
        "truncated": truncated,
        "mean_final_gold": [float(x / n) for x in t["gold_sum"]],
        "mean_settlements": [float(x / n) for x in t["settlements_sum"]],
        "mean_fleets_lost": [float(x / n) for x in t["fleets_lost_sum"]],
    }
    stats.put_fraction(s, "p_win", n - truncated, n)
    stats.put_fraction(s, "p_truncated", truncated, n)
    return s


def summary(s: Setup, out) -> dict:
    """``summarize`` of the tally of per-game arrays ``out``."""
    return summarize(s, tally(s, out), len(out["winner"]))


def trace(s: Setup, seed: int, game_id: int = 0) -> str:
    """Game ``game_id`` of a run with ``seed``, told turn by turn (same dice as ``simulate``)."""
    from vikingsim.core import rng

    dice, pol, offset = rng.trace_streams(seed, game_id, GAME.block_games)
    for _ in range(offset):                     # replay the block's earlier games silently
        reference.Game(s.rules, list(s.kinds), s.params.tolist(), dice, pol).play()
    events: list[str] = []
    reference.Game(s.rules, [int(x) for x in s.kinds], s.params.tolist(), dice, pol,
                   events=events).play()
    header = (f"raidboard game {game_id} of seed {seed}: {len(s.kinds)} players, policies "
              f"{', '.join(s.policies)}, variant {s.rules.variant}")
    return "\n".join([header, *events])


GAME = GameSpec(
    name="raidboard",
    title="Raid board",
    summary_line="circular 40-space raid race, first to 100 Gold (seed 001)",
    options=OPTIONS,
    policies=POLICY_HELP,
    default_policy="greedy",
    players=(2, 8, 4),
    setup=setup,
    allocate=allocate,
    play_block=play_block,
    reference_block=reference.play_block,
    frame=frame,
    summary=summary,
    tally=tally,
    summarize=summarize,
    trace=trace,
    rules_version=RULES_VERSION,
    help_text=("every policy takes forbid=ELEMENT[+ELEMENT...], choices the seat may not make "
               f"(restricted play, §10.5; vikingsim importance): {', '.join(ELEMENTS)}"),
    outcomes=OUTCOMES,
    seated=True,
    first_player_option="first_seat",
    policy_types=POLICY_TYPES,
    invariants=invariants.check,
    elements=elements,
    bench_options={},
    bench_players=4,
)


def simulate(n: int = 100_000, *, players: int = 4, policies="greedy", seed=None, **options):
    """Play ``n`` raid board games; returns a ``vikingsim.core.results.Result``.

    Examples
    --------
    >>> from vikingsim.games import raidboard
    >>> res = raidboard.simulate(20_000, players=4, seed=7, variant="ends-of-earth")
    >>> res.summary["win_rate"]                    # doctest: +SKIP
    """
    from vikingsim.core import config
    from vikingsim.core.runner import simulate as run

    return run(GAME, n, seed=config.SEED if seed is None else seed, players=players,
               policies=policies, options=options)
