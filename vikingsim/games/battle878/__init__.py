"""878 Vikings battle simulator: one battle in one shire, resolved to the end (878 §4).

Every battle-affecting rule of the Viking Age expansion (SEED §1-§9) is an option, off by
default; the face table is data (``faces``, ``berserker_flee_faces``, ``max_dice``).
Seat 0 = Vikings, seat 1 = English; each seat gets one policy (``POLICIES``).

Examples
--------
>>> from vikingsim.core.runner import simulate
>>> r = simulate("battle878", n=10_000, seed=1, options={"ragnar": True})
>>> r.summary["p_vikings_win"]          # doctest: +SKIP
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from vikingsim.core.errors import InputError
from vikingsim.core.game import GameSpec
from vikingsim.core.options import Option
from vikingsim.core.stats import put_fraction
from vikingsim.games.battle878 import kernel as K
from vikingsim.games.battle878 import reference as REF
from vikingsim.games.battle878.policies import POLICIES, compile_policies
from vikingsim.games.battle878.rules import (
    BFH_SCOPES, EPIC_NAMES, OUTCOME_KEYS, UNIT_NAMES, CompiledRules, Face, Outcome, Rules, Unit,
    rules_from_options)

__all__ = ["GAME", "Rules", "Outcome", "Unit", "Face", "POLICIES", "OPTIONS", "make_setup",
           "lagertha_experiment"]

_B = "bool"
OPTIONS = (
    Option("norsemen", "int", 6, "Viking Norsemen in the battle (878 §4.1; assumption: the "
           "default armies 6 N + 2 B v 3 H + 4 T are invented, no source gives them)", 0, 500),
    Option("berserkers", "int", 2, "Viking Berserkers in the battle (default: assumption, see "
           "norsemen)", 0, 500),
    Option("housecarls", "int", 3, "English Housecarls in the battle (default: assumption, see "
           "norsemen)", 0, 500),
    Option("thegns", "int", 4, "English Thegns in the battle (default: assumption, see "
           "norsemen)", 0, 500),
    Option("fyrd", "int", 0, "English Fyrd in the battle at the start", 0, 500),
    Option("attacker", "choice", "vikings", "attacking side; the other side defends (878 §4.2)",
           choices=("vikings", "english")),
    Option("first_roller", "choice", "defender",
           "who rolls first (878 §4.2 DEFAULT defender; [FAN] LOW-MED)",
           choices=("defender", "attacker")),
    Option("fort", "int", 0, "Viking Fort in the shire (SEED §1.4): +1 Norsemen and +1 "
           "Berserker die within the caps, takes fort_hits Hits, never flees, not a unit", 0, 1),
    Option("fort_hits", "int", 1, "Hits a Fort absorbs (SEED §1.4: one)", 1, 10),
    Option("settlement", "int", 0, "Viking Settlement (SEED §1.5): +1 Berserker die, one Hit",
           0, 1),
    Option("ragnar", _B, False, "Ragnar Lodbrok in the battle (SEED §9.1): Commands of the "
           "first English roll count as Flees"),
    Option("northumbria", _B, False, "Northumbria held by the English (SEED §2.3.2): the first "
           "English Flee of the battle is ignored (Housecarl, Thegn, Fyrd order)"),
    Option("seidr", _B, False, "relic Seidr in the shire (SEED §5.4): no Berserker first-hit "
           "rule"),
    Option("berserker_first_hit", _B, True, "base rule 4.5 (878 §4.6): the first Hit of the "
           "first English roll must kill a Berserker (for how long: berserker_first_hit_scope)"),
    Option("berserker_first_hit_scope", "choice", "first_english_roll", "how long the "
           "first-hit rule waits: first_english_roll (878 §4.6 DEFAULT: it lapses after the "
           "first English roll, Hit or not) or first_casualty (SEED §5.4 Seidr's 'first "
           "casualty': the first English Hit of the battle, in whichever roll it comes)",
           choices=BFH_SCOPES),
    Option("edmunds_faith", _B, False, "King Edmund's Faith played (SEED §3.3): the holder's "
           "Flee and Command results are re-rolled once"),
    Option("edmunds_faith_side", "choice", "english", "side holding Edmund's Faith (King cards "
           "are dealt to any faction, SEED §3.1)", choices=("english", "vikings")),
    Option("military_reform", _B, False, "King Æthelred's Military Reform (SEED §3.3): in this "
           "(first) battle the active faction's Hit units flee instead of dying"),
    Option("reform_unit", "choice", "auto", "the active faction for military_reform (SEED "
           "§3.3; auto is an assumption: the attacking faction with the most units)",
           choices=("auto", "norsemen", "berserkers", "housecarls", "thegns")),
    Option("epic_card", "choice", "none", "Epic Battle card in force for the battle (SEED §7.3; "
           "War Spreads is campaign-level and has no battle effect)",
           choices=("none",) + EPIC_NAMES),
    Option("epic_deck", "int", 0, "Epic cards shuffled into the Fyrd deck (SEED §7.1: 3); one "
           "drawn during a Fyrd draw joins the battle", 0, 8),
    Option("reinforcements_units", "int", 4, "Reinforcements card: units per faction "
           "(SEED §7.3; stockpiles assumed to have them)", 0, 100),
    Option("reinforcements_fyrd", "int", 4, "Reinforcements card: extra Fyrd", 0, 100),
    Option("adj_norsemen", "int", 0, "Epic Battle card: Norsemen brought from adjacent shires",
           0, 500),
    Option("adj_berserkers", "int", 0, "Epic Battle card: Berserkers from adjacent shires",
           0, 500),
    Option("adj_housecarls", "int", 0, "Epic Battle card: Housecarls from adjacent shires",
           0, 500),
    Option("adj_thegns", "int", 0, "Epic Battle card: Thegns from adjacent shires", 0, 500),
    Option("faith_counts_ignored_flee", _B, False, "Faith card: a Flee ignored by Northumbria "
           "still gives the Faith Hit (878 §6.8 DEFAULT: no)"),
    Option("raven_banner", _B, False, "relic Raven Banner (SEED §5.4): a Thegn die at the start: "
           "Hit = +1 Hit per Viking roll, Flee = 1 Norseman + 1 Berserker flee before each"),
    Option("arm_ring", _B, False, "relic Arm Ring of Thor used (SEED §5.4): a Fyrd card's Fyrd "
           "fight on the Viking side (lost first)"),
    Option("christians_wrath", _B, False, "Christian's Wrath (SEED §1.3): a plundered church "
           "draws a Fyrd card for the English at the start"),
    Option("edmunds_martyrdom", _B, False, "Holy Site King Edmund's Martyrdom (SEED §5.2): a "
           "Fyrd card when the English attack a Viking-held City Shire (needs attacker=english)"),
    Option("fyrd_card", _B, False, "base Fyrd trigger (878 §2.5): the English draw a Fyrd card "
           "at the start (an English City Shire attacked)"),
    Option("runes_prayer", _B, False, "Runes and Prayer dice (SEED §4); use with policies "
           "greedy / smart / random"),
    Option("runes_dice", "int", 4, "Runes dice per battle (SEED §4.1)", 0, 20),
    Option("prayer_dice", "int", 4, "Prayer dice per battle (SEED §4.1)", 0, 20),
    Option("reserve_berserkers", "int", 8, "Berserkers in the Reserve Pile for Battle Rage "
           "(SEED §4.3; the default 8 is an assumption: no source gives the pile's size)",
           0, 100),
    Option("gods_peace_exit", _B, True, "God's Peace (SEED §4.4) needs an adjacent empty or "
           "friendly shire for the Vikings; false: it cannot be bought"),
    Option("martyrdom_blocks_bank", _B, True, "Martyrdom (SEED §4.4) under Foul Weather "
           "(SEED §7.3): true = the English Commands it voids are not banked either; false = "
           "they are still banked (assumption: the notes do not cover it)"),
    Option("linen_clothes", "choice", "none", "who holds the Linen Clothes of St Æthelthryth "
           "(SEED §5.2): each of that side's Commands moves up to 2 units (used by retreat "
           "policies)", choices=("none", "vikings", "english", "both")),
    Option("command_moves_fyrd", _B, False, "Commands may move Fyrd out of the battle "
           "(assumption: no source says; default no)"),
    Option("valhalla_deaths", "int", 8, "Valhalla's Glory (SEED §6.2): Viking deaths needed",
           1, 1000),
    Option("lagertha", _B, False, "the Viking army is Lagertha's (SEED §9.2): her 2 Norsemen + "
           "1 Berserker join the units given (transferred from the other Invasion card)"),
    Option("faces", "str", "", "face-table override, e.g. 'B=HHHHCF,F=HHFFFB' (letters per d6 "
           "face: H Hit, F Flee, C Command, B Blank; 878 §4.11)"),
    Option("berserker_flee_faces", "int", 0, "turn this many Berserker Command faces into Flee "
           "faces (878 §6.1, the seed's Berserker Flee)", 0, 6),
    Option("max_dice", "str", "", "max-dice override, e.g. 'N=3,B=2,H=2,T=3,F=2' (878 §4.3)"),
    Option("max_rolls", "int", 1000, "safety cap on rolls per battle; a capped battle is "
           "'truncated', never a win", 1, 1_000_000),
)


@dataclass(frozen=True)
class Setup:
    rules: Rules
    compiled: CompiledRules
    phit: np.ndarray
    kinds: np.ndarray
    params: np.ndarray
    policies: tuple
    start: np.ndarray   # int64 (6,): units at the start from the options (before cards)


def make_setup(options: dict, policies: list[str], players: int = 2) -> Setup:
    if players != 2:
        raise InputError(f"battle878 takes 2 players (Vikings, English), got {players}")
    rules = rules_from_options(options)
    kinds, params = compile_policies(list(policies))
    comp = rules.compile()
    phit = np.array([(comp.faces[d] == int(Face.HIT)).sum() / 6.0 for d in range(5)])
    lag = int(rules.lagertha)
    start = np.array([rules.norsemen + 2 * lag, rules.berserkers + lag, rules.housecarls,
                      rules.thegns, rules.fyrd, 0], np.int64)
    return Setup(rules, comp, phit, kinds, params, tuple(policies), start)


def allocate(setup: Setup, n: int) -> dict:
    six = (n, 6)
    return {
        "outcome": np.zeros(n, np.int8), "rolls": np.zeros(n, np.int32),
        "alive": np.zeros(six, np.int16), "dead": np.zeros(six, np.int16),
        "fled": np.zeros(six, np.int16), "retreated": np.zeros(six, np.int16),
        "joined": np.zeros(six, np.int16), "left": np.zeros(six, np.int16),
        "structure": np.zeros(n, np.int8), "epic": np.zeros(n, np.int16),
        "traitor": np.full(n, -1, np.int8), "effects": np.zeros((n, K.N_EFF), np.int16),
    }


def _args(setup: Setup):
    c = setup.compiled
    return (c.faces, c.rune_faces, c.prayer_faces, c.max_dice, c.unit_die, c.fyrd_cards,
            c.ints, setup.phit, setup.kinds, setup.params)


def _outs(out):
    return (out["outcome"], out["rolls"], out["alive"], out["dead"], out["fled"],
            out["retreated"], out["joined"], out["left"], out["structure"], out["epic"],
            out["traitor"], out["effects"])


def play_block(setup, g0, g1, dice_rng, pol_rng, out):
    K._play_block(*_args(setup), g0, g1, dice_rng, pol_rng, *_outs(out))


def reference_block(setup, g0, g1, dice_rng, pol_rng, out):
    REF.play_block(setup.rules, setup.policies, g0, g1, dice_rng, pol_rng, out)


def _viking_deaths(out):
    return out["dead"][:, 0].astype(np.int64) + out["dead"][:, 1]


def frame(setup: Setup, out: dict) -> pd.DataFrame:
    n = len(out["outcome"])
    cols = {"game_id": np.arange(n, dtype=np.int64),
            "outcome": pd.Categorical.from_codes(out["outcome"].astype(np.int64),
                                                 categories=list(OUTCOME_KEYS)),
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


def trace(setup: Setup, seed: int) -> str:
    """One battle (game 0 of block 0 for ``seed``) told roll by roll, by the reference engine."""
    from vikingsim.core import rng
    lines: list[str] = []
    REF.play_battle(setup.rules, setup.policies, rng.block_generator(seed, rng.STREAM_DICE, 0),
                    rng.block_generator(seed, rng.STREAM_POLICY, 0), log=lines.append)
    return "\n".join(lines)


def lagertha_experiment(n: int = 100_000, *, seed: int = 20260, norsemen: int = 11,
                        berserkers: int = 4, move_norsemen: int = 3, move_berserkers: int = 1,
                        housecarls: int = 3, thegns: int = 4, policies=("default", "default"),
                        threads: int | None = None, **options) -> dict:
    """SEED §9.2 Lagertha: one army of (norsemen + 2, berserkers + 1) vs the English force,
    or two battles against that same-sized force: the main army (minus the transfer) and
    Lagertha's (2 N + 1 B plus the transfer). Same seed (common random numbers).

    Returns P(Viking win) of the combined army and of each split army, and P(at least one of
    the two split armies wins), with Wilson intervals."""
    from vikingsim.core.runner import simulate
    eng = dict(housecarls=housecarls, thegns=thegns, **options)
    one = simulate(GAME, n, seed=seed, policies=list(policies), threads=threads,
                   options=dict(norsemen=norsemen, berserkers=berserkers, lagertha=True, **eng))
    main = simulate(GAME, n, seed=seed, policies=list(policies), threads=threads,
                    options=dict(norsemen=norsemen - move_norsemen,
                                 berserkers=berserkers - move_berserkers, **eng))
    lag = simulate(GAME, n, seed=seed + 1, policies=list(policies), threads=threads,
                   options=dict(norsemen=move_norsemen, berserkers=move_berserkers,
                                lagertha=True, **eng))
    w1 = one.out["outcome"] == Outcome.VIKINGS_WIN
    wm = main.out["outcome"] == Outcome.VIKINGS_WIN
    wl = lag.out["outcome"] == Outcome.VIKINGS_WIN
    res = {}
    for key, arr in (("p_combined_win", w1), ("p_main_win", wm), ("p_lagertha_win", wl),
                     ("p_split_at_least_one_win", wm | wl), ("p_split_both_win", wm & wl)):
        put_fraction(res, key, int(arr.sum()), n)
    res["mean_split_wins"] = float(wm.mean() + wl.mean())
    return res


def _setup(options, policies, players):
    return make_setup(options, policies, players)


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
    odds=None,
    trace=trace,
    bench_options={"norsemen": 6, "berserkers": 2, "housecarls": 3, "thegns": 4},
    block_games=32768,   # fast kernel: big RNG blocks keep per-block overhead small
)


def _odds(options: dict) -> dict:
    """Exact odds from the solver in ``exact.py`` (written separately), imported lazily."""
    from vikingsim.games.battle878.exact import odds
    return odds(options)


def _has_exact() -> bool:
    import importlib.util
    return importlib.util.find_spec("vikingsim.games.battle878.exact") is not None


if _has_exact():
    from dataclasses import replace as _replace
    GAME = _replace(GAME, odds=_odds)
