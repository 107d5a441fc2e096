"""Global sensitivity of a game's answers to its invented numbers (issue 20 §4):
``vikingsim sensitivity GAME --params-space FILE``.

A **params-space file** (TOML) names the inputs and their ranges and the headlines::

    game = "tevragnarok"              # optional: must be the command's GAME
    players = 4                       # optional (the game's default)
    policies = ["greedy_vp"]          # optional, as in a study file
    headlines = ["win_rate[0]", "giant_share", "win_rate[0] - win_rate[3]"]
    common_seeds = true               # optional (default true): every point plays the same seeds

    [options]                         # optional: game options held fixed
    [base]                            # optional: the file each varied file-valued option
    params = "default"                # starts from (a .toml path, or a value of the option
                                      # that names a bundled file; default: the option's fixed
                                      # value, else its default)
    [inputs]
    "params.economy.draft_size[2]" = {low = 4, high = 6}      # an entry of the option's file
    "params.giants.values" = {low = -1, high = 1, add = true}  # added to every entry
    start_gold = {low = 10, high = 30}                         # a plain numeric option

An input names a plain numeric game option or ``<option>.<dotted path>`` inside the TOML file
that option names (``core.inputs.parse_path``: ``key.key[0]``, ``card["Hacksilver"].cost``).
An input whose base value is an integer is sampled as an integer: uniform on ``low..high``
(SALib samples ``[low, high + 1)``, the point takes the floor). ``add = true`` adds the value
to the base entry (each entry of a list).

**Method.** SALib samples the space (Saltelli/Sobol', ``SALib.sample.sobol``, N (D + 2) points,
N (2D + 2) with second order; or Morris, ``SALib.sample.morris``, N (D + 1)); each point is one
cell of one generated study (``kind = "sensitivity"``, ``rows = false``) whose file-valued
options are copies of the base files with the point's values (``core.inputs.write_overridden``,
named by content, in ``<out>.inputs/`` beside the study folder, with the generated study file);
the one runner plays it (resumable, local or Dask). The analysis reads the stored counts and
calls ``SALib.analyze.sobol`` / ``SALib.analyze.morris`` (bootstrap intervals): nothing here
estimates an index by hand.

**Monte Carlo noise.** A point's headline is an estimate from ``n`` games, with variance
``sigma^2`` (binomial ``p (1 - p) / n`` for a win rate or outcome rate, from the integer counts;
``sd^2 / n`` for a mean with its sd; the interval's half-width otherwise). Independent noise
adds ``sigma^2`` to the output's variance: every total index ST is inflated by about the
**noise share** ``s = mean(sigma^2) / var(Y)`` (``ST = ST_true (1 - s) + s`` for an input that
changes the games) and every S1 shrunk by the factor ``1 - s``. Morris' mu* (SALib's unscaled
elementary effects: the change per whole range of the input) has the noise floor
``sqrt(2 sigma^2) sqrt(2 / pi) / delta``, ``delta = levels / (2 (levels - 1))``. With common
seeds (the default) two points that differ only in an input the game ignores play identical
games, so that input's indices are exactly 0; inputs that matter change the games and get the
noise above.
"""
from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vikingsim.core.errors import InputError

METHODS = ("sobol", "morris")
#: Keys of a params-space file.
KEYS = ("game", "players", "policies", "headlines", "common_seeds", "options", "base", "inputs")
INPUT_KEYS = ("low", "high", "integer", "add")
#: Bootstrap resamples of SALib's analyses and their confidence level.
RESAMPLES, CONF_LEVEL = 1000, 0.95
MORRIS_LEVELS = 4
#: Noise share above which a finding says n per point is too small to read the indices.
NOISE_WARN = 0.05
_TERM = re.compile(r"^([A-Za-z_]\w*)(?:\[(\d+)\])?$")


# ---- the params-space file -------------------------------------------------------------------
@dataclass(frozen=True)
class Input:
    """One varied number: a plain option (``path`` None) or an entry of an option's file."""

    name: str
    option: str
    path: str | None
    low: float
    high: float
    integer: bool
    add: bool = False
    base: object = None              # the base value (the file's entry or the option's default)

    @property
    def bounds(self) -> list[float]:
        """SALib's bounds: ``[low, high + 1]`` for an integer (the floor is uniform on
        low..high), else ``[low, high]``."""
        return [float(self.low), float(self.high + 1 if self.integer else self.high)]

    def value(self, x: float):
        """The input's value at SALib's sample ``x``."""
        return min(int(math.floor(x)), int(self.high)) if self.integer else float(x)

    def setting(self, v):
        """What the option or file entry is set to for input value ``v``."""
        if not self.add:
            return v
        if isinstance(self.base, list):
            return [b + v for b in self.base]
        return self.base + v


