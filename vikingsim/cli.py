"""Command line: ``vikingsim games | simulate | odds | trace | bench`` and the study commands
``experiment | tournament | balance | report | sensitivity`` (``STUDY_COMMANDS``).

Bad input of any kind exits 2 with one line on stderr naming the problem and the allowed
values; ``--json`` prints exactly one JSON object on stdout; progress goes to stderr, and only
when stderr is a terminal.
"""
from __future__ import annotations

import argparse
import signal
import sys

from vikingsim.core import config
from vikingsim.core.console import Terminated, print_json
from vikingsim.core.errors import InputError, PolicyError
from vikingsim.core.options import parse_assignments


DESCRIPTION = ("Monte Carlo simulation and balance analysis for Viking-themed board games: "
               "win rates with 95% intervals, exact odds, game traces and benchmarks.")

EXAMPLES = {
    None: """examples:
  vikingsim games                                   # every game, option and policy
  vikingsim simulate raidboard -n 1000000           # seat win rates of 4-player games
  vikingsim odds battle878 --set norsemen=6 --set fort=1
  vikingsim trace raidboard --seed 7 --players 3""",
    "games": """examples:
  vikingsim games
  vikingsim games --json | python3 -m json.tool""",
    "simulate": """examples:
  vikingsim simulate raidboard -n 1000000 --players 5 --policy lookahead greedy
  vikingsim simulate battle878 -n 1000000 --set norsemen=6 --set ragnar=true --json
  vikingsim simulate ravenfeast -n 100000 --set mode=warband --out results/wb.parquet
  vikingsim simulate raidconquer -n 20000 --elements --elements-out cards.csv""",
    "odds": """examples:
  vikingsim odds battle878 --set norsemen=6 --set fort=1 --json
  vikingsim odds battle878 --grid norsemen=1:10 --grid housecarls=1:10 --plot odds.png
  vikingsim odds battle878 --optimal --set runes_prayer=true --set norsemen=4 --set thegns=3
  vikingsim odds ravenfeast --set a=jarl --set b=berserker""",
    "trace": """examples:
  vikingsim trace raidboard --seed 7 --players 3
  vikingsim trace raidboard --seed 7 --game-id 12
  vikingsim trace battle878 --set ragnar=true""",
    "bench": """examples:
  vikingsim bench                      # every game, about a second per figure
  vikingsim bench raidboard --seconds 3 --repeats 5
  vikingsim bench battle878 --set runes_prayer=true --policy greedy   # one configuration
  vikingsim bench battle878 --exact --set norsemen=5 --set berserkers=5 --set fyrd=4
  vikingsim bench --json
  vikingsim bench --compile            # first run with an empty cache, per game (minutes)""",
}


# Study-layer commands live in their own modules, one per command, so that each can grow
# without touching this file. Each module defines HELP (one line), EXAMPLES (epilog text),
# add_arguments(parser) and run(args) -> exit code; errors are raised as InputError/OSError
# and reported by main() like every other command's.
STUDY_COMMANDS = {
    "experiment": "vikingsim.studies.cli_experiment",
    "tournament": "vikingsim.studies.cli_tournament",
    "balance": "vikingsim.studies.cli_balance",
    "report": "vikingsim.studies.cli_report",
    "importance": "vikingsim.studies.cli_importance",
    "sensitivity": "vikingsim.studies.cli_sensitivity",
    "ladder": "vikingsim.studies.cli_ladder",
    "breakeven": "vikingsim.studies.cli_breakeven",
}


def _study_module(name):
    import importlib
    return importlib.import_module(STUDY_COMMANDS[name])


def _on_sigterm(signum, frame):
    raise Terminated()


class _Parser(argparse.ArgumentParser):
    def error(self, message):                     # one line, exit 2 (argparse prints usage too)
        raise InputError(f"{message} (see '{self.prog} --help')")


def _fmt(x) -> str:
    return f"{x:.4f}" if isinstance(x, float) else str(x)


