"""`vikingsim balance --vary OPTION.PATH=LO..HI` (issue 20 §3, cost fitting): a number inside
the TOML file of a file-valued option (Raid & Conquer's catalog, Ragnarok's params) searched
like an option, each setting a derived copy of the base file in ``<out>/inputs/``."""
import json
import tomllib
from pathlib import Path

import pytest

from vikingsim.cli import main
from vikingsim.core.errors import InputError
from vikingsim.games import get
from vikingsim.games.raidconquer.catalog import BUNDLED
from vikingsim.studies import balance as B

BERSERKER = 'catalog.card["Berserker"].cost'


# ---- knobs on file entries (no game played) ------------------------------------------------
def test_catalog_entry_is_an_integer_knob_on_the_bundled_catalog():
    spec = get("raidconquer")
    kb = B.parse_knob(f"{BERSERKER}=1..6", spec.options, spec=spec, base={})
    assert (kb.name, kb.kind, kb.lo, kb.hi, kb.option, kb.path) == \
        (BERSERKER, "int", 1, 6, "catalog", 'card["Berserker"].cost')
    assert Path(kb.base_file) == BUNDLED.resolve() and kb.base_value == 5   # cards.toml


def test_params_entry_of_ragnarok_and_its_derived_file(tmp_path):
    spec = get("tevragnarok")
    kb = B.parse_knob("params.economy.draft_size[0]=3..6", spec.options, spec=spec, base={})
    assert (kb.kind, kb.base_value) == ("int", 4)                      # params.toml [4, 5, 6]
    opts = B.setting_options([kb], {kb.name: 5}, tmp_path)
    data = tomllib.loads(Path(opts["params"]).read_text())
    assert data["economy"]["draft_size"] == [5, 5, 6]
    assert all(type(v) is int for v in data["economy"]["draft_size"])  # ints stay ints
    assert Path(opts["params"]).parent == tmp_path


def test_two_entries_of_one_file_make_one_copy_named_by_content(tmp_path):
    spec = get("raidconquer")
    knobs = [B.parse_knob(t, spec.options, spec=spec, base={}) for t in
             (f"{BERSERKER}=1..6", 'catalog.card["Funeral Pyre"].cost=1..6')]
    a = B.setting_options(knobs, {knobs[0].name: 2, knobs[1].name: 6}, tmp_path)
    b = B.setting_options(knobs, {knobs[0].name: 2, knobs[1].name: 6}, tmp_path)
    cards = {c["name"]: c for c in tomllib.loads(Path(a["catalog"]).read_text())["card"]}
    assert a == b and list(a) == ["catalog"] and len(list(tmp_path.iterdir())) == 1
    assert (cards["Berserker"]["cost"], cards["Funeral Pyre"]["cost"]) == (2, 6)
    assert cards["Shieldmaiden"]["cost"] == 3                          # the rest as it was


def test_base_file_is_the_catalog_given_with_set(tmp_path):
    spec = get("raidconquer")
    mine = tmp_path / "mine.toml"
    mine.write_text(BUNDLED.read_text().replace('name = "Berserker"\npile = "viking"\n'
                                                'copies = 3\ncost = 5',
                                                'name = "Berserker"\npile = "viking"\n'
                                                'copies = 3\ncost = 7'))
    kb = B.parse_knob(f"{BERSERKER}=1..9", spec.options, spec=spec,
                      base={"catalog": str(mine)})
    assert Path(kb.base_file) == mine.resolve() and kb.base_value == 7


