"""The ``ten`` command.

- ``ten train CONFIG.yaml``: train an agent from a config file (:mod:`train.trainer`).
- ``ten eval AGENT``: the JEN ladder or matchups, with honest statistics (:mod:`train.evaluate`).
- ``ten league AGENT AGENT ...``: every agent against the others, with ratings (:mod:`train.league`).
- ``ten play``: play against JEN (``--level``) or scripted agents at the terminal, or in the
  browser (``--web``, :mod:`train.webplay`).
- ``ten demo``: watch one game between random players, turn by turn.
- ``ten record AGENT ...``: one game between agents, saved as a game record (:mod:`train.record`).
- ``ten view GAME.json``: a game record as a page to step through in a browser (:mod:`train.view`).
- ``ten distill generate|train``: expert iteration, a search agent's decisions distilled into a
  network (:mod:`train.distill`).
- ``ten compare REPORT.json ...``: ``ten eval`` reports side by side, ``--paired`` deal by deal
  (:mod:`train.compare`).
- ``ten bench``: speed of the engine and of the PettingZoo environment.

``ten`` alone prints the help; ``ten --version`` the installed version. Every
mistake in the input ends as one line with status 2: ``ten CMD: error: ...`` from the
argument parser, ``ten: error: ...`` from a value the command refuses
(:func:`train.options.run_command`).
"""

from __future__ import annotations

import argparse
import os
import sys

from agents.registry import NAMES_HELP
from ten_env import Rules
from ten_env.rules import JEN_LEVELS, PAYMENTS, PLAYER_COUNTS

from .options import (OPPONENT_COUNTS, TABLE_HELP, Parser, add_eval_arguments, add_trust_argument, at_least, int_range,
                      check_writable, parse_opponents, real_number, run_command, span, within)


