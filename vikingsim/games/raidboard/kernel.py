"""Private compiled kernels of the raid board (style rule 1: arrays in, arrays out, no checks).

Flow: ``_play_block`` → ``_play_game`` (``_reset``, ``_run``) → ``_take_turn`` →
``_resolve_space`` → ``_raid`` / ``_choose_exploration`` / ``_choose_lost``. A search player's
seat (policy kind >= ``SEARCH_KIND_MIN``) does not choose inside the turn: ``_resolve_space``
returns DECIDE, ``_run`` suspends play there, and the forward model (``forward.py``) asks the
search player and finishes the turn with ``_finish_choice`` (the same ``_remove_settlement`` /
``_sail_to`` as the scripted choices). Pure helpers (``_raid_outcome``, ``_advance``,
``_kingdoms``) take dice or state and never a Generator, so tests force any roll.

State of one game (scratch arrays reused by a block's games):
    gold  int64[n_seats]   Gold per seat
    pos   int64[n_seats]   track index of each fleet (0..LAST_SPACE)
    fdir  int64[n_seats]   direction of travel, +1 or -1 (Ends of the Earth, §9)
    miss  bool[n_seats]    must miss the next turn (§7.2)
    owner int64[N_SPACES]  seat owning the settlement on each space, -1 for none
    n_set int64[n_seats]   settlements per seat  } kept in step with ``owner`` by ``_set_owner``
    n_king int64[n_seats]  kingdoms per seat     }
    lost  int64[n_seats]   fleets destroyed (statistic)
Draw order on the dice stream (the reference follows it): income dice (settlements then
kingdoms), move die, then per space: own-territory 1d6 / sea 1d6 / raid 2d6 (+2d6 loss).
"""
from vikingsim.core.jit import jit
from vikingsim.core.rng import _d6
from vikingsim.games.raidboard.policies import (
    FORBID_COL, FORBID_LOST_OPPONENT, FORBID_LOST_OWN, PolicyKind)
from vikingsim.games.raidboard.rules import (
    LAST_SPACE, N_SPACES, TERRITORIES_PER_REGION, Region, RuleSlot, Space)

NO_OWNER = -1
# Outcomes of one raid roll (raidboard §7)
RAID_DESTROYED, RAID_PLUNDER, RAID_CAPTURE = 0, 1, 2
# What a turn or space resolution returns; DECIDE: a search player's seat reached a choice
# (§10.1) and play is suspended for the forward model (forward.py) to ask it
GO_ON, STOP, WON, DECIDE = 0, 1, 2, 3
# End of a game (style rule 6); END_DECIDE: suspended at a search player's choice (``_run``)
END_TERMINATED, END_TRUNCATED, END_DECIDE = 0, 1, 2
#: Policy kinds from this one up are search players: their choices suspend play (DECIDE)
SEARCH_KIND_MIN = PolicyKind.FLATMC
STORM_FACE = 6                             # §6.4: a sea roll of 6 is the Great Storm
# Lookahead's arithmetic (raidboard §7.5): expected plunder per raid roll (232/36), P(destroyed)
# (6/36), P(capture) (10/36); expected d6 and 2d6; P(a sea roll sails on) (§6.4)
_EV_PLUNDER, _P_DESTROYED, _P_CAPTURE = 232.0 / 36.0, 6.0 / 36.0, 10.0 / 36.0
_EV_D6, _EV_2D6, _P_SAIL_ON = 3.5, 7.0, 5.0 / 6.0
_SEED_MERCENARY_RAIDS = 2.0                # §6.7 SEED: Lookahead values Foreign Service at two


@jit(inline="always", nrt=False)
def _raid_outcome(roll, can_capture, fail_max, capture_min):
    """Classify a 2d6 raid roll (raidboard §7). Pure: no RNG, no state."""
    if roll <= fail_max:
        return RAID_DESTROYED                  # §7.2
    if can_capture and roll >= capture_min:
        return RAID_CAPTURE                    # §7.4: plunder and take the territory
    return RAID_PLUNDER                        # §7.3


