"""``RLlibPolicyAgent``: plays the policy of an RLlib checkpoint that ``ten train`` wrote
with ``backend: rllib``.

The path is the run's ``checkpoint`` folder (or one of its ``checkpoints/step_*``
folders): an RLlib algorithm checkpoint, whose module ``learner`` is the trained
policy (:class:`train.rllib_module.MaskedPPOModule`). ``make_agent`` and so
``ten eval``, ``ten play`` and ``ten league`` take such a folder wherever they
take a model ``.zip``.

**Trust.** RLlib saves its modules as pickles (``class_and_ctor_args.pkl``,
``module_state.pkl``), and loading one runs whatever code it holds: unlike a
``.zip`` (:mod:`agents.safe_load`), no part of it can be read safely. So a
checkpoint is loaded only with ``trust=True`` (``--trust-model``); without it,
one ``ValueError`` says so. Before anything is unpickled, the plain
``model.json`` card ``ten train`` writes beside it is read, and a checkpoint
made for another observation size is refused; one made for another number of
actions (another ``max_bid``) loads, and is refused when it meets a game of
other rules (``ten eval`` checks before the games, :meth:`act` at the move).

Actions are masked and deterministic (the most likely legal action), as
:class:`agents.PolicyAgent` plays. Ray and torch are imported only when a
checkpoint is loaded (the ``rllib`` extra).
"""

from __future__ import annotations

import json
import logging
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ten_env import observation as O

from .base import Agent, observation_parts

if TYPE_CHECKING:
    from gymnasium import spaces
    from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule

#: The RLlib module that ``ten train`` trains; the checkpoint's path to it.
LEARNER = "learner"
MODULE_PATH = ("learner_group", "learner", "rl_module", LEARNER)
CARD = "model.json"
TRUSTED_WARNING = "unpickling the RLlib checkpoint"  # what a trusted load warns, before the path


def is_checkpoint(path: str | Path) -> bool:
    """Whether ``path`` is an RLlib algorithm checkpoint folder."""
    return (Path(path) / "rllib_checkpoint.json").is_file()


def read_card(path: str | Path) -> dict:
    """The plain card of the checkpoint at ``path`` (``model.json`` in it or beside it), or ``{}``."""
    path = Path(path)
    for card in (path / CARD, path.parent / CARD, path.parent.parent / CARD):
        if card.is_file():
            try:
                data = json.loads(card.read_text())
            except (ValueError, RecursionError):  # not JSON, or nested beyond reading: not ten train's card
                continue
            if isinstance(data, dict) and data.get("backend") == "rllib":
                return data
    return {}


def check_card(path: str | Path, card: dict) -> None:
    """A checkpoint whose card names another observation size is refused, saying why."""
    shape = card.get("observation_shape")
    if shape is not None and not (isinstance(shape, list) and all(isinstance(n, int) for n in shape)):
        raise ValueError(f"checkpoint {str(path)!r}: its model.json gives observation_shape "
                         f"{json.dumps(shape)[:40]}, not a list of sizes; it is not a card ten train wrote")
    if shape is not None and tuple(shape) != (O.SIZE,):
        raise ValueError(
            f"checkpoint {str(path)!r} was trained for observations of shape {tuple(shape)}, but ten_env "
            f"observations have shape ({O.SIZE},): it was made for another version of the environment; "
            f"train it again with this version"
        )


class RLlibPolicyAgent(Agent):
    """The ``learner`` module of an RLlib checkpoint folder; see the module docstring.

    Raises ``ValueError`` (one line) if the folder is not a checkpoint, was made for
    another observation size, Ray is not installed, or ``trust`` is not set.
    """

    path: Path | None  # None for a module made in memory (from_module)
    action_space: spaces.Discrete

    def __init__(self, path: str | Path, name: str | None = None, trust: bool = False):
        path = Path(path)
        if not is_checkpoint(path):
            raise ValueError(f"{str(path)!r} is not an RLlib checkpoint folder (no rllib_checkpoint.json)")
        check_card(path, read_card(path))
        if not trust:
            raise ValueError(
                f"refusing to load {str(path)!r}: an RLlib checkpoint is pickled, and loading it runs code "
                f"from the files; pass --trust-model (trust=True) only if you trust where it comes from"
            )
        try:
            import ten_env.rllib  # noqa: F401  (imports Ray RLlib)
        except ModuleNotFoundError as exc:
            raise ValueError(f"loading an RLlib checkpoint needs Ray RLlib: {getattr(exc, 'install', exc)}") from None
        from ray.rllib.core.rl_module.rl_module import RLModule
        module_dir = path.joinpath(*MODULE_PATH)
        if not module_dir.is_dir():
            raise ValueError(f"checkpoint {str(path)!r} has no module {LEARNER!r} (not made by ten train)")
        warnings.warn(f"{TRUSTED_WARNING} {str(path)!r} (trusted)", stacklevel=2)
        # RLlib's own checkpoint round trip warns that it calls a deprecated constructor: not ours to fix.
        logging.getLogger("ray._common.deprecation").setLevel(logging.ERROR)
        module = RLModule.from_checkpoint(module_dir.resolve())  # RLlib reads a relative path as a URI
        shape = module.observation_space["observations"].shape  # type: ignore[index]  # RLModule types it Optional[Space]
        if shape != (O.SIZE,):
            raise ValueError(f"checkpoint {str(path)!r} was trained for observations of shape {shape}, "
                             f"but ten_env observations have shape ({O.SIZE},): train it again with this version")
        self._setup(module, name or _default_name(path))  # type: ignore[arg-type]  # ten train's: a TorchRLModule
        self.path = path

    @classmethod
    def from_module(cls, module: TorchRLModule, name: str = "model") -> "RLlibPolicyAgent":
        """An agent around a module in memory (e.g. during training)."""
        agent = object.__new__(cls)
        agent._setup(module, name)
        agent.path = None
        return agent

    def _setup(self, module: TorchRLModule, name: str) -> None:
        import torch

        self.module, self.name, self._torch = module, name, torch
        module.eval()
        self.model = self  # what ten eval reads: model.action_space.n checks max_bid
        self.action_space = module.action_space  # type: ignore[assignment]  # RLModule types it Optional[Space]

    def __repr__(self) -> str:
        return f"RLlibPolicyAgent({str(self.path)!r})"

    def act(self, observation: dict, info: dict | None = None) -> int:
        vector, mask = observation_parts(observation, info, self.name)
        if mask.shape != (self.action_space.n,):
            raise ValueError(f"model {self.name!r} has {self.action_space.n} actions but the game has "
                             f"{mask.shape[0]} (a different max_bid)")
        torch = self._torch
        batch = {"obs": {"observations": torch.as_tensor(vector, dtype=torch.float32)[None],
                         "action_mask": torch.as_tensor(mask)[None]}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0]
        return int(torch.argmax(logits))


def _default_name(path: Path) -> str:
    """``runs/x/checkpoint`` -> ``x``; ``runs/x/checkpoints/step_1`` -> ``x-step_1``."""
    if path.name == "checkpoint" and path.parent.name:
        return path.parent.name
    if path.parent.name == "checkpoints" and path.parent.parent.name:
        return f"{path.parent.parent.name}-{path.name}"
    return path.name
