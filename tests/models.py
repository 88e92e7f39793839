"""Helpers for tests that need model files (imported by the test files)."""

import base64
import json
import pathlib
import pickle
import zipfile

import gymnasium
import numpy as np

# The model file PPO itself saved, with every entry SB3 pickles (a distilled model, such as today's
# ppo-jen, is saved with fewer): the base the crafted files are made from.
PRETRAINED = pathlib.Path(__file__).resolve().parent.parent / "agents" / "pretrained" / "ppo-jen-v1.zip"


class _SmallerObservations(gymnasium.Env):
    """An env with 10-float observations: a model trained on it does not fit ten_env."""

    observation_space = gymnasium.spaces.Box(0, 1, (10,))
    action_space = gymnasium.spaces.Discrete(132)

    def reset(self, *, seed=None, options=None):
        return np.zeros(10, dtype=np.float32), {}

    def step(self, action):
        return np.zeros(10, dtype=np.float32), 0.0, True, False, {}

    def action_masks(self):
        return np.ones(132, dtype=bool)


def save_model_for_other_observations(path):
    """Save a MaskablePPO model made for observations of shape (10,) at ``path``."""
    from sb3_contrib import MaskablePPO

    MaskablePPO("MlpPolicy", _SmallerObservations(), n_steps=64, batch_size=32).save(path)


class Touch:
    """Unpickling this creates the file ``path`` (what a malicious model file would do, harmlessly)."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (pathlib.Path.touch, (pathlib.Path(self.path),))


def payload(marker) -> str:
    """A base64 pickle, as SB3 stores a ``:serialized:`` entry, that creates ``marker`` when unpickled."""
    return base64.b64encode(pickle.dumps(Touch(marker))).decode()


def read_data(path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("data"))


def rewrite_zip(source, target, data: dict | None = None, raw_data: bytes | None = None,
                drop=(), replace: dict | None = None):
    """Copy the model zip ``source`` to ``target``, with ``data`` (or raw bytes) as its data entry,
    without the members in ``drop`` and with the members in ``replace`` (name -> bytes)."""
    replace = dict(replace or {})
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as dst:
        for name in src.namelist():
            if name in drop:
                continue
            if name == "data" and (data is not None or raw_data is not None):
                dst.writestr(name, raw_data if raw_data is not None else json.dumps(data, indent=4))
            elif name in replace:
                dst.writestr(name, replace.pop(name))
            else:
                dst.writestr(name, src.read(name))
        for name, content in replace.items():
            dst.writestr(name, content)
    return target


def craft(source, target, entry: str, marker) -> pathlib.Path:
    """A copy of ``source`` whose ``entry`` holds a pickle that creates ``marker``.

    The plain fields SB3 writes beside a blob are kept (an attacker keeps them too, so
    that only the blob differs); an entry that was plain becomes a serialized one.
    """
    data = read_data(source)
    value = data.get(entry)
    if isinstance(value, dict) and ":serialized:" in value:
        data[entry] = dict(value, **{":serialized:": payload(marker)})
    elif isinstance(value, dict):  # a plain dict such as policy_kwargs: its items stay as plain fields
        data[entry] = {":type:": "<class 'dict'>", ":serialized:": payload(marker), **value}
    else:
        data[entry] = {":type:": "<class 'function'>", ":serialized:": payload(marker)}
    return rewrite_zip(source, target, data)
