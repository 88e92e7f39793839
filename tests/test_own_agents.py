"""Your own agent by name, ``<module>:<name>`` or ``<file.py>:<name>``: wherever agents are named
(make_agent, ten eval on its worker processes, ten league, --resume), with one-line errors."""

from __future__ import annotations

import io
import json
import sys
import textwrap

import pytest

from agents import play_games
from agents.registry import entry_point_file, is_entry_point, make_agent
from ten_env import Rules
from train import evaluate as E
from train import league as L
from train import runner
from train.cli import main

BOTS = '''
"""A user's bots."""
import numpy as np
from agents.base import Agent, observation_parts


class Lowest(Agent):
    """The lowest legal action id; remembers its seeds."""

    name = "lowest"

    def __init__(self):
        self.seeds = []

    def reset(self, seed=None):
        self.seeds.append(seed)

    def act(self, observation, info):
        return int(np.flatnonzero(observation_parts(observation, info)[1])[0])


class Highest(Lowest):
    def act(self, observation, info):
        return int(np.flatnonzero(observation_parts(observation, info)[1])[-1])


def highest(observation, info):  # a policy function
    return int(np.flatnonzero(observation["action_mask"])[-1])


def make():  # a factory
    return Highest()


ready = Lowest()  # an agent made already
NOT_AN_AGENT = 7
'''


@pytest.fixture
def bots(tmp_path, monkeypatch):
    """``BOTS`` as a module in the current folder, under a name of this test's own (the module stays
    imported), with sys.path as it was afterwards."""
    name = f"bots_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(BOTS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield name
    sys.modules.pop(name, None)


def _moves(agent, n=2):
    return play_games([agent], Rules(jen_level=5), n=n, seed=3)


def test_a_module_in_the_current_folder_names_a_class_a_factory_an_agent_or_a_policy(bots):
    lowest = make_agent(f"{bots}:Lowest", seed=11)
    assert type(lowest).__name__ == "Lowest" and lowest.seeds == [11]  # made with no arguments, then reset
    assert type(make_agent(f"{bots}:make")).__name__ == "Highest"  # a factory is called
    assert make_agent(f"{bots}:ready") is sys.modules[bots].ready  # an agent is taken as it is
    assert make_agent(f"{bots}:highest") is sys.modules[bots].highest  # so is a policy function
    assert type(make_agent(f"{bots}:Highest.__base__")).__name__ == "Lowest"  # a dotted name reaches in
    # each plays: the lowest and the highest legal action differ, and so do their games
    results = [_moves(make_agent(f"{bots}:{name}")) for name in ("Lowest", "make", "highest")]
    assert results[1].per_game == results[2].per_game != results[0].per_game
    # reset before each game with a seed of its own, as every agent
    played = make_agent(f"{bots}:Lowest")
    _moves(played)
    assert len(played.seeds) == 2 and None not in played.seeds
    assert is_entry_point(f"{bots}:Lowest") and entry_point_file(f"{bots}:Lowest") == f"{bots}.py"  # from here


