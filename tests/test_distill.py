"""``ten distill``: a search agent's decisions as data (``generate``), a network trained on them
(``train``), and the refusals of both, each one line without a traceback."""

from __future__ import annotations

import functools
import json
import subprocess
import sys

import numpy as np
import pytest

from interrupt import interrupt_after

from agents import PolicyAgent, play_games
from agents.registry import make_agent
from agents.tournament import agent_seed
from ten_env import Game, Rules
from ten_env import observation as O
from ten_env.observation import agent_view
from train import distill as D
from train.cli import main

TEACHER = "search:ppo-jen:4"  # the real teacher's kind, on a budget a test can afford
START = "ppo-jen-v1"  # the network the training tests start from: PPO's, its value on the margin reward's scale
LEVELS, GAMES, SEED = [6, 9], 2, 5


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    # As ten distill does: on a busy 2-core machine a second thread makes the small batches crawl.
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def generated():
    return D.generate(TEACHER, levels=LEVELS, games=GAMES, seed=SEED, jobs=1)


@pytest.fixture(scope="module")
def data_file(generated, tmp_path_factory):
    return D.save_data(generated, tmp_path_factory.mktemp("data") / "data.npz")


def _one_line_error(capsys, argv, *phrases):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("ten: error: "), captured.err
    assert "Traceback" not in captured.err
    for phrase in phrases:
        assert phrase in captured.err, captured.err
    return captured.err


# --------------------------------------------------------------------------- generate


def test_the_data_holds_a_target_for_every_decision(generated, data_file):
    arrays, meta = generated["arrays"], generated["meta"]
    rows = meta["decisions"]
    assert rows == len(arrays["policy"]) > 50
    assert arrays["observation"].shape == (rows, O.SIZE)
    n = Game(Rules()).num_actions
    assert arrays["mask"].shape == arrays["policy"].shape == (rows, n)
    for name, dtype in D.ARRAYS.items():
        assert arrays[name].dtype == dtype, name
    policy, mask = arrays["policy"], arrays["mask"]
    np.testing.assert_allclose(policy.sum(1), 1.0, atol=1e-6)
    assert (policy[~mask] == 0).all() and (policy >= 0).all()
    assert (mask.sum(1) >= 2).all()  # a single legal move teaches nothing
    assert meta["single_move_decisions"] == 0  # the engine plays those itself
    # the targets are visit counts over a budget of 4: multiples of 1/4
    np.testing.assert_allclose(policy * 4, np.round(policy * 4), atol=1e-6)
    assert (np.abs(arrays["value"]) <= 1).all()
    assert sorted(set(arrays["level"].tolist())) == LEVELS
    for level in LEVELS:
        assert sorted(set(arrays["game"][arrays["level"] == level].tolist())) == list(range(GAMES))
    assert (np.diff(arrays["level"].astype(int) * 1000 + arrays["game"]) >= 0).all()  # levels, games, moves
    assert meta["teacher"] == TEACHER and meta["levels"] == LEVELS and meta["games_per_level"] == GAMES
    assert meta["seed"] == SEED and meta["rules"]["max_bid"] == 40 and meta["rules"]["num_players"] == 2
    assert meta["ten_env_version"] and meta["seconds"] >= 0

    loaded = D.load_data(data_file)
    assert loaded["meta"] == meta
    for name in D.ARRAYS:
        np.testing.assert_array_equal(loaded["arrays"][name], arrays[name])


def test_rows_replay_the_games_move_by_move(generated):
    """Each level's games played again from their seeds: the same views, masks, targets and outcomes."""
    arrays = generated["arrays"]
    teacher = make_agent(TEACHER, seed=0)
    row = 0
    for level in LEVELS:
        for game_index in range(GAMES):
            teacher.reset(seed=agent_seed(SEED + game_index, 0))  # as seeded_games resets the agent in seat 0
            game = Game(Rules(jen_level=level), seed=SEED + game_index)
            first = row
            while not game.is_over:
                observation, info = O.agent_view(game, 0)
                decision = teacher.search(observation, info)
                assert arrays["level"][row] == level and arrays["game"][row] == game_index
                np.testing.assert_array_equal(arrays["observation"][row], observation["observation"])
                np.testing.assert_array_equal(arrays["mask"][row], observation["action_mask"].astype(bool))
                assert arrays["mask"][row].nonzero()[0].tolist() == sorted(game.legal_actions())
                assert np.argmax(arrays["policy"][row]) in decision.actions
                visits = np.zeros(game.num_actions)
                visits[decision.actions] = decision.visits
                np.testing.assert_allclose(arrays["policy"][row], visits / visits.sum(), atol=1e-7)
                assert arrays["value"][row] == pytest.approx(decision.value, abs=1e-6)
                game.act(decision.action)
                row += 1
            scores = game.scores()
            assert (arrays["reward"][first:row] == np.float32(np.clip((scores[0] - scores[1]) / 20, -1, 1))).all()
            assert (arrays["win"][first:row] == float(scores[0] > scores[1])).all()  # JEN wins ties
    assert row == len(arrays["policy"])


def test_wins_are_those_of_play_games_on_the_same_seeds(generated):
    meta, arrays = generated["meta"], generated["arrays"]
    for level, wins in zip(LEVELS, meta["wins_per_level"]):
        results = play_games([make_agent(TEACHER, seed=0)], Rules(jen_level=level), n=GAMES, seed=SEED)
        assert results.wins[0] == wins
        at_level = arrays["level"] == level
        per_game = {int(g): float(w) for g, w in zip(arrays["game"][at_level], arrays["win"][at_level])}
        assert sum(per_game.values()) == wins


def test_the_note_on_ten_evals_seeds_names_a_single_seed_as_one(tmp_path, capsys):
    assert main(["distill", "generate", "search:4", "--levels", "6", "--games", "1", "--seed", "3", "--jobs", "1",
                 "--no-progress", "-o", str(tmp_path / "one.npz")]) == 0
    assert "note: deck seed 3 is among those ten eval plays" in capsys.readouterr().err  # not "deck seeds 3-3 are"