def version() -> str:
    """The installed ten-env's version (the package's own where it is not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("ten-env")
    except PackageNotFoundError:
        from ten_env import __version__

        return __version__


MAX_BENCH_SECONDS = 3600.0  # a row; a typo of many zeros would otherwise run for days
_bench_seconds = real_number("--seconds", f"a number of seconds above 0 and at most {MAX_BENCH_SECONDS:g}",
                             lambda value: 0 < value <= MAX_BENCH_SECONDS)
MAX_DELAY = 3600.0  # an hour a turn is already no demo; far beyond, time.sleep overflows
_pause = real_number("--delay", f"a number of seconds from 0 to {MAX_DELAY:g}", lambda value: 0 <= value <= MAX_DELAY)


def _demo(args: argparse.Namespace) -> int:
    from agents import RandomAgent
    from ten_env.record import Recorder

    from .play import watch

    players = args.players if args.players is not None else (2 if args.jen is not None else 3)
    if args.jen is not None and players != 2:
        raise ValueError(f"--jen {args.jen} is the solitaire game (a random player and JEN): it needs --players 2, "
                         f"got --players {players}")
    rules = Rules(num_players=players, bust_buy=args.bust_buy, jen_level=args.jen)
    seats = rules.num_agents
    agents = {seat: RandomAgent(seed=args.seed * 100 + seat) for seat in range(seats)}
    names = ["random"] * seats
    watch(Recorder(rules, names, seed=args.seed), agents, delay=args.delay)
    return 0


def _play(args: argparse.Namespace) -> int:
    from .runner import load_agent

    if args.level is not None:
        if args.opponents is not None:
            raise ValueError("--level plays the solitaire game against JEN: leave out --opponents")
        rules = Rules(num_players=2, jen_level=args.level, bust_buy=args.bust_buy, payment=args.payment)
        opponents = []
    else:
        names = parse_opponents(args.opponents) if args.opponents is not None else ["heuristic"]
        if len(names) not in OPPONENT_COUNTS:
            raise ValueError(f"--opponents: give {span(OPPONENT_COUNTS)} agents ({TABLE_HELP}), "
                             f"got {len(names)}")
        rules = Rules(num_players=len(names) + 1, bust_buy=args.bust_buy, payment=args.payment)
        opponents = [load_agent(name, seed=i, trust=args.trust_model) for i, name in enumerate(names)]
        for name, agent in zip(names, opponents):
            if getattr(agent, "sees_deck_order", False):
                print(f"note: {name} sees the order of the deck: it cheats (a ceiling, not a fair opponent)",
                      file=sys.stderr)
    if args.overwrite and args.save is None:
        raise ValueError("--overwrite lets --save replace a file: give --save too")
    save = check_writable(args.save, args.overwrite, "--save") if args.save is not None else None
    if args.web:
        from agents.base import agent_label
        from .webplay import DEFAULT_PORT, WebGame, make_server, serve

        server = make_server(DEFAULT_PORT if args.port is None else args.port)
        players = dict(enumerate(opponents, 1))
        names = ["you"] + [agent_label(agent) for agent in opponents]
        return serve(server, WebGame(rules, players, names, seed=args.seed, save=save))
    if args.port is not None:
        raise ValueError("--port is the port of ten play --web: give --web too")
    from .play import play

    return play(rules, opponents, seed=args.seed, save=save)


def _record(args: argparse.Namespace) -> int:
    from .record import run

    return run(args)


def _view(args: argparse.Namespace) -> int:
    from .view import run

    return run(args)


def _train(args: argparse.Namespace) -> int:
    import importlib.util

    from ten_env.extras import install_hint

    from .options import TRAINING_EXTRA

    # before the config is read (it says the backend) and anything is written; found, not imported as
    # need_training_extra does: importing the whole extra takes some 3.5 s, which a config's mistake should
    # not wait for
    missing = next((module for module in TRAINING_EXTRA if importlib.util.find_spec(module) is None), None)
    if missing:
        raise ValueError(f"ten train needs the training extra (no module {missing!r}): {install_hint('train')}; "
                         f"for a config with backend: rllib, the rllib extra, which holds all of it: "
                         f"{install_hint('rllib')}")
    from .config import load_config

    unused: list[str] = []
    config = load_config(args.config, args.set or [], unused)
    for note in unused:
        print(f"ten: warning: {note}", file=sys.stderr)
    from .trainer import train

    path = train(config, resume=args.resume, overwrite=args.overwrite, progress=not args.no_progress,
                 final_eval=not args.no_eval, verbose=args.verbose, address=args.address, trust=args.trust_model)
    print(f"model saved to {path}")
    return 0


def _eval(args: argparse.Namespace) -> int:
    from .evaluate import run  # the evaluator is loaded only for ten eval

    return run(args)


def _league(args: argparse.Namespace) -> int:
    from .league import run  # loaded only for ten league

    return run(args)


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="a YAML config file (see configs/)")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE",
                        help="override a config value, e.g. --set train.total_steps=200000 (repeatable)")
    parser.add_argument("--resume", action="store_true", help="continue the run in the output folder")
    parser.add_argument("--overwrite", action="store_true", help="replace a run already in the output folder")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-eval", action="store_true", help="skip the final evaluation")
    parser.add_argument("--verbose", type=int_range(0, 2, "--verbose"), default=0, metavar="{0,1,2}",
                        help="1 or 2: SB3's verbosity (rllib: none), and a line each time the curriculum climbs "
                             "(both backends)")
    parser.add_argument("--address", metavar="HOST:PORT",
                        help="backend rllib: join this running Ray cluster (e.g. auto, 10.0.0.5:6379) "
                             "instead of ray.address or a local Ray")
    parser.add_argument("--trust-model", action="store_true",
                        help="backend rllib: let --resume load the run's RLlib checkpoint, which is pickled "
                             "(this runs code from it: only for run folders you trust)")
    parser.set_defaults(run=_train)


def _bench(args: argparse.Namespace) -> int:
    from .bench import main as bench_main

    return bench_main(args)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="ten", description="TEN: train, evaluate, play, benchmark.")
    parser.add_argument("--version", action="version", version=f"ten-env {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="play a game at the terminal, or in the browser (--web)",
                          description="Play TEN at the terminal, or in the browser with --web: the solitaire "
                                      "game against JEN (--level) or a normal game against agents (--opponents).")
    play.add_argument("--level", type=within(JEN_LEVELS, "--level"), metavar=f"{{{span(JEN_LEVELS)}}}",
                      help="solitaire game against JEN at this level")
    play.add_argument("--opponents", metavar="A,B,...",
                      help=f"comma-separated opponents for a normal game, {span(OPPONENT_COUNTS)} of them, "
                           f"each any agent ten eval takes: {NAMES_HELP} (default: heuristic)")
    play.add_argument("--seed", type=at_least(0, "--seed"), default=None, help="deck shuffle seed")
    play.add_argument("--bust-buy", action="store_true", help="the busting variant")
    play.add_argument("--payment", choices=PAYMENTS, default="auto",
                      help="pay automatically (default) or pick each coin and card")
    play.add_argument("--web", action="store_true",
                      help="play in the browser: serve the game on 127.0.0.1 (see --port)")
    play.add_argument("--port", type=within(range(0, 65536), "--port"), default=None,
                      help="the port of --web (default 8000; 0 picks a free one)")
    play.add_argument("--save", metavar="GAME.json", help="write the game's record here (for ten view)")
    play.add_argument("--overwrite", action="store_true", help="--save may replace an existing file")
    add_trust_argument(play)
    play.set_defaults(run=_play)

    demo = sub.add_parser("demo", help="watch one game between random players, turn by turn",
                          description="Watch one game between random players (or a random player against JEN, "
                                      "--jen), told turn by turn at the terminal.")
    demo.add_argument("--players", type=within(PLAYER_COUNTS, "--players"), default=None,
                      metavar=f"{{{span(PLAYER_COUNTS)}}}", help="players at the table (default 3; 2 with --jen)")
    demo.add_argument("--seed", type=at_least(0, "--seed"), default=0, help="deck shuffle seed (default 0)")
    demo.add_argument("--bust-buy", action="store_true", help="the busting variant")
    demo.add_argument("--jen", type=within(JEN_LEVELS, "--jen"), metavar=f"{{{span(JEN_LEVELS)}}}",
                      help="solitaire game against JEN at this level (2 players: a random player and JEN)")
    demo.add_argument("--delay", type=_pause, default=0.0, metavar="SECONDS",
                      help="pause this long after each turn (default: no pause)")
    demo.set_defaults(run=_demo)

    from .record import add_record_arguments
    from .view import add_view_arguments

    record = sub.add_parser(
        "record", help="one game between agents, saved as a game record (JSON)",
        description="Play one game between the agents given (seat 0 first), or one agent against JEN "
                    "(--level), and write every event of it to a game record for ten view.")
    add_record_arguments(record)
    record.set_defaults(run=_record)

    view = sub.add_parser(
        "view", help="a game record as a page to step through in a browser",
        description="Write a game record as one self-contained HTML page (no server, no network): "
                    "step through the game with its buttons or the arrow keys.")
    add_view_arguments(view)
    view.set_defaults(run=_view)

    add_train_arguments(sub.add_parser(
        "train", help="train an agent from a config file",
        description="Train an agent on TEN as a YAML config describes (MaskablePPO, or RLlib's PPO "
                    "with backend: rllib), then evaluate it."))

    evaluation = sub.add_parser(
        "eval", help="how strong an agent is: the JEN ladder or matchups",
        description="Evaluate an agent (a model file, a pretrained name, random, heuristic, jen:N, search, "
                    "oracle, or your own as <module>:<name> or <file.py>:<name>) against the JEN ladder or "
                    "chosen opponents, with 95% Wilson intervals.")
    add_eval_arguments(evaluation)
    evaluation.set_defaults(run=_eval)

    league = sub.add_parser(
        "league", help="every agent against the others at N-player tables, with ratings",
        description="A league: every combination of --players agents plays --games games (same deck "
                    "seeds, seats rotated); Bradley-Terry ratings with 95% bootstrap intervals, a table, "
                    "league.json and league.png.")
    from .league import add_league_arguments

    add_league_arguments(league)
    league.set_defaults(run=_league)

    from . import compare

    comparison = sub.add_parser(
        "compare", help="JEN ladders of several agents in one table and one plot",
        description="Show the JEN ladders of several ten eval reports side by side (-o: one PNG); reports "
                    "of one agent on different deck seeds are combined into one. --paired also compares "
                    "every other agent with the first on the deals both played.")
    compare.add_arguments(comparison)
    comparison.set_defaults(run=compare.run)

    from . import distill

    distillation = sub.add_parser(
        "distill", help="expert iteration: a search agent's decisions as data, a network trained on them",
        description="Expert iteration: ten distill generate plays a search agent against JEN and saves its "
                    "decisions (visit counts, outcomes); ten distill train trains a model's network on them.")
    distill.add_arguments(distillation)

    bench = sub.add_parser("bench", help="measure speed against PettingZoo's classic card games",
                           description="Time random legal play in the engine, through ten_env.env() and with "
                                       "the derived features, in decisions a second, each as a ratio to a peer "
                                       "timed in turns with it in the same run (RLCard's Leduc core, "
                                       "PettingZoo's leduc_holdem_v4 with texas_holdem_no_limit_v6 beside it, "
                                       "the plain SoloEnv).")
    bench.add_argument("--seconds", type=_bench_seconds, default=5.0,
                       help="time for each row, in turns of up to 0.5 s (default 5; ten rows)")
    bench.set_defaults(run=_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    # Before torch loads: the networks here are small MLPs fed one position (or a search's
    # batch of 8) at a time, for which a second thread gives nothing, and on a busy machine
    # its waiting made a search at --jobs 1 about a hundred times slower. Workers do the same.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # plain `ten`: what it can do
        parser.print_help()
        return 0
    return _run_safely(args)


def _run_safely(args: argparse.Namespace, prog: str = "ten") -> int:
    return run_command(prog, args.run, args)


if __name__ == "__main__":
    sys.exit(main())
