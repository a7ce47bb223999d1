"""mapwright from Python: DNN layer mappings on a systolic array.

A thin layer over mapwright's C++ libraries (the extension module ``mapwright._mapwright``):
layers, networks and architectures load through the CLI's parsers, ``evaluate`` and
``Space.evaluate_batch`` score mappings with the analytical surrogate, ``exact`` and
``search`` run the CLI's layer-search engine, ``run``, ``sweep`` and ``codesign`` the CLI's
commands in this process. Bad input raises ``mapwright.Error`` (a
``ValueError``) with the CLI's message. ``mapwright.env.MappingEnv`` is a Gymnasium-style
environment; ``to_pandas`` turns results into DataFrames where pandas is installed.
See python/README.md.
"""

from ._mapwright import (  # noqa: F401 (re-exported)
    AccessCounts,
    Arch,
    EnergyBreakdown,
    Error,
    InternalError,
    Layer,
    Mapping,
    Metrics,
    Network,
    Objective,
    SearchResult,
    Space,
    Verification,
    arch,
    arch_names,
    count_names,
    default_mapping,
    evaluate,
    exact,
    layer,
    mapping,
    network,
    refined_cycles,
    search,
    searcher_kinds,
    verify,
    zoo_names,
)
from ._tables import to_pandas  # noqa: F401
from .apps import CodesignResult, RunResult, SweepResult, codesign, run, sweep  # noqa: F401


def space(layer, arch="default", encoding="compact"):
    """The map space of `layer` on `arch` in a search encoding (the same as Space(...))."""
    return Space(layer, arch, encoding)


__all__ = [
    "AccessCounts", "Arch", "CodesignResult", "EnergyBreakdown", "Error", "InternalError",
    "Layer", "Mapping", "Metrics", "Network", "Objective", "RunResult", "SearchResult", "Space",
    "SweepResult", "Verification", "arch", "arch_names", "codesign", "count_names",
    "default_mapping", "evaluate", "exact", "layer", "mapping", "network", "refined_cycles",
    "run", "search", "searcher_kinds", "space", "sweep", "to_pandas", "verify", "zoo_names",
]
