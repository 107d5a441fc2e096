"""Monte Carlo simulation and balance analysis for Viking board games.

The public names are imported on first use (PEP 562 module ``__getattr__``), so
``import vikingsim`` and ``vikingsim --version`` load no numba, pandas, scipy or statsmodels.
"""
import importlib

__version__ = "0.1.0"

#: Public name -> (module, attribute in it; None: the module itself).
_LAZY = {"Result": ("vikingsim.core.results", "Result"),
         "read_results": ("vikingsim.core.results", "read_results"),
         "write_results": ("vikingsim.core.results", "write_results"),
         "simulate": ("vikingsim.core.runner", "simulate"),
         "stats": ("vikingsim.stats", None),
         "questions": ("vikingsim.questions", None)}

__all__ = ["Result", "questions", "read_results", "simulate", "stats", "write_results",
           "__version__"]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = importlib.import_module(module)
    value = value if attr is None else getattr(value, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
