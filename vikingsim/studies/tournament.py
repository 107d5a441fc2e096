"""Tournaments between policies of a seated game (``vikingsim tournament``).

Lineup scheme (any seat count K >= 2). For every ordered pair of policies (a, b), a == b
included, the *focal* policy a sits alone among K-1 copies of b, once in every seat j = 0..K-1
(K lineups). Every lineup plays the same n games: the same root seed, so the same dice streams
(common random numbers); lineups differ only by who sits where. Identical lineups (e.g. the K
rotations of a vs a, or (a, b) with a in seat 0 and (b, a) with b in seat 1 when K = 2) are
therefore the same games and are played once.

Measures:

- ``M[a, b]``: the share of the K·n games of (a, b) won by the focal a (truncated games count
  for nobody). Fair is 1/K; "a beats b" means M[a, b] > 1/K: a lone a among b's wins more than
  its fair share. For K = 2 this is the usual head-to-head rate, and M[a, b] + M[b, a] is the
  share of decided games (1 without truncation). M[a, a] is the decided share over K exactly.
  Wilson 95% intervals (``core.balance_stats.interval``) over the K·n games, treated as
  independent (the K rotations of one seed share dice streams; on the raid board their
  focal wins correlate at about 0.003, see docs/balancing.md).
- Seat win rates over the distinct lineups, each counted once (its n games were played once;
  the K rotations of a among a's are one lineup): each policy still sits in each seat equally
  often. The first-seat win rate is that of seat 0, or of the game's ``first_seat`` option if
  it has one.
- Ratings: a Bradley-Terry / Luce model of the winner, P(a wins | a among K-1 b's, decided) =
  pi_a / (pi_a + (K-1) pi_b), fitted as a binomial GLM (statsmodels) on the off-diagonal cells
  with offset -log(K-1); ratings theta = log pi centred to mean 0 with 95% intervals from the
  fit's covariance, also on the Elo scale (400 / ln 10 per unit of theta).
"""
from __future__ import annotations

import json
import math
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from vikingsim.core import config
from vikingsim.core.console import json_safe
from vikingsim.core.balance_stats import interval
from vikingsim.core.errors import InputError, warn
from vikingsim.core.game import GameSpec

ELO_PER_UNIT = 400.0 / math.log(10.0)
Z95 = 1.959963984540054
MAX_LINEUPS = 5_000
#: The result set ``Tournament.write`` puts in ``--out``, in the order written.
FILES = ("pairs.csv", "matrix.csv", "seats.csv", "ratings.csv", "lineups.parquet",
         "tournament.json", "heatmap.png")


# ---- input ---------------------------------------------------------------------------------
def split_policies(text: str) -> list[str]:
    """``"a,b(k=1, j=2),c"`` -> ``["a", "b(k=1, j=2)", "c"]``: commas inside brackets stay."""
    if not isinstance(text, str):
        raise InputError(f"--policies must be a comma-separated list, got {text!r}")
    parts, depth, cur = [], 0, []
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            raise InputError(f"--policies {text!r}: unbalanced ')'")
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise InputError(f"--policies {text!r}: unbalanced '('")
    parts.append("".join(cur).strip())
    if any(not p for p in parts):
        raise InputError(f"--policies {text!r}: an empty policy name")
    return parts


def check_game(spec: GameSpec) -> None:
    """Tournaments need a winner seat per game (``GameSpec.seated``)."""
    if not spec.seated:
        from vikingsim.games import get, names

        seated = [n for n in names() if get(n).seated]
        raise InputError(f"{spec.name} has no winner seat per game (its outcomes are "
                         f"{', '.join(spec.outcomes)}), so policies cannot be ranked by seat; "
                         f"tournaments run on seated games: {', '.join(seated)}")


