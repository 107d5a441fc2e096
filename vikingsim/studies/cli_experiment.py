"""`vikingsim experiment` (placeholder while the study layer is being built)."""
from vikingsim.core.errors import InputError

HELP = "experiment (not built yet)"
EXAMPLES = ""


def add_arguments(p) -> None:
    p.add_argument("rest", nargs="*")


def run(args) -> int:
    raise InputError("'experiment' is not built yet")
