"""The designer-question package (``vikingsim.questions``): derived seeds, the seated-game questions
on any seated game, and the 878 questions checked against the exact solver."""
import math

import numpy as np
import pytest

from vikingsim import questions as ex
from vikingsim.core import config
from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.core.testing import within_k_se


def test_spawned_seeds_are_stable_distinct_and_not_neighbours():
    a = ex.spawn_seeds(9, 2)
    assert a == ex.spawn_seeds(9, 2) == ex.spawn_seeds(9, 5)[:2]     # child i fixed by (9, i)
    assert len(set(a)) == 2 and all(0 <= s < 2**63 for s in a)
    assert 10 not in a and not set(a) & set(ex.spawn_seeds(10, 2))   # never seed + 1
    want = np.random.SeedSequence(9, spawn_key=(1,)).generate_state(1, np.uint64)[0] >> 1
    assert a[1] == int(want)


def test_seat_win_rates_are_the_runs_win_rates_with_their_intervals():
    df = ex.seat_win_rates(players=(2, 3), n=3000, seed=5)
    assert list(df.columns) == ["players", "seat", "wins", "n", "p", "lo", "hi", "fair", "edge"]
    for k in (2, 3):
        f = simulate("raidboard", 3000, seed=5, players=k).frame
        rows = df[df.players == k]
        assert list(rows.wins) == [int((f.winner == s).sum()) for s in range(k)]
        assert (rows.lo <= rows.p).all() and (rows.p <= rows.hi).all()
        assert np.allclose(rows.edge, rows.p - 1 / k) and np.allclose(rows.fair, 1 / k)


def test_head_to_head_rotates_the_challenger_on_common_seeds():
    df = ex.head_to_head("lookahead(settle_value=0)", "greedy", players=3, n=1000, seed=8)
    assert list(df.seat) == ["0", "1", "2", "all"]
    for seat in range(3):
        pols = ["greedy"] * 3
        pols[seat] = "lookahead(settle_value=0)"
        f = simulate("raidboard", 1000, seed=8, players=3, policies=pols).frame
        assert df.wins[seat] == int((f.winner == seat).sum())
    assert df.wins[3] == df.wins[:3].sum() and df.n[3] == 3000


def test_seat_questions_need_a_seated_game_and_lengths_work_for_any():
    with pytest.raises(InputError, match="battle878 is not a seated game"):
        ex.seat_win_rates("battle878", players=(2,), n=100)
    f = ex.game_lengths("battle878", n=200, seed=1)
    assert len(f) == 200 and "outcome" in f and f.columns[0] == "game_id"
    assert "rounds" in ex.game_lengths(n=200, seed=1)          # the raid board's length


def _within(k_over_n: float, n: int, p: float) -> bool:
    se = math.sqrt(p * (1 - p) / n)
    return within_k_se(k_over_n, p, se)


def test_lagertha_experiment_matches_the_exact_solver():
    """SEED §9.2 example (defaults: 11 N + 4 B, 3 N + 1 B to Lagertha, v 3 H + 4 T). Each
    army's P(win) is exact from the solver; the two split battles are independent (seeds
    spawned apart), so P(both) = p_main * p_lagertha and P(at least one) = 1 - (1 - p_main)
    (1 - p_lagertha). n = 200,000: SE <= 0.11 pp; every figure within 4 SE of the exact one."""
    from vikingsim.games.battle878.exact import odds

    n = 200_000
    r = ex.lagertha_experiment(n, seed=9)
    eng = {"housecarls": 3, "thegns": 4}
    p1 = odds({**eng, "norsemen": 11, "berserkers": 4, "lagertha": True})["p_vikings_win"]
    pm = odds({**eng, "norsemen": 8, "berserkers": 3})["p_vikings_win"]
    pl = odds({**eng, "norsemen": 3, "berserkers": 1, "lagertha": True})["p_vikings_win"]
    for key, p in (("p_combined_win", p1), ("p_main_win", pm), ("p_lagertha_win", pl),
                   ("p_split_both_win", pm * pl),
                   ("p_split_at_least_one_win", 1 - (1 - pm) * (1 - pl))):
        assert _within(r[key], n, p), (key, r[key], p)
        lo, hi = r[f"{key}_ci"]
        assert lo <= r[key] <= hi
    assert r["mean_split_wins"] == pytest.approx(r["p_main_win"] + r["p_lagertha_win"])


def test_lagertha_runs_use_spawned_seeds(monkeypatch):
    """The combined and the main army share the first spawned seed (common dice); Lagertha's
    battle gets the second (a shared seed would not show in the win rates: the battles
    decorrelate at once, measured correlation < 0.01)."""
    import vikingsim.core.runner as runner

    seen = []
    real = runner.simulate

    def spy(game, n, *, seed, options, **kw):
        seen.append((seed, options["norsemen"]))
        return real(game, n, seed=seed, options=options, **kw)

    monkeypatch.setattr(runner, "simulate", spy)
    pols = ["retreat", "retreat"]                     # retreats: outcomes beyond win / loss
    r = ex.lagertha_experiment(1000, seed=9, policies=pols)
    main, lagertha = ex.spawn_seeds(9, 2)
    assert seen == [(main, 11), (main, 8), (lagertha, 3)]
    # and each split army's share is that run's p_vikings_win (its summary, another path)
    eng = {"housecarls": 3, "thegns": 4}
    for key, run_seed, army in (("p_main_win", main, {"norsemen": 8, "berserkers": 3}),
                                ("p_lagertha_win", lagertha,
                                 {"norsemen": 3, "berserkers": 1, "lagertha": True})):
        s = real("battle878", 1000, seed=run_seed, policies=pols,
                 options={**eng, **army}).summary
        assert r[key] == s["p_vikings_win"], key
        assert s["p_vikings_win"] + s["p_english_win"] < 1             # retreats happened


def test_norsemen_equivalent_by_its_definition():
    # Adding exactly one (or taking two) Norsemen is worth exactly +1 (or -2) Norsemen; a
    # change no Norseman count within max_extra can match gives nan.
    from vikingsim.questions import norsemen_equivalent

    base = {"norsemen": 3, "berserkers": 2, "housecarls": 2, "thegns": 3}
    assert norsemen_equivalent(base, {"norsemen": 4}) == 1.0
    assert norsemen_equivalent(base, {"norsemen": 1}) == -2.0
    assert math.isnan(norsemen_equivalent(base, {"housecarls": 12}, max_extra=1))
    # between whole Norsemen: linear interpolation of the exact odds (Ragnar: 1 < K < 2)
    from vikingsim.games.battle878.exact import odds

    p = [odds({**base, "norsemen": k})["p_vikings_win"] for k in (4, 5)]
    t = odds({**base, "ragnar": True})["p_vikings_win"]
    assert p[0] < t < p[1]
    assert norsemen_equivalent(base, {"ragnar": True}) == pytest.approx(1 + (t - p[0]) /
                                                                      (p[1] - p[0]))
