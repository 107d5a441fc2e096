"""Game registry: name → GameSpec (used by the CLI, runner, bench and shared test suites).

A new game is a package ``vikingsim/games/<name>/`` whose ``__init__`` defines ``GAME``
(a :class:`vikingsim.core.game.GameSpec`) plus one line in ``_MODULES``.
"""
from __future__ import annotations

import importlib

from vikingsim.core.errors import InputError
from vikingsim.core.game import GameSpec

_MODULES = {
    "raidboard": "vikingsim.games.raidboard",
    "battle878": "vikingsim.games.battle878",
    "ravenfeast": "vikingsim.games.ravenfeast",
    "raidconquer": "vikingsim.games.raidconquer",
    "tevragnarok": "vikingsim.games.tevragnarok",
}


def names() -> list[str]:
    """Registered game names."""
    return list(_MODULES)


def get(name: str) -> GameSpec:
    """The GameSpec of ``name``; InputError naming the allowed games otherwise."""
    if name not in _MODULES:
        raise InputError(f"unknown game {name!r}; allowed: {', '.join(names())}")
    return importlib.import_module(_MODULES[name]).GAME