@dataclass(frozen=True)
class Headline:
    """A headline: ``key``, ``key[seat]`` or the difference ``A - B`` of two of them."""

    text: str
    terms: tuple                     # ((sign, key, index or None), ...)


@dataclass(frozen=True)
class Space:
    path: str
    game: str
    players: int | None
    policies: tuple
    options: dict
    bases: dict                      # file-valued option -> base file (absolute path)
    inputs: tuple
    headlines: tuple
    common_seeds: bool = True
    text: str = field(default="", repr=False)

    @property
    def problem(self) -> dict:
        """SALib's problem dict."""
        return {"num_vars": len(self.inputs), "names": [i.name for i in self.inputs],
                "bounds": [i.bounds for i in self.inputs]}


def load_space(path, game: str) -> Space:
    """Read and check a params-space file for ``game``; InputError (one line) naming the
    first problem: an unknown key, an input whose option or path does not exist in the base
    file, a value that does not fit it, a range the game refuses, a headline of no metric."""
    import tomllib

    p = Path(path)
    where = f"params-space file {str(path)!r}"
    try:
        text = p.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except FileNotFoundError:
        raise InputError(f"{where} does not exist") from None
    except OSError as e:
        raise InputError(f"cannot read {where}: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{where} is not valid TOML: {str(e).splitlines()[0]}") from None
    try:
        return _space(p, text, data, game)
    except InputError as e:
        raise InputError(f"{where}: {e}") from None


def _space(p: Path, text: str, data: dict, game: str) -> Space:
    from vikingsim.core.options import resolve
    from vikingsim.core.runner import resolve_policies
    from vikingsim.games import get

    spec = get(game)
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r}; allowed: {', '.join(KEYS)}")
    if data.get("game", game) != game:
        raise InputError(f"game = {data['game']!r} but the command names {game!r}")
    folder = p.resolve().parent
    options = {k: _local(folder, v) for k, v in _table(data, "options").items()}
    resolve(spec.name, spec.options, options)                     # unknown or bad: one line
    policies = data.get("policies", [])
    policies = [policies] if isinstance(policies, str) else policies
    if not isinstance(policies, list) or not all(isinstance(x, str) for x in policies):
        raise InputError(f"policies = {policies!r} must be a policy text or a list of them")
    players = data.get("players")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int)):
        raise InputError(f"players = {players!r} must be an integer")
    pols, players = resolve_policies(spec, [_local(folder, x) for x in policies] or None,
                                     players)
    raw = _table(data, "inputs")
    if not raw:
        raise InputError("[inputs] names no input: add e.g. \"params.giants.values[0]\" = "
                         "{low = 1, high = 5}")
    bases = {}
    inputs = tuple(_input(spec, name, spec_, options, folder, _table(data, "base"), bases)
                   for name, spec_ in raw.items())
    common = data.get("common_seeds", True)
    if not isinstance(common, bool):
        raise InputError(f"common_seeds = {common!r} must be true or false")
    space = Space(str(p), game, players, tuple(pols), options, bases, inputs,
                  _headlines(spec, data.get("headlines")), common, text)
    _check_corners(spec, space)
    return space


def _table(data: dict, key: str) -> dict:
    v = data.get(key, {})
    if not isinstance(v, dict):
        raise InputError(f"{key} must be a table [{key}]")
    return v


def _local(folder: Path, value):
    from vikingsim.core.inputs import names_file

    if names_file(value) and not Path(value).is_absolute():
        return str(folder / value)
    return value


def _input(spec, name: str, given, options: dict, folder: Path, base_table: dict,
           bases: dict) -> Input:
    """One checked input (the base file of its option found and recorded in ``bases``)."""
    from vikingsim.core.inputs import get_path, parse_path

    if not isinstance(given, dict) or set(given) - set(INPUT_KEYS) \
            or not {"low", "high"} <= set(given):
        raise InputError(f"input {name!r} = {given!r} must be a table {{low = L, high = H}} "
                         f"(optionally integer = true, add = true)")
    low, high = given["low"], given["high"]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (low, high)) \
            or not low < high:
        raise InputError(f"input {name!r}: low and high must be numbers with low < high, got "
                         f"{low!r} and {high!r}")
    add = given.get("add", False)
    option, _, path = name.partition(".")
    known = {o.name: o for o in spec.options}
    if option not in known:
        raise InputError(f"input {name!r}: {option!r} is no {spec.name} option; options: "
                         f"{', '.join(known)}")
    if not path:
        base = options.get(option, known[option].default)
        if known[option].kind not in ("int", "float"):
            raise InputError(f"input {name!r}: option {option} is a {known[option].kind}, "
                             f"not a number")
    else:
        if option not in bases:
            bases[option] = _base_file(spec, option, base_table.get(option, options.get(
                option, known[option].default)), folder)
        import tomllib

        steps = parse_path(path)
        data = tomllib.loads(Path(bases[option]).read_text(encoding="utf-8"))
        base = get_path(data, steps, f"input {name!r} in base file {bases[option]!r}")
    integer = _integer(name, base, given, add)
    return Input(name, option, path or None, low, high, integer, bool(add), base)


