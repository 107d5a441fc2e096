"""Private compiled kernel of Raid & Conquer (style rule 1: arrays in, arrays out, no checks).

Flow: ``_play_block`` -> ``_play_game`` -> ``_setup``, then per round ``_play_round``
(``_draw_phase``, ``_plan`` for the Secret Plan, ``_main_turn`` with ``_keep_back``,
``_choose_alt``/``_use_alt`` and ``_buy_step``, ``_action_phase``: ``_defend``,
``_attacks``, ``_raid_party`` / ``_chaotic_raid``, ``_lone_raid``), ``_game_over`` and
``_cleanup``; then ``_winner``, ``_score`` and ``_census`` fill the outputs. Every function
allocates nothing (``nrt=False``); the block's scratch arrays are passed in. The dice stream
draws every shuffle (setup, reshuffles, Ritual Sacrifice), the policy stream every
random-policy choice, in the order of the notes' Simulation protocol (§14); ``reference.py``
follows the same protocol.

State of one game (reused by a block's games; P seats, CAP = cards in the game):
    pp    int16[P, 6, CAP]  per-seat piles DECK, DISC, HAND, PLAY, RAID, BURY (top = last)
    pn    int64[P, 6]       their sizes
    fl    int8[P, CAP]      flag of each PLAY card (NORMAL, USED, SACRIFICED, BURIED, TAKEN)
    ps    int64[P, NPS]     per-seat scalars (``PS_*``)
    sh    int16[3, CAP]     Viking deck, Treasure pile, Raid deck (top = last); shn int64[3]
    tmp   int16[CAP]        setup scratch (one Raid level)
    rows  int64[2, 5]       Viking Row and Raid Row (-1 = empty slot)
    supply, box int64[K]    Village/basic piles by card id; Raid cards left in the box
    gs    int64[4]          FIRST seat, EARL_SIDE, FAILED raids, ROUND
    s1, s2 int64[CAP]       scratch (sort order, selection)
    fb    bool[P, K]        cards each seat's policy never buys or gains, never takes by raid,
                            acquire or Pillage, never Loots, never gains from the Treasure
                            pile or buries, never sends off in a Chaotic Raid (``forbid``, §12.4)
    ec    uint16[5, P, K]   the game's per-card counters (``EC_*``, §14.6): its row of ``cards``;
                            row ``EC_PLANS`` counts Secret Plans by action in slots 0-3
Policy functions read only the acting seat's own piles and public state (§2.2, §14.4).

Compile time (issue 19 §4; docs/benchmarks.md "Compile time, second pass"): numba compiles
each non-inlined function apart and then optimizes and emits the whole subtree it calls again,
so the single-site links of the chain (``_play_game``, ``_play_round``, ``_main_and_action``)
are numba-inlined and the kernel is emitted once, in ``_play_block``; the bigger bodies
(``_main_turn``, ``_action_phase``) stay real calls (inlining them retypes them inside the
block: slower to compile). ``internal=True`` on functions only compiled code calls (no CPython
or C wrapper to build); the ones tests call from Python keep theirs. ``_record`` is not
inlined: numba cannot inline a call of more than 30 arguments (Python passes them as a tuple).
"""
from vikingsim.core.cards import NO_CARD, _draw, _shuffle
from vikingsim.core.jit import jit
from vikingsim.games.raidconquer.catalog import Ability, Persist, Pile
from vikingsim.games.raidconquer.policies import Param, Plan, PolicyKind
from vikingsim.games.raidconquer.rules import Col, N_CHARACTERS, ROW_SIZE, RuleSlot

# piles of a seat
DECK, DISC, HAND, PLAY, RAIDP, BURY = 0, 1, 2, 3, 4, 5
N_PILES = 6
# shared piles
VDECK, TREAS, RDECK = 0, 1, 2
VROW, RROW = 0, 1
# flags of a card in play
NORMAL, USED, SACRIFICED, BURIED, TAKEN = 0, 1, 2, 3, 4
KEEP = 5                    # ``_keep_back``'s mark on a hand card (before anything is played)
# actions
DEFEND, ATTACK, PARTY, LONE = 0, 1, 2, 3
EMPTY = -1
RANDOM_MAX_BUYS = 5
# per-seat scalars
(PS_CHAR, PS_ACTION, PS_TARGET, PS_BONUS_POWER, PS_BONUS_SILVER, PS_LAST_EARL, PS_EARLS,
 PS_WON, PS_ACQUIRED, PS_PILLAGED, PS_LOST, PS_SILVER_AVAIL, PS_SILVER_SPENT, PS_POWER,
 PS_INFL, PS_DEF, PS_BOATS, PS_APOWER) = range(18)
N_PS = 18
GS_FIRST, GS_EARL_SIDE, GS_FAILED, GS_ROUND = 0, 1, 2, 3
N_GS = 4
# per-card counters of a game (``ec`` and the ``cards`` output, §14.6): copies bought, round
# of the first buy (0 = none), copies played, copies held at the end; Secret Plans taken,
# by action (slot DEFEND..LONE of the card axis; the other slots stay 0)
EC_BOUGHT, EC_FIRST, EC_PLAYED, EC_FINAL, EC_PLANS = 0, 1, 2, 3, 4
N_EC = 5
# Raid Row start by player count (rules.ROW_START) and top level (rules.TOP_LEVEL), as rows
_ROW_START = ((0, 0, 0, 0, 0), (0, 0, 0, 0, 0), (3, 2, 0, 0, 0), (2, 2, 1, 0, 0),
              (1, 2, 1, 1, 0), (1, 1, 1, 1, 1))


@jit(inline="always", nrt=False)
def _is_viking(card, k):                                  # §11.1: Warriors are Vikings
    p = card[Col.PILE, k]
    return p == Pile.VIKING or p == Pile.WARRIORS


@jit(inline="always", nrt=False)
def _in_supply(card, k):
    p = card[Col.PILE, k]
    return p == Pile.COIN or p == Pile.WARRIORS or p == Pile.HACKSILVER or p == Pile.LONGBOAT


@jit(inline="always", nrt=False)
def _turn_seat(first, i, n_seats):
    """(first + i) % n_seats for 0 <= first, i < n_seats, without a division."""
    q = first + i
    return q - n_seats if q >= n_seats else q


@jit(inline="always", nrt=False)
def _push(pp, pn, s, pile, k):
    pp[s, pile, pn[s, pile]] = k
    pn[s, pile] += 1


@jit(inline="always", nrt=False)
def _remove_at(arr, n, j):
    """Remove arr[j] keeping order; returns the card. Caller decrements n."""
    k = arr[j]
    for i in range(j, n - 1):
        arr[i] = arr[i + 1]
    return k


@jit(inline="always", nrt=False)
def _insert_bottom(arr, n, k):
    """Put k under the pile (index 0); caller increments n."""
    for i in range(n, 0, -1):
        arr[i] = arr[i - 1]
    arr[0] = k


@jit(inline="always", nrt=False)
def _remove_play(pp, pn, fl, s, j):
    """Remove play card j with its flag (order kept); returns the card."""
    n = pn[s, PLAY]
    k = pp[s, PLAY, j]
    for i in range(j, n - 1):
        pp[s, PLAY, i] = pp[s, PLAY, i + 1]
        fl[s, i] = fl[s, i + 1]
    pn[s, PLAY] = n - 1
    return k


@jit(inline="always", nrt=False)
def _draw_one(pp, pn, s, dice):
    """§3.3: top of the deck, reshuffling the discard first when the deck is empty."""
    k, nd, nx = _draw(pp[s, DECK], pn[s, DECK], pp[s, DISC], pn[s, DISC], dice)
    pn[s, DECK] = nd
    pn[s, DISC] = nx
    return k


@jit(inline="always", nrt=False)
def _draw_to(pp, pn, fl, s, pile, count, dice):
    """Draw ``count`` cards into the hand or (``+N cards``, §7.2) into play."""
    for _ in range(count):
        k = _draw_one(pp, pn, s, dice)
        if k == NO_CARD:
            return
        if pile == PLAY:
            fl[s, pn[s, PLAY]] = NORMAL
        _push(pp, pn, s, pile, k)


@jit(inline="always", nrt=False)
def _gain_treasure(sh, shn, pp, pn, s, fb):
    """§8: gain the top Treasure (an empty pile gives nothing, §2.1); the seat's forbidden
    Treasures (``fb``, §12.4) are passed over: it gains the topmost copy it does not forbid,
    the others keep their order (none left: nothing)."""
    j = shn[TREAS] - 1
    while j >= 0 and fb[sh[TREAS, j]]:
        j -= 1
    if j >= 0:
        k = _remove_at(sh[TREAS], shn[TREAS], j)
        shn[TREAS] -= 1
        _push(pp, pn, s, DISC, k)


@jit(inline="always", nrt=False)
def _raid_count(card, pp, pn, s):
    n = 0
    for i in range(pn[s, RAIDP]):
        if card[Col.PILE, pp[s, RAIDP, i]] == Pile.RAID:
            n += 1
    return n