@jit(inline="always", nrt=False)
def _advance(pos, fdir, steps, ends_of_earth):
    """Move ``steps`` spaces; returns (pos, fdir). Circular wraps LAST_SPACE→0 (§5.3); Ends of
    the Earth turns round at 0 and LAST_SPACE, visiting the end space once (§9.2)."""
    if not ends_of_earth:
        return (pos + steps) % N_SPACES, fdir
    for _ in range(steps):
        nxt = pos + fdir
        if nxt < 0 or nxt > LAST_SPACE:
            fdir = -fdir
            nxt = pos + fdir
        pos = nxt
    return pos, fdir


@jit(inline="always", nrt=False)
def _is_kingdom(owner, region_spaces, region, seat):
    """Seat holds all three territories of ``region`` (§3.4)."""
    for k in range(TERRITORIES_PER_REGION):
        if owner[region_spaces[region, k]] != seat:
            return False
    return True


@jit(nrt=False)
def _kingdoms(owner, region_spaces, seat):
    """Number of kingdoms held by ``seat``; East (§3.3) never counts."""
    n = 0
    for reg in range(Region.EAST):
        if _is_kingdom(owner, region_spaces, reg, seat):
            n += 1
    return n


@jit(nrt=False)
def _settlements(owner, seat):
    n = 0
    for i in range(N_SPACES):
        if owner[i] == seat:
            n += 1
    return n


@jit(inline="always", nrt=False)
def _has_marker(ri, n_set, seat):
    """A settlement marker left in supply (§2.2: 0 = unlimited)."""
    supply = ri[RuleSlot.SETTLEMENT_SUPPLY]
    return supply == 0 or n_set[seat] < supply


@jit(inline="always", nrt=False)
def _set_owner(owner, n_set, n_king, region, region_spaces, space, seat):
    """Put ``seat``'s settlement on ``space`` (or remove it: seat = -1), keeping the per-seat
    settlement and kingdom counts (§3.4) in step with ``owner``."""
    old = owner[space]
    reg = region[space]
    if old != NO_OWNER:
        if reg < Region.EAST and _is_kingdom(owner, region_spaces, reg, old):
            n_king[old] -= 1
        n_set[old] -= 1
    owner[space] = seat
    if seat != NO_OWNER:
        n_set[seat] += 1
        if reg < Region.EAST and _is_kingdom(owner, region_spaces, reg, seat):
            n_king[seat] += 1


@jit(nrt=False)
def _in_kingdom(owner, region, region_spaces, space):
    reg = region[space]
    if reg >= Region.EAST:
        return False
    return _is_kingdom(owner, region_spaces, reg, owner[space])


@jit(nrt=False)
def _landing_value(ri, kind, region, owner, seat, space, settle_value, miss_cost):
    """Lookahead policy: rough expected Gold of landing on ``space`` (raidboard §6, §7.5)."""
    k = kind[space]
    raid = _EV_PLUNDER - _P_DESTROYED * (_EV_2D6 + miss_cost)
    if k == Space.TERRITORY:
        if owner[space] == seat:
            return _EV_D6                                 # §6.2
        if region[space] == Region.NORTH and owner[space] == NO_OWNER:
            return settle_value                           # §6.3
        if region[space] == Region.NORTH and not ri[RuleSlot.NORTH_OPPONENT_RAIDABLE]:
            return 0.0
        return raid + _P_CAPTURE * settle_value           # §6.1, §7.4
    if k == Space.RAID_ONLY:
        return raid
    if k == Space.MERCENARY:
        return _SEED_MERCENARY_RAIDS * raid
    if k == Space.SEA or k == Space.EXPLORATION:
        return _P_SAIL_ON * raid
    return 0.0


