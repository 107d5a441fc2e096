"""core/cards.py: piles and decks for the card games (kernel functions and their twins)."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats as sps

from vikingsim.core import cards as C
from vikingsim.core.rng import block_generator


def _gen(seed):
    return block_generator(seed, 0, 0)


def test_shuffle_kernel_equals_twin_on_same_seed():
    for seed in range(20):
        arr, n = C.pile(list(range(30)), 40)
        C._shuffle(arr, n, _gen(seed))
        lst = list(range(30))
        C.shuffle(lst, _gen(seed))
        assert arr[:n].tolist() == lst
        assert sorted(lst) == list(range(30))          # a permutation: nothing lost


def test_shuffle_of_three_cards_by_hand():
    """Fisher-Yates top down with forced uniforms: i=2 takes j=int(u*3), i=1 takes j=int(u*2).
    u = 0.1 -> j = 0 (swap cards 2 and 0: [c, b, a]); u = 0.9 -> j = 1 (swap 1 with itself)."""
    class Forced:
        def __init__(self, us):
            self.us = list(us)

        def random(self):
            return self.us.pop(0)

    lst = ["a", "b", "c"]
    C.shuffle(lst, Forced([0.1, 0.9]))
    assert lst == ["c", "b", "a"]
    lst = ["a", "b", "c"]
    C.shuffle(lst, Forced([0.99, 0.0]))                 # j=2 (no swap), then j=0: swap 1,0
    assert lst == ["b", "a", "c"]


def test_shuffle_is_uniform_over_permutations():
    """All 24 orders of 4 cards equally likely: chi-square over 48,000 shuffles (2,000
    expected per order; the test fails a correct shuffle with probability 1e-4)."""
    rng = _gen(7)
    seen = {p: 0 for p in itertools.permutations(range(4))}
    arr = np.zeros(4, np.int16)
    for _ in range(48_000):
        arr[:] = (0, 1, 2, 3)
        C._shuffle(arr, 4, rng)
        seen[tuple(int(x) for x in arr)] += 1
    assert sps.chisquare(list(seen.values())).pvalue > 1e-4


def test_draw_reshuffles_discard_only_when_empty_and_conserves_cards():
    draw, n_draw = C.pile([5, 6], 10)
    discard, n_discard = C.pile([1, 2, 3], 10)
    rng = _gen(3)
    got = []
    for _ in range(5):
        card, n_draw, n_discard = C._draw(draw, n_draw, discard, n_discard, rng)
        got.append(int(card))
    assert got[:2] == [6, 5]                            # top first, no reshuffle yet
    assert sorted(got[2:]) == [1, 2, 3] and n_draw == 0 and n_discard == 0
    card, n_draw, n_discard = C._draw(draw, n_draw, discard, n_discard, rng)
    assert card == C.NO_CARD


def test_draw_kernel_equals_twin():
    for seed in range(10):
        rng_k, rng_p = _gen(seed), _gen(seed)
        draw, n_draw = C.pile([9, 8], 20)
        discard, n_discard = C.pile(list(range(7)), 20)
        deck, disc = [9, 8], list(range(7))
        for _ in range(12):
            card, n_draw, n_discard = C._draw(draw, n_draw, discard, n_discard, rng_k)
            assert card == C.draw(deck, disc, rng_p)
            if card != C.NO_CARD and card % 2:          # odd cards go back to the discard
                n_discard = C._push(discard, n_discard, card)
                disc.append(card)


def test_counts_and_supply():
    arr, n = C.pile([0, 2, 2, 3, 2], 8)
    counts = np.full(5, 99, np.int16)
    C._count(arr, n, counts)
    assert counts.tolist() == [1, 0, 3, 1, 0] == C.count([0, 2, 2, 3, 2], 5).tolist()
    supply = np.array([1, 0], np.int16)
    assert C._take(supply, 0) and not C._take(supply, 0) and not C._take(supply, 1)
    assert supply.tolist() == [0, 0]
    with pytest.raises(ValueError):
        C.pile([1, 2, 3], 2)
