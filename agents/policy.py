"""``PolicyAgent``: plays a trained stable-baselines3 / sb3-contrib model.

Actions are masked and deterministic. Model files are loaded without unpickling
anything (:mod:`agents.safe_load`); a file that could only be loaded by
unpickling it is refused unless the caller passes ``trust=True``. torch and the
RL libraries are imported only when a model is loaded, so the rest of the
project never needs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ten_env import features as F

from .base import Agent, observation_parts

PRETRAINED_DIR = Path(__file__).parent / "pretrained"
_MASKED_LOGIT = -1e8  # the logit sb3-contrib's MaskableCategorical gives a masked action


def shipped_models() -> list[str]:
    """The names of the models shipped with the project (``PolicyAgent.pretrained`` loads them)."""
    return sorted(path.stem for path in PRETRAINED_DIR.glob("*.zip"))


class PolicyAgent(Agent):
    """A trained MaskablePPO model (a ``.zip`` saved by sb3-contrib).

    Raises ``ValueError`` with a clear message if the file is missing, is not a
    model, or was trained for another observation size, and
    :class:`agents.safe_load.UnsafeModelError` (a ``ValueError``) if only
    unpickling could load it and ``trust`` is not set.
    """

    path: Path | None  # None for a model made in memory (from_model)
    model: Any

    def __init__(self, path: str | Path, name: str | None = None, trust: bool = False):
        """Load the model at ``path`` (``.zip`` may be left out).

        ``trust=True`` allows a file that only unpickling can load (a custom policy
        class or activation, say): it is then loaded the SB3 way, which runs any code
        the file holds, with a warning. Without it such a file is refused with a
        ``ValueError`` saying why.
        """
        path = Path(path)
        try:
            path.exists()
        except OSError as exc:  # a name longer than a file's may be
            raise ValueError(f"model file {str(path)!r} cannot name a file ({exc.strerror})") from None
        if not path.exists() and path.suffix != ".zip" and path.with_suffix(".zip").exists():
            path = path.with_suffix(".zip")
        if path.exists() and not path.is_file():
            raise ValueError(f"model file {str(path)!r} is not a file")
        if not path.is_file():
            raise ValueError(f"model file {str(path)!r} does not exist")
        try:
            import sb3_contrib  # noqa: F401
        except ImportError:
            from ten_env.extras import install_hint

            raise ValueError(f"loading the model {path.name!r} needs the training extra: {install_hint('train')}") \
                from None
        from . import safe_load

        try:
            self.model = safe_load.load_policy(path)
        except safe_load.UnsafeModelError:
            if not trust:
                raise
            self.model = safe_load.load_trusted(path)
        # load_policy has checked the file's shape already; a trusted load has not
        safe_load.check_observation_shape(path, getattr(self.model.observation_space, "shape", None))
        self.path = path
        self.name = name or path.stem

    @classmethod
    def from_model(cls, model: Any, name: str = "model") -> "PolicyAgent":
        """An agent around a model already in memory (e.g. during training)."""
        agent = object.__new__(cls)
        agent.model, agent.path, agent.name = model, None, name
        return agent

    @classmethod
    def pretrained(cls, name: str, trust: bool = False) -> "PolicyAgent":
        """A model shipped with the project, by name (e.g. ``"ppo-jen"``)."""
        path = PRETRAINED_DIR / f"{name}.zip"
        if not path.is_file():
            raise ValueError(f"no pretrained model {name!r}; available: {', '.join(shipped_models()) or 'none'}")
        return cls(path, name=name, trust=trust)

    def __repr__(self) -> str:
        return f"PolicyAgent({str(self.path)!r})"

    def act(self, observation: dict, info: dict | None = None) -> int:
        vector, mask = observation_parts(observation, info, self.name)
        mask = mask.astype(bool)
        self._check_actions(mask.shape[-1])
        if not _plain_maskable(getattr(self.model, "policy", self.model)):  # a custom policy: its own predict
            action, _ = self.model.predict(self._network_input(vector), action_masks=mask, deterministic=True)
            return int(action)
        # predict(deterministic=True)'s move, the most probable, from the same numbers; without the
        # torch distribution and the training-mode switch it builds each call (most of its time)
        probs, _ = self._forward(np.asarray(vector)[None], mask[None], values=False)
        return int(probs[0].argmax())

    def _check_actions(self, game_actions: int) -> None:
        """``ValueError`` unless the game has as many actions as the network (they fix ``max_bid``)."""
        n_actions = self.model.action_space.n
        if game_actions != n_actions:
            raise ValueError(f"model {self.name!r} has {n_actions} actions but the game has {game_actions} "
                             f"(a different max_bid)")

    @property
    def derived_features(self) -> bool:
        """Whether the network takes the derived features (:mod:`ten_env.features`) after the observation."""
        return getattr(self.model.observation_space, "shape", None) == (F.EXTENDED_SIZE,)

    def _network_input(self, observations: np.ndarray) -> np.ndarray:
        return F.extend(observations) if self.derived_features else observations

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Masked action probabilities and state values for a batch, in one forward pass.

        ``observations``: shape (batch, observation size); ``masks``: (batch, actions), bool.
        The values are the network's estimate of the game's reward for the observing seat.
        """
        masks = np.asarray(masks, dtype=bool)
        self._check_actions(masks.shape[-1])
        probs, value = self._forward(observations, masks, values=True)
        assert value is not None  # asked for
        return probs, value

    def _forward(self, observations: np.ndarray, masks: np.ndarray,
                 values: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """:meth:`evaluate`'s probabilities, and its values if asked for."""
        import torch

        policy = getattr(self.model, "policy", self.model)  # a trusted load gives the whole model
        with torch.no_grad():
            obs = torch.as_tensor(np.asarray(self._network_input(observations), dtype=np.float32),
                                  device=policy.device)
            if not _plain_maskable(policy):  # a custom policy class: its own methods
                distribution = policy.get_distribution(obs, action_masks=masks)
                probs = distribution.distribution.probs.cpu().numpy()
                return probs, policy.predict_values(obs).cpu().numpy()[:, 0] if values else None
            # What get_distribution and predict_values compute, the same operations in the
            # same order (so the same numbers), with the features taken once and no torch
            # distribution built: those took some 40% of a search's time in the network.
            features = policy.extract_features(obs)
            if policy.share_features_extractor:
                latent_pi, latent_vf = policy.mlp_extractor(features)
            else:
                latent_pi = policy.mlp_extractor.forward_actor(features[0])
                latent_vf = policy.mlp_extractor.forward_critic(features[1]) if values else None
            logits = policy.action_net(latent_pi)
            # sb3-contrib's MaskableCategorical normalises the logits, masks them, and
            # normalises them again (as torch's Categorical does), before the softmax
            logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            mask = torch.as_tensor(masks, device=logits.device).reshape(logits.shape)
            logits = torch.where(mask, logits, torch.tensor(_MASKED_LOGIT, dtype=logits.dtype, device=logits.device))
            logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            probs = torch.softmax(logits, dim=-1).cpu().numpy()
            return probs, policy.value_net(latent_vf).cpu().numpy()[:, 0] if values else None


def _plain_maskable(policy: object) -> bool:
    """Whether ``policy`` computes its distribution and values as sb3-contrib's
    ``MaskableActorCriticPolicy`` does (true of every model this project trains or ships)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    cls = type(policy)
    return isinstance(policy, MaskableActorCriticPolicy) and all(
        getattr(cls, name) is getattr(MaskableActorCriticPolicy, name)
        for name in ("get_distribution", "predict_values", "extract_features", "_get_action_dist_from_latent"))