@jit(inline="always", nrt=False)
def _refill_raid_slot(sh, shn, rows, j):
    if shn[RDECK] > 0:
        shn[RDECK] -= 1
        rows[RROW, j] = sh[RDECK, shn[RDECK]]
    else:
        rows[RROW, j] = EMPTY


# ---------------------------------------------------------------- setup (§4, §14.2)
@jit(nrt=False)
def _setup(ri, card, n_seats, g, pp, pn, fl, ps, sh, shn, tmp, rows, supply, box, gs, dice):
    n_kinds = card.shape[1]
    for s in range(n_seats):
        for p in range(N_PILES):
            pn[s, p] = 0
        for q in range(ps.shape[1]):
            ps[s, q] = 0
        ps[s, PS_LAST_EARL] = -1
        ps[s, PS_TARGET] = -1
    shift = ri[RuleSlot.CHARACTER_OFFSET] + (g if ri[RuleSlot.ROTATE_CHARACTERS] else 0)
    holder = -1
    for s in range(n_seats):
        ps[s, PS_CHAR] = (s + shift) % N_CHARACTERS
        if ps[s, PS_CHAR] == ri[RuleSlot.START_CARD_CHAR]:
            holder = s
    extra = ri[RuleSlot.START_CARD] if holder >= 0 else -1     # §12.3 variant
    for k in range(n_kinds):
        supply[k] = card[Col.COPIES, k] - (1 if k == extra else 0) if _in_supply(card, k) else 0
        box[k] = 0
    n = 0
    for k in range(n_kinds):                               # step 1: Viking deck and row
        pk = card[Col.PILE, k]
        if pk == Pile.VIKING or pk == Pile.EVENT:
            for _ in range(card[Col.COPIES, k] - (1 if k == extra else 0)):
                sh[VDECK, n] = k
                n += 1
    _shuffle(sh[VDECK], n, dice)
    for j in range(ROW_SIZE):
        if n > 0:
            n -= 1
            rows[VROW, j] = sh[VDECK, n]
        else:
            rows[VROW, j] = EMPTY
    shn[VDECK] = n
    n = 0
    for k in range(n_kinds):                               # step 2: Treasure pile
        if card[Col.PILE, k] == Pile.TREASURE:
            for _ in range(card[Col.COPIES, k] - (1 if k == extra else 0)):
                sh[TREAS, n] = k
                n += 1
    _shuffle(sh[TREAS], n, dice)
    shn[TREAS] = n
    slot, nr = 0, 0
    top = n_seats if n_seats <= 5 else 5                   # rules.TOP_LEVEL: level = players
    for lv in range(1, 6):                                 # step 3: Raid levels (§4.3)
        m = 0
        for k in range(n_kinds):
            if card[Col.PILE, k] == Pile.RAID and card[Col.LEVEL, k] == lv:
                for _ in range(card[Col.COPIES, k]):
                    tmp[m] = k
                    m += 1
        if lv > top:
            for i in range(m):
                box[tmp[i]] += 1
            continue
        _shuffle(tmp, m, dice)
        for _ in range(_ROW_START[n_seats][lv - 1]):
            m -= 1
            rows[RROW, slot] = tmp[m]
            slot += 1
        for i in range(m):
            sh[RDECK, nr] = tmp[i]
            nr += 1
    _shuffle(sh[RDECK], nr, dice)                          # step 4
    shn[RDECK] = nr
    coin, boat = ri[RuleSlot.COIN], ri[RuleSlot.LONGBOAT]
    for s in range(n_seats):                               # step 5: starting decks (§4.6)
        for _ in range(ri[RuleSlot.START_COINS]):
            _push(pp, pn, s, DECK, coin)
        for _ in range(ri[RuleSlot.START_LONGBOATS]):
            _push(pp, pn, s, DECK, boat)
        if s == holder:
            _push(pp, pn, s, DECK, extra)
        supply[coin] -= ri[RuleSlot.START_COINS]
        supply[boat] -= ri[RuleSlot.START_LONGBOATS]
        _shuffle(pp[s, DECK], pn[s, DECK], dice)
        _draw_to(pp, pn, fl, s, HAND, ri[RuleSlot.HAND_SIZE], dice)
    gs[GS_FIRST] = ri[RuleSlot.FIRST_SEAT]
    gs[GS_EARL_SIDE] = 0
    gs[GS_FAILED] = 0
    gs[GS_ROUND] = 0


# ---------------------------------------------------------------- statistics (§3.1, §11.1)
@jit(inline="always", nrt=False)
def _stats(ri, card, cards, flags, n, use_flags):
    """(Power, Influence, card Defense, counted Longboats, Power when attacking, §11.3) of
    cards[:n] (sacrificed ones left out when ``use_flags``); bonus Power and the shield are
    added by the callers. Both Powers in one pass: one inlined copy fewer."""
    vikings, boats = 0, 0
    for i in range(n):
        if use_flags and flags[i] == SACRIFICED:
            continue
        k = cards[i]
        if _is_viking(card, k):
            vikings += 1
        if card[Col.PILE, k] == Pile.LONGBOAT:
            boats += 1
    power, infl, dfn, counted, apower = 0, 0, 0, 0, 0
    for i in range(n):
        f = flags[i] if use_flags else NORMAL
        if f == SACRIFICED:
            continue
        k = cards[i]
        p = card[Col.POWER, k]
        ac = card[Col.ATTACK_CHAR, k]
        power += p
        if ac >= 0:                                        # §11.3 Attack Character
            apower += ac if ri[RuleSlot.ATTACK_CHAR_REPLACES] else p + ac
        else:
            apower += p
        infl += card[Col.INFLUENCE, k]
        dfn += card[Col.DEFENSE, k]
        own_v = 1 if _is_viking(card, k) else 0
        is_boat = card[Col.PILE, k] == Pile.LONGBOAT
        own_b = 1 if is_boat else 0
        bits = card[Col.PERSIST, k]
        if bits & Persist.BATTLE_FRENZY:
            power += vikings - own_v
            apower += vikings - own_v
        if bits & Persist.LEADERSHIP:
            infl += vikings - own_v
        if bits & Persist.BATTLE_SHIP:
            power += boats - own_b
            apower += boats - own_b
        if bits & Persist.COMMAND_SHIP:
            infl += boats - own_b
        if is_boat and (f != TAKEN or ri[RuleSlot.SHIPBUILD_COUNTS]):
            counted += 1
    return power, infl, dfn, counted, apower


@jit(inline="always", nrt=False)
def _update_stats(ri, card, base_att, pp, pn, fl, ps, s):
    """Cache the seat's Action-phase statistics in ``ps`` (Power includes bonus and shield)."""
    power, infl, dfn, boats, ap = _stats(ri, card, pp[s, PLAY], fl[s], pn[s, PLAY], True)
    ps[s, PS_POWER] = power + ps[s, PS_BONUS_POWER] + base_att[ps[s, PS_CHAR]]
    ps[s, PS_INFL] = infl
    ps[s, PS_DEF] = dfn
    ps[s, PS_BOATS] = boats
    if ps[s, PS_ACTION] == ATTACK:
        ps[s, PS_APOWER] = ap + ps[s, PS_BONUS_POWER] + base_att[ps[s, PS_CHAR]]


@jit(inline="always", nrt=False)
def _row_low(card, rows):
    low = -1
    for j in range(ROW_SIZE):
        k = rows[RROW, j]
        if k != EMPTY and (low < 0 or card[Col.DEFENSE, k] < low):
            low = card[Col.DEFENSE, k]
    return low


# ---------------------------------------------------------------- Secret Plan (§6.2, §12.4)
@jit(inline="always", nrt=False)
def _most_raids(card, pp, pn, s, n_seats):
    """Policy (§12.4): (the opponent of seat s with the most Raid cards, their count); ties
    go to the first clockwise from s (the next seat in turn order), never to a seat number."""
    most, most_r = -1, -1
    for i in range(1, n_seats):
        q = _turn_seat(s, i, n_seats)
        r = _raid_count(card, pp, pn, q)
        if r > most_r:
            most, most_r = q, r
    return most, most_r


