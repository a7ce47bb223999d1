"""to_pandas: mapwright results as pandas DataFrames (pandas is optional; only this needs it)."""


def _pandas():
    try:
        import pandas
    except ImportError as e:  # not a Debian dependency of mapwright
        raise ImportError("mapwright.to_pandas needs pandas (apt-get install python3-pandas)") from e
    return pandas


def _flat(d, prefix=""):
    """A nested dict as one level, keys joined by '.'."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def to_pandas(obj):
    """A DataFrame of:
    - the dict Space.evaluate_batch returns: one row per mapping (the access counts, when
      asked for, as one column each);
    - a SearchResult: its best-so-far curve, one row per sample;
    - a Metrics, or a list of them: one row each, nested fields joined by '.';
    - a RunResult, SweepResult or CodesignResult: its own to_pandas() (one row per layer or
      point).
    """
    if hasattr(obj, "to_pandas"):
        return obj.to_pandas()
    pd = _pandas()
    if isinstance(obj, dict) and "cost" in obj and "valid" in obj:
        cols = {k: v for k, v in obj.items() if k not in ("counts", "count_names")}
        if "counts" in obj:
            for i, name in enumerate(obj["count_names"]):
                cols[name] = obj["counts"][:, i]
        return pd.DataFrame(cols)
    if hasattr(obj, "curve") and hasattr(obj, "samples"):
        return pd.DataFrame({"sample": range(len(obj.curve)), "best_cost": obj.curve})
    items = obj if isinstance(obj, (list, tuple)) else [obj]
    if all(hasattr(m, "to_dict") for m in items):
        return pd.DataFrame([_flat(m.to_dict()) for m in items])
    raise TypeError("to_pandas takes an evaluate_batch dict, a SearchResult or Metrics, not "
                    + type(obj).__name__)
