"""Helpers for scenario tests on stacked decks (imported by the rule test files)."""

from ten_env import Game, Rules


def new_game(deck, **rules):
    """A game on a stacked deck (top card first)."""
    return Game(Rules(**rules), deck=list(deck))


def play(game, *actions):
    """Take the actions in turn (names or ids); returns the game."""
    for action in actions:
        game.act(action)
    return game


def player(game, seat):
    """The snapshot of one seat: coins, bust tokens, cards, score."""
    return game.snapshot()["players"][seat]


def legal(game):
    return game.legal_action_names()