def resolve_entrants(spec: GameSpec, policies, players) -> tuple[list[str], int]:
    """Canonical labels of at least two distinct policies, and the seat count."""
    from vikingsim.core.runner import policy_label, resolve_policies

    texts = split_policies(policies) if isinstance(policies, str) else list(policies or [])
    if len(texts) < 2:
        raise InputError(f"a tournament needs at least 2 policies, got {len(texts)}: "
                         f"give --policies a,b[,c...]")
    labels = [policy_label(spec, t) for t in texts]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise InputError(f"policy {dup[0]!r} given twice (policies are compared by their "
                         f"canonical labels: {', '.join(labels)})")
    _, players = resolve_policies(spec, labels[:1], spec.players[2] if players is None
                                  else players)
    return labels, players


# ---- lineups -------------------------------------------------------------------------------
def lineup_plan(m: int, k: int) -> list[tuple[int, int, int, tuple]]:
    """(a, b, focal seat j, lineup) for every ordered pair (a, b) of m policies and seat j of
    k: seat j holds a, the other seats b (policy indices)."""
    plan = []
    for a in range(m):
        for b in range(m):
            for j in range(k):
                plan.append((a, b, j, tuple(a if s == j else b for s in range(k))))
    return plan


@dataclass
class Tournament:
    """The result: per-lineup seat wins and the tables derived from them."""

    game: str
    policies: list
    players: int
    n: int
    seed: int
    options: dict
    lineups: pd.DataFrame            # one row per distinct lineup and seat
    pairs: pd.DataFrame              # one row per ordered pair (policy, opponent)
    seats: pd.DataFrame              # one row per seat
    ratings: pd.DataFrame            # one row per policy
    first_seat: int = 0
    games_played: int = 0
    notes: list = field(default_factory=list)
    warnings: list = field(default_factory=list)     # already printed on stderr

    @property
    def decided(self) -> int:
        """Games won by someone, over the distinct lineups (truncated games are nobody's)."""
        return int(self.lineups["wins"].sum())

    @property
    def matrix(self) -> pd.DataFrame:
        """M[a, b] as a policy x opponent table (rows and columns in the given order)."""
        m = self.pairs.pivot(index="policy", columns="opponent", values="win_rate")
        return m.loc[self.policies, self.policies]

    def summary(self) -> dict:
        """JSON-ready: the scheme, matrix with intervals, seats and ratings."""
        first = self.seats.iloc[self.first_seat]
        return {
            "game": self.game, "policies": self.policies, "players": self.players,
            "n_per_lineup": self.n, "seed": self.seed, "options": self.options,
            "games_played": self.games_played, "fair": 1.0 / self.players,
            "scheme": (f"each ordered pair (a, b): one a and {self.players - 1} b's, a rotated "
                       f"over all {self.players} seats, common seeds; win_rate = share of "
                       f"games won by a (fair 1/{self.players})"),
            "matrix": self.matrix.to_numpy().tolist(),
            "pairs": self.pairs.to_dict(orient="records"),
            "first_seat": {"seat": self.first_seat, "win_rate": float(first["win_rate"]),
                           "win_rate_ci": [float(first["ci_lo"]), float(first["ci_hi"])]},
            "seats": self.seats.to_dict(orient="records"),
            "ratings": self.ratings.to_dict(orient="records"),
            "notes": self.notes, "warnings": self.warnings,
        }

    def write(self, out_dir) -> list[Path]:
        """CSV and Parquet tables, the summary JSON and a heatmap PNG into ``out_dir`` (the
        tournament's study folder, or any folder), as one set: every file is first written
        under a hidden temp name (``core.atomic``), then all are renamed into place, so a
        failure midway, such as a full disk, leaves the earlier set as it was."""
        from vikingsim.core import atomic

        folder = check_out(out_dir)
        files = {
            "pairs.csv": lambda p: self.pairs.to_csv(p, index=False),
            "matrix.csv": lambda p: self.matrix.to_csv(p),
            "seats.csv": lambda p: self.seats.to_csv(p, index=False),
            "ratings.csv": lambda p: self.ratings.to_csv(p, index=False),
            "lineups.parquet": lambda p: self.lineups.to_parquet(p, index=False),
            "tournament.json": lambda p: Path(p).write_text(json.dumps(
                json_safe(self.summary()), indent=1)),
            "heatmap.png": lambda p: heatmap(self, p),
        }
        assert tuple(files) == FILES
        temps = {name: atomic.temp_name(folder / name) for name in files}
        made = not folder.exists()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for name, write in files.items():
                write(temps[name])
            for name in files:
                atomic.commit(temps[name], folder / name)
        except OSError as e:
            for tmp in temps.values():
                atomic.discard(tmp)
            if made and folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()                       # a new folder: nothing left behind
            raise InputError(f"cannot write --out {str(out_dir)!r}: {e.strerror or e} (the "
                             f"earlier files are as they were)") from None
        finally:
            for tmp in temps.values():
                atomic.discard(tmp)
        return [Path(out_dir) / name for name in files]


