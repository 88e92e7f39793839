"""``ten record``: one game between named agents, written as a game record (JSON).

::

    ten record heuristic jen:5 random -o game.json     # a 3-player game between these agents
    ten record ppo-jen --level 7 -o game.json          # one agent against JEN at level 7
    ten record random --players 4 --seed 3 -o g.json   # one agent in every seat of a 4-player table

The agents are named as ``ten eval`` names them (``random``, ``heuristic``,
``jen:N``, ``search...``, a pretrained model or a ``.zip`` path). With
``--level`` one agent plays the solitaire game against JEN; otherwise 2-5
agents sit in the order given (seat 0 first, seat 0 starts), or one agent with
``--players N`` fills every seat. ``--seed`` (default 0) shuffles the deck: the game
is the first one ``ten eval --seed`` plays with the same agents. The record's format is
described in :mod:`ten_env.record`; a trained policy's steps carry its action
probabilities and value. ``ten view game.json`` turns a record into a page to
step through.

:func:`play_recorded` plays any recorder's game with agents, and
:func:`record_seeded_games` the first games of an evaluation exactly as
:func:`agents.tournament.seeded_games` plays them (``ten eval --save-games``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from agents.base import move_of, refusals_of
from agents.tournament import player_view, seeded_games
from ten_env import Rules
from ten_env.record import Recorder, save_record
from ten_env.rules import PLAYER_COUNTS

from .options import TRUST_HELP, at_least, check_writable, span, within

if TYPE_CHECKING:
    import argparse

    from agents.base import Player


def policy_note(agent: object, observation: dict, names: Callable[[int], str]) -> dict | None:
    """A trained policy's view of a decision: its value and its probability for each legal
    action, most likely first; ``None`` for an agent without a network (no ``evaluate``)."""
    evaluate = getattr(agent, "evaluate", None)
    if evaluate is None:
        return None
    mask = np.asarray(observation["action_mask"]).astype(bool)
    probs, values = evaluate(np.asarray(observation["observation"])[None], mask[None])
    ranked = sorted(np.flatnonzero(mask), key=lambda a: -probs[0][a])
    return {"value": round(float(values[0]), 4),
            "probs": [[names(int(a)), round(float(probs[0][a]), 4)] for a in ranked]}


def agent_move(rec: Recorder, agent: Player) -> list[dict]:
    """``agent``, in the seat to act in ``rec``'s game, takes its move (seeing
    :func:`~agents.tournament.player_view`), recorded with its network's view of it
    (:func:`policy_note`); the new steps, forced ones after it included."""
    game, seat = rec.game, rec.game.current_player
    assert seat is not None  # a game still to play
    observation, info = player_view(game, seat, agent)
    note = policy_note(agent, observation, game.action_name)
    action = move_of(agent, seat, observation, info)
    with refusals_of(agent, seat):
        return rec.act(action, policy=note)


def play_recorded(rec: Recorder, players: dict) -> None:
    """Play ``rec``'s game to the end; ``players[seat]`` is the agent in that seat."""
    while not rec.game.is_over:
        agent_move(rec, players[rec.game.current_player])


def record_seeded_games(agents: list, names: list[str], rules: Rules, n: int, seed: int) -> Iterator[Recorder]:
    """Yield a finished :class:`Recorder` for each of games 0 to ``n - 1`` of
    ``seeded_games(agents, rules, ..., seed)``, played by it (the same deck seeds, seat
    rotation and agent resets), so the same games; ``names[i]`` names ``agents[i]``."""

    def play(deck_seed: int, order: list[int]) -> Recorder:
        rec = Recorder(rules, [names[a] for a in order], seed=deck_seed)
        play_recorded(rec, {seat: agents[a] for seat, a in enumerate(order)})
        return rec

    for rec, _ in seeded_games(agents, rules, n, seed, play=play):
        yield rec


def add_record_arguments(parser: argparse.ArgumentParser) -> None:
    from ten_env.rules import JEN_LEVELS

    parser.add_argument("agents", nargs="+", metavar="AGENT", help="the agents, seat 0 first (as ten eval names them)")
    parser.add_argument("--level", type=within(JEN_LEVELS, "--level"), metavar=f"{{{span(JEN_LEVELS)}}}",
                        help="one agent against JEN at this level (the solitaire game)")
    # not ten play's player_count: its wording is about you and your opponents
    parser.add_argument("--players", type=within(PLAYER_COUNTS, "--players"), metavar="N",
                        help=f"the table size, {span(PLAYER_COUNTS)} seats; with one agent, it fills every seat")
    parser.add_argument("--seed", type=at_least(0, "--seed"), default=0, help="deck shuffle seed (default 0)")
    parser.add_argument("--bust-buy", action="store_true", help="the busting variant")
    parser.add_argument("-o", "--out", required=True, metavar="GAME.json", help="where to write the record")
    parser.add_argument("--overwrite", action="store_true", help="-o may replace an existing file")
    parser.add_argument("--trust-model", action="store_true", help=TRUST_HELP)


def run(args: argparse.Namespace) -> int:
    """``ten record``: check everything, play the game, write the record; 0."""
    from agents.base import agent_label
    from .runner import seat_agents

    specs = [s.strip() for s in args.agents]
    loaded: dict = {}  # one agent per seat, loaded once: an unknown name is the first thing to hear about
    seat_agents(tuple(specs), loaded, args.trust_model)
    if args.level is not None:
        if args.players not in (None, 2):
            raise ValueError(f"--level {args.level} is the solitaire game, 2 players: leave out --players "
                             f"(got --players {args.players})")
        if len(specs) != 1:
            raise ValueError(f"--level {args.level} is the solitaire game: give one agent to play JEN, "
                             f"got {len(specs)}")
        rules = Rules(num_players=2, jen_level=args.level, bust_buy=args.bust_buy)
    else:
        if len(specs) == 1 and args.players is not None:
            specs = specs * args.players
        if args.players is not None and len(specs) != args.players:
            raise ValueError(f"--players {args.players} does not fit {len(specs)} agents: give one agent "
                             f"to fill every seat, or one agent per seat")
        if len(specs) not in PLAYER_COUNTS:
            raise ValueError(f"give {span(PLAYER_COUNTS)} agents for a normal game, or one agent with "
                             f"--level (against JEN) or --players N; got {len(specs)}")
        rules = Rules(num_players=len(specs), bust_buy=args.bust_buy)
    out = check_writable(args.out, args.overwrite, "-o")
    agents = seat_agents(tuple(specs), loaded, args.trust_model)  # the agents loaded above, one more per extra seat
    names = [agent_label(agent) for agent in agents]
    rec = next(record_seeded_games(agents, names, rules, 1, args.seed))
    save_record(rec.to_dict(), out)
    print(rec.steps[-1]["events"][-1]["text"])
    print(f"saved {out} ({len(rec.steps)} actions); see it with: ten view {out}")
    return 0
