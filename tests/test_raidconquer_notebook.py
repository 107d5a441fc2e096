"""The answers of ``notebooks/raidconquer_is_ragnar_too_strong`` (issues 10 and 18), re-checked.

The notebook renders its answers from its tables (the last cell, ``IPython.display.Markdown``);
these tests read that rendered text from the committed ``.ipynb`` (the claims as a reader sees
them, not figures pasted here) and check each against a computation of its own. Where the rules
give an independent expectation it is used: the five characters are identical (§3.5, §12.3),
so with the characters rotated over the seats each wins 1/4 of its 4-player seats; the power
figure follows the closed form of the normal approximation on Cohen's h; if seat numbers mean
nothing but turn order, the winners' turn positions do not depend on the marker seat. Where there
is none (a variant's win rate, a turn-position rate, game length, a policy match-up, the
share of winners a scoring reading changes) the figure is recomputed on a fresh seed at the
notebook's own n and must lie within 4 standard errors of the difference of two independent
estimates (4 * sqrt(2) * SE) of the quoted value, plus its rounding. A failing test after a
change of the catalog or the rules means the committed run is stale: re-run the notebook
(notebooks/README.md).
"""
import math
import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from vikingsim.stats import equal_seats_test, games_needed, interval

NB = Path(__file__).resolve().parents[1] / "notebooks" / "raidconquer_is_ragnar_too_strong"
SEED, FRESH = 10, 1010                     # the notebook's seed; an independent one
Z95, Z80 = 1.959963984540054, 0.8416212335729143
NUM = r"([\d.]+)"
#: the notebook's full-run sizes (its first code cell, SMALL unset), checked against the source.
N_CHAR, N_VAR, N_SEAT, N_TOUR, N_READ = 200_000, 50_000, 100_000, 2_000, 40_000


@lru_cache(maxsize=1)
def answers() -> str:
    """The rendered Answers markdown of the committed notebook, whitespace collapsed."""
    import nbformat

    nb = nbformat.read(NB.with_suffix(".ipynb"), as_version=4)
    texts = [o["data"]["text/markdown"] for c in nb.cells if c.cell_type == "code"
             for o in c.get("outputs", []) if "text/markdown" in o.get("data", {})]
    assert len(texts) == 1, "the notebook should render exactly one Answers cell"
    return " ".join(texts[0].split())


def claim(pattern: str) -> tuple[float, ...]:
    """The numbers a pattern captures in the answers (percentages as fractions when the
    pattern's group is followed by %)."""
    m = re.search(pattern, answers())
    assert m, f"the rendered answers no longer say: {pattern}"
    out = []
    for i, g in enumerate(m.groups(), 1):
        x = float(g.replace(",", ""))
        out.append(x / 100 if m.string[m.end(i):m.end(i) + 1] == "%" else x)
    return tuple(out)


def _run(n, seed, players=4, policies="hints", **options):
    from vikingsim.core.runner import simulate
    from vikingsim.games import get

    return simulate(get("raidconquer"), n, seed=seed, players=players, policies=policies,
                    options={"rotate_characters": True, **options})


def _close_to_quote(fresh, quoted, se, rounding):
    """A fresh estimate agrees with a quoted one: within 4 SE of the difference of two
    independent estimates, plus half the quote's last digit."""
    assert abs(fresh - quoted) <= 4 * math.sqrt(2) * se + rounding, (fresh, quoted, se)


def test_full_run_sizes_are_the_notebook_s():
    src = NB.with_suffix(".py").read_text()
    for text in ["N_CHAR = 20_000 if SMALL else 200_000", "N_VAR = 5_000 if SMALL else 50_000",
                 "N_SEAT = 5_000 if SMALL else 100_000", "N_TOUR = 100 if SMALL else 2_000",
                 "N_READ = 4_000 if SMALL else 40_000", "N_MARK = N_SEAT // 2"]:
        assert text in src, text
    assert claim(r"rotated 4-player games, ([\d,]+) seats per character")[0] == 0.8 * N_CHAR


