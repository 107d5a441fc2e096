"""Kernel = reference, bit for bit (tev-ragnarok §4.8), over policies, seat counts, options
and presets (JIT off = on: tests/test_contract_jit.py)."""
from __future__ import annotations

import numpy as np
import pytest

from vikingsim.core.runner import simulate
from vikingsim.games import get

CASES = [
    dict(policies=["greedy_vp", "giant_hunter", "random_legal", "no_giants"]),
    dict(policies="random_legal", players=2),
    dict(policies=["giant_hunter", "random_legal", "greedy_vp"], players=3),
    dict(policies="random_legal", options=dict(last_battles="return")),
    dict(policies="giant_hunter", options=dict(valkyrie_card_condition="one_or_two",
                                               last_battles="return", giant_drain=False)),
    dict(policies="random_legal", options=dict(params="giants_wide")),
    dict(policies=["giant_hunter", "greedy_vp(giant_weight=2.0, face_up_value=0.5)"],
         players=2, options=dict(params="island_630")),
    # issue 18: the old readings, another first player, the new presets
    dict(policies=["greedy_vp", "random_legal", "giant_hunter"], players=3,
         options=dict(era_opener="rotate", last_era_drain=True, attack_after_deploy=False,
                      params="draft_5")),
    dict(policies=["random_legal", "greedy_vp", "no_giants", "giant_hunter"],
         options=dict(first_seat=2, params="start_clustered")),
    dict(policies="greedy_vp", players=3, options=dict(first_seat=1, params="board_9")),
    dict(policies="random_legal", options=dict(params="board_ring", first_seat=3)),
]


@pytest.mark.parametrize("cfg", CASES, ids=range(len(CASES)))
def test_kernel_matches_reference_bit_for_bit(cfg):
    a = simulate("tevragnarok", 400, seed=17, threads=1, **cfg)
    b = simulate("tevragnarok", 400, seed=17, reference=True, **cfg)
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


def test_trace_tells_the_game_simulate_plays():
    spec = get("tevragnarok")
    r = simulate("tevragnarok", 3, seed=9)
    text = spec.trace(r.setup, 9, 2)
    assert text.splitlines()[-1].endswith(f"winner seat {int(r.out['winner'][2])}")


def _seat_rotated(a, b, shift, n):
    """Run b is run a with every seat moved ``shift`` places clockwise."""
    np.testing.assert_array_equal((a.out["winner"] + shift) % n, b.out["winner"])
    np.testing.assert_array_equal((a.out["openers"] + shift) % n, b.out["openers"])
    for key in ("score", "slays", "islands", "favors", "lost_battles", "giant_points"):
        np.testing.assert_array_equal(np.roll(a.out[key], shift, axis=1), b.out[key],
                                      err_msg=key)
    np.testing.assert_array_equal(a.out["fury"], b.out["fury"])


@pytest.mark.parametrize("policies, players, shift", [
    ("greedy_vp", 4, 2), ("random_legal", 3, 1), ("giant_hunter", 4, 3)])
def test_moving_the_first_player_only_relabels_the_seats(policies, players, shift):
    """§4.7, issue 18: seat numbers mean nothing but turn order. The same seed with the
    first player moved ``shift`` seats plays the same games with the seats relabelled: every
    per-seat figure moves ``shift`` places, the winner and the Era openers are the old ones
    + shift (mod players), the gods' Fury is the same. On the kernel (2,000 games) and the
    reference (100)."""
    for n_games, ref in ((2_000, False), (100, True)):
        a = simulate("tevragnarok", n_games, seed=23, players=players, policies=policies,
                     reference=ref)
        b = simulate("tevragnarok", n_games, seed=23, players=players, policies=policies,
                     options={"first_seat": shift}, reference=ref)
        _seat_rotated(a, b, shift, players)
    assert (a.out["openers"][:, 1:] != a.out["openers"][:, :1]).any()   # the marker moves


def test_last_era_drain_only_changes_the_final_fury():
    """§3.4, §4.7: last_era_drain changes nothing but the drain after Era 3, which comes after
    every card is played. So on the same seed the games are the same (undrained Fury, slays,
    openers), and the drained Fury differs by the Giants left on the board, never more: per
    game the total Fury lost is at most ``giants_left`` and is positive in some games. The
    engines' own game loops (kernel 2,000 games, reference 100)."""
    for n_games, ref in ((2_000, False), (100, True)):
        a = simulate("tevragnarok", n_games, seed=5, players=3, reference=ref)
        b = simulate("tevragnarok", n_games, seed=5, players=3, reference=ref,
                     options={"last_era_drain": True})
        for key in ("fury_nodrain", "slays", "openers", "lost_battles"):
            np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)
        lost = (a.out["fury"].astype(int) - b.out["fury"]).sum(axis=1)
        assert (lost >= 0).all() and (lost <= a.out["giants_left"]).all()
        assert (lost > 0).mean() > 0.3
