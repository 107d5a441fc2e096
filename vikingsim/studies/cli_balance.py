"""`vikingsim balance`: search rule options for the setting closest to targets, then check it
on held-out games (``vikingsim.studies.balance``)."""
from __future__ import annotations

import argparse

from vikingsim.core import config
from vikingsim.studies.cli_experiment import add_run_arguments, stopped

HELP = "search options for the setting closest to targets (Optuna + successive halving)"
EXAMPLES = """targets: METRIC=EXPR, METRIC[i]=EXPR or METRIC[*]=EXPR (every seat), EXPR of
numbers and 'players' (+ - * / and brackets; at most 200 characters, operators nested at
most 20 deep), e.g. win_rate[*]=1/players. METRIC is a game metric of the summary (a rate
or mean: win_rate, p_truncated, mean_rounds, ...; not elapsed_s, n or a count of games).
--budget caps the games the search plays; the best setting is then checked on --holdout
fresh games. Every batch of the search is a small study (kind "balance", one cell per
setting, common seeds) in --out/batch-NNNN/, the hold-out check in --out/holdout/, run by the
study runner (--backend dask works); the result is --out/balance.json and search.csv.
--resume re-runs the (deterministic) search and reads the finished batches from disk.
--vary OPTION.PATH=LO..HI searches a number inside the TOML file a file-valued option names
(its --set/--catalog/--params value, else the bundled file): each setting is a copy of that
file with the entry set, in --out/inputs/ (named by content, an ordinary hashed input).
--target worth (or worth=POINTS) --element E: the objective is E's restricted-play worth
minus the --reference's (median or mean of the other elements, or one element), each setting
played as a restricted-play study (common seeds, as 'vikingsim importance'); --budget and
--holdout then count games per cell, --worth-within (points, default 1) is the tolerance.

examples:
  vikingsim balance raidboard --players 4 --target "win_rate[*]=1/players" \\
      --vary seat_gold_step=0..10 --budget 2000000 --holdout 500000
  vikingsim balance raidboard --players 2 --target "win_rate[0]=1/2" --vary start_gold=10..40
  vikingsim balance raidboard --target "mean_rounds=7" --vary target_gold=60..100 --json
  vikingsim balance raidboard --players 2 --target "win_rate[0]=1/2" --vary start_gold=10..40 \\
      --out results/b --resume
  vikingsim balance raidconquer --players 2 --target "win_rate[0]=1/2" \\
      --vary 'catalog.card["Funeral Pyre"].cost=1..6'
  vikingsim balance raidconquer --players 4 --target worth --element "Funeral Pyre" \\
      --reference median --worth-within 1 --vary 'catalog.card["Funeral Pyre"].cost=1..8'
  vikingsim balance tevragnarok --target "mean_rounds=8" \\
      --vary 'params.economy.draft_size[0]=3..6'"""


def add_arguments(p) -> None:
    p.add_argument("game", help="game name (see 'vikingsim games')")
    p.add_argument("--target", dest="targets", action="append", default=[], metavar="TARGET",
                   help="METRIC[i]=EXPR to aim at (repeatable; [*] = every seat)")
    p.add_argument("--vary", action="append", default=[], metavar="KNOB=LO..HI",
                   help="an int or float option, or a number in a file option's TOML by "
                   "dotted path (OPTION.PATH, e.g. catalog.card[\"Funeral Pyre\"].cost), to "
                   "search (repeatable; integers search integers)")
    p.add_argument("--budget", type=int, default=300_000,
                   help="games the search may play in total (default 300000)")
    p.add_argument("--holdout", type=int, default=200_000,
                   help="fresh games to check the best setting on (default 200000)")
    p.add_argument("--tolerance", type=float, default=0.005,
                   help="distance from a target that counts as on target (default 0.005)")
    p.add_argument("--trials", type=int, default=27,
                   help="settings Optuna proposes in the first stage (default 27)")
    p.add_argument("--players", type=int, default=None, help="number of seats")
    p.add_argument("--policy", dest="policies", action="extend", nargs="+", default=[],
                   metavar="POLICY", help="one policy for every seat, or one per seat")
    p.add_argument("--set", dest="sets", action="append", metavar="KEY=VALUE", default=[],
                   help="fix a game option (repeatable)")
    p.add_argument("--params", dest="sets", action="append", metavar="TOML",
                   type=lambda v: f"params={v}", help="a parameter file, for games with a "
                   "params option (same as --set params=TOML; the base of params.* --vary)")
    p.add_argument("--catalog", dest="sets", action="append", metavar="TOML",
                   type=lambda v: f"catalog={v}", help="a card catalog, for games with a "
                   "catalog option (same as --set catalog=TOML; the base of catalog.* --vary)")
    p.add_argument("--seed", type=int, default=config.SEED,
                   help=f"root seed of the search and hold-out (default {config.SEED})")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="folder of the batches' studies and the result (default "
                   "results/balance-GAME/)")
    add_run_arguments(p, "balance run")
    p.add_argument("--threads", dest="workers", type=int, help=argparse.SUPPRESS)  # old name
    p.add_argument("--baseline", action="store_true",
                   help="also play the varied options at their defaults on the hold-out seeds")
    p.add_argument("--element", default=None, metavar="NAME",
                   help="with --target worth: the element (card) whose restricted-play worth "
                   "is fitted, e.g. \"Funeral Pyre\"")
    p.add_argument("--reference", default=None, metavar="median|mean|NAME",
                   help="with --target worth: what the worth is compared with: the median "
                   "(default) or mean of the other elements' worths, or one element's")
    p.add_argument("--worth-within", type=float, default=None, metavar="POINTS",
                   help="with --target worth: the distance in win-rate points that counts as "
                   "on target (default 1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    from pathlib import Path

    from vikingsim.core.console import print_json
    from vikingsim.core.options import parse_assignments
    from vikingsim.studies.balance import format_text, run_balance

    out = Path(args.out if args.out is not None else f"results/balance-{args.game}")
    try:
        b = run_balance(args.game, args.targets, args.vary, budget=args.budget,
                        holdout=args.holdout, players=args.players,
                        policies=args.policies or None, options=parse_assignments(args.sets),
                        seed=args.seed, tolerance=args.tolerance, trials=args.trials,
                        baseline=args.baseline, out=out, backend=args.backend,
                        workers=args.workers, scheduler=args.scheduler, resume=args.resume,
                        progress=not args.quiet, element=args.element,
                        reference=args.reference, worth_within=args.worth_within)
    except KeyboardInterrupt as stop:     # the runner said which chunks are saved (one line)
        return stopped(stop)
    if args.json:
        print_json({**b.summary(), "folder": str(out)})
    else:
        print(format_text(b))
        print(f"wrote balance.json, search.csv in {out}/ (batches in batch-NNNN/, hold-out "
              f"in holdout/)")
    return 0
