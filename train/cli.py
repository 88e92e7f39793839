"""The ``ten`` command: ``ten demo`` plays a game between scripted players and prints it."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ten_env import Game, Rules
from ten_env.render import render_table


def _demo(args) -> int:
    from agents import RandomAgent

    rules = Rules(num_players=args.players, bust_buy=args.bust_buy, jen_level=args.jen)
    game = Game(rules, seed=args.seed)
    players = [RandomAgent(seed=args.seed * 100 + seat) for seat in range(rules.num_players)]
    turn = 0
    while not game.is_over:
        if game.turn != turn:
            turn = game.turn
            print(render_table(game), end="\n\n")
        mask = np.zeros(game.num_actions, dtype=np.int8)
        mask[game.legal_actions()] = 1
        game.act(players[game.current_player].act({"action_mask": mask}))
    print(render_table(game))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ten", description="TEN: play, train and benchmark.")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play and print one game between random players")
    demo.add_argument("--players", type=int, default=3, choices=range(2, 6), metavar="{2-5}")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--bust-buy", action="store_true", help="the busting variant")
    demo.add_argument("--jen", type=int, choices=range(4, 11), metavar="{4-10}",
                      help="solitaire game against JEN at this level (needs --players 2)")
    demo.set_defaults(run=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ValueError as exc:  # a mistake in the input: say what, without a traceback
        print(f"ten: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
