"""The single-agent Gymnasium views: SoloEnv and SingleAgentEnv."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

import ten_env
from agents import HeuristicAgent, JenAgent, RandomAgent
from ten_env import Rules
from ten_env.render import render_table


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


def test_solo_episode_ends_with_outcome_reward():
    env = ten_env.SoloEnv(jen_level=5, reward="outcome")
    for seed in range(5):
        total, _, info = _finish(env, seed)
        margin = (info["scores"][0] - info["scores"][1]) / 20
        assert total == pytest.approx((-1.0 + max(-1.0, margin)) / 2)  # random play never beats JEN 5


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


def test_an_opponent_that_answers_a_refused_move_is_named_and_ends_the_game():
    def first_legal(observation, info):
        return int(np.flatnonzero(observation["action_mask"])[0])

    answers = iter([None])  # the seat-2 opponent's first answer is no action at all

    def broken(observation, info):
        return next(answers, 999)

    env = ten_env.SingleAgentEnv(Rules(num_players=3), opponents=[first_legal, broken], seat=0, start=0)
    env.reset(seed=0)
    stop = env.game.action_id("stop_numbers")
    with pytest.raises(ValueError, match=r"^the opponent at seat 2 chose None, which the game refuses: action None "
                                         r"is neither an int id nor a name for player 2 in the \w+ phase; legal: "):
        env.step(stop)
    with pytest.raises(ValueError, match="call reset"):  # the learner's move stood: the game cannot go on
        env.step(stop)
    with pytest.raises(ValueError, match=r"^the opponent at seat 2 chose 999, .*out of range"):
        env.reset(seed=1)
        while True:  # until seat 2 moves again (a game that ended first would raise "call reset", failing the match)
            env.step(int(np.flatnonzero(env.action_masks())[0]))


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
    # what is not in the action space at all (a one-element array, a float, a bool, an id out of range)
    # is refused in either mode, whatever its value, and changes nothing: a bug, not a lost game;
    # a NumPy integer or 0-d array is the id it holds
    legal = int(np.flatnonzero(strict.action_masks())[0])
    env.reset(seed=0)
    played = env.step(legal)[0]
    for not_an_id in (np.array([legal]), float(legal), True, np.array(float(legal)), np.array(legal + 0.9),
                      -1, env.num_actions, 10**20, None, "nonsense"):
        for each in (env, strict):
            each.reset(seed=0)
            before = each.game.clone()
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no "illegal action" warning: nothing was played
                with pytest.raises(ValueError, match=r"^action .* is not in the action space: an int id from 0 to "
                                                     rf"{env.num_actions - 1} \(or an action's name\)"):
                    each.step(not_an_id)
            assert each.game == before
            assert np.array_equal(each.step(legal)[0], played)  # the episode goes on
    for same in (np.int64(legal), np.array(legal)):
        env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step(same)
        assert np.array_equal(obs, played) and "illegal_action" not in info


def test_an_illegal_action_warns_in_one_text_whatever_the_action():
    """Python shows a warning once per text and place: the text named the action and the legal
    ones, so an unmasked policy printed one at every illegal step (312 in PPO's first 2,048)."""
    env = ten_env.SoloEnv(jen_level=5)
    texts = []
    for seed in range(6):
        env.reset(seed=seed)
        illegal = int(np.flatnonzero(~env.action_masks())[seed])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            *_, info = env.step(illegal)
        assert info["illegal_action"] == illegal
        texts += [str(w.message) for w in caught]
    assert len(texts) == 6 and len(set(texts)) == 1
    assert "info['illegal_action']" in texts[0] and "action_masks()" in texts[0]


@pytest.mark.parametrize("make, message", [
    (lambda: ten_env.SingleAgentEnv(Rules(num_players=3), opponents=[RandomAgent()]), "opponents: 2 needed"),
    (lambda: ten_env.SingleAgentEnv(Rules(num_players=2), opponents=[object()]), "callable"),
    (lambda: ten_env.SingleAgentEnv(Rules(num_players=2), opponents=[RandomAgent()], seat=2), "seat must be"),
    (lambda: ten_env.SingleAgentEnv(Rules(num_players=3), opponents=[RandomAgent()] * 2, seat=1.0),
     "seat must be None or an integer from 0 to 2, got 1.0"),
    (lambda: ten_env.SoloEnv(jen_level=11), "^SoloEnv plays against JEN: jen_level must be an integer from 4 to 10, "
                                            "got 11$"),  # not "None or", which Rules allows
    (lambda: ten_env.SoloEnv(jen_level=None), r"SoloEnv plays against JEN: jen_level must be an integer from 4 to 10, "
                                              r"got None"),
    (lambda: ten_env.SoloEnv(num_players=3), "always 2 players"),
    (lambda: ten_env.SoloEnv(level=5), "unknown argument"),
    (lambda: ten_env.SoloEnv(reward="score"), "reward must be"),
    (lambda: ten_env.SoloEnv(start=1), r"start must be 'random' or 0 in the solitaire game"),
    (lambda: ten_env.SoloEnv(render_mode=["ansi"]), "render_mode must be None, 'ansi' or 'human'"),
    (lambda: ten_env.SingleAgentEnv(Rules(num_players=3), opponents=[RandomAgent()] * 2, start=3),
     r"start must be 'random' or a seat from 0 to 2, got 3$"),
    (lambda: ten_env.SingleAgentEnv(Rules(num_players=3), opponents=[RandomAgent()] * 2, start="left"),
     r"start must be 'random' or a seat from 0 to 2, got 'left'"),
])
def test_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()


# ------------------------------------------------------------------ render modes and reset options


def test_an_unsupported_render_mode_warns_and_renders_nothing():
    for make in (lambda: ten_env.SoloEnv(jen_level=5, render_mode="rgb_array"),
                 lambda: ten_env.SingleAgentEnv(Rules(num_players=2), opponents=[RandomAgent()],
                                                render_mode="rgb_array")):
        with pytest.warns(UserWarning, match="render_mode 'rgb_array' is not supported"):
            env = make()
        assert env.render_mode is None
        env.reset(seed=0)
        with pytest.warns(UserWarning, match=r"render\(\) renders nothing: the env was made with no render_mode, "
                                             r"or one it does not support"):
            assert env.render() is None


def test_gymnasium_make_with_rgb_array_passes_the_checker():
    import gymnasium

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gymnasium.make("ten_env/TenSolo-v0", jen_level=7, render_mode="rgb_array")
        gym_check_env(env.unwrapped)
    assert env.unwrapped.render_mode is None


def test_unknown_reset_options_are_refused_and_change_nothing():
    env = ten_env.SoloEnv(jen_level=4)
    env.reset(seed=0)
    before, rng_state = env.game.clone(), env.np_random.bit_generator.state
    with pytest.raises(ValueError, match=r"^unknown reset option\(s\) dek; allowed: deck$"):
        env.reset(seed=1, options={"dek": ["B3"]})
    with pytest.raises(ValueError, match="Q3"):
        env.reset(seed=1, options={"deck": ["B3", "Q3"]})
    assert env.game == before and env.np_random.bit_generator.state == rng_state
    # a seed Gymnasium would refuse with its own Error (-1), or take (True)
    for seed in (-1, True, 1.5, "x"):
        with pytest.raises(ValueError, match=rf"^seed must be None or a non-negative integer, got {seed!r}$"):
            env.reset(seed=seed)
    assert env.game == before and env.np_random.bit_generator.state == rng_state
    # a stacked deck found to end the game before the learner chooses, only once it is dealt
    with pytest.raises(ValueError, match="this stacked deck ends the game before the learning seat has a single"):
        env.reset(options={"deck": ["B3"]})
    assert env.np_random.bit_generator.state == rng_state
    env.reset(seed=0, options={})  # Gymnasium's checker passes an empty dict


# ------------------------------------------------------------------ the starting player


def _first_seat(env) -> int:
    return env.game.history[0][0]  # the forced first draw of the first turn


def test_the_starting_player_is_drawn_or_fixed():
    opponents = [RandomAgent(0), RandomAgent(1), RandomAgent(2)]
    env = ten_env.SingleAgentEnv(Rules(num_players=4), opponents=opponents, seat=1)
    firsts = set()
    for seed in range(40):
        env.reset(seed=seed)
        firsts.add(_first_seat(env))
    assert firsts == {0, 1, 2, 3}
    fixed = ten_env.SingleAgentEnv(Rules(num_players=4), opponents=opponents, start=3)
    for seed in range(8):
        fixed.reset(seed=seed)
        assert _first_seat(fixed) == 3
    solo = ten_env.SoloEnv(jen_level=6)
    for seed in range(8):
        solo.reset(seed=seed)
        assert _first_seat(solo) == 0
    ten_env.SoloEnv(jen_level=6, start=0).reset(seed=0)


# ------------------------------------------------------------------ vector envs


def test_the_mask_at_the_end_of_an_episode_allows_any_action():
    env = ten_env.SoloEnv(jen_level=5)
    *_, info = _finish(env, 2)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].all()
    assert env.action_masks().all() and env.action_masks().dtype == bool
    with pytest.raises(ValueError, match="call reset"):
        env.step(0)
    obs, info = env.reset(seed=3)
    assert not info["action_mask"].all() and np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        *_, terminated, _, info = env.step(illegal)
    assert terminated and info["action_mask"].all() and env.action_masks().all()


