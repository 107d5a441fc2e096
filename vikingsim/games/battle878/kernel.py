"""Private kernels: one 878 battle resolved to the end (878 §4), with every expansion hook.

No input checks here (``setup`` validated everything). Streams: battle dice, Runes/Prayer
dice, Fyrd-deck draws and the Raven Banner die use ``dice`` (the dice stream); every policy
coin uses ``pol`` (the policy stream). The plain-Python ``reference.py`` makes the same draws
in the same order, so results are bit-identical.

Draw order of one battle (the contract with ``reference.py``):
  setup: forced Epic card; Fyrd-deck draws (deck built lazily at the first draw: epic_deck
  Epic cards picked by partial Fisher-Yates, then one uniform pick among the remaining cards
  per draw) for Christian's Wrath, Edmund's Martyrdom, fyrd_card, Arm Ring, in that order;
  the Raven Banner Thegn die.
  each roll: battle dice per unit slot 0..5 (one d6 per die); Edmund's Faith re-rolls
  (slot order); Runes/Prayer dice (faction order: Norsemen, Berserker / Housecarl, Thegn);
  spending (rolling side first): Omens re-rolls, Defend-the-Faith Fyrd draws.
"""
import numpy as np

from vikingsim.core.jit import jit
from vikingsim.core.rng import _d6
from vikingsim.games.battle878 import rules as R
from vikingsim.games.battle878.policies import P_CUT, P_RATIO, PolicyKind

# unit slots (rules.Unit) and the structure pseudo-target
UN, UB, UH, UT, UF, UV = 0, 1, 2, 3, 4, 5
STRUCT = 6
V, E = 0, 1
HIT, FLEE, CMD = int(R.Face.HIT), int(R.Face.FLEE), int(R.Face.COMMAND)
RUNE, CONV, MART, FAITH = (int(R.RuneFace.RUNE), int(R.RuneFace.CONVERSION),
                           int(R.RuneFace.MARTYRDOM), int(R.RuneFace.FAITH))
DIE_B = int(R.Die.BERSERKER)
# Epic bits
EB_DIS = 1 << int(R.Epic.DISORGANIZED_COMBAT)
EB_EPIC = 1 << int(R.Epic.EPIC_BATTLE)
EB_FAITH = 1 << int(R.Epic.FAITH)
EB_FOUL = 1 << int(R.Epic.FOUL_WEATHER)
EB_REINF = 1 << int(R.Epic.REINFORCEMENTS)
EB_SINGLE = 1 << int(R.Epic.SINGLE_COMBAT)
EB_TRAIT = 1 << int(R.Epic.TRAITORS)
# policy kinds
K_DEFAULT, K_NEVER, K_GREEDY, K_SMART, K_RETREAT, K_RANDOM = (
    int(PolicyKind.DEFAULT), int(PolicyKind.NEVER), int(PolicyKind.GREEDY),
    int(PolicyKind.SMART), int(PolicyKind.RETREAT), int(PolicyKind.RANDOM))
# outcomes
O_VW, O_EW, O_BOTH, O_GP, O_VR, O_ER, O_TR = range(7)
# effect tallies (out["effects"] columns)
EF_OMENS, EF_RAGE, EF_RAGNAROK, EF_MARTYRDOM, EF_FIV, EF_DTF, EF_CONVERT, EF_GP, \
    EF_RUNES_ROLLED, EF_PRAYER_ROLLED = range(10)
N_EFF = 10
EFFECT_NAMES = ("omens", "battle_rage", "ragnarok", "martyrdom", "faith_in_victory",
                "defend_the_faith", "convert", "gods_peace", "runes_rolled", "prayer_rolled")
# scalar state sv[...] shared with helpers
S_EPIC, S_TRAITOR, S_DECK_N, S_DECK_POS, S_STRUCT, N_SV = range(6)


@jit(inline="always")
def _owner_alive(cnt, own, side):
    t = 0
    for k in range(6):
        if own[k] == side:
            t += cnt[k]
    return t


@jit
def _strength(cnt, own, side, struct, fort, settle, max_dice, unit_die, phit):
    """Expected Hits of one roll times units (+structure): the policies' odds proxy."""
    s = 0.0
    n = 0
    for k in range(6):
        if own[k] == side:
            nd = cnt[k]
            if side == V and struct > 0 and k == UN and fort:
                nd += 1
            if side == V and struct > 0 and k == UB and (fort or settle):
                nd += 1
            md = max_dice[unit_die[k]]
            if nd > md:
                nd = md
            s += nd * phit[unit_die[k]]
            n += cnt[k]
    if side == V:
        n += struct
    return s * n


