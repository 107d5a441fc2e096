"""`vikingsim report` (placeholder while the study layer is being built)."""
from vikingsim.core.errors import InputError

HELP = "report (not built yet)"
EXAMPLES = ""


def add_arguments(p) -> None:
    p.add_argument("rest", nargs="*")


def run(args) -> int:
    raise InputError("'report' is not built yet")
