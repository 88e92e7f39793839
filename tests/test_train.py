"""Training from config files: validation, short runs of each config shape, resume, refusals."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from models import craft, read_data

from agents import PolicyAgent, play_games
from agents.registry import make_agent
from agents.safe_load import load_policy
from ten_env import Rules
from train.cli import main
from train.config import load_config, parse_levels, validate
from train.trainer import train

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
TINY = [
    "algorithm.n_steps=64", "algorithm.batch_size=64", "algorithm.net_arch=[32]",
    "train.n_envs=2", "train.checkpoint_every=128", "evaluation.every=0", "evaluation.final_games=0",
    "train.init_from=null",  # the shipped self-play configs warm-start a 256x256 network
]


@pytest.mark.parametrize("name", ["quick", "jen_ladder", "jen8_finetune", "jen9_finetune", "selfplay_2p", "selfplay_4p",
                                  "selfplay_mixed", "rllib_jen", "rllib_selfplay_4p"])
def test_shipped_configs_are_valid(name):
    unused = []
    config = load_config(CONFIGS / f"{name}.yaml", [], unused)
    assert config.train.total_steps > 0 and unused == []  # and every key they set is read


@pytest.mark.parametrize("data, message", [
    ({"train": {"totl_steps": 5}}, "unknown key 'train.totl_steps'; allowed: total_steps"),
    ({"colour": "blue"}, "unknown key 'colour'; allowed: rules, opponents"),
    ({"train": {"total_steps": "lots"}}, "train.total_steps: Input should be a valid integer"),
    ({"output": {"dir": None}}, r"output.dir: Input should be a valid string \(got an empty value\)$"),
    ({"output": {"dir": ""}}, r"output.dir: must name a folder for the run, such as runs/my-run, got ''$"),
    ({"output": {"dir": "  "}}, r"output.dir: must name a folder for the run, such as runs/my-run, got '  '$"),
    ({"opponents": {"kind": "jen", "jen_level": 11}}, "opponents.jen_level: Input should be less than or equal to 10"),
    ({"rules": {"num_players": 6}}, "rules.num_players: Input should be less than or equal to 5"),
    ({"rules": {"num_players": 3}}, "rules.num_players must be 2 when opponents.kind is jen"),
    ({"opponents": {"kind": "bots"}}, r"opponents.kind must be one of jen, scripted, selfplay \(got 'bots'\)"),
    ({"opponents": {"jen_level": 5}}, "opponents.kind is required: one of jen, scripted, selfplay"),
    ({"opponents": None}, "opponents.kind is required"),  # an empty section is a section of defaults
    ({"train": {"n_envs": True}}, "train: n_envs must be a number, got True"),
    ({"algorithm": {"learning_rate": True}}, "algorithm: learning_rate must be a number, got True"),
    ({"opponents": {"kind": "jen", "jen_level": False}}, "opponents: jen_level must be a number, got False"),
    ({"rules": {"num_players": True}}, "rules: num_players must be a number, got True"),  # a constrained int
    ({"rules": {"max_bid": True}}, "rules: max_bid must be a number, got True"),
    ({"train": {"derived_features": 1}}, "train: derived_features must be true or false, got 1"),  # and back
    ({"rules": {"bust_buy": "no"}}, "rules: bust_buy must be true or false, got 'no'"),
    ({"algorithm": {"net_arch": [64, True]}}, r"algorithm: net_arch must be a list of numbers, got \[64, True\]"),
    ({"rules": {"num_players": [2, True]}, "opponents": {"kind": "selfplay"}},
     r"rules: num_players must be a list of numbers, got \[2, True\]"),
    ({"rules": {"num_players": [2, 3, 4, 5]}, "opponents": {"kind": "selfplay"}, "train": {"n_envs": 2}},
     r"train.n_envs \(2\) must be at least the number of table sizes in rules.num_players \(4\)"),
    ({"rules": {"num_players": [2, 2]}, "opponents": {"kind": "selfplay"}},
     r"rules.num_players: give each table size once, got \[2, 2\]"),
    ({"rules": {"num_players": 3}, "opponents": {"kind": "selfplay", "scripted": []}},
     "opponents: scripted is empty, but scripted_share is 0.2: name the scripted agents, or set scripted_share: 0"),
    ({"train": {"init_from": "ppo-jen"}, "rules": {"max_bid": 30}},
     "train.init_from: the network of 'ppo-jen' has 132 actions, made for rules.max_bid 40; rules.max_bid 30 "
     "gives 122: set rules.max_bid to 40"),
    ({"rules": {"num_players": 3}, "opponents": {"kind": "scripted", "agents": ["heuristic"]}},
     "one agent per other seat: 2"),
    ({"opponents": {"kind": "selfplay", "scripted": ["alphago"]}}, "unknown agent 'alphago'"),
    ({"algorithm": {"batch_size": 100000}}, "batch_size .* must be at most"),
    ({"evaluation": {"final_levels": "3-12"}}, "evaluation.final_levels: levels '3-12'"),
    ({"train": {"reward": "score"}}, r"train.reward: Input should be 'win', 'margin' or 'outcome' \(got 'score'\)"),
    # NaN was refused as above a bound it does not break; infinity passed a lower bound alone
    ({"algorithm": {"learning_rate": "nan"}},
     r"algorithm.learning_rate: Input should be a finite number \(got 'nan'\)"),
    ({"algorithm": {"max_grad_norm": float("inf")}}, r"algorithm.max_grad_norm: Input should be a finite number"),
    # opponents made for another game's actions: said by the key, not when the envs are built or after training
    ({"rules": {"max_bid": 20}, "opponents": {"kind": "scripted", "agents": ["ppo-2p"]}},
     r"opponents.agents: 'ppo-2p' was made for rules.max_bid 40 \(132 actions\); rules.max_bid 20 gives 112"),
    ({"rules": {"max_bid": 20}, "opponents": {"kind": "selfplay", "scripted": ["heuristic", "ppo-2p"]}},
     r"opponents.scripted: 'ppo-2p' was made for rules.max_bid 40"),
    ({"rules": {"max_bid": 20}, "opponents": {"kind": "jen"}, "evaluation": {"opponents": ["ppo-2p"]}},
     r"evaluation.opponents: 'ppo-2p' was made for rules.max_bid 40"),
    ({"opponents": {"kind": "jen"}, "evaluation": {"opponents": []}},
     "evaluation.opponents: List should have at least 1 item"),
])
def test_bad_configs_name_the_key(data, message):
    with pytest.raises(ValueError, match=message):
        validate(data)


UNREAD_KEYS = [
    ("quick", "evaluation.opponents=[random]", ["evaluation.opponents=[heuristic]"],
     "evaluation.opponents is not used against JEN"),
    ("selfplay_2p", "evaluation.final_levels=4-5", ["evaluation.final_levels=4-10", "evaluation.final_levels="],
     "evaluation.final_levels is for runs against JEN; this one (opponents.kind selfplay)"),
    ("rllib_jen", "train.vec_env=subproc", ["train.vec_env=dummy"], "train.vec_env is for backend sb3"),
    # SB3 learns from whole rollouts: 512 steps trained 2,048, the progress bar showing 2,048/512
    ("quick", "train.total_steps=512", ["train.total_steps=60000", "train.total_steps=4096"],
     "train.total_steps 512 is not a whole number of rollouts (algorithm.n_steps x train.n_envs = 2,048 steps): "
     "the run trains 2,048"),
]


@pytest.mark.parametrize("name, setting, quiet, note", UNREAD_KEYS)
def test_a_key_the_run_never_reads_is_named_in_a_warning(tmp_path, capsys, name, setting, quiet, note):
    unused = []
    load_config(CONFIGS / f"{name}.yaml", [setting], unused)
    assert len(unused) == 1 and unused[0].startswith(note)
    # not at its default or empty, nor in a run's own config.yaml, which writes out every default
    for item in quiet:
        heard = []
        load_config(CONFIGS / f"{name}.yaml", [item], heard)
        assert heard == [], item
    saved = tmp_path / "config.yaml"
    saved.write_text(yaml.safe_dump(load_config(CONFIGS / f"{name}.yaml").to_dict()))
    heard = []
    load_config(saved, [], heard)
    assert heard == []


@pytest.mark.parametrize("name, setting, quiet, note", [case for case in UNREAD_KEYS if case[0] != "rllib_jen"])
def test_ten_train_prints_the_warning_before_its_first_refusal(tmp_path, capsys, name, setting, quiet, note):
    """For the SB3 configs (an RLlib config's run imports Ray before its first refusal: seconds, for the
    same code path)."""
    unused = []
    load_config(CONFIGS / f"{name}.yaml", [setting], unused)
    (tmp_path / "file").write_text("")
    assert main(["train", str(CONFIGS / f"{name}.yaml"), "--set", setting, "--set", f"output.dir={tmp_path / 'file'}",
                 "--no-progress"]) == 2
    warning, error = capsys.readouterr().err.splitlines()
    assert warning == f"ten: warning: {unused[0]}" and error.startswith("ten: error: output.dir")


def test_a_shipped_config_named_outside_the_repository_says_where_configs_are(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"^config file 'configs/quick.yaml' does not exist here: the configs/ folder "
                                         r"comes with the repository, so run ten train from its root$"):
        load_config("configs/quick.yaml")
    monkeypatch.chdir(CONFIGS.parent)  # at the root, a typo is only a typo
    with pytest.raises(ValueError, match=r"^config file 'configs/quik.yaml' does not exist$"):
        load_config("configs/quik.yaml")


def test_overrides_and_files(tmp_path):
    config = load_config(CONFIGS / "quick.yaml", ["train.total_steps=1234", "opponents.jen_level=6"])
    assert config.train.total_steps == 1234 and config.opponents.jen_level == 6
    with pytest.raises(ValueError, match="expected key=value"):
        load_config(CONFIGS / "quick.yaml", ["train.total_steps"])
    for key in ("train..seed", "train.", ".seed"):
        with pytest.raises(ValueError, match=rf"^--set '{key}=1': '{key}' has an empty part: write section.key"):
            load_config(CONFIGS / "quick.yaml", [f"{key}=1"])
    with pytest.raises(ValueError, match="does not exist$"):
        load_config(tmp_path / "missing.yaml")

    bad = tmp_path / "bad.yaml"
    bad.write_text("train: [unclosed")
    with pytest.raises(ValueError, match="not valid YAML"):
        load_config(bad)
    with pytest.raises(ValueError, match=r"^config file '.*' is a folder: give a YAML file"):
        load_config(tmp_path)
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00train")
    with pytest.raises(ValueError, match=r"^config file '.*binary.yaml' is not a text file \(not UTF-8\)"):
        load_config(tmp_path / "binary.yaml")
    (tmp_path / "list.yaml").write_text("- train\n- rules\n")
    for overrides in ([], ["train.seed=1"]):  # --set into a list was a TypeError
        with pytest.raises(ValueError, match="^a config must be a YAML mapping of sections"):
            load_config(tmp_path / "list.yaml", overrides)
    # a key given twice: PyYAML keeps the last, which lost the whole first section without a word
    (tmp_path / "twice.yaml").write_text("train: {total_steps: 4096}\nrules: {}\ntrain: {seed: 5}\n")
    with pytest.raises(ValueError, match=r"^config file '.*twice.yaml' is not valid YAML: the key 'train' is given "
                                         r"twice in \".*twice.yaml\", line 3, column 1$"):
        load_config(tmp_path / "twice.yaml")
    (tmp_path / "twice.yaml").write_text("train:\n  seed: 1\n  seed: 2\n")
    with pytest.raises(ValueError, match=r"the key 'seed' is given twice in \".*twice.yaml\", line 3, column 3$"):
        load_config(tmp_path / "twice.yaml")
    # merge keys are YAML's own, not keys given twice (a key beside them overrides the merged one)
    merged = tmp_path / "merged.yaml"
    merged.write_text("train:\n  <<: [{total_steps: 777, seed: 4}, {n_envs: 2}]\n  seed: 3\n")
    assert (load_config(merged).train.total_steps, load_config(merged).train.seed, load_config(merged).train.n_envs) \
        == (777, 3, 2)
    with pytest.raises(ValueError, match=r"^--set 'train=\{seed: 1, seed: 2\}': the value is not valid YAML "
                                         r"\(the key 'seed' is given twice\)"):
        load_config(CONFIGS / "quick.yaml", ["train={seed: 1, seed: 2}"])
    (tmp_path / "false.yaml").write_text("false\n")  # not an empty file: not the default config
    with pytest.raises(ValueError, match="^a config must be a YAML mapping of sections"):
        load_config(tmp_path / "false.yaml")
    for item in ("output.dir=@runs/x", "train.seed=[1"):  # a value YAML cannot read: one line, no traceback
        with pytest.raises(ValueError, match=rf"^--set {re.escape(repr(item))}: the value is not valid YAML \("):
            load_config(CONFIGS / "quick.yaml", [item])
    empty = tmp_path / "empty.yaml"
    empty.write_text("train:\nevaluation:\n")  # sections left empty: every key at its default
    assert load_config(empty).train == validate({}).train
    assert load_config(empty, ["train.total_steps=5"]).train.total_steps == 5
    assert load_config(empty, ["evaluation.final_levels="]).evaluation.final_levels == ""  # no ladder
    selfplay = {"rules": {"num_players": 3}, "opponents": {"kind": "selfplay", "scripted": [], "scripted_share": 0}}
    assert validate(selfplay).opponents.scripted == []
    assert parse_levels("4-6,9") == [4, 5, 6, 9]


def _run(name, out, extra=(), **kwargs):
    config = load_config(CONFIGS / f"{name}.yaml", [f"output.dir={out}", *TINY, *extra])
    return config, train(config, progress=False, final_eval=False, **kwargs)


@pytest.mark.parametrize("name, players, derived", [("quick", None, False), ("selfplay_2p", 2, False),
                                                    ("selfplay_4p", 4, False), ("selfplay_2p", 2, True)])
def test_short_runs_write_loadable_models(tmp_path, name, players, derived):
    extra = ["train.total_steps=300", "opponents.snapshot_every=128"] if players else ["train.total_steps=300"]
    extra.append(f"train.derived_features={str(derived).lower()}")
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
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        from train.trainer import PoolOpponent

        opponent = PoolOpponent(str(out / "pool"), ["random"], scripted_share=0.0)
        opponent.reset()  # a past policy from the pool, loaded without unpickling
        assert type(opponent.current.model) is MaskableActorCriticPolicy
    # What it writes loads without unpickling: plain policy arguments in the zip and in its card.
    assert read_data(model)["policy_kwargs"] == {"net_arch": [32]}
    card = json.loads((out / "model.json").read_text())
    assert card["policy_kwargs"] == {"net_arch": [32]} and card["observation_shape"] == [569 if derived else 463]
    assert card["derived_features"] is derived and agent.derived_features is derived
    assert card["num_actions"] == 132 and card["max_bid"] == 40 and card["training_steps"] >= 300
    assert card["name"] == name and card["policy"] == "MaskableActorCriticPolicy"


def test_the_pool_opponent_holds_only_the_models_still_in_the_pool(tmp_path):
    """A self-play run prunes its pool to pool_size snapshots; the opponent kept every one it had loaded."""
    import shutil

    from agents.policy import PRETRAINED_DIR
    from train.trainer import PoolOpponent

    pool = tmp_path / "pool"
    pool.mkdir()
    (pool / ".step_0000000300-0a1b2c3d.zip").write_bytes(b"")  # a snapshot still being written: never played
    opponent = PoolOpponent(str(pool), ["random"], scripted_share=0.0)
    opponent.reset()
    assert opponent.current.name == "random"
    for step in (100, 200):
        shutil.copy(PRETRAINED_DIR / "ppo-2p.zip", pool / f"step_{step:010d}.zip")
    for seed in range(20):
        opponent.reset(seed)
    assert sorted(Path(path).name for path in opponent._models) == ["step_0000000100.zip", "step_0000000200.zip"]
    (pool / "step_0000000100.zip").unlink()  # pruned
    opponent.reset()
    assert [Path(path).name for path in opponent._models] == ["step_0000000200.zip"]
    assert opponent.current.name == "step_0000000200"


def test_warm_start_takes_the_network_of_a_trained_model(tmp_path):
    _, first = _run("quick", tmp_path / "first", ["train.total_steps=128"])
    # A learning rate too small to move anything: the second run ends with the first's weights.
    _, second = _run("selfplay_2p", tmp_path / "second",
                     ["train.total_steps=128", f"train.init_from={first}", "algorithm.learning_rate=1e-12"])
    before, after = load_policy(first).state_dict(), load_policy(second).state_dict()
    assert before.keys() == after.keys()
    assert all(np.allclose(before[k], after[k], atol=1e-6) for k in before)
    _, fresh = _run("selfplay_2p", tmp_path / "fresh", ["train.total_steps=128", "algorithm.learning_rate=1e-12"])
    untouched = load_policy(fresh).state_dict()
    assert not all(np.allclose(before[k], untouched[k], atol=1e-6) for k in before)
    from agents.policy import shipped_models

    shipped = ", ".join(shipped_models())
    assert "ppo-jen" in shipped
    with pytest.raises(ValueError, match=rf"init_from: no model 'nope': name a shipped model \({shipped}\) or an "):
        validate({"train": {"init_from": "nope"}})
    with pytest.raises(ValueError, match=r"has layers \[32\], algorithm.net_arch is \[64\]"):
        validate({"train": {"init_from": str(first)}, "algorithm": {"net_arch": [64]}})
    assert validate({"train": {"init_from": "ppo-jen"}}).train.init_from == "ppo-jen"



def test_a_warm_start_that_cannot_be_read_leaves_no_run_behind(tmp_path, capsys):
    """A model whose card and layers pass the config's checks but whose weights are damaged fails
    at the warm start, after the run's files were written: they go again, so the same command,
    with the model mended, is not refused as a folder that already holds a run."""
    import zipfile

    shipped = Path(__file__).resolve().parents[1] / "agents" / "pretrained"
    with zipfile.ZipFile(shipped / "ppo-jen.zip") as src, zipfile.ZipFile(tmp_path / "m.zip", "w") as out:
        for item in src.infolist():
            data = src.read(item.filename)
            out.writestr(item, data[: len(data) // 2] if item.filename == "policy.pth" else data)
    (tmp_path / "m.json").write_bytes((shipped / "ppo-jen.json").read_bytes())
    (tmp_path / "empty").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")  # output.dir a link to an empty folder
    for run in ("run", "empty", "link"):
        argv = ["train", str(CONFIGS / "quick.yaml"), "--set", f"output.dir={tmp_path / run}", "--set",
                f"train.init_from={tmp_path / 'm.zip'}", "--set", "algorithm.net_arch=[256,256]", "--set",
                "train.total_steps=2048"]  # one rollout: no warning before the error
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"ten: error: train.init_from: '{tmp_path / 'm.zip'}' is not a MaskablePPO model "
                              f"file: its policy.pth is not a plain weights file") and err.count("\n") == 1, err
        assert not (tmp_path / run).exists() if run == "run" else not any((tmp_path / run).iterdir())
    assert (tmp_path / "link").is_symlink() and (tmp_path / "elsewhere").is_dir()



@pytest.mark.parametrize("option, message", [
    (["--address", "auto"], "--address joins a Ray cluster: it is for configs with backend: rllib"),
    (["--trust-model"], "--trust-model lets an RLlib run's --resume unpickle its checkpoint: it is for configs "
                        "with backend: rllib (an SB3 run never unpickles)"),
])
def test_ray_options_are_refused_for_an_sb3_run(tmp_path, capsys, option, message):
    out = tmp_path / "run"
    assert main(["train", str(CONFIGS / "quick.yaml"), "--set", f"output.dir={out}", *option]) == 2
    assert capsys.readouterr().err == f"ten: error: {message}\n"
    assert not out.exists()


def _positions(seed: int, pick: int, count: int = 40):
    """Observations and masks of ``count`` solitaire positions at JEN 8, each legal move the
    ``pick``-th (0: first, -1: last) of its mask."""
    import ten_env

    env = ten_env.SoloEnv(jen_level=8)
    observations, masks = [], []
    observation, _ = env.reset(seed=seed)
    for _ in range(count):
        mask = env.action_masks()
        observations.append(observation)
        masks.append(mask)
        observation, _, done, _, _ = env.step(int(np.flatnonzero(mask)[pick]))
        if done:
            observation, _ = env.reset()
    return np.stack(observations), np.stack(masks).astype(bool)


def test_a_sharpened_warm_start_raises_the_policy_to_a_power(tmp_path):
    """train.init_sharpen: the warm start's probabilities to that power, renormalised over the legal
    moves; the value and the argmax as they were. Without init_from, or not above 0, it is refused."""
    _, model = _run("quick", tmp_path / "sharp", [
        "train.total_steps=128", "train.init_from=ppo-jen", "train.init_sharpen=3",
        "algorithm.net_arch=[256, 256]", "algorithm.learning_rate=1e-12"])
    observations, masks = _positions(seed=7, pick=-1)
    probs, values = PolicyAgent(model).evaluate(observations, masks)
    start_probs, start_values = make_agent("ppo-jen").evaluate(observations, masks)
    cubed = start_probs.astype(np.float64) ** 3
    cubed /= cubed.sum(1, keepdims=True)
    assert np.allclose(probs, cubed, atol=1e-4) and np.allclose(values, start_values, atol=1e-5)
    assert not np.allclose(probs, start_probs, atol=1e-2)  # some choice was not already certain
    assert (probs.argmax(1) == start_probs.argmax(1)).all()
    with pytest.raises(ValueError, match=r"^invalid config: train.init_sharpen: sharpens the policy of a warm start: "
                                         r"set train.init_from too$"):
        validate({"train": {"init_sharpen": 3}})
    with pytest.raises(ValueError, match=r"train.init_sharpen"):
        validate({"train": {"init_from": "ppo-jen", "init_sharpen": 0}})


def test_warm_start_reads_separate_policy_and_value_layers(tmp_path):
    """A model saved with net_arch {"pi": [...], "vf": [...]} (ten distill train --width writes one) is a
    warm start when both lists match algorithm.net_arch, and refused in one line naming both when they differ."""
    from sb3_contrib import MaskablePPO

    import ten_env
    from agents.safe_load import load_model
    from train.config import model_path
    from train.distill import widen_policy

    same = tmp_path / "same.zip"
    MaskablePPO("MlpPolicy", ten_env.SoloEnv(jen_level=4), n_steps=64, batch_size=32,
                policy_kwargs={"net_arch": {"pi": [32], "vf": [32]}}).save(same)
    assert validate({"train": {"init_from": str(same)}, "algorithm": {"net_arch": [32]}}).train.init_from == str(same)
    with pytest.raises(ValueError, match=r"has layers \[32\], algorithm.net_arch is \[64\]"):
        validate({"train": {"init_from": str(same)}, "algorithm": {"net_arch": [64]}})

    wide = load_model(model_path("ppo-jen"), env=ten_env.SoloEnv(jen_level=4))
    widen_policy(wide, 512)
    wide.save(tmp_path / "wide.zip")
    with pytest.raises(ValueError, match=r"invalid config: train.init_from: the network of '.*wide.zip' has policy layers \[512, 512\] "
                                         r"and value layers \[256, 256\], but algorithm.net_arch gives both the same "
                                         r"layers: start from a model whose two networks match$"):
        validate({"train": {"init_from": str(tmp_path / "wide.zip")}})


def test_training_with_the_derived_features(tmp_path, capfd):
    """train.derived_features: the learner sees the observation with the derived features; a plain
    warm start gets them as zero-weight inputs and plays as before; the model it writes plays and
    goes on (only with the key set), and a checkpoint of the other shape is refused in one line."""
    from ten_env import features as F

    # A warm start from the plain ppo-jen, with a learning rate too small to move anything.
    _, model = _run("quick", tmp_path / "warm", [
        "train.total_steps=128", "train.derived_features=true", "train.init_from=ppo-jen",
        "algorithm.net_arch=[256, 256]", "algorithm.learning_rate=1e-12"])
    card = json.loads((tmp_path / "warm" / "model.json").read_text())
    assert card["observation_shape"] == [F.EXTENDED_SIZE] and card["derived_features"] is True
    student, teacher = PolicyAgent(model), make_agent("ppo-jen")
    assert student.derived_features and not teacher.derived_features
    observations, masks = _positions(seed=5, pick=0)
    probs, values = student.evaluate(observations, masks)
    plain_probs, plain_values = teacher.evaluate(observations, masks)
    assert np.allclose(probs, plain_probs, atol=1e-5) and np.allclose(values, plain_values, atol=1e-5)
    first = load_policy(model).state_dict()["mlp_extractor.policy_net.0.weight"].numpy()
    assert first.shape[1] == F.EXTENDED_SIZE and np.abs(first[:, -F.SIZE:]).max() < 1e-6
    assert play_games([student], Rules(jen_level=4), n=1).games == 1

    # A run that learns (evaluated as it goes): the features' weights move, and the model goes on from itself.
    _, learned = _run("quick", tmp_path / "learn", ["train.total_steps=256", "train.derived_features=true",
                                                    "evaluation.every=128", "evaluation.games=2"])
    assert capfd.readouterr().out.count("eval at ") == 2
    first = load_policy(learned).state_dict()["mlp_extractor.policy_net.0.weight"].numpy()
    assert first.shape == (32, F.EXTENDED_SIZE) and np.abs(first[:, -F.SIZE:]).max() > 1e-3
    validate({"train": {"init_from": str(learned), "derived_features": True}, "algorithm": {"net_arch": [32]}})
    with pytest.raises(ValueError, match=rf"invalid config: train.init_from: the network of '.*model.zip' takes "
                                         rf"the derived features \({F.EXTENDED_SIZE} floats\): set "
                                         rf"train.derived_features: true$"):
        validate({"train": {"init_from": str(learned)}, "algorithm": {"net_arch": [32]}})
    config = load_config(CONFIGS / "quick.yaml", [f"output.dir={tmp_path / 'learn'}", *TINY,
                                                  "train.total_steps=384", "train.derived_features=true",
                                                  "evaluation.every=128", "evaluation.games=2"])
    train(config, resume=True, progress=False, final_eval=False)
    assert read_data(tmp_path / "learn" / "model.zip")["num_timesteps"] == 384
    with pytest.raises(ValueError, match=r"differs in: train.derived_features\)"):
        _run("quick", tmp_path / "learn", ["train.total_steps=512", "evaluation.every=128", "evaluation.games=2"],
             resume=True)
    # A saved config edited by hand to the other setting: the checkpoint's shape is named.
    saved = yaml.safe_load((tmp_path / "learn" / "config.yaml").read_text())
    saved["train"]["derived_features"] = False
    (tmp_path / "learn" / "config.yaml").write_text(yaml.safe_dump(saved))
    with pytest.raises(ValueError, match=r"^--resume: the checkpoint was made for observations of shape \(569,\), "
                                         r"the config's train.derived_features gives \(463,\)$"):
        _run("quick", tmp_path / "learn", ["train.total_steps=512", "evaluation.every=128", "evaluation.games=2"],
             resume=True)
    with pytest.raises(ValueError, match=r"^invalid config: train.derived_features: the derived features are for "
                                         r"backend sb3 only \(RLlib's models take the plain observation\)$"):
        validate({"backend": "rllib", "train": {"derived_features": True}})


def test_a_run_saved_before_a_config_key_existed_resumes(tmp_path):
    """The saved config of an older run lacks keys added since: they read as their defaults."""
    from train.trainer import _config_differences

    out = tmp_path / "run"
    config, _ = _run("quick", out, ["train.total_steps=128"])
    saved = yaml.safe_load((out / "config.yaml").read_text())
    del saved["train"]["derived_features"]
    (out / "config.yaml").write_text(yaml.safe_dump(saved))
    assert _config_differences(saved, config.to_dict()) == []
    assert _config_differences(saved, {**config.to_dict(), "train": {**config.to_dict()["train"],
                                                                     "derived_features": True}}) == [
        "train.derived_features"]
    _run("quick", out, ["train.total_steps=256"], resume=True)
    assert read_data(out / "model.zip")["num_timesteps"] == 256


def test_one_network_over_several_table_sizes(tmp_path, capfd):
    out = tmp_path / "mixed"
    config = load_config(CONFIGS / "selfplay_4p.yaml", [
        f"output.dir={out}", *TINY, "rules.num_players=[2, 4]", "train.total_steps=256",
        "opponents.snapshot_every=128", "evaluation.every=256", "evaluation.games=2",
        "evaluation.opponents=[heuristic]", "evaluation.final_games=2",
    ])
    assert config.rules.player_counts == [2, 4]
    from train.trainer import make_env_fn

    envs = [make_env_fn(config, rank, out, None)() for rank in range(3)]
    assert [env.unwrapped.rules.num_players for env in envs] == [2, 4, 2]  # env i plays size i, cyclically
    train(config, progress=False, final_eval=True)
    for players in (2, 4):
        report = json.loads((out / "eval" / f"{players}p" / "report.json").read_text())
        assert report["num_players"] == players and report["matchups"][0]["games"] == 2
    printed = capfd.readouterr().out
    assert "eval at 256 steps, vs heuristic, 2 players: " in printed
    assert "eval at 256 steps, vs heuristic, 4 players: " in printed
    with pytest.raises(ValueError, match="a list of table sizes needs opponents.kind selfplay, got kind jen"):
        validate({"rules": {"num_players": [2, 3]}})
    with pytest.raises(ValueError, match=r"^invalid config: rules.num_players.1: Input should be less than or equal "
                                         r"to 5 \(got 6\)$"):
        validate({"rules": {"num_players": [2, 6]}, "opponents": {"kind": "selfplay"}})
    with pytest.raises(ValueError, match=r"^invalid config: rules.num_players: Input should be a valid integer, "
                                         r"unable to parse string as an integer \(got 'x'\)$"):
        validate({"rules": {"num_players": "x"}})


def test_resume_continues_the_step_count(tmp_path):
    out = tmp_path / "run"
    _run("quick", out, ["train.total_steps=256"])
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] == 256
    first = json.loads((out / "model.json").read_text())
    config = load_config(CONFIGS / "quick.yaml", [f"output.dir={out}", *TINY, "train.total_steps=512"])
    train(config, resume=True, progress=False, final_eval=False)
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] == 512
    assert read_data(out / "model.zip")["num_timesteps"] == 512
    # the folder's config says the budget the run was last given, not its first part's
    assert yaml.safe_load((out / "config.yaml").read_text())["train"]["total_steps"] == 512
    # a budget below the steps done is refused, and the folder's config keeps the run's (it was rewritten)
    with pytest.raises(ValueError, match=r"^--resume: train.total_steps 256 is below what this run has trained "
                                         r"\(512 steps\): give at least 512$"):
        _run("quick", out, ["train.total_steps=256"], resume=True)
    assert yaml.safe_load((out / "config.yaml").read_text())["train"]["total_steps"] == 512
    # the card says how long it trained, both parts added up, and on what
    card = json.loads((out / "model.json").read_text())
    assert card["training_steps"] == 512 and 0 < first["training_seconds"] <= card["training_seconds"] < 600
    assert "CPUs" in card["machine"] and "torch" in card["machine"]
    # also when the run is resumed from before its first checkpoint (it starts again)
    import shutil

    shutil.rmtree(out / "checkpoints")
    _run("quick", out, ["train.total_steps=384"], resume=True)
    assert yaml.safe_load((out / "config.yaml").read_text())["train"]["total_steps"] == 384


def test_a_resumed_run_deals_new_games(tmp_path, monkeypatch):
    # Its envs are seeded seed + steps done, as a fresh run's are seeded seed: never the run's first
    # deals again (rebuilding the model used to reseed them with the run's seed).
    import ten_env.single_agent as S

    seeds = []
    reset = S.SingleAgentEnv.reset

    def recording(self, *, seed=None, options=None):
        if seed is not None:
            seeds.append(seed)
        return reset(self, seed=seed, options=options)

    monkeypatch.setattr(S.SingleAgentEnv, "reset", recording)
    out = tmp_path / "run"
    _run("quick", out, ["train.total_steps=256", "train.vec_env=dummy"])
    assert seeds == [0, 1]  # train.seed 0, two envs
    seeds.clear()
    _run("quick", out, ["train.total_steps=384", "train.vec_env=dummy"], resume=True)
    assert seeds == [256, 257]


def test_a_resumed_curriculum_counts_the_games_before_the_resume(tmp_path):
    # The window of games at the current level is kept in state.json: a resumed run climbs when the
    # window fills, as an unbroken one would, instead of waiting for a whole new window of games.
    out = tmp_path / "run"
    window = ["opponents.curriculum.window=1000", "opponents.curriculum.threshold=0.99"]  # never climbs
    _run("jen_ladder", out, ["train.total_steps=256", *window])
    before = json.loads((out / "checkpoints" / "state.json").read_text())["curriculum_window"]
    assert before and set(before) <= {0, 1}
    _run("jen_ladder", out, ["train.total_steps=512", *window], resume=True)
    after = json.loads((out / "checkpoints" / "state.json").read_text())["curriculum_window"]
    assert after[:len(before)] == before and len(after) > len(before)
    # a window that is not a list of games won (1) or not (0): the state is damaged
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    for bad in ([0.5], "1,0", [1, None]):
        (out / "checkpoints" / "state.json").write_text(json.dumps(dict(state, curriculum_window=bad)))
        with pytest.raises(ValueError, match=r"^--resume: '.*state.json' is damaged"):
            _run("jen_ladder", out, ["train.total_steps=768", *window], resume=True)


def test_ctrl_c_saves_the_run_even_when_the_env_workers_are_gone(tmp_path, monkeypatch):
    # Ctrl-C at a terminal reaches SubprocVecEnv's workers too: closing the envs then meets dead
    # pipes, which must not replace the interrupt (status 130, "interrupted") with their own error.
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    def learn(self, **kwargs):
        raise KeyboardInterrupt

    def close(self):
        raise EOFError

    monkeypatch.setattr(MaskablePPO, "learn", learn)
    monkeypatch.setattr(DummyVecEnv, "close", close)
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        _run("quick", out, ["train.total_steps=256"])
    assert json.loads((out / "checkpoints" / "state.json").read_text())["timesteps"] == 0


def test_a_run_stopped_mid_rollout_keeps_only_the_steps_it_trained_on(tmp_path, monkeypatch, capsys):
    """SB3 counts a rollout's steps as they are played: a checkpoint taken in the middle of one
    counted steps never trained on, and the resumed run, its rollouts out of step, trained past its
    budget (and its card said so). Rollouts here are 2 envs x 64 steps = 128."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    out, real, calls = tmp_path / "run", DummyVecEnv.step_wait, []

    def step_wait(self):
        calls.append(1)
        if len(calls) == 100:  # 200 steps: 72 into the second rollout
            raise KeyboardInterrupt
        return real(self)

    with monkeypatch.context() as patch:
        patch.setattr(DummyVecEnv, "step_wait", step_wait)
        with pytest.raises(KeyboardInterrupt):
            _run("quick", out, ["train.total_steps=512", "train.checkpoint_every=10000"])
    assert f"the run is kept in {str(out)!r} at 128 steps trained: run the same command with --resume" \
        in capsys.readouterr().err
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] == 128 and state["checkpoint"] == "step_0000000128.zip"
    _run("quick", out, ["train.total_steps=512", "train.checkpoint_every=10000"], resume=True)
    # 128 + three rollouts, as an unbroken run
    assert json.loads((out / "checkpoints" / "state.json").read_text())["timesteps"] == 512
    assert json.loads((out / "model.json").read_text())["training_steps"] == 512
    # and the periodic checkpoints, taken between rollouts, count whole ones
    _run("quick", tmp_path / "periodic", ["train.total_steps=512", "train.checkpoint_every=200"])
    assert sorted(p.name for p in (tmp_path / "periodic" / "checkpoints").glob("step_*.zip"))[:2] == [
        "step_0000000256.zip", "step_0000000512.zip"]


