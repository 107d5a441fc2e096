"""`vikingsim tournament`: every policy against every other, seats rotated on common seeds
(``vikingsim.studies.tournament``), run as a study whose cells are the lineups."""
from __future__ import annotations

import argparse

from vikingsim.core import config
from vikingsim.studies.cli_experiment import add_run_arguments, stopped

HELP = "policies against each other, seats rotated on common seeds: win-rate matrix, ratings"
EXAMPLES = """scheme: for each ordered pair (a, b), one a among K-1 b's, a rotated over all K seats;
every lineup plays the same -n games (same seed); "a beats b" = a wins more than 1/K of them.
The lineups are the cells of a study (kind "tournament", common seeds) run into --out
(default results/tournament-GAME/): a new or empty folder, or with --resume the folder of a
stopped run of the same tournament. The tables (pairs.csv, matrix.csv, seats.csv,
ratings.csv, lineups.parquet, tournament.json, heatmap.png) are read from its stored counts
and written beside the study; 'vikingsim report DIR' opens the folder.

examples:
  vikingsim tournament raidboard --policies greedy,random,lookahead --players 2 -n 20000
  vikingsim tournament raidboard --policies "greedy,lookahead,lookahead(settle_value=20)" -n 5000
  vikingsim tournament raidboard --policies greedy,lookahead --players 4 --json
  vikingsim tournament raidboard --policies greedy,lookahead --out results/t --resume
  vikingsim tournament raidboard --policies greedy,random --backend dask --workers 2"""


def add_arguments(p) -> None:
    p.add_argument("game", help="a seated game (see 'vikingsim games')")
    p.add_argument("--policies", required=True, metavar="A,B[,C...]",
                   help="comma-separated policies (name or name(key=value, ...); commas "
                   "inside brackets are kept)")
    p.add_argument("--players", type=int, default=None,
                   help="seats per game (default: the game's default)")
    p.add_argument("-n", type=int, default=20_000, help="games per lineup (default 20000)")
    p.add_argument("--seed", type=int, default=config.SEED,
                   help=f"root seed shared by every lineup (default {config.SEED})")
    p.add_argument("--set", dest="sets", action="append", metavar="KEY=VALUE", default=[],
                   help="set a game option (repeatable)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="the tournament's study folder, with its tables and heatmap (default "
                   "results/tournament-GAME/)")
    add_run_arguments(p, "tournament")
    p.add_argument("--threads", dest="workers", type=int, help=argparse.SUPPRESS)  # old name
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    from pathlib import Path

    from vikingsim.core.console import print_json
    from vikingsim.core.options import parse_assignments
    from vikingsim.studies.tournament import check_out, format_text, run_tournament

    out = Path(args.out if args.out is not None else f"results/tournament-{args.game}")
    check_out(out)                                      # before any game is played
    try:
        t = run_tournament(args.game, args.policies, players=args.players, n=args.n,
                           seed=args.seed, options=parse_assignments(args.sets), out=out,
                           backend=args.backend, workers=args.workers,
                           scheduler=args.scheduler, resume=args.resume,
                           progress=not args.quiet)
    except KeyboardInterrupt as stop:     # the runner said which lineups are saved (one line)
        return stopped(stop)
    paths = t.write(out)
    if args.json:
        print_json({**t.summary(), "study": str(out), "files": [str(p) for p in paths]})
    else:
        print(format_text(t))
        print(f"wrote {', '.join(p.name for p in paths)} in {out}/")
    return 0
