"""ten train with backend: rllib, on one Ray session shared by the module (2 CPUs): tiny runs,
checkpoints, ten eval on them, --resume, the curriculum, masks in training, and the refusals."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from agents.rllib_policy import RLlibPolicyAgent
from ten_env import Game, Rules
from ten_env import observation as O
from train.cli import main
from train.config import validate

# One worker runs this module under pytest-xdist (--dist loadgroup): its tests share one local Ray.
pytestmark = pytest.mark.xdist_group("ray")

ROOT = Path(__file__).resolve().parents[1]

TINY = {
    "backend": "rllib",
    "algorithm": {"n_steps": 250, "batch_size": 250, "n_epochs": 1, "net_arch": [32]},
    "train": {"total_steps": 1000, "n_envs": 2, "checkpoint_every": 500, "reward": "margin"},
    "ray": {"num_env_runners": 0},
}


def tiny(tmp_path, name, **sections):
    data = json.loads(json.dumps(TINY))
    for key, value in sections.items():
        data[key] = {**data.get(key, {}), **value} if isinstance(value, dict) else value
    data["output"] = {"dir": str(tmp_path / name)}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture(scope="module")
def ray_session():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def jen_run(ray_session, tmp_path_factory):
    """A tiny curriculum run against JEN on one remote env runner: 2 iterations, evaluated."""
    tmp = tmp_path_factory.mktemp("rllib")
    config = tiny(tmp, "jen", opponents={"kind": "jen", "jen_level": 4, "curriculum": {"window": 10}},
                  evaluation={"every": 500, "games": 4, "final_levels": "4", "final_games": 4},
                  ray={"num_env_runners": 1})
    assert main(["train", str(config), "--no-progress"]) == 0
    return config, tmp / "jen"


def scalars(run: Path) -> dict:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(next((run / "tb").glob("events.*"))))
    events.Reload()
    return {tag: [e.value for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]}


def test_tiny_run_against_jen_leaves_a_run_folder(jen_run, capsys):
    _, run = jen_run
    assert {"config.yaml", "meta.json", "model.json", "checkpoint", "checkpoints", "tb", "eval"} <= {
        p.name for p in run.iterdir()}
    card = json.loads((run / "model.json").read_text())
    assert card["backend"] == "rllib" and card["observation_shape"] == [O.SIZE] and card["timesteps"] >= 1000
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] == card["timesteps"] and (run / "checkpoints" / state["checkpoint"]).is_dir()
    assert 0 < state["training_seconds"] == card["training_seconds"] and "CPUs" in card["machine"]
    report = json.loads((run / "eval" / "report.json").read_text())
    assert report["mode"] == "ladder" and report["matchups"][0]["games"] == 4
    logged = scalars(run)
    assert logged["ten/illegal_actions"] and not any(logged["ten/illegal_actions"])  # exploration is masked
    assert {"ten/win_rate", "ten/margin", "ten/jen_level", "ten/eval_win_rate", "ten/eval_margin", "rllib/entropy",
            "rllib/steps_per_second"} <= set(logged)


def test_checkpoint_then_ten_eval_needs_trust(jen_run, tmp_path, capsys, monkeypatch):
    _, run = jen_run
    out = tmp_path / "eval"
    assert main(["eval", str(run / "checkpoint"), "--levels", "4", "--games", "2", "--jobs", "1",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--trust-model" in err and "pickled" in err
    assert not out.exists()
    assert main(["eval", str(run / "checkpoint"), "--levels", "4", "--games", "2", "--jobs", "1",
                 "--out", str(out), "--trust-model"]) == 0
    assert json.loads((out / "report.json").read_text())["matchups"][0]["games"] == 2
    # a path relative to the current folder, as the README writes it (RLlib took it for a URI without a scheme;
    # ten train's final evaluation of a relative output.dir failed so)
    monkeypatch.chdir(run.parent)
    assert main(["eval", f"{run.name}/checkpoint", "--levels", "4", "--games", "2", "--jobs", "1",
                 "--out", str(tmp_path / "relative"), "--trust-model"]) == 0, capsys.readouterr().err
    from agents.registry import make_agent

    with pytest.raises(ValueError, match="an RLlib checkpoint cannot guide a search"):
        make_agent(f"search:{run / 'checkpoint'}:8", trust=True)
    # the checkpoint as an agent: it plays a legal move, and refuses a mask with none (it took the best of
    # the masked logits)
    import numpy as np

    from ten_env import Game, Rules
    from ten_env.observation import agent_view

    agent = make_agent(str(run / "checkpoint"), trust=True)
    game = Game(Rules(jen_level=4), seed=2)
    observation, info = agent_view(game, 0)
    assert agent.act(observation, info) in game.legal_actions()
    observation["action_mask"] = np.zeros_like(observation["action_mask"])
    with pytest.raises(ValueError, match=r": the action mask has no legal action \(an agent acts on its own turn\)$"):
        agent.act(observation, info)


def test_checkpoint_for_another_observation_size_is_refused(jen_run, tmp_path, capsys):
    config, run = jen_run
    copy = tmp_path / "old"
    shutil.copytree(run, copy)
    card = json.loads((copy / "model.json").read_text())
    (copy / "model.json").write_text(json.dumps({**card, "observation_shape": [400]}))
    assert main(["eval", str(copy / "checkpoint"), "--levels", "4", "--trust-model", "--out",
                 str(tmp_path / "ev")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "(400,)" in err and "another version" in err
    before = sorted(p.name for p in (copy / "checkpoints").iterdir())
    assert main(["train", str(config), "--resume", "--set", f"output.dir={copy}"]) == 2
    assert "(400,)" in capsys.readouterr().err
    assert sorted(p.name for p in (copy / "checkpoints").iterdir()) == before


def test_resume_restores_the_policy_and_continues(jen_run, tmp_path, capsys):
    config, run = jen_run
    copy = tmp_path / "resumed"
    shutil.copytree(run, copy)
    before = RLlibPolicyAgent(copy / "checkpoint", trust=True).module.state_dict()
    steps = json.loads((copy / "checkpoints" / "state.json").read_text())["timesteps"]
    # The checkpoint is pickled: resuming loads it only with --trust-model, and changes nothing without.
    files = sorted((p.relative_to(copy), p.stat().st_mtime_ns) for p in copy.rglob("*"))
    assert main(["train", str(config), "--resume", "--no-eval", "--no-progress", "--set", f"output.dir={copy}"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--trust-model" in err and "pickled" in err
    assert sorted((p.relative_to(copy), p.stat().st_mtime_ns) for p in copy.rglob("*")) == files
    # Nothing left to do: the final checkpoint is the restored policy, unchanged.
    assert main(["train", str(config), "--resume", "--trust-model", "--no-eval", "--no-progress",
                 "--set", f"output.dir={copy}"]) == 0
    after = RLlibPolicyAgent(copy / "checkpoint", trust=True).module.state_dict()
    assert before.keys() == after.keys() and all(torch.equal(before[k], after[k]) for k in before)
    assert main(["train", str(config), "--resume", "--trust-model", "--no-eval", "--no-progress",
                 "--set", f"output.dir={copy}", "--set", f"train.total_steps={steps + 400}"]) == 0
    assert json.loads((copy / "checkpoints" / "state.json").read_text())["timesteps"] >= steps + 400
    # the folder's config says the budget the run was last given
    assert yaml.safe_load((copy / "config.yaml").read_text())["train"]["total_steps"] == steps + 400


def test_selfplay_4p_snapshots_scripted_seats_and_masks(ray_session, tmp_path):
    from ray.rllib.core.rl_module.rl_module import RLModule

    config = tiny(tmp_path, "sp", rules={"num_players": 4},
                  opponents={"kind": "selfplay", "pool_size": 2, "snapshot_every": 250,
                             "scripted": ["heuristic", "jen:6"], "scripted_share": 0.3},
                  evaluation={"every": 0, "games": 2, "opponents": ["heuristic"], "final_games": 4})
    assert main(["train", str(config), "--no-progress"]) == 0
    run = tmp_path / "sp"
    # One snapshot after each of the 2 iterations (500 steps each), slot 0 then slot 1: the last is the
    # final learner.
    assert json.loads((run / "checkpoints" / "state.json").read_text())["snapshots"] == 2
    modules = run / "checkpoint" / "learner_group" / "learner" / "rl_module"
    learner, last = (RLModule.from_checkpoint(modules / name).state_dict() for name in ("learner", "snapshot_1"))
    assert all(torch.equal(learner[k], last[k]) for k in learner)
    first = RLModule.from_checkpoint(modules / "snapshot_0").state_dict()
    assert not all(torch.equal(learner[k], first[k]) for k in learner)
    assert not any(scalars(run)["ten/illegal_actions"])
    report = json.loads((run / "eval" / "report.json").read_text())
    assert report["num_players"] == 4 and report["matchups"][0]["opponents"] == ["heuristic"] * 3
    # The trained policy never picks a masked action, whatever the table.
    agent = RLlibPolicyAgent(run / "checkpoint", trust=True)
    rng = np.random.default_rng(0)
    for players in (2, 4, 5):
        game = Game(Rules(num_players=players), seed=players)
        while not game.is_over:
            observation, info = O.agent_view(game, game.current_player)
            chosen = agent.act(observation, info)
            assert observation["action_mask"][chosen] == 1
            game.act(chosen if rng.random() < 0.5 else int(rng.choice(game.legal_actions())))


def test_a_selfplay_run_is_reproduced_from_its_seed(ray_session, tmp_path):
    """Which seat plays the learner and which a snapshot is drawn from the envs' seeded streams
    (it was drawn from RLlib's episode ids, uuid4s): two runs of one config train the same."""
    from train.config import load_config
    from train.rllib_trainer import build_algorithm
    from train.rllib_env import SEATING, map_agent

    config = load_config(tiny(tmp_path, "again", rules={"num_players": 3},
                              opponents={"kind": "selfplay", "pool_size": 2, "scripted": [], "scripted_share": 0}))
    weights, seatings = [], []
    for _ in range(2):
        algorithm = build_algorithm(config, None)
        try:
            runner = algorithm.env_runner_group.local_env_runner
            episodes = runner.sample(num_timesteps=500)
            seatings.append([episode.custom_data[SEATING] for episode in episodes])
            algorithm.train()
            weights.append(algorithm.get_module("learner").state_dict())
        finally:
            algorithm.stop()
    assert seatings[0] == seatings[1] and len(set(seatings[0])) > 1
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])

    class Episode:  # seats are drawn from the game's number: each module plays some games
        id_ = "x"

        def __init__(self, number):
            self.custom_data = {SEATING: number}

    modules = ("learner", "snapshot_0", "snapshot_1")
    assert {map_agent("player_1", Episode(n), modules) for n in range(30)} == set(modules)
    assert map_agent("player_0", Episode(0), modules) == "learner"


