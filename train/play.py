"""``ten play``: a person at the terminal plays TEN against JEN or scripted agents.

The table is shown before each of your decisions, with the legal actions
numbered; answer with the number or the action's name (``draw``, ``bid_5``,
``buy_G3`` ...). ``help`` explains, ``quit`` leaves (a normal exit, status 0).
A wrong entry gets a short message and the prompt again. Works with standard
input from a program, too; input that ends before the game does gives status 1.
"""

from __future__ import annotations

import sys
from typing import TextIO

from agents.tournament import player_view
from ten_env import Game, Rules
from ten_env.render import render_table

HELP = """Answer with the number shown before an action, or its name.
  draw / stop_numbers / stop_currency   draw another card, or stop and take a reward
  bid_N / pass                          bid N for the wildcard, or pass
  buy_<card> / pass                     buy that market card, or buy nothing
  pay_coin / pay_bust / pay_<card>      pay with a coin, a bust token (3) or a card (1)
Cards: B3 = blue 3 (colours B G O P), W3 = any-colour 3, B# = any blue number,
W# = anything, $4 = currency worth 4.  'quit' leaves the game."""


def play(rules: Rules, opponents: list, seat: int = 0, seed: int | None = None,
         stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Run one game with a person in ``seat``; the exit status: 0 when the game ends or the
    person quits, 1 when the input ends first."""
    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    game = Game(rules, seed=seed)
    players = {}
    others = [s for s in range(rules.num_agents) if s != seat]
    for s, agent in zip(others, opponents):
        players[s] = agent
    while not game.is_over:
        current = game.current_player
        if current != seat:
            game.act(players[current].act(*player_view(game, current, players[current])))
            continue
        print(render_table(game, me=seat), file=out)
        legal = game.legal_action_names()
        print("your move: " + "  ".join(f"[{i}] {name}" for i, name in enumerate(legal, 1)), file=out)
        while True:
            print("> ", end="", file=out, flush=True)
            line = stdin.readline()
            if not line:
                print("\nno more input: leaving the game", file=out)
                return 1
            answer = line.strip()
            if answer in ("quit", "exit", "q"):
                print("you left the game", file=out)
                return 0
            if answer in ("help", "?", "h"):
                print(HELP, file=out)
                continue
            if answer.isdigit() and 1 <= int(answer) <= len(legal):
                answer = legal[int(answer) - 1]
            if answer in legal:
                game.act(answer)
                break
            print(f"{answer!r} is not one of your moves now; type a number from 1 to "
                  f"{len(legal)}, an action name, or 'help'", file=out)
        print(file=out)
    print(render_table(game, me=seat), file=out)
    scores, winners = game.scores(), game.winners()
    if rules.solitaire:
        verdict = "you beat JEN!" if winners == [seat] else "JEN wins."
    elif seat in winners:
        verdict = "you win!" if len(winners) == 1 else "you share the win."
    else:
        verdict = "you lose."
    print(f"final scores {scores}: {verdict}", file=out)
    return 0
