"""``core.stats.multipletests``: statsmodels' correction, the same numbers, gc left as found."""
import gc

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests as sm_multipletests

from vikingsim.core.stats import multipletests


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_same_result_as_statsmodels_and_nothing_left_frozen(method):
    p = np.random.default_rng(19).uniform(0, 0.2, 12)
    got, want = multipletests(p, 0.05, method), sm_multipletests(p, alpha=0.05, method=method)
    for a, b in zip(got, want):
        assert np.array_equal(a, b)
    assert gc.get_freeze_count() == 0 and gc.isenabled()


def test_an_unknown_method_still_raises_and_unfreezes():
    with pytest.raises(ValueError):
        multipletests([0.01, 0.2], 0.05, "nosuch")
    assert gc.get_freeze_count() == 0


def test_the_holm_collection_skips_the_objects_alive_before_the_call(monkeypatch):
    """What saves the time: statsmodels' ``gc.collect()`` (Holm branch) runs while the objects
    alive before the call are frozen."""
    seen = []
    real = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: seen.append(gc.get_freeze_count()) or real(*a))
    keep = [[i] for i in range(1000)]                    # tracked objects alive before
    multipletests([0.01, 0.02, 0.3], 0.05, "holm")
    assert seen and min(seen) >= len(keep)
