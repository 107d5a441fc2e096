"""Shared suite: every registered game, in its default configuration (style rule 11.4-11.5).

A game enrols by its registry entry; these checks need nothing game-specific."""
import json

import numpy as np
import pytest

from vikingsim.core.runner import simulate
from vikingsim.games import get, names

GAMES = names()


def _configs(name):
    """Default, bench and game-id configurations, each once (a bench configuration may be
    the default: raidconquer's)."""
    spec = get(name)
    out = [{}]
    for c in [dict(c) for c in spec.bench_configs] + [{k: v} for k, v in
                                                        spec.game_id_options.items()]:
        if c not in out:
            out.append(c)
    return out


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
    c = simulate(game, n, seed=12, options=options, threads=1,        # one block a segment
                 segment_games=spec.block_games, keep=True)
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], c.out[key], err_msg=key)


GAME_ID_CASES = [(g, k, v) for g in GAMES for k, v in get(g).game_id_options.items()]


@pytest.mark.parametrize("game, name, value", GAME_ID_CASES,
                         ids=[f"{g}-{k}" for g, k, _ in GAME_ID_CASES])
def test_game_id_options_use_the_global_game_id(game, name, value):
    """An option that varies games by their id (``GameSpec.game_id_options``) reads the run's
    global id: a study's cell played as one chunk or as one chunk per RNG block
    (``runner.play_games``, as ``vikingsim experiment`` does), and a run cut into segments of
    one block or of the default size, give the same games; and the option does change them."""
    from vikingsim.core.options import resolve
    from vikingsim.core.runner import play_games, resolve_policies

    spec = get(game)
    bg = spec.block_games
    n = 3 * bg
    pols, players = resolve_policies(spec, None, None)
    setup = spec.setup(resolve(game, spec.options, {name: value}), pols, players)
    whole = play_games(spec, setup, 12, 0, n, spec.allocate(setup, n), spawn_prefix=(4,))
    parts = spec.allocate(setup, n)
    for g0 in range(0, n, bg):
        chunk = play_games(spec, setup, 12, g0, g0 + bg, spec.allocate(setup, bg),
                           spawn_prefix=(4,))
        for key in parts:
            parts[key][g0:g0 + bg] = chunk[key]
    for key in whole:
        np.testing.assert_array_equal(whole[key], parts[key], err_msg=key)
    one = simulate(game, n, seed=12, options={name: value}, segment_games=bg, keep=True)
    big = simulate(game, n, seed=12, options={name: value}, keep=True)
    off = simulate(game, n, seed=12, keep=True)
    assert any(not np.array_equal(big.out[k], off.out[k]) for k in big.out)
    for key in big.out:
        np.testing.assert_array_equal(one.out[key], big.out[key], err_msg=key)


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


#: A search player's budget parameters: each of its decisions plays this many rollouts (or
#: iterations) per option, each a whole game to its end.
SEARCH_BUDGETS = ("rollouts", "budget")


def _small_search(game, name):
    """``(policy text, games)`` for ``test_every_policy_runs``: a search player at budget 2
    (the smallest that selects among visited options) for 20 games, since its search code
    runs the same way at any budget (at the defaults, 200 games of Ragnarok's two search
    players took 200 s of the suite's 1,900 s of CPU) and each game's search suite
    (``test_<game>_search.py``) checks it move by move against the reference; any other
    policy as named, for 200 games."""
    from vikingsim.core import policies

    opts = policies.param_options(get(game).policy_types[name]) \
        if name in get(game).policy_types else {}
    small = [f"{o.name}={o.lo + 1}" for o in opts.values() if o.name in SEARCH_BUDGETS]
    return (f"{name}({', '.join(small)})", 20) if small else (name, 200)


@pytest.mark.parametrize("game", GAMES)
def test_every_policy_runs(game):
    spec = get(game)
    for pol in spec.policies:
        opts = {}
        if game == "ravenfeast" and pol != "default":
            opts = {"mode": "warband"}                   # duels make no choices
        text, n = _small_search(game, pol)
        try:
            r = simulate(game, n, seed=2, policies=text, options=opts)
        except Exception as e:                             # a policy valid for one side only
            from vikingsim.core.errors import InputError
            assert isinstance(e, InputError), (pol, e)
            continue
        assert len(r.frame) == n


