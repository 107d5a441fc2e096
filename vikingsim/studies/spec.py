"""Study files (``experiments/*.toml``): read, check and turn into a :class:`Study`.

A study file names one game and what is held fixed, then a grid of knobs to vary::

    name = "raidboard_seats"         # optional (default: the file's stem)
    title = "Raid board: seat advantage by player count"     # optional
    game = "raidboard"
    players = 4                      # optional (the game's default)
    policies = ["greedy"]            # one for every seat, or one per seat (name(k=v) allowed)
    games = 1_000_000                # games per cell
    seed = 303                       # root seed
    chunk_games = 1_048_576          # optional: games per chunk (rounded up to RNG blocks)
    rows = true                      # optional: false keeps only the tallies (no per-game rows)
    common_seeds = false             # optional: true gives every cell the same games' seeds
                                     # (common random numbers: paired comparisons)

    [options]                        # fixed game options (vikingsim games lists them)
    variant = "circular"

    [grid]                           # knobs varied over their product, in file order
    players = [2, 3, 4, 5, 6]        # a list ...
    start_gold = {from = 0, to = 40, step = 10}     # ... or a range (inclusive)

    [[cases]]                        # optional: knobs varied together (one case per table);
    a = "jarl"                       # the cells are grid x cases
    b = "huskarl"

    [stop]                           # hypothesis of --stop-when-decided (Wald SPRT per cell,
                                     # checked per chunk: conservative, see SPRT.error_rates)
    metric = "win_rate[0]"           # a counted proportion: win_rate[seat] or p_<outcome>
    p0 = 0.25
    p1 = 0.27
    alpha = 0.05                     # optional (default 0.05)
    beta = 0.05                      # optional (default 0.05)

    [report]                         # what to report: kept as given in study.json
    skill = "policy"                 # optional: the [grid] policy knob whose values are skill
                                     # levels (a "By skill" section; docs/reports.md)

A study made by a command (``study_from_dict``) names that command's ``kind`` (a key of
``vikingsim.studies.kinds.KINDS``: "tournament", "importance", ...), which tells
``vikingsim report`` how to read its cells; ``[report]`` then holds what that kind needs.
    metrics = ["win_rate"]

A knob is ``players``, a game option, ``policy`` (every seat's policy text), ``policy.<seat>``
(one seat's), ``policy.<param>`` (a parameter of every seat's policy) or
``policy.<seat>.<param>``. Relative ``.toml`` paths in option values are read relative to the
study file. Every problem raises ``InputError`` with one line naming it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from vikingsim.core.balance_stats import SPRT
from vikingsim.core.errors import InputError

#: Top-level keys of a study file.
KEYS = ("name", "title", "game", "players", "policies", "games", "seed", "common_seeds",
        "chunk_games", "rows", "options", "grid", "cases", "stop", "report", "kind")
#: Largest grid axis a range may make, and largest number of cells.
MAX_VALUES, MAX_CELLS = 1000, 100_000
MAX_GAMES = 10**12
DEFAULT_CHUNK_GAMES = 1 << 20
_METRIC = re.compile(r"^([A-Za-z_]\w*)(?:\[(\d+)\])?$")
_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*$")


@dataclass(frozen=True)
class StopRule:
    """``--stop-when-decided``: SPRT of ``metric`` (``key`` and optional ``seat``)."""

    metric: str
    key: str
    seat: int | None
    p0: float
    p1: float
    alpha: float = 0.05
    beta: float = 0.05

    def sprt(self) -> SPRT:
        return SPRT(self.p0, self.p1, self.alpha, self.beta)


@dataclass(frozen=True)
class Study:
    """A checked study file (cells are made by ``plan.plan_cells``)."""

    path: str
    text: str
    name: str
    game: str
    games: int
    seed: int
    players: int | None = None
    policies: tuple = ()
    chunk_games: int = DEFAULT_CHUNK_GAMES
    rows: bool = True
    common_seeds: bool = False       # every cell uses spawn key (stream, block): see plan.py
    title: str = ""
    options: dict = field(default_factory=dict)
    grid: tuple = ()                 # ((knob, (values...)), ...)
    cases: tuple = ()                # ({knob: value}, ...)
    stop: StopRule | None = None
    report: dict = field(default_factory=dict)
    kind: str = ""                   # "" (a study file) or a key of studies.kinds.KINDS

    @property
    def folder(self) -> Path:
        return Path(self.path).resolve().parent

    @property
    def grid_keys(self) -> list[str]:
        """The varied knobs in file order (grid first, then the cases' knobs)."""
        keys = [k for k, _ in self.grid]
        for case in self.cases:
            keys += [k for k in case if k not in keys]
        return keys


def load_study(path) -> Study:
    """Read and check a study file; InputError (one line) naming the first problem."""
    import tomllib

    p = Path(path)
    where = f"study file {str(path)!r}"
    if not p.is_file():
        raise InputError(f"{where} does not exist" if not p.exists() else f"{where} is no file")
    try:
        text = p.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as e:
        raise InputError(f"cannot read {where}: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{where} is not valid TOML: {str(e).splitlines()[0]}") from None
    try:
        return _study(str(path), text, data)
    except InputError as e:
        raise InputError(f"{where}: {e}") from None


def study_from_dict(data: dict, path) -> Study:
    """A study made by a command (tournament lineups, balance batches, restricted play, a
    skill ladder) from the same keys as a study file: ``data`` is written as TOML text (kept
    in the manifest as ``study_toml``, so the generated study reads like a hand-written one)
    and checked like a file; ``path`` (need not exist) anchors relative paths and names it."""
    import tomli_w

    text = tomli_w.dumps(data)
    try:
        return _study(str(path), text, data)
    except InputError as e:
        raise InputError(f"study {Path(path).stem!r}: {e}") from None


def _study(path: str, text: str, data: dict) -> Study:
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r}; allowed: {', '.join(KEYS)}")
    for key in ("game", "games", "seed"):
        if key not in data:
            raise InputError(f"missing key {key!r} (the game, games per cell, root seed)")
    from vikingsim.games import get

    game = _typed(data, "game", str)
    get(game)                                          # unknown game: InputError naming them
    grid = _grid(_typed(data, "grid", dict, {}))
    cases = _cases(_typed(data, "cases", list, []))
    options = _typed(data, "options", dict, {})
    both = [k for k in options if k in dict(grid) or any(k in c for c in cases)]
    if both:
        raise InputError(f"option {both[0]!r} is both fixed in [options] and varied")
    report = _typed(data, "report", dict, {})
    _skill(report.get("skill"), grid, cases)
    return Study(
        path=path, text=text, game=game,
        name=_name(data.get("name", Path(path).stem)),
        title=_typed(data, "title", str, ""),
        games=_int(data, "games", 1, MAX_GAMES),
        seed=_int(data, "seed", 0, 2**63 - 1),
        players=_int(data, "players", 1, 64) if "players" in data else None,
        policies=_policies(data.get("policies", [])),
        chunk_games=_int(data, "chunk_games", 1, 10**9) if "chunk_games" in data
        else DEFAULT_CHUNK_GAMES,
        rows=_typed(data, "rows", bool, True),
        common_seeds=_typed(data, "common_seeds", bool, False),
        options=options, grid=grid, cases=cases,
        stop=_stop(data["stop"]) if "stop" in data else None,
        report=report,
        kind=_kind(_typed(data, "kind", str, "")))