@jit(inline="always", nrt=False)
def _plan(ri, card, alt, base_att, kind, par, s, n_seats, pp, pn, fl, ps, rows, supply, pol):
    """Policy: (action, target) from the seat's own hand and public state only."""
    if kind == PolicyKind.RANDOM:                          # §14.3: one draw
        j = int(pol.random() * (3 + n_seats - 1))
        if j == 0:
            return DEFEND, -1
        if j == 1:
            return LONE, -1
        if j == 2:
            return PARTY, -1
        t = j - 3
        return ATTACK, t if t < s else t + 1
    power, infl, _, _, _ = _stats(ri, card, pp[s, HAND], fl[s], pn[s, HAND], False)
    power += ps[s, PS_BONUS_POWER] + base_att[ps[s, PS_CHAR]]
    boat = False
    for i in range(pn[s, HAND]):
        k = pp[s, HAND, i]
        if card[Col.PILE, k] == Pile.LONGBOAT:
            boat = True
    if not boat and supply[ri[RuleSlot.LONGBOAT]] > 0:
        for i in range(pn[s, HAND]):
            for j in range(alt.shape[1]):
                if alt[pp[s, HAND, i], j] == Ability.SHIPBUILD:
                    boat = True
    low = _row_low(card, rows)
    most, most_r = _most_raids(card, pp, pn, s, n_seats)
    for i in range(6):
        code = int(par[Param.PLAN0 + i])
        if code < 0:
            break
        if code == Plan.BLOCK:
            if most_r >= par[Param.BLOCK_RAIDS] and power >= par[Param.ATTACK_MIN]:
                return ATTACK, most
        elif code == Plan.LONE:
            if boat and low >= 0 and power >= low + par[Param.LONE_MARGIN]:
                return LONE, -1
        elif code == Plan.PARTY:
            if boat and infl >= par[Param.PARTY_INFLUENCE_MIN]:
                return PARTY, -1
        elif code == Plan.ATTACK:
            if power >= par[Param.ATTACK_MIN]:
                return ATTACK, most
        elif code == Plan.ACQUIRE:
            buried = 0
            for b in range(pn[s, BURY]):
                buried += card[Col.SILVER, pp[s, BURY, b]]
            best = 0
            for h in range(pn[s, HAND]):
                k = pp[s, HAND, h]
                pk = card[Col.PILE, k]
                if (pk == Pile.COIN or pk == Pile.HACKSILVER) and card[Col.SILVER, k] > best:
                    best = card[Col.SILVER, k]
            if low >= 0 and buried + best >= low + par[Param.ACQUIRE_MARGIN]:
                return DEFEND, -1
        else:
            return DEFEND, -1
    return DEFEND, -1


# ---------------------------------------------------------------- Main phase (§7)
@jit(inline="always", nrt=False)
def _sacrificable(ri, card, par, pp, pn, fl, s, i):
    """Policy (§7.5, §13.13, §14.2): the card sacrificed for card i's ability: the first unused
    Coin in play; else, with ``sacrifice_any_card``, the unused card of lowest cost, at most
    the policy's ``sacrifice_max_cost``, that is neither a Treasure nor a Longboat (earliest on
    ties); -1 = none."""
    coin = ri[RuleSlot.COIN]
    for j in range(pn[s, PLAY]):
        if j != i and pp[s, PLAY, j] == coin and fl[s, j] == NORMAL:
            return j
    if not ri[RuleSlot.SACRIFICE_ANY_CARD]:
        return -1
    best = -1
    for j in range(pn[s, PLAY]):
        k = pp[s, PLAY, j]
        pk = card[Col.PILE, k]
        if j == i or fl[s, j] != NORMAL or pk == Pile.TREASURE or pk == Pile.LONGBOAT or \
                card[Col.COST, k] > par[Param.SACRIFICE_MAX_COST]:
            continue
        if best < 0 or card[Col.COST, k] < card[Col.COST, pp[s, PLAY, best]]:
            best = j
    return best


@jit(inline="always", nrt=False)
def _bury_slot(card, fb, pp, pn, fl, s):
    """§7.6, §14.2: the play slot BURY buries: the first unused Coin, else Hacksilver, else
    Treasure, never a Treasure the seat forbids (``fb``, §12.4); -1 = none."""
    for want in (Pile.COIN, Pile.HACKSILVER, Pile.TREASURE):
        for j in range(pn[s, PLAY]):
            k = pp[s, PLAY, j]
            if fl[s, j] == NORMAL and card[Col.PILE, k] == want and not (
                    want == Pile.TREASURE and fb[k]):
                return j
    return -1


@jit(inline="always", nrt=False)
def _legal_alt(ri, card, par, fb, pp, pn, fl, supply, s, i, a, n):
    """§7.5: an ability whose sacrifice cannot be fully resolved may not be used. (The
    sacrifice is looked for at one place only: each inlined copy costs compile time.)"""
    if a == Ability.DRAW:
        return True
    if a == Ability.SACRIFICE_DRAW or a == Ability.MAY_SACRIFICE_SILVER or \
            a == Ability.MAY_SACRIFICE_POWER or a == Ability.MAY_RITUAL_SEARCH:
        if _sacrificable(ri, card, par, pp, pn, fl, s, i) < 0:
            return False
        if a == Ability.SACRIFICE_DRAW:
            return pn[s, DECK] + pn[s, DISC] >= n
        if a != Ability.MAY_RITUAL_SEARCH:
            return True
        for src in (DECK, DISC):
            for j in range(pn[s, src]):
                if _is_viking(card, pp[s, src, j]):
                    return True
        return False
    if a == Ability.SHIPBUILD:
        return supply[ri[RuleSlot.LONGBOAT]] > 0
    if a == Ability.SACRIFICE_SELF_HACKSILVER:
        return supply[ri[RuleSlot.HACKSILVER]] > 0
    if a == Ability.BURY:
        return _bury_slot(card, fb, pp, pn, fl, s) >= 0
    return False


@jit(inline="always", nrt=False)
def _choose_alt(ri, card, alt, alt_n, par, fb, pp, pn, fl, ps, supply, s, i, spring):
    """Policy: the legal alternative of play card i with the highest priority (> 0), ties by
    listed order; Shipbuild only when raiding with no Longboat in play; never one that gains
    a card the seat's ``forbid`` names (``fb``). -1 = none."""
    k = pp[s, PLAY, i]
    best, best_p = -1, 0.0
    for j in range(alt.shape[1]):
        a = alt[k, j]
        if a == Ability.NONE:
            continue
        prio = par[Param.PRIO0 + a] if a != Ability.SACRIFICE_SELF_SILVER else 0.0
        if a == Ability.SHIPBUILD:
            has_boat = False
            for q in range(pn[s, PLAY]):
                if card[Col.PILE, pp[s, PLAY, q]] == Pile.LONGBOAT and fl[s, q] != SACRIFICED:
                    has_boat = True
            act = ps[s, PS_ACTION]
            if not spring or (act != PARTY and act != LONE) or has_boat or \
                    fb[ri[RuleSlot.LONGBOAT]]:
                prio = 0.0
        elif a == Ability.SACRIFICE_SELF_HACKSILVER and fb[ri[RuleSlot.HACKSILVER]]:
            prio = 0.0
        if prio > best_p and _legal_alt(ri, card, par, fb, pp, pn, fl, supply, s, i, a,
                                        alt_n[k, j]):
            best, best_p = j, prio
    return best


@jit(nrt=False, internal=True)
def _ritual(card, pp, pn, fl, s, dice):
    """Ritual Sacrifice (§7.5, assumption): the costliest Viking in deck then discard (first
    found on ties) is taken into play; then the deck is shuffled."""
    best, where, idx = -1, -1, -1
    for src in (DECK, DISC):
        for j in range(pn[s, src]):
            k = pp[s, src, j]
            if _is_viking(card, k) and card[Col.COST, k] > best:
                best, where, idx = card[Col.COST, k], src, j
    k = _remove_at(pp[s, where], pn[s, where], idx)
    pn[s, where] -= 1
    fl[s, pn[s, PLAY]] = NORMAL
    _push(pp, pn, s, PLAY, k)
    _shuffle(pp[s, DECK], pn[s, DECK], dice)


@jit(nrt=False, internal=True)
def _use_alt(ri, card, par, fb, pp, pn, fl, ps, supply, s, i, a, n, dice):
    """Carry out alternative ``a`` (amount n) of play card i (§7.3, §7.5, §11.2)."""
    if a == Ability.SHIPBUILD or a == Ability.SACRIFICE_SELF_HACKSILVER:
        fl[s, i] = SACRIFICED
        if a == Ability.SHIPBUILD:                         # take a Longboat into play
            supply[ri[RuleSlot.LONGBOAT]] -= 1
            fl[s, pn[s, PLAY]] = TAKEN
            _push(pp, pn, s, PLAY, ri[RuleSlot.LONGBOAT])
        else:                                              # gain: to the discard pile
            supply[ri[RuleSlot.HACKSILVER]] -= 1
            _push(pp, pn, s, DISC, ri[RuleSlot.HACKSILVER])
        return
    fl[s, i] = USED
    if a == Ability.BURY:                                  # §7.6
        j = _bury_slot(card, fb, pp, pn, fl, s)
        if j >= 0:
            fl[s, j] = BURIED
        return
    if a != Ability.DRAW:                                  # the sacrifice comes first
        fl[s, _sacrificable(ri, card, par, pp, pn, fl, s, i)] = SACRIFICED
    if a == Ability.DRAW or a == Ability.SACRIFICE_DRAW:   # one inlined draw
        _draw_to(pp, pn, fl, s, PLAY, n, dice)
    elif a == Ability.MAY_SACRIFICE_SILVER:
        ps[s, PS_BONUS_SILVER] += n
    elif a == Ability.MAY_SACRIFICE_POWER:
        ps[s, PS_BONUS_POWER] += n
    else:
        _ritual(card, pp, pn, fl, s, dice)