@jit
def _activate_epic(e, ri, pkind, cnt, own, joined, sv, pol):
    """Epic Battle card ``e`` joins this battle (SEED §7.2-7.3); one-off setup effects here."""
    bit = 1 << e
    if sv[S_EPIC] & bit:
        return
    sv[S_EPIC] |= bit
    if bit == EB_REINF:  # SEED §7.3 Reinforcements: 4 units per faction + 4 Fyrd
        ru = ri[R.R_REINF_UNITS]
        for k in range(4):
            cnt[k] += ru
            joined[k] += ru
        cnt[UF] += ri[R.R_REINF_FYRD]
        joined[UF] += ri[R.R_REINF_FYRD]
    elif bit == EB_EPIC:  # SEED §7.3 Epic Battle: defenders first; policies bring all units
        for k, rk in ((UN, R.R_ADJ_NORSEMEN), (UB, R.R_ADJ_BERSERKERS),
                      (UH, R.R_ADJ_HOUSECARLS), (UT, R.R_ADJ_THEGNS)):
            cnt[k] += ri[rk]
            joined[k] += ri[rk]
    elif bit == EB_TRAIT:  # SEED §7.3 Traitors (878 §5 default pick, §6.8 one faction: none)
        att = ri[R.R_ATTACKER]
        a = UN if att == V else UH
        b = UB if att == V else UT
        if cnt[a] > 0 and cnt[b] > 0 and own[a] == att and own[b] == att and sv[S_TRAITOR] < 0:
            if pkind[att] == K_RANDOM:
                t = a if pol.random() < 0.5 else b
            elif att == V:
                t = UB if cnt[UB] < cnt[UN] else UN      # fewer units; tie: Norsemen
            else:
                t = UH if cnt[UH] < cnt[UT] else UT      # fewer units; tie: Thegns
            own[t] = 1 - att
            sv[S_TRAITOR] = t


@jit
def _draw_fyrd(ri, fyrd_cards, deck, pkind, cnt, own, joined, sv, dice, pol):
    """Draw Fyrd cards until a Fyrd card (878 §2.5, SEED §7.2); returns its Fyrd count.

    Deck = fyrd_cards + epic_deck Epic cards (coded -1-e), built at the first draw of the
    battle; each draw picks uniformly among the cards left. An empty deck is rebuilt from the
    Fyrd cards only (DEFAULT simplification of SEED §7.2's reshuffle).
    """
    nf = fyrd_cards.shape[0]
    if sv[S_DECK_N] < 0:
        for i in range(nf):
            deck[i] = fyrd_cards[i]
        k = ri[R.R_EPIC_DECK]
        ep = np.arange(8)
        for i in range(k):
            j = i + int(dice.random() * (8 - i))
            x = ep[i]
            ep[i] = ep[j]
            ep[j] = x
            deck[nf + i] = -1 - ep[i]
        sv[S_DECK_N] = nf + k
        sv[S_DECK_POS] = 0
    while True:
        if sv[S_DECK_POS] >= sv[S_DECK_N]:
            for i in range(nf):
                deck[i] = fyrd_cards[i]
            sv[S_DECK_N] = nf
            sv[S_DECK_POS] = 0
        p = sv[S_DECK_POS]
        j = p + int(dice.random() * (sv[S_DECK_N] - p))
        x = deck[j]
        deck[j] = deck[p]
        deck[p] = x
        sv[S_DECK_POS] = p + 1
        if x >= 0:
            return x
        _activate_epic(-1 - x, ri, pkind, cnt, own, joined, sv, pol)


@jit
def _hit_target(kind, side, cnt, own, struct, pol):
    """Which of ``side``'s units takes the next Hit (878 §4.6 orders, or random). -1: none."""
    if kind == K_RANDOM:
        n = 0
        for k in range(6):
            if own[k] == side and cnt[k] > 0:
                n += 1
        if side == V and struct > 0:
            n += 1
        if n == 0:
            return -1
        pick = int(pol.random() * n)
        for k in range(6):
            if own[k] == side and cnt[k] > 0:
                if pick == 0:
                    return k
                pick -= 1
        return STRUCT
    if side == V:  # traitors (878 §5), Viking Fyrd (§4.14), Norsemen, Berserkers, Fort (§4.6)
        for k in (UH, UT):
            if own[k] == V and cnt[k] > 0:
                return k
        if own[UV] == V and cnt[UV] > 0:
            return UV
        if own[UN] == V and cnt[UN] > 0:
            return UN
        if own[UB] == V and cnt[UB] > 0:
            return UB
        if struct > 0:
            return STRUCT
        return -1
    # English: traitor units first, then Fyrd, Thegns, Housecarls
    if own[UN] == E and cnt[UN] > 0:
        return UN
    if own[UB] == E and cnt[UB] > 0:
        return UB
    if cnt[UF] > 0:
        return UF
    if own[UT] == E and cnt[UT] > 0:
        return UT
    if own[UH] == E and cnt[UH] > 0:
        return UH
    return -1


