"""Loading MaskablePPO model files without running code from them.

A stable-baselines3 ``.zip`` holds ``data`` (JSON), ``policy.pth`` and
``policy.optimizer.pth`` (tensors). SB3 stores the attributes that JSON cannot
hold (the policy class, the spaces, the schedules, the last observations, the
episode buffers, and ``policy_kwargs`` when it holds a class) as cloudpickle
blobs inside ``data``, as ``{":type:": ..., ":serialized:": <base64>, ...plain
fields}``, and ``MaskablePPO.load`` unpickles them: a crafted file runs code.

Here ``data`` is read as plain JSON and no ``:serialized:`` blob is ever
decoded. Every entry that SB3 would unpickle is rebuilt from this project's own
knowledge and the plain fields SB3 writes beside the blob:

- ``policy_class``: ``MaskableActorCriticPolicy`` (the file's plain fields must
  not name another class);
- ``observation_space``: ``ten_env``'s Box (``observation.space_bounds()``); the
  file's plain ``_shape`` must be ``(observation.SIZE,)``, or
  ``(features.EXTENDED_SIZE,)`` for a network that takes the derived features too
  (``features.space_bounds()``);
- ``action_space``: ``Discrete(n)`` with the file's plain ``n``, which must be
  ``ten_env.actions.num_actions(max_bid)`` for an allowed ``max_bid``;
- ``policy_kwargs``: plain values only (``net_arch``, ``activation_fn`` by name
  from :data:`ACTIVATIONS`, ...; see :func:`policy_kwargs_from_data`);
- for training only (:func:`load_model`): ``lr_schedule`` from the plain
  ``learning_rate``, ``clip_range`` / ``clip_range_vf`` from their plain
  ``ConstantSchedule(val=...)`` field, ``rollout_buffer_class`` =
  ``MaskableRolloutBuffer``; ``_last_obs``, ``_last_episode_starts``,
  ``ep_info_buffer`` and ``ep_success_buffer`` start empty (the environments are
  reset when training continues, and SB3's rolling episode statistics restart).

Tensors are read with ``torch.load(..., weights_only=True)``. An entry that
cannot be rebuilt from plain values raises :class:`UnsafeModelError` (a
``ValueError``) naming it; :func:`load_trusted` loads such a file the SB3 way,
by unpickling, with a warning, and only when the caller says it trusts it.

torch and the RL libraries are imported inside the functions only.
"""

from __future__ import annotations

import io
import json
import math
import re
import warnings
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeGuard, overload

if TYPE_CHECKING:
    from types import ModuleType

    import torch
    from gymnasium import spaces
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.type_aliases import GymEnv

SERIALIZED = ":serialized:"

#: ``torch.nn`` activations a file may name in ``policy_kwargs.activation_fn``.
ACTIVATIONS = ("Tanh", "ReLU", "LeakyReLU", "ELU", "SELU", "GELU", "SiLU", "Mish", "Sigmoid",
               "Softplus", "Identity")
#: ``torch.optim`` optimizers a file may name in ``policy_kwargs.optimizer_class``.
OPTIMIZERS = ("Adam", "AdamW", "SGD", "RMSprop")

POLICY_CLASS = "MaskableActorCriticPolicy"
BUFFER_CLASS = "MaskableRolloutBuffer"

HOW_TO_TRUST = (
    "load it with trust=True (ten eval / ten play --trust-model) only if you trust where it comes "
    "from; a safe file (as ten train writes) is a MaskablePPO MlpPolicy whose policy arguments are "
    "plain values (see agents.safe_load)"
)

