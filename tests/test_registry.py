"""Shared suite: every registered game, in its default configuration (style rule 11.4-11.5).

A game enrols by its registry entry; these checks need nothing game-specific."""
import json

import numpy as np
import pytest

from vikingsim.core.runner import simulate
from vikingsim.games import get, names

GAMES = names()


def _configs(name):
    spec = get(name)
    return [{}] + [dict(c) for c in spec.bench_configs]


CASES = [(g, c) for g in GAMES for c in _configs(g)]
IDS = [f"{g}-{'-'.join(map(str, c.values())) or 'default'}" for g, c in CASES]


@pytest.mark.parametrize("game, options", CASES, ids=IDS)
def test_same_results_for_any_threads_and_chunking(game, options):
    spec = get(game)
    n = 2 * spec.block_games + 7              # three RNG blocks, the last one short
    a = simulate(game, n, seed=12, options=options, threads=1)
    b = simulate(game, n, seed=12, options=options, threads=2, chunk_blocks=2)
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)
    short = simulate(game, 1000, seed=12, options=options, threads=2)   # prefix property
    for key in a.out:
        np.testing.assert_array_equal(short.out[key], a.out[key][:1000], err_msg=key)


@pytest.mark.parametrize("game, options", CASES, ids=IDS)
def test_kernel_equals_reference_in_default_configuration(game, options):
    a = simulate(game, 300, seed=3, options=options)
    b = simulate(game, 300, seed=3, options=options, reference=True)
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


@pytest.mark.parametrize("game", GAMES)
def test_summary_frame_and_manifest_shapes(game, tmp_path):
    r = simulate(game, 500, seed=1)
    s = r.summary
    json.dumps(s, allow_nan=True)
    assert s["n"] == 500 and s["game"] == game
    for key, val in s.items():                       # every fraction comes with an interval
        if key.startswith("p_") and not key.endswith("_ci") and not key.endswith("_se"):
            lo, hi = s[f"{key}_ci"]
            assert 0 <= lo <= val <= hi <= 1, key
    f = r.frame
    assert len(f) == 500 and f.columns[0] == "game_id"
    assert (f["game_id"].to_numpy() == np.arange(500)).all()
    path = r.to_parquet(tmp_path / f"{game}.parquet")
    m = json.loads((tmp_path / f"{game}.manifest.json").read_text())
    assert m["rng_scheme"].endswith(f"block={get(game).block_games} games") and path.exists()


@pytest.mark.parametrize("game", GAMES)
def test_every_policy_runs(game):
    spec = get(game)
    for pol in spec.policies:
        opts = {}
        if game == "ravenfeast" and pol != "default":
            opts = {"mode": "warband"}                   # duels make no choices
        try:
            r = simulate(game, 200, seed=2, policies=pol, options=opts)
        except Exception as e:                             # a policy valid for one side only
            from vikingsim.core.errors import InputError
            assert isinstance(e, InputError), (pol, e)
            continue
        assert len(r.frame) == 200
