"""Shared suite: in every seated game a seat number means nothing but turn order.

For each seated game of the registry (no per-game case), the shipped default policies play
``GAMES_PER_MARKER`` games at 4 players with the first player (``GameSpec.first_player_option``)
at each of the 4 seats. Every game with a winner adds one to the cell (marker position, the
winner's turn position), turn position = (winner - marker) mod 4, so 0 is the player who took
the first turn. If only turn order matters, the 4 rows of this 4 x 4 table are draws from one
distribution: ``scipy.stats.chi2_contingency`` tests that homogeneity, and p > 0.001 is
required. A tie broken by "lowest seat" makes the winning *seat number* matter, which moves
the winner's turn position with the marker: the rows differ and the test fails.

Power (checked by ``test_the_table_sees_a_one_point_seat_number_effect``): the alternative
is a seat-number effect of 1 point, one seat number winning 1 point more often than it
should (the other three seats 1/3 point less each), on top of a turn-order pattern of
27/27/23/23 %. With n games per marker position the chi-square statistic of the expected
table is the noncentrality lambda of the test's noncentral chi-square (9 df); at n = 20,000,
lambda = 42.9 and the power at p < 0.001 (critical value 27.9) is 97 %; a +1/-1 point shift
of two turn positions under a single marker position gives lambda = 11.1 (16 %: that
pattern is not what a seat-number tie-break produces). 4 x 20,000 games take about 5-10 s
per game on this machine.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2, chi2_contingency, ncx2

from vikingsim.core.runner import simulate
from vikingsim.games import get, names

PLAYERS = 4
MARKERS = range(PLAYERS)
GAMES_PER_MARKER = 20_000
P_MIN = 0.001
SEED = 2026
SEATED = [g for g in names() if get(g).seated]
#: Seated games whose first-player option is still missing, with the reason (the lead
#: removes an entry when the option lands).
PENDING: dict[str, str] = {}


def wins_table(game: str, n: int = GAMES_PER_MARKER, seed: int = SEED) -> np.ndarray:
    """int64[marker, turn position]: wins of default-policy games at 4 players."""
    spec = get(game)
    table = np.zeros((PLAYERS, PLAYERS), np.int64)
    for m in MARKERS:
        res = simulate(game, n, seed=seed, players=PLAYERS,
                       options={spec.first_player_option: m})
        winner = res.frame["winner"].to_numpy().astype(np.int64)
        winner = winner[winner >= 0]
        table[m] = np.bincount((winner - m) % PLAYERS, minlength=PLAYERS)
    return table


def _params(games):
    out = []
    for g in games:
        marks = ()
        if get(g).first_player_option is None and g in PENDING:
            marks = pytest.mark.xfail(reason=PENDING[g], strict=False)
        out.append(pytest.param(g, marks=marks, id=g))
    return out


@pytest.mark.parametrize("game", _params(SEATED))
def test_win_rates_follow_turn_position_not_seat_number(game):
    spec = get(game)
    assert spec.first_player_option is not None, (
        f"{game} is seated but names no first_player_option in its GameSpec")
    assert spec.first_player_option in {o.name for o in spec.options}
    assert spec.players[0] <= PLAYERS <= spec.players[1]
    table = wins_table(game)
    stat, p, dof, _ = chi2_contingency(table, correction=False)
    rates = table / table.sum(axis=1, keepdims=True)
    assert dof == 9
    assert p > P_MIN, (f"{game}: winners' turn positions depend on the marker seat "
                       f"(chi-square {stat:.1f}, p = {p:.3g}); rows = marker seat:\n{rates}")


def test_the_table_sees_a_one_point_seat_number_effect():
    """The power argument of the module docstring, computed: lambda of the expected table
    under a 1-point seat-number effect, and the power at p < 0.001 (at least 90 %)."""
    base = np.array([0.27, 0.27, 0.23, 0.23])
    alt = np.tile(base, (PLAYERS, 1))
    for m in MARKERS:                        # seat 0 sits at turn position (0 - m) mod 4
        alt[m] -= 0.01 / 3
        alt[m, (-m) % PLAYERS] += 0.01 + 0.01 / 3
    assert np.allclose(alt.sum(axis=1), 1.0)
    lam = chi2_contingency(alt * GAMES_PER_MARKER, correction=False)[0]
    # by hand: the column margins stay `base`, the row margins n; each row has one cell
    # +0.01 and three -0.01/3, so lambda = n * 1e-4 * (1 + 3/9) * sum(1 / base) = 42.94
    assert lam == pytest.approx(GAMES_PER_MARKER * 1e-4 * (4 / 3) * (1 / base).sum())
    power = ncx2.sf(chi2.isf(P_MIN, 9), 9, lam)
    assert power > 0.9
