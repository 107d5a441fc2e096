"""Ravenfeast designer question: are the printed point costs in line with strength? The
point-cost calibration of ravenfeast §12.4 (bare § below cite ``ravenfeast.md``), used by
``notebooks/ravenfeast_points.ipynb`` and ``tests/test_ravenfeast_points.py``.

Three strength measures, each turned into an "implied cost" and compared with the printed one:

1. **Lanchester first guess** (§12.4 step 2): value = sqrt(offence x durability), offence =
   expected wounds dealt per turn against a reference Armor (with Mighty and the §6.4 Free
   Attack), durability = wounds / P(a reference hit wounds it). Exact, no simulation.
2. **Duel rating**: a Bradley-Terry rating fitted to the exact duel matrix (``exact.solve``);
   score = P(win) + P(both die) / 2.
3. **Equal-points warband battles** (if ``mode=warband`` exists): single-type warbands of about
   ``budget`` points fight; a Bradley-Terry fit gives each type's strength per point, and a
   points-sensitivity battle (the same type at two sizes) converts it into an implied cost.

Implied costs come as ``cost = K * value`` fits (log scale) with leave-one-out prediction
intervals (1, 2) or parametric-bootstrap intervals (3).
"""
from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from vikingsim.core.errors import InputError
from vikingsim.core.stats import wilson
from vikingsim.games.ravenfeast.duel.exact import attack_distribution, solve
from vikingsim.games.ravenfeast.profiles import PREDEFINED, PROFILES, wounds_for

CALIBRATION_TOLERANCE = 0.10      # §12.4 step 3 DEFAULT


def duel_matrix(types=PREDEFINED, options: dict | None = None) -> pd.DataFrame:
    """Exact duel results for every ordered pair (a, b) of ``types`` (long frame)."""
    from vikingsim.games.ravenfeast import duel_setup

    rows = []
    for a in types:
        for b in types:
            r = solve(duel_setup({**(options or {}), "a": a, "b": b}))
            rows.append({"a": a, "b": b, "p_a_win": r["p_a_win"], "p_b_win": r["p_b_win"],
                         "p_both_die": r["p_both_die"], "p_truncated": r["p_truncated"],
                         "mean_turns": r["mean_turns"],
                         "score": r["p_a_win"] + 0.5 * r["p_both_die"]})
    return pd.DataFrame(rows)


def bradley_terry(pairs: pd.DataFrame, types, *, score="score", weight=None) -> pd.Series:
    """Ratings theta (mean 0) with logit(score_ab) ~ theta_a - theta_b, by weighted least
    squares over the off-diagonal pairs (scores clipped to [1e-4, 1 - 1e-4])."""
    types = list(types)
    idx = {t: i for i, t in enumerate(types)}
    sub = pairs[pairs["a"] != pairs["b"]]
    x = np.zeros((len(sub) + 1, len(types)))
    y = np.zeros(len(sub) + 1)
    w = np.ones(len(sub) + 1)
    for r, (_, row) in enumerate(sub.iterrows()):
        p = min(max(float(row[score]), 1e-4), 1 - 1e-4)
        x[r, idx[row["a"]]] += 1
        x[r, idx[row["b"]]] -= 1
        y[r] = math.log(p / (1 - p))
        if weight is not None:
            w[r] = float(row[weight])
    x[-1, :] = 1.0                                   # sum-to-zero constraint row
    sw = np.sqrt(w)
    theta, *_ = np.linalg.lstsq(x * sw[:, None], y * sw, rcond=None)
    return pd.Series(theta, index=types)


def lanchester_value(types=PREDEFINED, reference_armor: int = 3, reference_melee: int = 4,
                     tough_reading: str = "total_wounds") -> pd.DataFrame:
    """§12.4 closed-form first guess: offence, durability and sqrt(offence * durability)."""
    rows = []
    for t in types:
        p = PROFILES[t]
        armor_vs = max(0, reference_armor - (1 if p.mighty else 0))       # §6.2 Mighty
        dist = attack_distribution(p.melee, armor_vs)
        offence = p.attacks * float(dist[1] + 2 * dist[2])
        hit_wounds = float(attack_distribution(reference_melee, p.armor)[1:].sum() /
                           (reference_melee / 6))                       # P(a hit wounds it)
        durability = wounds_for(p.tough, tough_reading) / hit_wounds
        rows.append({"type": t, "points": p.points, "offence": offence, "durability": durability,
                     "value": math.sqrt(offence * durability)})
    return pd.DataFrame(rows).set_index("type")