def _integer(name: str, base, given: dict, add) -> bool:
    """Whether the input is sampled as an integer: as its base value (one line when the
    table says otherwise, or the base value is no number)."""
    if not isinstance(add, bool):
        raise InputError(f"input {name!r}: add = {add!r} must be true or false")
    values = base if add and isinstance(base, list) else [base]
    if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                             for v in values):
        hint = " (add = true varies a list of numbers)" if isinstance(base, list) else ""
        raise InputError(f"input {name!r}: the base value {base!r} is no number{hint}")
    whole = all(isinstance(v, int) for v in values)
    integer = given.get("integer", whole)
    if not isinstance(integer, bool) or (whole and not integer):
        raise InputError(f"input {name!r}: the base value {base!r} is an integer: write "
                         f"integer = true (or leave it out)")
    if integer and not all(float(v).is_integer() for v in (given["low"], given["high"])):
        raise InputError(f"input {name!r}: an integer input needs whole low and high")
    return integer


#: Bundled files of file-valued options whose values are not paths: (game, option) ->
#: value -> file.
def _bundled(game: str, option: str, value):
    if game == "tevragnarok" and option == "params":
        from vikingsim.games.tevragnarok.rules import HERE, PRESETS

        if value in PRESETS:
            return HERE / ("params.toml" if value == "default" else f"params_{value}.toml")
    if game == "raidconquer" and option == "catalog" and value == "":
        from vikingsim.games.raidconquer.catalog import BUNDLED

        return BUNDLED
    return None


def _base_file(spec, option: str, value, folder: Path) -> str:
    from vikingsim.core.inputs import names_file

    if names_file(value):
        path = Path(_local(folder, value))
    else:
        path = _bundled(spec.name, option, value)
        if path is None:
            raise InputError(f"option {option} = {value!r} names no file: give its base file "
                             f"as [base] {option} = \"path.toml\"")
    if not Path(path).is_file():
        raise InputError(f"base file of {option}: {str(path)!r} does not exist")
    return str(Path(path).resolve())


def _headlines(spec, given) -> tuple:
    if given is None:
        given = [f"win_rate[{k}]" for k in range(2)] if spec.seated else [f"p_{spec.outcomes[0]}"]
    if not isinstance(given, list) or not given or not all(isinstance(h, str) for h in given):
        raise InputError(f"headlines = {given!r} must be a list of summary metrics such as "
                         f"\"win_rate[0]\" or \"win_rate[0] - win_rate[1]\"")
    out = []
    for text in given:
        parts = [t.strip() for t in text.split(" - ")]
        if len(parts) > 2 or not all(_TERM.match(t) for t in parts):
            raise InputError(f"headline {text!r}: write a metric (\"key\" or \"key[seat]\") or "
                             f"the difference of two (\"a[0] - a[1]\")")
        terms = tuple((1 if k == 0 else -1, m.group(1), None if m.group(2) is None
                       else int(m.group(2))) for k, m in enumerate(map(_TERM.match, parts)))
        out.append(Headline(text.strip(), terms))
    if len({h.text for h in out}) != len(out):
        raise InputError(f"headlines name a metric twice: {given!r}")
    return tuple(out)


