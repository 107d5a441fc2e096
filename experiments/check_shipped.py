"""Check every shipped example at a small size (issue 19's "Done when"):

    python experiments/check_shipped.py [--only NAME ...] [--work DIR] [--list]

For each study file here (``experiments/*.toml`` with ``games``, run by ``vikingsim experiment
FILE --games N``) and each example command of README.md and docs/balancing.md (``tournament``,
``balance``, ``importance``, ``ladder``, ``sensitivity`` with a small ``-n``/budget; their other
arguments as documented), in fresh processes of this checkout's package:

- run: runs it into a folder (exit 0);
- resume: runs it again with ``--workers 1``, sends SIGTERM once its first chunk is saved
  (exit 143, one stderr line naming ``--resume``), resumes it with ``--resume`` and compares
  the folder with run's: every file byte for byte (rows, tallies, summaries, tables), the JSON
  files (``study.json``, a command's own) equal once the keys naming the machine or the clock
  are dropped (``VOLATILE``);
- dask: runs it with ``--backend dask --workers 2`` and compares the same way;
- report: ``vikingsim report`` on run's folder writes an HTML page that names the study.

It prints one Markdown row per example (pass / fail / n/a, user+sys CPU seconds of the four
steps, children included) and exits 1 if any step failed. ``breakeven`` has no folder, so only
run is checked. The params-space files (``*_sensitivity.toml``) are checked through their
``vikingsim sensitivity`` examples; the ``.py`` scripts here are not examples of a command.
The sizes are in ``SIZES``: small, but with at least two chunks so that a run can be stopped
between them (a one-cell study at two chunks of its own ``chunk_games``).
"""
from __future__ import annotations

import argparse
import html
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "experiments"

#: games per cell for ``experiment FILE --games N`` (default 200; search players fewer).
SIZES = {"raidboard_search_strength": 10, "raidboard_seats_by_skill": 20,
         "raidconquer_by_skill": 8, "tevragnarok_slay_by_skill": 8,
         "raidconquer_search_model": 8}
DEFAULT_GAMES = 200

#: the documented commands, made small (README.md "Tournaments and balancing", "Search
#: players and the skill ladder", "Sensitivity"; docs/balancing.md, docs/importance.md).
COMMANDS = {
    "tournament raidboard": ["tournament", "raidboard", "--policies", "greedy,random,lookahead",
                             "--players", "4", "-n", "200"],
    "balance raidboard": ["balance", "raidboard", "--players", "4", "--target",
                          "win_rate[*]=1/players", "--vary", "seat_gold_step=0..10",
                          "--budget", "6000", "--holdout", "2000", "--trials", "3"],
    "importance raidboard": ["importance", "raidboard", "--players", "4", "-n", "200"],
    "importance battle878": ["importance", "battle878", "--set", "runes_prayer=true",
                             "--policy", "smart", "-n", "200"],
    "ladder raidboard": ["ladder", "raidboard", "--policy", "ismcts(budget={b})", "--start",
                         "4", "--steps", "2", "--players", "2", "-n", "20"],
    "sensitivity tevragnarok": ["sensitivity", "tevragnarok", "--params-space",
                                "experiments/tevragnarok_sensitivity.toml", "--samples", "2",
                                "-n", "50"],
    "sensitivity raidconquer": ["sensitivity", "raidconquer", "--params-space",
                                "experiments/raidconquer_sensitivity.toml", "--samples", "2",
                                "--first-order", "-n", "20"],
    "breakeven ravenfeast": ["breakeven", "ravenfeast", "hirdmen", "--against", "hirdmen",
                             "bondi", "fight_for_honor", "-n", "100"],
}
NO_FOLDER = {"breakeven"}                 # commands that write no study folder

#: JSON keys that name the machine, the clock or the folder rather than the games (a ladder's
#: or sensitivity study's file is written under or beside its --out).
VOLATILE = {"study_file", "versions", "elapsed_s", "backend_start_s", "out", "root", "wall_s", "seconds",
            "git_commit", "started", "finished"}
SKIP_FILES = {"report.html"}
#: the one folder name of the three runs (a sensitivity study is named after its --out)
OUT = "out"


def study_examples() -> dict[str, list[str]]:
    """name -> argv of ``vikingsim experiment`` for every study file, at its small size."""
    out = {}
    for path in sorted(HERE.glob("*.toml")):
        data = tomllib.loads(path.read_text())
        if "games" not in data:                   # a params-space file (sensitivity)
            continue
        out[path.stem] = ["experiment", str(path.relative_to(ROOT)), "--games",
                          str(small_games(path))]
    return out


def small_games(path: Path) -> int:
    """SIZES or DEFAULT_GAMES, raised to two chunks when the study has a single chunk."""
    from vikingsim.games import get
    from vikingsim.studies.kinds import expand
    from vikingsim.studies.plan import chunk_size, plan_cells
    from vikingsim.studies.spec import load_study

    games = SIZES.get(path.stem, DEFAULT_GAMES)
    study = expand(load_study(path))
    size = chunk_size(get(study.game), study.chunk_games)
    cells = len(plan_cells(study))
    return 2 * size if cells * -(-games // size) < 2 else games


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def vikingsim(argv: list, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "vikingsim", *argv], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, **kw)


def finish(p: subprocess.Popen, timeout: float = 7200) -> tuple[int, str]:
    _, err = p.communicate(timeout=timeout)
    return p.returncode, err


def run_to(argv: list, out: Path, *extra) -> str | None:
    """None if ``vikingsim argv --out out extra`` exits 0, else why not."""
    code, err = finish(vikingsim([*argv, "--out", str(out), *extra]))
    return None if code == 0 else f"exit {code}: {last_line(err)}"


