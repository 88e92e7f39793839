"""What the ``ten`` commands read from the command line, and the checks behind it.

Argparse types (:func:`int_range`, :func:`at_least`, :func:`player_count`), the
JEN levels and opponents as they are typed (:func:`parse_levels`,
:func:`parse_opponents`), the rules options and the output folder of ``ten eval``
(:func:`add_eval_arguments`, :func:`rules_from_args`, :func:`prepare_out_dir`), and
whether a file can be written before a game (:func:`check_writable`).
Nothing here plays a game: the config checks and the ``ten`` parser use it
without loading the evaluator. :class:`Parser` and :func:`run_command` are how every
command ends: a mistake in the input is one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NoReturn, TypeGuard, TypeVar, overload

from agents.base import AgentFailed
from agents.registry import NAMES_HELP, action_count, network_of
from ten_env import Rules
from ten_env.actions import max_bid_for, num_actions
from ten_env.extras import install_hint
from ten_env.rules import JEN_LEVELS, MAX_BIDS, PAYMENTS, PLAYER_COUNTS

from .runner import Stopped, interrupted_once, stopped_by_signals

_N = TypeVar("_N")


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line, ``PROG: error: MESSAGE`` with
    status 2, as :func:`run_command` ends the other mistakes (argparse would print the usage
    block first; ``--help`` still shows it). Its subcommands' parsers are of this class too, and
    each refuses the arguments it does not know itself, so that ``ten eval x --bogus`` says
    ``ten eval: error: unrecognized arguments: --bogus`` (argparse leaves them to the top
    parser, ``ten: error: ...``); so ``parse_known_args`` never returns any."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")

    @overload
    def parse_known_args(self, args: Iterable[str] | None = None,
                         namespace: None = None) -> tuple[argparse.Namespace, list[str]]: ...

    @overload
    def parse_known_args(self, args: Iterable[str] | None, namespace: _N) -> tuple[_N, list[str]]: ...

    @overload
    def parse_known_args(self, *, namespace: _N) -> tuple[_N, list[str]]: ...

    def parse_known_args(self, args: Iterable[str] | None = None,
                         namespace: object = None) -> tuple[object, list[str]]:
        parsed, extra = super().parse_known_args(args, namespace)
        if extra:
            self.error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed, extra


def span(allowed: range) -> str:
    """``"4-10"`` for ``range(4, 11)``."""
    return f"{allowed[0]}-{allowed[-1]}"


LEVELS_HELP = (f"JEN levels {span(JEN_LEVELS)} as a range ({span(JEN_LEVELS)}), "
               f"a list ({JEN_LEVELS[0]},7,{JEN_LEVELS[-1]}) or one level (7)")
#: Opponents at a table: everybody but you.
OPPONENT_COUNTS = range(PLAYER_COUNTS[0] - 1, PLAYER_COUNTS[-1])
PLAYERS_HELP = f"{span(PLAYER_COUNTS)} (you and {span(OPPONENT_COUNTS)} opponents)"
TABLE_HELP = f"a table has {span(PLAYER_COUNTS)} players: you and {span(OPPONENT_COUNTS)} opponents"
TRUST_HELP = ("load model files that can only be loaded by unpickling "
              "(this runs code from the file: only for files you trust)")


# --------------------------------------------------------------------------- levels and opponents


def parse_levels(text: str | Iterable[int]) -> list[int]:
    """JEN levels from ``"4-10"``, ``"4,7,10"`` or ``"7"`` (or an iterable of ints); sorted, no repeats."""
    if isinstance(text, str):
        levels: list[int] = []
        for part in text.split(","):
            match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
            if not match:
                raise ValueError(f"levels {text!r}: use {LEVELS_HELP}")
            lo, hi = int(match[1]), int(match[2] or match[1])
            if hi < lo:
                raise ValueError(f"levels {text!r}: the range {lo}-{hi} is empty; use {LEVELS_HELP}")
            levels += range(lo, hi + 1)
        bad = [level for level in levels if level not in JEN_LEVELS]
        if bad:
            raise ValueError(f"levels {text!r}: JEN has no level {bad[0]}; use {LEVELS_HELP}")
        return sorted(set(levels))
    try:
        levels = list(text)
    except TypeError:
        raise ValueError(f"levels must be {LEVELS_HELP}, got {text!r}") from None
    if not levels or any(isinstance(v, bool) or not isinstance(v, int) or v not in JEN_LEVELS for v in levels):
        raise ValueError(f"levels {levels!r}: use {LEVELS_HELP}")
    return sorted(set(levels))


def parse_opponents(text: str) -> list[str]:
    """Opponent specs from ``"heuristic,jen:5"``."""
    names = [name.strip() for name in str(text).split(",")]
    if not names or any(not name for name in names):
        raise ValueError(f"opponents {text!r}: give comma-separated agents ({NAMES_HELP})")
    return names


def agent_name(spec: str) -> str:
    """A short name for an agent spec, fit for a folder name (``jen:5`` -> ``jen-5``).

    A model path gives its file name without ``.zip``; a training run's
    ``<run>/model.zip`` or ``<run>/checkpoint`` (RLlib) gives the run's folder name; a search
    or oracle over one, each part so (``search:runs/m/model.zip:64`` -> ``search-m-64``), so
    that it never takes the folder of the model played alone.
    """
    spec = spec.strip()
    kind, colon, rest = spec.partition(":")
    if colon and kind in ("search", "oracle"):
        return "-".join([kind, *(agent_name(part) for part in rest.split(":"))])
    path = Path(spec)
    if spec.endswith(".zip") or len(path.parts) > 1:
        name = path.stem
        if name in ("model", "checkpoint") and path.parent.name:  # a run's model.zip or RLlib checkpoint
            name = path.parent.name
    else:
        name = spec
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "agent"


# --------------------------------------------------------------------------- argparse types


def int_range(low: int, high: int | None, flag: str) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high`` (no upper bound for ``None``)."""
    allowed = _whole_range(low, high)

    # argparse prints "argument FLAG: " before the message
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number {allowed}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be a whole number {allowed}, got {value}")
        return value

    parse.__name__ = flag.lstrip("-").replace("-", "_")
    return parse


