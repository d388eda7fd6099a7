"""Run configs for the PyTorch reference: a run directory's config.json (every field resolved, as
the run used it) or an experiment file (experiments/*.json: a "parent" chain merged as a JSON merge
patch, "variants" applied by dotted path, defaults for the fields not given).

The defaults below are the fields of core/config/config.hpp this reference reads; they must equal
the C++ ones, and tests/reference checks that they do (`proteus_config.py defaults`).
"""
import copy
import json
import os
import sys

DEFAULTS = {
    "name": "run",
    "seed": 1,
    "model": {
        "vocab": 256,
        "d_model": 128,
        "layers": 2,
        "d_hidden": 0,
        "norm_eps": 1e-5,
        "init_std": 0.02,
        "mixer": {
            "type": "memory",
            "rule": "delta",
            "heads": 2,
            "d_head": 32,
            "conv": 4,
            "decay": True,
            "window": 2,
            "E": 1,
            "N": 0,
            "schedule": {"type": "uniform", "power": 2.0, "unlock": []},
            "normalize": "normalize_then_mask",
            "block_axis": "key_rows",
            "output_gate": "none",
        },
        "mlp": {"chain": [{"every": 1}]},
    },
    "data": {"seq_len": 256, "batch": 8},
    "train": {"lr": 3e-3, "weight_decay": 0.1, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "grad_clip": 1.0},
}


def merge_patch(target, patch):
    """RFC 7386, as nlohmann's merge_patch: objects merge, other values replace, null removes."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def load_experiment(path):
    """The file with its parent chain merged in (oldest first) and "parent" removed."""
    chain, seen = [], set()
    current = os.path.abspath(path)
    while True:
        if current in seen:
            raise ValueError(f"{path}: parent cycle through {current}")
        seen.add(current)
        with open(current) as f:
            value = json.load(f)
        chain.append(value)
        parent = value.get("parent")
        if parent is None:
            break
        current = os.path.join(os.path.dirname(current), parent)
    merged = {}
    for value in reversed(chain):
        merged = merge_patch(merged, value)
    merged.pop("parent", None)
    return merged


def set_path(config, dotted, value):
    """config with one field set by its dotted path ("model.mixer.E")."""
    patch = value
    for key in reversed(dotted.split(".")):
        patch = {key: patch}
    return merge_patch(config, patch)


def resolve(config):
    """Defaults under the given fields, and the derived values the model needs (d_hidden, N)."""
    c = merge_patch(DEFAULTS, config)
    m = c["model"]
    if m["d_hidden"] <= 0:  # ceil(8/3 d_model / 32) * 32, as config::resolved_d_hidden
        m["d_hidden"] = (8 * m["d_model"] + 95) // 96 * 32
    if m["mixer"]["N"] <= 0:
        m["mixer"]["N"] = c["data"]["seq_len"]
    return c


def load_runs(path):
    """[(name, config)] for a run directory, a config.json or an experiment file (one per variant)."""
    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, "config.json")):
            raise ValueError(f"{path}: not a run directory (no config.json)")
        path = os.path.join(path, "config.json")
    elif not os.path.isfile(path):
        raise ValueError(f"{path}: no such run directory or config file")
    raw = load_experiment(path)
    variants = raw.pop("variants", None)
    raw.pop("sweep", None)
    raw.pop("comment", None)
    if not variants:
        c = resolve(raw)
        return [(c["name"], c)]
    runs = []
    for v in variants:
        c = raw
        for dotted, value in v.get("set", {}).items():
            c = set_path(c, dotted, value)
        c = resolve(c)
        c["name"] = f"{c['name']}-{v['name']}"
        runs.append((c["name"], c))
    return runs


def load_run(path):
    """The one run of a run directory or a config file without variants."""
    runs = load_runs(path)
    if len(runs) != 1:
        raise ValueError(f"{path}: holds {len(runs)} runs (variants); name a run directory or pick one")
    return runs[0][1]


if __name__ == "__main__":
    if sys.argv[1:] == ["defaults"]:
        json.dump(DEFAULTS, sys.stdout, indent=1)
        print()
    else:
        print("usage: proteus_config.py defaults   (prints the defaults this reference assumes)", file=sys.stderr)
        sys.exit(2)
