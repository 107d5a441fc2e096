"""What a game gives the shared machinery (runner, CLI, bench, invariant suites).

A game module builds one ``GameSpec`` and registers it in ``vikingsim/games/__init__.py``.
The runner never knows a game's rules: it asks the spec to ``setup`` (validate options and
policies, compile rules to arrays), ``allocate`` per-game output arrays, and ``play_block``
one RNG block of games at a time (a nogil kernel), then ``frame``/``summary`` to tidy up.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from vikingsim.core import config
from vikingsim.core.options import Option


def lookup(game) -> "GameSpec":
    """``game`` itself if it is a GameSpec, else the GameSpec registered under that name in
    the registry module ``config.GAME_REGISTRY`` (InputError naming the allowed games).
    The registry is found when first needed, so core never imports the games."""
    import importlib

    if isinstance(game, GameSpec):
        return game
    return importlib.import_module(config.GAME_REGISTRY).get(game)


@dataclass(frozen=True)
class GameSpec:
    """Registry entry of one game.

    Attributes
    ----------
    name : str
        CLI name (``vikingsim simulate NAME``).
    title, summary : str
        Human name and one-line description (``vikingsim games``).
    options : tuple of Option
        Every flat option, with defaults (the rules notes' DEFAULT readings).
    policies : dict[str, str]
        Policy name -> one-line help. ``default_policy`` is used for seats not given one.
    players : (min, max, default)
        Seat counts the game accepts; two-sided games use (2, 2, 2).
    setup(options: dict, policies: list[str], players: int) -> Any
        Validated, compiled setup (raise InputError for bad combinations).
    allocate(setup, n_games) -> dict[str, ndarray]
        Per-game outputs, first axis n_games.
    play_block(setup, g0, g1, dice_rng, pol_rng, out) -> None
        Compiled kernel: games g0..g1 of ``out``; releases the GIL. (Games with
        ``game_id_options`` also take ``game0``, the run's id of ``out`` row 0.)
    reference_block : same signature, plain Python, bit-identical to ``play_block``.
    frame(setup, out) -> DataFrame
        Tidy per-game frame (one row per game).
    summary(setup, out) -> dict
        JSON-ready headline metrics (with intervals), from the per-game arrays.
    tally(setup, out) -> dict[str, ndarray], optional
        Additive reduction of per-game arrays (counts, integer sums, histograms): the tally of
        a run is the element-wise sum of its segments' tallies (``results.add_tallies``), so a
        run of any size needs one segment's memory. Games with a tally must give ``summarize``.
    summarize(setup, tally, n) -> dict, optional
        The same metrics as ``summary`` from a tally of n games.
    help_text : str
        Extra text for ``vikingsim games`` (formats, presets).
    rules_version : str
        The game's rules version: bump it whenever a change makes the same seed and options
        give other games (recorded in every manifest; part of the rules hash).
    outcomes : tuple of str
        The outcome vocabulary: categories of the frame's ``outcome`` column; the summary has
        ``p_<outcome>`` and ``p_<outcome>_ci`` for each. ``"truncated"`` is always last.
    seated : bool
        Seated games (a winner seat per game) also have ``winner`` (-1 for none) and per-seat
        ``<name>_<seat>`` frame columns, and ``win_rate``/``win_rate_ci`` per seat.
    policy_types : dict[str, type]
        Policy name -> frozen dataclass of its parameters (``core.policies``); policies not
        listed take no parameters.
    invariants(setup, out) -> list of str, optional
        Violations of the game's invariants in per-game arrays ``out`` (empty when sound).
    odds(options: dict) -> dict, optional
        Exact answer for the same metrics, where one exists.
    trace(setup, seed, game_id) -> str, optional
        Game ``game_id`` of a run with ``seed``, told turn by turn (the same game simulate plays).
    bench_options : dict
        Options for ``vikingsim bench`` (the issue's benchmark configuration).
    bench_configs : tuple of dict
        Several benchmark configurations (each a dict of options); overrides ``bench_options``.
    first_player_option : str or None
        Seated games: the name of the option that moves the first player (the seat that
        takes the first turn); ``tests/test_registry_seats.py`` plays the default policies
        with it at several values and checks that win rates follow the turn position only.
    game_id_options : dict
        Options whose games depend on the game's id in the run (name -> a value that turns
        that on, e.g. ``{"rotate_characters": True}``). A game with any gets the run's global
        id of ``out`` row 0 as the keyword ``game0`` of ``play_block``/``reference_block``, so
        its games do not depend on segment or chunk size; the registry's chunking test plays
        each such option at two chunk sizes.
    elements : callable, optional
        ``elements(setup) -> tuple[str, ...]``: the names a seat's policy parameter ``forbid``
        accepts in this setup (cards, actions or policy options a seat can be denied:
        restricted play, ``vikingsim importance``); None when the game has none.
    worth_pool : callable, optional
        ``worth_pool(setup) -> tuple[str, ...]``: the elements a worth balance's ``--reference
        median`` or ``mean`` is taken over (``vikingsim balance --target worth``); None = every
        element. Raid & Conquer: the buyable cards (those with a cost to fit), not its Raid
        cards and Treasures.
    element_stats : callable, optional
        ``element_stats(setup, tally) -> DataFrame``: the tidy per-seat, per-element table
        (bought/taken, played, in the final deck, first round, win rate when taken or not)
        read from the run's tally counters; None when the kernel counts none.
    optimal(options: dict) -> dict, optional
        Exact best play (``vikingsim odds --optimal``): each side's maximin guarantee where
        the game has a solver for it.
    block_games : int
        Games per RNG block (``core/rng.py``): fixed per game, part of its results' identity.
        Fast games use bigger blocks so the per-block cost (two Generators and a kernel
        dispatch, about 60 us) stays a few percent of the kernel's time.
    """

    name: str
    title: str
    summary_line: str
    options: tuple[Option, ...]
    policies: dict[str, str]
    default_policy: str
    players: tuple[int, int, int]
    setup: Callable[..., Any]
    allocate: Callable[..., dict]
    play_block: Callable[..., None]
    reference_block: Callable[..., None]
    frame: Callable[..., Any]
    summary: Callable[..., dict]
    odds: Callable[..., dict] | None = None
    trace: Callable[..., str] | None = None
    tally: Callable[..., dict] | None = None
    summarize: Callable[..., dict] | None = None
    help_text: str = ""
    rules_version: str = "1"
    outcomes: tuple = ()
    seated: bool = False
    policy_types: dict = field(default_factory=dict)
    invariants: Callable[..., list] | None = None
    bench_options: dict = field(default_factory=dict)
    bench_players: int | None = None
    bench_configs: tuple = ()
    block_games: int = config.BLOCK_GAMES
    first_player_option: str | None = None
    game_id_options: dict = field(default_factory=dict)
    elements: Callable[..., tuple] | None = None
    worth_pool: Callable[..., tuple] | None = None
    element_stats: Callable[..., Any] | None = None
    optimal: Callable[..., dict] | None = None

    @property
    def rng_scheme(self) -> str:
        return (f"SeedSequence(seed, spawn_key=(stream, block)) -> PCG64; "
                f"block={self.block_games} games")

    def describe(self) -> dict:
        lo, hi, default = self.players
        return {
            "name": self.name,
            "title": self.title,
            "summary": self.summary_line,
            "players": {"min": lo, "max": hi, "default": default},
            "options": [o.describe() for o in self.options],
            "policies": [{"name": k, "help": v, "default": k == self.default_policy}
                         for k, v in self.policies.items()],
            "odds": self.odds is not None,
            "trace": self.trace is not None,
        }


#: Per-game length columns, in the order a tally's ``<column>_hist`` is looked for.
LENGTH_COLUMNS = ("rounds", "turns", "rolls")


@dataclass
class Counts:
    """The integer counts of a tally of ``games`` games (see :func:`tally_counts`)."""

    games: int
    outcomes: dict                        # outcome -> games (every outcome of the game)
    wins: Any = None                      # int64 games won per seat (seated games)
    length: str | None = None             # the length column with a histogram, if any
    length_hist: Any = None               # int64 games per length value


def tally_counts(spec: GameSpec, tally: dict, games: int) -> Counts:
    """Integer counts of a tally (the tally contract): ``outcome`` holds the games of each of
    ``spec.outcomes`` in order; a seated game's tally holds ``wins`` per seat, ``truncated``
    and (for games with a ``tie`` outcome) ``ties`` games, the rest being ``win`` (a tie
    counts for its ``winner`` seat, so the wins add up to the games not truncated); a length
    column's histogram is ``<column>_hist``. Counts are read, never recomputed from rates."""
    import numpy as np

    if "outcome" in tally:
        got = [int(k) for k in np.asarray(tally["outcome"]).ravel()]
        outcomes = dict(zip(spec.outcomes, got + [0] * (len(spec.outcomes) - len(got))))
    elif spec.seated:
        tied = int(tally["ties"][0]) if "tie" in spec.outcomes else 0
        cut = int(tally["truncated"][0]) if "truncated" in tally else 0
        outcomes = {o: 0 for o in spec.outcomes}
        outcomes.update({"win": games - tied - cut, "truncated": cut})
        if "tie" in spec.outcomes:
            outcomes["tie"] = tied
    else:
        raise ValueError(f"the {spec.name} tally has no 'outcome' counts")
    if sum(outcomes.values()) != games:
        raise ValueError(f"the {spec.name} tally counts {sum(outcomes.values())} outcomes "
                         f"for {games} games")
    wins = np.asarray(tally["wins"], np.int64) if spec.seated else None
    if wins is not None and int(wins.sum()) != games - outcomes.get("truncated", 0):
        raise ValueError(f"the {spec.name} tally counts {int(wins.sum())} wins for "
                         f"{games - outcomes.get('truncated', 0)} finished games")
    length = next((c for c in LENGTH_COLUMNS if f"{c}_hist" in tally), None)
    hist = None if length is None else np.asarray(tally[f"{length}_hist"], np.int64)
    return Counts(games, outcomes, wins, length, hist)
