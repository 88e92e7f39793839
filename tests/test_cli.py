"""The ``ten`` command: ``ten demo`` plays and prints a whole game; input mistakes are
reported on one line, without a traceback, with exit status 2."""

from __future__ import annotations

import importlib.metadata
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ten_env
from train import evaluate as E
from train import league as L
from train.cli import main

ROOT = Path(__file__).resolve().parent.parent

FINAL_LINE = re.compile(r"^game over: scores \[([\d, ]+)\]  winner\(s\): (\w+ \(seat \d+\)(, \w+ \(seat \d+\))*)$",
                        re.M)


def _final(out: str) -> tuple[list[int], list[int]]:
    """Scores and winning seats from the demo's "game over" line."""
    found = FINAL_LINE.findall(out)
    assert len(found) == 1, out[-2000:]
    scores = [int(s) for s in found[0][0].split(",")]
    winners = [int(w) for w in re.findall(r"\(seat (\d+)\)", found[0][1])]
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
        assert f"random (seat {seat}): coins" in captured.out
    assert f"(seat {players}): coins" not in captured.out
    assert "deck 0" in captured.out
    assert "phase over" in captured.out
    turns = [line for line in captured.out.splitlines() if re.match(r"\s*turn \d+: ", line)]
    assert re.fullmatch(r"  turn 1: random \(seat \d\) draws", turns[0])  # indented as every later turn
    assert all(line.startswith("  turn ") for line in turns)


