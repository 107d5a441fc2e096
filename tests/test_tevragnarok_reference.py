"""Kernel = reference, bit for bit (tev-ragnarok §4.8), over policies, seat counts, options
and presets; and the compiled kernel = the kernel run as plain Python."""
from __future__ import annotations

import numpy as np
import pytest

from vikingsim.core import rng
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
]


@pytest.mark.parametrize("cfg", CASES, ids=range(len(CASES)))
def test_kernel_matches_reference_bit_for_bit(cfg):
    a = simulate("tevragnarok", 400, seed=17, threads=1, **cfg)
    b = simulate("tevragnarok", 400, seed=17, reference=True, **cfg)
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


def test_jit_off_equals_jit_on():
    from tests.test_tevragnarok_harness import K

    spec = get("tevragnarok")
    s = spec.setup({o.name: o.default for o in spec.options}, ["random_legal"] * 4, 4)
    outs = []
    for play in (K.play_block, spec.play_block):
        out = spec.allocate(s, 40)
        play(s, 0, 40, rng.block_generator(3, rng.STREAM_DICE, 0),
             rng.block_generator(3, rng.STREAM_POLICY, 0), out)
        outs.append(out)
    for key in outs[0]:
        np.testing.assert_array_equal(outs[0][key], outs[1][key], err_msg=key)


def test_trace_tells_the_game_simulate_plays():
    spec = get("tevragnarok")
    r = simulate("tevragnarok", 3, seed=9)
    text = spec.trace(r.setup, 9, 2)
    assert text.splitlines()[-1].endswith(f"winner seat {int(r.out['winner'][2])}")
