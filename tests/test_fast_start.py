"""A fast start (issue 19 §4): ``import vikingsim``, ``vikingsim --version`` and
``vikingsim games`` import none of the heavy libraries a plain run does not use. Checked by
the modules a fresh interpreter holds afterwards, never by a time."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Never imported by these three. ``scipy`` itself (the bare package, a few ms) is imported by
#: numba's own version check when the games' kernels are declared, so ``games`` may hold it;
#: ``import vikingsim`` and ``--version`` load no numba and so no scipy at all.
HEAVY = ("scipy.stats", "statsmodels", "dask", "distributed", "optuna", "matplotlib",
         "pyarrow", "pandas")
LIGHT = HEAVY + ("scipy", "numba")

RUN = """
import json, runpy, sys
sys.argv = ["vikingsim", *{args!r}]
try:
    runpy.run_module("vikingsim", run_name="__main__")
except SystemExit as e:
    assert e.code in (0, None), e.code
json.dump(sorted(sys.modules), open(OUT, "w"))
"""


def modules_after(tmp_path, code: str) -> set:
    out = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-c", code.replace("OUT", repr(str(out)))],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return set(json.loads(out.read_text()))


def heavy_in(mods: set, names) -> list:
    return [n for n in names if n in mods or any(m.startswith(n + ".") for m in mods)]


def test_import_vikingsim_is_light(tmp_path):
    mods = modules_after(tmp_path, "import json, sys, vikingsim\n"
                                   "json.dump(sorted(sys.modules), open(OUT, 'w'))")
    assert "vikingsim" in mods and heavy_in(mods, LIGHT) == []


@pytest.mark.parametrize("args,forbidden", [(["--version"], LIGHT), (["games"], HEAVY)],
                         ids=["--version", "games"])
def test_light_commands_import_no_heavy_library(tmp_path, args, forbidden):
    mods = modules_after(tmp_path, RUN.format(args=args))
    assert heavy_in(mods, forbidden) == []
    if args == ["games"]:
        assert "vikingsim.games.tevragnarok" in mods          # it did list the games


def test_public_names_load_on_first_use():
    import vikingsim
    from vikingsim.core import results, runner

    assert vikingsim.simulate is runner.simulate and vikingsim.Result is results.Result
    assert vikingsim.read_results is results.read_results
    assert callable(vikingsim.stats.interval) and callable(vikingsim.questions.seat_win_rates)
    assert set(vikingsim.__all__) <= set(dir(vikingsim))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        vikingsim.nothing
