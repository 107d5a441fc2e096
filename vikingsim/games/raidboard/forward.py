"""Forward model of the raid board (issue 21 §1): one game state with one documented layout,
``copy``, the legal options at a decision, ``apply``, all callable from compiled code (and from
Python with numpy arrays and a Generator), so a search player can look ahead.

The state is a :class:`State` of arrays: the whole-game kernel's own state (kernel.py) plus a
``clock`` saying where play stands. Play runs with the kernel's own turn code (``kernel._run``)
and stops only where a search player's seat must choose (raidboard §10.1: the Exploration sea,
§6.5, and the Lost settlement, §6.8); ``apply`` carries out the option with the kernel's own
code for that choice (``kernel._finish_choice``), finishes the turn and plays on to the next
such choice or the end. A scripted seat never stops play: its choice is made inside the turn,
as in a plain game. ``rules`` everywhere is the tuple :func:`rules_of` makes.

The raid board hides nothing (Gold, fleets and settlements are public, §2), so every seat may
see the whole state; only the future dice are unknown, and a search player samples them by
playing on with dice drawn from its policy stream.
"""
from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np

from vikingsim.core.jit import jit
from vikingsim.games.raidboard import kernel
from vikingsim.games.raidboard.kernel import (  # noqa: F401 (END_TRUNCATED: for callers)
    DECIDE, END_DECIDE, END_TERMINATED, END_TRUNCATED, NO_OWNER, WON)
from vikingsim.games.raidboard.policies import PolicyKind
from vikingsim.games.raidboard.rules import N_SPACES, Space

__all__ = ["State", "Clock", "new_state", "rules_of", "copy", "reset", "advance",
           "legal_options", "apply", "default_option", "RUNNING"]

#: ``clock[Clock.END]`` while the game goes on (else END_TERMINATED or END_TRUNCATED)
RUNNING = -1


class Clock(IntEnum):
    """Slots of ``State.clock`` (int64)."""

    ROUND = 0       # round of the turn in play or next to play, 0-based (§5)
    TURN = 1        # that turn's index in turn order, 0 = first_seat (§4.2)
    ACTOR = 2       # seat that must choose now (its fleet on Exploration or Lost), -1 = none
    END = 3         # RUNNING, END_TERMINATED (someone won, §8.1) or END_TRUNCATED (§8.3)
    WINNER = 4      # winning seat, -1 while running or when truncated
    ROUNDS = 5      # rounds played once ended (a round counts once it starts, §11.1)


N_CLOCK = len(Clock)


class State(NamedTuple):
    """One raid board game's state (the kernel's arrays, kernel.py docstring, plus the clock)."""

    gold: np.ndarray     # int64[n_seats]   Gold per seat (§4.1, §8.1)
    pos: np.ndarray      # int64[n_seats]   track index of each fleet, 0..LAST_SPACE (§5.3)
    fdir: np.ndarray     # int64[n_seats]   direction of travel, +1 or -1 (Ends of the Earth §9.2)
    miss: np.ndarray     # bool[n_seats]    owes a missed turn (§7.2, §5.1)
    owner: np.ndarray    # int64[N_SPACES]  seat owning the settlement on each space, -1 none
    n_set: np.ndarray    # int64[n_seats]   settlements per seat  } in step with owner (§3.4),
    n_king: np.ndarray   # int64[n_seats]   kingdoms per seat     } kernel._set_owner
    lost: np.ndarray     # int64[n_seats]   fleets destroyed so far (a statistic, §11.1)
    clock: np.ndarray    # int64[N_CLOCK]   where play stands, slots ``Clock``


def new_state(n_seats: int) -> State:
    """A zeroed state for ``n_seats`` (call ``reset`` for the setup)."""
    z = lambda: np.zeros(n_seats, np.int64)                         # noqa: E731
    clock = np.zeros(N_CLOCK, np.int64)
    clock[Clock.ACTOR], clock[Clock.END], clock[Clock.WINNER] = -1, RUNNING, -1
    return State(z(), z(), np.ones(n_seats, np.int64), np.zeros(n_seats, np.bool_),
                 np.full(N_SPACES, NO_OWNER, np.int64), z(), z(), z(), clock)


def rules_of(compiled) -> tuple:
    """The rules tuple every function here takes, from ``Rules.compile()``."""
    return (compiled.ri, compiled.kind, compiled.region, compiled.seas, compiled.region_spaces)


@jit(inline="always", nrt=False)
def _copy_into(src, dst):
    for i in range(src.shape[0]):           # a loop: slice assignment needs numba's NRT
        dst[i] = src[i]


@jit(nrt=False)
def copy(src, dst):
    """Copy every field of state ``src`` into state ``dst`` (same seat count)."""
    _copy_into(src.gold, dst.gold)
    _copy_into(src.pos, dst.pos)
    _copy_into(src.fdir, dst.fdir)
    _copy_into(src.miss, dst.miss)
    _copy_into(src.owner, dst.owner)
    _copy_into(src.n_set, dst.n_set)
    _copy_into(src.n_king, dst.n_king)
    _copy_into(src.lost, dst.lost)
    _copy_into(src.clock, dst.clock)


