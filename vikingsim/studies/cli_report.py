"""`vikingsim report results/NAME [--out FILE.html]`: a study's self-contained HTML report
(``vikingsim.studies.report``, a package by layer: counts, tables, words, figures, page)."""
from __future__ import annotations

HELP = "write a study's HTML report: win rates with intervals, heatmaps, findings"
EXAMPLES = """examples:
  vikingsim report results/raidboard_seats          # writes results/raidboard_seats/report.html
  vikingsim report results/raidboard_seats --out seats.html
  vikingsim report results/raidboard_seats --quiet  # no findings on stdout
  vikingsim report results/raidboard_seats --from-rows  # count from the rows (a check)"""


def add_arguments(p) -> None:
    p.add_argument("study", help="study folder written by 'vikingsim experiment' "
                   "(results/NAME, with study.json and data/)")
    p.add_argument("--out", default=None, metavar="FILE.html",
                   help="where to write the page (default: STUDY/report.html)")
    p.add_argument("--from-rows", action="store_true",
                   help="count everything from the per-game rows instead of the chunks' "
                   "tallies (slower; a check)")
    p.add_argument("--quiet", action="store_true", help="print only the file written")


def run(args) -> int:
    from vikingsim.studies.balance import study_folder
    from vikingsim.studies.report import write_report

    path, words = write_report(study_folder(args.study), args.out,
                               source="rows" if args.from_rows else "auto")
    if not args.quiet:
        print("\n".join(words))
    print(f"wrote {path}")
    return 0