def run_plain(argv: list) -> str | None:
    """None if ``vikingsim argv`` (a command without --out) exits 0, else why not."""
    code, err = finish(vikingsim(argv))
    return None if code == 0 else f"exit {code}: {last_line(err)}"


def last_line(err: str) -> str:
    lines = err.strip().splitlines()
    return lines[-1][:200] if lines else "(no stderr)"


def killed_then_resumed(argv: list, out: Path) -> str | None:
    """Stop a run with SIGTERM after its first saved chunk, then --resume it."""
    p = vikingsim([*argv, "--out", str(out), "--workers", "1"])
    while not any(out.glob("**/data/cell=*/chunk-*.tally.json")):
        if p.poll() is not None:
            return f"ended (exit {p.returncode}) before a chunk was saved: {last_line(finish(p)[1])}"
        time.sleep(0.005)
    p.send_signal(signal.SIGTERM)
    code, err = finish(p)
    if code == 0:
        return "n/a: finished before SIGTERM reached it (raise its size)"
    lines = err.strip().splitlines()
    if code != 143 or len(lines) != 1 or "--resume" not in lines[0]:
        return f"SIGTERM: exit {code}, {len(lines)} stderr lines: {last_line(err)}"
    return run_to(argv, out, "--resume")


def normal(obj):
    """A JSON value without the VOLATILE keys, at any depth."""
    if isinstance(obj, dict):
        return {k: normal(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [normal(v) for v in obj]
    return obj


def differences(a: Path, b: Path) -> list[str]:
    """What differs between the folders a and b (empty: the same dataset)."""
    def files(root):
        return {p.relative_to(root).as_posix() for p in root.rglob("*")
                if p.is_file() and p.name not in SKIP_FILES}

    fa, fb = files(a), files(b)
    diff = [f"only in one: {n}" for n in sorted(fa ^ fb)]
    for name in sorted(fa & fb):
        x, y = (a / name).read_bytes(), (b / name).read_bytes()
        if x == y:
            continue
        if name.endswith(".json") and normal(json.loads(x)) == normal(json.loads(y)):
            continue
        diff.append(f"differs: {name}")
    return diff


def compared(step: str | None, a: Path, b: Path) -> str | None:
    if step is not None:
        return step
    diff = differences(a, b)
    return None if not diff else f"{len(diff)} files: {'; '.join(diff[:3])}"


def report_names_study(folder: Path) -> str | None:
    from vikingsim.studies.balance import study_folder
    from vikingsim.studies.dataset import read_manifest

    page = folder.parent / "report.html"
    why = run_to(["report", str(folder), "--quiet"], page)
    if why:
        return why
    m = read_manifest(study_folder(folder))
    text = page.read_text() if page.exists() else ""
    names = [m["name"], *([m["title"]] if m.get("title") else [])]
    return None if all(html.escape(n) in text for n in names) else f"page does not name {m['name']!r}"


def check(name: str, argv: list, work: Path) -> dict:
    """Each step's result (None: pass, text: why not) and its CPU seconds."""
    base = work / name.replace(" ", "-")
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    res, t = {}, {}
    steps = [("run", lambda: run_to(argv, base / "run" / OUT))]
    if argv[0] not in NO_FOLDER:
        steps += [("resume", lambda: compared(killed_then_resumed(argv, base / "resume" / OUT),
                                              base / "run" / OUT, base / "resume" / OUT)),
                  ("dask", lambda: compared(run_to(argv, base / "dask" / OUT, "--backend", "dask",
                                                   "--workers", "2"),
                                            base / "run" / OUT, base / "dask" / OUT)),
                  ("report", lambda: report_names_study(base / "run" / OUT))]
    else:
        steps = [("run", lambda: run_plain(argv))]
    for step, fn in steps:
        if step != "run" and res.get("run") is not None:
            res[step] = "skipped: run failed"
            continue
        c0 = cpu()
        res[step] = fn()
        t[step] = cpu() - c0
    return {"name": name, "argv": argv, "results": res, "cpu": t}


def cell(res: dict, step: str) -> str:
    if step not in res:
        return "n/a"
    v = res[step]
    return "pass" if v is None else ("n/a" if v.startswith("n/a") else "FAIL")


def row(r: dict) -> str:
    steps = ("run", "resume", "dask", "report")
    marks = " | ".join(cell(r["results"], s) for s in steps)
    return (f"| {r['name']} | `{' '.join(r['argv'][1 if r['argv'][0] == 'experiment' else 0:])}`"
            f" | {marks} | {sum(r['cpu'].values()):.0f} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", default=None, metavar="NAME",
                    help="examples to check (default: all; --list names them)")
    ap.add_argument("--work", default="/tmp/vikingsim-check-shipped", metavar="DIR",
                    help="scratch folder (each example's folders are replaced)")
    ap.add_argument("--list", action="store_true", help="print the examples and exit")
    args = ap.parse_args(argv)
    examples = {**study_examples(), **COMMANDS}
    if args.list:
        for name, a in examples.items():
            print(f"{name}: vikingsim {' '.join(a)}")
        return 0
    unknown = sorted(set(args.only or ()) - set(examples))
    if unknown:
        print(f"check_shipped: unknown example {unknown[0]!r} (--list names them)",
              file=sys.stderr)
        return 2
    print("| example | arguments | run | resume | dask | report | CPU s |")
    print("|---|---|---|---|---|---|---|")
    failed = False
    for name in args.only or examples:
        r = check(name, examples[name], Path(args.work))
        print(row(r), flush=True)
        for step, why in r["results"].items():
            if why is not None:
                print(f"<!-- {name} {step}: {why} -->", flush=True)
                failed |= not why.startswith(("n/a", "skipped"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
