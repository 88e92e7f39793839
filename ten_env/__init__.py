"""ten-env: the card game TEN as a reinforcement-learning environment.

The rules core: :class:`Rules` (which game), :class:`Game` (one game: state,
legal actions, acting, scores) and :func:`score` (a collection's points).
"""

from .cards import parse as parse_card
from .game import Game
from .rules import Rules
from .scoring import score

__version__ = "0.1.0"

__all__ = ["Game", "Rules", "score", "parse_card", "__version__"]