def format_summary(s: dict, changed=()) -> str:
    """Human-readable summary: per-seat tables for list metrics, p [lo, hi] for fractions.
    ``changed`` names the options set on the command line (the rest are defaults)."""
    head = (f"{s['game']}: n={s['n']:,} seed={s['seed']} players={s['players']} "
            f"policies={','.join(s['policies'])}")
    opts = " ".join(f"{k}={s['options'][k]}" for k in changed) or "all defaults"
    lines = [head, f"options: {opts} (--json lists every option)",
             f"elapsed {s['elapsed_s']:.3f} s ({s['games_per_s'] or 0:,.0f} games/s)"]
    skip = {"game", "n", "seed", "players", "policies", "options", "elapsed_s", "games_per_s"}
    for key, val in s.items():
        if key in skip or key.endswith("_ci") or key.endswith("_se"):
            continue
        ci = s.get(f"{key}_ci")
        if isinstance(val, list):
            lines.append(f"{key}:")
            for seat, v in enumerate(val):
                extra = f"  95% CI [{ci[seat][0]:.4f}, {ci[seat][1]:.4f}]" if ci else ""
                lines.append(f"  seat {seat}: {_fmt(v)}{extra}")
        elif ci:
            lines.append(f"{key}: {_fmt(val)}  95% CI [{ci[0]:.4f}, {ci[1]:.4f}]")
        elif isinstance(val, dict):
            lines.append(f"{key}: " + ", ".join(f"{k}={_fmt(v)}" for k, v in val.items()))
        else:
            se = s.get(f"{key}_se")
            lines.append(f"{key}: {_fmt(val)}" + (f" (se {se:.4f})" if se else ""))
    return "\n".join(lines)


def _add_game_args(p, *, policies=True):
    p.add_argument("game", help="game name (see 'vikingsim games')")
    p.add_argument("--set", dest="sets", action="append", metavar="KEY=VALUE", default=[],
                   help="set a game option (repeatable)")
    p.add_argument("--params", dest="sets", action="append", metavar="TOML",
                   type=lambda v: f"params={v}", help="a parameter file, for games with a "
                   "params option (same as --set params=TOML)")
    p.add_argument("--catalog", dest="sets", action="append", metavar="TOML",
                   type=lambda v: f"catalog={v}", help="a card catalog, for games with a "
                   "catalog option (same as --set catalog=TOML)")
    if policies:
        p.add_argument("--players", type=int, default=None, help="number of seats")
        p.add_argument("--policy", dest="policies", action="extend", nargs="+", default=[],
                       metavar="POLICY", help="one policy for every seat, or one per seat: "
                       "a name, name(key=value, ...) or a .toml file (see 'vikingsim games')")