def loo_cost_fit(points: pd.Series, x: pd.Series, *, slope: bool = True,
                 tolerance: float = CALIBRATION_TOLERANCE) -> pd.DataFrame:
    """Fit log(points) = a + b * x (or a + x with ``slope=False``) and, for each type, the cost
    implied by the fit on the OTHER types with a 95% leave-one-out prediction interval (t).

    A type is ``out_of_line`` when its printed cost lies outside the interval *and* differs
    from the implied cost by more than ``tolerance``.
    """
    from scipy import stats as st

    types = list(points.index)
    y_all = np.log(points.astype(float).to_numpy())
    x_all = x.loc[types].astype(float).to_numpy()
    rows = []
    for i, t in enumerate(types):
        keep = np.arange(len(types)) != i
        xs, ys = x_all[keep], y_all[keep]
        if slope:
            design = np.column_stack([np.ones_like(xs), xs])
            target = ys
        else:
            design = np.ones((len(xs), 1))
            target = ys - xs
        coef, *_ = np.linalg.lstsq(design, target, rcond=None)
        resid = target - design @ coef
        dof = len(xs) - design.shape[1]
        s2 = float(resid @ resid) / dof if dof > 0 else float("nan")
        x0 = np.array([1.0, x_all[i]]) if slope else np.array([1.0])
        pred = float(x0 @ coef) + (0.0 if slope else x_all[i])
        var = s2 * (1 + float(x0 @ np.linalg.pinv(design.T @ design) @ x0))
        half = st.t.ppf(0.975, dof) * math.sqrt(var) if dof > 0 else float("inf")
        implied = math.exp(pred)
        lo, hi = math.exp(pred - half), math.exp(pred + half)
        printed = float(points.iloc[i])
        rows.append({"type": t, "printed": printed, "implied": implied, "implied_lo": lo,
                     "implied_hi": hi, "ratio": printed / implied,
                     "out_of_line": (not lo <= printed <= hi)
                     and abs(printed / implied - 1) > tolerance})
    return pd.DataFrame(rows).set_index("type")


# ---------------------------------------------------------------- warband battles (optional)

def warband_available() -> bool:
    """Whether ``mode=warband`` can run: always, since the warband mode is part of the game
    (kept because the notebook and its tests ask before running warband battles)."""
    from vikingsim.games.ravenfeast import MODE_MODULES

    return "warband" in MODE_MODULES