def test_a_file_the_run_cannot_write_stops_it_in_one_line(tmp_path, monkeypatch):
    import errno

    from sb3_contrib import MaskablePPO

    from train.options import RunStopped

    out, real = tmp_path / "run", MaskablePPO.save

    def save(self, path, *args, **kwargs):
        if re.fullmatch(r"\.model-[0-9a-f]{8}\.zip", Path(path).name):  # the disk fills after the last checkpoint
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(MaskablePPO, "save", save)
    with pytest.raises(RunStopped, match=rf"^cannot write the model {re.escape(repr(str(out / 'model.zip')))}: No "
                                         r"space left on device; the checkpoint at 256 steps is kept: make room, "
                                         r"then --resume$"):
        _run("quick", out, ["train.total_steps=256"])
    monkeypatch.setattr(MaskablePPO, "save", real)
    _run("quick", out, ["train.total_steps=256"], resume=True)
    assert json.loads((out / "model.json").read_text())["training_steps"] == 256


@pytest.mark.parametrize("name, folder, what", [("quick", "checkpoints", "a checkpoint"),
                                                ("selfplay_2p", "pool", "a snapshot for the pool")])
def test_a_file_the_run_cannot_write_while_training_stops_it_in_one_line(tmp_path, monkeypatch, name, folder, what):
    """The checkpoints and snapshots taken while PPO learns failed with a traceback."""
    import errno

    from sb3_contrib import MaskablePPO

    from train.options import RunStopped

    out, real = tmp_path / "run", MaskablePPO.save

    def save(self, path, *args, **kwargs):
        if Path(path).parent.name == folder and Path(path).name.startswith(".step_0000000256-"):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(MaskablePPO, "save", save)
    extra = ["train.total_steps=512", "opponents.snapshot_every=128"] if name != "quick" else ["train.total_steps=512"]
    target = out / folder / "step_0000000256.zip"
    with pytest.raises(RunStopped, match=rf"^cannot write {what} {re.escape(repr(str(target)))}: No space left on "
                                         r"device; the checkpoint at 128 steps is kept: make room, then --resume$"):
        _run(name, out, extra)
    assert not [file.name for file in (out / folder).iterdir() if file.name.startswith(".")]  # no half a file
    monkeypatch.setattr(MaskablePPO, "save", real)
    _run(name, out, extra, resume=True)
    assert json.loads((out / "model.json").read_text())["training_steps"] == 512