def test_a_policy_whose_arguments_have_defaults_is_a_policy_not_a_factory(tmp_path, monkeypatch):
    """Called with no arguments as a factory, it failed (or its action was taken for the agent)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lenient.py").write_text("def policy(observation=None, info=None):\n"
                                         "    return int(observation['action_mask'].nonzero()[0][0])\n")
    agent = make_agent("lenient.py:policy")
    assert callable(agent) and agent(*_observation()) == _observation()[0]["action_mask"].nonzero()[0][0]


def test_a_file_anywhere_is_run_as_a_script_its_folder_first(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    helper = f"helper_{tmp_path.name.replace('-', '_')}"
    (folder / f"{helper}.py").write_text("LAST = -1\n")
    (folder / "mine.py").write_text(textwrap.dedent(f"""
        import numpy as np
        from {helper} import LAST  # a neighbour of the file


        def policy(observation, info):
            return int(np.flatnonzero(observation["action_mask"])[LAST])
    """))
    spec = f"{folder / 'mine.py'}:policy"
    try:
        agent = make_agent(spec)
        assert agent(*_observation()) == _observation()[0]["action_mask"].nonzero()[0][-1]
        assert make_agent(spec) is agent  # the file runs once
        assert entry_point_file(spec) == (folder / "mine.py").as_posix()  # as the spec names it
    finally:
        sys.modules.pop(helper, None)


def _observation():
    import ten_env

    env = ten_env.env(jen_level=5)
    env.reset(seed=0)
    observation, *_, info = env.last()
    return observation, info


@pytest.mark.parametrize("source, name, message", [
    (None, "nosuchmodule_xyz:Bot", r"^agent 'nosuchmodule_xyz:Bot': no module 'nosuchmodule_xyz' can be imported "
                                   r"from the current folder or Python's path \(your own agent is <module>:<name> or "
                                   r"<file.py>:<name>; the other names: random, heuristic, .*\)$"),
    (None, "missing.py:Bot", r"^agent 'missing.py:Bot': there is no file 'missing.py' \(your own agent is "
                             r"<module>:<name> or <file.py>:<name>\)$"),
    (BOTS, "{m}:Nope", r"^agent '{m}:Nope': the module '{m}' has no 'Nope'$"),
    (BOTS, "{m}.py:Nope", r"^agent '{m}.py:Nope': the file '{m}.py' has no 'Nope'$"),
    (BOTS, "{m}:NOT_AN_AGENT", r"^agent '{m}:NOT_AN_AGENT': NOT_AN_AGENT gave 7, not an agent: give a class, a "
                               r"function that returns an agent, an object with act\(observation, info\), or a "
                               r"policy function \(observation, info\) -> action$"),
    ("def broken(:\n", "{m}:broken", r"^agent '{m}:broken': the module '{m}' is not valid Python: .* \({m}.py, "
                                     r"line 1\)$"),
    ("x = 1\nraise RuntimeError('no GPU here')\n", "{m}.py:x",
     r"^agent '{m}.py:x': importing the file '{m}.py' failed: RuntimeError: no GPU here \({m}.py, line 2\)$"),
    ("import nosuchdependency_xyz\n", "{m}:x", r"^agent '{m}:x': importing the module '{m}' failed: "
                                              r"ModuleNotFoundError: No module named 'nosuchdependency_xyz' "
                                              r"\({m}.py, line 1\)$"),
    (BOTS, "{m}:Lowest.act", r"^agent '{m}:Lowest.act': Lowest.act gave a function \(self, observation, info\), "
                             r"neither a policy \(observation, info\) nor a factory taking no arguments: give a class"),
    ("def make(level):\n    return level\n", "{m}:make",  # it failed mid-game with a TypeError
     r"^agent '{m}:make': make gave a function \(level\), neither a policy"),
    ("def make():\n    return 7\n", "{m}:make", r"^agent '{m}:make': make\(\) gave 7, not an agent: give a class"),
    ("class Bot:\n    def __init__(self):\n        raise ValueError('needs a model file')\n", "{m}:Bot",
     r"^agent '{m}:Bot': making it with Bot\(\) failed: ValueError: needs a model file \({m}.py, line 3\)$"),
])
def test_own_agents_that_cannot_be_made_are_one_line_errors(tmp_path, monkeypatch, capsys, source, name, message):
    module = f"own_{tmp_path.name.replace('-', '_')}"
    if source is not None:
        (tmp_path / f"{module}.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    spec, pattern = name.format(m=module), message.replace("{m}", module)
    try:
        with pytest.raises(ValueError, match=pattern):
            make_agent(spec)
        if "importing" in message or "not valid Python" in message:  # a module that failed is not left half-made
            assert not [loaded for loaded in sys.modules if module in loaded]
        # and at the terminal: the same line, no traceback
        assert E.main([spec, "--levels", "4", "--games", "2", "--jobs", "1", "--out", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err and spec in err
    finally:
        for loaded in [loaded for loaded in sys.modules if module in loaded]:
            del sys.modules[loaded]


@pytest.mark.parametrize("spec", ["nocolon", "a b:Bot", ":Bot"])
def test_load_entry_point_called_with_no_entry_point_is_a_one_line_error(spec):
    """make_agent checks the form first; called directly, a name of neither form raised
    AttributeError ('NoneType' object has no attribute 'groups')."""
    from agents.registry import load_entry_point

    with pytest.raises(ValueError, match=rf"^agent {spec!r}: your own agent is <module>:<name> or <file.py>:<name>$"):
        load_entry_point(spec)


def test_ten_eval_plays_your_agent_on_its_workers_and_resume_sees_its_code_change(bots, tmp_path, capsys, monkeypatch):
    one = E.evaluate(f"{bots}:Lowest", levels=[4, 6], games=4, seed=5, jobs=1)
    two = E.evaluate(f"{bots}:Lowest", levels=[4, 6], games=4, seed=5, jobs=2)  # spawned: they import it too
    assert [m["per_game"] for m in one["matchups"]] == [m["per_game"] for m in two["matchups"]]
    assert one["agent"] == f"{bots}:Lowest"
    # an evaluation stopped, then its agent's code edited: the resume is refused, naming the file
    from interrupt import interrupt_after

    out = tmp_path / "eval"
    argv = [f"{bots}:Lowest", "--levels", "4", "--games", "4", "--jobs", "1", "--out", str(out)]
    with monkeypatch.context() as patch:
        interrupt_after(patch, runner, "play_chunk", 1)
        assert E.main(argv) == 130
    capsys.readouterr()
    source = tmp_path / f"{bots}.py"
    source.write_text(BOTS.replace("[0])", "[1 % len(np.flatnonzero(observation_parts(observation, info)[1]))])"))
    assert E.main(argv + ["--resume"]) == 2
    assert f"differs in: '{bots}.py' (its contents changed since the run began)" in capsys.readouterr().err
    source.write_text(BOTS)
    assert E.main(argv + ["--resume"]) == 0
    assert json.loads((out / "report.json").read_text())["games"] == 4


def test_a_run_moved_with_your_agent_s_file_beside_it_resumes(tmp_path, capsys, monkeypatch):
    """The agent's file was kept by its whole path: the run, moved, was refused as reading other files."""
    import shutil

    from interrupt import interrupt_after

    first = tmp_path / "first"
    first.mkdir()
    (first / "mybots.py").write_text(BOTS)
    monkeypatch.chdir(first)
    argv = ["mybots.py:Lowest", "--levels", "4", "--games", "4", "--jobs", "1", "--out", "eval"]
    with monkeypatch.context() as patch:
        interrupt_after(patch, runner, "play_chunk", 1)
        assert E.main(argv) == 130
    capsys.readouterr()
    shutil.copytree(first, tmp_path / "moved")
    monkeypatch.chdir(tmp_path / "moved")
    assert E.main(argv + ["--resume"]) == 0, capsys.readouterr().err
    assert json.loads((tmp_path / "moved" / "eval" / "report.json").read_text())["games"] == 4
    # the file beside it edited: still refused, by the name it is given here
    shutil.copytree(first, tmp_path / "edited")
    (tmp_path / "edited" / "mybots.py").write_text(BOTS.replace("[0])", "[-1])", 1))
    monkeypatch.chdir(tmp_path / "edited")
    assert E.main(argv + ["--resume"]) == 2
    assert "differs in: 'mybots.py' (its contents changed since the run began)" in capsys.readouterr().err
    # named by its whole path, it resumes from any folder (named from the current folder, it did not)
    whole = [f"{first / 'mybots.py'}:Lowest", *argv[1:-1], str(tmp_path / "whole")]
    monkeypatch.chdir(first)
    with monkeypatch.context() as patch:
        interrupt_after(patch, runner, "play_chunk", 1)
        assert E.main(whole) == 130
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)
    assert E.main(whole + ["--resume"]) == 0, capsys.readouterr().err


