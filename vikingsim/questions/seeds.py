"""Seeds of a question's runs, derived from its one root seed by ``numpy.random.SeedSequence``
spawn keys (never ``seed + 1``: neighbouring root seeds would then share runs)."""
from __future__ import annotations

import numpy as np


def spawn_seeds(seed: int, k: int) -> list[int]:
    """``k`` independent run seeds for a question rooted at ``seed``: run ``i`` gets the
    first 63 bits of ``SeedSequence(seed).spawn(k)[i]`` (spawn key ``(i,)``), a valid
    ``simulate`` seed. The same (seed, i) always gives the same run seed, whatever ``k``."""
    children = np.random.SeedSequence(seed).spawn(k)
    return [int(c.generate_state(1, np.uint64)[0] >> np.uint64(1)) for c in children]