def _whole_range(low: int, high: int | None) -> str:
    """The whole numbers allowed, in words: ``"from 1 to 10,000,000"``, ``"of at least 0"``."""
    return f"from {low:,} to {high:,}" if high is not None else f"of at least {low}"


def is_whole(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a whole number (an int; a bool is not), as read from JSON."""
    return isinstance(value, int) and not isinstance(value, bool)


# Games a matchup (a level, a table) in one run: some 4 months of one core for the fastest agent.
# Their chunks are listed before any is played, so a mistyped count used to eat memory silently.
MAX_GAMES = 10_000_000
MAX_WIDTH = 4096  # units in a hidden layer (algorithm.net_arch, ten distill train --width): 64 MB a square layer


def whole_number(name: str, value: object, low: int, high: int | None = None) -> int:
    """``value`` if it is a whole number from ``low`` (to ``high``, if given; a bool is not);
    ``ValueError`` naming ``name`` otherwise. The Python-side twin of :func:`int_range`."""
    if not is_whole(value) or value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be a whole number {_whole_range(low, high)}, got {value!r}")
    return value


def real_number(flag: str, allowed: str, accept: Callable[[float], bool]) -> Callable[[str], float]:
    """An argparse ``type``: a finite number for which ``accept(value)`` holds; ``allowed`` says
    which in the error (``"a number above 0"``, ...)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and accept(value)):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}")
        return value

    parse.__name__ = flag.lstrip("-").replace("-", "_")
    return parse


def at_least(low: int, flag: str) -> Callable[[str], int]:
    return int_range(low, None, flag)


def within(allowed: range, flag: str) -> Callable[[str], int]:
    """An argparse ``type``: a whole number in ``allowed`` (a range such as ``JEN_LEVELS``)."""
    return int_range(allowed[0], allowed[-1], flag)