def single_type_force(t: str, budget: int = 300, max_figures: int = 32) -> list:
    """``[(type, count), ...]``: as many ``t`` as ``budget`` buys (at most ``max_figures``),
    leftover points filled with the cheapest type (§12.4 step 1)."""
    cost = PROFILES[t].points
    n = int(min(budget // cost, max_figures))
    force = [(t, n)]
    cheap = min(PREDEFINED, key=lambda k: PROFILES[k].points)
    left = budget - n * cost
    extra = int(min(left // PROFILES[cheap].points, max_figures - n))
    if extra > 0:
        force.append((cheap, extra))
    return force


def force_points(force) -> float:
    return float(sum(PROFILES[t].points * n for t, n in force))


def write_force_toml(force, folder: Path, name: str, overrides: dict | None = None) -> str:
    """A TOML warband file for ``force`` (extra Leaders demoted: §9.3 exactly one Leader);
    ``overrides`` (profile override keys) apply to the first type of the force."""
    lines = [f'name = "{name}"']
    leader_done = False
    for k, (t, n) in enumerate(force):
        is_leader = PROFILES[t].leader
        for count, leader in ((1, True), (n - 1, False)) if is_leader else ((n, None),):
            if count <= 0:
                continue
            lines += ["[[figures]]", f'type = "{t}"', f"count = {count}"]
            if leader is not None:
                lines.append(f"leader = {'true' if leader and not leader_done else 'false'}")
                leader_done = leader_done or leader
            if k == 0:
                for key, v in (overrides or {}).items():
                    text = (str(v).lower() if isinstance(v, bool) else
                            f'"{v}"' if isinstance(v, str) else v)
                    lines.append(f"{key} = {text}")
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def warband_matrix(types=PREDEFINED, *, n: int = 2_000, seed: int = 20260, budget: int = 300,
                   threads: int = 2) -> pd.DataFrame:
    """Equal-points single-type battles for every unordered pair (long frame with Wilson CIs)."""
    from vikingsim.core.runner import simulate

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        files = {t: write_force_toml(single_type_force(t, budget), Path(tmp), t) for t in types}
        for i, a in enumerate(types):
            for b in types[i + 1:]:
                r = simulate("ravenfeast", n=n, seed=seed, threads=threads,
                             options={"mode": "warband", "a": files[a], "b": files[b]})
                s = r.summary
                pa = s["p_a_win"] + 0.5 * s.get("p_draw", 0.0) + 0.5 * s.get("p_truncated", 0.0)
                k = pa * n
                lo, hi = wilson(k, n)
                rows.append({"a": a, "b": b, "points_a": force_points(single_type_force(a, budget)),
                             "points_b": force_points(single_type_force(b, budget)),
                             "p_a_win": s["p_a_win"], "p_b_win": s["p_b_win"],
                             "p_draw": s.get("p_draw", 0.0), "p_truncated": s["p_truncated"],
                             "score": pa, "score_lo": lo, "score_hi": hi, "n": n})
    return pd.DataFrame(rows)


def points_sensitivity(t: str = "hirdmen", small: int = 12, large: int = 15, *, n: int = 2_000,
                       seed: int = 20260, threads: int = 2) -> dict:
    """d logit(P win) / d log(points): ``large`` v ``small`` figures of one type."""
    from vikingsim.core.runner import simulate

    r = simulate("ravenfeast", n=n, seed=seed, threads=threads,
                 options={"mode": "warband", "a": f"{t}*{large}", "b": f"{t}*{small}"})
    s = r.summary
    p = s["p_a_win"] + 0.5 * s.get("p_draw", 0.0) + 0.5 * s.get("p_truncated", 0.0)
    p = min(max(p, 1 / (2 * n)), 1 - 1 / (2 * n))
    lo, hi = wilson(p * n, n)
    lg = math.log(large / small)
    f = lambda q: math.log(q / (1 - q)) / lg                         # noqa: E731
    return {"type": t, "small": small, "large": large, "p_large_wins": p,
            "slope": f(p), "slope_lo": f(max(lo, 1e-6)), "slope_hi": f(min(hi, 1 - 1e-6)), "n": n}


def battle_dispersion(wm: pd.DataFrame, types) -> float:
    """Pearson dispersion of the Bradley-Terry fit on the logit scale (1 = binomial noise
    only; larger = the one-number-per-type model misfits by that variance factor)."""
    p = np.clip(wm["score"].to_numpy(), 1e-4, 1 - 1e-4)
    n = wm["n"].to_numpy()
    u = bradley_terry(wm, types)
    fit = u[wm["a"]].to_numpy() - u[wm["b"]].to_numpy()
    var = 1 / (n * p * (1 - p))
    dof = max(len(wm) - (len(list(types)) - 1), 1)
    return float(((np.log(p / (1 - p)) - fit) ** 2 / var).sum() / dof)


def implied_costs_from_battles(wm: pd.DataFrame, types, sens: dict, *, reps: int = 300,
                               seed: int = 7, tolerance: float = CALIBRATION_TOLERANCE
                               ) -> pd.DataFrame:
    """Strength per point (Bradley-Terry on battle scores, corrected for unequal points) →
    implied cost = printed x exp(u / slope), rescaled to the same total as the printed costs.

    ``sens`` is :func:`points_sensitivity`'s result (the slope d logit / d log points). The 95%
    intervals are a quasi-likelihood parametric bootstrap: every pair's logit score is redrawn
    with its binomial variance times the fit's dispersion (:func:`battle_dispersion`, at least
    1, so model misfit widens the intervals), the sensitivity battle binomially, and everything
    is refitted ``reps`` times.
    """
    types = list(types)
    printed = pd.Series({t: float(PROFILES[t].points) for t in types})
    lg = math.log(sens["large"] / sens["small"])
    phi = max(1.0, battle_dispersion(wm, types))

    def fit(scores, slope):
        p = np.clip(scores, 1e-4, 1 - 1e-4)
        # remove the points imbalance: logit shifts by slope * log(points_a / points_b)
        adj = np.log(p / (1 - p)) - slope * np.log(wm["points_a"] / wm["points_b"]).to_numpy()
        d = wm.assign(adj=1 / (1 + np.exp(-adj)))
        u = bradley_terry(d, types, score="adj")
        imp = printed * np.exp(u / slope)
        return imp * printed.sum() / imp.sum()

    p0 = np.clip(wm["score"].to_numpy(), 1e-4, 1 - 1e-4)
    n = wm["n"].to_numpy()
    logit0 = np.log(p0 / (1 - p0))
    se = np.sqrt(phi / (n * p0 * (1 - p0)))
    base = fit(p0, sens["slope"])
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(reps):
        scores = 1 / (1 + np.exp(-(logit0 + se * rng.standard_normal(len(p0)))))
        q = rng.binomial(sens["n"], sens["p_large_wins"]) / sens["n"]
        q = min(max(q, 1 / (2 * sens["n"])), 1 - 1 / (2 * sens["n"]))
        boots.append(fit(scores, math.log(q / (1 - q)) / lg))
    b = pd.DataFrame(boots)
    out = pd.DataFrame({"printed": printed, "implied": base,
                        "implied_lo": b.quantile(0.025), "implied_hi": b.quantile(0.975)})
    out["ratio"] = out["printed"] / out["implied"]
    outside = (out["printed"] < out["implied_lo"]) | (out["printed"] > out["implied_hi"])
    out["out_of_line"] = outside & ((out["ratio"] - 1).abs() > tolerance)
    out.attrs["dispersion"] = phi
    return out


#: §11.3 open-architecture anchors checked on a Hirdmen base: name -> (overrides, model price).
ANCHORS = {
    "Mighty (+5)": ({"mighty": True}, 23.0),
    "Melee 4 -> 5 (+2 per attack)": ({"melee": 5}, 20.0),
    "second attack at Melee 4 (+8)": ({"attacks": 2}, 26.0),
    "Tough (2) (+50 %)": ({"tough": 2}, 27.0),
}


def anchor_checks(base: str = "hirdmen", anchors: dict | None = None, *, budget: int = 300,
                  n: int = 2_000, seed: int = 20260, sens: dict | None = None,
                  threads: int = 2) -> pd.DataFrame:
    """Price check of §11.3 anchors: a warband of ``base`` figures with one trait added (priced
    by the §12.3 model) fights an equal-points warband of plain ``base`` figures; the battle
    score and the points sensitivity give the variant's implied cost and so the trait's
    implied price (95% interval from the Wilson interval of the score)."""
    from vikingsim.core.runner import simulate

    anchors = ANCHORS if anchors is None else anchors
    base_cost = float(PROFILES[base].points)
    slope = sens["slope"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        n_base = int(min(budget // base_cost, 32))
        plain = write_force_toml([(base, n_base)], Path(tmp), "plain")
        for label, (ov, cost) in anchors.items():
            n_var = int(min(budget // cost, 32))
            var = write_force_toml([(base, n_var)], Path(tmp), f"v{len(rows)}", ov)
            r = simulate("ravenfeast", n=n, seed=seed, threads=threads,
                         options={"mode": "warband", "a": var, "b": plain})
            s = r.summary
            p = s["p_a_win"] + 0.5 * s.get("p_draw", 0.0) + 0.5 * s.get("p_truncated", 0.0)
            lo, hi = wilson(p * n, n)
            ratio = math.log((n_var * cost) / (n_base * base_cost))

            def implied(q):
                q = min(max(q, 1 / (2 * n)), 1 - 1 / (2 * n))
                # logit(q) = slope * log(strength ratio); strength ~ points x value per point
                return cost * math.exp((math.log(q / (1 - q)) - slope * ratio) / slope)

            rows.append({"anchor": label, "variant_points": n_var * cost,
                         "base_points": n_base * base_cost, "model_cost": cost, "n": n,
                         "score": p, "score_lo": lo, "score_hi": hi,
                         "implied_cost": implied(p), "implied_lo": implied(lo),
                         "implied_hi": implied(hi),
                         "printed_trait_price": cost - base_cost,
                         "implied_trait_price": implied(p) - base_cost,
                         "trait_lo": implied(lo) - base_cost, "trait_hi": implied(hi) - base_cost})
    return pd.DataFrame(rows).set_index("anchor")


# ---------------------------------------------------------------- break-even cost (§12.8)

#: Games per count and side (both sides are played: see :func:`break_even`).
BREAK_EVEN_GAMES = 2_000
#: Counts on each side of the bracket that the logistic fit also uses.
BREAK_EVEN_SPAN = 2


def _figure_points(key: str, ov: dict) -> float:
    """Printed points of a predefined type without overrides, else the §12.3 model price."""
    from vikingsim.games.ravenfeast.profiles import apply_overrides, get_profile, price

    prof_ov = {k: v for k, v in ov.items() if k != "thrall"}
    if not prof_ov:
        return float(get_profile(key).points)
    p, _ = apply_overrides(get_profile(key), prof_ov)
    return float(price(p))


def warband_points(spec) -> float:
    """Points of a warband spec (preset, inline list, .toml path): the sum of
    :func:`_figure_points` over its figures (§11.2, §12.3)."""
    from vikingsim.games.ravenfeast.warbands import load_warband

    return sum(_figure_points(k, ov) for k, ov in load_warband(spec).figures)


def opponent_force(spec: str, budget: int = 300) -> tuple:
    """(warband, points) of an opponent: a unit type buys ``budget`` points of itself (at
    most 32 figures, no filler: a single-type warband), returned as a force ``[(type, n)]``
    (for :func:`write_force_toml`, which keeps one Leader); anything else is a warband spec
    taken as it is (its points may differ from ``budget``)."""
    from vikingsim.games.ravenfeast.warbands import MAX_FIGURES

    key = str(spec).strip().lower()
    if key in PROFILES:
        n = int(min(budget // PROFILES[key].points, MAX_FIGURES))
        if n < 1:
            raise InputError(f"budget {budget} buys no {key} ({PROFILES[key].points} points)")
        return [(key, n)], float(n * PROFILES[key].points)
    return spec, warband_points(spec)


def _seed_for(seed: int, k: int, side: int) -> int:
    """Root seed of the battles at count ``k`` with the unit on ``side`` (spawn keys)."""
    return int(np.random.SeedSequence(seed, spawn_key=(k, side)).generate_state(1)[0])


def _score_at(unit_file: str, opp: str, k: int, *, n: int, seed: int, options: dict,
              threads) -> tuple[float, int]:
    """Score (win + half of draw/truncated) of ``k`` unit figures against ``opp``, summed over
    both sides (n battles with the unit as warband a, n as b): (score, 2n)."""
    from vikingsim.core.runner import simulate

    total = 0.0
    for side in (0, 1):
        ab = (unit_file, opp) if side == 0 else (opp, unit_file)
        s = simulate("ravenfeast", n=n, seed=_seed_for(seed, k, side), threads=threads,
                     options={**options, "mode": "warband", "a": ab[0], "b": ab[1]},
                     warn_truncated=False).summary
        mine = s["p_a_win"] if side == 0 else s["p_b_win"]
        total += mine + 0.5 * (s.get("p_draw", 0.0) + s.get("p_truncated", 0.0))
    return total / 2, 2 * n


def _logistic_crossing(ks, scores, ns) -> tuple[float, float, float]:
    """Binomial GLM (statsmodels) of score on log(count): (log k*, its delta-method standard
    error, dispersion) with k* the count where the fitted score is 1/2. The covariance is
    scaled by the Pearson dispersion when it exceeds 1 (misfit widens the interval; with two
    residual degrees of freedom a dispersion below 1 is noise, so it never narrows it)."""
    import statsmodels.api as sm

    x = sm.add_constant(np.log(np.asarray(ks, float)))
    y = np.asarray(scores, float)
    fit = sm.GLM(y, x, family=sm.families.Binomial(), var_weights=np.asarray(ns, float)).fit()
    b0, b1 = fit.params
    phi = float(fit.pearson_chi2 / fit.df_resid) if fit.df_resid > 0 else 1.0
    cov = np.asarray(fit.cov_params()) * max(1.0, phi)
    grad = np.array([-1.0 / b1, b0 / b1 ** 2])
    return -b0 / b1, float(math.sqrt(grad @ cov @ grad)), phi


def typed_overrides(overrides: dict | None) -> dict:
    """Profile overrides with text values (``--unit-set melee=5``) converted to the types of a
    warband file's figure table (``warbands._TOML_TYPES``); InputError naming a bad one."""
    from vikingsim.games.ravenfeast.profiles import OVERRIDE_KEYS
    from vikingsim.games.ravenfeast.warbands import _TOML_TYPES

    out = {}
    for k, v in (overrides or {}).items():
        if k not in OVERRIDE_KEYS:
            raise InputError(f"unknown profile override {k!r}; allowed: "
                             f"{', '.join(OVERRIDE_KEYS)}")
        want = _TOML_TYPES[k]
        if not isinstance(v, str):
            out[k] = v
        elif want is bool:
            if v.strip().lower() not in ("true", "false"):
                raise InputError(f"override {k}={v!r} must be true or false")
            out[k] = v.strip().lower() == "true"
        elif want is int:
            try:
                out[k] = int(v)
            except ValueError:
                raise InputError(f"override {k}={v!r} must be an integer") from None
        else:
            out[k] = v.strip()
    return out


def _unit_cost(unit: str, overrides: dict | None) -> float:
    return _figure_points(unit, dict(overrides or {}))


def break_even(unit: str, against, *, budget: int = 300, overrides: dict | None = None,
               n: int = BREAK_EVEN_GAMES, seed: int = 20260, span: int = BREAK_EVEN_SPAN,
               options: dict | None = None, threads: int | None = None,
               z: float = 1.959963984540054) -> pd.DataFrame:
    """The points cost at which a warband of ``unit`` breaks even (score 1/2) against each
    opponent in ``against`` (unit types: ``budget`` points of that type; or warband specs,
    e.g. ``fight_for_honor``, ``experiments/warbands/jarl300.toml``), ravenfeast §12.8.

    Points act only through how many figures a budget buys, so the cost is found through the
    count: k unit figures (``overrides`` applied to each; a single-type warband, its first
    figure the Leader, §9.3) fight the opponent for k = 1..32. Starting at the count whose
    points equal the opponent's, k steps until the score crosses 1/2; the counts within
    ``span`` of the bracket are fitted by a quasi-binomial logistic GLM of score on log k
    (statsmodels; the dispersion widens the interval when the curve misfits), whose 1/2
    crossing k* gives the break-even cost = opponent points / k*, with a 95% delta-method
    interval. Each count plays ``n`` battles with the unit as side a and ``n`` as side b
    (cancelling any side edge), on their own spawned seeds (independent points, as the GLM
    assumes). When 32 figures still lose (or one still wins), the cost is only bounded:
    ``status`` = ``below_min`` (break-even under points/32) or ``above_max`` (over points/1),
    cost nan.

    Returns
    -------
    DataFrame, one row per opponent: opponent, opponent_points, unit_cost (printed or
    model price), even_count (points-equal count), score_even (its score), counts (fitted),
    k_star, cost, cost_lo, cost_hi, ratio (cost / unit_cost), dispersion, status, n (battles
    per count).
    """
    from vikingsim.games.ravenfeast.profiles import get_profile
    from vikingsim.games.ravenfeast.warbands import MAX_FIGURES

    get_profile(unit)                                       # InputError naming the types
    key = str(unit).strip().lower().replace(" ", "_").replace("-", "_")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InputError(f"budget={budget!r} must be a positive integer")
    if not isinstance(n, int) or n < 1:
        raise InputError(f"n={n!r} must be a positive integer")
    if not isinstance(span, int) or span < 1:
        raise InputError(f"span={span!r} must be a positive integer")
    against = [against] if isinstance(against, str) else list(against)
    if not against:
        raise InputError("break_even: give at least one opponent")
    overrides = typed_overrides(overrides)
    cost = _unit_cost(key, overrides)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for opp_spec in against:
            opp, pts = opponent_force(opp_spec, budget)
            if isinstance(opp, list):
                opp = write_force_toml(opp, Path(tmp), f"opponent{len(rows)}")
            memo: dict = {}

            def score(k):
                if k not in memo:
                    f = write_force_toml([(key, k)], Path(tmp), f"{key}{k}", overrides)
                    memo[k] = _score_at(f, opp, k, n=n, seed=seed, options=options or {},
                                        threads=threads)[0]
                return memo[k]

            even = int(min(max(round(pts / cost), 1), MAX_FIGURES))
            k = even
            step = 1 if score(k) < 0.5 else -1
            while 1 <= k + step <= MAX_FIGURES and (score(k) < 0.5) == (step == 1):
                k += step
            lo_k, hi_k = (k - 1, k) if step == 1 else (k, k + 1)
            row = {"opponent": opp_spec, "opponent_points": pts, "unit_cost": cost,
                   "even_count": even, "score_even": memo[even], "n": 2 * n}
            if score(k) < 0.5 and step == 1:
                rows.append({**row, "status": "below_min", "counts": str(MAX_FIGURES),
                             "k_star": math.nan, "cost": math.nan, "cost_lo": math.nan,
                             "cost_hi": math.nan, "ratio": math.nan, "dispersion": math.nan})
                continue
            if score(k) >= 0.5 and step == -1:
                rows.append({**row, "status": "above_max", "counts": "1",
                             "k_star": math.nan, "cost": math.nan, "cost_lo": math.nan,
                             "cost_hi": math.nan, "ratio": math.nan, "dispersion": math.nan})
                continue
            ks = [j for j in range(lo_k - span + 1, hi_k + span) if 1 <= j <= MAX_FIGURES]
            sc = [score(j) for j in ks]
            logk, se, phi = _logistic_crossing(ks, sc, [2 * n] * len(ks))
            c = pts / math.exp(logk)
            rows.append({**row, "status": "ok", "counts": ",".join(map(str, ks)),
                         "k_star": math.exp(logk), "cost": c,
                         "cost_lo": pts / math.exp(logk + z * se),
                         "cost_hi": pts / math.exp(logk - z * se), "ratio": c / cost,
                         "dispersion": phi, "log_k_se": se})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- best duel stances (§12.7)

def duel_stance_table(types=PREDEFINED, policies=("optimal", "optimal"),
                      options: dict | None = None) -> pd.DataFrame:
    """For every ordered pair (a, b) of ``types``, the duel's matrix game (§12.7,
    ``ravenfeast.duel_game``) with one policy text per seat: each seat's pure maximin choice,
    pure and mixed guarantees, and the exact odds of the duel the two choices meet in."""
    from vikingsim.games.ravenfeast import duel_game

    rows = []
    for a in types:
        for b in types:
            g = duel_game({**(options or {}), "a": a, "b": b}, policies)
            r = g.played()
            rows.append({"a": a, "b": b, "a_choice": g.chosen[0], "b_choice": g.chosen[1],
                         "a_pure": g.pure[0], "a_mixed": g.mixed[0], "b_pure": g.pure[1],
                         "b_mixed": g.mixed[1], "p_a_win": r["p_a_win"], "p_b_win": r["p_b_win"],
                         "p_both_die": r["p_both_die"], "p_truncated": r["p_truncated"]})
    return pd.DataFrame(rows)