@jit(inline="always", nrt=False)
def _owned_longboats(ri, pp, pn, fl, s):
    boat = ri[RuleSlot.LONGBOAT]
    n = 0
    for src in (DECK, DISC, HAND):
        for j in range(pn[s, src]):
            if pp[s, src, j] == boat:
                n += 1
    for j in range(pn[s, PLAY]):
        if pp[s, PLAY, j] == boat and fl[s, j] != SACRIFICED:
            n += 1
    return n


def buy_scores(card, alt, alt_n, params):
    """float64[n_seats, K]: each seat's buy score of each card (§12.4), computed once per
    block in the same order of operations as ``reference.Game.buy_score``."""
    import numpy as np

    draw = np.zeros(card.shape[1], np.int64)
    for j in range(alt.shape[1]):
        hit = (alt[:, j] == Ability.DRAW) | (alt[:, j] == Ability.SACRIFICE_DRAW)
        draw = np.maximum(draw, np.where(hit, alt_n[:, j], 0))
    out = np.zeros((params.shape[0], card.shape[1]), np.float64)
    for s, par in enumerate(params):
        for k in range(card.shape[1]):
            out[s, k] = (par[Param.W_POWER] * float(card[Col.POWER, k])
                         + par[Param.W_INFLUENCE] * float(card[Col.INFLUENCE, k])
                         + par[Param.W_SILVER] * float(card[Col.SILVER, k])
                         + par[Param.W_DEFENSE] * float(card[Col.DEFENSE, k])
                         + par[Param.W_DRAW] * float(draw[k])
                         + par[Param.W_COST] * float(card[Col.COST, k]))
    return out


@jit(inline="always", nrt=False)
def _candidate(ri, rows, supply, c):
    """Buy candidate c (Viking Row slots, then Warriors, Hacksilver, Longboat, §7.4):
    (slot or -1, card or EMPTY when that slot/pile is empty)."""
    if c < ROW_SIZE:
        return c, rows[VROW, c]
    if c == ROW_SIZE:
        k = ri[RuleSlot.WARRIORS]
    elif c == ROW_SIZE + 1:
        k = ri[RuleSlot.HACKSILVER]
    else:
        k = ri[RuleSlot.LONGBOAT]
    return -1, k if supply[k] > 0 else EMPTY


@jit(inline="always", nrt=False)
def _pick_buy(ri, card, bscore, kind, par, fb, rows, supply, owned, left, extra, bought, pol):
    """Policy: candidate index to buy, or -1 to stop (§12.4, §14.3); cards with ``fb[k]``
    (the seat's ``forbid``) are never candidates."""
    n_cand = ROW_SIZE + 3
    if kind == PolicyKind.RANDOM:
        if bought >= RANDOM_MAX_BUYS:
            return -1
        m = 0
        for c in range(n_cand):
            _, k = _candidate(ri, rows, supply, c)
            if k != EMPTY and card[Col.COST, k] <= left and not fb[k]:
                m += 1
        pick = int(pol.random() * (m + 1))
        for c in range(n_cand):
            _, k = _candidate(ri, rows, supply, c)
            if k != EMPTY and card[Col.COST, k] <= left and not fb[k]:
                if pick == 0:
                    return c
                pick -= 1
        return -1
    if bought >= par[Param.MAX_BUYS]:
        return -1
    if not par[Param.WARRIORS_FOR_SILVER]:
        extra = 0
    boat, war = ri[RuleSlot.LONGBOAT], ri[RuleSlot.WARRIORS]   # never a Warriors for a Warriors
    want_boat = owned < par[Param.LONGBOATS_WANTED]
    min_score = par[Param.MIN_SCORE]
    best, best_s, best_c, boat_c = -1, 0.0, 0, -1
    for c in range(n_cand):
        _, k = _candidate(ri, rows, supply, c)
        if k == EMPTY or fb[k]:
            continue
        cost = card[Col.COST, k]
        if cost > left + (extra if k != war else 0):
            continue
        if k == boat and boat_c < 0:
            boat_c = c
            if want_boat:
                return c
        sc = bscore[k]
        if sc >= min_score and (best < 0 or sc > best_s or (sc == best_s and cost > best_c)):
            best, best_s, best_c = c, sc, cost
    return best


@jit(inline="always", nrt=False)
def _silver_now(card, pp, pn, fl, ps, s):
    total = ps[s, PS_BONUS_SILVER]
    for j in range(pn[s, PLAY]):
        if fl[s, j] != SACRIFICED:
            total += card[Col.SILVER, pp[s, PLAY, j]]
    return total


@jit(inline="always", nrt=False)
def _spare_silver(alt, alt_n, pp, pn, fl, s):
    extra = 0
    for j in range(pn[s, PLAY]):
        if fl[s, j] == NORMAL:
            k = pp[s, PLAY, j]
            for q in range(alt.shape[1]):
                if alt[k, q] == Ability.SACRIFICE_SELF_SILVER:
                    extra += alt_n[k, q]
    return extra


@jit(inline="always", nrt=False)
def _buy_open(ri, card, alt, alt_n, pp, pn, fl, ps, s):
    """The tally a buy step starts with (§7.4): (Silver available, spent, cards bought,
    Longboats owned, Silver the unused Warriors could still add)."""
    return (_silver_now(card, pp, pn, fl, ps, s), 0, 0, _owned_longboats(ri, pp, pn, fl, s),
            _spare_silver(alt, alt_n, pp, pn, fl, s))


@jit(inline="always", nrt=False)
def _buy_one(ri, card, alt, alt_n, rows, supply, sh, shn, pp, pn, fl, s, ec, rnd, c, avail,
             spent, bought, owned, extra):
    """§7.4: buy candidate c, paying with played Silver (and Warriors sacrificed for +1 Silver
    when that completes the buy); a Viking Row gap refilled at once; counted in ``ec``
    (copies, round of the first buy; §14.6). Returns the tally after it (``_buy_open``)."""
    slot, k = _candidate(ri, rows, supply, c)
    cost = card[Col.COST, k]
    for j in range(pn[s, PLAY]):                           # Warriors: sacrifice for Silver
        if cost <= avail - spent:
            break
        if fl[s, j] == NORMAL:
            w = pp[s, PLAY, j]
            for q in range(alt.shape[1]):
                if alt[w, q] == Ability.SACRIFICE_SELF_SILVER and cost > avail - spent:
                    fl[s, j] = SACRIFICED
                    avail += alt_n[w, q]
                    extra -= alt_n[w, q]
    if ri[RuleSlot.COUNT_ELEMENTS]:
        ec[EC_BOUGHT, s, k] += 1
        if ec[EC_FIRST, s, k] == 0:
            ec[EC_FIRST, s, k] = rnd
    if k == ri[RuleSlot.LONGBOAT]:
        owned += 1
    _push(pp, pn, s, DISC, k)
    if slot >= 0:
        if shn[VDECK] > 0:
            shn[VDECK] -= 1
            rows[VROW, slot] = sh[VDECK, shn[VDECK]]
        else:
            rows[VROW, slot] = EMPTY
    else:
        supply[k] -= 1
    return avail, spent + cost, bought + 1, owned, extra


@jit(inline="always", nrt=False)
def _buy_step(ri, card, alt, alt_n, bscore, kind, par, fb, rows, supply, sh, shn, pp, pn, fl,
              ps, s, ec, rnd, pol):
    """§7.4: buy while the policy wants (``_pick_buy``, ``_buy_one``); the Silver available
    and spent are added to the seat's totals."""
    avail, spent, bought, owned, extra = _buy_open(ri, card, alt, alt_n, pp, pn, fl, ps, s)
    while True:
        c = _pick_buy(ri, card, bscore, kind, par, fb, rows, supply, owned, avail - spent,
                      extra, bought, pol)
        if c < 0:
            break
        avail, spent, bought, owned, extra = _buy_one(ri, card, alt, alt_n, rows, supply, sh,
                                                      shn, pp, pn, fl, s, ec, rnd, c, avail,
                                                      spent, bought, owned, extra)
    ps[s, PS_SILVER_AVAIL] += avail
    ps[s, PS_SILVER_SPENT] += spent


