"""The scripts in ``examples/`` run as a user runs them (``python examples/NAME.py``) and
print real results; the files people look for (LICENSE, CHANGELOG, CITATION.cff,
py.typed) exist and agree with the package."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

import ten_env

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SCRIPTS = ["aec_loop.py", "engine.py", "train_sb3.py", "mixed_table.py"]
PUBLIC_PACKAGES = {"ten_env", "agents"}


def run_example(name: str, *args: str, timeout: float = 120) -> str:
    """Run ``examples/NAME`` with this interpreter from the repository root; its stdout."""
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, f"{name} {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def line(out: str, key: str) -> str:
    """The text after ``key: `` on the one line that starts with it."""
    found = re.findall(rf"^{re.escape(key)}: (.*)$", out, re.M)
    assert len(found) == 1, f"expected one {key!r} line in:\n{out[-2000:]}"
    return found[0]


def int_list(text: str) -> list[int]:
    assert re.fullmatch(r"\d+( \d+)*", text), text
    return [int(s) for s in text.split()]


# --------------------------------------------------------------------------- the scripts


@pytest.mark.parametrize("name", SCRIPTS)
def test_example_has_docstring_seed_and_uses_only_public_api(name):
    tree = ast.parse((EXAMPLES / name).read_text())
    doc = ast.get_docstring(tree)
    assert doc and f"python examples/{name}" in doc, "the docstring says how to run it"
    assert '"--seed"' in (EXAMPLES / name).read_text()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            top = module.split(".")[0]
            if top in PUBLIC_PACKAGES | {"train"}:
                assert module in PUBLIC_PACKAGES, f"{name} imports {module}: only ten_env and agents are public"


def test_aec_loop_plays_a_three_player_game_to_the_end():
    out = run_example("aec_loop.py", "--seed", "3")
    scores = int_list(line(out, "scores"))
    winners = line(out, "winners").split()
    assert len(scores) == 3 and all(0 <= s <= 40 for s in scores)
    assert winners and set(winners) <= {"player_0", "player_1", "player_2"}
    assert all(scores[int(w.removeprefix("player_"))] == max(scores) for w in winners)
    assert int(line(out, "decisions")) > 20
    # the ansi render of the finished table, with the same scores
    assert "deck 0" in out and "phase over" in out
    assert f"game over: scores [{', '.join(map(str, scores))}]" in out
    assert run_example("aec_loop.py", "--seed", "3") == out, "the same seed plays the same game"


def test_aec_loop_takes_the_player_count():
    out = run_example("aec_loop.py", "--seed", "1", "--players", "5")
    assert len(int_list(line(out, "scores"))) == 5
    assert "player 4: coins" in out


@pytest.mark.parametrize("name, args, message", [
    ("aec_loop.py", ["--players", "7"],
     "aec_loop.py: error: argument --players: invalid choice: 7 (choose from 2, 3, 4, 5)"),
    ("engine.py", ["--players", "1"], "engine.py: error: argument --players: invalid choice: 1"),
    ("train_sb3.py", ["--level", "11"], "train_sb3.py: error: argument --level: invalid choice: 11 (choose from 4, 5"),
])
def test_an_example_given_a_count_or_level_out_of_range_says_so_in_one_line(name, args, message):
    """They printed the engine's traceback."""
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(message)


