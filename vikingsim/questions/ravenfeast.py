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
                    lines.append(f"{key} = {str(v).lower() if isinstance(v, bool) else v}")
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