@jit(nrt=False, internal=True)
def _keep_back(ri, card, par, pp, pn, fl, s, spring):
    """Policy (§7.2, §13.8, ``keep_in_winter``): with ``play_all_cards`` false, in Winter, mark
    ``fl[s, h] = KEEP`` on up to keep_in_winter hand cards with no Silver and Power + Influence
    > 0, highest Power, then Influence, then earliest; the others get NORMAL. (``fl`` is free:
    nothing is in play yet.) Returns how many are kept."""
    n = pn[s, HAND]
    for h in range(n):
        fl[s, h] = NORMAL
    if spring or ri[RuleSlot.PLAY_ALL_CARDS]:
        return 0
    kept = 0
    for _ in range(int(par[Param.KEEP_IN_WINTER])):
        best, bp, bi = -1, 0, 0
        for h in range(n):
            k = pp[s, HAND, h]
            p, q = card[Col.POWER, k], card[Col.INFLUENCE, k]
            if fl[s, h] == KEEP or card[Col.SILVER, k] != 0 or p + q <= 0:
                continue
            if best < 0 or p > bp or (p == bp and q > bi):
                best, bp, bi = h, p, q
        if best < 0:
            break
        fl[s, best] = KEEP
        kept += 1
    return kept


@jit(nrt=False, internal=True)
def _main_play(ri, card, alt, alt_n, par, fb, supply, pp, pn, fl, ps, s, spring, dice):
    """§7.2-§7.3: play the hand (the whole hand, unless ``_keep_back`` keeps cards in hand, in
    hand order) and use abilities card by card: a Main turn up to its buy step."""
    _keep_back(ri, card, par, pp, pn, fl, s, spring)
    m, q = 0, 0
    for h in range(pn[s, HAND]):                           # m, q <= h: in place
        k = pp[s, HAND, h]
        if fl[s, h] == KEEP:
            pp[s, HAND, q] = k
            q += 1
        else:
            fl[s, m] = NORMAL
            pp[s, PLAY, m] = k
            m += 1
    pn[s, PLAY] = m
    pn[s, HAND] = q
    i = -1              # i is a sum when used, never the constant 0: numba compiles _use_alt
    while True:         # once (int64), not also for a Literal[int](0) (issue 19 §4)
        i += 1
        if i >= pn[s, PLAY]:
            break
        k = pp[s, PLAY, i]
        if fl[s, i] == NORMAL and alt[k, 0] != Ability.NONE:
            j = _choose_alt(ri, card, alt, alt_n, par, fb, pp, pn, fl, ps, supply, s, i,
                            spring)
            if j >= 0:
                _use_alt(ri, card, par, fb, pp, pn, fl, ps, supply, s, i, alt[k, j],
                         alt_n[k, j], dice)


@jit(nrt=False, internal=True)
def _main_close(ri, pp, pn, fl, s, ec):
    """A Main turn after its buy step: count every card that entered play this turn (§14.6),
    then move buried cards to the Bury pile (§7.6)."""
    if ri[RuleSlot.COUNT_ELEMENTS]:
        for j in range(pn[s, PLAY]):
            ec[EC_PLAYED, s, pp[s, PLAY, j]] += 1
    m = 0
    for j in range(pn[s, PLAY]):
        if fl[s, j] == BURIED:
            _push(pp, pn, s, BURY, pp[s, PLAY, j])
        else:
            pp[s, PLAY, m] = pp[s, PLAY, j]
            fl[s, m] = fl[s, j]
            m += 1
    pn[s, PLAY] = m


@jit(nrt=False)
def _main_turn(ri, card, alt, alt_n, bscore, kind, par, fb, rows, supply, sh, shn, pp, pn, fl,
               ps, s, spring, ec, rnd, dice, pol):
    """§7: play and use abilities (``_main_play``), buy (``_buy_step``), close the turn
    (``_main_close``). The forward model runs these pieces apart for a seat that searches
    its buys (§15.6)."""
    _main_play(ri, card, alt, alt_n, par, fb, supply, pp, pn, fl, ps, s, spring, dice)
    _buy_step(ri, card, alt, alt_n, bscore, kind, par, fb, rows, supply, sh, shn, pp, pn, fl, ps,
              s, ec, rnd, pol)
    _main_close(ri, pp, pn, fl, s, ec)


# ---------------------------------------------------------------- Defend (§8.1)
@jit(nrt=False, internal=True)
def _payment(ri, card, pp, pn, s, need, order, chosen):
    """§8.1.3, §13.5: mark in ``chosen`` the buried cards spent: largest Silver first
    (earliest on ties) skipping overshoots, then (at_least) the smallest left. True if paid."""
    nb = pn[s, BURY]
    for j in range(nb):
        order[j] = j
        chosen[j] = 0
    for a in range(1, nb):                                 # insertion sort by (-silver, j)
        x = order[a]
        sx = card[Col.SILVER, pp[s, BURY, x]]
        b = a - 1
        while b >= 0 and card[Col.SILVER, pp[s, BURY, order[b]]] < sx:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = x
    total = 0
    for a in range(nb):
        v = card[Col.SILVER, pp[s, BURY, order[a]]]
        if total + v <= need:
            chosen[order[a]] = 1
            total += v
    exact = ri[RuleSlot.ACQUIRE_EXACT]
    if total < need and not exact:
        for a in range(nb - 1, -1, -1):
            if total >= need:
                break
            if not chosen[order[a]]:
                chosen[order[a]] = 1
                total += card[Col.SILVER, pp[s, BURY, order[a]]]
    return total >= need and (total == need or not exact)


@jit(nrt=False, internal=True)
def _defend(ri, card, par, fb, rows, supply, sh, shn, pp, pn, fl, ps, s, order, chosen):
    """§8.1.2 bury one Coin (then Hacksilver) from play; §8.1.3 acquire the highest-Defense
    Row card the Bury pile pays for, never one the seat forbids (``fb``, §12.4), then gain a
    Treasure."""
    if par[Param.DEFEND_BURY]:
        done = False
        for want in (Pile.COIN, Pile.HACKSILVER):
            if done:
                break
            for j in range(pn[s, PLAY]):
                if fl[s, j] != SACRIFICED and card[Col.PILE, pp[s, PLAY, j]] == want:
                    _push(pp, pn, s, BURY, _remove_play(pp, pn, fl, s, j))
                    done = True
                    break
    total = 0
    for b in range(pn[s, BURY]):
        total += card[Col.SILVER, pp[s, BURY, b]]
    best = -1
    for j in range(ROW_SIZE):
        k = rows[RROW, j]
        if k != EMPTY and not fb[k] and card[Col.DEFENSE, k] <= total and (
                best < 0 or card[Col.DEFENSE, k] > card[Col.DEFENSE, rows[RROW, best]]) and \
                _payment(ri, card, pp, pn, s, card[Col.DEFENSE, k], order, chosen):
            best = j
    if best < 0:
        return
    k = rows[RROW, best]
    _payment(ri, card, pp, pn, s, card[Col.DEFENSE, k], order, chosen)
    for idx in range(pn[s, BURY] - 1, -1, -1):
        if chosen[idx]:
            x = _remove_at(pp[s, BURY], pn[s, BURY], idx)
            pn[s, BURY] -= 1
            if card[Col.PILE, x] == Pile.TREASURE:
                _push(pp, pn, s, RAIDP, x)                 # spent Treasures: Raid pile
            else:
                supply[x] += 1                             # Coins, Hacksilver: back
    _push(pp, pn, s, RAIDP, k)
    ps[s, PS_ACQUIRED] += 1
    if ri[RuleSlot.ACQUIRE_REFILLS]:
        _refill_raid_slot(sh, shn, rows, best)
    else:
        rows[RROW, best] = EMPTY
    _gain_treasure(sh, shn, pp, pn, s, fb)


# ---------------------------------------------------------------- Attack (§8.2)
@jit(inline="always", nrt=False)
def _defense_of(ri, base_att, base_def, ps, s):
    """§8.1.1, §13.1, §13.2 (statistics cached by ``_update_stats``)."""
    ch = ps[s, PS_CHAR]
    d = base_def[ch]
    if ps[s, PS_ACTION] == DEFEND:
        d += ps[s, PS_POWER] - base_att[ch] + (base_att[ch] if ri[RuleSlot.DEFEND_BASE_POWER]
                                                else 0)
    mode = ri[RuleSlot.CARD_DEFENSE]
    if mode == 2 or (mode == 1 and ps[s, PS_ACTION] == DEFEND):
        d += ps[s, PS_DEF]
    return d


