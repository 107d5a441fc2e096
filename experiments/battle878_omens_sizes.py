"""Sizes behind 878 §5.2's Omens node (docs/benchmarks.md): the state table per game, the
in-roll states per Viking spending node, the engines' value table and an int8 Omens table."""
from vikingsim.games.battle878 import optimal_rp as RP
from vikingsim.games.battle878.rules import rules_from_options
for name, opts in (("RP_ARMY 3N+2B v 2H+2T", {"norsemen": 3, "berserkers": 2, "housecarls": 2, "thegns": 2, "runes_prayer": True}),
                   ("default 6N+2B v 3H+4T", {"runes_prayer": True})):
    spec = RP.rp_spec(rules_from_options(opts))
    N0, B0, H0, T0 = spec.units
    R, PD = spec.dice
    mn, mb = spec.max_dice[:2]
    row = (N0 + 1) * (B0 + 1) * (H0 + 1) * (T0 + N0 + 1) * (R + 1) ** 2 * (PD + 1) ** 2 * 4
    per_game = row * 2
    n_out = sum(1 for a in range(mn + 1) for f in range(mn + 1 - a) for o in range(mn + 1 - a - f))
    n_land = sum(1 for a in range(mn + 1) for f in range(mn + 1 - a))
    b_land = sum(1 for a in range(mb + 1) for f in range(mb + 1 - a))
    inroll = (R + 1) * n_land * b_land
    print(f"{name}: states per game {per_game:,}; entries per table row {row:,}; in-roll states "
          f"per Viking spending node (R+1) x {n_land} x {b_land} = {inroll}; engines' value table "
          f"{row:,} float64 = {row * 8 / 1e6:.1f} MB; int8 Omens table per in-roll state "
          f"{row:,} x {n_out} x {b_land} = {row * n_out * b_land:,} entries")