@jit(nrt=False)
def reset(rules, st):
    """The setup (§4.1, §4.4), before the first turn."""
    kernel._reset(rules[0], st.gold, st.pos, st.fdir, st.miss, st.owner, st.n_set, st.n_king,
                  st.lost)
    c = st.clock
    c[Clock.ROUND], c[Clock.TURN], c[Clock.ACTOR] = 0, 0, -1
    c[Clock.END], c[Clock.WINNER], c[Clock.ROUNDS] = RUNNING, -1, 0


@jit(inline="always", nrt=False)
def _ended(c, end, winner, rounds):
    c[Clock.END], c[Clock.WINNER], c[Clock.ROUNDS], c[Clock.ACTOR] = end, winner, rounds, -1
    return end


@jit(nrt=False)
def advance(rules, kinds, params, st, dice_rng, pol_rng):
    """Play on from the clock (seat policies ``kinds``/``params``) until a seat whose kind is a
    search player must choose, or the game ends. Returns END_DECIDE (``clock[ACTOR]`` must
    choose), END_TERMINATED or END_TRUNCATED."""
    ri, kind, region, seas, region_spaces = rules
    c = st.clock
    end, seat, n_round, turn = kernel._run(
        ri, kind, region, seas, region_spaces, kinds, params, st.gold, st.pos, st.fdir,
        st.miss, st.owner, st.n_set, st.n_king, st.lost, c[Clock.ROUND], c[Clock.TURN],
        dice_rng, pol_rng)
    if end == END_DECIDE:
        c[Clock.ROUND], c[Clock.TURN], c[Clock.ACTOR] = n_round, turn, seat
        return END_DECIDE
    return _ended(c, end, seat, n_round)


@jit(nrt=False)
def legal_options(rules, st, out):
    """The options of ``clock[ACTOR]``'s pending choice into ``out`` (int64[N_SPACES]),
    ascending; returns how many. Exploration (§6.5): every sea space. Lost (§6.8): every space
    holding a settlement, the actor's own included (``advance`` never stops at Lost with an
    empty board, §10.3.3)."""
    ri, kind, region, seas, region_spaces = rules
    space = st.pos[st.clock[Clock.ACTOR]]
    n = 0
    if kind[space] == Space.EXPLORATION:
        for j in range(seas.shape[0]):
            out[n] = seas[j]
            n += 1
        return n
    for i in range(N_SPACES):
        if st.owner[i] != NO_OWNER:
            out[n] = i
            n += 1
    return n


@jit(nrt=False)
def apply(rules, kinds, params, st, option, dice_rng, pol_rng):
    """``clock[ACTOR]`` takes ``option`` (one of ``legal_options``); the rest of its turn is
    played (its later choices in the turn suspend play again) and then play goes on as in
    ``advance``. Returns what ``advance`` returns."""
    ri, kind, region, seas, region_spaces = rules
    c = st.clock
    seat = c[Clock.ACTOR]
    c[Clock.ACTOR] = -1
    r = kernel._finish_choice(ri, kind, region, seas, region_spaces, seat, kinds[seat],
                              params[seat], option, st.gold, st.pos, st.fdir, st.miss, st.owner,
                              st.n_set, st.n_king, st.lost, dice_rng, pol_rng)
    if r == WON:                                           # §8.1 stops at once
        return _ended(c, END_TERMINATED, seat, c[Clock.ROUND] + 1)
    if r == DECIDE:                                        # a second choice in the same turn
        c[Clock.ACTOR] = seat
        return END_DECIDE
    c[Clock.TURN] += 1                                     # the next turn in seat order (§4.2)
    if c[Clock.TURN] == st.gold.shape[0]:
        c[Clock.TURN] = 0
        c[Clock.ROUND] += 1
    return advance(rules, kinds, params, st, dice_rng, pol_rng)


@jit(nrt=False)
def default_option(rules, st, params_row, pol_rng):
    """What the default policy (``greedy``, §10.2-10.3) would choose at the pending choice:
    the kernel's own ``_choose_exploration``/``_choose_lost`` (greedy draws nothing)."""
    ri, kind, region, seas, region_spaces = rules
    seat = st.clock[Clock.ACTOR]
    if kind[st.pos[seat]] == Space.EXPLORATION:
        return kernel._choose_exploration(ri, kind, region, seas, st.owner, st.pos[seat],
                                          st.fdir[seat], seat, PolicyKind.GREEDY, params_row,
                                          pol_rng)
    return kernel._choose_lost(st.owner, st.n_set, st.n_king, st.gold, region, region_spaces,
                               seat, PolicyKind.GREEDY, params_row, pol_rng)


def is_ended(st: State) -> bool:
    return int(st.clock[Clock.END]) != RUNNING