@pytest.mark.parametrize("vary, words", [
    ('catalog.card["Nobody"].cost=1..6', "no tables with name = 'Nobody'"),
    ('catalog.card["Berserker"].price=1..6', "no key 'price'"),
    ('catalog.card["Berserker"].abilities=1..6', "only a number can be searched"),
    ('catalog.card["Berserker"].name=1..6', "only a number can be searched"),
    (f"{BERSERKER}=6..6", "need LO < HI"),
    (f"{BERSERKER}=6..1", "need LO < HI"),
    (f"{BERSERKER}=1.5..6", "must be integers"),
    ("catalog.card[Berserker].cost=1..6", "no dotted path"),
    ("max_rounds.x=1..6", "names no file"),
    (f"{BERSERKER}=1..200", "cost"),                    # the catalog loader's range 0-99
])
def test_bad_file_entry_is_one_line_exit_2(vary, words, capsys, tmp_path):
    rc = main(["balance", "raidconquer", "--players", "2", "--target", "win_rate[0]=0.5",
               "--vary", vary, "--out", str(tmp_path / "b"), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and words in err and err.count("\n") == 1, err
    assert not (tmp_path / "b").exists()


# ---- a real search: the shift of a card's cost ----------------------------------------------
#: Seat 0 plays ``raider`` (buys by 2 x Power), seat 1 ``raider(w_power=0)`` (Power is worth
#: nothing to it, so it never buys the Berserker, a 3-Power Viking with no Silver or
#: Influence). Hand argument: only seat 0 buys the Berserker, so every Silver more that it
#: costs is Silver seat 0 cannot spend on anything else, and seat 0's win rate falls as the
#: cost rises (while seat 0 still buys it, cost 1..6: cards.toml's cost is 5). So a low target
#: on seat 0's win rate must choose a higher cost than a high target.
ARGV = ["balance", "raidconquer", "--players", "2", "--policy", "raider", "raider(w_power=0)",
        "--vary", f"{BERSERKER}=1..6", "--budget", "12000", "--trials", "6",
        "--holdout", "4000", "--seed", "7", "--quiet", "--json"]


def _fit(capsys, out, target, *more):
    assert main([*ARGV, "--target", f"win_rate[0]={target}", "--out", str(out), *more]) == 0
    return json.loads(capsys.readouterr().out)


def test_cost_moves_the_way_the_hand_argument_says(capsys, tmp_path):
    low = _fit(capsys, tmp_path / "low", 0.70)
    high = _fit(capsys, tmp_path / "high", 0.90)
    assert low["best"][BERSERKER] > high["best"][BERSERKER]
    assert low["best"][BERSERKER] >= 5 and high["best"][BERSERKER] <= 3
    assert isinstance(low["best"][BERSERKER], int)
    won = [s["holdout"][0]["estimate"] for s in (low, high)]
    assert won[0] < won[1]                     # the held-out games agree with the direction
    files = sorted((tmp_path / "low" / "inputs").iterdir())
    costs = {next(c["cost"] for c in tomllib.loads(f.read_text())["card"]
                  if c["name"] == "Berserker") for f in files}
    assert costs <= set(range(1, 7)) and low["best"][BERSERKER] in costs
    manifest = json.loads((tmp_path / "low" / "holdout" / "study.json").read_text())
    cell = json.dumps(manifest["cells"][0])                           # the cell's own input,
    assert "/inputs/cards-" in cell and '"sha256"' in cell             # hashed like any file


def test_same_json_for_one_and_two_workers_and_after_resume(capsys, tmp_path):
    one = _fit(capsys, tmp_path / "one", 0.80, "--workers", "1")
    two = _fit(capsys, tmp_path / "two", 0.80, "--workers", "2")
    again = _fit(capsys, tmp_path / "one", 0.80, "--workers", "1", "--resume")
    for s in (one, two, again):
        s.pop("folder")
    assert one == two == again
    assert (tmp_path / "one" / "balance.json").read_bytes() == \
        (tmp_path / "two" / "balance.json").read_bytes()


def test_resume_reads_the_batches_from_disk(capsys, tmp_path, monkeypatch):
    import vikingsim.studies.run as R

    out = tmp_path / "b"
    first = _fit(capsys, out, 0.80, "--workers", "1")
    tallies = {p: p.read_bytes() for p in out.rglob("*.tally.json")}
    play, played = R.play_chunk, []

    def no_game_in_out(task):                 # the one probe game runs in a temporary folder
        played.append(task.root)
        assert out not in Path(task.root).parents, "a batch was played again on --resume"
        return play(task)

    monkeypatch.setattr(R, "play_chunk", no_game_in_out)
    again = _fit(capsys, out, 0.80, "--workers", "1", "--resume")
    assert again == first and len(played) == 1
    assert {p: p.read_bytes() for p in out.rglob("*.tally.json")} == tallies


def test_report_shows_the_entry_values_not_the_file_names(capsys, tmp_path):
    from vikingsim.studies.dataset import open_study

    s = _fit(capsys, tmp_path / "b", 0.80, "--workers", "1")
    assert main(["report", str(tmp_path / "b"), "--quiet"]) == 0             # the hold-out
    assert main(["report", str(tmp_path / "b" / "batch-0000"), "--quiet"]) == 0
    hold = open_study(tmp_path / "b" / "holdout")
    cells = next(iter(B.report_tables(hold).values()))
    assert cells.loc[0, BERSERKER] == s["best"][BERSERKER]
    assert BERSERKER in B.report_findings(hold)[0]
    assert B.report_figures(open_study(tmp_path / "b" / "batch-0000"), tmp_path / "f")[0].exists()


def test_a_catalog_given_with_catalog_is_the_base_of_the_search(capsys, tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text(BUNDLED.read_text().replace('copies = 3\ncost = 5\npower = 3',
                                                'copies = 3\ncost = 7\npower = 3'))
    argv = [a for a in ARGV if a != f"{BERSERKER}=1..6"]
    at = argv.index("--vary")
    argv[at + 1:at + 1] = [f"{BERSERKER}=4..9"]
    assert main([*argv, "--target", "win_rate[0]=0.8", "--catalog", str(mine), "--baseline",
                 "--out", str(tmp_path / "b"), "--budget", "2400", "--holdout", "500"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["vary"][0]["base_value"] == 7 and s["options"]["catalog"] == str(mine)
    hold = json.loads((tmp_path / "b" / "holdout" / "study.json").read_text())
    base_cell = hold["cells"][1]["label"]                  # the baseline: mine.toml's cost 7
    path = base_cell.split("catalog=")[1].split()[0]
    cards = tomllib.loads(Path(path).read_text())["card"]
    assert next(c["cost"] for c in cards if c["name"] == "Berserker") == 7


def test_dask_plays_the_derived_files_with_the_same_result(capsys, tmp_path, dask_cluster):
    local = _fit(capsys, tmp_path / "local", 0.80, "--workers", "1")
    dask = _fit(capsys, tmp_path / "dask", 0.80, "--backend", "dask", "--scheduler",
                dask_cluster.scheduler_address)
    for s in (local, dask):
        s.pop("folder")
    assert dask == local
    assert sorted(p.name for p in (tmp_path / "dask" / "inputs").iterdir()) == \
        sorted(p.name for p in (tmp_path / "local" / "inputs").iterdir())
