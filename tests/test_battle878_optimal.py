"""Exact best play in 878 battles (issue 21 §3; vikingsim/games/battle878/optimal.py).

Without Runes and Prayer the only decision is a Command retreat (878 §2.3); the solver's claim
is that it never pays, so each side's maximin guarantee is the default policy's exact odds.
Checked three ways: (1) the retreat check on the solver's own value table finds no gain on
many rule sets; (2) the check finds a gain planted in a real table (so it can fail); (3) an
independent plain-Python maximin with every retreat option enumerated (value iteration over
a tiny battle, written from 878 §2.3-§4.10, not from the solver) gives the same values.
"""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from vikingsim.core.errors import InputError
from vikingsim.games.battle878 import GAME, exact
from vikingsim.games.battle878 import optimal as O

ARMY = {"norsemen": 4, "berserkers": 2, "housecarls": 3, "thegns": 3}


RULE_SETS = [
    {},
    {"fort": 1, "ragnar": True, "northumbria": True, "epic_card": "faith",
     "edmunds_faith": True},
    {"settlement": 1, "seidr": True, "attacker": "english"},
    {"raven_banner": True, "fyrd_card": True},
    {"epic_card": "disorganized_combat", "military_reform": True},
    {"linen_clothes": "both", "command_moves_fyrd": True, "fyrd": 2},
    {"first_roller": "attacker", "berserker_first_hit_scope": "first_casualty"},
    {"faces": "N=FFFFFH"},                 # Norsemen that mostly flee: still worth keeping
    {"faces": "T=FFFFCC", "edmunds_faith": True, "edmunds_faith_side": "vikings"},
    {"epic_card": "foul_weather"},          # Commands banked: no retreat decision at all
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: ",".join(r) or "base")
def test_retreat_never_pays_and_guarantees_are_the_default_odds(rules):
    opts = {**ARMY, **rules}
    r = exact.optimal(opts)
    base = exact.odds(opts)
    assert r["vikings_guarantee"] == base["p_vikings_win"]
    assert r["english_guarantee"] == base["p_english_win"]
    assert r["retreat_gain_vikings_game"] <= O.GAIN_TOL
    assert r["retreat_gain_english_game"] <= O.GAIN_TOL
    assert r["vikings_guarantee"] + r["english_guarantee"] + r["p_both_eliminated"] == \
        pytest.approx(1.0, abs=1e-12)


def _table(opts):
    spec = exact.spec_from_rules(exact._rules(opts))
    return next(O._tables(spec))


def test_retreat_check_finds_a_planted_gain():
    """The check reads the right axes and signs: raise one entry by 0.01 and it reports it."""
    val = _table(ARMY)
    assert max(O.retreat_check(val, False).values()) <= O.GAIN_TOL
    # Viking game, Vikings retreat a Norseman after their roll (side 1 = English next)
    v = val.copy()
    v[2, 1, 0, 2, 2, 0, 0, 0, 0, 1, exact._K_VIK] = v[3, 1, 0, 2, 2, 0, 0, 0, 0, 1,
                                                       exact._K_VIK] + 0.01
    assert O.retreat_check(v, False)["vikings_game"] >= 0.01 - 1e-12
    # English game, English retreat a Thegn after their roll (side 0 = Vikings next)
    v = val.copy()
    v[2, 1, 0, 2, 0, 0, 0, 0, 0, 0, exact._K_ENG] = v[2, 1, 0, 2, 1, 0, 0, 0, 0, 0,
                                                       exact._K_ENG] + 0.01
    assert O.retreat_check(v, False)["english_game"] >= 0.01 - 1e-12
    # English game, the Vikings (minimising) retreat a Berserker: English success drops
    v = val.copy()
    v[2, 0, 0, 2, 2, 0, 0, 0, 0, 1, exact._K_ENG] = v[2, 1, 0, 2, 2, 0, 0, 0, 0, 1,
                                                       exact._K_ENG] - 0.01
    assert O.retreat_check(v, False)["english_game"] >= 0.01 - 1e-12
    # a Fyrd axis gain counts only when Commands may move Fyrd (878 §2.3 assumption)
    val = _table({**ARMY, "fyrd": 2})
    v = val.copy()
    v[2, 1, 0, 3, 3, 0, 0, 0, 0, 0, exact._K_ENG] = v[2, 1, 0, 3, 3, 1, 0, 0, 0, 0,
                                                       exact._K_ENG] + 0.01   # H, T at most
    assert O.retreat_check(v, False)["english_game"] <= O.GAIN_TOL
    assert O.retreat_check(v, True)["english_game"] >= 0.01 - 1e-12


def test_a_paying_retreat_is_refused_not_reported(monkeypatch):
    monkeypatch.setattr(O, "retreat_check", lambda val, cmf: {"vikings_game": 0.02,
                                                              "english_game": 0.0})
    with pytest.raises(InputError, match="retreat pays"):
        exact.optimal(ARMY)


# ------------------------------------------------------------- independent maximin oracle
FACES = {"N": "HHHFCC", "B": "HHHHCC", "H": "HHHFCC", "T": "HHFFCC"}   # 878 §2.2
MAXD = {"N": 3, "B": 2, "H": 2, "T": 3}


def _dist(die: str, k: int) -> dict:
    """{(hits, flees, commands): probability} of k dice of one type, every face enumerated."""
    out: dict = {}
    for faces in itertools.product(FACES[die], repeat=k):
        key = (faces.count("H"), faces.count("F"), faces.count("C"))
        out[key] = out.get(key, 0.0) + 6.0 ** -k
    return out


def _retreats(units: tuple, cmds: int):
    """Every way to Command-move up to ``cmds`` of the two unit types (878 §2.3)."""
    for r1 in range(min(cmds, units[0]) + 1):
        for r2 in range(min(cmds - r1, units[1]) + 1):
            yield units[0] - r1, units[1] - r2


