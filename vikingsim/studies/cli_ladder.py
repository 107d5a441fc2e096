"""`vikingsim ladder GAME --policy TEMPLATE`: a skill ladder, budget 2b against budget b
(``vikingsim.studies.ladder``)."""
from __future__ import annotations

from vikingsim.core import config

HELP = "skill ladder: a search policy at budget 2b among seats at budget b, per step"
EXAMPLES = """scheme: step i (b = start * 2^i) puts the template with {b} = 2b in one seat and
{b} = b in the others, that seat rotated over all seats, on common seeds; per step, the strong
seat's win share minus 1/K with a 95% interval. A generated study (kind "ladder"): resumable,
any backend, 'vikingsim report' reads it.

examples:
  vikingsim ladder raidboard --policy "ismcts(budget={b})" --start 4 --steps 6
  vikingsim ladder raidboard --policy "flatmc(rollouts={b})" --start 1 --steps 4 -n 20000
  vikingsim ladder raidboard --policy "ismcts(budget={b})" --players 2 --resume --json"""


def add_arguments(p) -> None:
    p.add_argument("game", help="a seated game with search policies")
    p.add_argument("--policy", required=True, metavar="TEMPLATE",
                   help="policy text with {b} for the budget, e.g. \"ismcts(budget={b})\"")
    p.add_argument("--start", type=int, default=4, help="weak budget of step 0 (default 4)")
    p.add_argument("--steps", type=int, default=6, help="steps, each doubling (default 6)")
    p.add_argument("-n", type=int, default=2000,
                   help="games per cell: per step and strong seat (default 2000)")
    p.add_argument("--players", type=int, default=None,
                   help="seats (default: the game's default)")
    p.add_argument("--seed", type=int, default=config.SEED,
                   help=f"root seed (default {config.SEED})")
    p.add_argument("--set", dest="sets", action="append", metavar="KEY=VALUE", default=[],
                   help="set a game option (repeatable)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="study folder (default results/ladder-GAME)")
    p.add_argument("--resume", action="store_true",
                   help="continue a stopped run of the same ladder (finished chunks are kept)")
    p.add_argument("--backend", default="local", help="local (threads, default) or dask")
    p.add_argument("--workers", type=int, default=None,
                   help="chunks at once (default: all cores)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    from vikingsim.core.console import Terminated, print_json
    from vikingsim.core.options import parse_assignments
    from vikingsim.studies import ladder

    try:
        res = ladder.run_ladder(args.game, args.policy, out=args.out, backend=args.backend,
                                workers=args.workers, resume=args.resume, start=args.start,
                                steps=args.steps, n=args.n, players=args.players,
                                seed=args.seed, options=parse_assignments(args.sets))
    except KeyboardInterrupt as stop:
        return 143 if isinstance(stop, Terminated) else 130
    data = res.open()
    table = ladder.ladder_table(data)
    findings = ladder.report_findings(data)
    if args.json:
        print_json({"study": res.manifest["name"], "out": str(res.root),
                    "steps": table.to_dict(orient="records"), "findings": findings})
    else:
        print(table.to_string(index=False))
        print("\n".join(findings))
        print(f"study in {res.root}/ ('vikingsim report {res.root}' for the page)")
    return 0