@jit(nrt=False)
def _choose_exploration(ri, kind, region, seas, owner, pos, fdir, seat, pkind, params, pol_rng):
    """Exploration target (§6.5): a sea space index, by policy (§10.2, §10.4), among the seas
    the seat is not forbidden (§10.5: flag ``params[FORBID_COL + j]`` for ``seas[j]``)."""
    if pkind == PolicyKind.RANDOM:
        n_ok = 0
        for j in range(seas.shape[0]):
            n_ok += params[FORBID_COL + j] == 0.0
        pick = int(pol_rng.random() * n_ok)
        for j in range(seas.shape[0]):
            if params[FORBID_COL + j] == 0.0:
                if pick == 0:
                    return seas[j]
                pick -= 1
    if pkind == PolicyKind.LOOKAHEAD:
        best, best_v = seas[0], -1e300
        for j in range(seas.shape[0]):
            if params[FORBID_COL + j] != 0.0:
                continue
            q = seas[j]
            v = 0.0
            for roll in range(1, STORM_FACE):             # §6.4: 1-5 sail on, 6 stays put
                land, _ = _advance(q, fdir, roll, ri[RuleSlot.ENDS_OF_EARTH])
                v += _landing_value(ri, kind, region, owner, seat, land, params[0], params[1])
            if v > best_v:
                best, best_v = q, v
        return best
    # GREEDY §10.2: first sea space ahead in the direction of travel (not forbidden, §10.5)
    p, d = pos, fdir
    for _ in range(2 * N_SPACES):
        p, d = _advance(p, d, 1, ri[RuleSlot.ENDS_OF_EARTH])
        if kind[p] == Space.SEA and not _sea_forbidden(seas, params, p):
            return p
    return seas[0]


@jit(inline="always", nrt=False)
def _sea_forbidden(seas, params, space):
    """§10.5: the seat may not sail to sea ``space`` from Exploration."""
    for j in range(seas.shape[0]):
        if seas[j] == space:
            return params[FORBID_COL + j] != 0.0
    return False


@jit(inline="always", nrt=False)
def _lost_allowed(n_set, seat, params):
    """§10.5: (may remove an opponent's, may remove its own) settlement on Lost. A forbid that
    would leave no settlement on the board to choose is lifted: the removal is the rule."""
    n_own = n_set[seat]
    n_opp = 0
    for s in range(n_set.shape[0]):
        if s != seat:
            n_opp += n_set[s]
    opp = params[FORBID_LOST_OPPONENT] == 0.0
    own = params[FORBID_LOST_OWN] == 0.0
    if (opp and n_opp > 0) or (own and n_own > 0):
        return opp, own
    return True, True


@jit(nrt=False)
def _choose_lost(owner, n_set, n_king, gold, region, region_spaces, seat, pkind, params, pol_rng):
    """Lost target (§6.8): the space whose settlement is removed, or -1 if none on the board;
    never one of a kind the seat is forbidden (§10.5, ``_lost_allowed``)."""
    n_on_board = _on_board(n_set)
    if n_on_board == 0:
        return -1                                          # §10.3.3
    opp_ok, own_ok = _lost_allowed(n_set, seat, params)
    if pkind == PolicyKind.RANDOM:
        n_ok = (n_on_board - n_set[seat]) * opp_ok + n_set[seat] * own_ok
        pick = int(pol_rng.random() * n_ok)
        for i in range(N_SPACES):
            if owner[i] != NO_OWNER and (own_ok if owner[i] == seat else opp_ok):
                if pick == 0:
                    return i
                pick -= 1
    n_seats = gold.shape[0]
    # §10.3.1 target opponent: richest (GREEDY) or most threatening (LOOKAHEAD); ties go to
    # the first clockwise from the acting seat (the next seat in turn order)
    target, best = -1, -1e300
    for i in range(1, n_seats):
        s = seat + i - (n_seats if seat + i >= n_seats else 0)
        if n_set[s] == 0 or not opp_ok:
            continue
        score = float(gold[s])
        if pkind == PolicyKind.LOOKAHEAD:
            score += _EV_D6 * n_set[s] + _EV_2D6 * n_king[s]
        if score > best:
            target, best = s, score
    if target >= 0:
        first_any, first_king, first_pair = -1, -1, -1
        for i in range(N_SPACES):
            if owner[i] != target:
                continue
            if first_any < 0:
                first_any = i
            if first_king < 0 and _in_kingdom(owner, region, region_spaces, i):
                first_king = i
            if first_pair < 0 and region[i] < Region.EAST:
                held = 0
                for k in range(TERRITORIES_PER_REGION):
                    if owner[region_spaces[region[i], k]] == target:
                        held += 1
                if held == TERRITORIES_PER_REGION - 1:        # one short of a kingdom
                    first_pair = i
        if first_king >= 0:
            return first_king
        if pkind == PolicyKind.LOOKAHEAD and first_pair >= 0:
            return first_pair
        return first_any
    # §10.3.2: only own settlements: prefer one outside a kingdom, then lowest index
    first_any = -1
    for i in range(N_SPACES):
        if owner[i] == seat:
            if not _in_kingdom(owner, region, region_spaces, i):
                return i
            if first_any < 0:
                first_any = i
    return first_any


