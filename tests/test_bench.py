"""vikingsim bench's RNG-limit line: the draw count is right and the loop draws d6."""
import numpy as np

from vikingsim import bench
from vikingsim.core import config, rng
from vikingsim.games import get


def test_counted_draws_are_every_draw_the_reference_made():
    """After the counted games, a fresh Generator advanced by the counted number of draws is
    exactly where the engine's Generator is: no draw was missed or double counted."""
    spec = get("raidboard")
    dice, pol = bench.draws_per_game(spec, {}, n=50)
    fresh = rng.block_generator(config.SEED, rng.STREAM_DICE, 0)
    used = rng.block_generator(config.SEED, rng.STREAM_DICE, 0)
    counted = bench._CountingGenerator(used)
    from vikingsim.core.options import resolve
    setup = spec.setup(resolve(spec.name, spec.options, {}), ["greedy"] * 4, 4)
    spec.reference_block(setup, 0, 50, counted, rng.block_generator(1, 1, 1),
                         spec.allocate(setup, 50))
    assert counted.draws == round(dice * 50) > 50 * 10      # a game rolls dozens of dice
    fresh.random(counted.draws)
    assert fresh.random() == used.random()


def test_d6_loop_draws_fair_dice():
    loop = bench._d6_loop
    total = loop(np.random.default_rng(5), 600_000)
    # mean 3.5, sd of one d6 sqrt(35/12): the sum of 6e5 is within 4 SE of 2.1e6
    assert abs(total - 2_100_000) <= 4 * (35 / 12 * 600_000) ** 0.5


def test_compile_timing_runs_fresh_processes(monkeypatch, capsys):
    """``bench --compile`` plumbing (the child processes start, set up, play, report; plain
    Python here, so nothing is compiled and no figure is checked) and its bad input."""
    from vikingsim.cli import main

    monkeypatch.setenv("VIKINGSIM_DISABLE_JIT", "1")
    rows = bench.bench_compile(["raidboard"])
    assert [r["game"] for r in rows] == ["raidboard"] and rows[0]["players"] == 4
    assert all(rows[0][k] >= 0 for k in ("compile_s", "compile_cpu_s", "cached_s"))
    assert "| raidboard | defaults, 4 players |" in bench.markdown_compile(rows)
    assert main(["bench", "--compile", "--exact"]) == 2
    assert "not both" in capsys.readouterr().err