def _check_corners(spec, space: Space) -> None:
    """Each input at its low and at its high (the others at their base) set up by the game,
    so a range the game refuses is named before any game is played; every headline is
    checked against the game's summary of one empty game."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for inp in space.inputs:
            for end in (inp.low, inp.high):
                knobs = point_knobs(space, {inp.name: inp.value(end) if inp.integer
                                            else float(end)}, tmp)
                try:
                    setup = spec.setup(_run_options(spec, space, knobs), list(space.policies),
                                       space.players)
                except InputError as e:
                    raise InputError(f"input {inp.name!r} = {end!r}: {e}") from None
    _check_headlines(spec, setup, space)


def _run_options(spec, space: Space, knobs: dict) -> dict:
    from vikingsim.core.options import resolve

    return resolve(spec.name, spec.options, {**space.options, **knobs})


def _check_headlines(spec, setup, space: Space) -> None:
    try:
        out = spec.allocate(setup, 1)
        summary = spec.summarize(setup, spec.tally(setup, out), 1) if spec.tally \
            else spec.summary(setup, out)
    except Exception:                      # an empty game some summary cannot read: skip
        return
    for h in space.headlines:
        for _, key, index in h.terms:
            value = summary.get(key)
            ok = (index is None and _number(value)) or (
                index is not None and isinstance(value, (list, tuple)) and index < len(value))
            if not ok:
                names = [k for k, v in summary.items() if not k.endswith(("_ci", "_se")) and
                         (_number(v) or isinstance(v, (list, tuple)))]
                where = "" if index is None else f"[{index}]"
                raise InputError(f"headline {h.text!r}: {key}{where} is no number of the "
                                 f"{spec.name} summary; metrics: "
                                 f"{', '.join(names)}")


def _number(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


# ---- sampling and the generated study --------------------------------------------------------
def sample(space: Space, method: str, samples: int, seed: int, second_order: bool = True,
           levels: int = MORRIS_LEVELS) -> np.ndarray:
    """SALib's sample of the space: rows are points, columns the inputs."""
    from SALib.sample import morris, sobol

    if method == "sobol":
        if samples < 2 or samples & (samples - 1):
            raise InputError(f"--samples {samples}: Sobol' sampling needs a power of 2 "
                             f"(e.g. 256, 1024)")
        return sobol.sample(space.problem, samples, calc_second_order=second_order,
                            seed=seed)
    if method == "morris":
        if samples < 2:
            raise InputError(f"--samples {samples}: Morris needs at least 2 trajectories")
        return morris.sample(space.problem, samples, num_levels=levels, seed=seed)
    raise InputError(f"--method {method!r} is none of: {', '.join(METHODS)}")


def point_knobs(space: Space, values: dict, folder) -> dict:
    """The knobs of one point: ``{input name: value}`` (inputs not given stay at their base)
    -> plain options set, and each file-valued option the name of its overridden copy
    written into ``folder`` (``core.inputs.write_overridden``)."""
    from vikingsim.core.inputs import write_overridden

    knobs, files = {}, {}
    for inp in space.inputs:
        if inp.name not in values:
            continue
        v = inp.setting(values[inp.name])
        if inp.path is None:
            knobs[inp.option] = v
        else:
            files.setdefault(inp.option, {})[inp.path] = v
    for option, overrides in files.items():
        knobs[option] = str(write_overridden(space.bases[option], overrides, folder))
    return knobs


def study_data(space: Space, X: np.ndarray, *, method: str, samples: int, games: int,
               seed: int, name: str, folder: Path, second_order: bool, levels: int) -> dict:
    """The generated study's keys (``spec.study_from_dict``): one case per sample point,
    its files written into ``folder`` (named by content) and named relative to it."""
    cases = []
    for x in X:
        knobs = point_knobs(space, {i.name: i.value(v) for i, v in zip(space.inputs, x)},
                            folder)
        cases.append({k: Path(v).name if k in space.bases else v for k, v in knobs.items()})
    varied = {i.option for i in space.inputs}
    report = {"method": method, "samples": samples, "second_order": second_order,
              "levels": levels, "sample_seed": seed, "space_file": space.path,
              "inputs": [_input_record(i) for i in space.inputs],
              "headlines": [h.text for h in space.headlines], "X": X.tolist()}
    data = {"name": name, "title": f"{space.game}: {method} sensitivity of "
            f"{len(space.headlines)} headline(s) to {len(space.inputs)} input(s)",
            "kind": "sensitivity", "game": space.game, "games": games, "seed": seed,
            "rows": False, "common_seeds": space.common_seeds, "players": space.players,
            "options": {k: v for k, v in space.options.items() if k not in varied},
            "cases": cases, "report": report}
    if space.policies:
        data["policies"] = list(space.policies)
    return data


def _input_record(i: Input) -> dict:
    rec = {"name": i.name, "option": i.option, "low": i.low, "high": i.high,
           "integer": i.integer, "add": i.add}
    return {**rec, "path": i.path} if i.path else rec


def inputs_folder(out: Path) -> Path:
    """Where a study in ``out`` keeps its generated input files and study file: beside it
    (the runner refuses a fresh ``out`` that is not empty)."""
    return out.with_name(out.name + ".inputs")


