"""878 Vikings battle simulator: one battle in one shire, resolved to the end (878 §4).

Every battle-affecting rule of the Viking Age expansion (SEED §1-§9) is a field of
``rules.Rules`` and an option (``OPTIONS``), off by default; the face table is data (``faces``,
``berserker_flee_faces``, ``max_dice``). Seat 0 = Vikings, seat 1 = English; each seat gets
one policy (``POLICIES``), with parameters where it has them (``retreat(threshold=0.6)``,
``policies.POLICY_TYPES``). Outcomes: ``OUTCOME_KEYS`` ("truncated" last); invariants:
``invariants.invariants``.

Examples
--------
>>> from vikingsim.core.runner import simulate
>>> r = simulate("battle878", n=10_000, seed=1, options={"ragnar": True})
>>> r.summary["p_vikings_win"]          # doctest: +SKIP
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.game import GameSpec
from vikingsim.core.stats import put_fraction
from vikingsim.games.battle878 import kernel as K
from vikingsim.games.battle878 import reference as REF
from vikingsim.games.battle878.invariants import invariants
from vikingsim.games.battle878.policies import (
    POLICIES, POLICY_TYPES, compile_policies, forbid_mask, policy_objects, setup_elements)
from vikingsim.games.battle878.rules import (
    LAGERTHA_BERSERKERS, LAGERTHA_NORSEMEN, N_UNITS, OPTIONS, OUTCOME_KEYS, UNIT_NAMES, CompiledRules, Face, Outcome, Rules, Unit,
    rules_from_options)

__all__ = ["GAME", "Rules", "Outcome", "Unit", "Face", "POLICIES", "OPTIONS", "make_setup"]

#: bump when the same seed and options give other battles (recorded in every manifest)
RULES_VERSION = "2026.12.1"


@dataclass(frozen=True)
class Setup:
    rules: Rules
    compiled: CompiledRules
    kinds: np.ndarray       # int64 (2,): PolicyKind per seat
    params: np.ndarray      # float64 (2, N_PARAMS): PolicyParam per seat
    policies: tuple         # the policy objects, seat order (the reference engine reads them)
    labels: tuple           # their canonical texts
    start: np.ndarray       # int64 (N_UNITS,): units at the start from the options (before cards)
    table: np.ndarray       # int8 (5, n, b, h, t, r, rc, fa, pc, pend, rag): the optimal
    #                         policy's Runes/Prayer dice per roll of seat 0 / 1 (rows 0-1),
    #                         the English spending at a roll of side 0 / 1 (rows 2-3) and the
    #                         Viking Ragnarök at the start of a Viking roll (row 4;
    #                         optimal_rp.decision_table); all 1s axes when no seat plays
    #                         optimal with runes_prayer
    omens: tuple | None = None  # (values, P table, game) of the Viking seat's Omens choice
    #                         (878 §5.2; kernel.new_state): None when no optimal Viking seat or
    #                         Omens scripted


def make_setup(options: dict, policies: list, players: int = 2) -> Setup:
    """Validated, compiled setup: options (any subset; the rest keep their defaults) and one
    policy text or object per seat."""
    if players != 2:
        raise InputError(f"battle878 takes 2 players (Vikings, English), got {players}")
    rules = rules_from_options(options)
    objs = policy_objects(list(policies))
    for p in objs:                   # restricted play: only what this setup offers a side
        forbid_mask(p.forbid, setup_elements(rules))
    kinds, params = compile_policies(objs)
    lag = int(rules.lagertha)                                    # SEED §9.2
    start = np.array([rules.norsemen + LAGERTHA_NORSEMEN * lag,
                      rules.berserkers + LAGERTHA_BERSERKERS * lag, rules.housecarls,
                      rules.thegns, rules.fyrd, 0], np.int64)
    table, omens = _optimal_table(rules, objs)
    return Setup(rules, rules.compile(), kinds, params, objs, tuple(map(str, policies)), start,
                 table, omens)


def _optimal_table(rules: Rules, objs):
    """The decision table of policy ``optimal`` (policies as data, like ``forbid``): solved by
    ``optimal_rp`` when a seat plays it with Runes and Prayer (InputError for a battle the DP
    cannot take), else a placeholder the kernel never reads; and ``Setup.omens`` (the Viking
    seat's Omens choice, 878 §5.2: its game's values with the English to roll, the re-roll P
    table and the game; None unless seat 0 plays optimal with the Omens choice on)."""
    from vikingsim.games.battle878.policies import Optimal

    if not rules.runes_prayer or not any(isinstance(p, Optimal) for p in objs):
        return np.zeros((5,) + (1,) * 10, np.int8), None
    from vikingsim.games.battle878 import optimal_rp as RP

    D, E, G, Vr, tri = RP.decisions(rules)
    games = [p.game_index(s) if isinstance(p, Optimal) else s for s, p in enumerate(objs)]
    omens = None
    if Vr is not None and isinstance(objs[0], Optimal):
        omens = (Vr[games[0]], tri, games[0])
    return RP.decision_table(D, E, G, games), omens


def allocate(setup: Setup, n: int) -> dict:
    per_slot = (n, N_UNITS)
    return {
        "outcome": np.zeros(n, np.int8), "rolls": np.zeros(n, np.int32),
        "alive": np.zeros(per_slot, np.int16), "dead": np.zeros(per_slot, np.int16),
        "fled": np.zeros(per_slot, np.int16), "retreated": np.zeros(per_slot, np.int16),
        "joined": np.zeros(per_slot, np.int16), "left": np.zeros(per_slot, np.int16),
        "structure": np.zeros(n, np.int8), "epic": np.zeros(n, np.int16),
        "traitor": np.full(n, -1, np.int8), "effects": np.zeros((n, K.N_EFF), np.int16),
    }


def _args(setup: Setup):
    """The kernel's leading arguments: compiled rules, policies and fresh scratch state."""
    return (setup.compiled, setup.kinds, setup.params,
            K.new_state(setup.compiled, setup.table, setup.omens))