@jit
def _disorganized_target(side, cnt, own, struct):
    """SEED §7.3 Disorganized Combat: the roller hits the most valuable enemy (878 §5)."""
    if side == V:
        for k in (UB, UN):
            if own[k] == V and cnt[k] > 0:
                return k
        if struct > 0:
            return STRUCT
        for k in (UV, UH, UT):       # Viking Fyrd, then English traitors (878 §5: least valuable)
            if own[k] == V and cnt[k] > 0:
                return k
        return -1
    for k in (UH, UT, UF, UB, UN):
        if own[k] == E and cnt[k] > 0:
            return k
    return -1


@jit
def _resolve_hits(nh, s, cnt, own, dead, fled, struct, bfh, dis, reform_unit,
                  single, ragnarok, kind_recv, pol):
    """Apply ``nh`` Hits of side ``s`` to the other side; returns the structure left.

    Berserker first-hit rule (878 §4.6, base 4.5) on the first Hit when ``bfh``; Disorganized
    Combat (SEED §7.3) picks the next Hit's target; Single Combat, Ragnarök (SEED §4.3) and
    Æthelred (SEED §3.3, ``reform_unit``) turn deaths into flights. No dice drawn.
    """
    r = 1 - s
    dis_left = dis
    for i in range(nh):
        t = -1
        if i == 0 and bfh and own[UB] == V and cnt[UB] > 0:
            t = UB
        elif dis_left:
            t = _disorganized_target(r, cnt, own, struct)
            dis_left = False
        else:
            t = _hit_target(kind_recv, r, cnt, own, struct, pol)
        if t < 0:
            break
        if t == STRUCT:
            struct -= 1
            continue
        cnt[t] -= 1
        if single or t == reform_unit or (ragnarok and own[t] == V and t <= UB):
            fled[t] += 1
        else:
            dead[t] += 1
    return struct