# Plain entries copied onto a model for further training, with the types they may have.
_INT, _FLOAT, _NONE = (int,), (int, float), (type(None),)
PLAIN_ENTRIES = {
    "verbose": _INT, "num_timesteps": _INT, "_total_timesteps": _INT, "_num_timesteps_at_start": _INT,
    "seed": _INT + _NONE, "action_noise": _NONE, "start_time": _INT + _FLOAT, "learning_rate": _FLOAT,
    "tensorboard_log": (str,) + _NONE, "_last_original_obs": _NONE, "_episode_num": _INT,
    "use_sde": (bool,), "sde_sample_freq": _INT, "_current_progress_remaining": _FLOAT,
    "_stats_window_size": _INT, "_n_updates": _INT, "n_envs": _INT, "n_steps": _INT, "gamma": _FLOAT,
    "gae_lambda": _FLOAT, "ent_coef": _FLOAT, "vf_coef": _FLOAT, "max_grad_norm": _FLOAT,
    "rollout_buffer_kwargs": (dict,), "batch_size": _INT + _NONE, "n_epochs": _INT,
    "clip_range_vf": _FLOAT + _NONE, "normalize_advantage": (bool,), "target_kl": _FLOAT + _NONE,
}
# Serialized entries that further training does without: they start empty.
_RESET_ENTRIES = ("_last_obs", "_last_episode_starts", "ep_info_buffer", "ep_success_buffer")
# Serialized entries rebuilt by name (the rest of an SB3 file's blobs are refused for training).
_REBUILT_ENTRIES = ("policy_class", "observation_space", "action_space", "policy_kwargs", "lr_schedule",
                    "clip_range", "clip_range_vf", "rollout_buffer_class") + _RESET_ENTRIES