def plan_sensitivity(game: str, space_file, *, method: str = "sobol", samples: int = 256,
                     games: int = 2000, seed: int = 20260, out=None, second_order: bool = True,
                     levels: int = MORRIS_LEVELS):
    """``(Study, out)``: the checked space sampled, every point's files written, the
    generated study file written beside them (``vikingsim experiment`` reads it too)."""
    from vikingsim.core.atomic import atomic_write
    from vikingsim.studies.spec import MAX_CELLS, study_from_dict

    space = load_space(space_file, game)
    if method not in METHODS:
        raise InputError(f"--method {method!r} is none of: {', '.join(METHODS)}")
    points = _points(method, samples, len(space.inputs), second_order)
    if points > MAX_CELLS:
        raise InputError(f"{method} with --samples {samples} and {len(space.inputs)} inputs "
                         f"makes {points:,} points; at most {MAX_CELLS:,}")
    X = sample(space, method, samples, seed, second_order, levels)
    out = Path(out if out is not None else f"results/sensitivity-{game}")
    name = out.name if re.match(r"^[A-Za-z0-9][\w.-]*$", out.name) else f"sensitivity-{game}"
    folder = inputs_folder(out)
    data = study_data(space, X, method=method, samples=samples, games=games, seed=seed,
                      name=name, folder=folder, second_order=second_order, levels=levels)
    study = study_from_dict(data, folder / f"{name}.toml")
    folder.mkdir(parents=True, exist_ok=True)              # no file-valued input: not made yet
    atomic_write(folder / f"{name}.toml", lambda p: Path(p).write_text(study.text))
    return study, out


def _points(method: str, samples: int, d: int, second_order: bool) -> int:
    if method == "sobol":
        return samples * (2 * d + 2 if second_order else d + 2)
    return samples * (d + 1)


def run_sensitivity(game: str, space_file, *, method: str = "sobol", samples: int = 256,
                    games: int = 2000, seed: int = 20260, out=None, resume: bool = False,
                    backend: str = "local", workers: int | None = None,
                    scheduler: str | None = None, second_order: bool = True,
                    levels: int = MORRIS_LEVELS, progress: bool = False):
    """Plan and run a sensitivity study; returns the runner's ``StudyRun``."""
    from vikingsim.studies.dataset import MANIFEST
    from vikingsim.studies.run import run_study

    where = Path(out if out is not None else f"results/sensitivity-{game}")
    if (where / MANIFEST).exists() and not resume:       # before any point file is written
        raise InputError(f"{str(where)!r} already holds a study: add --resume to continue it, "
                         f"or give another --out")
    if where.is_dir() and not (where / MANIFEST).exists() and any(where.iterdir()):
        raise InputError(f"--out {str(where)!r} is a non-empty folder without {MANIFEST}")
    study, out = plan_sensitivity(game, space_file, method=method, samples=samples,
                                  games=games, seed=seed, out=out, second_order=second_order,
                                  levels=levels)
    return run_study(study, out, backend=backend, workers=workers, scheduler=scheduler,
                     resume=resume, progress=progress)


# ---- the analysis: read the stored counts, call SALib ----------------------------------------
def point_values(data) -> "pd.DataFrame":
    """One row per (point, headline): ``value`` and its Monte Carlo variance ``noise_var``
    (NaN where not estimated), ``games``; read from the study's stored counts (integer
    counts of wins and outcomes from the tallies, other metrics from the summary)."""
    import pandas as pd

    m = data.manifest
    heads = [_parse_headline(h) for h in m["report"]["headlines"]]
    summary = data.summary()
    keys = {t[1] for h in heads for t in h.terms}
    summary = summary[summary["metric"].isin(keys | {"sd_" + k[5:] for k in keys
                                                     if k.startswith("mean_")})]
    games = {c["cell"]: c["games_done"] for c in m["cells"]}
    table = {(r.cell, r.metric, None if pd.isna(r.seat) else int(r.seat)): (r.value, r.lo, r.hi)
             for r in summary.itertuples()}
    counts = _counts(data) if any(_counted(t) for h in heads for t in h.terms) else {}
    rows = []
    for c in sorted(games):
        for h in heads:
            value, var = _headline_at(h, c, games[c], table, counts.get(c))
            rows.append({"point": c, "headline": h.text, "value": value, "noise_var": var,
                         "games": games[c]})
    return pd.DataFrame(rows)


def _parse_headline(text: str) -> Headline:
    parts = [t.strip() for t in text.split(" - ")]
    return Headline(text, tuple((1 if k == 0 else -1, m.group(1), None if m.group(2) is None
                                 else int(m.group(2)))
                                for k, m in enumerate(map(_TERM.match, parts))))


def _counted(term) -> bool:
    _, key, index = term
    return (key == "win_rate" and index is not None) or (key.startswith("p_") and index is None)


def _counts(data) -> dict:
    """``{cell: Counts}`` from each cell's summed tally (``core.game.tally_counts``)."""
    from vikingsim.core.game import tally_counts
    from vikingsim.games import get
    from vikingsim.studies.dataset import cell_tally

    spec = get(data.manifest["game"])
    out = {}
    for entry in data.manifest["cells"]:
        tally, n = cell_tally(data.root, entry["cell"])
        if n:
            out[entry["cell"]] = tally_counts(spec, tally, n)
    return out


