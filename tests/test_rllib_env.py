"""ten_env.rllib.TenMultiAgentEnv: turn-based observations, reward crediting, errors; and the
masked RLModule's masking (train.rllib_module). No Ray session: these run the env and the module
directly. Training with Ray is in test_rllib_train.py."""

import re
import subprocess
import sys

import numpy as np
import pytest

import ten_env
from ten_env import Game, Rules
from ten_env.env import draw_start, final_rewards
from ten_env.rllib import TenMultiAgentEnv

CONFIGS = [{"num_players": n} for n in range(2, 6)] + [
    {"num_players": 3, "bust_buy": True, "reward": "margin"},
    {"jen_level": 7},
    {"num_players": 4, "payment": "manual", "max_bid": 10},
]


def play(env, seed, rng):
    """A game of random legal moves; every step's (observations, rewards, terminateds, infos)."""
    obs, infos = env.reset(seed=seed)
    steps = [(obs, {}, {"__all__": False}, infos)]
    while not steps[-1][2]["__all__"]:
        (agent, o), = steps[-1][0].items()
        action = rng.choice(np.flatnonzero(o["action_mask"]))
        obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
        assert truncateds == {"__all__": False}
        steps.append((obs, rewards, terminateds, infos))
    return steps


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_every_seat_gets_its_own_reward_once_at_the_end(config):
    env = TenMultiAgentEnv(config)
    rng = np.random.default_rng(0)
    agents = env.possible_agents
    assert len(agents) == (1 if "jen_level" in config else config["num_players"])
    for seed in range(8):
        steps = play(env, seed, rng)
        for obs, rewards, terminateds, _ in steps[:-1]:
            assert len(obs) == 1  # only the seat to act observes
            assert not any(rewards.values())
            assert terminateds == {"__all__": False}
        final_obs, rewards, terminateds, infos = steps[-1]
        game = env.game
        assert game.is_over
        # Every seat, the last mover or not, is credited by its own name, once.
        assert set(final_obs) == set(rewards) == set(infos) == set(agents)
        assert terminateds == {**dict.fromkeys(agents, True), "__all__": True}
        for seat, agent in enumerate(agents):
            assert rewards[agent] == final_rewards(game, seat, config.get("reward", "win"))
            assert infos[agent] == {"scores": game.scores(), "winners": game.winners()}
            assert not final_obs[agent]["action_mask"].any()
        totals = {a: sum(step[1].get(a, 0.0) for step in steps) for a in agents}
        assert totals == rewards
        if config.get("reward", "win") == "win" and len(game.winners()) == 1 and len(agents) > 1:
            assert sorted(totals.values()) == [-1.0] * (len(agents) - 1) + [1.0]


@pytest.mark.parametrize("config", CONFIGS[:4] + CONFIGS[5:6], ids=str)
def test_same_observations_and_masks_as_the_pettingzoo_env(config):
    env, aec = TenMultiAgentEnv(config), ten_env.env(**config)
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=5)
    aec.reset(seed=5)
    while True:
        (agent, o), = obs.items()
        assert agent == aec.agent_selection
        expected = aec.observe(agent)
        np.testing.assert_array_equal(o["observations"], expected["observation"])
        np.testing.assert_array_equal(o["action_mask"], expected["action_mask"])
        assert o["action_mask"].dtype == expected["action_mask"].dtype == np.int8
        assert env.observation_spaces[agent].contains(o)
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terminateds, _, _ = env.step({agent: action})
        aec.step(action)
        if terminateds["__all__"]:
            assert all(aec.terminations.values())
            assert rewards == aec.rewards
            break