def check_out(out) -> Path:
    """Before any game is played: ``out`` names a folder (or none yet) under a folder that
    takes new files. Whether it may hold the tournament's study (a new or empty folder, or
    with ``--resume`` one holding the same study) is the study runner's check."""
    given = Path(out)
    path = Path(os.path.abspath(given))
    if not path.name or path.name == "..":
        raise InputError(f"--out {str(given)!r}: give a folder name")
    try:
        if path.exists() and not path.is_dir():
            raise InputError(f"--out {str(given)!r} is a file, not a folder")
        _probe_parent(path, given)
    except OSError as e:
        raise InputError(f"cannot write --out {str(given)!r}: {e.strerror or e}") from None
    return path


def _probe_parent(path: Path, given: Path) -> None:
    """The nearest existing ancestor is a folder that takes a temp folder (a name too long
    for the file system fails in ``exists`` already, as an OSError)."""
    import tempfile

    anc = path.parent
    while not anc.exists():
        anc = anc.parent
    if not anc.is_dir():
        raise InputError(f"cannot create --out {str(given)!r}: {str(anc)!r} is a file")
    os.rmdir(tempfile.mkdtemp(prefix=".vikingsim-probe.", dir=anc))


# ---- the run: a generated study whose cells are the lineups ---------------------------------
def run_tournament(game, policies, *, players=None, n: int = 20_000, seed: int = config.SEED,
                   options: dict | None = None, threads: int | None = None, out=None,
                   backend: str = "local", workers: int | None = None,
                   scheduler: str | None = None, resume: bool = False, progress: bool = False,
                   chunk_games: int | None = None) -> Tournament:
    """Play the tournament (see the module docstring) and return a :class:`Tournament`.

    ``policies``: a comma-separated text or a list of policy texts (``name(k=v)`` allowed).
    ``n``: games per lineup; every lineup uses root ``seed`` (common random numbers).

    The lineups are the cells of a generated study (:func:`tournament_study`, kind
    "tournament", common seeds: each lineup plays the games of ``simulate(..., seed=seed)``),
    run by the study runner into ``out`` (a temporary folder when None); every table is then
    read from the stored counts (:func:`from_study`). ``backend``, ``workers`` (``threads``
    is its older name), ``scheduler`` and ``resume`` are those of ``run_study``; the result
    does not depend on them."""
    import tempfile

    from vikingsim.studies.dataset import open_study
    from vikingsim.studies.run import run_study

    study = tournament_study(game, policies, players=players, n=n, seed=seed,
                             options=options, chunk_games=chunk_games)
    kw = dict(backend=backend, workers=threads if workers is None else workers,
              scheduler=scheduler, resume=resume, progress=progress)
    if out is None:
        with tempfile.TemporaryDirectory(prefix="vikingsim-tournament-") as tmp:
            run_study(study, Path(tmp) / "t", **kw)
            t = from_study(open_study(Path(tmp) / "t"))
    else:
        _refuse_older(out)
        run_study(study, out, **kw)
        t = from_study(open_study(out))
    for w in t.warnings:                          # said once, on stderr; kept in the summary
        warn(w)
    return t


def _refuse_older(out) -> None:
    """InputError for a folder holding only the tables of a tournament made before
    tournaments were studies (no ``study.json``): the runner would call it a non-empty
    folder; this says what it is."""
    path = Path(out)
    names = {p.name for p in path.iterdir()} if path.is_dir() else set()
    if names and names <= set(FILES):
        raise InputError(f"--out {str(out)!r} holds the tables of a tournament made before "
                         f"tournaments were studies (no study.json): remove the folder or "
                         f"give another --out")


