"""Balance on restricted-play worth (issue 20 §3): ``vikingsim balance GAME --target worth
--element E [--reference median|mean|ELEMENT] [--worth-within POINTS] --vary ...``.

The objective of a setting (e.g. a card's cost, ``catalog.card["Funeral Pyre"].cost=1..8``)
is the **worth gap**: element E's restricted-play worth minus the reference's worth, both
measured in one restricted-play study of that setting (``studies.importance``: a baseline
cell and one cell per element and seat with ``forbid=<element>``, common seeds, rows kept).
Per game g the gap is ``G_g = D_E,g - R_g``, ``D_e,g`` the paired per-game difference of
importance.py and ``R_g``:

- ``median``: the per-game D of the other elements' median card (the element whose
  estimated worth is the median of the others'; with an even count, the mean of the two
  middle ones' D). Picking the median from the same games is a selection, so the gap's
  interval is a little too narrow when the middle cards' worths are close; it is exact for
  ``mean`` and for a named element;
- ``mean``: the mean over the other elements of their D;
- an element name: that element's D.

The gap is the mean of ``G_g`` with a paired t interval (statsmodels ``DescrStatsW``), in
win-rate fractions; the target (``--target worth=X``) and ``--worth-within`` are given in
points (100 x the fraction). The search (``balance.search``), its seeds and the hold-out
check are the balance run's own; a batch is one importance study per setting, in
``<out>/batch-NNNN[-i]/``, the hold-out in ``<out>/holdout/`` (``-1`` the baseline): each
is a study ``vikingsim report`` opens. ``--budget`` and ``--holdout`` count games **per
cell** of these studies: a setting played on n games costs (1 + E K) n games.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from vikingsim.core.errors import InputError

METRIC = "worth_gap"
REFERENCES = ("median", "mean")
_WORTH_TARGET = re.compile(r"^\s*worth\s*(?:=\s*(.+?))?\s*$", re.S)


@dataclass(frozen=True)
class WorthTarget:
    """Element ``element``'s worth minus the reference's (``median``, ``mean`` or an element)
    over ``elements`` (those each proposal's study ranks), aimed at ``value`` (a fraction),
    ``tolerance`` the ``--worth-within`` distance (a fraction)."""

    element: str
    reference: str
    elements: tuple
    value: float
    tolerance: float
    text: str

    @property
    def others(self) -> list[str]:
        return ([self.reference] if self.reference not in REFERENCES else
                [e for e in self.elements if e != self.element])


def element_id(name: str) -> str:
    """A name as the elements spell it ("Funeral Pyre" -> funeral_pyre)."""
    return re.sub(r"[^a-z0-9]+", "_", str(name).lower().replace("'", "")).strip("_")


def is_worth_target(texts) -> bool:
    return any(isinstance(t, str) and _WORTH_TARGET.match(t) for t in texts or [])


def parse_worth(texts, element, reference, within, valid: tuple, players: int,
                pool: tuple | None = None) -> WorthTarget:
    """The worth target of ``--target worth[=POINTS] --element E --reference R
    --worth-within POINTS``; ``valid`` the game's elements in this setup, ``pool`` those a
    ``median`` or ``mean`` reference is taken over (``GameSpec.worth_pool``; None = all; the
    element itself is added when it is not in it)."""
    from vikingsim.studies.balance import eval_expr

    texts = list(texts or [])
    if len(texts) != 1 or not _WORTH_TARGET.match(texts[0]):
        raise InputError("--target worth is the only target of a worth balance (give it once, "
                         "without other --target)")
    expr = _WORTH_TARGET.match(texts[0]).group(1)
    value = 0.0 if expr is None else eval_expr(expr, players) / 100.0
    if element is None:
        raise InputError("--target worth needs --element NAME (the element whose worth is "
                         "fitted), e.g. --element \"Funeral Pyre\"")
    e = _one(element, valid, "--element")
    ref = str(reference or "median").strip()
    if ref not in REFERENCES:
        ref = _one(ref, valid, "--reference")
        if ref == e:
            raise InputError(f"--reference {reference!r} is the --element itself")
        elements = (e, ref)
    else:
        elements = valid if pool is None else tuple(x for x in valid if x in pool or x == e)
        if len(elements) < 2:
            raise InputError(f"--reference {ref} needs other elements; this setup has only {e}")
    within = 1.0 if within is None else within
    if not (isinstance(within, (int, float)) and 0 < within < float("inf")):
        raise InputError(f"--worth-within must be a positive number of points, got {within!r}")
    return WorthTarget(e, ref, tuple(elements), value, within / 100.0, texts[0])


def _one(name, valid: tuple, flag: str) -> str:
    e = element_id(name)
    if e not in valid:
        raise InputError(f"{flag} {name!r}: unknown element; elements: {', '.join(valid)}")
    return e


def paired_differences(data, elements) -> dict:
    """{element: per-game D_g} of a restricted-play study (``importance._paired``)."""
    from vikingsim.studies import importance

    m = data.manifest
    base, cells = importance.cell_map(m)
    return importance._paired(data, base, cells, list(elements), m["cells"][base]["players"])


def gap_summary(data, wt: WorthTarget, diffs: dict | None = None) -> dict:
    """A setting's summary from its restricted-play study ``data``: the worth gap with its
    paired t interval, the element's and the reference's worths (fractions). ``diffs``:
    :func:`paired_differences` of ``wt.elements`` already read (several targets, one study)."""
    import numpy as np
    from statsmodels.stats.weightstats import DescrStatsW

    from vikingsim.studies import importance

    if diffs is None:
        diffs = paired_differences(data, wt.elements)
    others = wt.others
    if wt.reference == "median":
        order = sorted(others, key=lambda e: (diffs[e].mean(), e))
        mid = len(order) // 2
        middle = order[mid:mid + 1] if len(order) % 2 else order[mid - 1:mid + 1]
    else:
        middle = others
    ref = np.mean([diffs[e] for e in middle], axis=0)
    gap = diffs[wt.element] - ref
    st = DescrStatsW(gap)
    lo, hi = (st.mean, st.mean) if st.std == 0.0 else st.tconfint_mean(alpha=importance.ALPHA)
    return {METRIC: float(st.mean), f"{METRIC}_ci": [float(lo), float(hi)],
            f"{METRIC}_se": float(st.std_mean) if st.std else 0.0,
            "worth": float(diffs[wt.element].mean()), "reference_worth": float(ref.mean()),
            "reference_elements": list(middle), "games": int(len(gap))}


class WorthBatches:
    """The search's batches (``balance.Batch``) as restricted-play studies: setting i of a
    batch ``name`` is the importance study ``<out>/<name>`` (i = 0) or ``<out>/<name>-<i>``
    of that setting's options (file entries: the derived file in ``<out>/inputs/``)."""

    def __init__(self, spec, players: int, policies: list, base: dict, wt: WorthTarget, out,
                 pool, resume: bool, progress: bool, knobs):
        self.spec, self.players, self.policies, self.wt = spec, players, policies, wt
        self.knobs, self.pool, self.resume, self.progress = list(knobs), pool, resume, progress
        files = {kb.option for kb in self.knobs if kb.path is not None}
        self.base = {o: v for o, v in base.items() if o not in files}
        self.out = out and Path(out).resolve()
        self.count, self.running = 0, False

    def __call__(self, plays: list, seed: int) -> list[dict]:
        name = f"batch-{self.count:04d}"
        self.count += 1
        out = []
        for i, (setting, n) in enumerate(plays):
            out += self.run(name if i == 0 else f"{name}-{i}", [setting], n, seed)
        return out

    def run(self, name: str, settings: list, n: int, seed: int, role: str = "search"):
        from vikingsim.studies.run import run_study

        out = []
        for i, setting in enumerate(settings):
            folder = name if i == 0 else f"{name}-{i}"
            study = self.study(folder, setting, n, seed)
            self.running = True
            res = run_study(study, self.out / folder, pool=self.pool, resume=self.resume,
                            progress=self.progress)
            self.running = False
            out.append(gap_summary(res.open(), self.wt))
        return out

    def study(self, folder: str, setting: dict, n: int, seed: int):
        from vikingsim.studies import importance
        from vikingsim.studies.balance import setting_options

        opts = {**self.base, **setting_options(self.knobs, setting, self.out / "inputs")}
        return importance.build_study(
            self.spec.name, games=n, seed=seed, players=self.players, policies=self.policies,
            elements=self.wt.elements, options=opts, rows=True,
            name=f"worth-{self.spec.name}-{folder}", path=self.out / f"{folder}.toml")


def setup_elements(spec, pols, k: int, base: dict) -> tuple:
    """(the elements the game's policies accept in this setup (one line if none), the pool of
    a median or mean reference: ``GameSpec.worth_pool``, None = all of them)."""
    from vikingsim.core.options import resolve

    if spec.elements is None or not spec.seated:
        raise InputError(f"{spec.name} has no restricted play (no elements a policy can be "
                         f"denied): --target worth needs it")
    setup = spec.setup(resolve(spec.name, spec.options, base), pols, k)
    pool = None if spec.worth_pool is None else tuple(spec.worth_pool(setup))
    return tuple(spec.elements(setup)), pool