def test_demo_solitaire_game_against_jen(capsys):
    assert main(["demo", "--players", "2", "--jen", "7", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "solitaire vs JEN level 7" in captured.out
    assert "JEN (seat 1)" in captured.out
    scores, winners = _final(captured.out)
    assert len(scores) == 2
    assert winners == ([0] if scores[0] > scores[1] else [1])  # ties go to JEN


def test_demo_busting_variant(capsys):
    """With --bust-buy a bust offers the market (seed 2: seat 2 busts and buys P2); without it the
    same deal gives the token."""
    assert main(["demo", "--players", "3", "--bust-buy", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert len(_final(out)[0]) == 3
    assert "random (seat 2) may buy a card from the market instead of taking a bust token" in out
    assert "random (seat 2) buys P2 from the market for 2" in out
    assert main(["demo", "--players", "3", "--seed", "2"]) == 0
    plain = capsys.readouterr().out
    assert "instead of taking a bust token" not in plain and "random (seat 2) takes a bust token (now 1)" in plain


def test_demo_is_reproducible(capsys):
    main(["demo", "--players", "4", "--seed", "8"])
    first = capsys.readouterr().out
    main(["demo", "--players", "4", "--seed", "8"])
    assert capsys.readouterr().out == first


@pytest.mark.parametrize("argv, message", [
    (["eval", "heuristic", "--levels", "4", "--games", "1", "--deck-file", ""],
     "the deck file's name is empty: give a JSON deck file, or leave it out for the bundled deck"),
    (["train", ""], "the config file's name is empty: give a YAML file such as configs/quick.yaml"),
    (["compare", "", "x"], "a report's name is empty: give ten eval's report.json, or the --out folder that holds it"),
])
def test_an_empty_file_name_is_said_to_be_empty(capsys, tmp_path, monkeypatch, argv, message):
    """Path("") is the current folder: 'cannot be read: Is a directory', "config file '.' is a folder"."""
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert capsys.readouterr().err == f"ten: error: {message}\n" and not any(tmp_path.iterdir())


def test_bad_combination_is_a_one_line_error(capsys):
    assert main(["demo", "--jen", "7", "--players", "3"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0] == ("ten: error: --jen 7 is the solitaire game (a random player and JEN): "
                        "it needs --players 2, got --players 3")


@pytest.mark.parametrize("argv", [["demo", "--players", "6"], ["demo", "--jen", "3"], ["nonsense"],
                                  ["eval", "heuristic", "--opponents", "jen:7", "--players", "7"],
                                  ["bench", "--seconds", "inf"], ["bench", "--seconds", "3601"],
                                  ["play", "--level", "11"], ["train", "x.yaml", "--verbose", "x"]])
def test_argument_errors_exit_with_status_2_in_one_line(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    captured = capsys.readouterr()
    prog = "ten" if argv == ["nonsense"] else f"ten {argv[0]}"
    assert captured.out == "" and re.fullmatch(rf"{prog}: error: argument [^\n]+\n", captured.err), captured.err


@pytest.mark.parametrize("argv, message", [
    # counts that listed their chunks before any game, eating memory without a word; a width and a
    # seed that ended in torch's traceback
    (["eval", "random", "--games", "10000001"], "ten eval: error: argument --games: must be a whole number from 1 "
                                                "to 10,000,000, got 10000001"),
    (["league", "random", "heuristic", "--games", str(10**30)], "ten league: error: argument --games: must be a "
                                                                f"whole number from 1 to 10,000,000, got {10**30}"),
    (["distill", "generate", "ppo-jen", "--games", "10000001", "--seed", "1000", "-o", "x.npz"],
     "ten distill generate: error: argument --games: must be a whole number from 1 to 10,000,000, got 10000001"),
    (["distill", "train", "--from", "ppo-jen", "x.npz", "--width", "4097", "-o", "m.zip"],
     "ten distill train: error: argument --width: must be a whole number from 1 to 4,096, got 4097"),
    (["distill", "train", "--from", "ppo-jen", "x.npz", "--seed", str(2**63), "-o", "m.zip"],
     f"ten distill train: error: argument --seed: must be a whole number from 0 to 9,223,372,036,854,775,807, "
     f"got {2**63}"),
])
def test_counts_too_large_to_run_are_refused_by_their_flag(capsys, argv, message):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2 and capsys.readouterr().err == message + "\n"


@pytest.mark.parametrize("argv, message", [
    (["eval", "heuristic", "--bogus"], "ten eval: error: unrecognized arguments: --bogus"),
    (["demo", "--players", "3", "extra"], "ten demo: error: unrecognized arguments: extra"),
    (["distill", "generate", "search", "--games", "1", "--seed", "0", "-o", "x", "--bogus"],
     "ten distill generate: error: unrecognized arguments: --bogus"),
    (["--bogus"], "ten: error: unrecognized arguments: --bogus"),
])
def test_an_unknown_argument_is_named_by_its_own_command(capsys, argv, message):
    """The command that was given reports what it does not know, not the top parser."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert capsys.readouterr().err == message + "\n"


def test_every_entry_point_says_a_usage_error_in_one_line():
    for module, args in (("train.cli", ["eval"]), ("train.evaluate", ["heuristic", "--games", "x"]),
                         ("train.league", ["heuristic", "random", "--games", "x"]), ("train", [])):
        run = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=120)
        assert run.returncode == 2 and run.stdout == "", (module, run.stdout)
        assert len(run.stderr.splitlines()) == 1 and ": error: " in run.stderr, (module, run.stderr)


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


def test_ten_runs_torch_on_one_thread_unless_told_otherwise(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    main([])
    assert os.environ["OMP_NUM_THREADS"] == "1"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    main([])
    assert os.environ["OMP_NUM_THREADS"] == "3"


def test_plain_ten_prints_the_help_and_exits_0(capsys):
    assert main([]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.startswith("usage: ten ")
    for command in ("play", "demo", "record", "view", "train", "eval", "bench"):
        assert re.search(rf"^\s+{command}\s+\S", captured.out, re.M), command
    run = subprocess.run([sys.executable, "-m", "train.cli"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout == captured.out and run.stderr == ""


def test_every_command_describes_itself_in_its_help():
    import argparse

    from train.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert not [name for name, parser in sub.choices.items() if not parser.description]  # ten demo and ten bench had none


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"ten-env {importlib.metadata.version('ten-env')}\n"
    assert importlib.metadata.version("ten-env") == ten_env.__version__


def test_demo_against_jen_needs_no_players_option(capsys):
    assert main(["demo", "--jen", "6", "--seed", "4"]) == 0
    scores, _ = _final(capsys.readouterr().out)
    assert len(scores) == 2
    assert main(["demo", "--jen", "6", "--players", "4"]) == 2
    assert capsys.readouterr().err == ("ten: error: --jen 6 is the solitaire game (a random player and JEN): "
                                       "it needs --players 2, got --players 4\n")


@pytest.mark.parametrize("opponents, message", [
    ("a,b,c,d,e", "ten: error: --opponents: give 1-4 agents (a table has 2-5 players: you and 1-4 "
                  "opponents), got 5"),
    ("heuristic,,jen:5", "ten: error: opponents 'heuristic,,jen:5': give comma-separated agents"),
    ("", "ten: error: opponents '': give comma-separated agents"),
])
def test_play_bad_opponents_are_one_line_errors(capsys, opponents, message):
    assert main(["play", "--opponents", opponents]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(message)


def test_play_trust_model_reaches_make_agent(monkeypatch, capsys):
    from agents.registry import make_agent
    from train import runner

    calls = []

    def record(spec, seed=None, **kwargs):
        calls.append((spec, seed, kwargs))
        return make_agent(spec, seed=seed)

    monkeypatch.setattr(runner, "make_agent", record)
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--opponents", "heuristic,jen:5", "--trust-model", "--seed", "1"]) == 0
    assert calls == [("heuristic", 0, {"trust": True}), ("jen:5", 1, {"trust": True})]
    calls.clear()
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--opponents", "heuristic", "--seed", "1"]) == 0
    assert calls == [("heuristic", 0, {})]  # no trust keyword unless asked for
    play_help = subprocess.run([sys.executable, "-m", "train.cli", "play", "--help"],
                               capture_output=True, text=True, timeout=60).stdout
    assert "--trust-model" in play_help
    assert ("load model files that can only be loaded by unpickling (this runs code from the file: "
            "only for files you trust)") in " ".join(play_help.split())


def test_bench_table_has_no_library_warnings_even_at_the_shortest_time():
    """A billionth of a second a row still plays a game of each (it divided by zero)."""
    ten = shutil.which("ten")
    run = subprocess.run([ten, "bench", "--seconds", "1e-9"], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONWARNINGS": "always"})
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    lines = run.stdout.splitlines()
    rows = {line[2:28].strip(): line[28:] for line in lines if line.startswith("  ")}
    # the peers measured, not "not installed": the warnings this test is about come from their libraries
    assert list(rows) == ["TEN, 2 players", "TEN, 5 players", "RLCard leduc core", "ten_v0, 2 players",
                          "ten_v0, 5 players", "ten_v0, solitaire", "leduc_holdem_v4", "texas_holdem_no_limit_v6",
                          "DerivedFeatures(SoloEnv)", "SoloEnv"], run.stdout
    peers = {"TEN, 2 players": "RLCard leduc core", "TEN, 5 players": "RLCard leduc core",
             "ten_v0, 2 players": "leduc_holdem_v4", "ten_v0, 5 players": "leduc_holdem_v4",
             "ten_v0, solitaire": "leduc_holdem_v4", "texas_holdem_no_limit_v6": "leduc_holdem_v4",
             "DerivedFeatures(SoloEnv)": "SoloEnv"}
    for label, figures in rows.items():
        pattern = r" +[\d,]+ decisions/s +[\d,.]+ games/s" + (
            rf"  +\d+\.\d\dx {re.escape(peers[label])} \(turns \d+\.\d\d-\d+\.\d\d\)" if label in peers else "")
        assert re.fullmatch(pattern, figures), (label, figures)
        assert float(figures.split()[0].replace(",", "")) > 0
    assert all(line.startswith(("each row measured for 1e-09 s, in turns of up to 0.5 s", "engine:", "environment:", "derived features:", "  "))
               for line in lines), run.stdout


def test_bench_times_its_rows_in_turns_each_reversed(monkeypatch):
    """Each turn gives every row one slice, the order reversed from turn to turn, after one
    untimed game each; the ratio is over all turns, the range that of the single turns."""
    from train import bench

    calls, clock = [], [0.0]
    monkeypatch.setattr(bench, "clock", lambda: clock[0])

    def player(label, seconds_a_game, decisions):
        def play():
            calls.append(label)
            clock[0] += seconds_a_game
            return decisions
        return play

    # times that add up exactly in binary, so that each slice ends on its game
    rows = [bench.Row("a", player("a", 0.125, 10)), bench.Row("b", player("b", 0.5, 3)),
            bench.Row("peer", player("peer", 0.25, 4))]
    bench.measure(rows, seconds=2, turn=1)  # two turns of 1 s each
    assert calls == ["a", "b", "peer"] + ["a"] * 8 + ["b"] * 2 + ["peer"] * 4 + ["peer"] * 4 + ["b"] * 2 + ["a"] * 8
    a, b, peer = rows
    assert (a.games, a.decisions, b.games, b.decisions, peer.games, peer.decisions) == (16, 160, 4, 12, 8, 32)
    assert (a.rate, b.rate, peer.rate) == (80, 6, 16)
    assert a.ratio(peer) == (5, 5, 5) and b.ratio(peer) == (0.375, 0.375, 0.375)
    # an even number of turns, none longer than a turn: 1.5 s a row is four of 0.375 s (round() made three of 0.5)
    short = bench.Row("short", player("short", 0.125, 1))
    bench.measure([short], seconds=1.5, turn=0.5)
    assert len(short.turns) == 4 and short.games == 4 * 3 and short.seconds == 1.5
    uneven = bench.Row("uneven", play=None, seconds=3, decisions=30, turns=[5, 15])
    steady = bench.Row("steady", play=None, seconds=3, decisions=15, turns=[5, 5])
    assert uneven.ratio(steady) == (2, 1, 3)


def test_bench_counts_decisions_not_the_steps_of_finished_players_and_seeds_only_its_first_reset():
    """A seeded reset of PettingZoo's RLCard games builds the whole env again: the peer paid for it
    at every game. The env's own generator deals the games after the first."""
    from pettingzoo.classic import leduc_holdem_v4

    from train import bench

    chosen, seeds = [], []

    def make():
        env = leduc_holdem_v4.env()
        step, reset = env.step, env.reset
        env.step = lambda action: (chosen.append(action), step(action))[1]
        env.reset = lambda seed=None, options=None: (seeds.append(seed), reset(seed=seed, options=options))[1]
        return env

    play, close = bench.aec(make, quiet=True)
    counts = [play() for _ in range(20)]
    close()
    assert sum(counts) == len([action for action in chosen if action is not None])
    assert chosen.count(None) == 2 * 20  # both players leave each hand: no decisions
    assert seeds == [0] + [None] * 19


@pytest.mark.parametrize("command", [["demo", "--seed", "2"],
                                     ["eval", "random", "--levels", "4", "--games", "2", "--jobs", "1"]])
def test_a_reader_that_goes_away_ends_quietly(tmp_path, command):
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody reads: every write fails, as with `ten demo | head -1`
    try:
        out = ["--out", str(tmp_path)] if command[0] == "eval" else []
        run = subprocess.run([shutil.which("ten"), *command, *out], stdout=write_end, stderr=subprocess.PIPE,
                             text=True, timeout=120)
    finally:
        os.close(write_end)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr and "BrokenPipe" not in run.stderr and "Exception" not in run.stderr


@pytest.mark.parametrize("argv, command, module", [
    (["eval", "heuristic", "--levels", "4", "--games", "1", "--jobs", "1"], "ten eval", "scipy"),
    (["league", "heuristic", "random", "--players", "2", "--games", "1", "--jobs", "1"], "ten league", "scipy"),
    (["compare", "results/jen_ladder/heuristic_seed0.json", "--paired"], "ten compare --paired", "scipy"),
    (["compare", "results/jen_ladder/heuristic_seed0.json", "-o", "x.png"], "ten compare -o", "matplotlib"),
    (["distill", "train", "data.npz", "--from", "ppo-jen", "-o", "out.zip"], "ten distill train", "torch"),
])
def test_a_command_without_the_training_extra_says_so_before_any_work(monkeypatch, tmp_path, capsys, argv,
                                                                       command, module):
    # `pip install -e .` alone installs ten without the train extra; a module set to None cannot be imported
    argv = [str(ROOT / arg) if arg.startswith("results/") else arg for arg in argv]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, module, None)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == f"ten: error: {command} needs the training extra (no module {module!r}): " \
                           f"pip install 'ten-env[train]' (in a clone: pip install -e '.[train]'; without a GPU, " \
                           f"a CPU build of torch first (README, Set-up))\n"
    assert captured.out == "" and list(tmp_path.iterdir()) == []  # nothing played, printed or written


@pytest.mark.parametrize("call, name", [
    (lambda: E.evaluate("heuristic", levels="4-10", games=100, jobs=1), "evaluate()"),
    (lambda: L.league(["heuristic", "random"], games=100, jobs=1), "league()"),
])
def test_evaluate_and_league_from_python_say_the_extra_is_missing_before_any_game(monkeypatch, call, name):
    """They played every game, then failed on importing scipy for the intervals, with a traceback."""
    played = []
    monkeypatch.setattr(E, "_execute", lambda *args, **kwargs: played.append(1))
    monkeypatch.setattr(L, "execute", lambda *args, **kwargs: played.append(1))
    monkeypatch.setitem(sys.modules, "scipy", None)
    with pytest.raises(ValueError, match=rf"^{re.escape(name)} needs the training extra \(no module 'scipy'\)"):
        call()
    assert not played


@pytest.mark.parametrize("module", ["yaml", "torch", "scipy", "tqdm"])
def test_ten_train_without_the_training_extra_names_the_rllib_extra_too(monkeypatch, tmp_path, capsys, module):
    """A config with backend: rllib was told of the train extra alone, then, once it was there, of rllib;
    without scipy, tqdm or tensorboard the run's folder was written first."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, module, None)
    config = tmp_path.parent / f"{tmp_path.name}.yaml"  # its run folder would land in the current folder
    config.write_text((ROOT / "configs" / "rllib_jen.yaml").read_text())
    assert main(["train", str(config)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (f"ten: error: ten train needs the training extra (no module {module!r}): pip install "
                            "'ten-env[train]' (in a clone: pip install -e '.[train]'; without a GPU, a CPU build of "
                            "torch first (README, Set-up)); for a config with backend: rllib, the rllib extra, which "
                            "holds all of it: pip install 'ten-env[rllib]' (in a clone: pip install -e '.[rllib]'; "
                            "without a GPU, a CPU build of torch first (README, Set-up))\n")
    assert captured.out == "" and list(tmp_path.iterdir()) == []


def test_a_missing_module_of_the_training_extra_is_one_line_wherever_it_is_found(capsys):
    from train.options import run_command

    def needs(module):
        def run(args):
            raise ModuleNotFoundError(f"No module named {module!r}", name=module)
        return run

    assert run_command("ten", needs("yaml"), None) == 2
    assert capsys.readouterr().err == ("ten: error: this needs the training extra (no module 'yaml'): "
                                       "pip install 'ten-env[train]' (in a clone: pip install -e '.[train]'; "
                                       "without a GPU, a CPU build of torch first (README, Set-up))\n")
    with pytest.raises(ModuleNotFoundError):  # not ours to explain: a real fault, with its traceback
        run_command("ten", needs("not_an_extra"), None)


def test_a_run_stopped_by_its_machine_is_one_line_with_status_1(capsys):
    # Not a mistake in the input (status 2), and not a fault to show with a traceback: the
    # run said why it stopped and saved itself.
    from train.options import RunStopped, run_command

    def stopped(args):
        raise RunStopped("no env runner returned any sample in 20 iterations running; the run is saved, for --resume")

    def bug(args):
        raise RuntimeError("a bug")

    assert run_command("ten", stopped, None) == 1
    assert capsys.readouterr().err == ("ten: error: no env runner returned any sample in 20 iterations running; "
                                       "the run is saved, for --resume\n")
    with pytest.raises(RuntimeError, match="a bug"):  # any other RuntimeError is a real fault, with its traceback
        run_command("ten", bug, None)


def test_a_second_ctrl_c_while_a_command_stops_is_ignored(capsys):
    # Loading models, saving a report, printing "interrupted": a double press (or timeout -s INT,
    # which signals the command and then its process group) ends in status 130, not a traceback.
    import signal

    from train.options import run_command

    handled = []

    def run(args):
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            signal.raise_signal(signal.SIGINT)  # the second press, while the first is handled
            handled.append(True)
            raise

    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own, as at a terminal
    try:
        assert run_command("ten", run, None) == 130
        assert handled == [True] and capsys.readouterr().err == "\nten: interrupted\n"
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


_CTRL_C_WHILE_LOADING = """
import sys
class Loading:  # as a press would land while the command loads this module
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            raise KeyboardInterrupt
sys.meta_path.insert(0, Loading())
{entry}
"""


@pytest.mark.parametrize("module", ["agents.registry", "train.league"], ids=["importing", "building the parser"])
def test_ctrl_c_while_ten_is_still_loading_ends_without_a_traceback(module):
    """The console script is ``train.entry:main``, which guards the half second of imports and
    parsing before ``run_command`` takes over (an early Ctrl-C printed a traceback)."""
    import tomllib

    script = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["ten"]
    entry_module, _, function = script.partition(":")
    code = _CTRL_C_WHILE_LOADING.format(module=module,
                                        entry=f"from {entry_module} import {function}\nsys.exit({function}())")
    done = subprocess.run([sys.executable, "-c", code, "--version"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stderr) == (130, "\nten: interrupted\n")


def test_play_says_when_an_opponent_sees_the_deck_order(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--opponents", "heuristic,oracle:2", "--seed", "1"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]
    assert notes == ["note: oracle:2 sees the order of the deck: it cheats (a ceiling, not a fair opponent)"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--opponents", "heuristic,search:2", "--seed", "1"]) == 0
    assert "note:" not in capsys.readouterr().err