@jit(inline="always", nrt=False)
def _on_board(n_set):
    """Settlements on the board, all seats together."""
    n = 0
    for s in range(n_set.shape[0]):
        n += n_set[s]
    return n


@jit(inline="always", nrt=False)
def _remove_settlement(owner, n_set, n_king, region, region_spaces, target):
    """§6.8: the chosen settlement leaves the board (target -1: none on the board, §10.3.3)."""
    if target >= 0:
        _set_owner(owner, n_set, n_king, region, region_spaces, target, NO_OWNER)


@jit(inline="always", nrt=False)
def _sail_to(ri, pos, seat, sea):
    """§6.5: the fleet moves to the chosen sea; True when that sea is then resolved (its die)."""
    pos[seat] = sea
    return ri[RuleSlot.EXPLORATION_RESOLVES_SEA] != 0


@jit(inline="always", nrt=False)
def _raid(ri, region, region_spaces, can_capture, space, seat, gold, pos, fdir, miss, owner,
          n_set, n_king, lost, dice_rng):
    """One raid roll (§7) on ``space``; returns GO_ON, STOP (fleet destroyed) or WON."""
    roll = _d6(dice_rng) + _d6(dice_rng)
    outcome = _raid_outcome(roll, can_capture, ri[RuleSlot.RAID_FAIL_MAX],
                            ri[RuleSlot.RAID_CAPTURE_MIN])
    if outcome == RAID_DESTROYED:                          # §7.2
        loss = _d6(dice_rng) + _d6(dice_rng)
        gold[seat] = max(ri[RuleSlot.GOLD_FLOOR], gold[seat] - loss)
        pos[seat] = 0
        fdir[seat] = 1                                     # §9.2: sent back facing forward
        miss[seat] = True
        lost[seat] += 1
        return STOP
    gold[seat] += roll                                     # §7.3 plunder
    if outcome == RAID_CAPTURE and _has_marker(ri, n_set, seat):
        # §7.4 capture (replaces an opponent's settlement)
        _set_owner(owner, n_set, n_king, region, region_spaces, space, seat)
    if gold[seat] >= ri[RuleSlot.TARGET_GOLD]:             # §8.1 win check after every gain
        return WON
    return GO_ON


