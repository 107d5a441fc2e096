"""Files that options and policies name (issue 19 §3): their bytes enter the results manifest,
the rules hash and the study hash, and ``--resume`` refuses a study whose file was edited.

The command-line runs go through ``vikingsim.cli.main`` in this process (``run_cli`` of
``tests/conftest.py``, a few games on the default kernels): what is checked is the
bookkeeping, not the kernels."""
import hashlib
import json
import textwrap
from pathlib import Path

import pytest

from vikingsim.core.errors import InputError
from vikingsim.core.inputs import changed_file, file_records, names_file
from vikingsim.core.results import rules_hash
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
CARDS = ROOT / "vikingsim" / "games" / "raidconquer" / "cards.toml"


def cli(*args):
    return run_cli(*map(str, args))


def sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_rules_hash_without_files_is_the_formula_it_always_had():
    """Runs that name no file keep their hashes: the documented payload, hashed by hand."""
    opts = {"a": 1, "b": "x"}
    text = json.dumps({"game": "g", "rules_version": "7", "options": opts}, sort_keys=True)
    old = hashlib.sha256(text.encode()).hexdigest()[:16]
    assert rules_hash("g", opts, "7") == rules_hash("g", opts, "7", {}) == old


def test_rules_hash_follows_the_bytes_of_the_files():
    opts = {"catalog": "c.toml"}
    one = {"option.catalog": {"path": "c.toml", "sha256": "1" * 64}}
    two = {"option.catalog": {"path": "c.toml", "sha256": "2" * 64}}
    assert len({rules_hash("g", opts, "7"), rules_hash("g", opts, "7", one),
                rules_hash("g", opts, "7", two)}) == 3


def test_which_values_name_files(tmp_path):
    assert names_file("w.toml") and names_file(" W.TOML ") and not names_file("hirdmen10")
    assert not names_file("default") and not names_file(3) and not names_file(None)
    f = tmp_path / "p.toml"
    f.write_bytes(b"name = 'greedy'\n")
    recs = file_records({"a": str(f), "b": "jarl", "n": 3}, [str(f), "greedy"])
    assert recs == {"option.a": {"path": str(f), "sha256": sha(f)},
                    "policy.0": {"path": str(f), "sha256": sha(f)}}
    assert file_records({"a": "jarl"}, ["greedy"]) == {}
    with pytest.raises(InputError, match="cannot read"):
        file_records({"a": str(tmp_path / "missing.toml")})


def test_changed_file_names_the_edited_file():
    old = {"option.a": {"path": "w.toml", "sha256": "1" * 64}}
    assert changed_file(old, old) is None
    why = changed_file(old, {"option.a": {"path": "w.toml", "sha256": "2" * 64}})
    assert "w.toml" in why and "changed" in why


def test_simulate_out_manifest_records_the_catalog_file(tmp_path):
    copy = tmp_path / "my_cards.toml"
    copy.write_bytes(CARDS.read_bytes())
    out = tmp_path / "r.parquet"
    p = cli("simulate", "raidconquer", "-n", 4, "--catalog", copy, "--out", out, "--quiet")
    assert p.returncode == 0, p.stderr
    m = json.loads(out.with_name("r.manifest.json").read_text())
    assert m["files"] == {"option.catalog": {"path": str(copy), "sha256": sha(CARDS)}}
    assert m["rules_hash"] == rules_hash("raidconquer", m["options"], m["rules_version"],
                                         m["files"])
    assert m["rules_hash"] != rules_hash("raidconquer", m["options"], m["rules_version"])


def test_simulate_out_manifest_records_policy_files_and_no_files_key_without_them(tmp_path):
    pol = tmp_path / "pol.toml"
    pol.write_text('name = "lookahead"\n')
    out = tmp_path / "p.parquet"
    p = cli("simulate", "raidboard", "-n", 4, "--players", 2, "--policy", pol, "greedy",
            "--out", out, "--quiet")
    assert p.returncode == 0, p.stderr
    m = json.loads(out.with_name("p.manifest.json").read_text())
    assert m["files"] == {"policy.0": {"path": str(pol), "sha256": sha(pol)}}
    plain = tmp_path / "q.parquet"
    assert cli("simulate", "raidboard", "-n", 4, "--out", plain, "--quiet").returncode == 0
    m = json.loads(plain.with_name("q.manifest.json").read_text())
    assert "files" not in m
    assert m["rules_hash"] == rules_hash("raidboard", m["options"], m["rules_version"])


STUDY = """
name = "cards"
game = "raidconquer"
games = 4
seed = 5
chunk_games = 4096
[options]
catalog = "my_cards.toml"
"""


def test_resume_refuses_after_the_catalog_was_edited(tmp_path, monkeypatch):
    """A catalog path relative to the study file; its bytes in the cell's manifest entry;
    an unchanged file resumes, an edited one (even a comment) is one line, exit 2."""
    monkeypatch.chdir(ROOT)                 # not the study's folder
    copy = tmp_path / "my_cards.toml"
    copy.write_bytes(CARDS.read_bytes())
    study = tmp_path / "cards.toml"
    study.write_text(textwrap.dedent(STUDY))
    out = tmp_path / "out"
    first = cli("experiment", study, "--out", out, "--quiet")
    assert first.returncode == 0, first.stderr
    cell = json.loads((out / "study.json").read_text())["cells"][0]
    assert cell["files"] == {"option.catalog": {"path": "my_cards.toml", "sha256": sha(CARDS)}}
    again = cli("experiment", study, "--out", out, "--resume", "--quiet")
    assert again.returncode == 0, again.stderr
    copy.write_text(CARDS.read_text() + "# a comment is an edit too\n")
    p = cli("experiment", study, "--out", out, "--resume", "--quiet")
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, p.stderr
    assert "cannot resume" in lines[0] and "my_cards.toml" in lines[0]
    assert "has changed" in lines[0]


def test_a_studys_policy_files_are_read_beside_it_and_recorded(tmp_path, monkeypatch):
    """``policies`` and a ``policy.<seat>`` knob naming files relative to the study file (read
    there whatever the working folder); every seat that names one has its record."""
    from vikingsim.studies.plan import plan_cells, study_hash
    from vikingsim.studies.spec import load_study

    (tmp_path / "pol.toml").write_text('name = "lookahead"\n')
    (tmp_path / "rnd.toml").write_text('name = "random"\n')
    study = tmp_path / "s.toml"
    study.write_text('name = "p"\ngame = "raidboard"\ngames = 4\nseed = 1\nplayers = 3\n'
                     'policies = ["pol.toml", "greedy", "greedy"]\n'
                     '[grid]\n"policy.2" = ["greedy", "rnd.toml"]\n')
    monkeypatch.chdir(ROOT)
    cells = plan_cells(load_study(study))
    pol = {"path": "pol.toml", "sha256": sha(tmp_path / "pol.toml")}
    assert cells[0].files == {"policy.0": pol}
    assert cells[1].files == {"policy.0": pol, "policy.2": {"path": "rnd.toml",
                                                            "sha256": sha(tmp_path / "rnd.toml")}}
    assert cells[0].policies == ("lookahead", "greedy", "greedy")
    before = study_hash(load_study(study), cells, 4096, "1")
    (tmp_path / "rnd.toml").write_text('name = "random"\n# edited\n')
    assert study_hash(load_study(study), plan_cells(load_study(study)), 4096, "1") != before