def test_answers_come_from_a_full_run():
    assert "SMALL=False" in NB.with_suffix(".ipynb").read_text()
    (n,) = claim(r"p = [\d.]+; ([\d,]+) rotated 4-player games")
    assert n == N_CHAR


def test_one_point_power_matches_closed_form():
    """games_needed(0.26, 0.25) (statsmodels) against n = ((z_.975 + z_.80) / h)^2 with
    Cohen's h = 2 asin sqrt(0.26) - 2 asin sqrt(0.25): one arm against a fixed 1/4, divided by
    a character's 4/5 share of the rotated games, is the number the answer quotes."""
    h = 2 * math.asin(math.sqrt(0.26)) - 2 * math.asin(math.sqrt(0.25))
    one = math.ceil(((Z95 + Z80) / h) ** 2)
    assert games_needed(0.26, 0.25, two_sample=False) == one
    assert games_needed(0.26, 0.25) == math.ceil(2 * ((Z95 + Z80) / h) ** 2)
    assert claim(r"([\d,]+) games give 80% power to see a character at 26%")[0] == \
        math.ceil(one / 0.8)


@pytest.mark.slow
def test_characters_are_equal_at_the_notebooks_n():
    """The notebook's own run (seed 10, 200,000 rotated 4-player games: 160,000 seats per
    character) gives the quoted figures, and each character is within 4 SE of the rules' 1/4.
    Why this n is enough: SE = sqrt(1/4 * 3/4 / 160,000) = 0.108 pp, so 4 SE = 0.43 pp, below
    the 1-point difference the notebook asks about (a character 1 pp off would sit 9 SE out)."""
    ragnar, lo_q, hi_q, low, high, p_q = claim(
        rf"Ragnar wins \*\*{NUM}%\*\* of his seats \[{NUM}%, {NUM}%\], the five characters "
        rf"{NUM}% to {NUM}% \(fair 1/4; equal-chances chi-square p = {NUM};")
    by = _run(N_CHAR, SEED).summary["win_rate_by_character"]
    seats = 0.8 * N_CHAR
    se = math.sqrt(0.25 * 0.75 / seats)
    rates = {name: d["win_rate"] for name, d in by.items()}
    assert all(d["games"] == seats for d in by.values())
    assert all(abs(r - 0.25) <= 4 * se for r in rates.values()), rates
    assert round(rates["ragnar"], 4) == round(ragnar, 4)
    assert (round(min(rates.values()), 4), round(max(rates.values()), 4)) == \
        (round(low, 4), round(high, 4))
    wins = [round(r * seats) for r in rates.values()]
    lo, hi = interval(round(rates["ragnar"] * seats), int(seats))
    assert (round(lo, 4), round(hi, 4)) == (round(lo_q, 4), round(hi_q, 4))
    assert round(equal_seats_test(wins, N_CHAR).pvalue, 2) == p_q


@pytest.mark.slow
@pytest.mark.parametrize("option, pattern", [
    ({"ragnar_base_attack": 3}, rf"Base Attack 3: Ragnar wins \*\*{NUM}%\*\*"),
    ({"ragnar_base_defense": 6}, rf"Base Defense 6: \*\*{NUM}%\*\*"),
    ({"start_card": "ragnar:Longboat"}, rf"a third starting Longboat: \*\*{NUM}%\*\*")])
def test_variant_makes_ragnar_stronger(option, pattern):
    """A fresh seed at the notebook's n (50,000 games, 40,000 Ragnar seats): Ragnar's rate
    agrees with the quote and lies more than 4 SE above 1/4. Why this n is enough: SE is about
    0.23 pp, so the check allows 1.3 pp either side of the quote while the smallest gain the
    notebook finds is over 3 pp (13 SE)."""
    (quoted,) = claim(pattern)
    d = _run(N_VAR, FRESH, **option).summary["win_rate_by_character"]["ragnar"]
    se = math.sqrt(quoted * (1 - quoted) / d["games"])
    _close_to_quote(d["win_rate"], quoted, se, 0.0005)
    assert d["win_rate"] > 0.25 + 4 * math.sqrt(0.25 * 0.75 / d["games"])


