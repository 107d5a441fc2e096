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
from vikingsim.core.errors import InputError
from vikingsim.core.game import GameSpec
from vikingsim.core.options import options_of
from vikingsim.games.raidconquer import invariants, kernel, reference, search
from vikingsim.games.raidconquer.catalog import Catalog, Pile
from vikingsim.games.raidconquer.policies import (
    POLICY_HELP, POLICY_TYPES, card_id, compile_policies, forbidden)
from vikingsim.games.raidconquer.search_params import rollout_seats, search_rows
from vikingsim.games.raidconquer.rules import CHARACTERS, N_CHARACTERS, Rules, check_players

__all__ = ["GAME", "OPTIONS", "Rules", "simulate", "CHARACTERS"]

OPTIONS = options_of(Rules)
#: §10.1: a game is won, tied (both tie-breaks fail, final_tie = shared) or hits the cap (§5).
OUTCOMES = ("win", "tie", "truncated")
RULES_VERSION = "2026.12.2"
#: Per-seat output arrays (frame columns ``<name>_<seat>``).
SEAT_ARRAYS = ("legend", "raid_legend", "raids", "character", "earls", "won", "acquired",
               "pillaged", "lost", "silver_avail", "silver_spent")
#: Piles whose cards can be bought (§7.4): the Viking Row and the Village Row.
BUYABLE = (Pile.VIKING, Pile.EVENT, Pile.WARRIORS, Pile.HACKSILVER, Pile.LONGBOAT)
#: Piles whose cards a seat's ``forbid`` accepts (§12.4): the buyable ones, Raid cards (raid
#: target, acquire, Pillage) and Treasures (Loot, Pillage); not the Coin (no choice).
FORBIDDABLE = BUYABLE + (Pile.RAID, Pile.TREASURE)
#: Per-card counters of ``out["cards"]`` (axis 1; kernel.EC_*), §14.6.
CARD_COUNTERS = ("bought", "first_round", "played", "final", "plans")
#: The Secret Plan actions (§6.2, §8; kernel.DEFEND..LONE), counted in ``cards[:, 4]``'s
#: first four card slots (§14.6).
ACTIONS = ("defend", "attack", "raid_party", "lone_raid")


@dataclass(frozen=True)
class Setup:
    rules: Rules
    compiled: object
    catalog: Catalog
    kinds: np.ndarray
    params: np.ndarray
    policies: tuple
    ids: tuple                 # card id (lower_snake_case name) of each design
    forbid: np.ndarray         # bool[n_seats, K]: the seat's policy forbids card k
    search: np.ndarray = None  # float[n_seats, 3]: search players' budget, c, buys (§15)
    roll: tuple = None         # (kinds, params, forbid)[s, q]: seat q in seat s's rollouts
    #                            (§15.8; ``search_params.rollout_seats``)


def setup(options: dict, policies: list[str], players: int) -> Setup:
    """Validated setup: ``Rules`` (the catalog loaded and checked), one policy kind and
    parameter row per seat, and each seat's forbidden cards (``forbid``)."""
    rules = Rules(**options)
    catalog = rules.cards()
    check_players(rules, catalog, players)
    kinds, params = compile_policies(policies)
    ids = tuple(card_id(n) for n in catalog.names)
    for k, i in enumerate(ids):                  # §12.4: an id names one design
        if i in ids[:k]:
            raise InputError(f"cards: {catalog.names[ids.index(i)]!r} and "
                             f"{catalog.names[k]!r} have the same card id {i!r}; rename one")
    allowed = tuple(i for i, p in zip(ids, catalog.pile) if p in FORBIDDABLE)
    return Setup(rules, rules.compile(), catalog, kinds, params, tuple(policies), ids,
                 forbidden(policies, ids, allowed), search_rows(policies),
                 rollout_seats(policies, ids, allowed))


def elements(s: Setup) -> tuple[str, ...]:
    """The card ids a seat's ``forbid`` accepts (§12.4), in catalog order: the buyable designs
    (§7.4), the Raid cards and the Treasures (every design but the Coin)."""
    return tuple(i for i, p in zip(s.ids, s.catalog.pile) if p in FORBIDDABLE)


