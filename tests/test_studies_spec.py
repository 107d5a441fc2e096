"""Study files -> cells: ranges, lists, cases, policy knobs and relative paths (expected values
written by hand from the file format in vikingsim/studies/spec.py)."""
import pytest

from vikingsim.core.errors import InputError
from vikingsim.studies.plan import chunk_size, plan_cells, plan_chunks
from vikingsim.studies.spec import load_study
from tests.test_studies_run import write


def cells_of(tmp_path, text):
    return plan_cells(load_study(write(tmp_path, text)))


def test_ranges_lists_and_cases_make_the_product_in_file_order(tmp_path):
    cells = cells_of(tmp_path, """
        game = "raidboard"
        games = 10
        seed = 1
        [grid]
        start_gold = {from = 0, to = 40, step = 20}
        variant = ["circular", "ends-of-earth"]
        [[cases]]
        players = 2
        [[cases]]
        players = 3
        first_seat = 2
        """)
    assert len(cells) == 3 * 2 * 2
    assert [c.label for c in cells[:4]] == [
        "start_gold=0 variant=circular players=2",
        "start_gold=0 variant=circular players=3 first_seat=2",
        "start_gold=0 variant=ends-of-earth players=2",
        "start_gold=0 variant=ends-of-earth players=3 first_seat=2"]
    assert [c.options["start_gold"] for c in cells[::4]] == [0, 20, 40]
    assert cells[1].options["first_seat"] == 2 and cells[0].options["first_seat"] == 0
    assert cells[-1].grid == {"start_gold": 40, "variant": "ends-of-earth", "players": 3,
                              "first_seat": 2}
    assert [c.cell for c in cells] == list(range(12))


def test_float_range_and_default_step(tmp_path):
    from vikingsim.studies.spec import _range

    assert _range("x", {"from": 0.5, "to": 1.0, "step": 0.25}) == [0.5, 0.75, 1.0]
    assert _range("x", {"from": 3, "to": 6}) == [3, 4, 5, 6]
    assert _range("x", {"from": 0, "to": 1, "step": 0.3}) == [0, 0.3, 0.6, 0.9]
    with pytest.raises(InputError, match="at most 1000"):
        _range("x", {"from": 0, "to": 5000})


def test_policy_knobs(tmp_path):
    cells = cells_of(tmp_path, """
        game = "raidboard"
        games = 10
        seed = 1
        players = 3
        policies = ["greedy", "lookahead", "lookahead"]
        [grid]
        "policy.0" = ["greedy", "random"]
        "policy.2.settle_value" = [7]
        """)
    assert cells[0].policies == ("greedy", "lookahead", "lookahead(settle_value=7.0)")
    assert cells[1].policies == ("random", "lookahead", "lookahead(settle_value=7.0)")
    every = cells_of(tmp_path, """
        game = "raidboard"
        games = 10
        seed = 1
        players = 2
        policies = "lookahead"
        [grid]
        "policy.miss_cost" = [3]
        """)
    assert every[0].policies == ("lookahead(miss_cost=3.0)",) * 2
    with pytest.raises(InputError, match="has no parameter"):
        cells_of(tmp_path, 'game = "raidboard"\ngames = 1\nseed = 1\n[grid]\n'
                           '"policy.settle_value" = [1]\n')


def test_relative_toml_paths_are_read_beside_the_study_file(tmp_path):
    (tmp_path / "wb").mkdir()
    (tmp_path / "wb" / "two.toml").write_text('[[figures]]\ntype = "hirdmen"\ncount = 2\n')
    cells = cells_of(tmp_path, """
        game = "ravenfeast"
        games = 10
        seed = 1
        [options]
        mode = "warband"
        a = "wb/two.toml"
        b = "bondi*3"
        """)
    assert cells[0].options["a"] == "wb/two.toml"                      # recorded as written
    assert cells[0].run_options["a"] == str(tmp_path / "wb" / "two.toml")


def test_chunks_are_whole_rng_blocks(tmp_path):
    from vikingsim.games import get

    spec = get("raidboard")                        # 4096-game blocks
    assert chunk_size(spec, 1) == 4096 and chunk_size(spec, 4097) == 8192
    cell = cells_of(tmp_path, 'game = "raidboard"\ngames = 10000\nseed = 1\n')[0]
    assert [(c.first_game, c.games) for c in plan_chunks(cell, 4096)] == \
        [(0, 4096), (4096, 4096), (8192, 1808)]


def test_study_from_dict_reads_like_the_same_file(tmp_path):
    """A generated study (tournament, balance, importance, ladder) is checked like a file and
    keeps its TOML text; the same keys written by hand give the same study."""
    from vikingsim.studies.spec import load_study, study_from_dict

    data = {"name": "gen", "game": "raidboard", "games": 100, "seed": 5, "common_seeds": True,
            "cases": [{"policy.0": "random"}, {"policy.0": "greedy"}]}
    made = study_from_dict(data, tmp_path / "gen.toml")
    (tmp_path / "gen.toml").write_text(made.text)
    read = load_study(tmp_path / "gen.toml")
    assert made == read and made.common_seeds and len(made.cases) == 2
    with pytest.raises(InputError, match="unknown key 'gmaes'"):
        study_from_dict({**data, "gmaes": 1}, tmp_path / "gen.toml")