def build_parser() -> argparse.ArgumentParser:
    from vikingsim import __version__

    fmt = argparse.RawDescriptionHelpFormatter
    ap = _Parser(prog="vikingsim", description=DESCRIPTION, epilog=EXAMPLES[None],
                 formatter_class=fmt)
    ap.add_argument("--version", action="version", version=f"vikingsim {__version__}")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_Parser)

    def add(name, help):
        return sub.add_parser(name, help=help, description=help, epilog=EXAMPLES[name],
                              formatter_class=fmt)

    g = add("games", "list games with their options and policies")
    g.add_argument("--json", action="store_true", help="print JSON")

    s = add("simulate", "play N games and summarise them (win rates with 95%% intervals)")
    _add_game_args(s)
    s.add_argument("-n", type=int, default=100_000, help="number of games (default 100000)")
    s.add_argument("--seed", type=int, default=config.SEED,
                   help=f"root seed (default {config.SEED})")
    s.add_argument("--threads", type=int, default=None, help="worker threads (default: all)")
    s.add_argument("--out", default=None, help="write the per-game frame to PATH.parquet "
                   "plus PATH.manifest.json")
    s.add_argument("--rule-columns", action="store_true",
                   help="with --out: also store every option as rule_*/policy_* columns")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument("--quiet", action="store_true",
                   help="no progress bar and no compiling notice on stderr")
    s.add_argument("--reference", action="store_true",
                   help="use the plain-Python reference engine (slow; for checking)")
    s.add_argument("--elements", action="store_true",
                   help="also print the per-seat, per-card/action table (games that count "
                        "them); bought vs not bought is a correlation, not a cause")
    s.add_argument("--elements-out", default=None, metavar="CSV",
                   help="write that table to CSV (implies --elements)")

    o = add("odds", "exact odds from the game's solver (same p_* keys as simulate)")
    _add_game_args(o, policies=False)
    o.add_argument("--json", action="store_true", help="print JSON")
    o.add_argument("--grid", action="append", default=[], metavar="KEY=LO:HI",
                   help="sweep an integer option (give two for a heatmap)")
    o.add_argument("--metric", default=None, help="value to plot (default: first p_* key)")
    o.add_argument("--plot", default=None, metavar="PNG", help="save a heatmap of the grid")
    o.add_argument("--optimal", action="store_true",
                   help="exact best play instead: each side's maximin guarantee (games with "
                        "that solver: battle878)")

    t = add("trace", "tell one game turn by turn (the same game simulate plays)")
    _add_game_args(t)
    t.add_argument("--seed", type=int, default=config.SEED, help="root seed")
    t.add_argument("--game-id", type=int, default=0, help="which game of the run (default 0)")

    b = add("bench", "games/s: kernel at 1 and 2 threads vs the reference")
    b.add_argument("games", nargs="*", help="games to time (default: all)")
    b.add_argument("--seconds", type=float, default=1.0, help="target seconds per timing")
    b.add_argument("--repeats", type=int, default=3, help="timings per figure (median)")
    b.add_argument("--json", action="store_true", help="print JSON")
    b.add_argument("--markdown", action="store_true",
                   help="print a Markdown table (the default without --json)")
    b.add_argument("--set", dest="sets", action="append", metavar="KEY=VALUE", default=[],
                   help="bench this one configuration of one game (repeatable)")
    b.add_argument("--players", type=int, default=None, help="seats (one game)")
    b.add_argument("--policy", dest="policies", action="extend", nargs="+", default=[],
                   metavar="POLICY", help="policies of the configuration (one game)")
    b.add_argument("--exact", action="store_true",
                   help="time the exact solver (vikingsim odds) instead of the kernels")
    b.add_argument("--compile", action="store_true",
                   help="time each game's first run with an empty numba cache (compiling) "
                   "and its start from the cache, in fresh processes")
    for name in STUDY_COMMANDS:
        mod = _study_module(name)
        mod.add_arguments(sub.add_parser(name, help=mod.HELP, description=mod.HELP,
                                         epilog=mod.EXAMPLES, formatter_class=fmt))
    return ap


def _cmd_games(args) -> int:
    from vikingsim.games import get, names

    specs = [get(n).describe() for n in names()]
    if args.json:
        print_json({"games": specs})
        return 0
    for name, d in zip(names(), specs):
        pl = d["players"]
        print(f"{d['name']}: {d['title']} - {d['summary']} (players {pl['min']}-{pl['max']}, "
              f"default {pl['default']}{'; exact odds' if d['odds'] else ''})")
        print("  policies (--policy NAME):")
        for p in d["policies"]:
            print(f"    {p['name']}{' (default)' if p['default'] else ''}: {p['help']}")
        print("  options (--set KEY=VALUE):")
        for opt in d["options"]:
            rng = (f" choices {','.join(map(str, opt['choices']))}" if "choices" in opt else
                   f" range [{opt['range'][0]}, {opt['range'][1]}]" if "range" in opt else "")
            print(f"    {opt['name']}=<{opt['type']}> default {opt['default']}{rng}: "
                  f"{opt['help']}")
        extra = get(name).help_text
        if extra:
            print("\n".join("  " + line if line else "" for line in extra.strip().splitlines()))
        print()
    return 0