def _maximin(start: tuple, game: int, sweeps: int = 300) -> float:
    """Value of the Viking game (0) or the English game (1) with every retreat allowed, by value
    iteration. Base rules: defender (English) rolls first, the first Hit of the first English
    roll kills a Berserker (878 §4.6), loss orders N, B / T, H; success = hold the shire."""
    def success(n, b, h, t, retreated_side):
        if n + b > 0 and h + t > 0:
            return None
        if n + b == 0 and h + t == 0:
            return 0.0
        vik = 1.0 if n + b > 0 else 0.0
        return vik if game == 0 else 1.0 - vik

    states = list(itertools.product(*(range(x + 1) for x in start), (0, 1), (0, 1)))
    V = {s: 0.0 for s in states}

    def value(n, b, h, t, pend, side):
        end = success(n, b, h, t, None)
        return end if end is not None else V[(n, b, h, t, pend, side)]

    rolls = {}
    for s in states:
        n, b, h, t, pend, side = s
        a, c = ((n, b), ("N", "B")) if side == 0 else ((h, t), ("H", "T"))
        d1, d2 = _dist(c[0], min(a[0], MAXD[c[0]])), _dist(c[1], min(a[1], MAXD[c[1]]))
        rolls[s] = [(p1 * p2, k1, k2) for k1, p1 in d1.items() for k2, p2 in d2.items()]
    for _ in range(sweeps):
        new = {}
        for s in states:
            n, b, h, t, pend, side = s
            if success(n, b, h, t, None) is not None:
                continue
            tot = 0.0
            for p, k1, k2 in rolls[s]:
                hits, cmds = k1[0] + k2[0], k1[2] + k2[2]
                if side == 0:
                    n2, b2 = n - min(k1[1], n), b - min(k2[1], b)
                    t2 = t - min(hits, t)
                    h2 = h - min(hits - (t - t2), h)
                    opts = [value(x, y, h2, t2, pend, 1) for x, y in _retreats((n2, b2), cmds)]
                    maxim = game == 0
                else:
                    h2, t2 = h - min(k1[1], h), t - min(k2[1], t)
                    take = 1 if pend and hits > 0 and b > 0 else 0
                    n2 = n - min(hits - take, n)
                    b2 = b - take - min(hits - take - (n - n2), b - take)
                    opts = [value(n2, b2, x, y, 0, 0) for x, y in _retreats((h2, t2), cmds)]
                    maxim = game == 1
                tot += p * (max(opts) if maxim else min(opts))
            new[s] = tot
        V.update(new)
    return V[(*start, 1, 1)]


@pytest.mark.parametrize("army", [(1, 1, 1, 1), (2, 1, 1, 2), (2, 0, 2, 1), (1, 2, 2, 2)])
def test_maximin_with_every_retreat_enumerated_equals_the_solver(army):
    opts = dict(zip(("norsemen", "berserkers", "housecarls", "thegns"), army))
    r = exact.optimal(opts)
    assert _maximin(army, 0) == pytest.approx(r["vikings_guarantee"], abs=1e-9)
    assert _maximin(army, 1) == pytest.approx(r["english_guarantee"], abs=1e-9)


def test_game_spec_optimal_and_cli(tmp_path, cli):
    assert GAME.optimal(ARMY) == exact.optimal(ARMY)
    cmd = ["odds", "battle878", "--optimal", "--json", "--set", "norsemen=2", "--set",
           "berserkers=1", "--set", "housecarls=1", "--set", "thegns=2"]
    p = cli(*cmd)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    want = exact.odds({"norsemen": 2, "berserkers": 1, "housecarls": 1, "thegns": 2})
    assert got["vikings_guarantee"] == pytest.approx(want["p_vikings_win"], abs=1e-15)
    bad = cli("odds", "ravenfeast", "--optimal")
    assert bad.returncode == 2 and "no optimal-play solver" in bad.stderr
    assert "Traceback" not in bad.stderr


# ------------------------------------------------------------- with Runes and Prayer (DP)
from dataclasses import replace  # noqa: E402

from vikingsim.core.runner import simulate  # noqa: E402
from vikingsim.core.testing import plain_module  # noqa: E402
from vikingsim.games.battle878 import _args, _outs, allocate, make_setup  # noqa: E402
from vikingsim.games.battle878 import optimal_rp as RP  # noqa: E402
from vikingsim.games.battle878.reference import Battle  # noqa: E402
from vikingsim.games.battle878.rules import Outcome, rules_from_options  # noqa: E402

RP_ARMY = {"norsemen": 3, "berserkers": 2, "housecarls": 2, "thegns": 2, "runes_prayer": True}
N_MC = 200_000   # SE of a win rate near 0.7: 0.0010, so 4 SE = 0.4 pp


def _solved(opts):
    """The saddle solve of battle ``opts`` (``RP.solved``: cached per test process and
    read-only, so the tests that ask for one battle share its solve)."""
    return RP.solved(rules_from_options(opts))


def _full(D, code, rows=2):
    """A ``fixed`` / ``fixed_spend`` array (rows, n, ..., pend, rag) filled with ``code``
    (``fixed``: rows 0-1 the dice count of side 0 / 1, row 2 the Viking Ragnarök choice)."""
    return np.full((rows,) + D.shape[1:-1], code, np.int8)


def _p_success(summary, game):
    s = summary
    return s["p_vikings_win"] if game == 0 else s["p_english_win"] + s["p_gods_peace"]


def _z(p_mc, p_exact, n):
    return (p_mc - p_exact) / max((p_exact * (1 - p_exact) / n) ** 0.5, 1e-12)


#: Ragnarök and Defend the Faith (3 dice each) unaffordable, no Reserve Pile: greedy and never
#: are then inside the DP's model (policy evaluation with fixed choices)
SCRIPTED_OK = {**RP_ARMY, "runes_dice": 2, "prayer_dice": 2, "reserve_berserkers": 0}