def _proportion(term, counts):
    """Games counted by a proportion term (None when the tally does not count it)."""
    _, key, index = term
    if counts is None:
        return None
    if key == "win_rate" and counts.wins is not None and index < len(counts.wins):
        return int(counts.wins[index])
    if key.startswith("p_") and key[2:] in counts.outcomes:
        return int(counts.outcomes[key[2:]])
    return None


def _headline_at(h: Headline, cell: int, n: int, table: dict, counts) -> tuple:
    """(value, Monte Carlo variance) of a headline at one point."""
    ks = [_proportion(t, counts) if _counted(t) else None for t in h.terms]
    if n and all(k is not None for k in ks):                 # counted proportions: exact
        ps = [k / n for k in ks]
        if len(ps) == 1:
            return ps[0], ps[0] * (1 - ps[0]) / n
        return ps[0] - ps[1], (ps[0] + ps[1] - (ps[0] - ps[1]) ** 2) / n   # one multinomial
    vals = [_summary_value(t, cell, n, table) for t in h.terms]
    value = sum(sign * v for (sign, _, _), (v, _) in zip(h.terms, vals))
    return value, (vals[0][1] if len(vals) == 1 else math.nan)


def _summary_value(term, cell: int, n: int, table: dict) -> tuple:
    """(value, variance) of one metric of the summary: the variance from its sd
    (``mean_x`` with ``sd_x``) or its 95% interval's half-width, else NaN."""
    _, key, index = term
    got = table.get((cell, key, index))
    if got is None:
        return math.nan, math.nan
    value, lo, hi = got
    sd = table.get((cell, "sd_" + key[5:], index)) if key.startswith("mean_") else None
    if sd is not None and n:
        return value, sd[0] ** 2 / n
    if lo == lo and hi == hi:
        return value, ((hi - lo) / (2 * 1.959963984540054)) ** 2
    return value, math.nan


def analyze(data) -> dict:
    """``{"indices": DataFrame, "noise": DataFrame}`` of a finished (or partly finished)
    sensitivity study: SALib's indices with their bootstrap intervals per headline and
    input, and the Monte Carlo noise per headline. Cached per folder and manifest."""
    key = (str(Path(data.root).resolve()), data.manifest.get("study_hash"),
           sum(c["games_done"] for c in data.manifest["cells"]))
    if key not in _ANALYSES:
        _ANALYSES.clear()
        _ANALYSES[key] = _analyze(data.manifest["report"], point_values(data))
    return _ANALYSES[key]


_ANALYSES: dict = {}


def _analyze(report: dict, values) -> dict:
    """The analysis of ``values`` (:func:`point_values`: one row per point and headline) for
    the study's ``report`` (method, inputs, sample X): what the report shows."""
    import pandas as pd

    inputs = [r["name"] for r in report["inputs"]]
    problem = {"num_vars": len(inputs), "names": inputs,
               "bounds": [[r["low"], r["high"] + 1 if r["integer"] else r["high"]]
                          for r in report["inputs"]]}
    X = np.asarray(report["X"], float)
    rows, noise = [], []
    for h in report["headlines"]:
        v = values[values["headline"] == h].sort_values("point")
        Y, var = v["value"].to_numpy(float), v["noise_var"].to_numpy(float)
        n = int(v["games"].min()) if len(v) else 0
        if len(Y) != len(X) or not np.all(np.isfinite(Y)):
            missing = len(X) - int(np.isfinite(Y).sum())
            noise.append(_noise_row(h, Y, var, n, note=f"{missing} of {len(X)} points have no "
                                                     f"value (unfinished or undefined)"))
            continue
        noise.append(_noise_row(h, Y, var, n))
        rows += _indices(report, problem, X, Y, h, noise[-1])
    return {"indices": pd.DataFrame(rows), "noise": pd.DataFrame(noise)}


def _noise_row(h: str, Y, var, n: int, note: str = "") -> dict:
    between = float(np.var(Y[np.isfinite(Y)], ddof=1)) if np.isfinite(Y).sum() > 1 else math.nan
    mean_noise = float(np.nanmean(var)) if np.isfinite(var).any() else math.nan
    share = mean_noise / between if between > 0 else (0.0 if mean_noise == 0 else math.nan)
    return {"headline": h, "points": int(len(Y)), "games_per_point": n,
            "sd_between_points": math.sqrt(between) if between == between else math.nan,
            "mean_noise_var": mean_noise, "output_var": between, "noise_share": share,
            "note": note}