def _cmd_simulate(args) -> int:
    from vikingsim.core.runner import simulate

    given = parse_assignments(args.sets)
    want_elements = args.elements or args.elements_out is not None
    if want_elements and _check_elements(args.game, args.elements_out):
        given.setdefault("count_elements", "true")
    res = simulate(args.game, args.n, seed=args.seed, players=args.players,
                   policies=args.policies or None, options=given, threads=args.threads,
                   reference=args.reference, progress=not args.quiet, keep=False,
                   parquet=args.out, rule_columns=args.rule_columns, announce=not args.quiet)
    summary = res.summary
    if args.out is not None:
        summary["out"] = str(args.out)
    table = res.elements if want_elements else None
    if table is not None and args.elements_out is not None:
        from vikingsim.core.results import write_atomic
        write_atomic(args.elements_out, lambda tmp: table.to_csv(tmp, index=False))
    if args.json:
        if table is not None:
            summary["elements"] = table.to_dict(orient="records")
        print_json(summary)
    else:
        print(format_summary(summary, changed=list(given)))
        if args.out is not None:
            print(f"wrote {args.out} and its manifest")
        if table is not None:
            print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        if args.elements_out is not None:
            print(f"wrote {args.elements_out}")
    return 0


def _check_elements(game, path) -> bool:
    """--elements: the game must count elements; --elements-out must be writable (before
    the run, so a bad path costs nothing). True when the game's counting is an option named
    ``count_elements`` (off by default where it costs speed): --elements turns it on."""
    from vikingsim.core.results import check_writable
    from vikingsim.games import get

    if get(game).element_stats is None:
        raise InputError(f"--elements: {game} counts no per-card or per-action statistics")
    if path is not None:
        check_writable(path, suffix=".csv", what="--elements-out")
    return any(o.name == "count_elements" for o in get(game).options)


def _parse_grid(items) -> list[tuple[str, list[int]]]:
    out = []
    for item in items:
        key, sep, span = item.partition("=")
        lo, sep2, hi = span.partition(":")
        try:
            lo_i, hi_i = int(lo), int(hi)
        except ValueError:
            raise InputError(f"--grid expects KEY=LO:HI with integers, got {item!r}") from None
        if not sep or not sep2 or lo_i > hi_i or hi_i - lo_i > 100:
            raise InputError(f"--grid expects KEY=LO:HI with LO <= HI (at most 101 values), "
                             f"got {item!r}")
        out.append((key.strip(), list(range(lo_i, hi_i + 1))))
    return out


def _cmd_odds(args) -> int:
    import itertools

    from vikingsim.core.options import resolve
    from vikingsim.games import get

    spec = get(args.game)
    if spec.odds is None:
        have = [n for n in __import__("vikingsim.games", fromlist=["names"]).names()
                if get(n).odds is not None]
        raise InputError(f"{args.game} has no exact solver; games with one: {', '.join(have)}")
    given = parse_assignments(args.sets)
    grid = _parse_grid(args.grid)
    solver = spec.odds
    if args.optimal:
        if spec.optimal is None:
            raise InputError(f"{args.game} has no optimal-play solver (--optimal: battle878)")
        solver = spec.optimal
    if args.plot is not None and len(grid) != 2:
        raise InputError("--plot needs exactly two --grid options")
    if args.plot is not None:
        from vikingsim.core.results import check_writable

        check_writable(args.plot, ".png", "--plot")          # before the grid is solved
    if not grid:
        res = solver(resolve(spec.name, spec.options, given))
        res = {"game": spec.name, "options": resolve(spec.name, spec.options, given), **res}
        if args.json:
            print_json(res)
        else:
            for k, v in res.items():
                print(f"{k}: {v}")
        return 0
    import pandas as pd

    rows = []
    keys = [k for k, _ in grid]
    for values in itertools.product(*(v for _, v in grid)):
        opts = resolve(spec.name, spec.options, {**given, **dict(zip(keys, values))})
        rows.append({**dict(zip(keys, values)), **solver(opts)})
    frame = pd.DataFrame(rows)
    metric = args.metric or next(c for c in frame.columns
                                 if c.startswith("p_") or c.endswith("_guarantee"))
    if metric not in frame.columns:
        raise InputError(f"--metric {metric!r}: allowed: {', '.join(frame.columns[len(keys):])}")
    if args.plot is not None:
        from vikingsim.core.results import write_atomic
        from vikingsim.plots import odds_heatmap

        from pathlib import Path

        path = Path(args.plot)
        write_atomic(path, lambda p: odds_heatmap(frame, keys[0], keys[1], metric, path=p))
    if args.json:
        print_json({"game": spec.name, "grid": keys, "metric": metric,
                     "rows": frame.to_dict(orient="records")})
    else:
        print(frame.to_string(index=False))
    return 0


