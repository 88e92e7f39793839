"""Loading a model file runs no code from it (issue 13).

Every entry that stable-baselines3 would unpickle is replaced, in a copy of the
shipped model, by a pickle that creates a file when unpickled; loading the copy
through PolicyAgent, make_agent, evaluate() and ``ten eval`` must either load it
safely (ignoring the blob) or refuse it, and the file must never appear.
"""

from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
from models import PRETRAINED, craft, payload, read_data, rewrite_zip

import ten_env
from agents import PolicyAgent
from agents.registry import make_agent
from agents.safe_load import UnsafeModelError, load_policy

# What SB3 pickles in the shipped model, plus entries it pickles in other models:
# policy_kwargs when it holds a class, learning_rate when it is a schedule.
SHIPPED_BLOBS = sorted(k for k, v in read_data(PRETRAINED).items() if isinstance(v, dict) and ":serialized:" in v)
ENTRIES = SHIPPED_BLOBS + ["policy_kwargs", "learning_rate", "clip_range_vf"]


def test_the_shipped_model_pickles_what_the_issue_lists():
    assert SHIPPED_BLOBS == sorted([
        "policy_class", "observation_space", "action_space", "lr_schedule", "clip_range",
        "rollout_buffer_class", "_last_obs", "_last_episode_starts", "ep_info_buffer", "ep_success_buffer",
    ])


@pytest.fixture(scope="module")
def crafted(tmp_path_factory):
    """entry -> (crafted zip, the file its pickle would create)."""
    folder = tmp_path_factory.mktemp("crafted")
    files = {}
    for entry in ENTRIES:
        marker = folder / f"pwned_{entry}"
        files[entry] = (craft(PRETRAINED, folder / f"{entry}.zip", entry, marker), marker)
    return files


def test_the_payloads_are_live(crafted, tmp_path):
    """Unpickled the way SB3 does, each crafted entry does create its file: the tests below mean something."""
    from stable_baselines3.common.save_util import json_to_data

    for entry, (path, marker) in crafted.items():
        data = read_data(path)
        live = tmp_path / f"live_{entry}"
        data[entry][":serialized:"] = payload(live)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            json_to_data(__import__("json").dumps({entry: data[entry]}))
        assert live.exists(), entry


@pytest.mark.parametrize("entry", ENTRIES)
def test_a_pickled_entry_is_never_unpickled(crafted, entry):
    """Playing needs only the policy class, the spaces and the policy arguments: those are rebuilt
    from the plain fields beside the blob, every other blob is ignored. So each copy loads and
    plays, through each way the project loads a model, and its pickle never runs."""
    from train.evaluate import evaluate

    path, marker = crafted[entry]
    agent = PolicyAgent(path)
    assert not marker.exists()
    assert isinstance(make_agent(str(path)), PolicyAgent)
    assert not marker.exists()
    assert evaluate(str(path), levels=[4], games=2, jobs=1)["matchups"][0]["games"] == 2
    assert not marker.exists()
    env = ten_env.SoloEnv(jen_level=4)
    obs, _ = env.reset(seed=1)
    assert env.action_masks()[agent.act({"observation": obs, "action_mask": env.action_masks()})]


