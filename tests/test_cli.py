"""The ``ten`` command: ``ten demo`` plays and prints a whole game; input mistakes are
reported on one line, without a traceback, with exit status 2."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from train.cli import main

FINAL_LINE = re.compile(r"^game over: scores \[([\d, ]+)\]  winner\(s\): (player \d+(, player \d+)*)$", re.M)


def _final(out: str) -> tuple[list[int], list[int]]:
    """Scores and winning seats from the demo's "game over" line."""
    found = FINAL_LINE.findall(out)
    assert len(found) == 1, out[-2000:]
    scores = [int(s) for s in found[0][0].split(",")]
    winners = [int(w) for w in re.findall(r"player (\d+)", found[0][1])]
    return scores, winners


@pytest.mark.parametrize("players", [2, 5])
def test_demo_plays_a_whole_game(capsys, players):
    assert main(["demo", "--players", str(players), "--seed", "3"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    scores, winners = _final(captured.out)
    assert len(scores) == players
    assert all(0 <= s <= 40 for s in scores)
    assert winners and set(winners) <= set(range(players))
    assert all(scores[w] == max(scores) for w in winners)
    # every seat's line is printed, the deck is used up
    for seat in range(players):
        assert f"player {seat}: coins" in captured.out
    assert f"player {players}: coins" not in captured.out
    assert "deck 0" in captured.out
    assert "phase over" in captured.out


def test_demo_solitaire_game_against_jen(capsys):
    assert main(["demo", "--players", "2", "--jen", "7", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "solitaire vs JEN level 7" in captured.out
    assert "player 1 (JEN)" in captured.out
    scores, winners = _final(captured.out)
    assert len(scores) == 2
    assert winners == ([0] if scores[0] > scores[1] else [1])  # ties go to JEN


def test_demo_busting_variant(capsys):
    assert main(["demo", "--players", "3", "--bust-buy", "--seed", "2"]) == 0
    scores, _ = _final(capsys.readouterr().out)
    assert len(scores) == 3


def test_demo_is_reproducible(capsys):
    main(["demo", "--players", "4", "--seed", "8"])
    first = capsys.readouterr().out
    main(["demo", "--players", "4", "--seed", "8"])
    assert capsys.readouterr().out == first


def test_bad_combination_is_a_one_line_error(capsys):
    assert main(["demo", "--jen", "7", "--players", "3"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("ten: error: ")
    assert "num_players" in lines[0] or "--players" in lines[0]
    assert "Traceback" not in captured.err


@pytest.mark.parametrize("argv", [["demo", "--players", "6"], ["demo", "--jen", "3"], ["nonsense"], []])
def test_argument_errors_exit_with_status_2(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert "error" in captured.err and "Traceback" not in captured.err


def test_installed_console_script():
    ten = shutil.which("ten")
    assert ten is not None, "the `ten` console script is not installed (pip install -e .)"
    result = subprocess.run(
        [ten, "demo", "--players", "2", "--seed", "5"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    scores, _ = _final(result.stdout)
    assert len(scores) == 2
    bad = subprocess.run([ten, "demo", "--jen", "7", "--players", "3"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.startswith("ten: error: ") and "Traceback" not in bad.stderr
