"""``ten play`` driven through standard input, as a person (or a program) would; ``ten demo``."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest

from agents import JenAgent, OracleAgent, SearchAgent
from ten_env import Rules
from ten_env.record import load_record
from train.cli import main
from train.play import play


def test_play_solitaire_to_the_end_through_stdin():
    answers = "help\nnonsense\n99\n" + "1\n" * 3000
    out = io.StringIO()
    status = play(Rules(jen_level=5), [], seed=4, stdin=io.StringIO(answers), stdout=out)
    text = out.getvalue()
    assert status == 0
    # always drawing ("1") scores little: the verdict follows the scores printed
    scores = [int(s) for s in re.search(r"final scores \[(\d+), (\d+)\]", text).groups()]
    assert scores[0] < scores[1] and "JEN wins." in text and "you beat JEN!" not in text
    assert "'nonsense' is not one of your moves" in text and "'99' is not one of your moves" in text
    assert "Answer with the number" in text  # the help
    # the last table: nobody is drawing once the game is over
    assert re.findall(r"^tableau: .*$", text, re.M)[-1].endswith("(game over)")


def test_play_against_agents_by_action_names():
    # by name, the person stops after two draws; answered by number ("1", draw) the turn would go on
    answers = "draw\n" * 2 + "stop_numbers\n" + "1\n" * 3000
    out = io.StringIO()
    status = play(Rules(num_players=3), [JenAgent(5), JenAgent(8)], seed=1, stdin=io.StringIO(answers), stdout=out)
    text = out.getvalue()
    assert status == 0 and "final scores" in text and "is not one of your moves" not in text
    assert "you draw G2" in text and "you draw B4" in text and "you stop and take the numbers: B4, G2, O2" in text


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


def test_the_terminal_game_tells_what_happens():
    """Cards drawn with running totals, busts with their reason, coins gained and why, seats named
    after their agents, and buys offered with their prices."""
    answers = "2\n1\n" * 1500  # stop when that is a choice, else the first move (draw or pass)
    out = io.StringIO()
    assert play(Rules(num_players=3), [JenAgent(5), JenAgent(8)], seed=2, stdin=io.StringIO(answers),
                stdout=out) == 0
    text = out.getvalue()
    assert re.search(r"^  you draw [BGOP]\d: net total \d+, currency total \d+$", text, re.M)
    assert re.search(r"^  jen:8 draws [BGOP$]\d: net total -?\d+, currency total \d+$", text, re.M)
    assert re.search(r"^  \S+ busts?: the (net|currency) total \d+ is above 10$", text, re.M)
    assert re.search(r"^  \S+ gains? \d+ coins? \((took the currency|the currency in the tableau when)", text, re.M)
    assert re.search(r"\[\d+\] buy_[BGOP](\d) \(\1\)", text)  # a buy and its price
    assert "jen:5 (seat 1): coins" in text and "you (seat 0): coins" in text
    assert "last: " not in text  # the events replace the list of action names
    assert re.search(r"^  game over\. Final scores: you \d+, jen:5 \d+, jen:8 \d+", text, re.M)


def test_ten_play_saves_the_record(tmp_path):
    out = io.StringIO()
    path = tmp_path / "game.json"
    assert play(Rules(jen_level=5), [], seed=1, stdin=io.StringIO("1\n" * 3000), stdout=out, save=path) == 0
    record = load_record(path)
    assert [p["name"] for p in record["players"]] == ["you", "JEN"] and record["result"]
    assert f"saved {path}" in out.getvalue()
    left = tmp_path / "left.json"
    assert play(Rules(jen_level=5), [], seed=1, stdin=io.StringIO("1\nquit\n"), stdout=out, save=left) == 0
    assert load_record(left)["result"] is None  # a game left early is saved as far as it went


def test_ten_demo_shows_the_game_turn_by_turn(capsys, monkeypatch):
    pauses = []
    monkeypatch.setattr("time.sleep", pauses.append)
    assert main(["demo", "--players", "3", "--seed", "5", "--delay", "0.25"]) == 0
    text = capsys.readouterr().out
    turns = re.findall(r"^TEN  turn (\d+)", text, re.M)
    assert len(turns) > 10 and [int(t) for t in turns] == sorted(int(t) for t in turns)
    assert len(pauses) == len(turns) - 1 and set(pauses) == {0.25}  # after every turn, not after the end
    assert re.search(r"^  random \(seat \d\) draws", text, re.M) and "game over" in text


def test_a_number_the_prompt_cannot_read_is_asked_again():
    # "²" is a digit to str.isdigit() and int() refuses 5,000 digits: both are mistakes to re-prompt, not errors
    for typed in ("²", "9" * 5000, "١"):
        out = io.StringIO()
        assert play(Rules(jen_level=7), [], seed=1, stdin=io.StringIO(f"{typed}\nquit\n"), stdout=out) == 0
        text = out.getvalue()
        assert "is not one of your moves now; type a number from 1 to" in text and "you left the game" in text


def test_input_the_prompt_cannot_read_is_asked_again_or_ends_the_game(monkeypatch):
    # bytes that are not UTF-8 under a strict UTF-8 terminal: a move that is not one, not an error
    run = subprocess.run([sys.executable, "-m", "train.cli", "play", "--level", "6", "--seed", "1"],
                         input=b"\xff\xfe\nquit\n", capture_output=True, timeout=120,
                         env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert run.returncode == 0, run.stderr
    assert "is not one of your moves now" in run.stdout.decode() and "you left the game" in run.stdout.decode()
    # a very long line is not echoed whole
    out = io.StringIO()
    assert play(Rules(jen_level=6), [], seed=1, stdin=io.StringIO("x" * 5000 + "\nquit\n"), stdout=out) == 0
    assert "'" + "x" * 37 + "...' is not one of your moves now" in out.getvalue() and "x" * 41 not in out.getvalue()
    # a closed standard input (sys.stdin is None) is input that has ended
    monkeypatch.setattr(sys, "stdin", None)
    out = io.StringIO()
    assert play(Rules(jen_level=6), [], seed=1, stdout=out) == 1 and "no more input" in out.getvalue()


def test_a_save_path_that_cannot_be_written_is_refused_before_the_game(tmp_path, capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("tempfile.TemporaryFile", refuse)  # a folder this user cannot write in
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 3000))
    assert main(["play", "--level", "5", "--seed", "1", "--save", str(tmp_path / "game.json")]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"ten: error: cannot write {str(tmp_path / 'game.json')!r}: Permission denied\n"
    assert captured.out == "" and list(tmp_path.iterdir()) == []


def test_save_never_replaces_a_file_unless_told_to(tmp_path, capsys, monkeypatch):
    kept = tmp_path / "notes.json"
    kept.write_text("mine")
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--level", "5", "--save", str(kept)]) == 2
    assert capsys.readouterr().err == (f"ten: error: {str(kept)!r} already exists: use --overwrite to replace it, "
                                       f"or another --save\n")
    assert kept.read_text() == "mine"
    assert main(["play", "--level", "5", "--overwrite"]) == 2
    assert capsys.readouterr().err == "ten: error: --overwrite lets --save replace a file: give --save too\n"
    assert main(["play", "--level", "5", "--save", str(kept), "--overwrite"]) == 0
    assert capsys.readouterr().out.startswith("answer each move with its number or name; 'help' explains the moves, "
                                              "'quit' leaves\n")
    assert load_record(kept)["rules"]["jen_level"] == 5


def test_demo_delay_is_bounded():
    for delay in ("1e300", "3601", "-1", "inf", "nan"):
        run = subprocess.run([sys.executable, "-m", "train.cli", "demo", "--delay", delay],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 2 and run.stdout == ""
        assert run.stderr.splitlines()[-1] == (f"ten demo: error: argument --delay: must be a number of seconds "
                                               f"from 0 to 3600, got {delay!r}"), run.stderr


def test_the_table_says_who_draws_only_while_someone_does():
    from stacked import new_game, play as play_moves

    from ten_env.render import render_table

    def whose(game):
        return re.search(r"^tableau: .*?   \((.*)\)$", render_table(game, names=["ann", "bob"]), re.M).group(1)

    game = new_game(["O1", "$1", "G1", "G2", "G3", "B1", "B2", "B5"], payment="manual")
    assert whose(game) == "ann (seat 0) drawing"
    play_moves(game, "draw", "stop_currency", "draw", "draw", "stop_numbers", "pass", "draw", "draw", "pass")
    assert game.phase == "final_buy" and whose(game) == "final buys"  # the deck is out
    play_moves(game, "pass", "buy_O1")
    assert game.phase == "pay" and whose(game) == "final buys"  # paying for a final buy
    play_moves(game, "pay_B5")
    assert game.is_over and whose(game) == "game over"


def test_ctrl_c_at_the_prompt_leaves_the_saved_line_on_its_own(tmp_path):
    class Interrupted(io.StringIO):
        def readline(self, *args):
            raise KeyboardInterrupt

    out, save = io.StringIO(), tmp_path / "game.json"
    with pytest.raises(KeyboardInterrupt):
        play(Rules(jen_level=6), [], seed=1, stdin=Interrupted(), stdout=out, save=save)
    assert f"> \nsaved {save}\n" in out.getvalue() and load_record(save)["steps"] is not None
