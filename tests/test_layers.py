"""Layers of the package, read from the source (every import, also those inside functions):
core never imports the games, the study commands import no private helper of ``cli.py``,
``studies/dataset.py`` and ``studies/run.py`` form no import cycle, and every studies module
imports alone in a fresh interpreter."""
import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "vikingsim"


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every import statement in ``path`` (names empty for ``import m``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append((node.module, [a.name for a in node.names]))
            out += [(f"{node.module}.{a.name}", []) for a in node.names]
    return out


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def test_core_never_imports_the_games():
    bad = [f"{p.name}: {m}" for p in (PKG / "core").glob("*.py") for m, _ in _imports(p)
           if m == "vikingsim.games" or m.startswith("vikingsim.games.")]
    assert bad == []


def test_study_commands_import_no_private_helper_of_the_cli():
    bad = [f"{p.name}: {n}" for p in (PKG / "studies").glob("*.py") for m, names in _imports(p)
           if m == "vikingsim.cli" for n in names if n.startswith("_")]
    bad += [f"{p.name}: {m}" for p in (PKG / "studies").glob("*.py") for m, _ in _imports(p)
            if m.startswith("vikingsim.cli._")]
    assert bad == []


def _graph() -> dict[str, set[str]]:
    mods = {_module(p): p for p in PKG.rglob("*.py")}
    mods = {m.removesuffix(".__init__"): p for m, p in mods.items()}
    return {m: {i for i, _ in _imports(p) if i in mods and i != m} for m, p in mods.items()}


def _reaches(graph, start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        if m == goal:
            return True
        if m not in seen:
            seen.add(m)
            todo += graph.get(m, ())
    return False


def test_dataset_and_run_form_no_import_cycle():
    g = _graph()
    assert _reaches(g, "vikingsim.studies.run", "vikingsim.studies.dataset")   # run uses it
    assert not _reaches(g, "vikingsim.studies.dataset", "vikingsim.studies.run")


def test_the_checks_see_imports_inside_functions():
    # the report's page imports the kinds only inside a function
    assert "vikingsim.studies.kinds" in {m for m, _ in _imports(PKG / "studies" / "report" /
                                                                "page.py")}


STUDIES = sorted(_module(p).removesuffix(".__init__") for p in (PKG / "studies").rglob("*.py"))

#: Imports each module with no ``vikingsim`` module loaded (every one dropped from
#: ``sys.modules`` before the next): what a fresh interpreter sees of the package's own imports
#: (order, cycles), in one interpreter instead of one per module. Third-party libraries stay
#: loaded; a module that fails to import them fails here alike.
_ALONE = """
import json, sys, traceback
errors = {}
for module in sys.argv[1:]:
    for name in [m for m in sys.modules if m == "vikingsim" or m.startswith("vikingsim.")]:
        del sys.modules[name]
    try:
        __import__(module)
    except BaseException:
        errors[module] = traceback.format_exc()
print(json.dumps(errors))
"""


@pytest.fixture(scope="module")
def import_errors():
    r = subprocess.run([sys.executable, "-c", _ALONE, *STUDIES], capture_output=True,
                       text=True, cwd=ROOT, timeout=300,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("module", STUDIES)
def test_each_studies_module_imports_alone(module, import_errors):
    assert module not in import_errors, import_errors.get(module)
