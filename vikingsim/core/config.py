"""Every tunable number that is not a rule (style rule 10)."""
import os

#: Games per RNG block unless a game sets ``GameSpec.block_games``. Block ``b`` owns games ``b*BLOCK_GAMES .. (b+1)*BLOCK_GAMES`` and its own
#: Generators, so a game's random numbers never depend on thread count or scheduling chunk size.
#: Part of every result's identity (recorded in the manifest as ``rng_scheme``).
BLOCK_GAMES = 4096
#: Default root seed: fixed and printed with every run, never the clock.
SEED = 20260
#: Monte Carlo vs exact tolerance in standard errors (k=4 fails a correct engine w.p. 6e-5 per check).
TEST_K_SE = 4.0
#: Plain-Python kernels (breakpoints, coverage); results must be identical.
DISABLE_JIT = os.environ.get("VIKINGSIM_DISABLE_JIT") == "1"
#: Games per segment of a run (whole RNG blocks): each segment's arrays are tallied, written and
#: dropped, so memory stays bounded for any n. Results never depend on it.
SEGMENT_GAMES = 1 << 20
#: ``keep="auto"`` keeps every game's arrays (``res.frame``) when they take at most this much.
KEEP_BYTES = 1 << 30
#: Refuse to hold more than this whole (``keep=True``); stream with ``parquet=`` instead.
KEEP_LIMIT_BYTES = 8 << 30
#: A warm-up game slower than this is compiling (loading from numba's cache is faster): say so.
COMPILE_NOTICE_S = 1.0
#: Rows per Parquet write (one row group): a tidy frame of a million 878 battles is ~0.5 GB.
WRITE_ROWS = 1 << 18
#: The module that maps game names to their ``GameSpec`` (``get(name)``, ``names()``). Core code
#: looks names up through it (``core.game.lookup``) and never imports the games, which import core.
GAME_REGISTRY = "vikingsim.games"
#: A running study rewrites its manifest (progress) at most this often, in seconds
#: (``studies.run._Rewrites``); the final manifest is always written.
MANIFEST_EVERY_S = 2.0

#: Seconds a Dask client waits to reach a scheduler (a given --scheduler or a new LocalCluster).
DASK_CONNECT_S = 20