def _skill(knob, grid: tuple, cases: tuple) -> None:
    """``[report] skill``: the ``[grid]`` policy knob whose values are skill levels (the
    report's "By skill" section, ``report/skill.py``); absent means none."""
    if knob is None:
        return
    axes = dict(grid)
    policy = [k for k in axes if k.split(".")[0] == "policy"]
    if not isinstance(knob, str) or knob not in axes or knob.split(".")[0] != "policy":
        raise InputError(f"[report] skill = {knob!r} must name a policy knob of [grid] "
                         f"(policy, policy.<seat> or policy.<param>); the grid's policy "
                         f"knobs: {', '.join(policy) or 'none'}")
    if len(axes[knob]) < 2:
        raise InputError(f"[report] skill = {knob!r}: the grid gives it one level, "
                         f"{list(axes[knob])!r}; a skill axis needs two or more")
    if any(knob in c for c in cases):
        raise InputError(f"[report] skill = {knob!r} is also set by [[cases]], which would "
                         f"override its levels")


def _kind(kind: str) -> str:
    from vikingsim.studies.kinds import KINDS

    if kind and kind not in KINDS:
        raise InputError(f"kind {kind!r} is none of: {', '.join(KINDS)}")
    return kind


def _typed(data: dict, key: str, kind: type, default=None):
    if key not in data:
        return default
    value = data[key]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        words = {str: "a string", dict: "a table", list: "an array of tables", bool: "true or "
                 "false"}
        raise InputError(f"{key} = {value!r} must be {words[kind]}")
    return value