def test_dp_model_is_the_engine_greedy_battle_when_every_die_is_rolled():
    """Policy evaluation: with k = all factions imposed on both sides, the DP's scripted
    spending is exactly greedy's when Ragnarök and Defend the Faith cannot be afforded (2 dice
    each) and the Reserve Pile is empty; its P(success) must match greedy v greedy MC
    (n = 200,000: SE 0.1 pp, 4 SE tolerance)."""
    opts = SCRIPTED_OK
    spec, V, D, E, G = _solved(opts)
    Vf = RP.solve_rp(spec, _full(D, 2), _full(D, RP.SPEND_SCRIPTED),
                     omens_games=(RP.OMENS_SCRIPTED, RP.OMENS_SCRIPTED))[0]   # greedy's Omens
    s = simulate(GAME, N_MC, seed=21, options=opts, policies=["greedy", "greedy"],
                 threads=2).summary
    i = RP.start_index(spec)
    for g in (0, 1):
        assert abs(_z(_p_success(s, g), Vf[(g, *i)], N_MC)) < 4
    assert V[(0, *i)] >= Vf[(0, *i)] - 1e-12      # the Vikings' best is at least greedy's


#: The twelve one-side-fixed evaluations of ``test_guarantees_are_maximin`` run on a smaller
#: battle (about 4 s of CPU a solve against RP_ARMY's 15) with every decision of RP_ARMY's: five
#: of its six always-k dice counts are worse for the side fixed than the solver's choice by
#: 0.014 or more (the sixth, the English always rolling both dice, is their choice there).
MAXIMIN_ARMY = {"norsemen": 2, "berserkers": 1, "housecarls": 1, "thegns": 2,
                "runes_prayer": True}


def test_guarantees_are_maximin():
    """Vikings' guarantee: no fixed Viking choice does better against the English best
    response, and their own table does no worse against any fixed English choice; same for
    the English. (Evaluations with one side fixed, the other optimised by the DP.)"""
    spec, V, D, E, G = _solved(MAXIMIN_ARMY)
    i = RP.start_index(spec)
    own = RP.decision_table(D, E, G)
    free = RP.SPEND_FREE
    for g in (0, 1):
        for k in (0, 1, 2):
            fixed = _full(D, -1)
            fixed[g] = k                               # side g plays k always
            assert RP.solve_rp(spec, fixed)[0][(g, *i)] <= V[(g, *i)] + 1e-12
            fixed = _full(D, k, 3)
            fixed[g] = own[g]                          # side g plays its table
            # the Vikings' table: Ragnarök too; the English one: spending too (and the
            # Viking Ragnarök is then the minimiser's, free)
            fixed[2] = own[4] if g == 0 else -1
            spend = _full(D, free) if g == 0 else own[2:4]
            assert RP.solve_rp(spec, fixed, spend)[0][(g, *i)] >= V[(g, *i)] - 1e-12


def test_ragnarok_and_rolling_are_real_maximin_choices():
    """On RP_ARMY, where both are live: Ragnarök (878 §5.2) never and always-when-affordable
    do at most V for the Vikings, and rolling Runes/Prayer never or always does worse."""
    spec, V, D, E, G = _solved(RP_ARMY)
    i = RP.start_index(spec)
    # Ragnarök (878 §5.2) is maximin too: never and always-when-affordable at most V
    for buy in (0, 1):
        fixed = _full(D, -1, 3)
        fixed[2] = buy
        Vf = RP.solve_rp(spec, fixed)[0]
        assert Vf[(0, *i)] <= V[(0, *i)] + 1e-12
        assert Vf[(1, *i)] >= V[(1, *i)] - 1e-12   # Ragnarök is the Vikings' (min) in game 1
        if buy:      # the node is live: Runes thrown back to the pool cost the Vikings Omens
            assert Vf[(0, *i)] < V[(0, *i)] - 1e-6     # (by ~1e-5 here)
    # rolling Runes/Prayer is a real decision here: "never" and "always" both do worse
    for k in (0, 2):
        fixed = _full(D, -1)
        fixed[0] = k
        assert RP.solve_rp(spec, fixed)[0][(0, *i)] < V[(0, *i)] - 1e-4


#: the Runes and Prayer battles the project ships (this file's, the bit-for-bit ones, the
#: Runes and Prayer notebook's SMALL_ARMY); the default army (6 N + 2 B v 3 H + 4 T) is left to
#: docs/benchmarks.md (minutes of CPU per solve)
SHIPPED_RP = [RP_ARMY, {**RP_ARMY, "attacker": "english", "seidr": True},
              {**RP_ARMY, "first_roller": "attacker", "runes_dice": 3},
              {"norsemen": 4, "berserkers": 2, "housecarls": 2, "thegns": 3, "runes_prayer": True}]


@pytest.mark.parametrize("opts", SHIPPED_RP, ids=range(len(SHIPPED_RP)))
def test_ragnarok_node_never_lowers_the_viking_guarantee(opts):
    """878 §5.2: the Ragnarök node is one more option of the Vikings, so the Viking guarantee
    with it is at least the one with the node switched off (``rp_spec(..., ragnarok=False)``)
    and the English guarantee at most. With the Omens choice on RP_ARMY; on the other shipped
    battles with Omens scripted (``omens=False``: a third of the solve's CPU; the Omens choice
    itself is checked on the first three by ``test_omens_choice_never_lowers_the_viking_guarantee``)."""
    r = rules_from_options(opts)
    got = {}
    for rag in (False, True):
        spec, V = RP.solved(r, rag, omens=opts is RP_ARMY)[:2]
        got[rag] = V[(slice(None), *RP.start_index(spec))]
    assert got[True][0] >= got[False][0] - 1e-12
    assert got[True][1] <= got[False][1] + 1e-12


@pytest.mark.parametrize("opts", SHIPPED_RP[:3], ids=range(3))
def test_omens_choice_never_lowers_the_viking_guarantee(opts):
    """878 §5.2: Omens of Victory as a Viking in-roll choice contains the scripted target
    (most non-Hit dice, all of them re-rolled) among its options, so the Viking guarantee with
    it is at least the one with ``rp_spec(..., omens=False)`` and the English guarantee at most
    (the English game's Vikings minimise over the same options). On RP_ARMY the choice is a
    real one: the Viking guarantee rises by more than 1e-4."""
    r = rules_from_options(opts)
    got = {}
    for om in (False, True):
        spec, V = RP.solved(r, omens=om)[:2]
        assert spec.omens == int(om)
        got[om] = V[(slice(None), *RP.start_index(spec))]
    assert got[True][0] >= got[False][0] - 1e-12
    assert got[True][1] <= got[False][1] + 1e-12
    if opts is RP_ARMY:
        assert got[True][0] > got[False][0] + 1e-4