def tournament_study(game, policies, *, players=None, n: int = 20_000,
                     seed: int = config.SEED, options: dict | None = None,
                     chunk_games: int | None = None):
    """The tournament as a checked generated study: one ``[[cases]]`` cell per distinct
    lineup (``policy.<seat>`` knobs; lineups sorted by their policy indices), ``n`` games
    per cell, ``common_seeds = true``; ``[report]`` keeps the policies, seats and first
    seat. Every lineup is checked by the game's setup before any game is played."""
    from vikingsim.studies.spec import study_from_dict

    data = _tournament_data(game, policies, players=players, n=n, seed=seed, options=options)
    if chunk_games is not None:
        data["chunk_games"] = chunk_games
    return study_from_dict(data, Path.cwd() / f"{data['name']}.toml")


def _tournament_data(game, policies, *, players, n, seed, options) -> dict:
    """The keys of :func:`tournament_study`'s study (a study file's, as a dict)."""
    from vikingsim.core.options import resolve
    from vikingsim.core.runner import check_count
    from vikingsim.games import get

    spec = game if isinstance(game, GameSpec) else get(game)
    check_game(spec)
    n = check_count("n", n, 1, 10**9)
    seed = check_count("seed", seed, 0, 2**63 - 1)
    labels, k = resolve_entrants(spec, policies, players)
    opts = resolve(spec.name, spec.options, dict(options or {}))
    distinct = sorted({lu for *_, lu in lineup_plan(len(labels), k)})
    if len(distinct) > MAX_LINEUPS:
        raise InputError(f"{len(distinct):,} lineups: at most {MAX_LINEUPS:,} (fewer policies)")
    return {"name": f"tournament-{spec.name}", "kind": "tournament", "game": spec.name,
            "title": f"{spec.name} tournament: {', '.join(labels)} ({k} players)",
            "players": k, "games": n, "seed": seed, "common_seeds": True, "rows": False,
            "options": dict(options or {}),
            "cases": [{f"policy.{s}": labels[p] for s, p in enumerate(lu)} for lu in distinct],
            "report": {"policies": labels, "players": k,
                       "first_seat": int(opts.get("first_seat", 0))}}


# ---- a study file of kind "tournament" (vikingsim experiment FILE, studies.kinds) -----------
def expand_study(study):
    """A study file of kind "tournament" made into the study ``vikingsim tournament`` runs
    from the same values: its entrants are ``policies`` (or, as in the study a run keeps,
    ``[report] policies``), with ``players``, ``games`` (per lineup), ``seed``, ``[options]``
    and ``chunk_games``; the file's name, title and other ``[report]`` keys are kept. No
    ``[grid]``; ``[[cases]]`` only as the lineups themselves (the text a run keeps reads
    back as the same study)."""
    import tomllib

    where = f"study file {study.path!r}: a kind = \"tournament\" study"
    data = tomllib.loads(study.text)
    report = dict(data.get("report", {}))
    if study.grid:
        raise InputError(f"{where} makes its cells from its policies (every lineup); drop "
                         f"[grid]")
    if data.get("common_seeds") is False:
        raise InputError(f"{where} plays every lineup on common seeds; drop common_seeds = "
                         f"false")
    if study.stop is not None:
        raise InputError(f"{where} plays every lineup's games (its tables need them all); "
                         f"drop [stop]")
    entrants = data.get("policies", report.get("policies"))
    if entrants is None:
        raise InputError(f"{where} names its entrants: policies = [\"a\", \"b\", ...]")
    made = _tournament_data(study.game, entrants, players=data.get("players"), n=study.games,
                            seed=study.seed, options=data.get("options"))
    if "policies" in data and "policies" in report and report["policies"] != \
            made["report"]["policies"]:
        raise InputError(f"{where}: policies and [report] policies differ")
    if "cases" in data and data["cases"] != made["cases"]:
        raise InputError(f"{where} makes its cells from its policies (every lineup); drop "
                         f"[[cases]]")
    made.update(name=study.name, title=study.title or made["title"],
                rows=data.get("rows", False), report={**report, **made["report"]})
    if "chunk_games" in data:
        made["chunk_games"] = data["chunk_games"]
    from vikingsim.studies.spec import study_from_dict

    return study_from_dict(made, Path(study.path))