def _outs(out: dict) -> K.Outputs:
    return K.Outputs(**out)


def play_block(setup, g0, g1, dice_rng, pol_rng, out):
    K._play_block(*_args(setup), g0, g1, dice_rng, pol_rng, _outs(out))


def reference_block(setup, g0, g1, dice_rng, pol_rng, out):
    REF.play_block(setup.rules, setup.policies, g0, g1, dice_rng, pol_rng, out, setup.table,
                   setup.omens)


def _viking_deaths(out):
    return out["dead"][:, Unit.NORSEMEN].astype(np.int64) + out["dead"][:, Unit.BERSERKER]


def frame(setup: Setup, out: dict) -> pd.DataFrame:
    import pandas as pd  # here, not at the top: 'vikingsim games' stays light

    n = len(out["outcome"])
    cols = {"game_id": np.arange(n, dtype=np.int64),
            "outcome": pd.Categorical.from_codes(out["outcome"].astype(np.int64),
                                                 categories=list(OUTCOME_KEYS)),
            "truncated": out["outcome"] == Outcome.TRUNCATED,
            "rolls": out["rolls"]}
    for k, name in enumerate(UNIT_NAMES):
        cols[f"start_{name}"] = np.full(n, setup.start[k], np.int16)
        for key in ("joined", "alive", "dead", "fled", "retreated", "left"):
            cols[f"{key}_{name}"] = out[key][:, k]
        cols[f"lost_{name}"] = (out["dead"][:, k] + out["fled"][:, k]).astype(np.int16)
    cols["structure_left"] = out["structure"]
    cols["epic_mask"] = out["epic"]
    cols["traitor"] = out["traitor"]
    cols["viking_deaths"] = _viking_deaths(out).astype(np.int16)
    cols["valhalla_glory"] = _viking_deaths(out) >= setup.rules.valhalla_deaths
    for j, name in enumerate(K.EFFECT_NAMES):
        cols[f"n_{name}"] = out["effects"][:, j]
    return pd.DataFrame(cols)


def tally(setup: Setup, out: dict) -> dict:
    """Additive reduction of a segment's battles (``core.results.add_tallies``)."""
    vd = _viking_deaths(out)
    return {"outcome": np.bincount(out["outcome"].astype(np.int64),
                                   minlength=len(OUTCOME_KEYS)),
            "valhalla": np.array([int((vd >= setup.rules.valhalla_deaths).sum())]),
            "rolls": np.array([int(out["rolls"].sum(dtype=np.int64))]),
            "viking_deaths": np.array([int(vd.sum())]),
            **{f"{key}_sum": out[key].sum(axis=0, dtype=np.int64)
               for key in ("dead", "fled", "alive", "effects")}}


