"""Automatic balancing (``vikingsim balance``): search rule options for the setting whose
summary is closest to one or more targets, counting simulated games as the cost.

Method (noise-aware successive halving over simulated batches):

1. Stage 0: Optuna's TPE sampler (seeded) proposes ``trials`` distinct settings; each is
   played on a batch of n0 games. A setting proposed again costs no games: Optuna is told
   its earlier estimate and asked again (at most ``REPEAT_ASKS`` x trials asks). When the
   knobs are integers with at most ``trials`` settings in all (a cost 1..8), stage 0 plays
   every one of them once instead (:func:`small_grid`), and n0 uses their count.
2. Stages 1..S-1: the best 1/eta of the settings (by their pooled estimate) get eta^s · n0
   more games each, on fresh seeds; the rest are dropped. n0 = budget // (S · trials), so each
   stage costs at most a 1/S share of ``budget``; the last stage shares whatever is left of
   the budget among its settings, and the search never exceeds it.
3. Within a stage every setting's first batch uses the same seed (common random numbers: the
   settings are compared on the same dice); every stage and every repeat uses a new seed.
4. The loss of a setting is the sum over targets of (estimate - target)², minus, for fraction
   metrics (``win_rate``, ``p_*``), the binomial variance p(1-p)/(n-1): an unbiased estimate of
   the squared distance, so settings with few games are not ranked by their noise.
5. The best setting is then played on ``holdout`` fresh games (seeds never used by the search)
   and reported with the summary's 95% intervals, and its deviation from each target with an
   interval (the estimate's interval shifted by the target).

Seeds: every batch's root seed is drawn from ``numpy.random.SeedSequence(seed,
spawn_key=(purpose, stage, repeat))`` (purpose 0 search, 1 hold-out, 2 sampler, 3 probe),
never ``seed + 1``; the search is deterministic for a given seed.

Batches: each batch (a stage-0 proposal, or a later stage's kept settings) is a small
generated study (kind "balance", one cell per setting, the batch seed, common seeds) run by
the study runner in ``<out>/batch-NNNN/``, the hold-out check in ``<out>/holdout/``
(:class:`StudyBatches`): so a balance run resumes, runs on Dask and opens in the report.

Knobs: ``--vary KNOB=LO..HI`` names an int or float option, or ``OPTION.PATH=LO..HI`` a number
inside the TOML file of a file-valued option (cost fitting: ``catalog.card["Berserker"].cost``,
``params.economy.draft_size[0]``; ``core.inputs.parse_path``), the base file being the
option's value (else the game's bundled file); an integer entry searches integers. Each
setting's cell names a copy of the base file with the entries set, written into
``<out>/inputs/`` by ``core.inputs.write_overridden`` (named by content), an ordinary hashed
input of the study (:func:`setting_options`).

Targets: ``METRIC=EXPR``, ``METRIC[i]=EXPR`` or ``METRIC[*]=EXPR`` (every seat), with EXPR an
arithmetic expression of numbers and ``players`` (``1/players``), parsed by ``ast`` (no eval).
"""
from __future__ import annotations

import ast
import math
import operator
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from vikingsim.core import config
from vikingsim.core.errors import InputError

SEARCH, HOLDOUT, SAMPLER, PROBE = 0, 1, 2, 3
#: Stage 0 asks Optuna at most this many times ``trials`` for new settings: a proposal it
#: made before is told the earlier estimate and costs no games (small integer ranges).
REPEAT_ASKS = 10
Z95 = 1.959963984540054

# ---- targets -------------------------------------------------------------------------------
_TARGET = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\[\s*(\*|\d+)\s*\])?\s*=\s*(.+?)\s*$", re.S)
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
#: Longest ``--target`` text and deepest expression (operators nested in operands): far more
#: than "(players - 1) / (2 * players)" needs, far less than Python's parser and this module's
#: recursive evaluation survive (thousands of terms overflow the stack).
MAX_TARGET_CHARS = 200
MAX_TARGET_DEPTH = 20
#: Summary keys that describe the run, not the games (never a target: balancing elapsed_s
#: would tune the machine's speed), and counts of games, which grow with n (use the p_* rate).
RUN_KEYS = frozenset({"game", "n", "seed", "players", "policies", "options", "elapsed_s",
                      "games_per_s", "compile_s"})


@dataclass(frozen=True)
class Target:
    """One target: ``metric`` (a summary key), ``index`` (a seat, or None) and its value."""

    metric: str
    index: int | None
    value: float
    text: str

    @property
    def key(self) -> str:
        return self.metric if self.index is None else f"{self.metric}[{self.index}]"

    @property
    def fraction(self) -> bool:
        """A binomial fraction (its noise is p(1-p)/n)."""
        return self.metric == "win_rate" or self.metric.startswith("p_")


def _short(text: str) -> str:
    """``repr`` of a user's text, cut short (an error stays one readable line)."""
    r = repr(text)
    return r if len(r) <= 60 else r[:57] + "..."