def write_results(root) -> list[Path]:
    """The tables ``vikingsim tournament`` writes beside its study (``Tournament.write``),
    for the finished study folder ``root`` of a tournament file run by ``vikingsim
    experiment``; its warnings said on stderr."""
    from vikingsim.studies.dataset import open_study

    t = from_study(open_study(root))
    for w in t.warnings:
        warn(w)
    return t.write(root)


def from_study(data) -> Tournament:
    """The tournament of a finished study folder of kind "tournament" (``open_study``): every
    lineup's seat wins read as integers from its stored tallies (``cell_tally`` +
    ``tally_counts``), then the tables. InputError (one line) for another kind of study or
    an unfinished one."""
    from vikingsim.core.game import tally_counts
    from vikingsim.games import get
    from vikingsim.studies.dataset import cell_tally

    m = data.manifest
    if m.get("kind") != "tournament":
        raise InputError(f"{str(data.root)!r} holds a study of kind {m.get('kind')!r}, not a "
                         f"tournament")
    spec, rep = get(m["game"]), m["report"]
    labels, k = list(rep["policies"]), int(rep["players"])
    wins, n = {}, int(m["cells"][0]["games"])
    for entry in m["cells"]:
        tally, games = cell_tally(data.root, entry["cell"])
        if games != entry["games"]:
            raise InputError(f"{str(data.root)!r}: lineup {entry['cell']} has {games:,} of "
                             f"{entry['games']:,} games; finish the run with --resume")
        lineup = tuple(labels.index(p) for p in entry["policies"])
        wins[lineup] = [int(w) for w in tally_counts(spec, tally, games).wins]
    options = m["cells"][0]["options"]
    return tournament_tables(spec.name, labels, k, n, m["root_seed"], options, wins,
                             int(rep.get("first_seat", 0)))


def tournament_tables(game: str, labels: list, k: int, n: int, seed: int, options: dict,
                      wins: dict, first_seat: int = 0) -> Tournament:
    """A :class:`Tournament` from every distinct lineup's seat wins (``wins[lineup]``: one
    integer per seat, n games per lineup): lineups, pairs, seats and ratings tables."""
    plan = lineup_plan(len(labels), k)
    distinct = sorted(wins)
    t = Tournament(game, labels, k, n, seed, options,
                   lineups=_lineup_table(labels, distinct, wins, n),
                   pairs=_pair_table(labels, plan, wins, n, k),
                   seats=_seat_table(distinct, wins, n, k),
                   ratings=pd.DataFrame(), first_seat=first_seat,
                   games_played=n * len(distinct))
    t.ratings, note = fit_ratings(t.pairs, labels, k)
    undecided = _undecided_note(distinct, wins, n)
    if undecided:
        t.warnings.append(undecided)
    if note and t.decided:                      # nothing decided: the warning says it all
        t.notes.append(note)
    return t


def _undecided_note(distinct, wins, n) -> str | None:
    """One sentence when every game of some (or all) lineups hit the safety cap."""
    empty = sum(1 for lu in distinct if sum(wins[lu]) == 0)
    cap = "raise the cap option (max_rounds / max_rolls / max_turns) or check the options"
    if empty == len(distinct):
        return (f"nothing was decided: all {n * len(distinct):,} games hit the safety cap "
                f"(truncated, no result), so no pair has a verdict and no policy a rating; {cap}")
    if empty:
        return (f"every game of {empty} of {len(distinct)} lineups hit the safety cap (truncated, "
                f"no result): a cell with no decided game has no verdict; {cap}")
    return None


def _ci(k: int, n: int) -> tuple[float, float]:
    return interval(int(k), int(n)) if n > 0 else (float("nan"), float("nan"))


