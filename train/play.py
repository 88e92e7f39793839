"""``ten play``: a person at the terminal plays TEN against JEN or scripted agents.

Everything that happens is told as it happens, yours and the agents' moves alike:
each card drawn with the tableau's running net and currency totals, a bust and
its reason, who gained coins and why, bids, payments, buys and the final
scores with any tie-break (the events of :mod:`ten_env.record`). The table is
shown before each of your decisions, seats labelled with the agents' names, with
the legal actions numbered and the price beside each buy; answer with the
number or the action's name (``draw``, ``bid_5``, ``buy_G3`` ...). ``help``
explains, ``quit`` leaves (a normal exit, status 0). A wrong entry gets a short
message and the prompt again. Works with standard input from a program, too;
input that ends before the game does gives status 1. ``save`` (``--save``)
writes the game's record when the game ends or is left, for ``ten view``.

:func:`watch` tells a game between agents turn by turn (``ten demo``).
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, TextIO

from agents.base import agent_label
from ten_env import Rules
from ten_env import cards as C
from ten_env.payment import price
from ten_env.record import Recorder, save_record
from ten_env.render import render_table

from .record import agent_move

if TYPE_CHECKING:
    from pathlib import Path

HELP = """Answer with the number shown before an action, or its name.
  draw / stop_numbers / stop_currency   draw another card, or stop and take a reward
  bid_N / pass                          bid N for the wildcard, or pass
  buy_<card> / pass                     buy that market card, or buy nothing
  pay_coin / pay_bust / pay_<card>      pay with a coin, a bust token (3) or a card (1)
Cards: B3 = blue 3 (colours B G O P), W3 = any-colour 3, B# = any blue number,
W# = anything, $4 = currency worth 4.  'quit' leaves the game."""


def tell(steps: list[dict], out: TextIO) -> None:
    """Print the events of ``steps``, one line each."""
    for step in steps:
        for event in step["events"]:
            print("  " + event["text"], file=out)


def move_label(name: str) -> str:
    """An action as the prompt offers it: a buy with its price."""
    return f"{name} ({price(C.parse(name.removeprefix('buy_')))})" if name.startswith("buy_") else name


def play(rules: Rules, opponents: list, seat: int = 0, seed: int | None = None,
         stdin: TextIO | None = None, stdout: TextIO | None = None, save: str | Path | None = None) -> int:
    """Run one game with a person in ``seat``; the exit status: 0 when the game ends or the
    person quits, 1 when the input ends first. ``save``: a path to write the record to when
    the game ends or is left."""
    if stdin is None:
        stdin = sys.stdin  # None when it was closed: no input at all
        if hasattr(stdin, "reconfigure"):
            # bytes the terminal's encoding cannot read become a move that is not one, not an error
            stdin.reconfigure(errors="replace")
    out = stdout or sys.stdout
    players = {}
    others = [s for s in range(rules.num_agents) if s != seat]
    for s, agent in zip(others, opponents):
        players[s] = agent
    names = ["you" if s == seat else agent_label(players[s]) for s in range(rules.num_agents)]
    rec = Recorder(rules, names, seed=seed)
    try:
        return _play(rec, players, seat, stdin, out)
    finally:
        if save is not None:
            save_record(rec.to_dict(), save)
            print(f"saved {save}", file=out)


def _play(rec: Recorder, players: dict, seat: int, stdin: TextIO, out: TextIO) -> int:
    game, rules, names = rec.game, rec.rules, rec.names
    print("answer each move with its number or name; 'help' explains the moves, 'quit' leaves", file=out)
    tell(rec.steps, out)
    while not game.is_over:
        current = game.current_player
        if current != seat:
            tell(agent_move(rec, players[current]), out)
            continue
        print(file=out)
        print(render_table(game, me=seat, names=names, last_moves=False), file=out)
        legal = game.legal_action_names()
        print("your move: " + "  ".join(f"[{i}] {move_label(name)}" for i, name in enumerate(legal, 1)), file=out)
        while True:
            print("> ", end="", file=out, flush=True)
            try:
                line = stdin.readline() if stdin is not None else ""
            except KeyboardInterrupt:
                print(file=out)  # what follows (the record saved) on a line of its own
                raise
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
            # ASCII digits only, and few of them: "²" is a digit to isdigit(), and int() refuses huge strings
            if answer.isascii() and answer.isdigit() and len(answer) <= 4 and 1 <= int(answer) <= len(legal):
                answer = legal[int(answer) - 1]
            if answer in legal:
                tell(rec.act(answer), out)
                break
            shown = answer if len(answer) <= 40 else answer[:37] + "..."
            print(f"{shown!r} is not one of your moves now; type a number from 1 to "
                  f"{len(legal)}, an action name, or 'help'", file=out)
    print(file=out)
    print(render_table(game, me=seat, names=names, last_moves=False), file=out)
    scores, winners = game.scores(), game.winners()
    if rules.solitaire:
        verdict = "you beat JEN!" if winners == [seat] else "JEN wins."
    elif seat in winners:
        verdict = "you win!" if len(winners) == 1 else "you share the win."
    else:
        verdict = "you lose."
    print(f"final scores {scores}: {verdict}", file=out)
    return 0


def watch(rec: Recorder, players: dict, delay: float = 0.0, out: TextIO | None = None) -> None:
    """Play ``rec``'s game between agents (``players[seat]``), telling it turn by turn: each
    turn's events, then the table; ``delay`` seconds between turns."""
    out = out or sys.stdout
    game = rec.game

    def table() -> None:
        print(render_table(game, names=rec.names, last_moves=False), file=out, flush=True)

    print(f"  turn {game.turn}: {rec.labels[game.active_player]} draws", file=out)  # as tell() prints later turns
    tell(rec.steps, out)
    while not game.is_over:
        steps = agent_move(rec, players[game.current_player])
        tell(steps, out)
        if not game.is_over and any(e["kind"] in ("turn", "final_buy") for step in steps for e in step["events"]):
            table()
            print(file=out, flush=True)
            if delay:
                time.sleep(delay)
    table()
