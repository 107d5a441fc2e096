"""Shared machinery: options, intervals, runner input checks, results files."""
import json
import math

import numpy as np
import pandas as pd
import pytest

from vikingsim.core import stats
from vikingsim.core.errors import InputError
from vikingsim.core.options import Option, parse_assignments, resolve
from vikingsim.core.results import read_results
from vikingsim.core.runner import simulate


def test_option_conversion_and_errors():
    o = Option("k", "int", 3, lo=1, hi=5)
    assert o.convert("4") == 4 and o.convert(2) == 2
    for bad in ("x", "6", "0", True, 2.5, "2.0"):
        with pytest.raises(InputError, match="k="):
            o.convert(bad)
    b = Option("f", "bool", False)
    assert b.convert("true") is True and b.convert("0") is False
    with pytest.raises(InputError):
        b.convert("maybe")
    c = Option("v", "choice", "a", choices=("a", "b"))
    assert c.convert("b") == "b"
    with pytest.raises(InputError, match="one of a, b"):
        c.convert("z")


def test_resolve_rejects_unknown_option():
    with pytest.raises(InputError, match="unknown option 'nope'.*allowed: k"):
        resolve("g", (Option("k", "int", 1),), {"nope": 1})
    assert resolve("g", (Option("k", "int", 1),), None) == {"k": 1}
    with pytest.raises(InputError):
        parse_assignments(["novalue"])


def test_wilson_interval_known_values():
    # Wilson 95% for 0/10 is [0, 0.2775] and for 5/10 [0.2366, 0.7634] (textbook values).
    lo, hi = stats.wilson(0, 10)
    assert lo == 0 and abs(hi - 0.2775) < 1e-4
    lo, hi = stats.wilson(5, 10)
    assert abs(lo - 0.2366) < 1e-4 and abs(hi - 0.7634) < 1e-4


def test_paired_diff():
    d = stats.paired_diff(np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 1.0]))
    assert d["diff"] == 1.0 and math.isclose(d["se"], 1 / math.sqrt(3))


@pytest.mark.parametrize("kw, match", [
    (dict(n=0), "n must be"), (dict(n=2.5), "n must be"), (dict(seed=-1), "seed must be"),
    (dict(threads=0), "threads"), (dict(players=9), "2 to 8 players"),
    (dict(policies=["greedy", "nope"], players=2), "unknown policy 'nope'"),
    (dict(policies=["greedy"] * 3, players=4), "3 policies given for 4 players"),
    (dict(options={"variant": "flat"}), "variant"),
    (dict(options={"target_gold": 10}), "target_gold"),
])
def test_runner_rejects_bad_input(kw, match):
    with pytest.raises(InputError, match=match):
        simulate("raidboard", **{"n": 10, **kw})


def test_unknown_game():
    with pytest.raises(InputError, match="unknown game 'chess'; allowed: raidboard"):
        simulate("chess", n=10)


def test_parquet_and_manifest_round_trip(tmp_path):
    r = simulate("raidboard", n=500, seed=3, players=3, options={"variant": "ends-of-earth"})
    path = r.to_parquet(tmp_path / "run.parquet", with_options=True)
    df, manifest = read_results(path)
    assert len(df) == 500 and list(df["game_id"]) == list(range(500))
    assert manifest["seed"] == 3 and manifest["options"]["variant"] == "ends-of-earth"
    assert manifest["options"]["start_gold"] == 20 and manifest["n"] == 500
    assert len(manifest["rules_hash"]) == 16 and manifest["versions"]["numpy"]
    assert (df["rule_variant"] == "ends-of-earth").all() and (df["policy_0"] == "greedy").all()
    pd.testing.assert_frame_equal(df[r.frame.columns], r.frame, check_dtype=False)
    assert not list(tmp_path.glob("*.tmp"))
    json.dumps(manifest)


def test_rules_hash_changes_with_options():
    from vikingsim.core.results import rules_hash
    assert rules_hash("raidboard", {"a": 1}) != rules_hash("raidboard", {"a": 2})


def test_read_results_refuses_file_without_manifest(tmp_path):
    pd.DataFrame({"a": [1]}).to_parquet(tmp_path / "x.parquet")
    with pytest.raises(InputError, match="no embedded vikingsim manifest"):
        read_results(tmp_path / "x.parquet")
    with pytest.raises(InputError, match="no such file"):
        read_results(tmp_path / "missing.parquet")


@pytest.mark.parametrize("game", ["raidboard", "battle878", "ravenfeast"])
def test_sliced_frames_write_the_same_file_as_one_frame(game, tmp_path):
    from vikingsim.core.results import write_results

    r = simulate(game, n=1000, seed=4)
    parts = list(r.iter_frames(rows=300, with_options=True))
    assert [len(p) for p in parts] == [300, 300, 300, 100]
    whole = r.frame_with_options()
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole)
    write_results(r.iter_frames(rows=128), tmp_path / "x.parquet", manifest=r.manifest)
    back, manifest = read_results(tmp_path / "x.parquet")
    pd.testing.assert_frame_equal(back, r.frame, check_dtype=False, check_categorical=False)
    assert manifest["n_rows"] == 1000
