"""The tally contract's integer counts (``core.game.tally_counts``) agree with the per-game
rows of the same run, for every registered game: outcomes from the ``outcome`` column, wins
from the ``winner`` column, the length histogram from the length column."""
import numpy as np
import pytest

from vikingsim import simulate
from vikingsim.core.game import tally_counts
from vikingsim.games import get, names


@pytest.mark.parametrize("game", names())
def test_tally_counts_are_the_rows_counts(game):
    spec = get(game)
    res = simulate(spec, 40, seed=3, reference=True, keep=True, threads=1)
    df = res.frame
    got = tally_counts(spec, res.tally, res.n)
    assert got.games == 40
    want = df["outcome"].astype(str).value_counts().to_dict()
    assert {o: k for o, k in got.outcomes.items() if k} == want
    assert set(got.outcomes) == set(spec.outcomes)
    if spec.seated:
        w = df["winner"].to_numpy()
        assert got.wins.tolist() == np.bincount(w[w >= 0], minlength=res.players).tolist()
    else:
        assert got.wins is None
    if got.length is not None:
        assert got.length_hist.tolist() == np.bincount(df[got.length]).tolist()


def test_a_tally_whose_counts_do_not_add_up_is_refused():
    spec = get("raidboard")
    res = simulate(spec, 10, seed=1, reference=True, players=3, threads=1)
    bad = {**res.tally, "truncated": np.array([11])}
    with pytest.raises(ValueError, match="wins for"):
        tally_counts(spec, bad, 10)
    battle = get("battle878")
    res = simulate(battle, 10, seed=1, reference=True, threads=1)
    with pytest.raises(ValueError, match="outcomes for 11 games"):
        tally_counts(battle, res.tally, 11)


def test_ties_and_truncated_games_of_a_seated_tally_by_hand():
    # 7 games: 2 truncated, 1 full tie (it counts for its winner seat), 4 won outright
    spec = get("raidconquer")
    got = tally_counts(spec, {"wins": np.array([3, 2]), "ties": np.array([1]),
                              "truncated": np.array([2]), "rounds_hist": np.array([0, 5, 2])}, 7)
    assert got.outcomes == {"win": 4, "tie": 1, "truncated": 2}
    assert got.wins.tolist() == [3, 2] and got.length == "rounds"
    assert got.length_hist.tolist() == [0, 5, 2]