def test_ten_eval_never_unpickles(crafted, tmp_path):
    # evaluate() above takes every entry; here the command itself takes the ones playing needs
    # rebuilt, and one it ignores.
    chosen = ["policy_class", "observation_space", "action_space", "policy_kwargs", "_last_obs"]
    paths = [str(crafted[entry][0]) for entry in chosen]
    script = (
        "import sys\nfrom train.cli import main\n"
        "for i, path in enumerate(sys.argv[1:]):\n"
        "    try:\n"
        "        main(['eval', path, '--levels', '4', '--games', '2', '--jobs', '1',"
        f" '--out', {str(tmp_path)!r} + f'/out{{i}}'])\n"
        "    except SystemExit:\n"
        "        pass\n"
    )
    run = subprocess.run([sys.executable, "-c", script, *paths], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.count("JEN 4") >= len(paths)  # each one was evaluated
    assert not [crafted[entry][1] for entry in chosen if crafted[entry][1].exists()]


@pytest.mark.parametrize("name", ["ppo-jen-v1", "ppo-jen", "ppo-jen-features", "ppo-jen-tuned"])
def test_shipped_model_plays_exactly_as_with_unpickling(name):
    """A shipped solitaire model (PPO's own file, the distilled one, and the one that takes the derived
    features, which SB3 is handed ready-made), loaded safely, takes the same deterministic masked action
    as MaskablePPO.load on every state of seeded solitaire games against JEN 7."""
    from ten_env import features as F

    from sb3_contrib import MaskablePPO

    agent = PolicyAgent.pretrained(name)
    old = MaskablePPO.load(str(PRETRAINED.with_name(f"{name}.zip")), device="cpu")  # the shipped file is trusted here
    observations, masks, actions = [], [], []
    seed = 0
    while len(observations) < 300:
        env = ten_env.SoloEnv(jen_level=7)
        obs, _ = env.reset(seed=seed)
        seed += 1
        done = False
        while not done:
            mask = env.action_masks()
            action = agent.act({"observation": obs, "action_mask": mask})
            observations.append(obs), masks.append(mask), actions.append(action)
            obs, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
    given = F.extend(np.array(observations)) if agent.derived_features else np.array(observations)
    expected, _ = old.predict(given, action_masks=np.array(masks), deterministic=True)
    assert len(actions) >= 300 and list(expected) == actions
    assert agent.model.action_space.n == old.action_space.n
    # The space is today's, rebuilt: the file's but for the bounds corrected since it was saved
    # (take_gain's top, 1 then, 4 now: a tableau can complete several colours at once).
    saved, today = old.observation_space, agent.model.observation_space
    assert today.shape == saved.shape and today.dtype == saved.dtype and np.array_equal(today.low, saved.low)
    corrected = [int(i) - ten_env.observation.SIZE for i in np.flatnonzero(today.high != saved.high)]
    assert corrected == ([F.OFFSET["take_gain"]] if agent.derived_features else [])


@pytest.mark.parametrize("damage, message", [
    ({"raw_data": b"{not json"}, "'data' entry is not valid JSON"),
    ({"raw_data": b"[1, 2]"}, "'data' entry is a JSON list"),
    ({"raw_data": b"[" * 200_000 + b"]" * 200_000}, "'data' entry nests too deeply"),
    ({"drop": ("data",)}, "no 'data' entry"),
    ({"drop": ("policy.pth",)}, "no policy.pth"),
    ({"replace": {"policy.pth": b"garbage"}}, "policy.pth is not a plain weights file"),
])
def test_damaged_files_give_one_line(tmp_path, damage, message):
    path = rewrite_zip(PRETRAINED, tmp_path / "damaged.zip", **damage)
    with pytest.raises(ValueError, match=message) as info:
        PolicyAgent(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_a_model_file_that_cannot_be_read_is_not_called_another_format(tmp_path, monkeypatch):
    """A file without read permission was 'not a MaskablePPO model file: not a zip archive'."""
    import zipfile

    path = tmp_path / "locked.zip"
    path.write_bytes(PRETRAINED.read_bytes())

    def locked(*args, **kwargs):  # as open() fails without permission (root here reads any file)
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(zipfile, "ZipFile", locked)
    with pytest.raises(ValueError, match=rf"^model file {re.escape(repr(str(path)))} cannot be read: "
                                         r"Permission denied$"):
        PolicyAgent(path)
    monkeypatch.undo()
    (tmp_path / "short.zip").write_bytes(b"PK")  # too short to seek the end of: still not a model
    with pytest.raises(ValueError, match="is not a MaskablePPO model file"):
        PolicyAgent(tmp_path / "short.zip")


def test_pickled_weights_are_refused(tmp_path):
    """policy.pth is read with weights_only=True: a pickle there is refused, not run."""
    marker = tmp_path / "pwned"
    from models import Touch

    path = rewrite_zip(PRETRAINED, tmp_path / "weights.zip", replace={"policy.pth": pickle.dumps(Touch(marker))})
    with pytest.raises(ValueError, match="policy.pth is not a plain weights file"):
        PolicyAgent(path, trust=True)
    assert not marker.exists()
    # as torch.save writes it: the refusal names what is pickled there, without torch's advice and colours
    import io

    import torch

    saved = io.BytesIO()
    torch.save({"weight": Touch(marker)}, saved)
    path = rewrite_zip(PRETRAINED, tmp_path / "saved.zip", replace={"policy.pth": saved.getvalue()})
    with pytest.raises(ValueError, match=r"policy.pth is not a plain weights file \(it holds a pickled "
                                         r"getattr, which a weights file never does\)$") as info:  # Touch's reduce
        PolicyAgent(path, trust=True)
    assert not marker.exists() and "\x1b" not in str(info.value) and "weights_only" not in str(info.value)


def test_another_policy_class_is_refused_and_the_refusal_says_how(tmp_path):
    data = read_data(PRETRAINED)
    entry = data["policy_class"]
    entry = {k: (v.replace("MaskableActorCriticPolicy", "EvilPolicy") if isinstance(v, str) else v)
             for k, v in entry.items() if k != ":serialized:"}
    data["policy_class"] = dict(entry, **{":serialized:": payload(tmp_path / "pwned")})
    path = rewrite_zip(PRETRAINED, tmp_path / "evil.zip", data)
    with pytest.raises(UnsafeModelError, match=r"'policy_class' \(EvilPolicy .*is not MaskableActorCriticPolicy"
                       r".*runs code from the file.*trust=True.*--trust-model") as info:
        PolicyAgent(path)
    assert "\n" not in str(info.value) and not (tmp_path / "pwned").exists()


def test_bad_spaces_and_arguments_name_what_is_allowed(tmp_path):
    for change, message in [
        (lambda d: d["action_space"].update(n="7"), "7 actions, which fits no max_bid.*from 5 to 200"),
        (lambda d: d["action_space"].pop("n"), "'action_space'.*has no plain action count.*trust=True"),
        (lambda d: d["action_space"].update({":type:": "<class 'gymnasium.spaces.box.Box'>"}),
         "'action_space' is <class 'gymnasium.spaces.box.Box'>.*not Discrete"),
        (lambda d: d["observation_space"].pop("_shape"), "'observation_space'.*has no plain shape"),
        (lambda d: d["observation_space"].update(_shape=[12]), r"shape \(12,\).*another version"),
        (lambda d: d["policy_kwargs"].update(net_arch="big"), "'policy_kwargs.net_arch'.*a list of up to 16 layer"),
        (lambda d: d["policy_kwargs"].update(net_arch=[10**9]), "'policy_kwargs.net_arch'.*sizes from 1 to 4096"),
        (lambda d: d["policy_kwargs"].update(net_arch=[64, 64]), "weights in policy.pth do not fit the network"),
        (lambda d: d["policy_kwargs"].update(squash=True), "'policy_kwargs.squash'.*not a known policy argument"),
    ]:
        data = read_data(PRETRAINED)
        change(data)
        path = rewrite_zip(PRETRAINED, tmp_path / "bad.zip", data)
        with pytest.raises(ValueError, match=message) as info:
            PolicyAgent(path)
        assert "\n" not in str(info.value)


def test_a_file_crafted_to_exhaust_the_machine_is_refused_at_once(tmp_path):
    # a 'data' entry that unpacks far beyond any model's (a zip bomb: a few KB on disk)
    import zipfile

    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(PRETRAINED) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            dst.writestr(name, b" " * (17 << 20) if name == "data" else src.read(name))
    assert zipfile.ZipFile(path).getinfo("data").compress_size < 1 << 16
    with pytest.raises(ValueError, match=r"its 'data' entry unpacks to 17,825,792 bytes, more than the "
                                         r"16,777,216 a model's may$"):
        PolicyAgent(path)
    # the largest network a file may name, beside a small one's weights: refused before it is built
    data = read_data(PRETRAINED)
    data["policy_kwargs"]["net_arch"] = [4096] * 16
    path = rewrite_zip(PRETRAINED, tmp_path / "huge.zip", data)
    started = time.perf_counter()
    with pytest.raises(ValueError, match=r"weights in policy.pth do not fit the network its data describes "
                                         r"\(403,333 numbers for 507,785,349: "):
        PolicyAgent(path)
    assert time.perf_counter() - started < 10  # it took minutes and gigabytes
    # settings nested beyond any real one (a RecursionError in the check)
    data = read_data(PRETRAINED)
    data["policy_kwargs"]["optimizer_kwargs"] = {"betas": "DEEP"}
    raw = json.dumps(data).replace('"DEEP"', "[" * 700 + "]" * 700).encode()  # JSON reads it; json.dumps would not
    with pytest.raises(UnsafeModelError, match="'policy_kwargs.optimizer_kwargs'.*is not plain"):
        PolicyAgent(rewrite_zip(PRETRAINED, tmp_path / "deep.zip", raw_data=raw))
    # a path that is there but is not a file
    (tmp_path / "zero.zip").symlink_to("/dev/zero")
    with pytest.raises(ValueError, match=r"^model file '.*zero.zip' is not a file$"):
        PolicyAgent(tmp_path / "zero.zip")


def test_weights_that_are_not_finite_are_refused(tmp_path):
    import io

    import torch

    from agents.safe_load import read_tensors

    weights = read_tensors(PRETRAINED, "policy")
    for bad in (float("nan"), float("inf")):
        spoilt = {key: value.clone() for key, value in weights.items()}
        next(iter(spoilt.values())).view(-1)[0] = bad
        saved = io.BytesIO()
        torch.save(spoilt, saved)
        path = rewrite_zip(PRETRAINED, tmp_path / "nan.zip", replace={"policy.pth": saved.getvalue()})
        with pytest.raises(ValueError, match=r"policy.pth holds weights that are not finite numbers \(NaN or "
                                             r"infinity\)$"):
            make_agent(f"search:{path}:4")  # a search over it played on, and wrote a report


def test_settings_that_cannot_train_further_are_refused_in_one_line(tmp_path):
    from agents.safe_load import load_model

    env = ten_env.SoloEnv(jen_level=4)
    trained = _save(tmp_path, "small.zip")
    for change, message in [
        (lambda d: d.update(rollout_buffer_kwargs={"foo": 1}), r"its settings do not build a model to train "
                                                                r"further \(TypeError: "),
        (lambda d: d.update(n_steps=-1), "its entry 'n_steps' is -1, not 1 or more$"),
        (lambda d: d.update(batch_size=0), "its entry 'batch_size' is 0, not 1 or more$"),
        (lambda d: d.update(gamma=float("nan")), "its entry 'gamma' is nan, not a finite number$"),
    ]:
        data = read_data(trained)
        change(data)
        path = rewrite_zip(trained, tmp_path / "bad.zip", data)
        with pytest.raises(ValueError, match=message) as info:
            load_model(path, env=env)
        assert "\n" not in str(info.value) and str(path) in str(info.value)


def _save(tmp_path, name, **policy_kwargs):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", ten_env.SoloEnv(jen_level=4), n_steps=64, batch_size=32, seed=0,
                        policy_kwargs={"net_arch": [16], **policy_kwargs})
    model.save(tmp_path / name)
    return tmp_path / name


def test_a_plain_activation_loads_safely_and_a_custom_one_needs_trust(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    relu = _save(tmp_path, "relu.zip", activation_fn=torch.nn.ReLU, ortho_init=False)
    assert ":serialized:" in read_data(relu)["policy_kwargs"]  # SB3 pickles it; we read the plain fields
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        policy = load_policy(relu)
    assert isinstance(policy.mlp_extractor.policy_net[1], torch.nn.ReLU)
    env = ten_env.SoloEnv(jen_level=4)
    obs, _ = env.reset(seed=0)
    expected, _ = MaskablePPO.load(relu).predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert policy.predict(obs, action_masks=env.action_masks(), deterministic=True)[0] == expected

    custom = _save(tmp_path, "softsign.zip", activation_fn=torch.nn.Softsign)
    for load in (lambda: PolicyAgent(custom), lambda: make_agent(str(custom))):
        with pytest.raises(UnsafeModelError, match="'policy_kwargs.activation_fn'.*Softsign.*not plain "
                                                   r"\(one of Tanh, ReLU.*trust=True") as info:
            load()
        assert "\n" not in str(info.value)
    with pytest.warns(UserWarning, match="by unpickling it .trust=True.: any code in the file runs"):
        agent = PolicyAgent(custom, trust=True)
    with pytest.warns(UserWarning, match="unpickling"):
        assert make_agent(str(custom), trust=True).name == "softsign"
    assert isinstance(agent.model.policy.mlp_extractor.policy_net[1], torch.nn.Softsign)
    assert agent.act({"observation": obs, "action_mask": env.action_masks()}) in np.flatnonzero(env.action_masks())

    from train.evaluate import evaluate

    with pytest.raises(UnsafeModelError, match="'policy_kwargs.activation_fn'"):
        evaluate(str(custom), levels=[4], games=2, jobs=1)
    with pytest.warns(UserWarning, match="unpickling"):
        assert evaluate(str(custom), levels=[4], games=2, jobs=1, trust=True)["matchups"][0]["games"] == 2


def test_the_shipped_card_describes_the_model_in_plain_values():
    import json

    card = json.loads(PRETRAINED.with_suffix(".json").read_text())
    data = read_data(PRETRAINED)
    policy = load_policy(PRETRAINED)
    assert card["policy_kwargs"] == data["policy_kwargs"] == {"net_arch": [256, 256]}
    assert card["num_actions"] == int(data["action_space"]["n"]) == policy.action_space.n == 132
    assert card["observation_shape"] == data["observation_space"]["_shape"] == list(policy.observation_space.shape)
    assert card["max_bid"] == 40 and card["training_steps"] == data["num_timesteps"]


def test_a_malformed_rllib_card_is_refused_in_one_line_before_any_trust(tmp_path):
    # model.json is read before the pickled checkpoint is refused or loaded: a card that is not
    # ten train's gives one line, not a TypeError or RecursionError
    from agents.rllib_policy import RLlibPolicyAgent, read_card

    checkpoint = tmp_path / "run" / "checkpoint"
    checkpoint.mkdir(parents=True)
    (checkpoint / "rllib_checkpoint.json").write_text("{}")
    for shape in (5, True, "463", [463.0]):
        (tmp_path / "run" / "model.json").write_text(json.dumps({"backend": "rllib", "observation_shape": shape}))
        with pytest.raises(ValueError, match=r"its model.json gives observation_shape .*, not a list of sizes"):
            RLlibPolicyAgent(checkpoint)
    (tmp_path / "run" / "model.json").write_text("[" * 100_000 + "]" * 100_000)
    assert read_card(checkpoint) == {}  # not a card: the trust refusal follows
    with pytest.raises(ValueError, match="an RLlib checkpoint is pickled"):
        RLlibPolicyAgent(checkpoint)