@jit(nrt=False, internal=True)
def _attack(ri, card, base_att, base_def, fb, sh, shn, pp, pn, ps, a, t, power):
    """§8.2.1-8.2.4: success gains a Treasure, then Pillage (best Legend), else Loot (a
    Betray card if any; best Legend, then cost), else Plunder the top card. ``fb`` = the
    attacker's forbidden cards (§12.4): never Pillaged, never Looted (§8.2.4 still makes it
    take a Betray card when the discard holds one: only those it does not forbid; none: it
    Plunders)."""
    d = _defense_of(ri, base_att, base_def, ps, t)
    if power < d:
        return
    _gain_treasure(sh, shn, pp, pn, a, fb)
    best = -1
    for j in range(pn[t, RAIDP]):
        k = pp[t, RAIDP, j]
        if card[Col.PILE, k] == Pile.RAID and not fb[k] and \
                power >= d + card[Col.DEFENSE, k] and (
                    best < 0 or card[Col.LEGEND, k] > card[Col.LEGEND, pp[t, RAIDP, best]]):
            best = j
    if best < 0 and ri[RuleSlot.PILLAGE_TREASURES]:        # §13.7 alternative
        for j in range(pn[t, RAIDP]):
            k = pp[t, RAIDP, j]
            if card[Col.PILE, k] == Pile.TREASURE and not fb[k] and (
                    best < 0 or card[Col.LEGEND, k] > card[Col.LEGEND, pp[t, RAIDP, best]]):
                best = j
    if best >= 0:
        k = _remove_at(pp[t, RAIDP], pn[t, RAIDP], best)
        pn[t, RAIDP] -= 1
        _push(pp, pn, a, RAIDP, k)
        if card[Col.PILE, k] == Pile.RAID:
            ps[a, PS_PILLAGED] += 1
            ps[t, PS_LOST] += 1
        return
    any_betray = False
    for j in range(pn[t, DISC]):
        if card[Col.BETRAY, pp[t, DISC, j]]:
            any_betray = True
    best = -1
    for j in range(pn[t, DISC]):                           # §8.2.4: Betray cards only;
        k = pp[t, DISC, j]                                 # §12.4: none it forbids
        if (any_betray and not card[Col.BETRAY, k]) or fb[k]:
            continue
        if best < 0:
            best = j
            continue
        b = pp[t, DISC, best]
        if card[Col.LEGEND, k] > card[Col.LEGEND, b] or (
                card[Col.LEGEND, k] == card[Col.LEGEND, b] and card[Col.COST, k] >
                card[Col.COST, b]):
            best = j
    if best >= 0:                                          # Loot
        k = _remove_at(pp[t, DISC], pn[t, DISC], best)
        pn[t, DISC] -= 1
        _push(pp, pn, a, DISC, k)
    elif pn[t, DECK] > 0:                                  # Plunder
        pn[t, DECK] -= 1
        _push(pp, pn, a, DISC, pp[t, DECK, pn[t, DECK]])


@jit(nrt=False, internal=True)
def _attacks(ri, card, base_att, base_def, fb, sh, shn, pp, pn, ps, gs, n_seats):
    """§8.2.2: attackers in turn order; only the unique strongest on a defender succeeds."""
    for i in range(n_seats):
        a = _turn_seat(gs[GS_FIRST], i, n_seats)
        if ps[a, PS_ACTION] != ATTACK:
            continue
        t = ps[a, PS_TARGET]
        beaten = False
        for q in range(n_seats):
            if q != a and ps[q, PS_ACTION] == ATTACK and ps[q, PS_TARGET] == t and \
                    ps[q, PS_APOWER] >= ps[a, PS_APOWER]:
                beaten = True
        if not beaten:
            _attack(ri, card, base_att, base_def, fb[a], sh, shn, pp, pn, ps, a, t,
                    ps[a, PS_APOWER])


# ---------------------------------------------------------------- raids (§8.3-8.5)
@jit(inline="always", nrt=False)
def _raid_target(card, rows, power, fb):
    """Policy: the Row slot with the highest Defense <= power, leftmost on ties, never a card
    the choosing seat forbids (``fb``, §12.4) (-1: none, a failed raid)."""
    best = -1
    for j in range(ROW_SIZE):
        k = rows[RROW, j]
        if k != EMPTY and not fb[k] and card[Col.DEFENSE, k] <= power and (
                best < 0 or card[Col.DEFENSE, k] > card[Col.DEFENSE, rows[RROW, best]]):
            best = j
    return best


@jit(inline="always", nrt=False)
def _highest_slot(ri, card, rows, limit, skip):
    """Slot of the highest Defense <= limit, ties per ``failed_raid_tie`` (§8.5, §13.10),
    passing over the slots of bit mask ``skip`` (a Chaotic Raid's forbidden cards, §12.4)."""
    right = ri[RuleSlot.FAILED_TIE_RIGHT]
    best = -1
    for j in range(ROW_SIZE):
        k = rows[RROW, j]
        if k == EMPTY or card[Col.DEFENSE, k] > limit or (skip >> j) & 1:
            continue
        if best < 0:
            best = j
            continue
        dk, db = card[Col.DEFENSE, k], card[Col.DEFENSE, rows[RROW, best]]
        if dk > db or (dk == db and right):
            best = j
    return best


@jit(nrt=False, internal=True)
def _to_bottom(sh, shn, rows, j):
    """The card in Raid Row slot j goes under the Raid deck; the slot is refilled."""
    _insert_bottom(sh[RDECK], shn[RDECK], rows[RROW, j])
    shn[RDECK] += 1
    _refill_raid_slot(sh, shn, rows, j)


_NO_LIMIT = 1 << 40


@jit(nrt=False, internal=True)
def _failed_raid(ri, card, sh, shn, rows, gs):
    """§8.5: the highest Defense in the Row goes under the Raid deck."""
    gs[GS_FAILED] += 1
    j = _highest_slot(ri, card, rows, _NO_LIMIT, 0)
    if j >= 0:
        _to_bottom(sh, shn, rows, j)


@jit(inline="always", nrt=False)
def _party_power(ri, base_att, ps, members, m):
    per = ri[RuleSlot.BASE_POWER_PER_RAIDER]
    total = 0
    for i in range(m):
        q = members[i]
        total += ps[q, PS_POWER] - (0 if per else base_att[ps[q, PS_CHAR]])
    if not per:
        total += base_att[ps[members[0], PS_CHAR]]
    return total


@jit(nrt=False, internal=True)
def _chaotic_raid(ri, card, base_att, fb, sh, shn, rows, pp, pn, ps, gs, n_seats, members):
    """§8.3.5: everyone who chose Raid Party (DEFAULT: with their own Longboat) raids for
    nobody; success sends the highest reachable card under the Raid deck, never a card a
    Raider forbids (``fb``, §12.4: none left, a failed raid)."""
    m = 0
    for i in range(n_seats):
        q = _turn_seat(gs[GS_FIRST], i, n_seats)
        if ps[q, PS_ACTION] == PARTY and (ri[RuleSlot.CHAOTIC_ALL] or ps[q, PS_BOATS] > 0):
            members[m] = q
            m += 1
    power = _party_power(ri, base_att, ps, members, m)
    skip = 0
    for j in range(ROW_SIZE):
        k = rows[RROW, j]
        for i in range(m):
            if k != EMPTY and fb[members[i], k]:
                skip |= 1 << j
    j = _highest_slot(ri, card, rows, power, skip)
    if j < 0:
        _failed_raid(ri, card, sh, shn, rows, gs)
        return
    for i in range(m):
        _gain_treasure(sh, shn, pp, pn, members[i], fb[members[i]])
    _to_bottom(sh, shn, rows, j)


@jit(inline="always", nrt=False)
def _top_chooser(ps, gs, n_seats, action, first, second):
    """§8.3.2, §8.4: among the seats that chose ``action`` and have a Longboat, the first in
    turn order with the most ``ps[., first]``, then ``ps[., second]``; returns (seat or -1,
    how many seats share that top)."""
    best, n_top, b1, b2 = -1, 0, -1, -1
    for i in range(n_seats):
        q = _turn_seat(gs[GS_FIRST], i, n_seats)
        if ps[q, PS_ACTION] != action or ps[q, PS_BOATS] == 0:
            continue
        x, y = ps[q, first], ps[q, second]
        if x > b1 or (x == b1 and y > b2):
            best, n_top, b1, b2 = q, 1, x, y
        elif x == b1 and y == b2:
            n_top += 1
    return best, n_top


@jit(nrt=False, internal=True)
def _raid_party(ri, card, base_att, kinds, params, fb, sh, shn, rows, pp, pn, ps, gs, n_seats,
                rnd, members):
    """§8.3: Earl (most Influence, then Power; else Chaotic Raid), invitations within the
    Longboats (§8.3.3, policy: Raid-Party choosers, then accepting Defenders, clockwise; none
    in a 2-player game unless ``two_player_alliances``, §13.12), the raid."""
    earl, n_top = _top_chooser(ps, gs, n_seats, PARTY, PS_INFL, PS_POWER)
    if earl < 0:
        return
    if n_top > 1:
        _chaotic_raid(ri, card, base_att, fb, sh, shn, rows, pp, pn, ps, gs, n_seats, members)
        return
    gs[GS_FIRST] = earl                                     # §8.3.2: Earl takes the marker
    gs[GS_EARL_SIDE] = 1
    ps[earl, PS_LAST_EARL] = rnd
    ps[earl, PS_EARLS] += 1
    members[0] = earl
    m, cap = 1, ps[earl, PS_BOATS]
    if params[earl, Param.INVITE] and (n_seats > 2 or ri[RuleSlot.TWO_PLAYER_ALLIANCES]):
        for want in (PARTY, DEFEND):
            for i in range(1, n_seats):
                q = _turn_seat(earl, i, n_seats)
                if ps[q, PS_ACTION] != want or (want == DEFEND and
                                                not params[q, Param.ACCEPT]):
                    continue
                if m + 1 <= cap + ps[q, PS_BOATS]:
                    members[m] = q
                    m += 1
                    cap += ps[q, PS_BOATS]
    power = _party_power(ri, base_att, ps, members, m)
    j = _raid_target(card, rows, power, fb[earl])                # the Earl picks (§8.3.4)
    if j < 0:
        _failed_raid(ri, card, sh, shn, rows, gs)
        return
    _push(pp, pn, earl, RAIDP, rows[RROW, j])
    ps[earl, PS_WON] += 1
    _refill_raid_slot(sh, shn, rows, j)
    for i in range(m):
        _gain_treasure(sh, shn, pp, pn, members[i], fb[members[i]])


