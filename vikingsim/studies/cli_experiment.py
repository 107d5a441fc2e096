"""`vikingsim experiment FILE`: run a study file into a resumable Parquet dataset."""
from __future__ import annotations


HELP = "run a study file (experiments/*.toml) into a chunked, resumable Parquet dataset"
EXAMPLES = """examples:
  vikingsim experiment experiments/raidboard_seats.toml            # into results/raidboard_seats
  vikingsim experiment experiments/raidboard_seats.toml --resume   # after Ctrl-C or a crash
  vikingsim experiment experiments/raidboard_seats.toml --backend dask --workers 2
  vikingsim experiment STUDY.toml --backend dask --scheduler tcp://10.0.0.5:8786 --out /nfs/r/x
  vikingsim experiment experiments/raidboard_seat0_edge.toml --stop-when-decided --json
  vikingsim experiment experiments/raidboard_billion.toml --games 20000 --out /tmp/billion-small"""


def add_arguments(p) -> None:
    p.add_argument("file", help="study file (TOML; see experiments/README.md)")
    p.add_argument("--out", default=None, help="output folder (default results/<study name>)")
    p.add_argument("--games", type=int, default=None, metavar="N",
                   help="play N games per cell instead of the file's games (a small version "
                   "of the study, e.g. to check a file: another study, so another --out; "
                   "study.json records it as games_override)")
    add_run_arguments(p)
    p.add_argument("--stop-when-decided", action="store_true",
                   help="stop each cell once the SPRT of the file's [stop] table decides; "
                   "checked once per chunk, it is valid but conservative: its errors fall "
                   "below alpha and beta (about 1%% for 5%% with the example's 16,384-game "
                   "chunks; vikingsim.stats.SPRT(p0, p1).error_rates(chunk) gives them)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def add_run_arguments(p, what: str = "study") -> None:
    """The study runner's options, shared by every command that runs a study (experiment,
    tournament, balance): --backend, --scheduler, --workers, --resume, --quiet."""
    p.add_argument("--backend", default="local", help="local (threads, default) or dask")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="with --backend dask: a running scheduler (default: a LocalCluster)")
    p.add_argument("--workers", type=int, default=None,
                   help="chunks at once: threads (local) or LocalCluster workers (default: "
                   "all cores)")
    p.add_argument("--resume", action="store_true",
                   help=f"continue a stopped run of the same {what} (finished chunks are kept)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def stopped(stop: KeyboardInterrupt) -> int:
    """Exit code of a run stopped by SIGTERM (143) or Ctrl-C (130); the runner has said in
    one line which chunks are saved."""
    from vikingsim.core.console import Terminated

    return 143 if isinstance(stop, Terminated) else 130


def run(args) -> int:
    from vikingsim.core.console import print_json
    from vikingsim.studies.kinds import expand, write_results
    from vikingsim.studies.run import run_study
    from vikingsim.studies.spec import load_study

    study = expand(load_study(args.file))       # a kind's file may make its own cells
    try:
        res = run_study(study, args.out, backend=args.backend, workers=args.workers,
                        scheduler=args.scheduler, resume=args.resume,
                        stop_when_decided=args.stop_when_decided, progress=not args.quiet,
                        games=args.games)
    except KeyboardInterrupt as stop:     # run_study said which chunks are saved (one line)
        return stopped(stop)
    files = write_results(study, res.root)      # e.g. a tournament's tables, as its command
    if args.json:
        print_json({**res.to_json(), **({"files": [str(p) for p in files]} if files else {})})
    else:
        print(summary_table(res))
        if files:
            print(f"wrote {', '.join(p.name for p in files)} in {res.root}/")
    return 0


def summary_table(res) -> str:
    """One line per cell: games, decision and the headline metrics with 95% intervals."""
    import pandas as pd

    m = res.manifest
    df = res.open().summary()
    metrics = m["report"].get("metrics") or _default_metrics(m["game"])
    df = df[df["metric"].isin(metrics)]
    name = df["metric"] + df["seat"].map(lambda s: "" if pd.isna(s) else f"[{s}]")
    text = [f"{v:.4f} [{lo:.4f}, {hi:.4f}]" if lo == lo else f"{v:.4g}"
            for v, lo, hi in zip(df["value"], df["lo"], df["hi"])]
    table = pd.DataFrame({"cell": df["cell"], "name": name, "text": text}).pivot(
        index="cell", columns="name", values="text")
    cells = pd.DataFrame(m["cells"]).set_index("cell")
    table.insert(0, "decided", cells["decided"].fillna("-"))
    table.insert(0, "games", cells["games_done"].map("{:,}".format))
    table.insert(0, "label", cells["label"])
    head = (f"study {m['name']} ({m['game']}): {len(m['cells'])} cells, "
            f"{res.chunks_run} chunks played, {res.chunks_resumed} resumed, "
            f"{res.elapsed_s:.1f} s -> {res.root}")
    return head + "\n" + table.fillna("").to_string()


def _default_metrics(game: str) -> list[str]:
    from vikingsim.games import get

    spec = get(game)
    return ["win_rate"] if spec.seated else [f"p_{spec.outcomes[0]}"]
