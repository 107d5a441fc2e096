"""Stop a `vikingsim` command with SIGTERM once it has saved some chunks (the test of resume
after a kill, shared by the study, tournament, balance and restricted-play tests)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sigterm_after(argv: list, out: Path, pattern: str = "data/*/*.tally.json", *,
                  at_least: int = 1, cwd=ROOT) -> str:
    """Run ``python -m vikingsim *argv`` (the package of this checkout), send SIGTERM once
    ``at_least`` files match ``out/pattern``; assert exit 143 and a single stderr line naming
    ``--resume`` (no traceback), and return that line. A run that ends before saving
    ``at_least`` chunk files fails the test (the run is finite: no clock is needed)."""
    proc = subprocess.Popen([sys.executable, "-m", "vikingsim", *map(str, argv)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    while len(list(out.glob(pattern))) < at_least:
        assert proc.poll() is None, proc.communicate()    # ended before it saved enough
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    err = proc.communicate(timeout=120)[1]
    assert proc.returncode == 143, err
    assert "--resume" in err and len(err.strip().splitlines()) == 1, err   # one line
    return err
