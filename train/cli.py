"""The ``ten`` command.

- ``ten train CONFIG.yaml``: train an agent from a config file (:mod:`train.trainer`).
- ``ten eval AGENT``: the JEN ladder or matchups, with honest statistics (:mod:`train.evaluate`).
- ``ten play``: play against JEN (``--level``) or scripted agents at the terminal.
- ``ten demo``: watch one game between random players.
- ``ten bench``: speed of the engine and of the PettingZoo environment.
"""

from __future__ import annotations

import argparse
import sys

from ten_env import Game, Rules
from ten_env.render import render_table

from .evaluate import add_arguments as add_eval_arguments
from .evaluate import at_least


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, got {text!r}")
    return value


def _demo(args) -> int:
    from agents import RandomAgent
    from agents.tournament import play_game

    rules = Rules(num_players=args.players, bust_buy=args.bust_buy, jen_level=args.jen)
    game = Game(rules, seed=args.seed)
    seats = rules.num_agents
    players = [RandomAgent(seed=args.seed * 100 + seat) for seat in range(seats)]
    play_game(game, players)
    print(render_table(game))
    return 0


def _play(args) -> int:
    from agents.registry import make_agent

    if args.level is not None:
        if args.opponents:
            raise ValueError("--level plays the solitaire game against JEN: leave out --opponents")
        rules = Rules(num_players=2, jen_level=args.level, bust_buy=args.bust_buy, payment=args.payment)
        opponents = []
    else:
        names = args.opponents.split(",") if args.opponents else ["heuristic"]
        rules = Rules(num_players=len(names) + 1, bust_buy=args.bust_buy, payment=args.payment)
        opponents = [make_agent(name, seed=i) for i, name in enumerate(names)]
    from .play import play

    return play(rules, opponents, seed=args.seed)


def _train(args) -> int:
    from .config import load_config

    config = load_config(args.config, args.set or [])
    from .trainer import train

    path = train(config, resume=args.resume, overwrite=args.overwrite, progress=not args.no_progress,
                 final_eval=not args.no_eval, verbose=args.verbose)
    print(f"model saved to {path}")
    return 0


def _eval(args) -> int:
    from .evaluate import run

    return run(args)


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="a YAML config file (see configs/)")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE",
                        help="override a config value, e.g. --set train.total_steps=200000 (repeatable)")
    parser.add_argument("--resume", action="store_true", help="continue the run in the output folder")
    parser.add_argument("--overwrite", action="store_true", help="replace a run already in the output folder")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-eval", action="store_true", help="skip the final evaluation")
    parser.add_argument("--verbose", type=int, default=0, choices=(0, 1, 2), help="SB3 verbosity")
    parser.set_defaults(run=_train)


def _bench(args) -> int:
    from .bench import main as bench_main

    return bench_main(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ten", description="TEN: train, evaluate, play, benchmark.")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play a game at the terminal",
                          description="Play TEN at the terminal: the solitaire game against JEN "
                                      "(--level) or a normal game against agents (--opponents).")
    play.add_argument("--level", type=int, choices=range(4, 11), metavar="{4-10}",
                      help="solitaire game against JEN at this level")
    play.add_argument("--opponents", metavar="A,B,...",
                      help="comma-separated opponents for a normal game: random, heuristic, jen:N, "
                           "or a model (default: heuristic)")
    play.add_argument("--seed", type=at_least(0, "--seed"), default=None, help="deck shuffle seed")
    play.add_argument("--bust-buy", action="store_true", help="the busting variant")
    play.add_argument("--payment", choices=("auto", "manual"), default="auto",
                      help="pay automatically (default) or pick each coin and card")
    play.set_defaults(run=_play)

    demo = sub.add_parser("demo", help="watch one game between random players")
    demo.add_argument("--players", type=int, default=3, choices=range(2, 6), metavar="{2-5}")
    demo.add_argument("--seed", type=at_least(0, "--seed"), default=0)
    demo.add_argument("--bust-buy", action="store_true", help="the busting variant")
    demo.add_argument("--jen", type=int, choices=range(4, 11), metavar="{4-10}",
                      help="solitaire game against JEN at this level (needs --players 2)")
    demo.set_defaults(run=_demo)

    add_train_arguments(sub.add_parser(
        "train", help="train an agent from a config file",
        description="Train MaskablePPO on TEN as a YAML config describes, then evaluate it."))


    evaluation = sub.add_parser(
        "eval", help="how strong an agent is: the JEN ladder or matchups",
        description="Evaluate an agent (a model file, a pretrained name, random, heuristic or jen:N) "
                    "against the JEN ladder or chosen opponents, with 95% Wilson intervals.")
    add_eval_arguments(evaluation)
    evaluation.set_defaults(run=_eval)

    bench = sub.add_parser("bench", help="measure speed against PettingZoo's classic card games")
    bench.add_argument("--seconds", type=_positive_seconds, default=5.0, help="time per measurement (default 5)")
    bench.set_defaults(run=_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    return _run_safely(build_parser().parse_args(argv))


def _run_safely(args) -> int:
    try:
        return args.run(args)
    except ValueError as exc:  # a mistake in the input: say what, without a traceback
        message = " ".join(str(exc).split())
        if len(message) > 600:  # some library messages print whole arrays
            message = message[:600] + " ..."
        print(f"ten: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nten: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