def eval_expr(text: str, players: int) -> float:
    """Value of an arithmetic expression of numbers and ``players`` (+ - * / and brackets;
    at most ``MAX_TARGET_CHARS`` characters, nested at most ``MAX_TARGET_DEPTH`` deep)."""
    shown = _short(text)
    if len(text) > MAX_TARGET_CHARS:
        raise InputError(f"target value {shown} is {len(text):,} characters long; at most "
                         f"{MAX_TARGET_CHARS}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise InputError(f"target value {shown} is not an expression of numbers and "
                         f"'players'") from None
    except (RecursionError, MemoryError):                # the parser's own nesting limits
        raise InputError(f"target value {shown} nests operators more than "
                         f"{MAX_TARGET_DEPTH} deep") from None

    def ev(node, depth):
        if depth > MAX_TARGET_DEPTH:
            raise InputError(f"target value {shown} nests operators more than "
                             f"{MAX_TARGET_DEPTH} deep")
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return float(node.value)
        if isinstance(node, ast.Name) and node.id == "players":
            return float(players)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left, depth + 1), ev(node.right, depth + 1))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](ev(node.operand, depth + 1))
        raise InputError(f"target value {shown}: only numbers, 'players', + - * / and "
                         f"brackets are allowed")

    try:
        value = ev(tree.body, 0)
    except ZeroDivisionError:
        raise InputError(f"target value {shown} divides by zero") from None
    except OverflowError:                                # 1e308 * 10 is inf; 10**400 raises
        raise InputError(f"target value {shown} is not finite") from None
    if not math.isfinite(value):
        raise InputError(f"target value {shown} is not finite")
    return value


def parse_targets(texts, players: int) -> list[Target]:
    """``--target`` texts -> one Target per metric (and seat; ``[*]`` = every seat)."""
    if not texts:
        raise InputError('give at least one --target, e.g. --target "win_rate[*]=1/players"')
    out = []
    for text in texts:
        if isinstance(text, str) and len(text) > MAX_TARGET_CHARS:
            raise InputError(f"--target {_short(text)} is {len(text):,} characters long; at "
                             f"most {MAX_TARGET_CHARS}")
        m = _TARGET.match(text) if isinstance(text, str) else None
        if m is None:
            raise InputError(f"--target {_short(text)}: expected METRIC=VALUE, METRIC[i]=VALUE "
                             f"or METRIC[*]=VALUE (e.g. win_rate[*]=1/players)")
        metric, idx, expr = m.groups()
        value = eval_expr(expr, players)
        seats = (range(players) if idx == "*" else [None] if idx is None else [int(idx)])
        for s in seats:
            if s is not None and s >= players:
                raise InputError(f"--target {_short(text)}: seat {s} does not exist with {players} "
                                 f"players (seats 0..{players - 1})")
            out.append(Target(metric, s, value, text))
    keys = [t.key for t in out]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise InputError(f"--target {dup[0]} is given twice")
    return out


def game_metrics(summary: dict) -> list[str]:
    """The summary's game metrics that can be targets: rates and means, one number or one
    per seat; not ``RUN_KEYS``, intervals or counts of games (integers)."""
    return sorted(k for k, v in summary.items() if k not in RUN_KEYS
                  and not k.endswith(("_ci", "_se"))
                  and (isinstance(v, float) or isinstance(v, list) and v
                       and isinstance(v[0], (int, float)) and not isinstance(v[0], bool)))


def check_targets(targets: list[Target], summary: dict) -> None:
    """Each target names a game metric of the summary (:func:`game_metrics`), a seat of a
    per-seat one with ``[i]``."""
    numbers = game_metrics(summary)
    for t in targets:
        v = summary.get(t.metric)
        if t.metric not in numbers:
            what = (f"{t.metric!r} describes the run, not the games" if t.metric in RUN_KEYS
                    else f"{t.metric!r} counts games (it grows with n)" if t.metric in summary
                    else f"unknown metric {t.metric!r}")
            raise InputError(f"--target {_short(t.text)}: {what}; the game metrics are "
                             f"{', '.join(numbers)}")
        if isinstance(v, list) and t.index is None:
            raise InputError(f"--target {_short(t.text)}: {t.metric} is per seat: give [i] or "
                             "[*]")
        if not isinstance(v, list) and t.index is not None:
            raise InputError(f"--target {_short(t.text)}: {t.metric} is one number, not per "
                             "seat")


def metric_values(targets: list[Target], summary: dict) -> np.ndarray:
    return np.array([float(summary[t.metric] if t.index is None else
                           summary[t.metric][t.index]) for t in targets])


def loss(targets: list[Target], values: np.ndarray, n: int) -> float:
    """Sum of squared deviations, fraction metrics bias-corrected by p(1-p)/(n-1)."""
    total = 0.0
    for t, v in zip(targets, values):
        total += (v - t.value) ** 2
        if t.fraction and n > 1:
            total -= v * (1.0 - v) / (n - 1)
    return float(total)


# ---- knobs and seeds -----------------------------------------------------------------------
@dataclass(frozen=True)
class Knob:
    """An option searched over [lo, hi], or (``option`` and ``path`` set) an entry of the TOML
    file a file-valued option names (``core.inputs.parse_path``), read from ``base_file`` where
    its value is ``base_value``; integer options and entries search integers."""

    name: str
    kind: str
    lo: float
    hi: float
    option: str | None = None
    path: str | None = None
    base_file: str | None = None
    base_value: float | None = None

    def suggest(self, trial):
        if self.kind == "int":
            return trial.suggest_int(self.name, int(self.lo), int(self.hi))
        return trial.suggest_float(self.name, float(self.lo), float(self.hi))

    def cast(self, v):
        return int(v) if self.kind == "int" else float(v)


