"""878 Vikings designer questions: Lagertha's split army (878 SEED §9.2) and "this rule is worth
K Norsemen" from the exact solver (``vikingsim.games.battle878.exact``)."""
from __future__ import annotations

import math

from vikingsim.core import config
from vikingsim.core.stats import put_fraction
from vikingsim.questions.seeds import spawn_seeds


def lagertha_experiment(n: int = 100_000, *, seed: int = config.SEED, norsemen: int = 11,
                        berserkers: int = 4, move_norsemen: int = 3, move_berserkers: int = 1,
                        housecarls: int = 3, thegns: int = 4, policies=("default", "default"),
                        threads: int | None = None, **options) -> dict:
    """SEED §9.2 Lagertha: one army of (norsemen + 2, berserkers + 1) against the English
    force, or two battles against that same-sized force: the main army (minus the transfer)
    and Lagertha's (2 N + 1 B plus the transfer).

    Run seeds come from ``seed`` by spawn keys (``seeds.spawn_seeds``): the combined and the
    main army fight on the first (common dice, so their difference is sharp), Lagertha's
    battle on the second, independent of the main battle (they are two battles).

    Returns P(Viking win) of the combined army and of each split army, P(at least one of the
    two split armies wins) and P(both win), with Wilson intervals, and the expected wins."""
    from vikingsim.core.runner import simulate

    main_seed, lagertha_seed = spawn_seeds(seed, 2)
    english = dict(housecarls=housecarls, thegns=thegns, **options)

    def wins(run_seed, **army):
        r = simulate("battle878", n, seed=run_seed, policies=list(policies), threads=threads,
                     options={**english, **army})
        return (r.frame["outcome"] == "vikings_win").to_numpy()

    w1 = wins(main_seed, norsemen=norsemen, berserkers=berserkers, lagertha=True)
    wm = wins(main_seed, norsemen=norsemen - move_norsemen,
              berserkers=berserkers - move_berserkers)
    wl = wins(lagertha_seed, norsemen=move_norsemen, berserkers=move_berserkers, lagertha=True)
    res = {}
    for key, arr in (("p_combined_win", w1), ("p_main_win", wm), ("p_lagertha_win", wl),
                     ("p_split_at_least_one_win", wm | wl), ("p_split_both_win", wm & wl)):
        put_fraction(res, key, int(arr.sum()), n)
    res["mean_split_wins"] = float(wm.mean() + wl.mean())
    return res


def norsemen_equivalent(options: dict, changes: dict, *, max_extra: int = 12) -> float:
    """How many Norsemen added to (or taken from) ``options`` move P(Vikings win) as much as
    applying ``changes`` does: "Ragnar is worth about K Norsemen" (exact odds, no sampling).

    Solves P(win | options, norsemen + K) = P(win | options + changes) for K, interpolating
    linearly between whole Norsemen (P rises with every Norseman, 878 §4). Negative K: the
    change hurts the Vikings as much as losing |K| Norsemen. ``nan`` when even ``max_extra``
    Norsemen (or removing them all) cannot match it.

    Examples
    --------
    >>> k = norsemen_equivalent({"norsemen": 3, "berserkers": 2, "housecarls": 2, "thegns": 3},
    ...                         {"ragnar": True})
    >>> round(k, 2)
    1.3
    """
    from vikingsim.core.options import resolve
    from vikingsim.games import get
    from vikingsim.games.battle878.exact import odds

    target = odds({**options, **changes})["p_vikings_win"]
    n0 = int(resolve("battle878", get("battle878").options, options)["norsemen"])

    def p(n: int) -> float:
        return odds({**options, "norsemen": n})["p_vikings_win"]

    prev = p(n0)
    step = 1 if target >= prev else -1
    k = 0
    while True:
        k += step
        if n0 + k < 0 or abs(k) > max_extra:
            return math.nan
        cur = p(n0 + k)
        if (cur - target) * step >= 0:          # crossed the target between k - step and k
            return (k - step) + step * (target - prev) / (cur - prev) if cur != prev else float(k)
        prev = cur