@pytest.mark.parametrize("name", ["train_sb3.py", "mixed_table.py"])
def test_an_example_without_the_training_extra_says_what_to_install_in_one_line(name, tmp_path):
    """torch made missing, as after ``pip install -e .`` alone: a bare ModuleNotFoundError, and
    the model's own message inside a traceback, before."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n")
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"{name}") and re.search(r"pip install (-e '\.|'ten-env)\[train\]'", done.stderr)
    if name == "mixed_table.py":
        assert "--no-model" in done.stderr


def test_engine_plays_a_game_and_its_clone():
    out = run_example("engine.py", "--seed", "7")
    assert "score(['B1', 'B2', 'W3', 'G#', 'G7']) = 5" in out
    assert "seat 0 to act: ['draw'" in out
    scores = int_list(line(out, "scores"))
    winners = int_list(line(out, "winners"))
    assert len(scores) == 3 and set(winners) <= {0, 1, 2}
    assert all(scores[w] == max(scores) for w in winners)
    assert int(line(out, "moves")) > 20
    assert line(out, "same as the clone") == "True"
    for seat, score in enumerate(scores):
        assert re.search(rf"^seat {seat}: \d+ cards, score {score}$", out, re.M)


def test_train_sb3_trains_evaluates_and_saves(tmp_path):
    out = run_example("train_sb3.py", "--steps", "512", "--games", "3", "--level", "5", "--seed", "1",
                      "--out", str(tmp_path / "models" / "solo"))
    trained = re.search(r"^trained (\d+) steps against JEN 5 in [\d.]+ s$", out, re.M)
    assert trained and int(trained[1]) >= 512, out
    result = re.search(r"^win rate against JEN 5: (\d\.\d{3}) \((\d+)/3 games, mean margin ([+-]\d+\.\d\d)\)$",
                       out, re.M)
    assert result, out
    assert 0.0 <= float(result[1]) <= 1.0 and float(result[1]) == pytest.approx(int(result[2]) / 3, abs=1e-3)
    model_path = tmp_path / "models" / "solo.zip"  # .zip is added to a name without it
    assert re.findall(r"^model saved to (.*)$", out, re.M) == [str(model_path)]
    assert model_path.is_file() and model_path.stat().st_size > 10_000

    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(model_path, device="cpu")
    env = ten_env.SoloEnv(jen_level=5)
    assert model.observation_space.shape == env.observation_space.shape
    assert model.action_space.n == env.action_space.n
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_mixed_table_seats_the_trained_model_at_four_players():
    out = run_example("mixed_table.py", "--seed", "3", "--games", "2")
    labels = {"heuristic", "jen:5", "random", "ppo-jen"}
    seats = line(out, "seats").split()
    assert sorted(seats) == sorted(labels)
    scores = int_list(line(out, "scores"))
    winners = line(out, "winners").split()
    assert len(scores) == 4 and winners and set(winners) <= labels
    assert all(scores[seats.index(w)] == max(scores) for w in winners)
    games = re.findall(r"^game (\d) \(seed (\d+)\): (.*); winner\(s\): (.*)$", out, re.M)
    assert [(g[0], g[1]) for g in games] == [("1", "3"), ("2", "4")]
    # seats rotate: the first game's player_0 is the second game's player_3
    first_seats = [part.rsplit(" ", 1)[0] for part in games[0][2].split(", ")]
    second_seats = [part.rsplit(" ", 1)[0] for part in games[1][2].split(", ")]
    assert second_seats == first_seats[1:] + first_seats[:1] and second_seats == seats
    wins = dict(part.rsplit(" ", 1) for part in line(out, "wins (a shared win counts for each winner)").split(", "))
    won = [w for game in games for w in game[3].split(", ")]  # each game's winners, as printed
    assert wins == {label: str(won.count(label)) for label in labels} and len(won) >= 2


def test_mixed_table_without_the_model():
    out = run_example("mixed_table.py", "--seed", "0", "--no-model")
    assert sorted(line(out, "seats").split()) == ["heuristic", "heuristic-2", "jen:5", "random"]
    assert len(int_list(line(out, "scores"))) == 4


# --------------------------------------------------------------------------- project files


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_citation_cff_is_valid_cff_1_2_0():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    for key in ("cff-version", "message", "title", "authors"):  # required by CFF 1.2.0
        assert citation.get(key), key
    assert citation["cff-version"] == "1.2.0"
    assert citation["authors"] == [{"name": "the ten-env authors"}]
    assert citation["version"] == ten_env.__version__ == _pyproject()["project"]["version"] == "0.1.0"
    assert citation["license"] == _pyproject()["project"]["license"] == "MIT"  # an SPDX expression in both
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", str(citation["date-released"]))
    assert citation["date-released"] == "2026-11-26"
    assert citation["type"] == "software"


def test_license_and_changelog():
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License") and "Copyright (c) 2026 the ten-env authors" in license_text
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "Keep a Changelog" in changelog
    headings = re.findall(r"^## \[(.+?)\](?: - (\d{4}-\d\d-\d\d))?$", changelog, re.M)
    assert headings[0] == ("Unreleased", "")
    assert (ten_env.__version__, "2026-11-26") in headings


@pytest.mark.parametrize("package", ["ten_env", "agents"])
def test_py_typed_ships_as_package_data(package):
    assert (ROOT / package / "py.typed").is_file()
    assert "py.typed" in _pyproject()["tool"]["setuptools"]["package-data"][package]
