"""Monte Carlo simulation and balance analysis for Viking board games."""
from vikingsim.core.results import Result, read_results, write_results
from vikingsim.core.runner import simulate

__version__ = "0.1.0"
__all__ = ["Result", "read_results", "simulate", "write_results", "__version__"]