@pytest.mark.slow
def test_turn_order_not_seat_number_and_game_length():
    """Fresh seed, the notebook's n: 4 x 50,000 4-player games with the First Player marker on
    each seat. (1) The winners' turn positions do not depend on the marker seat (chi-square
    homogeneity, p > 0.001, as tests/test_registry_seats.py), as the answer says; (2) the
    quoted turn-position rates (pooled over the marker seats, 200,000 games) and the 4-player
    seat rates of the default setup (100,000 games) agree with the fresh pooled rates; the
    first two positions lie more than 4 SE above 1/4 and the last two more than 4 SE below, as
    quoted; (3) the mean length and the share of 10-15-round games agree with the quotes
    (the marker seat cannot change them when seat numbers mean nothing).
    Why this n is enough: SE(turn position) = 0.097 pp pooled against edges of about 2 pp
    (20 SE); SE(mean rounds) = 0.006 rounds; SE(share) = 0.11 pp."""
    turn_q = claim(rf"by turn position \*\*{NUM}% / {NUM}% / {NUM}% / {NUM}%\*\*")
    seat_q = claim(rf"At 4 players the First Player wins \*\*{NUM}%\*\* \[[^\]]*\], the second "
                   rf"{NUM}%, the third {NUM}%, the fourth {NUM}%")
    (mean_q,) = claim(rf"a mean \*\*{NUM} rounds\*\*")
    (share_q,) = claim(rf"\*\*{NUM}%\*\* \[[^\]]*\] of them within ten to fifteen rounds")
    n = N_SEAT // 2
    table, rounds = np.zeros((4, 4), np.int64), []
    for m in range(4):
        f = _run(n, FRESH, first_seat=m).frame
        w = f.winner.to_numpy().astype(np.int64)
        table[m] = np.bincount((w[w >= 0] - m) % 4, minlength=4)
        rounds.append(f.rounds.to_numpy())
    assert chi2_contingency(table, correction=False).pvalue > 0.001, table
    fresh = table.sum(axis=0) / (4 * n)
    for q, f, n_q in [*zip(turn_q, fresh, [4 * n] * 4), *zip(seat_q, fresh, [N_SEAT] * 4)]:
        se = math.sqrt(q * (1 - q) * (1 / n_q + 1 / (4 * n)) / 2)
        _close_to_quote(f, q, se, 0.0005)
    edge = 4 * math.sqrt(0.25 * 0.75 / (4 * n))
    assert fresh[0] > 0.25 + edge and fresh[1] > 0.25 + edge
    assert fresh[2] < 0.25 - edge and fresh[3] < 0.25 - edge
    r = np.concatenate(rounds)
    se_mean = r.std() * math.sqrt((1 / N_SEAT + 1 / r.size) / 2)
    _close_to_quote(r.mean(), mean_q, se_mean, 0.005)
    share = np.mean((r >= 10) & (r <= 15))
    _close_to_quote(share, share_q, math.sqrt(share_q * (1 - share_q) *
                                              (1 / N_SEAT + 1 / r.size) / 2), 0.0005)


@pytest.mark.slow
def test_two_players_second_player_rate():
    """The 2-player rate of the second player (400,000 games): fresh seed, the notebook's n.
    Why this n is enough: SE = 0.079 pp, so the check allows 0.45 pp either side."""
    (quoted,) = claim(rf"With 2 players the second player wins {NUM}%")
    n = 4 * N_SEAT
    seat1 = _run(n, FRESH, players=2).summary["win_rate"][1]
    _close_to_quote(seat1, quoted, math.sqrt(0.25 / n), 0.00005)


@pytest.mark.slow
def test_earl_beats_hints():
    """The notebook's tournament cell, fresh seed, its n (2,000 games per lineup, 8,000 per
    cell): a lone earl among three hints agrees with the quote and beats the fair 1/4 by more
    than 4 SE (SE = 0.54 pp)."""
    from vikingsim.studies.tournament import run_tournament

    (quoted,) = claim(rf"A lone `earl` among three `hints` wins \*\*{NUM}%\*\*")
    t = run_tournament("raidconquer", ["hints", "earl"], players=4, n=N_TOUR, seed=FRESH,
                       options={"rotate_characters": True})
    rate = float(t.matrix.loc["earl", "hints"])
    games = 4 * N_TOUR
    _close_to_quote(rate, quoted, math.sqrt(quoted * (1 - quoted) / games), 0.0005)
    assert rate > 0.25 + 4 * math.sqrt(0.25 * 0.75 / games)


