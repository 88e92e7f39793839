"""``RandomAgent``: uniform over the legal actions, seeded."""

from __future__ import annotations

import numpy as np

from ten_env.env import check_seed

from .base import Agent, observation_parts


class RandomAgent(Agent):
    """Picks uniformly among the legal actions of the action mask."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(check_seed(seed))

    def reset(self, seed: int | None = None) -> None:
        seed = check_seed(seed)
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict, info: dict | None = None) -> int:
        legal = np.flatnonzero(observation_parts(observation, info, self.name)[1])
        return int(self.rng.choice(legal))