@pytest.mark.parametrize("make", [
    lambda n: __import__("gymnasium").make_vec("ten_env/TenSolo-v0", num_envs=n, vectorization_mode="sync",
                                               jen_level=5),
    lambda n: __import__("gymnasium").vector.SyncVectorEnv(
        [lambda: ten_env.SingleAgentEnv(Rules(num_players=3), opponents=[RandomAgent(1), JenAgent(5)])] * n),
])
def test_a_masked_random_loop_runs_in_a_gymnasium_vector_env(make):
    n = 3
    env = make(n)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    returns = []
    totals = np.zeros(n)
    for _ in range(1500):
        actions = np.array([int(rng.choice(np.flatnonzero(info["action_mask"][i]))) for i in range(n)])
        obs, reward, terminated, truncated, info = env.step(actions)
        totals += reward
        for i in np.flatnonzero(terminated | truncated):
            assert info["action_mask"][i].all()  # the next step resets this env: any action will do
            returns.append(totals[i])
            totals[i] = 0
        episodes += int(terminated.sum())
    env.close()
    assert episodes >= 6 and all(r in (-1.0, 0.0, 1.0) for r in returns)


def test_make_vec_env_and_maskable_ppo():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # make_vec_env asks for render_mode="rgb_array": warned about
        venv = make_vec_env("ten_env/TenSolo-v0", n_envs=4, env_kwargs={"jen_level": 7}, seed=0)
    assert venv.num_envs == 4 and venv.render_mode is None
    venv.reset()
    masks = get_action_masks(venv)
    assert masks.shape == (4, 132) and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0)
    model.learn(256)
    assert model.num_timesteps == 256  # one rollout of 64 steps in each of 4 envs
    venv.close()