def test_omens_guarantee_holds_against_the_scripted_omens():
    """The English guarantee (solved with the Vikings' Omens free, as minimiser) holds when
    the Vikings play the scripted Omens instead, all else as solved; the Vikings' own game-0
    Omens in the English game is no better for the Vikings there than their minimising
    choice; and the values satisfy the in-roll Bellman equation (policy iteration settled:
    the choices computed from the final values, held fixed, reproduce them)."""
    spec, V, D, E, G = _solved(RP_ARMY)
    i = RP.start_index(spec)
    scripted = RP.solve_rp(spec, omens_games=(0, RP.OMENS_SCRIPTED))[0]
    assert scripted[(1, *i)] >= V[(1, *i)] - 1e-12
    assert scripted[(0, *i)] == V[(0, *i)]           # game 0 untouched by game 1's Omens
    own = RP.solve_rp(spec, omens_games=(0, 0))[0]
    assert own[(1, *i)] >= V[(1, *i)] - 1e-12
    # the in-roll Bellman equation: the Omens choices read off the solved values (as the
    # engines read them) and held fixed give the solved values back, in every state
    again = RP.solve_rp(spec, omens_values=V)[0]
    assert np.abs(again - V).max() < 1e-12


def _omens_solve(W, dn, db, r, sign=1.0):
    """``_omens_dp`` and ``_omens_forward`` on the default faces (N HHHFCC, B HHHHCC)."""
    spec = RP.rp_spec(rules_from_options(RP_ARMY))
    tri = RP.omens_tri(spec)
    M = max(spec.max_dice[:2])
    U = np.zeros((r + 1, M + 1, M + 1, M + 1, M + 1))
    C = np.full(U.shape, -1, np.int64)     # entries outside the dice thrown stay -1
    Q = np.zeros(U.shape)
    L = np.zeros(W.shape)
    RP._omens_dp(W, sign, dn, db, r, 1, tri, U, C, np.zeros((2,) + (M + 1,) * 5))
    RP._omens_forward(C, dn, db, r, 1, tri, Q, L)
    return U, C, L


def test_omens_in_roll_choice_hand_derived():
    """SEED §4.3, 878 §5.2, by hand. 2 Norsemen dice show Hit, Command; the Berserker die
    Command; 1 Rune. A leaf is worth 0.1 per Hit - 0.05 per Norsemen Flee. Scripted: the
    non-Hits tie 1-1, so the Norsemen's Command is re-rolled: 0.1 + 1/2 x 0.1 - 1/6 x 0.05 =
    0.141667. Re-rolling the Berserker's Command instead: 0.1 + 4/6 x 0.1 = 0.166667 (no Flee
    face). Both Norsemen dice: 2 x (0.05 - 0.05/6) = 0.083333; the Norsemen Hit alone:
    0.1 x 1/2 - 0.05 x 1/6 = 0.041667; stop: 0.1. The choice is the Berserker die (code 1000:
    type 1, nothing kept of it), worth 1/6. With 0 Runes nothing is re-rolled. The leaf
    distribution (forward pass), on 1 Berserker die alone with 1 Rune: Hit (4/6) stops with
    the Rune kept; Command (2/6) is re-rolled: 1 Hit, no Rune with P 2/6 x 4/6 = 8/36, 0 Hits
    with 2/6 x 2/6 = 4/36. On 1 Norsemen die alone: Hit (1/2) stops; Flee (stop -0.05) and
    Command (stop 0) are re-rolled (1/2 x 0.1 - 1/6 x 0.05 = 0.041667 either way): 1 Hit, no
    Rune 1/2 x 1/2 = 1/4, a Flee 1/2 x 1/6 = 1/12, a Command 1/2 x 1/3 = 1/6."""
    W = np.zeros((6, 4, 3, 2))
    for hits in range(6):
        for fn in range(4):
            W[hits, fn] = 0.1 * hits - 0.05 * fn
    U, C, L = _omens_solve(W, 2, 1, 1)
    assert C[1, 1, 0, 0, 0] == 1000
    assert U[1, 1, 0, 0, 0] == pytest.approx(0.1 + 4 / 6 * 0.1, abs=1e-15)
    assert C[0, 1, 0, 0, 0] == -1
    # minimising (the English game's Vikings): the same leaves negated pick the same die
    U2, C2, _ = _omens_solve(-W, 2, 1, 1, sign=-1.0)
    assert C2[1, 1, 0, 0, 0] == 1000
    U, C, L = _omens_solve(W, 0, 1, 1)
    assert L[1, 0, 0, 1] == pytest.approx(4 / 6, abs=1e-15)
    assert L[1, 0, 0, 0] == pytest.approx(8 / 36, abs=1e-15)
    assert L[0, 0, 0, 0] == pytest.approx(4 / 36, abs=1e-15)
    assert L.sum() == pytest.approx(1.0, abs=1e-15)
    U, C, L = _omens_solve(W, 1, 0, 1)
    assert (C[1, 0, 1, 0, 0], C[1, 0, 0, 0, 0], C[1, 1, 0, 0, 0]) == (0, 0, -1)
    assert L[1, 0, 0, 1] == pytest.approx(1 / 2, abs=1e-15)
    assert L[1, 0, 0, 0] == pytest.approx(1 / 4, abs=1e-15)
    assert L[0, 1, 0, 0] == pytest.approx(1 / 12, abs=1e-15)
    assert L[0, 0, 0, 0] == pytest.approx(1 / 6, abs=1e-15)
    assert L.sum() == pytest.approx(1.0, abs=1e-15)


def test_omens_never_rerolls_more_when_stopping_ties():
    """Ties go to the smaller option (stop first): with every leaf worth the same, no state
    re-rolls anything."""
    W = np.full((6, 4, 3, 3), 0.5)
    U, C, L = _omens_solve(W, 3, 2, 2)
    assert (C == -1).all()
    assert L[:, :, :, 2].sum() == pytest.approx(1.0, abs=1e-14)   # no Rune spent