@pytest.mark.parametrize("vec_env", ["dummy", "subproc"])
def test_a_scripted_opponent_of_yours_that_fails_stops_the_run_in_one_line(tmp_path, vec_env):
    """It printed the worker's traceback and then an EOFError's (subproc), or the raw traceback (dummy)."""
    from agents.base import AgentFailed

    bots = tmp_path / "bots.py"
    bots.write_text("def crash(observation, info):\n    raise RuntimeError('boom in my bot')\n\n\n"
                    "def bid_40(observation, info):\n    return 131\n")
    extra = ["train.total_steps=128", f"train.vec_env={vec_env}"]
    for name, opponents, message in (
            ("crash", f"{{kind: scripted, agents: ['{bots}:crash']}}",  # a scripted seat
             r"the agent crash \(seat 0\) raised RuntimeError: boom in my bot \(bots.py, line 2\)"),
            ("bid_40", f"{{kind: selfplay, scripted: ['{bots}:bid_40'], scripted_share: 1}}",  # the pool's scripted
             r"the agent bid_40 \(seat 0\) chose a move the game refuses: 131 \(bid_40\) is not one of its moves in "
             r"the draw phase; legal: draw, stop_numbers")):
        out = tmp_path / f"{vec_env}-{name}"
        path = tmp_path / f"{name}.yaml"
        path.write_text(f"rules: {{num_players: 2}}\nopponents: {opponents}\n")
        config = load_config(path, [f"output.dir={out}", *TINY, *extra])
        if vec_env == "dummy":
            with pytest.raises(AgentFailed, match=f"^{message}$"):
                train(config, progress=False, final_eval=False)
            continue
        # as ten train runs it: the workers' stderr is the command's (a forkserver started by an
        # earlier test would keep that test's)
        run = subprocess.run([sys.executable, "-m", "train.cli", "train", str(path), "--no-progress",
                              *(f"--set={item}" for item in [f"output.dir={out}", *TINY, *extra])],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
        assert re.search(f"^ten: error: {message}$", run.stderr, re.M), run.stderr
        assert run.stderr.strip().splitlines()[-1] == ("ten: error: an environment's worker process ended (its error, "
                                                       "if it gave one, is above); no checkpoint was saved before it")


def test_sigterm_stops_a_training_run_as_ctrl_c_does(tmp_path):
    """A kill (a scheduler taking the machine back) kept nothing: no checkpoint, no message."""
    import os
    import signal
    import time

    out = tmp_path / "run"
    run = subprocess.Popen([sys.executable, "-m", "train.cli", "train", str(CONFIGS / "quick.yaml"), "--no-progress",
                            *(f"--set={item}" for item in [*TINY, "train.total_steps=10000000",
                                                           "train.checkpoint_every=10000000", f"output.dir={out}"])],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (out / "tb").exists() and time.monotonic() < deadline:  # training has begun
        time.sleep(0.2)
    time.sleep(3)
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "ten: stopped by SIGTERM"
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] > 0 and state["timesteps"] % 128 == 0 and f"at {state['timesteps']:,} steps" in err
    assert os.path.getsize(out / "checkpoints" / state["checkpoint"]) > 0


def test_seeded_runs_are_reproducible(tmp_path):
    params = []
    for name in ("a", "b"):
        _, model = _run("quick", tmp_path / name, ["train.total_steps=256"])
        policy = load_policy(model)
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
    with pytest.raises(ValueError, match="different config \\(differs in: algorithm.learning_rate\\)"):
        _run("quick", out, ["train.total_steps=256", "algorithm.learning_rate=0.01"], resume=True)
    assert (out / "model.zip").read_bytes() == before
    _run("quick", out, ["train.total_steps=128", "train.seed=3"], overwrite=True)
    assert yaml.safe_load((out / "config.yaml").read_text())["train"]["seed"] == 3


def test_resume_may_change_the_evaluations_and_how_the_envs_run(tmp_path):
    """A finished run resumed with more final games plays its final evaluation again with them; a
    changed hyperparameter is still refused, in a line that says what may change."""
    out = tmp_path / "run"
    _run("quick", out, ["train.total_steps=128"])
    config = load_config(CONFIGS / "quick.yaml", [
        f"output.dir={out}", *TINY, "train.total_steps=128", "train.vec_env=subproc",
        "evaluation.every=64", "evaluation.final_games=3", "evaluation.final_levels=5"])
    train(config, resume=True, progress=False, final_eval=True)
    report = json.loads((out / "eval" / "report.json").read_text())
    assert [(m["level"], m["games"]) for m in report["matchups"]] == [(5, 3)]
    saved = yaml.safe_load((out / "config.yaml").read_text())
    assert saved["evaluation"]["final_games"] == 3 and saved["train"]["vec_env"] == "subproc"
    assert read_data(out / "model.zip")["num_timesteps"] == 128  # nothing more was trained
    with pytest.raises(ValueError, match=r"differs in: train.n_envs\); only train.total_steps, train.vec_env, "
                                         r"output.dir, evaluation may change$"):
        _run("quick", out, ["train.total_steps=128", "train.n_envs=3"], resume=True)


def test_a_self_play_run_trains_the_same_in_one_process_or_in_workers(tmp_path):
    """With DummyVecEnv the pool's networks were loaded in the learner's process, drawing on the
    torch stream PPO samples from: the weights differed from SubprocVecEnv's."""
    weights = []
    for vec_env in ("dummy", "subproc"):
        _, model = _run("selfplay_2p", tmp_path / vec_env, [
            "train.total_steps=512", "opponents.snapshot_every=128", "opponents.scripted_share=0.5",
            f"train.vec_env={vec_env}"])
        assert len(list((tmp_path / vec_env / "pool").glob("step_*.zip"))) == 512 // 128  # networks met in play
        weights.append([p.detach().numpy().copy() for p in load_policy(model).parameters()])
    assert all((x == y).all() for x, y in zip(*weights))


def test_an_evaluation_against_a_network_leaves_the_training_as_it_was(tmp_path):
    """Loading ppo-2p for each evaluation drew on torch's global stream, from which PPO samples its
    rollouts' actions: the weights trained depended on the evaluation schedule."""
    weights = []
    for every in (0, 128):
        _, model = _run("quick", tmp_path / f"every{every}", [
            "opponents={kind: scripted, agents: [heuristic]}", "evaluation.final_levels=", "train.total_steps=512",
            f"evaluation.every={every}", "evaluation.opponents=[ppo-2p]", "evaluation.games=1"])
        weights.append([p.detach().numpy().copy() for p in load_policy(model).parameters()])
    assert all((x == y).all() for x, y in zip(*weights))


def test_ten_train_errors_are_one_line(tmp_path):
    for args, message in [
        (["train", str(tmp_path / "missing.yaml")], "does not exist"),
        (["train", str(CONFIGS / "quick.yaml"), "--set", "opponents.jen_level=11"], "jen_level"),
        # a seed NumPy could not take, refused before any folder is made (it failed once the run had begun)
        (["train", str(CONFIGS / "quick.yaml"), "--set", "train.seed=2147483648", "--set",
          f"output.dir={tmp_path / 'seeded'}"], "train.seed: Input should be less than or equal to 2147483647"),
    ]:
        run = subprocess.run([sys.executable, "-m", "train.cli", *args], capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 2
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("ten: error:") and message in lines[0]
    assert not (tmp_path / "seeded").exists()


@pytest.mark.parametrize("derived", [False, True])
def test_curriculum_reaches_every_env_through_the_wrappers(tmp_path, derived):
    from train.trainer import _level_env_method, make_env_fn
    from stable_baselines3.common.vec_env import DummyVecEnv

    config = load_config(CONFIGS / "jen_ladder.yaml", [f"output.dir={tmp_path}",
                                                       f"train.derived_features={str(derived).lower()}"])
    venv = DummyVecEnv([make_env_fn(config, rank, tmp_path, 4) for rank in range(2)])
    assert venv.reset().shape == (2, 569 if derived else 463)
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
    # a project's own config.yaml beside its files does not make the folder a run
    (out / "config.yaml").write_text((CONFIGS / "quick.yaml").read_text())
    with pytest.raises(ValueError, match="holds no training run"):
        _run("quick", out, ["train.total_steps=64"], overwrite=True)
    assert (out / "chapter1.txt").read_text() == "precious"


@pytest.mark.parametrize("name", [".", "..", "project", "{parent}"])
def test_the_current_folder_or_one_holding_it_is_never_a_new_run_folder(tmp_path, monkeypatch, name):
    """--overwrite empties a run's folder: given the current folder (or a parent), with a run in it,
    it deleted everything there, the person's own files too."""
    project = tmp_path / "project"
    (project / "notes").mkdir(parents=True)
    for folder in (tmp_path, project):  # a run's two files, as ten train writes them
        (folder / "config.yaml").write_text((CONFIGS / "quick.yaml").read_text())
        (folder / "meta.json").write_text("{}")
    (project / "notes" / "precious.txt").write_text("kept")
    monkeypatch.chdir(project / "notes")
    out = name.format(parent=project.parent) if name != "project" else str(project)
    for overwrite in (True, False):
        with pytest.raises(ValueError, match=rf"^output.dir {re.escape(repr(out))} is the current folder or holds it: "
                                             r"a run needs a folder of its own \(--overwrite empties it\), such as "
                                             r"runs/my-run$"):
            _run("quick", out, ["train.total_steps=64"], overwrite=overwrite)
    assert (project / "notes" / "precious.txt").read_text() == "kept"
    assert sorted(p.name for p in project.iterdir()) == ["config.yaml", "meta.json", "notes"]


def test_a_run_resumes_from_inside_its_own_folder(tmp_path, monkeypatch):
    """--resume only adds to a run's folder, so it may be the current folder (it was refused, with a
    message about --overwrite)."""
    _run("quick", tmp_path / "run", ["train.total_steps=64"])
    monkeypatch.chdir(tmp_path / "run")
    _run("quick", ".", ["train.total_steps=128"], resume=True)
    state = json.loads((tmp_path / "run" / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] >= 128 and sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_verbose_says_when_the_curriculum_climbs(tmp_path, capsys):
    climbing = ["opponents.curriculum.window=10", "opponents.curriculum.threshold=0.5", "train.total_steps=1024",
                "train.init_from=ppo-jen-v1", "algorithm.net_arch=[256, 256]", "algorithm.learning_rate=1e-9"]
    _run("jen_ladder", tmp_path / "loud", climbing, verbose=1)
    level = json.loads((tmp_path / "loud" / "checkpoints" / "state.json").read_text())["jen_level"]
    said = [line for line in capsys.readouterr().out.splitlines() if line.startswith("curriculum:")]
    assert level > 4 and said == [f"curriculum: JEN level {n}" for n in range(5, level + 1)]
    _run("jen_ladder", tmp_path / "quiet", climbing)
    assert not [line for line in capsys.readouterr().out.splitlines() if line.startswith("curriculum:")]


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
    # a state naming a checkpoint that is there but lacking the step count or the level: damaged, not a KeyError
    (out / "checkpoints" / "kept.zip").write_bytes(b"")
    for state in ({"checkpoint": "kept.zip"}, {"checkpoint": "kept.zip", "timesteps": "128", "jen_level": 4},
                  {"checkpoint": "kept.zip", "timesteps": 128, "jen_level": 4.5},
                  {"checkpoint": "kept.zip", "timesteps": 128, "jen_level": 99},
                  {"checkpoint": "", "timesteps": 128, "jen_level": 4},  # would have trained afresh from step 128
                  {"checkpoint": "../kept.zip", "timesteps": 128, "jen_level": 4}, ["kept.zip"]):
        (out / "checkpoints" / "state.json").write_text(json.dumps(state))
        with pytest.raises(ValueError, match=r"^--resume: '.*state.json' is damaged; start again with --overwrite$"):
            _run("quick", out, ["train.total_steps=256"], resume=True)
    # a config.yaml spoilt by hand: said so, with or without --resume, not a YAML or Attribute error
    for text, problem in (("train: [unclosed", "is not valid YAML"), ("- a list\n", r"is damaged \(not a mapping"),
                          ("train: 5\n", r"is damaged \(not a mapping"), ("\xff", r"is not a text file")):
        (out / "config.yaml").write_bytes(text.encode("latin-1"))
        for resume in (True, False):
            with pytest.raises(ValueError,
                               match=rf"^the run's '.*config.yaml' {problem}.*start again with --overwrite"):
                _run("quick", out, ["train.total_steps=256"], resume=resume)


def test_an_output_dir_that_cannot_be_a_folder_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "file").write_text("kept")
    with pytest.raises(ValueError, match=r"^output.dir '.*file' is a file, not a folder: choose another output.dir$"):
        _run("quick", tmp_path / "file", ["train.total_steps=64"])
    # was a FileNotFoundError
    with pytest.raises(ValueError, match=r"^output.dir: cannot write to '.*file/run': '.*file' is a file, not a folder$"):
        _run("quick", tmp_path / "file" / "run", ["train.total_steps=64"])
    assert (tmp_path / "file").read_text() == "kept" and sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_only_the_newest_checkpoints_are_kept(tmp_path):
    from train.trainer import KEEP_CHECKPOINTS

    out = tmp_path / "run"
    _run("quick", out, ["train.total_steps=640"])  # a checkpoint every 128 steps
    kept = sorted(path.name for path in (out / "checkpoints").glob("step_*.zip"))
    assert KEEP_CHECKPOINTS == 3 and kept == ["step_0000000384.zip", "step_0000000512.zip", "step_0000000640.zip"]


def test_config_checks_the_deck_file_and_reads_levels_as_numbers(tmp_path):
    with pytest.raises(ValueError, match="rules.deck_file.*cannot be read"):
        validate({"rules": {"deck_file": str(tmp_path / "nope.json")}})
    assert validate({"evaluation": {"final_levels": 7}}).evaluation.final_levels == "7"
    assert validate({"evaluation": {"final_levels": [4, 9]}}).evaluation.final_levels == "4,9"


def test_final_evaluation_plays_the_trained_rules_and_evaluations_report_progress(tmp_path, capfd):
    """The final evaluation plays the trained game, with a progress bar when progress is on; each
    periodic evaluation prints one line."""
    config = load_config(CONFIGS / "quick.yaml", [
        f"output.dir={tmp_path / 'run'}", *TINY, "train.total_steps=256", "rules.max_bid=20",
        "rules.bust_buy=true", "evaluation.final_games=4", "evaluation.final_levels=4",
        "evaluation.every=128", "evaluation.games=4",
    ])
    train(config, progress=True, final_eval=True)
    report = json.loads((tmp_path / "run" / "eval" / "report.json").read_text())
    assert report["rules"]["max_bid"] == 20 and report["rules"]["bust_buy"] is True
    assert report["matchups"][0]["games"] == 4
    out, err = capfd.readouterr()
    lines = [line for line in out.splitlines() if line.startswith("eval at")]
    assert len(lines) == 2, out
    assert lines[0].startswith("eval at 128 steps, JEN 4: win rate ") and "%, 4 games), margin " in lines[0]
    assert lines[1].startswith("eval at 256 steps, JEN 4: ")
    assert "evaluating: " in err and "/4 [" in err  # the final evaluation's bar, over its 4 games
    assert "JEN 4" in out.split(lines[1])[1]  # then its table


def _same(a, b) -> bool:
    """Nested state dicts equal, tensors compared by value."""
    import torch

    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def test_resume_unpickles_nothing_and_rebuilds_what_sb3_would(tmp_path):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.safe_load import load_model
    from train.trainer import make_env_fn

    out = tmp_path / "run"
    config, _ = _run("quick", out, ["train.total_steps=128"])
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    checkpoint = out / "checkpoints" / state["checkpoint"]
    venv = DummyVecEnv([make_env_fn(config, rank, out, 4) for rank in range(2)])
    safe, old = load_model(checkpoint, env=venv), MaskablePPO.load(checkpoint, env=venv)
    for key in ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "ent_coef",
                "vf_coef", "max_grad_norm", "num_timesteps", "_n_updates", "seed", "n_envs",
                "normalize_advantage", "target_kl", "clip_range_vf", "_current_progress_remaining",
                "policy_kwargs", "observation_space", "action_space"):
        assert getattr(safe, key) == getattr(old, key), key
    assert safe.clip_range(0.3) == old.clip_range(0.3) == 0.2
    assert safe.lr_schedule(0.3) == old.lr_schedule(0.3)
    assert type(safe.rollout_buffer) is type(old.rollout_buffer)
    assert _same(safe.policy.state_dict(), old.policy.state_dict())
    assert _same(safe.policy.optimizer.state_dict(), old.policy.optimizer.state_dict())
    venv.close()

    # Every entry SB3 pickled in the checkpoint now holds a payload: resuming runs none of them.
    entries = [k for k, v in read_data(checkpoint).items() if isinstance(v, dict) and ":serialized:" in v]
    assert {"policy_class", "observation_space", "clip_range", "ep_info_buffer"} <= set(entries)
    for entry in entries:
        craft(checkpoint, tmp_path / "crafted.zip", entry, tmp_path / f"pwned_{entry}")
        (tmp_path / "crafted.zip").replace(checkpoint)
    _run("quick", out, ["train.total_steps=256"], resume=True)
    assert json.loads((out / "checkpoints" / "state.json").read_text())["timesteps"] == 256
    assert not list(tmp_path.glob("pwned_*"))


def test_resume_refuses_a_checkpoint_it_cannot_rebuild(tmp_path):
    out = tmp_path / "run"
    _run("quick", out, ["train.total_steps=128"])
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    checkpoint = out / "checkpoints" / state["checkpoint"]
    craft(checkpoint, tmp_path / "crafted.zip", "learning_rate", tmp_path / "pwned")  # a pickled schedule
    (tmp_path / "crafted.zip").replace(checkpoint)
    with pytest.raises(ValueError, match="^--resume: refusing to load .*'learning_rate'.*runs code from the file.*"
                                         "start the run again .ten train --overwrite.$") as info:
        _run("quick", out, ["train.total_steps=256"], resume=True)
    assert "\n" not in str(info.value) and not (tmp_path / "pwned").exists()


def test_resume_and_overwrite_together_are_refused_before_anything_is_written(tmp_path):
    config = load_config(CONFIGS / "quick.yaml", [f"output.dir={tmp_path / 'run'}"])
    with pytest.raises(ValueError, match=r"^--resume continues the run in '.*run' and --overwrite deletes it: "
                                         r"give one of them$"):
        train(config, resume=True, overwrite=True, progress=False, final_eval=False)
    assert not (tmp_path / "run").exists()
