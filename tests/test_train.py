"""Training from config files: validation, short runs of each config shape, resume, refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agents import PolicyAgent, play_games
from ten_env import Rules
from train.config import load_config, parse_levels, validate
from train.trainer import train

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
TINY = [
    "algorithm.n_steps=64", "algorithm.batch_size=64", "algorithm.net_arch=[32]",
    "train.n_envs=2", "train.checkpoint_every=128", "evaluation.every=0", "evaluation.final_games=0",
]


@pytest.mark.parametrize("name", ["quick", "jen_ladder", "selfplay_2p", "selfplay_4p"])
def test_shipped_configs_are_valid(name):
    config = load_config(CONFIGS / f"{name}.yaml")
    assert config.train.total_steps > 0


@pytest.mark.parametrize("data, message", [
    ({"train": {"totl_steps": 5}}, "unknown key 'train.totl_steps'; allowed: total_steps"),
    ({"colour": "blue"}, "unknown key 'colour'; allowed: rules, opponents"),
    ({"train": {"total_steps": "lots"}}, "train.total_steps: Input should be a valid integer"),
    ({"opponents": {"kind": "jen", "jen_level": 11}}, "opponents.jen_level: Input should be less than or equal to 10"),
    ({"rules": {"num_players": 6}}, "rules.num_players: Input should be less than or equal to 5"),
    ({"rules": {"num_players": 3}}, "rules.num_players must be 2 when opponents.kind is jen"),
    ({"opponents": {"kind": "bots"}}, "opponents: kind must be one of jen, scripted, selfplay"),
    ({"rules": {"num_players": 3}, "opponents": {"kind": "scripted", "agents": ["heuristic"]}},
     "one agent per other seat: 2"),
    ({"opponents": {"kind": "selfplay", "scripted": ["alphago"]}}, "unknown agent 'alphago'"),
    ({"algorithm": {"batch_size": 100000}}, "batch_size .* must be at most"),
    ({"evaluation": {"final_levels": "3-12"}}, "levels '3-12'"),
])
def test_bad_configs_name_the_key(data, message):
    with pytest.raises(ValueError, match=message):
        validate(data)


def test_overrides_and_files(tmp_path):
    config = load_config(CONFIGS / "quick.yaml", ["train.total_steps=1234", "opponents.jen_level=6"])
    assert config.train.total_steps == 1234 and config.opponents.jen_level == 6
    with pytest.raises(ValueError, match="expected key=value"):
        load_config(CONFIGS / "quick.yaml", ["train.total_steps"])
    with pytest.raises(ValueError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("train: [unclosed")
    with pytest.raises(ValueError, match="not valid YAML"):
        load_config(bad)
    assert parse_levels("4-6,9") == [4, 5, 6, 9]


def _run(name, out, extra=(), **kwargs):
    config = load_config(CONFIGS / f"{name}.yaml", [f"output.dir={out}", *TINY, *extra])
    return config, train(config, progress=False, final_eval=False, **kwargs)


@pytest.mark.parametrize("name, players", [("quick", None), ("selfplay_2p", 2), ("selfplay_4p", 4)])
def test_short_runs_write_loadable_models(tmp_path, name, players):
    extra = ["train.total_steps=300", "opponents.snapshot_every=128"] if players else ["train.total_steps=300"]
    config, model = _run(name, tmp_path / name, extra)
    agent = PolicyAgent(model)
    rules = Rules(jen_level=4) if players is None else Rules(num_players=players)
    table = [agent] if players is None else [agent] + [PolicyAgent(model) for _ in range(players - 1)]
    assert play_games(table, rules, n=1).games == 1
    out = tmp_path / name
    saved = yaml.safe_load((out / "config.yaml").read_text())
    assert saved == config.to_dict()
    meta = json.loads((out / "meta.json").read_text())
    assert meta["seed"] == 0 and "ten_env" in meta
    assert (out / "tb").is_dir()
    if players:
        assert list((out / "pool").glob("*.zip"))


def test_resume_continues_the_step_count(tmp_path):
    out = tmp_path / "run"
    _run("quick", out, ["train.total_steps=256"])
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] == 256
    config = load_config(CONFIGS / "quick.yaml", [f"output.dir={out}", *TINY, "train.total_steps=512"])
    train(config, resume=True, progress=False, final_eval=False)
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] == 512
    from sb3_contrib import MaskablePPO

    assert MaskablePPO.load(out / "model.zip").num_timesteps == 512


def test_seeded_runs_are_reproducible(tmp_path):
    from sb3_contrib import MaskablePPO

    params = []
    for name in ("a", "b"):
        _, model = _run("quick", tmp_path / name, ["train.total_steps=256"])
        policy = MaskablePPO.load(model).policy
        params.append([p.detach().numpy().copy() for p in policy.parameters()])
    assert all((x == y).all() for x, y in zip(*params))


def test_output_folder_with_a_run_is_refused(tmp_path):
    out = tmp_path / "run"
    _run("quick", out, ["train.total_steps=128"])
    before = (out / "model.zip").read_bytes()
    with pytest.raises(ValueError, match="already holds a run: use --resume"):
        _run("quick", out, ["train.total_steps=128"])
    with pytest.raises(ValueError, match="already holds a different run"):
        _run("quick", out, ["train.total_steps=128", "algorithm.learning_rate=0.01"])
    with pytest.raises(ValueError, match="different config \\(differs in: algorithm\\)"):
        _run("quick", out, ["train.total_steps=256", "algorithm.learning_rate=0.01"], resume=True)
    assert (out / "model.zip").read_bytes() == before
    _run("quick", out, ["train.total_steps=128", "train.seed=3"], overwrite=True)
    assert yaml.safe_load((out / "config.yaml").read_text())["train"]["seed"] == 3


def test_ten_train_errors_are_one_line(tmp_path):
    for args, message in [
        (["train", str(tmp_path / "missing.yaml")], "does not exist"),
        (["train", str(CONFIGS / "quick.yaml"), "--set", "opponents.jen_level=11"], "jen_level"),
    ]:
        run = subprocess.run([sys.executable, "-m", "train.cli", *args], capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 2
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("ten: error:") and message in lines[0]


def test_curriculum_reaches_every_env_through_the_wrappers(tmp_path):
    from train.trainer import _level_env_method, make_env_fn
    from stable_baselines3.common.vec_env import DummyVecEnv

    config = load_config(CONFIGS / "jen_ladder.yaml", [f"output.dir={tmp_path}"])
    venv = DummyVecEnv([make_env_fn(config, rank, tmp_path, 4) for rank in range(2)])
    venv.reset()
    _level_env_method(venv, 7)
    venv.reset()
    assert [game.rules.jen_level for game in venv.get_attr("game")] == [7, 7]


def test_overwrite_never_deletes_a_folder_that_is_not_a_run(tmp_path):
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "chapter1.txt").write_text("precious")
    with pytest.raises(ValueError, match="holds no training run"):
        _run("quick", out, ["train.total_steps=64"], overwrite=True)
    with pytest.raises(ValueError, match="already holds other files"):
        _run("quick", out, ["train.total_steps=64"])
    assert (out / "chapter1.txt").read_text() == "precious"


def test_resume_with_a_missing_checkpoint_or_damaged_state(tmp_path):
    out = tmp_path / "run"
    _run("quick", out, ["train.total_steps=128"])
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    (out / "checkpoints" / state["checkpoint"]).unlink()
    with pytest.raises(ValueError, match="checkpoint .* is missing"):
        _run("quick", out, ["train.total_steps=256"], resume=True)
    (out / "checkpoints" / "state.json").write_text("{not json")
    with pytest.raises(ValueError, match="is damaged"):
        _run("quick", out, ["train.total_steps=256"], resume=True)


def test_only_the_newest_checkpoints_are_kept(tmp_path):
    from train.trainer import KEEP_CHECKPOINTS

    out = tmp_path / "run"
    _run("quick", out, ["train.total_steps=640"])  # a checkpoint every 128 steps
    assert len(list((out / "checkpoints").glob("step_*.zip"))) == KEEP_CHECKPOINTS


def test_config_checks_the_deck_file_and_reads_levels_as_numbers(tmp_path):
    with pytest.raises(ValueError, match="rules.deck_file.*cannot be read"):
        validate({"rules": {"deck_file": str(tmp_path / "nope.json")}})
    assert validate({"evaluation": {"final_levels": 7}}).evaluation.final_levels == "7"
    assert validate({"evaluation": {"final_levels": [4, 9]}}).evaluation.final_levels == "4,9"


def test_final_evaluation_plays_the_trained_rules(tmp_path, capsys):
    config = load_config(CONFIGS / "quick.yaml", [
        f"output.dir={tmp_path / 'run'}", *TINY, "train.total_steps=128", "rules.max_bid=20",
        "rules.bust_buy=true", "evaluation.final_games=4", "evaluation.final_levels=4",
    ])
    train(config, progress=False, final_eval=True)
    report = json.loads((tmp_path / "run" / "eval" / "report.json").read_text())
    assert report["rules"]["max_bid"] == 20 and report["rules"]["bust_buy"] is True
    assert report["matchups"][0]["games"] == 4
