"""The masked PPO policy for RLlib's new API stack: :class:`MaskedPPOModule`.

An ``RLModule`` for observations ``{"observations": vector, "action_mask": mask}``
(what :class:`ten_env.rllib.TenMultiAgentEnv` gives): RLlib's default PPO
networks (``DefaultModelConfig``: ``fcnet_hiddens``, ``fcnet_activation``,
``vf_share_layers``) read the vector only, and the logit of every action the
mask forbids is set to the lowest float32 before any distribution is built,
for exploration, inference and training alike. So a forbidden action has
probability exactly 0 when sampled, and PPO's log-probabilities and entropy
are those of the legal actions (the entropy term of a forbidden action is
0 * log 0, which torch takes as 0).

Built on RLlib's own action-masking example
(``ray/rllib/examples/rl_modules/classes/action_masking_rlm.py``), which masks to
the same effect: it adds ``log(mask)`` clamped to RLlib's ``FLOAT_MIN`` (-3.4e38)
to the logits, and a forbidden logit plus -3.4e38 rounds to -3.4e38 in float32
(probability 0, entropy term 0, as here). The differences: the logits are *set*
to the lowest float32, which says what is meant, and the batch is never changed
in place (the example pops the mask out of the caller's observations).

Use it in a config::

    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    config.rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedPPOModule,
                                                 model_config={"fcnet_hiddens": [256, 256]}))

Ray and torch are imported here: import this module only with the ``rllib`` extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns

if TYPE_CHECKING:
    from ray.rllib.utils.typing import TensorType

OBSERVATIONS, ACTION_MASK = "observations", "action_mask"


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module with illegal actions masked out (see the module docstring)."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not (isinstance(observation_space, gym.spaces.Dict)
                and {OBSERVATIONS, ACTION_MASK} <= set(observation_space.spaces)):
            raise ValueError(f"MaskedPPOModule needs a Dict observation space with {OBSERVATIONS!r} and "
                             f"{ACTION_MASK!r} (as ten_env.rllib.TenMultiAgentEnv's), got {observation_space}")
        # The networks are built for the vector alone; the module keeps the whole space.
        self._space_with_mask = observation_space
        super().__init__(observation_space=observation_space[OBSERVATIONS], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self._space_with_mask

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = _split(batch)
        return _masked(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = _split(batch)
        return _masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None) -> TensorType:
        if isinstance(batch[Columns.OBS], dict):  # GAE calls it on the raw batch
            batch = _split(batch)[1]
        return super().compute_values(batch, embeddings)


def _split(batch: dict) -> tuple[torch.Tensor, dict]:
    """(the mask as bool, a shallow copy of ``batch`` whose observations are the vector)."""
    obs = batch[Columns.OBS]
    return obs[ACTION_MASK].bool(), {**batch, Columns.OBS: obs[OBSERVATIONS]}


def _masked(outputs: dict, mask: torch.Tensor) -> dict:
    logits = outputs[Columns.ACTION_DIST_INPUTS]
    lowest = torch.finfo(logits.dtype).min
    outputs[Columns.ACTION_DIST_INPUTS] = torch.where(mask, logits, torch.full_like(logits, lowest))
    return outputs
