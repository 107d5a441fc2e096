"""Best stances in a Ravenfeast duel (rules notes ravenfeast.md §12.7): the duel as a matrix game
solved from the exact odds (``duel/exact.py``).

A seat playing the policy ``optimal`` decides some of the duel's stance flags (§12.5: ``rear``,
``shield_wall``, ``outnumbered``, ``uphill``), its own or its opponent's (a flank march puts the
foe's rear to it, a hill makes the foe attack uphill). Its strategies are every subset of the
flags it decides (parameter ``choose``, names relative to the acting seat: ``shield_wall`` = its
own flag, ``foe_rear`` = the opponent's). A flag set by the options stays set; a flag is on
when the options or either seat's strategy set it (the flags are OR'ed). A seat playing
``default`` has one strategy: the stance its options give.

Every cell of the matrix is an exact solve (cached by the compiled numbers). Payoff to a seat
(parameter ``objective``): ``score`` (DEFAULT) = P(it wins) + (P(both die) + P(truncated)) / 2,
so the two scores add to 1 and the game is zero-sum; ``win`` = P(it wins) (draws worth nothing:
not zero-sum). For each seat:

- the **pure guarantee** ``max_i min_j u(i, j)``: the policy plays that maximin strategy; ties
  (within 1e-12) go to the higher mean payoff over the opponent's strategies, then to fewer
  flags, then to the order of ``choose`` (data order, never the seat number);
- the **mixed guarantee**, ``max_x min_j sum_i x_i u(i, j)`` by ``scipy.optimize.linprog``. With
  ``score`` the two mixed guarantees add to 1 (minimax theorem). The policy plays the pure
  choice only; a mixed guarantee above the pure one says a randomised stance would do better.
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.options import rule
from vikingsim.games.ravenfeast.duel.exact import solve
from vikingsim.games.ravenfeast.duel.rules import DuelSetup, compile_duel
from vikingsim.games.ravenfeast.rules import Stance

FLAGS = tuple(f.name for f in dataclasses.fields(Stance))     # rear, shield_wall, ...
FOE = "foe_"
CHOICE_NAMES = FLAGS + tuple(FOE + f for f in FLAGS)
OBJECTIVES = ("score", "win")
#: At most this many flags per seat: 2**4 = 16 strategies, 256 exact solves at most.
MAX_CHOICES = 4
_TIE = 1e-12


@dataclass(frozen=True)
class OptimalPolicy:
    """Duel policy ``optimal`` (§12.7): play the pure maximin stance over the flags in
    ``choose``."""

    choose: str = rule("shield_wall", "duel: +-joined stance flags this seat decides: "
                       + ", ".join(CHOICE_NAMES) + " (foe_ = the opponent's flag)",
                       section="§12.7")
    objective: str = rule("score", "duel payoff: score (win + half of draw/truncated, zero-sum)"
                          " or win (own win probability)", section="§12.7", choices=OBJECTIVES)

    def __post_init__(self):
        choice_flags(self.choose)
        if self.objective not in OBJECTIVES:
            raise InputError(f"objective={self.objective!r}; allowed: {', '.join(OBJECTIVES)}")


def choice_flags(text: str) -> tuple[str, ...]:
    """``choose`` text -> its flag names in order; InputError (one line) when bad."""
    names = tuple(filter(None, (x.strip() for x in str(text).split("+"))))
    for x in names:
        if x not in CHOICE_NAMES:
            raise InputError(f"choose: unknown stance flag {x!r}; allowed: "
                             f"{', '.join(CHOICE_NAMES)}")
    if len(set(names)) != len(names):
        raise InputError(f"choose: a flag is given twice in {text!r}")
    if len(names) > MAX_CHOICES:
        raise InputError(f"choose: at most {MAX_CHOICES} flags, got {len(names)}")
    return names


def strategies(flags: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every subset of ``flags``: fewest flags first, then in the order given."""
    return [c for k in range(len(flags) + 1) for c in itertools.combinations(flags, k)]


def label(strategy: tuple[str, ...]) -> str:
    """A strategy as text ("" -> "as_given")."""
    return "+".join(strategy) or "as_given"


def _stances(base: DuelSetup, sa: tuple, sb: tuple) -> tuple[Stance, Stance]:
    """Both figures' stances when seat A plays ``sa`` and seat B ``sb`` (flags OR'ed)."""
    on = [set(f for f in FLAGS if getattr(base.stances[i], f)) for i in range(2)]
    for seat, strat in ((0, sa), (1, sb)):
        for x in strat:
            who = 1 - seat if x.startswith(FOE) else seat
            on[who].add(x[len(FOE):] if x.startswith(FOE) else x)
    return tuple(Stance(**{f: f in on[i] for f in FLAGS}) for i in range(2))


def cell_setup(base: DuelSetup, sa: tuple, sb: tuple) -> DuelSetup:
    """The compiled duel of strategy pair (sa, sb) on top of ``base``."""
    st = _stances(base, sa, sb)
    return compile_duel(base.rules, base.rows[0], base.rows[1], st[0], st[1], names=base.names)


def _key(s: DuelSetup) -> tuple:
    return tuple(int(x) for arr in (s.attacks, s.melee, s.armor, s.wounds, s.fated) for x in arr)


def payoffs(result: dict, objective: str) -> tuple[float, float]:
    """(payoff to A, payoff to B) of one exact result."""
    if objective == "win":
        return result["p_a_win"], result["p_b_win"]
    half = 0.5 * (result["p_both_die"] + result["p_truncated"])
    return result["p_a_win"] + half, result["p_b_win"] + half


