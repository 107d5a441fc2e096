"""What every command shares, the CLI's own (``vikingsim/cli.py``) and the study commands'
(``vikingsim/studies/cli_*.py``): JSON output and the SIGTERM signal as an exception."""
from __future__ import annotations

import json
import math


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, schedulers, containers): cleaned up like Ctrl-C."""


def json_safe(obj):
    """JSON-safe: NaN/inf → None, numpy scalars → Python."""
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, (str, bytes)):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def print_json(obj) -> None:
    """``obj`` as one line of strict JSON on stdout."""
    print(json.dumps(json_safe(obj), allow_nan=False))