def test_cli_on_two_workers_writes_the_same_data(generated, tmp_path, capsys):
    out = tmp_path / "two.npz"
    assert main(["distill", "generate", TEACHER, "--levels", "6,9", "--games", str(GAMES), "--seed", str(SEED),
                 "--jobs", "2", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    meta = generated["meta"]
    assert captured.out.startswith(f"saved {out}: {meta['decisions']} decisions from 4 games (2 per level); "
                                   f"{TEACHER} won JEN 6 ")
    assert captured.out.count("\n") == 1
    assert "deck seeds 5-6 are among those ten eval plays" in captured.err  # the seeds overlap ten eval's
    data = D.load_data(out)
    assert data["meta"]["jobs"] == 2 and data["meta"]["wins_per_level"] == meta["wins_per_level"]
    for name in D.ARRAYS:
        np.testing.assert_array_equal(data["arrays"][name], generated["arrays"][name], err_msg=name)


def test_the_chunks_are_put_together_holding_the_data_about_once():
    """The parent gathers every chunk's arrays; copying them into one array each while letting
    go of each chunk keeps it at about the data's size (concatenating held it twice: a million
    decisions are some 2.5 GB). Peak memory is the process's, so it runs in one of its own."""
    code = """if True:
        import resource
        import numpy as np
        from train import distill as D
        results = {(0, 100 * k): {"arrays": {name: np.ones((5000, *D._row_shape(name, 132)), dtype=dtype)
                                             for name, dtype in D.ARRAYS.items()}, "wins": 0, "single_moves": 0}
                   for k in range(16)}
        data = sum(a.nbytes for r in results.values() for a in r["arrays"].values())
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        arrays = D._assemble(results, 0, 132)
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
        assert len(arrays["policy"]) == 80_000 and arrays["game"][-1] == 1 + 1500 and arrays["observation"].all()
        print(round(grown / data, 2))
    """
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert float(run.stdout) < 0.4, f"the peak grew by {run.stdout.strip()} times the data"


@pytest.mark.parametrize("teacher, phrases", [
    ("oracle:ppo-jen:4", ["teacher 'oracle:ppo-jen:4' sees the deck order", "search:ppo-jen:64"]),
    ("oracle", ["sees the deck order"]),
    ("heuristic", ["teacher 'heuristic' is neither a fair search agent nor a network", "search:<model>:<budget>"]),
    ("jen:7", ["teacher 'jen:7' is neither a fair search agent nor a network", "ppo-jen"]),
    ("search:nomodel:4", ["its model: unknown agent 'nomodel'"]),
])
def test_generate_refuses_teachers_that_are_neither_fair_searches_nor_networks(teacher, phrases, tmp_path, capsys):
    out = tmp_path / "x.npz"
    _one_line_error(capsys, ["distill", "generate", teacher, "--games", "1", "--seed", "0", "-o", str(out)],
                    *phrases)
    assert not out.exists()


def test_a_network_teacher_writes_its_own_probabilities_and_plays_as_ten_eval_plays_it(tmp_path):
    data = D.generate("ppo-jen", levels=[8], games=3, seed=SEED, jobs=1)
    arrays = data["arrays"]
    network = PolicyAgent.pretrained("ppo-jen")
    probs, values = network.evaluate(arrays["observation"], arrays["mask"])
    np.testing.assert_allclose(arrays["policy"], np.where(arrays["mask"], probs, 0), atol=1e-6)
    np.testing.assert_allclose(arrays["value"], values, atol=1e-6)
    assert arrays["mask"].sum(1).min() >= 2  # single moves are not written
    # The moves it played are PolicyAgent's: the same games, won and lost as ten eval plays them.
    results = play_games([network], Rules(jen_level=8), n=3, seed=SEED)
    assert data["meta"]["wins_per_level"] == [results.wins[0]]
    assert len(arrays["policy"]) + data["meta"]["single_move_decisions"] == results.decisions[0]
    margins = [arrays["reward"][arrays["game"] == g][0] * 20 for g in range(3)]
    assert sum(margins) == pytest.approx(results.margins[0], abs=1e-4)


def test_with_a_player_the_teacher_labels_the_positions_the_player_reaches(tmp_path, capsys):
    """DAgger: heuristic makes every move, the search writes its visits at each position; the games,
    wins and outcomes are the heuristic's own, as ten eval plays them."""
    out = tmp_path / "dagger.npz"
    assert main(["distill", "generate", TEACHER, "--player", "heuristic", "--levels", "8", "--games", "2",
                 "--seed", "1000", "--jobs", "1", "-o", str(out)]) == 0
    assert "heuristic (the player; search:ppo-jen:4 labelled its positions) won JEN 8" in capsys.readouterr().out
    data = D.load_data(out)
    arrays, meta = data["arrays"], data["meta"]
    assert meta["player"] == "heuristic" and meta["teacher"] == TEACHER
    teacher, player = make_agent(TEACHER, seed=0), make_agent("heuristic", seed=1)
    row = 0
    for game_index in range(2):
        teacher.reset(seed=1000 + game_index)  # as seeded_games resets seat 0 ...
        player.reset(seed=1000 + game_index + 1000003)  # ... and seat 1
        game = Game(Rules(jen_level=8), seed=1000 + game_index)
        first = row
        while not game.is_over:
            observation, info = O.agent_view(game, 0)
            decision = teacher.search(observation, info)
            np.testing.assert_array_equal(arrays["observation"][row], observation["observation"])
            visits = np.zeros(game.num_actions)
            visits[decision.actions] = decision.visits
            np.testing.assert_allclose(arrays["policy"][row], visits / visits.sum(), atol=1e-7)
            game.act(player.act(observation, info))
            row += 1
        scores = game.scores()
        assert (arrays["reward"][first:row] == np.float32(np.clip((scores[0] - scores[1]) / 20, -1, 1))).all()
    assert row == len(arrays["policy"])
    results = play_games([make_agent("heuristic", seed=0)], Rules(jen_level=8), n=2, seed=1000)
    assert meta["wins_per_level"] == [results.wins[0]]
    assert sum(arrays["reward"][arrays["game"] == g][0] * 20 for g in range(2)) == pytest.approx(
        results.margins[0], abs=1e-4)


@pytest.mark.parametrize("player, phrases", [
    ("oracle:ppo-jen:4", ["player 'oracle:ppo-jen:4' sees the deck order", "ppo-jen, a model .zip"]),
    (" ", ["the player is empty", "heuristic"]),
    ("nobody", ["unknown agent 'nobody'"]),
])
def test_generate_refuses_a_player_that_sees_the_deck_or_does_not_exist(player, phrases, tmp_path, capsys):
    out = tmp_path / "x.npz"
    _one_line_error(capsys, ["distill", "generate", TEACHER, "--player", player, "--games", "1", "--seed", "1000",
                             "-o", str(out)], *phrases)
    assert not out.exists()


def test_generate_refuses_an_existing_file_unless_overwrite(tmp_path, capsys):
    out = tmp_path / "x.npz"
    out.write_bytes(b"earlier data")
    argv = ["distill", "generate", "search:2", "--levels", "4", "--games", "1", "--seed", "3", "--jobs", "1",
            "-o", str(out)]
    _one_line_error(capsys, argv, f"-o {str(out)!r}: {str(out)!r} already exists: use --overwrite")
    assert out.read_bytes() == b"earlier data"
    _one_line_error(capsys, argv[:-1] + [str(tmp_path / "x.zip")], "the data is a .npz file")
    assert main(argv + ["--overwrite"]) == 0  # a search without a model: rollouts, no torch needed
    capsys.readouterr()
    assert D.load_data(out)["meta"]["teacher"] == "search:2"
    assert [p.name for p in tmp_path.iterdir()] == ["x.npz"]  # no temporary file left behind


def test_generate_refuses_a_game_the_teachers_model_was_not_made_for(tmp_path, capsys):
    out = tmp_path / "x.npz"
    _one_line_error(capsys, ["distill", "generate", TEACHER, "--max-bid", "30", "--games", "1", "--seed", "0",
                             "-o", str(out)], "has 132 actions but the game has 122", "--max-bid 40")
    assert not out.exists()


# --------------------------------------------------------------------------- train


@pytest.fixture(scope="module")
def lesson(generated, tmp_path_factory):
    """Synthetic targets on real positions: the start's least likely legal move, a value of 0.5.
    The starting model disagrees with them everywhere, so training has something to change."""
    start = PolicyAgent.pretrained(START)
    arrays = dict(generated["arrays"])
    probs, _ = start.evaluate(arrays["observation"], arrays["mask"])
    target = np.where(arrays["mask"], probs, np.inf).argmin(1)
    policy = np.zeros_like(arrays["policy"])
    policy[np.arange(len(policy)), target] = 1.0
    arrays.update(policy=policy, reward=np.full_like(arrays["reward"], 0.5))
    folder = tmp_path_factory.mktemp("lesson")
    path = D.save_data({"arrays": arrays, "meta": generated["meta"]}, folder / "lesson.npz")
    out = folder / "student.zip"
    card = D.train_network([path], START, out, epochs=3, lr=1e-3, batch=64, holdout=0.25, seed=1, echo=None)
    return {"path": path, "out": out, "card": card, "target": target, "arrays": arrays, "start": probs}


def test_training_learns_the_targets_and_saves_a_safe_model(lesson):
    card, arrays = lesson["card"], lesson["arrays"]
    losses = card["epoch_losses"]
    assert [e["epoch"] for e in losses] == [0, 1, 2, 3]
    assert losses[-1]["train_policy_loss"] < 0.5 * losses[0]["train_policy_loss"]
    assert losses[-1]["train_value_loss"] < losses[0]["train_value_loss"]
    best = min(losses[1:], key=lambda e: e["validation_loss"])
    assert card["kept_epoch"] == best["epoch"]
    assert card["validation"]["validation_loss"] == best["validation_loss"]

    from agents import safe_load

    safe_load.load_policy(lesson["out"])  # no unpickling needed
    student = PolicyAgent(lesson["out"])  # trust not given
    rows = np.arange(len(lesson["target"]))
    probs, values = student.evaluate(arrays["observation"], arrays["mask"])
    before = lesson["start"][rows, lesson["target"]].mean()
    after = probs[rows, lesson["target"]].mean()
    assert after > before + 0.2, (before, after)
    assert abs(values.mean() - 0.5) < abs(PolicyAgent.pretrained(START).evaluate(
        arrays["observation"], arrays["mask"])[1].mean() - 0.5)
    observation = {"observation": arrays["observation"][0], "action_mask": arrays["mask"][0].astype(np.int8)}
    assert arrays["mask"][0][student.act(observation)]  # it plays legal moves


def test_the_model_card_says_where_the_model_came_from(lesson):
    card_path = lesson["out"].with_suffix(".json")
    card = json.loads(card_path.read_text())
    assert card == json.loads(json.dumps(lesson["card"]))
    assert card["started_from"] == START and card["name"] == "student"
    assert card["observation_shape"] == [O.SIZE] and card["num_actions"] == 132
    (data,) = card["data"]
    assert data["file"] == str(lesson["path"]) and data["teacher"] == TEACHER and data["levels"] == LEVELS
    assert data["games"] == 4 and data["decisions"] == len(lesson["target"])
    assert (card["epochs"], card["learning_rate"], card["batch_size"], card["value_weight"]) == (3, 1e-3, 64, 0.5)
    assert card["holdout"] == 0.25 and card["games"] == 4 and card["deals"] == 4 and card["validation_decisions"] > 0
    assert set(card["validation"]) == {"validation_policy_loss", "validation_value_loss", "validation_loss",
                                       "validation_agreement"}
    assert card["training_time"] and card["training_seconds"] > 0 and "core" in card["machine"]
    assert "ladder" not in card


def test_sharpened_targets_lean_on_the_most_visited_move():
    import torch

    visits = torch.tensor([[0.5, 0.3, 0.2, 0.0], [1e-30, 1.0, 0.0, 0.0]], dtype=torch.float64)
    assert torch.equal(D.sharpened(visits, 1), visits)
    sharp = D.sharpened(visits, 4)
    expected = torch.tensor([0.5, 0.3, 0.2, 0.0], dtype=torch.float64) ** 4
    assert torch.allclose(sharp[0], expected / expected.sum())
    assert torch.allclose(sharp.sum(1), torch.ones(2, dtype=torch.float64))
    assert sharp[0, 3] == 0 and sharp[1, 1] == 1  # unvisited moves stay at 0; no 0/0


def test_training_with_sharpened_targets_is_on_the_card(lesson, tmp_path):
    card = D.train_network([lesson["path"]], START, tmp_path / "sharp.zip", epochs=1, lr=1e-3, batch=64,
                           holdout=0.25, seed=1, sharpen=3, echo=None)
    assert card["sharpen"] == 3 and lesson["card"]["sharpen"] == 1.0
    for bad in (0.5, float("nan"), True, "2"):
        with pytest.raises(ValueError, match="sharpen must be a number, 1 or more"):
            D.train_network([lesson["path"]], START, tmp_path / "bad.zip", sharpen=bad, echo=None)
    assert not (tmp_path / "bad.zip").exists()


def test_the_outcome_value_target_is_what_the_search_gives_a_finished_game(lesson, tmp_path):
    from agents.search import outcome_value
    from ten_env.env import final_rewards

    from agents.tournament import play_game

    heuristic = make_agent("heuristic")  # wins some games and loses others
    results = set()
    for seed in range(20):
        game = Game(Rules(jen_level=4 + seed % 7), seed=seed)
        play_game(game, [heuristic])
        won = float(game.winners() == [0])
        results.add(won)
        value = D.outcome(np.float32(final_rewards(game, 0, "margin")), np.float32(won))
        assert value == pytest.approx(outcome_value(game, 0), abs=1e-6)
    assert results == {0.0, 1.0}  # both wins and losses were checked
    card = D.train_network([lesson["path"]], START, tmp_path / "o.zip", epochs=1, holdout=0.25, seed=1,
                           value_target="outcome", echo=None)
    assert card["value_target"] == "outcome" and lesson["card"]["value_target"] == "reward"
    with pytest.raises(ValueError, match="value_target must be one of reward, outcome"):
        D.train_network([lesson["path"]], START, tmp_path / "bad.zip", value_target="win", echo=None)
    assert not (tmp_path / "bad.zip").exists()


def test_value_weight_zero_trains_the_policy_alone(lesson, tmp_path):
    out = tmp_path / "policy.zip"
    card = D.train_network([lesson["path"]], START, out, epochs=2, lr=1e-3, batch=64, holdout=0.25, seed=1,
                           value_weight=0, echo=None)
    assert card["value_weight"] == 0 and "its value network kept as it was" in card["method"]
    arrays = lesson["arrays"]
    old_probs, old_values = PolicyAgent.pretrained(START).evaluate(arrays["observation"], arrays["mask"])
    new_probs, new_values = PolicyAgent(out).evaluate(arrays["observation"], arrays["mask"])
    np.testing.assert_array_equal(new_values, old_values)  # the value's weights exactly as they were
    assert not np.allclose(new_probs, old_probs)
    kept = card["epoch_losses"][card["kept_epoch"]]
    assert kept["validation_loss"] == pytest.approx(kept["validation_policy_loss"])


def test_policy_weight_zero_trains_the_value_alone(lesson, tmp_path):
    out = tmp_path / "value.zip"
    card = D.train_network([lesson["path"]], START, out, epochs=2, lr=1e-3, batch=64, holdout=0.25, seed=1,
                           policy_weight=0, echo=None)
    assert card["policy_weight"] == 0 and lesson["card"]["policy_weight"] == 1.0
    assert "value network fitted" in card["method"] and "expert iteration" in lesson["card"]["method"]
    arrays = lesson["arrays"]
    start = PolicyAgent.pretrained(START)
    student = PolicyAgent(out)
    old_probs, old_values = start.evaluate(arrays["observation"], arrays["mask"])
    new_probs, new_values = student.evaluate(arrays["observation"], arrays["mask"])
    np.testing.assert_array_equal(new_probs, old_probs)  # the policy's weights exactly as they were
    assert np.abs(new_values - 0.5).mean() < 0.5 * np.abs(old_values - 0.5).mean()
    # Kept by the value loss alone: the policy loss, unchanged, does not weigh on the choice.
    kept = card["epoch_losses"][card["kept_epoch"]]
    assert kept["validation_loss"] == pytest.approx(0.5 * kept["validation_value_loss"])
    with pytest.raises(ValueError,
                       match=r"policy_weight and value_weight \(--policy-weight, --value-weight\) are both 0"):
        D.train_network([lesson["path"]], START, tmp_path / "bad.zip", policy_weight=0, value_weight=0,
                        echo=None)
    for bad in (-1, float("inf"), True):
        with pytest.raises(ValueError, match="policy_weight must be a number, 0 or more"):
            D.train_network([lesson["path"]], START, tmp_path / "bad.zip", policy_weight=bad, echo=None)
    assert not (tmp_path / "bad.zip").exists()


def test_widening_keeps_the_policy_and_the_value_until_training_uses_the_new_units(lesson, tmp_path):
    import torch

    from agents.safe_load import load_model
    from ten_env import SoloEnv

    arrays = lesson["arrays"]
    model = load_model(PolicyAgent.pretrained(START).path, env=SoloEnv(jen_level=6), device="cpu")
    assert D.policy_layers(model) == (256, 256)
    D.widen_policy(model, 384)
    assert D.policy_layers(model) == (384, 384)
    assert model.policy_kwargs["net_arch"] == {"pi": [384, 384], "vf": [256, 256]}
    observations = torch.as_tensor(arrays["observation"])
    masks = torch.as_tensor(arrays["mask"])
    with torch.no_grad():
        log_probs, values = D._forward(model.policy, observations, masks)
    start_probs, start_values = PolicyAgent.pretrained(START).evaluate(arrays["observation"], arrays["mask"])
    np.testing.assert_allclose(log_probs.exp().numpy(), start_probs, atol=1e-5)
    np.testing.assert_allclose(values.numpy(), start_values, atol=1e-6)

    out = tmp_path / "wide.zip"
    card = D.train_network([lesson["path"]], START, out, epochs=2, lr=1e-3, batch=64, holdout=0.25, seed=1,
                           value_weight=0, width=384, echo=None)
    assert card["widened_to"] == 384 and card["policy_layers_at_start"] == [256, 256]
    assert card["policy_kwargs"]["net_arch"] == {"pi": [384, 384], "vf": [256, 256]}
    assert "widened to 384 units a layer" in card["method"] and lesson["card"]["widened_to"] is None
    student = PolicyAgent(out)  # a safe file: no trust needed
    probs, new_values = student.evaluate(arrays["observation"], arrays["mask"])
    np.testing.assert_array_equal(new_values, start_values)  # the value network as it was
    rows = np.arange(len(lesson["target"]))
    assert probs[rows, lesson["target"]].mean() > start_probs[rows, lesson["target"]].mean() + 0.2
    assert student.model.action_net.weight[:, 256:].abs().max() > 0  # the new units are read now


def test_widening_refuses_a_narrower_or_equal_width_or_an_untrained_policy(lesson, tmp_path, capsys):
    out = tmp_path / "w.zip"
    _one_line_error(capsys, ["distill", "train", str(lesson["path"]), "--from", START, "--width", "128",
                             "-o", str(out)],
                    "--width 128 is narrower than the starting model's policy layers [256, 256]: "
                    "it can only widen them")
    _one_line_error(capsys, ["distill", "train", str(lesson["path"]), "--from", START, "--width", "256",
                             "-o", str(out)],
                    "--width 256 is the starting model's policy layers [256, 256] already: give a wider width, "
                    "or leave --width out")
    _one_line_error(capsys, ["distill", "train", str(lesson["path"]), "--from", START, "--width", "512",
                             "--policy-weight", "0", "-o", str(out)],
                    "width widens the policy network, which policy_weight 0 leaves as it is")
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="width must be a whole number of at least 1"):
            D.train_network([lesson["path"]], START, out, width=bad, echo=None)
    assert not out.exists() and not out.with_suffix(".json").exists() and not list(tmp_path.iterdir())


def test_new_inputs_load_only_into_the_same_network_taking_more_inputs():
    """load_with_new_inputs (add_derived_features, ten train's warm start) refuses, in one line, a
    network whose layers differ in anything but their inputs."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from ten_env import SoloEnv
    from ten_env.features import DerivedFeatures

    def policy(env, layers):
        return MaskableActorCriticPolicy(env.observation_space, env.action_space, lambda _: 0.0, net_arch=layers)

    plain, extended = SoloEnv(jen_level=4), DerivedFeatures(SoloEnv(jen_level=4))
    target = policy(extended, [16])
    D.load_with_new_inputs(target, policy(plain, [16]).state_dict())
    with pytest.raises(ValueError, match=r"^the networks differ in mlp_extractor.policy_net.0.weight \(shape "
                                         r"\[32, 463\] against \[16, 569\]\): only their inputs may differ$"):
        D.load_with_new_inputs(target, policy(plain, [32]).state_dict())
    with pytest.raises(ValueError, match=r"^the networks differ in their layers \(\['mlp_extractor.policy_net.2."
                                         r"bias', .*\]\): only their inputs may differ$"):
        D.load_with_new_inputs(target, policy(plain, [16, 16]).state_dict())


def test_derived_features_keep_the_policy_and_the_value_until_training_reads_them(lesson, tmp_path, capsys):
    import torch

    from agents.safe_load import load_model, load_policy
    from ten_env import SoloEnv
    from ten_env import features as F

    arrays = lesson["arrays"]
    start_probs, start_values = PolicyAgent.pretrained(START).evaluate(arrays["observation"], arrays["mask"])
    model = load_model(PolicyAgent.pretrained(START).path, env=SoloEnv(jen_level=6), device="cpu")
    D.add_derived_features(model)
    assert model.observation_space.shape == (F.EXTENDED_SIZE,)
    with torch.no_grad():
        log_probs, values = D._forward(model.policy, torch.as_tensor(F.extend(arrays["observation"])),
                                       torch.as_tensor(arrays["mask"]))
    np.testing.assert_allclose(log_probs.exp().numpy(), start_probs, atol=1e-6)
    np.testing.assert_allclose(values.numpy(), start_values, atol=1e-6)

    out = tmp_path / "derived.zip"
    card = D.train_network([lesson["path"]], START, out, epochs=2, lr=1e-3, batch=64, holdout=0.25, seed=1,
                           value_weight=0, features=True, echo=None)
    assert card["observation_shape"] == [F.EXTENDED_SIZE]
    assert card["derived_features"] is True and card["derived_features_added"] is True
    assert lesson["card"]["derived_features"] is False
    assert "derived features (ten_env.features) first added to its inputs" in card["method"]
    start_entry = card["epoch_losses"][0]
    assert start_entry["validation_policy_loss"] == pytest.approx(
        lesson["card"]["epoch_losses"][0]["validation_policy_loss"], abs=1e-6)  # the same policy at the start
    load_policy(out)  # a safe file
    student = PolicyAgent(out)  # no trust needed; it extends the observations itself
    assert student.derived_features and not PolicyAgent.pretrained(START).derived_features
    probs, new_values = student.evaluate(arrays["observation"], arrays["mask"])
    np.testing.assert_allclose(new_values, start_values, atol=1e-6)  # the value network reads nothing new
    rows = np.arange(len(lesson["target"]))
    assert probs[rows, lesson["target"]].mean() > start_probs[rows, lesson["target"]].mean() + 0.2
    assert student.model.mlp_extractor.policy_net[0].weight[:, O.SIZE:].abs().max() > 0  # the features are read
    observation = {"observation": arrays["observation"][0], "action_mask": arrays["mask"][0].astype(np.int8)}
    assert arrays["mask"][0][student.act(observation)]
    search = make_agent(f"search:{out}:4")  # as a search's prior and value too
    search.reset(seed=0)
    game = Game(Rules(jen_level=8), seed=3)
    assert agent_view(game, 0)[0]["action_mask"][search.act(*agent_view(game, 0))]

    again = tmp_path / "again.zip"  # going on from it: the data is extended to fit without being asked
    card = D.train_network([lesson["path"]], str(out), again, epochs=1, lr=1e-3, batch=64, holdout=0.25, seed=1,
                           value_weight=0, echo=None)
    assert card["derived_features"] is True and card["derived_features_added"] is False
    assert card["epoch_losses"][0]["validation_policy_loss"] == pytest.approx(
        card_of(out)["validation"]["validation_policy_loss"], abs=1e-5)
    _one_line_error(capsys, ["distill", "train", str(lesson["path"]), "--from", str(out), "--features",
                             "-o", str(tmp_path / "x.zip")],
                    f"--from {str(out)!r} takes the derived features already: leave --features out")
    _one_line_error(capsys, ["distill", "train", str(lesson["path"]), "--from", START, "--features",
                             "--policy-weight", "0", "-o", str(tmp_path / "x.zip")],
                    "features gives the policy network new inputs, which policy_weight 0 leaves unread")
    assert not (tmp_path / "x.zip").exists()


def card_of(path):
    return json.loads(path.with_suffix(".json").read_text())


def test_validation_holds_out_whole_deals(lesson):
    """A deal (level, deck seed) is on one side only, whichever files hold it."""
    data = D.load_data(lesson["path"])
    deal = np.stack([data["arrays"]["level"], data["meta"]["seed"] + data["arrays"]["game"]], 1)
    elsewhere = {**data, "meta": {**data["meta"], "seed": data["meta"]["seed"] + 1000}}
    for files, deals, keys in [([data, elsewhere], 8, np.concatenate([deal, deal + [0, 1000]])),
                               ([data, data], 4, np.concatenate([deal, deal]))]:  # the same file twice
        train_rows, valid_rows, found = D._split_games(files, 0.25, seed=3)
        assert found == deals
        held = {tuple(k) for k in keys[valid_rows]}
        trained = {tuple(k) for k in keys[train_rows]}
        assert len(held) == round(deals / 4) and not held & trained
        assert sorted(np.concatenate([train_rows, valid_rows]).tolist()) == list(range(len(keys)))


def test_cli_train_prints_each_epoch_and_refuses_to_overwrite(lesson, tmp_path, capsys):
    out = tmp_path / "cli.zip"
    argv = ["distill", "train", str(lesson["path"]), "--from", str(lesson["out"]), "--epochs", "1",
            "--batch", "256", "-o", str(out)]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{len(lesson['target'])} decisions from 4 deals")
    assert lines[1].startswith("epoch start  train: policy ") and lines[2].startswith("epoch   1/1  train: ")
    assert "agreement" in lines[2] and lines[-1].startswith("kept epoch 1 (validation loss ")
    assert json.loads(out.with_suffix(".json").read_text())["started_from"] == str(lesson["out"])
    model = out.read_bytes()
    out.unlink()  # the card alone still blocks the name
    _one_line_error(capsys, argv, "cli.json' already exists: use --overwrite")
    assert not out.exists()
    out.write_bytes(model)


def test_train_refuses_bad_data_in_one_line(lesson, tmp_path, capsys):
    out = tmp_path / "m.zip"
    arrays = dict(lesson["arrays"])
    wider = dict(arrays, mask=np.zeros((len(arrays["mask"]), 140), bool),
                 policy=np.zeros((len(arrays["mask"]), 140), np.float32))
    other_game = D.save_data({"arrays": wider, "meta": {"format": D.FORMAT}}, tmp_path / "wide.npz")
    _one_line_error(capsys, ["distill", "train", str(lesson["path"]), str(other_game), "--from", "ppo-jen",
                             "-o", str(out)],
                    f"data file {str(other_game)!r} has observations of {O.SIZE} floats and 140 actions, "
                    f"but the starting model 'ppo-jen' has observations of {O.SIZE} floats and 132 actions")
    narrow = D.save_data({"arrays": dict(arrays, observation=arrays["observation"][:, :10]),
                          "meta": {"format": D.FORMAT}}, tmp_path / "narrow.npz")
    _one_line_error(capsys, ["distill", "train", str(narrow), "--from", "ppo-jen", "-o", str(out)],
                    "has observations of 10 floats and 132 actions", "463 floats")
    _one_line_error(capsys, ["distill", "train", str(tmp_path / "missing.npz"), "--from", "ppo-jen",
                             "-o", str(out)], "data file", "missing.npz' does not exist")
    (tmp_path / "not.npz").write_text("hello")
    _one_line_error(capsys, ["distill", "train", str(tmp_path / "not.npz"), "--from", "ppo-jen", "-o", str(out)],
                    "not.npz' is not a data file of ten distill generate (not an .npz archive)")
    # a NaN made the loss NaN, and the advice a smaller --lr
    policy, value = arrays["policy"].copy(), arrays["value"].copy()
    policy[3, 0], value[5] = np.nan, np.inf
    broken = D.save_data({"arrays": dict(arrays, policy=policy, value=value), "meta": {"format": D.FORMAT}},
                         tmp_path / "nan.npz")
    _one_line_error(capsys, ["distill", "train", str(broken), "--from", "ppo-jen", "-o", str(out)],
                    "nan.npz' is not a data file of ten distill generate: its policy, value arrays hold NaN or "
                    "infinite numbers")
    _one_line_error(capsys, ["distill", "train", str(lesson["path"]), "--from", "ppo-nothing", "-o", str(out)],
                    "--from: no model 'ppo-nothing': name a shipped model (", "ppo-jen")
    _one_line_error(capsys, ["distill", "train", str(lesson["path"]), "--from", "ppo-jen", "-o",
                             str(tmp_path / "m.npz")], "the model is a .zip file")
    assert not out.exists() and not out.with_suffix(".json").exists()


def test_training_that_diverges_says_so_and_writes_nothing(lesson, tmp_path, capsys):
    # it ended in the refusal of a hidden temporary file's NaN weights (before that, a NaN model was saved)
    out = tmp_path / "m.zip"
    assert main(["distill", "train", str(lesson["path"]), "--from", START, "--epochs", "1", "--lr", "1e30",
                 "-o", str(out)]) == 2
    err = capsys.readouterr().err  # the epochs' lines went to stdout before it
    assert err.count("\n") == 1 and err.startswith("ten: error: training diverged in epoch 1: ")
    assert "give a smaller --lr (it was 1e+30)" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_train_starts_only_from_a_file_that_loads_without_unpickling(lesson, tmp_path, capsys):
    from models import PRETRAINED, craft

    marker = tmp_path / "ran"
    crafted = craft(PRETRAINED, tmp_path / "crafted.zip", "gamma", marker)
    out = tmp_path / "m.zip"
    _one_line_error(capsys, ["distill", "train", str(lesson["path"]), "--from", str(crafted), "-o", str(out)],
                    "--from: refusing to load", "its entry 'gamma'",
                    "ten distill train starts only from a model file that loads without unpickling")
    assert not marker.exists() and not out.exists()


@pytest.mark.parametrize("argv", [["distill", "train", "x.npz", "-o", "m.zip"],
                                  ["distill", "train", "x.npz", "--from", "ppo-jen", "-o", "m.zip", "--holdout", "1"],
                                  ["distill", "train", "x.npz", "--from", "ppo-jen", "-o", "m.zip", "--lr", "-1"],
                                  ["distill", "train", "x.npz", "--from", "ppo-jen", "-o", "m.zip", "--sharpen", "0.5"],
                                  ["distill", "train", "x.npz", "--from", "ppo-jen", "-o", "m.zip",
                                   "--policy-weight", "-0.5"],
                                  ["distill", "train", "x.npz", "--from", "ppo-jen", "-o", "m.zip", "--width", "0"],
                                  ["distill", "generate", "search:4", "-o", "x.npz", "--seed", "0"],
                                  ["distill", "generate", "search:4", "-o", "x.npz", "--seed", "0", "--games", "1",
                                   "--jobs", "0"]])
def test_bad_options_are_refused_while_parsing(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())


def test_cli_errors_and_the_bare_command_print_no_traceback(tmp_path):
    run = subprocess.run([sys.executable, "-m", "train.cli", "distill", "generate", "heuristic", "--games", "1",
                          "--seed", "0", "-o", str(tmp_path / "x.npz")], capture_output=True, text=True, timeout=120,
                         check=False)
    assert run.returncode == 2 and run.stdout == "" and "Traceback" not in run.stderr
    assert run.stderr.startswith("ten: error: teacher 'heuristic' is neither a fair search agent nor a network")
    assert not (tmp_path / "x.npz").exists()
    # the core of train.distill needs no torch: only training imports it
    code = "import sys, train.distill, train.cli; train.cli.build_parser(); print('torch' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert run.stdout == "False\n", run.stderr


def test_bare_distill_names_its_steps(capsys):
    _one_line_error(capsys, ["distill"], "generate", "train")


# --------------------------------------------------------------------------- the shipped value


def test_ppo_jen_outcome_is_ppo_jen_v1s_policy_with_a_value_of_the_outcome():
    """``ppo-jen-outcome`` (``ten distill train --policy-weight 0 --value-target outcome``) plays
    exactly as ``ppo-jen-v1`` and predicts (result + margin / 20) / 2 better, on games it never saw."""
    data = D.generate("ppo-jen-v1", levels=[8], games=300, seed=900_000, jobs=1)["arrays"]
    target = D.outcome(data["reward"], data["win"])
    assert 0 < data["win"].mean() < 1  # wins and losses both
    old_probs, old_values = PolicyAgent.pretrained("ppo-jen-v1").evaluate(data["observation"], data["mask"])
    new_probs, new_values = PolicyAgent.pretrained("ppo-jen-outcome").evaluate(data["observation"], data["mask"])
    np.testing.assert_array_equal(new_probs, old_probs)
    old_error, new_error = np.mean((old_values - target) ** 2), np.mean((new_values - target) ** 2)
    # 2,000 fresh games at JEN 8: 0.248 against 0.289; 300 games on four other seeds: ratios 0.84-0.90
    assert new_error < 0.95 * old_error, (old_error, new_error)


@functools.lru_cache(maxsize=None)
def _jen8_win_rate(model: str) -> float:
    """A shipped model's win rate on 500 deals at JEN 8 (deck seeds 50,000 on), played once per test process."""
    return play_games([PolicyAgent.pretrained(model)], Rules(jen_level=8), n=500, seed=50_000).win_rates[0]


def _trained_policy_kept_value(model: str, policy_from: str, value_from: str, seed: int) -> tuple[float, float]:
    """Check that ``model`` (trained with ``--value-weight 0``) has ``value_from``'s values bit for bit
    and a policy that moves differently from ``policy_from`` on positions of 20 of ``policy_from``'s
    own JEN 8 games (deck seeds from ``seed``); return both players' win rates on 500 deals at JEN 8
    (deck seeds 50,000 on: the cards' figures are on thousands of fresh deals a level; these are
    the suite's check that the shipped files are still the players those figures describe)."""
    data = D.generate(policy_from, levels=[8], games=20, seed=seed, jobs=1)["arrays"]
    probs, values = PolicyAgent.pretrained(model).evaluate(data["observation"], data["mask"])
    start_probs, _ = PolicyAgent.pretrained(policy_from).evaluate(data["observation"], data["mask"])
    _, start_values = PolicyAgent.pretrained(value_from).evaluate(data["observation"], data["mask"])
    np.testing.assert_array_equal(values, start_values)
    changed = np.mean(probs.argmax(axis=1) != start_probs.argmax(axis=1))
    assert 0.01 < changed < 0.5, changed  # a different player, not a different game
    return _jen8_win_rate(model), _jen8_win_rate(policy_from)


def test_ppo_jen_is_the_search_distilled_over_ppo_jen_outcomes_value():
    """The shipped ``ppo-jen`` is one round of expert iteration: ``ppo-jen-outcome`` (whose
    policy is ``ppo-jen-v1``'s) with its policy trained on the decisions of
    ``search:ppo-jen-outcome:512`` and its value left alone (``--value-weight 0``). So its
    values are ``ppo-jen-outcome``'s bit for bit, its moves are not ``ppo-jen-v1``'s (8.9% of
    them differ), and it wins more of the same deals at JEN 8."""
    distilled, v1 = _trained_policy_kept_value("ppo-jen", "ppo-jen-v1", "ppo-jen-outcome", seed=910_000)
    # These 500 deals: 43.4% against 40.0%. On 5,000 fresh deals a level (ten eval --seed 20000), ppo-jen's
    # card: 45.0% against 38.7% at JEN 8, and ahead at every level from 4 to 10.
    assert distilled > v1, (distilled, v1)


def test_ppo_jen_dagger_is_ppo_jen_trained_on_its_own_positions_with_the_same_value():
    """The shipped ``ppo-jen-dagger`` is ``ppo-jen`` with its policy trained further on the search's
    labels of positions the network itself reached (``ten distill generate --player``), its value left
    alone (``--value-weight 0``): its values are ``ppo-jen``'s bit for bit, some of its moves are not,
    and it wins more of the same deals at JEN 8."""
    dagger, jen = _trained_policy_kept_value("ppo-jen-dagger", "ppo-jen", "ppo-jen", seed=920_000)
    # These 500 deals: 45.2% against 43.4%. On 5,000 fresh deals a level (ten eval --seed 20000), its card:
    # 48.6% against 45.0% at JEN 8, and ahead at every level from 4 to 10.
    assert dagger > jen, (dagger, jen)


def test_ppo_jen_features_is_ppo_jen_given_the_derived_features_and_trained_on_every_round():
    """The shipped ``ppo-jen-features`` is ``ppo-jen`` given the derived features (``ten distill train
    --features``) with its policy trained on the data of every DAgger round (``--value-weight 0``): it
    takes the extended observation, which PolicyAgent builds itself, its values are ``ppo-jen``'s (the
    value network's new inputs have zero weights), and it wins more of the same deals at JEN 8."""
    from ten_env import features as F

    assert PolicyAgent.pretrained("ppo-jen-features").derived_features
    card = json.loads((PolicyAgent.pretrained("ppo-jen-features").path.with_suffix(".json")).read_text())
    assert card["observation_shape"] == [F.EXTENDED_SIZE] and card["started_from"] == "ppo-jen"
    featured, jen = _trained_policy_kept_value("ppo-jen-features", "ppo-jen", "ppo-jen", seed=930_000)
    # These 500 deals: 48.0% against 43.4% (ppo-jen-dagger: 45.2%). On 5,000 fresh deals a level
    # (ten eval --seed 20000), its card: 50.3% at JEN 8, and ahead of ppo-jen-dagger at every level from 4 to 10.
    assert featured > jen, (featured, jen)



def test_ppo_jen_tuned_outcome_is_ppo_jen_tuneds_policy_with_a_value_of_the_outcome():
    """``ppo-jen-tuned-outcome`` (the same recipe over ``ppo-jen-tuned``'s own games) plays exactly as
    ``ppo-jen-tuned`` and predicts the search's score of a finished game better, on games it never saw."""
    data = D.generate("ppo-jen-tuned", levels=[9], games=300, seed=900_000, jobs=1)["arrays"]
    target = D.outcome(data["reward"], data["win"])
    assert 0 < data["win"].mean() < 1
    old_probs, old_values = PolicyAgent.pretrained("ppo-jen-tuned").evaluate(data["observation"], data["mask"])
    new_probs, new_values = PolicyAgent.pretrained("ppo-jen-tuned-outcome").evaluate(data["observation"], data["mask"])
    np.testing.assert_array_equal(new_probs, old_probs)
    old_error, new_error = np.mean((old_values - target) ** 2), np.mean((new_values - target) ** 2)
    assert new_error < 0.95 * old_error, (old_error, new_error)


# --------------------------------------------------------------------------- generate --resume


def _interrupt_generation_after(monkeypatch, chunks_to_play: int) -> list:
    return interrupt_after(monkeypatch, D, "play_teacher_chunk", chunks_to_play)


def test_a_journaled_generation_lets_go_of_the_chunks_once_it_has_them(tmp_path):
    """ten distill generate always keeps a journal, which held every chunk's arrays beside the data
    put together from them: twice the data at the end, for all that the chunks were let go of."""
    from train.journal import Journal
    from train.runner import chunks

    plan = D.plan_generation("ppo-jen", levels=[4, 5], games=3, seed=5000, jobs=1)
    journal = Journal.start(tmp_path, D.generation_identity(plan), chunks(plan["matchups"], 3, 5000, 1),
                            D.chunk_files(tmp_path))
    data = D.play_generation(plan, journal=journal)
    assert len(journal.done) == 6 and not journal.remaining and journal.played == 6  # a chunk a game
    assert all(result is None for result in journal.done.values())  # the arrays are held once, in data
    assert len(data["arrays"]["policy"]) == data["meta"]["decisions"] > 0


def test_an_interrupted_generation_resumes_to_the_same_data(generated, tmp_path, capsys, monkeypatch):
    out = tmp_path / "data.npz"
    argv = ["distill", "generate", TEACHER, "--levels", "6,9", "--games", str(GAMES), "--seed", str(SEED),
            "-o", str(out)]
    with monkeypatch.context() as patch:
        first = _interrupt_generation_after(patch, 1)
        assert main(argv + ["--jobs", "1"]) == 130
    err = capsys.readouterr().err
    assert "kept in" in err and "--resume" in err
    parts = tmp_path / "data.parts"
    assert not out.exists() and (parts / "progress.jsonl").is_file()
    assert len(list(parts.glob("chunk-*.npz"))) == len(first) == 1

    _one_line_error(capsys, argv + ["--jobs", "1"], "holds an unfinished generation", "--resume", "--overwrite")
    _one_line_error(capsys, argv[:-4] + ["--seed", "7", "-o", str(out), "--resume"],
                    "differs in: seed (the journal has 5, given 7)")
    _one_line_error(capsys, argv + ["--resume", "--overwrite"], "--resume goes on with the generation")

    # The rest on two workers: the same arrays, decision for decision, as one unbroken run's.
    assert main(argv + ["--jobs", "2", "--resume"]) == 0
    captured = capsys.readouterr()
    assert f"{first[0].games} of 4 games already played" in captured.out
    data = D.load_data(out)
    assert data["meta"]["wins_per_level"] == generated["meta"]["wins_per_level"]
    for name in D.ARRAYS:
        np.testing.assert_array_equal(data["arrays"][name], generated["arrays"][name], err_msg=name)
    assert [p.name for p in tmp_path.iterdir()] == ["data.npz"]  # the journal and its chunks are gone

    _one_line_error(capsys, argv + ["--resume"], "holds no generation to resume",
                    f"({str(out)!r} is that of a finished one)")


def test_generate_overwrite_starts_an_unfinished_generation_again(tmp_path, capsys, monkeypatch):
    out = tmp_path / "x.npz"
    argv = ["distill", "generate", "search:2", "--levels", "4", "--games", "2", "--seed", "3", "--jobs", "1",
            "-o", str(out)]
    with monkeypatch.context() as patch:
        _interrupt_generation_after(patch, 1)
        assert main(argv) == 130
    (tmp_path / "x.parts" / "mine.txt").write_text("not the generator's")
    capsys.readouterr()
    assert main(argv + ["--overwrite"]) == 0
    capsys.readouterr()
    assert D.load_data(out)["meta"]["games_per_level"] == 2
    # only the generator's own files were removed; the folder stays for the user's file
    assert sorted(p.name for p in (tmp_path / "x.parts").iterdir()) == ["mine.txt"]


def test_a_chunk_file_gone_or_damaged_is_played_again_and_a_failed_save_resumed(generated, tmp_path, capsys,
                                                                                   monkeypatch):
    out = tmp_path / "data.npz"
    argv = ["distill", "generate", TEACHER, "--levels", "6,9", "--games", str(GAMES), "--seed", str(SEED),
            "--jobs", "1", "-o", str(out)]
    with monkeypatch.context() as patch:
        _interrupt_generation_after(patch, 2)
        assert main(argv) == 130
    files = sorted((tmp_path / "data.parts").glob("chunk-*.npz"))
    assert len(files) == 2
    files[0].write_bytes(b"")  # cut short
    files[1].unlink()  # gone
    capsys.readouterr()

    def cannot_save(data, path):
        raise ValueError(f"cannot write {str(path)!r}: No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(D, "save_data", cannot_save)
        assert main(argv + ["--resume"]) == 2
    captured = capsys.readouterr()
    assert "0 of 4 games already played" in captured.out  # both chunks played again
    error = captured.err.splitlines()[-1]  # after the note that these deck seeds are ten eval's
    assert error.startswith("ten: error: ") and "No space left on device" in error
    assert "--resume saves the data" in error and "Traceback" not in captured.err

    # a chunk file copied over another: its line names it, but its contents are the other's, and
    # its digest says so: that chunk is played again (the data held another chunk's games twice)
    entries = [json.loads(line) for line in (tmp_path / "data.parts" / "progress.jsonl").read_text().splitlines()[1:]]
    files = sorted((tmp_path / "data.parts").glob("chunk-*.npz"))
    files[0].write_bytes(files[1].read_bytes())
    replaced = next(entry["chunk"][2] for entry in entries if entry["file"] == files[0].name)

    with monkeypatch.context() as patch:
        played = _interrupt_generation_after(patch, 100)
        assert main(argv + ["--resume"]) == 0
    assert len(played) == 1 and f"{4 - replaced} of 4 games already played" in capsys.readouterr().out
    data = D.load_data(out)
    for name in D.ARRAYS:
        np.testing.assert_array_equal(data["arrays"][name], generated["arrays"][name], err_msg=name)
    assert [p.name for p in tmp_path.iterdir()] == ["data.npz"]


def test_a_player_of_your_own_may_be_a_policy_function(tmp_path, monkeypatch):
    """The scribe called the player's act(): a policy function named as --player raised AttributeError.
    Played as a function or as an object with act, the same player gives the same data."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "lowest_bot.py").write_text(
        "import numpy as np\n\n\ndef lowest(observation, info):\n"
        "    return int(np.flatnonzero(observation['action_mask'])[0])\n\n\n"
        "class Lowest:\n    def act(self, observation, info):\n        return lowest(observation, info)\n")
    made = [D.generate("ppo-jen", levels=[4], games=2, seed=5000, player=f"lowest_bot.py:{name}", jobs=1)
            for name in ("lowest", "Lowest")]
    assert len(made[0]["arrays"]["policy"]) > 20
    assert all(np.array_equal(made[0]["arrays"][key], made[1]["arrays"][key]) for key in D.ARRAYS)
