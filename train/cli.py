"""The ``ten`` command.

- ``ten play``: play against JEN (``--level``) or scripted agents at the terminal.
- ``ten demo``: watch one game between random players.
- ``ten bench``: speed of the engine and of the PettingZoo environment.
"""

from __future__ import annotations

import argparse
import sys

from ten_env import Game, Rules
from ten_env.render import render_table


def _demo(args) -> int:
    from agents import RandomAgent
    from agents.tournament import play_game

    rules = Rules(num_players=args.players, bust_buy=args.bust_buy, jen_level=args.jen)
    game = Game(rules, seed=args.seed)
    seats = 1 if rules.solitaire else rules.num_players
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


def _bench(args) -> int:
    from .bench import main as bench_main

    return bench_main(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ten", description="TEN: play, watch, benchmark.")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play a game at the terminal",
                          description="Play TEN at the terminal: the solitaire game against JEN "
                                      "(--level) or a normal game against agents (--opponents).")
    play.add_argument("--level", type=int, choices=range(4, 11), metavar="{4-10}",
                      help="solitaire game against JEN at this level")
    play.add_argument("--opponents", metavar="A,B,...",
                      help="comma-separated opponents for a normal game: random, heuristic, jen:N, "
                           "or a model (default: heuristic)")
    play.add_argument("--seed", type=int, default=None, help="deck shuffle seed")
    play.add_argument("--bust-buy", action="store_true", help="the busting variant")
    play.add_argument("--payment", choices=("auto", "manual"), default="auto",
                      help="pay automatically (default) or pick each coin and card")
    play.set_defaults(run=_play)

    demo = sub.add_parser("demo", help="watch one game between random players")
    demo.add_argument("--players", type=int, default=3, choices=range(2, 6), metavar="{2-5}")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--bust-buy", action="store_true", help="the busting variant")
    demo.add_argument("--jen", type=int, choices=range(4, 11), metavar="{4-10}",
                      help="solitaire game against JEN at this level (needs --players 2)")
    demo.set_defaults(run=_demo)

    bench = sub.add_parser("bench", help="measure speed against PettingZoo's classic card games")
    bench.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    bench.set_defaults(run=_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ValueError as exc:  # a mistake in the input: say what, without a traceback
        print(f"ten: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nten: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