@jit(nrt=False, internal=True)
def _lone_raid(ri, card, fb, sh, shn, rows, pp, pn, ps, gs, n_seats):
    """§8.4: most Power, then Influence; still tied: nobody."""
    best, n_top = _top_chooser(ps, gs, n_seats, LONE, PS_POWER, PS_INFL)
    if best < 0 or n_top > 1:
        return
    bp = ps[best, PS_POWER]
    j = _raid_target(card, rows, bp, fb[best])
    if j < 0:
        _failed_raid(ri, card, sh, shn, rows, gs)
        return
    _push(pp, pn, best, RAIDP, rows[RROW, j])
    ps[best, PS_WON] += 1
    _refill_raid_slot(sh, shn, rows, j)
    _gain_treasure(sh, shn, pp, pn, best, fb[best])


# ---------------------------------------------------------------- End of Round (§9), end (§10)
@jit(nrt=False)
def _game_over(ri, card, sh, shn, rows, pp, pn, n_seats):
    need = ri[RuleSlot.RAIDS_TO_END]
    if need == 0:                                           # Epic (§10.2)
        if shn[RDECK] > 0:
            return False
        for j in range(ROW_SIZE):
            if rows[RROW, j] != EMPTY:
                return False
        return True
    for s in range(n_seats):
        if _raid_count(card, pp, pn, s) >= need:
            return True
    return False


@jit(nrt=False)
def _cleanup(ri, card, sh, shn, pp, pn, fl, ps, supply, gs, n_seats):
    """§9.2: play to discard; sacrificed cards back to their piles (Vikings and Events under
    the Viking deck); the First Player marker passes unless Earl side up."""
    for s in range(n_seats):
        for j in range(pn[s, PLAY]):
            k = pp[s, PLAY, j]
            if fl[s, j] != SACRIFICED:
                _push(pp, pn, s, DISC, k)
            elif _in_supply(card, k):
                supply[k] += 1
            elif card[Col.PILE, k] == Pile.TREASURE:
                sh[TREAS, shn[TREAS]] = k
                shn[TREAS] += 1
            else:
                _insert_bottom(sh[VDECK], shn[VDECK], k)
                shn[VDECK] += 1
        pn[s, PLAY] = 0
        ps[s, PS_BONUS_POWER] = 0
        ps[s, PS_BONUS_SILVER] = 0
    if not gs[GS_EARL_SIDE]:
        gs[GS_FIRST] = _turn_seat(gs[GS_FIRST], 1, n_seats)
    elif ri[RuleSlot.EARL_MARKER_RESETS]:
        gs[GS_EARL_SIDE] = 0


@jit(inline="always", nrt=False)
def _score(ri, card, pp, pn, fl, s):
    """§10.1: (Legend, Legend from Raid cards) of seat s: deck, discard, Raid and Bury piles
    (with ``score_cards_in_play`` also the hand and the cards in play, §13.14)."""
    total, raid = 0, 0
    for src in (DECK, DISC, RAIDP, BURY):
        for j in range(pn[s, src]):
            total += card[Col.LEGEND, pp[s, src, j]]
    if ri[RuleSlot.SCORE_IN_PLAY]:                          # §13.14 alternative
        for j in range(pn[s, HAND]):
            total += card[Col.LEGEND, pp[s, HAND, j]]
        for j in range(pn[s, PLAY]):
            if fl[s, j] != SACRIFICED:
                total += card[Col.LEGEND, pp[s, PLAY, j]]
    for j in range(pn[s, RAIDP]):
        k = pp[s, RAIDP, j]
        if card[Col.PILE, k] == Pile.RAID:
            raid += card[Col.LEGEND, k]
    return total, raid


@jit(nrt=False)
def _winner(ri, card, pp, pn, fl, ps, gs, n_seats):
    """§10.1: (winner, tie, mask of tied seats): most Legend, then Raid Legend, then most
    recent Earl; still tied: first in turn order."""
    bt, br, be, win, mask, n_tied = -1, -1, -2, -1, 0, 0
    for i in range(n_seats):
        s = _turn_seat(gs[GS_FIRST], i, n_seats)
        t, r = _score(ri, card, pp, pn, fl, s)
        e = ps[s, PS_LAST_EARL]
        if t > bt or (t == bt and (r > br or (r == br and e > be))):
            bt, br, be, win, mask, n_tied = t, r, e, s, 1 << s, 1
        elif t == bt and r == br and e == be:
            mask |= 1 << s
            n_tied += 1
    return win, n_tied > 1 and not ri[RuleSlot.FINAL_TIE_SEAT_ORDER], mask


# ---------------------------------------------------------------- the game loop
@jit(nrt=False)
def _action_phase(ri, card, base_att, base_def, kinds, params, fb, sh, shn, rows, supply, pp,
                  pn, fl, ps, gs, n_seats, rnd, s1, s2):
    """§8: Defend, Attack, Raid Party, Lone Raid, each in turn order from the First Player."""
    for i in range(n_seats):
        s = _turn_seat(gs[GS_FIRST], i, n_seats)
        if ps[s, PS_ACTION] == DEFEND:
            _defend(ri, card, params[s], fb[s], rows, supply, sh, shn, pp, pn, fl, ps, s, s1,
                    s2)
    for s in range(n_seats):
        _update_stats(ri, card, base_att, pp, pn, fl, ps, s)
    _attacks(ri, card, base_att, base_def, fb, sh, shn, pp, pn, ps, gs, n_seats)
    _raid_party(ri, card, base_att, kinds, params, fb, sh, shn, rows, pp, pn, ps, gs, n_seats,
                rnd, s1)
    _lone_raid(ri, card, fb, sh, shn, rows, pp, pn, ps, gs, n_seats)


@jit(nrt=False)
def _draw_phase(ri, pp, pn, fl, gs, n_seats, rnd, dice):
    """§6.1, §7.2: each seat in turn order draws ``hand_size`` less the cards it kept back in
    hand at the last Main phase (never below 0; with every card played: ``hand_size``). A
    round-1 Draw (§13.11, ``setup_hand_is_round1_hand`` false) follows no Main phase: the
    setup hand was not kept back, so it draws ``hand_size`` on top of it."""
    for i in range(n_seats):
        s = _turn_seat(gs[GS_FIRST], i, n_seats)
        need = ri[RuleSlot.HAND_SIZE] - (pn[s, HAND] if rnd > 1 else 0)
        if need > 0:
            _draw_to(pp, pn, fl, s, HAND, need, dice)


@jit(inline="always", nrt=False)
def _play_round(ri, card, alt, alt_n, bscore, base_att, base_def, kinds, params, fb, sh, shn,
                rows, supply, pp, pn, fl, ps, gs, n_seats, rnd, s1, s2, ec, dice, pol):
    """One round (§5): Draw, (Spring) Secret Plan, Main, (Spring) Action phase."""
    spring = rnd > ri[RuleSlot.WINTER_ROUNDS]
    if rnd > 1 or not ri[RuleSlot.SETUP_HAND_IS_ROUND1]:        # §6.1, §13.11
        _draw_phase(ri, pp, pn, fl, gs, n_seats, rnd, dice)
    if spring:                                                   # §6.2
        for i in range(n_seats):
            s = _turn_seat(gs[GS_FIRST], i, n_seats)
            act, tgt = _plan(ri, card, alt, base_att, kinds[s], params[s], s, n_seats, pp,
                             pn, fl, ps, rows, supply, pol)
            ps[s, PS_ACTION] = act
            ps[s, PS_TARGET] = tgt
    _main_and_action(ri, card, alt, alt_n, bscore, base_att, base_def, kinds, params, fb, sh,
                     shn, rows, supply, pp, pn, fl, ps, gs, n_seats, rnd, s1, s2, ec, dice, pol)


@jit(nrt=False, internal=True)
def _count_plans(ri, ps, ec, n_seats):
    """§14.6: each seat's Secret Plan of this Spring round (§6.2), once all are made (with
    ``count_elements`` on, as every element count)."""
    if ri[RuleSlot.COUNT_ELEMENTS]:
        for s in range(n_seats):
            ec[EC_PLANS, s, ps[s, PS_ACTION]] += 1


