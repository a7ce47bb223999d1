"""Helpers the C++ bindings call back into (no mapwright logic)."""


def json_default(obj):
    """json.dumps fallback for a mapping dict: NumPy scalars and arrays become Python values;
    anything else becomes its repr, which the C++ mapping parser then refuses naming the key."""
    if hasattr(obj, "tolist"):
        return obj.tolist()
    return repr(obj)
