"""`vikingsim breakeven ravenfeast UNIT --against ...`: the points cost at which a warband of one
unit type breaks even against each opponent (``vikingsim.questions.ravenfeast.break_even``,
rules notes ravenfeast.md §12.8)."""
from __future__ import annotations

from vikingsim.core import config

HELP = "Ravenfeast: the points cost at which a unit type's warband breaks even, per opponent"
EXAMPLES = """scheme: k figures of UNIT (k = 1..32) fight each opponent (a unit type: BUDGET points
of it; or a warband: preset, inline list or .toml), N battles as side a and N as side b per
k; a binomial logistic fit of score on log k around the 1/2 crossing gives k*, and the
break-even cost = opponent points / k* with a 95% interval.

examples:
  vikingsim breakeven ravenfeast hirdmen --against hirdmen bondi thrall fight_for_honor
  vikingsim breakeven ravenfeast hirdmen --unit-set melee=5 --against hirdmen -n 4000
  vikingsim breakeven ravenfeast berserker --against experiments/warbands/jarl300.toml --json"""


def add_arguments(p) -> None:
    p.add_argument("game", help="ravenfeast (the game with a points system)")
    p.add_argument("unit", help="unit type whose cost is sought (see 'vikingsim games')")
    p.add_argument("--against", nargs="+", required=True, metavar="OPPONENT",
                   help="unit types (BUDGET points of each) and/or warbands (preset, inline "
                   "list such as jarl+hirdmen*5, or a .toml file)")
    p.add_argument("--unit-set", dest="unit_sets", action="append", default=[],
                   metavar="KEY=VALUE", help="profile override of the unit (repeatable), "
                   "e.g. melee=5; the unit's own cost is then the §12.3 model price")
    p.add_argument("--budget", type=int, default=300,
                   help="points of a unit-type opponent (default 300)")
    p.add_argument("-n", type=int, default=2000,
                   help="battles per count and side (default 2000)")
    p.add_argument("--seed", type=int, default=config.SEED,
                   help=f"root seed (default {config.SEED})")
    p.add_argument("--set", dest="sets", action="append", metavar="KEY=VALUE", default=[],
                   help="a warband rule option (repeatable), e.g. tough_reading=extra_wounds")
    p.add_argument("--threads", type=int, default=None, help="worker threads (default: all)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    from vikingsim.core.console import print_json
    from vikingsim.core.errors import InputError
    from vikingsim.core.options import parse_assignments
    from vikingsim.questions.ravenfeast import break_even

    if args.game != "ravenfeast":
        raise InputError(f"breakeven: only ravenfeast has unit point costs, got {args.game!r}")
    from vikingsim.questions.ravenfeast import typed_overrides

    overrides = typed_overrides(parse_assignments(args.unit_sets))
    table = break_even(args.unit, args.against, budget=args.budget, overrides=overrides,
                       n=args.n, seed=args.seed, options=parse_assignments(args.sets),
                       threads=args.threads)
    if args.json:
        print_json({"unit": args.unit, "overrides": overrides,
                    "rows": table.to_dict(orient="records")})
        return 0
    unit_cost = float(table["unit_cost"].iloc[0])
    print(f"{args.unit}{' ' + str(overrides) if overrides else ''}: cost {unit_cost:g} points; "
          f"break-even cost per opponent (95% interval), {2 * args.n} battles per count")
    for r in table.to_dict(orient="records"):
        head = f"  {r['opponent']} ({r['opponent_points']:g} points): "
        if r["status"] == "ok":
            print(head + f"{r['cost']:.2f} [{r['cost_lo']:.2f}, {r['cost_hi']:.2f}], "
                  f"x{r['ratio']:.3f} the cost (k* = {r['k_star']:.2f} figures)")
        elif r["status"] == "below_min":
            print(head + f"below {r['opponent_points'] / 32:.2f} (32 figures still lose)")
        else:
            print(head + f"above {r['opponent_points']:.2f} (one figure already wins)")
    return 0