def test_a_league_tells_your_agents_apart_by_name(bots, tmp_path):
    # a Lowest made by the league and the one the module made print alike (Agent's repr is the class's
    # name and "()"): two agents, as their names say, not "the same agent"
    plan = L.prepare([f"{bots}:Lowest", f"{bots}:ready", "random"], num_players=2, games=2, seed=0, jobs=1)
    assert plan["agents"] == [f"{bots}:Lowest", f"{bots}:ready", "random"]
    with pytest.raises(ValueError, match="name each agent once"):  # one name twice is still refused
        L.prepare([f"{bots}:Lowest", f" {bots}:Lowest", "random"], num_players=2, games=2, seed=0, jobs=1)


def test_the_readmes_own_agent_is_benchmarked_as_written(tmp_path, monkeypatch):
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    block = readme.split("**Your own agent**", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert block.startswith("# bots.py\n")
    module = f"bots_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{module}.py").write_text(block)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        report = E.evaluate(f"{module}:Greedy", levels=[4], games=2, jobs=1)
        assert report["agent"] == f"{module}:Greedy" and report["matchups"][0]["games"] == 2
    finally:
        sys.modules.pop(module, None)


def test_evaluate_takes_an_agent_object_and_plays_it_here():
    from agents import HeuristicAgent

    by_name = E.evaluate("heuristic", levels=[4, 9], games=4, seed=2, jobs=1)
    given = E.evaluate(HeuristicAgent(), levels=[4, 9], games=4, seed=2)  # jobs defaults to 1 for an object
    assert given["agent"] == "heuristic"  # its name
    assert [m["per_game"] for m in given["matchups"]] == [m["per_game"] for m in by_name["matchups"]]

    def last_legal(observation, info):
        return int(observation["action_mask"].nonzero()[0][-1])

    assert E.evaluate(last_legal, opponents=["random"], games=2, jobs=1)["agent"] == "last_legal"
    with pytest.raises(ValueError, match=r"^an agent given as an object plays in this process: jobs must be 1, "
                                         r"got 2 \(name it as <module>:<name> for worker processes to load it\)$"):
        E.evaluate(HeuristicAgent(), levels=[4], games=2, jobs=2)
    with pytest.raises(ValueError, match=r"^agent must be a non-empty name or an agent"):
        E.evaluate(7, levels=[4], games=2)


