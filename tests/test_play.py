"""``ten play`` driven through standard input, as a person (or a program) would."""

from __future__ import annotations

import io
import subprocess
import sys

from agents import JenAgent, OracleAgent, SearchAgent
from ten_env import Rules
from train.play import play


def test_play_solitaire_to_the_end_through_stdin():
    answers = "help\nnonsense\n99\n" + "1\n" * 3000
    out = io.StringIO()
    status = play(Rules(jen_level=5), [], seed=4, stdin=io.StringIO(answers), stdout=out)
    text = out.getvalue()
    assert status == 0
    assert "final scores" in text and ("you beat JEN!" in text or "JEN wins." in text)
    assert "'nonsense' is not one of your moves" in text and "'99' is not one of your moves" in text
    assert "Answer with the number" in text  # the help


def test_play_against_agents_by_action_names():
    answers = "draw\n" * 5 + "stop_numbers\n" + "pass\n" * 5 + "1\n" * 3000
    out = io.StringIO()
    status = play(Rules(num_players=3), [JenAgent(5), JenAgent(8)], seed=1, stdin=io.StringIO(answers), stdout=out)
    assert status == 0 and "final scores" in out.getvalue()


def test_play_against_searching_agents_and_the_oracle():
    """The oracle sees the game it plays in ten play too (it cheats on purpose)."""
    out = io.StringIO()
    status = play(Rules(num_players=3), [OracleAgent(budget=2, seed=0), SearchAgent(budget=2, seed=1)], seed=3,
                  stdin=io.StringIO("1\n" * 3000), stdout=out)
    assert status == 0 and "final scores" in out.getvalue()


def test_play_stops_cleanly_when_input_ends():
    out = io.StringIO()
    assert play(Rules(jen_level=4), [], seed=0, stdin=io.StringIO("1\n"), stdout=out) == 1
    assert "no more input" in out.getvalue()


def test_ten_play_command_through_a_pipe():
    run = subprocess.run(
        [sys.executable, "-m", "train.cli", "play", "--level", "6", "--seed", "2"],
        input="1\n" * 3000, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "final scores" in run.stdout and "Traceback" not in run.stderr


def test_ten_play_bad_options_give_one_line_errors():
    run = subprocess.run(
        [sys.executable, "-m", "train.cli", "play", "--opponents", "heuristic,alphago"],
        input="", capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2
    assert run.stderr.strip().startswith("ten: error: unknown agent 'alphago'")
    assert "Traceback" not in run.stderr


def test_quitting_is_a_normal_exit():
    out = io.StringIO()
    assert play(Rules(jen_level=4), [], seed=0, stdin=io.StringIO("1\nquit\n"), stdout=out) == 0
    assert "you left the game" in out.getvalue() and "final scores" not in out.getvalue()
    run = subprocess.run(
        [sys.executable, "-m", "train.cli", "play", "--opponents", "heuristic", "--seed", "3"],
        input="help\nquit\n", capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "you left the game" in run.stdout and run.stderr == ""