def test_the_module_prefixed_id_needs_no_import():
    import subprocess
    import sys

    code = ("import gymnasium; env = gymnasium.make_vec('ten_env:ten_env/TenSolo-v0', num_envs=2, jen_level=5); "
            "obs, info = env.reset(seed=0); print(obs.shape, info['action_mask'].any(axis=1).all())")
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["(2,", f"{ten_env.observation.SIZE})", "True"]


def test_human_mode_prints_the_table_after_every_reset_and_step(capsys):
    env = ten_env.SoloEnv(jen_level=5, render_mode="human")
    env.reset(seed=0)
    assert capsys.readouterr().out == render_table(env.game, me=0) + "\n\n"
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert capsys.readouterr().out == render_table(env.game, me=0) + "\n\n"
    quiet = ten_env.SoloEnv(jen_level=5, render_mode="ansi")
    quiet.reset(seed=0)
    quiet.step(int(np.flatnonzero(quiet.action_masks())[0]))
    assert capsys.readouterr().out == ""


def test_set_jen_level_changes_the_next_games_and_refuses_what_cannot_be():
    env = ten_env.SoloEnv(jen_level=4)
    env.set_jen_level(9)
    env.reset(seed=0)
    assert env.game.rules.jen_level == 9
    for level in (11, None, 5.0):  # None, which Rules takes for a normal game, was taken: a game without JEN
        with pytest.raises(ValueError, match=f"^set_jen_level: the level must be an integer from 4 to 10, "
                                             f"got {level!r}$"):
            env.set_jen_level(level)
    assert env.rules.jen_level == 9
    for level in np.arange(5, 7):  # a curriculum's loop over NumPy's integers
        env.set_jen_level(level)
        env.reset(seed=0)
        assert env.game.rules.jen_level == level and type(env.rules.jen_level) is int
    table = ten_env.SingleAgentEnv(Rules(num_players=2), opponents=[RandomAgent(0)])
    with pytest.raises(ValueError, match="^set_jen_level: this env plays a normal game, not the solitaire game$"):
        table.set_jen_level(5)
    assert table.rules.jen_level is None