# --- the game contract: one outcome vocabulary, trace and invariants for every game -------

@pytest.mark.parametrize("game, options", CASES, ids=IDS)
def test_frame_and_summary_speak_the_outcome_vocabulary(game, options):
    """Every frame has game_id, outcome (categorical over GAME.outcomes) and truncated; every
    summary has p_<outcome> with its interval for each outcome, summing to 1; seated games
    also have winner, per-seat columns and win_rate per seat (plus truncated = 1)."""
    spec = get(game)
    assert spec.outcomes and spec.outcomes[-1] == "truncated", spec.outcomes
    r = simulate(game, 2000, seed=21, options=options)
    f, s = r.frame, r.summary
    assert list(f.columns[:1]) == ["game_id"] and str(f["game_id"].dtype) == "int64"
    assert list(f["outcome"].cat.categories) == list(spec.outcomes)
    assert f["truncated"].dtype == bool
    assert (f["truncated"] == (f["outcome"] == "truncated")).all()
    total = 0.0
    for o in spec.outcomes:
        k = int((f["outcome"] == o).sum())
        assert s[f"p_{o}"] == k / 2000, o
        lo, hi = s[f"p_{o}_ci"]
        assert lo <= s[f"p_{o}"] <= hi, o
        total += s[f"p_{o}"]
    assert abs(total - 1) < 1e-12
    if spec.seated:
        players = r.players
        assert set(f["winner"].unique()) <= set(range(-1, players))
        assert ((f["winner"] == -1) == f["truncated"]).all()
        assert len(s["win_rate"]) == len(s["win_rate_ci"]) == players
        for seat in range(players):
            assert s["win_rate"][seat] == (f["winner"] == seat).mean()
        assert abs(sum(s["win_rate"]) + s["p_truncated"] - 1) < 1e-12
        assert any(c.endswith(f"_{players - 1}") for c in f.columns)


@pytest.mark.parametrize("game, options", CASES, ids=IDS)
def test_invariants_hold_on_many_random_games(game, options):
    spec = get(game)
    assert spec.invariants is not None, f"{game} declares no invariants"
    from vikingsim.core.errors import InputError

    try:                                   # random choices reach the most states
        r = simulate(game, 5000, seed=22, options=options, policies="random")
    except InputError:                     # no such policy here (a duel makes no choices)
        r = simulate(game, 5000, seed=22, options=options)
    assert spec.invariants(r.setup, r.out) == []


@pytest.mark.parametrize("game, options", CASES, ids=IDS)
def test_trace_tells_any_game_of_a_seed(game, options):
    spec = get(game)
    r = simulate(game, 10, seed=23, options=options)
    texts = [spec.trace(r.setup, 23, g) for g in (0, 1, 7)]
    assert all(isinstance(t, str) and t.strip() for t in texts)
    assert len(set(texts)) == 3                          # three different games


@pytest.mark.parametrize("game", GAMES)
def test_rules_version_is_declared_and_recorded(game):
    spec = get(game)
    assert isinstance(spec.rules_version, str) and spec.rules_version
    assert simulate(game, 100, seed=1).manifest["rules_version"] == spec.rules_version


@pytest.mark.parametrize("game", GAMES)
def test_parameterised_policies_are_recorded_by_label(game):
    """Every policy with parameters accepts name(param=value) and the label is recorded."""
    from vikingsim.core import policies

    spec = get(game)
    for name, cls in spec.policy_types.items():
        opts = policies.param_options(cls)
        if not opts:
            continue
        o = next(iter(opts.values()))
        value = o.hi if o.kind in ("int", "float") and o.hi is not None else o.default
        if o.name in SEARCH_BUDGETS:               # a search at its top budget plays for
            value = o.lo + 1                       # hours; the label is what is tested here
        text = f"{name}({o.name}={value})"
        label = policies.label(name, policies.build(game, spec.policy_types, text))
        options = {"mode": "warband"} if game == "ravenfeast" else {}
        n = 5 if any(b in opts for b in SEARCH_BUDGETS) else 50   # a search: 5 games
        try:
            r = simulate(game, n, seed=3, policies=text, options=options)
        except Exception as e:
            from vikingsim.core.errors import InputError
            assert isinstance(e, InputError), (text, e)
            continue
        assert r.summary["policies"][0] == label and r.manifest["policies"][0] == label
