"""run, sweep and codesign: the CLI's commands in this process, their records as Python objects.

Each takes the command's flags as keywords ('-' written '_': ``top_k=3`` for ``--top-k 3``),
writes the folder the CLI writes to the required ``out=``, and returns a read-only view of the
record the CLI writes there (``results.json``, ``sweep.json``, ``codesign.json``) with the
command's exit code. Everything is computed by the C++ commands (``mapwright._mapwright._run``
and the others); this file only names the record's parts. An unknown keyword, a value of the
wrong type or out of range raises ``mapwright.Error`` naming the keyword and the value.
"""

import json
import os
from types import MappingProxyType

from . import _mapwright
from ._tables import _flat, _pandas


def _frozen(value):
    """A JSON value made read-only: dicts as mappingproxy, lists as tuples."""
    if isinstance(value, dict):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _part(key, doc):
    """A read-only attribute: the record's entry `key`."""
    return property(lambda self: self.record.get(key), doc=doc)


class _Record:
    """A command's record (read-only), its exit code and its folder."""

    def __init__(self, exit_code, record, out):
        self.exit_code = exit_code  # the CLI's exit code for the same command
        self.record = _frozen(record)  # the JSON the CLI writes (nested mappingproxy/tuples)
        self.out = os.fspath(out)  # the folder written

    def to_dict(self):
        """The record as plain dicts and lists (equal to the file the CLI wrote)."""
        return json.loads(json.dumps(self.record, default=lambda m: dict(m)))

    def _rows(self, items):
        return _pandas().DataFrame([_flat(json.loads(json.dumps(i, default=dict)))
                                    for i in items])


class RunResult(_Record):
    """A `mapwright run`: per-layer results with the chosen mapping and, where the run
    verifies, the RTL verdict of each candidate (``layers[i]["candidates"][j]["verification"]``),
    the network totals and the verification summary. ``exit_code``: 0 all good, 3 a layer has
    no valid mapping, 4 an RTL verification failed."""

    layers = _part("layers", "Per layer: search, candidates (with their verification), best.")
    totals = _part("totals", "The network's cycles, energy, EDP, utilization (chosen mappings).")
    verification_summary = _part("verification_summary", "RTL checks planned, passed, failed.")
    status = _part("status", "running, interrupted or complete.")

    def chosen(self, i):
        """Layer i's chosen mapping as a mapwright.Mapping (None when it has none)."""
        best = self.layers[i].get("best")
        return _mapwright.mapping(best["mapping"]) if best else None

    def to_pandas(self):
        """One row per layer: name, counts, status and the chosen mapping's figures."""
        return self._rows({k: v for k, v in layer.items() if k not in ("candidates", "search")}
                          for layer in self.layers)


class SweepResult(_Record):
    """A `mapwright sweep`: every point's figures, the Pareto fronts and the winner."""

    points = _part("points", "Every point: architecture, area, figures, RTL verdict, fronts.")
    winner = _part("winner", "The winning point's index (None: no point meets the constraints).")

    def to_pandas(self):
        """One row per point."""
        return self._rows(self.points)


class CodesignResult(_Record):
    """A `mapwright codesign`: the chosen design (``chosen``), the bound and gap, and every
    evaluated hardware point (``points``, from points.json)."""

    def __init__(self, exit_code, record, out):
        super().__init__(exit_code, record, out)
        with open(os.path.join(self.out, "points.json"), encoding="utf-8") as f:
            self.points = _frozen(json.load(f))  # every evaluated point, as points.json

    chosen = _part("chosen", "The chosen design (None when none was chosen).")

    def to_pandas(self):
        """One row per evaluated hardware point."""
        return self._rows(self.points)


def _options(options, **paths):
    """The keywords for C++, with the paths given (os.PathLike too) as str; a missing one is
    left out, so that C++ refuses it naming the keyword."""
    return dict(options, **{k: os.fspath(v) for k, v in paths.items() if v is not None})


def run(out=None, **options):
    """`mapwright run` (flags as keywords, e.g. network=, layer=, arch=, searcher=, budget=,
    seed=, top_k=, no_rtl=, reward=, surrogate_warmup=, jobs=) into the run folder `out`."""
    return RunResult(*_mapwright._run(_options(options, out=out)), out)


def sweep(file=None, out=None, **options):
    """`mapwright sweep --file FILE` (resume=, jobs=) into the sweep folder `out`."""
    return SweepResult(*_mapwright._sweep(_options(options, file=file, out=out)), out)


def codesign(space=None, out=None, **options):
    """`mapwright codesign --space FILE` (searcher=, budget=, seed=, time_limit=, options=,
    rtl="chosen"|"front"|"none", jobs=, resume=) into the folder `out`."""
    return CodesignResult(*_mapwright._codesign(_options(options, space=space, out=out)), out)