def buyable_elements(s: Setup) -> tuple[str, ...]:
    """The buyable cards' ids (§7.4): what a worth balance's median or mean card is taken over
    (``GameSpec.worth_pool``); Raid cards and Treasures have no cost to fit."""
    return tuple(i for i, p in zip(s.ids, s.catalog.pile) if p in BUYABLE)


def allocate(s: Setup, n: int) -> dict:
    k, kinds = len(s.kinds), s.catalog.n_kinds
    if s.rules.count_elements and kinds < len(ACTIONS):     # plans share the card axis
        raise InputError(f"count_elements needs a catalog of at least {len(ACTIONS)} designs")
    out = {"winner": np.full(n, -1, np.int8), "tie": np.zeros(n, np.bool_),
           "tied": np.zeros(n, np.int8), "rounds": np.zeros(n, np.int16),
           "truncated": np.zeros(n, np.bool_), "failed_raids": np.zeros(n, np.int16),
           "census": np.zeros((n, kinds), np.int16),
           # §14.6 per seat and card: bought <= 20 a round, played <= 60 copies a round, over
           # <= 1000 rounds: every counter fits uint16 (no cards unless count_elements)
           "cards": np.zeros((n, len(CARD_COUNTERS), k, kinds if s.rules.count_elements else 0),
                             np.uint16)}
    for name in SEAT_ARRAYS:
        dtype = np.int32 if name.startswith("silver") else np.int16
        out[name] = np.zeros((n, k), dtype)
    return out


def play_block(s: Setup, g0, g1, dice_rng, pol_rng, out, game0=0) -> None:
    if search.is_search(s.kinds):                  # a search seat: forward model (§15)
        return search.play_block(s, g0, g1, dice_rng, pol_rng, out, game0)
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
            "raids_sum": out["raids"].sum(axis=0, dtype=np.int64),
            **_card_tally(out, win, done)}


def _card_tally(out, win, done) -> dict:
    """§14.6 per seat and card (int64[n_seats, K]): copies bought, played and held at the
    end; games the seat bought it; games it bought it and won (the ``wins`` reading: a tie
    counts for its ``winner`` seat, a truncated game for nobody); summed first-buy rounds."""
    c = out["cards"]
    plans = c[:, 4, :, :len(ACTIONS)].astype(np.int64)     # (n, seats, actions), §14.6
    taken = plans > 0
    bought = c[:, 0] > 0
    won = done[:, None] & (win[:, None] == np.arange(c.shape[2])[None, :])
    return {"cards_bought": c[:, 0].sum(axis=0, dtype=np.int64),
            "cards_bought_games": bought.sum(axis=0, dtype=np.int64),
            "cards_bought_won": (bought & won[:, :, None]).sum(axis=0, dtype=np.int64),
            "cards_first_round_sum": c[:, 1].sum(axis=0, dtype=np.int64),
            "cards_played": c[:, 2].sum(axis=0, dtype=np.int64),
            "cards_final": c[:, 3].sum(axis=0, dtype=np.int64),
            "plans_taken": plans.sum(axis=0),
            "plans_taken_games": taken.sum(axis=0, dtype=np.int64),
            "plans_taken_won": (taken & won[:, :, None]).sum(axis=0, dtype=np.int64)}