@pytest.mark.parametrize("code", [RP.SPEND_SCRIPTED, 0, 1, RP.SPEND_GP])
def test_english_spending_is_a_maximin_choice(code):
    """878 §5.2: the English Convert / God's Peace choice. Fixing the English spending to one
    rule (scripted = God's Peace as soon as affordable else Convert while affordable; never;
    one Convert at most; God's Peace only) with everything else optimised: the English game's
    value is at most the English guarantee, and the Viking game's at least the Viking
    guarantee; the old scripted rule is strictly worse for the English here (the choice is a
    real one: the guarantees moved)."""
    spec, V, D, E, G = _solved(RP_ARMY)
    i = RP.start_index(spec)
    Vf = RP.solve_rp(spec, None, _full(D, code))[0]
    assert Vf[(1, *i)] <= V[(1, *i)] + 1e-12
    assert Vf[(0, *i)] >= V[(0, *i)] - 1e-12
    if code == RP.SPEND_SCRIPTED:
        assert Vf[(1, *i)] < V[(1, *i)] - 1e-3
        assert Vf[(0, *i)] > V[(0, *i)] + 1e-3


@pytest.mark.parametrize("opts", [SCRIPTED_OK, {**SCRIPTED_OK, "runes_dice": 3}],
                         ids=["no_ragnarok", "ragnarok"])
def test_guarantee_holds_against_every_scripted_policy_of_the_other_side(opts):
    """Each side's own table against never, greedy and the other side's own optimal table
    (exact policy evaluation): its success is at least its guarantee. Defend the Faith and
    Battle Rage unaffordable (SCRIPTED_OK). With 2 Runes dice Ragnarök is unaffordable and
    greedy is inside the model; with 3 it is affordable and the Vikings are also played as
    "greedy dice, Ragnarök at the start of every Viking roll that affords it" (row 2 = 1; the
    DP's Ragnarök node, 878 §5.2) and as never buying it, each against the English table."""
    spec, V, D, E, G = _solved(opts)
    i = RP.start_index(spec)
    own = RP.decision_table(D, E, G)
    others = {"never": (0, 0, 0), "greedy": (2, RP.SPEND_SCRIPTED, 0), "optimal": None,
              "ragnarok_first": (2, RP.SPEND_SCRIPTED, 1)}
    for g in (0, 1):
        for name, other in others.items():
            fixed = _full(D, 0, 3)
            fixed[g] = own[g]
            fixed[1 - g] = own[1 - g] if other is None else other[0]
            fixed[2] = own[4] if (g == 0 or other is None) else other[2]
            spend = own[2:4].copy() if (g == 1 or other is None) else _full(D, other[1])
            # the Vikings' Omens: their own table's (game 0) when they play optimal, the
            # scripted rule when they play a scripted policy (878 §5.2)
            og = 0 if (g == 0 or other is None) else RP.OMENS_SCRIPTED
            Vf = RP.solve_rp(spec, fixed, spend, omens_games=(og, og))[0]
            assert Vf[(g, *i)] >= V[(g, *i)] - 1e-12, (g, name)


@pytest.mark.parametrize("g,other", [(0, "greedy"), (0, "never"), (1, "greedy"), (1, "never")])
def test_optimal_against_scripted_simulated_matches_the_dp(g, other):
    """Kernel v DP with every choice of the optimised set on the optimal seat (its Omens
    too, 878 §5.2) against a scripted seat inside the model (SCRIPTED_OK: greedy and never
    buy nothing the DP lacks): P(success) of the optimal seat from the DP's exact policy
    evaluation within 4 SE, and that evaluation at least the seat's guarantee. n = 200,000:
    SE 0.1 pp, so 4 SE (0.4 pp) is about the Omens choice's own gain on RP_ARMY (0.37 pp in
    docs/benchmarks.md), the smallest error of the Omens play this must see."""
    spec, V, D, E, G = _solved(SCRIPTED_OK)
    i = RP.start_index(spec)
    own = RP.decision_table(D, E, G)
    k, code = (2, RP.SPEND_SCRIPTED) if other == "greedy" else (0, 0)
    fixed = _full(D, k)
    fixed[g] = own[g]
    spend = own[2:4] if g == 1 else _full(D, code)
    og = 0 if g == 0 else RP.OMENS_SCRIPTED       # scripted Vikings: the scripted Omens
    want = RP.solve_rp(spec, fixed, spend, omens_games=(og, og))[0][(g, *i)]
    assert want >= V[(g, *i)] - 1e-12
    pols = ["optimal", other] if g == 0 else [other, "optimal"]
    s = simulate(GAME, N_MC, seed=31 + g, options=SCRIPTED_OK, policies=pols,
                 threads=2).summary
    assert abs(_z(_p_success(s, g), want, N_MC)) < 4, pols
    if g == 0 and other == "greedy":
        assert s["mean_omens"] > 0


@pytest.mark.parametrize("game", [0, 1])
def test_optimal_policy_simulated_matches_the_guarantee(game):
    """Both seats play game ``game``'s saddle strategies (policy optimal, game=...): the
    simulated P(success) is that game's value within 4 SE (n = 200,000, SE <= 0.11 pp)."""
    r = exact.optimal(RP_ARMY)
    name = ("vikings", "english")[game]
    pols = ["optimal", f"optimal(game={name})"] if game == 0 else \
        [f"optimal(game={name})", "optimal"]
    s = simulate(GAME, N_MC, seed=22 + game, options=RP_ARMY, policies=pols,
                 threads=2).summary
    want = r[f"{name}_guarantee"]
    assert abs(_z(_p_success(s, game), want, N_MC)) < 4
    assert s["mean_runes_rolled"] > 0 and s["mean_prayer_rolled"] > 0


@pytest.mark.parametrize("opts", [RP_ARMY, {**RP_ARMY, "attacker": "english", "seidr": True},
                                  {**RP_ARMY, "first_roller": "attacker", "runes_dice": 3},
                                  {**RP_ARMY, "norsemen": 0}])   # a Norsemen axis of length 1
