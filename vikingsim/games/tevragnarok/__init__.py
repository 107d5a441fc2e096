"""Tiny Epic Vikings: Ragnarok (seed 002, notes ``tevragnarok.md``): a stated abstract model.

Level A (``economics.py``, ``vikingsim odds tevragnarok``): expected VP per action of a slay,
an Island Rune and a Favor card, exact and by Monte Carlo. Level B (this ``GAME``): an
abstract full game of three Eras (§4.3, §4.7) with every rule of the expansion, a compiled
kernel (``kernel.py``) and its plain-Python reference (``reference.py``). Every number the
rulebook does not give is in ``params.toml`` (option ``params``: a preset or a path).

Public: ``GAME``, ``OPTIONS``, ``Rules``, ``simulate``, ``load_params``, ``economics``.

Examples (the issue's questions, §4.1)
-------------------------------------
>>> from vikingsim.games import tevragnarok
>>> res = tevragnarok.simulate(20_000, players=4, params="giants_wide",
...                            policies=["giant_hunter", "no_giants", "greedy_vp", "greedy_vp"])
>>> f = res.frame                                     # one row per game
>>> (f.winner == 0).mean()                            # 1. the hunter's win rate
>>> (f.first_slayer == f.winner)[f.first_slayer >= 0].mean()    # 2. does the first slay decide
>>> (f.rank_A != f.rank_nodrain_A).mean()             # 3. the drain reorders god A
>>> (f.winner != f.winner_at_mean).mean()             # 4. hidden values change the winner
>>> tevragnarok.economics.exact(tevragnarok.load_params("island_630"))    # Level A

Frame columns: ``winner``, ``winner_at_mean``; per seat ``score_<s>``, ``giant_points_<s>``,
``slays_<s>``, ``slays_era<e>_<s>``, ``lost_battles_<s>``, ``won_battles_<s>``,
``valkyries_<s>``, ``islands_<s>``, ``favors_<s>`` ...; per god ``fury_<g>``,
``fury_nodrain_<g>``, ``rank_<g>``, ``rank_nodrain_<g>``; ``first_slayer``, ``first_loser``;
``opener_era<e>`` (the seat holding the Chieftain marker in Era e);
``valkyrie_strength_era<e>`` / ``einherjar_strength_era<e>`` (sums) with their ``*_n_era<e>``
counts. ``params`` takes a preset name or a ``.toml`` path (``load_params`` reads one).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vikingsim.core import stats
from vikingsim.core.errors import InputError
from vikingsim.core.game import GameSpec
from vikingsim.core.options import options_of
from vikingsim.games.tevragnarok import economics, invariants, kernel, reference, search
from vikingsim.games.tevragnarok.policies import (
    ACTIONS, CARDS, ELEMENTS, POLICY_HELP, POLICY_TYPES, compile_policies)
from vikingsim.games.tevragnarok.rules import (
    MAX_PLAYERS, N_ERAS, N_RUNES, PRESETS, CompiledRules, Rules, load_params)

__all__ = ["GAME", "OPTIONS", "Rules", "simulate", "load_params", "economics"]

OPTIONS = options_of(Rules)
OUTCOMES = ("win", "truncated")          # a game always ends after Era 3; never truncated
RULES_VERSION = "2026.12.1"
#: Per-seat columns of the frame (``<name>_<seat>``).
SEAT_COLUMNS = ("score", "giant_points", "slays", "lost_battles", "won_battles", "valkyries",
                "islands", "favors", "villages", "temples", "boats", "resources", "settlers",
                "settlers_mat", "valkyries_mat")


@dataclass(frozen=True)
class Setup:
    rules: Rules
    compiled: CompiledRules
    kinds: np.ndarray
    params: np.ndarray
    policies: tuple


def setup(options: dict, policies: list[str], players: int) -> Setup:
    """``Rules`` from the options (``params`` loads and checks the parameter file), one policy
    per seat; refuses decks too small for the draft."""
    rules = Rules(**options)
    rules.check_players(players)
    p = rules.p
    n_cards = p.cards_n_base + p.cards_n_valkyrie + p.cards_n_einherjar
    hand = max(p.economy_draft_size)
    if n_cards < 2 * players * hand:
        raise InputError(f"params: {n_cards} Viking cards are too few for {players} players "
                         f"drafting {hand} (need {2 * players * hand})")
    kinds, params = compile_policies(policies)
    return Setup(rules, rules.compile(), kinds, params, tuple(policies))


def allocate(s: Setup, n: int) -> dict:
    k = len(s.kinds)
    out = {"winner": np.full(n, -1, np.int8)}
    for name in SEAT_COLUMNS:
        out[name] = np.zeros((n, k), np.int16)
    out["slays_era"] = np.zeros((n, k, N_ERAS), np.int8)
    out["fury"] = np.zeros((n, N_RUNES), np.int16)
    out["fury_nodrain"] = np.zeros((n, N_RUNES), np.int16)
    for name in ("giants_left", "first_slayer", "first_loser", "res_max", "fury_min",
                 "favor_max"):
        out[name] = np.zeros(n, np.int8)
    out["special_n"] = np.zeros((n, N_ERAS, 2), np.int16)
    out["special_sum"] = np.zeros((n, N_ERAS, 2), np.int16)
    out["openers"] = np.zeros((n, N_ERAS), np.int8)
    out["el_taken"] = np.zeros((n, k, len(ELEMENTS)), np.int8)   # times, per element
    out["el_first"] = np.zeros((n, k, len(ELEMENTS)), np.int8)   # Era of the first, 0 never
    out["el_drafted"] = np.zeros((n, k, len(CARDS)), np.int8)    # cards of a kind drafted
    return out


def play_block(s: Setup, g0, g1, dice_rng, pol_rng, out) -> None:
    if search.is_search(s.kinds):                 # a search seat: forward model (§4.11)
        return search.play_block(s, g0, g1, dice_rng, pol_rng, out)
    kernel.play_block(s, g0, g1, dice_rng, pol_rng, out)


def god_ranks(fury: np.ndarray) -> np.ndarray:
    """Rank 1..3 of each god from Fury rows (n, 3); tied gods share the worst rank (§2.6)."""
    f = np.asarray(fury, np.int64)
    return 1 + (f[:, None, :] >= f[:, :, None]).sum(axis=2) - 1


def winner_at_mean(s: Setup, out) -> np.ndarray:
    """The winner had every slain Giant scored at the pool mean (§4.6): score minus Giant
    points plus slays x mean, then the same tie-breakers (§2.6) as the game. Exact: the
    scores are compared times the pool size (integers), the keys packed into one int64 per
    seat (each in as many bits as its largest value needs), the last key the turn position
    reversed (the game's last tie-breaker: earlier from the first player, ``first_seat``),
    and ``argmax`` takes the highest."""
    pool = s.compiled.giants
    score = ((out["score"] - out["giant_points"]).astype(np.int64) * len(pool)
             + out["slays"].astype(np.int64) * int(pool.sum()))
    k = score.shape[1]
    position = (np.arange(k) - s.rules.first_seat) % k
    earlier = np.broadcast_to((k - 1 - position).astype(np.int64), score.shape)
    keys = [score] + [out[key].astype(np.int64) for key in _TIE_KEYS] + [earlier]
    packed, bits = np.zeros(score.shape, np.int64), 0
    for x in keys:
        if x.size and x.min() < 0:
            raise ValueError("winner_at_mean: negative key")   # never: counts and scores
        width = int(x.max()).bit_length() if x.size else 0
        bits += width
        packed = (packed << width) | x
    if bits > 62:                                # beyond one int64: not with the rules' caps
        raise ValueError(f"winner_at_mean: keys need {bits} bits")
    return packed.argmax(axis=1).astype(np.int8)


_TIE_KEYS = ("islands", "favors", "temples", "boats", "resources")


def frame(s: Setup, out) -> pd.DataFrame:
    """One row per game: ``game_id``, ``outcome``, ``truncated``, ``winner``,
    ``winner_at_mean`` (Giants scored at the pool mean), per seat ``<column>_<seat>`` for
    ``SEAT_COLUMNS`` and ``slays_era<e>_<seat>``; per god ``fury_<g>``, ``fury_nodrain_<g>``,
    ``rank_<g>``, ``rank_nodrain_<g>``; ``giants_left``, ``first_slayer``, ``first_loser``
    (-1 for none); Valkyrie / Einherjar cards in battle per Era ``valkyrie_n_era<e>``,
    ``valkyrie_strength_era<e>`` (sum), ``einherjar_*``."""
    import pandas as pd  # here, not at the top: 'vikingsim games' stays light

    n = len(out["winner"])
    cols = {"game_id": np.arange(n, dtype=np.int64),
            "outcome": pd.Categorical.from_codes(np.zeros(n, np.int8), categories=OUTCOMES),
            "truncated": np.zeros(n, np.bool_), "winner": out["winner"],
            "winner_at_mean": winner_at_mean(s, out)}
    k = out["score"].shape[1]
    for name in SEAT_COLUMNS:
        for seat in range(k):
            cols[f"{name}_{seat}"] = out[name][:, seat]
    for seat in range(k):
        for e in range(N_ERAS):
            cols[f"slays_era{e + 1}_{seat}"] = out["slays_era"][:, seat, e]
    ranks, ranks_nd = god_ranks(out["fury"]), god_ranks(out["fury_nodrain"])
    for g, name in enumerate("ABC"):
        cols[f"fury_{name}"] = out["fury"][:, g]
        cols[f"fury_nodrain_{name}"] = out["fury_nodrain"][:, g]
        cols[f"rank_{name}"] = ranks[:, g].astype(np.int8)
        cols[f"rank_nodrain_{name}"] = ranks_nd[:, g].astype(np.int8)
    for name in ("giants_left", "first_slayer", "first_loser"):
        cols[name] = out[name]
    for e in range(N_ERAS):
        cols[f"opener_era{e + 1}"] = out["openers"][:, e]
    for e in range(N_ERAS):
        for j, kind in enumerate(("valkyrie", "einherjar")):
            cols[f"{kind}_n_era{e + 1}"] = out["special_n"][:, e, j]
            cols[f"{kind}_strength_era{e + 1}"] = out["special_sum"][:, e, j]
    return pd.DataFrame(cols)


def tally(s: Setup, out) -> dict:
    k = out["score"].shape[1]
    w = out["winner"].astype(np.int64)
    wm = winner_at_mean(s, out).astype(np.int64)
    t = {"wins": np.bincount(w[w >= 0], minlength=k),
         "winner_changed": np.array([int((w != wm).sum())]),
         "first_slayer_won": np.array([int(((out["first_slayer"] >= 0)
                                            & (out["first_slayer"] == out["winner"])).sum()),
                                       int((out["first_slayer"] >= 0).sum())]),
         "first_loser_won": np.array([int(((out["first_loser"] >= 0)
                                           & (out["first_loser"] == out["winner"])).sum()),
                                      int((out["first_loser"] >= 0).sum())]),
         "rank_changed": np.array([int((god_ranks(out["fury"])
                                        != god_ranks(out["fury_nodrain"])).any(axis=1).sum())]),
         "slays_era": out["slays_era"].astype(np.int64).sum(axis=(0, 1)),
         "special_n": out["special_n"].astype(np.int64).sum(axis=0).ravel(),
         "special_sum": out["special_sum"].astype(np.int64).sum(axis=0).ravel()}
    for name in ("score", "giant_points", "slays", "lost_battles", "valkyries"):
        t[f"{name}_sum"] = out[name].sum(axis=0, dtype=np.int64)
    t["score_sq"] = (out["score"].astype(np.int64) ** 2).sum(axis=0)
    g, sc = (out[k].astype(np.int64).sum(axis=1) for k in ("giant_points", "score"))
    t["giant_moments"] = np.array([int((g * g).sum()), int((sc * sc).sum()),
                                   int((g * sc).sum())], np.int64)   # giant_share's noise
    t.update(_element_tally(out))
    return t


def _element_tally(out) -> dict:
    """Per seat and element (``ELEMENTS``, shape (seats, elements)): games it was taken in,
    of those the games the seat won, times taken, the sum of the first take's Era (1-3) over
    those games; per seat and card kind (``CARDS``): cards drafted and games with one."""
    taken = out["el_taken"] > 0
    won = out["winner"].astype(np.int64)[:, None] == np.arange(taken.shape[1])[None, :]
    drafted = out["el_drafted"]
    return {"el_taken_games": taken.sum(axis=0, dtype=np.int64),
            "el_taken_won": (taken & won[:, :, None]).sum(axis=0, dtype=np.int64),
            "el_taken_sum": out["el_taken"].sum(axis=0, dtype=np.int64),
            "el_first_sum": out["el_first"].sum(axis=0, dtype=np.int64),
            "el_drafted_sum": drafted.sum(axis=0, dtype=np.int64),
            "el_drafted_games": (drafted > 0).sum(axis=0, dtype=np.int64)}


def elements(s: Setup) -> tuple:
    """What a policy's ``forbid`` accepts (``policies.ELEMENTS``): the actions, then the cards."""
    return ELEMENTS


def element_stats(s: Setup, t: dict):
    """Per seat and element (``ELEMENTS``): one row with ``seat``, ``element``, ``kind``
    (action or card), ``games``, ``taken_games`` and ``rate`` (games in which the seat took it,
    with its Clopper-Pearson 95% interval ``rate_lo``/``rate_hi``), ``mean_taken`` (times per
    game), ``mean_first_era`` (Era of the first take, over the games it was taken), for cards
    ``drafted_games`` and ``mean_drafted``; ``win_taken`` over the games taken and
    ``win_not_taken`` over the rest, each with its counts (``won_taken``, ``won_not_taken``,
    ``not_taken_games``) and Clopper-Pearson interval. A card is *taken* when it is used (a
    battle, a slay, or face up with its condition met), an action when it is performed.

    Correlation, not cause: a seat takes an element in the games where it suits it, so the
    win rate when taken against not taken mixes the element's worth with the situations that
    lead to it; restricted play (``forbid``, paired seeds) measures the worth. Needs a run
    with the option ``count_elements`` (off by default: counting costs about 7% of the
    kernel's speed); without it, one InputError line.
    """
    if not s.rules.count_elements:
        raise InputError("tevragnarok: the element counts need the option count_elements "
                         "(--set count_elements=true)")
    import pandas as pd  # here: 'vikingsim games' stays light
    from scipy.stats import binomtest

    def cp(k, n):
        if n == 0:
            return np.nan, np.nan, np.nan
        ci = binomtest(int(k), int(n)).proportion_ci(0.95, method="exact")
        return k / n, ci.low, ci.high

    wins = np.asarray(t["wins"], np.int64)
    games = int(wins.sum())                      # every game has one winner (never truncated)
    rows = []
    for seat in range(len(wins)):
        for e, name in enumerate(ELEMENTS):
            tg, tw = int(t["el_taken_games"][seat, e]), int(t["el_taken_won"][seat, e])
            ng, nw = games - tg, int(wins[seat]) - tw
            rate, rlo, rhi = cp(tg, games)
            wt, wtlo, wthi = cp(tw, tg)
            wn, wnlo, wnhi = cp(nw, ng)
            row = {"seat": seat, "element": name,
                   "kind": "action" if name in ACTIONS else "card", "games": games,
                   "taken_games": tg, "rate": rate, "rate_lo": rlo, "rate_hi": rhi,
                   "mean_taken": int(t["el_taken_sum"][seat, e]) / games if games else np.nan,
                   "mean_first_era": int(t["el_first_sum"][seat, e]) / tg if tg else np.nan,
                   "drafted_games": 0, "mean_drafted": np.nan,
                   "won_taken": tw, "win_taken": wt, "win_taken_lo": wtlo,
                   "win_taken_hi": wthi, "not_taken_games": ng, "won_not_taken": nw,
                   "win_not_taken": wn, "win_not_taken_lo": wnlo, "win_not_taken_hi": wnhi}
            if name in CARDS:
                c = CARDS.index(name)
                row["drafted_games"] = int(t["el_drafted_games"][seat, c])
                row["mean_drafted"] = int(t["el_drafted_sum"][seat, c]) / games if games \
                    else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def summarize(s: Setup, t: dict, n: int) -> dict:
    """Win rate per seat (Wilson 95%), p_win; the §4.6 outputs: mean score and its sd, the
    Giants' share of it (with its standard error and 95% interval: ``stats.put_ratio``), slays per game by Era, Valkyries deployed, lost battles, how often
    the hidden Giant values change the winner, how often the Giant drain reorders the gods,
    how often the first slayer / first loser wins, Valkyrie and Einherjar battle Strength."""
    out = {"win_rate": [float(w / n) for w in t["wins"]],
           "win_rate_ci": [list(stats.wilson(int(w), n)) for w in t["wins"]],
           "mean_score": [float(x / n) for x in t["score_sum"]]}
    var = t["score_sq"] / n - (t["score_sum"] / n) ** 2
    out["sd_score"] = [float(np.sqrt(max(v, 0.0) * n / max(n - 1, 1))) for v in var]
    out["mean_giant_points"] = [float(x / n) for x in t["giant_points_sum"]]
    total = float(t["score_sum"].sum())
    if "giant_moments" in t:            # tallies stored before it have no noise estimate
        gg, ss, gs = (int(x) for x in t["giant_moments"])
        stats.put_ratio(out, "giant_share", n, int(t["giant_points_sum"].sum()), int(total),
                        gg, ss, gs)
    else:
        out["giant_share"] = float(t["giant_points_sum"].sum() / total) if total else 0.0
    out["mean_slays"] = [float(x / n) for x in t["slays_sum"]]
    out["mean_slays_by_era"] = {f"era{e + 1}": float(x / n) for e, x in enumerate(t["slays_era"])}
    out["mean_lost_battles"] = [float(x / n) for x in t["lost_battles_sum"]]
    out["mean_valkyries_deployed"] = [float(x / n) for x in t["valkyries_sum"]]
    sn, ss = t["special_n"].reshape(N_ERAS, 2), t["special_sum"].reshape(N_ERAS, 2)
    for j, kind in enumerate(("valkyrie", "einherjar")):
        out[f"mean_{kind}_strength_by_era"] = {
            f"era{e + 1}": float(ss[e, j] / sn[e, j]) if sn[e, j] else None for e in range(N_ERAS)}
    stats.put_fraction(out, "p_win", n, n)
    stats.put_fraction(out, "p_truncated", 0, n)
    stats.put_fraction(out, "p_winner_changed_by_giant_values", int(t["winner_changed"][0]), n)
    stats.put_fraction(out, "p_god_ranks_changed_by_drain", int(t["rank_changed"][0]), n)
    for key in ("first_slayer_won", "first_loser_won"):
        k, m = int(t[key][0]), int(t[key][1])
        if m:
            stats.put_fraction(out, f"p_{key}", k, m)
    return out


def summary(s: Setup, out) -> dict:
    return summarize(s, tally(s, out), len(out["winner"]))


def trace(s: Setup, seed: int, game_id: int = 0) -> str:
    """Game ``game_id`` of a run with ``seed``, told by the reference (earlier games of its
    block replayed silently)."""
    from vikingsim.core import rng

    dice, pol, offset = rng.trace_streams(seed, game_id, GAME.block_games)
    kinds, params = [int(k) for k in s.kinds], s.params.tolist()
    if search.is_search(kinds):                  # search seats: the reference's twin (§4.11)
        from vikingsim.games.tevragnarok.reference_search import play
    else:
        def play(game):
            return game.play()
    for _ in range(offset):
        play(reference.Game(s.rules, kinds, params, dice, pol))
    events: list[str] = []
    play(reference.Game(s.rules, kinds, params, dice, pol, events=events))
    head = (f"tevragnarok game {game_id} of seed {seed}: {len(kinds)} players, policies "
            f"{', '.join(s.policies)}, params {s.rules.params}")
    return "\n".join([head, *events])


def _odds(options: dict) -> dict:
    return economics.odds(options)


GAME = GameSpec(
    name="tevragnarok",
    title="Tiny Epic Vikings: Ragnarok (abstract model)",
    summary_line="stated abstraction of the Ragnarok expansion: Giants, Valkyries, Einherjar "
                 "(seed 002); odds = Level A Giant economics",
    options=OPTIONS,
    policies=POLICY_HELP,
    default_policy="greedy_vp",
    players=(2, MAX_PLAYERS, 4),
    setup=setup,
    allocate=allocate,
    play_block=play_block,
    reference_block=reference.play_block,
    frame=frame,
    summary=summary,
    tally=tally,
    summarize=summarize,
    odds=_odds,
    trace=trace,
    rules_version=RULES_VERSION,
    outcomes=OUTCOMES,
    seated=True,
    first_player_option="first_seat",
    policy_types=POLICY_TYPES,
    invariants=invariants.check,
    elements=elements,
    element_stats=element_stats,
    bench_options={},
    bench_players=4,
    help_text="params: every invented number (params.toml); --set params=my.toml or a preset "
              f"({', '.join(PRESETS[1:])})",
)


def simulate(n: int = 100_000, *, players: int = 4, policies="greedy_vp", seed=None, **options):
    """Play ``n`` games; returns a ``vikingsim.core.results.Result`` (``.frame``, ``.summary``).

    ``params`` may be a preset name or a ``.toml`` path, e.g. ``simulate(10_000,
    params="giants_wide", policies=["giant_hunter", "no_giants"], players=2)``.
    """
    from vikingsim.core import config
    from vikingsim.core.runner import simulate as run

    return run(GAME, n, seed=config.SEED if seed is None else seed, players=players,
               policies=policies, options=options)