def element_stats(s: Setup, t: dict):
    """Per seat and card of the catalog (rows ``kind`` = card), then per seat and Secret Plan
    action (``kind`` = action, ``_plan_rows``), from a tally: ``bought_games`` (games the seat bought
    it at least once), ``buy_rate``, ``win_rate_bought`` and ``win_rate_not_bought`` with
    Clopper-Pearson 95% intervals (``*_lo``, ``*_hi``; NaN when no game is in the group),
    ``copies_bought``, ``copies_played``, ``final_copies`` (per game), and
    ``mean_first_buy_round`` (over the games it was bought).

    Bought against not bought is a **correlation, not a cause**: a seat buys a card in the
    games where the card was on offer and affordable, which are not like the other games.
    For what a card is worth, compare paired runs with the card forbidden (``forbid``)."""
    import pandas as pd
    from statsmodels.stats.proportion import proportion_confint

    if not s.rules.count_elements:
        raise InputError("raidconquer counts cards only with count_elements = true "
                         "(--set count_elements=true)")
    n = int(np.asarray(t["rounds_hist"]).sum())
    wins = np.asarray(t["wins"], np.int64)[:, None]
    games_b = np.asarray(t["cards_bought_games"], np.int64)
    won_b = np.asarray(t["cards_bought_won"], np.int64)
    seats, kinds = games_b.shape

    def rate_ci(k, m):
        with np.errstate(divide="ignore", invalid="ignore"):
            lo, hi = proportion_confint(k, np.maximum(m, 1), alpha=0.05, method="beta")
            rate = np.where(m > 0, k / np.maximum(m, 1), np.nan)
        return rate, np.where(m > 0, lo, np.nan), np.where(m > 0, hi, np.nan)

    wr_b, wr_b_lo, wr_b_hi = rate_ci(won_b, games_b)
    wr_n, wr_n_lo, wr_n_hi = rate_ci(wins - won_b, n - games_b)
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(games_b > 0, t["cards_first_round_sum"] / np.maximum(games_b, 1),
                         np.nan)
    grid = dict(seat=np.repeat(np.arange(seats), kinds), card=np.tile(np.array(s.ids), seats),
                kind="card")
    cols = {"games": np.full((seats, kinds), n), "bought_games": games_b, "buy_rate": games_b / n,
            "win_rate_bought": wr_b, "win_rate_bought_lo": wr_b_lo,
            "win_rate_bought_hi": wr_b_hi, "win_rate_not_bought": wr_n,
            "win_rate_not_bought_lo": wr_n_lo, "win_rate_not_bought_hi": wr_n_hi,
            "copies_bought": np.asarray(t["cards_bought"]) / n,
            "copies_played": np.asarray(t["cards_played"]) / n,
            "final_copies": np.asarray(t["cards_final"]) / n, "mean_first_buy_round": first}
    cards = pd.DataFrame({**grid, **{k: np.asarray(v).ravel() for k, v in cols.items()}})
    return pd.concat([cards, _plan_rows(t, n, wins, rate_ci)], ignore_index=True)


def _plan_rows(t, n, wins, rate_ci):
    """The table's action rows (``kind`` = action, ``card`` = the ``ACTIONS`` name): per seat
    and Secret Plan (§6.2), ``taken_games``, ``take_rate``, ``mean_taken`` (times per game),
    ``win_rate_taken`` and ``win_rate_not_taken`` with their intervals; the card columns NaN."""
    import pandas as pd

    m = len(ACTIONS)
    if "plans_taken" not in t:                   # a tally stored before actions were counted
        return pd.DataFrame()
    games_t = np.asarray(t["plans_taken_games"], np.int64)
    won_t = np.asarray(t["plans_taken_won"], np.int64)
    seats = games_t.shape[0]
    wt, wt_lo, wt_hi = rate_ci(won_t, games_t)
    wn, wn_lo, wn_hi = rate_ci(wins - won_t, n - games_t)
    cols = {"games": np.full((seats, m), n), "taken_games": games_t, "take_rate": games_t / n,
            "mean_taken": np.asarray(t["plans_taken"]) / n,
            "win_rate_taken": wt, "win_rate_taken_lo": wt_lo, "win_rate_taken_hi": wt_hi,
            "win_rate_not_taken": wn, "win_rate_not_taken_lo": wn_lo,
            "win_rate_not_taken_hi": wn_hi}
    grid = dict(seat=np.repeat(np.arange(seats), m), card=np.tile(np.array(ACTIONS), seats),
                kind="action")
    return pd.DataFrame({**grid, **{k: np.asarray(v).ravel() for k, v in cols.items()}})


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
    elements=elements,
    worth_pool=buyable_elements,
    element_stats=element_stats,
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
