"""``vikingsim bench`` on one given configuration (``--set``/``--players``/``--policy``) and on
the exact solvers (``--exact``): what the former bench scripts measured. Shapes and errors
only; speed figures come from the command, never from tests."""
import pytest

from vikingsim import bench
from vikingsim.core.errors import InputError


def test_one_given_configuration_is_benched_with_its_policies():
    rows = bench.bench(["raidboard"], seconds=0.05, repeats=1, players=3,
                       options={"variant": "ends-of-earth"},
                       policies=["lookahead(settle_value=10)"])
    (r,) = rows
    assert r["options"] == {"variant": "ends-of-earth"} and r["players"] == 3
    assert r["policies"] == ["lookahead(settle_value=10.0)"] * 3
    assert r["kernel_1t"] > 0 and r["reference"] > 0 and r["policy_draws_per_game"] == 0
    text = bench.markdown_table(rows)
    assert "variant=ends-of-earth, 3 players, policies lookahead(settle_value=10.0)" in text
    assert "machine: " in text


def test_exact_solver_timings():
    rows = bench.bench_exact(["battle878"], repeats=2, options={"norsemen": 2, "thegns": 1})
    (r,) = rows
    assert r["calls"] == 2 and 0 < r["median_s"] <= r["max_s"] and r["first_call_s"] > 0
    assert "| battle878 | norsemen=2, thegns=1 |" in bench.markdown_exact(rows)


def test_a_configuration_the_solver_refuses_is_reported_not_raised():
    rows = bench.bench_exact(["battle878"], repeats=1, options={"epic_card": "traitors"})
    assert "error" in rows[0] and "traitors" in rows[0]["error"]


@pytest.mark.parametrize("args, needle", [
    (["raidboard", "--exact"], "raidboard has no exact solver; games with one:"),
    (["--set", "norsemen=2"], "name exactly one game"),
    (["battle878", "--exact", "--policy", "greedy"], "takes no --players or --policy"),
    (["raidboard", "--set", "nope=1"], "unknown option 'nope'"),
])
def test_bad_bench_input_is_one_line_exit_2(args, needle, cli):
    p = cli("bench", *args)
    assert p.returncode == 2 and needle in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_api_refuses_a_configuration_for_several_games():
    with pytest.raises(InputError, match="exactly one game"):
        bench.bench(["raidboard", "battle878"], options={"start_gold": 5})


def test_a_slow_configuration_is_sized_from_a_few_games(monkeypatch):
    """A search seat plays thousands of times fewer games/s than a scripted one: the sizing
    grows from a few games, so no call plays far more games than the timed size (it used to
    start at 20,000 kernel games, 50 reference games and count draws on 200 reference games:
    minutes for Raid & Conquer's ``ismcts``), and a timing of one RNG block is flagged."""
    from vikingsim.core import runner

    asked = {False: [], True: []}
    real = runner.simulate

    def spy(spec, n, **kw):
        asked[kw["reference"]].append(n)
        return real(spec, n, **kw)
    counted = []
    real_draws = bench.draws_per_game
    monkeypatch.setattr(runner, "simulate", spy)
    monkeypatch.setattr(bench, "draws_per_game", lambda spec, options, n=200, **kw:
                        counted.append(n) or real_draws(spec, options, n, **kw))
    (r,) = bench.bench(["raidboard"], seconds=0.2, repeats=1, players=4,
                       policies=["ismcts(budget=256)"] + ["greedy"] * 3)
    # about 4,000 games/s of CPU: some 800 games timed, 20,000 before; 8x leaves room for a
    # probe slowed by the shared machine (the last probe is at most 4x the timed size)
    assert max(asked[False]) <= 8 * r["n_kernel"] and max(asked[True]) <= 8 * r["n_reference"]
    assert counted == [min(200, 4 * r["n_reference"])]
    assert r["blocks_2t"] == 1 and r["first_call_s"] > 0
    assert "One RNG block timed" in bench.markdown_table([r])
