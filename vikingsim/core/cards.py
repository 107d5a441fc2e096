"""Piles and decks for card games, as arrays (kernels) with plain-Python twins (references).

A **pile** is an ordered array of card ids ``cards: int16[capacity]`` plus its size ``n``; the
top of the pile is ``cards[n - 1]`` (draw and push at the end, no shifting). A **count vector**
``counts: int16[n_kinds]`` says how many of each card id a place holds (supplies, hands seen
as sets). Shuffles draw from the game's dice stream: Fisher-Yates from the top down, position
``i`` swapped with ``int(rng.random() * (i + 1))``, one draw per card but the last, so a kernel
and its reference that shuffle the same pile with the same Generator get the same order.

Kernels here allocate nothing (``nrt=False``); callers pass the arrays in. Each kernel
function has a plain-Python twin below it (``shuffle``, ``draw`` ...) over lists, written for
the references; ``tests/test_cards.py`` checks them equal on the same seeds.
"""
from __future__ import annotations

import numpy as np

from vikingsim.core.jit import jit

#: Returned by a draw from a pile that is empty even after reshuffling its discard.
NO_CARD = -1


@jit(nrt=False)
def _shuffle(cards, n, rng):
    """Shuffle ``cards[:n]`` in place (Fisher-Yates, top down). Draws n - 1 numbers."""
    for i in range(n - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t


@jit(nrt=False)
def _push(cards, n, card):
    """Put ``card`` on top of the pile; returns the new size. No capacity check."""
    cards[n] = card
    return n + 1


@jit(nrt=False)
def _refill(draw, n_draw, discard, n_discard, rng):
    """Move the whole discard onto an empty draw pile and shuffle it; returns
    (n_draw, n_discard). Does nothing while the draw pile still has cards."""
    if n_draw > 0:
        return n_draw, n_discard
    for i in range(n_discard):
        draw[i] = discard[i]
    _shuffle(draw, n_discard, rng)
    return n_discard, 0


@jit(nrt=False)
def _draw(draw, n_draw, discard, n_discard, rng):
    """Top card of the draw pile, reshuffling the discard into it first when it is empty.
    Returns (card or NO_CARD, n_draw, n_discard)."""
    n_draw, n_discard = _refill(draw, n_draw, discard, n_discard, rng)
    if n_draw == 0:
        return NO_CARD, n_draw, n_discard
    return draw[n_draw - 1], n_draw - 1, n_discard


@jit(nrt=False)
def _count(cards, n, counts):
    """``counts[k]`` = copies of card id k among ``cards[:n]`` (counts is overwritten)."""
    for k in range(counts.shape[0]):
        counts[k] = 0
    for i in range(n):
        counts[cards[i]] += 1


@jit(nrt=False)
def _take(counts, card):
    """Take one ``card`` from a count vector (a supply pile); False when none is left."""
    if counts[card] <= 0:
        return False
    counts[card] -= 1
    return True


# --- plain-Python twins (for the references) -----------------------------------------------

def shuffle(cards: list, rng) -> None:
    """Shuffle a list in place exactly as ``_shuffle`` does with the same Generator."""
    for i in range(len(cards) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def draw(deck: list, discard: list, rng) -> int:
    """Pop the top card of ``deck`` (its last item), first moving ``discard`` into an empty
    deck and shuffling it; NO_CARD when both are empty. Same draws as ``_draw``."""
    if not deck:
        deck.extend(discard)
        discard.clear()
        shuffle(deck, rng)
    return deck.pop() if deck else NO_CARD


def count(cards, n_kinds: int) -> np.ndarray:
    """Copies of each card id 0..n_kinds-1 in ``cards``."""
    return np.bincount(np.asarray(cards, dtype=np.int64), minlength=n_kinds).astype(np.int16)


def pile(cards, capacity: int) -> tuple[np.ndarray, int]:
    """An ``int16[capacity]`` pile array holding ``cards`` bottom to top, and its size."""
    if len(cards) > capacity:
        raise ValueError(f"{len(cards)} cards do not fit a pile of capacity {capacity}")
    arr = np.zeros(capacity, np.int16)
    arr[:len(cards)] = cards
    return arr, len(cards)
