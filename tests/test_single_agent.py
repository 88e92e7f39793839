"""The single-agent Gymnasium views: SoloEnv and SingleAgentEnv."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

import ten_env
from agents import HeuristicAgent, JenAgent, RandomAgent
from ten_env import Rules


def _quiet(check, env):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checkers' random actions are illegal on purpose
        check(env)


@pytest.mark.parametrize("make", [
    lambda: ten_env.SoloEnv(jen_level=4),
    lambda: ten_env.SoloEnv(jen_level=10, payment="manual", bust_buy=True),
    lambda: ten_env.SingleAgentEnv(Rules(num_players=3), opponents=[RandomAgent(1), JenAgent(6)]),
    lambda: ten_env.SingleAgentEnv(Rules(num_players=5), opponents=[HeuristicAgent()] * 4, seat=2),
])
def test_gymnasium_and_sb3_checkers(make):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    _quiet(gym_check_env, make())
    _quiet(sb3_check_env, make())


def _finish(env, seed):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps = 0.0, 0
    while True:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool)) and mask.any()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps, info


def test_solo_episode_ends_with_win_reward():
    env = ten_env.SoloEnv(jen_level=5)
    for seed in range(5):
        total, steps, info = _finish(env, seed)
        assert total == (1.0 if info["winners"] == [0] else -1.0)
        assert steps > 5


def test_learning_seat_is_random_unless_fixed():
    opponents = [RandomAgent(0), RandomAgent(1), RandomAgent(2)]
    env = ten_env.SingleAgentEnv(Rules(num_players=4), opponents=opponents)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(40)}
    assert seats == {0, 1, 2, 3}
    fixed = ten_env.SingleAgentEnv(Rules(num_players=4), opponents=opponents, seat=3)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(10)} == {3}


def test_same_seed_same_episode():
    def run():
        env = ten_env.SingleAgentEnv(Rules(num_players=3), opponents=[RandomAgent(7), HeuristicAgent()])
        return _finish(env, 11)

    assert run()[:2] == run()[:2]


def test_opponents_see_what_a_pettingzoo_agent_sees():
    seen = []

    def spy(observation, info):
        seen.append((observation["observation"].shape, "snapshot" in info))
        return int(np.flatnonzero(observation["action_mask"])[0])

    env = ten_env.SingleAgentEnv(Rules(num_players=2), opponents=[spy], seat=0)
    _finish(env, 3)
    assert seen and all(shape == (ten_env.observation.SIZE,) and has for shape, has in seen)


def test_illegal_action_terminates_or_raises():
    env = ten_env.SoloEnv(jen_level=4)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"] == illegal
    with pytest.raises(ValueError, match="call reset"):
        env.step(0)
    strict = ten_env.SoloEnv(jen_level=4, illegal="raise")
    strict.reset(seed=0)
    before = strict.game.clone()
    with pytest.raises(ValueError, match="not legal"):
        strict.step(illegal)
    assert strict.game == before


@pytest.mark.parametrize("make, message", [
    (lambda: ten_env.SingleAgentEnv(Rules(num_players=3), opponents=[RandomAgent()]), "opponents: 2 needed"),
    (lambda: ten_env.SingleAgentEnv(Rules(num_players=2), opponents=[object()]), "callable"),
    (lambda: ten_env.SingleAgentEnv(Rules(num_players=2), opponents=[RandomAgent()], seat=2), "seat must be"),
    (lambda: ten_env.SoloEnv(jen_level=3), "jen_level must be"),
    (lambda: ten_env.SoloEnv(num_players=3), "always 2 players"),
    (lambda: ten_env.SoloEnv(level=5), "unknown argument"),
    (lambda: ten_env.SoloEnv(reward="score"), "reward must be"),
])
def test_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()
