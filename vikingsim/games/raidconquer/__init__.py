"""Vikings: Raid & Conquer (seed 004, notes ``raidconquer.md``): the deck-builder, 2-5 players.

A seated game (a winner seat per game; a full tie is outcome ``tie`` with the first tied seat
in turn order as ``winner``). Files: ``cards.toml`` + ``catalog.py`` (the card catalog as
data), ``rules.py`` (``Rules``, every rule declared once, compiled with the catalog to arrays),
``kernel.py`` (compiled games), ``reference.py`` (plain-Python oracle and ``trace``),
``policies.py`` (policies as data), ``invariants.py`` (``GAME.invariants``); this module holds
the ``GameSpec`` glue.

Public: ``GAME``, ``OPTIONS``, ``Rules``, ``simulate``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vikingsim.core import stats
from vikingsim.core.game import GameSpec
from vikingsim.core.options import options_of
from vikingsim.games.raidconquer import invariants, kernel, reference
from vikingsim.games.raidconquer.catalog import Catalog
from vikingsim.games.raidconquer.policies import POLICY_HELP, POLICY_TYPES, compile_policies
from vikingsim.games.raidconquer.rules import CHARACTERS, N_CHARACTERS, Rules, check_players

__all__ = ["GAME", "OPTIONS", "Rules", "simulate", "CHARACTERS"]

OPTIONS = options_of(Rules)
#: §10.1: a game is won, tied (both tie-breaks fail, final_tie = shared) or hits the cap (§5).
OUTCOMES = ("win", "tie", "truncated")
RULES_VERSION = "2026.12.2"
#: Per-seat output arrays (frame columns ``<name>_<seat>``).
SEAT_ARRAYS = ("legend", "raid_legend", "raids", "character", "earls", "won", "acquired",
               "pillaged", "lost", "silver_avail", "silver_spent")


@dataclass(frozen=True)
class Setup:
    rules: Rules
    compiled: object
    catalog: Catalog
    kinds: np.ndarray
    params: np.ndarray
    policies: tuple


def setup(options: dict, policies: list[str], players: int) -> Setup:
    """Validated setup: ``Rules`` (the catalog loaded and checked) and one policy kind and
    parameter row per seat."""
    rules = Rules(**options)
    catalog = rules.cards()
    check_players(rules, catalog, players)
    kinds, params = compile_policies(policies)
    return Setup(rules, rules.compile(), catalog, kinds, params, tuple(policies))


def allocate(s: Setup, n: int) -> dict:
    k, kinds = len(s.kinds), s.catalog.n_kinds
    out = {"winner": np.full(n, -1, np.int8), "tie": np.zeros(n, np.bool_),
           "tied": np.zeros(n, np.int8), "rounds": np.zeros(n, np.int16),
           "truncated": np.zeros(n, np.bool_), "failed_raids": np.zeros(n, np.int16),
           "census": np.zeros((n, kinds), np.int16)}
    for name in SEAT_ARRAYS:
        dtype = np.int32 if name.startswith("silver") else np.int16
        out[name] = np.zeros((n, k), dtype)
    return out


def play_block(s: Setup, g0, g1, dice_rng, pol_rng, out, game0=0) -> None:
    kernel.play_block(s, g0, g1, dice_rng, pol_rng, out, game0)


def reference_block(s: Setup, g0, g1, dice_rng, pol_rng, out, game0=0) -> None:
    reference.play_block(s, g0, g1, dice_rng, pol_rng, out, game0)


def _outcome_codes(out) -> np.ndarray:
    return np.where(out["truncated"], 2, np.where(out["tie"], 1, 0)).astype(np.int8)


def frame(s: Setup, out) -> pd.DataFrame:
    """One row per game: ``game_id``, ``outcome`` (win/tie/truncated), ``winner`` (seat; -1
    when truncated), ``tie``, ``tied`` (bit mask of the seats tied), ``rounds``,
    ``truncated``, ``failed_raids``; per seat ``character_i`` (name), ``policy_i``,
    ``legend_i``, ``raid_legend_i``, ``raids_i``, ``earls_i``, ``won_i``, ``acquired_i``,
    ``pillaged_i``, ``lost_i``, ``silver_avail_i``, ``silver_spent_i``."""
    import pandas as pd  # here, not at the top: 'vikingsim games' stays light

    n = len(out["winner"])
    outcome = pd.Categorical.from_codes(_outcome_codes(out), categories=OUTCOMES)
    cols = {"game_id": np.arange(n, dtype=np.int64), "outcome": outcome,
            "winner": out["winner"], "tie": out["tie"], "tied": out["tied"],
            "rounds": out["rounds"], "truncated": out["truncated"],
            "failed_raids": out["failed_raids"]}
    for seat in range(out["legend"].shape[1]):
        cols[f"character_{seat}"] = pd.Categorical.from_codes(
            out["character"][:, seat].astype(np.int8), categories=CHARACTERS)
        cols[f"policy_{seat}"] = s.policies[seat]
        for name in SEAT_ARRAYS:
            if name != "character":
                cols[f"{name}_{seat}"] = out[name][:, seat]
    return pd.DataFrame(cols)


def tally(s: Setup, out) -> dict:
    """Additive reduction: wins and win shares per seat and per character, seats played per
    character, rounds histogram, ties, truncated, Legend sums."""
    n, k = out["legend"].shape
    done = ~out["truncated"]
    win = out["winner"].astype(np.int64)
    char = out["character"].astype(np.int64)
    wins_seat = np.bincount(win[done], minlength=k)
    wins_char = np.bincount(char[done, np.clip(win[done], 0, k - 1)], minlength=N_CHARACTERS) \
        if done.any() else np.zeros(N_CHARACTERS, np.int64)
    bits = (out["tied"].astype(np.int64)[:, None] >> np.arange(k)) & 1
    share = np.where(done[:, None], bits / np.maximum(bits.sum(axis=1, keepdims=True), 1), 0.0)
    share_char = np.zeros(N_CHARACTERS)
    np.add.at(share_char, char.ravel(), share.ravel())
    return {"wins": wins_seat, "wins_char": wins_char.astype(np.int64),
            "seats_char": np.bincount(char.ravel(), minlength=N_CHARACTERS),
            "share": share.sum(axis=0), "share_char": share_char,
            "rounds_hist": np.bincount(out["rounds"].astype(np.int64)),
            "ties": np.array([int(out["tie"].sum())]),
            "truncated": np.array([int(out["truncated"].sum())]),
            "legend_sum": out["legend"].sum(axis=0, dtype=np.int64),
            "raids_sum": out["raids"].sum(axis=0, dtype=np.int64)}


def summarize(s: Setup, t: dict, n: int) -> dict:
    """Win rate per seat, per character and per policy with Wilson 95% intervals (a tie counts
    for the ``winner`` seat; ``win_share`` splits ties), mean rounds, mean Legend, ties."""
    mean, sd, se = stats.hist_mean_sd(t["rounds_hist"])
    truncated, ties = int(t["truncated"][0]), int(t["ties"][0])
    by_char = {}
    for c, name in enumerate(CHARACTERS):
        seats = int(t["seats_char"][c])
        if seats:
            w = int(t["wins_char"][c])
            by_char[name] = {"games": seats, "win_rate": w / seats,
                             "win_rate_ci": list(stats.wilson(w, seats)),
                             "win_share": float(t["share_char"][c] / seats)}
    by_pol = {}
    for seat, label in enumerate(s.policies):
        d = by_pol.setdefault(label, {"seats": 0, "wins": 0})
        d["seats"] += n
        d["wins"] += int(t["wins"][seat])
    for d in by_pol.values():
        d["win_rate"] = d["wins"] / d["seats"]
        d["win_rate_ci"] = list(stats.wilson(d["wins"], d["seats"]))
    out = {
        "win_rate": [float(w / n) for w in t["wins"]],
        "win_rate_ci": [list(stats.wilson(int(w), n)) for w in t["wins"]],
        "win_share": [float(x / n) for x in t["share"]],
        "win_rate_by_character": by_char, "win_rate_by_policy": by_pol,
        "mean_rounds": mean, "sd_rounds": sd, "mean_rounds_se": se,
        "mean_legend": [float(x / n) for x in t["legend_sum"]],
        "mean_raid_cards": [float(x / n) for x in t["raids_sum"]],
        "ties": ties, "truncated": truncated,
    }
    stats.put_fraction(out, "p_win", n - truncated - ties, n)
    stats.put_fraction(out, "p_tie", ties, n)
    stats.put_fraction(out, "p_truncated", truncated, n)
    return out


def summary(s: Setup, out) -> dict:
    return summarize(s, tally(s, out), len(out["winner"]))


def trace(s: Setup, seed: int, game_id: int = 0) -> str:
    """Game ``game_id`` of a run with ``seed``, told phase by phase (same game as simulate)."""
    from vikingsim.core import rng

    dice, pol, offset = rng.trace_streams(seed, game_id, GAME.block_games)
    g0 = game_id - offset
    for g in range(g0, g0 + offset):            # replay the block's earlier games silently
        reference.Game(s, g, dice, pol).play()
    events: list[str] = []
    game = reference.Game(s, game_id, dice, pol, events=events)
    truncated, rounds = game.play()
    win, tie, _ = game.winner()
    scores = [game.score(pl)[0] for pl in game.players]
    end = ("truncated" if truncated else f"{'tie, first tied' if tie else 'winner'} seat {win}")
    header = (f"raidconquer game {game_id} of seed {seed}: {len(s.kinds)} players, policies "
              f"{', '.join(s.policies)}, characters "
              f"{', '.join(CHARACTERS[pl.char] for pl in game.players)}")
    return "\n".join([header, *events, f"end after {rounds} rounds: {end}; Legend {scores}"])


GAME = GameSpec(
    name="raidconquer",
    title="Vikings: Raid & Conquer",
    summary_line="deck-builder: raid, attack, defend; most Legend when someone holds 5 Raid "
                 "cards (seed 004)",
    options=OPTIONS,
    policies=POLICY_HELP,
    default_policy="hints",
    players=(2, 5, 4),
    setup=setup,
    allocate=allocate,
    play_block=play_block,
    reference_block=reference_block,
    frame=frame,
    summary=summary,
    tally=tally,
    summarize=summarize,
    trace=trace,
    rules_version=RULES_VERSION,
    outcomes=OUTCOMES,
    seated=True,
    first_player_option="first_seat",
    game_id_options={"rotate_characters": True},
    policy_types=POLICY_TYPES,
    invariants=invariants.check,
    bench_options={},
    bench_players=4,
    bench_configs=({}, {"character_offset": 1}),
    help_text="Catalog: --set catalog=my_cards.toml (see vikingsim/games/raidconquer/cards.toml)",
)


def simulate(n: int = 10_000, *, players: int = 4, policies="hints", seed=None, **options):
    """Play ``n`` games; returns a ``vikingsim.core.results.Result`` whose ``frame`` has a
    ``character_<seat>`` and ``policy_<seat>`` column per seat.

    Examples
    --------
    >>> from vikingsim.games import raidconquer
    >>> res = raidconquer.simulate(20_000, players=4, rotate_characters=True, seed=7)
    >>> res.summary["win_rate_by_character"]["ragnar"]      # doctest: +SKIP
    """
    from vikingsim.core import config
    from vikingsim.core.runner import simulate as run

    return run(GAME, n, seed=config.SEED if seed is None else seed, players=players,
               policies=policies, options=options)