def _lineup_table(labels, distinct, wins, n) -> pd.DataFrame:
    rows = []
    for i, lu in enumerate(distinct):
        text = " | ".join(labels[p] for p in lu)
        for seat, p in enumerate(lu):
            lo, hi = _ci(wins[lu][seat], n)
            rows.append({"lineup_id": i, "lineup": text, "seat": seat, "policy": labels[p],
                         "wins": wins[lu][seat], "games": n, "win_rate": wins[lu][seat] / n,
                         "ci_lo": lo, "ci_hi": hi})
    return pd.DataFrame(rows)


def _pair_table(labels, plan, wins, n, k) -> pd.DataFrame:
    """M[a, b] with Wilson intervals; ``field_wins`` = decided games the b's won."""
    acc = {}
    for a, b, j, lu in plan:
        w = acc.setdefault((a, b), [0, 0, 0])
        w[0] += wins[lu][j]
        w[1] += sum(wins[lu]) - wins[lu][j]
        w[2] += n
    rows = []
    for (a, b), (fw, other, games) in acc.items():
        lo, hi = _ci(fw, games)
        rows.append({"policy": labels[a], "opponent": labels[b], "wins": fw,
                     "field_wins": other, "games": games, "win_rate": fw / games,
                     "ci_lo": lo, "ci_hi": hi, "fair": 1.0 / k,      # no verdict if undecided
                     "beats": bool(fw / games > 1.0 / k) if fw + other else None})
    return pd.DataFrame(rows)


def _seat_table(distinct, wins, n, k) -> pd.DataFrame:
    """Seat wins over the distinct lineups, each once: n games per lineup actually played."""
    seat_w = np.zeros(k, np.int64)
    for lu in distinct:
        seat_w += np.asarray(wins[lu], np.int64)
    games = n * len(distinct)
    rows = []
    for s in range(k):
        lo, hi = _ci(int(seat_w[s]), games)
        rows.append({"seat": s, "wins": int(seat_w[s]), "games": games,
                     "win_rate": seat_w[s] / games, "ci_lo": lo, "ci_hi": hi})
    return pd.DataFrame(rows)


# ---- ratings -------------------------------------------------------------------------------
def fit_ratings(pairs: pd.DataFrame, labels: list, k: int) -> tuple[pd.DataFrame, str | None]:
    """Bradley-Terry/Luce ratings from the off-diagonal cells (module docstring): a binomial
    GLM (statsmodels) with +1 for the focal policy, -1 for the opponent, the first policy as
    the reference, offset -log(K-1); then centred to mean 0 with the delta-method covariance.
    Returns (table, note); the note explains NaN ratings when the fit fails."""
    import statsmodels.api as sm
    from statsmodels.tools.sm_exceptions import PerfectSeparationError, PerfectSeparationWarning

    m = len(labels)
    index = {p: i for i, p in enumerate(labels)}
    off = pairs[pairs["policy"] != pairs["opponent"]]
    off = off[(off["wins"] + off["field_wins"]) > 0]
    X = np.zeros((len(off), m))
    for r, (a, b) in enumerate(zip(off["policy"], off["opponent"])):
        X[r, index[a]] += 1.0
        X[r, index[b]] -= 1.0
    y = np.column_stack([off["wins"].to_numpy(float), off["field_wins"].to_numpy(float)])
    beta, cov = np.full(m - 1, np.nan), np.full((m - 1, m - 1), np.nan)
    note = _separated(labels, X, y)
    if note is None:
        try:
            with warnings.catch_warnings():
                # a saturated fit (e.g. two policies, two seats: the two cells are complements
                # under common seeds) predicts the data exactly, which statsmodels reports as
                # "perfect prediction"; true separation was ruled out above
                warnings.simplefilter("ignore", RuntimeWarning)
                warnings.simplefilter("ignore", PerfectSeparationWarning)
                fit = sm.GLM(y, X[:, 1:], family=sm.families.Binomial(),
                             offset=np.full(len(off), -math.log(k - 1))).fit()
            beta, cov = np.asarray(fit.params), np.asarray(fit.cov_params())
            if not np.all(np.isfinite(cov)):
                raise ValueError("singular covariance")
        except (PerfectSeparationError, ValueError, np.linalg.LinAlgError) as e:
            beta, cov = np.full(m - 1, np.nan), np.full((m - 1, m - 1), np.nan)
            note = f"ratings not fitted ({type(e).__name__}: {str(e)[:80]}); play more games (-n)"
    A = np.vstack([np.zeros(m - 1), np.eye(m - 1)])      # theta = A beta (theta_0 = 0)
    T = (np.eye(m) - 1.0 / m) @ A                       # centred
    theta, se = T @ beta, np.sqrt(np.clip(np.diag(T @ cov @ T.T), 0, None))
    df = pd.DataFrame({"policy": labels, "rating": theta, "se": se,
                       "ci_lo": theta - Z95 * se, "ci_hi": theta + Z95 * se})
    for c in ("rating", "ci_lo", "ci_hi"):
        df[f"elo_{c.replace('rating', 'score')}"] = df[c] * ELO_PER_UNIT
    return df.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True), note


