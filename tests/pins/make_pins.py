"""Regenerate ``configs.json``: the --json summaries of pinned configurations (issue 8's
"must not change" table). Run only when a rules change deliberately changes results, and
say which in the commit. ``elapsed_s``/``games_per_s`` are timing, not results: left out."""
import json
import sys
from pathlib import Path

import vikingsim

HERE = Path(__file__).resolve().parent
TIMING = ("elapsed_s", "games_per_s", "compile_s")

CONFIGS = [
    dict(game="raidboard", n=4000, seed=1, players=4),
    dict(game="raidboard", n=4000, seed=2, players=2),
    dict(game="raidboard", n=3000, seed=3, players=3, policies=["lookahead", "greedy", "random"]),
    dict(game="raidboard", n=3000, seed=4, players=5, options={"variant": "ends-of-earth"}),
    dict(game="raidboard", n=2000, seed=5, players=8),
    dict(game="raidboard", n=3000, seed=6, players=4,
         options={"raid_capture_min": 10, "gold_floor": -50, "settlement_supply": 6}),
    dict(game="raidboard", n=3000, seed=7, players=4,
         options={"miss_turn_skips_income": False, "sea_resolves_new_space": False,
                  "mercenary_raids": 3, "first_seat": 2}),
    dict(game="battle878", n=20000, seed=11),
    dict(game="battle878", n=20000, seed=12, options={"norsemen": 6, "ragnar": True}),
    dict(game="battle878", n=20000, seed=13, options={"fort": 1, "norsemen": 4}),
    dict(game="battle878", n=20000, seed=14, options={"attacker": "english"}),
    dict(game="battle878", n=20000, seed=15, options={"epic_card": "foul_weather"}),
    dict(game="battle878", n=20000, seed=16, options={"epic_card": "reinforcements", "fyrd": 2}),
    dict(game="battle878", n=20000, seed=17, options={"runes_prayer": True},
         policies=["smart", "smart"]),
    dict(game="battle878", n=20000, seed=18,
         options={"edmunds_faith": True, "northumbria": True, "raven_banner": True}),
    dict(game="battle878", n=20000, seed=19, options={"epic_card": "traitors"}),
    dict(game="battle878", n=20000, seed=20, options={"military_reform": True, "lagertha": True,
                                                       "epic_deck": 3, "fyrd_card": True}),
    dict(game="ravenfeast", n=50000, seed=21),
    dict(game="ravenfeast", n=50000, seed=22, options={"a": "huskarl", "b": "berserker"}),
    dict(game="ravenfeast", n=50000, seed=23, options={"a": "bondi", "b": "thrall",
                                                        "a_shield_wall": True, "b_uphill": True}),
    # warband/scenario pins captured before the §3.2 initiative option: they keep the fixed
    # order (initiative=a_first) and must still give the captured results; seeds 28-31 pin
    # the same configurations under the DEFAULT rolled initiative (added with the option).
    dict(game="ravenfeast", n=5000, seed=24, options={"mode": "warband",
                                                       "initiative": "a_first"}),
    dict(game="ravenfeast", n=5000, seed=25, options={"mode": "warband", "a": "huskarls10",
                                                       "b": "berserkers10",
                                                       "initiative": "a_first"}),
    dict(game="ravenfeast", n=3000, seed=26, options={"mode": "scenario",
                                                       "initiative": "a_first"}),
    dict(game="ravenfeast", n=3000, seed=27, options={"mode": "warband", "a": "jarl+huskarl*2+bondi*5",
                                                       "b": "jarl+thrall*8",
                                                       "thrall_victory": "off",
                                                       "initiative": "a_first"},
         policies=["wall", "spread"]),
    dict(game="ravenfeast", n=5000, seed=28, options={"mode": "warband"}),
    dict(game="ravenfeast", n=5000, seed=29, options={"mode": "warband", "a": "huskarls10",
                                                       "b": "berserkers10"}),
    dict(game="ravenfeast", n=3000, seed=30, options={"mode": "scenario"}),
    dict(game="ravenfeast", n=3000, seed=31, options={"mode": "warband", "a": "jarl+huskarl*2+bondi*5",
                                                       "b": "jarl+thrall*8",
                                                       "thrall_victory": "off"},
         policies=["wall", "spread"]),
]


def run(cfg: dict) -> dict:
    res = vikingsim.simulate(cfg["game"], n=cfg["n"], seed=cfg["seed"],
                             players=cfg.get("players"), policies=cfg.get("policies"),
                             options=cfg.get("options"), threads=2)
    s = json.loads(json.dumps(res.summary, default=float))
    return {k: v for k, v in s.items() if k not in TIMING}


if __name__ == "__main__":
    pins = [{"config": c, "summary": run(c)} for c in CONFIGS]
    (HERE / "configs.json").write_text(json.dumps(pins, indent=1, allow_nan=True) + "\n")
    print(f"wrote {len(pins)} pinned configurations", file=sys.stderr)