def _cmd_trace(args) -> int:
    from vikingsim.core.options import resolve
    from vikingsim.core.runner import check_count, resolve_policies
    from vikingsim.games import get

    spec = get(args.game)
    if spec.trace is None:
        raise InputError(f"{args.game} has no trace")
    seed = check_count("seed", args.seed, 0, 2**63 - 1)
    game_id = check_count("game-id", args.game_id, 0, 10**9)
    opts = resolve(spec.name, spec.options, parse_assignments(args.sets))
    pols, players = resolve_policies(spec, args.policies or None, args.players)
    setup = spec.setup(opts, pols, players)
    print(spec.trace(setup, seed, game_id))
    return 0


def _cmd_bench(args) -> int:
    from vikingsim import bench as B

    options = parse_assignments(args.sets) if args.sets else None
    if args.exact and args.compile:
        raise InputError("give --exact or --compile, not both")
    if args.compile:
        rows = B.bench_compile(args.games or None, options=options, players=args.players,
                               policies=args.policies or None)
        if args.json:
            print_json({"bench": rows})
        else:
            print(B.markdown_compile(rows))
        return 0
    if args.exact:
        if args.players is not None or args.policies:
            raise InputError("--exact times the exact solver, which takes no --players or "
                             "--policy")
        rows = B.bench_exact(args.games or None, repeats=args.repeats, options=options)
    else:
        rows = B.bench(args.games or None, seconds=args.seconds, repeats=args.repeats,
                     options=options, players=args.players, policies=args.policies or None)
    given = options is not None or args.players is not None or args.policies
    search = [] if args.exact or given else B.bench_search(
        args.games or None, seconds=args.seconds, repeats=args.repeats)
    if args.json:
        print_json({"bench": rows, **({"search": search} if search else {})})
    else:
        print((B.markdown_exact if args.exact else B.markdown_table)(rows))
        if search:
            print("\n" + B.markdown_search(search))
    return 0


def main(argv=None) -> int:
    """Entry point: one line on stderr and exit 2 for bad input or a failed write, 130 for
    Ctrl-C, 143 for SIGTERM (a results file being written is removed, never left half)."""
    old = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        args = build_parser().parse_args(argv)
        if args.cmd in STUDY_COMMANDS:
            return _study_module(args.cmd).run(args)
        return {"games": _cmd_games, "simulate": _cmd_simulate, "odds": _cmd_odds,
                "trace": _cmd_trace, "bench": _cmd_bench}[args.cmd](args)
    except InputError as e:
        print(f"vikingsim: error: {e}", file=sys.stderr)
        return 2
    except PolicyError as e:
        print(f"vikingsim: policy error: {e}", file=sys.stderr)
        return 1
    except Terminated:
        print("vikingsim: terminated (SIGTERM); nothing was written", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("vikingsim: interrupted; nothing was written", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except MemoryError:
        print("vikingsim: error: out of memory (use a smaller -n or --out to stream rows)",
              file=sys.stderr)
        return 2
    except OSError as e:
        print(f"vikingsim: error: {e.strerror or e}"
              f"{f': {e.filename}' if getattr(e, 'filename', None) else ''}", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGTERM, old)


if __name__ == "__main__":
    sys.exit(main())