def parse_knob(text: str, options, *, spec=None, base: dict | None = None) -> Knob:
    """``KNOB=LO..HI`` for an int or float option of the game, or (with ``spec``) for a number
    in the file of a file-valued option, ``OPTION.PATH=LO..HI`` (e.g.
    ``catalog.card["Funeral Pyre"].cost=1..6``), the file being the option's value in ``base``
    (else its default)."""
    name, sep, span = (text or "").rpartition("=")           # a name may quote an '='
    lo, sep2, hi = span.partition("..")
    name = name.strip()
    if not sep or not sep2:
        raise InputError(f"--vary {text!r}: expected KNOB=LO..HI (e.g. seat_gold_step=0..6)")
    by_name = {o.name: o for o in options}
    option, dot, path = name.partition(".")
    if name not in by_name and spec is not None and dot and option in by_name:
        return _file_knob(text, spec, option, path, lo, hi, base or {})
    if name not in by_name:
        raise InputError(f"--vary {text!r}: unknown option {name!r}; allowed: "
                         f"{', '.join(by_name)}")
    kind = by_name[name].kind
    if kind not in ("int", "float"):
        raise InputError(f"--vary {text!r}: {name} is a {kind} option; only int and float "
                         f"options can be searched")
    lo_v, hi_v = _span(text, name, kind, lo, hi)
    return Knob(name, kind, lo_v, hi_v)


def _span(text: str, name: str, kind: str, lo: str, hi: str) -> tuple:
    """LO and HI of ``--vary`` as numbers of the knob's kind, LO < HI (one line otherwise)."""
    try:
        conv = int if kind == "int" else float
        lo_v, hi_v = conv(lo.strip()), conv(hi.strip())
    except ValueError:
        what = "integers" if kind == "int" else "numbers"
        raise InputError(f"--vary {text!r}: LO and HI must be {what} ({name} is an {kind} "
                         f"{'entry' if '.' in name else 'option'})") from None
    if not (math.isfinite(lo_v) and math.isfinite(hi_v)) or lo_v >= hi_v:
        raise InputError(f"--vary {text!r}: need LO < HI")
    return lo_v, hi_v


def _file_knob(text, spec, option: str, path: str, lo: str, hi: str, base: dict) -> Knob:
    """A knob on the entry ``path`` of the file option ``option`` names (its base file found
    as ``vikingsim sensitivity`` finds it: a ``.toml`` value, or a game's bundled file)."""
    import tomllib

    from vikingsim.core.inputs import get_path, names_file, parse_path
    from vikingsim.studies.sensitivity import _base_file, _bundled

    value = base.get(option, next(o.default for o in spec.options if o.name == option))
    if not names_file(value) and _bundled(spec.name, option, value) is None:
        raise InputError(f"--vary {text!r}: option {option} = {value!r} names no file")
    try:
        steps = parse_path(path)
    except InputError as e:
        raise InputError(f"--vary {text!r}: {e}") from None
    base_file = _base_file(spec, option, value, Path.cwd())
    try:
        data = tomllib.loads(Path(base_file).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"--vary {text!r}: cannot read {base_file!r}: "
                         f"{str(e).splitlines()[0]}") from None
    entry = get_path(data, steps, f"--vary {text!r} in {base_file!r}")
    if isinstance(entry, bool) or not isinstance(entry, (int, float)):
        what = type(entry).__name__ if not isinstance(entry, dict) else "table"
        raise InputError(f"--vary {text!r}: {path} is a {what} ({entry!r:.40}) in "
                         f"{base_file!r}; only a number can be searched")
    kind = "int" if isinstance(entry, int) else "float"
    lo_v, hi_v = _span(text, f"{option}.{path}", kind, lo, hi)
    return Knob(f"{option}.{path}", kind, lo_v, hi_v, option, path, base_file, entry)


def setting_options(knobs: list[Knob], setting: dict, folder) -> dict:
    """The options of one setting (knob name -> value): plain options as they are, each
    file-valued option the copy of its base file with the setting's entries, written into
    ``folder`` (``core.inputs.write_overridden``: named by content, an ordinary input)."""
    from vikingsim.core.inputs import write_overridden

    out, files = {}, {}
    for kb in knobs:
        if kb.path is None:
            out[kb.name] = setting[kb.name]
        else:
            files.setdefault(kb.option, (kb.base_file, {}))[1][kb.path] = kb.cast(
                setting[kb.name])
    for option, (base, overrides) in files.items():
        out[option] = str(write_overridden(base, overrides, folder))
    return out


def derive_seed(seed: int, *key: int) -> int:
    """A 63-bit root seed spawned from ``seed`` (``SeedSequence`` spawn key), never seed+k."""
    state = np.random.SeedSequence(seed, spawn_key=tuple(key)).generate_state(2, np.uint64)
    return int(((int(state[0]) << 1) ^ int(state[1])) & (2**63 - 1))


# ---- the search ----------------------------------------------------------------------------
@dataclass
class _Pool:
    """A setting's games so far: n and the n-weighted sums of the target metrics."""

    n: int = 0
    sums: np.ndarray | None = None
    batches: int = 0
    stage: int = 0

    def add(self, values: np.ndarray, n: int) -> None:
        self.sums = values * n if self.sums is None else self.sums + values * n
        self.n += n
        self.batches += 1

    @property
    def values(self) -> np.ndarray:
        return self.sums / self.n


@dataclass
class Search:
    """What the search found: the best setting, every setting's pooled estimate, the seeds."""

    best: dict
    table: pd.DataFrame
    games: int
    seeds: list = field(default_factory=list)     # every search batch's root seed