def test_optimal_kernel_matches_reference_bit_for_bit(opts):
    a = simulate(GAME, 2000, seed=5, options=opts, policies=["optimal", "optimal"], threads=1)
    b = simulate(GAME, 2000, seed=5, options=opts, policies=["optimal", "optimal"], threads=1,
                 reference=True)
    for key in a.summary:
        if key not in ("elapsed_s", "games_per_s", "compile_s"):
            assert str(a.summary[key]) == str(b.summary[key]), key


class _Script:
    def __init__(self, values):
        self.values = list(values)

    def random(self):
        if not self.values:
            raise AssertionError("script exhausted")
        return self.values.pop(0)


def _d(*faces):
    return [(v - 0.5) / 6.0 for v in faces]


KP = plain_module("vikingsim.games.battle878.kernel")


def _forced_effects(engine, opts, table_entries, dice):
    """Policy optimal on both seats of battle ``opts``, its table replaced by zeros except
    ``table_entries`` (index -> value; English spending scripted unless an entry says):
    (outcome, effect counts) of one battle on the forced ``dice``."""
    setup = make_setup(opts, ["optimal", "optimal"])
    table = np.zeros_like(setup.table)
    table[2:4] = RP.SPEND_SCRIPTED
    for idx, k in table_entries.items():
        table[idx] = k
    setup = replace(setup, table=table)
    if engine == "reference":
        b = Battle(setup.rules, setup.policies, _Script(dice), _Script([]), table=table)
        return b.run(), dict(b.effects)
    out = allocate(setup, 1)
    KP._play_block(*_args(setup), 0, 1, _Script(dice), _Script([]), _outs(out))
    eff = {n: int(out["effects"][0, j]) for j, n in enumerate(KP.EFFECT_NAMES)}
    return Outcome(int(out["outcome"][0])), eff


def _forced(engine, table_entries, dice):
    """1 Norseman v 1 Thegn with Runes and Prayer (``_forced_effects``): (outcome, Converts,
    Runes dice rolled)."""
    opts = {"norsemen": 1, "berserkers": 0, "housecarls": 0, "thegns": 1, "runes_prayer": True}
    o, eff = _forced_effects(engine, opts, table_entries, dice)
    return o, eff["convert"], eff["runes_rolled"]


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_forced_dice_the_table_decides_who_rolls(engine):
    """SEED §4.1, §4.4. The English (defenders) roll first: Thegn die 5 (Command), and the
    table says 1 Prayer die at the start state: 2 (Conversion). Then the Vikings: Norsemen die
    5 (Command); with the table at 1 for (1 N, 0 B, 0 H, 1 T, English Conversion 1) a Runes
    die: 5 (Conversion), so 2 Conversions and the English Convert the last Norseman: English
    win after 2 rolls. With the Viking entry at 0 no Runes die is rolled; the English next
    roll their Thegn die 1 (Hit) and win by the Hit, no Convert."""
    eng = (1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0)   # seat 1, n b h t, r rc fa pc, pend 1, rag 0
    vik = (0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0)   # seat 0, ..., English Conversion 1, pend 0
    assert _forced(engine, {eng: 1, vik: 1}, _d(5, 2, 5, 5)) == (Outcome.ENGLISH_WIN, 1, 1)
    assert _forced(engine, {eng: 1}, _d(5, 2, 5, 1)) == (Outcome.ENGLISH_WIN, 0, 0)


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_forced_dice_the_table_decides_the_english_convert(engine):
    """SEED §4.4, 878 §5.2: the dice of the test above (2 Conversions on the card after the
    Vikings' Runes die). With the spending entry of that Viking roll (row 2, the state once
    the Runes die landed: 1 N, 1 T, Viking Conversion 1, English Conversion 1) at 0 the
    English do not Convert, nor at their next roll (row 3 entry 0); the Norseman's Command
    does nothing, the English then roll Hit (die 1) and win by the Hit. SPEND_GP converts
    nothing either (God's Peace costs 3: not affordable with 2); at 1 they Convert (English
    win after 2 rolls, no die left unread)."""
    eng = (1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0)
    vik = (0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0)
    spend = (2, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0)   # row 2: a Viking roll; r rc fa pc = 0 1 0 1
    later = (3, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0)   # row 3: the English roll after it
    dice = _d(5, 2, 5, 5, 1)
    for code in (0, RP.SPEND_GP):
        assert _forced(engine, {eng: 1, vik: 1, spend: code, later: 0}, dice) == \
            (Outcome.ENGLISH_WIN, 0, 1), code
    assert _forced(engine, {eng: 1, vik: 1, spend: 1}, _d(5, 2, 5, 5)) == \
        (Outcome.ENGLISH_WIN, 1, 1)


RAG_OPTS = {"norsemen": 1, "berserkers": 0, "housecarls": 0, "thegns": 2, "runes_prayer": True,
            "ragnarok_cost": 1}


@pytest.mark.parametrize("engine", ["reference", "kernel"])
@pytest.mark.parametrize("buy", [1, 0])
def test_forced_dice_the_table_decides_ragnarok_at_the_start_of_a_viking_roll(engine, buy):
    """878 §5.2 (SEED §4.3; Ragnarök at cost 1): 1 Norseman v 2 Thegns. Roll 1, English:
    Thegn dice 5, 5 (Commands), no Prayer die. Roll 2, Vikings: Norsemen die 1 (Hit, a Thegn
    dies), the table's 1 Runes die: 2 (a Rune), no Omens (no non-Hit). Roll 3, English: Thegn
    die 5. Roll 4, Vikings, at (1 N, 1 T, 1 Rune): row 4 says ``buy``, row 0 says 1 die there
    and 0 at the state after paying: Norsemen die 1 (Hit: Viking win), Runes die 2. Ragnarök
    is bought exactly when row 4 says so, and the dice count is the one read before paying
    (2 Runes dice rolled either way)."""
    start2 = (0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0)     # row 0: seat 0 at roll 2
    at4 = (1, 0, 0, 1, 1, 0, 0, 0, 0, 0)           # n b h t, r rc fa pc, pend, rag 0
    paid = (1, 0, 0, 1, 0, 0, 0, 0, 0, 1)          # the same after paying 1 Rune, rag 1
    entries = {start2: 1, (0, *at4): 1, (4, *at4): buy, (0, *paid): 0}
    o, eff = _forced_effects(engine, RAG_OPTS, entries, _d(5, 5, 1, 2, 5, 1, 2))
    assert (o, eff["ragnarok"], eff["runes_rolled"]) == (Outcome.VIKINGS_WIN, buy, 2)


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_forced_dice_ragnarok_is_never_bought_at_an_english_roll(engine):
    """878 §5.2: the table's Ragnarök is a Viking node at the start of a Viking roll only. The
    dice of the test above, but roll 3's Thegn die is 1 (Hit) at the state where row 4 says
    buy (the same cards and units as roll 4 there): the Norseman dies (no Ragnarök, so it does
    not flee) and the English win."""
    start2 = (0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0)
    at = (1, 0, 0, 1, 1, 0, 0, 0, 0, 0)
    o, eff = _forced_effects(engine, RAG_OPTS, {start2: 1, (4, *at): 1}, _d(5, 5, 1, 2, 1))
    assert (o, eff["ragnarok"]) == (Outcome.ENGLISH_WIN, 0)