def mixed_guarantee(u: np.ndarray) -> tuple[float, np.ndarray]:
    """Row player's mixed security level ``max_x min_j x @ u[:, j]`` and an optimal ``x``
    (``scipy.optimize.linprog``, HiGHS)."""
    from scipy.optimize import linprog

    m, k = u.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0                                            # maximise v
    a_ub = np.hstack([-u.T, np.ones((k, 1))])               # v - x @ u[:, j] <= 0
    a_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(k), A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs")
    if not res.success:                                     # pragma: no cover - LP is feasible
        raise RuntimeError(f"linprog failed: {res.message}")
    x = np.clip(res.x[:m], 0.0, None)
    return float(res.x[-1]), x / x.sum()


def pure_choice(u: np.ndarray) -> int:
    """Row index of the pure maximin strategy with the module's tie rule (rows are already in
    the fewest-flags-then-given order, so the first of equals wins the last tie)."""
    worst = u.min(axis=1)
    best = worst.max()
    tied = np.flatnonzero(worst >= best - _TIE)
    mean = u[tied].mean(axis=1)
    return int(tied[np.flatnonzero(mean >= mean.max() - _TIE)[0]])


@dataclass(frozen=True)
class DuelGame:
    """The solved matrix game of a duel (index 0 = seat A, 1 = seat B)."""

    strategies: tuple          # (A's strategies, B's strategies), tuples of flag names
    payoff: tuple              # (u_A, u_B): arrays (n_A, n_B), rows A's strategy, cols B's
    results: tuple             # results[i][j]: exact ``solve`` dict of cell (i, j)
    objectives: tuple          # per seat
    choice: tuple              # per seat: index of its pure maximin strategy (0 for default)
    pure: tuple                # per seat: pure guarantee
    mixed: tuple               # per seat: mixed guarantee
    mixed_strategy: tuple      # per seat: optimal mixed strategy (array)

    @property
    def chosen(self) -> tuple[str, str]:
        return tuple(label(self.strategies[i][self.choice[i]]) for i in range(2))

    def played(self) -> dict:
        """Exact result of the cell both seats' pure choices meet in."""
        return self.results[self.choice[0]][self.choice[1]]


def solve_game(base: DuelSetup, policies=(None, None)) -> DuelGame:
    """Matrix game of duel ``base``; ``policies[i]`` is seat i's :class:`OptimalPolicy`, or
    None for a seat that plays its given stance."""
    flags = [choice_flags(p.choose) if p is not None else () for p in policies]
    objectives = tuple(p.objective if p is not None else "score" for p in policies)
    strats = [strategies(f) for f in flags]
    cache: dict = {}
    results = []
    u = [np.zeros((len(strats[0]), len(strats[1]))) for _ in range(2)]
    for i, sa in enumerate(strats[0]):
        row = []
        for j, sb in enumerate(strats[1]):
            cs = cell_setup(base, sa, sb)
            key = _key(cs)
            if key not in cache:
                cache[key] = solve(cs)
            r = cache[key]
            row.append(r)
            u[0][i, j] = payoffs(r, objectives[0])[0]
            u[1][i, j] = payoffs(r, objectives[1])[1]
        results.append(row)
    own = (u[0], u[1].T)                                    # each seat's payoffs, its rows
    choice, pure, mixed, xs = [], [], [], []
    for seat in range(2):
        k = pure_choice(own[seat]) if policies[seat] is not None else 0
        v, x = mixed_guarantee(own[seat])
        choice.append(k)
        pure.append(float(own[seat].min(axis=1)[k]))
        mixed.append(v)
        xs.append(x)
    return DuelGame(strategies=tuple(tuple(s) for s in strats), payoff=tuple(u),
                    results=tuple(results), objectives=objectives, choice=tuple(choice),
                    pure=tuple(pure), mixed=tuple(mixed), mixed_strategy=tuple(xs))


def play_optimal(base: DuelSetup, policies) -> DuelSetup:
    """``base`` with each ``optimal`` seat's pure maximin stance applied (recorded in
    ``DuelSetup.chosen``)."""
    g = solve_game(base, policies)
    sa, sb = g.strategies[0][g.choice[0]], g.strategies[1][g.choice[1]]
    return cell_setup(base, sa, sb)._replace(
        chosen=tuple(g.chosen[i] if policies[i] is not None else "" for i in range(2)))


def game_table(g: DuelGame):
    """The game as a tidy frame: one row per seat (strategies, choice, guarantees, mixed
    strategy as ``label:weight``)."""
    import pandas as pd

    rows = []
    for seat, name in enumerate("ab"):
        x = g.mixed_strategy[seat]
        rows.append({"seat": name, "objective": g.objectives[seat],
                     "strategies": len(g.strategies[seat]), "choice": g.chosen[seat],
                     "pure_guarantee": g.pure[seat], "mixed_guarantee": g.mixed[seat],
                     "mixed_strategy": ", ".join(f"{label(s)}:{w:.3f}" for s, w in
                                                 zip(g.strategies[seat], x) if w > 1e-9)})
    return pd.DataFrame(rows)


__all__ = ["CHOICE_NAMES", "DuelGame", "OptimalPolicy", "choice_flags", "game_table",
           "mixed_guarantee", "play_optimal", "pure_choice", "solve_game", "strategies"]