def test_illegal_action_ends_the_game_for_the_mover_only():
    env = TenMultiAgentEnv({"num_players": 3})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rewards, terminateds, _, infos = env.step({agent: illegal})
    assert terminateds["__all__"] and set(obs) == set(env.possible_agents)
    assert rewards == {a: -1.0 if a == agent else 0.0 for a in env.possible_agents}
    assert infos[agent] == {"illegal_action": illegal}
    assert all(not final["action_mask"].any() for final in obs.values())  # nothing left to choose
    with pytest.raises(ValueError, match="call reset"):
        env.step({agent: 0})
    # what is not in the action space at all is refused, even when it equals a legal id, and changes
    # nothing; a NumPy integer or 0-d array is the id it holds
    legal = int(np.flatnonzero(o["action_mask"])[0])
    obs, _ = env.reset(seed=0)
    played = env.step({agent: legal})
    for not_an_id in (float(legal), np.float32(legal), True if legal == 1 else False, np.array([legal]),
                      np.array(float(legal)), -1, env.num_actions, 10**20, None):
        obs, _ = env.reset(seed=0)
        before = env.game.clone()
        with pytest.raises(ValueError, match=rf"^action .* for {agent} is not in the action space: an int id "
                                             rf"from 0 to {env.num_actions - 1} whose action_mask entry is 1$"):
            env.step({agent: not_an_id})
        assert env.game == before
    for same in (np.int64(legal), np.array(legal), np.uint8(legal)):
        env.reset(seed=0)
        result = env.step({agent: same})
        assert result[1:4] == played[1:4] and all(np.array_equal(result[0][a]["observations"],
                                                                 played[0][a]["observations"]) for a in result[0])


def test_set_jen_level_and_stacked_decks():
    env = TenMultiAgentEnv({"jen_level": 4})
    env.set_jen_level(9)
    env.reset(seed=0)
    assert env.game.rules.jen_level == 9
    with pytest.raises(ValueError, match="normal game"):
        TenMultiAgentEnv({"num_players": 2}).set_jen_level(5)
    deck = ["B3", "B4", "G5", "$2"] * 30
    first, _ = env.reset(options={"deck": deck})
    again, _ = env.reset(options={"deck": deck})
    np.testing.assert_array_equal(first["player_0"]["observations"], again["player_0"]["observations"])


@pytest.mark.parametrize("config, message", [
    ({"players": 3}, "unknown argument"),
    ({"num_players": 7}, "num_players"),
    ({"reward": "points"}, "reward must be one of win, margin, outcome, got 'points'"),
    ({"jen_level": 5, "start": 1}, "start"),
    ("abc", "^config must be a dict of Rules fields and reward, start, render_mode, got 'abc'$"),
    (5, "^config must be a dict"),
])
def test_bad_config_is_one_clear_error(config, message):
    with pytest.raises(ValueError, match=message):
        TenMultiAgentEnv(config)


def test_a_bad_seed_is_one_clear_error_and_changes_nothing():
    env = TenMultiAgentEnv({"num_players": 2})
    env.reset(seed=3)
    before, rng_state = env.game.clone(), env.np_random.bit_generator.state
    for seed in ("x", -1, 1.5, True):
        with pytest.raises(ValueError, match=r"^seed must be None or a non-negative integer, got "):
            env.reset(seed=seed)
    assert env.game == before and env.np_random.bit_generator.state == rng_state


def test_reset_seeds_gymnasiums_np_random_as_rllibs_envs_do():
    """It seeded a stream of its own and left np_random unseeded, which a subclass's scripted
    seats would draw from; the games dealt for a seed are the same as before."""
    env = TenMultiAgentEnv({"num_players": 3})
    env.reset(seed=np.int64(7))
    assert env.np_random_seed == 7
    draws = env.np_random.integers(1000, size=5).tolist()
    env.reset(seed=7)
    assert env.np_random.integers(1000, size=5).tolist() == draws
    for seed, config in [(0, {"num_players": 3}), (5, {"jen_level": 7}), (11, {"num_players": 5})]:
        stream = np.random.default_rng(seed)  # the stream it had before
        game = Game(Rules(**config), seed=int(stream.integers(2**63 - 1)))
        start = draw_start(stream, "random", game.rules)
        env = TenMultiAgentEnv(config)
        env.reset(seed=seed)
        assert env.game.deck == game.deck and env.game.active_player == start


