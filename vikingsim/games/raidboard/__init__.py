"""The circular raid board (seed 001, notes ``raidboard.md``): first to 100 Gold.

Public: ``GAME`` (registry entry), ``Rules``, ``simulate``.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from vikingsim.core import stats
from vikingsim.core.game import GameSpec
from vikingsim.core.options import Option
from vikingsim.games.raidboard import kernel, reference
from vikingsim.games.raidboard.policies import POLICY_HELP, compile_policies
from vikingsim.games.raidboard.rules import VARIANTS, Rules

__all__ = ["GAME", "Rules", "simulate"]

#: One option per ``Rules`` field (same name, same default), with its rules-notes section.
OPTIONS = (
    Option("variant", "choice", "circular", "track: circular (§5.3) or ends-of-earth (§9)",
           choices=VARIANTS),
    Option("start_gold", "int", 20, "Gold each player starts with (§4.1)", 0, 10_000),
    Option("target_gold", "int", 100, "Gold that wins (§8.1)", 1, 100_000),
    Option("max_rounds", "int", 10_000, "safety cap; capped games are truncated (§8.3)", 1,
           1_000_000),
    Option("raid_fail_max", "int", 4, "2d6 raid roll at or under this destroys the fleet (§7.2)",
           2, 12),
    Option("raid_capture_min", "int", 9, "2d6 raid roll at or over this captures (§7.4; 13 = never)",
           3, 13),
    Option("gold_floor", "int", 0, "losses never take Gold below this (§12.2; negative = debt)",
           -100_000, 0),
    Option("miss_turn_skips_income", "bool", True, "a missed turn skips income too (§5.1, §12.5)"),
    Option("sea_resolves_new_space", "bool", True, "resolve the space a sea move reaches (§6.4)"),
    Option("exploration_resolves_sea", "bool", True, "roll the sea die after Exploration (§6.5)"),
    Option("mercenary_stops_on_destruction", "bool", True,
           "no second Mercenary raid after a destroyed fleet (§6.7)"),
    Option("mercenary_raids", "int", 2, "raid rolls on Foreign Service (§6.7)", 1, 10),
    Option("north_opponent_settlement_raidable", "bool", True,
           "an opponent's North settlement can be raided and captured (§12.1)"),
    Option("settlement_supply", "int", 0, "settlement markers per player, 0 = unlimited (§2.2)",
           0, 21),
    Option("income_dice_per_settlement", "int", 1, "d6 of income per settlement (§5.2)", 0, 10),
    Option("income_dice_per_kingdom", "int", 2, "d6 of income per kingdom (§5.2)", 0, 10),
    Option("first_seat", "int", 0, "seat that moves first (§4.2)", 0, 7),
)
assert [o.name for o in OPTIONS] == [f.name for f in fields(Rules)], "options must mirror Rules"


@dataclass(frozen=True)
class Setup:
    rules: Rules
    compiled: object
    kinds: np.ndarray
    params: np.ndarray
    policies: tuple


def setup(options: dict, policies: list[str], players: int) -> Setup:
    rules = Rules(**options)
    if rules.first_seat >= players:
        from vikingsim.core.errors import InputError
        raise InputError(f"first_seat={rules.first_seat}: must be a seat in [0, {players - 1}]")
    kinds, params = compile_policies(policies)
    return Setup(rules, rules.compile(), kinds, params, tuple(policies))


def allocate(s: Setup, n: int) -> dict:
    k = len(s.kinds)
    return {"winner": np.full(n, -1, np.int8), "rounds": np.zeros(n, np.int32),
            "truncated": np.zeros(n, np.bool_), "gold": np.zeros((n, k), np.int32),
            "settlements": np.zeros((n, k), np.int8), "kingdoms": np.zeros((n, k), np.int8),
            "fleets_lost": np.zeros((n, k), np.int16)}


def play_block(s: Setup, g0, g1, dice_rng, pol_rng, out) -> None:
    c, k = s.compiled, len(s.kinds)
    scratch = [np.zeros(k, np.int64) for _ in range(3)]                # gold, pos, fdir
    kernel._play_block(c.ri, c.kind, c.region, c.seas, c.region_spaces, s.kinds, s.params,
                       g0, g1, dice_rng, pol_rng, *scratch, np.zeros(k, np.bool_),
                       np.full(40, kernel.NO_OWNER, np.int64),
                       *[np.zeros(k, np.int64) for _ in range(3)],       # n_set, n_king, lost
                       out["winner"], out["rounds"], out["truncated"],
                       out["gold"], out["settlements"], out["kingdoms"], out["fleets_lost"])


def frame(s: Setup, out) -> pd.DataFrame:
    """One row per game: winner seat (-1 when truncated), rounds, truncated, then per seat
    ``gold_i``, ``settlements_i``, ``kingdoms_i``, ``fleets_lost_i``."""
    n = len(out["winner"])
    cols = {"game_id": np.arange(n, dtype=np.int64), "winner": out["winner"],
            "rounds": out["rounds"], "truncated": out["truncated"]}
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
    intervals; game length; truncated count."""
    mean, sd, se = stats.hist_mean_sd(t["rounds_hist"])
    return {
        "win_rate": [float(w / n) for w in t["wins"]],
        "win_rate_ci": [list(stats.wilson(int(w), n)) for w in t["wins"]],
        "mean_rounds": mean, "sd_rounds": sd, "mean_rounds_se": se,
        "truncated": int(t["truncated"][0]),
        "mean_final_gold": [float(x / n) for x in t["gold_sum"]],
        "mean_settlements": [float(x / n) for x in t["settlements_sum"]],
        "mean_fleets_lost": [float(x / n) for x in t["fleets_lost_sum"]],
    }


def summary(s: Setup, out) -> dict:
    """``summarize`` of the tally of per-game arrays ``out``."""
    return summarize(s, tally(s, out), len(out["winner"]))


def trace(s: Setup, seed: int, game_id: int = 0) -> str:
    """Game ``game_id`` of a run with ``seed``, told turn by turn (same dice as ``simulate``)."""
    from vikingsim.core import rng

    block, offset = divmod(game_id, GAME.block_games)
    dice = rng.block_generator(seed, rng.STREAM_DICE, block)
    pol = rng.block_generator(seed, rng.STREAM_POLICY, block)
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