def _separated(labels, X, y) -> str | None:
    """A note if some policy won, or lost, every decided game it played (no finite MLE)."""
    won = np.clip(X, 0, None).T @ y[:, 0] + np.clip(-X, 0, None).T @ y[:, 1]
    lost = np.clip(X, 0, None).T @ y[:, 1] + np.clip(-X, 0, None).T @ y[:, 0]
    for p, w, lo in zip(labels, won, lost):
        if w + lo == 0:
            return f"ratings not fitted: {p} played no decided game against another policy"
        if w == 0 or lo == 0:
            return (f"ratings not fitted: {p} {'lost' if w == 0 else 'won'} every decided game "
                    f"against the others (no finite rating); play more games (-n)")
    return None


# ---- figure --------------------------------------------------------------------------------
def heatmap(t: Tournament, path) -> None:
    """M[a, b] as a heatmap (rows: the focal policy, columns: the opponent), centred on fair."""
    from matplotlib.figure import Figure

    data = t.matrix.to_numpy(float)
    m = len(t.policies)
    fig = Figure(figsize=(2.5 + 1.0 * m, 1.8 + 0.8 * m), layout="constrained")
    ax = fig.add_subplot()
    fair = 1.0 / t.players
    span = max(float(np.nanmax(np.abs(data - fair))), 1e-3)
    im = ax.imshow(data, cmap="RdBu", vmin=fair - span, vmax=fair + span)
    ax.set_xticks(range(m), t.policies, rotation=30, ha="right")
    ax.set_yticks(range(m), t.policies)
    ax.set_xlabel(f"opponent ({t.players - 1} seat{'s' if t.players > 2 else ''})")
    ax.set_ylabel("policy (one seat, rotated)")
    ax.set_title(f"{t.game}, {t.players} players: share of games won\n"
                 f"(fair {fair:.3f}; n={t.n:,} per lineup)", fontsize=10)
    fig.colorbar(im, ax=ax)
    ci = t.pairs.set_index(["policy", "opponent"])
    for i, a in enumerate(t.policies):
        for j, b in enumerate(t.policies):
            lo, hi = ci.loc[(a, b), ["ci_lo", "ci_hi"]]
            dark = abs(data[i, j] - fair) > 0.6 * span        # white text on saturated cells
            ax.text(j, i, f"{data[i, j]:.3f}\n[{lo:.3f}, {hi:.3f}]", ha="center",
                    va="center", fontsize=7, color="white" if dark else "black")
    fig.savefig(path, dpi=110, format="png")


