"""Monte Carlo simulation and balance analysis for Viking board games."""
from vikingsim.core.results import Result, read_results, write_results
from vikingsim import stats
from vikingsim.core.runner import simulate

__version__ = "0.1.0"
from vikingsim import experiments  # noqa: E402

__all__ = ["Result", "experiments", "read_results", "simulate", "stats", "write_results",
           "__version__"]