def test_rp_size_and_rule_limits_are_one_line_errors(cli):
    with pytest.raises(InputError, match="too large"):
        exact.optimal({**RP_ARMY, "norsemen": 40, "thegns": 40})
    with pytest.raises(InputError, match="cannot handle fort"):
        exact.optimal({**RP_ARMY, "fort": 1})
    bad = cli("odds", "battle878", "--optimal", "--set", "runes_prayer=true", "--set",
              "norsemen=40", "--set", "thegns=40")
    assert bad.returncode == 2 and "too large" in bad.stderr and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


OMENS_OPTS = {"norsemen": 2, "berserkers": 1, "housecarls": 0, "thegns": 2,
              "runes_prayer": True, "first_roller": "attacker"}


def _forced_omens(engine, omens_on, dice, opts=OMENS_OPTS, entries=None, const=None):
    """Policy optimal on both seats of OMENS_OPTS, its table zero except 1 Runes die at the
    start; with ``omens_on`` the Viking seat's Omens leaves are worth 0.1 per Thegn killed -
    0.05 per Norseman lost (a hand-made value table, ``Setup.omens``), else the scripted
    Omens. (outcome, effects) of one battle on the forced ``dice``."""
    setup = make_setup(opts, ["optimal", "optimal"])
    table = np.zeros_like(setup.table)
    table[2:4] = RP.SPEND_SCRIPTED
    n0, b0, t0 = opts["norsemen"], opts["berserkers"], opts["thegns"]
    table[0, n0, b0, 0, t0, 0, 0, 0, 0, :, 0] = 1     # seat 0 at the start: 1 Runes die
    for idx, k in (entries or {}).items():
        table[idx] = k
    omens = None
    if omens_on:
        vals, tri, game = setup.omens
        n = np.arange(vals.shape[0]).reshape((-1,) + (1,) * 9)
        t = np.arange(vals.shape[3]).reshape((1, 1, 1, -1) + (1,) * 6)
        hand = np.broadcast_to(0.1 * (t0 - t) - 0.05 * (n0 - n), vals.shape).copy()
        if const is not None:
            hand[...] = const
        omens = (hand, tri, 0)
    setup = replace(setup, table=table, omens=omens)
    if engine == "reference":
        b = Battle(setup.rules, setup.policies, _Script(dice), _Script([]), table=table,
                   omens=omens)
        return b.run(), dict(b.effects)
    out = allocate(setup, 1)
    KP._play_block(*_args(setup), 0, 1, _Script(dice), _Script([]), _outs(out))
    eff = {n: int(out["effects"][0, j]) for j, n in enumerate(KP.EFFECT_NAMES)}
    return Outcome(int(out["outcome"][0])), eff


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_forced_dice_the_optimal_omens_differs_from_the_scripted_one(engine):
    """878 §5.2, SEED §4.3, by hand. 2 Norsemen + 1 Berserker attack 2 Thegns and roll first:
    Norsemen dice 1, 5 (Hit, Command), Berserker die 5 (Command), the Runes die 1 (a Rune).
    Leaves worth 0.1 per Thegn killed - 0.05 per Norseman lost (a win is 1): stop 0.1;
    re-roll the Norsemen Command (the scripted target: non-Hits tie 1-1, Norsemen first)
    1/2 x 1 + 1/6 x 0.05 + 1/3 x 0.1 = 0.5417; re-roll the Berserker Command 4/6 x 1 +
    2/6 x 0.1 = 0.7; both Norsemen dice at most 1/4 + 3/4 x 0.1 = 0.325; the Norsemen Hit
    alone at most 0.1. The optimal Vikings re-roll the Berserker die: 4 is a Hit, 2 Hits, the
    Vikings win in one roll. The scripted Omens re-rolls the Norseman's Command: 4 is a Flee
    (1 Hit, a Norseman flees); the English then roll Thegn die 1 (the first Hit takes the
    Berserker), the Norseman 5 (Command), the Thegn 1: English win."""
    dice = _d(1, 5, 5, 1, 4, 1, 5, 1)
    o, eff = _forced_omens(engine, True, dice)
    assert (o, eff["omens"], eff["runes_rolled"]) == (Outcome.VIKINGS_WIN, 1, 1)
    o, eff = _forced_omens(engine, False, dice)
    assert (o, eff["omens"], eff["runes_rolled"]) == (Outcome.ENGLISH_WIN, 1, 1)


