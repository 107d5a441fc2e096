"""What every game's compiled search players share (issue 21 §2; raidboard §10.6, raidconquer
§15, tevragnarok §4.11): the tie-free choice of the best option (which also draws the untried
option an ISMCTS node expands: ``pick_best`` over a 1/0 flag per option), the root's final
score, and the bench line per search player (``vikingsim bench``). The search itself (rollouts, the ISMCTS tree) stays with each
game's forward model, in ``games/<game>/search.py``."""
from __future__ import annotations

import numpy as np

from vikingsim.core.jit import jit


@jit(nrt=False)
def pick_best(scores, opts, n, pol_rng):
    """The option with the highest score among ``opts[:n]``; a tie drawn uniformly on the
    policy stream (one draw, only when tied): no option's code, list position or seat breaks
    it."""
    best, n_best = -1e300, 0
    for j in range(n):
        if scores[j] > best:
            best, n_best = scores[j], 1
        elif scores[j] == best:
            n_best += 1
    pick = int(pol_rng.random() * n_best) if n_best > 1 else 0
    for j in range(n):
        if scores[j] == best:
            if pick == 0:
                return opts[j]
            pick -= 1
    return opts[0]


@jit(inline="always", nrt=False)
def root_score(visits, wins):
    """An ISMCTS root option's final score: the most visited wins; equal visits go to the
    higher mean result (``wins / visits`` lies in [0, 1], so half of it never outweighs one
    visit); still equal, ``pick_best`` draws on the policy stream. With a budget no larger
    than the option count every visited option has one visit, and the mean result (the one
    rollout's) decides, not the draw alone (raidboard §10.6, raidconquer §15.2, tevragnarok
    §4.11)."""
    return visits + 0.5 * wins / visits if visits > 0.0 else 0.0


def timed(fn) -> float:
    """CPU seconds of this thread (the kernels run on it): steadier than the wall clock on a
    shared machine."""
    import time

    t0 = time.thread_time()
    fn()
    return time.thread_time() - t0


def bench_rows(game, search, scripted: str, *, seconds: float, repeats: int, players: int,
               n_start: int, bank_size: int, roll_cap: int | None = None) -> list[dict]:
    """One row per search player of ``search.BENCH_POLICIES`` at its default parameters, in
    one seat among ``scripted`` seats: decisions/s and rollouts/s of whole games (1 thread, CPU
    seconds), and overhead = (search time - rollout time) / rollout time, where search time =
    the games' time less that of the same games with the searching seat on ``scripted``, and
    rollout time = rollouts played x the time of one rollout from the games' own decision
    states (``search._decision_states``, ``bank_size`` of them), timed alone
    (``search._rollout_seconds``, at most ``roll_cap`` rollouts per state). ``search`` is the
    game's search module: ``play_block(setup, g0, g1, dice, pol, out, counts=...)`` and
    ``N_COUNTS`` counters (decisions, rollouts)."""
    import statistics

    from vikingsim.core import config, rng
    from vikingsim.core.options import resolve

    opts = resolve(game.name, game.options, {})
    plain = game.setup(opts, [scripted] * players, players)
    n_counts = getattr(search, "N_COUNTS", 2)
    rows = []
    for name in search.BENCH_POLICIES:
        s = game.setup(opts, [name] + [scripted] * (players - 1), players)

        def play(setup, n, counts):
            out = game.allocate(setup, n)
            d = rng.block_generator(config.SEED, rng.STREAM_DICE, 0)
            p = rng.block_generator(config.SEED, rng.STREAM_POLICY, 0)
            if counts is None:
                return timed(lambda: game.play_block(setup, 0, n, d, p, out))
            return timed(lambda: search.play_block(setup, 0, n, d, p, out, counts=counts))
        n = n_start
        play(s, n, np.zeros(n_counts, np.int64))                 # compile / load
        while play(s, n, np.zeros(n_counts, np.int64)) < seconds / 4 and n < 1 << 24:
            n *= 4
        n = max(n_start, int(n * seconds / max(play(s, n, np.zeros(n_counts, np.int64)),
                                                1e-9)))
        counts = np.zeros(n_counts, np.int64)
        t_all = statistics.median(play(s, n, counts) for _ in range(repeats))
        decisions, rollouts = (int(x) // repeats for x in counts[:2])
        t_plain = statistics.median(play(plain, n, None) for _ in range(repeats))
        bank = search._decision_states(s, bank_size, config.SEED)
        pol = rng.block_generator(config.SEED, rng.STREAM_WARMUP, 7)
        per = max(1, rollouts // max(decisions, 1))
        count = per if roll_cap is None else min(per, roll_cap)
        t_roll = rollouts * statistics.median(search._rollout_seconds(s, bank, count, pol)
                                              for _ in range(repeats))
        rows.append({"game": game.name, "policy": s.policies[0], "players": players,
                     "games": n, "games_per_s": n / t_all, "decisions_per_s": decisions / t_all,
                     "rollouts_per_s": rollouts / t_all, "rollouts_per_decision": per,
                     "search_s": t_all - t_plain, "rollout_s": t_roll,
                     "overhead": (t_all - t_plain - t_roll) / t_roll})
    return rows
