"""Per-card and per-action counters and restricted play (issue 20 §1-2; tev-ragnarok §4.7).

Forced positions are played by the reference and by the kernel's own functions (as plain
Python, ``tests/test_tevragnarok_harness.py``), with hand-worked counts; then the compiled
kernel over many games: a forbidden element is never taken, and forbidding one a policy never
takes plays the same games bit for bit.
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_tevragnarok_harness import K, Pos, card, same
from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.games import get
from vikingsim.games.tevragnarok.policies import ELEMENTS, Param, forbid_mask
from vikingsim.games.tevragnarok.rules import CardKind, Leader, RuneAct

A, B = 0, 1
EL = {name: i for i, name in enumerate(ELEMENTS)}


def forbid(pos, seat, text):
    """Give seat ``seat`` of a position (both engines) the policy parameter forbid=text."""
    pos.params[seat][Param.FORBID] = float(forbid_mask(text))
    pos.g.players[seat].forbid = forbid_mask(text)


def counts(pos, seat, name):
    """(times taken, Era of the first take) of an element, in the reference and the kernel."""
    pl, e = pos.g.players[seat], EL[name]
    return ((pl.taken[e], pl.first[e]),
            (int(pos.st.pl[seat, K.PL_EL0 + 3 * e + K.EL_TAKEN]),
             int(pos.st.pl[seat, K.PL_EL0 + 3 * e + K.EL_FIRST])))


def harvest_exchange(text=""):
    """Seat 0 holds region 0 (Rune A) and plays a base card of Rune A, Harvest / Smite, face
    up in Era 2: two Active Runes of A (the card's and the Island's) open the Rune action; no
    rival Settler stands anywhere, so the Smite removes nothing."""
    pos = Pos(count_elements=True)
    pos.g.era = 1
    pl = pos.p[0]
    pl.settlers[0] = 1
    pos.g.update_control()
    c = card(pos.rules, rune=A, leader=Leader.HARVEST, runeact=RuneAct.SMITE)
    if text:
        forbid(pos, 0, text)
    pos.sync()
    pos.g.face_up(pl, c)
    K._face_up(pos.cf, pos.st, 0, c, *pos.kargs(0), pos.kpol)
    return pos, same(pos)


def test_face_up_counts_each_action_it_takes():
    """Start 2/2/2: Harvest +2 of the scarcest (Wood, first on ties) -> 4/2/2. One Harvest
    and one Smite, first taken in Era 2; no other action; a base card is no card element."""
    pos, v = harvest_exchange()
    assert v["res"][0] == [4, 2, 2]
    assert counts(pos, 0, "harvest") == ((1, 2), (1, 2))
    assert counts(pos, 0, "smite") == ((1, 2), (1, 2))
    others = [e for e in ELEMENTS if e not in ("harvest", "smite")]
    assert all(counts(pos, 0, e) == ((0, 0), (0, 0)) for e in others)


def test_a_forbidden_leader_action_is_skipped_and_the_rune_action_still_taken():
    """forbid=harvest: no Harvest, so the resources stay 2/2/2; the Smite is still taken once."""
    pos, v = harvest_exchange("harvest")
    assert v["res"][0] == [2, 2, 2]
    assert counts(pos, 0, "harvest") == ((0, 0), (0, 0))
    assert counts(pos, 0, "smite") == ((1, 2), (1, 2))


def test_the_face_up_value_counts_only_the_allowed_actions():
    """§4.7 greedy value: face_up_value (1.5) x actions it would take: 2 for the card above,
    1 with Smite forbidden, 0 with both forbidden."""
    for text, want in (("", 3.0), ("smite", 1.5), ("harvest+smite", 0.0)):
        pos = Pos(count_elements=True)
        pl = pos.p[0]
        pl.settlers[0] = 1
        pos.g.update_control()
        c = card(pos.rules, rune=A, leader=Leader.HARVEST, runeact=RuneAct.SMITE)
        if text:
            forbid(pos, 0, text)
        pos.sync()
        face = K._card_values(pos.cf, pos.st, 0, c, pos.kargs(0)[1])[0]
        assert pos.g.face_up_value(pl, c) == face == want, text


@pytest.mark.parametrize("text, deployed", [("", True), ("deploy_valkyrie", False)])
def test_a_lost_battle_deploys_the_valkyrie_unless_forbidden(text, deployed):
    """SEED Deploy a Valkyrie: "you may also choose to deploy" (optional). A loss with a base
    card of Rune B: Boon (+2 Food, B's resource) and +1 Fury B either way; the B Valkyrie is
    deployed (counted once, Era 1) unless deploy_valkyrie is forbidden, and then, alone in its
    focus region (a B region: B's Island is worth the most at Fury 0/1/0 ranks), takes that
    Rune: one more Fury B."""
    pos = Pos(count_elements=True)
    pl = pos.p[0]
    c = card(pos.rules, rune=B)
    if text:
        forbid(pos, 0, text)
    pos.sync()
    pos.g.lose(pl, c)
    K._lose(pos.cf, pos.st, 0, c, *pos.kargs(0), pos.kpol)
    v = same(pos)
    assert v["res"][0] == [2, 4, 2] and v["lost"][0] == 1
    assert v["fury"] == ([0, 2, 0] if deployed else [0, 1, 0])
    assert (v["valk"][0][B] >= 0) == deployed
    n = (1, 1) if deployed else (0, 0)
    assert counts(pos, 0, "deploy_valkyrie") == (n, n)


def _pick_both(policy, pack, text="", draws=()):
    pos = Pos(policies=policy, pol_values=draws, count_elements=True)
    if text:
        forbid(pos, 0, text)
    pos.sync()
    pos.st.pack[0, :len(pack)] = pack
    pos.st.npack[0] = len(pack)
    ref = pos.g.pick(pos.p[0], list(pack))
    ker = K._pick(pos.cf, pos.st, 0, 0, *pos.kargs(0), pos.kpol)
    assert ref == ker
    return ker


def test_the_draft_skips_a_forbidden_card_kind_unless_forced():
    """§4.7 draft: giant_hunter values a Valkyrie card at 4 x 0 deployed + special_bonus 2 =
    2, above a Strength-1 base card; with valkyrie_card forbidden it takes the base card, and
    the Valkyrie card only when the pack holds nothing else. random_legal draws among the
    allowed cards: pack (V, b1, V, b2), u = 0.6 -> int(0.6 x 2) = 1 -> b2 (index 3)."""
    pos = Pos(count_elements=True)
    v = card(pos.rules, kind=CardKind.VALKYRIE)
    b1 = card(pos.rules, strength=1)
    b2 = card(pos.rules, strength=2)
    assert _pick_both("giant_hunter", (v, b1)) == 0
    assert _pick_both("giant_hunter", (v, b1), "valkyrie_card") == 1
    assert _pick_both("giant_hunter", (v,), "valkyrie_card") == 0
    assert _pick_both("random_legal", (v, b1, v, b2), "valkyrie_card", [0.6]) == 3
    assert _pick_both("random_legal", (v, b1, v, b2), "", [0.6]) == 2      # int(0.6 x 4)


@pytest.mark.parametrize("text, n", [("", 5), ("start_battle", 1), ("einherjar_card", 5)])
def test_the_option_list_drops_forbidden_uses(text, n):
    """§4.7 option list of one base card, both Favor rows full, no battle open, no Giant:
    face up + 4 row ends = 5; start_battle forbidden: face up only; a forbidden kind the card
    is not: unchanged."""
    pos = Pos(policies="random_legal", count_elements=True)
    pl = pos.p[0]
    pl.hand = [card(pos.rules, strength=5)]
    if text:
        forbid(pos, 0, text)
    pos.sync()
    assert len(pos.g.options(pl)) == n
    assert K._options(pos.cf, pos.st, 0, *pos.kargs(0), False) == n


def test_a_forbidden_card_is_played_face_up_without_its_actions():
    """A held Einherjar card (Harvest / free Raid) with a Giant slain: forbidden, it offers face
    up only, worth 0, and played face up it takes no action and is no card use."""
    pos = Pos(count_elements=True)
    pl = pos.p[0]
    pl.slain = [3]
    e = card(pos.rules, kind=CardKind.EINHERJAR, rune=A)
    pl.hand = [e]
    forbid(pos, 0, "einherjar_card")
    pos.sync()
    assert pos.g.options(pl) == [(0, 0, 0)]
    assert K._options(pos.cf, pos.st, 0, *pos.kargs(0), False) == 1
    assert pos.g.face_up_value(pl, e) == K._card_values(pos.cf, pos.st, 0, e,
                                                          pos.kargs(0)[1])[0] == 0.0
    pos.g.face_up(pl, e)
    K._face_up(pos.cf, pos.st, 0, e, *pos.kargs(0), pos.kpol)
    v = same(pos)
    assert v["res"][0] == [2, 2, 2]
    assert all(counts(pos, 0, x) == ((0, 0), (0, 0)) for x in ELEMENTS)


def test_element_stats_from_a_hand_made_tally():
    """10 games, seat 0 won 6: it slew in 5 games and won 4 of them (0.8), won 2 of the 5
    without (0.4); slays 12 times in all (1.2 a game), first slays in Eras 1, 1, 2, 3, 3 (mean
    2.0). Clopper-Pearson intervals from statsmodels (method "beta"), an independent code."""
    from statsmodels.stats.proportion import proportion_confint

    spec = get("tevragnarok")
    s = spec.setup({"count_elements": True}, ["greedy_vp"] * 2, 2)
    k, m = 2, len(ELEMENTS)
    t = {"wins": np.array([6, 4])}
    for key in ("el_taken_games", "el_taken_won", "el_taken_sum", "el_first_sum"):
        t[key] = np.zeros((k, m), np.int64)
    t["el_drafted_sum"], t["el_drafted_games"] = np.zeros((k, 2)), np.zeros((k, 2))
    e = EL["slay_giant"]
    t["el_taken_games"][0, e], t["el_taken_won"][0, e] = 5, 4
    t["el_taken_sum"][0, e], t["el_first_sum"][0, e] = 12, 1 + 1 + 2 + 3 + 3
    t["el_drafted_sum"][1, 0], t["el_drafted_games"][1, 0] = 7, 3
    f = spec.element_stats(s, t)
    assert list(f.element[:m]) == list(spec.elements(s)) and len(f) == k * m
    r = f[(f.seat == 0) & (f.element == "slay_giant")].iloc[0]
    assert (r.kind, r.games, r.taken_games, r.rate) == ("action", 10, 5, 0.5)
    assert (r.won_taken, r.win_taken, r.won_not_taken, r.win_not_taken) == (4, 0.8, 2, 0.4)
    assert (r.mean_taken, r.mean_first_era) == (1.2, 2.0)
    np.testing.assert_allclose([r.win_taken_lo, r.win_taken_hi],
                               proportion_confint(4, 5, method="beta"))
    np.testing.assert_allclose([r.win_not_taken_lo, r.win_not_taken_hi],
                               proportion_confint(2, 5, method="beta"))
    np.testing.assert_allclose([r.rate_lo, r.rate_hi], proportion_confint(5, 10, method="beta"))
    c = f[(f.seat == 1) & (f.element == "valkyrie_card")].iloc[0]
    assert (c.kind, c.drafted_games, c.mean_drafted, c.taken_games) == ("card", 3, 0.7, 0)
    assert np.isnan(c.win_taken) and c.win_not_taken == 0.4


def test_unknown_element_is_one_line(cli):
    p = cli("simulate", "tevragnarok", "-n", "10", "--policy", "greedy_vp(forbid=slay+smite)")
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and "Traceback" not in p.stderr and len(lines) == 1, p.stderr
    assert "'slay'" in lines[0] and "slay_giant" in lines[0] and "raid_free" in lines[0]
    with pytest.raises(InputError, match="unknown element 'x'"):
        forbid_mask("x")


# ------------------------------------------------------------------ many games, compiled

COUNT = {"count_elements": True}
FORBIDS = ["giant_hunter(forbid=slay_giant+valkyrie_card)",
           "random_legal(forbid=deploy_valkyrie+start_battle+einherjar_card)",
           "greedy_vp(forbid=sail+join_battle)", "greedy_vp(forbid=smite+raid_free+build)"]


def test_a_forbidden_element_is_never_taken():
    """2,000 four-player games (the compiled kernel), each seat forbidden something it
    otherwise takes: its count stays 0 while the same policy unrestricted takes it."""
    r = simulate("tevragnarok", 2000, seed=5, policies=FORBIDS, options=COUNT)
    free = simulate("tevragnarok", 2000, seed=5, options=COUNT,
                    policies=[x.split("(")[0] for x in FORBIDS])
    for seat, label in enumerate(FORBIDS):
        for name in label.split("forbid=")[1].rstrip(")").split("+"):
            assert r.out["el_taken"][:, seat, EL[name]].max() == 0, (seat, name)
            assert free.out["el_taken"][:, seat, EL[name]].sum() > 0, (seat, name)


def test_forbidding_what_a_policy_never_takes_plays_the_same_games():
    """no_giants never slays: with forbid=slay_giant every array of 2,000 games is the same
    bit for bit; a forbid it does use (sail) changes the games."""
    base = simulate("tevragnarok", 2000, seed=8, policies=["no_giants", "greedy_vp"] * 2)
    same_ = simulate("tevragnarok", 2000, seed=8,
                     policies=["no_giants(forbid=slay_giant)", "greedy_vp"] * 2)
    for key in base.out:
        np.testing.assert_array_equal(base.out[key], same_.out[key], err_msg=key)
    other = simulate("tevragnarok", 2000, seed=8,
                     policies=["no_giants(forbid=sail)", "greedy_vp"] * 2)
    assert not np.array_equal(base.out["score"], other.out["score"])


def test_kernel_counts_match_the_reference_with_forbids():
    """Kernel = reference, every array (the element counters too), with every policy kind
    restricted."""
    a = simulate("tevragnarok", 300, seed=21, threads=1, policies=FORBIDS, options=COUNT)
    b = simulate("tevragnarok", 300, seed=21, reference=True, policies=FORBIDS, options=COUNT)
    assert a.out["el_taken"].sum() > 0
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


def test_element_stats_of_a_run_add_up():
    """The table read from a real run's tally: taken + not taken games = games; wins taken +
    not taken = the seat's wins; a Valkyrie card is never used by a seat that forbids it."""
    r = simulate("tevragnarok", 1000, seed=3, policies=FORBIDS, options=COUNT)
    spec = get("tevragnarok")
    f = spec.element_stats(r.setup, spec.tally(r.setup, r.out))
    assert (f.taken_games + f.not_taken_games == 1000).all()
    wins = np.bincount(r.out["winner"], minlength=4)
    assert ((f.won_taken + f.won_not_taken).to_numpy() == np.repeat(wins, len(ELEMENTS))).all()
    row = f[(f.seat == 0) & (f.element == "valkyrie_card")].iloc[0]
    assert row.taken_games == 0 and row.mean_drafted > 0      # forced picks only


def test_without_count_elements_the_counters_stay_zero_and_the_games_the_same():
    """The option only counts: off (the default), every counter is 0, every other array is
    the same as with it on, and element_stats says in one line how to get the counts."""
    on = simulate("tevragnarok", 300, seed=4, policies=FORBIDS, options=COUNT)
    off = simulate("tevragnarok", 300, seed=4, policies=FORBIDS)
    for key in on.out:
        if key.startswith("el_"):
            assert off.out[key].max() == 0 and on.out[key].max() > 0, key
        else:
            np.testing.assert_array_equal(on.out[key], off.out[key], err_msg=key)
    spec = get("tevragnarok")
    with pytest.raises(InputError, match="count_elements=true"):
        spec.element_stats(off.setup, spec.tally(off.setup, off.out))