def test_a_subclass_that_scripts_every_seat_is_refused_at_reset_not_dealt_forever():
    class AllScripted(TenMultiAgentEnv):
        def scripted_seat(self, seat):
            return lambda observation, info: int(np.flatnonzero(observation["action_mask"])[0])

    for config in ({"num_players": 2}, {"jen_level": 6}):
        with pytest.raises(ValueError, match=r"^the game ended inside reset\(\): scripted_seat plays every seat"):
            AllScripted(config).reset(seed=0)


def test_step_for_the_wrong_agent_is_refused():
    env = TenMultiAgentEnv({"num_players": 2})
    obs, _ = env.reset(seed=3)
    other = next(a for a in env.possible_agents if a not in obs)
    with pytest.raises(ValueError, match="only"):
        env.step({other: 0})
    (agent,) = obs
    before = env.game.clone()
    for not_a_dict in (0, [0], None):
        with pytest.raises(ValueError, match=rf"^step\(\) takes a dict {{agent: action}}, here {{'{agent}': action}}, "
                                             rf"got {re.escape(repr(not_a_dict))}$"):
            env.step(not_a_dict)
    assert env.game == before


def test_ten_env_never_imports_ray_and_a_missing_ray_is_one_line(tmp_path):
    (tmp_path / "rllib_checkpoint.json").write_text("{}")
    code = ("import sys, ten_env, agents, train.config; assert 'ray' not in sys.modules, 'ray imported'; "
            "sys.modules['ray'] = None\n"
            "try:\n    import ten_env.rllib\nexcept ModuleNotFoundError as e:\n    print(e)\n"
            "from train.rllib_trainer import _import_rllib\n"
            "from agents.rllib_policy import RLlibPolicyAgent\n"
            f"for load in (_import_rllib, lambda: RLlibPolicyAgent({str(tmp_path)!r}, trust=True)):\n"
            "    try:\n        load()\n    except ValueError as e:\n        print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    hint = ("Ray RLlib: pip install 'ten-env[rllib]' (in a clone: pip install -e '.[rllib]'; without a GPU, a CPU "
            "build of torch first (README, Set-up))")
    assert out.strip().splitlines() == [
        f"ten_env.rllib needs {hint}",
        f"backend: rllib needs Ray RLlib, which is not installed: {hint.removeprefix('Ray RLlib: ')}",
        f"loading an RLlib checkpoint needs {hint}"]


# ----------------------------------------------------------------------------- the masked module


def test_masked_module_gives_forbidden_actions_probability_zero():
    import torch
    from ray.rllib.core.columns import Columns

    from train.rllib_module import MaskedPPOModule

    env = TenMultiAgentEnv({"num_players": 4})
    space = env.observation_spaces["player_0"]
    module = MaskedPPOModule(observation_space=space, action_space=env.action_spaces["player_0"],
                             model_config={"fcnet_hiddens": [32]}, inference_only=False)
    rng = np.random.default_rng(0)
    samples = [space.sample() for _ in range(64)]
    for s in samples:
        s["action_mask"][:] = 0
        s["action_mask"][rng.choice(env.num_actions, size=rng.integers(1, 5), replace=False)] = 1
    batch = {Columns.OBS: {k: torch.as_tensor(np.stack([s[k] for s in samples])) for k in space.spaces}}
    mask = batch[Columns.OBS]["action_mask"].bool()
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS]
        assert torch.all(logits[~mask] == torch.finfo(torch.float32).min)
        dist = module.get_exploration_action_dist_cls().from_logits(logits)
        for _ in range(20):
            assert mask.gather(1, dist.sample()[:, None]).all()
        assert torch.isfinite(dist.entropy()).all() and torch.isfinite(dist.logp(logits.argmax(1))).all()
    assert batch[Columns.OBS].keys() == {"observations", "action_mask"}  # the batch is not changed
    values = module.compute_values(dict(batch))
    assert values.shape == (64,) and torch.isfinite(values).all()


# ----------------------------------------------------------------------------- the training table