def test_curriculum_level_reaches_every_env_on_the_runners(ray_session, tmp_path):
    from train.config import load_config
    from train.rllib_trainer import build_algorithm, set_jen_level

    config = load_config(tiny(tmp_path, "cur", opponents={"kind": "jen", "jen_level": 4}))
    algorithm = build_algorithm(config, 4)
    try:
        set_jen_level(algorithm, 8)
        levels = algorithm.env_runner_group.foreach_env_runner(
            lambda runner: [env.unwrapped.rules.jen_level for env in runner.env.envs])
        assert levels == [[8, 8]]
        games = algorithm.train()["env_runners"]["ten"]["games"]
        assert games and {level for level, *_ in games} == {8}
    finally:
        algorithm.stop()


def test_a_resumed_run_deals_new_games(ray_session, tmp_path):
    from train.config import load_config
    from train.rllib_trainer import build_algorithm

    config = load_config(tiny(tmp_path, "seeds", rules={"num_players": 3},
                              opponents={"kind": "selfplay", "pool_size": 1, "scripted": ["heuristic"]}))

    def first_deals(timesteps):  # the bottom of each env's first deck (no card of it drawn yet)
        algorithm = build_algorithm(config, None, timesteps)
        try:
            runner = algorithm.env_runner_group.local_env_runner
            runner.sample(num_timesteps=2, random_actions=True)
            return [env.unwrapped.game.deck[:20] for env in runner.env.envs]
        finally:
            algorithm.stop()

    first = first_deals(0)
    assert first_deals(0) == first  # seeded
    resumed = first_deals(1000)  # a run resumed 1000 steps in
    assert len(first) == 2 and all(a != b for a, b in zip(first, resumed))