@jit
def _battle(faces, hit_t, flee_t, cmd_t, rune_faces, prayer_faces, max_dice, unit_die,
            fyrd_cards, ri, phit, pkind, pparam, dice, pol, cnt, own, dead, fled, ret, joined,
            left, h, fl, c, nd, deck, eff, sv):
    """One battle to the end. Returns (outcome, rolls, structure left). No input checks.

    Per-slot arrays (int64, shape=(6,), Unit order) are reset here and hold the result;
    ``hit_t``, ``flee_t``, ``cmd_t`` (int64, shape=(5, 6)) are 0/1 face tables of ``faces``.
    """
    att = ri[R.R_ATTACKER]
    lag = ri[R.R_LAGERTHA]
    cnt[UN] = ri[R.R_NORSEMEN] + 2 * lag       # SEED §9.2 Lagertha brings 2 N + 1 B
    cnt[UB] = ri[R.R_BERSERKERS] + lag
    cnt[UH] = ri[R.R_HOUSECARLS]
    cnt[UT] = ri[R.R_THEGNS]
    cnt[UF] = ri[R.R_FYRD]
    cnt[UV] = 0
    for k in range(6):
        own[k] = V if (k <= UB or k == UV) else E
        dead[k] = 0
        fled[k] = 0
        ret[k] = 0
        joined[k] = 0
        left[k] = 0
    for k in range(N_EFF):
        eff[k] = 0
    fort = ri[R.R_FORT]
    settle = ri[R.R_SETTLEMENT]
    struct = fort * ri[R.R_FORT_HITS] + settle   # SEED §1.4-1.5: one Hit each
    sv[S_EPIC] = 0
    sv[S_TRAITOR] = -1
    sv[S_DECK_N] = -1
    sv[S_DECK_POS] = 0
    # ---- setup (draw order: see module docstring)
    if ri[R.R_EPIC_MASK]:
        for e in range(8):
            if ri[R.R_EPIC_MASK] & (1 << e):
                _activate_epic(e, ri, pkind, cnt, own, joined, sv, pol)
    if ri[R.R_CHRISTIANS_WRATH]:   # SEED §1.3
        x = _draw_fyrd(ri, fyrd_cards, deck, pkind, cnt, own, joined, sv, dice, pol)
        cnt[UF] += x
        joined[UF] += x
    if ri[R.R_EDMUNDS_MARTYRDOM]:  # SEED §5.2
        x = _draw_fyrd(ri, fyrd_cards, deck, pkind, cnt, own, joined, sv, dice, pol)
        cnt[UF] += x
        joined[UF] += x
    if ri[R.R_FYRD_CARD]:          # 878 §2.5 base trigger
        x = _draw_fyrd(ri, fyrd_cards, deck, pkind, cnt, own, joined, sv, dice, pol)
        cnt[UF] += x
        joined[UF] += x
    if ri[R.R_ARM_RING]:           # SEED §5.4: Fyrd on the Viking side
        x = _draw_fyrd(ri, fyrd_cards, deck, pkind, cnt, own, joined, sv, dice, pol)
        cnt[UV] += x
        joined[UV] += x
    raven = 0
    if ri[R.R_RAVEN_BANNER]:       # SEED §5.4: one Thegn die at the start
        rf = faces[3, _d6(dice) - 1]
        if rf == HIT:
            raven = 1
        elif rf == FLEE:
            raven = 2
    # Æthelred's active faction (SEED §3.3): 'auto' = attacking faction with the most units
    reform_unit = -1
    if ri[R.R_MILITARY_REFORM]:
        reform_unit = ri[R.R_REFORM_UNIT]
        if reform_unit < 0:
            if att == V:
                reform_unit = UN if cnt[UN] >= cnt[UB] else UB
            else:
                reform_unit = UH if cnt[UH] >= cnt[UT] else UT
    bfh = ri[R.R_BERSERKER_FIRST_HIT] != 0       # still pending (878 §4.6)
    bfh_cas = ri[R.R_BFH_CASUALTY] != 0          # scope: first casualty, not first English roll
    north = ri[R.R_NORTHUMBRIA] != 0
    ragnar = ri[R.R_RAGNAR] != 0
    edm = ri[R.R_EDMUNDS_FAITH] != 0
    edm_side = E if ri[R.R_EDMUNDS_SIDE] == 1 else V
    rp = ri[R.R_RUNES_PRAYER] != 0
    linen = ri[R.R_LINEN_CLOTHES]
    cmd_fyrd = ri[R.R_COMMAND_FYRD] != 0
    max_rolls = ri[R.R_MAX_ROLLS]
    # Runes/Prayer pools (SEED §4.1, §4.5: every battle starts with no dice on the cards)
    r_avail = ri[R.R_RUNES_DICE]
    r_rune = 0
    r_conv = 0          # Viking dice showing Conversion, on the English Prayer card
    p_avail = ri[R.R_PRAYER_DICE]
    p_faith = 0
    p_conv = 0
    ragnarok = False
    reserve = ri[R.R_RESERVE_BERSERKERS]
    bank_v = 0          # Foul Weather: Hits of the Vikings' next roll to cancel
    bank_e = 0
    first_eng = True
    side = (1 - att) if ri[R.R_FIRST_ROLLER] == 0 else att   # 878 §4.2
    rolls = 0
    outcome = O_TR
    while True:
        if rolls >= max_rolls:
            outcome = O_TR
            break
        rolls += 1
        s = side
        epic = sv[S_EPIC]
        # Raven Banner Flee: 1 Norseman and 1 Berserker flee before each Viking roll
        if s == V and raven == 2:
            for k in (UN, UB):
                if own[k] == V and cnt[k] > 0:
                    cnt[k] -= 1
                    fled[k] += 1
            if _owner_alive(cnt, own, V) + struct == 0:
                outcome = O_BOTH if _owner_alive(cnt, own, E) == 0 else O_EW
                break
        # ---- 878 §4.3 battle dice, slot order 0..5
        for k in range(6):
            h[k] = 0
            fl[k] = 0
            c[k] = 0
            nd[k] = 0
            if own[k] != s:
                continue
            n = cnt[k]
            if s == V and struct > 0:      # 878 §4.4 Fort/Settlement extra dice
                if k == UN and fort:
                    n += 1
                elif k == UB:
                    n += 1
            d = unit_die[k]
            if n > max_dice[d]:
                n = max_dice[d]
            nd[k] = n
            hh = 0
            ff = 0
            cc = 0
            for _ in range(n):
                i = _d6(dice) - 1
                hh += hit_t[d, i]
                ff += flee_t[d, i]
                cc += cmd_t[d, i]
            h[k] = hh
            fl[k] = ff
            c[k] = cc
        # ---- SEED §3.3 Edmund's Faith: re-roll Flee and Command results once
        if edm and s == edm_side:
            for k in range(6):
                m = fl[k] + c[k]
                if m == 0:
                    continue
                fl[k] = 0
                c[k] = 0
                d = unit_die[k]
                for _ in range(m):
                    i = _d6(dice) - 1
                    h[k] += hit_t[d, i]
                    fl[k] += flee_t[d, i]
                    c[k] += cmd_t[d, i]
        # ---- 878 §4.7 Ragnar: Commands of the first English roll count as Flees
        if ragnar and s == E and first_eng:
            for k in range(6):
                fl[k] += c[k]
                c[k] = 0
        # ---- 878 §4.8 Northumbria: first English Flee ignored (H, T, F, then traitors)
        ignored = 0
        if north and s == E:
            for k in (UH, UT, UF, UB, UN):
                if own[k] == E and fl[k] > 0:
                    fl[k] -= 1
                    ignored = 1
                    north = False
                    break
        # ---- SEED §4 Runes and Prayer
        martyr = False
        gods_peace = False
        if rp:
            ks = pkind[s]
            if s == V:
                for k in (UN, UB):  # each Viking faction present may roll one Runes die
                    if own[k] != V or cnt[k] == 0:
                        continue
                    want = False
                    if ks == K_GREEDY:
                        want = True
                    elif ks == K_SMART:
                        # stop feeding the Prayer card Conversions (God's Peace threat)
                        want = p_conv + r_conv < ri[R.R_GODS_PEACE_COST] - pparam[V, P_CUT]
                    elif ks == K_RANDOM:
                        want = pol.random() < 0.5
                    if r_avail > 0:
                        if want:
                            r_avail -= 1
                            eff[EF_RUNES_ROLLED] += 1
                            if rune_faces[_d6(dice) - 1] == RUNE:
                                r_rune += 1
                            else:
                                r_conv += 1
                    elif r_conv > 0 and (ks == K_GREEDY or ks == K_SMART or
                                         (ks == K_RANDOM and pol.random() < 0.5)):
                        # SEED §4.1: all placed; re-roll one (a Conversion, to deny the English)
                        r_conv -= 1
                        eff[EF_RUNES_ROLLED] += 1
                        if rune_faces[_d6(dice) - 1] == RUNE:
                            r_rune += 1
                        else:
                            r_conv += 1
            else:
                for k in (UH, UT):
                    if own[k] != E or cnt[k] == 0:
                        continue
                    want = False
                    if ks == K_GREEDY or ks == K_SMART:
                        want = True
                    elif ks == K_RANDOM:
                        want = pol.random() < 0.5
                    if not want:
                        continue
                    pf = -1
                    if p_avail > 0:
                        p_avail -= 1
                        pf = prayer_faces[_d6(dice) - 1]
                    elif p_faith > 0:
                        p_faith -= 1      # re-roll a Faith die (SEED §4.1)
                        pf = prayer_faces[_d6(dice) - 1]
                    if pf < 0:
                        continue
                    eff[EF_PRAYER_ROLLED] += 1
                    if pf == MART:        # automatic; the die leaves the card at once
                        martyr = True
                        eff[EF_MARTYRDOM] += 1
                        p_avail += 1
                    elif pf == CONV:
                        p_conv += 1
                    else:
                        p_faith += 1
            # spending: rolling side first, then the other (DEFAULT order)
            for step in range(2):
                sp = s if step == 0 else 1 - s
                ksp = pkind[sp]
                if ksp == K_DEFAULT or ksp == K_NEVER or ksp == K_RETREAT:
                    continue
                if sp == V:
                    if ksp != K_SMART and not ragnarok and r_rune >= ri[R.R_RAGNAROK_COST]:
                        r_rune -= ri[R.R_RAGNAROK_COST]
                        r_avail += ri[R.R_RAGNAROK_COST]
                        ragnarok = True
                        eff[EF_RAGNAROK] += 1
                    # Battle Rage: a Norseman swapped for a Reserve Berserker
                    while (r_rune >= ri[R.R_BATTLE_RAGE_COST] and own[UN] == V and cnt[UN] > 0
                           and own[UB] == V and reserve > 0):
                        if ksp == K_SMART and cnt[UB] >= max_dice[DIE_B]:
                            break
                        r_rune -= ri[R.R_BATTLE_RAGE_COST]
                        r_avail += ri[R.R_BATTLE_RAGE_COST]
                        cnt[UN] -= 1
                        left[UN] += 1
                        cnt[UB] += 1
                        joined[UB] += 1
                        reserve -= 1
                        eff[EF_RAGE] += 1
                        if ksp == K_SMART:
                            break
                    # Omens of Victory: re-roll the non-Hit dice of one type (SEED §4.3 cost)
                    while s == V and r_rune >= ri[R.R_OMENS_COST]:
                        best = -1
                        bestv = 0.0
                        for k in (UN, UB):
                            if own[k] != V:
                                continue
                            nh = nd[k] - h[k]
                            if nh <= 0:
                                continue
                            val = nh * 1.0 if ksp != K_SMART else nh * phit[unit_die[k]]
                            if val > bestv:
                                bestv = val
                                best = k
                        if best < 0:
                            break
                        r_rune -= ri[R.R_OMENS_COST]
                        r_avail += ri[R.R_OMENS_COST]
                        eff[EF_OMENS] += 1
                        m = nd[best] - h[best]
                        fl[best] = 0
                        c[best] = 0
                        d = unit_die[best]
                        for _ in range(m):
                            i = _d6(dice) - 1
                            h[best] += hit_t[d, i]
                            fl[best] += flee_t[d, i]
                            c[best] += cmd_t[d, i]
                else:
                    conv = p_conv + r_conv
                    bad = False
                    if ksp == K_SMART:
                        es = _strength(cnt, own, E, struct, fort, settle, max_dice, unit_die, phit)
                        vs = _strength(cnt, own, V, struct, fort, settle, max_dice, unit_die, phit)
                        bad = es < pparam[E, P_RATIO] * vs
                    if (conv >= ri[R.R_GODS_PEACE_COST] and ri[R.R_GODS_PEACE_EXIT]
                            and (ksp != K_SMART or bad)):
                        gods_peace = True
                        eff[EF_GP] += 1
                        break
                    while p_faith >= ri[R.R_DEFEND_FAITH_COST]:   # Defend the Faith
                        p_faith -= ri[R.R_DEFEND_FAITH_COST]
                        p_avail += ri[R.R_DEFEND_FAITH_COST]
                        x = _draw_fyrd(ri, fyrd_cards, deck, pkind, cnt, own, joined, sv,
                                       dice, pol)
                        cnt[UF] += x
                        joined[UF] += x
                        eff[EF_DTF] += 1
                    while (p_conv + r_conv >= ri[R.R_CONVERT_COST] and own[UN] == V
                           and cnt[UN] > 0 and (ksp != K_SMART or not bad)):
                        # Convert (878 §6.7): a Norseman leaves, a Thegn joins; English dice first
                        cc = ri[R.R_CONVERT_COST]
                        fe = p_conv if p_conv < cc else cc
                        p_conv -= fe
                        p_avail += fe
                        r_conv -= cc - fe
                        r_avail += cc - fe
                        cnt[UN] -= 1
                        left[UN] += 1
                        cnt[UT] += 1
                        joined[UT] += 1
                        eff[EF_CONVERT] += 1
                    if s == E and (ksp != K_SMART or p_avail == 0):
                        while p_faith >= 1 and fl[UF] > 0:   # Faith in Victory
                            fl[UF] -= 1
                            p_faith -= 1
                            p_avail += 1
                            eff[EF_FIV] += 1
        if gods_peace:
            outcome = O_GP
            break
        epic = sv[S_EPIC]
        # Martyrdom: no English Command this roll; under Foul Weather they are not banked
        # either unless martyrdom_blocks_bank is off (assumption, see Rules)
        if martyr and (ri[R.R_MARTYRDOM_BLOCKS_BANK] or not (epic & EB_FOUL)):
            for k in range(6):
                c[k] = 0
        hits = 0
        nfl = 0
        ncmd = 0
        for k in range(6):
            hits += h[k]
            nfl += fl[k]
            ncmd += c[k]
        if s == V and raven == 1:
            hits += 1                      # SEED §5.4 Raven Banner Hit
        if epic & EB_FAITH:                # SEED §7.3 Faith: one Flee also counts as a Hit
            if nfl > 0 or (ignored and ri[R.R_FAITH_COUNTS_IGNORED]):
                hits += 1
        if epic & EB_FOUL:                 # SEED §7.3 Foul Weather: banked Commands cancel Hits
            if s == V:
                x = bank_v if bank_v < hits else hits
                hits -= x
                bank_v = 0
                bank_e = ncmd
            else:
                x = bank_e if bank_e < hits else hits
                hits -= x
                bank_e = 0
                bank_v = ncmd
        # ---- 878 §4.5 own Flees (Fort/Settlement never flee; fled Fyrd leave play)
        for k in range(6):
            if fl[k] > 0:
                x = fl[k] if fl[k] < cnt[k] else cnt[k]
                cnt[k] -= x
                fled[k] += x
        # ---- 878 §4.6 Hits on the enemy
        if hits > 0:
            struct = _resolve_hits(hits, s, cnt, own, dead, fled, struct,
                                   bfh and s == E, (epic & EB_DIS) != 0,
                                   reform_unit, (epic & EB_SINGLE) != 0, ragnarok,
                                   pkind[1 - s], pol)
        if s == E and (hits > 0 or not bfh_cas):
            bfh = False                    # 878 §4.6: the first-hit rule is used up
        # ---- Command retreats (878 §2.3, §5; Linen Clothes SEED §5.2: 2 units each)
        retreated = False
        ks = pkind[s]
        if ncmd > 0 and not (epic & EB_FOUL) and (ks == K_RETREAT or ks == K_RANDOM):
            go = False
            if ks == K_RETREAT:
                mine = _strength(cnt, own, s, struct, fort, settle, max_dice, unit_die, phit)
                theirs = _strength(cnt, own, 1 - s, struct, fort, settle, max_dice, unit_die,
                                   phit)
                go = mine < pparam[s, P_RATIO] * theirs
            else:
                go = pol.random() < 0.2
            if go:
                per = 2 if (linen == 3 or (linen == 1 and s == V) or (linen == 2 and s == E)) \
                    else 1
                moves = ncmd * per
                for k in ((UB, UN, UV, -1, -1) if s == V else (UH, UT, UF, -1, -1)):
                    if k < 0 or moves == 0:
                        break
                    if own[k] != s or ((k == UV or k == UF) and not cmd_fyrd):
                        continue
                    x = moves if moves < cnt[k] else cnt[k]
                    if x > 0:
                        cnt[k] -= x
                        ret[k] += x
                        moves -= x
                        retreated = True
        if s == E:
            first_eng = False
        # ---- 878 §4.10 end
        va = _owner_alive(cnt, own, V) + struct
        ea = _owner_alive(cnt, own, E)
        if va == 0 and ea == 0:
            outcome = O_BOTH
            break
        if va == 0:
            outcome = O_VR if (retreated and s == V) else O_EW
            break
        if ea == 0:
            outcome = O_ER if (retreated and s == E) else O_VW
            break
        side = 1 - s
    return outcome, rolls, struct