def player_count(text: str) -> int:
    """The argparse ``type`` of ``--players``: a table size, 2-5."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value not in PLAYER_COUNTS:
        raise argparse.ArgumentTypeError(f"must be {PLAYERS_HELP}, got {text!r}" if value is None
                                         else f"must be {PLAYERS_HELP}, got {value}")
    return value


player_count.__name__ = "players"


# --------------------------------------------------------------------------- ten eval


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """``--bust-buy``, ``--payment``, ``--max-bid``, ``--deck-file``: the game a command plays
    (read back by :func:`rules_from_args`); a model must play the rules it was trained with."""
    defaults = Rules()
    parser.add_argument("--bust-buy", action="store_true",
                        help="the busting variant (a model plays the rules it was trained with)")
    parser.add_argument("--payment", choices=PAYMENTS, default=defaults.payment,
                        help=f"how prices and bids are paid (default {defaults.payment})")
    parser.add_argument("--max-bid", type=within(MAX_BIDS, "--max-bid"), default=defaults.max_bid,
                        metavar="N", help=f"the highest bid, {span(MAX_BIDS)} (default {defaults.max_bid}); "
                                          f"a model needs the max_bid it was trained with")
    parser.add_argument("--deck-file", metavar="PATH", default=defaults.deck_file,
                        help="a deck file instead of the bundled deck")


def rules_from_args(args: argparse.Namespace) -> dict:
    """The ``rules`` of :func:`train.evaluate.evaluate` from the command line: every base field, defaults included."""
    defaults = Rules()
    return {
        "bust_buy": bool(getattr(args, "bust_buy", defaults.bust_buy)),
        "payment": getattr(args, "payment", defaults.payment),
        "max_bid": getattr(args, "max_bid", defaults.max_bid),
        "deck_file": getattr(args, "deck_file", defaults.deck_file),
    }


def check_writable(path: str | os.PathLike[str], overwrite: bool = False, option: str = "",
                   example: str = "game.json") -> Path:
    """``ValueError`` unless a file can be written at ``path`` (its folder exists and takes a new
    file, it is not a folder, and it is not there already unless ``overwrite``, the command's
    ``--overwrite``; ``option`` names where the path was given, ``example`` is a name to suggest):
    checked before a game, so that its record is not lost after it."""
    if not str(path).strip():  # Path("") would be the current folder
        raise ValueError(f"the file name is empty: give one such as {example}")
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{str(path)!r} is a folder: give a file name such as {example}")
    if path.exists() and not overwrite:
        raise ValueError(f"{str(path)!r} already exists: use --overwrite to replace it"
                         f"{f', or another {option}' if option else ''}")
    if not path.parent.is_dir():
        if (file := _file_in_the_way(path.parent)) is not None:
            raise ValueError(f"cannot write {str(path)!r}: {str(file)!r} is a file, not a folder")
        raise ValueError(f"cannot write {str(path)!r}: the folder {str(path.parent)!r} does not exist")
    try:
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as exc:
        raise ValueError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    return path


def prepare_out_dir(out_dir: str | os.PathLike[str], report: tuple[str, ...] = (), overwrite: bool = False,
                    what: str = "a report") -> Path:
    """Make ``out_dir`` and check a file can be written in it; ``ValueError`` saying why not.

    If any of the ``report`` files is already there, it is refused unless ``overwrite``
    (the command's ``--overwrite``) says to replace it.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"--out {str(out_dir)!r} is a file, not a folder")
    make_writable(out_dir)
    old = [name for name in report if (out_dir / name).exists()]
    if old and not overwrite:
        raise ValueError(f"--out {str(out_dir)!r} already holds {what} ({', '.join(old)}): "
                         f"use --overwrite to replace it, or another --out")
    return out_dir


def check_output(path: str | os.PathLike[str] | None, suffix: str, what: str, overwrite: bool,
                 beside: tuple[str, ...] = ()) -> Path:
    """``-o`` for a file: it ends in ``suffix``, is not a folder, and neither it nor the files
    ``beside`` it (other suffixes of the same name) exist unless ``overwrite``. Writes nothing."""
    text = str(path).strip() if path is not None else ""
    if not text:
        raise ValueError(f"-o is empty: give a {suffix} file for {what}")
    path = Path(text)
    if path.suffix.lower() != suffix:
        raise ValueError(f"-o {text!r}: {what} is a {suffix} file (e.g. {path.stem or 'out'}{suffix})")
    if path.is_dir():
        raise ValueError(f"-o {text!r} is a folder: give a {suffix} file for {what}")
    if path.parent.exists() and not path.parent.is_dir():
        raise ValueError(f"-o {text!r}: {str(path.parent)!r} is a file, not a folder")
    old = [str(p) for p in (path, *(path.with_suffix(s) for s in beside)) if p.exists()]
    if old and not overwrite:
        raise ValueError(f"-o {text!r}: {' and '.join(repr(p) for p in old)} already exist"
                         f"{'s' if len(old) == 1 else ''}: use --overwrite to replace "
                         f"{'it' if len(old) == 1 else 'them'}, or another -o")
    return path


def _file_in_the_way(folder: Path) -> Path | None:
    """``folder`` or the first of the folders above it that is there, if that is a file."""
    for above in (folder, *folder.parents):
        if above.exists():
            return None if above.is_dir() else above
    return None


def make_writable(folder: str | os.PathLike[str]) -> None:
    """Make ``folder`` (and its parents) and check a file can be written in it; ``ValueError`` saying why not."""
    if (file := _file_in_the_way(Path(folder))) is not None:  # mkdir would say only "Not a directory"
        raise ValueError(f"cannot write to {str(folder)!r}: {str(file)!r} is a file, not a folder")
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ValueError(f"cannot write to {str(folder)!r}: {exc.strerror or exc}") from None


def check_max_bid(agent: object, max_bid: int, who: str | None = None, verb: str = "evaluate") -> None:
    """``ValueError`` if the network ``agent`` plays, or searches with, was made for another game's
    ``max_bid`` (another number of actions), saying which ``max_bid`` to ``verb`` it with; ``who``
    names it in the message (default: ``model 'NAME'``)."""
    n = action_count(agent)
    if n is None or n == num_actions(max_bid):
        return
    who = who or f"model {getattr(network_of(agent), 'name', None) or agent!r}"
    made_for = max_bid_for(n)
    hint = f": {verb} it with rules max_bid={made_for} (--max-bid {made_for})" if made_for in MAX_BIDS else ""
    raise ValueError(f"{who} has {n} actions but the game has {num_actions(max_bid)} (max_bid={max_bid}){hint}")


def add_trust_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--trust-model", action="store_true", help=TRUST_HELP)


def add_jobs_argument(parser: argparse.ArgumentParser, metavar: str = "N") -> None:
    """``--jobs``: the worker processes of :func:`train.runner.run_chunks` (ten eval, ten league)."""
    parser.add_argument("--jobs", type=at_least(1, "--jobs"), default=None, metavar=metavar,
                        help="worker processes (default: all cores; the results do not depend on it)")


def add_progress_argument(parser: argparse.ArgumentParser) -> None:
    """``--no-progress``: no progress bar on stderr (a log file gets every redraw of it)."""
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (for a log file)")


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``ten eval`` / ``python -m train.evaluate``."""
    parser.add_argument("agent", help=f"the agent to evaluate: {NAMES_HELP}")
    parser.add_argument("--levels", metavar="LEVELS",
                        help=f"JEN levels to play: a range ({span(JEN_LEVELS)}), a list "
                             f"({JEN_LEVELS[0]},7,{JEN_LEVELS[-1]}) or one (7); "
                             f"default {span(JEN_LEVELS)} when --opponents is not given")
    parser.add_argument("--opponents", metavar="A,B,...",
                        help="normal games against these comma-separated agents instead of the ladder")
    parser.add_argument("--players", type=player_count, metavar="N",
                        help=f"with one --opponents agent: the table size, {span(PLAYER_COUNTS)}, "
                             f"that agent in every other seat")
    parser.add_argument("--games", type=int_range(1, MAX_GAMES, "--games"), default=200, metavar="N",
                        help="games per matchup (default 200)")
    parser.add_argument("--seed", type=at_least(0, "--seed"), default=0, metavar="N",
                        help="game i uses deck seed SEED+i (default 0)")
    add_jobs_argument(parser)
    add_progress_argument(parser)
    add_rules_arguments(parser)
    parser.add_argument("--out", metavar="DIR", help="where to save report.json / ladder.png "
                                                      "(default runs/eval/<agent name>)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the report already in the --out folder (or start an unfinished "
                             "evaluation there again)")
    parser.add_argument("--resume", action="store_true",
                        help="go on with an interrupted evaluation in the --out folder (its progress.jsonl): "
                             "give the same agent and options; --jobs may differ")
    parser.add_argument("--save-games", type=at_least(0, "--save-games"), default=0, metavar="N",
                        help="also write the first N games of each matchup as game records in "
                             "<out>/games, for ten view (default 0)")
    add_trust_argument(parser)


# --------------------------------------------------------------------------- running a command


# The modules of the ``train`` extra (pyproject.toml): ``pip install -e .`` alone installs ``ten``
# without them, so a command that needs one says so in one line instead of failing mid-way.
TRAINING_EXTRA = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "tqdm", "rich", "yaml",
                  "pydantic", "scipy", "matplotlib")
INSTALL_TRAINING_EXTRA = install_hint("train")


def need_training_extra(command: str, *modules: str) -> None:
    """Before any work: ``ValueError`` if a module of the training extra that ``command`` needs is missing."""
    import importlib

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            raise ValueError(f"{command} needs the training extra (no module {module!r}): "
                             f"{INSTALL_TRAINING_EXTRA}") from None


class RunStopped(RuntimeError):
    """A run that had to stop for a cause outside the input (its machine, its cluster), its state
    saved: the message says why and how to go on."""


def run_command(prog: str, run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``run(args)``, its exit status; the ways a command can end badly, each said in one line.

    A ``ValueError`` is a mistake in the input: ``PROG: error: MESSAGE`` on stderr, status 2.
    A :class:`RunStopped`: the same line, status 1.
    Ctrl-C: status 130, a second press while the first is handled ignored
    (:func:`train.runner.interrupted_once`); SIGTERM or SIGHUP is handled as Ctrl-C is (the run
    keeps what it has done), status 143 or 129 (:func:`train.runner.stopped_by_signals`). A reader that stops reading (``ten eval ... |
    head``): status 1, quietly.
    """
    with interrupted_once(), stopped_by_signals():  # and the second of two presses lands in the handling below
        try:
            return run(args)
        except ValueError as exc:  # a mistake in the input: say what, without a traceback
            message = " ".join(str(exc).split())
            if len(message) > 600:  # some library messages print whole arrays
                message = message[:600] + " ..."
            print(f"{prog}: error: {message}", file=sys.stderr)
            return 2
        except (RunStopped, AgentFailed) as exc:  # AgentFailed: the error is in the agent's code, not ours
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return 1
        except ModuleNotFoundError as exc:
            # What need_training_extra did not check first: still one line, saying what to install.
            if (exc.name or "").partition(".")[0] not in TRAINING_EXTRA:
                raise
            print(f"{prog}: error: this needs the training extra (no module {exc.name!r}): {INSTALL_TRAINING_EXTRA}",
                  file=sys.stderr)
            return 2
        except Stopped as exc:  # SIGTERM, SIGHUP: handled as Ctrl-C is, the status the shell gives a kill
            print(f"\n{prog}: stopped by {signal.Signals(exc.signum).name}", file=sys.stderr)
            return 128 + exc.signum
        except KeyboardInterrupt:
            print(f"\n{prog}: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:
            # Whoever read the output has gone: nothing more can be printed, and Python's own
            # flush at exit must not fail either, so the rest goes nowhere.
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            except (OSError, ValueError):  # no real stdout (a test's captured one)
                pass
            return 1