def format_text(t: Tournament) -> str:
    """Human-readable tournament summary."""
    fair = 1.0 / t.players
    lines = [f"{t.game}: tournament of {len(t.policies)} policies, {t.players} players, "
             f"n={t.n:,} games per lineup, seed {t.seed} (common seeds), "
             f"{t.games_played:,} games played",
             f"scheme: one policy a among {t.players - 1} x b, a rotated over every seat; "
             f"win rate = share of games a wins (fair {fair:.4f})", "win-rate matrix (row a vs "
             "column b) with 95% Wilson intervals:"]
    if not t.decided:                            # no verdicts, seats or ratings to show
        return "\n".join([*lines[:2], "no game was decided (every one truncated): no verdicts, "
                          "seat rates or ratings"])
    width = max(len(p) for p in t.policies)
    for _, r in t.pairs.iterrows():
        mark = ("no decided game" if r["wins"] + r["field_wins"] == 0 else "beats"
                if r["ci_lo"] > fair else "loses to" if r["ci_hi"] < fair else "~")
        lines.append(f"  {r['policy']:<{width}} vs {r['opponent']:<{width}}  "
                     f"{r['win_rate']:.4f}  [{r['ci_lo']:.4f}, {r['ci_hi']:.4f}]  {mark}")
    lines.append(f"seat win rates (over the {t.lineups['lineup_id'].nunique():,} distinct "
                 f"lineups, each once):")
    for _, r in t.seats.iterrows():
        tag = "  <- first seat" if int(r["seat"]) == t.first_seat else ""
        lines.append(f"  seat {int(r['seat'])}: {r['win_rate']:.4f}  "
                     f"[{r['ci_lo']:.4f}, {r['ci_hi']:.4f}]{tag}")
    lines.append("ratings (Bradley-Terry/Luce, centred; Elo scale in brackets):")
    for _, r in t.ratings.iterrows():
        lines.append(f"  {r['policy']:<{width}}  {r['rating']:+.3f} ± {Z95 * r['se']:.3f}  "
                     f"(Elo {r['elo_score']:+.0f}, 95% [{r['elo_ci_lo']:+.0f}, "
                     f"{r['elo_ci_hi']:+.0f}])")
    lines.extend(f"note: {x}" for x in t.notes)
    return "\n".join(lines)


# ---- vikingsim report (kind "tournament", studies.kinds) -------------------------------------
def report_tables(data) -> dict[str, pd.DataFrame]:
    """The tournament's tables, read from the study's stored counts."""
    t = from_study(data)
    return {"Win-rate matrix (row: the lone policy a; column: the opponent b)":
            t.matrix.rename_axis(index="policy", columns=None).reset_index(),
            "Pairs (M[a, b] with Wilson 95% intervals)": t.pairs,
            "Seats (over the distinct lineups, each once)": t.seats,
            "Ratings (Bradley-Terry/Luce, centred)": t.ratings}


def report_findings(data) -> list[str]:
    """The verdicts in words: every pair whose interval excludes the fair 1/K, the first
    seat's rate and the ratings' order; the warnings and notes of the tables."""
    t = from_study(data)
    out = list(t.warnings)
    if not t.decided:
        return out
    fair = 1.0 / t.players
    for _, r in t.pairs.iterrows():
        if r["ci_lo"] > fair or r["ci_hi"] < fair:
            out.append(f"A lone {r['policy']} among {t.players - 1} {r['opponent']} wins "
                       f"{r['win_rate']:.1%} [{r['ci_lo']:.1%}, {r['ci_hi']:.1%}] of the games: "
                       f"{'more' if r['ci_lo'] > fair else 'less'} than the fair {fair:.1%}.")
    s = t.seats.iloc[t.first_seat]
    out.append(f"The first seat (seat {t.first_seat}) wins {s['win_rate']:.1%} "
               f"[{s['ci_lo']:.1%}, {s['ci_hi']:.1%}] over the {len(t.lineups['lineup_id'].unique()):,} "
               f"distinct lineups (fair {fair:.1%}).")
    if t.ratings["rating"].notna().all():
        order = ", ".join(f"{r['policy']} {r['elo_score']:+.0f}" for _, r in t.ratings.iterrows())
        out.append(f"Ratings on the Elo scale, highest first: {order}.")
    return out + list(t.notes)


def report_figures(data, folder) -> list[Path]:
    """The win-rate heatmap, written atomically into ``folder``."""
    from vikingsim.core.atomic import atomic_write

    t = from_study(data)
    path = Path(folder) / "tournament-heatmap.png"
    Path(folder).mkdir(parents=True, exist_ok=True)
    return [atomic_write(path, lambda p: heatmap(t, p))]