@jit
def _fast_ok(ri, pkind):
    """True when only base rules are on (878 §4 plus Fort/Settlement, Ragnar, Northumbria and
    the first-hit rule) and both policies are default/never: ``_battle_base`` then applies."""
    if pkind[0] != K_DEFAULT and pkind[0] != K_NEVER:
        return False
    if pkind[1] != K_DEFAULT and pkind[1] != K_NEVER:
        return False
    for i in (R.R_EPIC_MASK, R.R_CHRISTIANS_WRATH, R.R_EDMUNDS_MARTYRDOM, R.R_FYRD_CARD,
              R.R_ARM_RING, R.R_RAVEN_BANNER, R.R_EDMUNDS_FAITH, R.R_MILITARY_REFORM,
              R.R_RUNES_PRAYER):
        if ri[i] != 0:
            return False
    return True


@jit(inline="always")
def _roll_dice(packed, d, n, dice):
    """``n`` dice of die ``d``: (hits, flees), branch-free: ``packed[d, face]`` holds
    hit + (flee << 16), so one add per die counts both."""
    acc = 0
    for _ in range(n):
        acc += packed[d, _d6(dice) - 1]
    return acc & 0xFFFF, acc >> 16


@jit
def _battle_base(pk_flee, pk_fc, max_dice, ri, dice, res):
    """The base battle (878 §4.1-§4.10) on scalars: the lean hot path.

    Same draws and results as ``_battle`` under the rules ``_fast_ok`` allows. ``pk_flee``,
    ``pk_fc`` (int64, shape=(5, 6)) pack Hit + (Flee << 16), resp. Hit + (Flee-or-Command
    << 16), per die and face. Writes
    res[0:6] alive, res[6:12] dead, res[12:18] fled (Unit order); returns
    (outcome, rolls, structure left). No input checks.
    """
    att = ri[R.R_ATTACKER]
    lag = ri[R.R_LAGERTHA]
    n = ri[R.R_NORSEMEN] + 2 * lag
    b = ri[R.R_BERSERKERS] + lag
    hc = ri[R.R_HOUSECARLS]
    th = ri[R.R_THEGNS]
    fy = ri[R.R_FYRD]
    fort = ri[R.R_FORT]
    struct = fort * ri[R.R_FORT_HITS] + ri[R.R_SETTLEMENT]
    dn = db = dh = dt = df = 0
    fn = fb = fh = ft = ff = 0
    bfh = ri[R.R_BERSERKER_FIRST_HIT] != 0       # still pending (878 §4.6)
    bfh_cas = ri[R.R_BFH_CASUALTY] != 0
    north = ri[R.R_NORTHUMBRIA] != 0
    ragnar = ri[R.R_RAGNAR] != 0
    mn, mb, mh, mt, mf = max_dice[0], max_dice[1], max_dice[2], max_dice[3], max_dice[4]
    max_rolls = ri[R.R_MAX_ROLLS]
    side = (1 - att) if ri[R.R_FIRST_ROLLER] == 0 else att
    first_eng = True
    rolls = 0
    outcome = O_TR
    while True:
        if rolls >= max_rolls:
            outcome = O_TR
            break
        rolls += 1
        if side == V:
            k = n
            if struct > 0 and fort:
                k += 1
            if k > mn:
                k = mn
            h1, f1 = _roll_dice(pk_flee, 0, k, dice)
            k = b + 1 if struct > 0 else b
            if k > mb:
                k = mb
            h2, f2 = _roll_dice(pk_flee, 1, k, dice)
            hits = h1 + h2
            x = f1 if f1 < n else n          # 878 §4.5 own Flees
            n -= x
            fn += x
            x = f2 if f2 < b else b
            b -= x
            fb += x
            x = hits if hits < fy else fy    # 878 §4.6 English order: Fyrd, Thegns, Housecarls
            fy -= x
            df += x
            hits -= x
            x = hits if hits < th else th
            th -= x
            dt += x
            hits -= x
            x = hits if hits < hc else hc
            hc -= x
            dh += x
        else:
            pk = pk_fc if (ragnar and first_eng) else pk_flee   # 878 §4.7 Commands → Flees
            h1, f1 = _roll_dice(pk, 2, hc if hc < mh else mh, dice)
            h2, f2 = _roll_dice(pk, 3, th if th < mt else mt, dice)
            h3, f3 = _roll_dice(pk, 4, fy if fy < mf else mf, dice)
            if north:                        # 878 §4.8: Housecarl, Thegn, Fyrd
                if f1 > 0:
                    f1 -= 1
                    north = False
                elif f2 > 0:
                    f2 -= 1
                    north = False
                elif f3 > 0:
                    f3 -= 1
                    north = False
            hits = h1 + h2 + h3
            x = f1 if f1 < hc else hc
            hc -= x
            fh += x
            x = f2 if f2 < th else th
            th -= x
            ft += x
            x = f3 if f3 < fy else fy
            fy -= x
            ff += x
            if bfh and (hits > 0 or not bfh_cas):   # base rule 4.5, used up (scope option)
                bfh = False
                if hits > 0 and b > 0:
                    b -= 1
                    db += 1
                    hits -= 1
            x = hits if hits < n else n      # 878 §4.6 Viking order: Norsemen, Berserkers, Fort
            n -= x
            dn += x
            hits -= x
            x = hits if hits < b else b
            b -= x
            db += x
            hits -= x
            x = hits if hits < struct else struct
            struct -= x
            first_eng = False
        va = n + b + struct
        ea = hc + th + fy
        if va == 0 and ea == 0:
            outcome = O_BOTH
            break
        if va == 0:
            outcome = O_EW
            break
        if ea == 0:
            outcome = O_VW
            break
        side = 1 - side
    res[0] = n
    res[1] = b
    res[2] = hc
    res[3] = th
    res[4] = fy
    res[6] = dn
    res[7] = db
    res[8] = dh
    res[9] = dt
    res[10] = df
    res[12] = fn
    res[13] = fb
    res[14] = fh
    res[15] = ft
    res[16] = ff
    return outcome, rolls, struct