def test_a_taken_output_folder_is_refused_before_ray_starts(tmp_path, monkeypatch, capsys):
    import train.rllib_trainer

    def start_ray(*args):
        raise AssertionError("Ray started")

    monkeypatch.setattr(train.rllib_trainer, "start_ray", start_ray)
    config = tiny(tmp_path, "taken", opponents={"kind": "jen"})
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    assert main(["train", str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "already holds other files" in err
    assert main(["train", str(config), "--resume"]) == 2
    assert "holds no run to resume" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["notes.txt"]


def test_more_runners_than_cpus_is_refused_before_anything_is_written(ray_session, tmp_path, capsys):
    config = tiny(tmp_path, "big", opponents={"kind": "jen"}, ray={"num_env_runners": 3}, train={"n_envs": 3})
    assert main(["train", str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "3 CPUs" in err and "has 2" in err
    assert not (tmp_path / "big").exists()


def run_cli(*args, prelude=""):
    code = f"import sys; {prelude}\nfrom train.cli import main; sys.exit(main({list(args)!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_unreachable_address_and_missing_ray_are_one_line(tmp_path):
    config = tiny(tmp_path, "away", opponents={"kind": "jen"})
    done = run_cli("train", str(config), "--address", "127.0.0.1:9")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "cannot reach a Ray cluster at '127.0.0.1:9'" in done.stderr and "ray start --head" in done.stderr
    done = run_cli("train", str(config), prelude="sys.modules['ray'] = None")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "needs Ray RLlib" in done.stderr and "pip install" in done.stderr
    assert not (tmp_path / "away").exists()


@pytest.mark.parametrize("change, message", [
    ({"backend": "rllib", "rules": {"num_players": [2, 3]}, "opponents": {"kind": "selfplay"}},
     "backend rllib trains one table size"),
    ({"backend": "rllib", "train": {"init_from": "ppo-jen"}}, "sb3 only"),
    ({"ray": {"num_env_runners": 2}}, r"ray: this section is for backend: rllib \(this config uses sb3\)$"),
    ({"backend": "rllib", "ray": {"num_env_runners": -1}}, "ray.num_env_runners"),
    ({"backend": "rllib", "ray": {"runners": 2}}, "unknown key 'ray.runners'"),
    ({"backend": "ray"}, r"backend: Input should be 'sb3' or 'rllib' \(got 'ray'\)$"),
    ({"backend": "rllib", "train": {"n_envs": 5}, "ray": {"num_env_runners": 2}},
     r"train.n_envs \(5\) must be a multiple of ray.num_env_runners \(2\)"),
    ({"backend": "rllib", "train": {"n_envs": 1}, "ray": {"num_env_runners": 2}},
     r"train.n_envs \(1\) must be a multiple of ray.num_env_runners \(2\): the envs are shared evenly"),
])
def test_config_checks_for_the_rllib_backend(change, message):
    with pytest.raises(ValueError, match=message):
        validate(change)


def test_eval_names_an_rllib_run_after_its_folder():
    from train.options import agent_name

    assert agent_name("runs/rllib_jen/checkpoint") == "rllib_jen"


def test_shipped_rllib_configs_are_valid():
    from train.config import load_config

    jen = load_config(ROOT / "configs" / "rllib_jen.yaml")
    ladder = load_config(ROOT / "configs" / "jen_ladder.yaml")
    assert jen.backend == "rllib" and jen.opponents == ladder.opponents  # the same curriculum
    selfplay = load_config(ROOT / "configs" / "rllib_selfplay_4p.yaml")
    assert selfplay.rules.num_players == 4 and selfplay.opponents.kind == "selfplay"
    assert set(selfplay.opponents.scripted) == {"heuristic", "jen:7"}


def test_the_readme_rllib_example_trains_with_masks(ray_session):
    """The README's RLlib snippet as written builds PPO on TenMultiAgentEnv (one shared masked
    policy); shrunk to a tiny batch, one iteration plays whole 4-player games, no illegal move."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Training on Ray RLlib", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    setup, run = block.split("algo = ", 1)
    scope = {}
    exec(setup, scope)
    config = scope["config"].env_runners(num_env_runners=0).training(
        train_batch_size_per_learner=400, minibatch_size=200, num_epochs=1)
    assert config.is_multi_agent and config.env_config == {"num_players": 4, "bust_buy": True}
    scope["config"] = config
    build, train = ("algo = " + run).split("\n", 1)
    exec(build, scope)
    algo = scope["algo"]
    try:  # stopped whatever fails from here, so a failure leaves no Ray actors behind
        exec(train.replace("print(", "result = ("), scope)
        result = scope["result"]
        assert np.isfinite(result)  # the mean return of the games the iteration finished
        episodes = algo.env_runner.sample(num_episodes=2, random_actions=False)
        finished = [e for e in episodes if e.is_done]
        assert finished
        for episode in finished:
            assert set(episode.agent_episodes) == {f"player_{s}" for s in range(4)}
            infos = [info for single in episode.agent_episodes.values() for info in single.get_infos()]
            assert not any("illegal_action" in info for info in infos)
            assert all("winners" in single.get_infos(-1) for single in episode.agent_episodes.values())
    finally:
        algo.stop()


def test_readme_test_commands_are_the_ones_ci_runs():
    """The suite imports Ray (these files): the README's test commands install the rllib extra,
    exactly as .ci/run does, so following the README runs every test."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("To run the tests", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    readme_commands = [line for line in block.splitlines() if line.strip()]
    ci_commands = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
                   if line.startswith(("pip ", "python "))]
    assert readme_commands == ci_commands
    assert any("rllib" in line for line in readme_commands)


def test_the_curriculum_level_is_sent_again_each_iteration(ray_session, tmp_path):
    """A runner that Ray restarted while no call was waiting on it (RLlib does not notice) is
    at the build-time level: each iteration sends the current level again."""
    from train.config import load_config
    from train.rllib_trainer import _run, build_algorithm

    class Writer:
        def add_scalar(self, *args):
            pass

    config = load_config(tiny(tmp_path, "restart", opponents={"kind": "jen", "jen_level": 4, "curriculum": {}},
                              train={"total_steps": 400, "checkpoint_every": 10_000}, evaluation={"every": 0}))
    algorithm = build_algorithm(config, 4)  # as a restarted runner's envs: the build-time level
    try:
        state = {"timesteps": 0, "jen_level": 6, "checkpoint": None}
        _run(config, algorithm, tmp_path / "restart", state, Writer(), progress=False, verbose=0)
        levels = algorithm.env_runner_group.foreach_env_runner(
            lambda runner: [env.unwrapped.rules.jen_level for env in runner.env.envs])
        assert levels == [[6, 6]]
    finally:
        algorithm.stop()


def test_a_resumed_curriculum_counts_the_games_before_the_resume(ray_session, tmp_path):
    """state.json keeps the window of games at the current level: with 999 wins of a window of 1,000
    saved, the first game after the resume fills it and the level rises, as in an unbroken run
    (a window that started empty would need 1,000 new games)."""
    from train.config import load_config
    from train.rllib_trainer import _run, build_algorithm

    class Writer:
        def add_scalar(self, *args):
            pass

    config = load_config(tiny(tmp_path, "window", opponents={"kind": "jen", "jen_level": 4,
                                                             "curriculum": {"window": 1000}},
                              train={"total_steps": 500, "checkpoint_every": 10_000}, evaluation={"every": 0}))
    algorithm = build_algorithm(config, 4)
    try:
        state = {"timesteps": 0, "jen_level": 4, "checkpoint": None, "curriculum_window": [1] * 999}
        _run(config, algorithm, tmp_path / "window", state, Writer(), progress=False, verbose=0)
        saved = json.loads((tmp_path / "window" / "checkpoints" / "state.json").read_text())
        assert state["jen_level"] == saved["jen_level"] == 5
        assert len(saved["curriculum_window"]) < 999  # the games at level 5 only
    finally:
        algorithm.stop()


def test_iterations_that_finish_one_game_or_none_are_counted(ray_session, tmp_path):
    """RLlib reduces a series of one game to the game itself, and none to None: with 8 steps an
    iteration (games last about 50) most iterations finish no game and some one, which was a
    TypeError that stopped the run."""
    from train.config import load_config
    from train.rllib_trainer import _run, build_algorithm, finished_games

    game = (4, True, 2.0, 30)
    assert finished_games({"ten": {"games": game}}) == [game]
    assert finished_games({"ten": {"games": list(game)}}) == [list(game)]
    assert finished_games({"ten": {"games": None}}) == finished_games({"ten": {"games": float("nan")}}) == []
    assert finished_games({}) == [] and finished_games({"ten": {"games": [game, game]}}) == [game, game]

    class Writer:
        def add_scalar(self, *args):
            pass

    config = load_config(tiny(tmp_path, "few", opponents={"kind": "jen", "jen_level": 4, "curriculum": {"window": 1000}},
                              algorithm={"n_steps": 8, "batch_size": 8}, evaluation={"every": 0},
                              train={"total_steps": 400, "n_envs": 1, "checkpoint_every": 10_000}))
    algorithm = build_algorithm(config, 4)
    try:
        state = {"timesteps": 0, "jen_level": 4, "checkpoint": None}
        assert _run(config, algorithm, tmp_path / "few", state, Writer(), progress=False, verbose=0) >= 400
        assert len(state["curriculum_window"]) >= 3  # the games finished, one or none an iteration
    finally:
        algorithm.stop()


def test_a_runner_ray_restarts_is_sent_the_current_level(ray_session, tmp_path):
    """An env runner that dies in a call is restarted by Ray from the build-time env_config, and
    RLlib brings it back inside train(): its recreation callback sends the current level before
    the runner samples."""
    import os

    from train.config import load_config
    from train.rllib_trainer import build_algorithm, set_jen_level

    config = load_config(tiny(tmp_path, "restart", opponents={"kind": "jen", "jen_level": 4},
                              ray={"num_env_runners": 1}))
    algorithm = build_algorithm(config, 4)
    try:
        set_jen_level(algorithm, 6)
        group = algorithm.env_runner_group
        group.foreach_env_runner(lambda runner: os._exit(1), local_env_runner=False)  # the runner dies
        assert group.num_healthy_remote_workers() == 0
        games = []
        for _ in range(20):  # until Ray has it back and it has played
            games = algorithm.train().get("env_runners", {}).get("ten", {}).get("games", [])
            if games:
                break
        assert group.num_healthy_remote_workers() == 1
        levels = group.foreach_env_runner(lambda runner: [env.unwrapped.rules.jen_level for env in runner.env.envs],
                                          local_env_runner=False)
        assert levels == [[6, 6]]
        assert games and {level for level, *_ in games} == {6}
    finally:
        algorithm.stop()


class _NoRunnerCameBack:
    """An algorithm whose first ``fails`` iterations sampled nothing, as RLlib's PPO reports one in
    which no env runner came back (it returns early, untrained, and the count is NaN)."""

    def __init__(self, algorithm, fails: int):
        self.algorithm, self.fails, self.sampled = algorithm, fails, []

    def __getattr__(self, name):
        return getattr(self.algorithm, name)

    def train(self):
        if self.fails:
            self.fails -= 1
            return {"env_runners": {"num_env_steps_sampled": float("nan")}}
        result = self.algorithm.train()
        self.sampled.append(result["env_runners"]["num_env_steps_sampled"])
        return result


def test_an_iteration_that_sampled_nothing_is_skipped(ray_session, tmp_path):
    """Under load a runner can crash or time out, and RLlib then reports the iteration's steps as
    NaN: the run goes on (it once failed with "cannot convert float NaN to integer"), counting only
    what was sampled; a run in which no runner ever comes back stops with a clear error, saved."""
    from train.config import load_config
    from train.options import RunStopped
    from train.rllib_trainer import IDLE_ITERATIONS, _run, build_algorithm

    class Writer:
        def add_scalar(self, *args):
            pass

    config = load_config(tiny(tmp_path, "idle", opponents={"kind": "jen", "jen_level": 4},
                              train={"total_steps": 400, "checkpoint_every": 10_000}, evaluation={"every": 0}))
    algorithm = build_algorithm(config, 4)
    try:
        flaky = _NoRunnerCameBack(algorithm, fails=2)
        steps = _run(config, flaky, tmp_path / "idle", {"timesteps": 0, "jen_level": 4, "checkpoint": None},
                     Writer(), progress=False, verbose=0)
        assert flaky.sampled and steps == sum(flaky.sampled) >= 400
        dead = _NoRunnerCameBack(algorithm, fails=IDLE_ITERATIONS)
        with pytest.raises(RunStopped, match=f"no env runner returned any sample in {IDLE_ITERATIONS} iterations"):
            _run(config, dead, tmp_path / "idle", {"timesteps": 0, "jen_level": 4, "checkpoint": None},
                 Writer(), progress=False, verbose=0)
        assert dead.sampled == []
        assert json.loads((tmp_path / "idle" / "checkpoints" / "state.json").read_text())["timesteps"] == 0
    finally:
        algorithm.stop()


def test_the_logged_return_is_the_learner_seats():
    from train.rllib_trainer import _log

    class Writer(dict):
        def add_scalar(self, tag, value, step):
            self[tag] = value

    writer = Writer()
    result = {"env_runners": {"episode_return_mean": 0.0,  # every seat's returns summed: 1 - 1 - 1 + 1
                              "agent_episode_returns_mean": {"player_0": 0.5, "player_1": -0.5}}}
    _log(writer, 100, result, [], [], [], {}, 1.0)
    assert writer["rllib/episode_return_mean"] == 0.5


def test_ten_train_leaves_no_ray_process_behind(tmp_path):
    """The command starts a local Ray and stops it at the end: no raylet (or any process of its
    session, found by its own temp folder) outlives it."""
    import os
    import tempfile
    import time

    config = tiny(tmp_path, "alone", opponents={"kind": "jen"}, train={"total_steps": 250},
                  evaluation={"every": 0})
    ray_dir = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    try:
        done = subprocess.run([sys.executable, "-m", "train.cli", "train", str(config), "--no-progress", "--no-eval"],
                              capture_output=True, text=True, cwd=ROOT, timeout=300,
                              env={**os.environ, "RAY_TMPDIR": ray_dir})
        assert done.returncode == 0, done.stderr[-2000:]
        assert list(Path(ray_dir).glob("ray/session_*"))  # the run's Ray lived there

        def left():
            found = []
            for proc in Path("/proc").glob("[0-9]*"):
                try:
                    if ray_dir.encode() in (proc / "cmdline").read_bytes():
                        found.append((proc / "cmdline").read_bytes().replace(b"\0", b" ")[:100])
                except OSError:
                    pass
            return found

        for _ in range(10):  # the processes get a moment to exit
            if not left():
                break
            time.sleep(0.5)
        assert left() == []
    finally:
        shutil.rmtree(ray_dir, ignore_errors=True)


def test_sigterm_stops_an_rllib_run_as_ctrl_c_does(tmp_path):
    """ray.init put its own SIGTERM handler (sys.exit) in place of ten's: a kill saved no checkpoint."""
    import os
    import signal
    import tempfile
    import time

    config = tiny(tmp_path, "killed", opponents={"kind": "jen"}, train={"total_steps": 10_000_000},
                  evaluation={"every": 0})
    out = tmp_path / "killed"
    ray_dir = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    try:
        run = subprocess.Popen([sys.executable, "-m", "train.cli", "train", str(config), "--no-progress", "--no-eval"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               env={**os.environ, "RAY_TMPDIR": ray_dir})
        deadline = time.monotonic() + 240
        while not list((out / "tb").glob("events.*")) and time.monotonic() < deadline:  # training has begun
            time.sleep(0.5)
        time.sleep(5)
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=240)
    finally:
        shutil.rmtree(ray_dir, ignore_errors=True)
    assert run.returncode == 128 + signal.SIGTERM, err[-2000:]
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "ten: stopped by SIGTERM"
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] > 0 and (out / "checkpoints" / state["checkpoint"]).is_dir()


@pytest.mark.parametrize("runners", [0, 1])
def test_a_scripted_opponent_of_yours_that_fails_stops_the_run_in_one_line(ray_session, tmp_path, capsys, runners):
    """RLlib's env check, at build time, said the env "does not abide to the new gymnasium-style API";
    on a remote runner Ray restarted the runner, the error only in its log, about every minute, and the
    run waited on samples for 20 iterations before a line blaming the runners."""
    bots = tmp_path / "bots.py"
    bots.write_text("def crash(observation, info):\n    raise RuntimeError('boom in my bot')\n")
    config = tiny(tmp_path, "crash", opponents={"kind": "scripted", "agents": [f"{bots}:crash"]},
                  evaluation={"every": 0, "final_games": 0}, ray={"num_env_runners": runners})
    assert main(["train", str(config), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == (
        "ten: error: the agent crash (seat 1) raised RuntimeError: boom in my bot (bots.py, line 2)")