def episode_chunks(env, seed, cut_every=None):
    """A game of random legal moves fed into RLlib's own ``MultiAgentEpisode`` as its env runner
    does, cut every ``cut_every`` steps as a sample call ends mid-game; the chunks in order."""
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode

    rng = np.random.default_rng(seed)
    episode = MultiAgentEpisode(observation_space=env.observation_spaces, action_space=env.action_spaces,
                                agent_to_module_mapping_fn=lambda agent, episode: "learner")
    obs, infos = env.reset(seed=seed)
    episode.add_env_reset(observations=obs, infos=infos)
    chunks, n = [], 0
    while not episode.is_done:
        (agent, o), = obs.items()
        action = {agent: int(rng.choice(np.flatnonzero(o["action_mask"])))}
        obs, rewards, terminateds, truncateds, infos = env.step(action)
        episode.add_env_step(obs, action, rewards, infos, terminateds=terminateds, truncateds=truncateds,
                             extra_model_outputs={agent: {}})
        n += 1
        if cut_every and n % cut_every == 0 and not episode.is_done:
            chunks.append(episode)
            episode = episode.cut(len_lookback_buffer=1)
    return chunks + [episode]


class Logged:
    """A stand-in for RLlib's MetricsLogger: what the callbacks log."""

    def __init__(self):
        self.values = {}

    def log_value(self, key, value, reduce=None):
        self.values.setdefault(key, []).append(value)


TABLES = [{"num_players": n} for n in range(2, 6)] + [
    {"num_players": 3, "bust_buy": True, "reward": "margin"},
    {"jen_level": 7},
    {"num_players": 4, "pool": ["heuristic", "jen:6"], "share": 0.5, "reward": "margin"},
    {"num_players": 3, "scripted": ["heuristic", "random"]},
]