def test_an_agent_object_is_named_by_its_class_unless_it_names_itself(bots):
    """A subclass of Agent that set no name was "agent", the base class's: two bots were one in ten compare."""
    highest = make_agent(f"{bots}:Highest")
    module = sys.modules[bots]
    lowest = E.evaluate(highest, levels=[4], games=2)  # Highest inherits Lowest's name
    assert lowest["agent"] == "lowest"

    class Greedy(module.Agent):
        def act(self, observation, info):
            return int(observation["action_mask"].nonzero()[0][0])

    report = E.evaluate(Greedy(), levels=[4], games=2)
    assert report["agent"] == "Greedy"
    # a class is made, as a name of one would be (it failed in reset with a TypeError)
    made = E.evaluate(Greedy, levels=[4], games=2)
    assert made["agent"] == "Greedy" and made["matchups"][0]["per_game"] == report["matchups"][0]["per_game"]
    with pytest.raises(ValueError, match=r"^agent act: act gave a function \(self, observation, info\), neither"):
        E.evaluate(Greedy.act, levels=[4], games=2)


FAULTY = '''
class Crash:
    def act(self, observation, info):
        raise RuntimeError("boom in my bot")


class Bad:
    def act(self, observation, info):
        return 131  # bid_40: not legal when drawing
'''