@pytest.mark.parametrize("engine", ["reference", "kernel"])
@pytest.mark.parametrize("rune", [False, True])
def test_forced_dice_the_optimal_omens_unaffordable_plays_as_scripted(engine, rune):
    """878 §5.2, SEED §4.3 (Omens cost 1 Rune): the leaves and the battle dice of
    ``test_forced_dice_the_optimal_omens_differs_from_the_scripted_one`` (Norsemen dice 1, 5,
    Berserker die 5), the Runes die 5 (a Conversion, no Rune) or 1 (a Rune). No Rune: no Omens
    can be bought and the optimal Vikings play exactly the scripted battle (the kernel skips
    the leaf table and the DP): the Hit kills a Thegn, the English Thegn die 1 takes the
    Berserker (first Hit), the Norsemen dice 1, 1 kill the last Thegn: Viking win, no Omens,
    the same effects either way. One Rune (= the cost): the optimal Vikings re-roll the
    Berserker Command (worth 0.7 against 0.5417 for the scripted target, see that test): 4,
    a Hit, and 2 Hits win at once."""
    if not rune:
        dice = _d(1, 5, 5, 5, 1, 1, 1)
        o, eff = _forced_omens(engine, True, dice)
        assert (o, eff["omens"], eff["runes_rolled"]) == (Outcome.VIKINGS_WIN, 0, 1)
        assert (o, eff) == _forced_omens(engine, False, dice)
    else:
        o, eff = _forced_omens(engine, True, _d(1, 5, 5, 1, 4))
        assert (o, eff["omens"], eff["runes_rolled"]) == (Outcome.VIKINGS_WIN, 1, 1)


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_forced_dice_the_optimal_omens_keeps_a_hit_it_does_not_reroll(engine):
    """878 §5.2 by hand, the leaves of the test above, 2 Norsemen (no Berserker) v 2 Thegns:
    Norsemen dice 1, 5 (Hit, Command), the Runes die 1 (a Rune). Stop 0.1; re-roll the
    Command keeping the Hit 1/2 x 1 + 1/6 x 0.05 + 1/3 x 0.1 = 0.5417; both dice at most
    1/4 + 3/4 x 0.1 = 0.325; the Hit keeping the Command at most 0.1. The Command die is
    re-rolled: 1, a Hit, and with the kept Hit 2 Hits: Viking win in one roll (the script has
    no die for a second roll)."""
    opts = {**OMENS_OPTS, "berserkers": 0}
    o, eff = _forced_omens(engine, True, _d(1, 5, 1, 1), opts)
    assert (o, eff["omens"], eff["runes_rolled"]) == (Outcome.VIKINGS_WIN, 1, 1)


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_forced_dice_the_optimal_omens_rerolls_with_berserker_dice_only(engine):
    """878 §5.2 by hand, Omens with no Norsemen die thrown (the kernel skips the DP only when
    neither type throws a die): 1 Berserker attacks 1 Thegn and rolls first, the leaves of
    the tests above (0.1 per Thegn killed, a win 1). Berserker die 5 (Command), the Runes die
    1 (a Rune): stop 0 (no Hit), re-roll the Command 4/6 x 1 = 0.667; it is re-rolled: 1, a
    Hit, the Thegn dies: Viking win in one roll. Without the Omens the English would roll the
    next die, 1, a Hit on the Berserker (first Hit), English win."""
    opts = {**OMENS_OPTS, "norsemen": 0, "thegns": 1}
    o, eff = _forced_omens(engine, True, _d(5, 1, 1), opts)
    assert (o, eff["omens"], eff["runes_rolled"]) == (Outcome.VIKINGS_WIN, 1, 1)


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_forced_dice_the_optimal_omens_without_norsemen_is_the_dps(engine):
    """878 §5.2: a battle with no Norsemen still plays the DP's Omens choice (its value
    table has a Norsemen axis of length 1), not the scripted one. 2 Berserkers attack 3
    Thegns and roll first: Berserker dice 1, 5 (Hit, Command), the Runes die 1 (a Rune).
    Every leaf that does not end the battle is worth 0.3 (a hand table) and 2 Hits cannot
    kill 3 Thegns, so every option ties and the Vikings stop (the scripted Omens would
    re-roll the Command). The Hit kills a Thegn; the English Thegn dice 1, 1: the first Hit
    takes a Berserker, the second the other: English win, no Omens."""
    opts = {**OMENS_OPTS, "norsemen": 0, "berserkers": 2, "thegns": 3}
    o, eff = _forced_omens(engine, True, _d(1, 5, 1, 1, 1), opts, None, 0.3)
    assert (o, eff["omens"], eff["runes_rolled"]) == (Outcome.ENGLISH_WIN, 0, 1)


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_forced_dice_the_optimal_omens_sees_the_english_convert(engine):
    """878 §5.2: the Vikings' Omens choice is made once the English have spent on that roll.
    2 Norsemen + 1 Berserker attack 2 Thegns; the English (defenders) roll first: Thegn dice
    5, 5 (Commands), their Prayer die (row 1: 1 die) 2, a Conversion; no Hit, so the first-hit
    rule lapses. The Vikings (row 0: 2 Runes dice): Norsemen dice 1, 5, Berserker die 5, Runes
    dice 1 (a Rune), 5 (a Conversion): 2 Conversions, and the English Convert once (row 2), a
    Norseman for a Thegn: 1 N + 1 B v 3 T with 1 Hit showing. Every leaf that does not end the
    battle is worth 0.3 (a hand table): 3 Thegns cannot all die to 2 Hits, so every option
    ties at 0.3 and the Vikings stop (no Omens). Had they chosen before the Convert (2 Thegns),
    re-rolling the Berserker Command would win with P 4/6. The Hit kills a Thegn; the English
    roll 1, 1: the Norseman and the Berserker die, English win."""
    entries = {(0, 2, 1, 0, 2, 0, 0, 0, 1, 0, 0): 2,      # seat 0 after roll 1 (pc 1, pend 0)
               (1, 2, 1, 0, 2, 0, 0, 0, 0, 1, 0): 1,      # seat 1 at the start: 1 Prayer die
               (2, 2, 1, 0, 2, 1, 1, 0, 1, 0, 0): 1}      # the Viking roll: Convert once
    opts = {**OMENS_OPTS, "first_roller": "defender"}
    o, eff = _forced_omens(engine, True, _d(5, 5, 2, 1, 5, 5, 1, 5, 1, 1), opts, entries, 0.3)
    assert (o, eff["omens"], eff["convert"], eff["runes_rolled"]) == \
        (Outcome.ENGLISH_WIN, 0, 1, 2)
