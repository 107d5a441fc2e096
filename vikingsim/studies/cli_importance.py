"""`vikingsim importance GAME`: restricted play, every element denied to each seat in turn
on common seeds, ranked by worth (``vikingsim.studies.importance``)."""
from __future__ import annotations

from vikingsim.core import config

HELP = "restricted play: what each card, action or policy option is worth to the seat using it"
EXAMPLES = """scheme: one baseline cell and, per element and seat, a cell where that seat's policy
has forbid=<element>; every cell plays the same -n games (common seeds). worth = mean over
seats of (baseline win rate - win rate when denied), with a paired interval (per-game
differences) or, with --no-rows, an unpaired one from the win counts; Holm-adjusted p-values
for worth != 0.
The run is a study (resumable, --backend dask); 'vikingsim report DIR' draws its bar chart.

examples:
  vikingsim importance raidboard -n 20000                     # into results/importance-raidboard
  vikingsim importance raidboard --players 2 --policy lookahead --elements north_sea,lost_own
  vikingsim importance raidboard -n 20000 --resume            # after Ctrl-C or SIGTERM
  vikingsim importance raidboard -n 200000 --backend dask --workers 2 --json

878 (sides, not seats): each element denied to the side(s) whose rules give it, worth = that
side's baseline win rate - its win rate when denied (paired per battle); a side's win is
read by --side-win (holds: its win, the other side's retreat, for the English God's Peace;
strict: its *_win only; 878 §5.3):
  vikingsim importance battle878 --set runes_prayer=true --policy smart -n 20000
  vikingsim importance battle878 --side vikings --set runes_prayer=true --policy greedy default"""


def add_arguments(p) -> None:
    from vikingsim.studies.cli_experiment import add_run_arguments

    p.add_argument("game", help="a game whose policies take forbid (see 'vikingsim games'): a "
                               "seated game, or battle878 (sides)")
    p.add_argument("--players", type=int, default=None,
                   help="seats per game (seated games; default: the game's default)")
    p.add_argument("--side", default=None, metavar="SIDE",
                   help="battle878: vikings, english or both (default both): the side(s) denied "
                        "each element")
    p.add_argument("--side-win", default=None, metavar="READING",
                   help="battle878: what counts as a side's win, holds (default: its win or "
                        "the other side leaving the field) or strict (its *_win only); "
                        "docs/rules/battle878.md §5.3")
    p.add_argument("--policy", nargs="+", default=None, metavar="POLICY",
                   help="one policy for every seat, or one per seat (name or name(k=v, ...))")
    p.add_argument("--elements", default=None, metavar="A,B,...",
                   help="comma-separated elements to rank (default: all the game has)")
    p.add_argument("-n", type=int, default=20_000, help="games per cell (default 20000)")
    p.add_argument("--seed", type=int, default=config.SEED,
                   help=f"root seed shared by every cell (default {config.SEED})")
    p.add_argument("--set", dest="sets", action="append", metavar="KEY=VALUE", default=[],
                   help="set a game option (repeatable)")
    p.add_argument("--no-rows", action="store_true",
                   help="keep tallies only (smaller; the interval is then the unpaired one)")
    p.add_argument("--chunk-games", type=int, default=None,
                   help="games per chunk (default: the study default, 1,048,576)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="study folder (default results/importance-GAME)")
    add_run_arguments(p, "restricted-play study")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    from vikingsim.core.console import print_json
    from vikingsim.studies.cli_experiment import stopped
    from vikingsim.core.options import parse_assignments
    from vikingsim.core.runner import check_count
    from vikingsim.studies import importance
    from vikingsim.studies.run import run_study

    elements = None if args.elements is None else [e.strip() for e in args.elements.split(",")]
    study = importance.build_study(
        args.game, games=check_count("-n", args.n, 1, 10**12), seed=args.seed,
        players=args.players, policies=args.policy or (), options=parse_assignments(args.sets),
        elements=elements, rows=not args.no_rows, chunk_games=args.chunk_games,
        side=args.side, side_win=args.side_win)
    try:
        res = run_study(study, args.out or f"results/{study.name}", backend=args.backend,
                        workers=args.workers, scheduler=args.scheduler, resume=args.resume,
                        progress=not args.quiet)
    except KeyboardInterrupt as stop:     # run_study said which chunks are saved (one line)
        return stopped(stop)
    table = importance.worth_table(res.open())
    if args.json:
        print_json({"study": res.manifest["name"], "out": str(res.root), "game": args.game,
                    "cells": len(res.manifest["cells"]), "elapsed_s": round(res.elapsed_s, 3),
                    "chunks_run": res.chunks_run, "chunks_resumed": res.chunks_resumed,
                    "importance": table.to_dict(orient="records")})
    else:
        print(importance.format_table(table, res.manifest["report"].get("side_win")))
        print(f"{len(res.manifest['cells'])} cells, {res.chunks_run} chunks played, "
              f"{res.chunks_resumed} resumed, {res.elapsed_s:.1f} s -> {res.root}")
    return 0
