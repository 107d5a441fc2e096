"""Time one exact Runes and Prayer solve per shipped 878 battle (docs/benchmarks.md, omens878):
``python experiments/battle878_omens_bench.py "{'omens': True}" [case,case]``; one JSON line each."""
import json
import sys
import time

from vikingsim.games.battle878 import optimal_rp as RP
from vikingsim.games.battle878.rules import rules_from_options
RP_ARMY = {"norsemen": 3, "berserkers": 2, "housecarls": 2, "thegns": 2, "runes_prayer": True}
CASES = {"rp_army": RP_ARMY, "rp_eng_seidr": {**RP_ARMY, "attacker": "english", "seidr": True},
         "rp_attfirst_r3": {**RP_ARMY, "first_roller": "attacker", "runes_dice": 3},
         "small_army": {"norsemen": 4, "berserkers": 2, "housecarls": 2, "thegns": 3, "runes_prayer": True},
         "default_army": {"runes_prayer": True}}
kw = eval(sys.argv[1]) if len(sys.argv) > 1 else {}
names = sys.argv[2].split(",") if len(sys.argv) > 2 else list(CASES)
RP.solve_rp(RP.rp_spec(rules_from_options({"norsemen":1,"berserkers":1,"housecarls":1,"thegns":1,"runes_prayer":True}), **kw))
for k in names:
    spec = RP.rp_spec(rules_from_options(CASES[k]), **kw)
    t = time.process_time()
    V = RP.solve_rp(spec)[0]
    dt = time.process_time() - t
    i = RP.start_index(spec)
    print(json.dumps({"case": k, "kw": str(kw), "states": int(V[0].size), "cpu_s": round(dt, 2),
                      "vik": repr(float(V[(0, *i)])), "eng": repr(float(V[(1, *i)]))}), flush=True)