@pytest.mark.parametrize("config", TABLES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_rllib_episodes_credit_each_seat_its_reward_once_and_count_whole_games(config):
    from train.rllib_env import TableEnv, TenCallbacks

    env = TableEnv(config)
    for seed in range(6):
        for cut in (None, 3, 7):
            chunks = episode_chunks(env, seed, cut)
            returns = {}
            for chunk in chunks:
                for agent, single in chunk.agent_episodes.items():
                    returns[agent] = returns.get(agent, 0.0) + float(sum(single.get_rewards()))
            seats = [s for s in range(env.rules.num_agents) if env.scripted_seat(s) is None]
            assert returns == {env.possible_agents[s]: final_rewards(env.game, s, env.reward) for s in seats}
            # The callback sees only the last chunk, and still counts the learner's whole game.
            logged = Logged()
            TenCallbacks().on_episode_end(episode=chunks[-1], metrics_logger=logged)
            game, = logged.values[("ten", "games")]
            decisions = sum(len(chunk.agent_episodes["player_0"]) for chunk in chunks
                            if "player_0" in chunk.agent_episodes)
            assert game[3] == decisions > 0
            if cut == 3 and decisions > 3:
                assert len(chunks[-1].agent_episodes["player_0"]) < decisions


def test_a_game_reports_the_level_it_was_dealt_at():
    from train.rllib_env import TableEnv

    env = TableEnv({"jen_level": 4})
    obs, _ = env.reset(seed=0)
    env.set_jen_level(5)  # the curriculum climbs while this game runs
    rng = np.random.default_rng(0)
    while True:
        (agent, o), = obs.items()
        obs, _, terminateds, _, infos = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        if terminateds["__all__"]:
            break
    assert infos["player_0"]["jen_level"] == 4
    env.reset(seed=1)
    assert env.game.rules.jen_level == 5


def test_a_scripted_agent_of_yours_that_fails_has_its_game_played_out_and_reported(tmp_path, monkeypatch):
    """On a remote env runner its error ended the runner, which Ray restarted, the error only in its log
    (and an error in its reset() was not even said in one line)."""
    from train.rllib_env import TableEnv, TenCallbacks

    (tmp_path / "flaky_bots.py").write_text(
        "import numpy as np\n\n\ndef flaky(observation, info):\n    if info['snapshot']['turn'] >= 3:\n"
        "        raise RuntimeError('boom on turn 3')\n    return int(np.flatnonzero(observation['action_mask'])[-1])\n"
        "\n\nclass BadReset:\n    calls = 0\n\n    def reset(self, seed=None):  # made and seeded, then reset before each game\n"
        "        BadReset.calls += 1\n        if BadReset.calls > 1:\n            raise RuntimeError('boom in reset')\n\n"
        "    def act(self, observation, info):\n        return 0\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        env = TableEnv({"num_players": 3, "scripted": ["flaky_bots:flaky", "heuristic"]})
        for seed in (0, 1):
            chunks = episode_chunks(env, seed, 5)
            logged = Logged()
            TenCallbacks().on_episode_end(episode=chunks[-1], metrics_logger=logged)
            assert env.game.is_over and logged.values[("ten", "games")]  # the game was played to its end
            assert logged.values[("ten", "agent_failed")] == [
                "the agent flaky (seat 1) raised RuntimeError: boom on turn 3 (flaky_bots.py, line 6)"]
        env.table[1] = env.table[2]  # a table without it: nothing reported
        chunks = episode_chunks(env, 2)
        logged = Logged()
        TenCallbacks().on_episode_end(episode=chunks[-1], metrics_logger=logged)
        assert ("ten", "agent_failed") not in logged.values and env.failure is None
        env = TableEnv({"num_players": 2, "scripted": ["flaky_bots:BadReset"]})  # it fails in reset()
        chunks = episode_chunks(env, 3)
        logged = Logged()
        TenCallbacks().on_episode_end(episode=chunks[-1], metrics_logger=logged)
        assert env.game.is_over and logged.values[("ten", "agent_failed")] == [
            "the agent BadReset raised RuntimeError in reset(): boom in reset (flaky_bots.py, line 16)"]
    finally:
        sys.modules.pop("flaky_bots", None)


def test_scripted_seats_are_reset_before_each_game():
    from train.rllib_env import TableEnv

    def game_of(env, seed):
        return [step[0] for step in play(env, seed, np.random.default_rng(seed))][-1]

    for config in ({"num_players": 3, "scripted": ["random", "random"]},
                   {"num_players": 3, "pool": ["random"], "share": 1.0}):
        env = TableEnv(config)
        first = game_of(env, 1)
        game_of(env, 2)
        again = game_of(env, 1)  # the same reset seed: the scripted seats play the same game again
        for agent in first:
            np.testing.assert_array_equal(first[agent]["observations"], again[agent]["observations"])
    # Envs on other runners, given the same seeds, seat agents that play other sequences.
    from ray.rllib.env.env_context import EnvContext

    config = {"num_players": 3, "scripted": ["random", "random"]}
    games = [game_of(TableEnv(EnvContext(config, worker_index=w)), 1)["player_0"]["observations"] for w in (1, 2)]
    assert not np.array_equal(*games)


def test_human_mode_prints_the_table_after_every_reset_and_step(capsys):
    from ten_env.render import render_table

    env = TenMultiAgentEnv({"num_players": 3, "render_mode": "human"})
    obs, _ = env.reset(seed=0)
    assert capsys.readouterr().out == render_table(env.game) + "\n\n"
    (agent, o), = obs.items()
    env.step({agent: int(np.flatnonzero(o["action_mask"])[0])})
    assert capsys.readouterr().out == render_table(env.game) + "\n\n"
    with pytest.raises(ValueError):
        env.step({"player_9": 0})
    assert capsys.readouterr().out == ""  # a refused step shows nothing
    quiet = TenMultiAgentEnv({"num_players": 3, "render_mode": "ansi"})
    obs, _ = quiet.reset(seed=0)
    (agent, o), = obs.items()
    quiet.step({agent: int(np.flatnonzero(o["action_mask"])[0])})
    assert capsys.readouterr().out == ""
