"""`vikingsim sensitivity raidconquer --params-space experiments/raidconquer_sensitivity.toml`:
the catalog entries (``catalog.card["X"].field``) are sampled into each point's catalog copy,
the games of a point are those of a plain ``simulate`` with that catalog (common seeds), and
the analysis covers every input and headline. A tiny n: this checks the plumbing, not the
indices (their noise share is about 1 at 60 games per point)."""
import json
import math
import tomllib
from pathlib import Path

from vikingsim.cli import main
from vikingsim.core import runner
from vikingsim.studies import sensitivity as S
from vikingsim.studies.dataset import open_study

ROOT = Path(__file__).resolve().parents[1]
SPACE = ROOT / "experiments" / "raidconquer_sensitivity.toml"


def test_the_space_names_invented_catalog_entries():
    space = S.load_space(SPACE, "raidconquer")
    cards = {c["name"]: c for c in tomllib.loads(
        (ROOT / "vikingsim/games/raidconquer/cards.toml").read_text())["card"]}
    assert len(space.inputs) == 8
    for inp in space.inputs:
        assert inp.option == "catalog"
        name = inp.path.split('"')[1]
        assert cards[name].get("assumption") is True            # invented (§12.2), not SEED
        field = inp.path.rsplit(".", 1)[1]
        assert inp.low <= cards[name][field] <= inp.high          # the catalog value inside


def test_tiny_run_plays_each_points_catalog(tmp_path, capsys):
    out = tmp_path / "s"
    assert main(["sensitivity", "raidconquer", "--params-space", str(SPACE), "--samples", "2",
                 "--first-order", "-n", "60", "--seed", "5", "--out", str(out), "--quiet",
                 "--workers", "1", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["points"] == 2 * (8 + 2)
    data = open_study(out)
    m = data.manifest
    names = [i["name"] for i in m["report"]["inputs"]]
    for c in (0, 7):                        # two points: their catalogs hold the sample's values
        cell = m["cells"][c]
        path = S.inputs_folder(out) / cell["files"]["option.catalog"]["path"]
        cards = {x["name"]: x for x in tomllib.loads(path.read_text())["card"]}
        for name, x in zip(names, m["report"]["X"][c]):
            card, field = name.split('"')[1], name.rsplit(".", 1)[1]
            assert cards[card][field] == math.floor(x)
        plain = runner.simulate("raidconquer", 60, seed=m["root_seed"], players=4,
                                options={"catalog": str(path)}, threads=1, keep=False).summary
        assert data.summaries()[c]["win_rate"] == plain["win_rate"]
    idx = S.report_tables(data)["sensitivity indices"]
    assert len(idx) == 8 * 6 and set(idx["input"]) == set(names)