@pytest.mark.parametrize("jobs", [1, 2])
def test_your_agent_s_error_is_one_line_naming_it_and_where(tmp_path, monkeypatch, capsys, jobs):
    """A bot that raised mid-game printed 64 lines of tracebacks (its worker's and ten eval's)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "faulty.py").write_text(FAULTY)
    argv = ["--levels", "4", "--games", "2", "--jobs", str(jobs), "--out", "eval"]
    assert E.main(["faulty.py:Crash", *argv]) == 1
    err = capsys.readouterr().err
    kept = "; the run is kept in 'eval': once the agent is mended, the same command with --overwrite plays it again"
    assert "Traceback" not in err and err.strip().splitlines()[-1].endswith(
        "error: the agent Crash (seat 0) raised RuntimeError: boom in my bot (faulty.py, line 4)" + kept
        + " from the start")
    (tmp_path / "agents_mine.py").write_text(FAULTY)  # a name that starts as this project's packages do
    assert E.main(["agents_mine:Crash", *argv, "--overwrite"]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        "error: the agent Crash (seat 0) raised RuntimeError: boom in my bot (agents_mine.py, line 4)" + kept
        + " from the start")
    assert E.main(["faulty.py:Bad", *argv, "--overwrite"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().splitlines()[-1].endswith(
        "error: the agent Bad (seat 0) chose a move the game refuses: action 'bid_40' (id 131) is not legal for "
        "player 0 in the draw phase; legal: draw, stop_numbers" + kept + " from the start")
    # mended (a file of its own: this process has the first one imported), it plays in the same --out
    (tmp_path / "mended.py").write_text(FAULTY.replace("return 131", "return int(observation['action_mask'].argmax())"))
    assert E.main(["mended.py:Bad", *argv]) == 2  # the run is there
    assert "holds an unfinished evaluation" in capsys.readouterr().err
    assert E.main(["mended.py:Bad", *argv, "--overwrite"]) == 0  # as the line said


def test_an_agent_defined_in_a_notebook_cell_is_placed_in_the_cell(tmp_path):
    """Jupyter compiles a cell from a temporary file, ipykernel_<pid>/<hash>.py: its name meant
    nothing to the person, who knows the cell."""
    from agents.base import AgentFailed

    cell = tmp_path / "ipykernel_4242" / "2718281828.py"  # how ipykernel names the code of a cell
    space: dict = {"__name__": "__main__"}
    exec(compile(FAULTY, str(cell), "exec"), space)
    try:
        space["Crash"]().act({}, {})
    except RuntimeError as exc:
        failure = AgentFailed.choosing(space["Crash"](), 1, exc)
    assert str(failure) == "the agent Crash (seat 1) raised RuntimeError: boom in my bot (a notebook cell, line 4)"


def test_an_error_in_this_project_s_own_code_keeps_its_traceback(monkeypatch):
    """Only the user's code is summed up in a line: a bug of ours needs its traceback."""
    import operator

    from agents import HeuristicAgent, heuristic
    from agents.base import AgentFailed

    monkeypatch.setattr(heuristic, "hand_counts", operator.itemgetter("no such key"))
    with pytest.raises(KeyError) as caught:
        play_games([HeuristicAgent()], Rules(jen_level=4), n=1)
    assert not isinstance(caught.value, AgentFailed)
    monkeypatch.undo()
    monkeypatch.setattr(HeuristicAgent, "act", lambda self, observation, info: 131)  # an illegal move of ours
    with pytest.raises(ValueError, match=r"^action 'bid_40' \(id 131\) is not legal"):
        play_games([HeuristicAgent()], Rules(jen_level=4), n=1)

    def crash(observation, info):
        return {}["key"]  # the user's own line

    with pytest.raises(AgentFailed, match=r"^the agent crash \(seat 0\) raised KeyError: 'key' \(test_own_agents.py, "
                                          r"line \d+\)$") as caught:
        play_games([crash], Rules(jen_level=4), n=1)
    assert isinstance(caught.value.__cause__, KeyError)  # the error itself, for a debugger


def test_an_agent_whose_reset_fails_when_made_with_a_seed_is_a_one_line_error(tmp_path, monkeypatch):
    """make_agent(spec, seed=...) resets it at once, as training envs make their opponents: the
    error came out with its traceback."""
    (tmp_path / "resetting_bots.py").write_text("class Bot:\n    def reset(self, seed=None):\n"
                                                "        raise RuntimeError('no such seed')\n\n"
                                                "    def act(self, observation, info):\n        return 0\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        with pytest.raises(ValueError, match=r"^agent 'resetting_bots:Bot': its reset\(seed=3\) failed: "
                                             r"RuntimeError: no such seed \(resetting_bots.py, line 3\)$"):
            make_agent("resetting_bots:Bot", seed=3)
        make_agent("resetting_bots:Bot")  # made without a seed, it is not reset yet
    finally:
        sys.modules.pop("resetting_bots", None)


def test_ten_record_and_ten_play_name_your_agent_by_its_class(tmp_path, monkeypatch, capsys):
    """They named every Agent subclass that sets no name "agent", the base class's."""
    (tmp_path / "plain_bots.py").write_text(
        "import numpy as np\nfrom agents.base import Agent\n\n\nclass Plain(Agent):\n"
        "    def act(self, observation, info):\n        return int(np.flatnonzero(observation['action_mask'])[0])\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        assert main(["record", "plain_bots.py:Plain", "random", "--seed", "1", "-o", "game.json"]) == 0
        out = capsys.readouterr().out
        assert "Plain" in out and "agent " not in out, out
        record = json.loads((tmp_path / "game.json").read_text())
        assert [player["name"] for player in record["players"]] == ["Plain", "random"]
        from train.play import play

        shown = io.StringIO()
        play(Rules(num_players=2), [make_agent("plain_bots.py:Plain")], stdin=io.StringIO("quit\n"), stdout=shown)
        assert "Plain" in shown.getvalue() and " agent" not in shown.getvalue()
    finally:
        sys.modules.pop("plain_bots", None)