Evaluate = Callable[[dict, int, int], dict]
#: ``batch([(setting, n), ...], seed)``: every setting played on n games from the one root seed
#: (common random numbers), one summary each, in order.
Batch = Callable[[list, int], list]


def search(evaluate: Evaluate | None, knobs: list[Knob], targets: list[Target], *, budget: int,
           seed: int, trials: int = 27, eta: int = 3, stages: int = 4,
           batch: Batch | None = None) -> Search:
    """Successive halving over Optuna proposals (module docstring). ``evaluate(setting, n,
    seed)`` plays n games of ``setting`` (option -> value) from root ``seed`` and returns a
    summary dict; or ``batch`` plays a stage's settings together (one study per batch, see
    :class:`StudyBatches`). A stage-0 batch is one proposal (Optuna is told its loss before
    it proposes the next); a later stage's batch is every setting it keeps."""
    import optuna

    grid = small_grid(knobs, trials)
    if grid is not None:                       # a small integer grid: every value once
        trials = len(grid)
    n0 = budget // (stages * trials)
    if n0 < 1:
        raise InputError(f"--budget {budget:,} is too small: at least {stages * trials} games "
                         f"({trials} trials x {stages} stages)")
    if batch is None:
        def batch(plays, s):
            return [evaluate(setting, n, s) for setting, n in plays]
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=derive_seed(seed, SAMPLER) % 2**32,
                                         n_startup_trials=max(1, min(10, trials // 3)))
    study = optuna.create_study(direction="minimize", sampler=sampler)
    names = [k.name for k in knobs]
    pools: dict[tuple, _Pool] = {}
    seeds, used = [], 0

    def play(plays, s):
        nonlocal used
        summaries = batch([(dict(zip(names, key)), n) for key, n in plays], s)
        out = []
        for (key, n), summary in zip(plays, summaries):
            values = metric_values(targets, summary)
            pools.setdefault(key, _Pool()).add(values, n)
            seeds.append(s)
            used += n
            out.append(values)
        return out

    if grid is not None:                                     # stage 0: the whole grid
        for key in grid:
            play([(key, n0)], derive_seed(seed, SEARCH, 0, 0))
    else:                                                    # stage 0: Optuna proposes
        asks = 0
        while len(pools) < trials and asks < REPEAT_ASKS * trials:
            asks += 1
            trial = study.ask()
            key = tuple(k.suggest(trial) for k in knobs)
            if key in pools:                  # a repeat: the earlier estimate, no new games
                study.tell(trial, loss(targets, pools[key].values, pools[key].n))
                continue
            (values,) = play([(key, n0)], derive_seed(seed, SEARCH, 0, 0))
            study.tell(trial, loss(targets, values, n0))
    ranked = _rank(pools, targets, list(pools))
    for stage in range(1, stages):                           # successive halving
        ranked = ranked[:max(1, math.ceil(len(ranked) / eta))]
        n_more = n0 * eta ** stage
        if stage == stages - 1:                              # the last stage takes what is left
            n_more = max(n_more, (budget - used) // len(ranked))
        plays, left = [], budget - used
        for key in ranked:
            n = min(n_more, left)
            if n < 1:
                break
            plays.append((key, n))
            left -= n
        play(plays, derive_seed(seed, SEARCH, stage, 0))     # common seed within the stage
        for key, _ in plays:
            pools[key].stage = stage
        ranked = _rank(pools, targets, ranked)
    return Search(dict(zip(names, ranked[0])), _table(pools, targets, names), used, seeds)


def small_grid(knobs: list[Knob], trials: int) -> list[tuple] | None:
    """Every setting of integer knobs, in order, when there are at most ``trials`` of them
    (then stage 0 plays each once instead of asking Optuna); else None."""
    if any(k.kind != "int" for k in knobs):
        return None
    size = math.prod(int(k.hi) - int(k.lo) + 1 for k in knobs)
    if size > trials:
        return None
    import itertools

    return list(itertools.product(*(range(int(k.lo), int(k.hi) + 1) for k in knobs)))


def _rank(pools, targets, keys) -> list[tuple]:
    return sorted(keys, key=lambda k: (loss(targets, pools[k].values, pools[k].n), k))


def _table(pools, targets, names) -> pd.DataFrame:
    rows = []
    for key, p in pools.items():
        row = dict(zip(names, key))
        row.update({"games": p.n, "batches": p.batches, "last_stage": p.stage,
                    "loss": loss(targets, p.values, p.n)})
        row.update({t.key: float(v) for t, v in zip(targets, p.values)})
        rows.append(row)
    return (pd.DataFrame(rows).sort_values(["last_stage", "loss"], ascending=[False, True],
                                           kind="stable").reset_index(drop=True))


# ---- hold-out check ------------------------------------------------------------------------
def holdout_check(summary: dict, targets: list[Target], n: int,
                  tolerance: float) -> list[dict]:
    """Per target: the held-out estimate with its 95% interval (the summary's ``_ci``, else
    ±1.96 ``_se``), the deviation from the target with the same interval shifted."""
    rows = []
    for t in targets:
        v = float(metric_values([t], summary)[0])
        ci = _interval(summary, t)
        dev = v - t.value
        dev_ci = None if ci is None else [ci[0] - t.value, ci[1] - t.value]
        rows.append({"target": t.key, "value": t.value, "estimate": v, "ci": ci,
                     "deviation": dev, "deviation_ci": dev_ci, "games": n,
                     "within_tolerance": bool(abs(dev) <= tolerance),
                     "ci_within_tolerance": None if dev_ci is None else
                     bool(-tolerance <= dev_ci[0] and dev_ci[1] <= tolerance)})
    return rows


def _interval(summary: dict, t: Target):
    ci = summary.get(f"{t.metric}_ci")
    if ci is not None:
        ci = ci if t.index is None else ci[t.index]
        return [float(ci[0]), float(ci[1])]
    se = summary.get(f"{t.metric}_se")
    if se is not None:
        se = se if t.index is None else se[t.index]
        v = float(metric_values([t], summary)[0])
        return [v - Z95 * float(se), v + Z95 * float(se)]
    return None


# ---- the whole study -----------------------------------------------------------------------
@dataclass
class Balance:
    """A balance run: the inputs, the search, and the hold-out check of its best setting."""

    game: str
    players: int
    policies: list
    seed: int
    budget: int
    targets: list
    knobs: list
    base_options: dict
    found: Search
    holdout_seed: int
    holdout: list
    tolerance: float
    baseline: list | None = None                  # the unvaried setting on the same seeds
    folder: str | None = None                     # where its studies and result are

    def write(self, out) -> list[Path]:
        """``balance.json`` (the summary) and ``search.csv`` (every setting's pooled
        estimate) into ``out``, each atomically (``core.atomic``)."""
        import json

        from vikingsim.core.atomic import atomic_write
        from vikingsim.core.console import json_safe

        text = json.dumps(json_safe(self.summary()), indent=1)
        try:
            return [atomic_write(Path(out) / "balance.json", lambda p: Path(p).write_text(text)),
                    atomic_write(Path(out) / "search.csv",
                                 lambda p: self.found.table.to_csv(p, index=False))]
        except OSError as e:
            raise InputError(f"cannot write into {str(out)!r}: {e.strerror or e}") from None

    def summary(self) -> dict:
        return {
            "game": self.game, "players": self.players, "policies": self.policies,
            "seed": self.seed, "budget": self.budget, "search_games": self.found.games,
            "targets": [{"target": x.key, "value": x.value, "text": x.text}
                        for x in self.targets],
            "vary": [{"option": k.name, "type": k.kind, "lo": k.lo, "hi": k.hi,
                      **({} if k.path is None else {"base_file": k.base_file,
                                                    "base_value": k.base_value})}
                     for k in self.knobs],
            "options": self.base_options, "best": self.found.best,
            "holdout_games": self.holdout[0]["games"], "holdout_seed": self.holdout_seed,
            "holdout": self.holdout, "tolerance": self.tolerance,
            "max_abs_deviation": max(abs(r["deviation"]) for r in self.holdout),
            "all_within_tolerance": all(r["within_tolerance"] for r in self.holdout),
            "all_ci_within_tolerance": all(bool(r["ci_within_tolerance"])
                                           for r in self.holdout),
            "search": self.found.table.to_dict(orient="records"),
            "baseline": self.baseline,
        }


class StudyBatches:
    """The search's batches as small generated studies (kind "balance"), run by the study
    runner on one started backend ``pool``: batch ``i`` is the study in ``<out>/batch-<i>``
    with one cell per setting (``[[cases]]`` of the varied options), the batch's derived
    seed and ``common_seeds = true``, so every cell plays the games of ``simulate(...,
    seed=batch seed)``. The search is deterministic, so ``resume`` re-runs it and the runner
    reads finished batches (and chunks) from disk instead of playing them again. A batch
    whose settings get different game counts (the budget runs out in a stage) is one study
    per count, on the same seed."""

    def __init__(self, spec, players: int, policies: list, base: dict, targets: list, out,
                 pool, resume: bool, progress: bool, knobs: list[Knob] = ()):
        self.spec, self.players, self.policies, self.base = spec, players, policies, base
        self.knobs = list(knobs)
        self.targets, self.out, self.pool = targets, out and Path(out), pool
        self.resume, self.progress, self.count = resume, progress, 0
        self.running = False

    def __call__(self, plays: list, seed: int) -> list[dict]:
        summaries, i = [], 0
        while i < len(plays):                                # runs of equal game counts
            j = i
            while j < len(plays) and plays[j][1] == plays[i][1]:
                j += 1
            name = f"batch-{self.count:04d}"
            self.count += 1
            summaries += self.run(name, [st for st, _ in plays[i:j]], plays[i][1], seed)
            i = j
        return summaries

    def run(self, name: str, settings: list, n: int, seed: int, role: str = "search"):
        """Play ``settings`` on n games each from ``seed`` as the study ``<out>/<name>``;
        their summaries (from the stored tallies), in order."""
        from vikingsim.studies.run import run_study

        study = self.study(name, settings, n, seed, role)
        self.running = True                   # a stop now: the runner says what is saved
        res = run_study(study, self.out / name, pool=self.pool, resume=self.resume,
                        progress=self.progress)
        self.running = False
        return [res.summaries[c] for c in range(len(settings))]

    def study(self, name: str, settings: list, n: int, seed: int, role: str):
        from vikingsim.studies.spec import study_from_dict

        files = [kb for kb in self.knobs if kb.path is not None]
        if files:                            # file entries: each case names its derived file
            cases = [setting_options(self.knobs, st, self.out / "inputs") for st in settings]
            base = {o: v for o, v in self.base.items() if o not in {kb.option for kb in files}}
        else:
            cases, base = [dict(st) for st in settings], self.base
        data = {"name": f"balance-{self.spec.name}-{name}", "kind": "balance",
                "game": self.spec.name, "players": self.players,
                "policies": list(self.policies), "games": n, "seed": seed,
                "common_seeds": True, "rows": False, "options": dict(base),
                "cases": cases,
                "report": {"role": role, "batch": name,
                           "targets": [{"metric": t.metric, "seat": -1 if t.index is None
                                        else t.index, "value": t.value, "text": t.text}
                                       for t in self.targets]}}
        if files:                            # the settings behind the cells' file names
            data["report"]["settings"] = [dict(st) for st in settings]
        return study_from_dict(data, Path.cwd() / f"{data['name']}.toml")


def check_balance_out(out, resume: bool) -> Path:
    """Before any game: ``out`` is a new or empty folder, or (``resume``) a folder holding an
    earlier run (its batches are checked study by study as the search reaches them)."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise InputError(f"--out {str(out)!r} is a file, not a folder")
    if path.exists() and any(path.iterdir()) and not resume:
        raise InputError(f"--out {str(out)!r} is not empty: add --resume to continue the "
                         f"balance run there, or give another --out")
    return path


def run_balance(game, targets, vary, *, budget: int = 300_000, holdout: int = 200_000,
                players=None, policies=None, options=None, seed: int = config.SEED,
                tolerance: float = 0.005, trials: int = 27, threads: int | None = None,
                baseline: bool = False, evaluate: Evaluate | None = None, out=None,
                backend: str = "local", workers: int | None = None,
                scheduler: str | None = None, resume: bool = False,
                progress: bool = False, element: str | None = None,
                reference: str | None = None, worth_within: float | None = None) -> Balance:
    """Search the ``vary`` options of ``game`` for the setting closest to ``targets``, then
    check it on ``holdout`` fresh games (see the module docstring). ``baseline``: also play
    the options without the varied ones (their defaults) on the same hold-out seeds.

    Every batch, and the hold-out check, is a study run into a sub-folder of ``out``
    (:class:`StudyBatches`; a temporary folder when None) on one backend (``backend``,
    ``workers`` (``threads`` is its older name), ``scheduler``), and the result is written
    into ``out`` (``balance.json``, ``search.csv``, atomically); ``resume`` continues a
    stopped run there. ``evaluate`` replaces the game's simulation (tests; nothing written).

    ``targets == ["worth"]`` (or ``"worth=POINTS"``) with ``element`` (``reference``,
    ``worth_within``): the objective is the element's restricted-play worth minus the
    reference's (``studies.balance_worth``), ``worth_within`` points its tolerance."""
    from vikingsim.core.options import resolve
    from vikingsim.core.runner import check_count, resolve_policies
    from vikingsim.games import get

    spec = get(game) if isinstance(game, str) else game
    budget = check_count("budget", budget, 1, 10**12)
    holdout = check_count("holdout", holdout, 1, 10**12)
    seed = check_count("seed", seed, 0, 2**63 - 1)
    trials = check_count("trials", trials, 1, 10_000)
    if not (isinstance(tolerance, (int, float)) and 0 < tolerance < math.inf):
        raise InputError(f"tolerance must be a positive number, got {tolerance!r}")
    pols, k = resolve_policies(spec, policies, players)
    base = dict(options or {})
    knobs = [parse_knob(v, spec.options, spec=spec, base=base) for v in (vary or [])]
    if not knobs:
        raise InputError("give at least one --vary KNOB=LO..HI")
    for kb in knobs:
        if kb.path is None and kb.name in base:
            raise InputError(f"option {kb.name} is both --set and --vary")
    if len({kb.name for kb in knobs}) < len(knobs):
        raise InputError("the same option is given to --vary twice")
    from vikingsim.studies import balance_worth as W

    wt = None
    if W.is_worth_target(targets) or element is not None:
        if evaluate is not None:
            raise InputError("a worth target plays restricted-play studies; no evaluate")
        valid, pool = W.setup_elements(spec, pols, k, base)
        wt = W.parse_worth(targets, element, reference, worth_within, valid, k, pool)
        tgts, tolerance = [Target(W.METRIC, None, wt.value, wt.text)], wt.tolerance
    elif reference is not None or worth_within is not None:
        raise InputError("--reference and --worth-within go with --target worth --element E")
    else:
        tgts = parse_targets(targets, k)
    _check_corners(spec, pols, k, base, knobs)
    args = (spec, k, pols, base, tgts, knobs, seed, budget, holdout, trials, tolerance,
            baseline)
    if evaluate is not None:
        return _balance(*args, evaluate=evaluate)
    from vikingsim.studies.backends import check_backend

    check_backend(backend, workers, scheduler)
    if out is not None:
        check_balance_out(out, resume)
    if wt is None:                     # a worth gap is no summary metric: nothing to probe
        probe = StudyBatches(spec, k, pols, base, tgts, None, None, False, False, knobs)
        check_targets(tgts, _probe(probe, {kb.name: kb.cast(kb.lo) for kb in knobs}, seed))
    if out is None:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="vikingsim-balance-") as tmp:
            return _balance_studies(args, Path(tmp), backend, workers or threads, scheduler,
                                    False, progress, wt)
    return _balance_studies(args, Path(out), backend, workers or threads, scheduler, resume,
                            progress, wt)


def _check_corners(spec, pols, k, base: dict, knobs: list[Knob]) -> None:
    """Both ends of every range are valid settings (the game's setup accepts them; the
    derived files of file entries in a temporary folder)."""
    import tempfile

    from vikingsim.core.options import resolve

    with tempfile.TemporaryDirectory(prefix="vikingsim-corner-") as tmp:
        for corner in ("lo", "hi"):
            setting = {kb.name: kb.cast(getattr(kb, corner)) for kb in knobs}
            opts = resolve(spec.name, spec.options,
                           {**base, **setting_options(knobs, setting, tmp)})
            spec.setup(opts, pols, k)


def _probe(batches: StudyBatches, setting: dict, seed: int) -> dict:
    """One game of ``setting`` (a one-cell study in a temporary folder, on a thread of this
    process): its summary names the metrics a target may use. Nothing is left behind."""
    import tempfile

    from vikingsim.studies.backends import make_backend

    with tempfile.TemporaryDirectory(prefix="vikingsim-probe-") as tmp:
        batches.out, batches.pool = Path(tmp), make_backend("local", 1)
        try:
            return batches.run("probe", [setting], 1, derive_seed(seed, PROBE), "probe")[0]
        finally:
            batches.pool.close()


def _balance_studies(args, out: Path, backend, workers, scheduler, resume, progress,
                     wt=None):
    """The search and hold-out as studies in ``out`` on one backend, closed at the end (at
    once, dropping chunks not started, when stopped); the result written into ``out``.
    ``wt`` (a worth target): the batches are restricted-play studies (``balance_worth``)."""
    from vikingsim.studies.backends import make_backend
    from vikingsim.studies.balance_worth import WorthBatches

    spec, k, pols, base, tgts = args[:5]
    pool = make_backend(backend, workers, scheduler)
    kind = StudyBatches if wt is None else WorthBatches
    batches = kind(spec, k, pols, base, tgts if wt is None else wt, out, pool, resume,
                   progress, args[5])
    try:
        b = _balance(*args, batches=batches)
    except BaseException as e:
        pool.close(cancel=True)
        if isinstance(e, KeyboardInterrupt) and not batches.running:    # between batches
            print(f"vikingsim: balance stopped; its finished batches are saved in {out}: "
                  f"rerun with --resume to finish it", file=sys.stderr)
        raise
    pool.close()
    b.folder = str(out)
    b.write(out)
    return b


def _balance(spec, k, pols, base, tgts, knobs, seed, budget, holdout, trials, tolerance,
             baseline, *, evaluate: Evaluate | None = None,
             batches: StudyBatches | None = None) -> Balance:
    """The search, then the hold-out check of its best setting (and the baseline: the varied
    options at their defaults, the same hold-out games): by ``evaluate`` or by ``batches``."""
    from vikingsim.core.options import resolve

    if evaluate is not None:
        check_targets(tgts, evaluate({kb.name: kb.cast(kb.lo) for kb in knobs}, 1,
                                     derive_seed(seed, PROBE)))
    found = search(evaluate, knobs, tgts, budget=budget, seed=seed, trials=trials,
                   batch=batches)
    h_seed = derive_seed(seed, HOLDOUT)
    if evaluate is not None:
        best = evaluate(found.best, holdout, h_seed)
        base_summary = evaluate({}, holdout, h_seed) if baseline else None
    else:
        defaults = {o.name: o.default for o in spec.options}
        cells = [found.best] + ([{kb.name: defaults[kb.name] if kb.path is None else
                                  kb.base_value for kb in knobs}] if baseline else [])
        got = batches.run("holdout", cells, holdout, h_seed, "holdout")
        best, base_summary = got[0], (got[1] if baseline else None)
    checked = holdout_check(best, tgts, holdout, tolerance)
    base_rows = (holdout_check(base_summary, tgts, holdout, tolerance) if baseline else None)
    return Balance(spec.name, k, pols, seed, budget, tgts, knobs,
                   resolve(spec.name, spec.options, base), found, h_seed, checked, tolerance,
                   base_rows)


# ---- text ----------------------------------------------------------------------------------
def _fmt_setting(setting: dict) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in setting.items())


def _holdout_lines(rows: list[dict]) -> list[str]:
    out = []
    for r in rows:
        ci = "" if r["ci"] is None else f" [{r['ci'][0]:.4f}, {r['ci'][1]:.4f}]"
        dci = ("" if r["deviation_ci"] is None else
               f" [{r['deviation_ci'][0]:+.4f}, {r['deviation_ci'][1]:+.4f}]")
        out.append(f"  {r['target']}: {r['estimate']:.4f}{ci}  target {r['value']:.4f}  "
                   f"deviation {r['deviation']:+.4f}{dci}")
    return out


def format_text(b: Balance) -> str:
    """Human-readable report of a balance run."""
    s = b.summary()
    lines = [f"{b.game}: balance search, {b.players} players, policies {','.join(b.policies)}, "
             f"seed {b.seed}",
             f"targets: {', '.join(f'{t.key}={t.value:.4g}' for t in b.targets)}",
             f"search: {b.found.games:,} games (budget {b.budget:,}) over "
             f"{len(b.found.table)} settings; successive halving on Optuna TPE proposals",
             "settings (most games first; loss = sum of squared deviations, noise-corrected):"]
    names = [k.name for k in b.knobs]
    for _, r in b.found.table.head(8).iterrows():
        setting = {c: b.knobs[i].cast(r[c]) for i, c in enumerate(names)}
        lines.append(f"  {_fmt_setting(setting).replace(', ', ' ')}: {int(r['games']):,} games, "
                     f"stage {int(r['last_stage'])}, loss {r['loss']:.3g}")
    lines.append(f"best: {_fmt_setting(b.found.best)}")
    lines.append(f"hold-out check: {s['holdout_games']:,} fresh games (seeds not used by the "
                 f"search), 95% intervals:")
    lines += _holdout_lines(b.holdout)
    verdict = ("every interval lies within" if s["all_ci_within_tolerance"] else
               "every estimate lies within" if s["all_within_tolerance"] else "not all within")
    lines.append(f"max |deviation| {s['max_abs_deviation']:.4f}: {verdict} ±{b.tolerance:g} "
                 f"of target")
    if b.baseline:
        lines.append("baseline (the varied options at their defaults, same hold-out games):")
        lines += [line.split("  target")[0] + "  deviation " + line.split("deviation ")[1]
                  .split(" [")[0] for line in _holdout_lines(b.baseline)]
    return "\n".join(lines)


# ---- vikingsim report (kind "balance", studies.kinds) ----------------------------------------
def study_folder(path) -> Path:
    """The study ``vikingsim report`` opens for ``path``: a balance run's folder (with
    ``balance.json``, no ``study.json``) is reported by its hold-out study."""
    p = Path(path)
    if (p / "balance.json").exists() and not (p / "study.json").exists():
        return p / "holdout"
    return p


def _batch_targets(data) -> list[Target]:
    return [Target(t["metric"], None if t["seat"] < 0 else int(t["seat"]), float(t["value"]),
                   t["text"]) for t in data.manifest["report"]["targets"]]


def _batch_frame(data) -> pd.DataFrame:
    """One row per cell of a balance batch: its setting, games, target estimates and loss,
    from the summaries of its stored tallies."""
    from vikingsim.studies.dataset import cell_summaries

    m = data.manifest
    targets, summaries = _batch_targets(data), cell_summaries(data.root, m)
    settings = m["report"].get("settings")         # file entries: the values, not the files
    rows = []
    for entry in m["cells"]:
        if entry["cell"] not in summaries:
            continue
        values = metric_values(targets, summaries[entry["cell"]])
        grid = entry["grid"] if settings is None else settings[entry["cell"]]
        rows.append({**grid, "games": entry["games_done"],
                     "loss": loss(targets, values, entry["games_done"]),
                     **{t.key: float(v) for t, v in zip(targets, values)}})
    return pd.DataFrame(rows)


def _setting_keys(data) -> list[str]:
    """The names of a batch's varied knobs (its grid keys, or its file entries' names)."""
    settings = data.manifest["report"].get("settings")
    return list(settings[0]) if settings else list(data.manifest["grid_keys"])


def report_tables(data) -> dict[str, pd.DataFrame]:
    """The batch's settings with their estimates and loss; for the hold-out study also the
    whole search's table (``search.csv`` of the balance folder)."""
    role = data.manifest["report"]["role"]
    tables = {f"Settings of {data.manifest['report']['batch']} ({role}), from the stored "
              f"counts": _batch_frame(data)}
    search_csv = Path(data.root).parent / "search.csv"
    if role == "holdout" and search_csv.exists():
        tables["The search: every setting's pooled estimate"] = pd.read_csv(search_csv)
    return tables


def report_findings(data) -> list[str]:
    """The setting closest to the targets in this batch, in words; for the hold-out study
    each target's held-out deviation."""
    df, rep = _batch_frame(data), data.manifest["report"]
    if df.empty:
        return [f"{rep['batch']} has no finished cell yet."]
    knobs = _setting_keys(data)
    if rep["role"] == "holdout":
        r = df.iloc[0]
        return [f"Hold-out ({int(r['games']):,} fresh games) of {_fmt_setting(dict(r[knobs]))}: "
                f"{t.key} {r[t.key]:.4f} against the target {t.value:.4f} (deviation "
                f"{r[t.key] - t.value:+.4f})." for t in _batch_targets(data)]
    best = df.sort_values("loss", kind="stable").iloc[0]
    return [f"{rep['batch']} played {len(df)} setting{'s' * (len(df) != 1)} on "
            f"{int(best['games']):,} games each (common seed); the closest to the targets is "
            f"{_fmt_setting(dict(best[knobs]))} (loss {best['loss']:.3g})."]


def report_figures(data, folder) -> list[Path]:
    """Each target metric's estimate by setting (one line per target, the targets dashed)."""
    from matplotlib.figure import Figure

    from vikingsim.core.atomic import atomic_write

    df = _batch_frame(data)
    knobs = _setting_keys(data)
    if df.empty:
        return []
    labels = [_fmt_setting(dict(r[knobs])) for _, r in df.iterrows()]
    fig = Figure(figsize=(6.5, 3.6), layout="constrained")
    ax = fig.add_subplot()
    for t in _batch_targets(data):
        line = ax.plot(range(len(df)), df[t.key], marker="o", label=t.key)[0]
        ax.axhline(t.value, ls="--", lw=0.8, color=line.get_color())
    ax.set_xticks(range(len(df)), labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("estimate (dashed: target)")
    ax.legend(fontsize=8)
    path = Path(folder) / f"balance-{data.manifest['report']['batch']}.png"
    Path(folder).mkdir(parents=True, exist_ok=True)
    return [atomic_write(path, lambda p: fig.savefig(p, dpi=110, format="png"))]