def _indices(report: dict, problem: dict, X, Y, h: str, noise: dict) -> list[dict]:
    from SALib.analyze import morris, sobol

    if not noise["output_var"] > 0:
        return [{"headline": h, "input": name, "flat": True} for name in problem["names"]]
    if report["method"] == "sobol":
        with warnings.catch_warnings():      # "constant values": under common seeds an input
            warnings.simplefilter("ignore", UserWarning)   # the game ignores gives A == AB_i
            r = sobol.analyze(problem, Y, calc_second_order=report["second_order"],
                              num_resamples=RESAMPLES, conf_level=CONF_LEVEL,
                              seed=report["sample_seed"])
        return [{"headline": h, "input": name, "S1": r["S1"][j], "S1_conf": r["S1_conf"][j],
                 "ST": r["ST"][j], "ST_conf": r["ST_conf"][j], "flat": False}
                for j, name in enumerate(problem["names"])]
    r = morris.analyze(problem, X, Y, num_resamples=RESAMPLES, conf_level=CONF_LEVEL,
                       num_levels=report["levels"], seed=report["sample_seed"])
    lv = report["levels"]
    out = []
    delta = lv / (2 * (lv - 1))       # SALib's step on the unit scale: mu* is per whole range
    for j, name in enumerate(problem["names"]):
        floor = math.sqrt(2 * noise["mean_noise_var"]) * math.sqrt(2 / math.pi) / delta \
            if noise["mean_noise_var"] == noise["mean_noise_var"] else math.nan
        out.append({"headline": h, "input": name, "mu_star": r["mu_star"][j],
                    "mu_star_conf": r["mu_star_conf"][j], "mu": r["mu"][j],
                    "sigma": r["sigma"][j], "mu_star_noise": floor, "flat": False})
    return out


# ---- the kind's report (vikingsim report) ----------------------------------------------------
def report_tables(data) -> dict:
    """The indices per headline and input (S1, ST with their 95% intervals; or Morris' mu*,
    its interval, sigma and noise floor) and the Monte Carlo noise per headline."""
    return tables_of(analyze(data))


def tables_of(a: dict) -> dict:
    """:func:`report_tables` of an analysis (:func:`analyze`, or :func:`_analyze` of stored
    point values)."""
    idx = a["indices"].copy()
    if "S1" in idx:
        for k in ("S1", "ST"):
            idx[f"{k}_lo"], idx[f"{k}_hi"] = idx[k] - idx[f"{k}_conf"], idx[k] + idx[f"{k}_conf"]
        idx = idx[["headline", "input", "S1", "S1_lo", "S1_hi", "ST", "ST_lo", "ST_hi"]]
        idx = idx.sort_values(["headline", "ST"], ascending=[True, False], kind="stable")
    elif "mu_star" in idx:
        idx["mu_star_lo"] = idx["mu_star"] - idx["mu_star_conf"]
        idx["mu_star_hi"] = idx["mu_star"] + idx["mu_star_conf"]
        idx = idx[["headline", "input", "mu_star", "mu_star_lo", "mu_star_hi", "mu", "sigma",
                   "mu_star_noise"]].sort_values(["headline", "mu_star"],
                                                 ascending=[True, False], kind="stable")
    return {"sensitivity indices": idx.reset_index(drop=True), "monte carlo noise": a["noise"]}


def report_findings(data) -> list[str]:
    """Per headline: which input moves it, ranked, in words; and when the Monte Carlo
    noise is too large a share of its variance to read the indices."""
    a = analyze(data)
    method = data.manifest["report"]["method"]
    out = []
    for noise in a["noise"].to_dict("records"):
        h = noise["headline"]
        rows = a["indices"][a["indices"]["headline"] == h] if len(a["indices"]) else []
        if noise["note"]:
            out.append(f"{h}: not analysed: {noise['note']}.")
            continue
        if len(rows) and bool(rows["flat"].iloc[0]):
            out.append(f"{h} is the same at every point: no input moves it.")
            continue
        out.append(_ranked_sobol(h, rows, noise) if method == "sobol"
                   else _ranked_morris(h, rows))
        if noise["noise_share"] >= NOISE_WARN:
            out.append(_noise_sentence(h, noise, method))
        elif noise["noise_share"] != noise["noise_share"]:
            out.append(f"{h}: its Monte Carlo noise is not estimated (the summary gives it no "
                       f"count, sd or interval): its indices may hold noise of unknown size.")
    return out


