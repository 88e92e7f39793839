"""Helpers for tests that need model files (imported by the test files)."""

import gymnasium
import numpy as np


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