@jit(inline="always", nrt=False)
def _resolve_space(ri, kind, region, seas, region_spaces, seat, pkind, params,
                   gold, pos, fdir, miss, owner, n_set, n_king, lost, dice_rng, pol_rng):
    """Resolve the space the fleet stands on and every space it is moved on to (§5.4, §6).
    Returns STOP or WON."""
    while True:
        space = pos[seat]
        k = kind[space]
        if k == Space.TERRITORY:
            holder = owner[space]
            if holder == seat:                             # §6.2 own settlement: 1d6
                gold[seat] += _d6(dice_rng)
                return WON if gold[seat] >= ri[RuleSlot.TARGET_GOLD] else STOP
            if region[space] == Region.NORTH:
                if holder == NO_OWNER:                     # §6.3 settle, no roll
                    if _has_marker(ri, n_set, seat):
                        _set_owner(owner, n_set, n_king, region, region_spaces, space, seat)
                    return STOP
                if not ri[RuleSlot.NORTH_OPPONENT_RAIDABLE]:   # §12.1 alternative reading
                    return STOP
            r = _raid(ri, region, region_spaces, True, space, seat, gold, pos, fdir, miss, owner,
                      n_set, n_king, lost, dice_rng)
            return WON if r == WON else STOP               # §6.1
        if k == Space.RAID_ONLY:                           # §6.6
            r = _raid(ri, region, region_spaces, False, space, seat, gold, pos, fdir, miss,
                      owner, n_set, n_king, lost, dice_rng)
            return WON if r == WON else STOP
        if k == Space.MERCENARY:                           # §6.7: mercenary_raids, no capture
            for _ in range(ri[RuleSlot.MERCENARY_RAIDS]):
                r = _raid(ri, region, region_spaces, False, space, seat, gold, pos, fdir, miss,
                          owner, n_set, n_king, lost, dice_rng)
                if r == WON:
                    return WON
                if r == STOP and ri[RuleSlot.MERCENARY_STOPS_ON_DESTRUCTION]:
                    return STOP
            return STOP
        if k == Space.LOST:                                # §6.8
            if pkind >= SEARCH_KIND_MIN and _on_board(n_set) > 0:
                return DECIDE                              # forward.py asks the search player
            _remove_settlement(owner, n_set, n_king, region, region_spaces,
                               _choose_lost(owner, n_set, n_king, gold, region, region_spaces,
                                            seat, pkind, params, pol_rng))
            return STOP
        if k == Space.EXPLORATION:                         # §6.5: to any sea, then its roll
            if pkind >= SEARCH_KIND_MIN:
                return DECIDE                              # forward.py asks the search player
            if not _sail_to(ri, pos, seat, _choose_exploration(ri, kind, region, seas, owner,
                                                               pos[seat], fdir[seat], seat,
                                                               pkind, params, pol_rng)):
                return STOP
            continue
        if k == Space.SEA:                                 # §6.4
            roll = _d6(dice_rng)
            if roll == STORM_FACE:
                return STOP                                # Great Storm
            pos[seat], fdir[seat] = _advance(pos[seat], fdir[seat], roll,
                                             ri[RuleSlot.ENDS_OF_EARTH])
            if not ri[RuleSlot.SEA_RESOLVES_NEW_SPACE]:
                return STOP
            continue
        return STOP                                        # §6.9 start: no effect


@jit(inline="always", nrt=False)
def _take_turn(ri, kind, region, seas, region_spaces, seat, pkind, params,
               gold, pos, fdir, miss, owner, n_set, n_king, lost, dice_rng, pol_rng):
    """One turn (§5): missed turn, income, move, resolve. Returns STOP or WON."""
    if miss[seat]:                                         # §5.1
        miss[seat] = False
        if ri[RuleSlot.MISS_TURN_SKIPS_INCOME]:
            return STOP
        skip_move = True
    else:
        skip_move = False
    n_dice = (n_set[seat] * ri[RuleSlot.INCOME_DICE_PER_SETTLEMENT]
              + n_king[seat] * ri[RuleSlot.INCOME_DICE_PER_KINGDOM])
    if n_dice > 0:                                         # §5.2 income
        for _ in range(n_dice):
            gold[seat] += _d6(dice_rng)
        if gold[seat] >= ri[RuleSlot.TARGET_GOLD]:
            return WON
    if skip_move:
        return STOP
    pos[seat], fdir[seat] = _advance(pos[seat], fdir[seat], _d6(dice_rng),
                                     ri[RuleSlot.ENDS_OF_EARTH])
    return _resolve_space(ri, kind, region, seas, region_spaces, seat, pkind, params,
                          gold, pos, fdir, miss, owner, n_set, n_king, lost, dice_rng, pol_rng)


@jit(inline="always", nrt=False)
def _start_gold(ri, seat, n_seats):
    """Gold of ``seat`` at setup: start_gold (§4.1) plus its turn position (0 for first_seat,
    then clockwise) times seat_gold_step (§4.4): a seat number means nothing else."""
    k = seat - ri[RuleSlot.FIRST_SEAT]
    return ri[RuleSlot.START_GOLD] + (k + n_seats if k < 0 else k) * ri[RuleSlot.SEAT_GOLD_STEP]


@jit(inline="always", nrt=False)
def _reset(ri, gold, pos, fdir, miss, owner, n_set, n_king, lost):
    """Setup (§4.1, §4.4): every state field."""
    n_seats = gold.shape[0]
    for s in range(n_seats):
        gold[s] = _start_gold(ri, s, n_seats)
        pos[s] = 0
        fdir[s] = 1
        miss[s] = False
        lost[s] = 0
        n_set[s] = 0
        n_king[s] = 0
    owner[:] = NO_OWNER


