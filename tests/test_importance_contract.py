"""`vikingsim importance` on any game through the GameSpec contract: a test-only seated game
whose worths are known exactly.

"Fakeduel": each game draws one uniform u from the dice stream and seat s wins when u falls
in its share of the seats' weights (w_s / sum w, seats in order). A seat's policy ``forbid``
multiplies its weight by 0.5 per ``sword`` and 0.8 per ``shield``; ``horn`` changes nothing
(an element the policy never uses). So, for K seats of weight 1, denying one seat an element
of factor f gives it f / (K - 1 + f) instead of 1/K, and

    worth = 1/K - f / (K - 1 + f)       (the same for every seat)

sword at K = 2: 1/2 - 1/3 = 1/6; shield at K = 2: 1/2 - 4/9 = 1/18; sword at K = 3:
1/3 - 1/5 = 2/15.
"""
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from vikingsim.core import config, stats
from vikingsim.core.game import GameSpec
from vikingsim.core.options import rule
from vikingsim.core.testing import within_k_se
from vikingsim.studies import importance as I
from vikingsim.studies.dataset import open_study
from vikingsim.studies.run import run_study

ELEMENTS = ("sword", "shield", "horn")
FACTOR = {"sword": 0.5, "shield": 0.8, "horn": 1.0}


@dataclass(frozen=True)
class Fake:
    forbid: str = rule("", "elements denied, joined by +")

    def __post_init__(self):
        bad = [e for e in self.forbid.split("+") if e and e not in ELEMENTS]
        if bad:
            raise ValueError(f"unknown element {bad[0]!r}")

    def weight(self) -> float:
        return float(np.prod([FACTOR[e] for e in self.forbid.split("+") if e]))


def _setup(options, policies, players):
    from vikingsim.core import policies as P

    return np.array([P.build("fakeduel", {"fake": Fake}, p).weight() for p in policies])


def _play(weights, g0, g1, dice_rng, pol_rng, out):
    edges = np.cumsum(weights) / weights.sum()
    for g in range(g0, g1):
        out["winner"][g] = min(int(np.searchsorted(edges, dice_rng.random(), side="right")),
                               len(weights) - 1)


def _tally(setup, out):
    return {"wins": np.bincount(out["winner"].astype(np.int64), minlength=len(setup)),
            "truncated": np.array([0])}


def _summarize(setup, t, n):
    return {"win_rate": [float(w / n) for w in t["wins"]],
            "win_rate_ci": [list(stats.wilson(int(w), n)) for w in t["wins"]]}


def _frame(setup, out):
    import pandas as pd

    n = len(out["winner"])
    return pd.DataFrame({"game_id": np.arange(n, dtype=np.int64),
                         "outcome": pd.Categorical.from_codes(np.zeros(n, np.int8),
                                                              categories=("win", "truncated")),
                         "winner": out["winner"]})


GAME = GameSpec(
    name="fakeduel", title="Fake duel", summary_line="test-only", options=(),
    policies={"fake": "weights"}, default_policy="fake", players=(2, 4, 2), setup=_setup,
    allocate=lambda s, n: {"winner": np.full(n, -1, np.int8)}, play_block=_play,
    reference_block=_play, frame=_frame,
    summary=lambda s, out: _summarize(s, _tally(s, out), len(out["winner"])),
    tally=_tally, summarize=_summarize, outcomes=("win", "truncated"), seated=True,
    policy_types={"fake": Fake}, elements=lambda s: ELEMENTS, block_games=config.BLOCK_GAMES)


@pytest.fixture
def fake_game(monkeypatch):
    import vikingsim.games as games

    monkeypatch.setitem(games._MODULES, "fakeduel", __name__)
    assert sys.modules[__name__].GAME is GAME
    yield GAME


@pytest.mark.parametrize("players,rows", [(2, True), (3, True), (2, False)])
def test_worths_of_the_fake_game_are_the_exact_ones(fake_game, tmp_path, players, rows):
    n = 20_000
    study = I.build_study("fakeduel", games=n, seed=3, players=players, rows=rows,
                          path=tmp_path / "fake.toml")
    res = run_study(study, tmp_path / "fake", workers=1)
    t = I.worth_table(open_study(res.root)).set_index("element")
    for e in ELEMENTS:
        f = FACTOR[e]
        exact = 1 / players - f / (players - 1 + f)
        assert within_k_se(t.loc[e, "worth"], exact, t.loc[e, "se"]), (e, t.loc[e].to_dict())
    assert list(t.index) == ["sword", "shield", "horn"]            # ranked by worth
    assert t.loc["horn", "worth"] == 0 and t.loc["horn", "lo"] <= 0 <= t.loc["horn", "hi"]
    assert t.loc["sword", "nonzero"] and t.loc["shield", "nonzero"]
    assert not t.loc["horn", "nonzero"]
    if rows:
        # one shared uniform per game: a game differs only when u falls in the moved edge,
        # so the paired interval is far narrower than the unpaired binomial one
        f = FACTOR["sword"]
        unpaired_se = np.sqrt(players * (f / (players - 1 + f)) * (1 - f / (players - 1 + f))
                              / n) / players
        assert t.loc["sword", "se"] < 0.8 * unpaired_se