class UnsafeModelError(ValueError):
    """The file has an entry that only unpickling could rebuild (running code from the file)."""


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _short(value: object, limit: int = 80) -> str:
    text = _one_line(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _weights_refusal(exc: Exception) -> str:
    """Why torch's weights-only loader refused a file, without torch's advice around it (on
    loading with weights_only=False, which this module never does) and its terminal colours."""
    text = str(exc)
    found = re.search(r"Unsupported global: GLOBAL (\S+)", text)
    if found:
        return f"it holds a pickled {found.group(1)}, which a weights file never does"
    found = re.search(r"WeightsUnpickler error:\s*(.+?)(?:\n\n|$)", text, re.S)
    return _short(re.sub(r"\x1b\[[0-9;]*m", "", found.group(1) if found else text), 160)


def _not_a_model(path: str | Path, reason: str) -> ValueError:
    return ValueError(f"{str(path)!r} is not a MaskablePPO model file: {_one_line(reason)}")


def _unsafe(path: str | Path, entry: str, value: object, why: str) -> UnsafeModelError:
    return UnsafeModelError(
        f"refusing to load {str(path)!r}: its entry {entry!r} ({_short(value)}) {why}, and only "
        f"unpickling it, which runs code from the file, could rebuild it; {HOW_TO_TRUST}"
    )


def is_serialized(value: object) -> TypeGuard[dict]:
    return isinstance(value, dict) and SERIALIZED in value


# ---------------------------------------------------------------------------- reading the file


#: The most a file's entries may hold, unpacked: far above any model this project makes (a
#: 256x256 network's policy.pth is 1.6 MB), far below what a crafted archive could inflate to.
MAX_ENTRY_BYTES = {"data": 16 << 20, "policy.pth": 256 << 20, "policy.optimizer.pth": 512 << 20}


def _archive(path: str | Path) -> zipfile.ZipFile:
    path = Path(path)
    if path.exists() and not path.is_file():
        raise ValueError(f"model file {str(path)!r} is not a file")
    if not path.is_file():
        raise ValueError(f"model file {str(path)!r} does not exist")
    try:
        return zipfile.ZipFile(path)
    except PermissionError as exc:  # the file may be a model: its format is not what is wrong
        raise ValueError(f"model file {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    except (zipfile.BadZipFile, OSError) as exc:  # OSError: a file too short to seek its end in
        raise _not_a_model(path, f"not a zip archive ({exc})") from None


def _read_entry(path: str | Path, archive: zipfile.ZipFile, name: str) -> bytes:
    """The entry ``name``, unpacked, refused first if it says it unpacks to more than
    :data:`MAX_ENTRY_BYTES` allows (zipfile stops at the size an entry declares)."""
    size = archive.getinfo(name).file_size  # KeyError when it is not there
    if size > MAX_ENTRY_BYTES[name]:
        raise _TooLarge(f"{str(path)!r} is not a MaskablePPO model file: its {name!r} entry unpacks to {size:,} "
                        f"bytes, more than the {MAX_ENTRY_BYTES[name]:,} a model's may")
    return archive.read(name)


class _TooLarge(ValueError):
    """An entry too large to unpack (said as it is, not as an entry that cannot be read)."""


def read_data(path: str | Path) -> dict:
    """The file's ``data`` entry as plain JSON (no blob decoded); ``ValueError`` if missing or damaged."""
    with _archive(path) as archive:
        try:
            raw = _read_entry(path, archive, "data")
        except _TooLarge:
            raise
        except KeyError:
            raise _not_a_model(path, "it has no 'data' entry (the model's settings)") from None
        except (zipfile.BadZipFile, OSError, RuntimeError, ValueError) as exc:
            raise _not_a_model(path, f"its 'data' entry cannot be read ({exc})") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _not_a_model(path, f"its 'data' entry is not valid JSON ({exc})") from None
    except RecursionError:
        raise _not_a_model(path, "its 'data' entry nests too deeply to be a model's settings") from None
    if not isinstance(data, dict):
        raise _not_a_model(path, f"its 'data' entry is a JSON {type(data).__name__}, not an object")
    return data


@overload
def read_tensors(path: str | Path, name: str, required: Literal[True] = True, device: str = "cpu") -> dict[str, Any]:
    ...


@overload
def read_tensors(path: str | Path, name: str, required: bool, device: str = "cpu") -> dict[str, Any] | None:
    ...


def read_tensors(path: str | Path, name: str, required: bool = True, device: str = "cpu") -> dict[str, Any] | None:
    """The state dict ``<name>.pth`` of the file, read with ``weights_only=True``; ``None`` if absent
    and not ``required``."""
    import torch

    with _archive(path) as archive:
        try:
            raw = _read_entry(path, archive, f"{name}.pth")
        except _TooLarge:
            raise
        except KeyError:
            if not required:
                return None
            raise _not_a_model(path, f"it has no {name}.pth (the {'network weights' if name == 'policy' else name})"
                               ) from None
        except (zipfile.BadZipFile, OSError, RuntimeError, ValueError) as exc:
            raise _not_a_model(path, f"its {name}.pth cannot be read ({exc})") from None
    try:
        tensors = torch.load(io.BytesIO(raw), map_location=device, weights_only=True)
    except Exception as exc:  # weights_only refuses anything but tensors and plain containers
        raise _not_a_model(path, f"its {name}.pth is not a plain weights file ({_weights_refusal(exc)})") from None
    if not isinstance(tensors, dict):
        raise _not_a_model(path, f"its {name}.pth holds a {type(tensors).__name__}, not a state dict")
    if name == "policy" and not all(torch.isfinite(t).all() for t in tensors.values()
                                    if isinstance(t, torch.Tensor) and t.is_floating_point()):
        raise _not_a_model(path, "its policy.pth holds weights that are not finite numbers (NaN or infinity)")
    return tensors


# ---------------------------------------------------------------------------- rebuilding entries


def _function_owners(entry: dict) -> set[str]:
    """Class names in the plain fields SB3 writes beside a pickled class (``<function Cls.meth at ...>``)."""
    owners = set()
    for value in entry.values():
        if isinstance(value, str):
            match = re.match(r"<function (\w+)\.\w+ at 0x[0-9a-fA-F]+>$", value)
            if match:
                owners.add(match.group(1))
    return owners


def _check_class(path: str | Path, data: dict, entry: str, expected: str, module: str) -> None:
    value = data.get(entry)
    if value is None:
        return
    if not is_serialized(value):
        raise _not_a_model(path, f"its entry {entry!r} is {_short(value)}, not a class")
    owners = _function_owners(value)
    declared = value.get("__module__")
    if (declared is not None and declared != module) or (owners and owners != {expected}):
        named = ", ".join(sorted(owners)) or "a class"
        raise _unsafe(path, entry, f"{named} from {declared}", f"is not {expected}")


def observation_space(path: str | Path, data: dict) -> spaces.Box:
    """ten_env's observation space, after checking the file's plain ``_shape``."""
    import numpy as np
    from gymnasium import spaces

    from ten_env import features as F
    from ten_env import observation as O

    shape = observation_shape(path, data)
    check_observation_shape(path, shape)
    low, high = O.space_bounds() if shape == (O.SIZE,) else F.space_bounds()
    return spaces.Box(low=low, high=high, dtype=np.float32)


def check_observation_shape(path: str | Path, shape: tuple[int, ...] | None) -> None:
    """``ValueError`` unless a model of observation ``shape`` plays ten_env: the observation, or the
    observation with the derived features (:mod:`ten_env.features`)."""
    from ten_env import features as F
    from ten_env import observation as O

    if shape not in ((O.SIZE,), (F.EXTENDED_SIZE,)):
        raise ValueError(
            f"model {str(path)!r} was trained for observations of shape {shape}, but ten_env "
            f"observations have shape ({O.SIZE},) (or ({F.EXTENDED_SIZE},) with the derived features): "
            f"it was made for another version of the environment"
        )


def observation_shape(path: str | Path, data: dict | None = None) -> tuple:
    """The observation shape the file was trained for, from the plain fields of ``observation_space``."""
    data = read_data(path) if data is None else data
    entry = data.get("observation_space")
    if not isinstance(entry, dict):
        raise _not_a_model(path, "it has no 'observation_space' entry")
    kind = str(entry.get(":type:", ""))
    if "spaces.box.Box" not in kind:
        raise ValueError(f"model {str(path)!r}: its entry 'observation_space' is {_short(kind or entry)}, "
                         f"not a Box; ten_env observations are a Box")
    shape = entry.get("_shape", entry.get("shape"))
    if not isinstance(shape, list) or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                                              for s in shape):
        raise _unsafe(path, "observation_space", f"{kind}, shape {shape}", "has no plain shape")
    return tuple(shape)


def action_space(path: str | Path, data: dict) -> spaces.Discrete:
    """``Discrete(n)`` from the file's plain ``n``, checked against ten_env's action counts."""
    from gymnasium import spaces

    from ten_env.actions import BID_BASE, max_bid_for
    from ten_env.rules import MAX_BIDS

    entry = data.get("action_space")
    if not isinstance(entry, dict):
        raise _not_a_model(path, "it has no 'action_space' entry")
    kind = str(entry.get(":type:", ""))
    if "spaces.discrete.Discrete" not in kind or entry.get("start", 0) not in (0, "0"):
        raise ValueError(f"model {str(path)!r}: its entry 'action_space' is {_short(kind or entry)} "
                         f"(start {_short(entry.get('start'))}), not Discrete(n); ten_env actions are Discrete(n)")
    n = entry.get("n")
    try:
        n = int(n) if isinstance(n, (int, str)) and not isinstance(n, bool) else None
    except ValueError:
        n = None
    if n is None:
        raise _unsafe(path, "action_space", f"{kind}, n={entry.get('n')}", "has no plain action count")
    max_bid = max_bid_for(n)
    if max_bid not in MAX_BIDS:
        raise ValueError(
            f"model {str(path)!r} has {n} actions, which fits no max_bid: ten_env has "
            f"{BID_BASE + 1} + max_bid actions, max_bid from {MAX_BIDS[0]} to {MAX_BIDS[-1]}"
        )
    return spaces.Discrete(n)


def _torch_class(value: object, module: ModuleType, names: tuple[str, ...]) -> type | None:
    """The class of ``module`` whose name or ``str(cls)`` is ``value``, among ``names``; else ``None``."""
    if not isinstance(value, str):
        return None
    for name in names:
        cls = getattr(module, name, None)
        if cls is not None and value in (name, f"{module.__name__}.{name}", str(cls)):
            return cls
    return None


def _plain_json(value: object, depth: int = 0) -> bool:
    """Plain JSON values, nested at most 32 deep (no setting nests deeper; a crafted one would
    exhaust the recursion)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if depth >= 32:
        return False
    if isinstance(value, list):
        return all(_plain_json(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json(v, depth + 1) for k, v in value.items())
    return False


MAX_LAYERS, MAX_LAYER_SIZE = 16, 4096  # a plain file cannot ask for an absurdly large network


def _net_arch(value: object) -> bool:
    def layers(v: object) -> bool:
        return isinstance(v, list) and len(v) <= MAX_LAYERS and all(
            isinstance(x, int) and not isinstance(x, bool) and 0 < x <= MAX_LAYER_SIZE for x in v)

    return layers(value) or (isinstance(value, dict) and set(value) <= {"pi", "vf"}
                             and all(layers(v) for v in value.values()))


def policy_kwargs_from_data(path: str | Path, data: dict) -> dict:
    """``policy_kwargs`` rebuilt from plain values: the entry itself when SB3 could store it as
    JSON, or the plain fields SB3 writes beside the blob when it held a class.

    Allowed: ``net_arch`` (a list of layer sizes, or ``{"pi": [...], "vf": [...]}``),
    ``activation_fn`` (one of :data:`ACTIVATIONS`), ``optimizer_class`` (one of
    :data:`OPTIMIZERS`), ``optimizer_kwargs`` (plain values), ``ortho_init``,
    ``share_features_extractor``, ``normalize_images`` (booleans),
    ``features_extractor_class`` (``FlattenExtractor`` only) and empty
    ``features_extractor_kwargs``. Anything else raises :class:`UnsafeModelError`.
    """
    import torch
    from stable_baselines3.common import torch_layers

    entry = data.get("policy_kwargs", {})
    if entry is None:
        entry = {}
    if not isinstance(entry, dict):
        raise _not_a_model(path, f"its entry 'policy_kwargs' is {_short(entry)}, not an object")
    fields = {k: v for k, v in entry.items() if not k.startswith(":")}
    kwargs = {}
    for key, value in fields.items():
        name = f"policy_kwargs.{key}"
        if key == "device":
            continue  # SB3 drops it on load as well
        if key == "net_arch" and _net_arch(value):
            kwargs[key] = value
        elif key == "activation_fn" and _torch_class(value, torch.nn, ACTIVATIONS):
            kwargs[key] = _torch_class(value, torch.nn, ACTIVATIONS)
        elif key == "optimizer_class" and _torch_class(value, torch.optim, OPTIMIZERS):
            kwargs[key] = _torch_class(value, torch.optim, OPTIMIZERS)
        elif key in ("ortho_init", "share_features_extractor", "normalize_images") and isinstance(value, bool):
            kwargs[key] = value
        elif key == "optimizer_kwargs" and isinstance(value, dict) and _plain_json(value):
            kwargs[key] = value
        elif key == "features_extractor_class" and _torch_class(value, torch_layers, ("FlattenExtractor",)):
            kwargs[key] = torch_layers.FlattenExtractor
        elif key == "features_extractor_kwargs" and value in ({}, None):
            continue
        else:
            allowed = {
                "net_arch": f"a list of up to {MAX_LAYERS} layer sizes from 1 to {MAX_LAYER_SIZE}, "
                            f"or {{'pi': [...], 'vf': [...]}}",
                "activation_fn": f"one of {', '.join(ACTIVATIONS)}",
                "optimizer_class": f"one of {', '.join(OPTIMIZERS)}",
                "optimizer_kwargs": "plain values",
                "features_extractor_class": "FlattenExtractor",
                "features_extractor_kwargs": "empty",
            }.get(key, "true or false" if key in ("ortho_init", "share_features_extractor", "normalize_images")
                  else "not a known policy argument")
            raise _unsafe(path, name, value, f"is not plain ({allowed})")
    return kwargs


def _constant_schedule(path: str | Path, data: dict, entry_name: str, required: bool) -> float | None:
    """The value of a constant schedule, from its plain ``value_schedule`` field or a plain number."""
    entry = data.get(entry_name)
    if entry is None and not required:
        return None
    if isinstance(entry, (int, float)) and not isinstance(entry, bool):
        return float(entry)
    if is_serialized(entry):
        match = re.fullmatch(r"ConstantSchedule\(val=([-+0-9.eE]+)\)", str(entry.get("value_schedule", "")))
        if match:
            try:
                return float(match.group(1))
            except ValueError:
                pass
    raise _unsafe(path, entry_name, entry.get("value_schedule", entry.get(":type:")) if isinstance(entry, dict)
                  else entry, "is not a constant schedule")


# ---------------------------------------------------------------------------- loading


def load_policy(path: str | Path, device: str = "cpu") -> MaskableActorCriticPolicy:
    """The trained policy network of a model file, without unpickling anything.

    Returns a ``MaskableActorCriticPolicy`` (its ``predict(obs, action_masks=...,
    deterministic=True)`` acts as the model's would). Only ``policy_class``, the
    spaces and ``policy_kwargs`` matter for playing; the other pickled entries
    (schedules, buffers, last observations) are ignored, never decoded.
    """
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    data = read_data(path)
    _check_class(path, data, "policy_class", POLICY_CLASS, "sb3_contrib.common.maskable.policies")
    obs_space = observation_space(path, data)
    act_space = action_space(path, data)
    kwargs = policy_kwargs_from_data(path, data)
    weights = read_tensors(path, "policy", device=device)
    _check_size(path, weights, kwargs, obs_space, act_space)
    try:
        policy = MaskableActorCriticPolicy(obs_space, act_space, lambda _: 0.0, **kwargs)
    except Exception as exc:
        raise _not_a_model(path, f"its policy arguments {_short(kwargs)} do not build a policy ({exc})") from None
    _load_state(path, policy, weights, kwargs)
    policy.set_training_mode(False)
    return policy.to(device)


def declared_parameters(kwargs: dict, observation_size: int, num_actions: int) -> int:
    """How many numbers the policy network that ``kwargs`` describe holds (SB3's MlpPolicy: an
    MLP for the policy and one for the value, each with its head; 64x64 each by default)."""
    arch = kwargs.get("net_arch")
    if arch is None:
        arch = {"pi": [64, 64], "vf": [64, 64]}
    pi, vf = (arch, arch) if isinstance(arch, list) else (arch.get("pi", []), arch.get("vf", []))

    def mlp(layers: list[int], outputs: int) -> int:
        total, width = 0, observation_size
        for size in [*layers, outputs]:
            total, width = total + width * size + size, size
        return total

    return mlp(pi, num_actions) + mlp(vf, 1)


def _check_size(path: str | Path, weights: dict, kwargs: dict, obs_space: spaces.Box,
                act_space: spaces.Discrete) -> None:
    """Weights of another size than the network the data describes are refused before that
    network is built (a file may declare a huge one beside a few weights)."""
    held = sum(t.numel() for t in weights.values() if hasattr(t, "numel"))
    declared = declared_parameters(kwargs, obs_space.shape[0], act_space.n)
    if held != declared:
        raise _not_a_model(path, f"the weights in policy.pth do not fit the network its data describes "
                                 f"({held:,} numbers for {declared:,}: policy arguments {_short(kwargs)})")


def _load_state(path: str | Path, module: torch.nn.Module, weights: dict[str, Any], kwargs: dict) -> None:
    try:
        module.load_state_dict(weights, strict=True)
    except Exception as exc:
        raise _not_a_model(
            path, f"the weights in policy.pth do not fit the network its data describes "
                  f"(policy arguments {_short(kwargs)}): {_short(exc, 200)}"
        ) from None


RESUME_HINT = ("training cannot go on from it without running its code: start the run again "
               "(ten train --overwrite)")


def load_model(path: str | Path, env: GymEnv, device: str = "cpu", **attributes: object) -> Any:
    """A full ``MaskablePPO`` for further training (``ten train --resume``), without unpickling;
    see :func:`_load_model`. There is no trusted variant."""
    try:
        return _load_model(path, env, device, **attributes)
    except UnsafeModelError as exc:
        raise UnsafeModelError(str(exc).replace(HOW_TO_TRUST, RESUME_HINT)) from None


def _load_model(path: str | Path, env: GymEnv, device: str = "cpu", **attributes: object) -> MaskablePPO:
    """A full ``MaskablePPO`` for further training (``ten train --resume``), without unpickling.

    ``env`` (a VecEnv or env with ten_env's spaces) replaces the saved spaces, as in
    ``MaskablePPO.load(path, env=env)``; ``attributes`` override loaded ones. The
    optimizer state (``policy.optimizer.pth``) is restored with ``weights_only=True``.
    Differences from ``MaskablePPO.load``: the last observations are dropped (SB3 drops
    them too when given an env) and the rolling episode statistics
    (``ep_info_buffer``, ``ep_success_buffer``) start empty.
    """
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    data = read_data(path)
    unknown = [k for k, v in data.items() if is_serialized(v) and k not in _REBUILT_ENTRIES]
    if unknown:
        raise _unsafe(path, unknown[0], data[unknown[0]].get(":type:"), "is not one this project rebuilds")
    _check_class(path, data, "policy_class", POLICY_CLASS, "sb3_contrib.common.maskable.policies")
    _check_class(path, data, "rollout_buffer_class", BUFFER_CLASS, "sb3_contrib.common.maskable.buffers")
    saved_obs = observation_space(path, data)
    saved_act = action_space(path, data)
    if getattr(env, "observation_space", saved_obs).shape != saved_obs.shape or \
            getattr(env, "action_space", saved_act) != saved_act:
        raise ValueError(f"model {str(path)!r} was made for spaces {saved_obs.shape} / {saved_act}, "
                         f"the environment has {env.observation_space.shape} / {env.action_space}")
    kwargs = policy_kwargs_from_data(path, data)
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in PLAIN_ENTRIES and not is_serialized(value):
            if not isinstance(value, PLAIN_ENTRIES[key]) or (isinstance(value, bool)
                                                              and bool not in PLAIN_ENTRIES[key]):
                raise _not_a_model(path, f"its entry {key!r} is {_short(value)}, of the wrong type")
            values[key] = value
    if not isinstance(values.get("learning_rate"), (int, float)):
        raise _unsafe(path, "learning_rate", data.get("learning_rate"), "is not a plain number")
    values["clip_range"] = _constant_schedule(path, data, "clip_range", required=True)
    values["clip_range_vf"] = _constant_schedule(path, data, "clip_range_vf", required=False)
    if not _plain_json(values.get("rollout_buffer_kwargs", {})):
        raise _unsafe(path, "rollout_buffer_kwargs", values["rollout_buffer_kwargs"], "is not plain")
    for key in ("n_steps", "n_epochs", "batch_size"):
        if values.get(key) is not None and values[key] < 1:
            raise _not_a_model(path, f"its entry {key!r} is {values[key]}, not 1 or more")
    bad = [key for key, value in values.items() if isinstance(value, float) and not math.isfinite(value)]
    if bad:
        raise _not_a_model(path, f"its entry {bad[0]!r} is {values[bad[0]]}, not a finite number")
    weights = read_tensors(path, "policy", device=device)
    _check_size(path, weights, kwargs, saved_obs, saved_act)
    optimizer = read_tensors(path, "policy.optimizer", required=False, device=device)

    model = MaskablePPO(policy=MaskableActorCriticPolicy, env=env, device=device, _init_setup_model=False)
    values.update(policy_kwargs=kwargs, rollout_buffer_class=None, _last_obs=None, _last_episode_starts=None,
                  ep_info_buffer=None, ep_success_buffer=None)
    values["n_envs"] = model.n_envs  # as SB3 does with a new env
    model.__dict__.update(values)
    model.__dict__.update(attributes)
    try:
        model._setup_model()
    except Exception as exc:  # e.g. buffer arguments SB3 does not take, or a rollout too large to hold
        raise _not_a_model(path, f"its settings do not build a model to train further "
                                 f"({type(exc).__name__}: {_short(exc, 160)})") from None
    _load_state(path, model.policy, weights, kwargs)
    if optimizer is not None:
        try:
            model.policy.optimizer.load_state_dict(optimizer)
        except Exception as exc:
            raise _not_a_model(path, f"its policy.optimizer.pth does not fit the policy ({_short(exc, 200)})"
                               ) from None
    return model


def load_trusted(path: str | Path, device: str = "cpu", **kwargs: Any) -> MaskablePPO:
    """``MaskablePPO.load``: unpickles the file's entries, which runs any code they hold. Warns."""
    from sb3_contrib import MaskablePPO

    warnings.warn(
        f"loading {str(path)!r} by unpickling it (trust=True): any code in the file runs", UserWarning,
        stacklevel=3,
    )
    try:
        return MaskablePPO.load(str(path), device=device, **kwargs)
    except Exception as exc:  # a zip of the wrong kind fails in many ways inside SB3
        raise _not_a_model(path, str(exc)) from None


def model_card(model: MaskablePPO, **extra: object) -> dict:
    """Plain facts about a model for the card saved beside it (``model.json``): the policy arguments
    as plain values, the spaces, the step count."""
    from ten_env.actions import max_bid_for

    kwargs = dict(model.policy_kwargs or {})
    plain = {}
    for key, value in kwargs.items():
        plain[key] = value.__name__ if isinstance(value, type) else value
    n = int(model.action_space.n)  # type: ignore[attr-defined]  # SB3 types it as any Space; ours is a Discrete
    return {
        "algorithm": "MaskablePPO (sb3-contrib)",
        "policy": POLICY_CLASS,
        "policy_kwargs": plain,
        "observation_shape": list(model.observation_space.shape),  # type: ignore[arg-type]  # a Box's is never None
        "num_actions": n,
        "max_bid": max_bid_for(n),
        "training_steps": int(model.num_timesteps),
        **extra,
    }
