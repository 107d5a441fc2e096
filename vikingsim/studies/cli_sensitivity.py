"""`vikingsim sensitivity GAME --params-space FILE`: Sobol' indices or Morris screening of the
game's headlines over ranges of its invented numbers (``vikingsim.studies.sensitivity``)."""
from __future__ import annotations

from vikingsim.core import config

HELP = "global sensitivity (SALib Sobol'/Morris) of headlines to invented numbers"
EXAMPLES = """scheme: SALib samples the ranges of the params-space file; every point is one cell of
one study (common seeds, tallies only), played by the study runner (resumable, local or Dask);
SALib's analysis of the stored counts gives first-order and total indices (Sobol') or mu*
(Morris) with bootstrap intervals, and the Monte Carlo noise share says whether -n games per
point is enough. Input files of the points and the generated study file go to OUT.inputs/.

examples:
  vikingsim sensitivity tevragnarok --params-space experiments/tevragnarok_sensitivity.toml \\
      --samples 64 -n 1000 --out results/tev-sens
  vikingsim sensitivity tevragnarok --params-space experiments/tevragnarok_sensitivity.toml \\
      --method morris --samples 20 -n 2000
  vikingsim sensitivity tevragnarok --params-space FILE --samples 1024 -n 1250 --resume
  vikingsim report results/tev-sens          # the indices, findings and bar chart"""


def add_arguments(p) -> None:
    from vikingsim.studies.cli_experiment import add_run_arguments

    p.add_argument("game", help="a game (see 'vikingsim games')")
    p.add_argument("--params-space", required=True, metavar="FILE",
                   help="TOML naming the inputs (options or dotted paths into an option's "
                   "file) with low/high, and the headlines")
    p.add_argument("--method", default="sobol", help="sobol (Saltelli sampling, default) or "
                   "morris (screening)")
    p.add_argument("--samples", type=int, default=256, metavar="N",
                   help="Sobol': base samples, a power of 2 (points = N(2D+2), or N(D+2) with "
                   "--first-order); Morris: trajectories (points = N(D+1)); default 256")
    p.add_argument("--first-order", action="store_true",
                   help="Sobol': no second-order indices (N(D+2) points instead of N(2D+2))")
    p.add_argument("-n", type=int, default=2000, help="games per point (default 2000)")
    p.add_argument("--seed", type=int, default=config.SEED,
                   help=f"root seed of the games and the sample (default {config.SEED})")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="study folder (default results/sensitivity-GAME)")
    add_run_arguments(p, "sensitivity study")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    from vikingsim.core.console import print_json
    from vikingsim.studies.cli_experiment import stopped
    from vikingsim.core.runner import check_count
    from vikingsim.studies.sensitivity import report_findings, report_tables, run_sensitivity
    from vikingsim.studies.spec import MAX_GAMES

    check_count("-n", args.n, 1, MAX_GAMES)
    try:
        res = run_sensitivity(args.game, args.params_space, method=args.method,
                              samples=args.samples, games=args.n, seed=args.seed,
                              out=args.out, resume=args.resume, backend=args.backend,
                              workers=args.workers, scheduler=args.scheduler,
                              second_order=not args.first_order, progress=not args.quiet)
    except KeyboardInterrupt as stop:     # run_study said which chunks are saved (one line)
        return stopped(stop)
    data = res.open()
    tables, findings = report_tables(data), report_findings(data)
    if args.json:
        print_json({"study": res.manifest["name"], "out": str(res.root),
                    "elapsed_s": round(res.elapsed_s, 3), "points": len(res.manifest["cells"]),
                    "games_per_point": args.n, "findings": findings,
                    **{k.replace(" ", "_"): v.to_dict("records") for k, v in tables.items()}})
        return 0
    m = res.manifest
    print(f"study {m['name']} ({m['game']}): {len(m['cells']):,} points x {args.n:,} games, "
          f"{res.chunks_run} chunks played, {res.chunks_resumed} resumed, "
          f"{res.elapsed_s:.1f} s -> {res.root}")
    for title, df in tables.items():
        print(f"\n{title}:\n{df.to_string(index=False, float_format=lambda x: f'{x:.3f}')}")
    print("\nfindings:\n" + "\n".join(f"- {f}" for f in findings))
    return 0