@jit(inline="always", nrt=False)
def _run(ri, kind, region, seas, region_spaces, kinds, params,
         gold, pos, fdir, miss, owner, n_set, n_king, lost, round0, turn0, dice_rng, pol_rng):
    """Play on from turn ``turn0`` (its index in turn order) of round ``round0`` (0-based) until
    the game ends or a search player's seat must choose. Returns (END_TERMINATED, winner,
    rounds, turn), (END_TRUNCATED, -1, max_rounds, 0) or (END_DECIDE, seat, round, turn): the
    clock of the suspended turn, which ``forward.apply`` finishes."""
    n_seats = gold.shape[0]
    first = ri[RuleSlot.FIRST_SEAT] % n_seats
    i0 = turn0
    for n_round in range(round0, ri[RuleSlot.MAX_ROUNDS]):
        for i in range(i0, n_seats):
            seat = (first + i) % n_seats                   # §4.2 seat order
            r = _take_turn(ri, kind, region, seas, region_spaces, seat, kinds[seat],
                           params[seat], gold, pos, fdir, miss, owner, n_set, n_king, lost,
                           dice_rng, pol_rng)
            if r == WON:
                return END_TERMINATED, seat, n_round + 1, i     # §8.1 stops at once
            if r == DECIDE:
                return END_DECIDE, seat, n_round, i
        i0 = 0
    return END_TRUNCATED, -1, ri[RuleSlot.MAX_ROUNDS], 0   # §8.3 a cap, not a result


@jit(inline="always", nrt=False)
def _finish_choice(ri, kind, region, seas, region_spaces, seat, pkind, params, option,
                   gold, pos, fdir, miss, owner, n_set, n_king, lost, dice_rng, pol_rng):
    """Carry out a search player's ``option`` at the choice its fleet stands on (Lost §6.8:
    the space whose settlement goes; Exploration §6.5: the sea) and the rest of its turn, as
    ``_resolve_space`` does for the scripted policies. Returns STOP, WON or DECIDE."""
    if kind[pos[seat]] == Space.LOST:
        _remove_settlement(owner, n_set, n_king, region, region_spaces, option)
        return STOP
    if not _sail_to(ri, pos, seat, option):
        return STOP
    return _resolve_space(ri, kind, region, seas, region_spaces, seat, pkind, params,
                          gold, pos, fdir, miss, owner, n_set, n_king, lost, dice_rng, pol_rng)


@jit(inline="always", nrt=False)
def _play_game(ri, kind, region, seas, region_spaces, kinds, params,
               gold, pos, fdir, miss, owner, n_set, n_king, lost, dice_rng, pol_rng):
    """Play one game of scripted policies from setup to its end; returns (End, winner seat or
    -1, rounds). (Search players' games: ``search._play_block``.)"""
    _reset(ri, gold, pos, fdir, miss, owner, n_set, n_king, lost)
    end, win, n_rounds, _ = _run(ri, kind, region, seas, region_spaces, kinds, params, gold,
                                 pos, fdir, miss, owner, n_set, n_king, lost, 0, 0, dice_rng,
                                 pol_rng)
    return end, win, n_rounds


@jit(nrt=False)
def _play_block(ri, kind, region, seas, region_spaces, kinds, params, g0, g1, dice_rng,
                pol_rng, gold, pos, fdir, miss, owner, n_set, n_king, lost,
                winner, rounds, truncated, gold_out, settle_out, kingdom_out, lost_out):
    """Play games g0..g1 into rows g0..g1 of the outputs (this block's streams only).
    ``gold`` .. ``lost`` are this block's scratch state (see the module docstring)."""
    n_seats = kinds.shape[0]
    for g in range(g0, g1):
        end, win, n_rounds = _play_game(ri, kind, region, seas, region_spaces, kinds, params,
                                        gold, pos, fdir, miss, owner, n_set, n_king, lost,
                                        dice_rng, pol_rng)
        winner[g] = win
        rounds[g] = n_rounds
        truncated[g] = end == END_TRUNCATED
        for s in range(n_seats):
            gold_out[g, s] = gold[s]
            settle_out[g, s] = n_set[s]
            kingdom_out[g, s] = n_king[s]
            lost_out[g, s] = lost[s]
