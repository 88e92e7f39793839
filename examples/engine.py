"""The rules engine without an environment: ``Game``, ``act``, legal actions, snapshots, ``score``.

This is the README's rules-engine snippet made into a whole game. It shows:

- ``Game(Rules(...), seed=...)`` (or ``deck=[...]``, top first, for a stacked deck);
- ``game.legal_action_names()`` and ``game.act(name)`` (an id works too);
- ``game.snapshot()``: the public state as plain data;
- ``game.clone()``: an independent copy, e.g. to look ahead in a search;
- ``ten_env.score(cards)``: the points a collection of cards is worth;
- ``game.scores()`` and ``game.winners()`` at the end.

Every seat plays a simple push-your-luck rule: keep drawing while the net total
is below 6, then take the numbers; decline bids and buys.

Run it from the repository root (after ``pip install -e .``)::

    python examples/engine.py --seed 7
"""

import argparse

from ten_env import Game, Rules, score


def choose(game: Game) -> str:
    """The simple rule every seat plays, by action name."""
    legal = game.legal_action_names()
    if "draw" in legal:
        if game.snapshot()["net_total"] >= 6 and "stop_numbers" in legal:
            return "stop_numbers"
        return "draw"
    if "pass" in legal:
        return "pass"
    return legal[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="deck shuffle seed")
    parser.add_argument("--players", type=int, default=3, choices=range(2, 6), metavar="{2-5}",
                        help="2-5 players (default 3)")
    args = parser.parse_args(argv)

    print(f"score(['B1', 'B2', 'W3', 'G#', 'G7']) = {score(['B1', 'B2', 'W3', 'G#', 'G7'])}")

    game = Game(Rules(num_players=args.players), seed=args.seed)
    snap = game.snapshot()
    print(f"start: phase {snap['phase']}, tableau {snap['tableau']}, deck {snap['deck_size']} cards, "
          f"seat {game.current_player} to act: {game.legal_action_names()}")

    # A clone is independent: play it to the end without touching the game.
    look_ahead = game.clone()
    while not look_ahead.is_over:
        look_ahead.act(choose(look_ahead))
    print(f"clone played out: scores {look_ahead.scores()}; the game is still at turn {game.snapshot()['turn']}")

    moves = 0
    while not game.is_over:
        game.act(choose(game))
        moves += 1
    print(f"moves: {moves}")
    for seat, player in enumerate(game.snapshot()["players"]):
        print(f"seat {seat}: {len(player['cards'])} cards, score {player['score']}")
    print(f"scores: {' '.join(str(s) for s in game.scores())}")
    print(f"winners: {' '.join(str(seat) for seat in game.winners())}")
    print(f"same as the clone: {game.scores() == look_ahead.scores()}")


if __name__ == "__main__":
    main()