@jit(inline="always", nrt=False, internal=True)
def _main_and_action(ri, card, alt, alt_n, bscore, base_att, base_def, kinds, params, fb, sh,
                     shn, rows, supply, pp, pn, fl, ps, gs, n_seats, rnd, s1, s2, ec, dice,
                     pol):
    """The rest of a round after the Secret Plan (§5): Main (§7), (Spring) Action (§8). The
    forward model (``forward.advance``) plays the same calls turn by turn, so that it can stop
    inside a Main turn (§15.6)."""
    spring = rnd > ri[RuleSlot.WINTER_ROUNDS]
    if spring:
        _count_plans(ri, ps, ec, n_seats)
    for i in range(n_seats):
        s = _turn_seat(gs[GS_FIRST], i, n_seats)
        _main_turn(ri, card, alt, alt_n, bscore[s], kinds[s], params[s], fb[s], rows, supply,
                   sh, shn, pp, pn, fl, ps, s, spring, ec, rnd, dice, pol)
    if spring:
        _action_phase(ri, card, base_att, base_def, kinds, params, fb, sh, shn, rows, supply,
                      pp, pn, fl, ps, gs, n_seats, rnd, s1, s2)


@jit(inline="always", nrt=False, internal=True)
def _play_game(ri, card, alt, alt_n, bscore, base_att, base_def, kinds, params, fb, g, pp, pn,
               fl, ps, sh, shn, tmp, rows, supply, box, gs, s1, s2, ec, dice, pol):
    """Play one game from setup to its end; returns (truncated, rounds)."""
    n_seats = kinds.shape[0]
    _setup(ri, card, n_seats, g, pp, pn, fl, ps, sh, shn, tmp, rows, supply, box, gs, dice)
    for q in range(ec.shape[0]):            # (empty unless count_elements, §14.6)
        for s in range(ec.shape[1]):
            for k in range(ec.shape[2]):
                ec[q, s, k] = 0
    for rnd in range(1, ri[RuleSlot.MAX_ROUNDS] + 1):
        gs[GS_ROUND] = rnd
        _play_round(ri, card, alt, alt_n, bscore, base_att, base_def, kinds, params, fb, sh, shn,
                    rows, supply, pp, pn, fl, ps, gs, n_seats, rnd, s1, s2, ec, dice, pol)
        if _game_over(ri, card, sh, shn, rows, pp, pn, n_seats):   # §9.1: checked first
            return False, rnd
        _cleanup(ri, card, sh, shn, pp, pn, fl, ps, supply, gs, n_seats)
    return True, ri[RuleSlot.MAX_ROUNDS]


@jit(nrt=False, internal=True)
def _census(card, sh, shn, rows, pp, pn, supply, box, n_seats, census, g):
    for k in range(card.shape[1]):
        census[g, k] = supply[k] + box[k]
    for p in range(3):
        for j in range(shn[p]):
            census[g, sh[p, j]] += 1
    for r in range(2):
        for j in range(ROW_SIZE):
            if rows[r, j] != EMPTY:
                census[g, rows[r, j]] += 1
    for s in range(n_seats):
        for p in range(N_PILES):
            for j in range(pn[s, p]):
                census[g, pp[s, p, j]] += 1


@jit(nrt=False)
def _count_final(pp, pn, fl, ec, n_seats):
    """§14.6: ``ec[EC_FINAL]`` = the copies each seat holds at the end (deck, discard, hand,
    Raid and Bury piles, and play but for sacrificed cards)."""
    for s in range(n_seats):
        for p in range(N_PILES):
            for j in range(pn[s, p]):
                if p != PLAY or fl[s, j] != SACRIFICED:
                    ec[EC_FINAL, s, pp[s, p, j]] += 1


@jit(nrt=False, internal=True)
def _record(ri, card, pp, pn, fl, ps, sh, shn, rows, supply, box, gs, n_seats, g, trunc,
            n_rounds, ec, winner, tie, tied, rounds, truncated, failed, census, legend,
            raid_legend, raids, character, earls, won, acquired, pillaged, lost, silver_avail,
            silver_spent):
    """Write one finished game into row g of the outputs (``ec`` is its row of ``cards``)."""
    w, t, mask = _winner(ri, card, pp, pn, fl, ps, gs, n_seats)
    truncated[g] = trunc
    rounds[g] = n_rounds
    winner[g] = -1 if trunc else w
    tie[g] = t and not trunc
    tied[g] = 0 if trunc else mask
    failed[g] = gs[GS_FAILED]
    _census(card, sh, shn, rows, pp, pn, supply, box, n_seats, census, g)
    if ri[RuleSlot.COUNT_ELEMENTS]:
        _count_final(pp, pn, fl, ec, n_seats)
    for s in range(n_seats):
        tot, rl = _score(ri, card, pp, pn, fl, s)
        legend[g, s] = tot
        raid_legend[g, s] = rl
        raids[g, s] = _raid_count(card, pp, pn, s)
        character[g, s] = ps[s, PS_CHAR]
        earls[g, s] = ps[s, PS_EARLS]
        won[g, s] = ps[s, PS_WON]
        acquired[g, s] = ps[s, PS_ACQUIRED]
        pillaged[g, s] = ps[s, PS_PILLAGED]
        lost[g, s] = ps[s, PS_LOST]
        silver_avail[g, s] = ps[s, PS_SILVER_AVAIL]
        silver_spent[g, s] = ps[s, PS_SILVER_SPENT]


@jit(nrt=False)
def _play_block(ri, card, alt, alt_n, bscore, base_att, base_def, kinds, params, fb, g0, g1,
                game0, dice, pol,
                pp, pn, fl, ps, sh, shn, tmp, rows, supply, box, gs, s1, s2,
                winner, tie, tied, rounds, truncated, failed, census, cards, legend,
                raid_legend, raids, character, earls, won, acquired, pillaged, lost,
                silver_avail, silver_spent):
    """Play games g0..g1 into rows g0..g1 of the outputs (this block's streams only); row g is
    the run's game ``game0 + g`` (the id ``rotate_characters`` reads, §14.1). The game counts
    its cards (§14.6) straight into its row of ``cards``."""
    n_seats = kinds.shape[0]
    for g in range(g0, g1):
        ec = cards[g]
        trunc, n_rounds = _play_game(ri, card, alt, alt_n, bscore, base_att, base_def, kinds,
                                     params, fb, game0 + g, pp, pn, fl, ps, sh, shn, tmp, rows,
                                     supply, box, gs, s1, s2, ec, dice, pol)
        _record(ri, card, pp, pn, fl, ps, sh, shn, rows, supply, box, gs, n_seats, g, trunc,
                n_rounds, ec, winner, tie, tied, rounds, truncated, failed, census, legend,
                raid_legend, raids, character, earls, won, acquired, pillaged, lost,
                silver_avail, silver_spent)


def scratch(s, n_seats: int) -> dict:
    """The block's scratch state arrays for setup ``s`` (see the module docstring)."""
    import numpy as np

    cap = int(s.catalog.copies.sum()) + 1
    k = s.catalog.n_kinds
    return {"pp": np.zeros((n_seats, N_PILES, cap), np.int16),
            "pn": np.zeros((n_seats, N_PILES), np.int64),
            "fl": np.zeros((n_seats, cap), np.int8),
            "ps": np.zeros((n_seats, N_PS), np.int64),
            "sh": np.zeros((3, cap), np.int16), "shn": np.zeros(3, np.int64),
            "tmp": np.zeros(cap, np.int16), "rows": np.zeros((2, ROW_SIZE), np.int64),
            "supply": np.zeros(k, np.int64), "box": np.zeros(k, np.int64),
            "gs": np.zeros(N_GS, np.int64), "s1": np.zeros(cap, np.int64),
            "s2": np.zeros(cap, np.int64), "ec": np.zeros((N_EC, n_seats, k), np.uint16)}


def play_block(s, g0, g1, dice_rng, pol_rng, out, game0=0) -> None:
    """Allocate the block's scratch and run ``_play_block`` (releases the GIL); ``game0`` is
    the run's id of ``out`` row 0 (``GameSpec.game_id_options``)."""
    c = s.compiled
    n_seats = len(s.kinds)
    w = scratch(s, n_seats)
    _play_block(c.ri, c.card, c.alt, c.alt_n, buy_scores(c.card, c.alt, c.alt_n, s.params),
                c.base_attack, c.base_defense, s.kinds,
                s.params, s.forbid, g0, g1, game0, dice_rng, pol_rng, w["pp"], w["pn"], w["fl"],
                w["ps"], w["sh"], w["shn"], w["tmp"], w["rows"], w["supply"], w["box"], w["gs"],
                w["s1"], w["s2"], out["winner"], out["tie"], out["tied"], out["rounds"],
                out["truncated"], out["failed_raids"], out["census"], out["cards"], out["legend"],
                out["raid_legend"], out["raids"], out["character"], out["earls"], out["won"],
                out["acquired"], out["pillaged"], out["lost"], out["silver_avail"],
                out["silver_spent"])