def _int(data: dict, key: str, lo: int, hi: int) -> int:
    v = data.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise InputError(f"{key} = {v!r} must be an integer in [{lo}, {hi}]")
    return v


def _name(name) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise InputError(f"name = {name!r} must be a folder name (letters, digits, _ . -)")
    return name


def _policies(value) -> tuple:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"policies = {value!r} must be a policy text or a list of them")
    return tuple(value)


def _grid(table: dict) -> tuple:
    axes = []
    for knob, spec in table.items():
        values = _range(knob, spec) if isinstance(spec, dict) else spec
        if not isinstance(values, list) or not values:
            raise InputError(f"grid {knob} = {spec!r} must be a non-empty list or a range "
                             f"{{from = LO, to = HI, step = S}}")
        if len(set(map(repr, values))) != len(values):
            raise InputError(f"grid {knob} lists a value twice: {values!r}")
        axes.append((knob, tuple(values)))
    if math.prod(len(v) for _, v in axes) > MAX_CELLS:
        raise InputError(f"the grid makes more than {MAX_CELLS:,} cells")
    return tuple(axes)


def _range(knob: str, spec: dict) -> list:
    """``{from, to, step}`` (step optional, default 1): from, from+step, ... up to ``to``."""
    bad = f"grid {knob} = {spec!r}"
    extra = set(spec) - {"from", "to", "step"}
    if extra or not {"from", "to"} <= set(spec):
        raise InputError(f"{bad}: a range needs from and to (and optionally step), nothing else")
    lo, hi, step = spec["from"], spec["to"], spec.get("step", 1)
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (lo, hi, step)):
        raise InputError(f"{bad}: from, to and step must be numbers")
    if step <= 0 or hi < lo:
        raise InputError(f"{bad}: needs step > 0 and from <= to")
    count = int(math.floor((hi - lo) / step + 1e-9)) + 1
    if count > MAX_VALUES:
        raise InputError(f"{bad}: {count} values, at most {MAX_VALUES}")
    exact = all(isinstance(x, int) for x in (lo, hi, step))
    return [lo + i * step if exact else round(lo + i * step, 12) for i in range(count)]


def _cases(items: list) -> tuple:
    if not all(isinstance(c, dict) and c for c in items):
        raise InputError("cases must be [[cases]] tables, each with at least one knob")
    return tuple(dict(c) for c in items)


def _stop(table) -> StopRule:
    if not isinstance(table, dict):
        raise InputError("stop must be a table ([stop] metric, p0, p1, alpha, beta)")
    extra = set(table) - {"metric", "p0", "p1", "alpha", "beta"}
    if extra or not {"metric", "p0", "p1"} <= set(table):
        raise InputError(f"[stop] needs metric, p0 and p1 (alpha, beta optional), got "
                         f"{', '.join(table) or 'nothing'}")
    m = _METRIC.match(str(table["metric"]))
    if not isinstance(table["metric"], str) or m is None:
        raise InputError(f"[stop] metric = {table['metric']!r}: write a summary key such as "
                         f"p_win or win_rate[0]")
    nums = {k: table.get(k, 0.05) for k in ("p0", "p1", "alpha", "beta")}
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in nums.values()):
        raise InputError(f"[stop] p0, p1, alpha and beta must be numbers, got {nums}")
    rule = StopRule(table["metric"], m.group(1), None if m.group(2) is None else int(m.group(2)),
                    **{k: float(v) for k, v in nums.items()})
    try:
        rule.sprt()
    except InputError as e:
        raise InputError(f"[stop] {e}") from None
    return rule