def summarize(setup: Setup, t: dict, n: int) -> dict:
    """p_<outcome> of all n battles (Wilson 95%), Valhalla's Glory, mean rolls and losses."""
    s: dict = {"n_battles": n}
    for i, key in enumerate(OUTCOME_KEYS):
        put_fraction(s, f"p_{key}", int(t["outcome"][i]), n)
    put_fraction(s, "p_valhalla_glory", int(t["valhalla"][0]), n)
    s["mean_rolls"] = float(t["rolls"][0] / n)
    for k, name in enumerate(UNIT_NAMES):
        s[f"mean_lost_{name}"] = float((t["dead_sum"][k] + t["fled_sum"][k]) / n)
        s[f"mean_dead_{name}"] = float(t["dead_sum"][k] / n)
        s[f"mean_fled_{name}"] = float(t["fled_sum"][k] / n)
        s[f"mean_alive_{name}"] = float(t["alive_sum"][k] / n)
    s["mean_viking_deaths"] = float(t["viking_deaths"][0] / n)
    for j, name in enumerate(K.EFFECT_NAMES):
        s[f"mean_{name}"] = float(t["effects_sum"][j] / n)
    return s


def summary(setup: Setup, out: dict) -> dict:
    return summarize(setup, tally(setup, out), len(out["outcome"]))


def trace(setup: Setup, seed: int, game_id: int = 0) -> str:
    """Battle ``game_id`` of a run with ``seed`` (the same battle ``simulate`` plays), told
    roll by roll by the reference engine; the block's earlier battles are replayed first, by
    the kernel (same draws as the reference, faster)."""
    from vikingsim.core import rng

    dice, pol, offset = rng.trace_streams(seed, game_id, GAME.block_games)
    if offset:
        play_block(setup, 0, offset, dice, pol, allocate(setup, offset))
    lines = [f"battle878 game {game_id} of seed {seed}: policies {', '.join(setup.labels)}"]
    REF.play_battle(setup.rules, setup.policies, dice, pol, log=lines.append,
                    table=setup.table, omens=setup.omens)
    return "\n".join(lines)


def _setup(options, policies, players):
    return make_setup(options, policies, players)


def elements(setup: Setup) -> tuple[str, ...]:
    """What ``forbid`` accepts here (``policies.setup_elements``). 878 is not seated: seat 0
    is the Vikings, seat 1 the English, and each element is a choice of one side
    (``policies.ELEMENT_SIDES``; ``retreat`` of both), so forbidding it at the other seat
    changes nothing and its worth there is 0."""
    return setup_elements(setup.rules)


def _odds(options: dict) -> dict:
    """Exact odds from the solver in ``exact.py`` (written separately), imported lazily."""
    from vikingsim.games.battle878.exact import odds
    return odds(options)


def _optimal(options: dict) -> dict:
    """Exact best play from ``exact.optimal`` (issue 21 §3), imported lazily."""
    from vikingsim.games.battle878.exact import optimal
    return optimal(options)


GAME = GameSpec(
    name="battle878",
    title="878 Vikings: one battle (Viking Age expansions)",
    summary_line="Monte Carlo of one 878 Vikings battle to the end, every expansion rule as "
                 "an option",
    options=OPTIONS,
    policies=POLICIES,
    default_policy="default",
    players=(2, 2, 2),
    setup=_setup,
    allocate=allocate,
    play_block=play_block,
    reference_block=reference_block,
    frame=frame,
    summary=summary,
    tally=tally,
    summarize=summarize,
    odds=_odds,
    optimal=_optimal,
    elements=elements,
    trace=trace,
    rules_version=RULES_VERSION,
    outcomes=OUTCOME_KEYS,
    policy_types=POLICY_TYPES,
    invariants=invariants,
    bench_options={"norsemen": 6, "berserkers": 2, "housecarls": 3, "thegns": 4},
    block_games=32768,   # fast kernel: big RNG blocks keep per-block overhead small
)
