"""A user's code, type-checked by tests/test_types.py (never run): what a type checker infers
from the annotations ten_env ships (py.typed) at the calls a user makes first."""

import random
from typing import Any

import numpy as np
from typing_extensions import assert_type

import ten_env
from ten_env import Game, Rules

solo = ten_env.SoloEnv(jen_level=7)
observation, info = solo.reset(seed=0)
assert_type(observation, np.ndarray)
assert_type(info, dict[Any, Any])
observation, reward, terminated, truncated, info = solo.step(np.int64(0))  # a NumPy id is an index
assert_type(reward, float)
assert_type(terminated, bool)

table = ten_env.raw_env(num_players=3)
table.reset(seed=0)
seen, points, done, cut, about = table.last()
assert_type(seen, dict[Any, Any] | None)
assert_type(points, float)
table.step(0)
table.step(None)

game = Game(Rules(num_players=2), seed=0)
assert_type(Game.from_snapshot(game.snapshot(), shuffle_unseen=3), Game)
assert_type(game.clone(shuffle_unseen=random.Random(1)), Game)
game.act("draw")
game.act(np.int64(0))