@pytest.mark.slow
def test_scoring_cards_in_play_changes_the_winner():
    """Scoring the Treasures still in play (§13.14, the earlier reading) changes no play, so
    the same seed plays the very same games (same lengths) and only some winners differ; their
    share agrees with the quote (fresh seed, the notebook's 40,000 games; SE = 0.15 pp)."""
    (quoted,) = claim(rf"gives another winner in \*\*{NUM}%\*\* of the very same games")
    a = _run(N_READ, FRESH).frame
    b = _run(N_READ, FRESH, score_cards_in_play=True).frame
    assert (a.rounds.to_numpy() == b.rounds.to_numpy()).all()
    changed = np.mean(a.winner.to_numpy() != b.winner.to_numpy())
    _close_to_quote(changed, quoted, math.sqrt(quoted * (1 - quoted) / N_READ), 0.0005)
    assert changed > 0


#: the "Answers by skill" section's full-run games per cell and the study's root seed.
N_SKILL, SKILL_SEED = 600, 2105


@lru_cache(maxsize=1)
def printed() -> str:
    """Everything the committed notebook's code cells printed, whitespace collapsed."""
    import nbformat

    nb = nbformat.read(NB.with_suffix(".ipynb"), as_version=4)
    return " ".join(" ".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                             for o in c.get("outputs", []) if o.get("output_type") == "stream")
                    .split())


def test_by_skill_study_is_the_notebook_s():
    """The notebook's "Answers by skill" reads experiments/raidconquer_by_skill.toml at
    N_SKILL games per cell (full run), whose skill axis is the policy knob, hints first."""
    from vikingsim.studies.spec import load_study

    src = NB.with_suffix(".py").read_text()
    assert f"N_SKILL = 5 if SMALL else {N_SKILL}" in src
    study = load_study(NB.parents[1] / "experiments" / "raidconquer_by_skill.toml")
    assert study.seed == SKILL_SEED and study.common_seeds
    grid = {k: list(v) for k, v in study.grid}
    assert grid["policy"][0] == "hints" and grid["ragnar_base_attack"] == [2, 3]
    assert f"Ragnar +1 Base Attack by skill ({N_SKILL:,} games per cell" in printed()


@pytest.mark.slow
def test_by_skill_scripted_ragnar_rates():
    """The scripted level's Ragnar rates the notebook prints (read from the study's rows,
    character columns) against the runner's own by-character summary of the same games: on
    common seeds a cell plays the plain run's games, so simulate at the study's seed and n
    (hints everywhere, characters rotated) must give the very same rates, at Base Attack 2
    and 3 (an exact check of the notebook's counting, no tolerance but the print's rounding)."""
    r2, r3 = claim_printed(rf"at scripted \(hints\): {NUM}% at Base Attack 2, {NUM}% at 3")
    for quoted, attack in ((r2, 2), (r3, 3)):
        d = _run(N_SKILL, SKILL_SEED, ragnar_base_attack=attack).summary[
            "win_rate_by_character"]["ragnar"]
        assert d["games"] == 0.8 * N_SKILL
        assert round(100 * d["win_rate"], 1) == round(100 * quoted, 1), (attack, d, quoted)


def claim_printed(pattern: str) -> tuple[float, ...]:
    """The numbers a pattern captures in the printed output (as `claim`, percentages as
    fractions)."""
    m = re.search(pattern, printed())
    assert m, f"the notebook no longer prints: {pattern}"
    return tuple(float(g.replace(",", "")) / 100 if m.string[m.end(i):m.end(i) + 1] == "%"
                 else float(g.replace(",", "")) for i, g in enumerate(m.groups(), 1))
