"""Designer questions as tidy frames and dicts. Every function runs ``vikingsim.simulate`` (or
an exact solver) with explicit seeds, so its numbers regenerate; every proportion comes with
its Wilson 95% interval and ``n``. Seeds of a question's several runs are derived from its
root seed by ``SeedSequence`` spawn keys (``seeds.spawn_seeds``).

- ``seated``: any seated game (``GameSpec.seated``): ``seat_win_rates`` (seat advantage by
  player count), ``head_to_head`` (one policy against a field, rotated through the seats on
  common seeds), ``game_lengths`` (the per-game frame of any game).
- ``battle878``: ``lagertha_experiment`` (a split army against a whole one),
  ``norsemen_equivalent`` (a rule's worth in Norsemen, exact).
- ``ravenfeast``: point-cost calibration (``notebooks/ravenfeast_points.ipynb``).

The game-specific modules are imported on first use, so ``import vikingsim`` stays light.
"""
from __future__ import annotations

import importlib

from vikingsim.questions.seated import game_lengths, head_to_head, seat_win_rates
from vikingsim.questions.seeds import spawn_seeds

#: Public name -> the submodule that defines it (imported on first use).
_LAZY = {"lagertha_experiment": "battle878", "norsemen_equivalent": "battle878",
         "battle878": None, "ravenfeast": None}

__all__ = ["game_lengths", "head_to_head", "seat_win_rates", "spawn_seeds", *_LAZY]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_LAZY[name] or name}")
    return module if _LAZY[name] is None else getattr(module, name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