def _ranked_sobol(h: str, rows, noise: dict) -> str:
    """The inputs whose total index stands above what noise alone gives, ranked. Independent
    Monte Carlo noise of share s makes an input that changes the games but not the answer
    show ST = s (``ST = ST_true (1 - s) + s``), so an input moves the headline measurably when
    its interval's lower end is above s (above 0 when s is not estimated)."""
    share = noise["noise_share"]
    floor = share if share == share else 0.0
    rows = rows.sort_values("ST", ascending=False, kind="stable").to_dict("records")
    moves = [r for r in rows if r["ST"] - r["ST_conf"] > floor]
    still = [r["input"] for r in rows if r not in moves]
    head = (f"{h} (sd {noise['sd_between_points']:.4g} across the space, "
            f"{noise['games_per_point']:,} games per point)")
    bar = f"the noise share {floor:.2f}" if floor > 0 else "0"
    if not moves:
        return (f"{head}: no input moves it measurably (every total-index interval reaches "
                f"{bar}).")
    words = [f"{r['input']} (total {r['ST']:.2f} [{r['ST'] - r['ST_conf']:.2f}, "
             f"{r['ST'] + r['ST_conf']:.2f}], first-order {r['S1']:.2f})" for r in moves]
    text = f"{head} moves most with {words[0]}"
    if len(words) > 1:
        text += "; then " + "; ".join(words[1:])
    if still:
        text += f"; {', '.join(still)} do{'es' if len(still) == 1 else ''} not move it " \
                f"measurably (total-index interval reaches {bar})"
    return text + "."


def _ranked_morris(h: str, rows) -> str:
    rows = rows.sort_values("mu_star", ascending=False, kind="stable").to_dict("records")
    above = [r for r in rows if r["mu_star"] - r["mu_star_conf"] > (r["mu_star_noise"]
                                                                    if r["mu_star_noise"] ==
                                                                    r["mu_star_noise"] else 0)]
    if not above:
        return f"{h}: no input's mean absolute effect mu* stands above its noise floor."
    words = [f"{r['input']} (mu* {r['mu_star']:.3g} +- {r['mu_star_conf']:.2g}, "
             f"sigma {r['sigma']:.3g})" for r in above]
    rest = [r["input"] for r in rows if r not in above]
    text = f"{h} moves most with {words[0]}" + ("; then " + "; ".join(words[1:])
                                                 if len(words) > 1 else "")
    if rest:
        text += f"; {', '.join(rest)} not above the noise floor"
    return text + (" (Morris screening, mu* = mean absolute change of the headline per "
                   "change of the input over its whole range: a ranking, not a share of "
                   "variance).")


def _noise_sentence(h: str, noise: dict, method: str) -> str:
    share, n = noise["noise_share"], noise["games_per_point"]
    need = n * share * (1 - NOISE_WARN) / (NOISE_WARN * max(1 - share, 1e-9))
    what = ("every total index is inflated by up to about "
            f"{min(share, 1):.2f} and every first-order index shrunk by that share"
            if method == "sobol" else "mu* of an input that does nothing is about its "
            "noise floor, not 0")
    return (f"{h}: Monte Carlo noise is {share:.0%} of its variance across points at {n:,} "
            f"games per point: {what}; about {math.ceil(need / 100) * 100:,} games per point "
            f"would bring it to {NOISE_WARN:.0%}.")


def report_figures(data, folder) -> list[Path]:
    """``sensitivity.png``: per headline, a bar chart of each input's S1 and ST with their
    95% intervals (Morris: mu* with its interval and the noise floor)."""
    from matplotlib.figure import Figure

    a = analyze(data)
    idx = a["indices"]
    heads = [h for h in data.manifest["report"]["headlines"]
             if len(idx) and (idx["headline"] == h).any() and not idx[idx["headline"] == h]
             ["flat"].iloc[0]]
    if not heads:
        return []
    inputs = [r["name"] for r in data.manifest["report"]["inputs"]]
    fig = Figure(figsize=(2.0 + 0.55 * len(inputs), 2.6 * len(heads)), layout="constrained")
    axes = fig.subplots(len(heads), 1, squeeze=False)[:, 0]
    x = np.arange(len(inputs))
    for ax, h in zip(axes, heads):
        r = idx[idx["headline"] == h].set_index("input").loc[inputs]
        if "S1" in r:
            ax.bar(x - 0.2, r["S1"], 0.4, yerr=r["S1_conf"], capsize=2, label="first-order S1")
            ax.bar(x + 0.2, r["ST"], 0.4, yerr=r["ST_conf"], capsize=2, label="total ST")
            ax.set_ylabel("share of variance")
        else:
            ax.bar(x, r["mu_star"], 0.6, yerr=r["mu_star_conf"], capsize=2, label="mu*")
            ax.plot(x, r["mu_star_noise"], "k_", markersize=14, label="noise floor")
            ax.set_ylabel("mu* (per whole range)")
        ax.axhline(0, color="grey", lw=0.6)
        share = a["noise"].set_index("headline").loc[h, "noise_share"]
        ax.set_title(h + ("" if share != share else f"  (Monte Carlo noise {share:.0%} of its "
                                                    f"variance across points)"), fontsize=9)
        ax.set_xticks(x, inputs if ax is axes[-1] else [""] * len(inputs), rotation=35,
                      ha="right", fontsize=7)
        ax.legend(fontsize=7)
    path = Path(folder) / "sensitivity.png"
    fig.savefig(path, dpi=110, format="png")
    return [path]