@jit
def _play_block(faces, rune_faces, prayer_faces, max_dice, unit_die, fyrd_cards, ri, phit,
                pkind, pparam, g0, g1, dice, pol, o_outcome, o_rolls, o_alive, o_dead, o_fled,
                o_ret, o_joined, o_left, o_struct, o_epic, o_traitor, o_effects):
    """Battles g0..g1-1 into the output arrays (rows g). Scratch allocated once per block."""
    cnt = np.zeros(6, np.int64)
    own = np.zeros(6, np.int64)
    dead = np.zeros(6, np.int64)
    fled = np.zeros(6, np.int64)
    ret = np.zeros(6, np.int64)
    joined = np.zeros(6, np.int64)
    left = np.zeros(6, np.int64)
    h = np.zeros(6, np.int64)
    fl = np.zeros(6, np.int64)
    c = np.zeros(6, np.int64)
    nd = np.zeros(6, np.int64)
    deck = np.zeros(fyrd_cards.shape[0] + 8, np.int64)
    eff = np.zeros(N_EFF, np.int64)
    sv = np.zeros(N_SV, np.int64)
    res = np.zeros(18, np.int64)
    hit_t = np.zeros((5, 6), np.int64)
    flee_t = np.zeros((5, 6), np.int64)
    cmd_t = np.zeros((5, 6), np.int64)
    fc_t = np.zeros((5, 6), np.int64)
    for d in range(5):
        for i in range(6):
            hit_t[d, i] = faces[d, i] == HIT
            flee_t[d, i] = faces[d, i] == FLEE
            cmd_t[d, i] = faces[d, i] == CMD
            fc_t[d, i] = faces[d, i] == FLEE or faces[d, i] == CMD
    if _fast_ok(ri, pkind):
        pk_flee = hit_t + (flee_t << 16)
        pk_fc = hit_t + (fc_t << 16)
        # outputs the base battle never changes (retreated, joined, left, effects, epic,
        # traitor) keep the values ``allocate`` gave them (zeros; traitor -1)
        for g in range(g0, g1):
            outcome, rolls, struct = _battle_base(pk_flee, pk_fc, max_dice, ri, dice, res)
            o_outcome[g] = outcome
            o_rolls[g] = rolls
            o_struct[g] = struct
            for k in range(5):
                o_alive[g, k] = res[k]
                o_dead[g, k] = res[6 + k]
                o_fled[g, k] = res[12 + k]
        return
    for g in range(g0, g1):
        outcome, rolls, struct = _battle(faces, hit_t, flee_t, cmd_t, rune_faces, prayer_faces,
                                         max_dice, unit_die, fyrd_cards, ri, phit, pkind, pparam,
                                         dice, pol, cnt, own, dead, fled, ret, joined, left, h,
                                         fl, c, nd, deck, eff, sv)
        o_outcome[g] = outcome
        o_rolls[g] = rolls
        o_struct[g] = struct
        o_epic[g] = sv[S_EPIC]
        o_traitor[g] = sv[S_TRAITOR]
        for k in range(6):
            o_alive[g, k] = cnt[k]
            o_dead[g, k] = dead[k]
            o_fled[g, k] = fled[k]
            o_ret[g, k] = ret[k]
            o_joined[g, k] = joined[k]
            o_left[g, k] = left[k]
        for k in range(N_EFF):
            o_effects[g, k] = eff[k]
